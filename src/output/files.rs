//! `--show-files`: every file the run looked at, what it was read as, and
//! what was set aside and why, sorted by path.
//!
//! ```text
//! app.txt: deepstream-app config (key-file)
//! models/pgie.txt: nvinfer config (key-file), referenced
//! labels.txt: skipped (not-a-config): read as key-file, with no groups
//! logo.yml: unreadable (DS005): file is binary (contains NUL bytes); skipped
//! ```

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;

use crate::model::workspace::Workspace;

#[derive(Serialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FileEntry {
    pub file: String,
    /// `checked`, `context` (read for the pipeline of a named file; its own
    /// findings are not reported), `skipped` or `unreadable`.
    pub status: &'static str,
    /// What it was read as (`nvinfer config`), when checked.
    pub kind: Option<&'static str>,
    /// `key-file` or `YAML`, when checked.
    pub syntax: Option<&'static str>,
    /// Found by following a reference from another config, not by the walk.
    pub referenced: bool,
    /// Why it was not checked.
    pub reason: Option<String>,
    /// Why it was skipped, machine-readable (`custom-app`, `nvinferserver`,
    /// `parallel-inference-fragment`, …: `SkipReason::code`).
    pub skip: Option<&'static str>,
}

pub fn entries(ws: &Workspace) -> Vec<FileEntry> {
    let name = |p: &Path| p.display().to_string();
    let covered = crate::context::Scope::of(ws).covered(ws);
    let mut out: Vec<FileEntry> = ws
        .files
        .iter()
        .zip(covered)
        .map(|(f, covered)| FileEntry {
            file: name(&f.path),
            status: if covered { "checked" } else { "context" },
            kind: f.kind.map(|k| k.describe()),
            syntax: Some(f.doc.format.describe()),
            referenced: !f.walked,
            reason: None,
            skip: None,
        })
        .collect();
    out.extend(ws.skipped.iter().map(|s| FileEntry {
        file: name(&s.path),
        status: "skipped",
        kind: None,
        syntax: None,
        referenced: false,
        reason: Some(s.reason.clone()),
        skip: Some(s.code.code()),
    }));
    out.extend(ws.file_problems.iter().map(|(p, rule, msg)| FileEntry {
        file: name(p),
        status: "unreadable",
        kind: None,
        syntax: None,
        referenced: false,
        reason: Some(format!("{}: {msg}", rule.code())),
        skip: None,
    }));
    out.sort();
    out
}

/// The human listing: one line a file, its name and reason with control
/// characters escaped (a file name is the repository's).
pub fn text(entries: &[FileEntry]) -> String {
    let mut out = String::new();
    for e in entries {
        let file = super::escape_controls(&e.file);
        let reason = e.reason.as_deref().map(super::escape_controls);
        let _ = match (e.kind, e.syntax, &e.reason) {
            (Some(kind), Some(syntax), _) => writeln!(
                out,
                "{file}: {kind} ({syntax}){}",
                match (e.status, e.referenced) {
                    ("context", _) => ", pipeline context (its own findings are not reported)",
                    (_, true) => ", referenced",
                    _ => "",
                }
            ),
            _ => match e.skip {
                Some(code) => writeln!(out, "{file}: skipped ({code}): {}", reason.as_deref().unwrap_or("")),
                None => writeln!(out, "{file}: {}: {}", e.status, reason.as_deref().unwrap_or("")),
            },
        };
    }
    out
}

pub fn json(entries: &[FileEntry]) -> String {
    crate::output::pretty::to_string(&entries) + "\n"
}
