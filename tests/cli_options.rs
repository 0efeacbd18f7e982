//! The command line as a user meets it: selectors validated with
//! suggestions, honest summaries (what was read, skipped, not found),
//! `--exit-zero`, `--format concise`, `--statistics`, `--show-files`,
//! `fix --format json`, diffs that `patch -p1` applies to paths with spaces,
//! percent-encoded SARIF URIs, per-file-ignores relative to their config,
//! `rules`, `man`. Each test asserts exit codes and exact output.

mod support;

use std::path::Path;

use support::*;

/// A temporary copy of a case folder under a name of our choosing.
fn copy_to(case: &str, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for f in files_under(Path::new(case)) {
        std::fs::copy(&f, dir.join(f.file_name().unwrap())).unwrap();
    }
}

const USAGE_TAIL: &str = "\n\nFor more information, try '--help'.\n";

#[test]
fn selectors_on_the_command_line_are_validated_with_suggestions() {
    let case = "testdata/rules/DS101/fires";
    for (args, want) in [
        (
            vec!["--select", "DS999"],
            "error: invalid value 'DS999' for '--select <CODES>': `DS999` is no rule code or prefix (see `dslint rules`)",
        ),
        (
            vec!["--select", "ds1"],
            "error: invalid value 'ds1' for '--select <CODES>': `ds1` is no rule code or prefix (codes are upper case: did you mean `DS1`?)",
        ),
        (
            vec!["--select", "batch-mismatch"],
            "error: invalid value 'batch-mismatch' for '--select <CODES>': `batch-mismatch` is no rule code or prefix (`batch-mismatch` is the name of DS701: did you mean `DS701`?)",
        ),
        (
            vec!["--ignore", "DS1011"],
            "error: invalid value 'DS1011' for '--ignore <CODES>': `DS1011` is no rule code or prefix (did you mean `DS101`, streammux-batch-size?)",
        ),
        // An empty code (a trailing comma) would match every code as a prefix.
        (
            vec!["--ignore", "DS208,"],
            "error: invalid value '' for '--ignore <CODES>': empty rule code (a stray comma?)",
        ),
    ] {
        let mut full = vec!["check", case];
        full.extend(&args);
        let (rc, out, err) = dslint(&full);
        assert_eq!((rc, out.as_str()), (2, ""), "{args:?}");
        assert_eq!(err, format!("{want}{USAGE_TAIL}"), "{args:?}");
    }
    // Codes, families and ALL are accepted; DS009 is a code like the others.
    for sel in ["DS101", "DS1", "DS", "ALL"] {
        let (rc, out, _) = dslint(&["check", case, "--select", sel, "--format", "concise", "--quiet"]);
        assert_eq!(rc, 1, "{sel}");
        assert!(out.contains(": DS101 "), "{sel}: {out}");
    }
    let (rc, out, _) = dslint(&["check", case, "--ignore", "DS1,DS2,DS009", "--quiet"]);
    assert_eq!((rc, out.as_str()), (0, ""));
}

#[test]
fn an_empty_code_in_dslint_toml_is_an_error_not_ignore_everything() {
    let tmp = tempfile::tempdir().unwrap();
    copy_to("testdata/rules/DS101/fires", tmp.path());
    std::fs::write(tmp.path().join("dslint.toml"), "ignore = [\"DS208\", \"\"]\n").unwrap();
    let (rc, out, err) = dslint_in(tmp.path(), &["check", "."]);
    assert_eq!((rc, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "dslint: {}/dslint.toml:1:20: empty rule code (a stray comma?)\n",
            tmp.path().canonicalize().unwrap().display()
        )
    );
    std::fs::write(tmp.path().join("dslint.toml"), "select = [\"ds1\"]\n").unwrap();
    let (rc, _, err) = dslint_in(tmp.path(), &["check", "."]);
    assert_eq!(rc, 2);
    assert!(
        err.ends_with(
            "dslint.toml:1:11: `ds1` is no rule code or prefix (codes are upper case: did you mean `DS1`?)\n"
        ),
        "{err}"
    );
}

#[test]
fn summaries_say_what_was_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(
        d.join("pgie.txt"),
        "[property]\ngie-unique-id=1\nbatch-size=1\nonnx-file=m.onnx\n",
    )
    .unwrap();
    std::fs::write(d.join("labels.txt"), "car\nbus\n").unwrap();
    std::fs::write(d.join("typo.txt"), "[propertyy]\ngie-unique-id=1\n").unwrap();
    std::fs::write(d.join("cr.txt"), "[property]\rgie-unique-id=1\r").unwrap();
    std::fs::write(d.join("logo.yml"), b"\x89PNG\x00").unwrap();
    let at = |f: &str| d.join(f).to_str().unwrap().to_string();
    // One clean file: "1 file".
    let (rc, out, err) = dslint(&["check", &at("pgie.txt"), "--select", "DS7"]);
    assert_eq!(
        (rc, out.as_str(), err.as_str()),
        (0, "All checks passed (1 file).\n", "")
    );
    // A path that does not exist: the error, and no "All checks passed".
    let (rc, out, err) = dslint(&["check", &at("nonexistent")]);
    assert_eq!(
        (rc, out.as_str(), err),
        (
            2,
            "Nothing checked: 1 path not found.\n",
            format!("dslint: {}: no such file or folder\n", at("nonexistent"))
        )
    );
    let (rc, out, _) = dslint(&["check", &at("pgie.txt"), &at("nonexistent"), "--select", "DS7"]);
    assert_eq!(
        (rc, out.as_str()),
        (2, "No findings in 1 file, but 1 path not found.\n")
    );
    // Named files that are not configs: a notice each, and "nothing checked".
    let (rc, out, err) = dslint(&["check", &at("typo.txt"), &at("cr.txt"), &at("labels.txt")]);
    assert_eq!(rc, 0);
    assert_eq!(
        out,
        "Nothing checked: 3 files read, none of them a DeepStream config (see `--show-files`).\n"
    );
    assert_eq!(
        err,
        format!(
            "dslint: {}: skipped, not checked: read as key-file, but its groups (`propertyy`) are not those of a config dslint checks\n\
             dslint: {}: skipped, not checked: its lines end in a bare CR, which GLib does not split on: the file reads as one line\n\
             dslint: {}: skipped, not checked: read as key-file, with no groups\n",
            at("typo.txt"),
            at("cr.txt"),
            at("labels.txt")
        )
    );
    // A binary file is a finding in one file, not "in 0 files".
    let (rc, out, _) = dslint(&["check", &at("logo.yml")]);
    assert_eq!(rc, 1);
    assert!(
        out.ends_with(
            "Found 0 errors, 1 warning, 0 info in 1 file; 0 fixable with `dslint fix`, 0 more with `--unsafe-fixes`.\n"
        ),
        "{out}"
    );
    // Walked folders skip without a notice.
    let (rc, out, err) = dslint(&["check", d.to_str().unwrap(), "--select", "DS7"]);
    assert_eq!(
        (rc, out.as_str(), err.as_str()),
        (0, "All checks passed (1 file).\n", "")
    );
}

/// A file the walk skipped by its content and a reference then reads as a
/// config (Precision 1) leaves the skipped list, and the files skipped
/// before and after it stay listed (the list is indexed, and entries taken
/// back are dropped in one pass after the graph is built).
#[test]
fn a_skipped_file_a_reference_reads_is_no_longer_listed_as_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    copy_to("testdata/rules/DS701/fires", d);
    // nvinfer keys with no model source: skipped by content.
    std::fs::write(d.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=2\n").unwrap();
    std::fs::write(d.join("a.txt"), "car\n").unwrap();
    std::fs::write(d.join("z.txt"), "bus\n").unwrap();
    let (rc, out, err) = dslint_in(d, &["check", "pgie.txt", "--show-files"]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.starts_with("pgie.txt: skipped (nvdspostprocess): nvinfer-like keys but no model source"),
        "{out}"
    );
    let (rc, out, err) = dslint_in(d, &["check", ".", "--show-files"]);
    assert_eq!((rc, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "./a.txt: skipped (not-a-config): read as key-file, with no groups\n\
         ./app.txt: deepstream-app config (key-file)\n\
         ./labels.txt: skipped (not-a-config): read as key-file, with no groups\n\
         ./pgie.txt: nvinfer config (key-file)\n\
         ./z.txt: skipped (not-a-config): read as key-file, with no groups\n"
    );
    let (_, out, _) = dslint_in(d, &["check", ".", "--format", "concise"]);
    assert!(out.contains("./app.txt:18:12: DS701 BATCH_MISMATCH: streammux batch-size 4 != primary nvinfer batch-size 2 (./pgie.txt:3)\n"), "{out}");
}

#[test]
fn show_files_lists_what_was_read_as_what_and_what_was_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    copy_to("testdata/rules/DS701/fires", d);
    std::fs::create_dir(d.join("models")).unwrap();
    std::fs::write(d.join("models/classes.txt"), "car\nbus\n").unwrap();
    std::fs::write(
        d.join("models/config.pbtxt"),
        "name: \"m\"\nmax_batch_size: 8\ninput [ { name: \"x\" } ]\n",
    )
    .unwrap();
    std::fs::write(d.join("triton.txt"), "infer_config {\n  unique_id: 1\n}\n").unwrap();
    std::fs::write(d.join("ci.yml"), "on: push\njobs:\n  x: 1\n").unwrap();
    std::fs::write(d.join("logo.yml"), b"\x89PNG\x00").unwrap();
    let (rc, out, err) = dslint_in(d, &["check", ".", "--show-files"]);
    assert_eq!((rc, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "./app.txt: deepstream-app config (key-file)\n\
         ./ci.yml: skipped (not-a-config): read as YAML, but its sections (`jobs`) are not those of a config dslint checks\n\
         ./labels.txt: skipped (not-a-config): read as key-file, with no groups\n\
         ./logo.yml: unreadable: DS005: file is binary (contains NUL bytes); skipped\n\
         ./models/classes.txt: skipped (not-a-config): read as key-file, with no groups\n\
         ./models/config.pbtxt: skipped (protobuf-not-nvinferserver): protobuf text without `infer_config`: not an nvinferserver config (Triton's own model config?)\n\
         ./pgie.txt: nvinfer config (key-file)\n\
         ./triton.txt: nvinferserver config (protobuf text)\n"
    );
    // A config found by following a reference from a named file is read
    // for the pipeline, and says so; a folder's are checked.
    let (_, out, _) = dslint_in(d, &["check", "app.txt", "--show-files"]);
    assert_eq!(
        out,
        "app.txt: deepstream-app config (key-file)\n\
         pgie.txt: nvinfer config (key-file), pipeline context (its own findings are not reported)\n"
    );
    let (rc, out, _) = dslint_in(d, &["check", "app.txt", "--show-files", "--format", "json"]);
    assert_eq!(rc, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!([
            {"file": "app.txt", "status": "checked", "kind": "deepstream-app config", "syntax": "key-file", "referenced": false, "reason": null, "skip": null},
            {"file": "pgie.txt", "status": "context", "kind": "nvinfer config", "syntax": "key-file", "referenced": true, "reason": null, "skip": null}
        ])
    );
    let (rc, _, err) = dslint_in(d, &["check", ".", "--show-files", "--format", "sarif"]);
    assert_eq!(rc, 2);
    assert_eq!(
        err,
        "dslint: --statistics and --show-files print as human (default) or json\n"
    );
}

#[test]
fn exit_zero_and_concise() {
    let case = "testdata/rules/DS701/fires";
    let (rc, out, _) = dslint(&["check", case, "--format", "concise", "--select", "DS7"]);
    assert_eq!(rc, 1);
    assert_eq!(
        out,
        "testdata/rules/DS701/fires/app.txt:18:12: DS701 BATCH_MISMATCH: streammux batch-size 4 != primary nvinfer batch-size 2 (testdata/rules/DS701/fires/pgie.txt:7)\n\
         Found 1 error, 0 warnings, 0 info in 2 files; 1 fixable with `dslint fix`, 0 more with `--unsafe-fixes`.\n"
    );
    let (rc, quiet, _) = dslint(&[
        "check",
        case,
        "--format",
        "concise",
        "--select",
        "DS7",
        "--quiet",
        "--exit-zero",
    ]);
    assert_eq!(rc, 0);
    assert_eq!(quiet, out.lines().next().unwrap().to_string() + "\n");
    // fix: --exit-zero turns "would change something" into 0 as well.
    assert_eq!(dslint(&["fix", case]).0, 1);
    assert_eq!(dslint(&["fix", case, "--exit-zero"]).0, 0);
    // A usage error stays 2.
    assert_eq!(dslint(&["check", "no/such/path", "--exit-zero"]).0, 2);
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("logo.yml"), b"\x89PNG\x00").unwrap();
    let (_, out, _) = dslint(&[
        "check",
        tmp.path().join("logo.yml").to_str().unwrap(),
        "--format",
        "concise",
        "-q",
    ]);
    assert_eq!(
        out,
        format!(
            "{}: DS005 file is binary (contains NUL bytes); skipped\n",
            tmp.path().join("logo.yml").display()
        )
    );
}

#[test]
fn statistics_with_totals_and_a_legend_or_as_json() {
    let (rc, out, _) = dslint(&["check", "testdata/rules/DS701/fires", "--statistics", "--select", "DS7"]);
    assert_eq!(rc, 1);
    assert_eq!(
        out,
        "count  code   severity  fix  name\n\
         \x20   1  DS701  error     [*]  batch-mismatch\n\
         \x20   1  total: 1 error, 0 warnings, 0 info in 2 files\n\
         fix: [*] safe, applied by `dslint fix`; [-] unsafe, needs `dslint fix --unsafe-fixes`\n"
    );
    let (rc, out, _) = dslint(&["check", "testdata/examples", "--statistics", "--format", "json"]);
    assert_eq!(rc, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["totals"],
        serde_json::json!({"findings": 11, "errors": 1, "warnings": 2, "info": 8, "fixable_safe": 2, "fixable_unsafe": 4, "fixable_related": 0, "files": 6, "context": 0})
    );
    let codes = v["codes"].as_array().unwrap();
    assert_eq!(codes.iter().map(|c| c["count"].as_u64().unwrap()).sum::<u64>(), 11);
    assert_eq!(
        codes[0],
        serde_json::json!({"code": "DS208", "name": "duplicate-source-of-truth", "severity": "info", "count": 2, "fix": null})
    );
    assert!(
        codes
            .iter()
            .any(|c| c["code"] == "DS601" && c["severity"] == "info" && c["fix"].is_null())
    );
    let (rc, out, _) = dslint(&["check", "testdata/rules/DS101/clean", "--statistics"]);
    assert_eq!((rc, out.as_str()), (0, "No findings in 2 files.\n"));
}

#[test]
fn fix_reports_as_json() {
    let tmp = tempfile::tempdir().unwrap();
    copy_to("testdata/rules/DS701/fires", tmp.path());
    let before = std::fs::read_to_string(tmp.path().join("app.txt")).unwrap();
    let (rc, out, err) = dslint_in(tmp.path(), &["fix", ".", "--format", "json", "--select", "DS7"]);
    assert_eq!((rc, err.as_str()), (1, ""));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["written"], false);
    assert_eq!(
        v["fixes"],
        serde_json::json!([{"file": "./app.txt", "line": 18, "code": "DS701", "title": "set streammux batch-size=2 (the primary's)"}])
    );
    assert_eq!(v["changed"][0]["file"], "./app.txt");
    assert_eq!(
        v["changed"][0]["diff"],
        "--- a/app.txt\n+++ b/app.txt\n@@ -15,7 +15,7 @@\n [streammux]\n gpu-id=0\n live-source=0\n-batch-size=4\n+batch-size=2\n batched-push-timeout=33333\n width=960\n height=544\n"
    );
    assert_eq!(v["remaining"], serde_json::json!([]));
    assert_eq!(std::fs::read_to_string(tmp.path().join("app.txt")).unwrap(), before);
    let (rc, out, _) = dslint_in(
        tmp.path(),
        &["fix", ".", "--format", "json", "--select", "DS7", "--write"],
    );
    assert_eq!(rc, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["written"], true);
    assert_ne!(std::fs::read_to_string(tmp.path().join("app.txt")).unwrap(), before);
}

#[test]
fn diffs_apply_with_patch_for_paths_with_spaces() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("my configs");
    copy_to("testdata/rules/DS701/fires", &dir);
    let (rc, diff, _) = dslint_in(tmp.path(), &["fix", "my configs"]);
    assert_eq!(rc, 1);
    assert!(
        diff.starts_with("--- a/my configs/app.txt\t\n+++ b/my configs/app.txt\t\n"),
        "{diff}"
    );
    // What `patch -p1` makes of the diff is what `fix --write` writes.
    let written = tempfile::tempdir().unwrap();
    copy_to("testdata/rules/DS701/fires", &written.path().join("my configs"));
    assert_eq!(dslint_in(written.path(), &["fix", "my configs", "--write"]).0, 0);
    let mut patch = std::process::Command::new("patch")
        .args(["-p1", "--batch", "--silent"])
        .current_dir(tmp.path())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("GNU patch is installed");
    use std::io::Write;
    patch.stdin.take().unwrap().write_all(diff.as_bytes()).unwrap();
    assert!(patch.wait().unwrap().success());
    for f in ["app.txt", "pgie.txt"] {
        assert_eq!(
            std::fs::read_to_string(dir.join(f)).unwrap(),
            std::fs::read_to_string(written.path().join("my configs").join(f)).unwrap(),
            "{f}"
        );
    }
    // Quotes and backslashes are C-quoted, as git writes them.
    assert_eq!(
        dslint::fix::diff::header_name("a", Path::new("./q\"x\\y.txt")),
        "\"a/q\\\"x\\\\y.txt\""
    );
    assert_eq!(
        dslint::fix::diff::header_name("b", Path::new("plain.txt")),
        "b/plain.txt"
    );
}

#[test]
fn sarif_uris_are_percent_encoded() {
    let tmp = tempfile::tempdir().unwrap();
    copy_to("testdata/rules/DS701/fires", &tmp.path().join("my configs/100%"));
    let (rc, out, _) = dslint_in(tmp.path(), &["check", ".", "--format", "sarif", "--select", "DS701"]);
    assert_eq!(rc, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let loc = &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert_eq!(loc, "my%20configs/100%25/app.txt");
    let fix = &v["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["artifactLocation"]["uri"];
    assert_eq!(fix, "my%20configs/100%25/app.txt");
}

#[test]
fn per_file_ignores_are_relative_to_the_config_that_declares_them() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    copy_to("testdata/rules/DS202/fires", &root.join("legacy"));
    copy_to("testdata/rules/DS202/fires", &root.join("current"));
    std::fs::write(
        root.join("dslint.toml"),
        "select = [\"DS202\"]\n[per-file-ignores]\n\"legacy/*\" = [\"DS2\"]\n",
    )
    .unwrap();
    let files = |dir: &Path, args: &[&str]| -> Vec<String> {
        let (_, out, err) = dslint_in(dir, args);
        let v: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{out}{err}"));
        let mut dirs: Vec<String> = v
            .iter()
            .map(|d| {
                let f = d["file"].as_str().unwrap();
                f.rsplit('/').nth(1).unwrap().to_string()
            })
            .collect();
        dirs.sort();
        dirs
    };
    // From the repository root, from above it and from inside a folder: the
    // glob means repo/legacy/* each time, and nothing else.
    assert_eq!(files(&root, &["check", ".", "--format", "json"]), ["current"]);
    assert_eq!(files(tmp.path(), &["check", "repo", "--format", "json"]), ["current"]);
    assert_eq!(
        files(&root.join("legacy"), &["check", ".", "--format", "json"]),
        Vec::<String>::new()
    );
    // A folder that merely ends in legacy/ elsewhere is not matched.
    copy_to("testdata/rules/DS202/fires", &root.join("current/legacy"));
    assert_eq!(
        files(&root, &["check", "current", "--format", "json"]),
        ["current", "legacy"]
    );
    // A glob without `/` matches the file name anywhere below.
    std::fs::write(
        root.join("dslint.toml"),
        "select = [\"DS202\"]\n[per-file-ignores]\n\"pgie.txt\" = [\"DS202\"]\n",
    )
    .unwrap();
    assert_eq!(files(&root, &["check", ".", "--format", "json"]), Vec::<String>::new());
}

#[test]
fn rules_has_a_header_and_json() {
    let (rc, out, _) = dslint(&["rules"]);
    assert_eq!(rc, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), dslint::base::rule::RULES.len() + 1);
    let cols: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(cols, ["code", "name", "display", "bench", "fix", "summary"]);
    // The severity per profile and the fix, as the rules report them.
    let line = |code: &str| {
        let l = lines.iter().find(|l| l.starts_with(code)).unwrap();
        l.split_whitespace().take(5).collect::<Vec<_>>().join(" ")
    };
    assert_eq!(line("DS009"), "DS009 unused-suppression warning warning safe");
    assert_eq!(line("DS601"), "DS601 osd-enabled info warning safe");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("DS601") && l.contains("safe in the bench profile, none otherwise"))
    );
    assert_eq!(line("DS501"), "DS501 queue-before-inference info info safe");
    let (rc, out, _) = dslint(&["rules", "--format", "json"]);
    assert_eq!(rc, 0);
    let v: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(v.len(), dslint::base::rule::RULES.len());
    let find = |code: &str| v.iter().find(|r| r["code"] == code).unwrap().clone();
    assert_eq!(
        find("DS602"),
        serde_json::json!({"code": "DS602", "name": "tiler-enabled", "display": "info", "bench": "warning", "also": [], "fix": "safe in the bench profile, none otherwise", "not_emitted": null, "summary": "tiler enabled"})
    );
    assert_eq!(
        find("DS101")["also"],
        serde_json::json!(["info when the expected value is a preset, not a measurement (no facts)"])
    );
    // DS009 is emitted, so it is registered: explain works.
    let (rc, out, _) = dslint(&["explain", "DS009"]);
    assert_eq!(rc, 0);
    assert_eq!(out, std::fs::read_to_string("rules/DS009.md").unwrap());
}

#[test]
fn man_pages_named_in_see_also_can_be_printed_and_written() {
    let (rc, top, _) = dslint(&["man"]);
    assert_eq!(rc, 0);
    assert!(top.contains(".TH dslint 1"));
    let named: Vec<String> = top
        .lines()
        .filter_map(|l| l.strip_prefix("dslint\\-")?.strip_suffix("(1)").map(str::to_string))
        .collect();
    assert!(
        named.contains(&"check".to_string()) && named.contains(&"measure".to_string()),
        "{named:?}"
    );
    assert!(
        !named.contains(&"help".to_string()),
        "a page for `help` is not generated"
    );
    for n in &named {
        let (rc, page, _) = dslint(&["man", n]);
        assert_eq!(rc, 0, "{n}");
        assert!(page.contains(&format!(".TH dslint-{n} 1")), "{n}: {page}");
    }
    let (rc, page, _) = dslint(&["man", "measure", "sweep"]);
    assert_eq!(rc, 0);
    assert!(page.contains(".TH dslint-measure-sweep 1"));
    assert!(page.contains("The facts file to merge the sweep into"), "{page}");
    let (rc, _, err) = dslint(&["man", "nope"]);
    assert_eq!(
        (rc, err.as_str()),
        (2, "dslint: no command `nope` (see `dslint --help`)\n")
    );
    let tmp = tempfile::tempdir().unwrap();
    assert_eq!(dslint(&["man", "--out-dir", tmp.path().to_str().unwrap()]).0, 0);
    for n in named
        .iter()
        .map(|n| format!("dslint-{n}.1"))
        .chain(["dslint.1".into(), "dslint-measure-sweep.1".into()])
    {
        assert!(tmp.path().join(&n).is_file(), "{n}");
    }
}

#[test]
fn help_documents_the_options_users_asked_about() {
    for (args, want) in [
        (
            vec!["report", "--help"],
            ("--facts <FACTS>", "The facts file written by `dslint measure`"),
        ),
        (vec!["explain", "--help"], ("<CODE>", "A rule code (DS207) or name")),
        (
            vec!["measure", "sweep", "--help"],
            ("-o, --output <OUTPUT>", "The facts file to merge the sweep into"),
        ),
        (
            vec!["measure", "sweep", "--help"],
            ("--gpu-id <GPU_ID>", "The GPU whose utilisation"),
        ),
        (vec!["measure", "hw", "--help"], ("--gpu-id <GPU_ID>", "Which GPU")),
        (
            vec!["nsys", "capture", "--help"],
            ("--script <SCRIPT>", "The service's launch script"),
        ),
        (
            vec!["nsys", "capture", "--help"],
            ("--port <PORT>", "The port the service listens on"),
        ),
    ] {
        let (rc, out, _) = dslint(&args);
        assert_eq!(rc, 0);
        // The text follows the option on its line, or on the next when long.
        let lines: Vec<&str> = out.lines().collect();
        let at = lines.iter().position(|l| l.trim_start().starts_with(want.0));
        assert!(
            at.is_some_and(
                |i| lines[i].contains(want.1) || lines.get(i + 1).is_some_and(|n| n.trim_start().starts_with(want.1))
            ),
            "{args:?} {want:?}:\n{out}"
        );
    }
}

#[test]
fn readme_pasted_output_is_what_dslint_prints() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let block = |fence: &str| {
        let start = readme.find(fence).unwrap() + fence.len();
        readme[start..start + readme[start..].find("```").unwrap()].to_string()
    };
    // The check excerpt: each paragraph is printed as it stands.
    let (rc, out, _) = dslint(&["check", "testdata/examples"]);
    assert_eq!(rc, 1);
    let excerpt = block("the snapshot\n`tests/snapshots/cli__check_examples.snap`):\n\n```text\n");
    for para in excerpt.split("\n\n") {
        assert!(out.contains(para.trim_end()), "README paragraph not printed:\n{para}");
    }
    // The fix diff and its summary, whole.
    let (rc, out, err) = dslint(&["fix", "testdata/examples"]);
    assert_eq!(rc, 1);
    assert_eq!(block("```diff\n"), out + &err);
}

/// Hidden folders are walked, as ruff walks them (an app may keep its
/// nvinfer configs in `.iva/model/`); version-control, virtual-environment,
/// cache and editor folders are not, unless named.
#[test]
fn a_walk_enters_hidden_folders_but_not_vcs_venv_or_cache_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("dslint.toml"), "").unwrap();
    let pgie = std::fs::read_to_string("testdata/rules/DS204/fires/pgie.txt").unwrap();
    for dir in [
        ".iva/model",
        ".git",
        ".venv/lib",
        "__pycache__",
        ".vscode",
        "node_modules/x",
    ] {
        std::fs::create_dir_all(d.join(dir)).unwrap();
        std::fs::write(d.join(dir).join("pgie.txt"), &pgie).unwrap();
    }
    let (rc, out, err) = dslint_in(d, &["check", "--show-files", "."]);
    assert_eq!(
        (rc, out.as_str(), err.as_str()),
        (0, "./.iva/model/pgie.txt: nvinfer config (key-file)\n", "")
    );
    // Named, a skipped folder is walked.
    let (rc, out, _) = dslint_in(d, &["check", "--show-files", ".venv"]);
    assert_eq!(
        (rc, out.as_str()),
        (0, ".venv/lib/pgie.txt: nvinfer config (key-file)\n")
    );
}

/// A Python module that is skipped says what dslint saw, not what the app
/// does: one that makes its elements through a helper of its own names
/// them but has no factory call dslint resolves.
#[test]
fn a_skipped_python_module_says_what_dslint_saw() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("dslint.toml"), "").unwrap();
    std::fs::write(
        d.join("app.py"),
        "from helpers import create_element_or_error\n\npgie = create_element_or_error(\"nvinfer\", \"primary-inference\")\n",
    )
    .unwrap();
    std::fs::write(d.join("util.py"), "import os\nprint(os.getcwd())\n").unwrap();
    let (rc, out, _) = dslint_in(d, &["check", "--show-files", "."]);
    assert_eq!(
        (rc, out.as_str()),
        (
            0,
            "./app.py: skipped (not-a-config): a Python module that names DeepStream elements but has no element factory call dslint can resolve (Gst.ElementFactory.make, Gst.parse_launch, pyservicemaker); elements made through a helper are not followed\n./util.py: skipped (not-a-config): a Python module that names no DeepStream element\n"
        )
    );
}
