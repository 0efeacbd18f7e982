//! Machine formats for review tools: SARIF 2.1.0 (GitHub code scanning),
//! GitHub Actions workflow commands, and reviewdog's rdjson (with safe fixes
//! as suggestions).

use serde_json::{Value, json};

use crate::base::diagnostic::{Diagnostic, Severity};
use crate::base::edit::{Applicability, Edit};
use crate::base::rule as registry;
use crate::model::workspace::Workspace;
use crate::output::fingerprint::fnv1a;
use crate::output::{FileProblem, locate};

const INFO_URI: &str = "https://github.com/dslint/dslint";

/// A path as review tools want it: relative, `/`-separated.
fn uri(p: &std::path::Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

/// Bytes a URI path keeps as they are: RFC 3986 unreserved and `/`.
const URI_PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// A SARIF `artifactLocation.uri`: a relative reference with every other
/// byte percent-encoded (`my configs/100%.txt` → `my%20configs/100%25.txt`),
/// or a `file://` URI for an absolute path.
fn sarif_uri(p: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let rel = p.strip_prefix(".").unwrap_or(p);
    let encoded = percent_encoding::percent_encode(rel.as_os_str().as_bytes(), URI_PATH).to_string();
    if rel.is_absolute() {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

/// The group/key a finding is about, for fingerprints; else the message.
fn logical_key(ws: &Workspace, d: &Diagnostic) -> String {
    let doc = &ws.files[d.file].doc;
    for g in &doc.groups {
        for e in &g.entries {
            if e.line_span.start <= d.span.start && d.span.start < e.line_span.end.max(e.line_span.start + 1) {
                return format!("{}/{}", g.name, e.key);
            }
        }
        if g.name_span.start <= d.span.start && d.span.start <= g.name_span.end {
            return g.name.clone();
        }
    }
    d.message.clone()
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// 1-based line and byte column (review tools count bytes).
fn byte_pos(ws: &Workspace, file: usize, offset: usize) -> (usize, usize) {
    // Bytes, not `str`: the offset is counted in bytes and need not sit on a
    // character boundary for that.
    let text = ws.files[file].doc.text.as_bytes();
    let before = &text[..offset.min(text.len())];
    let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    (line, before.len() - start + 1)
}

pub fn sarif(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> String {
    let rules: Vec<Value> = registry::RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": section(r.page, "## What it checks") },
                "help": { "text": r.page, "markdown": r.page },
                "helpUri": format!("{INFO_URI}/blob/main/rules/{}.md", r.code),
                "defaultConfiguration": { "level": sarif_level(r.severity) },
                "properties": { "fix": r.fix.describe() }
            })
        })
        .collect();
    let index = |code: &str| registry::RULES.iter().position(|r| r.code == code).unwrap_or(0);
    let mut results: Vec<Value> = Vec::new();
    for p in problems {
        results.push(json!({
            "ruleId": p.code,
            "ruleIndex": index(p.code),
            "level": sarif_level(p.severity),
            "message": { "text": p.message },
            "locations": [{ "physicalLocation": { "artifactLocation": { "uri": sarif_uri(p.path) } } }],
            "partialFingerprints": { "dslint/v1": fnv1a(&[p.code, &uri(p.path)]) }
        }));
    }
    for d in diags {
        let l = locate(ws, d);
        let mut text = d.message.clone();
        if let Some(e) = &d.expected {
            text.push_str(&format!(" (expected: {e})"));
        }
        let mut r = json!({
            "ruleId": d.code(),
            "ruleIndex": d.rule() as usize,
            "level": sarif_level(d.severity()),
            "message": { "text": text },
            "locations": [{ "physicalLocation": {
                "artifactLocation": { "uri": sarif_uri(l.path) },
                "region": { "startLine": l.line, "startColumn": l.col, "endLine": l.end_line, "endColumn": l.end_col.max(l.col + usize::from(l.end_line == l.line && l.end_col == l.col)) }
            }}],
            "partialFingerprints": { "dslint/v1": fnv1a(&[d.code(), &uri(l.path), &logical_key(ws, d)]) }
        });
        if let Some(fix) = &d.fix {
            let mut changes: Vec<Value> = Vec::new();
            for file in fix
                .edits
                .iter()
                .map(|e| e.file)
                .collect::<std::collections::BTreeSet<_>>()
            {
                let replacements: Vec<Value> = fix
                    .edits
                    .iter()
                    .filter(|e| e.file == file)
                    .map(|e| json!({ "deletedRegion": { "byteOffset": e.range.start, "byteLength": e.range.len() }, "insertedContent": { "text": e.text } }))
                    .collect();
                changes.push(
                    json!({ "artifactLocation": { "uri": sarif_uri(&ws.files[file].path) }, "replacements": replacements }),
                );
            }
            let safety = if fix.applicability == Applicability::Safe {
                "safe"
            } else {
                "unsafe"
            };
            r["fixes"] =
                json!([{ "description": { "text": format!("{} ({safety})", fix.title) }, "artifactChanges": changes }]);
        }
        results.push(r);
    }
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "dslint", "version": env!("CARGO_PKG_VERSION"), "informationUri": INFO_URI, "rules": rules } },
            "columnKind": "unicodeCodePoints",
            "results": results
        }]
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

fn section(page: &str, heading: &str) -> String {
    page.split(heading)
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// GitHub Actions workflow commands: annotations on the pull request.
pub fn github(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> String {
    // Workflow-command escapes, after the terminal's: the log is shown in a
    // terminal-like viewer.
    let esc_data =
        |s: &str| super::escape_controls(&s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")).into_owned();
    let esc_prop = |s: &str| esc_data(s).replace(':', "%3A").replace(',', "%2C");
    let kind = |s: Severity| match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut out = String::new();
    for p in problems {
        out.push_str(&format!(
            "::{} file={},title={}::{}\n",
            kind(p.severity),
            esc_prop(&uri(p.path)),
            p.code,
            esc_data(p.message)
        ));
    }
    for d in diags {
        let l = locate(ws, d);
        let mut msg = d.message.clone();
        if let Some(e) = &d.expected {
            msg.push_str(&format!(" (expected: {e})"));
        }
        out.push_str(&format!(
            "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            kind(d.severity()),
            esc_prop(&uri(l.path)),
            l.line,
            l.col,
            l.end_line,
            l.end_col,
            esc_prop(&format!(
                "{} {}",
                d.code(),
                registry::find(d.code()).map_or("", |r| r.name)
            )),
            esc_data(&msg)
        ));
    }
    out
}

fn rd_range(ws: &Workspace, file: usize, e: &Edit) -> Value {
    let (sl, sc) = byte_pos(ws, file, e.range.start);
    let (el, ec) = byte_pos(ws, file, e.range.end);
    json!({ "start": { "line": sl, "column": sc }, "end": { "line": el, "column": ec } })
}

/// reviewdog's rdjson; safe fixes become suggestions a bot can post.
pub fn rdjson(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> String {
    let sev = |s: Severity| match s {
        Severity::Error => "ERROR",
        Severity::Warning => "WARNING",
        Severity::Info => "INFO",
    };
    let mut items: Vec<Value> = problems
        .iter()
        .map(|p| json!({ "message": p.message, "location": { "path": uri(p.path) }, "severity": sev(p.severity), "code": { "value": p.code } }))
        .collect();
    for d in diags {
        let (sl, sc) = byte_pos(ws, d.file, d.span.start);
        let (el, ec) = byte_pos(ws, d.file, d.span.end);
        let mut item = json!({
            "message": match &d.expected { Some(e) => format!("{} (expected: {e})", d.message), None => d.message.clone() },
            "location": { "path": uri(&ws.files[d.file].path), "range": { "start": { "line": sl, "column": sc }, "end": { "line": el, "column": ec } } },
            "severity": sev(d.severity()),
            "source": { "name": "dslint" },
            "code": { "value": d.code(), "url": format!("{INFO_URI}/blob/main/rules/{}.md", d.code()) }
        });
        if let Some(fix) = d.fix.as_ref().filter(|f| f.applicability == Applicability::Safe) {
            // A suggestion applies to the finding's own file only.
            let s: Vec<Value> = fix
                .edits
                .iter()
                .filter(|e| e.file == d.file)
                .map(|e| json!({ "range": rd_range(ws, d.file, e), "text": e.text }))
                .collect();
            if !s.is_empty() {
                item["suggestions"] = Value::Array(s);
            }
        }
        items.push(item);
    }
    let doc = json!({ "source": { "name": "dslint", "url": INFO_URI }, "diagnostics": items });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}
