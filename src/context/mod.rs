//! Pipeline context for files named on the command line.
//!
//! pre-commit, editors and review bots name the files that changed, not
//! the pipelines they belong to. An nvinfer, tracker or preprocess config
//! means little alone: its batch has to agree with the app that loads it.
//! So when files are named (rather than folders):
//!
//! 1. [`Context::find`] indexes the references of the whole project root
//!    ([`index`]) and collects the files that reference a named file,
//!    transitively (the nvinfer config's app, the app of the config that
//!    names a labels file); they are read as context.
//! 2. The element graph is built from everything read, so the named
//!    file's pipelines are whole, and every rule runs as usual.
//! 3. [`Scope::report`] keeps the findings located in a named file, and
//!    those located elsewhere that name a named file as a related place:
//!    those are moved to that place (the named nvinfer config's
//!    `batch-size`), the original place becoming a related note. Findings
//!    located only in other files are not reported.
//! 4. `fix` applies only fixes whose edits all lie in named files, unless
//!    `--fix-related`, and says which it left ([`crate::fix::engine`]).
//!
//! A folder on the command line is walked and reported whole, as before;
//! with files and folders together, the scope is the named files and the
//! files under the named folders. `--changed-since REF` names the files
//! git reports changed ([`changed`]).

pub mod changed;
pub mod index;

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use crate::base::FileId;
use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::files::root::{Place, ProjectRoot};
use crate::model::detect::Kind;
use crate::model::workspace::{Workspace, canonical};

/// Which files' findings a run reports.
#[derive(Debug, Default, Clone)]
pub struct Scope {
    /// Files were named: only they (and the named folders) are reported.
    narrowed: bool,
    /// Canonical paths of the named files.
    files: HashSet<PathBuf>,
    /// Canonical paths of the named folders.
    dirs: Vec<PathBuf>,
}

impl Scope {
    /// The scope of a workspace's command-line paths: everything when only
    /// folders are named (a folder is walked and reported whole).
    pub fn of(ws: &Workspace) -> Scope {
        let mut s = Scope::default();
        for arg in &ws.roots {
            if std::fs::symlink_metadata(arg).is_err() {
                continue;
            }
            if arg.is_dir() {
                s.dirs.push(canonical(arg));
            } else {
                s.narrowed = true;
                s.files.insert(canonical(arg));
            }
        }
        s
    }

    /// Whether only some files' findings are reported.
    pub fn is_narrowed(&self) -> bool {
        self.narrowed
    }

    /// Whether findings located in `path` are reported.
    pub fn covers(&self, path: &Path) -> bool {
        if !self.narrowed {
            return true;
        }
        let c = canonical(path);
        self.files.contains(&c) || self.dirs.iter().any(|d| c.starts_with(d))
    }

    /// `covers` for every file of the workspace, by id.
    pub fn covered(&self, ws: &Workspace) -> Vec<bool> {
        ws.files.iter().map(|f| self.covers(&f.path)).collect()
    }

    /// The findings this scope reports: those located in a covered file,
    /// and those whose related places include one, moved there (the
    /// original place first among the related notes).
    pub fn report(&self, ws: &Workspace, diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
        if !self.narrowed {
            return diags;
        }
        let covered = self.covered(ws);
        diags
            .into_iter()
            .filter_map(|mut d| {
                if covered[d.file] {
                    return Some(d);
                }
                let i = d.related.iter().position(|(f, _)| covered[*f])?;
                let mut related = std::mem::take(&mut d.related).into_vec();
                let (file, span) = related.remove(i);
                let was = (d.file, std::mem::replace(&mut d.span, span));
                d.file = file;
                related.insert(0, was);
                d.related = related.into_boxed_slice();
                if let Some(m) = d.message_at_related.take().filter(|_| i == 0) {
                    d.message = m.as_str().into();
                }
                Some(d)
            })
            .collect()
    }
}

/// The files a fix edits that its run does not cover (`covered`, by file
/// id: `Scope::covered`), sorted: what `--fix-related` is needed for.
pub fn edits_outside(covered: &[bool], fix: &Fix) -> Vec<FileId> {
    let mut files: Vec<FileId> = fix.edits.iter().map(|e| e.file).filter(|&f| !covered[f]).collect();
    files.sort_unstable();
    files.dedup();
    files
}

/// The files read around the named files, for their pipelines.
#[derive(Debug, Default, Clone)]
pub struct Context {
    /// Paths to read (relative to the current folder where it can be).
    pub files: Vec<PathBuf>,
    /// What the reference index cost, when one was built.
    pub index: Option<index::Stats>,
}

impl Context {
    /// The files that reference a named file of `ws`, transitively, inside
    /// the project root. Nothing when no file is named, or when every named
    /// file is a pipeline's own file (an app config: nothing loads it).
    pub fn find(ws: &Workspace) -> Context {
        let scope = Scope::of(ws);
        let Some(root) = ws.root.as_ref().filter(|_| scope.is_narrowed()) else {
            return Context::default();
        };
        let mut todo: Vec<(PathBuf, Vec<&OsStr>)> = Vec::new();
        for arg in &ws.roots {
            let Some(id) = ws.get(arg) else { continue };
            if matches!(ws.files[id].kind, Some(Kind::App | Kind::TestApp | Kind::ParallelApp)) {
                continue;
            }
            if let Place::Inside(real) = root.place(arg) {
                todo.push((real, arg.file_name().into_iter().collect()));
            }
        }
        if todo.is_empty() {
            return Context::default();
        }
        let index = index::Index::build(root);
        let mut seen: HashSet<PathBuf> = todo.iter().map(|(p, _)| p.clone()).collect();
        let mut files = Vec::new();
        while let Some((real, mut names)) = todo.pop() {
            names.extend(real.file_name());
            for referrer in index.referrers_of(root, &real, &names) {
                let Place::Inside(r) = root.place(referrer) else {
                    continue;
                };
                if seen.insert(r.clone()) {
                    files.push(shown(root, referrer));
                    todo.push((r, referrer.file_name().into_iter().collect()));
                }
            }
        }
        files.sort();
        Context {
            files,
            index: Some(index.stats),
        }
    }

    /// Read the context files into the workspace (as referenced files).
    pub fn load(&self, ws: &mut Workspace) {
        for f in &self.files {
            ws.read_file(f, false, false);
        }
    }
}

/// A path under the root as the user sees paths: relative to the current
/// folder when that is inside the root too (`../apps/app.txt` from
/// `models/`), else absolute.
fn shown(root: &ProjectRoot, path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize);
    match cwd {
        Ok(cwd) if root.contains(&cwd) => relative(path, &cwd),
        _ => path.to_path_buf(),
    }
}

/// `path` relative to `base` (both absolute, without `..`).
fn relative(path: &Path, base: &Path) -> PathBuf {
    let p: Vec<Component> = path.components().collect();
    let b: Vec<Component> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        let r = |p: &str, b: &str| relative(Path::new(p), Path::new(b)).display().to_string();
        assert_eq!(r("/repo/apps/app.txt", "/repo"), "apps/app.txt");
        assert_eq!(r("/repo/apps/app.txt", "/repo/models"), "../apps/app.txt");
        assert_eq!(r("/repo/apps/app.txt", "/repo/apps"), "app.txt");
        assert_eq!(r("/repo/a.txt", "/repo/x/y"), "../../a.txt");
    }
}
