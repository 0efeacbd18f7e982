//! Service Maker pipeline YAML (DS 7.0+, read by Service Maker's
//! `YAML_DSConfig`, `service-maker/includes/ds_yaml_parser.hpp`):
//!
//! ```yaml
//! deepstream:
//!   nodes:
//!   - type: nvstreammux          # a GStreamer factory, or `module.type`
//!     name: mux
//!     properties: {batch-size: 4} # GObject properties, under their names
//!   edges:
//!     mux: infer                  # one target, or a list of them
//!     tee: [queue_a, queue_b]     # a `name.pad` key names a pad
//! ```
//!
//! Node order is not pipeline order: the edges are. Sources are often
//! linked to the mux by the app at run time (deepstream_test5's dynamic
//! sources), so the edges may not name them: every source node is one
//! stream (nvmultiurisrcbin's streams arrive at run time: unknown). A node
//! with `enable: false` is not created (the samples' own comment: "to
//! disable an element just use enable: false").
//!
//! Properties are the element's GObject properties; an nvinfer or
//! nvinferserver property set on the element overrides its config file's
//! value (nvinfer ignores a config key whose property was set; nvinferserver
//! `validatePluginConfig`). Their GObject names are translated to the
//! config keys the rules ask for (`unique-id` → `gie-unique-id`,
//! `infer-on-gie-id` → `operate-on-gie-id`).

use std::collections::{BTreeSet, HashMap, HashSet};

use rayon::prelude::*;

use crate::base::FileId;
use crate::model::detect::Kind;
use crate::model::frontend::app::{CONFIG_PATH_KEYS, DATA_PATH_KEYS, collect_path_references, uri_kind};
use crate::model::frontend::config::{config_file, config_props};
use crate::model::frontend::{SINK_FACTORIES, by_name, factory_role, overlay, setting};
use crate::model::graph::{
    ConfigFile, Element, Home, Layer, Link, Pipeline, PrimaryBatch, Property, Reference, Role, Source, SourceKind,
    Stage, Value,
};
use crate::model::workspace::Workspace;
use crate::syntax::yaml_tree::Node;

/// Factories that produce streams, and what kind.
const SOURCES: &[(&str, SourceKind)] = &[
    ("nvurisrcbin", SourceKind::Other),
    ("uridecodebin", SourceKind::Other),
    ("uridecodebin3", SourceKind::Other),
    ("urisourcebin", SourceKind::Other),
    ("nvmultiurisrcbin", SourceKind::Other),
    ("filesrc", SourceKind::File),
    ("multifilesrc", SourceKind::File),
    ("rtspsrc", SourceKind::Live),
    ("v4l2src", SourceKind::Live),
    ("nvv4l2camerasrc", SourceKind::Live),
    ("nvarguscamerasrc", SourceKind::Live),
    ("appsrc", SourceKind::Other),
    ("videotestsrc", SourceKind::Other),
];

/// The role a factory plays.
pub fn role(factory: &str, stage: Stage) -> Role {
    // Service Maker also names the inference bins.
    let factory = match factory {
        "nvinferbin" => "nvinfer",
        "nvinferserverbin" => "nvinferserver",
        f => f,
    };
    if let Some(role) = factory_role(factory, stage) {
        return role;
    }
    match factory {
        f if SINK_FACTORIES.contains(&f) => Role::Sink,
        f => match SOURCES.iter().find(|(s, _)| *s == f) {
            Some((_, kind)) => Role::Source(Source {
                kind: *kind,
                streams: (f != "nvmultiurisrcbin").then_some(1),
            }),
            None => Role::Other(f.to_string()),
        },
    }
}

/// The property that names the config file a factory loads, and what the
/// file is read as.
fn config_key(factory: &str) -> Option<&'static str> {
    match factory {
        "nvinfer" | "nvinferbin" | "nvinferserver" | "nvinferserverbin" | "nvstreammux" => Some("config-file-path"),
        "nvtracker" => Some("ll-config-file"),
        "nvdspreprocess" | "nvdsanalytics" | "nvdsmetamux" => Some("config-file"),
        _ => None,
    }
}

/// GObject names of inference properties → the config keys rules ask for.
const INFER_RENAMES: &[(&str, &str)] = &[
    ("unique-id", "gie-unique-id"),
    ("infer-on-gie-id", "operate-on-gie-id"),
    ("infer-on-class-ids", "operate-on-class-ids"),
];

/// GObject properties of the elements dslint fixes that are booleans:
/// Service Maker reads them from YAML as booleans (`true`/`false`), so a
/// fix writes words, not `0`/`1`.
pub const BOOLEAN_PROPERTIES: &[&str] = &[
    "live-source",
    "sync",
    "async",
    "qos",
    "enable-padding",
    "input-tensor-meta",
    "enable-batch-process",
    "enable-past-frame",
    "display-tracking-id",
    "file-loop",
];

/// One node as written.
struct NodeDecl<'t> {
    factory: String,
    name: String,
    /// The node's map and its `properties:` value, if any.
    node: &'t Node,
    properties: Option<&'t Node>,
}

/// The pipeline a Service Maker YAML describes, loading the config files
/// its elements name (added to `referenced`).
pub fn build(ws: &mut Workspace, root: FileId, referenced: &mut HashSet<FileId>) -> Pipeline {
    let text = ws.files[root].doc.text.clone();
    // The tree of `deepstream:` from the document's own parse (not a
    // second parse of the text: half of an 8 MiB pipeline's check).
    let kept = ws.files[root].doc.kept.clone();
    let deepstream = kept.as_deref().and_then(|k| k.get("deepstream"));
    let decls: Vec<NodeDecl> = deepstream
        .and_then(|d| d.get("nodes"))
        .map(Node::items)
        .unwrap_or_default()
        .iter()
        .filter_map(|n| {
            let factory = n.get("type")?.as_str()?.to_string();
            let name = n.get("name").and_then(Node::as_str).unwrap_or(&factory).to_string();
            let off = n.get("enable").and_then(Node::as_str).is_some_and(is_false);
            (!off).then(|| NodeDecl {
                factory,
                name,
                node: n,
                properties: n.get("properties"),
            })
        })
        .collect();
    // Each node's own properties on all threads (a large pipeline's
    // nodes were most of its build, on one thread), the config files they
    // name loaded in written order on this one, then each element made up
    // on all threads again; joined in written order (the same pipeline).
    let declared: Vec<(Vec<Property>, Vec<Reference>)> = {
        let ws: &Workspace = ws;
        decls
            .par_iter()
            .with_min_len(PAR_NODES)
            .map(|d| declared_props(ws, root, &text, d))
            .collect()
    };
    let configs: Vec<Option<ConfigFile>> = decls
        .iter()
        .zip(&declared)
        .map(|(d, (props, _))| config(ws, root, d, props, referenced))
        .collect();
    let ws: &Workspace = ws;
    let made: Vec<(Element, Vec<Reference>)> = decls
        .par_iter()
        .zip(declared)
        .zip(configs)
        .with_min_len(PAR_NODES)
        .map(|((d, (props, refs)), config)| (element(ws, root, &text, d, props, config), refs))
        .collect();
    let mut elements: Vec<Element> = Vec::with_capacity(made.len());
    let mut references = Vec::new();
    for (e, refs) in made {
        elements.push(e);
        references.extend(refs);
    }
    let edges = deepstream.and_then(|d| d.get("edges"));
    let (elements, links) = in_order(elements, edges);
    for e in &elements {
        if let Some(c) = &e.config {
            collect_path_references(ws, c.file, None, &mut references);
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

/// A YAML 1.1 boolean word, as yaml-cpp's `as<bool>` reads it.
fn yaml_bool(v: &str) -> Option<bool> {
    match v {
        "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "y" | "Y" => Some(true),
        "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "n" | "N" => Some(false),
        _ => None,
    }
}

fn is_false(v: &str) -> bool {
    yaml_bool(v) == Some(false)
}

/// Nodes a task of the pool takes at least (a small pipeline's build stays
/// on its thread).
const PAR_NODES: usize = 512;

/// A node's own properties (translated) and its path references.
fn declared_props(ws: &Workspace, root: FileId, text: &str, d: &NodeDecl) -> (Vec<Property>, Vec<Reference>) {
    let infer = matches!(
        d.factory.as_str(),
        "nvinfer" | "nvinferbin" | "nvinferserver" | "nvinferserverbin"
    );
    let mut refs = Vec::new();
    let mut settings = Vec::new();
    for (k, v) in d.properties.map(Node::pairs).unwrap_or_default() {
        let Some(mut entry) = Node::to_entry(text, k, v) else {
            continue;
        };
        if infer {
            if let Some((_, to)) = INFER_RENAMES.iter().find(|(from, _)| *from == entry.key) {
                entry.key = (*to).into();
            }
        }
        if let Some(r) = reference(ws, root, &entry) {
            refs.push(r);
        }
        let mut s = setting(root, &d.name.as_str().into(), &entry, Layer::Element);
        if BOOLEAN_PROPERTIES.contains(&entry.key.as_str()) {
            // A YAML boolean is the number the rules compare (`true` → 1).
            if let Value::Known(v) = &s.value {
                if let Some(b) = yaml_bool(v) {
                    s.value = Value::Known(if b { "1" } else { "0" }.into());
                }
            }
        }
        settings.push((entry.key.clone(), s));
    }
    (by_name(settings.into_iter()), refs)
}

/// The config file a node's properties name, loaded (added to
/// `referenced`).
fn config(
    ws: &mut Workspace,
    root: FileId,
    d: &NodeDecl,
    props: &[Property],
    referenced: &mut HashSet<FileId>,
) -> Option<ConfigFile> {
    config_key(&d.factory)
        .and_then(|key| props.iter().find(|p| p.name == key))
        .and_then(|p| match &p.effective()?.value {
            Value::Known(v) => Some(v.clone()),
            Value::Unknown(_) => None,
        })
        .and_then(|raw| match d.factory.as_str() {
            // nvtracker's file is its low-level library's, whatever its
            // content suggests (Precision 1; `gst::low_level_config`).
            "nvtracker" => ws.load_reference_as(root, &raw, Kind::TrackerLowLevel),
            _ => ws.load_reference(root, &raw),
        })
        .filter(|&id| id != root)
        .map(|id| {
            referenced.insert(id);
            config_file(ws, id)
        })
}

/// One element from its node: its properties, the config file it loads
/// laid under them, and its home.
fn element(
    ws: &Workspace,
    root: FileId,
    text: &str,
    d: &NodeDecl,
    mut props: Vec<Property>,
    config: Option<ConfigFile>,
) -> Element {
    if let Some(c) = &config {
        // What the element sets overrides its file.
        let mut under = config_props(ws, c);
        overlay(&mut under, props);
        props = under;
    }
    let stage = match props
        .iter()
        .find(|p| p.name == "process-mode")
        .and_then(|p| p.effective())
    {
        Some(s) if s.value == Value::Known("2".into()) => Stage::Secondary,
        _ => Stage::Primary,
    };
    let mut role = role(&d.factory, stage);
    if let Role::Source(src) = &mut role {
        let uri = ["uri", "location"]
            .iter()
            .find_map(|k| props.iter().find(|p| p.name == *k)?.effective().cloned());
        if let (SourceKind::Other, Some(Value::Known(u))) = (src.kind, uri.map(|s| s.value)) {
            src.kind = uri_kind(&u);
        }
    }
    let declared = node_home(root, text, d);
    let home = config
        .as_ref()
        .and_then(|c| c.home.clone())
        .or_else(|| declared.clone());
    Element {
        role,
        factory: Some(d.factory.clone()),
        name: d.name.clone(),
        props,
        config,
        home,
        declared,
    }
}

/// A path a property names, resolved (DS704): the keys deepstream-app's
/// front end treats as paths.
fn reference(ws: &Workspace, root: FileId, e: &crate::syntax::Entry) -> Option<Reference> {
    let v = e.value.as_deref()?.trim();
    let is_config = CONFIG_PATH_KEYS.contains(&e.key.as_str());
    let is_data = DATA_PATH_KEYS.contains(&e.key.as_str()) || (e.key == "uri" && v.starts_with("file://"));
    if !(is_config || is_data) || v.is_empty() {
        return None;
    }
    Some(Reference {
        file: root,
        key: e.key.to_string(),
        span: e.spans.value(),
        target: ws.resolve(root, v)?,
        is_config,
    })
}

/// Where new properties of a node go: after the last line of its
/// `properties:` map, or a new `properties:` after the node's last line.
/// `None` for a flow-style node or map (`{…}`), where a line cannot go.
fn node_home(file: FileId, text: &str, d: &NodeDecl) -> Option<Box<Home>> {
    let flow = |n: &Node| text.get(n.span().clone()).is_some_and(|s| s.starts_with('{'));
    if flow(d.node) || d.properties.is_some_and(flow) {
        return None;
    }
    let header = d
        .node
        .get("name")
        .or_else(|| d.node.get("type"))
        .map(|n| n.span().clone())?;
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = |at: usize| text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
    let key_indent = |k: &Node| text[line_start(k.span().start)..k.span().start].to_string();
    // Just past the line of a map's last pair (a block value's span ends
    // after its last line break, which must not pull in the next line).
    let after = |k: &Node, v: &Node| line_end(v.span().end.max(k.span().end).saturating_sub(1).max(k.span().end));
    let (first_key, _) = d.node.pairs().first()?;
    let node_indent = key_indent(first_key);
    let node_indent: String = node_indent.chars().map(|c| if c == '-' { ' ' } else { c }).collect();
    match d.properties {
        Some(Node::Map(pairs, _)) if !pairs.is_empty() => {
            let (last_k, last_v) = pairs.last()?;
            let end = after(last_k, last_v);
            Some(Box::new(Home::YamlMap {
                file,
                header,
                insert_at: end,
                indent: key_indent(&pairs[0].0),
                open: None,
            }))
        }
        Some(_) => None,
        None => {
            let (last_k, last_v) = d.node.pairs().last()?;
            let end = after(last_k, last_v);
            Some(Box::new(Home::YamlMap {
                file,
                header,
                insert_at: end,
                indent: format!("{node_indent}  "),
                open: Some(format!("{node_indent}properties:")),
            }))
        }
    }
}

/// Elements in the order the edges link them (sources first; nodes no
/// edge orders keep their written order), and the links. An edge key or
/// target `name.pad` names node `name`'s pad.
fn in_order(elements: Vec<Element>, edges: Option<&Node>) -> (Vec<Element>, Vec<Link>) {
    let index: HashMap<&str, usize> = elements.iter().enumerate().map(|(i, e)| (e.name.as_str(), i)).collect();
    let find = |n: &str| {
        index
            .get(n)
            .or_else(|| n.rsplit_once('.').and_then(|(node, _)| index.get(node)))
            .copied()
    };
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut seen: HashSet<(usize, usize)> = HashSet::new();
    for (k, v) in edges.map(Node::pairs).unwrap_or_default() {
        let Some(from) = k.as_str().and_then(find) else {
            continue;
        };
        let targets: Vec<&Node> = match v {
            Node::Seq(items, _) => items.iter().collect(),
            other => vec![other],
        };
        for t in targets {
            if let Some(to) = t.as_str().and_then(find) {
                if from != to && seen.insert((from, to)) {
                    pairs.push((from, to));
                }
            }
        }
    }
    // Kahn's algorithm, taking the lowest written index first; what a cycle
    // leaves over follows in written order. The nodes ready to go are kept
    // ordered and each edge is followed once (a scan of every node and
    // every edge at each step made 120k nodes run for minutes).
    let n = elements.len();
    let mut indegree = vec![0usize; n];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(from, to) in &pairs {
        indegree[to] += 1;
        out[from].push(to);
    }
    let sources_first = |i: usize| !matches!(elements[i].role, Role::Source(_));
    let mut ready: BTreeSet<(bool, usize)> = (0..n)
        .filter(|&i| indegree[i] == 0)
        .map(|i| (sources_first(i), i))
        .collect();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    // The lowest index not yet placed (it only grows).
    let mut first_left = 0;
    while order.len() < n {
        let i = match ready.pop_first() {
            Some((_, i)) => i,
            None => {
                while done[first_left] {
                    first_left += 1;
                }
                first_left
            }
        };
        done[i] = true;
        order.push(i);
        for &to in &out[i] {
            if indegree[to] > 0 {
                indegree[to] -= 1;
                if indegree[to] == 0 && !done[to] {
                    ready.insert((sources_first(to), to));
                }
            }
        }
    }
    let mut position = vec![0; n];
    for (at, &i) in order.iter().enumerate() {
        position[i] = at;
    }
    let links = pairs
        .iter()
        .map(|&(from, to)| Link {
            from: position[from],
            to: position[to],
        })
        .collect();
    let mut slots: Vec<Option<Element>> = elements.into_iter().map(Some).collect();
    let ordered = order.iter().filter_map(|&i| slots[i].take()).collect();
    (ordered, links)
}

/// Whether a YAML document is a Service Maker pipeline (`deepstream:`
/// with `nodes:`).
pub fn is_pipeline(doc: &crate::syntax::Document) -> bool {
    doc.get("deepstream", "nodes").is_some()
}
