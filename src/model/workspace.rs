//! Loading files: walking directories (respecting `.gitignore`), reading
//! bytes defensively (DS005), choosing a syntax and a kind, and following the
//! references between configs.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use crate::base::FileId;
use crate::base::rule::Rule;
use crate::model::detect::{self, Kind};
use crate::syntax::{Document, Format, LineIndex, SyntaxError};

/// Files larger than this are skipped (no DeepStream config is near it).
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// Where DeepStream installs; absolute paths under it are not checked on a
/// machine without it (users lint on laptops).
pub const DEEPSTREAM_ROOT: &str = "/opt/nvidia/deepstream";

#[derive(Debug)]
pub struct SourceFile {
    /// The path as shown to the user (relative when given relative).
    pub path: PathBuf,
    pub doc: Document,
    pub kind: Option<Kind>,
    pub lines: LineIndex,
    /// Whether the walk found it (as opposed to only being referenced).
    pub walked: bool,
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
    /// Under the DeepStream install root, which this machine lacks.
    Unchecked(PathBuf),
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
    pub fn load(paths: &[PathBuf]) -> Workspace {
        Workspace::load_with(paths, HashMap::new())
    }

    /// Load with some files' texts replaced (by canonical path).
    pub fn load_with(paths: &[PathBuf], overlay: HashMap<PathBuf, String>) -> Workspace {
        let mut ws = Workspace {
            overlay,
            roots: paths.to_vec(),
            ..Workspace::default()
        };
        for root in paths {
            if !root.exists() && root.symlink_metadata().is_err() {
                ws.missing_args.push(root.clone());
                continue;
            }
            if root.is_file() || !root.is_dir() {
                ws.read_file(root, true, true);
                continue;
            }
            let mut found = Vec::new();
            let walker = ignore::WalkBuilder::new(root)
                .follow_links(true)
                .require_git(false)
                .build();
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
                        ws.file_problems.push((path, Rule::UnreadableFile, msg));
                    }
                }
            }
            found.sort();
            ws.read_files(&found, false);
        }
        ws
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
        let loaded = load_one(path, self.overlay.get(&key).cloned(), walked, explicit);
        self.insert(path, key, loaded)
    }

    /// Read many files at once (in parallel), keeping their order.
    fn read_files(&mut self, paths: &[PathBuf], explicit: bool) {
        use rayon::prelude::*;
        let loaded: Vec<(PathBuf, Loaded)> = paths
            .par_iter()
            .map(|p| {
                let key = canonical(p);
                let text = self.overlay.get(&key).cloned();
                (key, load_one(p, text, true, explicit))
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
    /// URIs too).
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
        if full.starts_with(DEEPSTREAM_ROOT) && !Path::new(DEEPSTREAM_ROOT).exists() {
            return Some(Target::Unchecked(full));
        }
        Some(if full.exists() {
            Target::Exists(full)
        } else {
            Target::Missing(full)
        })
    }

    /// Load a referenced config (not walked) and return its id.
    pub fn load_reference(&mut self, from: FileId, raw: &str) -> Option<FileId> {
        match self.resolve(from, raw)? {
            Target::Exists(p) if p.is_file() => self.read_file(&p, false, false),
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
/// parallel.
fn load_one(path: &Path, overlay: Option<String>, walked: bool, explicit: bool) -> Loaded {
    if let Some(text) = overlay {
        return parse_text(path, text, walked);
    }
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => return Loaded::Problem(format!("cannot read: {e}; skipped")),
    };
    if meta.len() > MAX_FILE_BYTES {
        return Loaded::Problem(format!(
            "file is {} bytes, over the {} byte limit; skipped",
            meta.len(),
            MAX_FILE_BYTES
        ));
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Loaded::Problem(format!("cannot read: {e}; skipped")),
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
        Ok(text) => parse_text(path, text, walked),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            Loaded::Problem(format!("file is not UTF-8 (invalid byte at offset {at}); skipped"))
        }
    }
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
