//! Loading files: walking directories (respecting `.gitignore`), reading
//! bytes defensively (DS005), choosing a syntax and a kind, and following the
//! references between configs — all bounded by the project root: a path
//! that leaves it (`..`, an absolute path, a symlink) is not read unless
//! `--follow-outside`, and then its file is marked `outside` (never written,
//! its content never shown).

use std::collections::{HashMap, HashSet};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::base::FileId;
use crate::base::key::Key;
use crate::base::rule::Rule;
use crate::files::read::{self, ReadError};
use crate::files::root::{Place, ProjectRoot};
use crate::model::detect::{self, Kind, SkipReason, Verdict};
use crate::model::memo::PathMemo;
use crate::syntax::mounts::{Base, Mount};
use crate::syntax::{Document, Format, LineIndex, SyntaxError};

pub use crate::files::read::MAX_FILE_BYTES;

/// A file's new text for [`Workspace::replace_texts`]: to be parsed, or
/// parsed already (its document and line index; boxed: a text is moved
/// far more often than a parse).
pub enum NewText {
    Text(String),
    Parsed(Box<(Document, LineIndex)>),
}

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
    /// Bytes that are not UTF-8 sat in comment lines (which GLib does not
    /// check) and were read as `?`, one for one: the file is linted, but
    /// never rewritten, since writing it back would change those bytes.
    pub lossy: bool,
    /// The reader refuses the file (a syntax error, DS001): nothing else
    /// about it is true, so its groups are emptied after classification.
    pub refused: bool,
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

    /// Move the file's text, line starts and path to new allocations
    /// made on this thread.
    fn reallocate_text(&mut self) {
        self.doc.text = self.doc.text.as_str().to_owned();
        self.lines = self.lines.clone();
        self.path = self.path.clone();
    }

    /// Drop the document's parse ([`Document::drop_parse`]) and move what
    /// stays (text, line starts, path) to new allocations made on this
    /// thread. A file's text and parse were allocated together, on the
    /// walk's threads, in the same pages: with the text left in place, the
    /// parse's pages stayed in use after it was freed (a 10k-file check
    /// gave back almost none of its parses' ~30 MiB before the findings'
    /// join asked for more), where moved they are given back whole.
    pub fn drop_parse_compacting(&mut self) {
        self.doc.drop_parse();
        self.reallocate_text();
    }
}

/// Files a task of [`Workspace::drop_parses_early`] drops at most (a
/// small file's parse drops in about a microsecond): tasks small enough
/// for both threads to share a chunk's files.
const DROPS_A_TASK: usize = 16;

/// The items of `items` at `ids` (sorted, distinct, each in range), each
/// borrowed alone.
fn disjoint_mut<'a, T>(items: &'a mut [T], ids: &[usize]) -> Vec<&'a mut T> {
    let mut out = Vec::with_capacity(ids.len());
    let mut rest = items;
    let mut start = 0;
    for &id in ids {
        let Some((item, after)) = std::mem::take(&mut rest)
            .get_mut(id - start..)
            .and_then(<[T]>::split_first_mut)
        else {
            break;
        };
        out.push(item);
        rest = after;
        start = id + 1;
    }
    out
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

/// Texts a load reads instead of the disk's, by canonical path (hashed as
/// bytes). Each is shared: the fix loop keeps the same texts in its own
/// overlay and hands them on as its outcome, so a changed text is not
/// held once more here (nor copied each pass).
pub type OverlayTexts = HashMap<Key, Arc<String>, foldhash::fast::RandomState>;

#[derive(Debug, Default)]
pub struct Workspace {
    pub files: Vec<SourceFile>,
    by_path: KeyMap<FileId>,
    /// Files a skipped reader loads as fragments of its own config
    /// (deepstream-parallel-infer's `cfg-file-path`): canonical path → the
    /// place that references it.
    fragments: HashMap<PathBuf, String>,
    /// Problems that belong to no parsed file (unreadable, too large, …),
    /// reported with the path and no position.
    pub file_problems: Vec<(PathBuf, Rule, String)>,
    /// The keys of the files in `file_problems`: one file is one problem,
    /// however many references spell its path (`./mux.txt`, `mux.txt`).
    problem_keys: HashSet<PathBuf>,
    /// A path argument that does not exist: a usage error (exit 2).
    pub missing_args: Vec<PathBuf>,
    /// Files read and set aside as not DeepStream configs, with why
    /// (`--show-files`, and a notice for a file named on the command line).
    pub skipped: Vec<Skipped>,
    /// The lookups on `skipped` (see [`SkippedIndex`]).
    skipped_index: SkippedIndex,
    /// Texts to use instead of the disk's (the fix loop's later passes),
    /// keyed by canonical path (hashed as bytes: the fix loop compares it
    /// with its own overlay, thousands of paths, each pass). Shared with
    /// the fix loop's own overlay, not copied (`OverlayTexts`).
    pub overlay: OverlayTexts,
    /// The paths given on the command line.
    pub roots: Vec<PathBuf>,
    /// The project root; `None` (a workspace built in memory) reads nothing
    /// from disk through references.
    pub root: Option<ProjectRoot>,
    /// Paths already placed in this run (references are resolved by the
    /// front ends and again by rules): one look at the disk each.
    placed: std::sync::RwLock<Placements>,
    /// Folders found missing in this run, for the placings of paths named
    /// in them (`ProjectRoot::place_remembering_missing`).
    missing_dirs: crate::files::root::MissingDirs,
    /// Documents parsed by an earlier load, by key (`load_reusing`); empty
    /// otherwise.
    reuse: std::sync::Mutex<KeyMap<Reusable>>,
    /// Files whose kind a reference changed since `take_rekinded` (the
    /// graph's building tells which pipelines built ahead are still good).
    rekinded: Vec<FileId>,
    /// The key names the project's own C/C++ readers read
    /// (`reader_keys`), found the first time a rule asks.
    reader_keys: std::sync::OnceLock<ReaderKeys>,
    /// The project's Python modules that name, quoted, a key a release
    /// stopped reading in a test app's `[tracker]` file
    /// (`python_tracker_key_modules`), found the first time a rule asks.
    /// Not carried into a later pass of `fix`: a fix may edit a Python
    /// module (its lines move), so it is walked again if asked.
    python_tracker_keys: std::sync::OnceLock<Vec<PythonKeyModule>>,
    /// What the project's Dockerfiles and Containerfiles copy into an
    /// image, and its scripts and Compose files bind-mount into a container
    /// (`unknown_in_container`), found the first time a path is missing.
    container_copies: std::sync::OnceLock<Containers>,
    /// What the project's own `.gitignore` files exclude
    /// (`git_ignored`), read the first time a path is missing.
    git_ignores: std::sync::OnceLock<crate::files::walk::GitIgnores>,
    /// `git_ignored`'s answers by the path asked (at most
    /// [`PATH_MEMO_MAX`]): DS202, DS206 and DS207 each ask it of an
    /// nvinfer's one missing engine (`rules::nvinfer::engine_usable`), and
    /// placing the path and matching it three times over was +4.4% of the
    /// 10k bench tree's instructions. Not carried into a later pass of
    /// `fix` (it is rebuilt with the workspace), though nothing a fix edits
    /// changes an answer.
    git_ignored_memo: PathMemo<bool, PATH_MEMO_MAX>,
    /// `model_has_qdq_nodes`' answers by the model's path: every nvinfer
    /// naming one model would read it to its end again (bounded by
    /// [`crate::model::onnx`]'s cap, but once a model is enough).
    qdq_memo: PathMemo<Option<bool>, PATH_MEMO_MAX>,
    /// What the containers are given of each file, by id, found the first
    /// time one of its paths is missing (`unknown_in_container`): a file
    /// names many paths, and most files are in no container. Sized to the
    /// files there are at the first ask; a file loaded later is judged
    /// each time. Not carried to a rebuilt workspace (ids change).
    in_container: std::sync::OnceLock<Box<[std::sync::OnceLock<InContainer>]>>,
    /// A folder whose walk its ignore files stopped (over their bounds:
    /// `files::walk::over_notice`), the first one: the run checked less
    /// than it was asked to, which fails it (`walk_stopped`).
    walk_stopped: std::sync::OnceLock<PathBuf>,
    /// The files whose parse a check dropped while the graph was still
    /// being built ([`Workspace::drop_parses_early`]), by id; empty when
    /// none was.
    parse_gone: Vec<bool>,
    /// A look-up by path found a file whose parse is gone
    /// ([`Workspace::touched_gone`]).
    found_gone: std::sync::atomic::AtomicBool,
}

/// The key and group names the project's own readers read
/// (`Workspace::reader_keys`).
#[derive(Debug, Default)]
pub struct ReaderKeys {
    keys: HashSet<String>,
    /// Names NVIDIA's readers read somewhere, defined by a project source
    /// for a group of its own choosing (`#define
    /// CONFIG_GROUP_DSEXAMPLE_CAMERA_ID "camera-id"`): the define's group
    /// (`syntax::c_keys::group_defines`) by key.
    grouped: HashMap<String, HashSet<String>>,
    /// The `[property]` keys whose nvinfer enumeration a project source
    /// extends (`syntax::c_enums::extended_keys`: a fork's new network
    /// type).
    extended_enums: HashSet<&'static str>,
    /// The walk for them was stopped (`Workspace::walk_stopped`): any name
    /// may be one.
    unknown: bool,
}

impl ReaderKeys {
    /// Whether a reader of the project may read this key or group.
    pub fn contains(&self, name: &str) -> bool {
        self.unknown || self.keys.contains(name)
    }

    /// Whether a source of the project was seen to read `key` (in `group`,
    /// for a name NVIDIA's readers read too: a define that gives it to the
    /// group, as a vendored copy of an older parser does): not just "may",
    /// so a walk that stopped gives no name.
    pub fn names(&self, group: &str, key: &str) -> bool {
        self.keys.contains(key)
            || self.grouped.get(key).is_some_and(|groups| {
                crate::syntax::c_keys::define_groups_for(group)
                    .iter()
                    .any(|g| groups.contains(g))
            })
    }

    /// Take in what one source gives (`scan_reader_source`).
    fn add(&mut self, source: SourceKeys) {
        self.unknown |= source.unread;
        self.keys.extend(source.keys);
        for (group, key) in source.grouped {
            self.grouped.entry(key).or_default().insert(group);
        }
        self.extended_enums.extend(source.extended_enums);
    }

    /// Whether a reader of the project may take values of nvinfer's `key`
    /// (`network-type`, `network-mode`) that NVIDIA's parser refuses: a
    /// project source names a member of its enumeration that DeepStream
    /// 9.1 lacks (a fork's `NvDsInferNetworkType_FaceDetection`), or the
    /// sources were not all read.
    pub fn extends_enum(&self, key: &str) -> bool {
        self.unknown || self.extended_enums.contains(key)
    }

    /// Whether a reader of the project reads `key` in `group` by a define
    /// that names that group (`CONFIG_GROUP_DSEXAMPLE_CAMERA_ID` for
    /// `camera-id` in `[ds-example]`), though NVIDIA's readers read the
    /// name elsewhere only. A vendored copy of NVIDIA's parser names each
    /// key only for the groups NVIDIA reads it in, so it answers no for a
    /// key in a group that does not read it.
    pub fn reads_in_group(&self, group: &str, key: &str) -> bool {
        self.unknown
            || self.grouped.get(key).is_some_and(|groups| {
                crate::syntax::c_keys::define_groups_for(group)
                    .iter()
                    .any(|g| groups.contains(g))
            })
    }
}

/// A Python module of the project that names a removed tracker key
/// (`Workspace::python_tracker_key_modules`).
#[derive(Debug)]
pub struct PythonKeyModule {
    /// Below the project root (as the walk lists it where it is not).
    pub path: PathBuf,
    pub text: String,
}

/// Lookups on `Workspace::skipped`, which held a list scan each: "is this
/// path listed?" for every skipped file and "did the walk skip this file?"
/// (with a canonicalize of every entry) for every reference a front end
/// follows, quadratic in a tree of many skipped files.
#[derive(Debug, Default)]
struct SkippedIndex {
    /// The canonical key of each entry of `skipped`, in its order.
    keys: Vec<PathBuf>,
    /// Canonical key → position in `skipped`.
    by_key: KeyMap<usize>,
    /// The paths listed.
    paths: HashSet<PathBuf, foldhash::fast::RandomState>,
    /// Positions a reference took back (the file is read as a config now):
    /// dropped from `skipped` at the end of the graph's building
    /// (`Workspace::drop_taken_back`), so that positions hold until then.
    taken_back: Vec<usize>,
}

/// The maps a run keeps by file key, looked up for every file and
/// reference: hashed with foldhash, not SipHash (see the README's
/// dependency list: the keys are paths from the disk and the configs, and
/// each map is bounded by the files read), and by the key's bytes
/// ([`key_bytes`]), not its components: hashing a `Path` parses them (~10
/// instructions a byte; the walk's files are put in on one thread). A key
/// is a real or canonical path (`identify`, `canonical`), in `normalize`'s
/// form: one file has one spelling, so its bytes name it as its
/// components do.
type KeyMap<V> = HashMap<Vec<u8>, V, foldhash::fast::RandomState>;

/// A file key's bytes, as [`KeyMap`] holds and looks them up.
fn key_bytes(key: &Path) -> &[u8] {
    key.as_os_str().as_bytes()
}

/// A key given back as a path.
fn key_path(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

/// Placements by the bytes of the path placed: a path spelled two ways
/// (`a//b`, `a/b`) is placed twice, to the same place, and a lookup hashes
/// bytes instead of parsing the path's components (what hashing a `Path`
/// does: ~10 instructions a byte, for every reference resolved).
type BytesMap<V> = HashMap<Vec<u8>, V, foldhash::fast::RandomState>;

/// The most answers each path memo of a workspace remembers
/// (`git_ignored`'s: one an nvinfer's missing engine or calibration table,
/// a script's missing path; `model_has_qdq_nodes`': one a model).
const PATH_MEMO_MAX: usize = 1 << 16;

/// At most this many placements of paths no walk listed are remembered,
/// plus [`PLACED_PER_LISTED`] for each file a walk listed (those are
/// remembered too, and are not counted): a tree's references name about as
/// many paths as it has files (models, engines, labels, streams), and past
/// the bound every further look-up of a path placed no more looks at the
/// disk again (a 100k-file bench tree went past a fixed 131,072: ~85k more
/// `lstat`s, each engine placed three times over).
const MAX_PLACED: usize = 1 << 17;

/// See [`MAX_PLACED`].
const PLACED_PER_LISTED: usize = 2;

/// The bytes (path placed and real path) the placements of paths no walk
/// listed may hold, for each one [`MAX_PLACED`] and [`PLACED_PER_LISTED`]
/// allow: a real path can be far longer than the path placed (a link to a
/// folder 4 KiB deep, `L/m0/v.mp4`), and a count alone let 80,000 such
/// references of 12 bytes each hold ~300 MiB of real paths.
const PLACED_BYTES_EACH: usize = 256;

/// The placements remembered (`Workspace::place`), by the bytes of the
/// path placed ([`BytesMap`]). Most real paths are the path placed, byte
/// for byte (a walk's absolute path, a reference resolved from it, where
/// no link is on the way): those are kept as an empty path, which no
/// placement's path is (they are absolute), instead of a second copy of
/// the key.
#[derive(Debug, Default)]
struct Placements {
    map: BytesMap<Place>,
    /// Files the walks listed (each placed from its folder).
    listed: usize,
    /// The bytes of the other placements' paths (placed and real).
    other_bytes: usize,
}

impl Placements {
    fn get(&self, key: &[u8]) -> Option<Place> {
        let same = || PathBuf::from(std::ffi::OsStr::from_bytes(key));
        Some(match self.map.get(key)? {
            Place::Inside(p) if p.as_os_str().is_empty() => Place::Inside(same()),
            Place::Missing(p) if p.as_os_str().is_empty() => Place::Missing(same()),
            p => p.clone(),
        })
    }

    fn verdict(&self, key: &[u8]) -> Option<Landing> {
        Some(match self.map.get(key)? {
            Place::Inside(_) => Landing::Inside,
            Place::Missing(_) => Landing::Missing,
            Place::Outside => Landing::Outside,
        })
    }

    /// Remember `place` for `key`; a file a walk listed always, any
    /// other path within the bound ([`MAX_PLACED`]).
    fn insert(&mut self, key: Vec<u8>, place: Place, listed: bool) {
        let others = MAX_PLACED + PLACED_PER_LISTED * self.listed;
        if !listed && self.map.len().saturating_sub(self.listed) >= others {
            return;
        }
        let place = match place {
            Place::Inside(p) if p.as_os_str().as_bytes() == key.as_slice() => Place::Inside(PathBuf::new()),
            Place::Missing(p) if p.as_os_str().as_bytes() == key.as_slice() => Place::Missing(PathBuf::new()),
            p => p,
        };
        if !listed {
            let bytes = key.len()
                + match &place {
                    Place::Inside(p) | Place::Missing(p) => p.as_os_str().len(),
                    Place::Outside => 0,
                };
            if self.other_bytes + bytes > others * PLACED_BYTES_EACH {
                return;
            }
            self.other_bytes += bytes;
        }
        if self.map.insert(key, place).is_none() && listed {
            self.listed += 1;
        }
    }
}

/// A document an earlier load parsed, and whether its text came from the
/// overlay.
#[derive(Debug)]
struct Reusable {
    doc: Document,
    lines: LineIndex,
    lossy: bool,
    had_overlay: bool,
}

/// A file that was read and is not checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    /// Why, in words.
    pub reason: String,
    /// Why, machine-readable (Precision 1: a file no modelled reader
    /// claims with confidence is skipped, never linted as the closest guess).
    pub code: SkipReason,
    /// Named on the command line (rather than found by a walk).
    pub named: bool,
}

/// Extensions a directory walk looks at.
const CANDIDATE_EXTENSIONS: &[&str] = &["txt", "yml", "yaml", "cfg", "conf", "pbtxt", "sh", "bash", "py"];

/// Whether a directory walk looks at this file (by its extension).
pub fn is_candidate(path: &Path) -> bool {
    let ext = crate::files::extension(path).and_then(|e| e.to_str()).unwrap_or("");
    CANDIDATE_EXTENSIONS.iter().any(|c| ext.eq_ignore_ascii_case(c))
}

/// Whether a path (or any value) holds a template placeholder that
/// something renders before DeepStream reads the file: Jinja's
/// `{{ name }}`, a `sed` script's `@@NAME@@`, envsubst's (or a shell
/// heredoc's) `${NAME}`, and envsubst's other form, `$NAME`, anywhere
/// (`camera-v4l2-dev-node=$VIDEO_DEVICE`, `$MODEL_DIR/detector.onnx`,
/// rendered by `envsubst < app.txt > app_fixed.txt` before deepstream-app
/// reads it: envsubst(1) replaces "references to environment variables of
/// the form $VARIABLE or ${VARIABLE}" alike). DeepStream's readers expand none of them
/// (`get_absolute_file_path` only joins a relative path to the config's
/// folder; GLib's `g_key_file_get_integer` reads the bytes as written), so
/// the file is a template and what DeepStream will read is unknown.
pub fn templated(raw: &str) -> bool {
    let word = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    // Every placeholder holds a `{`, an `@` or a `$`: all are looked for in
    // one `memchr3` scan of the bytes (ASCII: a byte equal to one is that
    // char), so a plain path (`Workspace::resolve`'s hot path) costs one
    // scan. (A `[char]` pattern decodes one char at a time.)
    if memchr::memchr3(b'{', b'@', b'$', raw.as_bytes()).is_none() {
        return false;
    }
    // envsubst's `$NAME`, anywhere (`$VIDEO_DEVICE`, `$MODEL_DIR/x.onnx`,
    // `models/$ARCH/x.engine`): a `$` before a letter or `_`.
    if raw
        .split('$')
        .skip(1)
        .any(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    {
        return true;
    }
    let jinja = raw.find("{{").is_some_and(|i| raw[i..].contains("}}"));
    // The pieces between two `@@`: `model-engine-file=@@ENGINE@@`.
    let marks = raw.matches("@@").count();
    let at_at = marks >= 2 && raw.split("@@").skip(1).take(marks - 1).any(word);
    // `${NAME}` and `${NAME:-default}`.
    let dollar = raw.split("${").skip(1).any(|rest| {
        rest.find('}')
            .is_some_and(|j| word(rest[..j].split(':').next().unwrap_or("")))
    });
    jinja || at_at || dollar
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
        let overlay = overlay.into_iter().map(|(k, t)| (Key::new(k), Arc::new(t))).collect();
        Workspace::load_shared(paths, root, overlay)
    }

    /// `load_in` with texts the caller keeps too (the fix loop's overlay).
    pub fn load_shared(paths: &[PathBuf], root: Option<ProjectRoot>, overlay: OverlayTexts) -> Workspace {
        let mut ws = Workspace::default();
        ws.fill(paths, root, overlay);
        ws
    }

    /// Load `paths` again after `previous` (a `fix` pass): the documents
    /// whose text did not change since are taken from it, not read and
    /// parsed again, by this load and by the loads of references and
    /// context that follow until `drop_reusable`. What comes out is what
    /// `load_in` would make: each file is classified again.
    pub fn load_reusing(
        paths: &[PathBuf],
        root: Option<ProjectRoot>,
        overlay: OverlayTexts,
        previous: Workspace,
    ) -> Workspace {
        let mut keys: Vec<Option<Vec<u8>>> = vec![None; previous.files.len()];
        for (key, &id) in &previous.by_path {
            keys[id] = Some(key.clone());
        }
        let reuse = previous
            .files
            .into_iter()
            .zip(keys)
            .filter_map(|(f, key)| {
                // A refused file's groups were dropped: it is parsed again.
                let key = key.filter(|_| !f.refused)?;
                let had_overlay = previous.overlay.contains_key(&key[..]);
                let r = Reusable {
                    doc: f.doc,
                    lines: f.lines,
                    lossy: f.lossy,
                    had_overlay,
                };
                Some((key, r))
            })
            .collect();
        let mut ws = Workspace {
            reuse: std::sync::Mutex::new(reuse),
            // Where paths land does not change within a run, nor the
            // project's C sources (a fix edits configs only).
            placed: previous.placed,
            missing_dirs: previous.missing_dirs,
            reader_keys: previous.reader_keys,
            container_copies: previous.container_copies,
            git_ignores: previous.git_ignores,
            walk_stopped: previous.walk_stopped,
            ..Workspace::default()
        };
        ws.fill(paths, root, overlay);
        ws
    }

    /// Give loaded files other texts (a `fix` pass's edits), parsed (in
    /// parallel) as a load parses them, their kinds kept; the documents
    /// and line indexes they had, in the same order (`fix` keeps them, to
    /// take them back when a file goes back to an earlier text). `None`, no file touched, where a load
    /// could make something else of one: the kind its new text has by
    /// content is not `loaded_kinds`' (each file's kind as loaded, before
    /// references gave it another), the format changes, the reader refuses
    /// it, or the file is one a load treats apart (outside the root, read
    /// lossily, refused, a deepstream-parallel-infer config, whose
    /// fragments its text names). Then only a new load says what it is.
    ///
    /// A new text may come already parsed (`NewText::Parsed`: `fix`
    /// patched the values of the document it had, `fix::patch`): it is
    /// classified as a parse of it would be.
    pub fn replace_texts(
        &mut self,
        edits: Vec<(FileId, NewText)>,
        loaded_kinds: &[Option<Kind>],
    ) -> Option<Vec<(FileId, Document, LineIndex)>> {
        use rayon::prelude::*;
        let files = &self.files;
        let parsed: Vec<Option<(FileId, Box<SourceFile>)>> = edits
            .into_par_iter()
            .map(|(id, text)| {
                let f = &files[id];
                if f.outside || f.lossy || f.refused || f.kind == Some(Kind::ParallelApp) {
                    return None;
                }
                let loaded = match text {
                    NewText::Text(text) => parse_text(&f.path, text, f.walked, None),
                    // As `parse_text`, the format detected from the text.
                    NewText::Parsed(parsed) => {
                        let (doc, lines) = *parsed;
                        if detect::format_for(&f.path, &doc.text) != Some(doc.format) {
                            return None;
                        }
                        classify_parsed(&f.path, doc, Some(lines), f.walked, None)
                    }
                };
                let Loaded::File(new) = loaded else {
                    return None;
                };
                let same = !new.refused && Some(&new.kind) == loaded_kinds.get(id) && new.doc.format == f.doc.format;
                same.then_some((id, new))
            })
            .collect();
        let parsed: Vec<(FileId, Box<SourceFile>)> = parsed.into_iter().collect::<Option<_>>()?;
        Some(
            parsed
                .into_iter()
                .map(|(id, new)| {
                    let new = *new;
                    let f = &mut self.files[id];
                    let lines = std::mem::replace(&mut f.lines, new.lines);
                    (id, std::mem::replace(&mut f.doc, new.doc), lines)
                })
                .collect(),
        )
    }

    /// Let go of what `load_reusing` kept and no load asked for.
    pub fn drop_reusable(&mut self) {
        self.reuse = std::sync::Mutex::default();
    }

    fn fill(&mut self, paths: &[PathBuf], root: Option<ProjectRoot>, overlay: OverlayTexts) {
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
        ws.classify_by_reference();
    }

    /// A reference from a loading config beats content (Precision 1): a
    /// file that deepstream-parallel-infer reads as a fragment of its own
    /// config is that app's, whatever it looks like (its `secondary-gieN.yml`
    /// reuses deepstream-app group names).
    fn classify_by_reference(&mut self) {
        if self.fragments.is_empty() {
            return;
        }
        for s in &mut self.skipped {
            // A main config (by content) stays one, whatever names it.
            if s.code == SkipReason::ParallelInferenceApp {
                continue;
            }
            if let Some(from) = self.fragments.get(&canonical(&s.path)) {
                s.code = SkipReason::ParallelInferenceFragment;
                s.reason = format!("read by deepstream-parallel-infer's own parser ({from})");
            }
        }
        let files = std::mem::take(&mut self.files);
        self.by_path.clear();
        for f in files {
            let key = canonical(&f.path);
            // A deepstream-parallel-infer main config by content is never
            // demoted by a `cfg-file-path` naming it (its own, or another's):
            // the app reads it as its main config when started with it.
            let fragment = self.fragments.get(&key).filter(|_| f.kind != Some(Kind::ParallelApp));
            match fragment {
                Some(from) => {
                    let skipped = Skipped {
                        named: self.roots.contains(&f.path),
                        path: f.path,
                        reason: format!("read by deepstream-parallel-infer's own parser ({from})"),
                        code: SkipReason::ParallelInferenceFragment,
                    };
                    self.push_skipped(key, skipped);
                }
                None => {
                    self.by_path.insert(key.into_os_string().into_vec(), self.files.len());
                    self.files.push(f);
                }
            }
        }
    }

    fn place(&self, path: &Path) -> Place {
        let Some(root) = &self.root else {
            return Place::Outside;
        };
        if let Some(p) = self.placed.read().ok().and_then(|m| m.get(path.as_os_str().as_bytes())) {
            return p;
        }
        let place = root.place_remembering_missing(path, &self.missing_dirs);
        self.remember_place(path.to_path_buf(), place.clone(), false);
        place
    }

    /// `place`'s verdict without its path: a path placed before costs a
    /// lookup, not a copy of the real path (`resolve` keeps the path it
    /// was given).
    fn place_verdict(&self, path: &Path) -> Landing {
        if self.root.is_none() {
            return Landing::Outside;
        }
        if let Some(v) = self
            .placed
            .read()
            .ok()
            .and_then(|m| m.verdict(path.as_os_str().as_bytes()))
        {
            return v;
        }
        match self.place(path) {
            Place::Inside(_) => Landing::Inside,
            Place::Missing(_) => Landing::Missing,
            Place::Outside => Landing::Outside,
        }
    }

    /// Remember where `path` landed; `listed`: a file a walk listed
    /// ([`Placements::insert`]).
    fn remember_place(&self, path: PathBuf, place: Place, listed: bool) {
        if let Ok(mut m) = self.placed.write() {
            m.insert(path.into_os_string().into_vec(), place, listed);
        }
    }

    /// The key and group names a reader the project ships reads and none
    /// of NVIDIA's does: a fork of deepstream-app's or nvinfer's parser in
    /// C or C++ anywhere under the project root (`syntax::c_keys`). Found by one walk of the root the
    /// first time it is asked (DS002 asks only for a key NVIDIA's readers do
    /// not read), whatever paths were named, so a check of one file and of
    /// the whole tree agree. Each file is read under the size cap, inside
    /// the root (the walk's guarantees); empty without a root.
    pub fn reader_keys(&self) -> &ReaderKeys {
        self.reader_keys.get_or_init(|| {
            let Some(root) = &self.root else {
                return ReaderKeys::default();
            };
            match self.walk_whole_root(root, &crate::syntax::c_keys::is_source, &scan_reader_source) {
                Some(files) => {
                    let mut readers = ReaderKeys::default();
                    for (_, source) in files {
                        readers.add(source);
                    }
                    readers
                }
                // Not walked: any key may be read (the run fails).
                None => ReaderKeys {
                    unknown: true,
                    ..ReaderKeys::default()
                },
            }
        })
    }

    /// The Python modules under the project root that name, in quotes, a
    /// key a release stopped reading in a test app's `[tracker]` file
    /// (`enable-batch-process`, `enable-past-frame`: the tracker table's
    /// keys with an `until`), each with its text: a helper module that
    /// reads a tracker file by the path it is given builds no pipeline, so
    /// it is not among the loaded files. Found by one walk of the root the
    /// first time it is asked (DS002 asks only for such a key that no
    /// loaded module reads), whatever paths were named; each file read
    /// under the size cap, inside the root; a file it cannot read, or a
    /// stopped walk, gives none (the why then names the test apps, as
    /// without the module). Empty without a root.
    pub fn python_tracker_key_modules(&self) -> &[PythonKeyModule] {
        self.python_tracker_keys.get_or_init(|| {
            let Some(root) = &self.root else {
                return Vec::new();
            };
            let quoted: Vec<String> = crate::model::keys::table()
                .iter()
                .filter(|k| k.schema == crate::model::keys::Schema::Tracker && k.until.is_some())
                .flat_map(|k| ['"', '\''].map(|q| format!("{q}{}{q}", k.key)))
                .collect();
            let is_python = |p: &Path| crate::files::extension(p).is_some_and(|e| e.eq_ignore_ascii_case("py"));
            let scan = |l: crate::files::walk::Listed| -> Option<String> {
                let bytes = read_walked(&l).ok()?;
                let text = String::from_utf8(bytes).ok()?;
                quoted.iter().any(|q| text.contains(q.as_str())).then_some(text)
            };
            self.walk_whole_root(root, &is_python, &scan)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|(path, text)| {
                    // Shown from the root: the walk's path is the
                    // canonical root's, not as the user spelled it.
                    let path = path.strip_prefix(root.path()).map_or(path.clone(), Path::to_path_buf);
                    Some(PythonKeyModule { path, text: text? })
                })
                .collect()
        })
    }

    /// The first folder whose walk its ignore files stopped (by this run's
    /// walks, the lazy ones of the whole root included): nothing under it
    /// was walked, so the run is no check of it (an error: exit 2).
    pub fn walk_stopped(&self) -> Option<&Path> {
        self.walk_stopped.get().map(PathBuf::as_path)
    }

    /// Whether the missing `path` that the file `from` names (as written)
    /// may be in the container the file runs in: the file is copied into
    /// an image by a Dockerfile or Containerfile of the project (`COPY` or
    /// `ADD` of it or of a folder holding it, `.` included:
    /// `syntax::dockerfile`), or bind-mounted into a container by a shell
    /// script or Compose file of the project (`docker run -v`, `--mount`,
    /// Compose `volumes:`: `syntax::mounts`) and the path leaves the
    /// mounted folder (or another mount lands inside the mount's target,
    /// or one's target is unknown). It runs from the copy or the mount
    /// target, and such a path resolves in the container's tree, where the
    /// base image (the DeepStream install of an `nvcr.io/nvidia/deepstream`
    /// image), the build's other steps (`RUN cp config/* samples/configs/…`,
    /// a model downloaded) and the container's other mounts put files the
    /// project's tree does not show: whether it exists is unknown. A path
    /// inside the mounted folder is the same file there as in the tree (a
    /// bind mount shows the host's folder as it is). A copy's source is
    /// taken relative to the build context, which is chosen where the image
    /// is built: the nearest folder from the Dockerfile's own up to the root
    /// that holds every source it names ([`container_copies`]); a
    /// `.dockerignore` is not read (what it keeps out of the context is
    /// still counted as copied: a path more counted as unknown, never a
    /// finding). Found by the walk of the whole root, or by one walk of the
    /// root the first time it is asked, whatever paths were named.
    pub fn unknown_in_container(&self, from: FileId, path: &Path) -> bool {
        let c = self.container_copies.get_or_init(|| {
            let Some(root) = &self.root else {
                return Containers::default();
            };
            match self.walk_whole_root(root, &is_container_source, &scan_containerfile) {
                Some(files) => container_copies(root, files),
                // Not walked: any config may be copied (the run fails).
                None => Containers::everything(root),
            }
        });
        if c.copies.is_empty() && c.binds.is_empty() && c.compose.is_empty() {
            return false;
        }
        let judge = || c.judge(&self.identify(&self.files[from].path).0);
        let cached;
        let verdict = match self
            .in_container
            .get_or_init(|| (0..self.files.len()).map(|_| Default::default()).collect())
            .get(from)
        {
            Some(once) => once.get_or_init(judge),
            None => {
                cached = judge();
                &cached
            }
        };
        match verdict {
            InContainer::Copied => true,
            InContainer::Neither => false,
            InContainer::Mounted(m) => {
                // Where the path lands in the tree, from the file's real
                // folder.
                let lands = (!path.is_absolute()).then(|| normalize(&m.dir.join(path)));
                m.sources
                    .iter()
                    .any(|(s, nested)| *nested || lands.as_ref().is_none_or(|l| !l.starts_with(s)))
            }
        }
    }

    /// Whether the project's own `.gitignore` files exclude `path`, a
    /// path found missing (`Target::Missing`): a model the project
    /// downloads or builds and never commits, a library its build makes.
    /// No clone carries such a file, so its absence from the tree says
    /// nothing of the machine that runs the app: unknown (DS704, DS404).
    /// Matched where the path lands (links inside the root followed), with
    /// the `.gitignore` of each folder from the root down to it
    /// ([`crate::files::walk::GitIgnores`]); one that cannot be read leaves
    /// the path unknown too.
    pub fn git_ignored(&self, path: &Path) -> bool {
        let Some(root) = &self.root else {
            return false;
        };
        self.git_ignored_memo.get_or(path, || self.git_ignored_now(root, path))
    }

    /// Whether the ONNX model at `path` (a `Target::Exists`) has Q/DQ
    /// nodes ([`crate::model::onnx::has_qdq_nodes`]), remembered.
    pub fn model_has_qdq_nodes(&self, path: &Path) -> Option<bool> {
        self.qdq_memo.get_or(path, || crate::model::onnx::has_qdq_nodes(path))
    }

    /// [`git_ignored`](Self::git_ignored), asked of the disk.
    fn git_ignored_now(&self, root: &ProjectRoot, path: &Path) -> bool {
        let Place::Missing(real) = self.place(path) else {
            return false;
        };
        self.git_ignores
            .get_or_init(|| crate::files::walk::GitIgnores::new(root))
            .excludes(&real)
    }

    /// The files under the whole root that `wanted` picks, each with what
    /// `visit` made of it on the walk's threads (the lazy scans of the
    /// project's own sources: `reader_keys`, `unknown_in_container`); `None`
    /// when the ignore files stopped the walk (noted: `walk_stopped`).
    fn walk_whole_root<T: Send>(
        &self,
        root: &ProjectRoot,
        wanted: &(dyn Fn(&Path) -> bool + Sync),
        visit: &(dyn Fn(crate::files::walk::Listed) -> T + Sync),
    ) -> Option<Vec<(PathBuf, T)>> {
        let walked = crate::files::walk::walk(root, root.scope(), wanted, visit);
        if walked.stopped {
            let _ = self.walk_stopped.set(root.scope().to_path_buf());
            return None;
        }
        Some(walked.files)
    }

    /// Whether `--follow-outside` lets references read outside the root.
    pub fn follow_outside(&self) -> bool {
        self.root.as_ref().is_some_and(|r| r.follow_outside)
    }

    /// The list of files cut to its length, for a check once everything
    /// is loaded: the walk and the references pushed the files one by one,
    /// and the vector's doubling left up to half of it as room no check
    /// fills.
    ///
    /// The texts and parses are left where the walk made them. Moving
    /// every text, then every parse, to new allocations here (so that the
    /// parses' pages came back whole when they were dropped) cost ~5% of
    /// the 100k bench tree's CPU (fresh pages faulted in, the old ones
    /// given back), and no longer lowered the peak measurably (bench/LOG.md,
    /// check100k14): a parse is now dropped with its text moved
    /// ([`SourceFile::drop_parse_compacting`]), early, a chunk of app
    /// configs at a time, so a walk's page comes back once the files in
    /// it are dropped.
    pub fn trim_files(&mut self) {
        self.files.shrink_to_fit();
    }

    /// The candidate files under a folder, read and parsed on the walk's
    /// threads, in path order.
    ///
    /// What each file needs of this thread alone is only its putting in
    /// (`by_path`, `files`, `skipped`): the rest of a file's work, its
    /// container scan and whether it was named on the command line
    /// included, is done on the walk's threads ([`WalkedFile`]); and what the
    /// project's containers are given of its tree (`container_copies`,
    /// a canonicalize a Dockerfile, script and Compose file) is worked out
    /// on another thread while the files are put in. On one thread it all
    /// ran after the walk while the pool waited: the 10k bench tree's check
    /// spent 40M instructions there, over half of its main thread's, with
    /// 393 Compose files read again and their folders canonicalized.
    fn walk_and_read(&mut self, top: &Path) {
        let Some(root) = self.root.clone() else {
            return;
        };
        let this = &*self;
        // A walk of the whole root also takes the project's own readers'
        // keys (`reader_keys`), so they need no walk of their own.
        let root_walked = std::fs::canonicalize(top).is_ok_and(|t| t == root.scope());
        let whole_root = root_walked && self.reader_keys.get().is_none();
        // And what its Dockerfiles copy, its scripts and Compose files
        // mount (`unknown_in_container`).
        let containers = root_walked && self.container_copies.get().is_none();
        let visit = |l: crate::files::walk::Listed| {
            if whole_root && crate::syntax::c_keys::is_source(l.path) && !is_candidate(l.path) {
                return WalkedFile::bare(Loaded::ReaderKeys(scan_reader_source(l)));
            }
            if containers && is_container_source(l.path) && !is_candidate(l.path) {
                return WalkedFile::bare(Loaded::ContainerSources(scan_containerfile(l)));
            }
            // A listed file that is no link is where its folder is (the
            // walk's real path of it): no look at it before it is opened.
            let (key, place) = if l.link {
                this.identify(l.path)
            } else {
                match l.real().map_or(Place::Outside, Place::Inside) {
                    Place::Inside(real) => {
                        // As a reference will spell it (`resolve` places
                        // normalized paths): its placement is this one.
                        this.remember_place(normalize(l.path), Place::Inside(real.clone()), true);
                        (real.clone(), Place::Inside(real))
                    }
                    _ => this.identify(l.path),
                }
            };
            let listed = !l.link && matches!(place, Place::Inside(_));
            let how = Reading {
                walked: true,
                explicit: false,
                listed,
            };
            let loaded = this.load_placed(l.path, &key, place, how, None);
            // Scripts and Compose files are candidates, read as such: what
            // they mount is read from their text.
            let scan = if containers && is_container_source(l.path) {
                match &loaded {
                    Loaded::File(f) => Some(Box::new(scan_container_text(l.path, &f.doc.text))),
                    // Skipped (read, not kept): read again.
                    Loaded::Skipped(..) if key.starts_with(root.path()) => {
                        Some(Box::new(match crate::files::read::read_regular(&key, MAX_FILE_BYTES) {
                            Ok(bytes) => scan_container_text(l.path, &String::from_utf8_lossy(&bytes)),
                            Err(_) => ContainerScan::Unknown,
                        }))
                    }
                    // Not read (outside the root, too large, unreadable):
                    // what it gives is unknown.
                    _ => Some(Box::new(ContainerScan::Unknown)),
                }
            } else {
                None
            };
            let named = matches!(loaded, Loaded::Skipped(..)) && this.is_named(l.path);
            WalkedFile {
                key,
                loaded,
                scan,
                named,
            }
        };
        let wanted = |p: &Path| {
            is_candidate(p)
                || (whole_root && crate::syntax::c_keys::is_source(p))
                || (containers && is_container_source(p))
        };
        let mut walked = crate::files::walk::walk(&root, top, &wanted, &visit);
        if walked.stopped {
            let _ = self.walk_stopped.set(top.to_path_buf());
        }
        // What the listings said of each folder's `.gitignore`, for
        // `git_ignored` (its folders are not looked at again). A first
        // walk's are taken on the pool beside the putting in (a map of
        // every folder listed: ~20 ms of the 100k bench tree's check on
        // this thread alone); a later walk's into the map the first made.
        let listed = std::mem::take(&mut walked.listed);
        let mut fresh = None;
        match self.git_ignores.get() {
            Some(ignores) => ignores.share(listed),
            None => fresh = Some((crate::files::walk::GitIgnores::new(&root), listed)),
        }
        let mut sources = Vec::new();
        if whole_root || containers {
            let mut readers = ReaderKeys::default();
            // Taken where they are, in one pass: `put_walked` passes over
            // what is left of them (taken out of the list, every file after
            // the first such was moved, on this thread alone).
            let mut scanned = Vec::new();
            for (path, w) in &mut walked.files {
                match &mut w.loaded {
                    Loaded::ReaderKeys(source) => readers.add(std::mem::take(source)),
                    Loaded::ContainerSources(s) => sources.push((std::mem::take(path), std::mem::take(s))),
                    _ => {
                        if let Some(scan) = w.scan.take().filter(|_| containers) {
                            scanned.push((path.clone(), *scan));
                        }
                    }
                }
            }
            if whole_root {
                // A stopped walk read none: any may be read (the run fails).
                readers.unknown |= walked.stopped;
                let _ = self.reader_keys.set(readers);
            }
            // After the Dockerfiles (as the walk's files were once
            // scanned, in this order).
            sources.extend(scanned);
        }
        for (path, msg) in walked.problems {
            self.file_problems.push((path, Rule::UnreadableFile, msg));
        }
        let files = walked.files;
        let copy = containers && !walked.stopped;
        if containers && walked.stopped {
            // A stopped walk read none: any may be copied (the run fails).
            let _ = self.container_copies.set(Containers::everything(&root));
        }
        // The containers' copies are worked out on the pool beside the
        // putting in, which stays on this thread (its maps and list this
        // thread's allocations, as they were). `container_copies` reads
        // only the root and the scans.
        let mut copies = None;
        let share = fresh
            .as_mut()
            .map(|(ignores, listed)| (&*ignores, std::mem::take(listed)));
        rayon::in_place_scope(|s| {
            if let Some((ignores, listed)) = share {
                s.spawn(move |_| ignores.share(listed));
            }
            if copy {
                let copies = &mut copies;
                let root = &root;
                s.spawn(move |_| *copies = Some(container_copies(root, sources)));
            }
            self.put_walked(files);
        });
        if let Some((ignores, _)) = fresh {
            let _ = self.git_ignores.set(ignores);
        }
        if copy {
            let _ = self
                .container_copies
                .set(copies.unwrap_or_else(|| Containers::everything(&root)));
        }
    }

    /// Put in the files a walk read, in its order ([`walk_and_read`]).
    ///
    /// This thread gives each file its id and key in `by_path` (in order:
    /// a key walked twice, through a link, is the first's); the files
    /// themselves are moved out of their boxes into `files`, and what is
    /// left of the walk's list freed, on all threads. Moved one by one
    /// here, with the other threads idle, each file's copy and the free of
    /// its box (made on a walk's thread) were a fifth of this loop's time
    /// (the 100k bench tree: 67-69 ms, now 52-55; the rest is the map).
    fn put_walked(&mut self, mut files: Vec<(PathBuf, WalkedFile)>) {
        use rayon::prelude::*;
        // Sized once: the walk's files are put in on this thread alone, and
        // growing a map hashes every path in it again.
        let skipped = files
            .iter()
            .filter(|(_, w)| matches!(w.loaded, Loaded::Skipped(..)))
            .count();
        self.by_path.reserve(files.len() - skipped);
        self.files.reserve(files.len() - skipped);
        self.skipped_index.by_key.reserve(skipped);
        self.skipped_index.paths.reserve(skipped);
        // The files given ids and not yet in `files`, in order.
        let mut boxed: Vec<Box<SourceFile>> = Vec::with_capacity(files.len() - skipped);
        let mut walked_again: Vec<FileId> = Vec::new();
        for (path, w) in &mut files {
            // A reader's or container's source (`walk_and_read` took it).
            if matches!(w.loaded, Loaded::ReaderKeys(_) | Loaded::ContainerSources(_)) {
                continue;
            }
            // One look-up a file.
            let key = std::mem::take(&mut w.key).into_os_string().into_vec();
            let (key, loaded) = match self.by_path.entry(key) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    walked_again.push(*e.get());
                    continue;
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    match std::mem::replace(&mut w.loaded, Loaded::Problem(String::new())) {
                        Loaded::File(f) if f.kind != Some(Kind::ParallelApp) => {
                            v.insert(self.files.len() + boxed.len());
                            boxed.push(f);
                            continue;
                        }
                        other => (key_path(v.into_key()), other),
                    }
                }
            };
            if matches!(loaded, Loaded::File(_)) {
                // `insert_named` pushes it: after those given ids before.
                self.unbox_files(&mut boxed);
            }
            self.insert_named(path, key, loaded, w.named);
        }
        self.unbox_files(&mut boxed);
        for id in walked_again {
            self.files[id].walked = true;
        }
        files.into_par_iter().for_each(drop);
    }

    /// Move `boxed` to the end of `files`, in order, on all threads
    /// ([`Workspace::put_walked`]).
    // The boxes are the walk's (`Loaded::File`): taken out of them here.
    #[allow(clippy::vec_box)]
    fn unbox_files(&mut self, boxed: &mut Vec<Box<SourceFile>>) {
        use rayon::prelude::*;
        self.files.par_extend(
            std::mem::take(boxed)
                .into_par_iter()
                .with_min_len(UNBOXED_A_TASK)
                .map(|f| *f),
        );
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
        self.by_path
            .get(key_bytes(&self.identify(path).0))
            .map(|&id| self.found(id))
    }

    /// A file a look-up by path found, noted when its parse is gone: what
    /// reads it then would read an empty document
    /// ([`Workspace::touched_gone`]).
    fn found(&self, id: FileId) -> FileId {
        if self.parse_gone.get(id).copied().unwrap_or(false) {
            self.found_gone.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        id
    }

    /// Whether any parse was dropped early and not restored.
    pub fn parse_dropped_early(&self) -> bool {
        self.parse_gone.iter().any(|&g| g)
    }

    /// Whether the file's parse was dropped early
    /// ([`Workspace::drop_parses_early`]).
    pub fn is_gone(&self, id: FileId) -> bool {
        self.parse_gone.get(id).copied().unwrap_or(false)
    }

    /// Drop the parses of files before every rule has run (`check`, once
    /// every pipeline that may read them is checked:
    /// `rules::check_for_report`), on all threads, remembering them: a
    /// later look-up by path that finds one is noted
    /// ([`Workspace::touched_gone`]), and [`Workspace::restore_parses`]
    /// parses them again from their texts. Only files whose parse their
    /// text alone gives back ([`Workspace::may_drop_early`]).
    ///
    /// The pool is handed the files to drop, not every file with a mark:
    /// a chunk's files are neighbours in path order, and a split of all the
    /// files left them in one half, dropped by one thread while the other
    /// waited (on 2 threads, ~0.3 ms a chunk of the 10k bench tree: 10 ms
    /// over its 32 chunks, with one thread working).
    pub fn drop_parses_early(&mut self, ids: &[FileId]) {
        use rayon::prelude::*;
        if self.parse_gone.len() < self.files.len() {
            self.parse_gone.resize(self.files.len(), false);
        }
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        for &id in &ids {
            debug_assert!(self.may_drop_early(id));
            self.parse_gone[id] = true;
        }
        disjoint_mut(&mut self.files, &ids)
            .into_par_iter()
            .with_max_len(DROPS_A_TASK)
            .for_each(SourceFile::drop_parse_compacting);
    }

    /// Drop every parse not dropped yet ([`SourceFile::drop_parse_compacting`],
    /// on all threads): for a check done with every reader and rule.
    pub fn drop_parses(&mut self) {
        use rayon::prelude::*;
        let gone = &self.parse_gone;
        self.files
            .par_iter_mut()
            .enumerate()
            .filter(|(id, _)| !gone.get(*id).copied().unwrap_or(false))
            .for_each(|(_, f)| f.drop_parse_compacting());
    }

    /// Whether parsing the file's text again gives back its parse: a
    /// key-file, YAML or protobuf text read whole (not refused, whose
    /// groups were emptied; not lossy), which the load did not resolve as
    /// yaml-cpp does.
    pub fn may_drop_early(&self, id: FileId) -> bool {
        let f = &self.files[id];
        !f.refused
            && !f.lossy
            && !f.outside
            && !f.doc.first_map_only()
            && matches!(f.doc.format, Format::KeyFile | Format::Yaml | Format::Protobuf)
    }

    /// Whether a look-up by path found a file whose parse is gone since
    /// the last call (what read it may have read an empty document).
    pub fn touched_gone(&mut self) -> bool {
        std::mem::take(self.found_gone.get_mut())
    }

    /// Parse again, from their texts, the files whose parse was dropped
    /// early (on all threads): the documents are what the load made.
    pub fn restore_parses(&mut self) {
        use rayon::prelude::*;
        let gone = std::mem::take(&mut self.parse_gone);
        self.files
            .par_iter_mut()
            .zip(gone)
            .filter(|(_, gone)| *gone)
            .for_each(|(f, _)| f.doc.parse_again());
        *self.found_gone.get_mut() = false;
    }

    /// Read, check and parse one file. Returns its id when it is a text file
    /// dslint can read (whether or not it is a DeepStream config).
    pub fn read_file(&mut self, path: &Path, walked: bool, explicit: bool) -> Option<FileId> {
        let (key, place) = self.identify(path);
        if let Some(&id) = self.by_path.get(key_bytes(&key)) {
            self.files[id].walked |= walked;
            return Some(id);
        }
        let loaded = self.load_placed(path, &key, place, Reading::new(walked, explicit), None);
        self.insert(path, key, loaded)
    }

    /// Read a placed path (or say why not).
    /// `referenced_as`: the kind a loading config's reference makes it.
    fn load_placed(&self, path: &Path, key: &Path, place: Place, how: Reading, referenced_as: Option<Kind>) -> Loaded {
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
        let text = self.overlay.get(Key::bytes_of(key));
        let loaded = match self.take_reusable(key, text) {
            Some(r) => {
                let mut loaded = classify_parsed(path, r.doc, Some(r.lines), how.walked, referenced_as);
                if let Loaded::File(f) = &mut loaded {
                    f.lossy = r.lossy;
                }
                loaded
            }
            None => load_one(&real, path, text.map(|t| String::clone(t)), how, referenced_as),
        };
        match loaded {
            Loaded::File(mut f) => {
                f.outside = outside;
                Loaded::File(f)
            }
            other => other,
        }
    }

    /// A document an earlier load parsed, if its text is still the one
    /// this load would read: the same overlay text, or no overlay then and
    /// now (the disk is read once a run).
    fn take_reusable(&self, key: &Path, overlay: Option<&Arc<String>>) -> Option<Reusable> {
        let mut reuse = self.reuse.lock().ok()?;
        // Empty outside `fix`'s later passes: no key hashed then.
        if reuse.is_empty() {
            return None;
        }
        let r = reuse.remove(key_bytes(key))?;
        match overlay {
            Some(t) if **t == r.doc.text => Some(r),
            None if !r.had_overlay => Some(r),
            _ => None,
        }
    }

    /// Remember the files deepstream-parallel-infer's config at `path`
    /// reads as fragments of its own (`cfg-file-path`, with its line).
    fn note_fragments(&mut self, path: &Path, refs: Vec<(String, usize)>) {
        if refs.is_empty() {
            return;
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for (raw, line) in refs {
            let target = canonical(&normalize(&dir.join(raw.trim())));
            self.fragments
                .entry(target)
                .or_insert_with(|| format!("{}:{line} cfg-file-path", crate::files::shown(path)));
        }
    }

    fn insert(&mut self, path: &Path, key: PathBuf, loaded: Loaded) -> Option<FileId> {
        let named = matches!(loaded, Loaded::Skipped(..)) && self.is_named(path);
        self.insert_named(path, key, loaded, named)
    }

    /// Whether `path` is one of the paths named on the command line.
    fn is_named(&self, path: &Path) -> bool {
        // (`cmp` compares from the first byte that differs; `==` parses
        // both paths from the end.)
        self.roots.iter().any(|r| r.as_path().cmp(path).is_eq())
    }

    /// `insert`, with whether `path` is named on the command line
    /// ([`Workspace::is_named`]; looked at for a skipped file only).
    fn insert_named(&mut self, path: &Path, key: PathBuf, loaded: Loaded, named: bool) -> Option<FileId> {
        match loaded {
            Loaded::Skipped(code, reason, refs) => {
                self.note_fragments(path, refs);
                if !self.skipped_index.paths.contains(path) {
                    let skipped = Skipped {
                        path: path.to_path_buf(),
                        reason,
                        code,
                        named,
                    };
                    self.push_skipped(key, skipped);
                }
                None
            }
            Loaded::ReaderKeys(_) | Loaded::ContainerSources(_) => None,
            Loaded::Problem(msg) => {
                if self.problem_keys.insert(key) {
                    self.file_problems.push((path.to_path_buf(), Rule::UnreadableFile, msg));
                }
                None
            }
            Loaded::File(f) => {
                if f.kind == Some(Kind::ParallelApp) {
                    self.note_fragments(path, fragment_refs(&f.doc));
                }
                let id = self.files.len();
                self.files.push(*f);
                self.by_path.insert(key.into_os_string().into_vec(), id);
                Some(id)
            }
        }
    }

    fn push_skipped(&mut self, key: PathBuf, skipped: Skipped) {
        let ix = &mut self.skipped_index;
        ix.paths.insert(skipped.path.clone());
        ix.by_key.insert(key_bytes(&key).to_vec(), self.skipped.len());
        ix.keys.push(key);
        self.skipped.push(skipped);
    }

    /// The path the walk gave a file it skipped, taken back from the
    /// skipped list (a reference reads it as a config now).
    fn take_back_skipped(&mut self, key: &Path) -> Option<PathBuf> {
        let ix = &mut self.skipped_index;
        let i = ix.by_key.remove(key_bytes(key))?;
        ix.taken_back.push(i);
        let path = self.skipped[i].path.clone();
        ix.paths.remove(&path);
        Some(path)
    }

    /// Drop the skipped entries references took back (after the graph is
    /// built: one pass, not a removal per reference).
    pub fn drop_taken_back(&mut self) {
        let ix = &mut self.skipped_index;
        if ix.taken_back.is_empty() {
            return;
        }
        let gone: HashSet<usize> = ix.taken_back.drain(..).collect();
        let mut kept = Vec::with_capacity(self.skipped.len());
        let mut keys = Vec::with_capacity(self.skipped.len());
        for (i, (s, k)) in std::mem::take(&mut self.skipped)
            .into_iter()
            .zip(std::mem::take(&mut ix.keys))
            .enumerate()
        {
            if !gone.contains(&i) {
                kept.push(s);
                keys.push(k);
            }
        }
        ix.by_key = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (key_bytes(k).to_vec(), i))
            .collect();
        ix.keys = keys;
        self.skipped = kept;
    }

    /// Add a file from a text in memory (the bench variant's passes).
    pub fn read_text(&mut self, path: &Path, text: String) -> Option<FileId> {
        let key = canonical(path);
        let loaded = parse_text(path, text, true, None);
        self.insert(path, key, loaded)
    }

    /// Resolve a path written in `from` (relative to its folder; `file://`
    /// URIs too), placed against the project root. `None` for a path that
    /// names no file of its own: a URI of another scheme, or a template's
    /// path whose pieces are placeholders an app or a script renders before
    /// DeepStream reads the file (`{{ model_dir }}/model.plan`,
    /// `@@ENGINE@@`, `${MODEL_DIR}/model.plan`): where it points is not in
    /// the file, so whether it exists is unknown (Precision 5). So is a
    /// missing path that a vendored deepstream_python_apps copy names
    /// outside itself ([`into_install`]): it points into the DeepStream
    /// install the copy is meant to be cloned into. And so is a missing path
    /// that a config a Dockerfile or Containerfile copies into an image
    /// names, where the container it runs in may have the file
    /// ([`Workspace::unknown_in_container`]).
    ///
    /// A key-file's value is the path GLib's `g_key_file_get_string` gives
    /// (the string DeepStream's readers pass on to
    /// `get_absolute_file_path`): `\s \t \n \r \\` unescaped; with an
    /// escape GLib refuses, DeepStream reads no path at all, so where it
    /// points is unknown (`None`; the value check reports the value).
    pub fn resolve(&self, from: FileId, raw: &str) -> Option<Target> {
        let raw = raw.trim();
        let unescaped;
        let raw = if self.files[from].doc.format == Format::KeyFile && raw.contains('\\') {
            unescaped = crate::syntax::glib::parse_string(raw).ok()?;
            unescaped.as_str()
        } else {
            raw
        };
        let raw = raw.strip_prefix("file://").unwrap_or(raw);
        // (A `char` first: it is found with `memchr`, a `&str` is not.)
        if raw.is_empty() || (raw.contains(':') && raw.contains("://")) || templated(raw) {
            return None;
        }
        let path = Path::new(raw);
        let file = &self.files[from];
        let full = if path.is_absolute() {
            path.to_path_buf()
        } else {
            // `SourceFile::dir`, without a copy of it.
            normalize_owned(crate::files::join(dir_of(&file.path), path))
        };
        // A file outside the root leads further out only: what it names is
        // outside too (and is not looked at).
        if file.outside {
            return Some(Target::Outside(full));
        }
        Some(match self.place_verdict(&full) {
            Landing::Inside => Target::Exists(full),
            Landing::Missing if into_install(&file.path, &full) || self.unknown_in_container(from, path) => {
                return None;
            }
            Landing::Missing => Target::Missing(full),
            Landing::Outside => Target::Outside(full),
        })
    }

    /// Load a config that a loading config's key names as a `kind` (an
    /// nvinfer config through `[primary-gie] config-file`, …): the
    /// reference beats content (Precision 1), so a file content alone
    /// skipped or took for another kind is read as `kind`. Outside the root
    /// only with `--follow-outside`, as every other reference.
    pub fn load_reference_as(&mut self, from: FileId, raw: &str, kind: Kind) -> Option<FileId> {
        let p = match self.resolve(from, raw)? {
            Target::Exists(p) => p,
            Target::Outside(p) if self.follow_outside() && !self.files[from].outside => {
                return self.load_outside(p, Some(kind));
            }
            _ => return None,
        };
        // The key from the placement `resolve` just made (the real path, as
        // `canonical` would say, without a `realpath` a reference); a file
        // already loaded is a regular file, so only a new one is looked at.
        let key = self.identify(&p).0;
        if self.problem_keys.contains(&key) {
            return None;
        }
        if !self.by_path.contains_key(key_bytes(&key)) && !p.is_file() {
            return None;
        }
        if let Some(id) = self.by_path.get(key_bytes(&key)).map(|&id| self.found(id)) {
            // A file naming itself stays what it is (DS704 reports it), and
            // so does a parallel-infer main config named as a fragment.
            let main = kind == Kind::ParallelFragment && self.files[id].kind == Some(Kind::ParallelApp);
            if id != from && !main {
                self.set_kind(id, kind);
            }
            return Some(id);
        }
        // A file the walk found and skipped keeps the path the walk gave it.
        let walked = self.take_back_skipped(&key);
        let walked_found = walked.is_some();
        let path = walked.unwrap_or(p);
        let place = self.place(&path);
        let loaded = self.load_placed(&path, &key, place, Reading::new(walked_found, false), Some(kind));
        self.insert(&path, key, loaded)
    }

    /// Load a referenced config (not walked) and return its id.
    pub fn load_reference(&mut self, from: FileId, raw: &str) -> Option<FileId> {
        match self.resolve(from, raw)? {
            Target::Exists(p) => {
                // Already loaded (the common case: the walk read it): no
                // more look at the disk.
                let (key, place) = self.identify(&p);
                if let Some(&id) = self.by_path.get(key_bytes(&key)) {
                    return Some(self.found(id));
                }
                if !p.is_file() || self.problem_keys.contains(&key) {
                    return None;
                }
                let loaded = self.load_placed(&p, &key, place, Reading::new(false, false), None);
                self.insert(&p, key, loaded)
            }
            Target::Outside(p) if self.follow_outside() && !self.files[from].outside => self.load_outside(p, None),
            _ => None,
        }
    }

    /// Load a file outside the root that `--follow-outside` lets a
    /// reference read (as `kind` when the reference names one).
    fn load_outside(&mut self, p: PathBuf, kind: Option<Kind>) -> Option<FileId> {
        let key = canonical(&p);
        if let Some(id) = self.by_path.get(key_bytes(&key)).map(|&id| self.found(id)) {
            if let Some(kind) = kind {
                self.set_kind(id, kind);
            }
            return Some(id);
        }
        // Whether it could be read stays unsaid (no DS005 for it).
        match self.load_placed(&p, &key, Place::Outside, Reading::new(false, false), kind) {
            loaded @ Loaded::File(_) => self.insert(&p, key, loaded),
            _ => None,
        }
    }

    fn set_kind(&mut self, id: FileId, kind: Kind) {
        if self.files[id].kind != Some(kind) {
            self.files[id].kind = Some(kind);
            self.rekinded.push(id);
        }
    }

    /// The files whose kind a reference changed since the last call.
    pub fn take_rekinded(&mut self) -> Vec<FileId> {
        std::mem::take(&mut self.rekinded)
    }

    /// What `load_reference_as` (`kind` given) or `load_reference` would
    /// return, found without changing anything; `Err` when it would change
    /// the workspace (load a file, or give a loaded one another kind). The
    /// same steps in the same order, so that an `Ok` is what the load
    /// returns on a workspace in the same state.
    pub fn look_reference(&self, from: FileId, raw: &str, kind: Option<Kind>) -> Result<Option<FileId>, WouldChange> {
        let loaded = |id: FileId| {
            // `load_reference_as`'s kind change, unless the file names itself
            // or is a parallel-infer main config named as a fragment.
            let main = kind == Some(Kind::ParallelFragment) && self.files[id].kind == Some(Kind::ParallelApp);
            match kind {
                Some(k) if id != from && !main && self.files[id].kind != Some(k) => Err(WouldChange),
                _ => Ok(Some(id)),
            }
        };
        let p = match self.resolve(from, raw) {
            None => return Ok(None),
            Some(Target::Outside(p)) if self.follow_outside() && !self.files[from].outside => {
                // `load_outside`: its kind change has no exceptions.
                return match self.by_path.get(key_bytes(&canonical(&p))) {
                    Some(&id) if kind.is_none_or(|k| self.files[id].kind == Some(k)) => Ok(Some(self.found(id))),
                    _ => Err(WouldChange),
                };
            }
            Some(Target::Exists(p)) => p,
            Some(_) => return Ok(None),
        };
        if kind.is_none() {
            let key = self.identify(&p).0;
            return match self.by_path.get(key_bytes(&key)) {
                Some(&id) => Ok(Some(self.found(id))),
                None if !p.is_file() || self.problem_keys.contains(&key) => Ok(None),
                None => Err(WouldChange),
            };
        }
        // `load_reference_as`'s steps: the key from the placement, and a
        // look at the disk only for a file not loaded yet.
        let key = self.identify(&p).0;
        if self.problem_keys.contains(&key) {
            return Ok(None);
        }
        match self.by_path.get(key_bytes(&key)) {
            Some(&id) => loaded(self.found(id)),
            None if !p.is_file() => Ok(None),
            None => Err(WouldChange),
        }
    }

    pub fn syntax_errors(&self, id: FileId) -> &[SyntaxError] {
        &self.files[id].doc.errors
    }
}

/// A reference that would load a file or change one's kind
/// (`Workspace::look_reference`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WouldChange;

/// How a front end reaches the configs a config names: loading them
/// (one pipeline at a time), or only looking them up, so that pipelines
/// build on all threads ahead of their turn. A look-up that would change
/// the workspace marks the build `changes`; the files it found are kept in
/// `read`, so the caller can tell whether an earlier pipeline's loads
/// changed any of them.
pub enum Access<'w> {
    Load(&'w mut Workspace),
    Look(&'w Workspace, &'w mut Looked),
}

/// What a look-only build found (see [`Access`]).
#[derive(Debug, Default)]
pub struct Looked {
    pub read: Vec<FileId>,
    pub changes: bool,
}

impl Access<'_> {
    /// `load_reference_as` with `kind`, else `load_reference`.
    pub fn reference(&mut self, from: FileId, raw: &str, kind: Option<Kind>) -> Option<FileId> {
        match self {
            Access::Load(ws) => match kind {
                Some(kind) => ws.load_reference_as(from, raw, kind),
                None => ws.load_reference(from, raw),
            },
            Access::Look(ws, looked) => match ws.look_reference(from, raw, kind) {
                Ok(id) => {
                    looked.read.extend(id);
                    id
                }
                Err(WouldChange) => {
                    looked.changes = true;
                    None
                }
            },
        }
    }

    /// The same access for a shorter borrow.
    pub fn reborrow(&mut self) -> Access<'_> {
        match self {
            Access::Load(ws) => Access::Load(ws),
            Access::Look(ws, looked) => Access::Look(ws, looked),
        }
    }
}

impl std::ops::Deref for Access<'_> {
    type Target = Workspace;
    fn deref(&self) -> &Workspace {
        match self {
            Access::Load(ws) => ws,
            Access::Look(ws, _) => ws,
        }
    }
}

/// What a walk found: the candidate files, and the paths it could not walk
/// (with why).
pub struct Walked {
    pub files: Vec<PathBuf>,
    pub problems: Vec<(PathBuf, String)>,
}

/// The key names a C or C++ source a walk listed reads (`syntax::c_keys`)
/// that none of NVIDIA's readers reads, read under the size cap; none when
/// it cannot be read. A file listed as no link is read as the walk's other
/// files are (`read_listed`): a link swapped in since, to a file outside
/// the root, is not followed. Names NVIDIA's readers read come from a
/// vendored copy of their parser as often as from a fork: only new names
/// count, and, second, a known name a `CONFIG_GROUP_<GROUP>_<KEY>` define
/// gives to a group (`syntax::c_keys::group_defines`), which DS002 asks
/// about only for a group NVIDIA's readers do not read it in. A source
/// over the size cap, or that cannot be read, may be a reader: what it
/// reads is unknown (`unread`), so any name may be read (DS002 silent for
/// the names NVIDIA's readers do not read), as when the walk was stopped.
#[derive(Default)]
struct SourceKeys {
    keys: Vec<String>,
    grouped: Vec<(String, String)>,
    extended_enums: Vec<&'static str>,
    unread: bool,
}

fn scan_reader_source(l: crate::files::walk::Listed) -> SourceKeys {
    let bytes = match read_walked(&l) {
        Ok(bytes) => bytes,
        // No file to read (a link to a FIFO or a device): no reader.
        Err(crate::files::read::ReadError::NotRegular(_)) => return SourceKeys::default(),
        // Over the cap (a generated header: a model's weights as a C
        // array): looked through in pieces, not kept. With none of the
        // marks any reader's keys need (`c_keys::may_read_keys`) it reads
        // no keys; with one, its keys are unknown, as they are past
        // `MAX_READER_SCAN_BYTES`: a mark in the first part makes a
        // `strcmp` or `==` anywhere after it a key (`c_keys::keys`), so a
        // first part read alone would not give them all.
        Err(crate::files::read::ReadError::TooLarge { .. }) => {
            let marks = crate::syntax::c_keys::READER_MARKS;
            let found = match (l.link, l.real()) {
                (true, _) => crate::files::read::find_any(l.path, false, MAX_READER_SCAN_BYTES, marks),
                // A walk's entry, by its real path through no link, as
                // `read_walked` reads it.
                (false, Some(real)) => crate::files::read::find_any(&real, true, MAX_READER_SCAN_BYTES, marks),
                (false, None) => Ok(None),
            };
            return SourceKeys {
                unread: !matches!(found, Ok(Some(false))),
                ..SourceKeys::default()
            };
        }
        Err(_) => {
            return SourceKeys {
                unread: true,
                ..SourceKeys::default()
            };
        }
    };
    // A fork's header names its new enumeration members without any
    // reader's marks (`nvdsinfer_context.h`): looked for in every source.
    let extended_enums = crate::syntax::c_enums::extended_keys(&bytes);
    if !crate::syntax::c_keys::may_read_keys(&bytes) {
        return SourceKeys {
            extended_enums,
            ..SourceKeys::default()
        };
    }
    let mut keys = crate::syntax::c_keys::keys(&bytes);
    keys.retain(|k| !crate::model::keys::known_name(k));
    let mut grouped = crate::syntax::c_keys::group_defines(&bytes);
    grouped.retain(|(_, k)| crate::model::keys::known_name(k));
    SourceKeys {
        keys,
        grouped,
        extended_enums,
        unread: false,
    }
}

/// How much of a C source over the size cap is looked through for a
/// reader's marks (`scan_reader_source`): 1 GiB, a second or so of reading
/// in pieces; past it the file's keys are unknown.
const MAX_READER_SCAN_BYTES: u64 = 1 << 30;

/// A file the walk listed, read under the size cap: a link (to a regular
/// file inside the root) by following it, any other name by its real path
/// (`read_listed`: not followed if it, or a folder above it, became a link
/// since).
fn read_walked(l: &crate::files::walk::Listed) -> Result<Vec<u8>, crate::files::read::ReadError> {
    use crate::files::read::{ReadError, read_listed, read_regular};
    if l.link {
        return read_regular(l.path, MAX_FILE_BYTES);
    }
    match l.real() {
        Some(real) => read_listed(&real, MAX_FILE_BYTES),
        None => Err(ReadError::Io("is not inside the project root".into())),
    }
}

/// What the project's containers are given of its tree
/// (`Workspace::unknown_in_container`).
#[derive(Debug, Default)]
struct Containers {
    /// The real paths copied into an image.
    copies: HashSet<PathBuf>,
    /// The host paths bind-mounted into a container, each with whether
    /// another mount may land inside the target of one of its mounts
    /// ([`Bind`]).
    binds: HashMap<PathBuf, bool>,
    /// A Compose file's relative host paths (`Base::Project`), by how many
    /// `..` they begin with, each with whether another mount may land
    /// inside its target: they resolve from the project directory, which
    /// is the folder of the first file `docker compose -f a.yml -f
    /// b.yml` names ("Paths are evaluated relative to the base file",
    /// Compose's "Merge" page): an override file's from the base file's
    /// folder, not its own. Which file is the base is chosen where Compose
    /// runs, so each is taken from every folder that holds a Compose file
    /// ([`Containers::compose_holds`]): a path more unknown, never a
    /// false finding. Looked up, not resolved from each folder here (their
    /// product is unbounded on a hostile tree).
    compose: HashMap<usize, HashMap<PathBuf, bool>>,
    /// The folders a Compose file's relative path may start from: each
    /// Compose file's folder, and the folders as many levels above it as
    /// a path in `compose` has leading `..`, each with those counts.
    compose_starts: HashMap<PathBuf, Vec<usize>>,
}

/// What the containers are given of one file (`Workspace::unknown_in_container`).
#[derive(Debug)]
enum InContainer {
    /// Copied into an image, or in a folder that is.
    Copied,
    /// In bind-mounted folders (boxed: one is kept for every file that
    /// names a missing path, and most are in none).
    Mounted(Box<Mounted>),
    /// In no container the project shows.
    Neither,
}

/// A file in bind-mounted folders: its real folder, and each mount's host
/// side that holds it with whether another mount may land inside its
/// target.
#[derive(Debug)]
struct Mounted {
    dir: PathBuf,
    sources: Box<[(PathBuf, bool)]>,
}

impl Containers {
    /// What the containers are given of the file at the real path `key`:
    /// a mount's host side holds the file when it is one of the file's
    /// folders (a path's ancestors are the paths it starts with), looked
    /// up by each, not a scan of every mount.
    fn judge(&self, key: &Path) -> InContainer {
        if key.ancestors().any(|a| self.copies.contains(a)) {
            return InContainer::Copied;
        }
        let mut sources: Vec<(PathBuf, bool)> = key
            .ancestors()
            .filter_map(|s| self.binds.get(s).map(|&nested| (s.to_path_buf(), nested)))
            .collect();
        if !self.compose_sources(key, &mut sources) {
            // Not all looked up: which mounts hold it is unknown.
            return InContainer::Copied;
        }
        if sources.is_empty() {
            InContainer::Neither
        } else {
            InContainer::Mounted(Box::new(Mounted {
                dir: dir_of(key).to_path_buf(),
                sources: sources.into_boxed_slice(),
            }))
        }
    }

    /// Every file of the root counted as copied (its walk was stopped).
    fn everything(root: &ProjectRoot) -> Containers {
        Containers {
            copies: HashSet::from([root.path().to_path_buf()]),
            ..Containers::default()
        }
    }

    /// The host sides of the Compose files' relative bind mounts, taken
    /// from any project directory (`compose`), that are one of `key`'s
    /// folders, each with whether another mount lands inside the mount's
    /// target: put in `out`. `false` when they were not all looked up:
    /// the look-ups, each start folder's `..` counts by each of `key`'s
    /// folders below it, are quadratic in `key`'s depth (a hostile tree
    /// 600 folders deep took ~10 s a file), so they take at most
    /// [`MAX_COMPOSE_LOOKUP_BYTES`] of paths a file.
    fn compose_sources(&self, key: &Path, out: &mut Vec<(PathBuf, bool)>) -> bool {
        if self.compose.is_empty() {
            return true;
        }
        let mut left = MAX_COMPOSE_LOOKUP_BYTES;
        for start in key.ancestors() {
            let Some(ups) = self.compose_starts.get(start) else {
                continue;
            };
            // The host sides from `start`: `key`'s folders down from it.
            let depth = start.as_os_str().len();
            for s in key.ancestors().take_while(|s| s.as_os_str().len() >= depth) {
                let rest = s.strip_prefix(start).unwrap_or(s);
                for k in ups {
                    // What a look-up costs: the folder's path taken apart
                    // and the rest hashed.
                    let Some(l) = left.checked_sub(s.as_os_str().len() + 1) else {
                        return false;
                    };
                    left = l;
                    if let Some(&nested) = self.compose.get(k).and_then(|paths| paths.get(rest)) {
                        out.push((s.to_path_buf(), nested));
                    }
                }
            }
        }
        true
    }
}

/// One bind mount: the real paths its host side may be (one for a path
/// written from a known folder, several from an unknown one), or a
/// Compose file's relative path (resolved from any project directory:
/// [`Containers::compose`]), and whether another mount may land inside its
/// target.
#[derive(Debug)]
struct Bind {
    sources: Vec<PathBuf>,
    compose: Option<PathBuf>,
    nested: bool,
}

/// The real paths the Dockerfiles and Containerfiles copy (each with the
/// sources it names, `scan_containerfile`), taken from the build context:
/// the nearest folder, from the Dockerfile's own up to the root, that
/// holds every source it names (a build fails on a source its context
/// lacks: `docker build -f docker/Dockerfile .` copies the root's
/// `configs/`); the Dockerfile's folder when none does. And what the
/// scripts and Compose files mount ([`binds`]).
fn container_copies(root: &ProjectRoot, files: Vec<(PathBuf, ContainerScan)>) -> Containers {
    let mut copies = HashSet::new();
    let mut mounts = Vec::new();
    let mut compose_dirs = Vec::new();
    for (path, scan) in files {
        // The folder from the root's cache (the walk listed it: no
        // look at the disk; `canonicalize` read each component's link,
        // ~15k `readlink`s on the 100k bench tree), else as before.
        let real_dir = |d: &Path| match root.place_dir(d) {
            Place::Inside(real) if !d.as_os_str().is_empty() => Some(real),
            _ => std::fs::canonicalize(d).ok(),
        };
        let Some(dir) = path.parent().and_then(real_dir) else {
            continue;
        };
        let sources = match scan {
            ContainerScan::Copies(sources) => sources,
            ContainerScan::Unknown => {
                copies.insert(root.path().to_path_buf());
                continue;
            }
            ContainerScan::Mounts(m, compose) => {
                if compose {
                    compose_dirs.push(dir.clone());
                }
                mounts.push((dir, m, compose));
                continue;
            }
        };
        let Some(context) = build_context(root, &dir, &sources) else {
            copies.insert(root.path().to_path_buf());
            continue;
        };
        for s in &sources {
            copies.insert(if s.is_empty() {
                context.to_path_buf()
            } else {
                context.join(s)
            });
        }
    }
    let mut by_source: HashMap<PathBuf, bool> = HashMap::new();
    let mut compose: HashMap<usize, HashMap<PathBuf, bool>> = HashMap::new();
    let Some(binds) = binds(root, mounts) else {
        // Not all written out: any file may be mounted anywhere.
        copies.insert(root.path().to_path_buf());
        return Containers {
            copies,
            ..Containers::default()
        };
    };
    for b in binds {
        for s in b.sources {
            *by_source.entry(s).or_default() |= b.nested;
        }
        if let Some(rel) = b.compose {
            // `../../configs`: two folders up from the project directory.
            let ups = rel.components().take_while(|c| *c == Component::ParentDir).count();
            let rest: PathBuf = rel.components().skip(ups).collect();
            *compose.entry(ups).or_default().entry(rest).or_default() |= b.nested;
        }
    }
    let mut compose_starts: HashMap<PathBuf, Vec<usize>> = HashMap::new();
    compose_dirs.sort();
    compose_dirs.dedup();
    for dir in &compose_dirs {
        for (ups, start) in dir.ancestors().enumerate() {
            if compose.contains_key(&ups) {
                let at = compose_starts.entry(start.to_path_buf()).or_default();
                if !at.contains(&ups) {
                    at.push(ups);
                }
            }
        }
    }
    Containers {
        copies,
        binds: by_source,
        compose,
        compose_starts,
    }
}

/// The most bytes of paths one Dockerfile's build context is sought with
/// ([`build_context`]): each source is placed from each folder from the
/// Dockerfile's up to the root, which is quadratic in the depth (1,000
/// sources 600 folders deep: 600,000 `lstat`s of 1,200-byte paths, ~70 s).
/// A real one places tens of sources from a few folders (~10 KB).
/// Past this bound and the two below, nothing is printed: only whether a
/// missing path is in a container becomes unknown, which withholds a
/// finding and never makes one (SECURITY.md, item 7, says why no notice).
const MAX_CONTEXT_BYTES: usize = 1 << 20;

/// The most bytes of paths the mounts from an unknown folder are written
/// out as, all files together ([`binds`]): each is a path from each folder
/// above its file up to the root, quadratic in the depth (1,000 mounts of
/// a script 600 folders deep: 600,000 paths, ~600 MB). A real project's
/// are a few KB.
const MAX_BIND_BYTES: usize = 1 << 24;

/// The most bytes of paths one file's Compose look-ups take apart and hash
/// ([`Containers::compose_sources`]; a real project's: ~30 KB, a few
/// hundred look-ups of 100-byte paths).
const MAX_COMPOSE_LOOKUP_BYTES: usize = 1 << 18;

/// The build context of a Dockerfile in `dir` that names `sources`: the
/// nearest folder from `dir` up to the root that holds every source
/// ([`container_copies`]); `dir` when none does. A source is held where
/// its folder is placed inside the root (`ProjectRoot::place`: nothing
/// outside is looked at) and holds its name (a link, even dangling, is a
/// name); one whose folder leads outside the root may be held (whether
/// it is would tell whether a path outside exists). `None` past
/// [`MAX_CONTEXT_BYTES`]: the context is unknown.
fn build_context(root: &ProjectRoot, dir: &Path, sources: &[String]) -> Option<PathBuf> {
    let mut named: Vec<&str> = sources.iter().map(String::as_str).filter(|s| !s.is_empty()).collect();
    named.sort_unstable();
    named.dedup();
    let mut left = MAX_CONTEXT_BYTES;
    let holds = |c: &Path, s: &str| {
        let p = c.join(s);
        let Some((parent, name)) = p.parent().zip(p.file_name()) else {
            return true;
        };
        match root.place(parent) {
            Place::Inside(real) => std::fs::symlink_metadata(real.join(name)).is_ok(),
            Place::Missing(_) => false,
            Place::Outside => true,
        }
    };
    for c in dir.ancestors().take_while(|a| a.starts_with(root.path())) {
        let mut all = true;
        for s in &named {
            left = left.checked_sub(c.as_os_str().len() + s.len() + 1)?;
            if !holds(c, s) {
                all = false;
                break;
            }
        }
        if all {
            return Some(c.to_path_buf());
        }
    }
    Some(dir.to_path_buf())
}

/// The bind mounts of the scripts and Compose files (by their folder),
/// each written once: the real paths of its host side (an absolute path
/// as written; none for a Compose file's relative path, which is kept
/// as written, to be resolved from any project directory
/// ([`Containers::compose`]); a path from an unknown folder, a script's
/// working folder, `$(pwd)`, a variable, from the file's folder and from
/// each folder above it up to the root), and whether another mount, a
/// volume's included, lands at or inside its target, or any target is
/// unknown (any may then land inside it). An absolute host path is placed
/// against the root (`ProjectRoot::place`): one outside is taken as
/// written, nothing there looked at. `None` past [`MAX_BIND_BYTES`].
fn binds(root: &ProjectRoot, files: Vec<(PathBuf, Vec<Mount>, bool)>) -> Option<Vec<Bind>> {
    // Each mount once, with every real path its host side may be.
    let mut index: HashMap<&Mount, usize> = HashMap::new();
    let mut mounts: Vec<(&Mount, Vec<PathBuf>)> = Vec::new();
    let mut left = MAX_BIND_BYTES;
    for (dir, list, _) in &files {
        for m in list {
            let i = *index.entry(m).or_insert_with(|| {
                mounts.push((m, Vec::new()));
                mounts.len() - 1
            });
            let Some(h) = &m.source else { continue };
            let sources = &mut mounts[i].1;
            match h.base {
                Base::Absolute => {
                    let p = Path::new(&h.path);
                    sources.push(match root.place(p) {
                        Place::Inside(real) | Place::Missing(real) => real,
                        Place::Outside => normalize(p),
                    });
                }
                // From any project directory (`Containers::compose`).
                Base::Project => {}
                Base::Unknown => {
                    for a in dir.ancestors().take_while(|a| a.starts_with(root.path())) {
                        left = left.checked_sub(a.as_os_str().len() + h.path.len() + 1)?;
                        sources.push(normalize(&a.join(&h.path)));
                    }
                }
            }
        }
    }
    // Another target at or inside one's: next to it in path order (a
    // folder's descendants follow it), or equal to the one before.
    let mut nested = vec![mounts.iter().any(|(m, _)| m.target.is_none()); mounts.len()];
    let mut targets: Vec<(&Path, usize)> = (mounts.iter().enumerate())
        .filter_map(|(i, (m, _))| Some((Path::new(m.target.as_deref()?), i)))
        .collect();
    targets.sort();
    for (k, &(t, i)) in targets.iter().enumerate() {
        let next = targets.get(k + 1).is_some_and(|&(n, _)| n.starts_with(t));
        let before = k > 0 && targets[k - 1].0 == t;
        nested[i] |= next || before;
    }
    let binds = (mounts.into_iter().zip(nested))
        .filter_map(|((m, mut sources), nested)| {
            let h = m.source.as_ref()?;
            sources.sort();
            sources.dedup();
            let compose = (h.base == Base::Project).then(|| normalize(Path::new(&h.path)));
            Some(Bind {
                sources,
                compose,
                nested,
            })
        })
        .collect();
    Some(binds)
}

/// What a Dockerfile, Containerfile, script or Compose file copies into an
/// image or mounts into a container ([`scan_container_text`]); nothing
/// when it cannot be read.
fn scan_containerfile(l: crate::files::walk::Listed) -> ContainerScan {
    match read_walked(&l) {
        Ok(bytes) => scan_container_text(l.path, &String::from_utf8_lossy(&bytes)),
        Err(_) => ContainerScan::Unknown,
    }
}

/// A Dockerfile's or Containerfile's copies from its build context
/// (`syntax::dockerfile::copied_sources`), a Compose file's or a script's
/// bind mounts (`syntax::mounts`), by the file's name.
fn scan_container_text(path: &Path, text: &str) -> ContainerScan {
    use crate::syntax::mounts;
    if crate::syntax::dockerfile::is_containerfile(path) {
        crate::syntax::dockerfile::copied_sources(text).map_or(ContainerScan::Unknown, ContainerScan::Copies)
    } else if mounts::is_compose_file(path) {
        mounts::compose_mounts(text).map_or(ContainerScan::Unknown, |m| ContainerScan::Mounts(m, true))
    } else {
        mounts::script_mounts(text).map_or(ContainerScan::Unknown, |m| ContainerScan::Mounts(m, false))
    }
}

/// Whether a file may copy configs into an image or mount them into a
/// container: a Dockerfile or Containerfile, a Compose file, a script.
fn is_container_source(path: &Path) -> bool {
    crate::syntax::dockerfile::is_containerfile(path)
        || crate::syntax::mounts::is_compose_file(path)
        || crate::syntax::mounts::is_script(path)
}

/// What one file gives a container (`scan_container_text`).
enum ContainerScan {
    /// A Dockerfile's sources, relative to its build context.
    Copies(Vec<String>),
    /// A script's or Compose file's bind-mounted host paths, and whether
    /// it is a Compose file.
    Mounts(Vec<Mount>, bool),
    /// What it gives is unknown (more sources or mounts than are read,
    /// a file that cannot be read): any file of the project may be
    /// in the container, as when the walk is stopped.
    Unknown,
}

impl Default for ContainerScan {
    fn default() -> ContainerScan {
        ContainerScan::Copies(Vec::new())
    }
}

/// The candidate files under a folder (by extension, respecting
/// `.gitignore`, with the guarantees of `files::walk`), sorted, without
/// reading them.
pub fn walk_candidates(root: &ProjectRoot, top: &Path) -> Walked {
    let walked = crate::files::walk::walk(root, top, &is_candidate, &|_| ());
    Walked {
        files: walked.files.into_iter().map(|(p, ())| p).collect(),
        problems: walked.problems,
    }
}

/// The `cfg-file-path` values deepstream-parallel-infer's config reads as
/// fragments of its own (`parse_config_file_yaml`: tracker and secondary
/// GIEs, see [`is_fragment_group`]), with their lines.
fn fragment_refs(doc: &Document) -> Vec<(String, usize)> {
    // yaml-cpp's lookup (`configyml[paramKey]["cfg-file-path"]`) reaches
    // the first map of a name and the first copy of the key in it only.
    let mut seen = HashSet::new();
    doc.groups
        .iter()
        .filter(|g| is_fragment_group(&g.name) && seen.insert(g.name.as_str()))
        .filter_map(|g| g.entries.iter().find(|e| e.key == "cfg-file-path"))
        .filter_map(|e| {
            let line = doc.text[..e.spans.key().start].matches('\n').count() + 1;
            Some((e.value.as_deref()?.to_string(), line))
        })
        .collect()
}

/// deepstream-parallel-infer groups whose `cfg-file-path` is a YAML the
/// app's own parsers read (`parse_config_file_yaml`: `tracker*` through
/// `parse_tracker_yaml`, `secondary-gie*` through `parse_sgie_yaml`).
/// `nvds-analytics*`'s names nvdsanalytics' own key-file, which the plugin
/// reads: not a fragment.
pub fn is_fragment_group(group: &str) -> bool {
    group.starts_with("tracker") || group.starts_with("secondary-gie")
}

/// The outcome of reading one file.
enum Loaded {
    /// Not linted: why (machine-readable, in words), and for
    /// deepstream-parallel-infer's config the `cfg-file-path` values it
    /// reads as its own fragments, with their lines.
    Skipped(SkipReason, String, Vec<(String, usize)>),
    /// Unreadable (DS005), with the reason.
    Problem(String),
    File(Box<SourceFile>),
    /// A C or C++ source a walk of the whole root took the reader keys of
    /// (`Workspace::reader_keys`): not a file of the workspace.
    ReaderKeys(SourceKeys),
    /// A Dockerfile or Containerfile a walk of the whole root read the
    /// sources of, or a script or Compose file it read the mounts of
    /// (`Workspace::unknown_in_container`): not a file of the workspace.
    ContainerSources(ContainerScan),
}

/// Files a task of [`Workspace::unbox_files`] moves at least.
const UNBOXED_A_TASK: usize = 256;

/// What the walk's threads made of one file ([`Workspace::walk_and_read`]).
struct WalkedFile {
    /// The file's key (empty for one that is no file of the workspace).
    key: PathBuf,
    loaded: Loaded,
    /// A script's or Compose file's mounts, read from its text, when the
    /// walk takes the containers' sources.
    scan: Option<Box<ContainerScan>>,
    /// A skipped file named on the command line ([`Workspace::is_named`]).
    named: bool,
}

impl WalkedFile {
    /// A file that is no file of the workspace (a reader's or container's
    /// source).
    fn bare(loaded: Loaded) -> WalkedFile {
        WalkedFile {
            key: PathBuf::new(),
            loaded,
            scan: None,
            named: false,
        }
    }
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
/// the user sees it; `referenced_as`, the kind a loading config's reference
/// makes the file, which beats what its content says (Precision 1).
fn load_one(real: &Path, shown: &Path, overlay: Option<String>, how: Reading, referenced_as: Option<Kind>) -> Loaded {
    let Reading {
        walked,
        explicit,
        listed,
    } = how;
    if let Some(text) = overlay {
        return parse_text(shown, text, walked, referenced_as);
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
            Loaded::Skipped(SkipReason::NotAConfig, "empty file".into(), Vec::new())
        };
    }
    // (The memchr crate's vector search: the slice's own `contains` is a
    // word-at-a-time one, and every byte of every file is looked at.)
    if memchr::memchr(0, &bytes).is_some() {
        return Loaded::Problem("file is binary (contains NUL bytes); skipped".into());
    }
    match String::from_utf8(bytes) {
        Ok(text) => parse_text(shown, text, walked, referenced_as),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let keyfile = detect::format_for(shown, &String::from_utf8_lossy(&bytes)) == Some(Format::KeyFile);
            match keyfile.then(|| comments_only_lossy(&bytes)).flatten() {
                Some(text) => {
                    let mut loaded = parse_text(shown, text, walked, referenced_as);
                    if let Loaded::File(f) = &mut loaded {
                        f.lossy = true;
                    }
                    loaded
                }
                None => Loaded::Problem(format!("file is not UTF-8 (invalid byte at offset {at}); skipped")),
            }
        }
    }
}

/// A key-file whose only invalid UTF-8 is inside comment lines still loads:
/// GLib's `g_key_file_parse_line` skips a line whose first non-space byte is
/// `#` before any UTF-8 check (groups and keys are checked, values when
/// read). Returns the text with each invalid byte read as `?` (so every
/// offset stays the same), or `None` when an invalid byte is elsewhere.
fn comments_only_lossy(bytes: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(bytes.len());
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        match std::str::from_utf8(line) {
            Ok(_) => out.extend_from_slice(line),
            Err(_) => {
                let first = line
                    .iter()
                    .find(|&&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c));
                if first != Some(&b'#') {
                    return None;
                }
                let mut rest = line;
                while !rest.is_empty() {
                    match std::str::from_utf8(rest) {
                        Ok(_) => {
                            out.extend_from_slice(rest);
                            break;
                        }
                        Err(e) => {
                            let good = e.valid_up_to();
                            let bad = e.error_len().unwrap_or(rest.len() - good);
                            out.extend_from_slice(&rest[..good]);
                            out.extend(std::iter::repeat_n(b'?', bad));
                            rest = &rest[good + bad..];
                        }
                    }
                }
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Choose a syntax and a kind for a text; `Skipped` when it is not ours.
fn parse_text(path: &Path, text: String, walked: bool, referenced_as: Option<Kind>) -> Loaded {
    let Some(format) = detect::format_for(path, &text) else {
        return Loaded::Skipped(
            SkipReason::NotAConfig,
            "neither a key-file, YAML nor protobuf text (by its extension and first lines)".into(),
            Vec::new(),
        );
    };
    let (doc, lines) = Document::parse_lined(text, format);
    classify_parsed(path, doc, lines, walked, referenced_as)
}

/// Choose a kind for a parsed document (`lines`: its line index, when an
/// earlier load made it); `Skipped` when it is not ours.
fn classify_parsed(
    path: &Path,
    doc: Document,
    lines: Option<LineIndex>,
    walked: bool,
    referenced_as: Option<Kind>,
) -> Loaded {
    let format = doc.format;
    let mut verdict = match referenced_as {
        Some(kind) => Verdict::Lint(kind, "referenced as such by a loading config".into()),
        None => detect::verdict(&doc),
    };
    if verdict.kind().is_none()
        && format == Format::Yaml
        && !doc.errors.is_empty()
        && detect::yaml_looks_like_ours(&doc.text)
    {
        // A broken YAML file that still looks like a DeepStream config:
        // worth its DS001. Its kind is guessed from the text.
        let kind = if doc.text.contains("\nproperty:") || doc.text.starts_with("property:") {
            Kind::NvInfer
        } else {
            Kind::TestApp
        };
        verdict = Verdict::Lint(kind, "a YAML file the parser refuses".into());
    }
    let kind = match verdict {
        Verdict::Lint(kind, _) => kind,
        Verdict::Skip(code, detail) => {
            let refs = if code == SkipReason::ParallelInferenceApp {
                fragment_refs(&doc)
            } else {
                Vec::new()
            };
            // What the file held says more than "not a config".
            // (A script's or module's verdict already says what it lacks.)
            let reason = if code == SkipReason::NotAConfig && !matches!(format, Format::Shell | Format::Python) {
                skip_reason(&doc)
            } else {
                detail
            };
            return Loaded::Skipped(code, reason, refs);
        }
    };
    // deepstream-parallel-infer's main YAML is read through yaml-cpp
    // lookups: repeats resolve as they do there.
    let mut doc = doc;
    if kind == Kind::ParallelApp && format == Format::Yaml {
        doc.resolve_as_yaml_cpp(&crate::model::frontend::parallel::looked_up_directly);
    }
    let kind = Some(kind);
    // Precision 2: a file its reader refuses has one finding, DS001. GLib
    // (`g_key_file_load_from_file`) and yaml-cpp fail the whole load, so none
    // of its keys is read: keep the errors and the text, drop the groups.
    let refused = !doc.errors.is_empty();
    let doc = if refused {
        Document::new(
            doc.text,
            doc.format,
            Vec::new(),
            doc.errors,
            doc.has_bom,
            doc.line_ending,
        )
    } else {
        doc
    };
    let lines = lines.unwrap_or_else(|| LineIndex::new(&doc.text));
    Loaded::File(Box::new(SourceFile {
        path: path.to_path_buf(),
        doc,
        kind,
        lines,
        walked,
        outside: false,
        lossy: false,
        refused,
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

/// Whether `normalize` gives `path` back as it is: a plain path (names
/// between single `/`s, none `.` or `..`, no `/` at the end), whose
/// components `normalize` would push back as its own bytes.
fn is_normal(path: &Path) -> bool {
    crate::base::path_order::is_plain(path)
}

/// A key for "the same file": the canonical path when it exists.
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path))
}

/// The folder NVIDIA's Python apps are cloned as, inside a DeepStream
/// install: `<install>/sources/deepstream_python_apps` (their
/// `bindings/README.md`: "clone the deepstream_python_apps repo under
/// <DeepStream ROOT>/sources"; their configs name the install's models
/// from there,
/// `apps/deepstream-test1/dstest1_pgie_config.txt`:
/// `../../../../samples/models/Primary_Detector/…`).
const PYTHON_APPS: &str = "deepstream_python_apps";

/// The DeepStream SDK's own sample apps in an install:
/// `<install>/sources/apps/sample_apps/…` (and `audio_apps`; the old
/// `sources/objectDetector_Yolo/…`), whose configs name the install's
/// files from there (DS 4–6's `deepstream-test5/configs/test5_*.txt`:
/// `../../../../../samples/configs/deepstream-app/config_infer_primary.txt`).
/// A repository that carries a copy of that folder without the rest of the
/// install names the install's files the same way.
const SDK_SOURCES: &str = "sources/";

/// Whether `full`, missing from the tree, is named from a file of a
/// vendored deepstream_python_apps copy, or of a copy of the SDK's
/// `sources/` sample apps ([`SDK_SOURCES`]), and leaves that copy: in the
/// install the copy is cloned into (or comes from), it points into the install's own
/// tree (`samples/`, `lib/`), which a repository does not carry. Whether
/// it exists where the app runs is unknown, so no rule may say it is
/// missing (`resolve` gives `None`, as for a template's path).
fn into_install(from: &Path, full: &Path) -> bool {
    // Most files have no such folder above them: their path's bytes do not
    // hold its name (one scan, not a parse of every ancestor), found with
    // searchers built once (`memmem::find` builds one a call for a path
    // of 64 bytes or more: ~900 instructions, for every missing path).
    static PYTHON: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(PYTHON_APPS));
    static SDK: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(SDK_SOURCES));
    let bytes = from.as_os_str().as_bytes();
    let python = PYTHON.find(bytes).is_some();
    let sdk = SDK.find(bytes).is_some();
    if !python && !sdk {
        return false;
    }
    let leaves = |copy: &Path| !full.starts_with(normalize(copy));
    let python_copy = from
        .ancestors()
        .skip(1)
        .find(|a| a.file_name().is_some_and(|n| n == PYTHON_APPS));
    if python && python_copy.is_some_and(leaves) {
        return true;
    }
    // The SDK's `sources/` folder: the one whose own sample apps (or old
    // sample detectors) hold the file.
    let sdk_copy = from.ancestors().skip(1).find(|a| {
        a.file_name().is_some_and(|n| n == "sources")
            && from.strip_prefix(a).is_ok_and(|inside| {
                let mut parts = inside.components().map(|c| c.as_os_str().as_bytes());
                match (parts.next(), parts.next()) {
                    (Some(b"apps"), Some(b"sample_apps" | b"audio_apps")) => true,
                    (Some(first), Some(_)) => first.starts_with(b"objectDetector_"),
                    _ => false,
                }
            })
    });
    sdk && sdk_copy.is_some_and(leaves)
}

/// Lexically drop `.` and fold `dir/..`, keeping the path relative when it is.
pub fn normalize(path: &Path) -> PathBuf {
    // Most paths are normal already (every reference is resolved through
    // here): their components, pushed one by one, are their own bytes.
    if is_normal(path) {
        return path.to_path_buf();
    }
    by_components(path)
}

/// `normalize` of a path already owned: given back as it is when normal
/// (no copy).
fn normalize_owned(path: PathBuf) -> PathBuf {
    if is_normal(&path) { path } else { by_components(&path) }
}

/// `path.parent()`, `""` where it has none ([`crate::files::parent`]).
fn dir_of(path: &Path) -> &Path {
    crate::files::parent(path).unwrap_or(Path::new(""))
}

/// Where a path lands, without the real path ([`Workspace::place_verdict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Landing {
    Inside,
    Missing,
    Outside,
}

/// `normalize`, one component at a time.
fn by_components(path: &Path) -> PathBuf {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A placement whose real path is the path placed is given back whole
    /// (kept without a copy of it); one whose real path differs keeps it.
    /// Each file a walk listed is remembered, and lets
    /// `PLACED_PER_LISTED` more other paths be remembered, past
    /// `MAX_PLACED`; past that bound a path is not remembered (placed
    /// again at each look-up).
    #[test]
    fn placements_hold_the_walk_and_twice_as_many_references() {
        let mut m = Placements::default();
        m.insert(b"/r/a".to_vec(), Place::Inside(PathBuf::from("/r/a")), true);
        m.insert(b"/r/l".to_vec(), Place::Inside(PathBuf::from("/r/real")), false);
        m.insert(b"/r/m".to_vec(), Place::Missing(PathBuf::from("/r/m")), false);
        m.insert(b"/r/n".to_vec(), Place::Missing(PathBuf::from("/r/x/n")), false);
        m.insert(b"/o".to_vec(), Place::Outside, false);
        assert_eq!(m.get(b"/r/a"), Some(Place::Inside(PathBuf::from("/r/a"))));
        assert_eq!(m.get(b"/r/l"), Some(Place::Inside(PathBuf::from("/r/real"))));
        assert_eq!(m.get(b"/r/m"), Some(Place::Missing(PathBuf::from("/r/m"))));
        assert_eq!(m.get(b"/r/n"), Some(Place::Missing(PathBuf::from("/r/x/n"))));
        assert_eq!(m.get(b"/o"), Some(Place::Outside));
        assert_eq!(m.get(b"/r/b"), None);
        assert_eq!(m.verdict(b"/r/a"), Some(Landing::Inside));
        assert_eq!(m.verdict(b"/r/n"), Some(Landing::Missing));
        assert_eq!(m.verdict(b"/o"), Some(Landing::Outside));
        // The same listed file again counts once.
        m.insert(b"/r/a".to_vec(), Place::Inside(PathBuf::from("/r/a")), true);
        let listed = 1000;
        for i in 1..listed {
            let p = format!("/r/w{i}");
            m.insert(p.clone().into_bytes(), Place::Inside(PathBuf::from(p)), true);
        }
        assert_eq!(m.listed, listed);
        let others = MAX_PLACED + PLACED_PER_LISTED * listed;
        let mut i = 0;
        while m.map.len() < listed + others {
            m.insert(
                format!("/r/e{i}").into_bytes(),
                Place::Missing(PathBuf::from(format!("/r/e{i}"))),
                false,
            );
            i += 1;
        }
        assert_eq!(i, others - 4);
        m.insert(b"/r/past".to_vec(), Place::Missing(PathBuf::from("/r/past")), false);
        assert_eq!(m.get(b"/r/past"), None);
        // A listed file past it still is.
        m.insert(b"/r/last".to_vec(), Place::Inside(PathBuf::from("/r/last")), true);
        assert_eq!(m.get(b"/r/last"), Some(Place::Inside(PathBuf::from("/r/last"))));
    }

    /// A missing path that leaves a vendored copy of NVIDIA's sample apps
    /// (deepstream_python_apps, or the SDK's `sources/apps/sample_apps`,
    /// `audio_apps`, `objectDetector_*`) points into the install the copy
    /// belongs in; one inside the copy, or from any other `sources/`
    /// folder, is the project's own.
    #[test]
    fn paths_leaving_a_vendored_copy_point_into_the_install() {
        let cases = [
            (
                "r/vendor/deepstream_python_apps/apps/t1/pgie.txt",
                "r/samples/m.onnx",
                true,
            ),
            (
                "r/vendor/deepstream_python_apps/apps/t1/pgie.txt",
                "r/vendor/deepstream_python_apps/x",
                false,
            ),
            (
                "r/sources/apps/sample_apps/test5/configs/a.txt",
                "r/samples/configs/pgie.txt",
                true,
            ),
            (
                "r/ds-6.0/sources/apps/audio_apps/a/a.txt",
                "r/ds-6.0/samples/s.wav",
                true,
            ),
            ("r/sources/objectDetector_Yolo/a.txt", "r/samples/streams/s.mp4", true),
            (
                "r/sources/apps/sample_apps/test5/configs/a.txt",
                "r/sources/apps/x.txt",
                false,
            ),
            ("r/sources/myapp/configs/a.txt", "r/models/m.onnx", false),
            ("r/sources/apps/my_apps/a.txt", "r/models/m.onnx", false),
            ("r/sources/objectDetector_Yolo", "r/models/m.onnx", false),
            ("r/configs/a.txt", "r/samples/m.onnx", false),
        ];
        for (from, full, want) in cases {
            assert_eq!(into_install(Path::new(from), Path::new(full)), want, "{from} -> {full}");
        }
    }

    /// A path taken as normal is the same bytes that normalizing it one
    /// component at a time gives; every other path still goes that way.
    #[test]
    fn normal_paths_are_their_own_normal_form() {
        let paths = [
            "",
            "/",
            "//",
            "a",
            "/a",
            "a/b",
            "/a/b/c.txt",
            "./a",
            "a/./b",
            "a/.",
            "a/..",
            "../a",
            "a/../b",
            "/..",
            "/a/../../b",
            "a//b",
            "//a",
            "a/",
            "/a/b/",
            ".",
            "..",
            ".a/b..",
            "a/.b/..c",
            "a b/#c",
            "models/labels.txt # class names",
        ];
        for p in paths {
            let p = Path::new(p);
            let slow = by_components(p);
            assert_eq!(normalize(p).as_os_str(), slow.as_os_str(), "{}", p.display());
            assert_eq!(
                normalize_owned(p.to_path_buf()).as_os_str(),
                slow.as_os_str(),
                "{}",
                p.display()
            );
            assert_eq!(dir_of(p), p.parent().unwrap_or(Path::new("")), "{}", p.display());
            if is_normal(p) {
                assert_eq!(p.as_os_str(), slow.as_os_str(), "{}", p.display());
            }
        }
        assert!(is_normal(Path::new("/a/b/c.txt")) && is_normal(Path::new("a/.b/..c")));
        assert!(!is_normal(Path::new("a/./b")) && !is_normal(Path::new("../a")) && !is_normal(Path::new("a/")));
    }

    /// A key-file's path is the one `g_key_file_get_string` reads (`\s`
    /// a space, `\\` a backslash; an escape GLib refuses: no path); a
    /// YAML value has no such escapes.
    #[test]
    fn key_file_paths_are_resolved_glib_unescaped() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("dslint.toml", ""),
            (
                "app.txt",
                "[primary-gie]\nenable=1\nconfig-file=my\\spgie.txt\n[sink0]\nenable=1\ntype=1\n",
            ),
            ("my pgie.txt", "[property]\ngie-unique-id=1\n"),
            (
                "cfg.yml",
                "primary-gie:\n  enable: 1\n  config-file: my\\spgie.txt\nsink0:\n  enable: 1\n  type: 1\n",
            ),
        ];
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let ws = Workspace::load(&[dir.path().to_path_buf()]);
        let id = |name: &str| {
            let names: Vec<_> = ws.files.iter().map(|f| f.path.display().to_string()).collect();
            let found = ws
                .files
                .iter()
                .position(|f| f.path.file_name().is_some_and(|n| n == name));
            found.unwrap_or_else(|| panic!("{name} not loaded: {names:?}"))
        };
        let (app, yml) = (id("app.txt"), id("cfg.yml"));
        let name = |t: Option<Target>| match t {
            Some(Target::Exists(p)) => format!("exists {}", p.file_name().unwrap().to_string_lossy()),
            Some(Target::Missing(p)) => format!("missing {}", p.file_name().unwrap().to_string_lossy()),
            Some(Target::Outside(p)) => format!("outside {}", p.display()),
            None => "unknown".to_string(),
        };
        assert_eq!(name(ws.resolve(app, "my\\spgie.txt")), "exists my pgie.txt");
        assert_eq!(name(ws.resolve(app, "my pgie.txt")), "exists my pgie.txt");
        assert_eq!(name(ws.resolve(app, "file://my\\spgie.txt")), "exists my pgie.txt");
        assert_eq!(name(ws.resolve(app, "my\\\\spgie.txt")), "missing my\\spgie.txt");
        assert_eq!(name(ws.resolve(app, "my\\tpgie.txt")), "missing my\tpgie.txt");
        assert_eq!(name(ws.resolve(app, "my\\qpgie.txt")), "unknown");
        assert_eq!(name(ws.resolve(app, "my-pgie.txt\\")), "unknown");
        assert_eq!(name(ws.resolve(yml, "my\\spgie.txt")), "missing my\\spgie.txt");
    }
}

#[cfg(test)]
mod drop_tests {
    use super::disjoint_mut;

    /// Each id's item, once, in id order; an id past the end ends it.
    #[test]
    fn items_at_ids_are_borrowed_each_alone() {
        let mut v: Vec<u32> = (0..10).collect();
        let got: Vec<u32> = disjoint_mut(&mut v, &[0, 3, 4, 9]).into_iter().map(|x| *x).collect();
        assert_eq!(got, [0, 3, 4, 9]);
        for x in disjoint_mut(&mut v, &[1, 8]) {
            *x += 100;
        }
        assert_eq!(v, [0, 101, 2, 3, 4, 5, 6, 7, 108, 9]);
        assert!(disjoint_mut(&mut v, &[]).is_empty());
        assert_eq!(disjoint_mut(&mut v, &[2, 10, 11]).len(), 1);
    }
}

#[cfg(test)]
mod template_tests {
    use super::templated;

    #[test]
    fn placeholders_are_told_from_paths() {
        for t in [
            "{{ model_dir }}/model.plan",
            "@@ENGINE@@",
            "@@ROOT@@/build/libparser.so",
            "${MODEL_DIR}/detector.onnx",
            "${LABEL_DIR:-/labels}/classes.txt",
            "$VIDEO_DEVICE",
            " $ENGINE_PATH ",
            "$MODEL_DIR/detector.onnx",
            "models/$ARCH/detector.engine",
            "/opt/$APP/labels.txt",
            "model_$VER.onnx",
            "$VIDEO-DEVICE",
        ] {
            assert!(templated(t), "{t}");
        }
        for p in [
            "models/detector.onnx",
            "model@2x.engine",
            "a@@b.engine",
            "@@/x@@",
            "$",
            "$1",
            "$1/x.onnx",
            "price$/x.onnx",
            "a$.onnx",
            "${}/x",
            "{{ unclosed",
        ] {
            assert!(!templated(p), "{p}");
        }
    }
}
