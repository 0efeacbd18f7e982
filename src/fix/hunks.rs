//! The hunks of a unified diff (3 lines of context), as `similar`'s
//! `TextDiff::from_lines(..).unified_diff()` writes them, byte for byte,
//! from a line diff of only the changed part of the texts, its lines
//! ended at `\n` alone ([`lines`]).
//!
//! `fix` changes few bytes of a file (most fixes are one value), yet a
//! line diff of the whole texts splits both into lines, compares every
//! line and writes through `fmt`: a tenth of `fix --diff`'s instructions
//! on the 10k tree. Here the bytes both texts share at the start and at
//! the end are found first (slices compared a block at a time), and
//! `similar` diffs the lines between them with a few lines of slack on
//! each side; the hunks' line numbers are moved by the lines skipped.
//!
//! Why that is the same diff: `similar`'s Myers trims the common prefix
//! and suffix (in lines) before anything else, and its heuristics look
//! only at what is left; the window starts after a `\n` that both texts
//! have before their first difference and ends after one in their
//! shared end, so the lines skipped are whole lines of that prefix and
//! suffix and the part left is the same. Two things still see the lines
//! around it: the compaction pass (it slides an insertion up or down
//! through equal lines) and the 3 lines of context. Both reach into the
//! window's first and last equal runs only; while those keep at least 3
//! lines after the diff, neither needed a line outside the window. When
//! one does not (a change slid through the slack, or fewer equal lines),
//! the whole texts are diffed instead.

use crate::base::decimal::push_decimal;
use similar::{DiffOp, DiffTag, TextDiff};

/// Lines of context in a hunk (`diff -u`'s and `similar`'s default).
const CONTEXT: usize = 3;

/// Whole lines of the shared start and end kept in the window beyond the
/// first and last changed line: the context and room for compaction to
/// slide a change without reaching the window's edge.
const SLACK: usize = 8;

/// The diff of `old` to `new`: `--- a`, `+++ b` and the hunks; empty when
/// the texts are the same.
pub fn unified(a: &str, b: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let w = window(old, new);
    if w.start == 0 && w.old_end == old.len() {
        return whole(a, b, old, new);
    }
    let lines_before = lines_in(&old.as_bytes()[..w.start]);
    let new_end = new.len() - (old.len() - w.old_end);
    let (old_w, new_w) = (lines(&old[w.start..w.old_end]), lines(&new[w.start..new_end]));
    let diff = TextDiff::configure().diff_slices(&old_w, &new_w);
    let ops = diff.ops();
    let edge_kept = |op: Option<&DiffOp>| matches!(op, Some(DiffOp::Equal { len, .. }) if *len >= CONTEXT);
    if (w.start > 0 && !edge_kept(ops.first())) || (w.old_end < old.len() && !edge_kept(ops.last())) {
        return whole(a, b, old, new);
    }
    let mut out = String::with_capacity(diff_room(a, b, &old[w.start..w.old_end], &new[w.start..new_end]));
    write_diff(&mut out, a, b, ops, &old_w, &new_w, lines_before);
    out
}

/// The whole texts' line diff.
fn whole(a: &str, b: &str, old: &str, new: &str) -> String {
    let (old_l, new_l) = (lines(old), lines(new));
    let diff = TextDiff::configure().diff_slices(&old_l, &new_l);
    let mut out = String::with_capacity(diff_room(a, b, old, new));
    write_diff(&mut out, a, b, diff.ops(), &old_l, &new_l, 0);
    out
}

/// Room for a diff of two texts at most (each line once with its mark,
/// the headers), so that writing it never grows the string.
fn diff_room(a: &str, b: &str, old: &str, new: &str) -> usize {
    old.len() + new.len() + (old.len() + new.len()) / 16 + a.len() + b.len() + 64
}

/// `text`'s lines (each with its line end): a line ends after a `\n`, as
/// GLib's key-file reader (`g_key_file_parse_data`), `patch` and `git
/// apply` end it; a CR before it is part of the line, and so is a lone CR.
/// `similar`'s `tokenize_lines` also ends a line at a lone CR: a diff of a
/// file with lone CRs named lines one further down for each CR above, and
/// `patch` refused it (hostile10). The ends are found with `memchr`
/// (`similar`'s own split was a quarter of the diffs' instructions on the
/// 10k bench tree); `similar` then diffs these slices as it diffs its own
/// (`TextDiffConfig::diff_slices` and `diff_lines` run the same
/// `capture_ops`), and `write_diff` writes the hunks.
fn lines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 24 + 2);
    let mut start = 0;
    for i in memchr::memchr_iter(b'\n', bytes) {
        out.push(&text[start..=i]);
        start = i + 1;
    }
    if start < bytes.len() {
        out.push(&text[start..]);
    }
    out
}

/// Byte ranges of the window: `start..old_end` of `old`, and of `new` from
/// `start` to as many bytes before its end as `old_end` is before old's.
#[derive(Debug, PartialEq, Eq)]
pub struct Window {
    pub start: usize,
    pub old_end: usize,
}

/// The window of two texts (see the module's comment): it starts after
/// the `\n` that is `SLACK` lines before the last `\n` of their shared
/// start (or at 0), and ends after the `\n` that is `SLACK` lines after
/// the first `\n` of their shared end (or at the end).
pub fn window(old: &str, new: &str) -> Window {
    let (o, n) = (old.as_bytes(), new.as_bytes());
    let prefix = common_prefix(o, n);
    // The shared end is counted only past the shared start, so the lines
    // of the two never overlap (as `similar` counts its suffix).
    let room = o.len().min(n.len()) - prefix;
    let suffix = common_suffix(&o[o.len() - room..], &n[n.len() - room..]);
    let mut start = prefix;
    let mut found = true;
    for _ in 0..=SLACK {
        match memchr::memrchr(b'\n', &o[..start]) {
            Some(i) => start = i,
            None => {
                found = false;
                break;
            }
        }
    }
    let start = if found { start + 1 } else { 0 };
    let tail = o.len() - suffix;
    let mut end = tail;
    let mut found = true;
    for _ in 0..=SLACK {
        match memchr::memchr(b'\n', &o[end..]) {
            Some(i) => end += i + 1,
            None => {
                found = false;
                break;
            }
        }
    }
    let old_end = if found { end } else { o.len() };
    Window { start, old_end }
}

/// How many lines [`lines`] splits `bytes` into when they end in a `\n`
/// (or are empty).
fn lines_in(bytes: &[u8]) -> usize {
    // A plain count (the compiler makes it a vector loop).
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// Bytes two slices share at the start: a block at a time (the slices'
/// comparison is a `memcmp`), then byte by byte in the first block that
/// differs.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Bytes two slices share at the end (as [`common_prefix`], from the end).
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let (la, lb) = (a.len(), b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[la - i - BLOCK..la - i] == b[lb - i - BLOCK..lb - i] {
        i += BLOCK;
    }
    while i < n && a[la - i - 1] == b[lb - i - 1] {
        i += 1;
    }
    i
}

/// The hunks of a line diff (`ops` over the lines `old` and `new`) as
/// `similar`'s `UnifiedDiff` displays them (context 3, the missing-newline
/// hint on), the line numbers moved on by `lines_before`: each op's lines
/// as `TextDiff::iter_changes` gives them (a replace's old lines, then its
/// new ones).
fn write_diff(out: &mut String, a: &str, b: &str, ops: &[DiffOp], old: &[&str], new: &[&str], lines_before: usize) {
    let mut header = true;
    for group in similar::group_diff_ops(ops.to_vec(), CONTEXT) {
        if group.is_empty() {
            continue;
        }
        if std::mem::take(&mut header) {
            for s in ["--- ", a, "\n+++ ", b, "\n"] {
                out.push_str(s);
            }
        }
        let (first, last) = (&group[0], &group[group.len() - 1]);
        out.push_str("@@ -");
        push_range(
            out,
            lines_before + first.old_range().start,
            lines_before + last.old_range().end,
        );
        out.push_str(" +");
        push_range(
            out,
            lines_before + first.new_range().start,
            lines_before + last.new_range().end,
        );
        out.push_str(" @@\n");
        for op in &group {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            match tag {
                DiffTag::Equal => push_lines(out, ' ', &old[old_range]),
                DiffTag::Delete => push_lines(out, '-', &old[old_range]),
                DiffTag::Insert => push_lines(out, '+', &new[new_range]),
                DiffTag::Replace => {
                    push_lines(out, '-', &old[old_range]);
                    push_lines(out, '+', &new[new_range]);
                }
            }
        }
    }
}

/// Lines of a hunk, each after its mark; one without a line end (the
/// text's last, a lone CR at its end too) gets one and the missing-newline
/// hint.
fn push_lines(out: &mut String, mark: char, lines: &[&str]) {
    for value in lines {
        out.push(mark);
        out.push_str(value);
        if !value.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

/// A hunk header's range of lines `start..end` (0-based): `similar`'s
/// `UnifiedDiffHunkRange` (1-based; the length left out when 1; an empty
/// range names the line before it).
fn push_range(out: &mut String, start: usize, end: usize) {
    let len = end.saturating_sub(start);
    if len == 1 {
        push_decimal(out, start + 1);
    } else {
        push_decimal(out, if len == 0 { start } else { start + 1 });
        out.push(',');
        push_decimal(out, len);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What `fix --diff` wrote before this module: `similar` over the
    /// whole texts, its lines ended at `\n` alone (as GLib and `patch`
    /// end them): each CR stands in as a character `similar` ends no line
    /// at, and is put back in what it writes.
    fn similar_whole(old: &str, new: &str) -> String {
        similar_lf(old, new, "a/f", "b/f")
    }

    /// `similar`'s diff of two texts whose lines end at `\n` alone.
    pub(crate) fn similar_lf(old: &str, new: &str, a: &str, b: &str) -> String {
        const CR: &str = "\u{e000}";
        let (old, new) = (old.replace('\r', CR), new.replace('\r', CR));
        TextDiff::from_lines(&old, &new)
            .unified_diff()
            .context_radius(3)
            .header(a, b)
            .to_string()
            .replace(CR, "\r")
    }

    #[test]
    fn one_value_in_a_long_file_is_diffed_in_a_window() {
        let old: String = (0..1000).map(|i| format!("key{i}=1\n")).collect();
        let new = old.replace("key500=1\n", "key500=2\n");
        // 8 whole lines of slack each side of line 500 (0-based): from the
        // line after the 9th `\n` back from the first differing byte to the
        // 9th `\n` on from the first `\n` of the shared end.
        let start = old.find("key492=").unwrap();
        let old_end = old.find("key509=").unwrap();
        assert_eq!(window(&old, &new), Window { start, old_end });
        assert_eq!(
            unified("a/f", "b/f", &old, &new),
            "--- a/f\n+++ b/f\n@@ -498,7 +498,7 @@\n key497=1\n key498=1\n key499=1\n-key500=1\n+key500=2\n key501=1\n key502=1\n key503=1\n"
        );
    }

    #[test]
    fn a_change_slid_out_of_the_window_diffs_the_whole_texts() {
        // A line inserted among 20 equal lines: the compaction slides it
        // to the first of them, past the window's slack.
        let old = format!("top\n{}bottom\n", "x\n".repeat(20));
        let new = format!("top\n{}bottom\n", "x\n".repeat(21));
        assert_eq!(unified("a/f", "b/f", &old, &new), similar_whole(&old, &new));
    }

    #[test]
    fn same_texts_give_no_diff() {
        assert_eq!(unified("a/f", "b/f", "a\nb", "a\nb"), "");
        assert_eq!(unified("a/f", "b/f", "", ""), "");
    }

    #[test]
    fn line_ends_as_glib_splits_them() {
        for (old, new) in [
            ("a\r\nb\r\nc", "a\r\nB\r\nc"),
            ("a\rb\rc\r", "a\rb\rd\r"),
            ("a\nb", "a\nb\n"),
            ("a\nb\n", "a\nb"),
            ("a\r", "a\r\n"),
            ("x\r\n", "x\r"),
            ("", "a"),
            ("a", ""),
        ] {
            assert_eq!(
                unified("a/f", "b/f", old, new),
                similar_whole(old, new),
                "{old:?} -> {new:?}"
            );
        }
    }

    /// Lines a config is made of, with repeats, line ends of every kind
    /// and control characters.
    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => Just("x\n".to_string()),
            2 => Just("\n".to_string()),
            2 => Just("a\r\n".to_string()),
            1 => Just("\r".to_string()),
            1 => Just("esc\x1b[2J\n".to_string()),
            1 => Just("rtl\u{202e}\n".to_string()),
            1 => Just("t\tab\r\n".to_string()),
            1 => Just("[group]\n".to_string()),
            6 => (0u8..40).prop_map(|n| format!("key{n}=1\n")),
        ]
    }

    /// A final line without a line end, or none.
    fn last() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            Just("end".to_string()),
            Just("x".to_string()),
            Just("a\r".to_string())
        ]
    }

    #[derive(Debug, Clone)]
    enum Edit {
        Value,
        Replace(String),
        Insert(String),
        Delete,
    }

    fn edit() -> impl Strategy<Value = Edit> {
        prop_oneof![
            4 => Just(Edit::Value),
            2 => line().prop_map(Edit::Replace),
            2 => line().prop_map(Edit::Insert),
            2 => Just(Edit::Delete),
        ]
    }

    /// Texts and the same texts with edits 1 to 9 lines apart (3 to 7:
    /// hunks that merge and hunks that do not), the last line changed or not.
    fn edited(max_lines: usize) -> impl Strategy<Value = (String, String)> {
        (
            prop::collection::vec(line(), 0..max_lines),
            last(),
            last(),
            0usize..40,
            prop::collection::vec((1usize..10, edit()), 1..5),
        )
            .prop_map(|(lines, old_last, new_last, first, edits)| {
                let mut new_lines = lines.clone();
                let mut at = first;
                for (gap, e) in edits {
                    if at > new_lines.len() {
                        break;
                    }
                    match e {
                        Edit::Value if at < new_lines.len() => {
                            let l = &mut new_lines[at];
                            *l = if l.contains("=1") {
                                l.replace("=1", "=2")
                            } else {
                                format!("v{l}")
                            };
                        }
                        Edit::Replace(l) if at < new_lines.len() => new_lines[at] = l,
                        Edit::Delete if at < new_lines.len() => {
                            new_lines.remove(at);
                        }
                        Edit::Insert(l) => new_lines.insert(at, l),
                        _ => {}
                    }
                    at += gap;
                }
                (lines.concat() + &old_last, new_lines.concat() + &new_last)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Lines end at `\n` alone (a CR is part of its line), as GLib,
        /// `patch` and `git apply` end them.
        #[test]
        fn lines_end_at_newlines(text in "[a\\r\\n\u{e9}]{0,40}") {
            prop_assert_eq!(lines(&text), text.split_inclusive('\n').collect::<Vec<_>>());
            prop_assert_eq!(lines_in(text.as_bytes()), text.matches('\n').count());
        }

        #[test]
        fn edited_texts_diff_as_similar_diffs_them((old, new) in edited(60)) {
            prop_assert_eq!(unified("a/f", "b/f", &old, &new), similar_whole(&old, &new));
        }

        // Past 100 lines `similar` maps lines to numbers before its diff.
        #[test]
        fn long_edited_texts_diff_as_similar_diffs_them((old, new) in edited(260)) {
            prop_assert_eq!(unified("a/f", "b/f", &old, &new), similar_whole(&old, &new));
        }

        #[test]
        fn unrelated_texts_diff_as_similar_diffs_them(
            old in prop::collection::vec(line(), 0..30),
            new in prop::collection::vec(line(), 0..30),
            old_last in last(),
            new_last in last(),
        ) {
            let (old, new) = (old.concat() + &old_last, new.concat() + &new_last);
            prop_assert_eq!(unified("a/f", "b/f", &old, &new), similar_whole(&old, &new));
        }
    }
}
