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
//! model id in the last of at most 5 `-`-pieces of the key
//! (`EXTRACT_STREAM_ID`: `src-ids-model-x-1` is model 1). Each such group
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
        let uid = model_id(&e.key)?;
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
            site: Site::of(file, &group.into(), e),
        });
    }
    Some(out)
}

/// The model id `EXTRACT_STREAM_ID` reads from a `src-ids-model…` key:
/// `g_strsplit(key, "-", 5)`, then `g_ascii_strtoull` of the last piece
/// (so `src-ids-model-x-1` is model 1, and `src-ids-model-1-2-3` model 2,
/// the fifth piece being `2-3`). Read here only when that piece starts with
/// a digit and the id fits the `gint` the plugin keys its map by; anything
/// else (a sign, blanks, no digits, an overflow) is `None`: not known.
fn model_id(key: &str) -> Option<u64> {
    let last = key.splitn(5, '-').last()?;
    let end = last.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(last.len());
    let uid: u64 = last[..end].parse().ok()?;
    (uid <= i32::MAX as u64).then_some(uid)
}

impl ModelSources {
    /// Whether the plugin keeps this model's metadata of `source`.
    pub fn keeps(&self, source: u32) -> bool {
        self.ids.first() == Some(&-1) || self.ids.contains(&i64::from(source))
    }
}

#[cfg(test)]
mod tests {
    use super::model_id;

    #[test]
    fn model_ids_are_read_as_extract_stream_id_reads_them() {
        assert_eq!(model_id("src-ids-model-1"), Some(1));
        assert_eq!(model_id("src-ids-model-x-1"), Some(1));
        assert_eq!(model_id("src-ids-model-1-2-3"), Some(2));
        assert_eq!(model_id("src-ids-model-7abc"), Some(7));
        assert_eq!(model_id("src-ids-model-2147483647"), Some(2_147_483_647));
        assert_eq!(model_id("src-ids-model-2147483648"), None);
        assert_eq!(model_id("src-ids-model-+1"), None);
        assert_eq!(model_id("src-ids-model-"), None);
        assert_eq!(model_id("src-ids-modelx"), None);
    }
}
