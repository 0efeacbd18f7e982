//! One pipeline: a deepstream-app (or test-app) config and the nvinfer,
//! tracker and preprocess configs it references, with each element knowing
//! the file and group its properties live in.

use std::collections::HashSet;

use crate::base::FileId;
use crate::base::Span;
use crate::model::detect::Kind;
use crate::model::workspace::{Target, Workspace};
use crate::syntax::Entry;
use crate::syntax::glib;

/// An element's properties: one group of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    pub file: FileId,
    pub group: String,
}

/// An inference element (nvinfer): its group in the app config and the
/// config file it loads.
#[derive(Debug, Clone)]
pub struct Gie {
    pub at: At,
    pub config: Option<FileId>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    File,
    Live,
    Other,
}

#[derive(Debug, Clone)]
pub struct Source {
    pub at: At,
    pub kind: SourceKind,
    /// Streams this group contributes (`num-sources` for type 3).
    pub streams: Option<u32>,
}

/// A path-valued key and what it points at (DS704, DS205, DS404).
#[derive(Debug, Clone)]
pub struct Reference {
    pub file: FileId,
    pub key: String,
    pub span: Span,
    pub target: Target,
    /// A config file (error when missing) rather than a data file.
    pub is_config: bool,
}

#[derive(Debug, Clone)]
pub struct Pipeline {
    pub root: FileId,
    pub kind: Kind,
    pub streammux: Option<At>,
    pub sources: Vec<Source>,
    /// `[source-list]`: the group and its stream URIs.
    pub source_list: Option<(At, Vec<String>)>,
    pub use_nvmultiurisrcbin: bool,
    pub primary: Option<Gie>,
    pub secondaries: Vec<Gie>,
    pub tracker: Option<At>,
    pub tracker_ll_config: Option<FileId>,
    pub osd: Option<At>,
    pub tiler: Option<At>,
    pub sinks: Vec<At>,
    /// nvdspreprocess feeding the primary inference: group and its config.
    pub preprocess: Option<(At, Option<FileId>)>,
    pub tests: Option<At>,
    pub application: Option<At>,
    pub references: Vec<Reference>,
}

/// Keys whose value is a path to another file, per kind of file.
const CONFIG_PATH_KEYS: &[&str] = &[
    "config-file",
    "config-file-path",
    "ll-config-file",
    "msg-conv-config",
    "msg-broker-config",
];
const DATA_PATH_KEYS: &[&str] = &[
    "labelfile-path",
    "onnx-file",
    "model-file",
    "proto-file",
    "uff-file",
    "tlt-encoded-model",
    "custom-lib-path",
    "mean-file",
];

impl Workspace {
    /// The winning entry of `group`/`key` in a file.
    pub fn entry(&self, file: FileId, group: &str, key: &str) -> Option<&Entry> {
        self.files[file].doc.get(group, key)
    }

    pub fn entry_at(&self, at: &At, key: &str) -> Option<&Entry> {
        self.entry(at.file, &at.group, key)
    }

    pub fn int_at(&self, at: &At, key: &str) -> Option<i64> {
        self.entry_at(at, key)
            .and_then(|e| e.value.as_deref())
            .and_then(glib::parse_int)
    }

    pub fn str_at(&self, at: &At, key: &str) -> Option<&str> {
        self.entry_at(at, key).and_then(|e| e.value.as_deref())
    }
}

/// Whether an app group is switched on. deepstream-app's structs start at
/// zero, so a group without `enable` is off; a test app's sections have no
/// `enable` and are on unless it says 0.
fn enabled(ws: &Workspace, at: &At, kind: Kind) -> bool {
    match ws.int_at(at, "enable") {
        Some(v) => v != 0,
        None => kind == Kind::TestApp,
    }
}

fn numbered(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn split_uris(value: &str) -> Vec<String> {
    glib::split_list(value)
        .unwrap_or_default()
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

pub fn uri_kind(uri: &str) -> SourceKind {
    if uri.starts_with("rtsp://") || uri.starts_with("rtmp://") || uri.starts_with("csi:") || uri.starts_with("usb:") {
        SourceKind::Live
    } else if uri.starts_with("file://") || uri.starts_with('/') {
        SourceKind::File
    } else {
        SourceKind::Other
    }
}

/// Assemble the pipelines of every app config in the workspace, loading the
/// configs they reference. Returns them and the set of files some pipeline
/// references.
pub fn build(ws: &mut Workspace) -> (Vec<Pipeline>, HashSet<FileId>) {
    let apps: Vec<FileId> = (0..ws.files.len())
        .filter(|&i| matches!(ws.files[i].kind, Some(Kind::App | Kind::TestApp)))
        .collect();
    let mut referenced = HashSet::new();
    let mut pipelines = Vec::new();
    for root in apps {
        let p = build_one(ws, root, &mut referenced);
        pipelines.push(p);
    }
    (pipelines, referenced)
}

fn build_one(ws: &mut Workspace, root: FileId, referenced: &mut HashSet<FileId>) -> Pipeline {
    let kind = ws.files[root].kind.unwrap_or(Kind::App);
    let mut p = Pipeline {
        root,
        kind,
        streammux: None,
        sources: Vec::new(),
        source_list: None,
        use_nvmultiurisrcbin: false,
        primary: None,
        secondaries: Vec::new(),
        tracker: None,
        tracker_ll_config: None,
        osd: None,
        tiler: None,
        sinks: Vec::new(),
        preprocess: None,
        tests: None,
        application: None,
        references: Vec::new(),
    };
    let names: Vec<String> = ws.files[root]
        .doc
        .group_names()
        .into_iter()
        .map(str::to_string)
        .collect();
    for name in names {
        let at = At {
            file: root,
            group: name.clone(),
        };
        let on = enabled(ws, &at, kind);
        match name.as_str() {
            "streammux" => p.streammux = Some(at),
            "application" => p.application = Some(at),
            "tests" => p.tests = Some(at),
            "osd" if on => p.osd = Some(at),
            "tiled-display" | "tiler" if on => p.tiler = Some(at),
            "tracker" if on => p.tracker = Some(at),
            "pre-process" if on => p.preprocess = Some((at, None)),
            "primary-gie" | "pgie" if on => p.primary = Some(Gie { at, config: None }),
            "source-list" => {
                let uris = match ws.entry_at(&at, "list") {
                    Some(e) => match &e.value {
                        Some(v) => split_uris(v),
                        None => vec![String::new(); e.children],
                    },
                    None => Vec::new(),
                };
                // The YAML form may also be a sequence of `- uri: …` maps.
                let uris = if uris.is_empty() {
                    ws.entry(root, "", "source-list")
                        .map(|e| vec![String::new(); e.children])
                        .unwrap_or_default()
                } else {
                    uris
                };
                p.use_nvmultiurisrcbin = ws
                    .str_at(&at, "use-nvmultiurisrcbin")
                    .is_some_and(|v| glib::parse_bool(v) == Some(true));
                p.source_list = Some((at, uris));
            }
            "source" if kind == Kind::App => {
                // deepstream-app YAML: `source: csv-file-path:` lists one
                // source per CSV row (after the header).
                let csv = ws.str_at(&at, "csv-file-path").map(str::to_string);
                let streams = csv.and_then(|c| match ws.resolve(root, &c) {
                    Some(Target::Exists(p)) => {
                        crate::files::read::read_text(&p, crate::files::read::MAX_FILE_BYTES).ok()
                    }
                    _ => None,
                });
                let streams =
                    streams.map(|t| t.lines().filter(|l| !l.trim().is_empty()).count().saturating_sub(1) as u32);
                p.sources.push(Source {
                    at,
                    kind: SourceKind::Other,
                    streams,
                });
            }
            "source" if kind == Kind::TestApp => {
                let uri = ws
                    .str_at(&at, "uri")
                    .or_else(|| ws.str_at(&at, "location"))
                    .map(str::to_string);
                let streams = uri.as_ref().map(|_| 1);
                let kind = uri.as_deref().map_or(SourceKind::Other, |u| {
                    if u.starts_with('/') {
                        SourceKind::File
                    } else {
                        uri_kind(u)
                    }
                });
                p.sources.push(Source { at, kind, streams });
            }
            n if numbered(n, "source") && on => {
                let ty = ws.int_at(&at, "type");
                let uri = ws.str_at(&at, "uri").unwrap_or("");
                let skind = match ty {
                    Some(1 | 4 | 5) => SourceKind::Live,
                    _ => match uri_kind(uri) {
                        SourceKind::Other if ty == Some(2) || ty == Some(3) => SourceKind::Other,
                        k => k,
                    },
                };
                let streams = if ty == Some(3) {
                    Some(ws.int_at(&at, "num-sources").unwrap_or(1).max(0) as u32)
                } else {
                    Some(1)
                };
                p.sources.push(Source {
                    at,
                    kind: skind,
                    streams,
                });
            }
            n if (numbered(n, "sink") || (n == "sink" && kind == Kind::TestApp)) && on => p.sinks.push(at),
            n if (numbered(n, "secondary-gie") || numbered(n, "sgie") || n == "sgie") && on => {
                p.secondaries.push(Gie { at, config: None })
            }
            _ => {}
        }
    }
    // The `[source-list]` form (DS 6.2+) replaces `[sourceN]` counting.
    if let Some((at, uris)) = &p.source_list {
        let live = uris.iter().any(|u| uri_kind(u) == SourceKind::Live);
        let file = uris.iter().any(|u| uri_kind(u) == SourceKind::File);
        let k = if live {
            SourceKind::Live
        } else if file {
            SourceKind::File
        } else {
            SourceKind::Other
        };
        // In deepstream-app, `[sourceN]` groups beside `[source-list]` only
        // override settings of listed sources; they add no stream.
        if kind == Kind::App {
            p.sources.clear();
        }
        p.sources.insert(
            0,
            Source {
                at: at.clone(),
                kind: k,
                streams: Some(uris.len() as u32),
            },
        );
    }
    // Follow the references: inference configs, tracker, preprocess.
    let gies: Vec<&mut Gie> = p.primary.iter_mut().chain(p.secondaries.iter_mut()).collect();
    for gie in gies {
        gie.config = follow(
            ws,
            root,
            &gie.at.group,
            &["config-file", "config-file-path"],
            referenced,
        );
    }
    if let Some(t) = &p.tracker {
        let group = t.group.clone();
        p.tracker_ll_config = follow(ws, root, &group, &["ll-config-file"], referenced);
    }
    if let Some((at, cfg)) = &mut p.preprocess {
        *cfg = follow(ws, root, &at.group.clone(), &["config-file"], referenced);
    }
    collect_path_references(ws, root, &mut p.references);
    for gie in p.primary.iter().chain(&p.secondaries) {
        if let Some(c) = gie.config {
            collect_path_references(ws, c, &mut p.references);
        }
    }
    p
}

/// Resolve the config a group points at; remember the reference.
fn follow(
    ws: &mut Workspace,
    file: FileId,
    group: &str,
    keys: &[&str],
    referenced: &mut HashSet<FileId>,
) -> Option<FileId> {
    let raw = keys.iter().find_map(|k| ws.entry(file, group, k)?.value.clone())?;
    let id = ws.load_reference(file, &raw);
    if let Some(id) = id {
        if id != file {
            referenced.insert(id);
        }
    }
    id.filter(|&id| id != file)
}

/// Every path-valued key of a file, resolved (for DS704).
fn collect_path_references(ws: &Workspace, file: FileId, refs: &mut Vec<Reference>) {
    let mut seen: HashSet<(FileId, usize, usize)> = refs.iter().map(|r| (r.file, r.span.start, r.span.end)).collect();
    for g in &ws.files[file].doc.groups {
        for e in &g.entries {
            let Some(v) = e.value.as_deref() else { continue };
            let is_config = CONFIG_PATH_KEYS.contains(&e.key.as_str());
            let is_data = DATA_PATH_KEYS.contains(&e.key.as_str()) || (e.key == "uri" && v.starts_with("file://"));
            if !(is_config || is_data) || v.trim().is_empty() {
                continue;
            }
            if let Some(target) = ws.resolve(file, v) {
                if !seen.insert((file, e.value_span.start, e.value_span.end)) {
                    continue;
                }
                refs.push(Reference {
                    file,
                    key: e.key.clone(),
                    span: e.value_span.clone(),
                    target,
                    is_config,
                });
            }
        }
    }
}
