//! Lossless documents: over every file in testdata/ and ../shared/corpus,
//! spans are ordered, in bounds and on character boundaries, the value span
//! holds the value's own bytes, and replacing every value with its own bytes
//! through the fix machinery gives back the identical file.

mod support;

use std::path::Path;

use dslint::base::edit::Edit;
use dslint::fix::apply::apply_to_string;
use dslint::model::detect;
use dslint::syntax::{Document, Format};
use support::*;

fn check_file(path: &Path) -> Option<()> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let format = detect::format_for(path, &text)?;
    let doc = Document::parse(text.clone(), format);
    assert_eq!(doc.text, text, "{}", path.display());
    let mut last_end = 0;
    let mut edits = Vec::new();
    for g in &doc.groups {
        for e in &g.entries {
            for span in [&e.key_span, &e.value_span, &e.line_span] {
                assert!(
                    span.start <= span.end && span.end <= text.len(),
                    "{}: span {span:?}",
                    path.display()
                );
                assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            }
            assert_eq!(&text[e.key_span.clone()], e.key, "{}", path.display());
            if format == Format::KeyFile {
                assert!(e.line_span.start >= last_end, "{}: entries overlap", path.display());
                last_end = e.line_span.end;
                assert_eq!(
                    Some(&text[e.value_span.clone()]),
                    e.value.as_deref(),
                    "{}",
                    path.display()
                );
            }
            edits.push(Edit {
                file: 0,
                range: e.value_span.clone(),
                text: text[e.value_span.clone()].to_string(),
            });
        }
    }
    if format == Format::KeyFile {
        assert_eq!(apply_to_string(&text, &edits), text, "{}", path.display());
    }
    Some(())
}

#[test]
fn testdata_round_trips() {
    let files = files_under(Path::new("testdata"));
    let read = files.iter().filter_map(|p| check_file(p)).count();
    assert!(read > 100, "only {read} files read");
}

#[test]
fn corpus_round_trips() {
    let Some(corpus) = corpus() else {
        eprintln!("../shared/corpus absent: skipped");
        return;
    };
    let read = files_under(&corpus).iter().filter_map(|p| check_file(p)).count();
    assert!(read > 200, "only {read} corpus files read");
}
