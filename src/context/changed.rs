//! `--changed-since REF`: the files of the pull request (or of the work in
//! progress), named as if given on the command line, so they get the same
//! pipeline context.
//!
//! The files are what `git diff --name-only REF` lists (the working tree
//! against REF: committed, staged and unstaged changes), plus untracked
//! files git does not ignore (`git ls-files --others --exclude-standard`):
//! a new config not yet added is part of the change, and a CI checkout has
//! none. Deleted files are left out (`--diff-filter=d`; there is nothing to
//! check). git prints paths relative to the repository's top folder; they
//! are kept when they lie under one of the command line's paths (default
//! `.`) and have an extension a folder walk looks at.
//!
//! git runs with an argument vector (no shell), with external diff tools,
//! text conversion and the fsmonitor hook off, and a REF that starts with
//! `-` is refused: it would be read as an option.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::model::workspace::{canonical, is_candidate};

/// The changed files under `under` (shown relative to the current folder
/// where they are inside it), sorted.
pub fn changed_files(reference: &str, under: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    if reference.is_empty() || reference.starts_with('-') {
        return Err(format!(
            "--changed-since: `{reference}` is not a git revision (a revision cannot start with `-` or be empty)"
        ));
    }
    // The repository of the first path (the current folder's by default).
    let first = under.first().map_or(Path::new("."), PathBuf::as_path);
    let at = if first.is_dir() {
        first
    } else {
        first.parent().unwrap_or(Path::new("."))
    };
    let at = if at.as_os_str().is_empty() { Path::new(".") } else { at };
    let top = git(at, &["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(String::from_utf8_lossy(top.strip_suffix(b"\n").unwrap_or(&top)).into_owned());
    let diff = git(
        &top,
        &[
            "diff",
            "--name-only",
            "-z",
            "--no-renames",
            "--diff-filter=d",
            "--no-ext-diff",
            "--no-textconv",
            reference,
            "--",
        ],
    )
    .map_err(|e| format!("--changed-since {reference}: {e}"))?;
    let untracked = git(&top, &["ls-files", "-z", "--others", "--exclude-standard"])?;
    let bases: Vec<PathBuf> = under.iter().map(|p| canonical(p)).collect();
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("the current folder: {e}"))?;
    let mut out: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    for name in diff.split(|&b| b == 0).chain(untracked.split(|&b| b == 0)) {
        if name.is_empty() {
            continue;
        }
        use std::os::unix::ffi::OsStrExt;
        let path = top.join(std::ffi::OsStr::from_bytes(name));
        // Deleted in the working tree after the diff's snapshot, or a
        // folder (a submodule): nothing to check.
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_dir()) || !is_candidate(&path) {
            continue;
        }
        let real = canonical(&path);
        if !bases.iter().any(|b| real.starts_with(b)) {
            continue;
        }
        let shown = path.strip_prefix(&cwd).map_or_else(|_| path.clone(), Path::to_path_buf);
        if seen.insert(shown.clone()) {
            out.push(shown);
        }
    }
    out.sort();
    Ok(out)
}

/// Run git in `dir`; its stdout, or its first error line.
fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args(["-c", "core.fsmonitor=false", "-c", "core.quotepath=off"])
        .args(args);
    let o = cmd.output().map_err(|e| format!("cannot run git: {e}"))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        let line = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("git failed");
        return Err(line.trim().to_string());
    }
    Ok(o.stdout)
}
