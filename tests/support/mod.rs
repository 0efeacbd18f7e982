//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use dslint::base::diagnostic::Diagnostic;
use dslint::model::facts::Facts;
use dslint::model::workspace::Workspace;
use dslint::output::{self, human};
use dslint::rules::context::Profile;

/// Every case folder under testdata/rules, sorted.
pub fn rule_cases() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for code in sorted_dir(Path::new("testdata/rules")) {
        out.extend(sorted_dir(&code));
    }
    out
}

pub fn sorted_dir(p: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(p)
        .map(|r| r.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The profile and facts a case folder asks for.
pub fn case_settings(dir: &Path) -> (Profile, Option<Facts>) {
    let name = dir.file_name().unwrap().to_string_lossy();
    let profile = if name.ends_with("-bench") {
        Profile::Bench
    } else {
        Profile::Display
    };
    let facts = dir.join("facts.json");
    (
        profile,
        facts.exists().then(|| Facts::load(&facts).expect("valid facts")),
    )
}

/// A case's own `dslint.toml` options (`new-streammux`), as the CLI would
/// find them; its selection is not used (every code runs).
pub fn case_options(dir: &Path) -> dslint::rules::Settings {
    let options = dir.join("dslint.toml");
    if !options.exists() {
        return Default::default();
    }
    let c = dslint::config::load(&options, None).expect("a valid dslint.toml");
    dslint::rules::Settings {
        new_streammux: c.new_streammux,
        bench_sink_type: c.bench_sink_type,
        deepstream_version: c.deepstream_version,
        ..Default::default()
    }
}

pub struct Checked {
    pub ws: Workspace,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn check_dir(dir: &Path) -> Checked {
    let (profile, facts) = case_settings(dir);
    let mut ws = Workspace::load(&[dir.to_path_buf()]);
    let r = dslint::rules::check_with(&mut ws, facts.as_ref(), profile, &case_options(dir));
    Checked {
        ws,
        diagnostics: r.diagnostics,
    }
}

pub fn render(c: &Checked) -> String {
    let problems = output::file_problems(&c.ws);
    human::render(&c.ws, &c.diagnostics, &problems, &human::Style { color: false })
}

/// All files below a folder (no filtering), sorted.
pub fn files_under(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for p in sorted_dir(&d) {
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Whether a test may run that needs something outside the repository
/// (`what`: the thing, for the message). Where it is absent: under CI (the
/// `CI` environment variable is set, as `.ci/run` does) the test fails
/// loudly; on a developer's machine it prints why it is skipped and returns
/// false, so a local run without `../shared` still works.
pub fn required(what: &str, present: bool) -> bool {
    if present {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("{what} is absent, and CI is set: a test that cannot run is a failed test under CI");
    }
    eprintln!("{what} absent: skipped (with CI set this fails)");
    false
}

/// A folder of `../shared` (the shared corpus and tool outputs), or `None`
/// with a printed reason where it is absent outside CI (a failure under CI).
pub fn shared(sub: &str) -> Option<PathBuf> {
    let p = PathBuf::from("../shared").join(sub);
    required(&format!("../shared/{sub}"), p.is_dir()).then_some(p)
}

pub fn corpus() -> Option<PathBuf> {
    shared("corpus")
}

/// The edits to `file` of one fix pass over these findings (the
/// non-overlapping fixes `dslint fix` would take first).
pub fn first_pass_edits(diags: &[Diagnostic], file: dslint::base::FileId) -> Vec<dslint::base::edit::Edit> {
    let fixes: Vec<_> = diags.iter().filter_map(|d| d.fix.as_deref()).collect();
    let (taken, _) = dslint::fix::apply::select(fixes);
    taken
        .iter()
        .flat_map(|f| f.edits.iter().cloned())
        .filter(|e| e.file == file)
        .collect()
}

pub fn dslint_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_dslint"))
}

/// Run the dslint binary: (exit code, stdout, stderr). `NO_COLOR` is set.
pub fn dslint_with(args: &[&str], dir: Option<&Path>, envs: &[(&str, String)]) -> (i32, String, String) {
    let mut c = std::process::Command::new(dslint_bin());
    c.args(args).env("NO_COLOR", "1");
    if let Some(d) = dir {
        c.current_dir(d);
    }
    for (k, v) in envs {
        c.env(k, v);
    }
    let out = c.output().expect("dslint runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

pub fn dslint(args: &[&str]) -> (i32, String, String) {
    dslint_with(args, None, &[])
}

pub fn dslint_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    dslint_with(args, Some(dir), &[])
}

pub fn dslint_env(args: &[&str], envs: &[(&str, String)]) -> (i32, String, String) {
    dslint_with(args, None, envs)
}

/// `git ARGS` run in `dir` as a fixed author and committer (tests commit).
pub fn git_command(dir: &Path, args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new("git");
    c.args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t");
    c
}

/// `git ARGS` in `dir`: its stdout; panics with git's stderr when it fails.
pub fn git_ok(dir: &Path, args: &[&str]) -> String {
    let o = git_command(dir, args).output().unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Replace the first `from` in the file at `path` by `to`; panics when
/// the file does not hold `from`.
pub fn replace_in(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{}: {from}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// The DS701 case made to agree with itself in `dir`: the app runs 4
/// streams at batch 4, its nvinfer config (`pgie.txt`) batches 4, with the
/// engine built for 4. The base of the "change only the nvinfer config"
/// scenarios.
pub fn agreeing_pipeline(dir: &Path) {
    for f in files_under(Path::new("testdata/rules/DS701/fires")) {
        std::fs::copy(&f, dir.join(f.file_name().unwrap())).unwrap();
    }
    replace_in(&dir.join("app.txt"), "num-sources=2", "num-sources=4");
    replace_in(&dir.join("pgie.txt"), "\nbatch-size=2\n", "\nbatch-size=4\n");
    replace_in(&dir.join("pgie.txt"), "_b2_gpu0_fp16", "_b4_gpu0_fp16");
}

/// Run dslint in `dir`; the test fails if it runs past `limit`.
pub fn run_bounded(
    dir: &Path,
    args: &[&str],
    envs: &[(&str, &str)],
    limit: std::time::Duration,
) -> (i32, String, String) {
    let mut c = std::process::Command::new(dslint_bin());
    c.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in envs {
        c.env(k, v);
    }
    let child = c.spawn().unwrap();
    let pid = child.id() as i32;
    // The pipes are drained while waiting (a big output would block it).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // SAFETY: kill(2) on the child this test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("dslint {args:?} ran past {limit:?}");
        }
    };
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}
