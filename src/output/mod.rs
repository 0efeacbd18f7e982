//! Rendering findings: human (with the source line and a caret) and JSON.

pub mod fingerprint;
pub mod human;
pub mod json;
pub mod machine;

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

/// A problem outside any parsed file (DS005).
pub struct FileProblem<'a> {
    pub path: &'a Path,
    pub code: &'static str,
    pub severity: Severity,
    pub message: &'a str,
}

pub fn file_problems(ws: &Workspace) -> Vec<FileProblem<'_>> {
    ws.file_problems
        .iter()
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
