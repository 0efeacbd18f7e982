//! Plain YAML pieces: a piece of a large YAML file (`yaml::cut_points`),
//! or a whole small one, made only of the simplest block-mapping lines,
//! read line by line without the parser. granit-parser's scanner and event
//! queue were most of an 8 MiB config's check (~15 MB/s a core), and ~30%
//! of a check's instructions on a tree of ordinary configs (~1100 a
//! comment line), while such a piece has nothing for a parser to decide:
//! every line is one of
//!
//! - `name:` at column 0 (a group: a map follows, at least one entry);
//! - `key: value` at column 0 (a scalar of the unnamed group);
//! - `key: value` indented by exactly its group's first entry's spaces;
//! - blank, or a comment alone (any indentation).
//!
//! A key is `[A-Za-z0-9_][A-Za-z0-9_.-]*`, at most [`MAX_KEY`] bytes. A
//! value is a plain scalar on one line that no YAML reader can take for
//! anything else: printable ASCII, its first character a letter, digit or
//! one of [`FIRST`] (or `-` before a letter, digit or `.`), without `#`,
//! a flow indicator (`[]{}`), `: ` or a final `:`; after it only spaces and
//! a comment (` # …`). Anything else in the piece (a tab, a CR, a quote, a
//! nested value, a key without a value, a kept key, another indentation…)
//! and the piece is not plain: the parser reads it, as before.
//!
//! That a plain piece reads as the parser reads it is a test (`yaml`'s
//! tests: every cut of the awkward cases, the test data and the corpus,
//! generated files, and generated lines near the edges of these forms).

use std::borrow::Cow;

use super::Entry;
use super::yaml::{KEPT_KEYS, Node, Read, read_group_end};
use super::yaml_plain_kept;
use crate::base::Span;

/// The longest key read here (YAML's implicit keys may be 1024 characters;
/// a longer key is left to the parser).
const MAX_KEY: usize = 256;

/// Characters a value may begin with besides letters and digits.
const FIRST: &[u8] = b"/._~+$(";

/// The groups of the piece `from..to` of `text` (spans in the whole text)
/// and which of them holds top-level scalars, as `yaml::read_piece` reads
/// them; `None` unless every line of the piece is plain (module doc).
pub(super) fn read_piece(text: &str, from: usize, to: usize) -> Option<(Read, Option<usize>)> {
    let bytes = text.as_bytes();
    let mut read = Read::default();
    // The group being read: its name and span, and its entries' indent.
    let mut open: Option<(String, Span)> = None;
    let mut indent = 0;
    let mut seen = false;
    // Every line printable ASCII: every byte of the piece is that or a
    // line's `\n` (looked at once, not line by line).
    if !printable_lines(&bytes[from..to]) {
        return None;
    }
    let mut line = from;
    while line < to {
        let end = memchr::memchr(b'\n', &bytes[line..to]).map_or(to, |i| line + i);
        let body = &bytes[line..end];
        let lead = body.iter().take_while(|&&b| b == b' ').count();
        if lead == body.len() || body[lead] == b'#' {
            line = end + 1;
            continue;
        }
        let (key, after) = key_at(text, body, line, lead)?;
        let key_span = line + lead..line + after - 1;
        if lead == 0 {
            seen = true;
            if let Some((name, name_span)) = open.take() {
                close(text, &mut read, name, name_span)?;
            }
            // A kept key's value is a tree: read plain where its lines
            // are plain too (`yaml_plain_kept`), else by the parser.
            if KEPT_KEYS.contains(&key) {
                if after != body.len() {
                    return None;
                }
                let block = yaml_plain_kept::read(text, (end + 1).min(to), to)?;
                read.scratch = block.entries;
                let group = read_group_end(text, key.to_string(), key_span, &mut read.scratch);
                read.groups.push(group);
                read.kept.push((key.to_string(), block.tree));
                line = block.next_line;
                continue;
            }
            if after == body.len() {
                open = Some((key.to_string(), key_span));
                indent = 0;
            } else {
                let (value, value_span) = value_at(text, body, after, line)?;
                read.scalar(
                    text,
                    Cow::Borrowed(key),
                    key_span,
                    Node::Scalar(Cow::Borrowed(value), value_span),
                );
            }
        } else {
            // An indented entry belongs to the open group, at its indent.
            open.as_ref()?;
            if indent == 0 {
                indent = lead;
            } else if lead != indent {
                return None;
            }
            if after == body.len() {
                return None;
            }
            let (value, value_span) = value_at(text, body, after, line)?;
            // As `make_entry` makes it: the line, up to and with its `\n`.
            let line_span = line..(end + 1).min(text.len());
            read.scratch
                .push(Entry::plain(key, key_span, Some(value), value_span, line_span, 0));
        }
        line = end + 1;
    }
    if let Some((name, name_span)) = open.take() {
        close(text, &mut read, name, name_span)?;
    }
    let root = read.root;
    seen.then_some((read, root))
}

/// Whether every byte is printable ASCII (`0x20..0x7f`) or a `\n`; a
/// block at a time without a branch a byte, so the compiler checks many
/// bytes an instruction.
fn printable_lines(bytes: &[u8]) -> bool {
    bytes.chunks(64).all(|block| {
        block
            .iter()
            .fold(true, |ok, &b| ok & ((b.wrapping_sub(0x20) < 0x5f) | (b == b'\n')))
    })
}

/// Add the group just read (its entries in `read.scratch`); `None` when
/// it has none (`name:` then a null, not a map).
fn close(text: &str, read: &mut Read, name: String, name_span: Span) -> Option<()> {
    if read.scratch.is_empty() {
        return None;
    }
    let group = read_group_end(text, name, name_span, &mut read.scratch);
    read.groups.push(group);
    Some(())
}

/// The key that starts at `lead` of a line's `body` (at `line` in `text`),
/// and where its `:` ends (the index in `body` after it).
pub(super) fn key_at<'a>(text: &'a str, body: &[u8], line: usize, lead: usize) -> Option<(&'a str, usize)> {
    let first = *body.get(lead)?;
    if !(first.is_ascii_alphanumeric() || first == b'_') {
        return None;
    }
    let len = body[lead..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
        .count();
    if len > MAX_KEY || body.get(lead + len) != Some(&b':') {
        return None;
    }
    Some((&text[line + lead..line + lead + len], lead + len + 1))
}

/// The value after a key's `:` at `after` of a line's `body` (one space
/// or more, the value, then only spaces and a comment), with its span
/// (`line`: where the body starts in `text`).
pub(super) fn value_at<'a>(text: &'a str, body: &[u8], after: usize, line: usize) -> Option<(&'a str, Span)> {
    let rest = &body[after..];
    if rest.first() != Some(&b' ') {
        return None;
    }
    let start = after + rest.iter().take_while(|&&b| b == b' ').count();
    // A `#` ends the value only after a space (a comment); anywhere else
    // it is left to the parser.
    let stop = match memchr::memchr(b'#', &body[start..]) {
        Some(i) if i > 0 && body[start + i - 1] == b' ' => start + i,
        Some(_) => return None,
        None => body.len(),
    };
    let mut end = stop;
    while end > start && body[end - 1] == b' ' {
        end -= 1;
    }
    let value = &body[start..end];
    let (&first, &last) = (value.first()?, value.last()?);
    let first_ok = first.is_ascii_alphanumeric()
        || FIRST.contains(&first)
        || (first == b'-' && value.get(1).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'.'));
    // No `#` (a comment starts after a space: `stop`), flow indicator, or
    // `: ` inside.
    let refused = |(i, &b): (usize, &u8)| {
        matches!(b, b'#' | b'[' | b']' | b'{' | b'}') || (b == b':' && value.get(i + 1) == Some(&b' '))
    };
    if !first_ok || last == b':' || value.iter().enumerate().any(refused) {
        return None;
    }
    Some((&text[line + start..line + end], line + start..line + end))
}

#[cfg(test)]
mod tests {
    use super::printable_lines;

    /// Printable ASCII and `\n` only, whatever block a byte falls in.
    #[test]
    fn printable_lines_are_ascii_and_line_ends() {
        for len in [0, 1, 63, 64, 65, 200] {
            let mut text = vec![b'a'; len];
            assert!(printable_lines(&text), "{len}");
            for at in [0, len / 2, len.saturating_sub(1)] {
                if at >= len {
                    continue;
                }
                for (b, ok) in [
                    (b'\n', true),
                    (b' ', true),
                    (b'~', true),
                    (0x7f, false),
                    (0x1f, false),
                    (b'\t', false),
                    (b'\r', false),
                    (0xc3, false),
                    (0, false),
                ] {
                    text[at] = b;
                    assert_eq!(printable_lines(&text), ok, "{b:#x} at {at} of {len}");
                    text[at] = b'a';
                }
            }
        }
    }
}
