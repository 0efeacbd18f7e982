//! The report of a check again, made only around what changed: the last
//! report kept where nothing it depends on changed, the rest made again
//! from the findings located there, and the two merged in report order.
//!
//! Why that is the whole report (`rules::report` over every list):
//! each of its steps decides a finding from findings located in the same
//! file (dedup, the folds of notes, batch and shared-config findings, per-file
//! ignores, the sort within a file), except the inline suppressions: a
//! finding is silenced by a suppression at its place or at one of its
//! related places, and a suppression is reported unused (DS009, in its own
//! file) when no finding touching its file used it. So the files are split
//! in two: `touched`, closed under "a finding names a touched file, so all
//! the files it names are touched", seeded with the files whose text changed
//! (suppressions, lines) and every file a replaced list named before or
//! after. A file left out is named only by findings that name no touched
//! file, in lists that did not change, against suppressions and lines that
//! did not change: its part of the report is the last report's. A touched
//! file's part is what the report makes from the findings located in
//! touched files (every finding naming one of them is among those), in
//! the lists' order.
//!
//! Where the report may move or rewrite findings across files (files named
//! on the command line move findings to their side; files outside the root
//! withhold other files' findings) or two files share a path (their order
//! is the order of the lists), the report is made whole.

use std::sync::Arc;

use crate::base::FileId;
use crate::base::diagnostic::Diagnostic;
use crate::base::path_order;
use crate::model::graph::Pipeline;
use crate::model::workspace::Workspace;
use crate::rules::suppress::Suppressions;
use crate::rules::{self, Findings, Settings};

/// What a report is made from.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    pub ws: &'a Workspace,
    pub pipelines: &'a [Pipeline],
    pub found: &'a Findings,
    pub sel: &'a Settings,
    pub suppressions: &'a Suppressions,
}

impl Inputs<'_> {
    /// The report made whole.
    pub fn whole(&self) -> Vec<Diagnostic> {
        let all = self.found.distinct(|_| true);
        rules::report_distinct(self.ws, self.pipelines, all, self.sel, self.suppressions)
    }
}

/// What a report is sorted by, for the files of one workspace: each file's
/// rank by path (the report sorts by rank, offset and code).
pub struct Order {
    rank: Vec<usize>,
    /// Every file has its own path (no two share a rank).
    distinct: bool,
}

impl Order {
    pub fn of(ws: &Workspace) -> Order {
        let mut by_path: Vec<FileId> = (0..ws.files.len()).collect();
        // As `Path` orders them, without its component walk (`path_order`).
        let cmp = path_order::comparator(ws.files.iter().map(|f| f.path.as_path()));
        by_path.sort_by(|&a, &b| cmp(&ws.files[a].path, &ws.files[b].path));
        let distinct = by_path
            .windows(2)
            .all(|w| cmp(&ws.files[w[0]].path, &ws.files[w[1]].path).is_ne());
        let mut rank = vec![0; ws.files.len()];
        for (i, &f) in by_path.iter().enumerate() {
            rank[f] = i;
        }
        Order { rank, distinct }
    }
}

/// The report of `found`, given `last` (the report of the lists before the
/// ones that changed were replaced, taken apart) and `seeds` (the files whose text
/// changed and those the replaced lists named, before and after); `None`
/// (and `last` left) where the report must be made whole.
pub fn merged(
    of: &Inputs,
    order: &Order,
    last: &mut Arc<Vec<Diagnostic>>,
    seeds: &[FileId],
) -> Option<Vec<Diagnostic>> {
    let Inputs {
        ws,
        pipelines,
        found,
        sel,
        suppressions,
    } = *of;
    if !local(ws, order, sel) {
        return None;
    }
    let touched = closure(ws.files.len(), found, seeds);
    let again = found.distinct(|d| touched[d.file]);
    let mut again = rules::report_distinct(ws, pipelines, again, sel, suppressions);
    // Unused suppressions of the other files: their part is the last one.
    again.retain(|d| touched[d.file]);
    let out = match Arc::try_unwrap(std::mem::take(last)) {
        Ok(last) => {
            // The findings kept are moved once, straight into their place.
            let mut gone = Vec::new();
            let kept = last.into_iter().filter_map(|d| {
                if touched[d.file] {
                    gone.push(d);
                    None
                } else {
                    Some(d)
                }
            });
            let out = merge(kept, again, order);
            // The replaced findings' texts are freed off the main thread.
            rayon::spawn(move || drop(gone));
            out
        }
        // The load's report, kept for the guard's restart: the findings
        // kept are copied.
        Err(shared) => merge(shared.iter().filter(|d| !touched[d.file]).cloned(), again, order),
    };
    debug_assert_eq!(
        format!("{out:?}"),
        format!("{:?}", of.whole()),
        "the merged report differs from the whole one"
    );
    Some(out)
}

/// Whether each file's part of the report is made from the findings that
/// name it alone (what `merged` rests on): not where the report may move
/// or rewrite findings across files (files named on the command line,
/// files outside the root) or two files share a path.
pub fn local(ws: &Workspace, order: &Order, sel: &Settings) -> bool {
    let outside = ws.follow_outside() || ws.files.iter().any(|f| f.outside);
    order.distinct && !outside && !sel.scope(ws).is_narrowed() && order.rank.len() == ws.files.len()
}

/// The touched files: `seeds`, and every file named by a finding that
/// names a touched file, until none is added.
fn closure(files: usize, found: &Findings, seeds: &[FileId]) -> Vec<bool> {
    let mut touched = vec![false; files];
    for &f in seeds {
        touched[f] = true;
    }
    // Only a finding that names a file besides its own can touch one: those
    // are found once, and each round looks at them alone (each round over
    // every finding was most of a merged report's own instructions).
    // Found on all threads (one thread's scan of every finding, each pass,
    // was on the main thread); the rounds' result is the same in any order
    // (the least set holding the seeds that the rule adds nothing to).
    use rayon::prelude::*;
    let lists: Vec<&Vec<Diagnostic>> = found.lists().collect();
    let across: Vec<&Diagnostic> = lists
        .par_iter()
        .flat_map_iter(|list| list.iter().filter(|d| d.related.iter().any(|(f, _)| *f != d.file)))
        .collect();
    loop {
        let mut added = false;
        for d in &across {
            let mut names = std::iter::once(d.file).chain(d.related.iter().map(|(f, _)| *f));
            if names.clone().any(|f| touched[f]) && !names.all(|f| touched[f]) {
                touched[d.file] = true;
                for (f, _) in &d.related {
                    touched[*f] = true;
                }
                added = true;
            }
        }
        if !added {
            return touched;
        }
    }
}

/// Two reports of disjoint files, each in report order, as one. Files have
/// ranks of their own (`local`), so a finding of one report goes before
/// one of the other by its file's rank alone: the findings kept are taken
/// in runs of a file, and only where a run starts are the findings made
/// again that rank before it put in (a comparison of whole keys for each
/// finding kept was most of a merged report's own instructions).
fn merge(kept: impl Iterator<Item = Diagnostic>, again: Vec<Diagnostic>, order: &Order) -> Vec<Diagnostic> {
    // Sized once, for every finding `kept` may give (the last report's).
    let (least, most) = kept.size_hint();
    let mut out = Vec::with_capacity(most.unwrap_or(least) + again.len());
    let mut again = again.into_iter().peekable();
    let mut run = None;
    for k in kept {
        if run != Some(k.file) {
            run = Some(k.file);
            let rank = order.rank[k.file];
            while let Some(d) = again.next_if(|d| order.rank[d.file] < rank) {
                out.push(d);
            }
        }
        out.push(k);
    }
    out.extend(again);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rule::Rule;
    use proptest::prelude::*;

    proptest! {
        /// Two reports of disjoint files merge into the one report order
        /// (rank, offset, code) gives all their findings, whatever the
        /// files' ranks and which report has each file.
        #[test]
        fn merged_reports_are_in_report_order(
            files in prop::collection::vec((0usize..4, any::<bool>()), 1..8),
            seed in any::<u64>(),
        ) {
            // Ranks: a permutation of the files, from the seed.
            let mut rank: Vec<usize> = (0..files.len()).collect();
            let mut x = seed;
            for i in (1..rank.len()).rev() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                rank.swap(i, (x >> 33) as usize % (i + 1));
            }
            let order = Order { rank: rank.clone(), distinct: true };
            let (mut kept, mut again) = (Vec::new(), Vec::new());
            for (file, &(count, is_again)) in files.iter().enumerate() {
                for at in 0..count {
                    let d = Diagnostic::new(Rule::EngineNameMismatch, file, at * 3..at * 3 + 1, "m");
                    if is_again { again.push(d) } else { kept.push(d) }
                }
            }
            let by_place = |d: &Diagnostic| (rank[d.file], d.span.start);
            kept.sort_by_key(by_place);
            again.sort_by_key(by_place);
            let mut all: Vec<Diagnostic> = kept.iter().chain(&again).cloned().collect();
            all.sort_by_key(by_place);
            let out = merge(kept.into_iter(), again, &order);
            prop_assert_eq!(format!("{out:?}"), format!("{all:?}"));
        }
    }
}
