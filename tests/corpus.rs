//! The record every precision change is judged by: dslint's findings over the
//! whole shared corpus of real public configs (`../shared/corpus`), one line
//! per finding, as the binary reports them in JSON.
//!
//! Each line: `path:line:col CODE severity [fix] message`, the path relative
//! to the corpus, `-:-` for findings about a whole file (DS005). A change to
//! this snapshot is a claim about real configs: review it line by line.

mod support;

use support::*;

/// dslint's JSON findings over the corpus.
fn findings(corpus: &std::path::Path, args: &[&str]) -> Vec<serde_json::Value> {
    let dir = corpus.to_str().unwrap();
    let mut argv = vec!["check", dir, "--format", "json", "--isolated"];
    argv.extend_from_slice(args);
    let (rc, out, err) = dslint(&argv);
    let items: Vec<serde_json::Value> = serde_json::from_str(&out).expect("JSON output");
    // Exit 1 exactly when a finding at warning or above is reported.
    let warned = items.iter().any(|d| d["severity"] != "info");
    assert_eq!(rc, i32::from(warned), "dslint exit {rc}: {err}");
    items
}

/// One finding per line, in the binary's order (file, then position).
fn listing(corpus: &std::path::Path, items: &[serde_json::Value]) -> String {
    let prefix = format!("{}/", corpus.display());
    let strip = |s: &str| s.replace(&prefix, "");
    let mut lines = Vec::new();
    for d in items {
        let pos = |k: &str| {
            d[k].as_object()
                .map_or_else(|| "-:-".to_string(), |p| format!("{}:{}", p["line"], p["column"]))
        };
        let fix = match d["fix"]["applicability"].as_str() {
            Some(a) => format!(" [{a} fix]"),
            None => String::new(),
        };
        lines.push(format!(
            "{}:{} {} {}{} {}",
            strip(d["file"].as_str().unwrap()),
            pos("location"),
            d["code"].as_str().unwrap(),
            d["severity"].as_str().unwrap(),
            fix,
            strip(d["message"].as_str().unwrap()),
        ));
    }
    lines.join("\n") + "\n"
}

/// Findings per code and severity, for the snapshot's head.
fn tally(items: &[serde_json::Value]) -> String {
    let mut counts = std::collections::BTreeMap::<(String, String), usize>::new();
    for d in items {
        let key = (
            d["code"].as_str().unwrap().to_string(),
            d["severity"].as_str().unwrap().to_string(),
        );
        *counts.entry(key).or_default() += 1;
    }
    let total: usize = counts.values().sum();
    let mut s = format!("{total} findings\n");
    for ((code, sev), n) in counts {
        s.push_str(&format!("{code} {sev} {n}\n"));
    }
    s
}

#[test]
fn corpus_findings() {
    // Absent: a failure under CI, a printed skip otherwise (support::shared).
    let Some(corpus) = corpus() else { return };
    let items = findings(&corpus, &[]);
    let text = format!("{}\n{}", tally(&items), listing(&corpus, &items));
    insta::assert_snapshot!("corpus_findings", text);
}

/// (file, code) of the findings at warning or above.
fn warned(items: &[serde_json::Value], root: &std::path::Path) -> std::collections::BTreeSet<(String, String)> {
    let prefix = format!("{}/", root.display());
    items
        .iter()
        .filter(|d| d["severity"] != "info")
        .map(|d| {
            let file = d["file"].as_str().unwrap().replace(&prefix, "");
            (file, d["code"].as_str().unwrap().to_string())
        })
        .collect()
}

/// Precision 10 over real configs: `fix --write --unsafe-fixes` on a copy
/// of the corpus, then `check`. No (file, code) at warning or above may
/// appear that was not there before, except in files DeepStream could not
/// load before the fix (DS001/DS005: refused, so their one finding hid the
/// rest).
#[test]
fn fixing_the_corpus_introduces_no_finding_at_warning_or_above() {
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("corpus");
    for f in files_under(&corpus) {
        let to = copy.join(f.strip_prefix(&corpus).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&f, &to).unwrap();
    }
    let before = findings(&copy, &[]);
    let refused: std::collections::BTreeSet<String> = warned(&before, &copy)
        .into_iter()
        .filter(|(_, code)| code == "DS001" || code == "DS005")
        .map(|(file, _)| file)
        .collect();
    let (rc, _, err) = dslint(&["fix", copy.to_str().unwrap(), "--write", "--unsafe-fixes", "--isolated"]);
    assert!(rc == 0 || rc == 1, "fix exit {rc}: {err}");
    let after = findings(&copy, &[]);
    let had = warned(&before, &copy);
    let new: Vec<String> = warned(&after, &copy)
        .into_iter()
        .filter(|(file, _)| !refused.contains(file))
        .filter(|k| !had.contains(k))
        .map(|(file, code)| format!("{file} {code}"))
        .collect();
    assert!(new.is_empty(), "findings the fix introduced:\n{}", new.join("\n"));
    // The fix did something: fewer findings at warning or above.
    assert!(
        warned(&after, &copy).len() < had.len(),
        "{} -> {}",
        had.len(),
        warned(&after, &copy).len()
    );
}

/// `check` drops each pipeline's element properties once its rules have run
/// (`rules::check_for_report`): its findings are exactly those `check_with`
/// makes with the graph kept whole, over the corpus and every rule case (on
/// both profiles), and it still finds some.
#[test]
fn check_for_report_finds_what_check_with_finds() {
    use dslint::model::workspace::Workspace;
    use dslint::rules::context::Profile;
    let mut dirs = vec![std::path::PathBuf::from("testdata/rules")];
    dirs.extend(corpus());
    for dir in &dirs {
        for profile in [Profile::Display, Profile::Bench] {
            let settings = dslint::rules::Settings::default();
            let mut kept = Workspace::load(std::slice::from_ref(dir));
            let whole = dslint::rules::check_with(&mut kept, None, profile, &settings);
            let mut dropped = Workspace::load(std::slice::from_ref(dir));
            let lean = dslint::rules::check_for_report(&mut dropped, None, profile, &settings, false);
            assert!(!whole.diagnostics.is_empty(), "{}", dir.display());
            assert_eq!(whole.pipelines.len(), lean.pipelines.len(), "{}", dir.display());
            assert_eq!(
                format!("{:?}", whole.diagnostics),
                format!("{:?}", lean.diagnostics),
                "{}",
                dir.display()
            );
            assert!(
                lean.pipelines
                    .iter()
                    .flat_map(|p| &p.elements)
                    .all(|e| e.props.is_empty()),
                "the properties are dropped"
            );
        }
    }
}
