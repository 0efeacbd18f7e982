//! Each rule code fires on its `fires*` cases and stays silent on its
//! `clean*` cases (testdata/rules/CODE/…); the human output of every case is
//! a snapshot, and so is the kind each case's files were read as: a clean
//! case whose files are not recognised as configs would be silent for the
//! wrong reason.

mod support;

use std::path::Path;

use support::*;

/// `CODE/case: file=kind, …` for the configs dslint read in a case folder
/// (`-`: read, but not a DeepStream config).
fn kinds_line(dir: &Path, checked: &Checked) -> (String, usize) {
    let mut parts = Vec::new();
    let mut configs = 0;
    for f in &checked.ws.files {
        let Ok(rel) = f.path.strip_prefix(dir) else { continue };
        let kind = f.kind.map_or("-", |k| k.describe());
        configs += usize::from(f.kind.is_some());
        parts.push(format!("{}={kind}", rel.display()));
    }
    parts.sort();
    let case = dir.strip_prefix("testdata/rules").unwrap_or(dir);
    (format!("{}: {}", case.display(), parts.join(", ")), configs)
}

#[test]
fn every_rule_fires_where_it_should_and_only_there() {
    let cases = rule_cases();
    assert!(cases.len() > 80, "found only {} cases", cases.len());
    let mut failures = Vec::new();
    let mut kinds = Vec::new();
    for dir in &cases {
        let code = dir.parent().unwrap().file_name().unwrap().to_string_lossy().to_string();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let checked = check_dir(dir);
        let fired = checked.diagnostics.iter().any(|d| d.code() == code)
            || checked.ws.file_problems.iter().any(|(_, rule, _)| rule.code() == code);
        if name.starts_with("fires") && !fired {
            failures.push(format!("{code} did not fire in {}", dir.display()));
        }
        if name.starts_with("clean") && fired {
            failures.push(format!("{code} fired in {}:\n{}", dir.display(), render(&checked)));
        }
        let (line, configs) = kinds_line(dir, &checked);
        if configs == 0 {
            failures.push(format!("no file in {} was read as a DeepStream config", dir.display()));
        }
        kinds.push(line);
        insta::assert_snapshot!(format!("{code}_{name}"), render(&checked));
    }
    insta::assert_snapshot!("rule_case_kinds", kinds.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_code_in_the_rule_book_has_cases_and_a_page() {
    for r in dslint::base::rule::RULES {
        let dir = std::path::Path::new("testdata/rules").join(r.code);
        let names: Vec<String> = sorted_dir(&dir)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
            .collect();
        assert!(
            names.iter().any(|n| n.starts_with("clean")),
            "{} has no clean case",
            r.code
        );
        // A rule nothing emits yet (registered as such) can have no fires case.
        assert_eq!(
            names.iter().any(|n| n.starts_with("fires")),
            r.emitted(),
            "{}: fires cases and the registry's status disagree",
            r.code
        );
        assert!(
            r.page.starts_with(&format!("# {} `{}`", r.code, r.name)),
            "{} page heading",
            r.code
        );
        // The page says the severity and fix the registry declares.
        assert_eq!(
            r.page.lines().nth(2),
            Some(r.header().as_str()),
            "{} page header",
            r.code
        );
        for section in ["## What it checks", "## Why", "## Bad", "## Good", "## Fix"] {
            assert!(r.page.contains(section), "{} page lacks {section}", r.code);
        }
    }
}

/// The registry tells the truth about the emitters: every finding of every
/// case has a severity and a fix kind its rule declares; every rule marked
/// emitted is emitted, at every severity it declares, with every kind of fix
/// it declares; a rule marked not yet emitted is never emitted.
#[test]
fn the_registry_says_what_the_rules_do() {
    use dslint::base::edit::Applicability;
    use dslint::base::rule::{FixSpec, RULES};
    use std::collections::{BTreeMap, BTreeSet};
    let mut severities: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut fixes: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for dir in rule_cases() {
        let checked = check_dir(&dir);
        for d in &checked.diagnostics {
            let info = d.rule().info();
            if !info.severities().any(|s| s == d.severity()) {
                wrong.push(format!("{}: {} at {}", dir.display(), d.code(), d.severity().as_str()));
            }
            if let Some(f) = &d.fix {
                if !info.fix.allows(f.applicability) {
                    wrong.push(format!(
                        "{}: {} with a {} fix",
                        dir.display(),
                        d.code(),
                        f.applicability.as_str()
                    ));
                }
                fixes.entry(d.code()).or_default().insert(f.applicability.as_str());
            }
            severities.entry(d.code()).or_default().insert(d.severity().as_str());
        }
        for (_, rule, _) in &checked.ws.file_problems {
            severities
                .entry(rule.code())
                .or_default()
                .insert(rule.info().severity.as_str());
        }
    }
    for r in RULES {
        let seen = severities.get(r.code).cloned().unwrap_or_default();
        if !r.emitted() {
            if !seen.is_empty() {
                wrong.push(format!("{} is marked not yet emitted but is emitted", r.code));
            }
            continue;
        }
        for s in r.severities() {
            if !seen.contains(s.as_str()) {
                wrong.push(format!("{} declares {} but no case emits it", r.code, s.as_str()));
            }
        }
        let fixed = fixes.get(r.code).cloned().unwrap_or_default();
        let declared = match r.fix {
            FixSpec::None => vec![],
            FixSpec::Always(a) | FixSpec::Sometimes(a, _) => vec![a],
            FixSpec::SafeWhen(_) => vec![Applicability::Safe, Applicability::Unsafe],
        };
        for a in &declared {
            if !fixed.contains(a.as_str()) {
                wrong.push(format!(
                    "{} declares a {} fix but no case offers one",
                    r.code,
                    a.as_str()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A group of more entries than one task checks (`input::check_group`
/// cuts it in runs on all threads) reads as one pass: its findings in
/// entry order, a repeated key's DS004 naming the winner in a later run,
/// and "did you mean" on the first unknown keys of the file in whichever
/// run they fall.
#[test]
fn a_large_group_is_checked_as_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    // 9,000 entries after two lines: entry k is on line k + 4. The filler
    // is a localized key, which DS001–DS006 pass over.
    let special = |k: usize| match k {
        3 => Some("batch-sise=1".to_string()),
        4100 => Some("batch-siz=1".to_string()),
        4101 => Some("batch-size=2".to_string()),
        8200 => Some("batch-size=3".to_string()),
        8300 => Some("netwrk-mode=2".to_string()),
        _ => None,
    };
    let body: String = (0..9000)
        .map(|k| special(k).unwrap_or_else(|| "custom-lib-path[de]=x.so".to_string()) + "\n")
        .collect();
    std::fs::write(
        dir.path().join("pgie.txt"),
        format!("[property]\ngie-unique-id=1\nonnx-file=m.onnx\n{body}"),
    )
    .unwrap();
    let checked = check_dir(dir.path());
    let f = &checked.ws.files[0];
    let found: Vec<(&str, usize, &str, Option<&str>)> = checked
        .diagnostics
        .iter()
        .filter(|d| matches!(d.code(), "DS002" | "DS004"))
        .map(|d| (d.code(), f.position(d.span.start).0, &*d.message, d.expected.as_deref()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "DS002",
                7,
                "unknown key `batch-sise` in [property]",
                Some("did you mean `batch-size`?")
            ),
            (
                "DS002",
                4104,
                "unknown key `batch-siz` in [property]",
                Some("did you mean `batch-size`?")
            ),
            (
                "DS004",
                4105,
                "`batch-size` is set again on line 8204; this line is ignored",
                None
            ),
            (
                "DS002",
                8304,
                "unknown key `netwrk-mode` in [property]",
                Some("did you mean `network-mode`?")
            ),
        ]
    );
}
