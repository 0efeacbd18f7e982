//! How many sources deepstream-app's key-file reader makes of a
//! `[source-list]` (DS 9.1 `parse_source_list`, `set_source_all_configs`,
//! `parse_config_file`, deepstream_app_config_parser.c), or why that is not
//! known: a config the app refuses, or one whose count it would read past
//! its own arrays, is unknown (Precision 5), never a count dslint guesses.

use crate::model::detect::{app_source_group, app_source_index};
use crate::syntax::{Document, glib};

/// `MAX_SOURCE_BINS` (deepstream_config.h): the size of
/// `multi_source_config`, which `set_source_all_configs` fills up to the
/// listed count without a check.
const MAX_SOURCE_BINS: i64 = 1024;

/// The type a `[source-list] list` entry gives its source, as
/// `set_source_all_configs` reads it: `file://`, `rtsp://`, or `usb:`/`csi:`
/// with a number to the end; any other entry is refused ("not in proper
/// format", or an empty entry read past its end: `uri + 4`).
pub(super) fn entry_opens(uri: &str) -> bool {
    if uri.starts_with("file://") || uri.starts_with("rtsp://") {
        return true;
    }
    let id = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    uri.strip_prefix("csi:")
        .or_else(|| uri.strip_prefix("usb:"))
        .is_some_and(id)
}

/// The entries of a `;` list key as `g_key_file_get_string_list` returns
/// them (an empty entry counts, nothing is trimmed), or why GLib refuses it;
/// one at a time: a list is counted and searched, never held (10^7 entries
/// in a 10 MB file).
fn string_list<'d>(doc: &'d Document, group: &str, key: &str) -> Result<Option<glib::ListItems<'d>>, String> {
    let Some(entry) = doc.get(group, key) else {
        return Ok(None);
    };
    let Some(v) = entry.value.as_deref() else {
        return Err(format!("[{group}] {key} is not a list GLib reads"));
    };
    glib::list_items(v)
        .map(Some)
        .map_err(|e| format!("[{group}] {key} is not a list GLib reads ({e}): deepstream-app refuses the config"))
}

/// The number of listed sources, `num_source_sub_bins`, which
/// `parse_config_file` gives the streammux's and the primary's batch:
/// `num-source-bins` where written, else the entries of `list`. Both
/// written, `parse_source_list` refuses the config unless `list`,
/// `sensor-id-list` and `sensor-name-list` each have that many entries
/// ("Mismatch in URIs provided and num-source-bins.", and the same for the
/// sensor IDs and names: an unwritten list has none). Without
/// `[source-attr-all]` the app refuses the config; with it,
/// `set_source_all_configs` refuses a `list` entry it cannot open. With
/// nvmultiurisrcbin (`multi`) 0 is a count (streams come over REST), without
/// it no source runs: unknown. A `[sourceN]` group with N at or past the
/// count is refused. Above `MAX_SOURCE_BINS` the app writes past
/// its array, and at it refuses any `[sourceN]` ("App supports max").
pub(super) fn listed_count(doc: &Document, group: &str, multi: bool) -> Result<u32, String> {
    let uris = string_list(doc, group, "list")?;
    let uri_count = uris.clone().map(Iterator::count);
    let bins = match doc.get(group, "num-source-bins") {
        None => None,
        Some(e) => {
            // `g_key_file_get_integer`: a gint; a negative one is a huge
            // guint `total_num_sources`.
            let n = e
                .value
                .as_deref()
                .and_then(glib::parse_int)
                .filter(|n| i32::try_from(*n).is_ok());
            match n {
                Some(n) if n >= 0 => Some(n),
                Some(_) => {
                    return Err(format!(
                        "[{group}] num-source-bins is negative: deepstream-app reads it as a count past its arrays"
                    ));
                }
                None => {
                    return Err(format!(
                        "[{group}] num-source-bins is not an integer: deepstream-app refuses the config"
                    ));
                }
            }
        }
    };
    let n = match (bins, uri_count) {
        (Some(n), Some(uri_count)) => {
            for key in ["list", "sensor-id-list", "sensor-name-list"] {
                let len = match key {
                    "list" => uri_count,
                    _ => string_list(doc, group, key)?.map_or(0, Iterator::count),
                };
                if i64::try_from(len).ok() != Some(n) {
                    return Err(format!(
                        "[{group}] {key} has {len} entries, num-source-bins {n}: deepstream-app refuses the config (parse_source_list: \"Mismatch\")"
                    ));
                }
            }
            n
        }
        (Some(n), None) => n,
        (None, Some(uri_count)) => i64::try_from(uri_count).unwrap_or(i64::MAX),
        (None, None) => 0,
    };
    if !doc.has_group("source-attr-all") {
        return Err(format!(
            "[{group}] without [source-attr-all]: deepstream-app refuses the config"
        ));
    }
    if let Some((i, bad)) = uris
        .clone()
        .into_iter()
        .flatten()
        .enumerate()
        .find(|(_, u)| !entry_opens(u))
    {
        // The entry shown cut short: a reason is echoed, and an entry may
        // be the whole (megabytes long) list.
        let shown: String = bad.chars().take(40).collect();
        let cut = if bad.chars().nth(40).is_some() { "…" } else { "" };
        return Err(format!(
            "[{group}] list entry {} ({shown:?}{cut}) is none of file://, rtsp://, usb:N, csi:N: deepstream-app refuses the config (set_source_all_configs)",
            i + 1
        ));
    }
    // `parse_config_file` reads every `[source<N>]` group (enabled or not:
    // the check comes before `parse_source`) as an override of listed
    // source N, and refuses the config for an N at or past the count
    // ("Invalid source group index %d, index cannot exceed %d").
    let names = doc.group_names();
    if let Some(past) = names
        .iter()
        .find(|g| app_source_index(g).is_some_and(|i| i64::from(i) >= n))
    {
        return Err(format!(
            "[{past}] is past the {n} sources [{group}] lists: deepstream-app refuses the config (\"Invalid source group index\")"
        ));
    }
    // Without `list` every source is a copy of `[source-attr-all]`, type
    // and all: a multi-URI one (3) beside any `[sourceN]` group, which
    // `parse_config_file` checks after `parse_source` (that reads nothing
    // of a group whose `enable` is 0, so the entry keeps the copy's type).
    let any_source_group = || names.iter().any(|g| app_source_group(g));
    let int = |group: &str, key: &str| {
        doc.get(group, key)
            .and_then(|e| e.value.as_deref())
            .and_then(glib::parse_int)
    };
    let attr_type = int("source-attr-all", "type");
    if uris.is_none() && attr_type == Some(3) && any_source_group() {
        return Err(
            "[source-attr-all] type=3 beside a [sourceN] group: deepstream-app refuses the config (\"MultiURI support not available if [source-list] is provided\")"
                .to_string(),
        );
    }
    // An override `parse_source` reads (`enable` an integer other than 0)
    // that writes type 3 makes its source multi-URI: refused the same way.
    if let Some(multi_uri) = names
        .iter()
        .find(|g| app_source_group(g) && int(g, "enable").is_some_and(|e| e != 0) && int(g, "type") == Some(3))
    {
        return Err(format!(
            "[{multi_uri}] type=3 under [{group}]: deepstream-app refuses the config (\"MultiURI support not available if [source-list] is provided\")"
        ));
    }
    if n == 0 && !multi {
        return Err(format!("[{group}] lists no source"));
    }
    if n > MAX_SOURCE_BINS || (n == MAX_SOURCE_BINS && any_source_group()) {
        return Err(format!(
            "[{group}] lists {n} sources, more than deepstream-app holds ({MAX_SOURCE_BINS})"
        ));
    }
    u32::try_from(n).map_err(|_| format!("[{group}] lists {n} sources"))
}

/// The streams of a multi-URI source (type 3) of `num-sources` (`value`:
/// unset is 0): `parse_config_file` raises a count below 1 to 1; a negative
/// one is a huge `guint` (`num_sources`) that overruns `MAX_SOURCE_BINS`
/// ("App supports max"), and one GLib cannot read fails `parse_source`: the
/// app refuses both (`None`).
pub(super) fn multi_uri_streams(value: Option<&str>) -> Option<u32> {
    let Some(v) = value else { return Some(1) };
    let n = glib::parse_int(v).filter(|n| i32::try_from(*n).is_ok())?;
    if n < 0 {
        return None;
    }
    u32::try_from(n.max(1)).ok()
}
