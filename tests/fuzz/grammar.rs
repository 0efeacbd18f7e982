//! Pieces for token-based generators: a document is lines, a line is tokens
//! drawn from the format's vocabulary, joined by the format's separators.

use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

/// One of these strings.
pub fn pick(tokens: &'static [&'static str]) -> BoxedStrategy<String> {
    prop::sample::select(tokens).prop_map(str::to_string).boxed()
}

/// Text that breaks byte-offset arithmetic: two-, three- and four-byte
/// characters, a BOM, a non-breaking space, a combining accent.
pub const MULTIBYTE: &[&str] = &["é", "µs", "日本", "🦀", "\u{feff}", "\u{a0}", "e\u{301}", "Ωmega"];

/// A short word: ASCII, or with multibyte characters in it.
pub fn word() -> BoxedStrategy<String> {
    prop_oneof![
        4 => pick(&["a", "b", "k", "batch-size", "gpu-id", "uri", "x1", "name", "enable", "config-file"]),
        2 => pick(MULTIBYTE),
        1 => (pick(&["a", "key", "v"]), pick(MULTIBYTE)).prop_map(|(a, b)| format!("{a}{b}")),
        1 => (pick(MULTIBYTE), pick(&["a", "1", "-x"])).prop_map(|(a, b)| format!("{a}{b}")),
    ]
    .boxed()
}

/// A number as configs write them, including the extremes.
pub fn number() -> BoxedStrategy<String> {
    prop_oneof![
        4 => (0u32..40).prop_map(|n| n.to_string()),
        1 => pick(&["2147483647", "-2147483648", "2147483648", "4294967296", "-1", "1e300", "0x10", "+3", "007", "1.5", "nan"]),
    ]
    .boxed()
}

/// A line ending, mostly `\n`.
pub fn eol() -> BoxedStrategy<String> {
    prop_oneof![12 => Just("\n".to_string()), 4 => Just("\r\n".to_string()), 1 => Just("\r".to_string())].boxed()
}

/// A document from generated blocks of lines (a group and its entries; one
/// stray line): each line ends with the document's line ending (sometimes
/// another one: mixed endings happen), the last one sometimes without.
pub fn lines(block: BoxedStrategy<Vec<String>>, max_blocks: usize) -> BoxedStrategy<String> {
    let line = prop::collection::vec(block, 0..max_blocks).prop_map(|b| b.concat());
    (
        line.prop_flat_map(|ls| {
            let n = ls.len();
            (Just(ls), prop::collection::vec(prop::bool::weighted(0.03), n))
        })
        .prop_map(|(ls, mixed)| ls.into_iter().zip(mixed).collect::<Vec<_>>()),
        eol(),
        eol(),
        prop::bool::weighted(0.8),
    )
        .prop_map(|(lines, eol, other, final_eol)| {
            let mut s = String::new();
            let n = lines.len();
            for (i, (l, mixed)) in lines.into_iter().enumerate() {
                s.push_str(&l);
                if i + 1 < n || final_eol {
                    s.push_str(if mixed { &other } else { &eol });
                }
            }
            s
        })
        .boxed()
}

/// A block of one line.
pub fn one(line: BoxedStrategy<String>) -> BoxedStrategy<Vec<String>> {
    line.prop_map(|l| vec![l]).boxed()
}

/// A header line, then lines under it indented alike (YAML maps, shell
/// bodies, key-file groups with an indent of "").
pub fn block(
    header: BoxedStrategy<String>,
    indents: &'static [&'static str],
    body: BoxedStrategy<String>,
    max: usize,
) -> BoxedStrategy<Vec<String>> {
    (header, pick(indents), prop::collection::vec(body, 0..max))
        .prop_map(|(h, indent, body)| {
            std::iter::once(h)
                .chain(body.into_iter().map(|l| format!("{indent}{l}")))
                .collect()
        })
        .boxed()
}

/// Tokens joined by nothing or by a space (never two spaces: indentation is
/// its own token where a format cares).
pub fn joined(tokens: BoxedStrategy<String>, max: usize) -> BoxedStrategy<String> {
    prop::collection::vec((tokens, prop::bool::weighted(0.6)), 1..max)
        .prop_map(|ts| {
            let mut s = String::new();
            for (t, space) in ts {
                if space && !s.is_empty() {
                    s.push(' ');
                }
                s.push_str(&t);
            }
            s
        })
        .boxed()
}
