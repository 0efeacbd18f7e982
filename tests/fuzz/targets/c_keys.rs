//! The C-source key reader (`syntax::c_keys`): a project's fork of a
//! DeepStream parser, from its tokens (`#define CONFIG_…` lines, indented
//! or not, `CONFIG_GROUP_<GROUP>_<KEY>` macros whose key ends them or not,
//! `g_key_file_get_*`, `g_strcmp0`, yaml-cpp's `==`, string literals
//! closed or not, escapes, comments, CRLF, multibyte and non-key text).
//!
//! Checks, for any text: no panic; every name `keys` takes can be a key
//! (letters, digits, `-`, `_`, at most 80 bytes) and is taken once; every
//! `(group, key)` of `group_defines` is taken once, its group ASCII
//! letters and digits (`_` dropped), and is what a plain reading of the
//! text line by line finds (`#define CONFIG_GROUP_<GROUP>_<KEY> "key"`,
//! the key's name, upper case with `-` as `_`, ending the macro), which
//! `keys` also takes; `define_groups_for` of any word does not panic.

use std::collections::HashSet;

use dslint::syntax::c_keys;
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

use crate::grammar::{joined, lines, one, pick, word};

fn key() -> BoxedStrategy<String> {
    prop_oneof![
        4 => pick(&["camera-id", "rows", "batch-size", "sync", "type", "gpu-id", "my-key", "a", "x_y", "k1"]),
        1 => word(),
        1 => pick(&["", "a b", "a\\\"b", "/opt/x.txt", "é", "A-B"]),
    ]
    .boxed()
}

fn group() -> BoxedStrategy<String> {
    pick(&[
        "SOURCE",
        "DSEXAMPLE",
        "TILED_DISPLAY",
        "GIE",
        "SINK",
        "",
        "_",
        "G1",
        "A__B",
        "é",
    ])
}

/// A macro name: `CONFIG_GROUP_<GROUP>_<KEY>` with the key's own name or
/// another one, or another `CONFIG_` name.
fn define() -> BoxedStrategy<String> {
    (
        pick(&[
            "#define ",
            "#  define\t",
            "  #define ",
            "# define  ",
            "#define",
            "x #define ",
            "#undef ",
        ]),
        group(),
        key(),
        prop::bool::weighted(0.7),
        pick(&["CONFIG_GROUP_", "CONFIG_GROUP_", "CONFIG_", "CONFIG_KEY_", "OTHER_"]),
        pick(&[" ", "  ", "\t", "", " \\\n "]),
        pick(&["", "", " // note", " /* c */", "\""]),
    )
        .prop_map(|(head, group, key, own, prefix, gap, tail)| {
            let name = if own {
                key.to_uppercase().replace('-', "_")
            } else {
                "OTHER".to_string()
            };
            format!("{head}{prefix}{group}_{name}{gap}\"{key}\"{tail}")
        })
        .boxed()
}

fn call() -> BoxedStrategy<String> {
    (
        pick(&["g_key_file_get_integer", "g_key_file_has_key", "g_strcmp0", "strcmp", "strcasecmp", "g_key_file_get_"]),
        pick(&[" (", "(", "  \n(", " "]),
        joined(
            prop_oneof![
                2 => key().prop_map(|k| format!("\"{k}\"")),
                1 => pick(&["key_file", "CONFIG_GROUP_PROPERTY", "*key", "&error", "NULL", "(a)", "f (\"x\")", "\"", "{", ";"]),
            ]
            .boxed(),
            4,
        ),
        pick(&[")", ");", "", ")) {"]),
    )
        .prop_map(|(f, open, args, close)| format!("{f}{open}{}{close}", args.replace(' ', ", ")))
        .boxed()
}

fn line() -> BoxedStrategy<String> {
    prop_oneof![
        4 => define(),
        3 => call(),
        1 => key().prop_map(|k| format!("if (paramKey == \"{k}\") {{")),
        1 => pick(&["YAML::Node n;", "#include <glib.h>", "}", "/* CONFIG_GROUP_", "\"", "\\", "\r", "é", "CONFIG_GROUP_A_B \"b\""]),
        1 => (pick(&["", "  ", "\t"]), joined(word(), 4)).prop_map(|(i, w)| format!("{i}{w}")),
    ]
    .boxed()
}

pub fn document() -> BoxedStrategy<String> {
    lines(one(line()), 12)
}

fn can_be_key(k: &str) -> bool {
    !k.is_empty() && k.len() <= 80 && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The `(group, key)` pairs of `#define CONFIG_GROUP_…` lines, read line by
/// line as the module's doc says (short lines only: the reader looks a
/// bounded way around each macro).
fn plain_group_defines(text: &str) -> Option<HashSet<(String, String)>> {
    let mut out = HashSet::new();
    for line in text.split('\n') {
        let l = line.trim_start_matches(|c: char| c.is_ascii_whitespace());
        let Some(rest) = l.strip_prefix('#') else { continue };
        let Some(rest) = rest
            .trim_start_matches(|c: char| c.is_ascii_whitespace())
            .strip_prefix("define")
        else {
            continue;
        };
        let after = rest.trim_start_matches(|c: char| c.is_ascii_whitespace());
        if after.len() == rest.len() {
            continue;
        }
        let Some(rest) = after.strip_prefix("CONFIG_GROUP_") else {
            continue;
        };
        if line.len() - rest.len() > 60 || rest.len() > 200 {
            return None;
        }
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, tail) = rest.split_at(name_end);
        let Some(body) = tail
            .trim_start_matches(|c: char| c.is_ascii_whitespace())
            .strip_prefix('"')
        else {
            continue;
        };
        let Some(close) = body.find(['"', '\\']) else { continue };
        if !body[close..].starts_with('"') {
            continue;
        }
        let key = &body[..close];
        if !can_be_key(key) {
            continue;
        }
        let upper = key.to_ascii_uppercase().replace('-', "_");
        let Some(group) = name.strip_suffix(upper.as_str()).and_then(|g| g.strip_suffix('_')) else {
            continue;
        };
        let group = group.replace('_', "");
        if !group.is_empty() {
            out.insert((group, key.to_string()));
        }
    }
    Some(out)
}

pub fn check(input: &str) -> Result<(), String> {
    let keys = c_keys::keys(input.as_bytes());
    let mut seen = HashSet::new();
    for k in &keys {
        if !can_be_key(k) {
            return Err(format!("key {k:?} cannot be a key name"));
        }
        if !seen.insert(k.as_str()) {
            return Err(format!("key {k:?} taken twice"));
        }
    }
    let defines = c_keys::group_defines(input.as_bytes());
    let mut pairs = HashSet::new();
    for (g, k) in &defines {
        if g.is_empty() || !g.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(format!("group {g:?} of {k:?}"));
        }
        if !can_be_key(k) || !seen.contains(k.as_str()) {
            return Err(format!("define key {k:?} not among the keys"));
        }
        if !pairs.insert((g.clone(), k.clone())) {
            return Err(format!("({g:?}, {k:?}) taken twice"));
        }
    }
    if let Some(plain) = plain_group_defines(input) {
        if plain != pairs {
            return Err(format!("group_defines {pairs:?}, line by line {plain:?}"));
        }
    }
    for w in input.split_whitespace().take(20) {
        let _ = c_keys::define_groups_for(w);
    }
    Ok(())
}
