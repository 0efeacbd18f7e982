//! The command line: exit codes, formats, rule docs, and bad input that
//! must produce one clear diagnostic each and never a panic.

mod support;

use std::path::Path;

use support::*;

#[test]
fn exit_codes() {
    assert_eq!(dslint(&["check", "testdata/rules/DS101/clean"]).0, 0);
    assert_eq!(dslint(&["check", "testdata/rules/DS101/fires"]).0, 1);
    // Info findings alone do not fail the run.
    assert_eq!(dslint(&["check", "testdata/rules/DS106/fires"]).0, 0);
    assert_eq!(dslint(&["check", "no/such/dir"]).0, 2);
    assert_eq!(dslint(&["check", "--format", "nope", "testdata"]).0, 2);
    assert_eq!(dslint(&["explain", "DS999"]).0, 2);
}

#[test]
fn human_output_for_the_examples() {
    let (rc, out, _) = dslint(&["check", "testdata/examples"]);
    assert_eq!(rc, 1);
    insta::assert_snapshot!("check_examples", out);
}

#[test]
fn json_output_schema() {
    let (_, out, _) = dslint(&["check", "testdata/rules/DS701/fires", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let d = v.as_array().unwrap().iter().find(|d| d["code"] == "DS701").unwrap();
    assert_eq!(d["name"], "batch-mismatch");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["file"], "testdata/rules/DS701/fires/app.txt");
    assert_eq!(d["location"]["line"], 18);
    assert_eq!(d["location"]["column"], 12);
    assert_eq!(d["expected"], "2");
    assert_eq!(d["fix"]["applicability"], "safe");
    assert_eq!(d["fix"]["edits"][0]["content"], "2");
    assert_eq!(d["related"][0], "testdata/rules/DS701/fires/pgie.txt:7:12");
}

#[test]
fn select_and_ignore_by_prefix() {
    let (_, out, _) = dslint(&["check", "testdata/examples", "--select", "DS1", "--format", "json"]);
    let v: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert!(!v.is_empty() && v.iter().all(|d| d["code"].as_str().unwrap().starts_with("DS1")));
    let (_, out, _) = dslint(&[
        "check",
        "testdata/examples",
        "--ignore",
        "DS1,DS2,DS4,DS6,DS7,DS0",
        "--format",
        "json",
    ]);
    let v: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert!(v.is_empty(), "{out}");
}

#[test]
fn rules_explain_and_schema() {
    let (rc, out, _) = dslint(&["rules"]);
    assert_eq!(rc, 0);
    assert_eq!(
        out.lines().count(),
        dslint::base::rule::RULES.len() + 1,
        "a header and a line per rule"
    );
    assert!(out.contains("DS207  engine-name-mismatch"));
    let (rc, out, _) = dslint(&["explain", "DS207"]);
    assert_eq!(rc, 0);
    assert_eq!(out, std::fs::read_to_string("rules/DS207.md").unwrap());
    let (_, by_name, _) = dslint(&["explain", "engine-name-mismatch"]);
    assert_eq!(by_name, out);
    let (rc, out, _) = dslint(&["facts", "schema"]);
    assert_eq!(rc, 0);
    let schema: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(schema["title"], "Facts");
    assert!(schema["properties"]["sweep"].is_object());
}

/// Issue 9: every page `dslint explain` prints says what the rule may
/// claim without facts and with them.
#[test]
fn every_rule_page_says_what_it_may_claim() {
    for r in dslint::base::rule::RULES {
        let page = r.page;
        let at = page
            .find("## What it may claim")
            .unwrap_or_else(|| panic!("{}: no \"## What it may claim\" section", r.code));
        let rest = &page[at + "## What it may claim".len()..];
        let section = rest.find("\n## ").map_or(rest, |end| &rest[..end]).to_lowercase();
        for want in ["without facts", "with facts"] {
            assert!(
                section.contains(want),
                "{}: \"## What it may claim\" does not say {want:?}",
                r.code
            );
        }
        // A claim cites what DeepStream (or GLib, GStreamer) does: at least
        // one source file, in backticks, such as `gstnvinfer.cpp` or
        // `gkeyfile.c`.
        assert!(
            cited_source_files(&section).next().is_some(),
            "{}: \"## What it may claim\" names no source file (`name.c`, `.cpp`, `.h`) of the reader it claims about",
            r.code
        );
    }
}

/// The source files a page section names in backticks (`dir/name.cpp`).
fn cited_source_files(section: &str) -> impl Iterator<Item = &str> {
    section.split('`').skip(1).step_by(2).filter(|span| {
        span.rsplit_once('.').is_some_and(|(stem, ext)| {
            matches!(ext, "c" | "cpp" | "h" | "hpp" | "cu")
                && !stem.is_empty()
                && stem.chars().all(|c| c.is_ascii_alphanumeric() || "_-/.".contains(c))
        })
    })
}

#[test]
fn a_cited_source_file_is_a_file_name_in_backticks() {
    let found: Vec<&str> = cited_source_files(
        "reads `gstnvinfer.cpp` and `gst-nvdsbins/gstdsnvvideoencfilesinkbin.h`, not `a b.c`, `.c`, `x.rs` or gstqueue.c",
    )
    .collect();
    assert_eq!(found, ["gstnvinfer.cpp", "gst-nvdsbins/gstdsnvvideoencfilesinkbin.h"]);
}

#[test]
fn bad_facts_name_the_field_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    for (body, want) in [
        (r#"{"schema_version": 2}"#, "newer than this dslint reads"),
        (
            r#"{"schema_version": 1, "sweep": {"plateau_batch": -4}}"#,
            "sweep.plateau_batch",
        ),
        (
            r#"{"schema_version": 1, "workload": {"n_streams": "4"}}"#,
            "workload.n_streams",
        ),
        ("{", "not valid JSON"),
    ] {
        let f = tmp.path().join("facts.json");
        std::fs::write(&f, body).unwrap();
        let (rc, out, err) = dslint(&[
            "fix",
            "testdata/rules/DS101/fires",
            "--facts",
            f.to_str().unwrap(),
            "--write",
        ]);
        assert_eq!(rc, 2, "{body}");
        assert!(err.contains(want), "{body}: {err}");
        assert!(out.is_empty());
    }
}

#[test]
fn bad_input_gives_one_diagnostic_each_and_the_run_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("latin1.txt"), b"[property]\nlabelfile-path=caf\xe9.txt\n").unwrap();
    std::fs::write(d.join("binary.yml"), b"\x89PNG\r\n\x1a\n\x00\x00").unwrap();
    std::fs::write(d.join("empty.txt"), b"").unwrap();
    let big = std::fs::File::create(d.join("huge.txt")).unwrap();
    big.set_len(50 * 1024 * 1024).unwrap();
    std::fs::write(
        d.join("dangling.txt"),
        "[application]\nenable-perf-measurement=1\n[primary-gie]\nenable=1\nconfig-file=nowhere/pgie.txt\n",
    )
    .unwrap();
    std::fs::write(
        d.join("self.txt"),
        "[application]\nenable-perf-measurement=1\n[primary-gie]\nenable=1\nconfig-file=self.txt\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("/nonexistent/dslint-target", d.join("broken-link.txt")).unwrap();
    // Links to nothing under names no reader takes (a Triton model
    // repository's model folder, a built engine): nothing would be read
    // through them, so they are no finding.
    std::os::unix::fs::symlink("../samples/models/Detector", d.join("Detector")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/detector.engine", d.join("detector.engine")).unwrap();
    std::fs::create_dir(d.join("loop")).unwrap();
    std::os::unix::fs::symlink("..", d.join("loop/up")).unwrap();
    // A multibyte character before a nested `:` or an unclosed bracket: the
    // YAML reader once sliced inside `é` and killed the whole run (issue 17).
    std::fs::write(d.join("nested-colon.yml"), "a: é\nb: c: d\n").unwrap();
    std::fs::write(d.join("mux.yml"), "streammux:\n  name: é\n  batch-size: [4\n").unwrap();
    // And a good file beside them, which must still be checked.
    std::fs::write(
        d.join("app.txt"),
        "[application]\nenable-perf-measurement=1\n[streammux]\nbatch-size=4\nbatchsize=4\n",
    )
    .unwrap();
    let (rc, out, err) = dslint(&["check", d.to_str().unwrap(), "--format", "json"]);
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");
    assert_eq!(rc, 1, "{err}");
    let v: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let find = |file: &str, code: &str| {
        v.iter()
            .filter(|x| x["code"] == code && x["file"].as_str().unwrap().ends_with(file))
            .count()
    };
    assert_eq!(find("latin1.txt", "DS005"), 1, "{out}");
    assert_eq!(find("binary.yml", "DS005"), 1, "{out}");
    assert_eq!(find("huge.txt", "DS005"), 1, "{out}");
    assert_eq!(find("broken-link.txt", "DS005"), 1, "{out}");
    assert_eq!(find("/Detector", "DS005"), 0, "{out}");
    assert_eq!(find("detector.engine", "DS005"), 0, "{out}");
    assert_eq!(find("dangling.txt", "DS704"), 1, "{out}");
    assert_eq!(find("self.txt", "DS704"), 1, "{out}");
    assert!(
        v.iter()
            .any(|x| x["code"] == "DS005" && x["message"].as_str().unwrap().contains("loop")),
        "{out}"
    );
    assert_eq!(find("app.txt", "DS002"), 1, "{out}");
    // Not a DeepStream config: read, and silent.
    assert_eq!(
        v.iter()
            .filter(|x| x["file"].as_str().unwrap().ends_with("nested-colon.yml"))
            .count(),
        0,
        "{out}"
    );
    let mux = v
        .iter()
        .find(|x| x["file"].as_str().unwrap().ends_with("mux.yml"))
        .unwrap();
    assert_eq!(
        (
            &mux["code"],
            &mux["message"],
            &mux["location"]["line"],
            &mux["location"]["column"]
        ),
        (
            &"DS001".into(),
            &"YAML syntax error: unclosed bracket '['".into(),
            &3.into(),
            &15.into()
        ),
        "{out}"
    );
    // An empty file named on the command line is reported; found by a walk it is not.
    assert_eq!(find("empty.txt", "DS005"), 0, "{out}");
    let (_, out, _) = dslint(&["check", d.join("empty.txt").to_str().unwrap(), "--format", "json"]);
    assert!(out.contains("file is empty"), "{out}");
    let msg = |file: &str| {
        v.iter().find(|x| x["file"].as_str().unwrap().ends_with(file)).unwrap()["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(msg("latin1.txt").contains("not UTF-8"));
    assert!(msg("binary.yml").contains("binary"));
    assert!(msg("huge.txt").contains("over the"));
}

#[test]
fn gitignored_files_are_not_walked() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir(d.join("build")).unwrap();
    std::fs::write(d.join("build/app.txt"), "[streammux]\nbatchsize=4\n").unwrap();
    let (rc, out, _) = dslint(&["check", d.to_str().unwrap()]);
    assert_eq!(rc, 0, "{out}");
    assert_eq!(out, "Nothing checked: no DeepStream config found.\n");
}

/// A file git tracks that `.gitignore` matches (added with `git add -f`,
/// or tracked before the pattern was written) is not walked: git's index
/// is not read, as ruff's walk (the `ignore` crate's) does not read it.
/// Named on the command line it is checked, as ruff checks a file passed
/// to it (pre-commit names the tracked files it checks), and so is a
/// config that a checked config references.
#[test]
fn tracked_files_that_gitignore_matches_are_checked_only_when_named() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    git_ok(d, &["init", "-q"]);
    std::fs::write(d.join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir(d.join("build")).unwrap();
    std::fs::write(
        d.join("build/pgie.txt"),
        "[property]\nonnx-file=model.onnx\ngie-unique-id=1\nbatch-size=4\nbatchsize=4\n",
    )
    .unwrap();
    git_ok(d, &["add", "-f", "build/pgie.txt"]);
    git_ok(d, &["add", ".gitignore"]);
    git_ok(d, &["commit", "-q", "-m", "t"]);
    assert_eq!(git_ok(d, &["ls-files"]), ".gitignore\nbuild/pgie.txt\n");
    let codes = |args: &[&str]| {
        let (rc, out, err) = dslint_in(d, args);
        let v: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        let found: Vec<String> = (v.iter())
            .map(|f| format!("{} {}", f["file"].as_str().unwrap(), f["code"].as_str().unwrap()))
            .collect();
        (rc, found, err)
    };
    assert_eq!(codes(&["check", ".", "--format", "json"]), (0, vec![], String::new()));
    let named = codes(&["check", "build/pgie.txt", "--format", "json"]);
    assert_eq!(named.0, 1, "{named:?}");
    assert!(
        named.1.iter().all(|f| f.starts_with("build/pgie.txt ")) && !named.1.is_empty(),
        "{named:?}"
    );
    // Referenced from a walked config: read.
    let app = std::fs::read_to_string("testdata/rules/DS704/fires/app.txt").unwrap();
    std::fs::write(d.join("app.txt"), app.replace("pgie_missing.txt", "build/pgie.txt")).unwrap();
    let referenced = codes(&["check", ".", "--format", "json"]);
    assert!(
        referenced.1.iter().any(|f| f.starts_with("build/pgie.txt ")),
        "{referenced:?}"
    );
}

#[test]
fn referenced_configs_report_once_across_pipelines() {
    // Two app configs share one nvinfer config: its findings appear once.
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new("testdata/rules/DS202/fires");
    for f in files_under(src) {
        std::fs::copy(&f, tmp.path().join(f.file_name().unwrap())).unwrap();
    }
    std::fs::copy(src.join("app.txt"), tmp.path().join("app2.txt")).unwrap();
    let (_, out, _) = dslint(&[
        "check",
        tmp.path().to_str().unwrap(),
        "--format",
        "json",
        "--select",
        "DS202",
    ]);
    let v: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(v.len(), 1, "{out}");
}

#[test]
fn checked_in_facts_schema_is_current() {
    let (rc, out, _) = dslint(&["facts", "schema"]);
    assert_eq!(rc, 0);
    assert_eq!(
        out,
        std::fs::read_to_string("rules/facts.schema.json").unwrap(),
        "run `dslint facts schema > rules/facts.schema.json`"
    );
    // The documented sample reads.
    dslint::model::facts::Facts::load(std::path::Path::new("testdata/facts/example_h200.json")).unwrap();
}

/// The walk, the files' checks and the pipelines' rules run on several
/// threads; what comes out must not depend on how many: every output format
/// (and `fix`'s diff) over all of testdata is the same bytes on 1 thread as
/// on 8, and the same on a second run.
#[test]
fn output_does_not_depend_on_threads() {
    // Each run with the fewest lines it prints: findings in many files and
    // pipelines, so the order is a claim.
    let runs: &[(&[&str], usize)] = &[
        (&["check", "testdata"], 1000),
        (&["check", "testdata", "--format", "concise"], 100),
        (&["check", "testdata", "--format", "json"], 1000),
        (&["check", "testdata", "--format", "sarif"], 1000),
        (&["check", "testdata", "--format", "github"], 100),
        (&["check", "testdata", "--format", "rdjson"], 1000),
        (&["check", "testdata", "--statistics"], 30),
        (&["fix", "testdata", "--diff"], 300),
        // The fix loop's selection, log and counts are made on all
        // threads: the fixes' order (`--show-fixes`, JSON) is a claim too.
        (&["fix", "testdata", "--diff", "--unsafe-fixes", "--show-fixes"], 300),
        (&["fix", "testdata", "--format", "json", "--unsafe-fixes"], 300),
    ];
    for &(args, lines) in runs {
        let one = dslint_env(args, &[("RAYON_NUM_THREADS", "1".into())]);
        assert!(one.1.lines().count() > lines, "{args:?}: too little output to compare");
        for threads in ["8", "3"] {
            let many = dslint_env(args, &[("RAYON_NUM_THREADS", threads.into())]);
            assert_eq!(one.0, many.0, "{args:?}: exit code on {threads} threads");
            assert!(
                one.1 == many.1,
                "{args:?}: stdout differs between 1 and {threads} threads"
            );
            assert_eq!(one.2, many.2, "{args:?}: stderr on {threads} threads");
        }
    }
}

/// A walk of the whole root scans its Dockerfiles, scripts and Compose
/// files on the walk's threads, and works out what the containers are
/// given of the tree on the pool while the walked files are put in
/// (`Workspace::walk_and_read`): the verdicts are the same on 1 thread as
/// on 3 and 8. Forty projects, each config naming a missing config outside
/// its folder: a Compose file mounting the folder (no DeepStream config:
/// skipped, then read again for its mounts), a Dockerfile copying it, a
/// script mounting it from its working folder, or nothing; only the last
/// ten get DS704.
#[test]
fn container_verdicts_do_not_depend_on_threads() {
    let tmp = apps_leaving_their_folder(&[]);
    let d = tmp.path();
    let app = app_leaving_its_folder();
    let mut expected = Vec::new();
    for i in 0..40 {
        let p = d.join(format!("p{i:02}"));
        std::fs::create_dir_all(p.join("configs")).unwrap();
        std::fs::write(p.join("configs/app.txt"), &app).unwrap();
        std::fs::write(p.join("configs/video.mp4"), "").unwrap();
        match i % 4 {
            0 => std::fs::write(
                p.join("docker-compose.yml"),
                "services:\n  ds:\n    image: img\n    volumes:\n      - ./configs:/app\n",
            ),
            1 => std::fs::write(p.join("Dockerfile"), "FROM img\nCOPY configs /app/configs\n"),
            2 => std::fs::write(
                p.join("run.sh"),
                "#!/bin/sh\ndocker run -v \"$(pwd)/configs\":/ws img\n",
            ),
            _ => {
                expected.push(format!(
                    "./p{i:02}/configs/app.txt:25:13: DS704 config-file p{i:02}/elsewhere/pgie.txt does not exist"
                ));
                Ok(())
            }
        }
        .unwrap();
    }
    let run = |threads: &str| {
        support::dslint_with(
            &["check", ".", "--format", "concise"],
            Some(d),
            &[("RAYON_NUM_THREADS", threads.into())],
        )
    };
    let one = run("1");
    let found: Vec<&str> = one.1.lines().filter(|l| l.contains("DS704")).collect();
    assert_eq!(found, expected, "{}", one.1);
    for threads in ["3", "8"] {
        assert_eq!(one, run(threads), "on {threads} threads");
    }
}

/// The DS704 case's app config naming a missing config outside its own
/// folder (`../elsewhere/pgie.txt`).
fn app_leaving_its_folder() -> String {
    std::fs::read_to_string("testdata/rules/DS704/fires/app.txt")
        .unwrap()
        .replace("config-file=pgie_missing.txt", "config-file=../elsewhere/pgie.txt")
}

/// A project root (an empty `dslint.toml`) with that app config and its
/// clip in each of `folders`.
fn apps_leaving_their_folder(folders: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("dslint.toml"), "").unwrap();
    let app = app_leaving_its_folder();
    for folder in folders {
        std::fs::create_dir_all(d.join(folder)).unwrap();
        std::fs::write(d.join(folder).join("app.txt"), &app).unwrap();
        std::fs::write(d.join(folder).join("video.mp4"), "").unwrap();
    }
    tmp
}

/// `dslint check | head -1`, `| grep -q`: a reader that goes away before
/// the output ends is no error. Every command that writes to stdout, run
/// into a pipe whose read end is already closed (so every write fails with
/// EPIPE, whatever the timing), exits 0 and says nothing on stderr beyond
/// what it says on an open pipe; with stderr on the same closed pipe
/// (`2>&1 | head`) it still exits 0 without a panic (exit 101).
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("dslint.toml"), "").unwrap();
    // ~3,000 findings (DS004 on each repeat): far more than a pipe holds.
    let mut text = String::from("[property]\ngie-unique-id=1\nonnx-file=m.onnx\n");
    for i in 0..3000 {
        text.push_str(&format!("batch-size={}\n", i % 7 + 1));
    }
    std::fs::write(tmp.path().join("pgie.txt"), text).unwrap();
    // An app whose batch size `fix` changes: a diff to print.
    for name in ["deepstream_app_4cam.txt", "config_infer_primary.txt"] {
        std::fs::copy(Path::new("testdata/examples").join(name), tmp.path().join(name)).unwrap();
    }
    let runs: &[&[&str]] = &[
        &["check", "."],
        &["check", ".", "--format", "concise"],
        &["check", ".", "--format", "json"],
        &["check", ".", "--format", "sarif"],
        &["check", ".", "--format", "github"],
        &["check", ".", "--format", "rdjson"],
        &["check", ".", "--statistics"],
        &["check", ".", "--show-files"],
        &["fix", ".", "--diff"],
        &["fix", ".", "--format", "json"],
        &["rules"],
        &["explain", "DS004"],
        &["man", "check"],
        &["completions", "bash"],
        &["facts", "schema"],
    ];
    let closed = || {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        writer
    };
    for &args in runs {
        let open = dslint_in(tmp.path(), args);
        assert!(!open.1.is_empty(), "{args:?}: nothing written to stdout");
        let out = std::process::Command::new(dslint_bin())
            .args(args)
            .current_dir(tmp.path())
            .env("NO_COLOR", "1")
            .stdout(closed())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        // Nothing beyond what the run says when its output is read whole
        // (fix's summary comes after the diff, so it is not reached).
        assert!(open.2.starts_with(&*err), "{args:?}: {err}");
        let both = closed();
        let status = std::process::Command::new(dslint_bin())
            .args(args)
            .current_dir(tmp.path())
            .stdout(both.try_clone().unwrap())
            .stderr(both)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: stdout and stderr closed");
    }
}

/// A config that a Dockerfile or Containerfile copies into an image runs
/// from the copy, among files the base image and the build's other steps
/// put there: its missing relative paths are unknown (no DS704), as
/// `Workspace::unknown_in_container` says. What no `COPY`/`ADD` of the build
/// context copies (a folder not named, a copy `--from` another stage) is
/// checked as before. The context is the nearest folder holding every
/// source the file names (`docker build -f docker/Dockerfile .`).
#[test]
fn configs_copied_into_an_image_name_paths_that_are_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("dslint.toml"), "").unwrap();
    let app = std::fs::read_to_string("testdata/rules/DS704/fires/app.txt").unwrap();
    for folder in ["configs", "configs/deep", "other", "stage", "docker/local"] {
        std::fs::create_dir_all(d.join(folder)).unwrap();
        std::fs::write(d.join(folder).join("app.txt"), &app).unwrap();
        std::fs::write(d.join(folder).join("video.mp4"), "").unwrap();
    }
    std::fs::write(d.join("requirements.txt"), "").unwrap();
    // The configs with a DS704 (their `config-file` is missing).
    let missing = || {
        let checked = check_dir(d);
        let mut v: Vec<String> = (checked.diagnostics.iter())
            .filter(|x| x.code() == "DS704")
            .map(|x| {
                checked.ws.files[x.file]
                    .path
                    .strip_prefix(d)
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        v.sort();
        v
    };
    let cases: [(&str, &str, &[&str]); 5] = [
        (
            "docker/Dockerfile",
            "",
            &[
                "configs/app.txt",
                "configs/deep/app.txt",
                "docker/local/app.txt",
                "other/app.txt",
                "stage/app.txt",
            ],
        ),
        // The context is the root, which has requirements.txt.
        (
            "docker/Dockerfile",
            "FROM ubuntu AS build\nRUN mkdir /src\n\nFROM nvcr.io/nvidia/deepstream:9.1-samples-multiarch\n\
             copy requirements.txt /app/\n\
             COPY --chown=1000 configs/ \\\n  /opt/nvidia/deepstream/deepstream/samples/configs/app/\n\
             COPY --from=build stage /app/stage\n",
            &["docker/local/app.txt", "other/app.txt", "stage/app.txt"],
        ),
        // `COPY . .` in a Dockerfile that names nothing else: its own folder.
        (
            "docker/Dockerfile",
            "FROM x\nCOPY . .\n",
            &[
                "configs/app.txt",
                "configs/deep/app.txt",
                "other/app.txt",
                "stage/app.txt",
            ],
        ),
        // A wildcard copies from the folder before it; a Containerfile counts.
        (
            "Containerfile",
            "FROM x\nCOPY [\"other/*.txt\", \"/x/\"]\n",
            &[
                "configs/app.txt",
                "configs/deep/app.txt",
                "docker/local/app.txt",
                "stage/app.txt",
            ],
        ),
        // `.dockerignore` (written below) keeps `configs/` out of the
        // context; it is not read: still counted as copied (a path more
        // unknown, never a wrong finding).
        ("Containerfile", "FROM x\nCOPY . /app\n", &[]),
    ];
    std::fs::write(d.join(".dockerignore"), "# not read\nconfigs\n").unwrap();
    for (name, text, expected) in cases {
        let _ = std::fs::remove_file(d.join("docker/Dockerfile"));
        if !text.is_empty() {
            std::fs::write(d.join(name), text).unwrap();
        }
        assert_eq!(missing(), expected, "{name}: {text}");
    }
}

/// A config a script or Compose file bind-mounts into a container runs
/// from the mount target: a missing relative path that leaves the mounted
/// folder lands in the container's own tree, among the image's files and
/// other mounts, and is unknown there (no DS704); one that stays inside it
/// names the same file as in the project (the mount shows the folder as
/// it is) and is reported, unless another mount lands inside the target
/// or a target is unknown (`Workspace::unknown_in_container`). A named
/// volume, a mount from outside the project (`/tmp/.X11-unix`), a `--mount`
/// of `type=volume` and a commented-out line mount none of its files; a
/// Compose file's relative paths are its own folder's; a script's are its
/// working folder's, which may be any folder from its own up to the root.
/// The same whether the whole root is walked or only one config is named
/// (the root's scripts and Compose files are then walked for).
#[test]
fn configs_mounted_into_a_container_name_paths_that_are_unknown() {
    // Each config names a missing config outside its own folder.
    let folders = ["configs", "configs/deep", "deploy/configs", "other", "scripts/local"];
    let tmp = apps_leaving_their_folder(&folders);
    let d = tmp.path();
    // The configs with a DS704, checked as a walk of the root and named
    // one by one.
    let missing = || {
        let root = std::fs::canonicalize(d).unwrap();
        let of = |checked: &support::Checked| -> Vec<String> {
            (checked.diagnostics.iter())
                .filter(|x| x.code() == "DS704")
                .map(|x| {
                    let path = std::fs::canonicalize(&checked.ws.files[x.file].path).unwrap();
                    path.strip_prefix(&root).unwrap().display().to_string()
                })
                .collect()
        };
        let walked = of(&check_dir(d));
        let named: Vec<String> = folders
            .iter()
            .flat_map(|f| {
                let mut ws = dslint::model::workspace::Workspace::load(&[d.join(f).join("app.txt")]);
                let (profile, facts) = case_settings(d);
                let r = dslint::rules::check_with(&mut ws, facts.as_ref(), profile, &case_options(d));
                of(&support::Checked {
                    ws,
                    diagnostics: r.diagnostics,
                })
            })
            .collect();
        assert_eq!(walked, named, "walked and named");
        walked
    };
    let all = [
        "configs/app.txt",
        "configs/deep/app.txt",
        "deploy/configs/app.txt",
        "other/app.txt",
        "scripts/local/app.txt",
    ];
    // More mounts than are read (1,000): the ones not read may mount any
    // folder anywhere, so every missing path is unknown.
    let many = format!(
        "services:\n  ds:\n    volumes:\n{}      - ./other:/app\n",
        "      - /data/a:/data/a\n".repeat(1_000)
    );
    // So with a Dockerfile's copies.
    let copies = format!(
        "FROM nvcr.io/nvidia/deepstream:9.1-triton-multiarch\nCOPY {}/app/\n",
        "a ".repeat(1_001)
    );
    let cases: [(&str, &str, &[&str]); 11] = [
        ("scripts/run.sh", "#!/bin/sh\necho no container\n", &all),
        ("compose.yml", &many, &[]),
        ("Dockerfile", &copies, &[]),
        // Nothing of the project: X11's socket, a named volume, a volume
        // `--mount`, an anonymous volume, a commented-out line.
        (
            "scripts/run.sh",
            "#!/bin/bash\n# docker run -v $(pwd)/configs:/ws img\n\
             docker run --gpus all -it --rm \\\n  -v /tmp/.X11-unix:/tmp/.X11-unix \\\n  \
             -v configs:/configs --mount type=volume,source=other,target=/o -v /models \\\n  \
             nvcr.io/nvidia/deepstream:9.1-triton-multiarch\n",
            &all,
        ),
        // `$(pwd)/configs` from the script's working folder: the root's
        // `configs` (or `scripts/configs`, which does not exist). Its
        // config leaves it; the one in `configs/deep` stays inside.
        (
            "scripts/run.sh",
            "docker run -v \"$(pwd)/configs\":/app/configs -w /app img deepstream-app -c configs/app.txt\n",
            &[
                "configs/deep/app.txt",
                "deploy/configs/app.txt",
                "other/app.txt",
                "scripts/local/app.txt",
            ],
        ),
        // The working folder as a whole: every path stays inside it.
        ("scripts/run.sh", "docker run -v ${PWD}:/workspace img\n", &all),
        // Unless another mount lands inside its target.
        (
            "scripts/run.sh",
            "docker run -v ${PWD}:/workspace -v /data/elsewhere:/workspace/elsewhere img\n",
            &[],
        ),
        // Or a target is unknown.
        (
            "scripts/run.sh",
            "docker run -v ./configs/deep:$APP_DIR img\n",
            &[
                "configs/app.txt",
                "deploy/configs/app.txt",
                "other/app.txt",
                "scripts/local/app.txt",
            ],
        ),
        // Compose: relative to the Compose file's folder; a named volume
        // and a device are no config's folder.
        (
            "deploy/docker-compose.yml",
            "services:\n  ds:\n    image: nvcr.io/nvidia/deepstream:9.1-samples-multiarch\n    volumes:\n      \
             - ./configs:/opt/nvidia/deepstream/deepstream/samples/configs/app\n      - other:/other\n    \
             devices:\n      - /dev/video0:/dev/video0\nvolumes:\n  other:\n",
            &[
                "configs/app.txt",
                "configs/deep/app.txt",
                "other/app.txt",
                "scripts/local/app.txt",
            ],
        ),
        // `..` from its folder, the long syntax.
        (
            "deploy/compose.yaml",
            "services:\n  ds:\n    volumes:\n      - type: bind\n        source: ../other\n        target: /app\n",
            &[
                "configs/app.txt",
                "configs/deep/app.txt",
                "deploy/configs/app.txt",
                "scripts/local/app.txt",
            ],
        ),
        // One file mounted: every path it names leaves it.
        (
            "compose.yml",
            "services:\n  ds:\n    volumes: [\"./configs/deep/app.txt:/app/app.txt:ro\"]\n",
            &[
                "configs/app.txt",
                "deploy/configs/app.txt",
                "other/app.txt",
                "scripts/local/app.txt",
            ],
        ),
    ];
    for (name, text, expected) in cases {
        for old in [
            "scripts/run.sh",
            "deploy/docker-compose.yml",
            "deploy/compose.yaml",
            "compose.yml",
            "Dockerfile",
        ] {
            let _ = std::fs::remove_file(d.join(old));
        }
        std::fs::create_dir_all(d.join(name).parent().unwrap()).unwrap();
        std::fs::write(d.join(name), text).unwrap();
        assert_eq!(missing(), expected, "{name}: {text}");
    }
}

/// `docker compose -f compose.yml -f deploy/gpu/compose.gpu.yml` merges
/// the files, and every relative path in them, the override's included,
/// resolves from the first file's folder, the project directory
/// (Compose's "Merge" page: "Paths are evaluated relative to the base
/// file"). Which file is first is chosen where Compose runs, so an
/// override's `./configs` may be the root's `configs` (mounted: a path
/// that leaves it is unknown, no DS704) as well as its own folder's;
/// before, it was taken from the override's folder alone, and the root's
/// config got a DS704 for a path that may be in the container. A folder
/// that holds no Compose file is no project directory (`other`), and a
/// base file's `..` goes up from the base's folder.
#[test]
fn an_override_compose_file_mounts_from_the_base_file_folder() {
    let tmp = apps_leaving_their_folder(&["configs", "deploy/gpu/configs", "deploy/models", "other/configs"]);
    let d = tmp.path();
    std::fs::write(
        d.join("compose.yml"),
        "services:\n  ds:\n    image: nvcr.io/nvidia/deepstream:9.1-triton-multiarch\n",
    )
    .unwrap();
    std::fs::write(
        d.join("deploy/gpu/compose.gpu.yml"),
        "services:\n  ds:\n    volumes:\n      - ./configs:/app/configs\n      - ../models:/app/models\n",
    )
    .unwrap();
    let root = std::fs::canonicalize(d).unwrap();
    let checked = check_dir(d);
    let mut found: Vec<String> = (checked.diagnostics.iter())
        .filter(|x| x.code() == "DS704")
        .map(|x| {
            let path = std::fs::canonicalize(&checked.ws.files[x.file].path).unwrap();
            path.strip_prefix(&root).unwrap().display().to_string()
        })
        .collect();
    found.sort();
    // `../models` from the root leaves the project: `deploy/models` is
    // mounted only from the override's own folder.
    assert_eq!(found, ["other/configs/app.txt"]);
}
