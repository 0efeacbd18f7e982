//! `dslint rules`: the rule index, from the registry, as a table with a
//! header or as JSON.

use std::fmt::Write;

use serde::Serialize;

use crate::rules::registry::RuleInfo;

#[derive(Serialize)]
struct RuleRow<'a> {
    code: &'a str,
    name: &'a str,
    severity: &'a str,
    fix: &'a str,
    summary: &'a str,
}

fn row(r: &RuleInfo) -> RuleRow<'_> {
    RuleRow {
        code: r.code,
        name: r.name,
        severity: r.severity.as_str(),
        fix: r.fix,
        summary: r.summary,
    }
}

pub fn text(rules: &[RuleInfo]) -> String {
    let rows: Vec<RuleRow> = rules.iter().map(row).collect();
    let name_w = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    let fix_w = rows.iter().map(|r| r.fix.len()).max().unwrap_or(3).max(3);
    let mut out = String::new();
    let _ = writeln!(out, "code   {:<name_w$}  severity  {:<fix_w$}  summary", "name", "fix");
    for r in &rows {
        let _ = writeln!(
            out,
            "{:<5}  {:<name_w$}  {:<8}  {:<fix_w$}  {}",
            r.code, r.name, r.severity, r.fix, r.summary
        );
    }
    out
}

pub fn json(rules: &[RuleInfo]) -> String {
    let rows: Vec<RuleRow> = rules.iter().map(row).collect();
    serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n"
}
