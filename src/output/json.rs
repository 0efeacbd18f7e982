//! `--format json`: one object per finding; the schema is in the README.

use std::io::{self, Write};

use serde::{Serialize, Serializer};

use crate::base::diagnostic::{Diagnostic, Severity};
use crate::base::edit::Applicability;
use crate::model::workspace::Workspace;
use crate::output::{FileProblem, locate};

#[derive(Serialize)]
struct Position {
    line: usize,
    column: usize,
}

#[derive(Serialize)]
struct JsonEdit {
    file: String,
    start: usize,
    end: usize,
    content: String,
}

#[derive(Serialize)]
struct JsonFix {
    applicability: Applicability,
    message: String,
    edits: Vec<JsonEdit>,
}

/// One finding as `--format json` prints it.
#[derive(Serialize)]
pub struct JsonDiagnostic {
    code: String,
    name: String,
    severity: Severity,
    file: String,
    location: Option<Position>,
    end_location: Option<Position>,
    message: String,
    expected: Option<String>,
    why: Option<String>,
    related: Vec<String>,
    fix: Option<JsonFix>,
}

/// Write the findings as a JSON array (pretty, a final newline), one
/// object at a time: the output is never held whole.
pub fn write(out: &mut dyn Write, ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> io::Result<()> {
    let items = problems
        .iter()
        .map(problem)
        .chain(diags.iter().map(|d| diagnostic(ws, d)));
    serde_json::Serializer::pretty(&mut *out)
        .collect_seq(items)
        .map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// The findings as a JSON array, whole (tests).
pub fn render(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> String {
    crate::output::to_string(|w| write(w, ws, diags, problems))
}

/// The findings as JSON objects, problems first, then by file and position.
pub fn items(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> Vec<JsonDiagnostic> {
    problems
        .iter()
        .map(problem)
        .chain(diags.iter().map(|d| diagnostic(ws, d)))
        .collect()
}

fn problem(p: &FileProblem) -> JsonDiagnostic {
    JsonDiagnostic {
        code: p.code.to_string(),
        name: name(p.code),
        severity: p.severity,
        file: crate::files::shown(p.path).into_owned(),
        location: None,
        end_location: None,
        message: p.message.to_string(),
        expected: None,
        why: None,
        related: Vec::new(),
        fix: None,
    }
}

fn diagnostic(ws: &Workspace, d: &Diagnostic) -> JsonDiagnostic {
    let l = locate(ws, d);
    JsonDiagnostic {
        code: d.code().to_string(),
        name: name(d.code()),
        severity: d.severity(),
        file: crate::files::shown(l.path).into_owned(),
        location: Some(Position {
            line: l.line,
            column: l.col,
        }),
        end_location: Some(Position {
            line: l.end_line,
            column: l.end_col,
        }),
        message: d.message.clone(),
        expected: d.expected.as_deref().map(str::to_owned),
        why: d.why.as_deref().map(str::to_owned),
        related: d
            .related
            .iter()
            .map(|(f, s)| {
                let (line, col) = ws.files[*f].position(s.start);
                format!("{}:{line}:{col}", crate::files::shown(&ws.files[*f].path))
            })
            .collect(),
        fix: d.fix.as_ref().map(|f| JsonFix {
            applicability: f.applicability,
            message: f.title.clone(),
            edits: f
                .edits
                .iter()
                .map(|e| JsonEdit {
                    file: crate::files::shown(&ws.files[e.file].path).into_owned(),
                    start: e.range.start,
                    end: e.range.end,
                    content: e.text.clone(),
                })
                .collect(),
        }),
    }
}

fn name(code: &str) -> String {
    crate::base::rule::find(code).map_or_else(String::new, |r| r.name.to_string())
}

/// `fix --format json`: what changed (as unified diffs), every fix applied,
/// the unsafe fixes left out, and the findings left after fixing.
#[derive(Serialize)]
struct FixReport<'a> {
    /// Whether the files were written (`--write`), or only shown.
    written: bool,
    /// With `--write`, the files in `changed` are those written; these
    /// could not be (their fixes are left out of `fixes`).
    not_written: Vec<String>,
    changed: Vec<ChangedFile>,
    fixes: &'a [crate::fix::engine::AppliedFix],
    unsafe_left: &'a std::collections::BTreeMap<&'static str, usize>,
    /// Fixes left because they edit files that were not named (no
    /// `--fix-related`).
    related_left: &'a [crate::fix::engine::RelatedLeft],
    /// Fixes undone because a finding appeared after them.
    dropped: &'a [crate::fix::guard::DroppedFix],
    remaining: Vec<JsonDiagnostic>,
}

#[derive(Serialize)]
struct ChangedFile {
    file: String,
    diff: String,
}

pub fn fix_report(o: &crate::fix::engine::FixOutcome, problems: &[FileProblem], written: bool) -> String {
    let report = FixReport {
        written,
        not_written: o
            .not_written
            .iter()
            .map(|p| crate::files::shown(p).into_owned())
            .collect(),
        changed: o
            .changed
            .iter()
            .map(|(path, (old, new))| ChangedFile {
                file: crate::files::shown(path).into_owned(),
                diff: crate::fix::diff::unified(path, old, new, false),
            })
            .collect(),
        fixes: &o.log,
        unsafe_left: &o.unsafe_left,
        related_left: &o.related_left,
        dropped: &o.dropped,
        remaining: items(&o.final_ws, &o.remaining, problems),
    };
    serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
}
