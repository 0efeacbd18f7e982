//! A kept key's value (Service Maker's `deepstream:`, `yaml::KEPT_KEYS`)
//! read line by line without the parser, when its lines are only the
//! simplest block forms. An 8 MiB pipeline is one such key: granit-parser
//! read it on one thread at ~15 MB/s, three quarters of the file's check.
//! Every line of the value is one of
//!
//! - `key: value` or `key:` at its map's column (`yaml_plain`'s keys and
//!   values, or a value quoted on its line with nothing to unescape:
//!   real pipelines quote their paths; a `key:` is followed by a more indented map or sequence, or by
//!   a sequence at the key's own column: YAML's indentless sequence);
//! - `- value`, `- key: value` or `- key:` at its sequence's column (one
//!   space after the dash; an item map's later keys two columns in);
//! - blank, or a comment alone (any indentation).
//!
//! Anything else (a null, a flow collection, a quote, an anchor, a tag, a
//! line at a column no open collection has, nesting past [`MAX_DEPTH`]…)
//! and the value is not plain: the parser reads the piece, as before.
//!
//! Spans are the parser's (checked against it in `yaml`'s tests): a map
//! starts at its first key; a sequence at its first dash, or, indentless,
//! at its first item's content; a node ends where its last child does (as
//! `yaml_tree::Builder` makes it); the group's entry of a nested value
//! ends at the next token after it (where the parser's end event is: the
//! next key, the next top-level line, or the piece's end).

use std::borrow::Cow;

use super::Entry;
use super::yaml::{self, make_entry};
use super::yaml_plain::{key_at, value_at};
use super::yaml_tree::Node;
use crate::base::Span;

/// The deepest collection read here (the parser and `yaml_tree` go far
/// deeper; no pipeline nests near this).
const MAX_DEPTH: usize = 24;

/// A kept key's value, read plain: its tree, its group's entries (as
/// `yaml::read_group` makes them) and where the next top-level line starts
/// (or the piece's end).
pub(super) struct KeptBlock {
    pub(super) tree: Node,
    pub(super) entries: Vec<Entry>,
    pub(super) next_line: usize,
}

/// The value of the kept key whose `key:` line ends at `line` (the start
/// of the next line) in the piece ending at `to`; `None` unless every line
/// up to the next top-level line is plain (module doc) and the value is a
/// block map.
pub(super) fn read(text: &str, line: usize, to: usize) -> Option<KeptBlock> {
    let mut lines = Lines::new(text, line, to);
    if lines.done() || lines.lead == 0 || lines.dash() {
        return None;
    }
    let tree = lines.map(lines.lead, 1)?;
    // The block ends at a top-level line or the piece's end, never at a
    // column between.
    if !lines.done() && lines.lead != 0 {
        return None;
    }
    let after_block = lines.token();
    let pairs = tree.pairs();
    let entries = pairs
        .iter()
        .enumerate()
        .map(|(i, (k, v))| {
            let (Node::Scalar(key, key_span), value) = (k, v) else {
                unreachable!("a plain map's keys are scalars")
            };
            let value = match value {
                Node::Scalar(v, s) => yaml::Node::Scalar(Cow::Borrowed(v.as_str()), s.clone()),
                // The parser's end event of a nested value is at the next
                // token: the next key, or what follows the block.
                nested => {
                    let end = pairs.get(i + 1).map_or(after_block, |(k, _)| k.span().start);
                    let count = nested.pairs().len() + nested.items().len();
                    yaml::Node::Complex(nested.span().start..end, count)
                }
            };
            make_entry(text, key, key_span.clone(), value)
        })
        .collect();
    Some(KeptBlock {
        tree,
        entries,
        next_line: lines.at,
    })
}

/// The content lines of a piece (blank and comment lines passed over):
/// the current one's start, its body's end and its indentation.
struct Lines<'t> {
    text: &'t str,
    to: usize,
    /// The current content line's start (`to` once there is none).
    at: usize,
    end: usize,
    lead: usize,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str, from: usize, to: usize) -> Lines<'t> {
        let mut lines = Lines {
            text,
            to,
            at: from,
            end: from,
            lead: 0,
        };
        lines.find(from);
        lines
    }

    /// Move to the first content line at or after `from`.
    fn find(&mut self, mut from: usize) {
        let bytes = self.text.as_bytes();
        while from < self.to {
            let end = memchr::memchr(b'\n', &bytes[from..self.to]).map_or(self.to, |i| from + i);
            let body = &bytes[from..end];
            let lead = body.iter().take_while(|&&b| b == b' ').count();
            if lead < body.len() && body[lead] != b'#' {
                (self.at, self.end, self.lead) = (from, end, lead);
                return;
            }
            from = end + 1;
        }
        (self.at, self.end, self.lead) = (self.to, self.to, 0);
    }

    fn advance(&mut self) {
        self.find(self.end + 1);
    }

    fn done(&self) -> bool {
        self.at >= self.to
    }

    fn body(&self) -> &'t [u8] {
        &self.text.as_bytes()[self.at..self.end]
    }

    /// Where the next token is: the current line's content, or the end.
    fn token(&self) -> usize {
        if self.done() { self.to } else { self.at + self.lead }
    }

    /// Whether the current line is a sequence entry: `- ` and content.
    fn dash(&self) -> bool {
        let body = self.body();
        body.get(self.lead) == Some(&b'-')
            && body.get(self.lead + 1) == Some(&b' ')
            && body.get(self.lead + 2).is_some_and(|&b| b != b' ')
    }

    /// A block map whose first key is at column `col` of the current line
    /// (after a dash, for an item map), its later keys on lines at `col`.
    fn map(&mut self, col: usize, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.at + col;
        let mut pairs = Vec::new();
        loop {
            let body = self.body();
            let (key, after) = key_at(self.text, body, self.at, col)?;
            let key = Node::Scalar(key.to_string(), self.at + col..self.at + after - 1);
            let value = if after == body.len() {
                self.advance();
                self.nested(col, depth + 1)?
            } else {
                let (value, span) = scalar_at(self.text, body, after, self.at)?;
                self.advance();
                Node::Scalar(value.to_string(), span)
            };
            pairs.push((key, value));
            if self.done() || self.lead < col {
                break;
            }
            // A more indented line here continues a scalar or is an
            // error; a dash here is no key.
            if self.lead > col || self.dash() {
                return None;
            }
        }
        let end = pairs.last().map_or(start, |(_, v)| v.span().end);
        // Most maps hold one to three pairs: a vector grown by pushing
        // holds room for four (+50 MiB of an 8 MiB pipeline's peak).
        pairs.shrink_to_fit();
        Some(Node::Map(pairs, start..end))
    }

    /// The value of a `key:` at column `col`, on the lines after it: a
    /// map or sequence further in, or a sequence at `col` itself.
    fn nested(&mut self, col: usize, depth: usize) -> Option<Node> {
        if self.done() || self.lead < col {
            return None;
        }
        match (self.lead > col, self.dash()) {
            (true, true) => self.seq(self.lead, false, depth),
            (true, false) => self.map(self.lead, depth),
            (false, true) => self.seq(col, true, depth),
            (false, false) => None,
        }
    }

    /// A block sequence whose dashes are at column `col`.
    fn seq(&mut self, col: usize, indentless: bool, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.at + col + if indentless { 2 } else { 0 };
        let mut items = Vec::new();
        loop {
            let body = self.body();
            let item = if key_at(self.text, body, self.at, col + 2).is_some() {
                self.map(col + 2, depth + 1)?
            } else {
                let (value, span) = scalar_at(self.text, body, col + 1, self.at)?;
                self.advance();
                Node::Scalar(value.to_string(), span)
            };
            items.push(item);
            if self.done() || self.lead < col {
                break;
            }
            if self.lead > col {
                return None;
            }
            if !self.dash() {
                // A key at the sequence's column: the map around an
                // indentless sequence goes on (any other map refuses it).
                break;
            }
        }
        let end = items.last().map_or(start, |n| n.span().end);
        items.shrink_to_fit();
        Some(Node::Seq(items, start..end))
    }
}

/// The scalar after a key's `:` (or a dash) at `after` of a line's `body`
/// (at `line` in `text`): a plain one (`yaml_plain::value_at`), or one
/// quoted on its line with nothing to unescape (no backslash in double quotes,
/// no `''` in single ones), then only spaces and a comment. Its value is
/// what is inside the quotes; its span holds them, as the parser's does.
fn scalar_at<'a>(text: &'a str, body: &[u8], after: usize, line: usize) -> Option<(&'a str, Span)> {
    if let Some(plain) = value_at(text, body, after, line) {
        return Some(plain);
    }
    if body.get(after) != Some(&b' ') {
        return None;
    }
    let open = after + body[after..].iter().take_while(|&&b| b == b' ').count();
    let quote = *body.get(open)?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let close = open + 1 + memchr::memchr(quote, &body[open + 1..])?;
    if quote == b'"' && body[open + 1..close].contains(&b'\\') {
        return None;
    }
    // After the closing quote: spaces, then the end or a comment after
    // one (a quote right after it is an escaped `''`: refused here).
    let rest = &body[close + 1..];
    let blanks = rest.iter().take_while(|&&b| b == b' ').count();
    match rest.get(blanks) {
        None => {}
        Some(b'#') if blanks > 0 => {}
        Some(_) => return None,
    }
    Some((&text[line + open + 1..line + close], line + open..line + close + 1))
}
