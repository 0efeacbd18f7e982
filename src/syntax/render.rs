//! Printing a document back from its parts: the check that the lossless
//! promise holds. Group names, keys and values are printed from their parsed
//! strings at their spans; only the bytes between them (separators, comments,
//! blank lines, lines with a syntax error, nested YAML structure) come from
//! the text. An unedited document prints back to its input byte for byte;
//! where it does not, a span and its parsed string disagree, spans overlap or
//! leave a character, or (key-files) a line was dropped without a word.

use super::{Document, Format, keyfile};
use crate::base::Span;

/// One parsed part and how it prints.
struct Part<'a> {
    span: Span,
    printed: std::borrow::Cow<'a, str>,
    what: &'static str,
}

impl Document {
    /// The document printed from its parts; `Err` says which part does not
    /// agree with the bytes it claims.
    pub fn render(&self) -> Result<String, String> {
        let text = self.text.as_str();
        let mut parts: Vec<Part> = Vec::new();
        for g in &self.groups {
            parts.push(self.part(&g.name_span, self.printed_name(g)?, "group name")?);
            for e in &g.entries {
                parts.push(self.part(&e.key_span(), &e.key, "key")?);
                match &e.value {
                    Some(v) => parts.push(self.part(&e.value_span(), v, "value")?),
                    None => {
                        self.in_bounds(&e.value_span(), "nested value")?;
                        parts.push(Part {
                            span: e.value_span(),
                            printed: text[e.value_span()].into(),
                            what: "nested value",
                        });
                    }
                }
                self.in_bounds(&e.line_span(), "entry line")?;
            }
            if g.insert_at > text.len() || !text.is_char_boundary(g.insert_at) {
                return Err(format!(
                    "group `{}`: insertion point {} is not in the text",
                    g.name, g.insert_at
                ));
            }
        }
        for e in &self.errors {
            self.in_bounds(&e.span, "syntax error")?;
        }
        // Empty parts (an unnamed root group) print nothing wherever they sit.
        parts.retain(|p| !p.span.is_empty());
        parts.sort_by_key(|p| (p.span.start, p.span.end));
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for p in &parts {
            if p.span.start < at {
                return Err(format!(
                    "{} at {:?} overlaps the part before it (ending at {at})",
                    p.what, p.span
                ));
            }
            out.push_str(&text[at..p.span.start]);
            out.push_str(&p.printed);
            at = p.span.end;
        }
        out.push_str(&text[at..]);
        if self.format == Format::KeyFile {
            self.every_keyfile_line_accounted_for()?;
        }
        Ok(out)
    }

    fn in_bounds(&self, span: &Span, what: &str) -> Result<(), String> {
        let ok = span.start <= span.end
            && span.end <= self.text.len()
            && self.text.is_char_boundary(span.start)
            && self.text.is_char_boundary(span.end);
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{what} span {span:?} is not a range of characters of the {}-byte text",
                self.text.len()
            ))
        }
    }

    /// A parsed string at its span, printed the way its source writes it.
    fn part<'a>(&'a self, span: &Span, parsed: &'a str, what: &'static str) -> Result<Part<'a>, String> {
        self.in_bounds(span, what)?;
        let source = &self.text[span.clone()];
        let printed = match self.format {
            Format::KeyFile | Format::Shell | Format::Python => parsed.into(),
            Format::Yaml => yaml_source(source, parsed).map_or(source.into(), Into::into),
            Format::Protobuf => protobuf_source(source, parsed).map_or(source.into(), Into::into),
        };
        Ok(Part {
            span: span.clone(),
            printed,
            what,
        })
    }

    /// The group name as its span writes it: a protobuf message's group is
    /// named by its path, whose last field name is the one at the span.
    fn printed_name<'a>(&self, g: &'a super::Group) -> Result<&'a str, String> {
        if self.format != Format::Protobuf {
            return Ok(&g.name);
        }
        let len = g.name_span.len();
        g.name
            .len()
            .checked_sub(len)
            .and_then(|at| g.name.get(at..))
            .ok_or_else(|| {
                format!(
                    "message `{}`: its name span {:?} is longer than its path",
                    g.name, g.name_span
                )
            })
    }

    /// Key-files are line-based: every line is blank, a `#` comment, a
    /// group, an entry, or covered by a syntax error. A line that is none
    /// of them was read and dropped.
    fn every_keyfile_line_accounted_for(&self) -> Result<(), String> {
        let text = self.text.as_str();
        let entry_lines: std::collections::HashSet<usize> = self
            .groups
            .iter()
            .flat_map(|g| g.entries.iter().map(|e| e.line_span().start))
            .collect();
        let mut groups = self.groups.iter().map(|g| g.name_span.start).peekable();
        let mut errors = self.errors.iter().map(|e| e.span.clone()).peekable();
        let mut start = 0;
        for (n, line) in text.split_inclusive('\n').enumerate() {
            let end = start + line.len();
            let body = if start == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            let body = body.trim_matches(|c: char| c.is_ascii() && keyfile::is_space(c as u8));
            while groups.next_if(|&g| g < start).is_some() {}
            while errors.next_if(|e| e.end < start).is_some() {}
            let trivia = body.is_empty() || body.starts_with('#');
            let group = groups.peek().is_some_and(|&g| g < end);
            let error = errors.peek().is_some_and(|e| e.start < end.max(start + 1));
            if !(trivia || group || error || entry_lines.contains(&start)) {
                return Err(format!(
                    "line {} `{}` is neither blank, a comment, a group, an entry nor an error",
                    n + 1,
                    line.trim_end()
                ));
            }
            start = end;
        }
        Ok(())
    }
}

/// The source form of a YAML scalar whose decoded value is `parsed`, written
/// in the style of `source`, where that style has one spelling for it: a
/// one-line plain scalar is its value; a one-line quoted one is its value in
/// quotes (single quotes double inside; a double-quoted one without
/// escapes). `None` for folded, escaped or block scalars (a block scalar's
/// span is its content, without the `|`: its value ends with the line break
/// that a one-line source lacks).
fn yaml_source(source: &str, parsed: &str) -> Option<String> {
    if source.contains(['\n', '\r']) || parsed.contains(['\n', '\r']) {
        return None;
    }
    match source.chars().next() {
        Some('\'') => Some(format!("'{}'", parsed.replace('\'', "''"))),
        Some('"') if !source.contains('\\') => Some(format!("\"{parsed}\"")),
        Some('"' | '|' | '>') => None,
        _ => Some(parsed.to_string()),
    }
}

/// The source form of a protobuf scalar whose value is `parsed`: a number or
/// name is its token; one quoted string without escapes is its value in
/// its quotes. `None` where the spelling is not the value's only one
/// (escapes, adjacent strings, `- 1`).
fn protobuf_source(source: &str, parsed: &str) -> Option<String> {
    match source.chars().next() {
        Some(q @ ('"' | '\'')) => {
            let single = source.len() >= 2 && source.ends_with(q) && !source[1..source.len() - 1].contains([q, '\\']);
            single.then(|| format!("{q}{parsed}{q}"))
        }
        _ => (!source.contains(char::is_whitespace)).then(|| parsed.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use crate::syntax::{Document, Format};

    fn render(src: &str, format: Format) -> Result<String, String> {
        Document::parse(src.to_string(), format).render()
    }

    #[test]
    fn unedited_documents_print_back() {
        for src in [
            "# c\n[g]\n  k = v  \r\nk[de]=w\n;bad\n\n[h]\nx=1",
            "\u{feff}[g]\nk=é\n",
            "[g]\rk=v\r",
        ] {
            assert_eq!(render(src, Format::KeyFile).as_deref(), Ok(src));
        }
        for src in [
            "a:\n  b: 'it''s'\n  c: \"q\"\n  d: [1, 2]\n  e: |\n    x\nf: é\n",
            "a: é\nb: c: d\n",
        ] {
            assert_eq!(render(src, Format::Yaml).as_deref(), Ok(src));
        }
        for src in [
            "# c\ninfer_config {\n  unique_id: 1 # x\n  gpu_ids: [0]\n  s: \"a\\\"b\" 'c'\n  n: - 1\n}\n",
            "a: [{b: 1}, {b: 2}]\nc < d: 'é' >",
        ] {
            assert_eq!(render(src, Format::Protobuf).as_deref(), Ok(src));
        }
    }

    #[test]
    fn a_part_that_disagrees_with_its_bytes_fails() {
        let mut d = Document::parse("[g]\nkey=value\n".into(), Format::KeyFile);
        d.groups[0].entries[0].value = Some("valu".into());
        assert_eq!(d.render(), Ok("[g]\nkey=valu\n".into()));
        d.groups[0].entries[0].key_span = (4..9).into();
        assert!(d.render().unwrap_err().contains("overlaps"), "{:?}", d.render());
        let mut d = Document::parse("[g]\nk=v\nj=w\n".into(), Format::KeyFile);
        d.groups[0].entries.pop();
        assert!(d.render().unwrap_err().starts_with("line 3 `j=w`"));
        let mut d = Document::parse("a:\n  b: 1\n".into(), Format::Yaml);
        d.groups[0].entries[0].key_span = (5..9).into();
        assert!(d.render().unwrap_err().contains("overlaps"));
        let mut d = Document::parse("é: 1\n".into(), Format::Yaml);
        d.groups[0].entries[0].key_span = (0..1).into();
        assert!(d.render().unwrap_err().contains("not a range of characters"));
    }
}
