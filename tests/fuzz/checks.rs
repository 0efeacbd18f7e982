//! Properties shared by the config-file targets.

use std::path::Path;

use dslint::base::Span;
use dslint::fix::apply::apply_to_string;
use dslint::model::workspace::Workspace;
use dslint::output::{self, human, json, machine, sarif};
use dslint::rules::context::Profile;
use dslint::syntax::{Document, Format};

/// `span` is a range of whole characters of `text`.
pub fn span_ok(text: &str, span: &Span) -> bool {
    span.start <= span.end
        && span.end <= text.len()
        && text.is_char_boundary(span.start)
        && text.is_char_boundary(span.end)
}

/// Every span a document holds, checked; then the document prints back to
/// the input from its parts.
pub fn document_is_lossless(input: &str, format: Format) -> Result<(), String> {
    let doc = Document::parse(input.to_string(), format);
    for e in &doc.errors {
        if !span_ok(input, &e.span) {
            return Err(format!("syntax error span {:?} ({})", e.span, e.message));
        }
    }
    for g in &doc.groups {
        for e in &g.entries {
            let held = e.line_span().start <= e.key_span().start && e.value_span().end <= e.line_span().end;
            if !held {
                return Err(format!(
                    "`{}`'s line {:?} does not hold its key and value",
                    e.key,
                    e.line_span()
                ));
            }
        }
    }
    let printed = doc.render()?;
    if printed != input {
        return Err(format!("printed back as {printed:?}"));
    }
    Ok(())
}

/// The whole check over one generated file (both profiles): rules, every
/// output format, and every fix applied; the fixed text must itself be a
/// lossless document. A directory that does not exist holds it, so the
/// references it writes resolve to nothing.
pub fn whole_check(input: &str, file_name: &str, format: Format) -> Result<(), String> {
    let path = Path::new("/nonexistent-dslint-fuzz").join(file_name);
    for profile in [Profile::Display, Profile::Bench] {
        let mut ws = Workspace::default();
        let Some(id) = ws.read_text(&path, input.to_string()) else {
            return Ok(());
        };
        let result = dslint::rules::check(&mut ws, None, profile);
        let problems = output::file_problems(&ws);
        let diags = &result.diagnostics;
        human::render(&ws, diags, &problems, &human::Style { color: false });
        json::render(&ws, diags, &problems);
        sarif::render(&ws, diags, &problems);
        machine::github(&ws, diags, &problems);
        machine::rdjson(&ws, diags, &problems);
        for d in diags {
            let text = &ws.files[d.file].doc.text;
            if !span_ok(text, &d.span) {
                return Err(format!("{} span {:?} in {:?}", d.code(), d.span, text));
            }
        }
        let edits = crate::support::first_pass_edits(diags, id);
        for e in &edits {
            if !span_ok(input, &e.range) {
                return Err(format!("fix edit range {:?} ({:?})", e.range, e.text));
            }
        }
        if !edits.is_empty() {
            let fixed = apply_to_string(input, &edits);
            document_is_lossless(&fixed, format).map_err(|e| format!("after fixes, {fixed:?}: {e}"))?;
        }
    }
    Ok(())
}

/// The text after one pass of every fix (bench profile, where the output
/// rules fix too); `None` when no fix applies.
pub fn fixed_text(input: &str, file_name: &str) -> Option<String> {
    let path = Path::new("/nonexistent-dslint-fuzz").join(file_name);
    let mut ws = Workspace::default();
    let id = ws.read_text(&path, input.to_string())?;
    let result = dslint::rules::check(&mut ws, None, Profile::Bench);
    let edits = crate::support::first_pass_edits(&result.diagnostics, id);
    (!edits.is_empty()).then(|| apply_to_string(input, &edits))
}
