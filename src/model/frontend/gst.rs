//! What the code front ends share (gst-launch lines, Python apps): GStreamer
//! elements by factory, with the GObject properties the code sets on them.
//!
//! - A factory's [`Role`]: nvinfer is secondary when its `process-mode` is
//!   2 (on the element, else in its config file).
//! - nvinfer with `config-file-path`: the file's `[property]` is the weaker
//!   layer. nvinfer gives the properties set on the element preference over
//!   its config file whatever the order they are set in (DS 9.1
//!   `gstnvinfer.cpp` `gst_nvinfer_set_property` marks `is_prop_set`, and
//!   `gstnvinfer_property_parser.cpp` skips those keys;
//!   `gst_nvinfer_reset_init_params` keeps them): `batch-size`, `unique-id`,
//!   `gpu-id`, `model-engine-file`, `process-mode`, `interval`,
//!   `infer-on-gie-id`, `infer-on-class-ids`, `input-tensor-meta`. Their
//!   config-file names differ for three (`gie-unique-id`,
//!   `operate-on-gie-id`, `operate-on-class-ids`): the graph uses the
//!   config file's. Any other key set in both places depends on the order:
//!   unknown.
//! - Sources and the streams they feed the mux: a source is the head of a
//!   chain that ends in a mux sink pad; it feeds as many streams as links
//!   from it reach the mux. When some part of the pipeline is not known (an
//!   element from a `$VAR`, a bin), no count is.

use std::collections::{HashMap, HashSet};

use crate::base::shared::Shared;
use crate::base::{FileId, Span};
use crate::model::detect::Kind;
use crate::model::frontend::app::uri_kind;
use crate::model::frontend::config::config_file;
use crate::model::frontend::{SINK_FACTORIES, factory_role, overlay};
use crate::model::graph::{
    Element, Home, Layer, Link, Pipeline, PrimaryBatch, Property, Reference, Role, Setting, Source, SourceKind, Stage,
    Value, same_name,
};
use crate::model::workspace::{Target, Workspace};

/// nvinfer properties set on the element that win over its config file,
/// with the config file's name for each.
const NVINFER_WINS: &[(&str, &str)] = &[
    ("batch-size", "batch-size"),
    ("unique-id", "gie-unique-id"),
    ("gpu-id", "gpu-id"),
    ("model-engine-file", "model-engine-file"),
    ("process-mode", "process-mode"),
    ("interval", "interval"),
    ("infer-on-gie-id", "operate-on-gie-id"),
    ("infer-on-class-ids", "operate-on-class-ids"),
    ("input-tensor-meta", "input-tensor-meta"),
];

/// The sinks that write files (DS503), among `frontend::SINK_FACTORIES`.
/// `nvvideoencfilesinkbin` (DeepStream's `gst-nvdsbins`,
/// `gstdsnvvideoencfilesinkbin.h`: a bin of converter, encoder, parser,
/// muxer and file sink writing `output-file`) is one too.
pub const FILE_SINKS: &[&str] = &[
    "filesink",
    "splitmuxsink",
    "multifilesink",
    "hlssink",
    "hlssink2",
    "nvvideoencfilesinkbin",
];
/// Encoders: a queue in front of one feeds a file or a network stream.
pub const ENCODERS: &[&str] = &[
    "nvv4l2h264enc",
    "nvv4l2h265enc",
    "nvv4l2av1enc",
    "x264enc",
    "x265enc",
    "nvh264enc",
    "nvh265enc",
    "jpegenc",
    "nvjpegenc",
];

/// Source factories and what they read.
fn source_kind(factory: &str, props: &[Property]) -> Option<SourceKind> {
    let text = |k: &str| {
        props
            .iter()
            .find(|p| same_name(&p.name, k))
            .and_then(Property::effective)
            .and_then(|s| match &s.value {
                Value::Known(v) => Some(v.as_str()),
                Value::Unknown(_) => None,
            })
    };
    Some(match factory {
        "filesrc" | "multifilesrc" => SourceKind::File,
        "rtspsrc" | "v4l2src" | "nvarguscamerasrc" | "nvv4l2camerasrc" | "udpsrc" | "rtmpsrc" | "srtsrc" => {
            SourceKind::Live
        }
        "uridecodebin" | "uridecodebin3" | "nvurisrcbin" | "urisourcebin" | "playbin" => {
            text("uri").map_or(SourceKind::Other, uri_kind)
        }
        "videotestsrc" => match text("is-live").map(str::to_ascii_lowercase).as_deref() {
            Some("true" | "1" | "yes" | "t") => SourceKind::Live,
            _ => SourceKind::Other,
        },
        "appsrc" | "nvmultiurisrcbin" | "souphttpsrc" => SourceKind::Other,
        _ => return None,
    })
}

/// The role of an element by its factory.
pub fn role(factory: &str, props: &[Property]) -> Role {
    let process_mode = || {
        props
            .iter()
            .find(|p| same_name(&p.name, "process-mode"))
            .and_then(Property::effective)
            .and_then(|s| match &s.value {
                Value::Known(v) => crate::syntax::glib::parse_int(v),
                Value::Unknown(_) => None,
            })
    };
    let stage = if process_mode() == Some(2) {
        Stage::Secondary
    } else {
        Stage::Primary
    };
    if let Some(role) = factory_role(factory, stage) {
        return role;
    }
    match factory {
        f if SINK_FACTORIES.contains(&f) => Role::Sink,
        f => match source_kind(f, props) {
            Some(kind) => Role::Source(Source { kind, streams: None }),
            None => Role::Other(f.to_string()),
        },
    }
}

/// The properties an element's code sets, in order; a repeated one keeps
/// every setting (the last wins). Found by name: among the first few by
/// comparing, then through an index, so an element with many properties
/// stays linear (and one with a few makes no index).
#[derive(Debug, Default)]
pub struct Props {
    list: Vec<Property>,
    /// Each property's place by its canonical name, once there are more
    /// than `FEW`.
    index: HashMap<String, usize>,
}

/// How many properties are found by comparing names.
const FEW: usize = 8;

/// A property name as GStreamer compares them (`_` is `-`).
fn canonical(name: &str) -> String {
    name.replace('_', "-")
}

impl Props {
    pub fn push(&mut self, name: &str, setting: Setting) {
        let at = if self.list.len() <= FEW {
            self.list.iter().position(|p| same_name(&p.name, name))
        } else {
            self.index.get(&canonical(name)).copied()
        };
        match at {
            Some(i) => self.list[i].settings.push(setting),
            None => {
                if self.list.len() == FEW {
                    self.index = self
                        .list
                        .iter()
                        .enumerate()
                        .map(|(i, p)| (canonical(&p.name), i))
                        .collect();
                }
                if self.list.len() >= FEW {
                    self.index.insert(canonical(name), self.list.len());
                }
                self.list.push(Property {
                    name: name.into(),
                    settings: smallvec::smallvec![setting],
                });
            }
        }
    }

    pub fn into_vec(self) -> Vec<Property> {
        self.list
    }
}

/// An element a code front end found: its factory (`None`: not known), its
/// name, the properties it sets in order, and where new ones go.
pub struct Found {
    pub factory: Option<String>,
    pub name: String,
    pub props: Vec<Property>,
    pub home: Option<Home>,
}

/// Build the graph's element, loading nvinfer's config file. `references`
/// collects the config paths that can be checked (DS704).
pub fn element(ws: &mut Workspace, root: FileId, found: Found, references: &mut Vec<Reference>) -> Element {
    let found_home = found.home.map(Box::new);
    let Some(factory) = found.factory else {
        return Element {
            role: Role::Other("?".into()),
            factory: None,
            name: found.name,
            props: found.props,
            config: None,
            declared: found_home.clone(),
            home: found_home,
        };
    };
    let mut props = found.props;
    let mut config = None;
    if factory == "nvinfer" {
        let path = props
            .iter()
            .find(|p| same_name(&p.name, "config-file-path"))
            .and_then(Property::effective)
            .cloned();
        if let Some(Setting {
            value: Value::Known(raw),
            at,
            ..
        }) = path
        {
            config = follow(ws, root, &raw, at.get().1, references);
        }
        if let Some(c) = &config {
            props = layered(ws, c.file, props);
        }
    }
    if factory == "nvtracker" {
        low_level_config(ws, root, &props);
    }
    let role = role(&factory, &props);
    let home = match &config {
        Some(c) => c.home.clone().or(found_home.clone()),
        None => found_home.clone(),
    };
    Element {
        role,
        factory: Some(factory),
        name: found.name,
        props,
        config: config.map(|c| config_file(ws, c.file)),
        declared: found_home,
        home,
    }
}

/// Load the config file a path names. A relative path is relative to the
/// process's working directory, which the code does not say, and an
/// absolute one is often a container's (`/ws/…`): it is read relative to
/// the file's folder (where these apps are run from) when it is there, and
/// a missing one is no finding (DS704 needs to know where the app runs).
fn follow(
    ws: &mut Workspace,
    root: FileId,
    raw: &str,
    span: Span,
    references: &mut Vec<Reference>,
) -> Option<crate::model::graph::ConfigFile> {
    let target = ws.resolve(root, raw)?;
    if matches!(target, Target::Exists(_)) {
        references.push(Reference {
            file: root,
            key: "config-file-path".into(),
            span,
            target: target.clone(),
            is_config: true,
        });
    }
    // nvinfer reads it as its config, whatever its content suggests
    // (Precision 1: the reference beats content).
    // Outside the root, only `--follow-outside` reads it (as content says).
    let id = ws
        .load_reference_as(root, raw, Kind::NvInfer)
        .or_else(|| ws.load_reference(root, raw))?;
    (id != root).then(|| config_file(ws, id))
}

/// The file nvtracker's `ll-config-file` names is its low-level library's
/// config, whatever its content suggests (Precision 1): nvtracker hands the
/// path to the library (`NvMOTConfig.customConfigFilePath`,
/// `nvtracker_proc.cpp`), and a `[tracker]` key-file there is not a test
/// app's tracker config (DS002 does not judge it against that table, no
/// tracker rule reads its keys as nvtracker's). Only the file's kind is
/// set: the tracker rules find it by its path (`rules::tracker`), and the
/// element loads no config of its own.
fn low_level_config(ws: &mut Workspace, root: FileId, props: &[Property]) {
    let raw = props
        .iter()
        .find(|p| same_name(&p.name, "ll-config-file"))
        .and_then(Property::effective)
        .and_then(|s| match &s.value {
            Value::Known(raw) => Some(raw.clone()),
            Value::Unknown(_) => None,
        });
    if let Some(raw) = raw {
        ws.load_reference_as(root, &raw, Kind::TrackerLowLevel);
    }
}

/// nvinfer's properties: its config file's `[property]` under what the
/// element sets (see the module comment).
fn layered(ws: &Workspace, config: FileId, element: Vec<Property>) -> Vec<Property> {
    let doc = &ws.files[config].doc;
    let mut props = crate::model::frontend::group_props(doc, config, "property", Layer::ConfigFile);
    // The file's names, as GStreamer compares them, to its spelling.
    let in_file: HashMap<String, Shared> = props.iter().map(|c| (canonical(&c.name), c.name.clone())).collect();
    let mut upper = Vec::new();
    for mut p in element {
        let wins = NVINFER_WINS.iter().find(|(prop, _)| same_name(prop, &p.name));
        match wins {
            Some((_, key)) => {
                p.name = (*key).into();
                upper.push(p);
            }
            None if in_file.contains_key(&canonical(&p.name)) => {
                // Set in both: whichever nvinfer reads last wins.
                if let Some(at) = p.settings.last().map(|s| s.at.get()) {
                    p.settings
                        .push(Setting::unknown(at, "set on the element and in its config file"));
                }
                upper.push(p);
            }
            None => upper.push(p),
        }
    }
    // Property names compare with `_` and `-` alike; overlay matches exact
    // names, so spell the element's as the file does.
    for p in &mut upper {
        if let Some(name) = in_file.get(&canonical(&p.name)) {
            p.name = name.clone();
        }
    }
    overlay(&mut props, upper);
    props
}

/// A pipeline from elements and links: sources found (the heads of chains
/// that reach a streammux) and their streams counted, unless the structure
/// is not all known (`opaque`).
pub fn assemble(
    root: FileId,
    mut elements: Vec<Element>,
    links: Vec<Link>,
    opaque: bool,
    references: Vec<Reference>,
) -> Pipeline {
    let n = elements.len();
    let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
    for l in &links {
        if l.from < n && l.to < n {
            incoming[l.to].push(l.from);
        }
    }
    let mut feeds = vec![0u32; n];
    let mut lost = opaque;
    let mut heads = vec![Head::Unknown; n];
    for l in &links {
        if l.to >= n || elements[l.to].role != Role::Streammux {
            continue;
        }
        match head(&incoming, &mut heads, l.from) {
            Some(h) => feeds[h] = feeds[h].saturating_add(1),
            None => lost = true,
        }
    }
    for (i, e) in elements.iter_mut().enumerate() {
        let factory = e.factory.clone().unwrap_or_default();
        let kind = match &e.role {
            Role::Source(s) => Some(s.kind),
            Role::Other(_) if feeds[i] > 0 => Some(SourceKind::Other),
            _ => None,
        };
        if let Some(kind) = kind {
            let streams = (!lost && factory != "nvmultiurisrcbin").then_some(feeds[i]);
            e.role = Role::Source(Source { kind, streams });
        } else if feeds[i] > 0 {
            // A chain whose head is not a source (a muxer, an inference
            // element): its streams are not countable.
            lost = true;
        }
    }
    if lost {
        for e in &mut elements {
            if let Role::Source(s) = &mut e.role {
                s.streams = None;
            }
        }
    }
    Pipeline {
        root,
        elements,
        links,
        references,
        primary_batch: PrimaryBatch::Unread,
        partial: false,
    }
}

/// What is known of an element's chain head.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Head {
    Unknown,
    /// Being followed now (met again: a loop).
    Visiting,
    Found(Option<usize>),
}

/// The head of the chain that ends at `at`: follow single incoming links
/// up; `None` at a join or a loop. Every element's answer is kept, so
/// chains that share a long upstream part are followed once.
fn head(incoming: &[Vec<usize>], heads: &mut [Head], at: usize) -> Option<usize> {
    let mut path = Vec::new();
    let mut cur = at;
    let found = loop {
        match heads[cur] {
            Head::Found(h) => break h,
            Head::Visiting => break None,
            Head::Unknown => {}
        }
        heads[cur] = Head::Visiting;
        path.push(cur);
        match incoming[cur].as_slice() {
            [] => break Some(cur),
            [one] => cur = *one,
            _ => break None,
        }
    };
    for p in path {
        heads[p] = Head::Found(found);
    }
    found
}

/// Each element's links: where its output goes, and where its input comes
/// from.
pub struct Adjacency {
    pub out: Vec<Vec<usize>>,
    pub into: Vec<Vec<usize>>,
}

impl Adjacency {
    pub fn of(p: &Pipeline) -> Adjacency {
        let n = p.elements.len();
        let mut a = Adjacency {
            out: vec![Vec::new(); n],
            into: vec![Vec::new(); n],
        };
        for l in p.links.iter().filter(|l| l.from < n && l.to < n) {
            a.out[l.from].push(l.to);
            a.into[l.to].push(l.from);
        }
        a
    }

    /// The elements downstream of `from` along single links, up to and
    /// including the first one `stop` accepts, in order.
    pub fn downstream<'p>(&self, p: &'p Pipeline, from: usize, stop: impl Fn(&Element) -> bool) -> Vec<&'p Element> {
        self.walk(&self.out, from)
            .map(|i| &p.elements[i])
            .scan(false, |stopped, e| {
                (!*stopped).then(|| {
                    *stopped = stop(e);
                    e
                })
            })
            .collect()
    }

    /// The elements upstream of `from` along single links, in order.
    pub fn upstream<'a>(&'a self, p: &'a Pipeline, from: usize) -> impl Iterator<Item = &'a Element> + 'a {
        self.walk(&self.into, from).map(move |i| &p.elements[i])
    }

    /// Follow single links from `from` (not included) until a fork, a join's
    /// other side, the end or a loop.
    fn walk<'a>(&'a self, next: &'a [Vec<usize>], from: usize) -> impl Iterator<Item = usize> + 'a {
        let mut seen = HashSet::new();
        let mut at = from;
        std::iter::from_fn(move || {
            let [one] = next.get(at)?.as_slice() else { return None };
            if !seen.insert(*one) {
                return None;
            }
            at = *one;
            Some(at)
        })
    }
}

#[cfg(test)]
mod props_tests {
    use super::*;

    /// A property set again (`_` or `-`) keeps its first name and gains a
    /// setting, whether found by comparing (a few) or through the index
    /// (many); the order is the order of first setting.
    #[test]
    fn props_found_by_canonical_name_few_and_many() {
        for n in [1, FEW - 1, FEW, FEW + 1, 3 * FEW] {
            let mut p = Props::default();
            let set = |why: &str| Setting::unknown((0, 0..0), why.to_string());
            for i in 0..n {
                p.push(&format!("key_{i}"), set("first"));
            }
            for i in (0..n).rev() {
                p.push(&format!("key-{i}"), set("again"));
            }
            p.push("other", set("other"));
            let list = p.into_vec();
            let names: Vec<String> = list.iter().map(|q| q.name.to_string()).collect();
            let mut expected: Vec<String> = (0..n).map(|i| format!("key_{i}")).collect();
            expected.push("other".into());
            assert_eq!(names, expected, "{n}");
            let counts: Vec<usize> = list.iter().map(|q| q.settings.len()).collect();
            let mut twice = vec![2; n];
            twice.push(1);
            assert_eq!(counts, twice, "{n}");
        }
    }
}
