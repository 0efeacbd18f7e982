//! The project root: the nearest enclosing git work tree or folder holding
//! `dslint.toml`, `.dslint.toml` or `pyproject.toml` (else the current
//! folder, or the checked path's own folder when the current folder does not
//! enclose it), canonicalized once. A path written in a config is *placed*
//! against it without touching anything outside: symlinks are resolved one
//! component at a time, and the walk stops as soon as it leaves the root, so
//! whether an outside path exists is never looked at.

use std::collections::HashMap;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

/// Files that mark a project's top folder.
const MARKERS: &[&str] = &[".git", "dslint.toml", ".dslint.toml", "pyproject.toml"];

/// Symlinks followed while placing one path (as the kernel's ELOOP bound).
const MAX_LINKS: usize = 40;

#[derive(Debug, Clone)]
pub struct ProjectRoot {
    /// Canonical: absolute, no symlinks, no `..`.
    path: PathBuf,
    /// `--follow-outside`: read (never write, never echo) files outside.
    pub follow_outside: bool,
    /// The folder the project's own sources are looked for in (its
    /// readers' keys, what its Dockerfiles copy: [`scope`](Self::scope)),
    /// where that is not the whole root: a root that no marker made (the
    /// current folder, for want of one) is no project, only a bound, and
    /// what lies beside the checked paths in it is not theirs. `None`: the
    /// root.
    scope: Option<PathBuf>,
    /// The current folder when the root was made: relative paths are placed
    /// against it (one `getcwd` per run, not one per path).
    cwd: Option<PathBuf>,
    /// Folders already placed (shared by clones): placing a file then costs
    /// one `lstat` of its last component, not one per component.
    dirs: Arc<DirCache>,
}

impl PartialEq for ProjectRoot {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path && self.follow_outside == other.follow_outside && self.scope == other.scope
    }
}
impl Eq for ProjectRoot {}

/// Where the walk of a path's components stands after a prefix of them.
#[derive(Debug, Clone)]
enum Walked {
    /// At `at` (no symlinks), having followed `links` links; `missing` once
    /// a component was absent (what follows is placed lexically).
    At { at: PathBuf, links: usize, missing: bool },
    /// Decided: it leads outside (a link that cannot be read, too many links).
    Outside,
}

/// Placed folders by their absolute (lexical) path. Only folders found
/// present are kept: a folder created later in the run is never taken for
/// missing. Bounded, so a walk of a huge tree does not grow it without end.
#[derive(Debug, Default)]
struct DirCache {
    /// By the bytes of the folder's path (hashing a `Path` parses its
    /// components); foldhash, as the workspace's maps (bounded:
    /// `DIR_CACHE_MAX`).
    map: RwLock<HashMap<Vec<u8>, Walked, foldhash::fast::RandomState>>,
    /// The `lstat`s placings made (tests count them).
    #[cfg(test)]
    looks: std::sync::atomic::AtomicUsize,
}

const DIR_CACHE_MAX: usize = 1 << 16;

/// Folders found missing, by their absolute (lexical) path, for whoever
/// holds them: a workspace, for its run, as it holds every placement it
/// made (`Workspace::place`: where paths land does not change within a
/// run). The root's own cache keeps present folders only, so a folder
/// created later is never taken for missing by a write or another reader;
/// this one spares the placings of a run the `lstat` of a missing folder
/// once for every file named in it (the 100k bench tree's configs name
/// ~14k files in folders that are not there, each folder a hundred times
/// at most). Bounded as the root's cache is.
#[derive(Debug, Default)]
pub struct MissingDirs {
    map: RwLock<MissingMap>,
}

/// [`MissingDirs`]' folders, and the bytes of their paths (each folder's
/// and where its walk stands).
#[derive(Debug, Default)]
struct MissingMap {
    map: HashMap<Vec<u8>, Walked, foldhash::fast::RandomState>,
    bytes: usize,
}

const MISSING_DIRS_MAX: usize = 1 << 16;

/// At most this many bytes of paths in a [`MissingDirs`]: where a missing
/// folder's walk stands is a real path up to the first missing component,
/// which a link can make far longer than the path written (a link to a
/// folder 4 KiB deep: 65,536 folders held ~256 MiB of paths).
const MISSING_DIRS_MAX_BYTES: usize = MISSING_DIRS_MAX * 256;

/// Where a path lands, seen from the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Inside the root and present: the real path (no symlinks).
    Inside(PathBuf),
    /// Inside the root as far as it resolves, and absent.
    Missing(PathBuf),
    /// It leaves the root (`..`, an absolute path, a symlink): nothing about
    /// it is looked at.
    Outside,
}

impl ProjectRoot {
    /// The root for checking `paths` (the first one decides), or `root`
    /// when the user named it (`--root`).
    ///
    /// A root that no marker made (no `--root`, no git work tree or
    /// `dslint.toml`/`pyproject.toml` above the first path: the current
    /// folder) bounds what is read, as product.md says, but the project's
    /// own sources are looked for only in the folder that holds every
    /// checked path ([`scope`](Self::scope)): `dslint check /tmp/repo` run
    /// from `/tmp` looked through all of `/tmp` for C readers and
    /// Dockerfiles (84 s against 0.01 s from inside the folder).
    pub fn for_paths(paths: &[PathBuf], root: Option<&Path>) -> io::Result<ProjectRoot> {
        if let Some(r) = root {
            return Ok(ProjectRoot::new(std::fs::canonicalize(r)?));
        }
        let first = paths.first().map_or(Path::new("."), PathBuf::as_path);
        let (path, marked) = discover_marked(first)?;
        let mut root = ProjectRoot::new(path);
        if !marked {
            root.scope = checked_folder(paths).filter(|s| s != &root.path && s.starts_with(&root.path));
        }
        Ok(root)
    }

    /// Where the project's own sources are looked for (the walks of
    /// `Workspace::reader_keys` and `Workspace::unknown_in_container`):
    /// the root, or for a root no marker made the folder that holds every
    /// checked path.
    pub fn scope(&self) -> &Path {
        self.scope.as_deref().unwrap_or(&self.path)
    }

    /// A root at a folder that exists (canonicalized here).
    pub fn at(dir: &Path) -> io::Result<ProjectRoot> {
        Ok(ProjectRoot::new(std::fs::canonicalize(dir)?))
    }

    fn new(path: PathBuf) -> ProjectRoot {
        ProjectRoot {
            path,
            follow_outside: false,
            scope: None,
            cwd: std::env::current_dir().ok(),
            dirs: Arc::default(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn contains(&self, real: &Path) -> bool {
        real.starts_with(&self.path)
    }

    /// `contains` for a path this placing built ([`within`]).
    fn holds(&self, at: &Path) -> bool {
        within(at, &self.path)
    }

    /// Whether a walk standing at `at` may look at the disk there: a
    /// folder above the root (on the way down to it) or a path inside it.
    fn visible(&self, at: &Path) -> bool {
        within(&self.path, at) || self.holds(at)
    }

    /// Place `path` (relative to the current folder when relative).
    pub fn place(&self, path: &Path) -> Place {
        self.place_from(path, true)
    }

    /// Place `path` as [`place`](Self::place) does, its folder taken from
    /// `missing` when that holds it, and put there when it is found
    /// missing: each missing folder is looked at once for as long as
    /// `missing` is kept.
    pub fn place_remembering_missing(&self, path: &Path, missing: &MissingDirs) -> Place {
        let Some(abs) = self.absolute(path) else {
            return Place::Outside;
        };
        let Some((parent, last)) = super::split_name(&abs) else {
            return self.place(&abs);
        };
        let known = missing
            .map
            .read()
            .ok()
            .and_then(|m| m.map.get(parent.as_os_str().as_bytes()).cloned());
        let at = match known {
            Some(w) => w,
            None => {
                let w = self.dir(parent);
                if let Walked::At { at, missing: true, .. } = &w {
                    if let Ok(mut m) = missing.map.write() {
                        let bytes = parent.as_os_str().len() + at.as_os_str().len();
                        if m.map.len() < MISSING_DIRS_MAX && m.bytes + bytes <= MISSING_DIRS_MAX_BYTES {
                            m.bytes += bytes;
                            m.map.insert(parent.as_os_str().as_bytes().to_vec(), w.clone());
                        }
                    }
                }
                w
            }
        };
        self.landing(self.walk(at, Path::new(last)))
    }

    /// Place a folder: from the folder cache when it holds it (a folder a
    /// walk listed: no look at the disk), else as [`place`](Self::place)
    /// places it, remembering it there when present.
    pub fn place_dir(&self, dir: &Path) -> Place {
        match self.absolute(dir) {
            Some(abs) => self.landing(self.dir(&abs)),
            None => Place::Outside,
        }
    }

    /// `path` made absolute against the current folder of the root's
    /// making (`None` when there was none).
    fn absolute(&self, path: &Path) -> Option<PathBuf> {
        if path.is_absolute() {
            return Some(path.to_path_buf());
        }
        self.cwd.as_ref().map(|cwd| super::join(cwd, path))
    }

    /// Where a walk of a path's components ended, seen from the root.
    fn landing(&self, end: Walked) -> Place {
        match end {
            Walked::Outside => Place::Outside,
            Walked::At { at, .. } if !self.holds(&at) => Place::Outside,
            Walked::At { at, missing: true, .. } => Place::Missing(at),
            Walked::At { at, .. } => Place::Inside(at),
        }
    }

    /// Place `path` looking at every component now (no folder remembered
    /// from earlier in the run): for writes, where what is on disk now is
    /// what counts.
    pub fn place_now(&self, path: &Path) -> Place {
        self.place_from(path, false)
    }

    /// Remember a folder a walk placed from its parent's real path (its
    /// parent's listing showed it to be there and not a link): `real`. The
    /// first path placed in it then costs no `lstat` of the folder (one a
    /// folder, a quarter of a walk's looks).
    pub fn note_listed_dir(&self, path: &Path, real: &Path) {
        if !self.holds(real) {
            return;
        }
        let Some(abs) = self.absolute(path) else { return };
        if let Ok(mut m) = self.dirs.map.write() {
            if m.len() < DIR_CACHE_MAX {
                m.insert(
                    abs.into_os_string().into_encoded_bytes(),
                    Walked::At {
                        at: real.to_path_buf(),
                        links: 0,
                        missing: false,
                    },
                );
            }
        }
    }

    fn place_from(&self, path: &Path, cached: bool) -> Place {
        let Some(abs) = self.absolute(path) else {
            return Place::Outside;
        };
        // The folder from the cache, then the last component.
        let last = match super::split_name(&abs) {
            Some((parent, name)) => Some((parent, name)),
            None => abs.parent().zip(abs.components().next_back().map(|c| c.as_os_str())),
        };
        let end = match last {
            Some((parent, last)) if cached => self.walk(self.dir(parent), Path::new(last)),
            _ => self.walk(Walked::start(), &abs),
        };
        self.landing(end)
    }

    /// Where the walk stands after all of `dir`'s components: on from the
    /// nearest folder above it already placed, one component at a time
    /// (walking a path component by component is the same as walking it
    /// whole), remembering each folder on the way.
    fn dir(&self, dir: &Path) -> Walked {
        let mut chain: Vec<&Path> = Vec::new();
        let mut state = Walked::start();
        let Ok(map) = self.dirs.map.read() else {
            return self.walk(state, dir);
        };
        // (`dir.ancestors()`, each parent cut from the bytes where it can.)
        for d in std::iter::successors(Some(dir), |d| super::parent(d)) {
            if let Some(w) = map.get(d.as_os_str().as_bytes()) {
                state = w.clone();
                break;
            }
            if super::parent(d).is_some() {
                chain.push(d);
            }
        }
        drop(map);
        for d in chain.into_iter().rev() {
            let last = match super::split_name(d) {
                Some((_, name)) => name,
                None => match d.components().next_back() {
                    Some(c) => c.as_os_str(),
                    None => continue,
                },
            };
            state = self.walk(state, Path::new(last));
            if let Walked::At { missing: false, .. } = state {
                if let Ok(mut m) = self.dirs.map.write() {
                    if m.len() < DIR_CACHE_MAX {
                        m.insert(d.as_os_str().as_bytes().to_vec(), state.clone());
                    }
                }
            }
        }
        state
    }

    /// Count an `lstat` of a placing (tests ask [`looks`](Self::looks)).
    fn looked(&self) {
        #[cfg(test)]
        self.dirs.looks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// How many `lstat`s this root's placings made (its clones' too).
    #[cfg(test)]
    pub fn looks(&self) -> usize {
        self.dirs.looks.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Walk `path`'s components on from `from`.
    fn walk(&self, from: Walked, path: &Path) -> Walked {
        let Walked::At {
            mut at,
            mut links,
            mut missing,
        } = from
        else {
            return Walked::Outside;
        };
        // One plain component that is no link (a file in a placed folder,
        // the common case): one `lstat`, nothing else.
        let mut parts = path.components();
        if let (Some(Component::Normal(name)), None) = (parts.next(), parts.next()) {
            at.push(name);
            let visible = self.visible(&at);
            if missing || !visible {
                return Walked::At { at, links, missing };
            }
            self.looked();
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    at.pop();
                }
                Ok(_) => return Walked::At { at, links, missing },
                Err(_) => {
                    return Walked::At {
                        at,
                        links,
                        missing: true,
                    };
                }
            }
        }
        // Components still to walk, last first (so a link's target can be
        // pushed in front of what follows it).
        let mut todo: Vec<std::ffi::OsString> = Vec::new();
        push_components(&mut todo, path);
        while let Some(c) = todo.pop() {
            if c == ".." {
                at.pop();
                continue;
            }
            if c == "/" {
                at = PathBuf::from("/");
                continue;
            }
            at.push(&c);
            // Only a folder above the root (on the way down to it) or a path
            // inside it is looked at. A component outside is passed
            // lexically (`../repo/x` from inside `repo` comes back in);
            // where the walk ends decides, and what is read is the path
            // found here, never the one written.
            let visible = self.visible(&at);
            if missing || !visible {
                continue;
            }
            self.looked();
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    links += 1;
                    let Ok(target) = std::fs::read_link(&at) else {
                        return Walked::Outside;
                    };
                    if links > MAX_LINKS {
                        return Walked::Outside;
                    }
                    at.pop();
                    push_components(&mut todo, &target);
                }
                Ok(_) => {}
                Err(_) => missing = true,
            }
        }
        Walked::At { at, links, missing }
    }
}

impl Walked {
    fn start() -> Walked {
        Walked::At {
            at: PathBuf::from("/"),
            links: 0,
            missing: false,
        }
    }
}

/// `path.starts_with(dir)` for the paths a placing builds: absolute, one
/// normal component pushed at a time onto `/` or onto a canonical path (no
/// `.` or `..` component, no repeated `/`, no `/` at the end but the
/// root's), so that comparing their bytes is comparing their components. A
/// placement asked it twice for each component it walked, component by
/// component (~2% of a check's instructions).
fn within(path: &Path, dir: &Path) -> bool {
    let (p, d) = (path.as_os_str().as_bytes(), dir.as_os_str().as_bytes());
    p.starts_with(d) && (p.len() == d.len() || d.ends_with(b"/") || p[d.len()] == b'/')
}

/// Push a path's components onto `todo` so that they pop in order; an
/// absolute path starts with "/" (restart at the top).
fn push_components(todo: &mut Vec<std::ffi::OsString>, path: &Path) {
    let parts: Vec<std::ffi::OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::RootDir => Some("/".into()),
            Component::ParentDir => Some("..".into()),
            Component::Normal(n) => Some(n.to_os_string()),
            Component::CurDir | Component::Prefix(_) => None,
        })
        .collect();
    todo.extend(parts.into_iter().rev());
}

/// The nearest enclosing folder with a marker, above `start` (a file or a
/// folder); else the current folder when it encloses `start`, else
/// `start`'s own folder.
pub fn discover(start: &Path) -> io::Result<PathBuf> {
    discover_marked(start).map(|(root, _)| root)
}

/// [`discover`]'s folder, and whether a marker made it.
fn discover_marked(start: &Path) -> io::Result<(PathBuf, bool)> {
    let cwd = std::fs::canonicalize(std::env::current_dir()?)?;
    let abs = std::fs::canonicalize(start).unwrap_or_else(|_| cwd.join(start));
    let first = if abs.is_dir() {
        abs.clone()
    } else {
        abs.parent().map_or_else(|| abs.clone(), Path::to_path_buf)
    };
    for dir in first.ancestors() {
        if MARKERS.iter().any(|m| std::fs::symlink_metadata(dir.join(m)).is_ok()) {
            return Ok((dir.to_path_buf(), true));
        }
    }
    if first.starts_with(&cwd) {
        Ok((cwd, false))
    } else {
        Ok((first, false))
    }
}

/// The deepest folder that holds every one of `paths` (a folder itself, a
/// file its folder), canonical; `None` without a current folder.
fn checked_folder(paths: &[PathBuf]) -> Option<PathBuf> {
    let cwd = std::fs::canonicalize(std::env::current_dir().ok()?).ok()?;
    let dot = [PathBuf::from(".")];
    let paths = if paths.is_empty() { &dot[..] } else { paths };
    let mut common: Option<PathBuf> = None;
    for p in paths {
        let abs = std::fs::canonicalize(p).unwrap_or_else(|_| cwd.join(p));
        let dir = if abs.is_dir() {
            abs
        } else {
            abs.parent().map_or_else(|| abs.clone(), Path::to_path_buf)
        };
        common = Some(match common {
            None => dir,
            Some(c) => c
                .ancestors()
                .find(|a| dir.starts_with(a))
                .unwrap_or(Path::new("/"))
                .to_path_buf(),
        });
    }
    common
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// `within` says what `Path::starts_with` says, for the paths a
    /// placing builds: the root, names that share a prefix with a folder's
    /// (`/ab` is not under `/a`), the folder itself, and its own prefixes.
    #[test]
    fn within_is_starts_with_for_built_paths() {
        let paths = [
            "/",
            "/a",
            "/ab",
            "/a/b",
            "/a/b/c",
            "/a/bc",
            "/a/b-c",
            "/b",
            "/a/b/c/d.txt",
            "/tmp/repo",
            "/tmp/repo2",
            "/tmp/repo/x",
            "/tmp/rep",
            "/tmp/repo/.hidden",
        ];
        for p in paths {
            for d in paths {
                assert_eq!(
                    within(Path::new(p), Path::new(d)),
                    Path::new(p).starts_with(d),
                    "within({p}, {d})"
                );
            }
        }
    }

    /// `TOP/repo` holding `a/x.txt`, a link `in` to `a` and a link `out`
    /// to `TOP/elsewhere` (a folder outside the root); the guard keeps TOP.
    fn repo_with_links() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let guard = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(guard.path()).unwrap();
        let root = top.join("repo");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::create_dir_all(top.join("elsewhere")).unwrap();
        std::fs::write(root.join("a/x.txt"), "x").unwrap();
        symlink("../elsewhere", root.join("out")).unwrap();
        symlink("a", root.join("in")).unwrap();
        (guard, top, root)
    }

    #[test]
    fn places_paths_without_looking_outside() {
        let (_guard, top, root) = repo_with_links();
        std::fs::write(top.join("elsewhere/secret"), "s").unwrap();
        symlink(top.join("elsewhere/secret"), root.join("probe-present")).unwrap();
        symlink(top.join("elsewhere/absent"), root.join("probe-absent")).unwrap();
        symlink("loop", root.join("loop")).unwrap();
        let r = ProjectRoot::at(&root).unwrap();
        assert_eq!(r.place(&root.join("a/x.txt")), Place::Inside(root.join("a/x.txt")));
        assert_eq!(r.place(&root.join("in/x.txt")), Place::Inside(root.join("a/x.txt")));
        assert_eq!(
            r.place(&root.join("a/../a/y.txt")),
            Place::Missing(root.join("a/y.txt"))
        );
        assert_eq!(
            r.place(&root.join("a/no/such/../y")),
            Place::Missing(root.join("a/no/y"))
        );
        // Out and back in, without looking at what is outside.
        assert_eq!(
            r.place(&root.join("../repo/a/x.txt")),
            Place::Inside(root.join("a/x.txt"))
        );
        assert_eq!(
            r.place(&top.join("elsewhere/nothing/../../repo/in/x.txt")),
            Place::Inside(root.join("a/x.txt"))
        );
        // What the folder cache answers is what a walk of every component
        // answers, asked first or again.
        for p in [
            root.join("a/x.txt"),
            root.join("in/x.txt"),
            root.join("a/../a/y.txt"),
            root.join("a/no/such/../y"),
            root.join("../repo/a/x.txt"),
            root.join("out/secret"),
            root.join("in/../in/x.txt"),
            top.join("elsewhere/nothing/../../repo/in/x.txt"),
            root.join("loop/x"),
        ] {
            let fresh = ProjectRoot::at(&root).unwrap();
            assert_eq!(fresh.place(&p), r.place_now(&p), "{}", p.display());
            assert_eq!(r.place(&p), r.place_now(&p), "{}", p.display());
        }
        for outside in [
            root.join("../elsewhere/secret"),
            root.join("out/secret"),
            root.join("out/absent"),
            top.join("elsewhere/secret"),
            PathBuf::from("/etc/passwd"),
            // Whether the link's target exists makes no difference.
            root.join("probe-present"),
            root.join("probe-absent"),
            root.join("loop"),
        ] {
            assert_eq!(r.place(&outside), Place::Outside, "{}", outside.display());
        }
    }

    /// Placing through a [`MissingDirs`] answers what a walk of every
    /// component answers, and looks at a missing folder once: a folder
    /// that appears afterwards stays missing for it (as a workspace's
    /// placements stay what they were), never for a fresh placing.
    #[test]
    fn missing_folders_are_looked_at_once() {
        let (_guard, _top, root) = repo_with_links();
        let r = ProjectRoot::at(&root).unwrap();
        let missing = MissingDirs::default();
        let paths = [
            root.join("a/x.txt"),
            root.join("in/x.txt"),
            root.join("a/y.txt"),
            root.join("models/m.onnx"),
            root.join("models/n.onnx"),
            root.join("in/models/m.onnx"),
            root.join("no/such/../y"),
            root.join("no/such/deeper/y"),
            root.join("out/secret"),
            root.join("out/models/m.onnx"),
            root.join("models/.."),
        ];
        for p in &paths {
            assert_eq!(
                r.place_remembering_missing(p, &missing),
                r.place_now(p),
                "{}",
                p.display()
            );
        }
        // The folders appear: remembered missing here, present to others.
        std::fs::create_dir_all(root.join("models")).unwrap();
        std::fs::write(root.join("models/m.onnx"), "m").unwrap();
        let m = root.join("models/m.onnx");
        assert_eq!(r.place_remembering_missing(&m, &missing), Place::Missing(m.clone()));
        assert_eq!(r.place(&m), Place::Inside(m.clone()));
        assert_eq!(r.place_now(&m), Place::Inside(m.clone()));
        let fresh = MissingDirs::default();
        assert_eq!(r.place_remembering_missing(&m, &fresh), Place::Inside(m.clone()));
        // Folders: from the cache where it holds them, as placed otherwise.
        for d in [
            root.join("a"),
            root.join("in"),
            root.join("out"),
            root.join("gone"),
            root.join("a/.."),
        ] {
            assert_eq!(r.place_dir(&d), r.place_now(&d), "{}", d.display());
        }
    }

    #[test]
    fn discovers_the_nearest_marker() {
        let top = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(top.path()).unwrap();
        std::fs::create_dir_all(top.join("p/sub/deep")).unwrap();
        std::fs::write(top.join("p/dslint.toml"), "").unwrap();
        assert_eq!(discover(&top.join("p/sub/deep")).unwrap(), top.join("p"));
        std::fs::create_dir(top.join("p/sub/.git")).unwrap();
        assert_eq!(discover(&top.join("p/sub/deep")).unwrap(), top.join("p/sub"));
    }
}
