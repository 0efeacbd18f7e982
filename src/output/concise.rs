//! `--format concise`: one line per finding, `path:line:col: CODE message`,
//! for editors (errorformat `%f:%l:%c: %m`) and grep. A problem with the
//! whole file (DS005) has no position: `path: CODE message`.

use std::fmt::Write;

use crate::base::diagnostic::Diagnostic;
use crate::model::workspace::Workspace;
use crate::output::{FileProblem, locate};

pub fn render(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> String {
    let mut out = String::new();
    for p in problems {
        let _ = writeln!(
            out,
            "{}: {} {}",
            one_line(&crate::files::shown(p.path)),
            p.code,
            one_line(p.message)
        );
    }
    for d in diags {
        let l = locate(ws, d);
        let _ = writeln!(
            out,
            "{}:{}:{}: {} {}",
            one_line(&crate::files::shown(l.path)),
            l.line,
            l.col,
            d.code(),
            one_line(&d.message)
        );
    }
    out
}

/// A message on one line, whatever it quotes, and inert on a terminal
/// (other control characters escaped too).
fn one_line(s: &str) -> String {
    crate::output::escape_controls(&s.replace('\r', "\\r").replace('\n', "\\n")).into_owned()
}
