//! Property tests: on generated key-files and YAML documents, every fix
//! leaves each untouched entry byte-for-byte as it was, the file still
//! parses, and the parsers print arbitrary input back.

mod support;

use proptest::prelude::*;

use dslint::fix::apply::apply_to_string;
use dslint::model::workspace::Workspace;
use dslint::rules::context::Profile;
use dslint::syntax::{Document, Format};

fn key_value() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        (1u32..40).prop_map(|b| ("batch-size".to_string(), b.to_string())),
        (0u32..4).prop_map(|m| ("network-mode".to_string(), m.to_string())),
        (0u32..3).prop_map(|i| ("interval".to_string(), i.to_string())),
        Just(("infer-dims".to_string(), "3;544;960".to_string())),
        (1u32..17, 0u32..2, prop::sample::select(vec!["fp32", "fp16", "int8"])).prop_map(|(b, g, p)| (
            "model-engine-file".to_string(),
            format!("m.onnx_b{b}_gpu{g}_{p}.engine")
        )),
        Just(("labelfile-path".to_string(), "labels.txt # classes".to_string())),
        Just(("net-scale-factor".to_string(), "0.0039".to_string())),
        Just(("gie-unique-id".to_string(), "1".to_string())),
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (key_value(), prop::sample::select(vec!["=", " = ", "= ", " ="]), prop::sample::select(vec!["", "  ", " # note"]))
            .prop_map(|((k, v), sep, tail)| format!("{k}{sep}{v}{tail}")),
        1 => Just("# a comment".to_string()),
        1 => Just(String::new()),
    ]
}

fn keyfile() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(line(), 0..12),
        prop::bool::ANY,
        prop::bool::ANY,
        prop::collection::vec(line(), 0..4),
    )
        .prop_map(|(lines, crlf, final_nl, attrs)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut s = format!("# generated{eol}[property]{eol}");
            for l in lines {
                s.push_str(&l);
                s.push_str(eol);
            }
            s.push_str(&format!("[class-attrs-all]{eol}"));
            for l in attrs {
                s.push_str(&l);
                s.push_str(eol);
            }
            if !final_nl {
                s.truncate(s.len() - eol.len());
            }
            s
        })
}

fn yaml() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            key_value(),
            prop::sample::select(vec!["plain", "double", "single"]),
            prop::bool::ANY,
        ),
        1..10,
    )
    .prop_map(|items| {
        let mut s = String::from("# generated\nproperty:\n");
        let mut seen = std::collections::HashSet::new();
        for ((k, v), style, comment) in items {
            if !seen.insert(k.clone()) || v.contains('#') {
                continue;
            }
            let v = match style {
                "double" => format!("\"{v}\""),
                "single" => format!("'{v}'"),
                _ => v,
            };
            s.push_str(&format!("  {k}: {v}{}\n", if comment { "  # c" } else { "" }));
        }
        s
    })
}

/// Fix a standalone nvinfer config in memory: returns (before, after, edited ranges).
fn fix_once(name: &str, text: &str) -> (String, Vec<std::ops::Range<usize>>) {
    let mut ws = Workspace::default();
    let Some(id) = ws.read_text(std::path::Path::new(name), text.to_string()) else {
        return (text.to_string(), vec![]);
    };
    let r = dslint::rules::check(&mut ws, None, Profile::Display);
    let edits = support::first_pass_edits(&r.diagnostics, id);
    let ranges = edits.iter().map(|e| e.range.clone()).collect();
    (apply_to_string(text, &edits), ranges)
}

fn untouched_entries_survive(text: &str, fixed: &str, ranges: &[std::ops::Range<usize>], format: Format) {
    let before = Document::parse(text.to_string(), format);
    let after = Document::parse(fixed.to_string(), format);
    assert!(after.errors.len() <= before.errors.len(), "fix broke parsing:\n{fixed}");
    for g in &before.groups {
        for e in &g.entries {
            let touched = ranges.iter().any(|r| {
                r.start < e.line_span().end && e.line_span().start < r.end
                    || (r.is_empty() && r.start == e.line_span().start)
            });
            if touched {
                continue;
            }
            let line = &text[e.line_span()];
            assert!(
                fixed.contains(line.trim_end_matches(['\r', '\n'])),
                "untouched line `{line}` changed:\n{fixed}"
            );
            let winner = before.get(&g.name, &e.key).map(|w| w.key_span().start) == Some(e.key_span().start);
            if winner {
                let now = after.get(&g.name, &e.key).and_then(|x| x.value.clone());
                assert_eq!(now, e.value, "value of untouched `{}` changed", e.key);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn keyfile_fixes_are_surgical(text in keyfile()) {
        let (fixed, ranges) = fix_once("gen.txt", &text);
        untouched_entries_survive(&text, &fixed, &ranges, Format::KeyFile);
        // Line endings are the file's own.
        if !text.contains("\r\n") { prop_assert!(!fixed.contains('\r')); }
    }

    #[test]
    fn yaml_fixes_are_surgical(text in yaml()) {
        let (fixed, ranges) = fix_once("gen.yml", &text);
        untouched_entries_survive(&text, &fixed, &ranges, Format::Yaml);
    }

    /// Random bytes (structure-aware generators are in tests/fuzz/): both
    /// readers print the text back from its parts.
    #[test]
    fn parsers_print_random_text_back(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes).to_string();
        for format in [Format::KeyFile, Format::Yaml] {
            let printed = Document::parse(text.clone(), format).render();
            prop_assert_eq!(printed.as_deref(), Ok(text.as_str()));
        }
    }
}
