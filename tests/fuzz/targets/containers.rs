//! The container scans (`syntax::dockerfile`, `syntax::mounts`): one text
//! read as a Dockerfile, a Compose file and a script, from tokens of all
//! three (instructions, flags, `-v`/`--mount` values, Compose list items
//! and flow collections, `..`, `$VAR`, `$(…)`, quotes, heredocs, the
//! escape directive, continuations, comments, CRLF, multibyte text).

use dslint::syntax::{dockerfile, mounts};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

use crate::grammar::{joined, lines, one, pick, word};

fn path() -> BoxedStrategy<String> {
    (
        pick(&[
            "", "", "./", "../", "/", "~/", "$X/", "${PWD}/", "$(pwd)/", "`pwd`/", "../../", "é/",
        ]),
        joined(
            prop_oneof![4 => word(), 1 => pick(&["..", ".", "*", "a?b", "[x]", "$Y", "{a,b}", ""])].boxed(),
            3,
        ),
    )
        .prop_map(|(base, rest)| format!("{base}{}", rest.replace(' ', "/")))
        .boxed()
}

fn token() -> BoxedStrategy<String> {
    prop_oneof![
        3 => word(),
        3 => path(),
        3 => (path(), path(), pick(&["", "", ":ro", ":rw,z", ":"])).prop_map(|(s, d, o)| format!("{s}:{d}{o}")),
        2 => pick(&["COPY", "ADD", "copy", "FROM x", "RUN", "--from=base", "--chown=1:1", "--link", "https://e.com/m", "git@h:r"]),
        2 => pick(&["docker run", "-v", "--volume", "--mount", "-e", "-w", "img", "--rm"]),
        2 => (path(), path()).prop_map(|(s, d)| format!("type=bind,source={s},target={d}")),
        2 => pick(&["- ", "volumes:", "source:", "target:", "device:", "file:", "type: bind", "{", "}", "[", "]", ",", "#", " # c"]),
        1 => pick(&["\"", "'", "\\", "`", "$(", ")", "${", "}", "<<EOF", "<<-'E'", "EOF", "é", "\u{202e}", "\t"]),
        1 => (path(), path()).prop_map(|(s, d)| format!("[\"{s}\", \"{d}\"]")),
    ]
    .boxed()
}

fn line() -> BoxedStrategy<String> {
    (
        pick(&["", "", "  ", "    ", "      - ", "\t"]),
        joined(token(), 6),
        pick(&["", "", "", " \\", "\\", "`", "\r"]),
    )
        .prop_map(|(indent, body, end)| format!("{indent}{body}{end}"))
        .boxed()
}

pub fn document() -> BoxedStrategy<String> {
    let piece = prop_oneof![
        8 => one(line()),
        1 => one(pick(&["# escape=`", "# syntax=docker/dockerfile:1", "services:", "  s:", "    volumes:", "EOF", ""])),
    ];
    lines(piece.boxed(), 10)
}

/// A normalized path holds no empty or `.` component, nor a `..` unless
/// `dots` (a host path keeps them as written; a container path and a
/// copy's source fold them).
fn normalized(path: &str, dots: bool) -> bool {
    let rest = path.strip_prefix('/').unwrap_or(path);
    rest.is_empty()
        || rest
            .split('/')
            .all(|c| !c.is_empty() && c != "." && (dots || c != ".."))
}

pub fn check(input: &str) -> Result<(), String> {
    if let Some(sources) = dockerfile::copied_sources(input) {
        if sources.len() > 1000 {
            return Err(format!("{} sources", sources.len()));
        }
        for s in &sources {
            if s.starts_with('/') || !normalized(s, false) {
                return Err(format!("source {s:?} not normalized"));
            }
        }
    }
    let check_mounts = |found: Option<Vec<mounts::Mount>>| -> Result<(), String> {
        for m in found.into_iter().flatten() {
            if let Some(t) = &m.target {
                if !t.starts_with('/') || !normalized(t, false) {
                    return Err(format!("target {t:?} not normalized"));
                }
            }
            if let Some(h) = &m.source {
                let absolute = h.base == mounts::Base::Absolute;
                if absolute != h.path.starts_with('/') || !normalized(&h.path, true) {
                    return Err(format!("host path {h:?} not normalized"));
                }
            }
        }
        Ok(())
    };
    check_mounts(mounts::script_mounts(input))?;
    check_mounts(mounts::compose_mounts(input))
}
