//! GLib key-files (deepstream-app and nvinfer `.txt` configs): groups,
//! `key=value`, `;` lists, `#` comments (and `;` lines, which are not),
//! localized keys, a BOM, CR-only and mixed line endings, multibyte text.

use dslint::syntax::Format;
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

use crate::checks;
use crate::grammar::{block, lines, number, one, pick, word};

/// Keys DeepStream reads (so the rules run on the values), and others.
fn key() -> BoxedStrategy<String> {
    prop_oneof![
        3 => pick(&[
            "batch-size", "num-sources", "type", "enable", "uri", "config-file", "gpu-id", "network-mode",
            "model-engine-file", "onnx-file", "infer-dims", "batched-push-timeout", "live-source", "sync",
            "interval", "gie-unique-id", "num-extra-surfaces", "cudadec-memtype", "width", "height",
            "ll-config-file", "labelfile-path", "file-loop", "enable-perf-measurement", "max-batch-size",
            "list", "use-nvmultiurisrcbin", "nvbuf-memory-type", "network-input-shape",
            "config-width", "config-height", "roi-RF", "line-crossing-Exit", "direction-South",
        ]),
        1 => word(),
        1 => (word(), pick(&["[de]", "[é]", "[", "]", "[]"])).prop_map(|(k, l)| format!("{k}{l}")),
    ]
    .boxed()
}

fn value() -> BoxedStrategy<String> {
    prop_oneof![
        4 => number(),
        2 => word(),
        1 => prop::collection::vec(number(), 1..4).prop_map(|v| v.join(";")),
        1 => pick(&["a;b;", "1;2;3", "x\\;y", "\\s\\n\\t\\\\", "file://video.mp4", "m.onnx_b4_gpu0_fp16.engine", "rtsp://h/é", ""]),
        1 => (number(), pick(&[" # note", "#x", "  ", " ;c", " é"])).prop_map(|(n, t)| format!("{n}{t}")),
    ]
    .boxed()
}

fn group() -> BoxedStrategy<String> {
    prop_oneof![
        3 => pick(&[
            "application", "property", "streammux", "primary-gie", "source0", "source1", "source2", "sink0",
            "tracker", "osd", "tiled-display", "tests", "source-list", "class-attrs-all", "secondary-gie0",
            "nvds-analytics", "roi-filtering-stream-0", "overcrowding-stream-1", "line-crossing-stream-0",
            "direction-detection-stream-99999999999999999999",
        ]),
        1 => word(),
    ]
    .boxed()
}

fn entry() -> BoxedStrategy<String> {
    prop_oneof![
        12 => (pick(&["", "", "", " ", "\t"]), key(), pick(&["=", "=", "=", " = ", "= ", " =", "=="]), value())
            .prop_map(|(lead, k, sep, v)| format!("{lead}{k}{sep}{v}")),
        1 => stray(),
    ]
    .boxed()
}

/// Lines that are not entries: comments, blanks, and lines GLib refuses.
fn stray() -> BoxedStrategy<String> {
    prop_oneof![
        4 => pick(&["# comment", "#é", "  # indented", "", "   "]),
        1 => pick(&[";not a comment", "=v", "noeq", "[]", "\u{feff}[g]", "\u{0}", "\x0b", "[g]x", "[g]]", "[a[b]"]),
        1 => group().prop_map(|g| format!("[{g}")),
    ]
    .boxed()
}

fn header() -> BoxedStrategy<String> {
    (pick(&["", "", "", " "]), group(), pick(&["", "", "", " ", "\t"]))
        .prop_map(|(lead, g, tail)| format!("{lead}[{g}]{tail}"))
        .boxed()
}

pub fn document() -> BoxedStrategy<String> {
    let piece = prop_oneof![6 => block(header(), &[""], entry(), 7), 1 => one(stray())];
    (pick(&["", "", "", "", "\u{feff}"]), lines(piece.boxed(), 5))
        .prop_map(|(bom, doc)| format!("{bom}{doc}"))
        .boxed()
}

pub fn check(input: &str) -> Result<(), String> {
    checks::document_is_lossless(input, Format::KeyFile)?;
    checks::whole_check(input, "config.txt", Format::KeyFile)
}
