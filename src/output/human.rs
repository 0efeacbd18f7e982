//! ShellCheck-style output: each finding explains itself.
//!
//! ```text
//! error[DS701]: BATCH_MISMATCH: streammux batch-size 4 != … (pgie.txt:7)
//!   --> app.txt:12:12
//!    |
//! 12 | batch-size=4
//!    |            ^
//!    = expected: 4
//!    = why: nvinfer runs partial batches …
//!    = fix (safe): set both batch-size=4
//! ```

use std::fmt::Write;

use rayon::prelude::*;

use crate::base::diagnostic::{Diagnostic, Severity};
use crate::base::edit::Applicability;
use crate::context::edits_outside;
use crate::model::workspace::Workspace;
use crate::output::{FileProblem, Totals, escape_controls as esc, locate, plural};

pub struct Style {
    pub color: bool,
}

impl Style {
    /// `s` in the colour `code`, or `s` itself (no copy) without colour.
    fn paint<'a>(&self, code: &str, s: &'a str) -> std::borrow::Cow<'a, str> {
        if self.color {
            std::borrow::Cow::Owned(format!("\x1b[{code}m{s}\x1b[0m"))
        } else {
            std::borrow::Cow::Borrowed(s)
        }
    }
    fn severity(&self, sev: Severity) -> std::borrow::Cow<'static, str> {
        let code = match sev {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Info => "1;36",
        };
        self.paint(code, sev.as_str())
    }
}

pub fn render(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem], style: &Style) -> String {
    crate::output::to_string(|w| write(w, ws, diags, problems, style))
}

/// [`render`], written as it is made: the findings are rendered on all
/// threads, a run of them to a string each, a batch of runs at a time,
/// and written in order (the same bytes on any number of threads; only a
/// batch of the output is ever held).
pub fn write(
    w: &mut dyn std::io::Write,
    ws: &Workspace,
    diags: &[Diagnostic],
    problems: &[FileProblem],
    style: &Style,
) -> std::io::Result<()> {
    let mut out = String::new();
    // Everything that comes from a config or a file name goes through
    // `esc`: a value must not act on the terminal.
    for p in problems {
        let _ = writeln!(out, "{}[{}]: {}", style.severity(p.severity), p.code, esc(p.message));
        let _ = writeln!(out, "  --> {}\n", esc(&p.path.to_string_lossy()));
    }
    w.write_all(out.as_bytes())?;
    let covered = crate::context::Scope::of(ws).covered(ws);
    for batch in diags.chunks(RUN * 64) {
        let runs: Vec<String> = batch
            .par_chunks(RUN)
            .map(|run| {
                // Sized for a typical finding (~350 bytes): grown by
                // doubling, its copies were a tenth of the rendering.
                let mut out = String::with_capacity(run.len() * 384);
                for d in run {
                    finding(&mut out, ws, d, &covered, style);
                }
                out
            })
            .collect();
        for run in runs {
            w.write_all(run.as_bytes())?;
        }
    }
    Ok(())
}

/// Findings rendered to one string by one thread.
const RUN: usize = 256;

/// One finding: the headline, the line with a caret, then `expected`,
/// `why`, `see` and `fix`.
fn finding(out: &mut String, ws: &Workspace, d: &Diagnostic, covered: &[bool], style: &Style) {
    let l = locate(ws, d);
    let f = &ws.files[d.file];
    let _ = writeln!(
        out,
        "{}[{}]: {}",
        style.severity(d.severity()),
        d.code(),
        style.paint("1", &esc(&d.message))
    );
    // `to_string_lossy` writes what `display` does, without a copy of a
    // path that is UTF-8 (every finding names one).
    let _ = writeln!(out, "  --> {}:{}:{}", esc(&l.path.to_string_lossy()), l.line, l.col);
    let src = f.lines.line_span(&f.doc.text, l.line);
    let raw_line = f.doc.text[src.clone()].replace('\t', " ");
    let line_text = esc(&raw_line);
    // Columns count characters of the raw line; escapes widen it. A line
    // with nothing to escape (nearly all) is as wide as its characters:
    // its prefixes are not copied and escaped again.
    let plain = matches!(line_text, std::borrow::Cow::Borrowed(_));
    let chars = raw_line.chars().count();
    let widen = |col: usize| {
        if plain {
            col.saturating_sub(1).min(chars) + 1
        } else {
            esc(&raw_line.chars().take(col.saturating_sub(1)).collect::<String>())
                .chars()
                .count()
                + 1
        }
    };
    // Padding and carets are written by the formatter (a fill of ""),
    // not made as strings first: a finding's lines are most of the output.
    let gutter = digits(l.line);
    let pad = Fill(SPACES, gutter);
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{} | {}", l.line, line_text.trim_start_matches('\u{feff}'));
    let col = widen(l.col);
    let caret_len = if l.end_line == l.line {
        (widen(l.end_col).saturating_sub(col)).max(1)
    } else {
        line_text.chars().count().saturating_sub(col - 1).max(1)
    };
    let carets = Fill(CARETS, caret_len);
    let indent = Fill(SPACES, col - 1);
    if style.color {
        let _ = writeln!(out, "{pad} | {indent}\x1b[1;31m{carets}\x1b[0m");
    } else {
        let _ = writeln!(out, "{pad} | {indent}{carets}");
    }
    if let Some(e) = &d.expected {
        let _ = writeln!(out, "{pad} = expected: {}", esc(e));
    }
    if let Some(w) = &d.why {
        let _ = writeln!(out, "{pad} = why: {}", esc(w));
    }
    for (rf, rs) in &d.related {
        let (rl, rc) = ws.files[*rf].position(rs.start);
        let _ = writeln!(
            out,
            "{pad} = see: {}:{rl}:{rc}",
            esc(&ws.files[*rf].path.to_string_lossy())
        );
    }
    let fix = match &d.fix {
        Some(fx) => {
            let (kind, mut command) = match fx.applicability {
                Applicability::Safe => ("safe", "dslint fix".to_string()),
                Applicability::Unsafe => ("unsafe", "dslint fix --unsafe-fixes".to_string()),
            };
            // A named file's finding whose fix edits files not named.
            let others: Vec<String> = edits_outside(covered, fx)
                .into_iter()
                .map(|f| esc(&ws.files[f].path.to_string_lossy()).into_owned())
                .collect();
            let also = if others.is_empty() {
                String::new()
            } else {
                command.push_str(" --fix-related");
                format!(" (it edits {})", others.join(", "))
            };
            format!("{kind}, `{command}`{also}: {}", esc(&fx.title))
        }
        None => "none".to_string(),
    };
    let _ = writeln!(out, "{pad} = fix: {fix}\n");
}

/// `n` copies of the one ASCII char a run repeats ([`SPACES`],
/// [`CARETS`]), written a run at a time, without making a string of them.
struct Fill(&'static str, usize);

const SPACES: &str = "                                                                ";
const CARETS: &str = "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^";

impl std::fmt::Display for Fill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut left = self.1;
        while left > 0 {
            let n = left.min(self.0.len());
            f.write_str(&self.0[..n])?;
            left -= n;
        }
        Ok(())
    }
}

/// How many digits `n` is written with (`n.to_string().len()`).
fn digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// The closing line: counts by severity and how many are fixable; when
/// nothing was checked it says so, and why, instead of "All checks passed".
pub fn summary(t: &Totals, skipped: usize, missing: usize) -> String {
    let not_found = plural(missing, "path");
    let files = if t.context > 0 {
        format!(
            "{}, {} more read as pipeline context",
            plural(t.files, "file"),
            t.context
        )
    } else {
        plural(t.files, "file")
    };
    if t.findings > 0 {
        format!(
            "Found {} in {files}; {} fixable with `dslint fix`, {} more with `--unsafe-fixes`{}.\n",
            t.by_severity(),
            t.fixable_safe,
            t.fixable_unsafe,
            if t.fixable_related > 0 {
                format!(", {} more with `--fix-related`", t.fixable_related)
            } else {
                String::new()
            }
        )
    } else if t.files == 0 && missing > 0 {
        format!("Nothing checked: {not_found} not found.\n")
    } else if t.files == 0 && skipped > 0 {
        format!(
            "Nothing checked: {} read, none of them a DeepStream config (see `--show-files`).\n",
            plural(skipped, "file")
        )
    } else if t.files == 0 {
        "Nothing checked: no DeepStream config found.\n".to_string()
    } else if missing > 0 {
        format!("No findings in {files}, but {not_found} not found.\n")
    } else {
        format!("All checks passed ({files}).\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_and_digits_are_the_strings_they_replace() {
        for n in [0, 1, 9, 10, 99, 100, 12345, usize::MAX] {
            assert_eq!(digits(n), n.to_string().len(), "{n}");
        }
        assert!(SPACES.bytes().all(|b| b == b' ') && CARETS.bytes().all(|b| b == b'^'));
        for n in [0, 1, 7, 63, 64, 65, 200] {
            assert_eq!(Fill(CARETS, n).to_string(), "^".repeat(n));
            assert_eq!(format!("{}|", Fill(SPACES, n)), format!("{}|", " ".repeat(n)));
        }
    }
}
