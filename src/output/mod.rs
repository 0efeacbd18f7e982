//! Rendering findings: human (with the source line and a caret) and JSON.

pub mod concise;
pub mod files;
pub mod fingerprint;
pub mod human;
pub mod json;
pub mod machine;
pub(crate) mod pretty;
pub mod rules;
pub mod sarif;
pub mod statistics;

use std::path::Path;

use crate::base::diagnostic::{Diagnostic, Severity};
use crate::model::workspace::Workspace;

/// A finding resolved to what every output format needs.
pub struct Located<'a> {
    pub d: &'a Diagnostic,
    pub path: &'a Path,
    pub line: usize,
    pub col: usize,
    pub end_line: usize,
    pub end_col: usize,
}

pub fn locate<'a>(ws: &'a Workspace, d: &'a Diagnostic) -> Located<'a> {
    let f = &ws.files[d.file];
    let (line, col) = f.position(d.span.start);
    let (end_line, end_col) = f.position(d.span.end);
    Located {
        d,
        path: &f.path,
        line,
        col,
        end_line,
        end_col,
    }
}

/// What a streaming writer writes, as a string (tests, and callers that
/// want it whole). Writing to memory fails only on a serializer error,
/// which records of strings and numbers do not raise.
pub fn to_string(write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = write(&mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// A problem outside any parsed file (DS005).
pub struct FileProblem<'a> {
    pub path: &'a Path,
    pub code: &'static str,
    pub severity: Severity,
    pub message: &'a str,
}

/// The problems of the files in the run's scope (a file read only as
/// pipeline context reports none).
pub fn file_problems(ws: &Workspace) -> Vec<FileProblem<'_>> {
    let scope = crate::context::Scope::of(ws);
    ws.file_problems
        .iter()
        .filter(|(p, _, _)| scope.covers(p))
        .map(|(p, rule, m)| FileProblem {
            path: p,
            code: rule.code(),
            severity: rule.info().severity,
            message: m,
        })
        .collect()
}

/// `1 error`, `2 errors`, `3 fixes`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else if word.ends_with('x') {
        format!("{n} {word}es")
    } else {
        format!("{n} {word}s")
    }
}

/// What a run found, counted once for the summary line and `--statistics`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Totals {
    pub findings: usize,
    pub errors: usize,
    pub warnings: usize,
    pub info: usize,
    /// Findings `dslint fix` fixes, and those only `--unsafe-fixes` fixes.
    pub fixable_safe: usize,
    pub fixable_unsafe: usize,
    /// Findings of named files whose fix edits files not named: only
    /// `--fix-related` fixes them (counted in neither of the above).
    pub fixable_related: usize,
    /// Files checked: configs read, plus files reported unreadable (DS005).
    pub files: usize,
    /// Files read only as the pipeline context of named files (their own
    /// findings are not reported).
    pub context: usize,
}

impl Totals {
    /// The findings are counted on all threads, a run of them a task (on
    /// this thread alone, the 10k bench tree's 55k findings were a read of
    /// 8 MB at the end of a check, while the pool waited).
    pub fn count(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> Totals {
        use crate::base::edit::Applicability;
        use rayon::prelude::*;
        let covered = crate::context::Scope::of(ws).covered(ws);
        let one = |t: &mut Totals, s: Severity| {
            t.findings += 1;
            match s {
                Severity::Error => t.errors += 1,
                Severity::Warning => t.warnings += 1,
                Severity::Info => t.info += 1,
            }
        };
        let mut t = diags
            .par_chunks(1024)
            .map(|run| {
                let mut t = Totals::default();
                for d in run {
                    one(&mut t, d.severity());
                    let Some(f) = &d.fix else { continue };
                    match f.applicability {
                        // What `context::edits_outside` finds, without making the list.
                        _ if f.edits.iter().any(|e| !covered[e.file]) => t.fixable_related += 1,
                        Applicability::Safe => t.fixable_safe += 1,
                        Applicability::Unsafe => t.fixable_unsafe += 1,
                    }
                }
                t
            })
            .reduce(Totals::default, Totals::add_findings);
        for p in problems {
            one(&mut t, p.severity);
        }
        let unreadable: std::collections::BTreeSet<&Path> = problems.iter().map(|p| p.path).collect();
        let checked = covered.iter().filter(|&&c| c).count();
        t.files = checked + unreadable.len();
        t.context = ws.files.len() - checked;
        t
    }

    /// Two runs' counts of findings together (`count`).
    fn add_findings(a: Totals, b: Totals) -> Totals {
        Totals {
            findings: a.findings + b.findings,
            errors: a.errors + b.errors,
            warnings: a.warnings + b.warnings,
            info: a.info + b.info,
            fixable_safe: a.fixable_safe + b.fixable_safe,
            fixable_unsafe: a.fixable_unsafe + b.fixable_unsafe,
            fixable_related: a.fixable_related + b.fixable_related,
            files: a.files + b.files,
            context: a.context + b.context,
        }
    }

    /// `2 errors, 7 warnings, 8 info`.
    pub fn by_severity(&self) -> String {
        format!(
            "{}, {}, {} info",
            plural(self.errors, "error"),
            plural(self.warnings, "warning"),
            self.info
        )
    }
}

/// Text of several lines made safe for a terminal: each line as
/// [`escape_controls`] writes it, the newlines between them kept.
pub fn escape_controls_by_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&escape_controls(line));
    }
    out
}

/// Text from a config made safe for a terminal: control characters (C0,
/// DEL, C1) and bidirectional overrides are written as escapes (`\x1b`,
/// `\u{202e}`), so a value cannot retitle, clear or reorder the screen.
/// Tabs stay.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c != '\t' && acts_on_terminal(c);
    // Most text is printable ASCII: a byte scan skips it without decoding
    // a char; the chars are looked at from the first other byte on.
    let first = first_not_plain(s.as_bytes());
    // Bytes before `first` are ASCII: it is a char boundary.
    if !s[first..].chars().any(bad) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !bad(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether a terminal acts on `c` rather than showing it: a control
/// character (C0, DEL, C1: escapes, bells, `\u{9b}` CSI) or a
/// bidirectional mark, embedding, override or isolate (it reorders the
/// text around it). [`escape_controls`] writes them escaped (tabs stay),
/// and so do the JSON formats (`pretty::Pretty`).
pub(crate) fn acts_on_terminal(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A byte [`escape_controls`] lets through without a look at its char:
/// printable ASCII and the tab.
fn plain(b: u8) -> bool {
    (0x20..0x7f).contains(&b) || b == b'\t'
}

/// The index of the first byte that is not [`plain`] (the length when
/// all are): eight bytes a step, each step one test of a word for a byte
/// below 0x20 or above 0x7e (exact for "is there one": a tab is one, and
/// its word is then looked at a byte at a time).
fn first_not_plain(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    for (i, w) in words.by_ref().enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        let x = u64::from_le_bytes(word);
        // A byte below 0x20 (the classic "has less than" test), or one of
        // 0x7f and above (adding 1 sets its top bit; a set top bit is
        // seen in `x` itself; a carry out of 0xff comes after such a byte).
        let low = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        let high = (x.wrapping_add(ONES) | x) & HIGH;
        if low | high != 0 {
            if let Some(p) = w.iter().position(|&b| !plain(b)) {
                return i * 8 + p;
            }
        }
    }
    let done = bytes.len() - words.remainder().len();
    words
        .remainder()
        .iter()
        .position(|&b| !plain(b))
        .map_or(bytes.len(), |p| done + p)
}

#[cfg(test)]
mod tests {
    /// The word scan finds the byte a byte-at-a-time scan finds, for every
    /// byte value at every place of a word and past it.
    #[test]
    fn first_not_plain_is_the_byte_scan() {
        let slow = |b: &[u8]| b.iter().position(|&c| !super::plain(c)).unwrap_or(b.len());
        for len in 0..20 {
            for at in 0..len {
                for v in 0..=255u8 {
                    let mut b = vec![b'a'; len];
                    b[at] = v;
                    assert_eq!(super::first_not_plain(&b), slow(&b), "{len} {at} {v}");
                    // A tab before it, and a second odd byte after it.
                    if at > 0 {
                        b[at - 1] = b'\t';
                    }
                    if at + 1 < len {
                        b[at + 1] = 0xff;
                    }
                    assert_eq!(super::first_not_plain(&b), slow(&b), "{len} {at} {v} (tab, 0xff)");
                }
            }
        }
    }

    #[test]
    fn escapes_what_a_terminal_would_act_on() {
        assert_eq!(
            super::escape_controls("a\u{1b}]0;t\u{7}\u{9b}2J\u{202e}b\tc\u{7f}"),
            "a\\x1b]0;t\\x07\\u{9b}2J\\u{202e}b\tc\\x7f"
        );
        assert!(matches!(
            super::escape_controls("plain é"),
            std::borrow::Cow::Borrowed(_)
        ));
        // Past the byte scan's first step, and at each place within one.
        let long = "0123456789abcdef".repeat(3);
        assert!(matches!(super::escape_controls(&long), std::borrow::Cow::Borrowed(_)));
        for at in [0, 1, 15, 16, 17, 31, 47] {
            let mut s = long.clone();
            s.replace_range(at..=at, "\u{7}");
            let want = format!("{}\\x07{}", &long[..at], &long[at + 1..]);
            assert_eq!(super::escape_controls(&s), want, "{at}");
            let mut s = long.clone();
            s.replace_range(at..=at, "\u{202e}");
            let want = format!("{}\\u{{202e}}{}", &long[..at], &long[at + 1..]);
            assert_eq!(super::escape_controls(&s), want, "{at}");
            let mut s = long.clone();
            s.replace_range(at..=at, "é");
            assert!(
                matches!(super::escape_controls(&s), std::borrow::Cow::Borrowed(_)),
                "{at}"
            );
        }
    }
}
