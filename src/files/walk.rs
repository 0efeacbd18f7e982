//! Walking a folder under the project root (respecting `.gitignore`, as
//! ripgrep and ruff do; hidden folders are walked, as ruff walks them,
//! except version-control, cache, virtual-environment and editor folders:
//! [`SKIPPED_DIRS`]) and handing each wanted file to a visitor on the
//! walker's threads, so reading and parsing overlap with the walk. Links
//! that lead out of the root are not followed (a link to `/` would walk the
//! machine); a folder whose ignore file is not a small regular file is not
//! walked (the walker would block on a FIFO or read `/dev/zero` forever).
//!
//! The result does not depend on the threads: files come back sorted by
//! path, problems sorted too.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::slice::ParallelSliceMut;

use crate::files::read::{self, MAX_FILE_BYTES, ReadError};
use crate::files::root::{Place, ProjectRoot};

/// Folders a walk never enters (unless named as the folder to walk): ruff's
/// default exclusions that a DeepStream project can have (version control,
/// tool caches, virtual environments, editor settings). Other hidden
/// folders are walked: an app may keep its configs in one (`.iva/model/`,
/// copied to where the app reads them at run time).
pub const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    ".jj",
    ".direnv",
    ".eggs",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".pytype",
    ".ipynb_checkpoints",
    "__pycache__",
    "__pypackages__",
    "node_modules",
    "site-packages",
    ".vscode",
    ".idea",
];

/// What a walk found.
#[derive(Debug)]
pub struct Walk<T> {
    /// Each wanted file (by `wanted`) with what `visit` made of it, by path.
    pub files: Vec<(PathBuf, T)>,
    /// Paths not walked or not readable, and why (sorted: walk errors
    /// first, then pruned folders and links).
    pub problems: Vec<(PathBuf, String)>,
}

/// A file the walk found, as its folder listed it.
#[derive(Debug, Clone, Copy)]
pub struct Listed<'a> {
    pub path: &'a Path,
    /// Whether the name is a link (to a regular file: the walk follows
    /// links that stay inside the root).
    pub link: bool,
}

/// Walk `top` (a folder placed inside `root`) on `threads` threads.
/// `wanted` picks files by path; `visit` runs once for each of them, on the
/// walker's threads. Nothing is walked when a folder from `top` up to the
/// root has a bad ignore file (that is the one problem then).
pub fn walk<T: Send>(
    root: &ProjectRoot,
    top: &Path,
    threads: usize,
    wanted: &(dyn Fn(&Path) -> bool + Sync),
    visit: &(dyn Fn(Listed) -> T + Sync),
) -> Walk<T> {
    for dir in top.ancestors() {
        if let Some(msg) = bad_ignore_file(dir) {
            return Walk {
                files: Vec::new(),
                problems: vec![(dir.to_path_buf(), msg)],
            };
        }
        if std::fs::canonicalize(dir).is_ok_and(|d| d == root.path()) {
            break;
        }
    }
    let errors: Mutex<Vec<(PathBuf, String)>> = Mutex::default();
    let files: Mutex<Vec<(PathBuf, T)>> = Mutex::default();
    let filter_root = root.clone();
    // The filter must be 'static: it reports pruned paths through a channel.
    let (prune_tx, prune_rx) = std::sync::mpsc::channel::<(PathBuf, String)>();
    let prune_tx = Mutex::new(prune_tx);
    let walker = ignore::WalkBuilder::new(top)
        .hidden(false)
        .follow_links(true)
        .require_git(false)
        .threads(threads.max(1))
        .filter_entry(move |e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if is_dir && e.depth() > 0 && e.file_name().to_str().is_some_and(|n| SKIPPED_DIRS.contains(&n)) {
                return false;
            }
            let mut why = None;
            if e.path_is_symlink()
                && filter_root.place(e.path()) == Place::Outside
                && (is_dir || !filter_root.follow_outside)
            {
                why = Some("is a link that leads outside the project root; not followed".to_string());
            } else if is_dir {
                why = bad_ignore_file(e.path());
            }
            if let Some(w) = why {
                if let Ok(tx) = prune_tx.lock() {
                    let _ = tx.send((e.path().to_path_buf(), w));
                }
                return false;
            }
            true
        })
        .build_parallel();
    walker.run(|| {
        let (files, errors) = (&files, &errors);
        Box::new(move |entry| {
            match entry {
                Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                    if wanted(e.path()) {
                        let made = visit(Listed {
                            path: e.path(),
                            link: e.path_is_symlink(),
                        });
                        if let Ok(mut f) = files.lock() {
                            f.push((e.into_path(), made));
                        }
                    }
                }
                Ok(_) => {}
                Err(err) => {
                    let (path, msg) = walk_error(&err);
                    // A link to nothing under a name no reader takes (a
                    // Triton model repository's `Primary_Detector ->
                    // ../samples/…`, an `.engine` link to a build product):
                    // nothing would have been read through it.
                    let dangling = err.io_error().is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound);
                    if dangling && !wanted(&path) {
                        return ignore::WalkState::Continue;
                    }
                    if let Ok(mut v) = errors.lock() {
                        v.push((path, msg));
                    }
                }
            }
            ignore::WalkState::Continue
        })
    });
    let mut problems = errors.into_inner().unwrap_or_default();
    problems.sort();
    let mut pruned: Vec<(PathBuf, String)> = prune_rx.try_iter().collect();
    pruned.sort();
    problems.extend(pruned);
    let mut files = files.into_inner().unwrap_or_default();
    // On the pool (idle while the walker's threads ran), in path order
    // (by component), compared as listed paths ([`listed_order`]).
    files.par_sort_by(|a, b| listed_order(&a.0, &b.0));
    Walk { files, problems }
}

/// `a.cmp(b)` (by component) for two paths one walk listed: each is the
/// folder walked, as it was spelled, with names joined on one `/` at a
/// time, so past the bytes they share they differ only in names and
/// single `/`s. Comparing their bytes with `/` below every other byte is
/// then comparing their components (a name never holds a `/`), without
/// parsing them (the sort's comparisons were most of its time).
fn listed_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    use std::os::unix::ffi::OsStrExt;
    let (a, b) = (a.as_os_str().as_bytes(), b.as_os_str().as_bytes());
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let rank = |c: Option<&u8>| c.map(|&c| if c == b'/' { 0 } else { u16::from(c) + 1 });
    rank(a.get(same)).cmp(&rank(b.get(same)))
}

/// Why a folder must not be walked: its `.gitignore` or `.ignore` (which
/// the walker reads, following links) is not a small regular file.
pub fn bad_ignore_file(dir: &Path) -> Option<String> {
    for name in [".gitignore", ".ignore"] {
        let p = dir.join(name);
        if std::fs::symlink_metadata(&p).is_err() {
            continue;
        }
        match read::open_regular(&p, true).and_then(|f| {
            let len = f.metadata().map_err(|e| ReadError::Io(e.to_string()))?.len();
            if len > MAX_FILE_BYTES {
                Err(ReadError::TooLarge { cap: MAX_FILE_BYTES })
            } else {
                Ok(())
            }
        }) {
            Ok(()) => {}
            Err(e) => return Some(format!("{name} {e}; folder not walked")),
        }
    }
    None
}

fn walk_error(err: &ignore::Error) -> (PathBuf, String) {
    let mut path = PathBuf::new();
    let mut cur = err;
    loop {
        match cur {
            ignore::Error::WithPath { path: p, err } => {
                path = p.clone();
                cur = err;
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => cur = err,
            ignore::Error::Loop { child, .. } => {
                return (child.clone(), "directory symlink loop; not followed".to_string());
            }
            other => return (path, format!("{other}; skipped")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Listed paths sort as paths do (by component): a name before the
    /// same name with more after it, `/` before every other byte, a prefix
    /// of a name before the name, whatever the spelling of the folder
    /// walked.
    #[test]
    fn listed_paths_sort_by_component() {
        for top in ["t", "./t", "t/", "/x/./t", "t//u"] {
            let names = [
                "a", "a/b", "a.txt", "a-b", "a/b/c", "a b", "ab", "a/c", "b", "a/b.txt", "A", "é", "a\u{1}",
            ];
            let mut by_bytes: Vec<PathBuf> = names.iter().map(|n| Path::new(top).join(n)).collect();
            let mut by_path = by_bytes.clone();
            by_bytes.sort_by(|a, b| listed_order(a, b));
            by_path.sort();
            assert_eq!(by_bytes, by_path, "{top}");
        }
    }
}
