//! The element graph: what a pipeline *is*, whatever format wrote it.
//!
//! A [`Pipeline`] is a list of [`Element`]s (each with a [`Role`]: a
//! GStreamer factory or the part it plays), the [`Link`]s between them, the
//! config files they load and the paths they reference. An element's
//! [`Property`]s know their effective value, the line that sets it and the
//! lines it overrides. Rules read only this (plus the per-file syntax checks
//! DS001–DS006, which look at documents): so one rule gives one code in
//! every format, and points at the line that wins.
//!
//! # How a rule asks for a property
//!
//! ```text
//! let mux = p.first(Role::Streammux)?;
//! if let Some(b) = mux.int("batch-size") {      // Option<Effective<i64>>
//!     b.value;                                   // what DeepStream ends up with
//!     b.site();                                  // the line that sets it (None: derived, no line to edit)
//!     b.at();                                    // where a finding points
//! }
//! mux.prop("batch_size");                        // `_` and `-` are the same name
//! ```
//!
//! A property DeepStream derives from another setting (deepstream-app's
//! `[source-list]` sets the mux and primary batch to the number of sources)
//! is a [`Setting`] with `derived` set, on top of the written ones it
//! overrides. A value the front end cannot know (a `$VAR`, a Python
//! expression, a YAML map) is [`Value::Unknown`] with the reason; the typed
//! getters return `None` for it, so a rule is silent.
//!
//! # How a fix writes
//!
//! A fix edits the winning [`Site`] (`Ctx::set_value`), or adds a key at the
//! element's [`Home`] (`Ctx::insert`): both go through the format's own
//! lossless document (`model::frontend::edit`), in the file's own style.
//!
//! # Adding a front end (a new format)
//!
//! 1. **Detect**: `model::detect` gives the file a `Kind` (and
//!    `syntax::Format`) from its content.
//! 2. **Lossless document**: a reader in `syntax/` keeps every token's byte
//!    span and prints an unedited document back byte for byte.
//! 3. **Front end**: a module in `model/frontend/` turns the document into a
//!    [`Pipeline`]: one [`Element`] per element with its [`Role`] (and
//!    factory when the format names it), its properties as [`Setting`]s
//!    (value, [`Site`] with file, scope and key/value/line spans, and the
//!    [`Layer`] it comes from: the element's config file is weaker than what
//!    the app or pipeline sets on the element), its [`Home`], the config files
//!    it loads ([`ConfigFile`]), [`Link`]s and path [`Reference`]s.
//!    `model::frontend::build` calls it for each root file of that kind.
//!    Property names are those of the element's config file or, without one,
//!    its GObject property names (`batch-size`, `gie-unique-id`); a front end
//!    whose syntax spells them otherwise translates.
//! 4. **Edits**: `model::frontend::edit` writes a value at a [`Site`] and a new
//!    key at a [`Home`]. A format whose properties live elsewhere (a node's
//!    `properties:` map, a gst-launch element's tokens) adds a [`Home`] variant
//!    and teaches `edit::insert` to write there.

use crate::base::shared::Shared;
use crate::base::{FileId, LineSpans, Span, Span32};
use crate::model::detect::Kind;
use crate::model::workspace::Target;
use crate::syntax::glib;

/// Every pipeline found, and the elements checked on their own.
#[derive(Debug, Default)]
pub struct Graph {
    pub pipelines: Vec<Pipeline>,
    /// Elements built from configs no pipeline references (an nvinfer or
    /// tracker config checked on its own, with no app around it).
    pub standalone: Vec<Element>,
}

/// One pipeline, as the program that runs it assembles it.
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// The file that defines it (a deepstream-app or test-app config).
    pub root: FileId,
    /// In pipeline order: sources, the mux, inference, tracker, output.
    pub elements: Vec<Element>,
    pub links: Vec<Link>,
    /// Every path-valued key the pipeline's files write (DS704).
    pub references: Vec<Reference>,
    /// Where the primary's batch comes from, summed up when the elements'
    /// properties are dropped (`rules::keep_for_report`), for the report.
    pub primary_batch: PrimaryBatch,
    /// Whether the program may hold elements this pipeline does not: a
    /// Python app's element made under a condition (left out), or made in
    /// another function of the module or in a pipeline string (each read
    /// on its own). A role it lacks is then unknown, not absent (DS203's
    /// "no tracker").
    pub partial: bool,
}

/// Whether the primary takes its `batch-size` from its config file, and
/// whether the streammux batch is known: what the report reads of a
/// pipeline's batches (`rules::withhold_batch_fixes_on_unread_shares`)
/// once its properties are gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimaryBatch {
    /// Not summed up: the elements' properties are there to read.
    Unread,
    /// No primary, or its batch is set on the element (or unknown).
    NotFromFile,
    /// The primary config's line (or nvinfer's default, which a line
    /// added to the file would replace) is the batch.
    FromFile { config: FileId, mux_known: bool },
}

/// An index into `Pipeline::elements`.
pub type ElemId = usize;

/// Data flows from `from` to `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub from: ElemId,
    pub to: ElemId,
}

/// What an element is: the GStreamer element (or the part of an app's
/// pipeline) a format describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// A source bin (`[sourceN]`, `[source-list]`, `nvurisrcbin`, …).
    Source(Source),
    /// nvstreammux.
    Streammux,
    /// nvdspreprocess.
    Preprocess,
    /// nvinfer.
    Infer(Stage),
    /// nvinferserver (Triton).
    InferServer(Stage),
    /// nvtracker.
    Tracker,
    /// nvdsanalytics.
    Analytics,
    Queue,
    Tee,
    /// nvdsosd.
    Osd,
    /// nvmultistreamtiler.
    Tiler,
    /// A sink bin (`[sinkN]`: fakesink, display, file, RTSP, broker, …).
    Sink,
    /// nvdsmetamux (the parallel-inference app).
    MetaMux,
    /// A deepstream-parallel-infer `branchN`: the nvstreammux it builds in
    /// front of one primary (`pgie-id`), fed the streams `src-ids` picks
    /// (its batch-size is their count).
    Branch,
    /// nvmsgconv.
    MsgConv,
    /// nvmsgbroker.
    MsgBroker,
    /// App-wide settings that belong to no element (deepstream-app's
    /// `[application]`: perf measurement, GPU).
    Application,
    /// deepstream-app's `[tests]` (file loop).
    Tests,
    /// Anything else, by factory name.
    Other(String),
}

impl Role {
    /// nvinfer or nvinferserver.
    pub fn is_inference(&self) -> bool {
        matches!(self, Role::Infer(_) | Role::InferServer(_))
    }
}

/// Whether an inference element works on whole frames or on objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Primary,
    Secondary,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    File,
    Live,
    Other,
}

/// What a source contributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    pub kind: SourceKind,
    /// Streams it feeds the mux (`num-sources` for a multi-URI source, the
    /// list's length for `[source-list]`); `None` when unknown (a CSV that
    /// cannot be read, sources added at run time).
    pub streams: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct Element {
    pub role: Role,
    /// The GStreamer factory, when the format names it or the role implies a
    /// specific one (`nvmultiurisrcbin` for a `[source-list]` that uses it).
    pub factory: Option<String>,
    /// The element's name in its format: the group (`primary-gie`,
    /// `source0`), a node's `name`, a gst-launch `name=`.
    pub name: String,
    pub props: Vec<Property>,
    /// The config file it loads (`config-file`, `ll-config-file`), if any.
    pub config: Option<ConfigFile>,
    /// Where a property it does not set yet is written: its config file for
    /// an element that loads one (nvinfer's `[property]`), else where the
    /// pipeline declares it; `None` when there is no such place
    /// (deepstream-app's `[tests]` when the file has none). Boxed, as are
    /// `declared` and the config's: a `Home` is 80 bytes, and an element
    /// (every pipeline's, and those kept for the report to the end of a
    /// check) held three inline.
    pub home: Option<Box<Home>>,
    /// Where the pipeline's file declares the element (its app group): where
    /// the app's own keys for it (`enable`) go. `None` for an element checked
    /// on its own.
    pub declared: Option<Box<Home>>,
}

/// A config file an element loads.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    pub file: FileId,
    /// What the file was read as (`None`: a file dslint does not read).
    pub kind: Option<Kind>,
    /// Where the file's own settings live (`[property]`, `[tracker]`), when
    /// it has that group.
    pub home: Option<Box<Home>>,
}

/// Where new properties of an element are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Home {
    /// A key-file `[group]` or a YAML top-level map: a new key goes after the
    /// group's last key (of its last occurrence), in the file's own style.
    Group {
        file: FileId,
        group: String,
        /// The group's name (last occurrence): where a finding about a
        /// property the element does not set points.
        header: Span,
    },
    /// A gst-launch element (a script's `gst-launch-1.0` arguments, a
    /// `Gst.parse_launch` string): ` key=value` is written at `at`, after
    /// the element's last token.
    Launch {
        file: FileId,
        at: usize,
        /// The element's factory name.
        header: Span,
    },
    /// An element a Python app makes: a new `set_property` statement is
    /// written at `at` (the start of the line after the element's last
    /// statement), `template` with `{key}` and `{value}` filled in.
    Python {
        file: FileId,
        at: usize,
        /// The call that makes the element.
        header: Span,
        template: String,
    },
    /// An nvinferserver config (protobuf text): each property has its own
    /// message and field (`batch-size` is `infer_config { max_batch_size }`,
    /// `interval` is `input_control { interval }`), where a new one goes.
    InferServer {
        file: FileId,
        /// The `infer_config` name.
        header: Span,
    },
    /// A map nested in a YAML file (a Service Maker node's `properties:`):
    /// a new `key: value` line goes at `insert_at` with `indent`, after
    /// `open` (the map's own key line, when the node has no map yet).
    YamlMap {
        file: FileId,
        /// The node's name: where a finding about the element points.
        header: Span,
        insert_at: usize,
        indent: String,
        open: Option<String>,
    },
}

impl Home {
    pub fn file(&self) -> FileId {
        match self {
            Home::Group { file, .. }
            | Home::Launch { file, .. }
            | Home::Python { file, .. }
            | Home::InferServer { file, .. }
            | Home::YamlMap { file, .. } => *file,
        }
    }
    /// Where to point a finding about the element as a whole.
    pub fn at(&self) -> (FileId, Span) {
        match self {
            Home::Group { file, header, .. }
            | Home::Launch { file, header, .. }
            | Home::Python { file, header, .. }
            | Home::InferServer { file, header }
            | Home::YamlMap { file, header, .. } => (*file, header.clone()),
        }
    }
}

/// One property of an element and every place that sets it.
#[derive(Debug, Clone)]
pub struct Property {
    /// The name as the winning setting writes it.
    pub name: Shared,
    /// Weakest first; the last one is what DeepStream uses, and the others
    /// are the lines it overrides.
    pub settings: Settings,
}

/// A property's settings. Almost every property has one (the line that
/// sets it), held inline: a vector of one took an allocation of its own
/// beside the property (a quarter million at 10k files, all alive while
/// the graph is whole). Reads as a slice, as the `Vec` did.
pub type Settings = smallvec::SmallVec<[Setting; 1]>;

/// One place that sets a property.
#[derive(Debug, Clone)]
pub struct Setting {
    pub value: Value,
    /// The line that writes it; `None` when the app derives the value and no
    /// line holds it (a fix has nothing to edit then).
    pub site: Option<Site>,
    /// Where a finding about this value points: the value's bytes, or what
    /// it is derived from.
    pub at: At,
    pub layer: Layer,
    /// How the value comes about when no line of its own writes it: the
    /// app derives it from another setting ("[source-list] sets it to the
    /// number of sources (2)"), or it is the element's default ("unset,
    /// nvinfer's default 1").
    pub derived: Option<Box<str>>,
}

/// Where a finding about a setting points, a file and a span, in 12 bytes
/// (the graph holds one per setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    file: u32,
    span: Span32,
}

impl At {
    pub fn get(self) -> (FileId, Span) {
        (self.file as FileId, self.span.get())
    }
}

impl From<(FileId, Span)> for At {
    fn from((file, span): (FileId, Span)) -> At {
        At {
            file: u32::try_from(file).expect("fewer than 2^32 files are loaded"),
            span: span.into(),
        }
    }
}

/// Where a setting comes from, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// The element's own default, where nothing sets the property and the
    /// front end knows every place that could (nvinfer's `batch-size` 1 in
    /// deepstream-app): a known value with no line (a fix inserts one).
    Default,
    /// The element's own config file (nvinfer's `[property]`).
    ConfigFile,
    /// What the app or pipeline sets on the element (`[primary-gie]`
    /// `batch-size`, a gst-launch `batch-size=4`): it overrides the file.
    Element,
    /// Derived by the app from other settings (`[source-list]`).
    Derived,
}

/// A property's value as the reader sees it before typing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// The text (a key-file value keeps its trailing whitespace, as GLib
    /// does; a YAML scalar is unquoted).
    Known(Shared),
    /// Not knowable from the files: why ("a YAML sequence or map", "`$VAR`").
    Unknown(String),
}

/// The bytes that write one setting. The graph holds one per line each
/// pipeline reads (a shared primary's lines once per pipeline), so its
/// spans are 32-bit ([`LineSpans`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub file: FileId,
    /// The group, map or node that holds it, as messages name it.
    pub group: Shared,
    /// The key as written.
    pub key: Shared,
    /// The key's bytes, the value's (a quoted YAML scalar includes its
    /// quotes) and the whole line(s), with the line end.
    pub spans: LineSpans,
}

impl Site {
    pub fn new(file: FileId, group: Shared, key: Shared, key_span: Span, value_span: Span, line_span: Span) -> Site {
        Site {
            file,
            group,
            key,
            spans: LineSpans::new(key_span, value_span, line_span),
        }
    }

    /// The site of one entry of a document.
    pub fn of(file: FileId, group: &Shared, e: &crate::syntax::Entry) -> Site {
        Site {
            file,
            group: group.clone(),
            key: e.key.clone(),
            spans: e.spans,
        }
    }
}

/// A path-valued key and what it points at (DS704).
#[derive(Debug, Clone)]
pub struct Reference {
    pub file: FileId,
    pub key: String,
    pub span: Span,
    pub target: Target,
    /// A config file (the app stops without it) rather than a data file.
    pub is_config: bool,
}

/// A property's effective value, typed, and the setting it comes from.
#[derive(Debug, Clone, Copy)]
pub struct Effective<'g, T> {
    pub value: T,
    pub setting: &'g Setting,
}

impl<'g, T> Effective<'g, T> {
    /// The line that sets it, which a fix can edit.
    pub fn site(&self) -> Option<&'g Site> {
        self.setting.site.as_ref()
    }
    /// Where a finding about it points.
    pub fn at(&self) -> (FileId, Span) {
        self.setting.at.get()
    }
}

/// GStreamer treats `_` and `-` in property names alike.
pub fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .all(|(x, y)| x == y || (matches!(x, b'-' | b'_') && matches!(y, b'-' | b'_')))
}

impl Setting {
    /// What the app or pipeline sets on the element, to a value that cannot
    /// be known from the files (`why`), at `at`: rules stay silent on it.
    pub fn unknown(at: (FileId, Span), why: impl Into<String>) -> Setting {
        Setting {
            value: Value::Unknown(why.into()),
            site: None,
            at: at.into(),
            layer: Layer::Element,
            derived: None,
        }
    }
}

impl Property {
    /// The setting that wins.
    pub fn effective(&self) -> Option<&Setting> {
        self.settings.last()
    }
}

impl Element {
    pub fn prop(&self, name: &str) -> Option<&Property> {
        self.props.iter().find(|p| same_name(&p.name, name))
    }

    /// The effective value's text; `None` when unset or unknown.
    pub fn str(&self, name: &str) -> Option<Effective<'_, &str>> {
        let setting = self.prop(name)?.effective()?;
        match &setting.value {
            Value::Known(v) => Some(Effective { value: v, setting }),
            Value::Unknown(_) => None,
        }
    }

    /// The effective value as GLib's integer reader takes it (trailing
    /// text after whitespace ignored); `None` when unset, unknown or not an
    /// integer.
    pub fn int(&self, name: &str) -> Option<Effective<'_, i64>> {
        let s = self.str(name)?;
        Some(Effective {
            value: glib::parse_int(s.value)?,
            setting: s.setting,
        })
    }

    /// The effective value as GLib's boolean reader takes it.
    pub fn bool(&self, name: &str) -> Option<Effective<'_, bool>> {
        let s = self.str(name)?;
        Some(Effective {
            value: glib::parse_bool(s.value)?,
            setting: s.setting,
        })
    }

    /// The effective value as a GObject boolean property takes it from text
    /// (GStreamer's `gst_value_deserialize`: `true`/`yes`/`t`/`1` and
    /// `false`/`no`/`f`/`0`, any case; a Python `True` is written `true`).
    pub fn flag(&self, name: &str) -> Option<Effective<'_, bool>> {
        let s = self.str(name)?;
        let value = match s.value.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "t" | "1" => true,
            "false" | "no" | "f" | "0" => false,
            _ => return None,
        };
        Some(Effective {
            value,
            setting: s.setting,
        })
    }

    /// Whether a property is set to a value that is not known (a `$VAR`, a
    /// Python expression).
    pub fn unknown(&self, name: &str) -> bool {
        self.prop(name)
            .and_then(Property::effective)
            .is_some_and(|s| matches!(s.value, Value::Unknown(_)))
    }

    /// The source this element is, if it is one.
    pub fn source(&self) -> Option<&Source> {
        match &self.role {
            Role::Source(s) => Some(s),
            _ => None,
        }
    }

    /// Where a finding about the element as a whole points, if anywhere.
    pub fn at(&self) -> Option<(FileId, Span)> {
        self.home.as_deref().map(Home::at)
    }

    /// Whether the config file it loads was read as `kind`.
    pub fn config_is(&self, kind: Kind) -> bool {
        self.config.as_ref().is_some_and(|c| c.kind == Some(kind))
    }
}

impl Pipeline {
    /// Elements with this role, in pipeline order.
    pub fn all<'p>(&'p self, role: &'p Role) -> impl Iterator<Item = &'p Element> + 'p {
        self.elements.iter().filter(move |e| e.role == *role)
    }

    /// The first element with this role.
    pub fn first(&self, role: &Role) -> Option<&Element> {
        self.elements.iter().find(|e| e.role == *role)
    }

    pub fn sources(&self) -> impl Iterator<Item = &Element> {
        self.elements.iter().filter(|e| matches!(e.role, Role::Source(_)))
    }

    /// Inference elements (nvinfer and nvinferserver), in pipeline order.
    pub fn infers(&self) -> impl Iterator<Item = &Element> {
        self.elements.iter().filter(|e| e.role.is_inference())
    }

    /// The first inference element that works on whole frames (nvinfer or
    /// nvinferserver).
    pub fn primary(&self) -> Option<&Element> {
        self.elements
            .iter()
            .find(|e| matches!(e.role, Role::Infer(Stage::Primary) | Role::InferServer(Stage::Primary)))
    }

    /// The parallel-inference app's branches, in the app's order; the
    /// `i`-th feeds the `i`-th primary (`create_parallel_infer_bin`).
    pub fn branches(&self) -> impl Iterator<Item = &Element> {
        self.all(&Role::Branch)
    }

    /// Whether primaries run side by side behind branches (the
    /// parallel-inference app), each fed by its own branch's mux rather than
    /// the main streammux.
    pub fn is_parallel(&self) -> bool {
        self.branches().next().is_some()
    }

    /// The elements data from `e` reaches through the links (not `e`
    /// itself); empty when `e` is not one of this pipeline's elements.
    pub fn downstream<'p>(&'p self, e: &Element) -> impl Iterator<Item = &'p Element> + 'p {
        let start = self.elements.iter().position(|x| std::ptr::eq(x, e));
        let mut reached = vec![false; self.elements.len()];
        if let Some(s) = start {
            reached[s] = true;
        }
        // Passes over the links until nothing changes: one pass (and a
        // check) when the links are in data order, as front ends that build
        // chains push them.
        let mut changed = start.is_some();
        while changed {
            changed = false;
            for l in &self.links {
                if reached.get(l.from) == Some(&true) && reached.get(l.to) == Some(&false) {
                    reached[l.to] = true;
                    changed = true;
                }
            }
        }
        if let Some(s) = start {
            reached[s] = false;
        }
        self.elements.iter().zip(reached).filter_map(|(x, r)| r.then_some(x))
    }

    /// Inference elements that work on objects.
    pub fn secondaries(&self) -> impl Iterator<Item = &Element> {
        self.elements.iter().filter(|e| {
            matches!(
                e.role,
                Role::Infer(Stage::Secondary) | Role::InferServer(Stage::Secondary)
            )
        })
    }

    /// The streams the config's sources feed the mux: the sum over its
    /// sources; `None` when it has none, any count is unknown or the sum
    /// overflows (a count read from a config is not trusted to be small).
    pub fn streams(&self) -> Option<u32> {
        let mut n: u32 = 0;
        let mut any = false;
        for s in self.sources().filter_map(Element::source) {
            n = n.checked_add(s.streams?)?;
            any = true;
        }
        any.then_some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The graph holds a setting per line each pipeline reads: these sizes
    /// are what its memory is made of (a site was 88 bytes and a setting
    /// 176 with 64-bit spans and an owned `derived`; 64 and 120 with
    /// `Arc<str>` texts, before `Shared` was one pointer).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn settings_and_sites_keep_their_compact_size() {
        assert_eq!(std::mem::size_of::<Site>(), 48);
        assert_eq!(std::mem::size_of::<At>(), 12);
        assert_eq!(std::mem::size_of::<Setting>(), 104);
        // One setting inline (`Settings`), no allocation beside: was 40
        // bytes and an allocation of 120 (128 in mimalloc's size class).
        assert_eq!(std::mem::size_of::<Property>(), 128);
    }

    /// An element holds its three homes boxed: 136 bytes, not ~350 with
    /// the 80-byte `Home`s inline (pipelines kept for the report hold their
    /// elements to the end of a check).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn an_element_keeps_its_compact_size() {
        assert_eq!(std::mem::size_of::<Element>(), 136);
        assert_eq!(std::mem::size_of::<Home>(), 80);
    }

    /// A span and a setting's place read back as they were given.
    #[test]
    fn compact_spans_read_back_what_was_given() {
        let site = Site::new(3, "g".into(), "k".into(), 10..13, 14..20, 10..21);
        assert_eq!(
            (site.spans.key(), site.spans.value(), site.spans.line()),
            (10..13, 14..20, 10..21)
        );
        let at: At = (7, 5_000_000..10_485_760).into();
        assert_eq!(at.get(), (7, 5_000_000..10_485_760));
    }

    fn setting(v: &str, layer: Layer) -> Setting {
        Setting {
            value: Value::Known(v.into()),
            site: None,
            at: (0, 0..0).into(),
            layer,
            derived: None,
        }
    }

    fn element(props: Vec<Property>) -> Element {
        Element {
            role: Role::Streammux,
            factory: None,
            name: "streammux".into(),
            props,
            config: None,
            home: None,
            declared: None,
        }
    }

    #[test]
    fn the_last_setting_wins_and_dashes_equal_underscores() {
        let e = element(vec![Property {
            name: "batch-size".into(),
            settings: smallvec::smallvec![setting("2", Layer::ConfigFile), setting("4  # four", Layer::Element)],
        }]);
        assert_eq!(e.int("batch_size").map(|b| b.value), Some(4));
        assert_eq!(e.str("batch-size").map(|b| b.value), Some("4  # four"));
        assert!(e.int("batch-sizes").is_none());
        assert!(same_name("max_batch-size", "max-batch_size"));
        assert!(!same_name("a-b", "a.b"));
    }

    #[test]
    fn unknown_values_read_as_nothing() {
        let mut s = setting("", Layer::Element);
        s.value = Value::Unknown("`$BATCH`".into());
        let e = element(vec![Property {
            name: "batch-size".into(),
            settings: smallvec::smallvec![s],
        }]);
        assert!(e.prop("batch-size").is_some());
        assert!(e.int("batch-size").is_none());
        assert!(e.str("batch-size").is_none());
    }

    #[test]
    fn stream_counts_never_overflow() {
        let source = |streams| Element {
            role: Role::Source(Source {
                kind: SourceKind::File,
                streams,
            }),
            ..element(vec![])
        };
        let p = |elements| Pipeline {
            root: 0,
            elements,
            links: vec![],
            references: vec![],
            primary_batch: PrimaryBatch::Unread,
            partial: false,
        };
        let big = Some(2_147_483_647);
        assert_eq!(p(vec![source(big), source(big), source(big)]).streams(), None);
        assert_eq!(p(vec![source(Some(2)), source(Some(1))]).streams(), Some(3));
        assert_eq!(p(vec![source(Some(2)), source(None)]).streams(), None);
        assert_eq!(p(vec![]).streams(), None);
    }
}
