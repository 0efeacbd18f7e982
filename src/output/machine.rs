//! Machine formats for review tools: GitHub Actions workflow commands and
//! reviewdog's rdjson (with safe fixes as suggestions). SARIF is in
//! `sarif`.

use serde_json::{Value, json};

use crate::base::diagnostic::{Diagnostic, Severity};
use crate::base::edit::{Applicability, Edit};
use crate::base::rule as registry;
use crate::model::workspace::Workspace;
use crate::output::{FileProblem, locate};

pub(crate) const INFO_URI: &str = "https://github.com/dslint/dslint";

/// A path as review tools want it: relative, without a leading `./`. A
/// `\` is a character of the name, as on every system dslint runs on, not
/// a separator (`a\b.txt` is not `a/b.txt`).
pub(crate) fn uri(p: &std::path::Path) -> String {
    let s = p.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

/// 1-based line and byte column (review tools count bytes).
fn byte_pos(ws: &Workspace, file: usize, offset: usize) -> (usize, usize) {
    ws.files[file].byte_position(offset)
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
        let mut msg = d.message.to_string();
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
            "message": match &d.expected { Some(e) => format!("{} (expected: {e})", d.message), None => d.message.to_string() },
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
    crate::output::pretty::to_string(&doc) + "\n"
}
