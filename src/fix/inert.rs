//! Fixes that cannot move an engine rename (DS207): the fix loop lets a
//! rename go in the same pass as such fixes to the files its pipelines
//! read (`engine::waiting`), instead of a pass later.
//!
//! DS207 derives the engine name from the nvinfer element's `batch-size`,
//! `gpu-id`, `network-mode`, `int8-calib-file`, `enable-dla`,
//! `engine-create-func-name`, `tlt-encoded-model`, `onnx-file` and
//! `model-engine-file` (`rules::nvinfer::check` from `// DS207`,
//! `check_engine_name`, `saved_model`, `engine_usable`), from which files
//! the pipeline reads and which element is which. A fix is inert when
//! each of its edits either replaces, inside one value, a plain token by
//! a plain token (digits, letters, `.`, `+`, `-`: no path, no quote, no
//! line break, nothing a YAML or key-file reader reads as structure), or
//! adds one whole `key=token` line where a key-file group takes its next
//! key (`Group::insert_at`, where `Workspace::insert_key` writes) — in
//! both cases for a key of [`INERT_KEYS`]. Such an edit changes that one
//! property's value and nothing else: no group, element, role, reference
//! or file read, and no property DS207 reads.

use std::collections::HashMap;

use crate::base::edit::{Edit, Fix};
use crate::base::{FileId, Span};
use crate::model::workspace::Workspace;
use crate::syntax::{Document, Format};

/// Keys whose value is that property's alone: neither DS207 nor the front
/// ends that decide a pipeline's shape and its nvinfer's batch read them.
/// Each was audited in `src/model` (the only places they are named):
///
/// | key | named in `src/model` (outside tests) | why that is no input of DS207 |
/// |---|---|---|
/// | `batched-push-timeout` | `keys.rs` (the key schema) | streammux's own timeout |
/// | `nvbuf-memory-type` | — | each element's own memory type |
/// | `live-source` | `service_maker.rs` `BOOLEAN_PROPERTIES` | how a fix writes a boolean |
/// | `interval` | `config.rs` `SET_ON_INFER`, `gst.rs` `NVINFER_WINS`, `inferserver.rs` | which line wins for `interval` itself |
/// | `cudadec-memtype` | — | the decoder's memory type |
/// | `enable-perf-measurement` | — | deepstream-app's `[tests]`/`[application]` flag |
/// | `perf-measurement-interval-sec` | — | the same |
///
/// `inert_keys_are_no_input_of_ds207` (below) checks that DS207's code and
/// the app front end name none of them.
pub const INERT_KEYS: &[&str] = &[
    "batched-push-timeout",
    "nvbuf-memory-type",
    "live-source",
    "interval",
    "cudadec-memtype",
    "enable-perf-measurement",
    "perf-measurement-interval-sec",
];

/// Which fixes of one pass are inert, each document's sites gathered once
/// for all its fixes (a scan of a document's entries for each edit was
/// quadratic in a file of many fixes: 80,000 commented keys beside an
/// engine rename, 8 s → 15 s).
pub struct Inert<'w> {
    ws: &'w Workspace,
    sites: HashMap<FileId, Sites>,
}

impl<'w> Inert<'w> {
    pub fn new(ws: &'w Workspace) -> Inert<'w> {
        Inert {
            ws,
            sites: HashMap::new(),
        }
    }

    /// Whether every edit of `fix` is inert (see the module's doc).
    pub fn fix_is_inert(&mut self, fix: &Fix) -> bool {
        let ws = self.ws;
        fix.edits.iter().all(|e| {
            ws.files.get(e.file).is_some_and(|f| {
                let sites = self.sites.entry(e.file).or_insert_with(|| Sites::of(&f.doc));
                edit_is_inert(&f.doc, sites, e)
            })
        })
    }
}

/// Where an edit of one document can be inert: the value spans of the
/// entries of inert keys, and the offsets where a group takes its next key
/// (`Group::insert_at`), each sorted by offset.
struct Sites {
    values: Vec<Span>,
    inserts: Vec<usize>,
}

impl Sites {
    fn of(doc: &Document) -> Sites {
        let mut values: Vec<Span> = doc
            .groups
            .iter()
            .flat_map(|g| &g.entries)
            .filter(|entry| entry.value.is_some() && inert_key(&entry.key))
            .map(|entry| entry.spans.value())
            .collect();
        values.sort_unstable_by_key(|v| (v.start, v.end));
        let mut inserts: Vec<usize> = doc.groups.iter().map(|g| g.insert_at).collect();
        inserts.sort_unstable();
        Sites { values, inserts }
    }

    /// Whether `range` lies inside the value of an entry of an inert key
    /// (an empty range: an insertion into that value). Values one under
    /// another do not overlap, so the one that may hold it is the last to
    /// start at or before it. (A value nested in another, a flow mapping's,
    /// is asked alone: a miss there makes the rename wait, never go early.)
    fn in_inert_value(&self, range: &Span) -> bool {
        let after = self.values.partition_point(|v| v.start <= range.start);
        after > 0 && range.end <= self.values[after - 1].end
    }
}

/// A token no reader takes for structure or a path.
fn plain(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'))
}

fn inert_key(key: &str) -> bool {
    INERT_KEYS.contains(&key)
}

/// Whether one edit of `doc` is inert (`sites`: the document's).
fn edit_is_inert(doc: &Document, sites: &Sites, e: &Edit) -> bool {
    if !matches!(doc.format, Format::KeyFile | Format::Yaml) {
        return false;
    }
    if e.range.is_empty() && doc.format == Format::KeyFile {
        return inserts_inert_line(doc, sites, e);
    }
    if !plain(&e.text) || doc.text.get(e.range.clone()).is_none_or(|old| !plain(old)) {
        return false;
    }
    // Inside the value of one entry of an inert key (an empty range is an
    // insertion into that value).
    sites.in_inert_value(&e.range)
}

/// A key-file edit that adds one `key=token` line of an inert key where a
/// group takes its next key.
fn inserts_inert_line(doc: &Document, sites: &Sites, e: &Edit) -> bool {
    let at = e.range.start;
    if sites.inserts.binary_search(&at).is_err() {
        return false;
    }
    let text = e.text.as_str();
    let line_start = at == 0 || doc.text[..at].ends_with('\n');
    let line = if line_start {
        text.strip_suffix('\n').map(|l| l.strip_suffix('\r').unwrap_or(l))
    } else if at == doc.text.len() {
        // After a last line without its line end: the line end first.
        text.strip_prefix("\r\n").or_else(|| text.strip_prefix('\n'))
    } else {
        None
    };
    let Some((key, value)) = line.and_then(|l| l.split_once('=')) else {
        return false;
    };
    let (key, value) = (key.trim_end_matches([' ', '\t']), value.trim_start_matches([' ', '\t']));
    !key.is_empty()
        && !key.contains(['\n', '\r'])
        && !value.contains(['\n', '\r'])
        && inert_key(key)
        && plain(value)
        && !value.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str, format: Format) -> Document {
        Document::parse(text.to_string(), format)
    }

    fn edit_is_inert(d: &Document, e: &Edit) -> bool {
        super::edit_is_inert(d, &Sites::of(d), e)
    }

    fn edit(range: std::ops::Range<usize>, text: &str) -> Edit {
        Edit {
            file: 0,
            range,
            text: text.to_string(),
        }
    }

    /// A value of an inert key set, or a line of one added where the group
    /// takes its next key: inert. A key DS207 reads, a path, a line break,
    /// a line anywhere else: not.
    #[test]
    fn inert_edits_set_or_add_one_inert_value() {
        let text = "[property]\ninterval=2\nbatch-size=4\n[streammux]\nbatched-push-timeout=40000\n";
        let d = doc(text, Format::KeyFile);
        let at = |s: &str| text.find(s).unwrap();
        let interval = at("2\n");
        assert!(edit_is_inert(&d, &edit(interval..interval + 1, "0")));
        let batch = at("4\n");
        assert!(!edit_is_inert(&d, &edit(batch..batch + 1, "8")));
        assert!(!edit_is_inert(&d, &edit(interval..interval + 1, "a/b")));
        assert!(!edit_is_inert(&d, &edit(interval..interval + 2, "0\n")));
        let timeout = at("40000");
        assert!(edit_is_inert(&d, &edit(timeout..timeout + 5, "33000")));
        let mux_end = text.len();
        assert!(edit_is_inert(&d, &edit(mux_end..mux_end, "live-source=1\n")));
        assert!(!edit_is_inert(&d, &edit(mux_end..mux_end, "batch-size=1\n")));
        assert!(!edit_is_inert(&d, &edit(mux_end..mux_end, "live-source=1\n[x]\n")));
        // Not where a group takes its next key: the middle of [property].
        let mid = at("batch-size");
        assert!(!edit_is_inert(&d, &edit(mid..mid, "live-source=1\n")));
        // A YAML value of an inert key, not a YAML insertion.
        let yaml = "property:\n  interval: 2\n  batch-size: 4\n";
        let y = doc(yaml, Format::Yaml);
        let i = yaml.find("2\n").unwrap();
        assert!(edit_is_inert(&y, &edit(i..i + 1, "0")));
        let b = yaml.find("4\n").unwrap();
        assert!(!edit_is_inert(&y, &edit(b..b + 1, "8")));
        assert!(!edit_is_inert(&y, &edit(yaml.len()..yaml.len(), "  interval: 0\n")));
    }

    /// The audit of `INERT_KEYS`, as far as code can check it: DS207's code
    /// (`rules::nvinfer::check` and the helpers before it, and the engine
    /// name's functions after the other rules') and the app front end (which
    /// builds elements, picks their configs and derives the primary's
    /// batch) name none of the keys.
    #[test]
    fn inert_keys_are_no_input_of_ds207() {
        let nvinfer = include_str!("../rules/nvinfer.rs");
        // The helpers and `check` (up to `check_server`).
        let check = &nvinfer[..nvinfer.find("pub fn check_server").unwrap()];
        let callees =
            &nvinfer[nvinfer.find("pub fn parse_engine_name").unwrap()..nvinfer.find("#[cfg(test)]").unwrap()];
        let app = include_str!("../model/frontend/app.rs");
        for key in INERT_KEYS {
            let quoted = format!("\"{key}\"");
            for (name, code) in [("DS207", check), ("DS207's callees", callees), ("frontend::app", app)] {
                assert!(!code.contains(&quoted), "{name} names {key}");
            }
        }
    }
}
