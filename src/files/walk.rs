//! Walking a folder under the project root (respecting `.gitignore`, as
//! ripgrep and ruff do; hidden folders are walked, as ruff walks them,
//! except version-control, cache, virtual-environment and editor folders:
//! [`SKIPPED_DIRS`]) and handing each wanted file to a visitor on the
//! walker's threads, so reading and parsing overlap with the walk. Links
//! that lead out of the root are not followed (a link to `/` would walk the
//! machine); a folder whose ignore file is not a small regular file is not
//! walked (the walker would block on a FIFO or read `/dev/zero` forever).
//!
//! The ignore files are read here, not by the `ignore` crate: it reads
//! those of every folder above the folder walked, up to `/` (a `/tmp/.ignore`
//! planted by another user would decide what is checked; a FIFO there would
//! hang the walk). Only the folders from the project root down count, as
//! for git; each `.ignore` and `.gitignore` is read as every other file
//! (a regular file, not through a link out of the root), and together they
//! are at most [`MAX_IGNORE_BYTES`], [`MAX_IGNORE_PATTERNS`] patterns and
//! [`MAX_IGNORE_WILDCARDS`] wildcards: compiled, an ignore file's globs
//! take a hundred to seven hundred times its size in memory.
//!
//! The result does not depend on the threads: files come back sorted by
//! path, problems sorted too.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use rayon::slice::ParallelSliceMut;

use crate::files::read;
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

/// The most bytes of ignore files (`.ignore`, `.gitignore`,
/// `.git/info/exclude`) one walk reads, all folders together, and the most
/// patterns and wildcards (`*`, `?`, `[`) they may hold; past any of them
/// nothing is walked. A project's are a few KiB and a few hundred patterns.
/// Compiled, globs take far more than their size (the `ignore` crate's
/// `GlobSet`: measured, ~1.5 KB a pattern however short, ~230 bytes a byte
/// of a glob with a wildcard, ~1.6 KB a `?` or `[!a]`): 4 MiB of them took
/// 2–3 GB, within these bounds at most ~160 MB (tests/safety.rs).
pub const MAX_IGNORE_BYTES: u64 = 512 * 1024;
pub const MAX_IGNORE_PATTERNS: u64 = 10_000;
pub const MAX_IGNORE_WILDCARDS: u64 = 10_000;

/// What a walk found.
#[derive(Debug)]
pub struct Walk<T> {
    /// Each wanted file (by `wanted`) with what `visit` made of it, by path.
    pub files: Vec<(PathBuf, T)>,
    /// Paths not walked or not readable, and why (sorted: walk errors
    /// first, then pruned folders and links).
    pub problems: Vec<(PathBuf, String)>,
    /// Whether the ignore files went past their bounds: nothing was walked
    /// (`problems` holds the folder with [`over_notice`]).
    pub stopped: bool,
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
    let rules = Arc::new(Rules::new(root));
    // The ignore files of the folders from the root down to `top`.
    let mut above: Vec<&Path> = Vec::new();
    for dir in top.ancestors() {
        let spelled = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let Ok(real) = std::fs::canonicalize(spelled) else {
            break;
        };
        if !real.starts_with(root.path()) {
            break;
        }
        above.push(dir);
        if real == root.path() {
            break;
        }
    }
    let mut chain: Option<Arc<DirRules>> = None;
    for dir in above.into_iter().rev() {
        match rules.of_dir(dir, chain.clone()) {
            Ok(r) => chain = Some(r),
            Err(msg) => {
                return Walk {
                    files: Vec::new(),
                    problems: vec![(dir.to_path_buf(), msg)],
                    stopped: false,
                };
            }
        }
    }
    if let Ok(mut t) = rules.top.write() {
        *t = chain;
    }
    let errors: Mutex<Vec<(PathBuf, String)>> = Mutex::default();
    let files: Mutex<Vec<(PathBuf, T)>> = Mutex::default();
    let filter_root = root.clone();
    let filter_rules = rules.clone();
    // The filter must be 'static: it reports pruned paths through a channel.
    let (prune_tx, prune_rx) = std::sync::mpsc::channel::<(PathBuf, String)>();
    let prune_tx = Mutex::new(prune_tx);
    let walker = ignore::WalkBuilder::new(top)
        .hidden(false)
        .follow_links(true)
        .require_git(false)
        // Read by `Rules`, from the root down only.
        .ignore(false)
        .git_ignore(false)
        .git_exclude(false)
        .parents(false)
        .threads(threads.max(1))
        .filter_entry(move |e| {
            if filter_rules.over.load(Ordering::Relaxed) {
                return false;
            }
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if is_dir && e.depth() > 0 && e.file_name().to_str().is_some_and(|n| SKIPPED_DIRS.contains(&n)) {
                return false;
            }
            let parent = match e.depth() {
                0 => None,
                1 => filter_rules.top.read().ok().and_then(|t| t.clone()),
                _ => super::parent(e.path()).and_then(|p| filter_rules.get(p)),
            };
            if parent.as_ref().is_some_and(|r| r.ignores(e.path(), is_dir)) {
                return false;
            }
            let mut why = None;
            if e.path_is_symlink()
                && filter_root.place(e.path()) == Place::Outside
                && (is_dir || !filter_root.follow_outside)
            {
                why = Some("is a link that leads outside the project root; not followed".to_string());
            } else if is_dir && e.depth() > 0 {
                match filter_rules.of_dir(e.path(), parent) {
                    Ok(r) => {
                        filter_rules.insert(e.path(), r);
                        if !e.path_is_symlink() {
                            filter_root.note_listed_dir(e.path());
                        }
                    }
                    Err(w) => why = Some(w),
                }
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
    if rules.over.load(Ordering::Relaxed) {
        return Walk {
            files: Vec::new(),
            problems: vec![(top.to_path_buf(), over_notice())],
            stopped: true,
        };
    }
    let mut problems = errors.into_inner().unwrap_or_default();
    problems.sort();
    let mut pruned: Vec<(PathBuf, String)> = prune_rx.try_iter().collect();
    pruned.sort();
    problems.extend(pruned);
    let mut files = files.into_inner().unwrap_or_default();
    // On the pool (idle while the walker's threads ran), in path order
    // (by component), compared as listed paths ([`listed_order`]).
    files.par_sort_by(|a, b| listed_order(&a.0, &b.0));
    Walk {
        files,
        problems,
        stopped: false,
    }
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

/// The ignore rules a walk has read, by folder (as the walk spells it).
struct Rules {
    root: ProjectRoot,
    /// The rules in force in the folder walked.
    top: RwLock<Option<Arc<DirRules>>>,
    /// In each folder below it, by the bytes of its path.
    by_dir: RwLock<HashMap<Vec<u8>, Arc<DirRules>, foldhash::fast::RandomState>>,
    /// Bytes, patterns and wildcards of ignore files read so far, and
    /// whether they went past a bound ([`MAX_IGNORE_BYTES`], …: then the
    /// walk stops and finds nothing, the same whatever the order the
    /// threads read them in).
    read: AtomicU64,
    patterns: AtomicU64,
    wildcards: AtomicU64,
    over: AtomicBool,
}

/// The rules of one folder's `.ignore`, `.gitignore` and (where it holds
/// a `.git` folder) `.git/info/exclude`, and of the folders above it up to
/// the root.
struct DirRules {
    ignore: Gitignore,
    git: Gitignore,
    exclude: Gitignore,
    parent: Option<Arc<DirRules>>,
}

impl DirRules {
    /// Whether `path` is ignored, as the `ignore` crate decides: the
    /// deepest folder's pattern that matches wins, `.ignore` before
    /// `.gitignore` before `.git/info/exclude`; a whitelist (`!pattern`)
    /// keeps the path.
    fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        let (mut by_ignore, mut by_git, mut by_exclude) = (Match::None, Match::None, Match::None);
        let mut at = Some(self);
        while let Some(r) = at {
            if by_ignore.is_none() {
                by_ignore = r.ignore.matched(path, is_dir);
            }
            if by_git.is_none() {
                by_git = r.git.matched(path, is_dir);
            }
            if by_exclude.is_none() {
                by_exclude = r.exclude.matched(path, is_dir);
            }
            at = r.parent.as_deref();
        }
        [by_ignore, by_git, by_exclude]
            .into_iter()
            .find(|m| !m.is_none())
            .is_some_and(|m| m.is_ignore())
    }
}

impl Rules {
    fn new(root: &ProjectRoot) -> Rules {
        Rules {
            root: root.clone(),
            top: RwLock::default(),
            by_dir: RwLock::default(),
            read: AtomicU64::new(0),
            patterns: AtomicU64::new(0),
            wildcards: AtomicU64::new(0),
            over: AtomicBool::new(false),
        }
    }

    fn get(&self, dir: &Path) -> Option<Arc<DirRules>> {
        use std::os::unix::ffi::OsStrExt;
        self.by_dir.read().ok()?.get(dir.as_os_str().as_bytes()).cloned()
    }

    fn insert(&self, dir: &Path, rules: Arc<DirRules>) {
        use std::os::unix::ffi::OsStrExt;
        if let Ok(mut m) = self.by_dir.write() {
            m.insert(dir.as_os_str().as_bytes().to_vec(), rules);
        }
    }

    /// The rules in force in `dir`, under `parent`'s; why the folder must
    /// not be walked when one of its ignore files cannot be read.
    fn of_dir(&self, dir: &Path, parent: Option<Arc<DirRules>>) -> Result<Arc<DirRules>, String> {
        let git = self.read_ignore(dir, ".gitignore")?;
        let ignore = self.read_ignore(dir, ".ignore")?;
        // A repository's own excludes (a `.git` folder, not a link).
        let exclude = if std::fs::symlink_metadata(super::join(dir, ".git")).is_ok_and(|m| m.is_dir()) {
            self.read_ignore(dir, ".git/info/exclude")?
        } else {
            None
        };
        match (ignore, git, exclude, parent) {
            (None, None, None, Some(p)) => Ok(p),
            (ignore, git, exclude, parent) => Ok(Arc::new(DirRules {
                ignore: ignore.unwrap_or_else(Gitignore::empty),
                git: git.unwrap_or_else(Gitignore::empty),
                exclude: exclude.unwrap_or_else(Gitignore::empty),
                parent,
            })),
        }
    }

    /// `dir`'s ignore file `name` compiled, if it has one; read only where
    /// it lies inside the root (a link out: only with `--follow-outside`).
    fn read_ignore(&self, dir: &Path, name: &str) -> Result<Option<Gitignore>, String> {
        let path = super::join(dir, name);
        // Most folders have none: one look, as the crate made.
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(None);
        }
        let real = match self.root.place(&path) {
            Place::Inside(real) => real,
            Place::Missing(_) => return Ok(None),
            Place::Outside if self.root.follow_outside => path.clone(),
            Place::Outside => {
                return Err(format!(
                    "{name} is a link that leads outside the project root; folder not walked"
                ));
            }
        };
        // Not a small regular file: a FIFO would block the walk, a link to
        // `/dev/zero` never end.
        let bytes =
            read::read_regular(&real, MAX_IGNORE_BYTES).map_err(|e| format!("{name} {e}; folder not walked"))?;
        let total = self.read.fetch_add(bytes.len() as u64, Ordering::Relaxed) + bytes.len() as u64;
        if total > MAX_IGNORE_BYTES {
            return Ok(self.stop());
        }
        // Patterns are the lines that are neither blank nor a comment (as
        // git reads them); their wildcards are counted before any is
        // compiled.
        let (mut patterns, mut wildcards) = (0, 0);
        for line in bytes.split(|&b| b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) || line.first() == Some(&b'#') {
                continue;
            }
            patterns += 1;
            wildcards += line.iter().filter(|&&b| matches!(b, b'*' | b'?' | b'[')).count() as u64;
        }
        if self.patterns.fetch_add(patterns, Ordering::Relaxed) + patterns > MAX_IGNORE_PATTERNS {
            return Ok(self.stop());
        }
        if self.wildcards.fetch_add(wildcards, Ordering::Relaxed) + wildcards > MAX_IGNORE_WILDCARDS {
            return Ok(self.stop());
        }
        let mut builder = GitignoreBuilder::new(dir);
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            // As the crate reads a file: a line that is no UTF-8 is left
            // out, a BOM before the first is not part of it.
            let Ok(line) = std::str::from_utf8(line) else { continue };
            let line = if i == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            let _ = builder.add_line(Some(path.clone()), line);
        }
        Ok(Some(builder.build().unwrap_or_else(|_| Gitignore::empty())))
    }
}

impl Rules {
    /// Stop the walk: the ignore files went past a bound.
    fn stop<T>(&self) -> Option<T> {
        self.over.store(true, Ordering::Relaxed);
        None
    }
}

/// The notice for a walk its ignore files stopped. Which bound they went
/// past first depends on the order the threads read them in: all three
/// are named, so the output does not.
pub fn over_notice() -> String {
    format!(
        "the ignore files (.ignore, .gitignore) under it are over {MAX_IGNORE_BYTES} bytes, {MAX_IGNORE_PATTERNS} patterns or {MAX_IGNORE_WILDCARDS} wildcards (*, ?, [) together, more than dslint compiles (globs take hundreds of times their size in memory); nothing walked"
    )
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

/// What a walk does with each kind of thing a folder can hold, pinned on
/// a tree that has them all: the walk (ours, or the `ignore` crate's before
/// it) must list the same files, with the same link flags, and report the
/// same problems, in the same order.
#[cfg(test)]
mod semantics {
    use super::*;
    use std::os::unix::fs::symlink;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A project under `base/repo` and a folder beside it, `base/out`.
    fn tree(base: &Path) -> PathBuf {
        let repo = base.join("repo");
        let out = base.join("out");
        write(&out.join("far.txt"), "");
        write(&out.join("deep/far2.txt"), "");
        write(&repo.join("a.txt"), "");
        write(&repo.join("b.yml"), "");
        write(&repo.join("sub/c.txt"), "");
        write(&repo.join("sub/deeper/d.txt"), "");
        // Ignore files from the root down, a whitelist, a folder pattern.
        write(&repo.join(".gitignore"), "*.log\nbuild/\n!keep.log\n");
        write(&repo.join("x.log"), "");
        write(&repo.join("keep.log"), "");
        write(&repo.join("build/e.txt"), "");
        write(&repo.join("sub/.ignore"), "deeper/skip.txt\n");
        write(&repo.join("sub/deeper/skip.txt"), "");
        write(&repo.join("sub/deeper/.gitignore"), "*.txt\n!d.txt\n");
        write(&repo.join("sub/deeper/other.txt"), "");
        // A repository's own excludes, in a folder holding `.git`.
        write(&repo.join("nested/.git/info/exclude"), "excluded.txt\n");
        write(&repo.join("nested/excluded.txt"), "");
        write(&repo.join("nested/kept.txt"), "");
        write(&repo.join("nested/.git/config.txt"), "");
        // Skipped folders, and a hidden one that is walked.
        write(&repo.join("node_modules/m.txt"), "");
        write(&repo.join(".venv/v.txt"), "");
        write(&repo.join(".iva/model/h.txt"), "");
        // Links inside the root: to a file, to a folder.
        symlink("a.txt", repo.join("link_a.txt")).unwrap();
        symlink("sub", repo.join("linked_sub")).unwrap();
        // A link named as a skipped folder, to a folder inside.
        symlink("sub/deeper", repo.join("venv")).unwrap();
        // Links out of the root: to a file, to a folder.
        symlink(out.join("far.txt"), repo.join("far_link.txt")).unwrap();
        symlink(&out, repo.join("out_link")).unwrap();
        // Link loops: to a folder above, to the root itself, to `/`.
        std::fs::create_dir_all(repo.join("loop")).unwrap();
        symlink("..", repo.join("loop/up")).unwrap();
        symlink("/", repo.join("loop/slash")).unwrap();
        // An ignored link loop is still reported (the crate looks first).
        symlink("..", repo.join("build_loop")).unwrap();
        write(&repo.join("sub/.gitignore"), "build_loop\n");
        symlink("..", repo.join("sub/build_loop")).unwrap();
        // Dangling links: under names no reader takes (silent) and a
        // config's name (reported), one of them ignored.
        symlink("/nonexistent/dslint", repo.join("model.engine")).unwrap();
        symlink("../missing/dir", repo.join("Primary_Detector")).unwrap();
        symlink("/nonexistent/dslint", repo.join("broken.txt")).unwrap();
        symlink("/nonexistent/dslint", repo.join("gone.log")).unwrap();
        // A link to itself.
        symlink("self.txt", repo.join("self.txt")).unwrap();
        // A FIFO: neither a file nor a folder.
        let fifo = std::ffi::CString::new(repo.join("pipe.txt").into_os_string().into_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        // Folders whose ignore file cannot be read: a link out, a FIFO.
        write(&repo.join("badlink/f.txt"), "");
        symlink(out.join("far.txt"), repo.join("badlink/.gitignore")).unwrap();
        write(&repo.join("badfifo/g.txt"), "");
        let fifo = std::ffi::CString::new(repo.join("badfifo/.ignore").into_os_string().into_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        // An ignore file that is a link inside the root: read.
        write(&repo.join("rules/shared.ignore"), "z.txt\n");
        std::fs::create_dir_all(repo.join("linked_rules")).unwrap();
        symlink("../rules/shared.ignore", repo.join("linked_rules/.ignore")).unwrap();
        write(&repo.join("linked_rules/z.txt"), "");
        write(&repo.join("linked_rules/y.txt"), "");
        repo
    }

    type Seen = (Vec<(String, bool)>, Vec<(String, String)>, bool);

    fn seen(root: &ProjectRoot, top: &Path, shown: &Path) -> Seen {
        let wanted = |p: &Path| p.extension().is_some_and(|e| e == "txt" || e == "yml" || e == "log");
        let walked = walk(root, top, 2, &wanted, &|l: Listed| l.link);
        let rel = |p: &Path| {
            p.strip_prefix(shown)
                .map_or_else(|_| p.display().to_string(), |r| r.display().to_string())
        };
        (
            walked.files.iter().map(|(p, link)| (rel(p), *link)).collect(),
            walked.problems.iter().map(|(p, m)| (rel(p), m.clone())).collect(),
            walked.stopped,
        )
    }

    fn owned(files: &[(&str, bool)], problems: &[(&str, &str)]) -> Seen {
        (
            files.iter().map(|(p, l)| (p.to_string(), *l)).collect(),
            problems.iter().map(|(p, m)| (p.to_string(), m.to_string())).collect(),
            false,
        )
    }

    const LOOP: &str = "directory symlink loop; not followed";
    const OUT: &str = "is a link that leads outside the project root; not followed";

    #[test]
    fn every_kind_of_entry_is_walked_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let repo = tree(&base);
        let root = ProjectRoot::at(&repo).unwrap();
        let files = [
            ("a.txt", false),
            ("b.yml", false),
            ("keep.log", false),
            ("link_a.txt", true),
            ("linked_rules/y.txt", false),
            ("linked_sub/c.txt", false),
            ("linked_sub/deeper/d.txt", false),
            ("nested/kept.txt", false),
            ("sub/c.txt", false),
            ("sub/deeper/d.txt", false),
            (".iva/model/h.txt", false),
        ];
        let mut files = files.to_vec();
        files.sort_by(|a, b| Path::new(a.0).cmp(Path::new(b.0)));
        let problems = [
            ("broken.txt", "No such file or directory (os error 2); skipped"),
            ("build_loop", LOOP),
            // Ignored, but a link is followed before the rules are asked.
            ("gone.log", "No such file or directory (os error 2); skipped"),
            ("linked_sub/build_loop", LOOP),
            ("loop/slash", LOOP),
            ("loop/up", LOOP),
            ("self.txt", "Too many levels of symbolic links (os error 40); skipped"),
            ("sub/build_loop", LOOP),
            (
                "badfifo",
                ".ignore is a FIFO, not a regular file; only regular files are read; folder not walked",
            ),
            (
                "badlink",
                ".gitignore is a link that leads outside the project root; folder not walked",
            ),
            ("far_link.txt", OUT),
            ("out_link", OUT),
        ];
        assert_eq!(seen(&root, &repo, &repo), owned(&files, &problems));

        // Through a spelling with `.` and a trailing `/`, from a folder
        // below the root: the rules above it still count.
        let sub = PathBuf::from(format!("{}/./sub/", repo.display()));
        let files = [("c.txt", false), ("deeper/d.txt", false)];
        let problems = [("build_loop", LOOP)];
        assert_eq!(seen(&root, &sub, &sub), owned(&files, &problems));

        // With `--follow-outside`: links to files out of the root are
        // walked, to folders still not.
        let mut outside = root.clone();
        outside.follow_outside = true;
        let (files, problems, _) = seen(&outside, &repo, &repo);
        assert!(files.contains(&("far_link.txt".to_string(), true)), "{files:?}");
        assert!(
            problems.contains(&("out_link".to_string(), OUT.to_string())),
            "{problems:?}"
        );

        // A file named as the top: listed as itself.
        let one = repo.join("a.txt");
        assert_eq!(seen(&root, &one, &repo), owned(&[("a.txt", false)], &[]));
        // A top that is not there: reported, when a reader takes its name.
        let gone = repo.join("gone.txt");
        let problems = [("gone.txt", "No such file or directory (os error 2); skipped")];
        assert_eq!(seen(&root, &gone, &repo), owned(&[], &problems));
    }
}
