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

use crate::base::decimal::push_decimal;
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
        let _ = writeln!(out, "  --> {}\n", esc(&crate::files::shown(p.path)));
    }
    w.write_all(out.as_bytes())?;
    let covered = crate::context::Scope::of(ws).covered(ws);
    for batch in diags.chunks(BATCH) {
        let runs: Vec<String> = batch
            .par_chunks(RUN)
            .map(|run| {
                // About what a run takes (a finding is ~450 bytes in the
                // benchmark's trees): grown by doubling, a run's string was
                // copied over and over.
                let mut out = String::with_capacity(run.len() * 512);
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

/// Runs made at a time: only a batch of the output is ever held (a
/// finding is ~450 bytes in the benchmark's trees: ~1 MB a batch; 64 runs
/// a batch, 8 MB, raised a 10k-file check's peak by 5 MiB).
const BATCH: usize = RUN * 8;

/// One finding: the headline, the line with a caret, then `expected`,
/// `why`, `see` and `fix`. Written piece by piece with `push_str` (and
/// numbers with [`push_decimal`]), not through `write!`: a finding's lines are
/// most of the output, and the formatter's machinery was most of their
/// cost.
fn finding(out: &mut String, ws: &Workspace, d: &Diagnostic, covered: &[bool], style: &Style) {
    let l = locate(ws, d);
    let f = &ws.files[d.file];
    out.push_str(&style.severity(d.severity()));
    out.push('[');
    out.push_str(d.code());
    out.push_str("]: ");
    out.push_str(&style.paint("1", &esc(&d.message)));
    // `shown` writes what `display` does, without a copy of a
    // path that is UTF-8 (every finding names one).
    out.push_str("\n  --> ");
    out.push_str(&esc(&crate::files::shown(l.path)));
    out.push(':');
    push_decimal(out, l.line);
    out.push(':');
    push_decimal(out, l.col);
    out.push('\n');
    let src = f.lines.line_span(&f.doc.text, l.line);
    // (Copied only when it holds a tab: few lines do.)
    let raw_line = match &f.doc.text[src.clone()] {
        t if t.contains('\t') => std::borrow::Cow::Owned(t.replace('\t', " ")),
        t => std::borrow::Cow::Borrowed(t),
    };
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
    // Padding and carets are written a run at a time ([`fill`]), not made
    // as strings first.
    let gutter = digits(l.line);
    fill(out, SPACES, gutter);
    out.push_str(" |\n");
    push_decimal(out, l.line);
    out.push_str(" | ");
    out.push_str(line_text.trim_start_matches('\u{feff}'));
    out.push('\n');
    let col = widen(l.col);
    let caret_len = if l.end_line == l.line {
        (widen(l.end_col).saturating_sub(col)).max(1)
    } else {
        line_text.chars().count().saturating_sub(col - 1).max(1)
    };
    fill(out, SPACES, gutter);
    out.push_str(" | ");
    fill(out, SPACES, col - 1);
    if style.color {
        out.push_str("\x1b[1;31m");
        fill(out, CARETS, caret_len);
        out.push_str("\x1b[0m");
    } else {
        fill(out, CARETS, caret_len);
    }
    out.push('\n');
    if let Some(e) = &d.expected {
        fill(out, SPACES, gutter);
        out.push_str(" = expected: ");
        out.push_str(&esc(e));
        out.push('\n');
    }
    if let Some(w) = &d.why {
        fill(out, SPACES, gutter);
        out.push_str(" = why: ");
        out.push_str(&esc(w));
        out.push('\n');
    }
    for (rf, rs) in &d.related {
        let (rl, rc) = ws.files[*rf].position(rs.start);
        fill(out, SPACES, gutter);
        out.push_str(" = see: ");
        out.push_str(&esc(&crate::files::shown(&ws.files[*rf].path)));
        out.push(':');
        push_decimal(out, rl);
        out.push(':');
        push_decimal(out, rc);
        out.push('\n');
    }
    fill(out, SPACES, gutter);
    out.push_str(" = fix: ");
    match &d.fix {
        Some(fx) => {
            let (kind, command) = match fx.applicability {
                Applicability::Safe => ("safe", "dslint fix"),
                Applicability::Unsafe => ("unsafe", "dslint fix --unsafe-fixes"),
            };
            // A named file's finding whose fix edits files not named.
            let others: Vec<String> = edits_outside(covered, fx)
                .into_iter()
                .map(|f| esc(&crate::files::shown(&ws.files[f].path)).into_owned())
                .collect();
            out.push_str(kind);
            out.push_str(", `");
            out.push_str(command);
            if !others.is_empty() {
                out.push_str(" --fix-related`");
                out.push_str(" (it edits ");
                out.push_str(&others.join(", "));
                out.push(')');
            } else {
                out.push('`');
            }
            out.push_str(": ");
            out.push_str(&esc(&fx.title));
        }
        None => out.push_str("none"),
    }
    out.push_str("\n\n");
}

/// `n` copies of the one ASCII char a run repeats ([`SPACES`],
/// [`CARETS`]), a run at a time.
fn fill(out: &mut String, run: &str, n: usize) {
    let mut left = n;
    while left > 0 {
        let k = left.min(run.len());
        out.push_str(&run[..k]);
        left -= k;
    }
}

const SPACES: &str = "                                                                ";
const CARETS: &str = "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^";

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
    fn fills_numbers_and_digits_are_the_strings_they_replace() {
        for n in [0, 1, 9, 10, 99, 100, 12345, usize::MAX] {
            assert_eq!(digits(n), n.to_string().len(), "{n}");
        }
        assert!(SPACES.bytes().all(|b| b == b' ') && CARETS.bytes().all(|b| b == b'^'));
        for n in [0, 1, 7, 63, 64, 65, 200] {
            let (mut carets, mut spaces) = (String::from("<"), String::new());
            fill(&mut carets, CARETS, n);
            fill(&mut spaces, SPACES, n);
            assert_eq!(carets, format!("<{}", "^".repeat(n)));
            assert_eq!(spaces, " ".repeat(n));
        }
    }
}
