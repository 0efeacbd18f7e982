//! `--format json`: one object per finding; the schema is in the README.

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;

use crate::base::diagnostic::{Diagnostic, Severity};
use crate::base::edit::Applicability;
use crate::model::workspace::Workspace;
use crate::output::{FileProblem, locate, pretty};

#[derive(Serialize)]
struct Position {
    line: usize,
    column: usize,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    file: Cow<'a, str>,
    start: usize,
    end: usize,
    content: &'a str,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    applicability: Applicability,
    message: &'a str,
    edits: Vec<JsonEdit<'a>>,
}

/// One finding as `--format json` prints it (borrowed from the finding:
/// nothing but `related` is copied).
#[derive(Serialize)]
pub struct JsonDiagnostic<'a> {
    code: &'static str,
    name: &'static str,
    severity: Severity,
    file: Cow<'a, str>,
    location: Option<Position>,
    end_location: Option<Position>,
    message: &'a str,
    expected: Option<&'a str>,
    why: Option<&'a str>,
    related: Vec<String>,
    fix: Option<JsonFix<'a>>,
}

/// Write the findings as a JSON array (pretty, a final newline): the
/// problems, then the findings, made a run at a time on all threads and
/// written in order (`pretty::write_array`: the bytes
/// `serde_json::to_writer_pretty` writes of [`items`], on any number of
/// threads); only a batch of the output is ever held.
pub fn write(out: &mut dyn Write, ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> io::Result<()> {
    let mut lead = Vec::new();
    for p in problems {
        pretty::element(&mut lead, 1, &problem(p));
    }
    pretty::write_array(
        out,
        1,
        &lead,
        diags,
        |_| (),
        |(), run| {
            // About what a run takes (a finding is ~770 bytes in the
            // benchmark's trees).
            let mut b = Vec::with_capacity(run.len() * 1024);
            for d in run {
                pretty::element(&mut b, 1, &diagnostic(ws, d));
            }
            b
        },
    )?;
    out.write_all(b"\n")
}

/// The findings as a JSON array, whole (tests).
pub fn render(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> String {
    crate::output::to_string(|w| write(w, ws, diags, problems))
}

/// The findings as JSON objects, problems first, then by file and position.
pub fn items<'a>(ws: &'a Workspace, diags: &'a [Diagnostic], problems: &[FileProblem<'a>]) -> Vec<JsonDiagnostic<'a>> {
    problems
        .iter()
        .map(problem)
        .chain(diags.iter().map(|d| diagnostic(ws, d)))
        .collect()
}

fn problem<'a>(p: &FileProblem<'a>) -> JsonDiagnostic<'a> {
    JsonDiagnostic {
        code: p.code,
        name: crate::base::rule::find(p.code).map_or("", |r| r.name),
        severity: p.severity,
        file: crate::files::shown(p.path),
        location: None,
        end_location: None,
        message: p.message,
        expected: None,
        why: None,
        related: Vec::new(),
        fix: None,
    }
}

fn diagnostic<'a>(ws: &'a Workspace, d: &'a Diagnostic) -> JsonDiagnostic<'a> {
    let l = locate(ws, d);
    JsonDiagnostic {
        code: d.code(),
        // `find(code)`'s name: codes are unique.
        name: d.rule().name(),
        severity: d.severity(),
        file: crate::files::shown(l.path),
        location: Some(Position {
            line: l.line,
            column: l.col,
        }),
        end_location: Some(Position {
            line: l.end_line,
            column: l.end_col,
        }),
        message: &d.message,
        expected: d.expected.as_deref(),
        why: d.why.as_deref(),
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
            message: &f.title,
            edits: f
                .edits
                .iter()
                .map(|e| JsonEdit {
                    file: crate::files::shown(&ws.files[e.file].path),
                    start: e.range.start,
                    end: e.range.end,
                    content: &e.text,
                })
                .collect(),
        }),
    }
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
    remaining: Vec<JsonDiagnostic<'a>>,
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
                // The exact diff: the JSON string escapes what a terminal acts on.
                diff: crate::fix::diff::unified_exact(path, old, new),
            })
            .collect(),
        fixes: &o.log,
        unsafe_left: &o.unsafe_left,
        related_left: &o.related_left,
        dropped: &o.dropped,
        remaining: items(&o.final_ws, &o.remaining, problems),
    };
    crate::output::pretty::to_string(&report) + "\n"
}

#[cfg(test)]
mod tests {
    use crate::output::pretty::sample;

    /// The array written a run at a time on all threads is what the pretty
    /// serializer writes of the whole array of records ([`super::items`]),
    /// on 1 thread and on 4, and it parses back to one object a finding.
    #[test]
    fn findings_are_the_whole_pretty_array_on_any_threads() {
        let s = sample::many_findings();
        let problems = s.problems();
        let out = sample::on_1_and_4_threads(|| super::render(&s.ws, &s.diags, &problems));
        let whole = serde_json::to_string_pretty(&super::items(&s.ws, &s.diags, &problems)).unwrap() + "\n";
        assert!(out == whole, "not the whole array's bytes");
        let v: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        assert_eq!(v.len(), problems.len() + s.diags.len());
        assert_eq!(v[0]["file"], "./bad \"name\" 100%.txt");
        assert_eq!(v[0]["message"], "not UTF-8: \u{1b}[2J skipped\n");
        assert_eq!(v[1]["location"], serde_json::Value::Null);
        let last = &v[v.len() - 1];
        let d = &s.diags[s.diags.len() - 1];
        assert_eq!(last["code"], d.code());
        assert_eq!(last["file"], s.ws.files[d.file].path.to_str().unwrap());
        assert_eq!(last["message"], &*d.message);
        // Nothing, and problems alone, framed as the serializer frames them.
        assert_eq!(super::render(&s.ws, &[], &[]), "[]\n");
        let alone = serde_json::to_string_pretty(&super::items(&s.ws, &[], &problems)).unwrap() + "\n";
        assert_eq!(super::render(&s.ws, &[], &problems), alone);
        let one = serde_json::to_string_pretty(&super::items(&s.ws, &s.diags[..1], &[])).unwrap() + "\n";
        assert_eq!(super::render(&s.ws, &s.diags[..1], &[]), one);
    }
}
