//! Loading files: walking directories (respecting `.gitignore`), reading
//! bytes defensively (DS005), choosing a syntax and a kind, and following the
//! references between configs — all bounded by the project root: a path
//! that leaves it (`..`, an absolute path, a symlink) is not read unless
//! `--follow-outside`, and then its file is marked `outside` (never written,
//! its content never shown).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

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
    /// 1-based line and byte column of a byte offset.
    pub fn byte_position(&self, offset: usize) -> (usize, usize) {
        self.lines.byte_position(&self.doc.text, offset)
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
    /// Paths already placed in this run (references are resolved by the
    /// front ends and again by rules): one look at the disk each.
    placed: std::sync::RwLock<HashMap<PathBuf, Place>>,
    /// Files parsed by an earlier load, by key, with whether their text
    /// came from the overlay (`load_reusing`); empty otherwise.
    reuse: std::sync::Mutex<HashMap<PathBuf, (Box<SourceFile>, bool)>>,
}

/// At most this many placements are remembered.
const MAX_PLACED: usize = 1 << 17;

/// A file that was read and is not checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
    /// Named on the command line (rather than found by a walk).
    pub named: bool,
}

/// Extensions a directory walk looks at.
const CANDIDATE_EXTENSIONS: &[&str] = &["txt", "yml", "yaml", "cfg", "conf"];

/// Whether a directory walk looks at this file (by its extension).
pub fn is_candidate(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    CANDIDATE_EXTENSIONS.iter().any(|c| ext.eq_ignore_ascii_case(c))
}

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
        let mut ws = Workspace::default();
        ws.fill(paths, root, overlay);
        ws
    }

    fn fill(&mut self, paths: &[PathBuf], root: Option<ProjectRoot>, overlay: HashMap<PathBuf, String>) {
        self.overlay = overlay;
        self.roots = paths.to_vec();
        self.root = root;
        let ws = self;
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
            ws.walk_and_read(arg);
        }
    }

    fn place(&self, path: &Path) -> Place {
        let Some(root) = &self.root else {
            return Place::Outside;
        };
        if let Some(p) = self.placed.read().ok().and_then(|m| m.get(path).cloned()) {
            return p;
        }
        let place = root.place(path);
        if let Ok(mut m) = self.placed.write() {
            if m.len() < MAX_PLACED {
                m.insert(path.to_path_buf(), place.clone());
            }
        }
        place
    }

    fn follow_outside(&self) -> bool {
        self.root.as_ref().is_some_and(|r| r.follow_outside)
    }

    /// The candidate files under a folder, read and parsed on the walk's
    /// threads, in path order.
    fn walk_and_read(&mut self, top: &Path) {
        let Some(root) = self.root.clone() else {
            return;
        };
        let this = &*self;
        let visit = |l: crate::files::walk::Listed| {
            // A listed file that is no link is where its folder is: no look
            // at it before it is opened.
            let (key, place) = if l.link {
                this.identify(l.path)
            } else {
                match root.place_listed(l.path) {
                    Place::Inside(real) => (real.clone(), Place::Inside(real)),
                    _ => this.identify(l.path),
                }
            };
            let listed = !l.link && matches!(place, Place::Inside(_));
            let loaded = this.load_placed(
                l.path,
                &key,
                place,
                Reading {
                    walked: true,
                    explicit: false,
                    listed,
                },
            );
            (key, loaded)
        };
        let walked = crate::files::walk::walk(&root, top, rayon::current_num_threads(), &is_candidate, &visit);
        for (path, msg) in walked.problems {
            self.file_problems.push((path, Rule::UnreadableFile, msg));
        }
        for (path, (key, loaded)) in walked.files {
            if let Some(&id) = self.by_path.get(&key) {
                self.files[id].walked = true;
            } else {
                self.insert(&path, key, loaded);
            }
        }
    }

    /// Where a path is and the key that names its file: the real path when
    /// it is inside the root (the placement resolved every link), else the
    /// canonical path.
    fn identify(&self, path: &Path) -> (PathBuf, Place) {
        let place = self.place(path);
        let key = match &place {
            Place::Inside(real) => real.clone(),
            _ => canonical(path),
        };
        (key, place)
    }

    pub fn get(&self, path: &Path) -> Option<FileId> {
        self.by_path.get(&self.identify(path).0).copied()
    }

    /// Read, check and parse one file. Returns its id when it is a text file
    /// dslint can read (whether or not it is a DeepStream config).
    pub fn read_file(&mut self, path: &Path, walked: bool, explicit: bool) -> Option<FileId> {
        let (key, place) = self.identify(path);
        if let Some(&id) = self.by_path.get(&key) {
            self.files[id].walked |= walked;
            return Some(id);
        }
        let loaded = self.load_placed(path, &key, place, Reading::new(walked, explicit));
        self.insert(path, key, loaded)
    }

    /// Read a placed path (or say why not).
    fn load_placed(&self, path: &Path, key: &Path, place: Place, how: Reading) -> Loaded {
        let (real, outside) = match place {
            Place::Inside(real) => (real, false),
            Place::Missing(_) => return Loaded::Problem("cannot read: no such file; skipped".into()),
            Place::Outside if self.follow_outside() => (path.to_path_buf(), true),
            Place::Outside => {
                return Loaded::Problem(
                    "leads outside the project root; not read (--root or --follow-outside to read it)".into(),
                );
            }
        };
        let text = self.overlay.get(key);
        let loaded = match self.take_reusable(key, text) {
            Some(mut f) => {
                f.path = path.to_path_buf();
                f.walked = how.walked;
                Loaded::File(f)
            }
            None => load_one(&real, path, text.cloned(), how),
        };
        match loaded {
            Loaded::File(mut f) => {
                f.outside = outside;
                Loaded::File(f)
            }
            other => other,
        }
    }

    /// A file an earlier load parsed, if its text is still the one it
    /// would read now: the same overlay text, or no overlay then and now
    /// (the disk is read once a run).
    fn take_reusable(&self, key: &Path, overlay: Option<&String>) -> Option<Box<SourceFile>> {
        let mut reuse = self.reuse.lock().ok()?;
        let (f, had_overlay) = reuse.remove(key)?;
        match overlay {
            Some(t) if *t == f.doc.text => Some(f),
            None if !had_overlay => Some(f),
            _ => None,
        }
    }

    /// Load `paths` again after `previous` (a `fix` pass): the files whose
    /// text did not change since are taken from it, not read and parsed
    /// again, by this load and by the loads of references and context that
    /// follow until `drop_reusable`. What comes out is what `load_in` would
    /// make.
    pub fn load_reusing(
        paths: &[PathBuf],
        root: Option<ProjectRoot>,
        overlay: HashMap<PathBuf, String>,
        previous: Workspace,
    ) -> Workspace {
        let mut keys: Vec<Option<PathBuf>> = vec![None; previous.files.len()];
        for (key, &id) in &previous.by_path {
            keys[id] = Some(key.clone());
        }
        let reuse = previous
            .files
            .into_iter()
            .zip(keys)
            .filter_map(|(f, key)| {
                let key = key?;
                let had_overlay = previous.overlay.contains_key(&key);
                Some((key, (Box::new(f), had_overlay)))
            })
            .collect();
        let mut ws = Workspace {
            reuse: std::sync::Mutex::new(reuse),
            // Where paths land does not change within a run.
            placed: previous.placed,
            ..Workspace::default()
        };
        ws.fill(paths, root, overlay);
        ws
    }

    /// Let go of what `load_reusing` kept and no load asked for (the files
    /// of the last pass that are not loaded any more).
    pub fn drop_reusable(&mut self) {
        self.reuse = std::sync::Mutex::default();
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
            Target::Exists(p) => {
                // Already loaded (the common case: the walk read it): no
                // more look at the disk.
                let (key, place) = self.identify(&p);
                if let Some(&id) = self.by_path.get(&key) {
                    return Some(id);
                }
                if !p.is_file() {
                    return None;
                }
                let loaded = self.load_placed(&p, &key, place, Reading::new(false, false));
                self.insert(&p, key, loaded)
            }
            Target::Outside(p) if self.follow_outside() && !self.files[from].outside => {
                let key = canonical(&p);
                if let Some(&id) = self.by_path.get(&key) {
                    return Some(id);
                }
                // Whether it could be read stays unsaid (no DS005 for it).
                match self.load_placed(&p, &key, Place::Outside, Reading::new(false, false)) {
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

/// What a walk found: the candidate files, and the paths it could not walk
/// (with why).
pub struct Walked {
    pub files: Vec<PathBuf>,
    pub problems: Vec<(PathBuf, String)>,
}

/// The candidate files under a folder (by extension, respecting
/// `.gitignore`, with the guarantees of `files::walk`), sorted, without
/// reading them.
pub fn walk_candidates(root: &ProjectRoot, top: &Path) -> Walked {
    let walked = crate::files::walk::walk(root, top, rayon::current_num_threads(), &is_candidate, &|_| ());
    Walked {
        files: walked.files.into_iter().map(|(p, ())| p).collect(),
        problems: walked.problems,
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

/// How a file is read.
#[derive(Clone, Copy)]
struct Reading {
    /// Found by the walk (rather than only referenced).
    walked: bool,
    /// Named on the command line: an empty file is a problem, not a skip.
    explicit: bool,
    /// A walk's entry its folder listed as a regular file, no link.
    listed: bool,
}

impl Reading {
    fn new(walked: bool, explicit: bool) -> Reading {
        Reading {
            walked,
            explicit,
            listed: false,
        }
    }
}

/// Read, check and parse one file; no shared state, so files load in
/// parallel. `real` is where the bytes are read from, `shown` the path as
/// the user sees it.
fn load_one(real: &Path, shown: &Path, overlay: Option<String>, how: Reading) -> Loaded {
    let Reading {
        walked,
        explicit,
        listed,
    } = how;
    if let Some(text) = overlay {
        return parse_text(shown, text, walked);
    }
    let read = if listed {
        read::read_listed(real, MAX_FILE_BYTES)
    } else {
        read::read_regular(real, MAX_FILE_BYTES)
    };
    let bytes = match read {
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
