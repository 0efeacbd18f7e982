//! Pipeline context for files named on the command line (pre-commit, bots,
//! editors): a named nvinfer, tracker or preprocess config is checked with
//! the pipelines that load it, and reports the findings located in it or
//! involving it; `fix` edits only the named files unless `--fix-related`;
//! `--changed-since REF` names the files git reports changed.
//!
//! `testdata/context/project` (a `dslint.toml` marks its root) holds three
//! apps: `apps/detect.txt` (2 streams batched by 4, its detector at batch 1,
//! an accuracy tracker preset), `apps/roi.txt` (nvdspreprocess with a batch
//! of 4 feeding a detector at batch 2) and `apps/unrelated.txt`, which
//! loads none of them.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use support::*;

const PROJECT: &str = "testdata/context/project";

/// Every file under a folder, by path relative to it, with its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files_under(dir)
        .into_iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == ".git"))
        .map(|p| (p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap()))
        .collect()
}

/// A copy of the project in a temporary folder.
fn project_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (rel, bytes) in tree(Path::new(PROJECT)) {
        let to = tmp.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
    tmp
}

fn check_in_project(args: &[&str]) -> (i32, String, String) {
    dslint_in(Path::new(PROJECT), args)
}

#[test]
fn a_named_nvinfer_config_reports_its_pipelines_cross_element_findings() {
    let (rc, out, err) = check_in_project(&["check", "models/detector.txt"]);
    assert_eq!((rc, err.as_str()), (1, ""));
    insta::assert_snapshot!("named_nvinfer_config", out);
    // Alone (its folder as the root, so no app is found), the same file
    // has no DS701: the batch mismatch needs the app.
    let (rc, out, _) = check_in_project(&["check", "models/detector.txt", "--root", "models", "--select", "DS7"]);
    assert_eq!((rc, out.as_str()), (0, "All checks passed (1 file).\n"));
}

#[test]
fn readme_context_excerpt_is_what_dslint_prints() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let fence = "```\n$ dslint check models/detector.txt --select DS701\n";
    let start = readme.find(fence).expect("the README's context excerpt") + fence.len();
    let excerpt = &readme[start..start + readme[start..].find("```").unwrap()];
    let (rc, out, err) = check_in_project(&["check", "models/detector.txt", "--select", "DS701"]);
    assert_eq!((rc, err.as_str()), (1, ""));
    assert_eq!(excerpt, out);
}

/// DS208 moved to a named app's line (the config file that loads it is not
/// named) says the app's line wins: its why must name the config file's
/// line as the ignored one, not "this line" (audit8: deepstream-app's
/// `[primary-gie]` over an nvinferserver config, checked by its app alone).
#[test]
fn a_named_app_keeps_ds208s_why_true_at_its_own_line() {
    let (_, out, _) = dslint(&[
        "check",
        "testdata/rules/DS208/fires/app.txt",
        "--isolated",
        "--select",
        "DS208",
    ]);
    assert!(out.contains("this line wins"), "{out}");
    assert!(!out.contains("so this line is silently ignored"), "{out}");
    assert!(out.contains("so the config file's line is silently ignored"), "{out}");
}

#[test]
fn a_named_preprocess_config_reports_the_batch_it_feeds() {
    let (rc, out, err) = check_in_project(&["check", "roi/preprocess.txt"]);
    assert_eq!((rc, err.as_str()), (1, ""));
    insta::assert_snapshot!("named_preprocess_config", out);
}

#[test]
fn a_named_tracker_preset_reports_what_its_app_says_of_it() {
    let (rc, out, err) = check_in_project(&["check", "trackers/config_tracker_NvDCF_accuracy.yml"]);
    assert_eq!((rc, err.as_str()), (0, ""));
    insta::assert_snapshot!("named_tracker_preset", out);
}

#[test]
fn a_named_app_reports_its_own_findings_and_a_folder_everything() {
    // The app's own findings only (the detector's DS201 and DS205 are the
    // detector's; DS701 is located in the app).
    let (rc, out, _) = check_in_project(&["check", "apps/detect.txt", "--format", "concise"]);
    assert_eq!(rc, 1);
    assert_eq!(
        out,
        "apps/detect.txt:18:12: DS701 BATCH_MISMATCH: streammux batch-size 4 != primary nvinfer batch-size 1 (models/detector.txt:6)\n\
         apps/detect.txt:32:16: DS403 tracker preset `config_tracker_NvDCF_accuracy.yml` favours accuracy over throughput\n\
         Found 1 error, 0 warnings, 1 info in 1 file, 2 more read as pipeline context; 0 fixable with `dslint fix`, 1 more with `--unsafe-fixes`, 1 more with `--fix-related`.\n"
    );
    // A folder is walked and reported whole, as before.
    let (_, out, _) = check_in_project(&["check", ".", "--format", "concise"]);
    let located: Vec<&str> = out.lines().filter_map(|l| l.split(": ").next()).collect();
    assert_eq!(
        located,
        [
            "./apps/detect.txt:18:12",
            "./apps/detect.txt:32:16",
            "./apps/unrelated.txt:11:12",
            "./models/detector.txt:1:2",
            "./models/detector.txt:6:12",
            "./roi/detector.txt:1:2",
            "./roi/detector.txt:6:12",
            "Found 2 errors, 1 warning, 4 info in 7 files; 3 fixable with `dslint fix`, 2 more with `--unsafe-fixes`.",
        ]
    );
    // A named file and a folder: the file, and everything under the folder.
    let (_, out, _) = check_in_project(&["check", "roi/preprocess.txt", "apps", "--format", "concise"]);
    let located: Vec<&str> = out.lines().filter_map(|l| l.split(": ").next()).collect();
    assert_eq!(
        located,
        [
            "apps/detect.txt:18:12",
            "apps/detect.txt:32:16",
            "apps/unrelated.txt:11:12",
            "roi/preprocess.txt:14:21",
            "Found 2 errors, 1 warning, 1 info in 4 files, 3 more read as pipeline context; 1 fixable with `dslint fix`, 1 more with `--unsafe-fixes`, 2 more with `--fix-related`.",
        ]
    );
}

#[test]
fn show_files_says_which_files_were_read_for_context() {
    let (rc, out, _) = check_in_project(&["check", "roi/preprocess.txt", "--show-files"]);
    assert_eq!(rc, 0);
    assert_eq!(
        out,
        "apps/roi.txt: deepstream-app config (key-file), pipeline context (its own findings are not reported)\n\
         roi/detector.txt: nvinfer config (key-file), pipeline context (its own findings are not reported)\n\
         roi/preprocess.txt: nvdspreprocess config (key-file)\n"
    );
}

#[test]
fn fix_edits_only_the_named_files_and_says_what_it_left() {
    let tmp = project_copy();
    let before = tree(tmp.path());
    // Without facts the detector's batch 2 is the preset min(n_streams, 16):
    // an unsafe fix (Precision 7), so a plain fix writes nothing.
    let (rc, out, err) = dslint_in(tmp.path(), &["fix", "models/detector.txt", "--write"]);
    assert_eq!(
        (rc, out.as_str(), err.as_str()),
        (
            0,
            "",
            "fixed 0 findings in 0 files.\n\
             1 fix left: unsafe (DS201 ×1); use --unsafe-fixes to apply.\n\
             1 fix left: it edits files that were not named; --fix-related applies it:\n\
             \x20 models/detector.txt:6: DS701 set both batch-size=2 (edits apps/detect.txt)\n"
        )
    );
    assert_eq!(tree(tmp.path()), before);
    let (rc, out, err) = dslint_in(tmp.path(), &["fix", "models/detector.txt", "--write", "--unsafe-fixes"]);
    assert_eq!(
        (rc, out.as_str(), err.as_str()),
        (
            0,
            "",
            "fixed 1 finding in 1 file (DS201 ×1).\n\
             1 fix left: it edits files that were not named; --fix-related applies it:\n\
             \x20 models/detector.txt:6: DS701 set streammux batch-size=2 (the primary's) (edits apps/detect.txt)\n"
        )
    );
    // Every file as it was, but the named one's batch.
    let mut want = before.clone();
    let detector = want.get_mut(Path::new("models/detector.txt")).unwrap();
    *detector = String::from_utf8(detector.clone())
        .unwrap()
        .replacen("\nbatch-size=1\n", "\nbatch-size=2\n", 1)
        .into_bytes();
    assert_eq!(tree(tmp.path()), want);
    // `fix --format json` lists the fix it left.
    let (rc, out, _) = dslint_in(tmp.path(), &["fix", "models/detector.txt", "--format", "json"]);
    assert_eq!(rc, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["related_left"],
        serde_json::json!([{
            "file": "models/detector.txt",
            "line": 6,
            "code": "DS701",
            "title": "set streammux batch-size=2 (the primary's)",
            "edits": ["apps/detect.txt"]
        }])
    );
    assert_eq!(v["changed"], serde_json::json!([]));
}

#[test]
fn fix_related_edits_the_app_too() {
    let tmp = project_copy();
    let mut want = tree(tmp.path());
    let (rc, out, err) = dslint_in(tmp.path(), &["fix", "models/detector.txt", "--write", "--fix-related"]);
    assert_eq!(
        (rc, out.as_str(), err.as_str()),
        (0, "", "fixed 1 finding in 2 files (DS701 ×1).\n")
    );
    for (file, from, to) in [
        ("models/detector.txt", "\nbatch-size=1\n", "\nbatch-size=2\n"),
        ("apps/detect.txt", "\nbatch-size=4\n", "\nbatch-size=2\n"),
    ] {
        let bytes = want.get_mut(Path::new(file)).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert_eq!(text.matches(from).count(), 1, "{file}");
        *bytes = text.replacen(from, to, 1).into_bytes();
    }
    assert_eq!(tree(tmp.path()), want);
    // Nothing left to fix, related or not.
    let (rc, _, err) = dslint_in(tmp.path(), &["fix", "models/detector.txt", "--fix-related"]);
    assert_eq!((rc, err.as_str()), (0, "would fix 0 findings in 0 files.\n"));
}

/// `git` in a folder with an identity; its stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    support::git_ok(dir, args)
}

/// The project committed in a fresh repository (no dslint.toml: the git
/// work tree is the root).
fn committed_project() -> tempfile::TempDir {
    let tmp = project_copy();
    std::fs::remove_file(tmp.path().join("dslint.toml")).unwrap();
    git(tmp.path(), &["init", "-q"]);
    git(tmp.path(), &["add", "."]);
    git(tmp.path(), &["commit", "-qm", "project"]);
    tmp
}

#[test]
fn changed_since_checks_the_changed_files_with_their_pipelines() {
    let tmp = committed_project();
    let dir = tmp.path();
    let head = git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    // Nothing changed yet.
    let (rc, out, err) = dslint_in(dir, &["check", "--changed-since", &head]);
    assert_eq!(
        (rc, out.as_str(), err.as_str()),
        (0, &*format!("Nothing checked: no config changed since {head}.\n"), "")
    );
    // The preprocess config's batch changes (and agrees with its detector
    // now); the nvinfer config's does not agree with its app; an untracked
    // config is new; a deleted one and a changed non-config are left out.
    let edit = |file: &str, from: &str, to: &str| support::replace_in(&dir.join(file), from, to);
    edit("roi/preprocess.txt", "network-input-shape=4;", "network-input-shape=2;");
    edit("models/detector.txt", "\nbatch-size=1\n", "\nbatch-size=3\n");
    std::fs::write(dir.join("models/labels.txt"), "car\nbus\n").unwrap();
    std::fs::write(dir.join("media/video.mp4"), "changed").unwrap();
    std::fs::remove_file(dir.join("apps/unrelated.txt")).unwrap();
    // A model source makes it nvinfer's (without one, nvinfer could not load
    // it and it is skipped as an nvdspostprocess-shaped config).
    std::fs::write(dir.join("models/new.onnx"), "onnx").unwrap();
    std::fs::write(
        dir.join("models/new.txt"),
        "[property]\nbatch-size=1\nnetwork-mode=0\nonnx-file=new.onnx\n",
    )
    .unwrap();
    let (rc, out, err) = dslint_in(dir, &["check", "--changed-since", &head, "--format", "concise"]);
    assert_eq!(
        err,
        "dslint: models/labels.txt: skipped, not checked: read as key-file, with no groups\n"
    );
    assert_eq!(rc, 1);
    assert_eq!(
        out,
        "models/detector.txt:1:2: DS205 model-engine-file is not set\n\
         models/detector.txt:6:12: DS201 primary nvinfer batch-size is 3 (nvinfer [property] batch-size)\n\
         models/detector.txt:6:12: DS701 BATCH_MISMATCH: primary nvinfer batch-size 3 != streammux batch-size 4 (apps/detect.txt:18)\n\
         models/new.txt:1:2: DS204 infer-dims is not set\n\
         models/new.txt:1:2: DS205 model-engine-file is not set\n\
         models/new.txt:3:14: DS202 network-mode is 0 (FP32)\n\
         Found 1 error, 2 warnings, 3 info in 3 files, 4 more read as pipeline context; 1 fixable with `dslint fix`, 1 more with `--unsafe-fixes`, 1 more with `--fix-related`.\n"
    );
    // Committed changes count too (the diff is against the working tree),
    // the positional paths narrow the set, and paths are shown from the
    // current folder.
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "change"]);
    let (rc, out, _) = dslint_in(
        &dir.join("models"),
        &[
            "check",
            "--changed-since",
            &head,
            "--format",
            "concise",
            "--select",
            "DS7",
            ".",
        ],
    );
    assert_eq!(rc, 1);
    assert_eq!(
        out,
        "detector.txt:6:12: DS701 BATCH_MISMATCH: primary nvinfer batch-size 3 != streammux batch-size 4 (../apps/detect.txt:18)\n\
         Found 1 error, 0 warnings, 0 info in 2 files, 2 more read as pipeline context; 0 fixable with `dslint fix`, 0 more with `--unsafe-fixes`, 1 more with `--fix-related`.\n"
    );
    let (rc, out, _) = dslint_in(dir, &["check", "--changed-since", &head, "roi", "--format", "concise"]);
    assert_eq!(
        (rc, out.as_str()),
        (0, "All checks passed (1 file, 2 more read as pipeline context).\n")
    );
    // fix --changed-since edits only the changed files: the detector's own
    // batch (DS201), not the app's (DS701 would set both).
    let before = tree(dir);
    let (rc, _, err) = dslint_in(
        dir,
        &["fix", "--changed-since", &head, "--write", "--select", "DS201,DS701"],
    );
    assert_eq!(
        (rc, err.as_str()),
        (
            0,
            "dslint: models/labels.txt: skipped, not checked: read as key-file, with no groups\n\
             fixed 1 finding in 1 file (DS201 ×1).\n\
             1 fix left: it edits files that were not named; --fix-related applies it:\n\
             \x20 models/detector.txt:6: DS701 set streammux batch-size=2 (the primary's) (edits apps/detect.txt)\n"
        )
    );
    let after = tree(dir);
    let differ: Vec<&PathBuf> = after.keys().filter(|k| after[*k] != before[*k]).collect();
    assert_eq!(differ, [Path::new("models/detector.txt")]);
}

#[test]
fn changed_since_refuses_what_is_not_a_revision() {
    let tmp = committed_project();
    for bad in ["--output=/tmp/x", "-p", ""] {
        let (rc, out, err) = dslint_in(tmp.path(), &["check", "--changed-since", bad]);
        assert_eq!(
            (rc, out.as_str(), err.as_str()),
            (
                2,
                "",
                &*format!(
                    "dslint: --changed-since: `{bad}` is not a git revision (a revision cannot start with `-` or be empty)\n"
                )
            )
        );
    }
    let (rc, out, err) = dslint_in(tmp.path(), &["check", "--changed-since", "no-such-branch"]);
    assert_eq!((rc, out.as_str()), (2, ""));
    assert!(
        err.starts_with("dslint: --changed-since no-such-branch: fatal: bad revision 'no-such-branch'"),
        "{err}"
    );
    // Outside a git repository.
    let plain = tempfile::tempdir().unwrap();
    let (rc, _, err) = dslint_in(plain.path(), &["check", "--changed-since", "HEAD"]);
    assert_eq!(rc, 2);
    assert!(err.starts_with("dslint: fatal: not a git repository"), "{err}");
}

/// Hang guards with a generous bound (each run takes well under a second
/// in a release build): one file with 100k distinct paths after reference
/// keys, another with 100k spellings of the named file's path (every one
/// placed against the root, the file read once as context).
#[test]
fn the_reference_index_stays_linear_on_hostile_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("dslint.toml"), "").unwrap();
    std::fs::write(
        dir.join("pgie.txt"),
        "[property]\ngie-unique-id=1\nnetwork-type=0\nonnx-file=model.onnx\nbatch-size=1\n",
    )
    .unwrap();
    let distinct: String = (0..100_000).map(|i| format!("config-file=m{i}.txt\n")).collect();
    std::fs::write(dir.join("distinct.txt"), format!("[application]\n{distinct}")).unwrap();
    let same: String = (0..100_000)
        .map(|i| format!("config-file={}sub{i}/../pgie.txt\n", "./".repeat(i % 50)))
        .collect();
    std::fs::write(dir.join("same.txt"), format!("[application]\n[primary-gie]\n{same}")).unwrap();
    let limit = std::time::Duration::from_secs(60);
    let (rc, out, err) = run_bounded(dir, &["check", "pgie.txt", "--show-files"], &[], limit);
    assert_eq!((rc, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "pgie.txt: nvinfer config (key-file)\n\
         same.txt: deepstream-app config (key-file), pipeline context (its own findings are not reported)\n"
    );
}

/// The reference keys of every front end (`model::frontend::REFERENCE_KEYS`)
/// find a named config's pipeline: a Service Maker pipeline's
/// `config-file-path` property, an nvinferserver config loaded by a
/// `plugin-type=1` group, an nvdsanalytics config loaded by
/// `[nvds-analytics] config-file`. Each named config reports its
/// pipeline's finding (DS701 at its own batch, DS803 at a stream group the
/// app does not have); alone (its folder as the root) it cannot.
#[test]
fn named_configs_find_their_pipelines_in_every_form() {
    let forms = Path::new("testdata/context/forms");
    for (named, want) in [
        (
            "service-maker/models/pgie.txt",
            "service-maker/models/pgie.txt:7:12: DS201 primary nvinfer batch-size is 1 (nvinfer [property] batch-size)\n\
             service-maker/models/pgie.txt:7:12: DS701 BATCH_MISMATCH: primary nvinfer batch-size 1 != streammux batch-size 2 (service-maker/pipeline.yaml:16)\n",
        ),
        (
            "nvinferserver/triton/pgie_server.txt",
            "nvinferserver/triton/pgie_server.txt:5:19: DS201 primary nvinferserver batch-size is 4 (nvinferserver [infer_config] max_batch_size)\n\
             nvinferserver/triton/pgie_server.txt:5:19: DS701 BATCH_MISMATCH: primary nvinferserver max_batch_size 4 != streammux batch-size 2 (nvinferserver/app.txt:14)\n",
        ),
        (
            "analytics/rois/analytics.txt",
            "analytics/rois/analytics.txt:15:2: DS803 [overcrowding-stream-2] is for stream 2, but the pipeline has 2 streams\n",
        ),
    ] {
        let (rc, out, err) = dslint_in(forms, &["check", named, "--format", "concise", "--quiet"]);
        assert_eq!((rc, out.as_str(), err.as_str()), (1, want, ""), "{named}");
        let alone = Path::new(named).parent().unwrap().to_str().unwrap();
        let (_, out, _) = dslint_in(forms, &["check", named, "--root", alone, "--select", "DS701,DS803"]);
        assert_eq!(out, "All checks passed (1 file).\n", "{named} alone");
    }
}

/// A C source the walk could not read (over the 10 MiB cap) may be the
/// project's reader: the keys it reads are unknown, so DS002 is silent for
/// every key NVIDIA's readers do not read, not sure of one it may read
/// (hostile8: a fork padded past the cap had its keys called unknown).
#[test]
fn a_reader_too_large_to_read_leaves_the_keys_unknown() {
    let case = Path::new("testdata/rules/DS002/clean-forked-reader");
    let tmp = tempfile::tempdir().unwrap();
    for file in files_under(case) {
        let to = tmp.path().join(file.strip_prefix(case).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&file, &to).unwrap();
    }
    let header = tmp.path().join("src/fork_config_parser.h");
    let text = std::fs::read_to_string(&header).unwrap();
    let padding = format!("/* {} */\n", "x".repeat(11 << 20));
    std::fs::write(&header, format!("{padding}{text}")).unwrap();
    for args in [
        &["check", "--select", "DS002", "."][..],
        &["check", "--select", "DS002", "configs"],
    ] {
        let (rc, out, err) = dslint_in(tmp.path(), args);
        assert_eq!((rc, err.as_str()), (0, ""), "{args:?}: {out}");
        assert!(out.starts_with("All checks passed"), "{args:?}: {out}");
    }
}

/// A C header over the 10 MiB cap with none of a reader's marks (`CONFIG_`,
/// `g_key_file_`, `YAML::`: a model's weights as a C array) reads no keys:
/// looked through in pieces, it leaves DS002 as it was (it made every key
/// unknown, silencing DS002 for non-NVIDIA names project-wide). One with a
/// mark past the first 10 MiB still leaves the keys unknown.
#[test]
fn a_generated_header_over_the_cap_reads_no_keys() {
    let case = Path::new("testdata/rules/DS002/fires");
    let tmp = tempfile::tempdir().unwrap();
    for file in files_under(case) {
        let to = tmp.path().join(file.strip_prefix(case).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&file, &to).unwrap();
    }
    std::fs::create_dir(tmp.path().join("include")).unwrap();
    let header = tmp.path().join("include/model_weights.h");
    let mut weights = String::from("static const unsigned char model_weights[] = {\n");
    while weights.len() < 11 << 20 {
        weights.push_str("0x3f, 0x80, 0x00, 0x00, 0x3f, 0x00, 0x00, 0x00,\n");
    }
    std::fs::write(&header, format!("{weights}}};\n")).unwrap();
    let (rc, out, err) = dslint_in(tmp.path(), &["check", "--select", "DS002", "."]);
    assert_eq!((rc, err.as_str()), (1, ""), "{out}");
    assert!(
        out.contains("warning[DS002]: unknown key `batchsize` in [streammux]"),
        "{out}"
    );
    // A mark past the cap (a reader's define after the array): unknown.
    std::fs::write(
        &header,
        format!("{weights}}};\n#define CONFIG_GROUP_PROPERTY_FOO \"foo\"\n"),
    )
    .unwrap();
    let (rc, out, err) = dslint_in(tmp.path(), &["check", "--select", "DS002", "."]);
    assert_eq!((rc, err.as_str()), (0, ""), "{out}");
    assert!(out.starts_with("All checks passed"), "{out}");
}

/// Without a marker (no git work tree, no `dslint.toml`/`pyproject.toml`)
/// the root is the current folder, but the project's own sources are
/// looked for only in the folder of the checked paths: a check of
/// `configs` from the folder above gives what a check from inside gives,
/// and does not look through the rest of the current folder (from `/tmp`,
/// all of it: 84 s against 0.01 s). Here the fork's reader in `src/`, a
/// sibling of the checked folder, is not read either way.
#[test]
fn without_a_marker_the_project_is_the_checked_folder() {
    let case = Path::new("testdata/rules/DS002/clean-forked-reader");
    let tmp = tempfile::tempdir().unwrap();
    for file in files_under(case) {
        let rel = file.strip_prefix(case).unwrap();
        if rel == Path::new("dslint.toml") {
            continue;
        }
        let to = tmp.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&file, &to).unwrap();
    }
    let (rc, above, err) = dslint_in(tmp.path(), &["check", "--select", "DS002", "configs"]);
    assert_eq!((rc, err.as_str()), (1, ""), "{above}");
    let (rc, inside, err) = dslint_in(&tmp.path().join("configs"), &["check", "--select", "DS002", "."]);
    assert_eq!((rc, err.as_str()), (1, ""), "{inside}");
    assert_eq!(above.replace("configs/", "./"), inside);
    assert!(
        above.contains("unknown key `do-retransmission` in [source0]"),
        "{above}"
    );
}

/// A project that ships its own fork of deepstream-app's and nvinfer's
/// parsers (`src/`) is judged by them for the keys they add, whether the
/// whole tree, a subfolder or one file is named: the sources are looked
/// for under the project root, not under the named paths.
#[test]
fn a_forked_reader_is_found_whatever_paths_are_named() {
    let case = Path::new("testdata/rules/DS002/clean-forked-reader");
    for args in [
        &["check", "--select", "DS002", "."][..],
        &["check", "--select", "DS002", "configs"],
        &["check", "--select", "DS002", "configs/app.txt", "configs/pgie.txt"],
    ] {
        let (rc, out, err) = dslint_in(case, args);
        assert_eq!((rc, err.as_str()), (0, ""), "{args:?}: {out}");
        assert!(out.starts_with("All checks passed"), "{args:?}: {out}");
    }
    // Without the fork (its folder as the root), both keys are unknown.
    let (rc, out, _) = dslint_in(case, &["check", "--select", "DS002", "--root", "configs", "configs"]);
    assert_eq!(rc, 1, "{out}");
    assert_eq!(out.matches("warning[DS002]: unknown key").count(), 2, "{out}");
}
