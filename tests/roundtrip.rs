//! Lossless documents: every file in testdata/ and ../shared/corpus prints
//! back, byte for byte, from its parsed parts (`Document::render`: names,
//! keys and values from their parsed strings, only the bytes between them
//! from the text), and every span is ordered, in bounds and on character
//! boundaries.

mod support;

use std::path::Path;

use dslint::model::detect;
use dslint::syntax::{Document, Format};
use support::*;

fn check_file(path: &Path) -> Option<()> {
    let bytes = std::fs::read(path).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let format = detect::format_for(path, &text)?;
    let doc = Document::parse(text.clone(), format);
    let printed = doc.render().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(printed == text, "{}: printed back as\n{printed}", path.display());
    let mut last_end = 0;
    for g in &doc.groups {
        for e in &g.entries {
            for span in [&e.key_span(), &e.value_span(), &e.line_span()] {
                assert!(
                    span.start <= span.end && span.end <= text.len(),
                    "{}: span {span:?}",
                    path.display()
                );
                assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            }
            assert!(
                e.line_span().start <= e.key_span().start && e.value_span().end <= e.line_span().end,
                "{}: `{}`'s line {:?} does not hold its key and value",
                path.display(),
                e.key,
                e.line_span()
            );
            if format == Format::KeyFile {
                assert!(e.line_span().start >= last_end, "{}: entries overlap", path.display());
                last_end = e.line_span().end;
            }
        }
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
    let Some(corpus) = corpus() else { return };
    let read = files_under(&corpus).iter().filter_map(|p| check_file(p)).count();
    assert!(read > 200, "only {read} corpus files read");
}
