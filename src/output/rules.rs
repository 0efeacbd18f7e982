//! `dslint rules`: the rule index from the registry (`base::rule`), with
//! the severity each profile reports a rule at, its fix, and whether
//! anything emits it yet; as a table with a header, or as JSON.

use std::fmt::Write;

use serde::Serialize;

use crate::base::rule::{RuleInfo, Status, When};

#[derive(Serialize)]
struct RuleRow {
    code: &'static str,
    name: &'static str,
    /// The severity in each profile.
    display: &'static str,
    bench: &'static str,
    /// Other situations that change the severity: "error for config files".
    also: Vec<String>,
    fix: String,
    /// `null` when emitted; else why not yet.
    not_emitted: Option<&'static str>,
    summary: &'static str,
}

fn row(r: &RuleInfo) -> RuleRow {
    let bench = r
        .also
        .iter()
        .find(|(w, _)| *w == When::BenchProfile)
        .map_or(r.severity, |(_, s)| *s);
    RuleRow {
        code: r.code,
        name: r.name,
        display: r.severity.as_str(),
        bench: bench.as_str(),
        also: r
            .also
            .iter()
            .filter(|(w, _)| *w != When::BenchProfile)
            .map(|(w, s)| format!("{} {}", s.as_str(), w.phrase()))
            .collect(),
        fix: r.fix.describe(),
        not_emitted: match r.status {
            Status::Emitted => None,
            Status::NotYetEmitted(why) => Some(why),
        },
        summary: r.summary,
    }
}

/// ```text
/// code   name                  display  bench    fix   summary
/// DS101  streammux-batch-size  warning  warning  safe  streammux batch-size is not final_batch (error when …)
/// ```
pub fn text(rules: &[RuleInfo]) -> String {
    let rows: Vec<RuleRow> = rules.iter().map(row).collect();
    let name_w = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max("name".len());
    let fix_w = rows.iter().map(|r| r.fix.len()).max().unwrap_or(0).max("fix".len());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "code   {:<name_w$}  display  bench    {:<fix_w$}  summary",
        "name", "fix"
    );
    for r in &rows {
        let mut notes: Vec<String> = r.also.clone();
        if let Some(why) = r.not_emitted {
            notes.push(format!("not emitted yet: {why}"));
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        };
        let _ = writeln!(
            out,
            "{:<5}  {:<name_w$}  {:<7}  {:<7}  {:<fix_w$}  {}{notes}",
            r.code, r.name, r.display, r.bench, r.fix, r.summary
        );
    }
    out
}

pub fn json(rules: &[RuleInfo]) -> String {
    let rows: Vec<RuleRow> = rules.iter().map(row).collect();
    crate::output::pretty::to_string(&rows) + "\n"
}
