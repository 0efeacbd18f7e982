//! nvdsmetamux's key-file (the `config-file` of deepstream-parallel-infer's
//! `meta-mux:`), as the plugin reads it: DeepStream's
//! `gst-nvdsmetamux/nvdsmetamux_property_parser.cpp`
//! `nvdsmetamux_parse_config_file`.
//!
//! What the reader does: GLib loads the file (with `;` as the list
//! separator); without a `[property]` group the parse fails. Groups are
//! read in order: `[property]` (`enable` as a boolean, `active-pad` as a
//! string, `pts-tolerance` as an integer), and every group whose name
//! starts with `group-` (`nvdsmetamux_parse_common_group`), which reads each
//! key starting with `src-ids-model` as an integer list and keys it by the
//! model id after the key's last `-` (`EXTRACT_STREAM_ID`). Each such group
//! *replaces* the whole map, so only the last `group-*` group counts. Any
//! failed read fails the whole parse, and then the plugin keeps every
//! model's metadata (`gst_nvdsmetamux_check_needed` returns early when
//! `config_file_parse_successful` is false).
//!
//! What the map does (`gst_nvdsmetamux_check_needed`, called by
//! `gst_nvdsmetamux_filter_metadata` on every object, classifier and tensor
//! meta): a model with no key keeps everything; a model whose list starts
//! with `-1` keeps everything; otherwise the metadata of a frame whose
//! `source_id` is not in the list is removed.

use crate::base::FileId;
use crate::model::graph::Site;
use crate::model::workspace::Workspace;
use crate::syntax::{Document, glib};

/// One `src-ids-model-<uid>` key of the group the plugin keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSources {
    /// The model's `unique-id` (nvinfer's `gie-unique-id`).
    pub uid: u64,
    /// The source ids whose metadata from that model is kept.
    pub ids: Vec<i64>,
    pub site: Site,
}

/// The per-model source lists the plugin filters by, when its reader
/// accepts the file and every key is one dslint reads the same way (a key
/// `src-ids-model-<digits>`, each model once, a non-empty list). `None`:
/// the plugin keeps everything, or what it does is not known (silence).
pub fn model_sources(ws: &Workspace, file: FileId) -> Option<Vec<ModelSources>> {
    let doc = &ws.files[file].doc;
    // A file GLib refuses is never parsed (DS001 reports it).
    if !doc.errors.is_empty() || !doc.has_group("property") {
        return None;
    }
    let names = doc.group_names();
    for e in doc.groups_named("property").flat_map(|g| &g.entries) {
        let v = e.value.as_deref()?;
        let ok = match e.key.as_str() {
            "enable" => glib::parse_bool(v).is_some(),
            "pts-tolerance" => glib::parse_int(v).is_some(),
            "active-pad" => glib::parse_string(v).is_ok(),
            _ => true,
        };
        if !ok {
            return None;
        }
    }
    let mut last = None;
    for name in names.iter().filter(|n| n.starts_with("group-")) {
        last = Some(read_group(doc, file, name)?);
    }
    last
}

/// One `group-*` group's map; `None` when the plugin's read of it fails or
/// dslint does not read a key as the plugin does.
fn read_group(doc: &Document, file: FileId, group: &str) -> Option<Vec<ModelSources>> {
    let mut out: Vec<ModelSources> = Vec::new();
    for e in doc.groups_named(group).flat_map(|g| &g.entries) {
        if e.localized || !e.key.starts_with("src-ids-model") {
            continue;
        }
        // `EXTRACT_STREAM_ID` splits at `-` (at most 5 pieces) and reads the
        // last with `g_ascii_strtoull`: only the plain form is read here.
        let digits = e.key.strip_prefix("src-ids-model-")?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let uid: u64 = digits.parse().ok()?;
        let ids = glib::split_list(e.value.as_deref()?)
            .ok()?
            .iter()
            .map(|s| glib::parse_int(s))
            .collect::<Option<Vec<i64>>>()?;
        // An empty list reads past the vector's end in the plugin; a model
        // named twice keeps one of them (`emplace`) in GLib's key order.
        // Neither is modelled: silence.
        if ids.is_empty() || out.iter().any(|m| m.uid == uid) {
            return None;
        }
        out.push(ModelSources {
            uid,
            ids,
            site: Site::of(file, group, e),
        });
    }
    Some(out)
}

impl ModelSources {
    /// Whether the plugin keeps this model's metadata of `source`.
    pub fn keeps(&self, source: u32) -> bool {
        self.ids.first() == Some(&-1) || self.ids.contains(&i64::from(source))
    }
}
