//! Loading files: walking directories (respecting `.gitignore`), reading
//! bytes defensively (DS005), choosing a syntax and a kind, and following the
//! references between configs — all bounded by the project root: a path
//! that leaves it (`..`, an absolute path, a symlink) is not read unless
//! `--follow-outside`, and then its file is marked `outside` (never written,
//! its content never shown).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::base::FileId;
use crate::base::rule::Rule;
use crate::files::read::{self, ReadError};
use crate::files::root::{Place, ProjectRoot};
use crate::model::detect::{self, Kind};
use crate::syntax::{Document, Format, LineIndex, SyntaxError};

pub use crate::files::read::MAX_FILE_BYTES;

#[derive(Debug)]
pub struct SourceFile {
    /// The path as shown to the user (relative when given relative).
    pub path: PathBuf,
    pub doc: Document,
    pub kind: Option<Kind>,
    pub lines: LineIndex,
    /// Whether the walk found it (as opposed to only being referenced).
    pub walked: bool,
    /// Outside the project root (read only with `--follow-outside`): never
    /// written, and no finding shows its content.
    pub outside: bool,
}

impl SourceFile {
    pub fn position(&self, offset: usize) -> (usize, usize) {
        self.lines.position(&self.doc.text, offset)
    }
    pub fn dir(&self) -> PathBuf {
        self.path.parent().map(Path::to_path_buf).unwrap_or_default()
    }
}

/// What a path written in a config points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Exists(PathBuf),
    Missing(PathBuf),
    /// Outside the project root: unknown (whether it exists is not looked
    /// at, so no finding can tell).
    Outside(PathBuf),
}

#[derive(Debug, Default)]
pub struct Workspace {
    pub files: Vec<SourceFile>,
    by_path: HashMap<PathBuf, FileId>,
    /// Problems that belong to no parsed file (unreadable, too large, …),
    /// reported with the path and no position.
    pub file_problems: Vec<(PathBuf, Rule, String)>,
    /// A path argument that does not exist: a usage error (exit 2).
    pub missing_args: Vec<PathBuf>,
    /// Files read and set aside as not DeepStream configs, with why
    /// (`--show-files`, and a notice for a file named on the command line).
    pub skipped: Vec<Skipped>,
    /// Texts to use instead of the disk's (the fix loop's later passes),
    /// keyed by canonical path.
    pub overlay: HashMap<PathBuf, String>,
    /// The paths given on the command line.
    pub roots: Vec<PathBuf>,
    /// The project root; `None` (a workspace built in memory) reads nothing
    /// from disk through references.
    pub root: Option<ProjectRoot>,
}

/// A file that was read and is not checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
    /// Named on the command line (rather than found by a walk).
    pub named: bool,
}

/// Extensions a directory walk looks at.
const CANDIDATE_EXTENSIONS: &[&str] = &["txt", "yml", "yaml", "cfg", "conf", "sh", "bash", "py"];

impl Workspace {
    /// Load with the project root discovered from the paths.
    pub fn load(paths: &[PathBuf]) -> Workspace {
        Workspace::load_with(paths, HashMap::new())
    }

    /// Load with some files' texts replaced (by canonical path).
    pub fn load_with(paths: &[PathBuf], overlay: HashMap<PathBuf, String>) -> Workspace {
        let root = ProjectRoot::for_paths(paths, None).ok();
        Workspace::load_in(paths, root, overlay)
    }

    /// Load `paths` under `root`, some texts replaced (by canonical path).
    pub fn load_in(paths: &[PathBuf], root: Option<ProjectRoot>, overlay: HashMap<PathBuf, String>) -> Workspace {
        let mut ws = Workspace {
            overlay,
            roots: paths.to_vec(),
            root,
            ..Workspace::default()
        };
        for arg in paths {
            if std::fs::symlink_metadata(arg).is_err() {
                ws.missing_args.push(arg.clone());
                continue;
            }
            let place = ws.place(arg);
            if place == Place::Outside || !arg.is_dir() {
                ws.read_file(arg, true, true);
                continue;
            }
            let found = ws.walk(arg);
            ws.read_files(&found, false);
        }
        ws
    }

    fn place(&self, path: &Path) -> Place {
        match &self.root {
            Some(r) => r.place(path),
            None => Place::Outside,
        }
    }

    fn follow_outside(&self) -> bool {
        self.root.as_ref().is_some_and(|r| r.follow_outside)
    }

    /// The candidate files under a folder. Links that lead out of the root
    /// are not followed (a link to `/` would walk the machine); a folder
    /// whose ignore file is not a small regular file is not walked (the
    /// walker would block on a FIFO or read `/dev/zero` forever).
    fn walk(&mut self, top: &Path) -> Vec<PathBuf> {
        let Some(root) = self.root.clone() else {
            return Vec::new();
        };
        for dir in top.ancestors() {
            if let Some(msg) = bad_ignore_file(dir) {
                self.file_problems.push((dir.to_path_buf(), Rule::UnreadableFile, msg));
                return Vec::new();
            }
            if std::fs::canonicalize(dir).is_ok_and(|d| d == root.path()) {
                break;
            }
        }
        let pruned: Arc<Mutex<Vec<(PathBuf, String)>>> = Arc::default();
        let pruned_in = Arc::clone(&pruned);
        let follow_outside = root.follow_outside;
        let walker = ignore::WalkBuilder::new(top)
            .follow_links(true)
            .require_git(false)
            .filter_entry(move |e| {
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                let mut why = None;
                if e.path_is_symlink() && root.place(e.path()) == Place::Outside && (is_dir || !follow_outside) {
                    why = Some("is a link that leads outside the project root; not followed".to_string());
                } else if is_dir {
                    why = bad_ignore_file(e.path());
                }
                if let Some(w) = why {
                    if let Ok(mut p) = pruned_in.lock() {
                        p.push((e.path().to_path_buf(), w));
                    }
                    return false;
                }
                true
            })
            .build();
        let mut found = Vec::new();
        for entry in walker {
            match entry {
                Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                    let p = e.into_path();
                    let ext = p
                        .extension()
                        .and_then(|e| e.to_str())
                        .unwrap_or("")
                        .to_ascii_lowercase();
                    if CANDIDATE_EXTENSIONS.contains(&ext.as_str()) {
                        found.push(p);
                    }
                }
                Ok(_) => {}
                Err(err) => {
                    let (path, msg) = walk_error(&err);
                    self.file_problems.push((path, Rule::UnreadableFile, msg));
                }
            }
        }
        let mut pruned = pruned.lock().map(|mut p| std::mem::take(&mut *p)).unwrap_or_default();
        pruned.sort();
        for (path, msg) in pruned {
            self.file_problems.push((path, Rule::UnreadableFile, msg));
        }
        found.sort();
        found
    }

    pub fn get(&self, path: &Path) -> Option<FileId> {
        self.by_path.get(&canonical(path)).copied()
    }

    /// Read, check and parse one file. Returns its id when it is a text file
    /// dslint can read (whether or not it is a DeepStream config).
    pub fn read_file(&mut self, path: &Path, walked: bool, explicit: bool) -> Option<FileId> {
        let key = canonical(path);
        if let Some(&id) = self.by_path.get(&key) {
            self.files[id].walked |= walked;
            return Some(id);
        }
        let loaded = self.load_placed(path, &key, walked, explicit);
        self.insert(path, key, loaded)
    }

    /// Place a path against the root, then read it (or say why not).
    fn load_placed(&self, path: &Path, key: &Path, walked: bool, explicit: bool) -> Loaded {
        let (real, outside) = match self.place(path) {
            Place::Inside(real) => (real, false),
            Place::Missing(_) => return Loaded::Problem("cannot read: no such file; skipped".into()),
            Place::Outside if self.follow_outside() => (path.to_path_buf(), true),
            Place::Outside => {
                return Loaded::Problem(
                    "leads outside the project root; not read (--root or --follow-outside to read it)".into(),
                );
            }
        };
        let text = self.overlay.get(key).cloned();
        match load_one(&real, path, text, walked, explicit) {
            Loaded::File(mut f) => {
                f.outside = outside;
                Loaded::File(f)
            }
            other => other,
        }
    }

    /// Read many files at once (in parallel), keeping their order.
    fn read_files(&mut self, paths: &[PathBuf], explicit: bool) {
        use rayon::prelude::*;
        let loaded: Vec<(PathBuf, Loaded)> = paths
            .par_iter()
            .map(|p| {
                let key = canonical(p);
                let l = self.load_placed(p, &key, true, explicit);
                (key, l)
            })
            .collect();
        for (path, (key, l)) in paths.iter().zip(loaded) {
            if let Some(&id) = self.by_path.get(&key) {
                self.files[id].walked = true;
            } else {
                self.insert(path, key, l);
            }
        }
    }

    fn insert(&mut self, path: &Path, key: PathBuf, loaded: Loaded) -> Option<FileId> {
        match loaded {
            Loaded::Skipped(reason) => {
                self.skipped.push(Skipped {
                    path: path.to_path_buf(),
                    reason,
                    named: self.roots.iter().any(|r| r == path),
                });
                None
            }
            Loaded::Problem(msg) => {
                self.file_problems.push((path.to_path_buf(), Rule::UnreadableFile, msg));
                None
            }
            Loaded::File(f) => {
                let id = self.files.len();
                self.files.push(*f);
                self.by_path.insert(key, id);
                Some(id)
            }
        }
    }

    /// Add a file from a text in memory (the bench variant's passes).
    pub fn read_text(&mut self, path: &Path, text: String) -> Option<FileId> {
        let key = canonical(path);
        let loaded = parse_text(path, text, true);
        self.insert(path, key, loaded)
    }

    /// Resolve a path written in `from` (relative to its folder; `file://`
    /// URIs too), placed against the project root.
    pub fn resolve(&self, from: FileId, raw: &str) -> Option<Target> {
        let raw = raw.trim();
        let raw = raw.strip_prefix("file://").unwrap_or(raw);
        if raw.is_empty() || raw.contains("://") {
            return None;
        }
        let path = Path::new(raw);
        let full = if path.is_absolute() {
            path.to_path_buf()
        } else {
            normalize(&self.files[from].dir().join(path))
        };
        // A file outside the root leads further out only: what it names is
        // outside too (and is not looked at).
        if self.files[from].outside {
            return Some(Target::Outside(full));
        }
        Some(match self.place(&full) {
            Place::Inside(_) => Target::Exists(full),
            Place::Missing(_) => Target::Missing(full),
            Place::Outside => Target::Outside(full),
        })
    }

    /// Load a referenced config (not walked) and return its id.
    pub fn load_reference(&mut self, from: FileId, raw: &str) -> Option<FileId> {
        match self.resolve(from, raw)? {
            Target::Exists(p) if p.is_file() => self.read_file(&p, false, false),
            Target::Outside(p) if self.follow_outside() && !self.files[from].outside => {
                let key = canonical(&p);
                if let Some(&id) = self.by_path.get(&key) {
                    return Some(id);
                }
                // Whether it could be read stays unsaid (no DS005 for it).
                match self.load_placed(&p, &key, false, false) {
                    loaded @ Loaded::File(_) => self.insert(&p, key, loaded),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    pub fn syntax_errors(&self, id: FileId) -> &[SyntaxError] {
        &self.files[id].doc.errors
    }
}

/// The outcome of reading one file.
enum Loaded {
    /// Not a DeepStream config (or empty): no finding, only a record of why.
    Skipped(String),
    /// Unreadable (DS005), with the reason.
    Problem(String),
    File(Box<SourceFile>),
}

/// Read, check and parse one file; no shared state, so files load in
/// parallel. `real` is where the bytes are read from, `shown` the path as
/// the user sees it.
fn load_one(real: &Path, shown: &Path, overlay: Option<String>, walked: bool, explicit: bool) -> Loaded {
    if let Some(text) = overlay {
        return parse_text(shown, text, walked);
    }
    let bytes = match read::read_regular(real, MAX_FILE_BYTES) {
        Ok(b) => b,
        Err(ReadError::TooLarge { cap }) => {
            return Loaded::Problem(format!("file is over the {cap} byte limit; skipped"));
        }
        Err(e) => return Loaded::Problem(format!("{e}; skipped")),
    };
    if bytes.is_empty() {
        return if explicit {
            Loaded::Problem("file is empty; skipped".into())
        } else {
            Loaded::Skipped("empty file".into())
        };
    }
    if bytes.contains(&0) {
        return Loaded::Problem("file is binary (contains NUL bytes); skipped".into());
    }
    match String::from_utf8(bytes) {
        Ok(text) => parse_text(shown, text, walked),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            Loaded::Problem(format!("file is not UTF-8 (invalid byte at offset {at}); skipped"))
        }
    }
}

/// Why a folder must not be walked: its `.gitignore` or `.ignore` (which
/// the walker reads, following links) is not a small regular file.
fn bad_ignore_file(dir: &Path) -> Option<String> {
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

/// Choose a syntax and a kind for a text; `Skipped` when it is not ours.
fn parse_text(path: &Path, text: String, walked: bool) -> Loaded {
    let Some(format) = detect::format_for(path, &text) else {
        return Loaded::Skipped(if detect::looks_like_protobuf(&text) {
            "protobuf text (an nvinferserver config?), which dslint does not read".into()
        } else {
            "neither a key-file nor YAML (by its extension and first line)".into()
        });
    };
    let doc = Document::parse(text, format);
    let mut kind = detect::classify(&doc);
    if kind.is_none() && format == Format::Yaml && !doc.errors.is_empty() && detect::yaml_looks_like_ours(&doc.text) {
        // A broken YAML file that still looks like a DeepStream config:
        // worth its DS001. Its kind is guessed from the text.
        kind = Some(
            if doc.text.contains("\nproperty:") || doc.text.starts_with("property:") {
                Kind::NvInfer
            } else {
                Kind::TestApp
            },
        );
    }
    if kind.is_none() {
        return Loaded::Skipped(skip_reason(&doc));
    }
    let lines = LineIndex::new(&doc.text);
    Loaded::File(Box::new(SourceFile {
        path: path.to_path_buf(),
        doc,
        kind,
        lines,
        walked,
        outside: false,
    }))
}

/// Why a parsed file is not a config dslint checks, naming what it found.
fn skip_reason(doc: &Document) -> String {
    let text = &doc.text;
    match doc.format {
        Format::Shell => return "a shell script with no gst-launch-1.0 line naming a DeepStream element".into(),
        Format::Python => return "a Python module that builds no DeepStream pipeline".into(),
        Format::KeyFile | Format::Yaml => {}
    }
    if doc.format == Format::KeyFile && text.contains('\r') && !text.contains('\n') {
        return "its lines end in a bare CR, which GLib does not split on: the file reads as one line".into();
    }
    // (Top-level YAML scalars sit in a group without a name.)
    let names: Vec<&str> = doc.group_names().into_iter().filter(|n| !n.is_empty()).collect();
    let what = if doc.format == Format::KeyFile {
        "groups"
    } else {
        "sections"
    };
    if names.is_empty() {
        return format!("read as {}, with no {what}", doc.format.describe());
    }
    let shown: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
    let more = if names.len() > 4 { ", …" } else { "" };
    format!(
        "read as {}, but its {what} ({}{more}) are not those of a config dslint checks",
        doc.format.describe(),
        shown.join(", ")
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

/// A key for "the same file": the canonical path when it exists.
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path))
}

/// Lexically drop `.` and fold `dir/..`, keeping the path relative when it is.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}
