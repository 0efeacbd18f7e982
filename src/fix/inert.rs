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

use crate::base::edit::{Edit, Fix};
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

/// Whether every edit of `fix` is inert (see the module's doc).
pub fn fix_is_inert(ws: &Workspace, fix: &Fix) -> bool {
    fix.edits
        .iter()
        .all(|e| ws.files.get(e.file).is_some_and(|f| edit_is_inert(&f.doc, e)))
}

/// A token no reader takes for structure or a path.
fn plain(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'))
}

fn inert_key(key: &str) -> bool {
    INERT_KEYS.contains(&key)
}

/// Whether one edit of `doc` is inert.
pub fn edit_is_inert(doc: &Document, e: &Edit) -> bool {
    if !matches!(doc.format, Format::KeyFile | Format::Yaml) {
        return false;
    }
    if e.range.is_empty() && doc.format == Format::KeyFile {
        return inserts_inert_line(doc, e);
    }
    if !plain(&e.text) || doc.text.get(e.range.clone()).is_none_or(|old| !plain(old)) {
        return false;
    }
    // Inside the value of one entry of an inert key (an empty range is an
    // insertion into that value).
    doc.groups.iter().flat_map(|g| &g.entries).any(|entry| {
        let v = entry.spans.value();
        entry.value.is_some() && inert_key(&entry.key) && v.start <= e.range.start && e.range.end <= v.end
    })
}

/// A key-file edit that adds one `key=token` line of an inert key where a
/// group takes its next key.
fn inserts_inert_line(doc: &Document, e: &Edit) -> bool {
    let at = e.range.start;
    if !doc.groups.iter().any(|g| g.insert_at == at) {
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
