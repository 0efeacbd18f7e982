//! deepstream-app configs (GLib key-file or YAML) and the test apps' YAML:
//! each group is an element (`[streammux]`, `[primary-gie]`, `[sourceN]`,
//! …), its keys are the element's properties, and `config-file` /
//! `ll-config-file` name the files it loads.
//!
//! deepstream-app (DS 9.1 `deepstream_app.c`, `deepstream_app_config_parser.c`,
//! `deepstream_config_file_parser.c`) reads a group only when `enable` is
//! not 0, and its structs start at zero, so a group without `enable` is off;
//! a test app's sections have no `enable` and are on unless it says 0.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use crate::base::FileId;
use crate::base::shared::Shared;
use crate::model::detect::{Kind, app_source_group, app_source_index, app_yaml_skips, numbered};
use crate::model::frontend::config::{self, config_file, layered};
use crate::model::frontend::{group_props, home, int, source_list, value};
use crate::model::graph::{
    Element, Home, Layer, Link, Pipeline, PrimaryBatch, Property, Reference, Role, Setting, Source, SourceKind, Stage,
    Value,
};
use crate::model::workspace::{Access, Workspace};
use crate::syntax::{Document, Format, glib};

/// Keys whose value is the path of another config file.
pub const CONFIG_PATH_KEYS: &[&str] = &[
    "config-file",
    "config-file-path",
    "ll-config-file",
    "msg-conv-config",
    "msg-broker-config",
];
/// Keys whose value is the path of a model, label or library file.
pub const DATA_PATH_KEYS: &[&str] = &[
    "labelfile-path",
    "onnx-file",
    "model-file",
    "proto-file",
    "uff-file",
    "tlt-encoded-model",
    "custom-lib-path",
    "mean-file",
];

pub fn uri_kind(uri: &str) -> SourceKind {
    if uri.starts_with("rtsp://") || uri.starts_with("rtmp://") || uri.starts_with("csi:") || uri.starts_with("usb:") {
        SourceKind::Live
    } else if uri.starts_with("file://") || uri.starts_with('/') {
        SourceKind::File
    } else {
        SourceKind::Other
    }
}

/// The source type deepstream-app gives a `[source-list]` entry
/// (`set_source_all_configs`: `file://` is `NV_DS_SOURCE_URI`, `rtsp://`
/// `NV_DS_SOURCE_RTSP`, `csi:N` `NV_DS_SOURCE_CAMERA_CSI`, `usb:N`
/// `NV_DS_SOURCE_CAMERA_V4L2`, deepstream_sources.h); `None` for an entry it
/// refuses ("not in proper format").
fn listed_source_type(uri: &str) -> Option<u8> {
    if uri.starts_with("file://") {
        return Some(2);
    }
    if uri.starts_with("rtsp://") {
        return Some(4);
    }
    // `g_ascii_strtoull` of what follows the 4-byte prefix, to its end.
    let id = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    match (uri.strip_prefix("csi:"), uri.strip_prefix("usb:")) {
        (Some(rest), _) if id(rest) => Some(5),
        (_, Some(rest)) if id(rest) => Some(1),
        _ => None,
    }
}

fn split_uris(value: &str) -> Vec<String> {
    uris(value).map(Cow::into_owned).collect()
}

/// The URIs of a `;` list: its items trimmed, the empty ones left out
/// (none where GLib refuses the list), one at a time.
fn uris(value: &str) -> impl Iterator<Item = Cow<'_, str>> {
    glib::list_items(value).into_iter().flatten().filter_map(|item| {
        let uri = match item {
            Cow::Borrowed(b) => Cow::Borrowed(b.trim()),
            Cow::Owned(o) => Cow::Owned(o.trim().to_string()),
        };
        (!uri.is_empty()).then_some(uri)
    })
}

/// The elements one app config describes, before they are put in order.
#[derive(Default)]
struct Found {
    sources: Vec<Element>,
    source_list: Option<Element>,
    streammux: Option<Element>,
    preprocess: Option<Element>,
    primary: Option<Element>,
    tracker: Option<Element>,
    secondaries: Vec<Element>,
    analytics: Option<Element>,
    tiler: Option<Element>,
    osd: Option<Element>,
    sinks: Vec<Element>,
    others: Vec<Element>,
}

pub(super) struct Reader<'w> {
    pub(super) ws: Access<'w>,
    pub(super) root: FileId,
    pub(super) kind: Kind,
    pub(super) referenced: &'w mut HashSet<FileId>,
}

/// deepstream-app groups with an `enable` switch (DS 9.1
/// `deepstream_config_file_parser.c`: the `parse_*` functions that set
/// `config->enable`). Their structs start at zero, so without `enable` they
/// are off; groups without a switch (`[application]`, `[streammux]`,
/// `[tests]`, `[source-list]`, `[source-attr-all]`) are always read.
fn switchable(group: &str) -> bool {
    app_source_group(group)
        || ["sink", "secondary-gie", "message-consumer"]
            .iter()
            .any(|p| app_prefixed(group, p))
        || matches!(
            group,
            "primary-gie"
                | "tracker"
                | "osd"
                | "tiled-display"
                | "pre-process"
                | "nvds-analytics"
                | "ds-example"
                | "segvisual"
                | "dewarper"
                | "message-converter"
                | "img-save"
        )
}

/// deepstream-app's own test for a sink, secondary-gie or message-consumer
/// group: the name starts with the prefix (`strncmp` in
/// `deepstream_app_config_parser.c` `parse_config_file`, `compare(0, …)` in
/// `deepstream_app_config_parser_yaml.cpp`), so `[secondary-gie]` or
/// `[sink-rtsp]` is read as one too, by `parse_gie` / `parse_sink`. A
/// source group must be `[source<N>]`: the app refuses any other
/// `[source…]` ("is not in the form [source<%d>]").
fn app_prefixed(group: &str, prefix: &str) -> bool {
    group.starts_with(prefix)
}

/// Whether an app reads nothing from `group` (Precision 3: disabled is
/// absent): `enable` is 0, or deepstream-app's group has no `enable`. A
/// test app's sections have no `enable` and are on unless it says 0.
pub fn group_is_off(doc: &Document, group: &str, kind: Kind) -> bool {
    match int(doc, group, "enable") {
        Some(v) => v == 0,
        None => kind == Kind::App && switchable(group),
    }
}

/// Whether an app config switches its image saver on: `[img-save]` or
/// `img-save:` with an `enable` other than 0 (`parse_image_save`,
/// `parse_image_save_yaml`; without `enable` it is off). NVIDIA's
/// transfer-learning app then encodes whole frames and object crops out of
/// the batch surface after the primary inference
/// (`after_pgie_image_meta_save`, `save_image`:
/// `nvds_obj_enc_process`, `deepstream_transfer_learning_app_main.cpp`),
/// at the mux's size. An `enable` that does not read as an integer counts
/// as on (the safe side for the rules that ask).
pub fn saves_images(doc: &Document) -> bool {
    value(doc, "img-save", "enable").is_some_and(|v| glib::parse_int(v) != Some(0))
}

/// Whether an app config's reader returns before reading any key of
/// `group`, so its keys are never judged. Key-file: `parse_gie`,
/// `parse_source` (not `[source-attr-all]`) and `parse_sink` check `enable`
/// first and return when it is 0 or missing. YAML (`deepstream_gie_yaml.cpp`,
/// `deepstream_sink_yaml.cpp`): only when `enable` is written and false.
/// Other groups' parsers read every key (a bad type still stops the app)
/// but create no element and load no file from them.
pub fn keys_unread(doc: &Document, group: &str, kind: Kind) -> bool {
    if kind != Kind::App {
        return false;
    }
    let gie_or_sink = group == "primary-gie" || ["sink", "secondary-gie"].iter().any(|p| app_prefixed(group, p));
    match doc.format {
        Format::KeyFile => (gie_or_sink || app_source_group(group)) && group_is_off(doc, group, kind),
        _ => {
            gie_or_sink
                && value(doc, group, "enable").is_some_and(|v| matches!(v.trim(), "0" | "false" | "False" | "FALSE"))
        }
    }
}

impl Reader<'_> {
    /// Whether a group is switched on (see [`group_is_off`]).
    pub(super) fn enabled(&self, group: &str) -> bool {
        !group_is_off(&self.ws.files[self.root].doc, group, self.kind)
    }

    pub(super) fn str(&self, group: &str, key: &str) -> Option<&str> {
        value(&self.ws.files[self.root].doc, group, key)
    }

    /// An element whose properties are one group of the app config.
    pub(super) fn element(&self, role: Role, group: &str) -> Element {
        let doc = &self.ws.files[self.root].doc;
        let home = home(doc, self.root, group);
        Element {
            role,
            factory: None,
            name: group.to_string(),
            props: group_props(doc, self.root, group, Layer::Element),
            config: None,
            declared: home.clone(),
            home,
        }
    }

    /// Load the config file a group names (the first of `keys` it sets),
    /// and remember it is referenced. A group naming its own file loads
    /// nothing (DS704 reports it).
    /// `kind`: what the key makes the file (Precision 1: the reference
    /// beats content); `None` leaves it to the content.
    pub(super) fn follow(&mut self, group: &str, keys: &[&str], kind: Option<Kind>) -> Option<FileId> {
        let raw = keys.iter().find_map(|k| self.str(group, k).map(str::to_string))?;
        let id = self.ws.reference(self.root, &raw, kind)?;
        (id != self.root).then(|| {
            self.referenced.insert(id);
            id
        })
    }

    /// `[streammux]`, with the new nvstreammux's config it names
    /// (`config-file-path`, `config-file` before DS 9.0:
    /// `parse_streammux`/`parse_streammux_yaml`), which
    /// `set_streammux_properties` gives the element.
    pub(super) fn streammux(&mut self, group: &str) -> Element {
        let mut m = self.element(Role::Streammux, group);
        m.config = self
            .follow(group, &["config-file-path", "config-file"], Some(Kind::NewStreammux))
            .map(|c| config_file(&self.ws, c));
        m
    }

    pub(super) fn infer(&mut self, group: &str, stage: Stage) -> Element {
        // `plugin-type=1` makes the element nvinferserver, whose protobuf
        // config is not nvinfer's (create_primary_gie_bin).
        let server = self.str(group, "plugin-type").and_then(glib::parse_int) == Some(1);
        let cfg = self.follow(
            group,
            &["config-file", "config-file-path"],
            (!server).then_some(Kind::NvInfer),
        );
        let mut e = config::infer(&self.ws, self.root, group, stage, cfg);
        // deepstream-app and the parallel-inference app set nvinfer's batch
        // only from the group (`create_primary_gie_bin`); a test app may set
        // it in C.
        if matches!(self.kind, Kind::App | Kind::ParallelApp) {
            config::default_batch(&mut e);
        }
        e
    }

    /// `[sourceN]`: its kind from `type` and `uri`, its streams from
    /// `num-sources` for a multi-URI source (type 3).
    fn numbered_source(&self, group: &str) -> Element {
        let doc = &self.ws.files[self.root].doc;
        let ty = int(doc, group, "type");
        let uri = value(doc, group, "uri").unwrap_or("");
        let kind = match ty {
            Some(1 | 4 | 5) => SourceKind::Live,
            _ => match uri_kind(uri) {
                SourceKind::Other if ty == Some(2) || ty == Some(3) => SourceKind::Other,
                k => k,
            },
        };
        // A count beyond u32 is no count DeepStream could run: unknown.
        let streams = if ty == Some(3) {
            source_list::multi_uri_streams(value(doc, group, "num-sources"))
        } else {
            Some(1)
        };
        self.element(Role::Source(Source { kind, streams }), group)
    }

    /// deepstream-app YAML's `source: csv-file-path:` (Precision 5: unknown
    /// stays unknown). The CSV is data the app reads at start
    /// (`parse_config_file_yaml`), often not shipped with the config, and
    /// its rows carry their own `type` and `num-sources`: neither the kind
    /// nor the count of its streams is known, so no stream-count rule and
    /// no DS105 judges them without facts.
    fn csv_source(&self, group: &str) -> Element {
        self.element(
            Role::Source(Source {
                kind: SourceKind::Other,
                streams: None,
            }),
            group,
        )
    }

    /// A test app's `source:` section: one stream from `uri` or `location`.
    fn test_app_source(&self, group: &str) -> Element {
        let uri = self.str(group, "uri").or_else(|| self.str(group, "location"));
        let streams = uri.map(|_| 1);
        let kind = uri.map_or(SourceKind::Other, |u| {
            if u.starts_with('/') {
                SourceKind::File
            } else {
                uri_kind(u)
            }
        });
        self.element(Role::Source(Source { kind, streams }), group)
    }

    /// A test app's `sink:` group. The app picks the sink's factory in C
    /// (deepstream_test4_app.c `main`: a fakesink under `--no-display`, else
    /// nv3dsink or nveglglessink) and only sets the group's keys on it as
    /// properties (`nvds_parse_fake_sink`, `nvds_parse_egl_sink`): what sink it
    /// is cannot be known from the file, so `type` is unknown whatever the
    /// group writes (a `type` key there sets nothing).
    fn test_app_sink(&self, group: &str) -> Element {
        let mut sink = self.element(Role::Sink, group);
        sink.props.retain(|p| p.name != "type");
        if let Some(Home::Group { file, header, .. }) = sink.declared.as_deref() {
            sink.props.push(Property {
                name: "type".into(),
                settings: smallvec::smallvec![Setting::unknown(
                    (*file, header.clone()),
                    "the test app picks its sink in C",
                )],
            });
        }
        sink
    }

    /// `[source-list]` (DS 6.2+): `list` of URIs (a `;` list, or a YAML
    /// sequence), or nvmultiurisrcbin when `use-nvmultiurisrcbin` is on, whose
    /// streams are added at run time (unknown).
    fn source_list(&self, group: &str) -> Element {
        let doc = &self.ws.files[self.root].doc;
        // The listed URIs (`split_uris`'s), counted and their kinds noted
        // one at a time: a list of 10^7 entries is never held.
        let (mut count, mut live, mut file) = (0usize, false, false);
        if let Some(e) = doc.get(group, "list") {
            match &e.value {
                Some(v) => {
                    for u in uris(v) {
                        count += 1;
                        live |= uri_kind(&u) == SourceKind::Live;
                        file |= uri_kind(&u) == SourceKind::File;
                    }
                }
                None => count = e.children(),
            }
        }
        // The YAML form may also be a sequence of `- uri: …` maps.
        if count == 0 {
            count = doc.get("", "source-list").map_or(0, |e| e.children());
        }
        let multiurisrcbin =
            value(doc, group, "use-nvmultiurisrcbin").is_some_and(|v| glib::parse_bool(v) == Some(true));
        // With nvmultiurisrcbin, streams come and go through its REST API:
        // listed file URIs do not make the kind known (Precision 5).
        let kind = if live {
            SourceKind::Live
        } else if !multiurisrcbin && file {
            SourceKind::File
        } else {
            SourceKind::Other
        };
        // deepstream-app's key-file reader counts `num-source-bins` or the
        // list's entries as GLib splits them, and refuses what it cannot
        // count (`listed_count`); the test apps' YAML lists are their
        // sequences.
        let streams = if multiurisrcbin {
            None
        } else if self.kind == Kind::App && doc.format == Format::KeyFile {
            source_list::listed_count(doc, group, false).ok()
        } else {
            u32::try_from(count).ok()
        };
        let mut e = self.element(Role::Source(Source { kind, streams }), group);
        e.factory = multiurisrcbin.then(|| "nvmultiurisrcbin".to_string());
        e
    }

    /// The listed sources' settings, on the `[source-list]` element: the
    /// keys of `[source-attr-all]`, which deepstream-app reads with
    /// `parse_source` and copies to every listed source
    /// (`set_source_all_configs`, called by `parse_config_file`,
    /// deepstream_app_config_parser.c), nvmultiurisrcbin taking that group's
    /// settings whole (`create_nvmultiurisrcbin_bin` gets
    /// `source_attr_all_config`, deepstream_app.c). The list's own keys (a
    /// different struct) keep their names. Without nvmultiurisrcbin:
    /// - `type` is each list entry's (`file://` 2, `rtsp://` 4, `usb:N` 1,
    ///   `csi:N` 5: `set_source_all_configs` overwrites the group's), known
    ///   when every entry has the same, else unknown;
    /// - an enabled `[sourceN]` (N below the list's length) overwrites the
    ///   keys it writes for that one source (`parse_source` on
    ///   `multi_source_config[N]`): those keys are unknown for the list as a
    ///   whole. `overrides` are the enabled `[sourceN]` elements.
    ///
    /// The YAML reader has no such inheritance (`parse_config_file_yaml`,
    /// deepstream_app_config_parser_yaml.cpp, reads only `source:`'s CSV),
    /// and `[source-list]` is not read there at all.
    ///
    /// Which listed sources run (`create_multi_source_bin`,
    /// deepstream_source_bin.c, skips a source whose `enable` is 0): each
    /// copies `[source-attr-all]`'s `enable`, read as an integer (0 when
    /// unset: the config is zeroed), and an enabled `[sourceN]` sets it for
    /// source N (`parse_source` reads nothing of a group whose `enable` is
    /// 0 or missing). The list's streams are those that run; none, or an
    /// `enable` no integer reader takes, is unknown (nothing runs, or the
    /// app refuses the config), as is a `[source-list]` without
    /// `[source-attr-all]`, which `parse_config_file` refuses
    /// ("[source-attr-all] group not present.", DS003).
    fn inherit_source_attr_all(&self, list: &mut Element, overrides: &[Element]) {
        const ATTR_ALL: &str = "source-attr-all";
        let doc = &self.ws.files[self.root].doc;
        if doc.format != Format::KeyFile {
            return;
        }
        let listed = match &list.role {
            Role::Source(s) => s.streams,
            _ => None,
        };
        // N of an enabled `[sourceN]`.
        let source_index = |o: &Element| app_source_index(&o.name).map(|i| i as usize);
        let runs = match (doc.has_group(ATTR_ALL), value(doc, ATTR_ALL, "enable")) {
            (false, _) => None,
            (true, None) => Some(false),
            (true, Some(v)) => glib::parse_int(v).map(|on| on != 0),
        };
        // The listed sources that run, by index: all of them, or only those
        // an enabled `[sourceN]` turns on; `None` when none is known to.
        let running: Option<Vec<usize>> = match (runs, listed) {
            (Some(true), Some(n)) => Some((0..n as usize).collect()),
            (Some(false), Some(n)) => {
                let mut on: Vec<usize> = overrides
                    .iter()
                    .filter_map(source_index)
                    .filter(|&i| i < n as usize)
                    .collect();
                on.sort_unstable();
                on.dedup();
                Some(on).filter(|on| !on.is_empty())
            }
            _ => None,
        };
        let streams = running.as_ref().and_then(|on| u32::try_from(on.len()).ok());
        let multi = list.factory.as_deref() == Some("nvmultiurisrcbin");
        let streams = match &running {
            Some(on) if !multi && doc.get(&list.name, "list").is_none() => copies_streams(doc, on.len(), overrides),
            _ => streams,
        };
        // Only read where some listed source runs: the list is then one
        // `listed_count` counted, at most `MAX_SOURCE_BINS` entries (a
        // longer one is never held).
        let uris = doc
            .get(&list.name, "list")
            .and_then(|e| e.value.as_deref())
            .filter(|_| running.is_some())
            .map(split_uris)
            .unwrap_or_default();
        // The kind of the sources that run (DS105), not of every entry
        // (`create_multi_source_bin` opens none whose `enable` is 0): each
        // entry's URI, unknown where an enabled `[sourceN]` writes the
        // source's own `type` or `uri` (`parse_source` overwrites the
        // entry's), and unknown when none is known to run.
        // nvmultiurisrcbin's streams come and go at run time: kept unknown.
        if let (Role::Source(s), false) = (&mut list.role, multi) {
            // The entries an override writes `type` or `uri` for, found
            // once: asked of every override for each entry, a list of 10^6
            // entries beside 10^5 `[sourceN]` groups (a 10 MiB file) was
            // 10^11 steps (hostile10: 200,000 entries and 20,000 groups,
            // 1.8 MB, took 18 s).
            let overridden: HashSet<usize> = overrides
                .iter()
                .filter(|o| o.props.iter().any(|p| matches!(p.name.as_str(), "type" | "uri")))
                .filter_map(source_index)
                .collect();
            let overridden = |i: usize| overridden.contains(&i);
            let kinds: Vec<SourceKind> = running
                .iter()
                .flatten()
                .map(|&i| match uris.get(i) {
                    Some(u) if !overridden(i) => uri_kind(u),
                    _ => SourceKind::Other,
                })
                .collect();
            s.kind = if kinds.contains(&SourceKind::Live) {
                SourceKind::Live
            } else if !kinds.is_empty() && kinds.iter().all(|k| *k == SourceKind::File) {
                SourceKind::File
            } else {
                SourceKind::Other
            };
        }
        if let Role::Source(s) = &mut list.role {
            s.streams = streams;
        }
        // No listed source known to run: what `[source-attr-all]` says of
        // them describes none (DS102 silent, not judging a camera that is
        // never opened).
        let none_run = match runs {
            None if !doc.has_group(ATTR_ALL) => {
                Some("[source-list] without [source-attr-all]: deepstream-app refuses the config")
            }
            None => Some("[source-attr-all] enable is not an integer: deepstream-app refuses the config"),
            Some(false) if !multi && streams.is_none() => {
                Some("[source-attr-all] enable is 0 (unset: 0) and no [sourceN] enables a listed source: none runs")
            }
            // nvmultiurisrcbin runs the listed URIs, but is given none of
            // the group's keys (`create_nvmultiurisrcbin_bin` skips a
            // config whose `enable` is 0).
            Some(false) if multi => return,
            _ => None,
        };
        if let Some(why) = none_run {
            let at = doc
                .groups_named(&list.name)
                .next()
                .map_or(0..0, |g| g.name_span.clone());
            list.props.retain(|p| p.name.as_str() != "type");
            list.props.push(crate::model::graph::Property {
                name: Shared::from("type"),
                settings: smallvec::smallvec![Setting::unknown((self.root, at), why)],
            });
            return;
        }
        // The list's properties by name: a group of many keys is not
        // scanned once for each (quadratic in a hostile file's keys).
        let mut named: HashMap<Shared, usize> = list
            .props
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i))
            .collect();
        for p in group_props(doc, self.root, ATTR_ALL, Layer::Element) {
            if !named.contains_key(p.name.as_str()) {
                named.insert(p.name.clone(), list.props.len());
                list.props.push(p);
            }
        }
        let mut push = |list: &mut Element, name: &str, s: Setting| match named.get(name) {
            Some(&i) => list.props[i].settings.push(s),
            None => {
                let name = Shared::from(name);
                named.insert(name.clone(), list.props.len());
                list.props.push(crate::model::graph::Property {
                    name,
                    settings: smallvec::smallvec![s],
                });
            }
        };
        if multi {
            return;
        }
        // Without `list` each source keeps `[source-attr-all]`'s type
        // (`set_source_all_configs` sets one only from a list entry).
        let at = doc.get(&list.name, "list").map(|e| (self.root, e.spans.key()));
        // The types of the sources that run (an entry that does not run
        // opens nothing).
        let running: Vec<&String> = running.iter().flatten().filter_map(|&i| uris.get(i)).collect();
        if let (Some(at), false) = (at, running.is_empty()) {
            let types: Vec<Option<u8>> = running.iter().map(|u| listed_source_type(u)).collect();
            let value = match types[0] {
                Some(t) if types.iter().all(|x| *x == Some(t)) => Value::Known(t.to_string().into()),
                _ => Value::Unknown("the [source-list] entries are of different source types".into()),
            };
            push(
                list,
                "type",
                Setting {
                    value,
                    site: None,
                    at: at.into(),
                    layer: Layer::Derived,
                    derived: Some("[source-list] list: each entry sets its source's type".into()),
                },
            );
        }
        for o in overrides {
            let Some(n) = source_index(o) else {
                continue;
            };
            if listed.is_none_or(|l| n >= l as usize) {
                continue;
            }
            for p in &o.props {
                let Some(s) = p.effective() else { continue };
                if p.name == "enable" {
                    continue;
                }
                let why = format!("[{}] sets it for listed source {n} only", o.name);
                push(list, &p.name, Setting::unknown(s.at.get(), why));
            }
        }
    }

    /// What deepstream-app derives from `[source-list]` for the mux's and the
    /// primary nvinfer's `batch-size` (DS 9.1 `deepstream_app_config_parser.c`):
    /// the number of listed sources, whether they run or not (asked of the
    /// list before `inherit_source_attr_all` counts those that run), or
    /// with nvmultiurisrcbin its `max-batch-size`.
    fn source_list_batch(&self, list: &Element) -> Option<Setting> {
        let doc = &self.ws.files[self.root].doc;
        let group = &list.name;
        let multi = list.factory.as_deref() == Some("nvmultiurisrcbin");
        // A list the app refuses or cannot count: the written batches are
        // overwritten, with what is not known.
        let n = match source_list::listed_count(doc, group, multi) {
            Ok(n) => n,
            Err(why) => {
                let at = doc.groups_named(group).next().map_or(0..0, |g| g.name_span.clone());
                return Some(Setting {
                    layer: Layer::Derived,
                    ..Setting::unknown((self.root, at), why)
                });
            }
        };
        if multi {
            let max = list.str("max-batch-size")?;
            glib::parse_int(max.value)?;
            return Some(Setting {
                derived: Some("use-nvmultiurisrcbin sets it to [source-list] max-batch-size".into()),
                layer: Layer::Derived,
                ..max.setting.clone()
            });
        }
        let at = doc
            .get(group, "num-source-bins")
            .or_else(|| doc.get(group, "list"))
            .map_or(0..0, |e| e.spans.key());
        Some(Setting {
            value: Value::Known(n.to_string().into()),
            site: None,
            at: (self.root, at).into(),
            layer: Layer::Derived,
            derived: Some(format!("[source-list] sets it to the number of sources ({n})").into()),
        })
    }
}

/// The streams of `running` listed sources under a `[source-list]` without
/// `list`: copies of `[source-attr-all]` (`set_source_all_configs`), one
/// stream each, but a multi-URI copy (type 3) becomes `num-sources` streams
/// (at least one) in `parse_config_file`, after the batches are set (a
/// type-3 copy beside a `[sourceN]` group is refused: `listed_count`). Not
/// known (`None`): a type `create_multi_source_bin` (deepstream_source_bin.c)
/// opens none of (unset: 0, IPC: "Source type not yet implemented"; no
/// integer: refused), or an enabled `[sourceN]` that writes its own `type`.
fn copies_streams(doc: &Document, running: usize, overrides: &[Element]) -> Option<u32> {
    const ATTR_ALL: &str = "source-attr-all";
    let ty = int(doc, ATTR_ALL, "type")?;
    let per = if ty == 3 {
        i64::from(source_list::multi_uri_streams(value(doc, ATTR_ALL, "num-sources"))?)
    } else if matches!(ty, 1 | 2 | 4..=8)
        && !overrides
            .iter()
            .any(|o| o.props.iter().any(|p| p.name.as_str() == "type"))
    {
        1
    } else {
        return None;
    };
    u32::try_from(per.checked_mul(i64::try_from(running).ok()?)?).ok()
}

/// The groups of a file, in order (owned: the reader then borrows the
/// workspace mutably to load what they reference).
/// Copied on all threads, in order (a config of 100k groups).
pub(super) fn group_names(ws: &Workspace, file: FileId) -> Vec<String> {
    ws.files[file]
        .doc
        .group_names()
        .into_par_iter()
        .with_min_len(1024)
        .map(str::to_string)
        .collect()
}

/// The pipeline an app config describes, loading the configs it references
/// (added to `referenced`), or only looking them up (see [`Access`]).
pub fn build(ws: Access<'_>, root: FileId, referenced: &mut HashSet<FileId>) -> Pipeline {
    let kind = ws.files[root].kind.unwrap_or(Kind::App);
    let names = group_names(&ws, root);
    let mut r = Reader {
        ws,
        root,
        kind,
        referenced,
    };
    let app_yaml = kind == Kind::App && r.ws.files[root].doc.format == Format::Yaml;
    let mut found = Found::default();
    let mut application = None;
    let mut tests = None;
    // Groups whose elements load other files: loaded after the walk, in
    // this order (a repeated role keeps its last group).
    let mut primary = None;
    let mut secondaries = Vec::new();
    let mut tracker = None;
    let mut preprocess = None;
    let mut analytics = None;
    // Which groups are on, and the sources' elements (the bulk of a config
    // of many `[sourceN]`), are made on all threads: they only read the
    // file. The sources keep the file's order.
    let on: Vec<bool> = names.par_iter().with_min_len(64).map(|n| r.enabled(n)).collect();
    let mut sources: Vec<(SourceGroup, &str)> = Vec::new();
    // The sinks' groups (and whether each is a test app's `sink:`), made
    // into elements on all threads after the walk, as the sources are (a
    // test app's 8 MiB config of 100k `sinkN:`).
    let mut sinks: Vec<(&str, bool)> = Vec::new();
    for (name, on) in names.iter().zip(on) {
        let name = name.as_str();
        match name {
            "streammux" => found.streammux = Some(r.streammux(name)),
            "application" => application = Some(r.element(Role::Application, name)),
            "tests" => tests = Some(r.element(Role::Tests, name)),
            "osd" if on => found.osd = Some(r.element(Role::Osd, name)),
            "tiled-display" | "tiler" if on => found.tiler = Some(r.element(Role::Tiler, name)),
            "tracker" if on => tracker = Some(name),
            "pre-process" if on => preprocess = Some(name),
            "primary-gie" | "pgie" if on => primary = Some(name),
            "nvds-analytics" if on => analytics = Some(name),
            "message-converter" if on => found.others.push(r.element(Role::MsgConv, name)),
            // deepstream-app's YAML reader has no branch for `source-list:`
            // or `sourceN:` (`parse_config_file_yaml`,
            // deepstream_app_config_parser_yaml.cpp): it skips them, and its
            // only sources are `source:`'s CSV (DS002 names them).
            "source-list" if !app_yaml => found.source_list = Some(r.source_list(name)),
            "source" if kind == Kind::App => sources.push((SourceGroup::Csv, name)),
            "source" if kind == Kind::TestApp => sources.push((SourceGroup::TestApp, name)),
            n if (numbered(n, "source") || (kind == Kind::App && app_source_group(n))) && on && !app_yaml => {
                sources.push((SourceGroup::Numbered, n));
            }
            "sink" if kind == Kind::TestApp && on => sinks.push((name, true)),
            n if (numbered(n, "sink") || (kind == Kind::App && app_prefixed(n, "sink"))) && on => {
                sinks.push((n, false));
            }
            n if (numbered(n, "secondary-gie")
                || (kind == Kind::App && app_prefixed(n, "secondary-gie"))
                || numbered(n, "sgie")
                || n == "sgie")
                && on =>
            {
                secondaries.push(n);
            }
            _ => {}
        }
    }
    found.sources = sources
        .par_iter()
        .with_min_len(64)
        .map(|&(how, name)| match how {
            SourceGroup::Csv => r.csv_source(name),
            SourceGroup::TestApp => r.test_app_source(name),
            SourceGroup::Numbered => r.numbered_source(name),
        })
        .collect();
    found.sinks = sinks
        .par_iter()
        .with_min_len(64)
        .map(|&(name, test_app)| {
            if test_app {
                r.test_app_sink(name)
            } else {
                r.element(Role::Sink, name)
            }
        })
        .collect();
    found.primary = primary.map(|g| r.infer(g, Stage::Primary));
    found.secondaries = secondaries.into_iter().map(|g| r.infer(g, Stage::Secondary)).collect();
    if let Some(name) = tracker {
        let mut t = r.element(Role::Tracker, name);
        t.factory = Some("nvtracker".into());
        // nvtracker hands the file to its low-level library, whatever its
        // content suggests (Precision 1: the reference beats content): not
        // a test app's `[tracker]` key-file.
        t.config = r
            .follow(name, &["ll-config-file"], Some(Kind::TrackerLowLevel))
            .map(|c| config_file(&r.ws, c));
        found.tracker = Some(t);
    }
    if let Some(name) = analytics {
        // deepstream-app `[nvds-analytics] config-file`
        // (`deepstream_dsanalytics.c`, `create_dsanalytics_bin`).
        let mut a = r.element(Role::Analytics, name);
        a.factory = Some("nvdsanalytics".into());
        a.config = r
            .follow(name, &["config-file"], Some(Kind::Analytics))
            .map(|c| config_file(&r.ws, c));
        found.analytics = Some(a);
    }
    if let Some(name) = preprocess {
        let cfg = r
            .follow(name, &["config-file"], Some(Kind::Preprocess))
            .map(|c| config_file(&r.ws, c));
        let mut p = r.element(Role::Preprocess, name);
        p.factory = Some("nvdspreprocess".into());
        p.props = layered(&r.ws, root, name, cfg.as_ref(), &[], None);
        p.home = cfg.as_ref().and_then(|c| c.home.clone()).or(p.home);
        p.config = cfg;
        found.preprocess = Some(p);
    }
    if let Some(mut list) = found.source_list.take() {
        // In deepstream-app, `[sourceN]` groups beside `[source-list]` only
        // override settings of listed sources; they add no stream.
        if kind == Kind::App {
            // The batches are the list's length, taken before the running
            // sources are counted: `parse_config_file` sets both to
            // `num_source_sub_bins`, every listed source, and only then does
            // `create_multi_source_bin` (deepstream_source_bin.c) skip
            // those whose `enable` is 0.
            let batch = r.source_list_batch(&list);
            r.inherit_source_attr_all(&mut list, &found.sources);
            found.sources.clear();
            // Only the key-file reader derives the batches (the YAML
            // reader's copy of that code is commented out,
            // `deepstream_app_config_parser_yaml.cpp`), and the primary's
            // only reaches the element when `[primary-gie]` writes
            // `batch-size` (`create_primary_gie_bin`: `is_batch_size_set`);
            // otherwise its config file's value, or nvinfer's default, stands.
            let keyfile = r.ws.files[root].doc.format == Format::KeyFile;
            if let Some(batch) = batch.filter(|_| keyfile) {
                if let Some(m) = &mut found.streammux {
                    push_setting(m, "batch-size", batch.clone());
                }
                if let Some(g) = found.primary.as_mut().filter(|g| sets_batch(g)) {
                    push_setting(g, "batch-size", batch);
                }
            }
        } else if kind == Kind::TestApp {
            // A test app that reads `source-list:` sets a batch in C after
            // reading the config, and which one depends on the app:
            // deepstream-test3 sets the primary's to the source count
            // (`main`: "Overriding infer-config batch-size"), the TAO
            // detection app to the streammux's, the LPR and OCDR apps set
            // the streammux's to the count, the multi-GPU test both. What
            // either element gets is not in the files.
            for e in found.streammux.iter_mut().chain(found.primary.as_mut()) {
                set_in_code(e, "batch-size", "a test app reading `source-list:` sets it in C");
            }
        }
        found.sources.insert(0, list);
    }
    // deepstream-app always has a `[tests]` (its file loop defaults to 0),
    // written or not.
    if tests.is_none() && kind == Kind::App {
        tests = Some(r.element(Role::Tests, "tests"));
    }
    let mut references = Vec::new();
    collect_path_references(&r.ws, root, Some(kind), &mut references);
    for gie in found.primary.iter().chain(&found.secondaries) {
        if let Some(c) = &gie.config {
            collect_path_references(&r.ws, c.file, None, &mut references);
        }
    }
    let (mut elements, mut links) = in_order(found, application, tests);
    // Every pipeline is held whole until the rules run: no growth slack.
    elements.shrink_to_fit();
    links.shrink_to_fit();
    references.shrink_to_fit();
    Pipeline {
        root,
        elements,
        links,
        references,
        primary_batch: PrimaryBatch::Unread,
        partial: false,
    }
}

/// Which reading of a source group makes its element.
#[derive(Clone, Copy)]
enum SourceGroup {
    /// deepstream-app YAML's `source:` with `csv-file-path`.
    Csv,
    /// A test app's `source:`.
    TestApp,
    /// deepstream-app's `[sourceN]`.
    Numbered,
}

/// Whether the app's group for an inference element writes `batch-size`
/// (deepstream-app's `is_batch_size_set`).
fn sets_batch(e: &Element) -> bool {
    e.prop("batch-size")
        .is_some_and(|p| p.settings.iter().any(|s| s.layer == Layer::Element))
}

fn push_setting(e: &mut Element, name: &str, s: Setting) {
    match e.props.iter_mut().find(|p| p.name == name) {
        Some(p) => p.settings.push(s),
        None => e.props.push(crate::model::graph::Property {
            name: name.into(),
            settings: smallvec::smallvec![s],
        }),
    }
}

/// The app sets `name` on the element in code, to a value the files do not
/// give (`why`): the last setting, unknown, where the element is declared.
fn set_in_code(e: &mut Element, name: &str, why: &str) {
    if let Some(at) = e.declared.as_deref().or(e.home.as_deref()).map(Home::at) {
        push_setting(e, name, Setting::unknown(at, why));
    }
}

/// The elements in deepstream-app's order (DS 9.1 `deepstream_app.c`
/// `create_pipeline`): sources into the mux, then preprocess, primary
/// inference, tracker, secondaries, analytics, tiler, OSD, and the sinks
/// (behind a tee). The test apps link the same way. Settings that belong to
/// no element come last, unlinked.
fn in_order(found: Found, application: Option<Element>, tests: Option<Element>) -> (Vec<Element>, Vec<Link>) {
    // Sized once (and kept to the end of the run): an element is ~350
    // bytes, and a vector grown by doubling copied 100k sinks again and
    // again, then once more to drop its slack. At most 9 single elements
    // (streammux to OSD, application, tests).
    let many = found.sources.len() + found.secondaries.len() + found.sinks.len() + found.others.len();
    let mut elements = Vec::with_capacity(many + 9);
    let mut links = Vec::new();
    let sources: Vec<usize> = (0..found.sources.len()).collect();
    elements.extend(found.sources);
    let mut last: Vec<usize> = sources;
    let chain = found
        .streammux
        .into_iter()
        .chain(found.preprocess)
        .chain(found.primary)
        .chain(found.tracker)
        .chain(found.secondaries)
        .chain(found.analytics)
        .chain(found.tiler)
        .chain(found.osd);
    for e in chain {
        let id = elements.len();
        elements.push(e);
        links.extend(last.iter().map(|&from| Link { from, to: id }));
        last = vec![id];
    }
    for s in found.sinks {
        let id = elements.len();
        elements.push(s);
        links.extend(last.iter().map(|&from| Link { from, to: id }));
    }
    elements.extend(found.others);
    elements.extend(application);
    elements.extend(tests);
    (elements, links)
}

/// A key-file group deepstream-app's `parse_config_file` has no branch for
/// (a `[property]` pasted into an app config, a misspelt name): it passes
/// over it, so no file named in it is opened (DS002 names the group). A
/// group the project's own reader reads (`reader_keys`) is not one.
fn unknown_app_group(ws: &Workspace, group: &str) -> bool {
    !group.is_empty()
        && !crate::model::keys::known_group(crate::model::keys::Schema::App, group)
        && !ws.reader_keys().contains(group)
}

/// A key deepstream-app's parser for `group` has no branch for, in a group
/// whose keys the table lists (DS002's "unknown key"); not one the
/// project's own reader reads (`reader_keys`, walked only for such a key).
fn unknown_app_key(ws: &Workspace, group: &str, key: &str) -> bool {
    let rows = crate::model::keys::GroupRows::of(crate::model::keys::Schema::App, group);
    rows.has_key_table() && rows.lookup(key).is_none() && !ws.reader_keys().contains(key)
}

/// Every path-valued key of a file, resolved (for DS704). `app`: the file
/// is an app config of that kind, whose disabled groups load nothing (their
/// paths are placeholders as often as not: `<path to msgconv config>`).
pub(super) fn collect_path_references(ws: &Workspace, file: FileId, app: Option<Kind>, refs: &mut Vec<Reference>) {
    // Seen spans in a set: a file of 100k path keys stays linear.
    // (foldhash, as the workspace's maps: the std's SipHash was most of
    // the set's cost.)
    let mut seen: std::collections::HashSet<(FileId, usize, usize), foldhash::fast::RandomState> =
        refs.iter().map(|r| (r.file, r.span.start, r.span.end)).collect();
    let doc = &ws.files[file].doc;
    // Each group's references are found on all threads (a config of 100k
    // path keys), then kept in file order, each place once.
    let found: Vec<Vec<Reference>> = doc
        .groups
        .par_iter()
        .enumerate()
        .with_min_len(64)
        .map(|(gi, g)| {
            let mut out = Vec::new();
            // A map yaml-cpp's lookups never reach is never read.
            if app.is_some_and(|k| group_is_off(doc, &g.name, k))
                || doc.unread_repeat_of(g).is_some()
                || (app == Some(Kind::App) && doc.format == Format::Yaml && app_yaml_skips(&g.name))
                || (app == Some(Kind::App) && doc.format == Format::KeyFile && unknown_app_group(ws, &g.name))
            {
                return out;
            }
            for (ei, e) in g.entries.iter().enumerate() {
                let Some(v) = e.value.as_deref() else { continue };
                // A copy after the one the reader takes (a key yaml-cpp's
                // lookup finds first) is never opened.
                if doc.format == Format::Yaml
                    && doc
                        .overridden_by(gi, ei)
                        .is_some_and(|w| w.spans.key().start < e.spans.key().start)
                {
                    continue;
                }
                // deepstream-parallel-infer's `tracker*`, `secondary-gie*` and
                // `nvds-analytics*` name their files with `cfg-file-path`.
                let is_config = CONFIG_PATH_KEYS.contains(&e.key.as_str())
                    || (e.key == "cfg-file-path" && app == Some(Kind::ParallelApp));
                let is_data = DATA_PATH_KEYS.contains(&e.key.as_str()) || (e.key == "uri" && v.starts_with("file://"));
                if !(is_config || is_data) || v.trim().is_empty() {
                    continue;
                }
                // deepstream-app's group parsers pass over a key they have no
                // branch for ("Unknown key", DS002's warning: a `config-file`
                // pasted into [application], a `uri` in [tests]), so the file
                // it names is never opened. A key an older release read, or
                // the project's own reader reads, is still a reference.
                if app == Some(Kind::App) && unknown_app_key(ws, &g.name, &e.key) {
                    continue;
                }
                if let Some(target) = ws.resolve(file, v) {
                    out.push(Reference {
                        file,
                        key: e.key.to_string(),
                        span: e.spans.value(),
                        target,
                        is_config,
                    });
                }
            }
            out
        })
        .collect();
    for r in found.into_iter().flatten() {
        if seen.insert((r.file, r.span.start, r.span.end)) {
            refs.push(r);
        }
    }
}
