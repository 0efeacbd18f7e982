//! YAML documents as groups of spanned entries, read from granit-parser's
//! event stream (exact byte spans for every scalar). The top-level map's keys
//! are groups; the scalars one level below are entries. Deeper structure is
//! kept as an entry without a scalar value. Nothing is re-serialised: edits
//! are made on the spans.

use granit_parser::{Event, Parser, ScanError, Span as YSpan};

use super::{Document, Entry, Format, Group, SyntaxError, detect_line_ending};
use crate::base::Span;

pub(super) type Events<'a> = std::iter::Peekable<Parser<'a, granit_parser::StrInput<'a>>>;

/// NvMultiObjectTracker files begin with OpenCV's `%YAML:1.0` directive,
/// which YAML 1.2 parsers reject and DeepStream accepts. It is masked (same
/// length, so every offset stays) before parsing.
pub(super) fn mask_opencv_directive(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line.starts_with("%YAML:") {
            out.push('#');
            out.push_str(&line[1..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

fn offsets(span: &YSpan) -> Span {
    let s = span.start.byte_offset().unwrap_or(0);
    let e = span.end.byte_offset().unwrap_or(s);
    s..e.max(s)
}

pub(super) enum Node {
    Scalar(String, Span),
    /// A sequence or map: its span and how many direct items it has.
    Complex(Span, usize),
}

pub(super) fn next(events: &mut Events) -> Result<Option<(Event<'static>, Span)>, ScanError> {
    match events.next() {
        None => Ok(None),
        Some(Err(e)) => Err(e),
        Some(Ok((ev, span))) => {
            let span = offsets(&span);
            let owned = match ev {
                Event::Scalar(v, style, a, _) => Event::Scalar(v.into_owned().into(), style, a, None),
                Event::MappingStart(s, a, _) => Event::MappingStart(s, a, None),
                Event::SequenceStart(s, a, _) => Event::SequenceStart(s, a, None),
                Event::MappingEnd => Event::MappingEnd,
                Event::SequenceEnd => Event::SequenceEnd,
                Event::Alias(a) => Event::Alias(a),
                Event::StreamStart => Event::StreamStart,
                Event::StreamEnd => Event::StreamEnd,
                Event::DocumentStart(b, _) => Event::DocumentStart(b, None),
                Event::DocumentEnd => Event::DocumentEnd,
                _ => return next(events),
            };
            Ok(Some((owned, span)))
        }
    }
}

/// Read one node whose first event has been taken; returns it with the
/// span of everything it covers.
fn node(events: &mut Events, first: Event<'static>, span: Span) -> Result<Node, ScanError> {
    match first {
        Event::Scalar(v, ..) => Ok(Node::Scalar(v.into_owned(), span)),
        Event::MappingStart(..) | Event::SequenceStart(..) => {
            let is_map = matches!(first, Event::MappingStart(..));
            let mut depth = 1;
            let mut end = span.end;
            let mut nodes_at_top = 0;
            while depth > 0 {
                let Some((ev, s)) = next(events)? else { break };
                end = end.max(s.end);
                if depth == 1 && !matches!(ev, Event::MappingEnd | Event::SequenceEnd) {
                    nodes_at_top += 1;
                }
                match ev {
                    Event::MappingStart(..) | Event::SequenceStart(..) => depth += 1,
                    Event::MappingEnd | Event::SequenceEnd => depth -= 1,
                    _ => {}
                }
            }
            let items = if is_map { nodes_at_top / 2 } else { nodes_at_top };
            Ok(Node::Complex(span.start..end, items))
        }
        _ => Ok(Node::Complex(span, 0)),
    }
}

/// The end of the line holding byte `offset` (after its `\n`). Offsets
/// here come from the parser's markers and from arithmetic on spans, so they
/// are brought down to a character boundary before any slicing.
fn line_end_after(text: &str, offset: usize) -> usize {
    let offset = text.floor_char_boundary(offset);
    text[offset..].find('\n').map_or(text.len(), |i| offset + i + 1)
}

/// The start of the line holding byte `offset`.
fn line_start_before(text: &str, offset: usize) -> usize {
    let offset = text.floor_char_boundary(offset);
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

pub fn parse(text: String) -> Document {
    let masked = mask_opencv_directive(&text);
    let mut groups = Vec::new();
    let mut errors = Vec::new();
    if let Err(e) = walk(&masked, &mut groups) {
        let at = text.floor_char_boundary(e.marker().byte_offset().unwrap_or(0));
        let end = line_end_after(&text, at).max(at);
        let end = if end > at && text.as_bytes()[end - 1] == b'\n' {
            end - 1
        } else {
            end
        };
        errors.push(SyntaxError {
            span: at..end,
            message: format!("YAML syntax error: {}", e.info()),
        });
    }
    let has_bom = text.starts_with('\u{feff}');
    let line_ending = detect_line_ending(&text);
    Document::new(text, Format::Yaml, groups, errors, has_bom, line_ending)
}

fn walk(text: &str, groups: &mut Vec<Group>) -> Result<(), ScanError> {
    let mut events: Events = Parser::new_from_str(text).peekable();
    // StreamStart, DocumentStart, then the root node (first document only).
    let root = loop {
        match next(&mut events)? {
            None => return Ok(()),
            Some((Event::StreamStart, _)) | Some((Event::DocumentStart(..), _)) => continue,
            Some((Event::MappingStart(..), _)) => break true,
            Some(_) => break false,
        }
    };
    if !root {
        return Ok(());
    }
    let mut root_group: Option<usize> = groups.iter().position(|g| g.name.is_empty());
    loop {
        // Key, value, key, value, … until the root map ends.
        let Some((ev, span)) = next(&mut events)? else {
            return Ok(());
        };
        if matches!(ev, Event::MappingEnd) {
            return Ok(());
        }
        let key = match node(&mut events, ev, span.clone())? {
            Node::Scalar(k, s) => Some((k, s)),
            Node::Complex(..) => None,
        };
        let Some((vev, vspan)) = next(&mut events)? else {
            return Ok(());
        };
        let Some((name, name_span)) = key else {
            node(&mut events, vev, vspan)?;
            continue;
        };
        match vev {
            Event::MappingStart(..) => {
                let group = read_group(text, &mut events, name, name_span)?;
                groups.push(group);
            }
            other => {
                let value = node(&mut events, other, vspan)?;
                let insert_at = line_end_after(text, name_span.end);
                let entry = make_entry(text, name.clone(), name_span.clone(), value);
                // A top-level scalar lives in the unnamed root group (found
                // once, not searched for at every scalar).
                match root_group {
                    Some(i) => {
                        let g: &mut Group = &mut groups[i];
                        g.insert_at = entry.line_span.end;
                        g.entries.push(entry);
                    }
                    None => {
                        root_group = Some(groups.len());
                        groups.push(Group {
                            name: String::new(),
                            name_span: 0..0,
                            insert_at,
                            indent: String::new(),
                            entries: vec![entry],
                        });
                    }
                }
            }
        }
    }
}

pub(super) fn make_entry(text: &str, key: String, key_span: Span, value: Node) -> Entry {
    let (value, value_span, children) = match value {
        Node::Scalar(v, s) => (Some(v), s, 0),
        Node::Complex(s, n) => (None, s, n),
    };
    let end = value_span.end.max(key_span.end);
    // The line of the value's last byte (a block scalar's span ends after
    // its last line break, which must not pull in the next line).
    let line_span =
        line_start_before(text, key_span.start)..line_end_after(text, end.saturating_sub(1).max(key_span.end));
    Entry::plain(key, key_span, value, value_span, line_span, children)
}

fn read_group(text: &str, events: &mut Events, name: String, name_span: Span) -> Result<Group, ScanError> {
    let mut entries = Vec::new();
    while let Some((ev, span)) = next(events)? {
        if matches!(ev, Event::MappingEnd) {
            break;
        }
        let key = node(events, ev, span)?;
        let Some((vev, vspan)) = next(events)? else { break };
        let value = node(events, vev, vspan)?;
        if let Node::Scalar(k, ks) = key {
            entries.push(make_entry(text, k, ks, value));
        }
    }
    let insert_at = entries
        .last()
        .map_or_else(|| line_end_after(text, name_span.end), |e: &Entry| e.line_span.end);
    let indent = entries
        .first()
        .map(|e| {
            let start = line_start_before(text, e.key_span.start);
            let lead = &text[start..e.key_span.start];
            if lead.chars().all(|c| c == ' ' || c == '\t') {
                lead.to_string()
            } else {
                "  ".to_string()
            }
        })
        .unwrap_or_else(|| "  ".to_string());
    Ok(Group {
        name,
        name_span,
        entries,
        insert_at,
        indent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_entries_and_spans() {
        let src = "%YAML:1.0\n# c\nstreammux:\n  batch-size: 4 # four\n  name: \"x y\"\n  list: [1, 2]\nproperty:\n  gpu-id: 0\n";
        let d = parse(src.to_string());
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        assert_eq!(d.group_names(), vec!["streammux", "property"]);
        let b = d.get("streammux", "batch-size").unwrap();
        assert_eq!(&src[b.value_span.clone()], "4");
        let n = d.get("streammux", "name").unwrap();
        assert_eq!(n.value.as_deref(), Some("x y"));
        assert_eq!(&src[n.value_span.clone()], "\"x y\"");
        assert!(d.get("streammux", "list").unwrap().value.is_none());
        assert_eq!(d.get("streammux", "list").unwrap().children, 2);
        let g = d.last_group("streammux").unwrap();
        assert_eq!(g.indent, "  ");
        assert_eq!(&src[g.insert_at..g.insert_at + 9], "property:");
    }

    #[test]
    fn syntax_error_has_a_position() {
        let d = parse("a:\n  b: [1, 2\nc: 3\n".to_string());
        assert_eq!(d.errors.len(), 1);
    }
}
