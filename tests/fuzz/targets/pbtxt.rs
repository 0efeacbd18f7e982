//! Protobuf text (nvinferserver's `infer_config { … }` configs): messages
//! in `{ }` or `< >` with or without `:`, scalars, lists `[a, b]` of
//! scalars or messages, `,`/`;` field ends, `#` comments, strings in both
//! quotes with C escapes (and unclosed ones), adjacent strings, numbers as
//! protobuf's tokenizer reads them (`0x1F`, `1.5f`, `-inf`), extension
//! names `[a.b]`, stray and unbalanced brackets, nesting past protobuf's
//! recursion limit, multibyte text, CRLF.

use dslint::syntax::Format;
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

use crate::checks;
use crate::grammar::{number, pick, word};

/// Field names nvinferserver reads (so the front end maps them to element
/// properties and the rules run on them), and others.
fn name() -> BoxedStrategy<String> {
    prop_oneof![
        6 => pick(&[
            "unique_id", "max_batch_size", "gpu_ids", "interval", "process_mode", "labelfile_path",
            "num_detected_classes", "operate_on_gie_id", "operate_on_class_ids", "model_name", "version",
            "root", "strict_model_config", "scale_factor", "channel_offsets", "async_mode",
        ]),
        3 => pick(&[
            "infer_config", "input_control", "backend", "triton", "model_repo", "preprocess", "normalize",
            "postprocess", "detection", "classification", "output_control", "extra",
        ]),
        1 => word(),
        1 => pick(&["[ext.name]", "[type.googleapis.com/a.B]", "_x", "a1", "1a"]),
    ]
    .boxed()
}

fn scalar() -> BoxedStrategy<String> {
    prop_oneof![
        5 => number(),
        2 => pick(&[
            "true", "false", "True", "t", "PROCESS_MODE_FULL_FRAME", "PROCESS_MODE_CLIP_OBJECTS", "-inf", "inf",
            "nan", "1.5f", "0x1F", "0X1f", "-0", "1e-3", "1E+9", "0777", ".5", "5.", "-", "-x", "1.2.3",
        ]),
        3 => word().prop_map(|w| format!("\"{w}\"")),
        1 => word().prop_map(|w| format!("'{w}'")),
        1 => pick(&[
            r#""a\"b""#, r#"'it\'s'"#, r#""\x41\101\u00e9\U0001F980\n\t""#, r#""a" 'b'"#, r#""a""b""#,
            r#""\q""#, r#""\x""#, r#""\u12""#, r#""unclosed"#, "'", "\"", r#""\"#, "\"tab\tin\"",
            "\"line\nbreak\"", "\"é🦀\"",
        ]),
    ]
    .boxed()
}

/// Between tokens: spaces, line breaks (with indentation), comments.
fn gap() -> BoxedStrategy<String> {
    pick(&[
        " ",
        " ",
        "\n  ",
        "\n  ",
        "\n",
        "\r\n  ",
        "",
        "\t",
        "  # note é\n  ",
        "#\n",
        "\n\n    ",
        "\r",
    ])
}

/// A field's end: mostly nothing, sometimes `,` or `;`.
fn end() -> BoxedStrategy<String> {
    pick(&["", "", "", "", ",", ";", " ,", ",;"])
}

fn scalar_field() -> BoxedStrategy<String> {
    prop_oneof![
        8 => (name(), pick(&[": ", ":", " : ", ":\n"]), scalar(), end())
            .prop_map(|(n, c, v, e)| format!("{n}{c}{v}{e}")),
        2 => (name(), pick(&[": ", ":"]), prop::collection::vec(scalar(), 0..4), end())
            .prop_map(|(n, c, vs, e)| format!("{n}{c}[{}]{e}", vs.join(", "))),
        // No `:` before a scalar: protobuf refuses it.
        1 => (name(), scalar()).prop_map(|(n, v)| format!("{n} {v}")),
        1 => pick(&["}", "{", "]", "[", ">", "<", ":", "::", ",", "a: [1,", "a: [1 2]", "a: [,]", "a: {", "# only a comment"]),
    ]
    .boxed()
}

/// A message body: fields, messages within (recursively), lists of
/// messages; brackets mostly balanced, sometimes not.
fn body() -> BoxedStrategy<String> {
    let fields = |item: BoxedStrategy<String>| {
        (prop::collection::vec((item, gap()), 0..5), gap())
            .prop_map(|(fs, lead)| {
                let mut s = lead;
                for (f, g) in fs {
                    s.push_str(&f);
                    s.push_str(&g);
                }
                s
            })
            .boxed()
    };
    fields(scalar_field())
        .prop_recursive(4, 48, 5, move |inner| {
            let message = (
                name(),
                pick(&[" {", "{", ": {", " <", ":<"]),
                inner.clone(),
                prop::bool::weighted(0.95),
                end(),
            )
                .prop_map(|(n, open, b, closed, e)| {
                    let close = if !closed {
                        ""
                    } else if open.ends_with('<') {
                        ">"
                    } else {
                        "}"
                    };
                    format!("{n}{open}{b}{close}{e}")
                });
            let list = (
                name(),
                pick(&[": [", " [", ":["]),
                prop::collection::vec(inner.clone(), 0..3),
                end(),
            )
                .prop_map(|(n, open, bs, e)| {
                    let items: Vec<String> = bs.into_iter().map(|b| format!("{{{b}}}")).collect();
                    format!("{n}{open}{}]{e}", items.join(", "))
                });
            let item = prop_oneof![4 => scalar_field(), 3 => message, 1 => list].boxed();
            (prop::collection::vec((item, gap()), 0..5), gap()).prop_map(|(fs, lead)| {
                let mut s = lead;
                for (f, g) in fs {
                    s.push_str(&f);
                    s.push_str(&g);
                }
                s
            })
        })
        .boxed()
}

/// Nesting around protobuf's recursion limit (100).
fn deep() -> BoxedStrategy<String> {
    (95usize..106, pick(&["a {", "a:{", "a <"]))
        .prop_map(|(n, open)| {
            let close = if open.ends_with('<') { ">" } else { "}" };
            format!("infer_config {{\n{}{}\n}}\n", open.repeat(n), close.repeat(n))
        })
        .boxed()
}

pub fn document() -> BoxedStrategy<String> {
    let config = (
        pick(&["", "", "", "# nvinferserver config é\n", "\u{feff}", "\r\n"]),
        pick(&[
            "infer_config {",
            "infer_config {",
            "infer_config: {",
            "infer_config <",
            "infer_config{",
        ]),
        body(),
        pick(&["}\n", "}\n", "}", ">\n", "}\r\n", ""]),
        body(),
    )
        .prop_map(|(head, open, b, close, rest)| {
            let close = if open.ends_with('<') && close.starts_with('}') {
                ">\n"
            } else {
                &close
            };
            format!("{head}{open}\n{b}{close}{rest}")
        });
    prop_oneof![12 => config.boxed(), 1 => deep(), 1 => body()].boxed()
}

pub fn check(input: &str) -> Result<(), String> {
    checks::document_is_lossless(input, Format::Protobuf)?;
    checks::whole_check(input, "config_infer_server.txt", Format::Protobuf)
}
