//! Protobuf text format (nvinferserver's config, `infer_config { … }`), read
//! as protobuf's own `TextFormat::Parser` tokenizes and parses it
//! (google/protobuf `text_format.cc`, `io/tokenizer.cc`), keeping every
//! token's byte span. nvinferserver (DS 9.1 `gstnvinferserver_impl.cpp`,
//! `GstNvInferServerImpl::start`) reads its config with
//! `TextFormat::ParseFromString` and refuses the whole file on any error.
//!
//! The grammar: `#` comments to the end of the line; a field is a name
//! followed by `: scalar`, `: [a, b]` (a repeated field), or a message
//! `{ … }` / `< … >` with an optional `:` (and for repeated messages
//! `[{…}, {…}]`); fields may end with `,` or `;`. Scalars are identifiers
//! (enum names, `true`), numbers (an optional `-`), and strings in single
//! or double quotes with C escapes, adjacent strings joined. A string may
//! not cross a line, and nesting deeper than protobuf's default recursion
//! limit (100) is refused.
//!
//! As a [`Document`]: every message is a group named by its path from the
//! top (`infer_config.backend.triton`), whose entries are its scalar fields
//! (a list is an entry without a scalar value); top-level scalars sit in the
//! group with no name, as in YAML. Which fields exist and which repeat is
//! the schema's business (`nvdsinferserver_config.proto`), not the reader's:
//! nothing here judges names.

use super::{Document, Entry, Format, Group, SyntaxError, detect_line_ending};
use crate::base::Span;
use crate::base::shared::Shared;

/// protobuf's `TextFormat::Parser` default recursion limit.
const MAX_DEPTH: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Ident,
    Number,
    Str,
    /// One punctuation character.
    Sym(u8),
}

#[derive(Debug, Clone)]
struct Token {
    kind: Tok,
    span: Span,
}

struct Lexer<'t> {
    text: &'t str,
    pos: usize,
}

impl Lexer<'_> {
    /// The next token, skipping whitespace and comments; `Ok(None)` at the
    /// end, `Err` with the span of what protobuf's tokenizer refuses.
    fn next(&mut self) -> Result<Option<Token>, SyntaxError> {
        let b = self.text.as_bytes();
        loop {
            while self.pos < b.len() && b[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.pos < b.len() && b[self.pos] == b'#' {
                while self.pos < b.len() && b[self.pos] != b'\n' {
                    self.pos += 1;
                }
                continue;
            }
            break;
        }
        let start = self.pos;
        let Some(&c) = b.get(start) else { return Ok(None) };
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            self.pos += 1;
            while self.pos < b.len() && (b[self.pos].is_ascii_alphanumeric() || b[self.pos] == b'_') {
                self.pos += 1;
            }
            Tok::Ident
        } else if c.is_ascii_digit() || (c == b'.' && b.get(start + 1).is_some_and(u8::is_ascii_digit)) {
            // Digits, `.`, letters (hex, exponents, a float's `f`) and a
            // sign right after an exponent: what protobuf's tokenizer takes
            // into one number; its value is the schema's to judge.
            self.pos += 1;
            while self.pos < b.len() {
                let d = b[self.pos];
                let signed_exponent =
                    matches!(d, b'+' | b'-') && matches!(b[self.pos - 1], b'e' | b'E') && !hex(&b[start..self.pos]);
                if d.is_ascii_alphanumeric() || d == b'.' || d == b'_' || signed_exponent {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            Tok::Number
        } else if c == b'"' || c == b'\'' {
            self.pos += 1;
            loop {
                match b.get(self.pos) {
                    None | Some(b'\n') => {
                        return Err(SyntaxError {
                            span: start..self.pos,
                            message: "unterminated string: protobuf strings end on the line they start".into(),
                        });
                    }
                    Some(b'\\') => {
                        self.pos += if b.get(self.pos + 1).is_some_and(|&n| n != b'\n') {
                            2
                        } else {
                            1
                        }
                    }
                    Some(&q) if q == c => {
                        self.pos += 1;
                        break;
                    }
                    Some(_) => self.pos += 1,
                }
            }
            Tok::Str
        } else if b"{}<>[]:,;-/.".contains(&c) {
            self.pos += 1;
            Tok::Sym(c)
        } else {
            let ch = self.text[start..].chars().next().unwrap_or('?');
            self.pos += ch.len_utf8();
            return Err(SyntaxError {
                span: start..self.pos,
                message: format!("unexpected character `{}` in protobuf text", ch.escape_default()),
            });
        };
        Ok(Some(Token {
            kind,
            span: start..self.pos,
        }))
    }
}

fn hex(number: &[u8]) -> bool {
    number.len() > 1 && number[0] == b'0' && matches!(number[1], b'x' | b'X')
}

/// A string token's contents with C escapes decoded (invalid escapes kept
/// as written; protobuf's reader would refuse them, which the schema-free
/// reader does not claim).
fn unescape(quoted: &str) -> String {
    let inner = &quoted[1..quoted.len().saturating_sub(1).max(1)];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some(o @ '0'..='7') => {
                let mut n = o.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            n = n * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(n).unwrap_or('\u{fffd}'));
            }
            Some('x') => {
                let mut n = 0;
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            n = n * 16 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(n).unwrap_or('\u{fffd}'));
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The parser: a token of lookahead, the groups built so far, and the
/// enclosing messages' paths.
struct Parser<'t> {
    text: &'t str,
    lexer: Lexer<'t>,
    peeked: Option<Token>,
    groups: Vec<Group>,
}

/// One message being read: its group, and the path its fields live under.
struct Frame {
    group: usize,
    path: String,
}

impl<'t> Parser<'t> {
    fn peek(&mut self) -> Result<Option<&Token>, SyntaxError> {
        if self.peeked.is_none() {
            self.peeked = self.lexer.next()?;
        }
        Ok(self.peeked.as_ref())
    }

    fn bump(&mut self) -> Result<Option<Token>, SyntaxError> {
        self.peek()?;
        Ok(self.peeked.take())
    }

    fn at_sym(&mut self, c: u8) -> Result<bool, SyntaxError> {
        Ok(self.peek()?.is_some_and(|t| t.kind == Tok::Sym(c)))
    }

    fn error(&self, span: Span, message: String) -> SyntaxError {
        SyntaxError { span, message }
    }

    /// An error at the next token (or the end of the text).
    fn expected(&mut self, what: &str) -> SyntaxError {
        let end = self.text.len();
        match self.peek() {
            Ok(Some(t)) => {
                let span = t.span.clone();
                let found = self.text[span.clone()].to_string();
                self.error(span, format!("expected {what}, found `{found}`"))
            }
            Ok(None) => self.error(end..end, format!("expected {what}, found the end of the file")),
            Err(e) => e,
        }
    }

    fn new_group(&mut self, path: String, name_span: Span, open: &Token) -> usize {
        self.groups.push(Group {
            name: Shared::interned(&path),
            name_span,
            entries: Vec::new(),
            insert_at: open.span.end,
            indent: Shared::interned(""),
        });
        self.groups.len() - 1
    }

    /// The fields of a message up to `close` (`None`: the top level, up to
    /// the end of the text).
    fn fields(&mut self, frame: &Frame, close: Option<u8>, depth: usize) -> Result<(), SyntaxError> {
        loop {
            let Some(t) = self.peek()?.cloned() else {
                return match close {
                    None => Ok(()),
                    Some(c) => Err(self.expected(&format!("`{}`", c as char))),
                };
            };
            if let Some(c) = close {
                if t.kind == Tok::Sym(c) {
                    return Ok(());
                }
            }
            self.field(frame, depth)?;
            if self.at_sym(b',')? || self.at_sym(b';')? {
                self.bump()?;
            }
        }
    }

    /// A field name: an identifier, or `[a.b.c]` / `[type.url/pkg.Msg]`
    /// (an extension or an `Any`'s type).
    fn name(&mut self) -> Result<(String, Span), SyntaxError> {
        let Some(t) = self.peek()?.cloned() else {
            return Err(self.expected("a field name"));
        };
        match t.kind {
            Tok::Ident => {
                self.bump()?;
                Ok((self.text[t.span.clone()].to_string(), t.span))
            }
            Tok::Sym(b'[') => {
                self.bump()?;
                loop {
                    match self.bump()? {
                        Some(Token {
                            kind: Tok::Sym(b']'),
                            span,
                        }) => {
                            let full = t.span.start..span.end;
                            return Ok((self.text[full.clone()].to_string(), full));
                        }
                        Some(Token {
                            kind: Tok::Ident | Tok::Sym(b'.' | b'/'),
                            ..
                        }) => {}
                        _ => return Err(self.error(t.span.clone(), "unterminated `[` in a field name".into())),
                    }
                }
            }
            _ => Err(self.expected("a field name")),
        }
    }

    fn field(&mut self, frame: &Frame, depth: usize) -> Result<(), SyntaxError> {
        let (name, name_span) = self.name()?;
        let colon = self.at_sym(b':')?;
        if colon {
            self.bump()?;
        }
        let path = if frame.path.is_empty() {
            name.clone()
        } else {
            format!("{}.{name}", frame.path)
        };
        if self.at_sym(b'{')? || self.at_sym(b'<')? {
            return self.message(&path, name_span, depth);
        }
        if self.at_sym(b'[')? {
            return self.list(frame, &path, &name, name_span, depth);
        }
        if !colon {
            return Err(self.expected("`:`, `{` or `[` after a field name"));
        }
        let (value, value_span) = self.scalar()?;
        self.entry(frame, name, name_span, Some(value), value_span, 0);
        Ok(())
    }

    /// A message value: `{ … }` or `< … >`, a group of its own.
    fn message(&mut self, path: &str, name_span: Span, depth: usize) -> Result<(), SyntaxError> {
        let Some(open) = self.bump()? else {
            return Err(self.expected("`{`"));
        };
        if depth >= MAX_DEPTH {
            return Err(self.error(
                open.span.clone(),
                format!("messages nested deeper than {MAX_DEPTH}: protobuf's reader stops there"),
            ));
        }
        let close = if open.kind == Tok::Sym(b'<') { b'>' } else { b'}' };
        let group = self.new_group(path.to_string(), name_span, &open);
        let frame = Frame {
            group,
            path: path.to_string(),
        };
        self.fields(&frame, Some(close), depth + 1)?;
        let Some(end) = self.bump()? else {
            return Err(self.expected(&format!("`{}`", close as char)));
        };
        self.close_group(group, &open, &end);
        Ok(())
    }

    /// `[a, b]` of scalars (one entry with no scalar value) or of messages
    /// (a group each; the second and later have an empty name span, since
    /// they share the name).
    fn list(
        &mut self,
        frame: &Frame,
        path: &str,
        name: &str,
        name_span: Span,
        depth: usize,
    ) -> Result<(), SyntaxError> {
        let Some(open) = self.bump()? else {
            return Err(self.expected("`[`"));
        };
        let mut items = 0;
        let mut shared_name = Some(name_span.clone());
        while !self.at_sym(b']')? {
            if items > 0 {
                if !self.at_sym(b',')? {
                    return Err(self.expected("`,` or `]` in a list"));
                }
                self.bump()?;
            }
            if self.at_sym(b'{')? || self.at_sym(b'<')? {
                let at = self.peek()?.map_or(0, |t| t.span.start);
                let span = shared_name.take().unwrap_or(at..at);
                self.message(path, span, depth)?;
            } else {
                self.scalar()?;
            }
            items += 1;
        }
        let Some(end) = self.bump()? else {
            return Err(self.expected("`]`"));
        };
        if shared_name.is_some() {
            // A list of scalars (or an empty one): one entry.
            self.entry(
                frame,
                name.to_string(),
                name_span,
                None,
                open.span.start..end.span.end,
                items,
            );
        }
        Ok(())
    }

    /// A scalar: `-`? then a number or identifier, or adjacent strings.
    fn scalar(&mut self) -> Result<(String, Span), SyntaxError> {
        let Some(t) = self.peek()?.cloned() else {
            return Err(self.expected("a value"));
        };
        match t.kind {
            Tok::Sym(b'-') => {
                self.bump()?;
                match self.peek()?.cloned() {
                    Some(
                        n @ Token {
                            kind: Tok::Number | Tok::Ident,
                            ..
                        },
                    ) => {
                        self.bump()?;
                        Ok((format!("-{}", &self.text[n.span.clone()]), t.span.start..n.span.end))
                    }
                    _ => Err(self.expected("a number after `-`")),
                }
            }
            Tok::Number | Tok::Ident => {
                self.bump()?;
                Ok((self.text[t.span.clone()].to_string(), t.span))
            }
            Tok::Str => {
                let mut value = String::new();
                let mut end = t.span.end;
                while let Some(s) = self.peek()?.cloned().filter(|s| s.kind == Tok::Str) {
                    self.bump()?;
                    value.push_str(&unescape(&self.text[s.span.clone()]));
                    end = s.span.end;
                }
                Ok((value, t.span.start..end))
            }
            Tok::Sym(_) => Err(self.expected("a value")),
        }
    }

    fn entry(
        &mut self,
        frame: &Frame,
        key: String,
        key_span: Span,
        value: Option<String>,
        value_span: Span,
        children: usize,
    ) {
        let line_span = line_start(self.text, key_span.start)..line_end(self.text, value_span.end.max(key_span.end));
        let group = &mut self.groups[frame.group];
        group.insert_at = group.insert_at.max(line_span.end);
        group.entries.push(Entry::plain(
            &key,
            key_span,
            value.as_deref(),
            value_span,
            line_span,
            children,
        ));
    }

    /// Where a message's new fields go: before its closing brace, on a line
    /// of their own when the brace has one, else inline; indented like its
    /// first field (or two more than the brace).
    fn close_group(&mut self, group: usize, open: &Token, end: &Token) {
        let text = self.text;
        let close_line = line_start(text, end.span.start);
        let brace_alone = text[close_line..end.span.start].trim().is_empty() && close_line > open.span.end;
        let g = &mut self.groups[group];
        g.insert_at = if brace_alone { close_line } else { end.span.start };
        g.indent = match g.entries.first() {
            Some(e) => {
                let lead = &text[line_start(text, e.spans.key().start)..e.spans.key().start];
                if lead.trim().is_empty() {
                    Shared::interned(lead)
                } else {
                    Shared::interned("  ")
                }
            }
            None => {
                let open_line = line_start(text, open.span.start);
                let lead = &text[open_line..];
                let lead = &lead[..lead.len() - lead.trim_start_matches([' ', '\t']).len()];
                Shared::interned(&format!("{lead}  "))
            }
        };
    }
}

fn line_start(text: &str, offset: usize) -> usize {
    let offset = text.floor_char_boundary(offset);
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

fn line_end(text: &str, offset: usize) -> usize {
    let offset = text.floor_char_boundary(offset);
    text[offset..].find('\n').map_or(text.len(), |i| offset + i + 1)
}

pub fn parse(text: String) -> Document {
    let has_bom = text.starts_with('\u{feff}');
    let line_ending = detect_line_ending(&text);
    let mut errors = Vec::new();
    let groups = {
        let start = if has_bom { 3 } else { 0 };
        let mut p = Parser {
            text: &text,
            lexer: Lexer {
                text: &text,
                pos: start,
            },
            peeked: None,
            groups: vec![Group {
                name: Shared::interned(""),
                name_span: 0..0,
                entries: Vec::new(),
                insert_at: text.len(),
                indent: Shared::interned(""),
            }],
        };
        if has_bom {
            errors.push(SyntaxError {
                span: 0..3,
                message: "the file starts with a UTF-8 byte-order mark, which protobuf's text reader rejects".into(),
            });
        } else {
            let root = Frame {
                group: 0,
                path: String::new(),
            };
            if let Err(e) = p.fields(&root, None, 0) {
                errors.push(e);
            }
        }
        let mut groups = p.groups;
        groups[0].insert_at = text.len();
        if groups[0].entries.is_empty() {
            groups.remove(0);
        }
        groups
    };
    Document::new(text, Format::Protobuf, groups, errors, has_bom, line_ending)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(src: &str) -> Document {
        parse(src.to_string())
    }

    #[test]
    fn messages_are_groups_by_path_and_scalars_their_entries() {
        let src = "# c\ninfer_config {\n  unique_id: 3 # id\n  gpu_ids: [0]\n  max_batch_size: 8\n  backend {\n    triton { model_name: \"peo\" \"ple\" version: -1 }\n  }\n  postprocess { labelfile_path: 'a\\'b.txt'; }\n}\ninput_control: { interval: 2, process_mode: PROCESS_MODE_FULL_FRAME }\n";
        let d = doc(src);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let names: Vec<&str> = d.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "infer_config",
                "infer_config.backend",
                "infer_config.backend.triton",
                "infer_config.postprocess",
                "input_control"
            ]
        );
        let b = d.get("infer_config", "max_batch_size").unwrap();
        assert_eq!(b.value.as_deref(), Some("8"));
        assert_eq!(&src[b.spans.value()], "8");
        assert_eq!(&src[b.spans.line()], "  max_batch_size: 8\n");
        let gpus = d.get("infer_config", "gpu_ids").unwrap();
        assert_eq!((gpus.value.clone(), gpus.children()), (None, 1));
        assert_eq!(&src[gpus.spans.value()], "[0]");
        let m = d.get("infer_config.backend.triton", "model_name").unwrap();
        assert_eq!(m.value.as_deref(), Some("people"));
        assert_eq!(&src[m.spans.value()], "\"peo\" \"ple\"");
        let v = d.get("infer_config.backend.triton", "version").unwrap();
        assert_eq!(v.value.as_deref(), Some("-1"));
        let l = d.get("infer_config.postprocess", "labelfile_path").unwrap();
        assert_eq!(l.value.as_deref(), Some("a'b.txt"));
        assert_eq!(d.get("input_control", "interval").unwrap().value.as_deref(), Some("2"));
        let g = d.last_group("infer_config").unwrap();
        assert_eq!(&src[g.name_span.clone()], "infer_config");
        assert_eq!(
            &src[g.insert_at..],
            "}\ninput_control: { interval: 2, process_mode: PROCESS_MODE_FULL_FRAME }\n"
        );
        assert_eq!(g.indent, "  ");
        let inline = d.last_group("input_control").unwrap();
        assert_eq!(&src[inline.insert_at..inline.insert_at + 1], "}");
    }

    #[test]
    fn lists_of_messages_are_a_group_each() {
        let src = "backend {\n  outputs: [\n    {name: \"a\"},\n    {name: \"b\"}\n  ]\n  inputs [ { name: \"x\" dims: [3, 4] } ]\n}\n";
        let d = doc(src);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let outs: Vec<&Group> = d.groups_named("backend.outputs").collect();
        assert_eq!(outs.len(), 2);
        assert_eq!(&src[outs[0].name_span.clone()], "outputs");
        assert!(outs[1].name_span.is_empty());
        assert_eq!(outs[1].entries[0].value.as_deref(), Some("b"));
        assert_eq!(d.get("backend.inputs", "dims").unwrap().children(), 2);
        assert_eq!(d.render().as_deref(), Ok(src));
    }

    #[test]
    fn what_protobuf_refuses_is_one_error() {
        for (src, at) in [
            ("a { b: 1\n", "the end of the file"),
            ("a: \"open\nb: 1\n", "unterminated string"),
            ("a { b 1 }\n", "`1`"),
            ("a: 1 }\n", "`}`"),
            ("a: @\n", "unexpected character `@`"),
            ("a: [1 2]\n", "`,` or `]`"),
            ("a: -\n", "a number after `-`"),
            ("\u{feff}a: 1\n", "byte-order mark"),
        ] {
            let d = doc(src);
            assert_eq!(d.errors.len(), 1, "{src:?}");
            assert!(d.errors[0].message.contains(at), "{src:?}: {}", d.errors[0].message);
        }
        let deep = "a {".repeat(MAX_DEPTH + 1) + &"}".repeat(MAX_DEPTH + 1);
        assert!(doc(&deep).errors[0].message.contains("deeper than 100"));
        let ok = "a {".repeat(MAX_DEPTH) + &"}".repeat(MAX_DEPTH);
        assert!(doc(&ok).errors.is_empty());
    }

    #[test]
    fn numbers_strings_and_names_as_protobuf_tokenizes_them() {
        let src = "a: 1.5e-3 b: 0x1F c: .5f d: -inf e: \"\\x41\\101\\n\" [ext.field]: 1 [type.googleapis.com/x.Y] { z: 1 } f < g: 2 >\n";
        let d = doc(src);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let v = |k: &str| d.get("", k).and_then(|e| e.value.clone());
        assert_eq!(v("a").as_deref(), Some("1.5e-3"));
        assert_eq!(v("b").as_deref(), Some("0x1F"));
        assert_eq!(v("c").as_deref(), Some(".5f"));
        assert_eq!(v("d").as_deref(), Some("-inf"));
        assert_eq!(v("e").as_deref(), Some("AA\n"));
        assert_eq!(v("[ext.field]").as_deref(), Some("1"));
        assert_eq!(d.get("f", "g").unwrap().value.as_deref(), Some("2"));
        assert!(d.has_group("[type.googleapis.com/x.Y]"));
    }
}
