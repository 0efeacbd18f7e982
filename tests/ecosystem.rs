//! Fitting in: project configuration, inline suppressions, conveniences
//! (--statistics, --quiet, --show-fixes, completions, man page), the
//! pre-commit hooks (with the real `pre-commit` when it is installed) and
//! the example CI files.

mod support;

use std::path::Path;
use std::process::Command;

use support::*;

fn copy_case(case: &str, to: &Path) {
    for f in files_under(Path::new(case)) {
        std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
    }
}

fn codes(json: &str) -> Vec<String> {
    let v: Vec<serde_json::Value> = serde_json::from_str(json).unwrap();
    let mut c: Vec<String> = v.iter().map(|d| d["code"].as_str().unwrap().to_string()).collect();
    c.dedup();
    c
}

#[test]
fn project_config_is_found_walking_up_and_applied() {
    let tmp = tempfile::tempdir().unwrap();
    let sub = tmp.path().join("configs/legacy");
    std::fs::create_dir_all(&sub).unwrap();
    copy_case("testdata/examples", &tmp.path().join("configs"));
    copy_case("testdata/rules/DS202/fires", &sub);
    std::fs::write(
        tmp.path().join("dslint.toml"),
        "ignore = [\"DS208\", \"DS4\"]\nprofile = \"bench\"\n[per-file-ignores]\n\"configs/legacy/*\" = [\"DS2\"]\n",
    )
    .unwrap();
    let (_, out, err) = dslint_in(tmp.path(), &["check", "configs", "--format", "json"]);
    let c = codes(&out);
    assert!(!c.iter().any(|c| c == "DS208" || c.starts_with("DS4")), "{c:?} {err}");
    // bench profile from the config: the output branch is a warning now.
    let v: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert!(
        v.iter().any(|d| d["code"] == "DS601" && d["severity"] == "warning"),
        "{out}"
    );
    // per-file-ignores: no DS2xx from the legacy folder, but from the others.
    assert!(
        !v.iter()
            .any(|d| d["code"].as_str().unwrap().starts_with("DS2") && d["file"].as_str().unwrap().contains("legacy")),
        "{out}"
    );
    assert!(
        v.iter()
            .any(|d| d["code"] == "DS202" && !d["file"].as_str().unwrap().contains("legacy")),
        "{out}"
    );
    // --isolated ignores it; CLI --ignore adds to it.
    let (_, out, _) = dslint_in(tmp.path(), &["check", "configs", "--format", "json", "--isolated"]);
    assert!(codes(&out).iter().any(|c| c == "DS208"));
}

#[test]
fn config_errors_point_at_line_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("dslint.toml"),
        "select = [\"DS1\"]\n\nignroe = [\"DS2\"]\n",
    )
    .unwrap();
    std::fs::write(tmp.path().join("app.txt"), "[streammux]\nbatch-size=1\n").unwrap();
    let (rc, _, err) = dslint_in(tmp.path(), &["check", "."]);
    assert_eq!(rc, 2);
    assert!(
        err.contains("dslint.toml:3:1: unknown key `ignroe` (did you mean `ignore`?)"),
        "{err}"
    );
    // `--config` replaces the broken dslint.toml found walking up: its
    // select (DS6 only) filters out every finding of a case that fires DS101.
    copy_case("testdata/rules/DS101/fires", tmp.path());
    std::fs::write(tmp.path().join("pyproject.toml"), "[tool.dslint]\nselect = [\"DS6\"]\n").unwrap();
    let (rc, out, err) = dslint_in(
        tmp.path(),
        &["check", ".", "--config", "pyproject.toml", "--format", "json"],
    );
    assert_eq!((rc, out.trim()), (0, "[]"), "{err}");
    let (rc, out, err) = dslint_in(tmp.path(), &["check", ".", "--isolated", "--format", "json"]);
    assert_eq!(rc, 1, "{err}");
    assert!(codes(&out).contains(&"DS101".to_string()), "{out}");
}

#[test]
fn suppressions_and_unused_ones() {
    let (_, out, _) = dslint(&["check", "testdata/rules/DS009/fires", "--format", "json"]);
    assert_eq!(codes(&out), vec!["DS009"]);
    // Not reported as unused when its code is not selected in this run.
    let (rc, out, _) = dslint(&[
        "check",
        "testdata/rules/DS009/fires",
        "--select",
        "DS1",
        "--format",
        "json",
    ]);
    assert_eq!((rc, codes(&out).len()), (0, 0), "{out}");
    // Either file of a cross-file finding can silence it.
    let (rc, out, _) = dslint(&["check", "testdata/rules/DS009/clean-cross-file", "--format", "json"]);
    assert_eq!((rc, out.trim()), (0, "[]"));
    let (_, out, _) = dslint(&[
        "check",
        "testdata/rules/DS009/clean-cross-file",
        "--format",
        "json",
        "--ignore",
        "DS009",
    ]);
    assert_eq!(out.trim(), "[]");
}

#[test]
fn conveniences() {
    let (rc, out, _) = dslint(&["check", "testdata/examples", "--statistics"]);
    assert_eq!(rc, 1);
    assert!(
        out.lines()
            .any(|l| l == "    1  DS101  error     [*]  streammux-batch-size"),
        "{out}"
    );
    let (_, out, _) = dslint(&["check", "testdata/rules/DS101/clean", "--quiet"]);
    assert_eq!(out, "");
    let (_, _, err) = dslint(&["fix", "testdata/examples", "--show-fixes"]);
    assert!(
        err.contains("testdata/examples/deepstream_app_4cam.txt:36: DS101 set batch-size=4"),
        "{err}"
    );
    let (rc, out, _) = dslint(&["completions", "bash"]);
    assert_eq!(rc, 0);
    assert!(out.contains("_dslint()"));
    let (rc, out, _) = dslint(&["man"]);
    assert_eq!(rc, 0);
    assert!(out.contains(".TH dslint 1"));
    let (_, out, _) = dslint(&["check", "testdata/rules/DS101/fires", "--color", "always"]);
    assert!(out.contains("\x1b[1;31merror\x1b[0m"), "{out}");
}

#[test]
fn example_ci_files_parse() {
    for f in files_under(Path::new("examples")) {
        let text = std::fs::read_to_string(&f).unwrap();
        let name = f.to_string_lossy().to_string();
        if name.ends_with(".yml") || name.ends_with(".yaml") {
            let doc = dslint::syntax::Document::parse(text.clone(), dslint::syntax::Format::Yaml);
            assert!(doc.errors.is_empty(), "{name}: {:?}", doc.errors);
            assert!(text.contains("dslint"), "{name}");
        }
    }
    let hooks = std::fs::read_to_string(".pre-commit-hooks.yaml").unwrap();
    let doc = dslint::syntax::Document::parse(hooks.clone(), dslint::syntax::Format::Yaml);
    assert!(doc.errors.is_empty());
    assert!(hooks.contains("id: dslint\n") && hooks.contains("id: dslint-fix\n"));
    // The workflow uploads SARIF made by `check --format sarif`.
    let wf = std::fs::read_to_string("examples/github-actions.yml").unwrap();
    assert!(wf.contains("--format sarif") && wf.contains("upload-sarif"));
    let rd = std::fs::read_to_string("examples/reviewdog.yml").unwrap();
    assert!(rd.contains("--format rdjson") && rd.contains("-f=rdjson"));
}

/// With the real pre-commit (pip install pre-commit): a bad config blocks
/// the commit, a fixed one passes. Required under CI (`.ci/run` installs it).
#[test]
fn pre_commit_blocks_a_bad_config() {
    let have = Command::new("pre-commit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !required("pre-commit", have) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let hooks_repo = tmp.path().join("hooks");
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&hooks_repo).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let git = |dir: &Path, args: &[&str]| {
        let o = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr),
        )
    };
    // A hook repository holding our manifest (language: system runs the
    // dslint on PATH, here the one just built).
    std::fs::copy(".pre-commit-hooks.yaml", hooks_repo.join(".pre-commit-hooks.yaml")).unwrap();
    git(&hooks_repo, &["init", "-q"]);
    git(&hooks_repo, &["add", "."]);
    git(&hooks_repo, &["commit", "-qm", "hooks"]);
    let (_, rev) = git(&hooks_repo, &["rev-parse", "HEAD"]);
    git(&work, &["init", "-q"]);
    std::fs::write(
        work.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {}\n    hooks:\n      - id: dslint\n",
            hooks_repo.display(),
            rev.trim()
        ),
    )
    .unwrap();
    copy_case("testdata/rules/DS701/fires", &work);
    let path = format!(
        "{}:{}",
        dslint_bin().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |args: &[&str]| {
        let o = Command::new("pre-commit")
            .args(args)
            .current_dir(&work)
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", tmp.path().join("cache"))
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr),
        )
    };
    git(&work, &["add", "."]);
    let (ok, out) = run(&["run", "--all-files"]);
    assert!(!ok, "a bad config must fail the hook:\n{out}");
    assert!(out.contains("DS701"), "{out}");
    // Fix it, and the hook passes.
    let (rc, _, err) = dslint_in(&work, &["fix", ".", "--write"]);
    assert_eq!(rc, 0, "{err}");
    git(&work, &["add", "."]);
    let (ok, out) = run(&["run", "--all-files"]);
    assert!(ok, "{out}");
}
