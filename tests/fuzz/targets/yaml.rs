//! YAML (deepstream-app, nvinfer and tracker configs): mappings, sequences,
//! flow collections, quotes, block scalars, anchors, aliases, tags,
//! directives (OpenCV's `%YAML:1.0` too), comments, tabs, BOMs, CRLF.

use dslint::syntax::Format;
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

use crate::checks;
use crate::grammar::{block, joined, lines, number, one, pick, word};

fn scalar() -> BoxedStrategy<String> {
    prop_oneof![
        4 => word(),
        3 => number(),
        2 => word().prop_map(|w| format!("\"{w}\"")),
        1 => word().prop_map(|w| format!("'{w}'")),
        1 => pick(&["\"a\\\"b\"", "\"\\u00e9\\n\"", "'it''s'", "\"é\\tµ\"", "\"\"", "''", "~", "null", "true"]),
        1 => (pick(&["\"", "'"]), word()).prop_map(|(q, w)| format!("{q}{w}")),
    ]
    .boxed()
}

fn token() -> BoxedStrategy<String> {
    prop_oneof![
        6 => (word(), scalar()).prop_map(|(k, v)| format!("{k}: {v}")),
        3 => word().prop_map(|k| format!("{k}:")),
        3 => scalar(),
        2 => pick(&[":", ": ", "- ", "-", "? ", ",", "[", "]", "{", "}", "[]", "{}", "|", ">", "|-", ">+", "#", "\t"]),
        1 => word().prop_map(|w| format!("&{w}")),
        1 => word().prop_map(|w| format!("*{w}")),
        1 => pick(&["!!str", "!x", "!<tag:x>", "!!map", "<<: *a"]),
        1 => scalar().prop_map(|s| format!("[{s}, {s}]")),
        1 => (word(), scalar()).prop_map(|(k, v)| format!("{{{k}: {v}}}")),
    ]
    .boxed()
}

/// A line of tokens, a comment after it sometimes.
fn free_line() -> BoxedStrategy<String> {
    (
        pick(&["", "", "  ", "    ", " ", "\t", "  - "]),
        joined(token(), 5),
        pick(&["", "", " # c", " #é", "  "]),
    )
        .prop_map(|(indent, body, comment)| format!("{indent}{body}{comment}"))
        .boxed()
}

/// What sits under a group key: mostly `key: value`.
fn entry() -> BoxedStrategy<String> {
    prop_oneof![
        12 => (word(), scalar(), pick(&["", "", " # c", " #é"])).prop_map(|(k, v, c)| format!("{k}: {v}{c}")),
        1 => (word(), pick(&["&a ", "!!str ", "*a", "&é "]), scalar()).prop_map(|(k, a, v)| format!("{k}: {a}{v}")),
        1 => (word(), scalar()).prop_map(|(k, v)| format!("{k}: [{v}, {v}]")),
        1 => (word(), pick(&["|", ">", "|-", "|+"]), word()).prop_map(|(k, s, v)| format!("{k}: {s}\n    {v}")),
        1 => word().prop_map(|k| format!("{k}:")),
        1 => scalar().prop_map(|v| format!("  - {v}")),
        1 => free_line(),
    ]
    .boxed()
}

fn piece() -> BoxedStrategy<Vec<String>> {
    prop_oneof![
        10 => block(word().prop_map(|g| format!("{g}:")).boxed(), &["  ", "  ", "  ", "    ", " ", "\t"], entry(), 6),
        1 => one(free_line()),
        1 => one(pick(&["---", "...", "%YAML 1.2", "%YAML:1.0", "%TAG ! tag:x,2000:", "# comment é", "\u{feff}", "--- !x", "- - a", ""])),
    ]
    .boxed()
}

pub fn document() -> BoxedStrategy<String> {
    lines(piece(), 6)
}

pub fn check(input: &str) -> Result<(), String> {
    checks::document_is_lossless(input, Format::Yaml)?;
    checks::whole_check(input, "config.yml", Format::Yaml)
}
