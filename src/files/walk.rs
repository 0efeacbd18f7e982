//! Walking a folder under the project root (respecting `.gitignore`, as
//! ripgrep and ruff do; hidden folders are walked, as ruff walks them,
//! except version-control, cache, virtual-environment and editor folders:
//! [`SKIPPED_DIRS`]) and handing each wanted file to a visitor on the
//! pool's threads, so reading and parsing overlap with the walk. Links
//! that lead out of the root are not followed (a link to `/` would walk the
//! machine); a folder whose ignore file is not a small regular file is not
//! walked (the walker would block on a FIFO or read `/dev/zero` forever).
//!
//! The walk is our own (a rayon task a folder): each folder is read once
//! (`getdents64`, the entry's type from the listing, no `stat` unless the
//! file system leaves it out or the entry is a link), and whether it holds
//! a `.gitignore`, `.ignore` or `.git` is answered from that listing. The
//! `ignore` crate's walker read each folder too, but its filter had only
//! the entry: three `lstat`s a folder to ask, ~18% of a check's system
//! calls. What it did is kept, entry by entry (`semantics` below pins it):
//! links are followed (a link to a folder above is a loop, reported as its
//! `Error::Loop` was, before the ignore rules are asked), a link that
//! cannot be followed is reported unless no reader takes its name.
//!
//! The ignore files are read here, not by the `ignore` crate: it reads
//! those of every folder above the folder walked, up to `/` (a `/tmp/.ignore`
//! planted by another user would decide what is checked; a FIFO there would
//! hang the walk). Only the folders from the project root down count, as
//! for git; each `.ignore` and `.gitignore` is read as every other file
//! (a regular file, not through a link out of the root), and together they
//! are at most [`MAX_IGNORE_BYTES`], [`MAX_IGNORE_PATTERNS`] patterns and
//! [`MAX_IGNORE_WILDCARDS`] wildcards: compiled, an ignore file's globs
//! take a hundred to seven hundred times its size in memory. They are
//! matched by the crate's `gitignore` module.
//!
//! The result does not depend on the threads: files come back sorted by
//! path, problems sorted too.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

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

/// The most folders one walk enters through links to folders (a link, or
/// a folder under one): a folder reached through two links is walked once
/// for each, so levels of folders each holding two links to the next are
/// 2^levels folders (30 levels, 10^9; hostile10). Past it nothing is
/// walked, as past the ignore files' bounds. A project links a few model
/// or config folders.
pub const MAX_LINKED_FOLDERS: usize = 16_384;

/// Files of one folder visited by one task: a folder of thousands is
/// shared among the threads in runs of this many.
const FILES_A_TASK: usize = 64;

/// The buffer a folder is listed into: glibc's `opendir` takes 32 KiB
/// (so does `std::fs::read_dir`); a folder of a few dozen names is one
/// `getdents64` and the one that says it is done.
const LISTING_BYTES: usize = 32 * 1024;

/// What a walk found.
#[derive(Debug)]
pub struct Walk<T> {
    /// Each wanted file (by `wanted`) with what `visit` made of it, by path.
    pub files: Vec<(PathBuf, T)>,
    /// Paths not walked or not readable, and why (sorted: walk errors
    /// first, then pruned folders and links).
    pub problems: Vec<(PathBuf, String)>,
    /// Whether the ignore files or the folders entered through links went
    /// past their bounds: nothing was walked (`problems` holds the folder
    /// with [`over_notice`]).
    pub stopped: bool,
    /// The folders listed, by real path, and whether each holds a
    /// `.gitignore` (for [`GitIgnores::share`]).
    pub listed: ListedDirs,
}

/// Folders a walk listed (by real path) and whether each listing held a
/// `.gitignore`: what [`GitIgnores`] would otherwise look up again, an
/// `lstat` of the folder and one of its `.gitignore` for each folder on
/// the way to a missing path (~4,700 on the 10k bench tree).
#[derive(Debug, Default)]
pub struct ListedDirs(Vec<(Arc<Path>, bool)>);

/// A file the walk found, as its folder listed it.
#[derive(Debug, Clone, Copy)]
pub struct Listed<'a> {
    pub path: &'a Path,
    /// Whether the name is a link (to a regular file: the walk follows
    /// links that stay inside the root).
    pub link: bool,
    /// The real path of the folder that listed it (`None`: not placed
    /// inside the root).
    pub real_dir: Option<&'a Path>,
}

impl Listed<'_> {
    /// The real path of a file listed as no link: its folder's real path
    /// and its name (what `read::read_listed` opens).
    pub fn real(&self) -> Option<PathBuf> {
        Some(self.real_dir?.join(self.path.file_name()?))
    }
}

/// Walk `top` (a folder placed inside `root`) on the pool's threads.
/// `wanted` picks files by path; `visit` runs once for each of them, on
/// those threads. Nothing is walked when a folder from `top` up to the
/// root has a bad ignore file (that is the one problem then).
pub fn walk<T: Send>(
    root: &ProjectRoot,
    top: &Path,
    wanted: &(dyn Fn(&Path) -> bool + Sync),
    visit: &(dyn Fn(Listed) -> T + Sync),
) -> Walk<T> {
    let rules = Rules::new(root);
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
        match rules.of_dir(dir, chain.clone(), None) {
            Ok(r) => chain = Some(r),
            Err(msg) => {
                return Walk {
                    files: Vec::new(),
                    problems: vec![(dir.to_path_buf(), msg)],
                    stopped: false,
                    listed: ListedDirs::default(),
                };
            }
        }
    }
    let walker = Walker {
        root,
        top,
        rules,
        wanted,
        visit,
        above_top: OnceLock::new(),
        linked: AtomicUsize::new(0),
        listed: Mutex::default(),
        files: Mutex::default(),
        errors: Mutex::default(),
        pruned: Mutex::default(),
    };
    on_a_pool(|| walker.top(chain));
    if walker.rules.over.load(Ordering::Relaxed) {
        return Walk {
            files: Vec::new(),
            problems: vec![(top.to_path_buf(), over_notice())],
            stopped: true,
            listed: ListedDirs::default(),
        };
    }
    let mut problems = walker.errors.into_inner().unwrap_or_default();
    problems.sort();
    let mut pruned = walker.pruned.into_inner().unwrap_or_default();
    pruned.sort();
    problems.extend(pruned);
    let mut files = walker.files.into_inner().unwrap_or_default();
    // On the pool, in path order (by component), compared as listed paths
    // ([`listed_order`]).
    files.par_sort_by(|a, b| listed_order(&a.0, &b.0));
    Walk {
        files,
        problems,
        stopped: false,
        listed: ListedDirs(walker.listed.into_inner().unwrap_or_default()),
    }
}

/// Run `walk` where its tasks have threads that wait on nothing else.
/// From outside any pool (a check's walk, from the main thread): on the
/// global pool, whose threads then parse and check what it read. From a
/// pool's own thread (a lazy walk of the whole root, asked by a rule
/// inside a `OnceLock`'s initializer): on a pool of its own, waited for
/// from a thread of its own. A pool's thread that waits on a rayon task
/// takes other tasks of its pool meanwhile, and one of those could be a
/// rule asking the same `OnceLock`, on the thread initializing it: a
/// deadlock. (The `ignore` crate's walker had threads of its own.)
fn on_a_pool(walk: impl FnOnce() + Send) {
    if rayon::current_thread_index().is_none() {
        return walk();
    }
    let threads = rayon::current_num_threads();
    std::thread::scope(|s| {
        let waited = s.spawn(
            move || match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                Ok(pool) => pool.install(walk),
                // No threads to be had: on this one alone.
                Err(_) => walk(),
            },
        );
        if let Err(panic) = waited.join() {
            std::panic::resume_unwind(panic);
        }
    });
}

/// One walk's state, shared by its tasks.
struct Walker<'w, T> {
    root: &'w ProjectRoot,
    top: &'w Path,
    rules: Rules,
    wanted: &'w (dyn Fn(&Path) -> bool + Sync),
    visit: &'w (dyn Fn(Listed) -> T + Sync),
    /// The folders above `top`, real paths, nearest first (for the loop
    /// check of a link to a folder: [`Walker::loop_check`]).
    above_top: OnceLock<Vec<PathBuf>>,
    /// Folders entered through links so far ([`MAX_LINKED_FOLDERS`]).
    linked: AtomicUsize,
    /// Each folder listed, by real path, with whether it holds a
    /// `.gitignore` ([`ListedDirs`]).
    listed: Mutex<Vec<(Arc<Path>, bool)>>,
    files: Mutex<Vec<(PathBuf, T)>>,
    /// Paths that could not be listed, followed or read.
    errors: Mutex<Vec<(PathBuf, String)>>,
    /// Links out of the root and folders with a bad ignore file.
    pruned: Mutex<Vec<(PathBuf, String)>>,
}

/// A folder to walk.
struct Folder {
    path: PathBuf,
    /// The rules in force in it: `Known` for the folder walked (read from
    /// the root down before the walk), else those of the folder it is in,
    /// its own read from its listing.
    rules: FolderRules,
    /// The folder it was listed in.
    up: Option<Arc<Folder>>,
    /// Its real path, where its parent's listing gave it (a folder listed
    /// as no link, in a folder placed inside the root: the parent's real
    /// path and its name); else placed when it is walked.
    real: Option<Arc<Path>>,
    /// Whether it was entered through a link (it is one, or is under one).
    through_link: bool,
}

enum FolderRules {
    Known(Option<Arc<DirRules>>),
    Under(Option<Arc<DirRules>>),
}

/// What a listing says an entry is (`d_type`), or what `lstat` says when
/// the file system did not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
    Link,
    Other,
}

impl Kind {
    fn of(t: std::fs::FileType) -> Kind {
        if t.is_symlink() {
            Kind::Link
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }
}

/// A folder's entries (neither `.` nor `..`), each joined to the folder's
/// path, with its kind where the listing gave it (`None`: ask `lstat`);
/// its ignore files and `.git`; and the error that ended the listing
/// early, if one did.
struct Listing {
    entries: Vec<(PathBuf, Option<Kind>)>,
    found: Found,
    failed: Option<io::Error>,
}

/// List `dir` once: `open(O_DIRECTORY)`, `getdents64` until it gives
/// nothing, `close` (what `std::fs::read_dir` does, less glibc's `fstat`
/// of the folder to size its buffer). The folder is opened by its real
/// path (`real`), through no link (`read::open_without_links`): a folder
/// its parent listed, or a folder above it, that became a link since (to a
/// folder outside the root) fails the open instead of being walked. Its
/// entries are named under `dir`, the path as walked.
fn list(dir: &Path, real: &Path) -> io::Result<Listing> {
    use rustix::fs::{FileType, OFlags, RawDir};
    use std::os::unix::ffi::OsStrExt;
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NONBLOCK;
    // A link on the way is `ELOOP`, the folder itself a link (or a file)
    // `ENOTDIR` (`O_DIRECTORY` with `O_NOFOLLOW`).
    let fd = read::open_without_links(real, flags).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP | libc::ENOTDIR) => io::Error::other("became a link or a file while the walk went on"),
        _ => e,
    })?;
    let mut buf = Vec::with_capacity(LISTING_BYTES);
    let mut raw = RawDir::new(fd, buf.spare_capacity_mut());
    let mut entries = Vec::new();
    let mut found = Found {
        git_dir: Some(false),
        ..Found::default()
    };
    let mut failed = None;
    while let Some(next) = raw.next() {
        let e = match next {
            Ok(e) => e,
            Err(err) => {
                failed = Some(io::Error::from(err));
                break;
            }
        };
        let name = e.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let kind = match e.file_type() {
            FileType::RegularFile => Some(Kind::File),
            FileType::Directory => Some(Kind::Dir),
            FileType::Symlink => Some(Kind::Link),
            FileType::Unknown => None,
            _ => Some(Kind::Other),
        };
        match name {
            b".gitignore" => found.gitignore = true,
            b".ignore" => found.ignore = true,
            b".git" => found.git_dir = kind.map(|k| k == Kind::Dir),
            _ => {}
        }
        entries.push((super::join(dir, std::ffi::OsStr::from_bytes(name)), kind));
    }
    Ok(Listing { entries, found, failed })
}

/// The ignore files and `.git` a folder's listing holds (by name, as the
/// `ignore` crate's walker looked for them in its listing).
#[derive(Default)]
struct Found {
    gitignore: bool,
    ignore: bool,
    /// A `.git` folder (not a link to one): `None` when the listing did
    /// not say what it is.
    git_dir: Option<bool>,
}

impl<'w, T: Send> Walker<'w, T> {
    /// Walk the top: a folder's entries, or the file named.
    fn top(&self, rules: Option<Arc<DirRules>>) {
        match std::fs::metadata(self.top) {
            Err(e) => self.error(self.top.to_path_buf(), e),
            Ok(m) if m.is_dir() => {
                let top = Folder {
                    path: self.top.to_path_buf(),
                    rules: FolderRules::Known(rules),
                    up: None,
                    real: None,
                    through_link: false,
                };
                rayon::scope(|s| self.folder(s, Arc::new(top)));
            }
            Ok(m) if m.is_file() => {
                if (self.wanted)(self.top) {
                    let real_dir = match super::parent(self.top).map(|p| self.root.place_dir(p)) {
                        Some(Place::Inside(real)) => Some(Arc::from(real)),
                        _ => None,
                    };
                    self.visit_files(vec![(self.top.to_path_buf(), false)], real_dir);
                }
            }
            Ok(_) => {}
        }
    }

    /// List `folder`, read its ignore files, hand its folders to tasks of
    /// their own and visit its wanted files.
    fn folder<'s>(&'s self, s: &rayon::Scope<'s>, folder: Arc<Folder>) {
        if self.rules.over.load(Ordering::Relaxed) {
            return;
        }
        // A folder its parent listed as no link is placed from its parent
        // (no look at the disk: its real path came with it, and is noted
        // in the root's folder cache for the placings of the paths named
        // in it), a link where it leads; it is listed by that real path,
        // through no link (`list`). Placed from the cache instead, a folder
        // the full cache (65,536 folders) did not hold was placed from the
        // nearest folder above it that it did, an `lstat` a component:
        // quadratic in a chain's depth (hostile10).
        let real_dir: Option<Arc<Path>> = match &folder.real {
            Some(real) => {
                self.root.note_listed_dir(&folder.path, real);
                Some(real.clone())
            }
            None => match self.root.place_dir(&folder.path) {
                Place::Inside(real) => Some(Arc::from(real)),
                _ => None,
            },
        };
        let listing = match &real_dir {
            Some(real) => list(&folder.path, real),
            // Gone since its parent listed it: as the open would say.
            None if matches!(self.root.place_dir(&folder.path), Place::Missing(_)) => {
                Err(io::Error::from_raw_os_error(libc::ENOENT))
            }
            None => Err(io::Error::other("leads outside the project root; not walked")),
        };
        let rules = match &folder.rules {
            FolderRules::Known(r) => r.clone(),
            FolderRules::Under(parent) => {
                // Its ignore files as its listing shows them (where it
                // could not be listed, looked for one by one, as before).
                let found = listing.as_ref().ok().map(|l| &l.found);
                match self.rules.of_dir(&folder.path, parent.clone(), found) {
                    Ok(r) => Some(r),
                    Err(why) => {
                        if let Ok(mut p) = self.pruned.lock() {
                            p.push((folder.path.clone(), why));
                        }
                        return;
                    }
                }
            }
        };
        let Listing { entries, failed, found } = match listing {
            Ok(l) => l,
            Err(e) => return self.error(folder.path.clone(), e),
        };
        if let (Some(real), Ok(mut listed)) = (&real_dir, self.listed.lock()) {
            listed.push((real.clone(), found.gitignore));
        }
        let mut files = Vec::new();
        for (path, kind) in entries {
            if self.rules.over.load(Ordering::Relaxed) {
                return;
            }
            let kind = match kind {
                Some(k) => k,
                None => match std::fs::symlink_metadata(&path) {
                    Ok(m) => Kind::of(m.file_type()),
                    Err(e) => {
                        self.error(path, e);
                        continue;
                    }
                },
            };
            let link = kind == Kind::Link;
            let kind = if link {
                // Followed; a link to a folder above is a loop.
                match std::fs::metadata(&path) {
                    Ok(m) => Kind::of(m.file_type()),
                    Err(e) => {
                        self.error(path, e);
                        continue;
                    }
                }
            } else {
                kind
            };
            if link && kind == Kind::Dir {
                if let Err(e) = self.loop_check(&folder, &path) {
                    match e {
                        Followed::Loop => {
                            if let Ok(mut v) = self.errors.lock() {
                                v.push((path, "directory symlink loop; not followed".to_string()));
                            }
                        }
                        Followed::Error(e) => self.error(path, e),
                    }
                    continue;
                }
            }
            let is_dir = kind == Kind::Dir;
            if is_dir
                && path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n))
            {
                continue;
            }
            if rules.as_ref().is_some_and(|r| r.ignores(&path, is_dir)) {
                continue;
            }
            if link && self.root.place(&path) == Place::Outside && (is_dir || !self.root.follow_outside) {
                if let Ok(mut p) = self.pruned.lock() {
                    p.push((
                        path,
                        "is a link that leads outside the project root; not followed".to_string(),
                    ));
                }
                continue;
            }
            match kind {
                Kind::Dir => {
                    let through_link = link || folder.through_link;
                    if through_link && self.linked.fetch_add(1, Ordering::Relaxed) >= MAX_LINKED_FOLDERS {
                        self.rules.stop::<()>();
                        return;
                    }
                    // Placed from this folder's real path, when it is no link.
                    let real = match (&real_dir, link, path.file_name()) {
                        (Some(dir), false, Some(name)) => Some(Arc::from(dir.join(name))),
                        _ => None,
                    };
                    let sub = Folder {
                        path,
                        rules: FolderRules::Under(rules.clone()),
                        up: Some(folder.clone()),
                        real,
                        through_link,
                    };
                    s.spawn(move |s| self.folder(s, Arc::new(sub)));
                }
                Kind::File => {
                    if (self.wanted)(&path) {
                        files.push((path, link));
                    }
                }
                Kind::Link | Kind::Other => {}
            }
        }
        if let Some(e) = failed {
            self.error(folder.path.clone(), e);
        }
        // The last run here, the others on tasks of their own.
        while files.len() > FILES_A_TASK {
            let run = files.split_off(files.len() - FILES_A_TASK);
            let real_dir = real_dir.clone();
            s.spawn(move |_| self.visit_files(run, real_dir));
        }
        self.visit_files(files, real_dir);
    }

    fn visit_files(&self, files: Vec<(PathBuf, bool)>, real_dir: Option<Arc<Path>>) {
        if files.is_empty() {
            return;
        }
        let made: Vec<(PathBuf, T)> = files
            .into_iter()
            .map(|(path, link)| {
                let t = (self.visit)(Listed {
                    path: &path,
                    link,
                    real_dir: real_dir.as_deref(),
                });
                (path, t)
            })
            .collect();
        if let Ok(mut f) = self.files.lock() {
            f.extend(made);
        }
    }

    /// A path that could not be listed or followed: reported, unless it is
    /// a link to nothing under a name no reader takes (a Triton model
    /// repository's `Primary_Detector -> ../samples/…`, an `.engine` link
    /// to a build product): nothing would have been read through it.
    fn error(&self, path: PathBuf, e: io::Error) {
        if e.kind() == io::ErrorKind::NotFound && !(self.wanted)(&path) {
            return;
        }
        if let Ok(mut v) = self.errors.lock() {
            v.push((path, format!("{e}; skipped")));
        }
    }

    /// Whether the link `child` in `folder`, to a folder, leads to one of
    /// the folders it is in, up to `/` (the `ignore` crate's
    /// `check_symlink_loop`, which did not stop at the folder walked: a
    /// link to a folder above it holds the walk). Each is opened, as the
    /// crate's `same_file::Handle`s opened them: a folder that cannot be
    /// opened is an error for the link.
    fn loop_check(&self, folder: &Arc<Folder>, child: &Path) -> Result<(), Followed> {
        fn id(path: &Path) -> io::Result<(u64, u64)> {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::File::open(path)?.metadata()?;
            Ok((m.dev(), m.ino()))
        }
        let target = id(child).map_err(Followed::Error)?;
        let mut at = Some(folder);
        while let Some(f) = at {
            if id(&f.path).map_err(Followed::Error)? == target {
                return Err(Followed::Loop);
            }
            at = f.up.as_ref();
        }
        let above = self.above_top.get_or_init(|| {
            std::fs::canonicalize(self.top).map_or_else(
                |_| Vec::new(),
                |t| t.ancestors().skip(1).map(Path::to_path_buf).collect(),
            )
        });
        for dir in above {
            if id(dir).map_err(Followed::Error)? == target {
                return Err(Followed::Loop);
            }
        }
        Ok(())
    }
}

/// Why a link to a folder is not followed.
enum Followed {
    Loop,
    Error(io::Error),
}

/// `a.cmp(b)` (by component) for two paths one walk listed: each is the
/// folder walked, as it was spelled, with names joined on one `/` at a
/// time, so past the bytes they share they differ only in names and
/// single `/`s. Comparing their bytes with `/` below every other byte is
/// then comparing their components (a name never holds a `/`), without
/// parsing them (the sort's comparisons were most of its time). The
/// bytes they share are passed over eight at a time
/// ([`common_prefix`](crate::base::path_order::common_prefix)): a byte at a
/// time, the ~40 bytes two of a tree's paths share cost ~140 instructions
/// a comparison, most of the walk's sort.
fn listed_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    use std::os::unix::ffi::OsStrExt;
    let (a, b) = (a.as_os_str().as_bytes(), b.as_os_str().as_bytes());
    let same = crate::base::path_order::common_prefix(a, b);
    let rank = |c: Option<&u8>| c.map(|&c| if c == b'/' { 0 } else { u16::from(c) + 1 });
    rank(a.get(same)).cmp(&rank(b.get(same)))
}

/// The ignore files a walk has read: how much of them, against the
/// bounds.
struct Rules {
    root: ProjectRoot,
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
            read: AtomicU64::new(0),
            patterns: AtomicU64::new(0),
            wildcards: AtomicU64::new(0),
            over: AtomicBool::new(false),
        }
    }

    /// The rules in force in `dir`, under `parent`'s; why the folder must
    /// not be walked when one of its ignore files cannot be read. `found`:
    /// what the folder's listing holds (without it, each name is looked
    /// for).
    fn of_dir(
        &self,
        dir: &Path,
        parent: Option<Arc<DirRules>>,
        found: Option<&Found>,
    ) -> Result<Arc<DirRules>, String> {
        let git = self.read_ignore(dir, ".gitignore", found.map(|f| f.gitignore))?;
        let ignore = self.read_ignore(dir, ".ignore", found.map(|f| f.ignore))?;
        // A repository's own excludes (a `.git` folder, not a link).
        let git_dir = match found.and_then(|f| f.git_dir) {
            Some(is) => is,
            None => std::fs::symlink_metadata(super::join(dir, ".git")).is_ok_and(|m| m.is_dir()),
        };
        let exclude = if git_dir {
            self.read_ignore(dir, ".git/info/exclude", None)?
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
    /// `listed`: whether the folder's listing holds the name (without it,
    /// one look).
    fn read_ignore(&self, dir: &Path, name: &str, listed: Option<bool>) -> Result<Option<Gitignore>, String> {
        let path = super::join(dir, name);
        // Most folders have none.
        let present = listed.unwrap_or_else(|| std::fs::symlink_metadata(&path).is_ok());
        if !present {
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

/// What the project's own `.gitignore` files exclude, asked of paths that
/// are missing (DS704): a file the repository ignores (a model a script
/// downloads, a library the build makes) is one no clone carries, so the
/// tree cannot say whether it is there where the app runs. Only
/// `.gitignore` counts, from the root down, as git reads them: a `.ignore`
/// is a search tool's and `.git/info/exclude` one clone's, and neither
/// keeps a file out of the repository. Read with the walk's bounds
/// ([`MAX_IGNORE_BYTES`], …) and guarantees (a regular file, inside the
/// root); each folder's once a run.
pub struct GitIgnores {
    rules: Rules,
    /// The folders walks listed, by real path, and whether each holds a
    /// `.gitignore` ([`share`](Self::share)): no look at the disk to ask.
    listed: Mutex<ListedMap>,
    /// Each folder's rules, its own `.gitignore` and those above it
    /// (`None`: none), or `Err` where one could not be read; only folders
    /// that are there, and only up to [`GIT_IGNORES_MAX_BYTES`] of paths.
    dirs: Mutex<GitIgnoreDirs>,
}

/// [`ListedDirs`] shared with [`GitIgnores`], and the bytes of their paths
/// (at most [`GIT_IGNORES_MAX_BYTES`]).
#[derive(Default)]
struct ListedMap {
    /// Keyed by the path's bytes: `Path`'s own hash parses components
    /// (~800 instructions a path); a path spelled otherwise only misses.
    dirs: std::collections::HashMap<Box<[u8]>, bool, foldhash::fast::RandomState>,
    bytes: usize,
}

/// The folders [`GitIgnores`] has read, and the bytes of their paths.
#[derive(Default)]
struct GitIgnoreDirs {
    /// Keyed by the path's bytes, as [`ListedMap`]'s.
    rules: std::collections::HashMap<Box<[u8]>, Result<FolderGit, ()>, foldhash::fast::RandomState>,
    bytes: usize,
}

/// The `.gitignore` rules in force in a folder (`None`: none).
type InForce = Option<Arc<DirRules>>;

/// What holds in a folder that is there: the `.gitignore` rules in force,
/// and whether it, or a folder above it, is excluded (then so is all in
/// it: remembered, so that a path's folders are asked once a run, not once
/// for each path in them).
#[derive(Clone, Default)]
struct FolderGit {
    rules: InForce,
    /// How many `.gitignore`s `rules` holds: the matches a path in the
    /// folder takes, at most.
    chain: usize,
    /// The matches that judging the folder took, from the root down, at
    /// most ([`GIT_IGNORES_MAX_MATCHES`]).
    cost: usize,
    excluded: bool,
}

/// The most components under the root a path [`GitIgnores`] judges may
/// have: past it, unknown. A project's are a dozen.
const GIT_IGNORES_MAX_DEPTH: usize = 256;

/// The most matches judging one path may take ([`git_ignores`], one a
/// `.gitignore` in force, from the root down): each of its folders is
/// matched against the `.gitignore` of each folder above it, quadratic in
/// its depth (hostile10: 200 missing paths 1,000 folders deep, a
/// `.gitignore` in each folder, took 13 s of CPU). Past it, unknown,
/// whichever path was asked first (the cost is the tree's: each folder's
/// is remembered). A project's paths take a few dozen.
const GIT_IGNORES_MAX_MATCHES: usize = 4096;

/// The most bytes of folder paths [`GitIgnores`] remembers: past it a
/// folder's `.gitignore` is read again when asked (a config naming 40,000
/// missing files, each through a link to a folder 3.8 KiB deep, must not
/// make the run hold a path per missing folder: `tests/safety.rs`,
/// `placements_through_long_links_are_bounded_in_bytes`).
const GIT_IGNORES_MAX_BYTES: usize = 1 << 24;

impl std::fmt::Debug for GitIgnores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitIgnores").finish_non_exhaustive()
    }
}

impl GitIgnores {
    pub fn new(root: &ProjectRoot) -> GitIgnores {
        GitIgnores {
            rules: Rules::new(root),
            listed: Mutex::default(),
            dirs: Mutex::default(),
        }
    }

    /// Take what a walk's listings said of the folders it listed: each is
    /// a folder, and holds a `.gitignore` or not (~4,700 `lstat`s on the
    /// 10k bench tree, each asked again on the way to a missing path).
    pub fn share(&self, listed: ListedDirs) {
        let Ok(mut m) = self.listed.lock() else { return };
        for (dir, gitignore) in listed.0 {
            // A folder shared again (each `fix` pass walks the tree
            // again) keeps its entry and its bytes: counted once.
            if let Some(known) = m.dirs.get_mut(path_bytes(&dir)) {
                *known = gitignore;
                continue;
            }
            let len = dir.as_os_str().len();
            if m.bytes + len > GIT_IGNORES_MAX_BYTES {
                break;
            }
            m.bytes += len;
            m.dirs.insert(path_bytes(&dir).into(), gitignore);
        }
    }

    /// Whether a walk listed `dir` holding a `.gitignore` (`None`: no walk
    /// listed it).
    fn listed(&self, dir: &Path) -> Option<bool> {
        self.listed.lock().ok()?.dirs.get(path_bytes(dir)).copied()
    }

    /// Whether the `.gitignore` files exclude `path` (absolute, no `..`,
    /// under the root; a missing file): it or a folder on its way down from
    /// the root matches a pattern of a `.gitignore` of a folder above it
    /// (the deepest match wins; `!pattern` keeps a path, not one inside an
    /// excluded folder, as git). A `.gitignore` that cannot be read or past
    /// the bounds leaves it unknown: `true` (no claim made on it).
    pub fn excludes(&self, path: &Path) -> bool {
        let root = self.rules.root.path();
        let Ok(rel) = path.strip_prefix(root) else {
            return false;
        };
        let parts: Vec<&std::ffi::OsStr> = rel.iter().collect();
        if parts.is_empty() {
            return false;
        }
        // Deeper than any project's paths (a config's path of 10^5 `a/`,
        // missing, was walked down a folder a component): unknown.
        if parts.len() > GIT_IGNORES_MAX_DEPTH {
            return true;
        }
        // From the path's own folder where it is known (the missing paths
        // of a config share a few folders), else from the root down.
        let known = super::parent(path).and_then(|p| Some((p, self.known(p)?)));
        let (mut dir, mut state, from) = match known {
            Some((p, state)) => (p.to_path_buf(), state, parts.len() - 1),
            None => match self.state_of(root, &Ok(FolderGit::default())) {
                Some(state) => (root.to_path_buf(), state, 0),
                None => return true,
            },
        };
        for (i, part) in parts.iter().enumerate().skip(from) {
            // Its `.gitignore` unreadable, past the bounds, or too costly
            // to judge: unknown.
            let Ok(here) = &state else { return true };
            if here.excluded {
                return true;
            }
            let child = super::join(&dir, part);
            if i + 1 == parts.len() {
                return here.cost + here.chain > GIT_IGNORES_MAX_MATCHES || git_ignores(&here.rules, &child, false);
            }
            match self.state_of(&child, &state) {
                Some(next) => {
                    dir = child;
                    state = next;
                }
                // A folder that is not there holds no `.gitignore`, and
                // neither do the folders under it: the rules above stand.
                None => return self.ignored_below(&parts[i..], &dir, here),
            }
        }
        false
    }

    /// `excludes` for the parts of a path under `dir`, the first of them a
    /// folder that is not there, by what holds in `dir`.
    fn ignored_below(&self, parts: &[&std::ffi::OsStr], dir: &Path, here: &FolderGit) -> bool {
        if here.rules.is_none() {
            return false;
        }
        if here.cost + parts.len() * here.chain > GIT_IGNORES_MAX_MATCHES {
            return true;
        }
        let mut path = dir.to_path_buf();
        for (i, part) in parts.iter().enumerate() {
            path = super::join(&path, part);
            if git_ignores(&here.rules, &path, i + 1 < parts.len()) {
                return true;
            }
        }
        false
    }

    /// What is remembered of `dir`, a folder that is there.
    fn known(&self, dir: &Path) -> Option<Result<FolderGit, ()>> {
        self.dirs.lock().ok()?.rules.get(path_bytes(dir)).cloned()
    }

    /// What holds in `dir` (`parent`: in the folder above it): the rules
    /// in force and whether it is excluded (`Err`: unknown). `None` where
    /// `dir` is not there (it is not remembered: the missing paths asked
    /// about are many, their folders as deep as a link makes them).
    fn state_of(&self, dir: &Path, parent: &Result<FolderGit, ()>) -> Option<Result<FolderGit, ()>> {
        if let Some(r) = self.known(dir) {
            return Some(r);
        }
        let listed = self.listed(dir);
        if listed.is_none() && !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
            return None;
        }
        let r = match parent {
            Err(()) => Err(()),
            Ok(up) => self.state_under(dir, up, listed),
        };
        if let Ok(mut m) = self.dirs.lock() {
            let len = dir.as_os_str().len();
            if m.bytes + len <= GIT_IGNORES_MAX_BYTES {
                m.bytes += len;
                m.rules.insert(path_bytes(dir).into(), r.clone());
            }
        }
        Some(r)
    }

    /// [`state_of`](Self::state_of) a folder that is there, under `up`.
    fn state_under(&self, dir: &Path, up: &FolderGit, listed: Option<bool>) -> Result<FolderGit, ()> {
        // The root is excluded by nothing; a folder by the rules above it,
        // asked only within the bound (the same for every thread and every
        // order of asking: the cost is the tree's).
        let root = dir == self.rules.root.path();
        let cost = if root { 0 } else { up.cost + up.chain };
        if cost > GIT_IGNORES_MAX_MATCHES {
            return Err(());
        }
        let excluded = up.excluded || (!root && git_ignores(&up.rules, dir, true));
        match self.rules.read_ignore(dir, ".gitignore", listed) {
            _ if self.rules.over.load(Ordering::Relaxed) => Err(()),
            Err(_) => Err(()),
            Ok(None) => Ok(FolderGit {
                rules: up.rules.clone(),
                chain: up.chain,
                cost,
                excluded,
            }),
            Ok(Some(git)) => Ok(FolderGit {
                rules: Some(Arc::new(DirRules {
                    ignore: Gitignore::empty(),
                    git,
                    exclude: Gitignore::empty(),
                    parent: up.rules.clone(),
                })),
                chain: up.chain + 1,
                cost,
                excluded,
            }),
        }
    }
}

/// A path's bytes, the key of [`GitIgnores`]' maps.
fn path_bytes(path: &Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes()
}

/// Whether the `.gitignore` rules in force (`rules`) exclude `path`: the
/// deepest folder's pattern that matches decides ([`DirRules::ignores`]
/// with only `.gitignore`s).
fn git_ignores(rules: &InForce, path: &Path, is_dir: bool) -> bool {
    let mut at = rules.as_deref();
    while let Some(r) = at {
        let m = r.git.matched(path, is_dir);
        if !m.is_none() {
            return m.is_ignore();
        }
        at = r.parent.as_deref();
    }
    false
}

/// The notice for a walk its ignore files, or the folders it entered
/// through links, stopped. Which bound it went past first depends on the
/// order the threads read them in: all are named, so the output does not.
pub fn over_notice() -> String {
    format!(
        "the ignore files (.ignore, .gitignore) under it are over {MAX_IGNORE_BYTES} bytes, {MAX_IGNORE_PATTERNS} patterns or {MAX_IGNORE_WILDCARDS} wildcards (*, ?, [) together, more than dslint compiles (globs take hundreds of times their size in memory), or its links to folders lead to over {MAX_LINKED_FOLDERS} folders (a folder reached through two links is walked once for each); nothing walked"
    )
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
        // Tops of several words: the bytes two paths share are passed over
        // eight at a time, the first that differs found within a word.
        for top in [
            "t",
            "./t",
            "t/",
            "/x/./t",
            "t//u",
            "/tmp/tree-100k/site00",
            "/tmp/tree-100k/site0/p1",
        ] {
            let names = [
                "a",
                "a/b",
                "a.txt",
                "a-b",
                "a/b/c",
                "a b",
                "ab",
                "a/c",
                "b",
                "a/b.txt",
                "A",
                "é",
                "a\u{1}",
                "config_a/b",
                "config_a-b",
                "config_a",
                "config_infer/x",
                "config_infer.txt",
                "config_inf",
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

    /// A folder its parent listed that becomes a link to a folder outside
    /// the root before it is listed itself (a walk racing with a rename)
    /// is not walked: it is listed by its real path, through no link
    /// (hostile9: outside files were listed as the folder's and read).
    /// On one thread the folder's task runs after its parent's entries
    /// were all asked about, so the swap, made when the first is, lands
    /// between the two listings.
    #[test]
    fn a_folder_swapped_for_a_link_out_is_not_walked() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let repo = base.join("repo");
        write(&repo.join("a.txt"), "");
        write(&repo.join("sub/inside.txt"), "");
        write(&base.join("out/secret.txt"), "");
        write(&base.join("out/deeper/secret2.txt"), "");
        let root = ProjectRoot::at(&repo).unwrap();
        let swapped = std::sync::atomic::AtomicBool::new(false);
        let wanted = |p: &Path| {
            if !swapped.swap(true, Ordering::SeqCst) {
                std::fs::rename(repo.join("sub"), base.join("sub_was")).unwrap();
                symlink(base.join("out"), repo.join("sub")).unwrap();
            }
            p.extension().is_some_and(|e| e == "txt")
        };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let walked = pool.install(|| walk(&root, &repo, &wanted, &|l: Listed| l.link));
        assert!(swapped.load(Ordering::SeqCst));
        let files: Vec<String> = walked
            .files
            .iter()
            .map(|(p, _)| p.strip_prefix(&repo).unwrap().display().to_string())
            .collect();
        assert_eq!(files, ["a.txt"]);
        let problems: Vec<(String, String)> = walked
            .problems
            .iter()
            .map(|(p, m)| (p.strip_prefix(&repo).unwrap().display().to_string(), m.clone()))
            .collect();
        assert_eq!(
            problems,
            [(
                "sub".to_string(),
                "became a link or a file while the walk went on; skipped".to_string()
            )]
        );
    }

    /// The root's folder cache holds at most 65,536 folders. Past that, a
    /// folder the walk lists was placed from the nearest folder above it
    /// the cache held, an `lstat` a component, twice (noted, then placed):
    /// a chain of folders under a full cache cost `lstat`s quadratic in its
    /// depth (hostile10: 300 deep, 90,000). A folder its parent listed as
    /// no link is placed from its parent's real path, which the walk holds:
    /// no look at the disk, full cache or not.
    #[test]
    fn a_deep_chain_under_a_full_folder_cache_is_placed_in_linear_work() {
        let dir = tempfile::tempdir().unwrap();
        let repo = std::fs::canonicalize(dir.path()).unwrap().join("repo");
        let root = {
            std::fs::create_dir_all(&repo).unwrap();
            ProjectRoot::at(&repo).unwrap()
        };
        // 256 x 256 folders placed: the cache is full.
        for i in 0..256 {
            for j in 0..256 {
                let d = repo.join(format!("w/{i}/{j}"));
                std::fs::create_dir_all(&d).unwrap();
                assert_eq!(root.place_dir(&d), Place::Inside(d));
            }
        }
        let chain: PathBuf = std::iter::repeat_n("d", 300).collect();
        write(&repo.join("z").join(&chain).join("end.txt"), "");
        let before = root.looks();
        let wanted = |p: &Path| p.extension().is_some_and(|e| e == "txt");
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let walked = pool.install(|| walk(&root, &repo.join("z"), &wanted, &|l: Listed| l.real()));
        let end = repo.join("z").join(&chain).join("end.txt");
        assert_eq!(walked.files, [(end.clone(), Some(end))]);
        // `z` itself, placed from the root's folder.
        assert_eq!(root.looks() - before, 1);
    }

    /// What a walk's listings said of each folder's `.gitignore` is what
    /// [`GitIgnores`] asks, once shared: the folders on the way to a
    /// missing path are not looked at again (two `lstat`s a folder, ~4,700
    /// on the 10k bench tree). Shown by a `.gitignore` written after the
    /// walk: to the shared listings its folder holds none; a fresh
    /// `GitIgnores` looks, and reads it.
    #[test]
    fn git_ignores_take_the_walks_listings() {
        let dir = tempfile::tempdir().unwrap();
        let repo = std::fs::canonicalize(dir.path()).unwrap().join("repo");
        write(&repo.join(".gitignore"), "*.engine\n");
        write(&repo.join("sub/a.txt"), "");
        write(&repo.join("sub/deeper/b.txt"), "");
        let root = ProjectRoot::at(&repo).unwrap();
        let walked = walk(&root, &repo, &|_: &Path| true, &|_: Listed| ());
        let shared = GitIgnores::new(&root);
        shared.share(walked.listed);
        write(&repo.join("sub/.gitignore"), "*.onnx\n");
        let (engine, onnx) = (repo.join("sub/deeper/m.engine"), repo.join("sub/deeper/m.onnx"));
        assert!(shared.excludes(&engine));
        assert!(!shared.excludes(&onnx));
        let fresh = GitIgnores::new(&root);
        assert!(fresh.excludes(&engine));
        assert!(fresh.excludes(&onnx));
    }

    /// `fix` walks the tree again each pass and shares the same folders
    /// again: they take their bytes of the bound once, not once a pass (a
    /// folder path counted again each pass used the bound up, and the
    /// folders of a later listing were no longer taken).
    #[test]
    fn git_ignores_count_a_folder_shared_again_once() {
        let dir = tempfile::tempdir().unwrap();
        let repo = std::fs::canonicalize(dir.path()).unwrap().join("repo");
        write(&repo.join("a.txt"), "");
        let root = ProjectRoot::at(&repo).unwrap();
        let shared = GitIgnores::new(&root);
        let long: Arc<Path> = repo.join("x".repeat(4000)).into();
        let passes = GIT_IGNORES_MAX_BYTES / 4000 + 2;
        for _ in 0..passes {
            shared.share(ListedDirs(vec![(long.clone(), false)]));
        }
        let later: Arc<Path> = repo.join("y".repeat(4000)).into();
        shared.share(ListedDirs(vec![(later.clone(), true)]));
        assert_eq!(shared.listed(&long), Some(false));
        assert_eq!(shared.listed(&later), Some(true));
        let m = shared.listed.lock().unwrap();
        assert_eq!(m.bytes, long.as_os_str().len() + later.as_os_str().len());
    }

    fn seen(root: &ProjectRoot, top: &Path, shown: &Path) -> Seen {
        let wanted = |p: &Path| p.extension().is_some_and(|e| e == "txt" || e == "yml" || e == "log");
        let walked = walk(root, top, &wanted, &|l: Listed| l.link);
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
