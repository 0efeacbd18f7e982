//! A line lexer for GLib key-files (`GKeyFile`), the format DeepStream reads
//! `.txt` configs with. It follows GLib 2.7x's `g_key_file_parse_line`:
//! `#` starts a comment only at the start of a line, whitespace around the key
//! and before the value is dropped, the value keeps its trailing whitespace,
//! `;` is *not* a comment, and a key before the first group is an error.
//! Nothing is rewritten: the text is kept and every token is a byte span.

use rayon::prelude::*;

use super::{Document, Entry, Format, Group, LineIndex, SyntaxError, detect_line_ending, small_offset};
use crate::base::shared::Shared;

/// GLib's `g_ascii_isspace`.
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// GLib's `g_key_file_is_group_name`.
fn is_group_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(|c| c == '[' || c == ']' || c.is_ascii_control())
}

/// GLib's `g_key_file_is_key_name`; returns whether the key carries a
/// `[locale]` suffix.
fn check_key_name(key: &str) -> Result<bool, ()> {
    // (A byte scan: the three are ASCII, so a byte equal to one of them
    // is that character, and `base_end` is a character boundary.)
    let base_end = key
        .bytes()
        .position(|b| matches!(b, b'=' | b'[' | b']'))
        .unwrap_or(key.len());
    let base = &key[..base_end];
    if base.is_empty() || base.starts_with(' ') || base.ends_with(' ') {
        return Err(());
    }
    let rest = &key[base_end..];
    if rest.is_empty() {
        return Ok(false);
    }
    // `key[locale]`: the locale runs to a `]` that must end the key.
    let Some(locale) = rest.strip_prefix('[') else {
        return Err(());
    };
    match locale.find(']') {
        Some(close) if close + 1 == locale.len() && close > 0 => Ok(true),
        _ => Err(()),
    }
}

pub fn parse(text: String) -> Document {
    parse_in_chunks(text, CHUNK).0
}

/// [`parse`], with the file's line index: the lexer finds every line end,
/// so the index costs no pass of its own over the text.
pub fn parse_lined(text: String) -> (Document, LineIndex) {
    parse_in_chunks(text, CHUNK)
}

/// A file over this size is read in pieces of about this size on all
/// threads (an 8 MiB config of 100k groups).
const CHUNK: usize = 1 << 18;

/// Read lines in pieces that each start at a group's header (or the file's
/// start), on all threads: a key line only looks at the group above it,
/// so a piece that starts at a header reads as it would in the whole file.
/// The groups and errors are joined in the file's order.
fn parse_in_chunks(text: String, chunk: usize) -> (Document, LineIndex) {
    let mut errors = Vec::new();
    let has_bom = text.starts_with('\u{feff}');
    let mut pos = 0;
    if has_bom {
        // GLib fails the whole file on the BOM; report it once and read the
        // rest as if it were not there, so the other findings still show.
        errors.push(SyntaxError {
            span: 0..3,
            message: "the file starts with a UTF-8 byte-order mark, which GLib's key-file reader rejects".into(),
        });
        pos = 3;
    }
    let starts = piece_starts(&text, pos, chunk);
    let ends = starts.iter().skip(1).copied().chain([text.len()]);
    let pieces: Vec<(usize, usize)> = starts.iter().copied().zip(ends).collect();
    let read: Vec<Piece> = pieces
        .par_iter()
        .map(|&(from, to)| {
            let mut piece = Piece {
                // About a line each 16 bytes: a config's lines are longer,
                // so this list is rarely grown (it is copied to its exact
                // count below).
                starts: Vec::with_capacity((to - from) / 16 + 1),
                ..Piece::default()
            };
            parse_lines(&text, from, to, &mut piece);
            piece.close_group();
            piece
        })
        .collect();
    let mut groups = Vec::with_capacity(read.iter().map(|p| p.groups.len()).sum());
    // The line starts, counted first: the index holds no growth slack
    // (it lives to the end of the run).
    let mut starts = Vec::with_capacity(1 + read.iter().map(|p| p.starts.len()).sum::<usize>());
    starts.push(0);
    let (mut lf, mut crlf) = (0, 0);
    for p in read {
        groups.extend(p.groups);
        errors.extend(p.errors);
        starts.extend_from_slice(&p.starts);
        lf += p.starts.len();
        crlf += p.crlf;
    }
    // As `detect_line_ending` counts: a CRLF is a line feed after a CR.
    let line_ending = if crlf > 0 && crlf * 2 >= lf { "\r\n" } else { "\n" };
    debug_assert_eq!(line_ending, detect_line_ending(&text));
    let lines = LineIndex::from_starts(starts);
    debug_assert_eq!(lines, LineIndex::new(&text));
    let doc = Document::new(text, Format::KeyFile, groups, errors, has_bom, line_ending);
    (doc, lines)
}

/// What the lines of one piece read to: its groups and errors, the start
/// of each line after one of its line feeds, and how many of those line
/// feeds follow a CR.
#[derive(Default)]
struct Piece {
    groups: Vec<Group>,
    errors: Vec<SyntaxError>,
    starts: Vec<u32>,
    crlf: usize,
    /// The last group's entries while it is read, then moved into a list
    /// of their exact count ([`Piece::close_group`]): one allocation a
    /// group, where a list grown by pushing took two or three (and
    /// `Document::new` one more to trim it).
    scratch: Vec<Entry>,
}

impl Piece {
    /// Give the last group the entries read for it.
    fn close_group(&mut self) {
        if let Some(g) = self.groups.last_mut() {
            g.entries = self.scratch.drain(..).collect();
        }
        self.scratch.clear();
    }
}

/// Where the pieces of `text` from `pos` start: `pos`, then the first
/// group header at or after every `chunk` bytes (none in a file smaller
/// than that, or with no header further on).
fn piece_starts(text: &str, pos: usize, chunk: usize) -> Vec<usize> {
    let mut starts = vec![pos];
    let mut at = pos + chunk;
    while at < text.len() {
        // The start of the next line at or after `at` (`at` may fall inside
        // a character: bytes are searched).
        let Some(line) = memchr::memchr(b'\n', &text.as_bytes()[at - 1..]).map(|i| at + i) else {
            break;
        };
        let mut next = None;
        let mut l = line;
        while l < text.len() {
            let end = memchr::memchr(b'\n', &text.as_bytes()[l..]).map_or(text.len(), |i| l + i);
            // As `parse_lines` cuts a line: one `\r` before the `\n` dropped.
            let body = &text[l..end];
            if group_header(body.strip_suffix('\r').unwrap_or(body)).is_some() {
                next = Some(l);
                break;
            }
            l = end + 1;
        }
        let Some(next) = next else { break };
        starts.push(next);
        at = next + chunk;
    }
    starts
}

/// The lines that start in `from..to`.
fn parse_lines(text: &str, from: usize, to: usize, piece: &mut Piece) {
    let bytes = text.as_bytes();
    let mut pos = from;
    while pos < to {
        // (The memchr crate's search: `str::find` of a char is a slower,
        // word-at-a-time one, and a line is looked for once a line.)
        let nl = memchr::memchr(b'\n', &bytes[pos..]);
        let next = nl.map_or(bytes.len(), |i| pos + i + 1);
        let mut end = nl.map_or(bytes.len(), |i| pos + i);
        if let Some(i) = nl {
            piece.starts.push(small_offset(next));
            // (`i > 0`: the CR before this line feed is this line's, or the
            // previous line's last byte: a line feed after a CR either way.)
            piece.crlf += usize::from(pos + i > 0 && bytes[pos + i - 1] == b'\r');
        }
        if end > pos && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        parse_line(text, pos, end, next, piece);
        pos = next;
    }
}

/// The name in a line GLib reads as a group header (`[name]`, then only
/// spaces or tabs; leading whitespace skipped), which may still be invalid.
fn group_header(line: &str) -> Option<&str> {
    let inner = line
        .trim_start_matches(|c: char| c.is_ascii() && is_space(c as u8))
        .strip_prefix('[')?;
    let close = inner.find(']')?;
    inner[close + 1..]
        .bytes()
        .all(|b| b == b' ' || b == b'\t')
        .then(|| &inner[..close])
}

fn parse_line(text: &str, line_start: usize, end: usize, next: usize, piece: &mut Piece) {
    let bytes = text.as_bytes();
    let mut start = line_start;
    while start < end && is_space(bytes[start]) {
        start += 1;
    }
    let line = &text[start..end];
    if line.is_empty() || line.starts_with('#') {
        return;
    }
    let not_a_line = |errors: &mut Vec<SyntaxError>| {
        let what = if line.starts_with(';') {
            "a line starting with `;` is not a comment in a GLib key-file (use `#`)".to_string()
        } else {
            format!("line `{}` is not a key=value pair, a [group] or a # comment", line)
        };
        errors.push(SyntaxError {
            span: start..end,
            message: what,
        });
    };
    // (`line` starts past the whitespace `group_header` skips: a header
    // starts with its `[`, and most lines are keys.)
    let header = if line.starts_with('[') {
        group_header(line)
    } else {
        None
    };
    if let Some(name) = header {
        let name_start = start + 1;
        if !is_group_name(name) {
            piece.errors.push(SyntaxError {
                span: start..end,
                message: format!("invalid group name `[{}]`", name),
            });
        }
        piece.close_group();
        piece.groups.push(Group {
            name: Shared::interned(name),
            name_span: name_start..name_start + name.len(),
            entries: Vec::new(),
            insert_at: next,
            indent: Shared::interned(""),
        });
        return;
    }
    let Some(eq) = memchr::memchr(b'=', line.as_bytes()) else {
        not_a_line(&mut piece.errors);
        return;
    };
    if eq == 0 {
        not_a_line(&mut piece.errors);
        return;
    }
    let Some(group) = piece.groups.last_mut() else {
        piece.errors.push(SyntaxError {
            span: start..end,
            message: "key before the first [group]: GLib refuses the whole file".to_string(),
        });
        return;
    };
    let mut key_end = start + eq;
    while key_end > start && is_space(bytes[key_end - 1]) {
        key_end -= 1;
    }
    let key = &text[start..key_end];
    let localized = match check_key_name(key) {
        Ok(l) => l,
        Err(()) => {
            piece.errors.push(SyntaxError {
                span: start..key_end,
                message: format!("invalid key name `{}`", key),
            });
            false
        }
    };
    let mut value_start = start + eq + 1;
    while value_start < end && is_space(bytes[value_start]) {
        value_start += 1;
    }
    let mut entry = Entry::new(
        Shared::interned(key),
        start..key_end,
        Some(Shared::interned(&text[value_start..end])),
        value_start..end,
        line_start..next,
    );
    entry.localized = localized;
    piece.scratch.push(entry);
    group.insert_at = next;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(s: &str) -> Document {
        parse(s.to_string())
    }

    #[test]
    fn spans_and_values_follow_glib() {
        let d = doc("# c\n[g]\n  k = v  \r\nx=1\n");
        assert!(d.errors.is_empty());
        let e = &d.groups[0].entries[0];
        assert_eq!(e.key, "k");
        assert_eq!(e.value.as_deref(), Some("v  "));
        assert_eq!(&d.text[e.spans.value()], "v  ");
        assert_eq!(&d.text[e.spans.key()], "k");
        assert_eq!(d.groups[0].insert_at, d.text.len());
    }

    #[test]
    fn glib_load_errors() {
        for (src, want) in [
            ("\u{feff}[g]\nk=1\n", "byte-order mark"),
            ("[g]\n;c\n", "`;`"),
            ("k=1\n[g]\n", "before the first [group]"),
            ("[g]\nnoeq\n", "not a key=value"),
            ("[]\n", "invalid group name"),
            ("[g]\n=v\n", "not a key=value"),
            ("[g]\nk]=v\n", "invalid key name"),
            ("[g]]\n", "not a key=value"),
        ] {
            let d = doc(src);
            assert_eq!(d.errors.len(), 1, "{src:?}");
            assert!(d.errors[0].message.contains(want), "{src:?}: {}", d.errors[0].message);
        }
    }

    #[test]
    fn accepted_shapes() {
        for src in [
            "  [g]  \n  k = v  \n",
            "[g]\nk k=v\n",
            "[g]\nk[de]=v\n",
            "[g]\r\nk=v\r\n",
            "[g]\n\t# c\n   \n",
        ] {
            assert!(doc(src).errors.is_empty(), "{src:?}");
        }
        let d = doc("[g]\nk[de]=v\n");
        assert!(d.groups[0].entries[0].localized);
    }

    /// Read in pieces of a few bytes, a file reads as it does whole: the
    /// same groups, entries, spans and errors, in the same order (pieces
    /// start at headers only, not at a `[` line GLib refuses, nor inside a
    /// character or a `\r\r` line end).
    #[test]
    fn pieces_read_as_the_whole_file() {
        let text = "k=0\n\u{feff}[a]\nx=1\n[é]\ny=é\n  [b]  \r\nk=2\n[c]\r\r\nk=3\n[d]]\nk=4\n;c\n[]\nk[de]=5\n\
                    [e\n=v\n[f]\nk=6\nk=7\n[a]\nk=8";
        for text in [text.to_string(), format!("\u{feff}{text}")] {
            let (whole, whole_lines) = parse_in_chunks(text.clone(), usize::MAX / 2);
            for chunk in 1..text.len() {
                let (pieces, lines) = parse_in_chunks(text.clone(), chunk);
                assert_eq!(lines, whole_lines, "chunk {chunk}");
                assert_eq!(pieces.line_ending, whole.line_ending, "chunk {chunk}");
                assert_eq!(
                    format!("{:?}", pieces.groups),
                    format!("{:?}", whole.groups),
                    "chunk {chunk}"
                );
                assert_eq!(
                    format!("{:?}", pieces.errors),
                    format!("{:?}", whole.errors),
                    "chunk {chunk}"
                );
            }
            assert!(piece_starts(&text, 0, 4).len() > 5, "the test cuts the file in pieces");
        }
    }

    #[test]
    fn repeated_keys_and_groups_merge_last_wins() {
        let d = doc("[g]\nk=1\nk=2\n[h]\n[g]\nk=3");
        assert_eq!(d.get("g", "k").and_then(|e| e.value.as_deref()), Some("3"));
        assert_eq!(d.last_group("g").unwrap().insert_at, d.text.len());
    }
}
