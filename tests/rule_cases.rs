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
        let fired = checked.diagnostics.iter().any(|d| d.code == code)
            || checked.ws.file_problems.iter().any(|(_, c, _, _)| *c == code);
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
    for r in dslint::rules::registry::RULES {
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
        // DS501-DS503 need formats with explicit queues (not read yet).
        if !["DS501", "DS502", "DS503"].contains(&r.code) {
            assert!(
                names.iter().any(|n| n.starts_with("fires")),
                "{} has no fires case",
                r.code
            );
        }
        assert!(
            r.page.starts_with(&format!("# {} `{}`", r.code, r.name)),
            "{} page heading",
            r.code
        );
        for section in ["## What it checks", "## Why", "## Bad", "## Good", "## Fix"] {
            assert!(r.page.contains(section), "{} page lacks {section}", r.code);
        }
    }
}
