//! How dslint reaches users besides the command line. The package:
//! complete Cargo metadata and a `cargo package` with nothing to warn
//! about. The GitHub Action (`action.yml`) and its example workflow: both
//! parse as YAML (PyYAML, which pre-commit brings), they agree with each
//! other and with the script, and the action's script runs against the
//! example configs as the action runs it, with a stand-in reviewdog that
//! records what it was given. (The pre-commit hooks: tests/ecosystem.rs.)

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use support::*;

/// A YAML file as JSON, read by a real YAML parser (PyYAML).
fn yaml(path: &str) -> Value {
    let o = Command::new("python3")
        .args([
            "-c",
            "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)",
            path,
        ])
        .output()
        .expect("python3 runs");
    assert!(
        o.status.success(),
        "{path}: {} (PyYAML comes with pre-commit: pip install pre-commit)",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Every `inputs.NAME` a text refers to.
fn input_refs(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split("inputs.")
        .skip(1)
        .map(|s| {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn action_and_example_workflow_parse_and_agree() {
    let action = yaml("action.yml");
    assert_eq!(action["runs"]["using"], "composite");
    let inputs: Vec<String> = action["inputs"].as_object().unwrap().keys().cloned().collect();
    for i in action["inputs"].as_object().unwrap().values() {
        assert!(i["description"].is_string(), "{i}");
    }
    let steps = action["runs"]["steps"].as_array().unwrap();
    // Every input the steps use is declared, and every one declared is used.
    let text = std::fs::read_to_string("action.yml").unwrap();
    let used = input_refs(&text);
    let mut declared = inputs.clone();
    declared.sort();
    assert_eq!(used, declared);
    // It builds dslint from its own checkout, cached, and runs the script
    // with every variable the script reads.
    let run_of = |name: &str| {
        steps
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("step {name}"))
            .clone()
    };
    assert_eq!(
        run_of("Build dslint")["run"],
        "cargo install --locked --path \"$GITHUB_ACTION_PATH\" --root \"$HOME/.cache/dslint-action\""
    );
    assert_eq!(run_of("Cache the dslint build")["uses"], "actions/cache@v4");
    let step = run_of("dslint");
    assert_eq!(step["run"], "\"$GITHUB_ACTION_PATH/action/dslint-action.sh\"");
    let script = std::fs::read_to_string("action/dslint-action.sh").unwrap();
    use std::os::unix::fs::PermissionsExt;
    assert_ne!(
        std::fs::metadata("action/dslint-action.sh")
            .unwrap()
            .permissions()
            .mode()
            & 0o111,
        0
    );
    for var in [
        "DSLINT_PATHS",
        "DSLINT_CHANGED_SINCE",
        "DSLINT_REPORTER",
        "DSLINT_ARGS",
        "DSLINT_FAIL_ON_FINDINGS",
    ]
    .into_iter()
    .chain(["REVIEWDOG_REPORTER", "REVIEWDOG_FILTER_MODE"])
    {
        assert!(script.contains(&format!("${{{var}")), "the script reads {var}");
        assert!(step["env"][var].is_string(), "the step sets {var}");
    }
    // The example workflow uses the action at a pinned commit, with inputs
    // it declares.
    let wf = yaml("examples/github-action.yml");
    let uses: Vec<&Value> = wf["jobs"]["dslint"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("dslint/dslint@")))
        .collect();
    assert_eq!(uses.len(), 1);
    let rev = uses[0]["uses"].as_str().unwrap().trim_start_matches("dslint/dslint@");
    assert!(
        rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit()),
        "pinned to a commit: {rev}"
    );
    for key in uses[0]["with"].as_object().unwrap().keys() {
        assert!(inputs.contains(key), "{key} is no input of the action");
    }
    assert_eq!(uses[0]["with"]["reporter"], "reviewdog");
    // The README shows the example as it is.
    let readme = std::fs::read_to_string("README.md").unwrap();
    let example = std::fs::read_to_string("examples/github-action.yml").unwrap();
    assert!(readme.contains(&example), "README: paste examples/github-action.yml");
}

/// Run the action's script in the repository with `env`; a stand-in
/// `reviewdog` that writes its arguments and input into `dir` comes first
/// on PATH.
fn run_action(dir: &Path, env: &[(&str, &str)]) -> (i32, String, String) {
    run_action_in(Path::new(env!("CARGO_MANIFEST_DIR")), dir, env)
}

/// `run_action` from the folder `cwd` (a checkout).
fn run_action_in(cwd: &Path, dir: &Path, env: &[(&str, &str)]) -> (i32, String, String) {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("reviewdog");
    std::fs::write(
        &fake,
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$RECORD/args\"\ncat > \"$RECORD/input\"\nexit \"${REVIEWDOG_EXIT:-0}\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}:{}",
        bin.display(),
        dslint_bin().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = std::fs::canonicalize("action/dslint-action.sh").unwrap();
    let mut c = Command::new(script);
    c.env("PATH", path)
        .env("NO_COLOR", "1")
        .env("RECORD", dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("DSLINT_CHANGED_SINCE")
        .current_dir(cwd);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

#[test]
fn the_action_script_annotates_the_example_configs() {
    let tmp = tempfile::tempdir().unwrap();
    let (want_rc, want, _) = dslint(&["check", "testdata/examples", "--format", "github"]);
    assert_eq!(want_rc, 1);
    assert!(want.starts_with("::"), "{want}");
    let summary = tmp.path().join("summary.md");
    let (rc, out, _) = run_action(
        tmp.path(),
        &[
            ("DSLINT_PATHS", "testdata/examples\n"),
            ("DSLINT_REPORTER", "annotations"),
            ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
        ],
    );
    assert_eq!((rc, out.as_str()), (1, want.as_str()));
    let (_, stats, _) = dslint(&["check", "testdata/examples", "--statistics"]);
    assert_eq!(
        std::fs::read_to_string(&summary).unwrap(),
        format!("### dslint\n```text\n{stats}```\n")
    );
    // Findings do not fail the step when asked; extra arguments reach dslint.
    let (rc, out, _) = run_action(
        tmp.path(),
        &[
            ("DSLINT_PATHS", "testdata/examples"),
            ("DSLINT_FAIL_ON_FINDINGS", "false"),
            ("DSLINT_ARGS", "--select DS7"),
        ],
    );
    let (_, ds7, _) = dslint(&["check", "testdata/examples", "--format", "github", "--select", "DS7"]);
    assert_eq!((rc, out.as_str()), (0, ds7.as_str()));
    // Errors stay errors.
    let (rc, out, err) = run_action(tmp.path(), &[("DSLINT_PATHS", "no/such/folder")]);
    assert_eq!((rc, out.as_str()), (2, ""));
    assert_eq!(err, "dslint: no/such/folder: no such file or folder\n");
    let (rc, out, _) = run_action(tmp.path(), &[("DSLINT_REPORTER", "bot")]);
    assert_eq!(
        (rc, out.as_str()),
        (
            2,
            "::error title=dslint::reporter must be annotations or reviewdog, not 'bot'\n"
        )
    );
}

#[test]
fn the_action_script_feeds_reviewdog_rdjson_with_suggestions() {
    let tmp = tempfile::tempdir().unwrap();
    let (rc, out, err) = run_action(
        tmp.path(),
        &[
            ("DSLINT_PATHS", "testdata/examples"),
            ("DSLINT_REPORTER", "reviewdog"),
            ("REVIEWDOG_REPORTER", "github-pr-review"),
            ("REVIEWDOG_FILTER_MODE", "added"),
        ],
    );
    assert_eq!((rc, out.as_str(), err.as_str()), (0, "", ""));
    let args = std::fs::read_to_string(tmp.path().join("args")).unwrap();
    assert_eq!(
        args,
        "-f=rdjson\n-name=dslint\n-reporter=github-pr-review\n-filter-mode=added\n-fail-level=warning\n"
    );
    let (_, rdjson, _) = dslint(&["check", "testdata/examples", "--format", "rdjson"]);
    let input = std::fs::read_to_string(tmp.path().join("input")).unwrap();
    assert_eq!(input, rdjson);
    let v: Value = serde_json::from_str(&input).unwrap();
    assert!(
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["suggestions"].is_array()),
        "safe fixes travel as suggestions"
    );
    // reviewdog decides the step's outcome (findings on changed lines).
    let (rc, _, _) = run_action(
        tmp.path(),
        &[
            ("DSLINT_PATHS", "testdata/examples"),
            ("DSLINT_REPORTER", "reviewdog"),
            ("REVIEWDOG_EXIT", "1"),
        ],
    );
    assert_eq!(rc, 1);
    let (rc, _, _) = run_action(
        tmp.path(),
        &[
            ("DSLINT_PATHS", "testdata/examples"),
            ("DSLINT_REPORTER", "reviewdog"),
            ("DSLINT_FAIL_ON_FINDINGS", "false"),
        ],
    );
    assert_eq!(rc, 0);
    assert!(
        std::fs::read_to_string(tmp.path().join("args"))
            .unwrap()
            .contains("-fail-level=none\n")
    );
    // A usage error never reaches reviewdog.
    std::fs::remove_file(tmp.path().join("args")).unwrap();
    let (rc, _, _) = run_action(
        tmp.path(),
        &[("DSLINT_PATHS", "no/such/folder"), ("DSLINT_REPORTER", "reviewdog")],
    );
    assert_eq!(rc, 2);
    assert!(!tmp.path().join("args").exists());
}

/// `git` in a folder with an identity; its stdout, trimmed.
fn git(dir: &Path, args: &[&str]) -> String {
    support::git_ok(dir, args).trim().to_string()
}

/// A pull request as the action sees it: a base commit whose pipeline
/// agrees with itself (4 streams, batch 4), a head commit that changes only
/// the nvinfer config to batch 1, and a shallow clone of the head (as
/// actions/checkout makes), which lacks the base commit until the script
/// fetches it.
#[test]
fn the_action_checks_the_files_a_pull_request_changes_against_their_pipelines() {
    let tmp = tempfile::tempdir().unwrap();
    let origin = tmp.path().join("origin");
    std::fs::create_dir_all(&origin).unwrap();
    support::agreeing_pipeline(&origin);
    let edit = |file: &str, from: &str, to: &str| support::replace_in(&origin.join(file), from, to);
    git(&origin, &["init", "-q"]);
    git(&origin, &["add", "."]);
    git(&origin, &["commit", "-qm", "base"]);
    let base = git(&origin, &["rev-parse", "HEAD"]);
    edit("pgie.txt", "\nbatch-size=4\n", "\nbatch-size=1\n");
    git(&origin, &["commit", "-qam", "nvinfer batch 1"]);
    let checkout = tmp.path().join("checkout");
    let url = format!("file://{}", origin.display());
    git(
        tmp.path(),
        &["clone", "-q", "--depth=1", &url, checkout.to_str().unwrap()],
    );
    let has_base = || {
        Command::new("git")
            .args(["cat-file", "-e", &format!("{base}^{{commit}}")])
            .current_dir(&checkout)
            .status()
            .unwrap()
            .success()
    };
    assert!(!has_base(), "a shallow clone lacks the base");
    let record = tmp.path().join("record");
    std::fs::create_dir_all(&record).unwrap();
    let (rc, out, err) = run_action_in(
        &checkout,
        &record,
        &[
            ("DSLINT_CHANGED_SINCE", base.as_str()),
            ("DSLINT_REPORTER", "annotations"),
        ],
    );
    assert!(has_base(), "the script fetched the base: {err}");
    assert_eq!(rc, 1, "{err}");
    let (want_rc, want, _) = dslint_in(
        &checkout,
        &["check", ".", "--changed-since", &base, "--format", "github"],
    );
    assert_eq!((rc, out.as_str()), (want_rc, want.as_str()));
    // Annotations on the changed file only: its batch against the streams
    // (DS201, a notice: without facts min(n_streams, 16) is a preset) and
    // against the app's (DS701). Its engine, built for batch 4,
    // exists and serves batch 1, so its name is no finding (DS207).
    let located: Vec<&str> = out.lines().map(|l| l.split("::").nth(1).unwrap()).collect();
    assert_eq!(
        located,
        [
            "notice file=pgie.txt,line=7,col=12,endLine=7,endColumn=13,title=DS201 primary-batch-size",
            "error file=pgie.txt,line=7,col=12,endLine=7,endColumn=13,title=DS701 batch-mismatch",
        ]
    );
    // Without a base (a push), the paths are checked whole: the app's own
    // finding comes too.
    let (rc, out, _) = run_action_in(&checkout, &record, &[("DSLINT_REPORTER", "annotations")]);
    let (_, whole, _) = dslint_in(&checkout, &["check", ".", "--format", "github"]);
    assert_eq!((rc, out.as_str()), (1, whole.as_str()));
    assert!(out.contains("file=app.txt,line=18"), "{out}");
    // A base that is an option is refused before anything runs.
    let (rc, out, _) = run_action_in(&checkout, &record, &[("DSLINT_CHANGED_SINCE", "--upload-pack=x")]);
    assert_eq!(
        (rc, out.as_str()),
        (
            2,
            "::error title=dslint::changed-since must be a git revision, not '--upload-pack=x'\n"
        )
    );
}

#[test]
fn the_package_is_complete_and_cargo_package_is_clean() {
    let manifest: toml_edit::DocumentMut = std::fs::read_to_string("Cargo.toml").unwrap().parse().unwrap();
    let pkg = &manifest["package"];
    for key in ["rust-version", "license", "repository", "description", "readme"] {
        assert!(pkg[key].as_str().is_some_and(|v| !v.is_empty()), "package.{key}");
    }
    assert_eq!(pkg["license"].as_str(), Some("MIT OR Apache-2.0"));
    for key in ["keywords", "categories"] {
        assert!(pkg[key].as_array().is_some_and(|a| !a.is_empty()), "package.{key}");
    }
    // edition 2024 needs 1.85, the dependencies 1.88, the code 1.91
    // (clippy's incompatible_msrv lint checks the code against it).
    assert_eq!(pkg["edition"].as_str(), Some("2024"));
    assert_eq!(pkg["rust-version"].as_str(), Some("1.91"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let o = Command::new(cargo)
        .args(["package", "--list", "--allow-dirty", "--offline"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("warning"), "cargo package warns:\n{err}");
    let list = String::from_utf8_lossy(&o.stdout);
    let files: Vec<&str> = list.lines().collect();
    for f in [
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "README.md",
        "Cargo.lock",
        "src/main.rs",
        "rules/DS701.md",
        "rules/keys.tsv",
        "action.yml",
        "action/dslint-action.sh",
        ".pre-commit-hooks.yaml",
    ] {
        assert!(files.contains(&f), "{f} is not packaged");
    }
}
