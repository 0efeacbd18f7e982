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
    // The primary's ONNX model where its config names it: DS202 judges only
    // a model it has read (no Q/DQ node); copy_case flattens the folders.
    std::fs::create_dir_all(tmp.path().join("configs/models")).unwrap();
    std::fs::write(tmp.path().join("configs/models/vehicle_detector.onnx"), "placeholder\n").unwrap();
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
        out.lines().any(|l| l == "    1  DS701  error     [*]  batch-mismatch"),
        "{out}"
    );
    let (_, out, _) = dslint(&["check", "testdata/rules/DS101/clean", "--quiet"]);
    assert_eq!(out, "");
    let (_, _, err) = dslint(&["fix", "testdata/examples", "--show-fixes"]);
    assert!(
        err.contains("testdata/examples/deepstream_app_4cam.txt:36: DS701 set streammux batch-size=4 (the primary's)"),
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
    assert!(hooks.contains("id: dslint-system\n") && hooks.contains("id: dslint-fix-system\n"));
    // The workflow uploads SARIF made by `check --format sarif`.
    let wf = std::fs::read_to_string("examples/github-actions.yml").unwrap();
    assert!(wf.contains("--format sarif") && wf.contains("upload-sarif"));
    let rd = std::fs::read_to_string("examples/reviewdog.yml").unwrap();
    assert!(rd.contains("--format rdjson") && rd.contains("-f=rdjson"));
}

/// Whether the real pre-commit is installed (`pip install pre-commit`);
/// required under CI (`.ci/run` installs it).
fn have_pre_commit() -> bool {
    let have = Command::new("pre-commit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    required("pre-commit", have)
}

/// `git` in a folder, with an identity; (success, stdout + stderr).
fn git(dir: &Path, args: &[&str]) -> (bool, String) {
    git_env(dir, args, &[])
}

/// `git` with more environment (a commit that runs pre-commit's hook).
fn git_env(dir: &Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> (bool, String) {
    let o = support::git_command(dir, args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr),
    )
}

/// A work repository whose `.pre-commit-config.yaml` uses `hook` from the
/// hook repository at its HEAD.
fn work_repo(root: &Path, hooks_repo: &Path, hook: &str) -> std::path::PathBuf {
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let (_, rev) = git(hooks_repo, &["rev-parse", "HEAD"]);
    git(&work, &["init", "-q"]);
    std::fs::write(
        work.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {}\n    hooks:\n      - id: {hook}\n",
            hooks_repo.display(),
            rev.trim()
        ),
    )
    .unwrap();
    work
}

/// pre-commit's own validators accept the hook manifest and the example
/// config, whose hooks exist, pinned to a commit; the README shows the
/// example as it is.
#[test]
fn pre_commit_validates_the_hooks_and_the_example_config() {
    if !have_pre_commit() {
        return;
    }
    for (what, file) in [
        ("validate-manifest", ".pre-commit-hooks.yaml"),
        ("validate-config", "examples/pre-commit-config.yaml"),
    ] {
        let o = Command::new("pre-commit").args([what, file]).output().unwrap();
        assert!(o.status.success(), "{file}: {}", String::from_utf8_lossy(&o.stdout));
    }
    let hooks = std::fs::read_to_string(".pre-commit-hooks.yaml").unwrap();
    let example = std::fs::read_to_string("examples/pre-commit-config.yaml").unwrap();
    for id in ["dslint-fix", "dslint"] {
        assert!(example.contains(&format!("      - id: {id}\n")), "{id}");
        let at = hooks.find(&format!("- id: {id}\n")).unwrap();
        let language = hooks[at..]
            .lines()
            .find(|l| l.trim_start().starts_with("language:"))
            .unwrap();
        assert_eq!(language.trim(), "language: rust", "{id}");
    }
    for id in ["dslint-system", "dslint-fix-system"] {
        let at = hooks.find(&format!("- id: {id}\n")).unwrap();
        let language = hooks[at..]
            .lines()
            .find(|l| l.trim_start().starts_with("language:"))
            .unwrap();
        assert_eq!(language.trim(), "language: system", "{id}");
    }
    let rev = example.lines().find_map(|l| l.trim().strip_prefix("rev: ")).unwrap();
    assert!(rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit()), "{rev}");
    let readme = std::fs::read_to_string("README.md").unwrap();
    assert!(
        readme.contains(&example),
        "README: paste examples/pre-commit-config.yaml"
    );
}

/// With the real pre-commit: the `language: system` hook runs the dslint on
/// PATH (here the one just built); a bad config fails it, a fixed one passes.
#[test]
fn pre_commit_system_hook_blocks_a_bad_config() {
    if !have_pre_commit() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let hooks_repo = tmp.path().join("hooks");
    std::fs::create_dir_all(&hooks_repo).unwrap();
    std::fs::copy(".pre-commit-hooks.yaml", hooks_repo.join(".pre-commit-hooks.yaml")).unwrap();
    git(&hooks_repo, &["init", "-q"]);
    git(&hooks_repo, &["add", "."]);
    git(&hooks_repo, &["commit", "-qm", "hooks"]);
    let work = work_repo(tmp.path(), &hooks_repo, "dslint-system");
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

/// With the real pre-commit: the `language: rust` hook, as a user gets it.
/// pre-commit clones the hook repository (here a git repository holding the
/// files `cargo package` ships, so the working tree under test) and builds
/// dslint in it with `cargo install --path .`. A pipeline that agrees with
/// itself is committed; then a commit that changes only the nvinfer config
/// to batch 1 (its app, unchanged and committed, runs 4 streams at batch 4)
/// is blocked, though pre-commit passes dslint that one file; a change that
/// keeps the batch goes in.
#[test]
fn pre_commit_rust_hook_builds_dslint_and_blocks_a_commit_that_breaks_a_batch() {
    if !have_pre_commit() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let hooks_repo = tmp.path().join("hooks");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let listed = Command::new(&cargo)
        .args(["package", "--list", "--allow-dirty", "--offline"])
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    for f in String::from_utf8(listed.stdout).unwrap().lines() {
        let (from, to) = (Path::new(f), hooks_repo.join(f));
        if from.is_file() {
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(from, &to).unwrap();
        }
    }
    git(&hooks_repo, &["init", "-q"]);
    git(&hooks_repo, &["add", "."]);
    let (ok, out) = git(&hooks_repo, &["commit", "-qm", "dslint"]);
    assert!(ok, "{out}");
    let work = work_repo(tmp.path(), &hooks_repo, "dslint");
    // pre-commit runs `cargo install --path .` (the release profile) in its
    // clone. Two ways to keep that from compiling every dependency again:
    // - the tests were built with --release: a target folder of the hook's
    //   own, seeded with hard links to those release dependencies, so cargo
    //   compiles only dslint (and never touches the binary the tests run);
    // - any other profile (.ci/run uses `ci`), whose artifacts cargo cannot
    //   reuse under another profile's folder: the same build without
    //   optimisation (the hook is built and run all the same, only slower
    //   code, and the build takes a fraction of the time).
    let built = dslint_bin().parent().unwrap().to_path_buf();
    let target_root = built.parent().unwrap();
    let (target, profile_env): (std::path::PathBuf, &[(&str, &str)]) = if built.ends_with("release") {
        let target = target_root.join("pre-commit-hook");
        for sub in ["deps", ".fingerprint", "build"] {
            if built.join(sub).is_dir() && !target.join("release").join(sub).exists() {
                std::fs::create_dir_all(target.join("release")).unwrap();
                let ok = Command::new("cp")
                    .args(["-al"])
                    .arg(built.join(sub))
                    .arg(target.join("release").join(sub))
                    .status()
                    .is_ok_and(|s| s.success());
                assert!(ok, "seeding {sub}");
            }
        }
        (target, &[])
    } else {
        (
            target_root.join("pre-commit-hook-unoptimised"),
            &[
                ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0"),
                ("CARGO_PROFILE_RELEASE_DEBUG", "false"),
                ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256"),
            ],
        )
    };
    let cache = tmp.path().join("cache");
    let commit = |msg: &str| {
        git_env(
            &work,
            &["commit", "-m", msg],
            &[
                &[
                    ("PRE_COMMIT_HOME", cache.as_os_str()),
                    ("CARGO_TARGET_DIR", target.as_os_str()),
                    ("CARGO_NET_OFFLINE", "true".as_ref()),
                ][..],
                &profile_env.iter().map(|(k, v)| (*k, v.as_ref())).collect::<Vec<_>>(),
            ]
            .concat(),
        )
    };
    let o = Command::new("pre-commit")
        .arg("install")
        .current_dir(&work)
        .env("PRE_COMMIT_HOME", tmp.path().join("cache"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A pipeline that agrees with itself goes in: the app runs 4 streams at
    // batch 4, its nvinfer config batches 4 (with the engine for 4).
    support::agreeing_pipeline(&work);
    let edit = |file: &str, from: &str, to: &str| support::replace_in(&work.join(file), from, to);
    git(&work, &["add", "."]);
    let (ok, out) = commit("pipeline");
    assert!(ok, "{out}");
    assert!(
        out.contains("dslint (DeepStream config lint)") && out.contains("Passed"),
        "{out}"
    );
    let (_, first) = git(&work, &["rev-parse", "HEAD"]);
    // A commit that changes only the nvinfer config, to batch 1: pre-commit
    // passes dslint that one file, which finds the app that loads it and
    // blocks the commit at the nvinfer config's batch-size.
    edit("pgie.txt", "\nbatch-size=4\n", "\nbatch-size=1\n");
    git(&work, &["add", "pgie.txt"]);
    assert_eq!(git(&work, &["diff", "--cached", "--name-only"]).1, "pgie.txt\n");
    let (ok, out) = commit("nvinfer batch 1");
    assert!(!ok, "the commit must be blocked:\n{out}");
    assert!(
        out.contains("pgie.txt:7:12")
            && out.contains("primary nvinfer batch-size 1 != streammux batch-size 4 (app.txt:18)")
            && out.contains("= see: app.txt:18:12"),
        "{out}"
    );
    assert_eq!(git(&work, &["rev-parse", "HEAD"]).1, first, "nothing was committed");
    // A change to the nvinfer config that keeps the batch goes in.
    edit(
        "pgie.txt",
        "\nbatch-size=1\n",
        "\n# batch of the app's 4 streams\nbatch-size=4\n",
    );
    git(&work, &["add", "pgie.txt"]);
    let (ok, out) = commit("nvinfer comment");
    assert!(ok, "{out}");
    assert!(out.contains("Passed"), "{out}");
}
