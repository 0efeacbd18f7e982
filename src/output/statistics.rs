//! `--statistics`: a count per code, most frequent first, with the totals
//! and a legend for the fix column; as text or as JSON.
//!
//! ```text
//! count  code   severity  fix  name
//!     2  DS402  warning   [-]  tracker-...
//!     1  DS101  warning   [*]  streammux-batch-size
//!     3  total: 0 errors, 3 warnings, 0 info in 2 files
//! fix: [*] safe, applied by `dslint fix`; [-] unsafe, needs `dslint fix --unsafe-fixes`
//! ```

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::base::diagnostic::{Diagnostic, Severity};
use crate::base::edit::Applicability;
use crate::base::rule as registry;
use crate::output::{FileProblem, Totals};

#[derive(Serialize, Debug, PartialEq)]
pub struct CodeCount {
    pub code: &'static str,
    pub name: &'static str,
    /// The highest severity it was reported at in this run.
    pub severity: Severity,
    pub count: usize,
    /// `safe` when some finding of the code has a safe fix, else `unsafe`
    /// when some has an unsafe one, else `null`.
    pub fix: Option<Applicability>,
}

#[derive(Serialize)]
struct Statistics<'a> {
    codes: &'a [CodeCount],
    totals: &'a Totals,
}

pub fn count(diags: &[Diagnostic], problems: &[FileProblem]) -> Vec<CodeCount> {
    let mut by_code: BTreeMap<&'static str, CodeCount> = BTreeMap::new();
    let mut add = |code: &'static str, severity: Severity, fix: Option<Applicability>| {
        let e = by_code.entry(code).or_insert_with(|| CodeCount {
            code,
            name: registry::find(code).map_or("", |r| r.name),
            severity,
            count: 0,
            fix: None,
        });
        e.count += 1;
        e.severity = e.severity.max(severity);
        e.fix = e.fix.max(fix);
    };
    for d in diags {
        add(d.code(), d.severity(), d.fix.as_ref().map(|f| f.applicability));
    }
    for p in problems {
        add(p.code, p.severity, None);
    }
    let mut rows: Vec<CodeCount> = by_code.into_values().collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.code.cmp(b.code)));
    rows
}

pub fn text(rows: &[CodeCount], totals: &Totals) -> String {
    let mut out = String::new();
    if rows.is_empty() {
        let _ = writeln!(out, "No findings in {}.", crate::output::plural(totals.files, "file"));
        return out;
    }
    let _ = writeln!(out, "count  code   severity  fix  name");
    for r in rows {
        let mark = match r.fix {
            Some(Applicability::Safe) => "[*]",
            Some(Applicability::Unsafe) => "[-]",
            None => "",
        };
        let _ = writeln!(
            out,
            "{:>5}  {:<5}  {:<8}  {:<3}  {}",
            r.count,
            r.code,
            r.severity.as_str(),
            mark,
            r.name
        );
    }
    let _ = writeln!(
        out,
        "{:>5}  total: {} in {}",
        totals.findings,
        totals.by_severity(),
        crate::output::plural(totals.files, "file")
    );
    let _ = writeln!(
        out,
        "fix: [*] safe, applied by `dslint fix`; [-] unsafe, needs `dslint fix --unsafe-fixes`"
    );
    out
}

pub fn json(rows: &[CodeCount], totals: &Totals) -> String {
    crate::output::pretty::to_string(&Statistics { codes: rows, totals }) + "\n"
}
