//! Applying fixes: each fix is atomic (all its edits or none); a fix that
//! overlaps one already taken waits for the next pass, as ruff does.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::base::FileId;
use crate::base::edit::{Edit, Fix};

/// Pick the fixes of one pass: non-overlapping within each file.
pub fn select<'a>(fixes: impl IntoIterator<Item = &'a Fix>) -> (Vec<&'a Fix>, usize) {
    let mut taken: Vec<&Fix> = Vec::new();
    let mut deferred = 0;
    // The spans taken, by file and ordered: a pass of a large tree takes
    // thousands of fixes, and one large file may take thousands alone.
    let mut claimed: HashMap<FileId, Claimed> = HashMap::new();
    for fix in fixes {
        let clash = fix.edits.iter().any(|e| {
            claimed
                .get(&e.file)
                .is_some_and(|c| c.clashes(e.range.start, e.range.end))
        });
        if clash {
            deferred += 1;
            continue;
        }
        for e in &fix.edits {
            claimed.entry(e.file).or_default().take(e.range.start, e.range.end);
        }
        taken.push(fix);
    }
    (taken, deferred)
}

/// The spans of one file's taken edits, answering in log time whether an
/// edit `a..b` clashes with one: it overlaps a span (`a < t && s < b`), or
/// it is the same span (two inserts at one place). A fix's own edits are
/// taken unchecked and may overlap each other, so spans are kept as
/// `covers`: the unions of spans chained by overlaps, disjoint (touching
/// ones stay apart: an insert where two edits meet clashes with neither),
/// by start, each with its end; and `inserts`: the empty spans.
#[derive(Default)]
struct Claimed {
    covers: BTreeMap<usize, usize>,
    inserts: BTreeSet<usize>,
}

impl Claimed {
    fn clashes(&self, a: usize, b: usize) -> bool {
        // The cover starting last before a place is the only one that can
        // reach past it: covers are disjoint, so their ends grow with
        // their starts.
        let reaches_past =
            |before: usize, place: usize| self.covers.range(..before).next_back().is_some_and(|(_, &t)| place < t);
        if a == b {
            // An insert clashes with an insert at the same place, or falls
            // strictly inside a span.
            self.inserts.contains(&a) || reaches_past(a, a)
        } else {
            // An edit overlaps a span, or holds an insert strictly inside.
            reaches_past(b, a) || self.inserts.range(a + 1..b).next().is_some()
        }
    }

    fn take(&mut self, a: usize, b: usize) {
        if a == b {
            self.inserts.insert(a);
            return;
        }
        let (mut start, mut end) = (a, b);
        // The covers this span overlaps are the last ones starting before
        // `b` whose ends pass `a`: joined into one.
        while let Some((&s, &t)) = self.covers.range(..b).next_back().filter(|&(_, &t)| a < t) {
            self.covers.remove(&s);
            start = start.min(s);
            end = end.max(t);
        }
        self.covers.insert(start, end);
    }
}

/// Apply edits (already non-overlapping) to the texts they name.
pub fn apply(texts: &mut BTreeMap<FileId, String>, edits: Vec<&Edit>) {
    let mut by_file: BTreeMap<FileId, Vec<&Edit>> = BTreeMap::new();
    for e in edits {
        by_file.entry(e.file).or_default().push(e);
    }
    for (file, edits) in by_file {
        let Some(text) = texts.get_mut(&file) else { continue };
        apply_in(text, edits);
    }
}

/// The texts of the files `edits` name (each `text(file)` to begin with),
/// with the edits applied as `apply` does; the files on all threads (a
/// pass of the 10k bench tree edits ~3.8k files).
pub fn applied<'a>(
    edits: impl IntoIterator<Item = &'a Edit>,
    text: impl Fn(FileId) -> &'a str + Sync,
) -> BTreeMap<FileId, String> {
    use rayon::prelude::*;
    // Grouped by file with a stable sort on all threads (each file's edits
    // in the order given, as pushing them into a map by file did, on one
    // thread: a pass of a large tree has tens of thousands).
    let mut edits: Vec<&Edit> = edits.into_iter().collect();
    edits.par_sort_by_key(|e| e.file);
    let by_file: Vec<&[&Edit]> = edits.chunk_by(|a, b| a.file == b.file).collect();
    by_file
        .into_par_iter()
        .map(|edits| {
            let file = edits[0].file;
            let mut t = text(file).to_string();
            apply_in(&mut t, edits.to_vec());
            (file, t)
        })
        .collect()
}

/// One file's edits applied to its text.
fn apply_in(text: &mut String, mut edits: Vec<&Edit>) {
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    // Edits one after another (each starting at or after the end of the
    // one before: a pass's, `select` took them so) are spliced in one copy
    // front to back; replacing each in place moved the whole rest of the
    // text once an edit, quadratic in a file of many fixes (a pgie of
    // 80,000 commented values: three quarters of `fix`'s time in memmove).
    let disjoint = edits.windows(2).all(|w| w[0].range.end <= w[1].range.start);
    if disjoint {
        *text = spliced(text, &edits);
        return;
    }
    // A fix's own edits may overlap (`select` takes them unchecked): back
    // to front, so earlier offsets stay valid, as ever.
    for e in edits.iter().rev() {
        if applies(text, e) {
            text.replace_range(e.range.clone(), &e.text);
        }
    }
}

/// Whether an edit fits `text`: its range inside it, on character
/// boundaries (an edit that does not is left out).
fn applies(text: &str, e: &Edit) -> bool {
    e.range.end <= text.len() && text.is_char_boundary(e.range.start) && text.is_char_boundary(e.range.end)
}

/// `text` with `edits` (sorted, none starting before the end of the one
/// before) put in, front to back: what replacing them in place back to
/// front gives. Each edit is asked whether it fits against `text` itself:
/// the ones after it start at or after its end, so they change neither
/// the bytes before its end nor (being `str`s put at boundaries) whether
/// its end is a boundary, and a range past the end leaves every later one
/// past it too.
fn spliced(text: &str, edits: &[&Edit]) -> String {
    let grown: usize = edits.iter().map(|e| e.text.len()).sum();
    let mut out = String::with_capacity(text.len() + grown);
    let mut at = 0;
    for e in edits {
        if applies(text, e) {
            out.push_str(&text[at..e.range.start]);
            out.push_str(&e.text);
            at = e.range.end;
        }
    }
    out.push_str(&text[at..]);
    out
}

/// Apply edits to one string (used by tests and the bench variant).
pub fn apply_to_string(text: &str, edits: &[Edit]) -> String {
    let mut m = BTreeMap::new();
    let file = edits.first().map_or(0, |e| e.file);
    m.insert(file, text.to_string());
    apply(&mut m, edits.iter().collect());
    m.remove(&file).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{Claimed, Edit, apply_in};
    use proptest::prelude::*;

    /// Edits applied as they always were: sorted, then each replaced in
    /// place, back to front.
    fn in_place_back_to_front(text: &str, edits: &[Edit]) -> String {
        let mut text = text.to_string();
        let mut edits: Vec<&Edit> = edits.iter().collect();
        edits.sort_by_key(|e| (e.range.start, e.range.end));
        for e in edits.iter().rev() {
            if e.range.end <= text.len() && text.is_char_boundary(e.range.start) && text.is_char_boundary(e.range.end) {
                text.replace_range(e.range.clone(), &e.text);
            }
        }
        text
    }

    proptest! {
        /// Edits spliced front to back give what replacing them in place
        /// back to front gave: one after another, touching, inserts at one
        /// place, overlapping (a fix's own), ranges past the end or inside
        /// a character (left out), texts with multi-byte characters.
        #[test]
        fn spliced_edits_equal_edits_in_place(
            text in "[aé\n\r=]{0,16}",
            steps in prop::collection::vec((0usize..20, 0usize..5, "[xü\n]{0,3}"), 0..8),
            chained in any::<bool>(),
        ) {
            // Chained: each edit starts a gap (`start` / 4) after the end
            // of the one before, so all are one after another.
            let mut end = 0;
            let edits: Vec<Edit> = steps
                .into_iter()
                .map(|(start, len, text)| {
                    let start = if chained { end + start / 4 } else { start };
                    end = start + len;
                    Edit { file: 0, range: start..end, text }
                })
                .collect();
            let mut got = text.clone();
            apply_in(&mut got, edits.iter().collect());
            prop_assert_eq!(got, in_place_back_to_front(&text, &edits));
        }
    }

    /// The clash as `select` defined it on a list of every taken span.
    fn clash_by_scan(taken: &[(usize, usize)], a: usize, b: usize) -> bool {
        taken
            .iter()
            .any(|&(s, t)| a < t && s < b || (a == b && s == a && t == s) || (a == s && b == t))
    }

    proptest! {
        /// The ordered index answers as a scan of every taken span does,
        /// for edits taken unchecked (a fix's own may overlap) and edits
        /// checked before taking, empty and not, touching and nested.
        #[test]
        fn claimed_answers_as_a_scan(
            steps in prop::collection::vec((0usize..24, 0usize..6, any::<bool>()), 0..40),
        ) {
            let mut claimed = Claimed::default();
            let mut taken = Vec::new();
            for (a, len, force) in steps {
                let b = a + len;
                let want = clash_by_scan(&taken, a, b);
                prop_assert_eq!(claimed.clashes(a, b), want, "{:?} then {}..{}", taken, a, b);
                if force || !want {
                    claimed.take(a, b);
                    taken.push((a, b));
                }
            }
        }
    }
}
