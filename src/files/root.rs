//! The project root: the nearest enclosing git work tree or folder holding
//! `dslint.toml`, `.dslint.toml` or `pyproject.toml` (else the current
//! folder, or the checked path's own folder when the current folder does not
//! enclose it), canonicalized once. A path written in a config is *placed*
//! against it without touching anything outside: symlinks are resolved one
//! component at a time, and the walk stops as soon as it leaves the root, so
//! whether an outside path exists is never looked at.

use std::io;
use std::path::{Component, Path, PathBuf};

/// Files that mark a project's top folder.
const MARKERS: &[&str] = &[".git", "dslint.toml", ".dslint.toml", "pyproject.toml"];

/// Symlinks followed while placing one path (as the kernel's ELOOP bound).
const MAX_LINKS: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectRoot {
    /// Canonical: absolute, no symlinks, no `..`.
    path: PathBuf,
    /// `--follow-outside`: read (never write, never echo) files outside.
    pub follow_outside: bool,
}

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
    pub fn for_paths(paths: &[PathBuf], root: Option<&Path>) -> io::Result<ProjectRoot> {
        let path = match root {
            Some(r) => std::fs::canonicalize(r)?,
            None => discover(paths.first().map_or(Path::new("."), PathBuf::as_path))?,
        };
        Ok(ProjectRoot {
            path,
            follow_outside: false,
        })
    }

    /// A root at a folder that exists (canonicalized here).
    pub fn at(dir: &Path) -> io::Result<ProjectRoot> {
        Ok(ProjectRoot {
            path: std::fs::canonicalize(dir)?,
            follow_outside: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn contains(&self, real: &Path) -> bool {
        real.starts_with(&self.path)
    }

    /// Place `path` (relative to the current folder when relative).
    pub fn place(&self, path: &Path) -> Place {
        let abs = if path.is_absolute() {
            path.to_path_buf()
        } else {
            match std::env::current_dir() {
                Ok(cwd) => cwd.join(path),
                Err(_) => return Place::Outside,
            }
        };
        self.place_absolute(&abs)
    }

    fn place_absolute(&self, abs: &Path) -> Place {
        // Components still to walk, last first (so a link's target can be
        // pushed in front of what follows it).
        let mut todo: Vec<std::ffi::OsString> = Vec::new();
        push_components(&mut todo, abs);
        let mut at = PathBuf::from("/");
        let mut links = 0;
        let mut missing = false;
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
            let visible = self.path.starts_with(&at) || self.contains(&at);
            if missing || !visible {
                continue;
            }
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    links += 1;
                    let Ok(target) = std::fs::read_link(&at) else {
                        return Place::Outside;
                    };
                    if links > MAX_LINKS {
                        return Place::Outside;
                    }
                    at.pop();
                    push_components(&mut todo, &target);
                }
                Ok(_) => {}
                Err(_) => missing = true,
            }
        }
        if !self.contains(&at) {
            return Place::Outside;
        }
        if missing { Place::Missing(at) } else { Place::Inside(at) }
    }
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
    let cwd = std::fs::canonicalize(std::env::current_dir()?)?;
    let abs = std::fs::canonicalize(start).unwrap_or_else(|_| cwd.join(start));
    let first = if abs.is_dir() {
        abs.clone()
    } else {
        abs.parent().map_or_else(|| abs.clone(), Path::to_path_buf)
    };
    for dir in first.ancestors() {
        if MARKERS.iter().any(|m| std::fs::symlink_metadata(dir.join(m)).is_ok()) {
            return Ok(dir.to_path_buf());
        }
    }
    if first.starts_with(&cwd) { Ok(cwd) } else { Ok(first) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn places_paths_without_looking_outside() {
        let top = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(top.path()).unwrap();
        let root = top.join("repo");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::create_dir_all(top.join("elsewhere")).unwrap();
        std::fs::write(root.join("a/x.txt"), "x").unwrap();
        std::fs::write(top.join("elsewhere/secret"), "s").unwrap();
        symlink("../elsewhere", root.join("out")).unwrap();
        symlink("a", root.join("in")).unwrap();
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
