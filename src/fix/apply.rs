//! Applying fixes: each fix is atomic (all its edits or none); a fix that
//! overlaps one already taken waits for the next pass, as ruff does.

use std::collections::{BTreeMap, HashMap};

use crate::base::FileId;
use crate::base::edit::{Edit, Fix};

/// Pick the fixes of one pass: non-overlapping within each file.
pub fn select<'a>(fixes: impl IntoIterator<Item = &'a Fix>) -> (Vec<&'a Fix>, usize) {
    let mut taken: Vec<&Fix> = Vec::new();
    let mut deferred = 0;
    // The spans taken, by file: a pass of a large tree takes thousands of
    // fixes, each compared only with those of the files it edits.
    let mut claimed: HashMap<FileId, Vec<(usize, usize)>> = HashMap::new();
    for fix in fixes {
        let clash = fix.edits.iter().any(|e| {
            claimed.get(&e.file).is_some_and(|spans| {
                spans.iter().any(|&(s, t)| {
                    e.range.start < t && s < e.range.end
                        || (e.range.is_empty() && s == e.range.start && t == s)
                        || (e.range.start == s && e.range.end == t)
                })
            })
        });
        if clash {
            deferred += 1;
            continue;
        }
        for e in &fix.edits {
            claimed.entry(e.file).or_default().push((e.range.start, e.range.end));
        }
        taken.push(fix);
    }
    (taken, deferred)
}

/// Apply edits (already non-overlapping) to the texts they name.
pub fn apply(texts: &mut BTreeMap<FileId, String>, edits: Vec<&Edit>) {
    let mut by_file: BTreeMap<FileId, Vec<&Edit>> = BTreeMap::new();
    for e in edits {
        by_file.entry(e.file).or_default().push(e);
    }
    for (file, mut edits) in by_file {
        let Some(text) = texts.get_mut(&file) else { continue };
        // Back to front, so earlier offsets stay valid.
        edits.sort_by_key(|e| (e.range.start, e.range.end));
        for e in edits.iter().rev() {
            if e.range.end <= text.len() && text.is_char_boundary(e.range.start) && text.is_char_boundary(e.range.end) {
                text.replace_range(e.range.clone(), &e.text);
            }
        }
    }
}

/// Apply edits to one string (used by tests and the bench variant).
pub fn apply_to_string(text: &str, edits: &[Edit]) -> String {
    let mut m = BTreeMap::new();
    let file = edits.first().map_or(0, |e| e.file);
    m.insert(file, text.to_string());
    apply(&mut m, edits.iter().collect());
    m.remove(&file).unwrap_or_default()
}
