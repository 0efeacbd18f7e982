//! The narrow re-parse of a value edit: most fixes replace one key's value
//! (`batch-size`, `network-mode`, `model-engine-file`, …), and a file whose
//! new text differs from its old one only inside values of its entries is
//! read by GLib's key-file lexer as the same groups and entries, with
//! those values. Its document is the old one with those values put in and
//! every later span moved by what the text grew or shrank before it,
//! instead of a parse of the whole text (`fix::recheck` then classifies it
//! as a parse would be: `Workspace::replace_texts`).
//!
//! The lexer (`syntax::keyfile::parse_line`) reads a value as the bytes of
//! its line after `=` and the blanks after it, to the line's end (one CR
//! before it dropped). So a line whose value changed reads as the same
//! entry with the new value where the line's other bytes are the same, the
//! new value holds no line feed, does not start with a blank (it would be
//! skipped) and its line does not end in a CR that the old did not (it
//! would be dropped). Every other line has the same bytes, so reads the
//! same. Only key-files the reader accepts (no syntax error: a refused
//! file's groups are dropped) are patched; YAML is parsed again.
//! `patched_documents_equal_parsed_ones` and the ci profile's debug
//! assertion below compare each patch with a parse of the same text.

use crate::base::shared::Shared;
use crate::syntax::keyfile::is_space;
use crate::syntax::{Document, Format, LineIndex};

/// The document of `new`, made from `doc` (the document of the file's
/// text now) where `new` differs from its text only inside entries'
/// values; `None` where it must be parsed.
pub fn patched(doc: &Document, new: &str) -> Option<(Document, LineIndex)> {
    if doc.format != Format::KeyFile || !doc.errors.is_empty() || doc.has_bom || doc.kept.is_some() {
        return None;
    }
    let (old, newb) = (doc.text.as_bytes(), new.as_bytes());
    // Each entry's new value span, in file order; the old text is walked
    // entry by entry: what lies between two values must be the same bytes
    // in both texts (at offsets `delta` apart), and each value runs to its
    // line's end in the new text.
    let entries = || doc.groups.iter().flat_map(|g| &g.entries);
    // Each entry's old value end and its new value span, in file order.
    let mut values: Vec<(usize, usize, usize)> = Vec::new();
    let mut changed = false;
    let (mut at, mut delta) = (0usize, 0isize);
    for e in entries() {
        let (line, v) = (e.spans.line(), e.spans.value());
        if e.value.is_none() || line.start < at || v.start < at || v.end < v.start {
            return None;
        }
        let vs = v.start.checked_add_signed(delta)?;
        if newb.get(at.checked_add_signed(delta)?..vs)? != old.get(at..v.start)? {
            return None;
        }
        // The new value runs to the line's end, one CR before it dropped
        // (the lexer cuts a line so, from its start).
        let line_start = line.start.checked_add_signed(delta)?;
        let nl = memchr::memchr(b'\n', &newb[vs..]).map_or(newb.len(), |i| vs + i);
        let mut end = nl;
        if end > line_start && newb[end - 1] == b'\r' {
            end -= 1;
        }
        if end < vs {
            return None;
        }
        let value = &newb[vs..end];
        if value.first().is_some_and(|&b| is_space(b)) || value.contains(&b'\r') {
            return None;
        }
        changed |= value != &old[v.clone()];
        delta = end as isize - v.end as isize;
        values.push((v.end, vs, end));
        at = v.end;
    }
    if !changed || newb.get(at.checked_add_signed(delta)?..)? != old.get(at..)? {
        return None;
    }
    // Walked again in file order: an offset moves as the end of the last
    // value before it did (`delta`), a value's end and what follows on its
    // line as its own end.
    let mut out = doc.clone();
    out.text = new.to_string();
    let mut spans = values.iter();
    let mut delta = 0isize;
    let moved = |off: usize, delta: isize| off.saturating_add_signed(delta);
    for g in &mut out.groups {
        g.name_span = moved(g.name_span.start, delta)..moved(g.name_span.end, delta);
        for e in &mut g.entries {
            let (key, line) = (e.spans.key(), e.spans.line());
            let &(old_end, vs, ve) = spans.next()?;
            e.spans.set_key(moved(key.start, delta)..moved(key.end, delta));
            let line_start = moved(line.start, delta);
            delta = ve as isize - old_end as isize;
            e.spans.set_line(line_start..moved(line.end, delta));
            e.spans.set_value(vs..ve);
            let text = &out.text[vs..ve];
            if e.value.as_deref() != Some(text) {
                e.value = Some(Shared::interned(text));
            }
        }
        // After the group's last line.
        g.insert_at = moved(g.insert_at, delta);
    }
    let lines = LineIndex::new(&out.text);
    debug_assert!(
        same_as_parsed(&out, &lines),
        "a patched document differs from its parse"
    );
    Some((out, lines))
}

/// Whether a document and its line index are what a parse of its text
/// makes (the tests' and the ci profile's check of `patched`).
pub fn same_as_parsed(doc: &Document, lines: &LineIndex) -> bool {
    let (parsed, parsed_lines) = Document::parse_lined(doc.text.clone(), doc.format);
    parsed_lines.is_none_or(|l| l == *lines)
        && *lines == LineIndex::new(&doc.text)
        && parsed.format == doc.format
        && format!("{:?}", parsed.groups) == format!("{:?}", doc.groups)
        && format!("{:?}", parsed.errors) == format!("{:?}", doc.errors)
        && parsed.has_bom == doc.has_bom
        && parsed.line_ending == doc.line_ending
        && parsed.kept.is_none() == doc.kept.is_none()
        && parsed.first_map_only() == doc.first_map_only()
        && parsed.group_names() == doc.group_names()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(s: &str) -> Document {
        Document::parse(s.to_string(), Format::KeyFile)
    }

    /// Values changed anywhere (longer, shorter, emptied, filled, CRLF
    /// lines, the last line without its line feed) give the parse's
    /// document; a change outside values, a value given a line feed or a
    /// leading blank, or no change at all is left to the parse.
    #[test]
    fn patched_documents_equal_parsed_ones() {
        let old = "# c\n[a]\nk=1\nm = two  \n\n[b]\r\nx=\r\ny=3";
        let patches = [
            "# c\n[a]\nk=100\nm = two  \n\n[b]\r\nx=\r\ny=3",
            "# c\n[a]\nk=\nm = 2\n\n[b]\r\nx=filled\r\ny=",
            "# c\n[a]\nk=1\nm = two  \n\n[b]\r\nx=\r\ny=a longer value; with = signs",
            "# c\n[a]\nk=9\nm = two  \n\n[b]\r\nx=v\r\ny=3",
        ];
        let d = doc(old);
        for new in patches {
            let (p, lines) = patched(&d, new).unwrap_or_else(|| panic!("not patched: {new:?}"));
            assert_eq!(p.text, new);
            assert!(same_as_parsed(&p, &lines), "{new:?}");
            assert_eq!(
                p.get("a", "k").and_then(|e| e.value.as_deref()),
                doc(new).get("a", "k").and_then(|e| e.value.as_deref())
            );
        }
        let refused = [
            old,
            "# c\n[a]\nk=1\nm = two  \n\n[b]\r\nx=\r\ny=3\n",
            "# d\n[a]\nk=1\nm = two  \n\n[b]\r\nx=\r\ny=3",
            "# c\n[a]\nk=1\nm =  two  \n\n[b]\r\nx=\r\ny=3",
            "# c\n[a]\nk=1\nm = two\nn=1\n\n[b]\r\nx=\r\ny=3",
            "# c\n[a]\nk=1\nm = two  \n\n[b]\r\nx= v\r\ny=3",
            "# c\n[a]\nk=1\r\nm = two  \n\n[b]\r\nx=\r\ny=3",
            "# c\n[a]\nk=1\nm = two  \n\n[b]\r\nx=\r\r\ny=3",
        ];
        for new in refused {
            assert!(patched(&d, new).is_none(), "patched: {new:?}");
        }
        // A file the reader refuses is parsed again.
        assert!(patched(&doc("k=1\n[a]\n"), "k=2\n[a]\n").is_none());
    }
}
