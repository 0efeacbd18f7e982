//! Python modules, read with tree-sitter-python (a maintained grammar with a
//! byte span on every node; a module with a syntax error still parses
//! around it). This module evaluates what a front end needs from the tree
//! without running anything: string expressions as the text they make
//! (mapped to the file, with placeholders for what they interpolate) and
//! literals.

use tree_sitter::{Node, Parser, Tree};

use crate::syntax::SyntaxError;
use crate::syntax::launch::Mapped;

/// A module is parsed only when its indentation is within CPython's own
/// limit (`MAXINDENT` in CPython's tokenizer: "too many levels of
/// indentation"): tree-sitter-python's scanner keeps the indentation stack
/// in a fixed buffer and aborts the process past ~500 levels.
pub fn parse_tree(text: &str) -> Option<Tree> {
    if too_deep(text).is_some() {
        return None;
    }
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
    parser.parse(text, None)
}

/// CPython refuses this many nested indentation levels.
pub const MAX_INDENT_LEVELS: usize = 100;

/// Where the module's indentation first nests deeper than CPython allows,
/// as a syntax error. Lines inside brackets and strings count too, so this
/// may only ever overcount levels (a module with 100 strictly deepening
/// continuation lines is not read).
pub fn too_deep(text: &str) -> Option<SyntaxError> {
    let mut stack: Vec<usize> = vec![0];
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let mut col = 0;
        let mut rest = "";
        for (i, c) in line.char_indices() {
            match c {
                ' ' => col += 1,
                '\t' => col = (col / 8 + 1) * 8,
                '\x0c' => col = 0,
                _ => {
                    rest = &line[i..];
                    break;
                }
            }
        }
        if rest.trim().is_empty() || rest.starts_with('#') {
            continue;
        }
        while stack.last().is_some_and(|&top| col < top) {
            stack.pop();
        }
        if stack.last().is_none_or(|&top| col > top) {
            stack.push(col);
        }
        // The stack holds column 0 under the levels.
        if stack.len() > MAX_INDENT_LEVELS {
            return Some(SyntaxError {
                span: start..start + line.trim_end().len(),
                message: format!(
                    "indentation nested {MAX_INDENT_LEVELS} levels deep: Python refuses the module (too many levels of indentation); not read"
                ),
            });
        }
    }
    None
}

/// The text of a node.
pub fn text<'t>(n: Node, src: &'t str) -> &'t str {
    src.get(n.byte_range()).unwrap_or("")
}

/// How deep a string expression may refer to constants (`A = B + "x"`).
const MAX_DEPTH: usize = 8;

/// A string expression as the text it evaluates to: string literals
/// (implicitly concatenated or joined with `+`), `%` formatting and
/// `.format()` with their fields as placeholders, f-strings with their
/// interpolations as placeholders, and names `constant` resolves to
/// another expression. `None`: not a string the file spells out.
pub fn string<'t>(n: Node<'t>, src: &str, constant: &dyn Fn(&str) -> Option<Node<'t>>) -> Option<Mapped> {
    let mut m = Mapped::default();
    eval(n, src, constant, &mut m, 0)?;
    Some(m)
}

fn eval<'t>(
    n: Node<'t>,
    src: &str,
    constant: &dyn Fn(&str) -> Option<Node<'t>>,
    m: &mut Mapped,
    depth: usize,
) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    match n.kind() {
        "string" => literal(n, src, m),
        "concatenated_string" => {
            let mut c = n.walk();
            for s in n.named_children(&mut c) {
                eval(s, src, constant, m, depth + 1)?;
            }
            Some(())
        }
        "parenthesized_expression" => eval(n.named_child(0)?, src, constant, m, depth + 1),
        "identifier" => eval(constant(text(n, src))?, src, constant, m, depth + 1),
        "binary_operator" => {
            let op = n.child_by_field_name("operator")?;
            let left = n.child_by_field_name("left")?;
            match text(op, src) {
                "+" => {
                    eval(left, src, constant, m, depth + 1)?;
                    eval(n.child_by_field_name("right")?, src, constant, m, depth + 1)
                }
                "%" => {
                    let mut inner = Mapped::default();
                    eval(left, src, constant, &mut inner, depth + 1)?;
                    fields(&inner, m, percent_field);
                    Some(())
                }
                _ => None,
            }
        }
        "call" => {
            // "…".format(…)
            let f = n.child_by_field_name("function")?;
            if f.kind() != "attribute" || text(f.child_by_field_name("attribute")?, src) != "format" {
                return None;
            }
            let mut inner = Mapped::default();
            eval(f.child_by_field_name("object")?, src, constant, &mut inner, depth + 1)?;
            fields(&inner, m, brace_field);
            Some(())
        }
        _ => None,
    }
}

/// Copy `inner` into `m`, each format field (as `field` finds them: its
/// length, or `Some(0)` for an escaped delimiter that reads as one
/// character) a placeholder.
fn fields(inner: &Mapped, m: &mut Mapped, field: fn(&str) -> Option<usize>) {
    let t = &inner.text;
    let mut i = 0;
    while i < t.len() {
        let rest = &t[i..];
        match field(rest) {
            Some(0) => {
                // `%%` or `{{`: one literal character.
                copy(inner, m, i + 1..i + 2);
                i += 2;
            }
            Some(len) => {
                let span = inner.source_span(&(i..i + len)).unwrap_or(0..0);
                m.push_unknown(span, format!("`{}` (a format field)", &rest[..len]));
                i += len;
            }
            None => {
                let len = rest.chars().next().map_or(1, char::len_utf8);
                copy(inner, m, i..i + len);
                i += len;
            }
        }
    }
}

/// Copy bytes `r` of `from`, with the placeholders among them.
fn copy(from: &Mapped, to: &mut Mapped, r: std::ops::Range<usize>) {
    let shift = to.text.len();
    for (at, source, what) in from.unknowns_at(&r) {
        to.unknown.push((
            at.start - r.start + shift..at.end - r.start + shift,
            source.clone(),
            what.clone(),
        ));
    }
    to.text.push_str(&from.text[r.clone()]);
    to.origin.extend_from_slice(&from.origin[r]);
}

/// A `%` conversion at the start of `s` (`%d`, `%5.2f`, `%(name)s`).
fn percent_field(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.first() != Some(&b'%') {
        return None;
    }
    if b.get(1) == Some(&b'%') {
        return Some(0);
    }
    let mut i = 1;
    if b.get(i) == Some(&b'(') {
        // A mapping key is short; looking further would make a string of
        // `%(` quadratic.
        i += s[i..].bytes().take(FIELD_MAX).position(|c| c == b')')? + 1;
    }
    while b.get(i).is_some_and(|c| b"#0- +*.0123456789hlL".contains(c)) {
        i += 1;
    }
    b.get(i)
        .is_some_and(|c| b"diouxXeEfFgGcrsa".contains(c))
        .then_some(i + 1)
}

/// A `{…}` replacement field at the start of `s` (`{{` is a brace).
fn brace_field(s: &str) -> Option<usize> {
    if s.starts_with("{{") || s.starts_with("}}") {
        return Some(0);
    }
    if !s.starts_with('{') {
        return None;
    }
    s.bytes().take(FIELD_MAX).position(|c| c == b'}').map(|i| i + 1)
}

/// The longest format field looked for (`%(name)s`, `{name!r:>10}`).
const FIELD_MAX: usize = 256;

/// One string literal (`"…"`, `'…'`, triple-quoted, `r`/`f`/`u` prefixes;
/// bytes are not text).
fn literal(n: Node, src: &str, m: &mut Mapped) -> Option<()> {
    let start = n.child(0).filter(|c| c.kind() == "string_start")?;
    let end = n
        .child(n.child_count().checked_sub(1)?)
        .filter(|c| c.kind() == "string_end")?;
    let prefix = text(start, src).trim_end_matches(['"', '\'']).to_ascii_lowercase();
    if prefix.contains('b') {
        return None;
    }
    let raw = prefix.contains('r');
    let mut pos = start.end_byte();
    let mut c = n.walk();
    for part in n.named_children(&mut c) {
        match part.kind() {
            "string_content" => {
                let mut cc = part.walk();
                for inner in part.named_children(&mut cc) {
                    plain(src, pos, inner.start_byte(), raw, m);
                    if inner.kind() == "escape_sequence" && !raw {
                        escape(text(inner, src), inner.start_byte(), m);
                    } else if inner.kind() == "escape_interpolation" {
                        // `{{` in an f-string: one brace.
                        m.push_char(text(inner, src).chars().next()?, inner.start_byte());
                    } else {
                        plain(src, inner.start_byte(), inner.end_byte(), true, m);
                    }
                    pos = inner.end_byte();
                }
                plain(src, pos, part.end_byte(), raw, m);
                pos = part.end_byte();
            }
            "interpolation" => {
                m.push_unknown(part.byte_range(), format!("`{}`", text(part, src)));
                pos = part.end_byte();
            }
            "escape_interpolation" => {
                // `{{` in an f-string: one brace.
                m.push_char(text(part, src).chars().next()?, part.start_byte());
                pos = part.end_byte();
            }
            _ => {}
        }
    }
    plain(src, pos, end.start_byte(), raw, m);
    Some(())
}

/// Literal characters between `from` and `to`; outside a raw string a
/// backslash escape tree-sitter did not mark is still decoded.
fn plain(src: &str, from: usize, to: usize, raw: bool, m: &mut Mapped) {
    if to <= from {
        return;
    }
    let s = &src[from..to];
    if raw || !s.contains('\\') {
        m.push_verbatim(s, from);
        return;
    }
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c == '\\' {
            if let Some(&(j, n)) = it.peek() {
                it.next();
                escape(&s[i..j + n.len_utf8()], from + i, m);
                continue;
            }
        }
        m.push_char(c, from + i);
    }
}

/// A backslash escape: the character it stands for, mapped to the escape.
fn escape(esc: &str, at: usize, m: &mut Mapped) {
    let body = &esc[1..];
    let c = match body.chars().next() {
        Some('\n') => return,
        Some('n') => '\n',
        Some('t') => '\t',
        Some('r') => '\r',
        Some('\\') => '\\',
        Some('\'') => '\'',
        Some('"') => '"',
        Some('a') => '\u{7}',
        Some('b') => '\u{8}',
        Some('f') => '\u{c}',
        Some('v') => '\u{b}',
        Some('x' | 'u' | 'U') => match u32::from_str_radix(&body[1..], 16).ok().and_then(char::from_u32) {
            Some(c) => c,
            None => {
                m.push_unknown(at..at + esc.len(), format!("`{esc}`"));
                return;
            }
        },
        Some(d) if d.is_digit(8) => match u32::from_str_radix(body, 8).ok().and_then(char::from_u32) {
            Some(c) => c,
            None => return,
        },
        _ => {
            // An unknown escape keeps its backslash.
            m.push_verbatim(esc, at);
            return;
        }
    };
    m.push_char(c, at);
}

/// An integer literal's value (`1_000`, `0x10`, `-3`, `(-(4))`). Signs and
/// parentheses are unwrapped in a loop: a hostile `- - - … 1` must not
/// exhaust the stack.
pub fn int(mut n: Node, src: &str) -> Option<i64> {
    let mut negative = false;
    loop {
        match n.kind() {
            "unary_operator" if text(n.child(0)?, src) == "-" => {
                negative = !negative;
                n = n.child_by_field_name("argument")?;
            }
            "parenthesized_expression" => n = n.named_child(0)?,
            "integer" => break,
            _ => return None,
        }
    }
    let t = text(n, src).replace('_', "");
    let lower = t.to_ascii_lowercase();
    let v: i64 = if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()?
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()?
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()?
    } else {
        t.parse().ok()?
    };
    if negative { v.checked_neg() } else { Some(v) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::launch::PLACEHOLDER;

    fn first_expr<'t>(tree: &'t Tree) -> Node<'t> {
        // module > expression_statement > assignment > right
        let stmt = tree.root_node().named_child(0).unwrap();
        let a = stmt.named_child(0).unwrap();
        a.child_by_field_name("right").unwrap()
    }

    fn eval_str(src: &str) -> Option<Mapped> {
        let tree = parse_tree(src).unwrap();
        string(first_expr(&tree), src, &|_| None)
    }

    #[test]
    fn strings_evaluate_with_placeholders() {
        let p = PLACEHOLDER;
        let m = eval_str("s = \"a \" 'b\\tc' + f\"d{x}e{{\"\n").unwrap();
        assert_eq!(m.text, format!("a b\tcd{p}e{{"));
        let m = eval_str("s = \"sink_%u batch=%d %%\" % (i, n)\n").unwrap();
        assert_eq!(m.text, format!("sink_{p} batch={p} %"));
        let m = eval_str("s = \"uri={} n={{}}\".format(u)\n").unwrap();
        assert_eq!(m.text, format!("uri={p} n={{}}"));
        let m = eval_str("s = r\"a\\ b\"\n").unwrap();
        assert_eq!(m.text, "a\\ b");
        assert!(eval_str("s = b\"x\"\n").is_none());
        assert!(eval_str("s = name\n").is_none());
        // Verbatim bytes keep their place in the file.
        let src = "s = \"nvstreammux batch-size=4\"\n";
        let m = eval_str(src).unwrap();
        let at = m.text.find('4').unwrap();
        assert_eq!(
            m.verbatim(&(at..at + 1), src),
            Some(src.find('4').unwrap()..src.find('4').unwrap() + 1)
        );
    }

    #[test]
    fn integers() {
        let src = "a = -1_000\n";
        let tree = parse_tree(src).unwrap();
        assert_eq!(int(first_expr(&tree), src), Some(-1000));
        let src = "a = 0x10\n";
        let tree = parse_tree(src).unwrap();
        assert_eq!(int(first_expr(&tree), src), Some(16));
    }
}
