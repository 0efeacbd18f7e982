//! GStreamer's pipeline description, the text `gst-launch-1.0` and
//! `gst_parse_launch` read: `filesrc location=a.mp4 ! h264parse ! m.sink_0
//! nvstreammux name=m batch-size=4 ! …`.
//!
//! The lexer follows GStreamer's own (`gst/parse/parse.l`, flex: the longest
//! match wins, the earlier rule on a tie): an assignment is
//! `{_identifier}{_assign}{_string}` with `_assign` = spaces, `=`, spaces
//! (so `key= value` is one assignment), a `_string` is a run of non-space
//! characters (a backslash escapes one) or a `"…"` / `'…'` string; `!` may
//! carry caps up to the next `!` (`! video/x-raw(memory:NVMM), format=NV12
//! !`); `m.sink_0` is a reference and `.sink_0` a pad reference. The
//! grammar (`gst/parse/grammar.y.in`) chains elements with links; a
//! reference after a link ends the chain; the value of an assignment loses
//! its double quotes and backslashes (`gst_parse_split_assignment`,
//! `gst_parse_unescape`).
//!
//! The text comes with a map back to the file it was read from
//! ([`Mapped`]): a shell script's words or a Python string literal. A part
//! of the text the file does not spell out (`$VAR`, `{x}` in an f-string)
//! is a placeholder character: a token holding one is unknown, never
//! guessed.

use crate::base::Span;

/// Stands for text the file does not spell out (a `$VAR`, an f-string's
/// `{x}`): a private-use character no pipeline contains.
pub const PLACEHOLDER: char = '\u{E000}';

/// The most description text one pipeline is parsed from; beyond it the
/// pipeline is not read (no real pipeline is near it).
pub const MAX_DESCRIPTION: usize = 1 << 20;

/// A pipeline description and, for each of its bytes, where it comes from.
#[derive(Debug, Clone, Default)]
pub struct Mapped {
    pub text: String,
    /// For each byte of `text`: its byte in the file, or none when the
    /// reader adds it (the space joining two arguments, a placeholder).
    pub origin: Vec<Origin>,
    /// The placeholders, in text order: where in `text`, the file bytes
    /// they stand for, and what they are (`$VAR`).
    pub unknown: Vec<(Span, Span, String)>,
    /// Offsets of `text` where one argument ends and the next begins
    /// (gst-launch joins its arguments with a space), with the file offset
    /// just after the argument's last byte: where a new word can be written.
    pub word_ends: Vec<(usize, usize)>,
    /// Whether a space inside one argument is escaped (gst-launch's
    /// `_gst_parse_escape`): then nothing can be inserted inside a word.
    pub shell_words: bool,
}

/// A byte's offset in the file, in four bytes (a file is at most
/// `files::read::MAX_FILE_BYTES`, far below 4 GiB): an 8 MiB script's
/// descriptions took 16 bytes of origins a byte (`Option<usize>`), most of
/// their reading spent in fresh pages. `NONE`: a byte the reader adds (an
/// offset that does not fit is none too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Origin(Option<std::num::NonZeroU32>);

impl Origin {
    pub const NONE: Origin = Origin(None);

    pub fn at(at: usize) -> Origin {
        Origin(
            u32::try_from(at)
                .ok()
                .and_then(|a| a.checked_add(1))
                .and_then(std::num::NonZeroU32::new),
        )
    }

    pub fn get(self) -> Option<usize> {
        self.0.map(|n| n.get() as usize - 1)
    }
}

impl Mapped {
    /// Bytes copied from the file: `s` starts at file offset `at`.
    pub fn push_verbatim(&mut self, s: &str, at: usize) {
        self.text.push_str(s);
        self.origin.extend((0..s.len()).map(|i| Origin::at(at + i)));
    }

    /// One character read from the file at `at` (an escaped one: its bytes
    /// map to the character after the backslash).
    pub fn push_char(&mut self, c: char, at: usize) {
        let start = self.text.len();
        self.text.push(c);
        self.origin
            .extend((0..self.text.len() - start).map(|i| Origin::at(at + i)));
    }

    /// Text the reader adds.
    pub fn push_synthetic(&mut self, s: &str) {
        self.text.push_str(s);
        self.origin.extend(std::iter::repeat_n(Origin::NONE, s.len()));
    }

    /// A placeholder for file bytes `source` that are not knowable.
    pub fn push_unknown(&mut self, source: Span, what: String) {
        let start = self.text.len();
        self.push_synthetic(&PLACEHOLDER.to_string());
        self.unknown.push((start..self.text.len(), source, what));
    }

    /// The file bytes `range` of the text was read from (first to last
    /// byte that has an origin).
    pub fn source_span(&self, range: &Span) -> Option<Span> {
        let origins = self.origin.get(range.clone())?;
        let first = origins.iter().find_map(|o| o.get())?;
        let last = origins.iter().rev().find_map(|o| o.get())?;
        Some(first..last + 1)
    }

    /// The file bytes of `range` when they spell it exactly (no quote,
    /// escape or placeholder in between): what an edit may replace.
    pub fn verbatim(&self, range: &Span, source: &str) -> Option<Span> {
        let span = self.source_span(range)?;
        let text = self.text.get(range.clone())?;
        (source.get(span.clone())? == text && self.origin[range.clone()].iter().all(|o| o.get().is_some()))
            .then_some(span)
    }

    /// The placeholders inside `range` (they are kept in text order).
    pub fn unknowns_at(&self, range: &Span) -> &[(Span, Span, String)] {
        let from = self.unknown.partition_point(|(at, _, _)| at.start < range.start);
        let to = self.unknown.partition_point(|(at, _, _)| at.start < range.end);
        &self.unknown[from..to.max(from)]
    }

    /// What the placeholders inside `range` stand for, if any.
    pub fn unknowns_in(&self, range: &Span) -> Vec<&str> {
        self.unknowns_at(range)
            .iter()
            .map(|(_, _, what)| what.as_str())
            .collect()
    }

    /// Where text written after `end` (an offset of `text`) lands in the
    /// file, so that the reader sees it right after that byte, as a new
    /// word: after the argument's last byte when `end` ends an argument, or
    /// right after the byte itself inside a string the reader does not
    /// escape.
    pub fn insertion_after(&self, end: usize, source: &str) -> Option<usize> {
        // Word ends are kept in text order.
        let i = self.word_ends.partition_point(|(at, _)| *at < end);
        if let Some((at, file_end)) = self.word_ends.get(i) {
            if *at == end {
                return Some(*file_end);
            }
        }
        if self.shell_words || end == 0 {
            return None;
        }
        let last = self.origin.get(end - 1)?.get()?;
        let c = self.text[..end].chars().next_back()?;
        let here = source.get(last + 1 - c.len_utf8()..)?;
        here.starts_with(c).then_some(last + 1)
    }
}

/// One `key=value` of an element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub key: String,
    pub key_span: Span,
    /// After GStreamer drops the double quotes and backslashes.
    pub value: String,
    /// The value's bytes in the text (inside the quotes when quoted).
    pub value_span: Span,
    /// The whole token.
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub factory: String,
    pub factory_span: Span,
    pub assignments: Vec<Assignment>,
    /// The end of its last token in the text.
    pub end: usize,
}

impl Element {
    /// The element's name: its last `name=`, else GStreamer's default
    /// (`<factory><n>`), given by the caller.
    pub fn name(&self) -> Option<&str> {
        self.assignments
            .iter()
            .rev()
            .find(|a| a.key == "name")
            .map(|a| a.value.as_str())
    }
}

/// One side of a link: an element of the description, or a reference to
/// one by name (`m.sink_0`, `t.`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    Element(usize),
    Ref { name: String, span: Span },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkDesc {
    pub from: End,
    pub to: End,
    /// The sink pad the link names (`sink_0`), if any.
    pub to_pad: Option<String>,
    /// Caps on the link (`! video/x-raw(memory:NVMM) !`).
    pub caps: Option<String>,
}

/// A parsed description.
#[derive(Debug, Clone, Default)]
pub struct Description {
    pub elements: Vec<Element>,
    pub links: Vec<LinkDesc>,
    /// What GStreamer would refuse (syntax errors), with where.
    pub errors: Vec<(Span, String)>,
    /// Parts that stand for elements or chains the text does not spell out
    /// (a bin, a URI element): the pipeline's structure is not all known.
    pub opaque: Vec<Span>,
}

impl Description {
    /// The text printed back from the parsed parts: factories and keys
    /// from their parsed strings, values from theirs where the text spells
    /// them as they are (else from the text), the bytes between from the
    /// text. An unedited description prints back to its text; `Err` names
    /// the part whose span and string disagree, or spans that overlap.
    pub fn render(&self, text: &str) -> Result<String, String> {
        let mut parts: Vec<(Span, &str)> = Vec::new();
        for e in &self.elements {
            parts.push((e.factory_span.clone(), &e.factory));
            for a in &e.assignments {
                parts.push((a.key_span.clone(), &a.key));
                let raw = text.get(a.value_span.clone()).ok_or("value span out of the text")?;
                parts.push((a.value_span.clone(), if raw == a.value { &a.value } else { raw }));
            }
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (span, printed) in parts {
            if span.start < at || span.end > text.len() {
                return Err(format!(
                    "part {printed:?} at {span:?} overlaps the part before it or leaves the text"
                ));
            }
            out.push_str(
                text.get(at..span.start)
                    .ok_or("a span is not on a character boundary")?,
            );
            if text.get(span.clone()) != Some(printed) {
                return Err(format!("part {printed:?} at {span:?} is not its text"));
            }
            out.push_str(printed);
            at = span.end;
        }
        out.push_str(text.get(at..).ok_or("a span is not on a character boundary")?);
        Ok(out)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Assignment(Assignment),
    Preset,
    PadRef(String),
    Ref { name: String, pad: Option<String> },
    BinRef,
    Ident(String),
    Link(Option<String>),
    Url,
    Op(u8),
    Bad,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    span: Span,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

struct Lexer<'t> {
    b: &'t [u8],
    /// For each offset: the end of the `"…"` / `'…'` string starting there
    /// (see `quoted`), computed once so that lexing stays linear.
    dq_end: Vec<Option<usize>>,
    sq_end: Vec<Option<usize>>,
}

/// For every offset holding `q`: where the quoted string opening there
/// ends, as flex matches `q([^q]|\q)*q` (longest match: through escaped
/// quotes, up to the first unescaped one, else the last escaped one).
fn quote_ends(b: &[u8], q: u8) -> Vec<Option<usize>> {
    let n = b.len();
    let mut out = vec![None; n];
    // Scan backwards: `first_close` is the end after the first unescaped
    // quote at or after a position; `last_escaped` the end after the last
    // escaped quote before it.
    let mut first_close: Option<usize> = None;
    let mut last_escaped: Option<usize> = None;
    for i in (0..n).rev() {
        if b[i] == q {
            // The string opening at i: its content starts at i + 1.
            out[i] = first_close.or(last_escaped);
            let escaped = i > 0 && b[i - 1] == b'\\';
            if escaped {
                if first_close.is_none() {
                    last_escaped = last_escaped.or(Some(i + 1));
                }
            } else {
                first_close = Some(i + 1);
                last_escaped = None;
            }
        }
    }
    // A string must have content start < its close: `out[i]` came from a
    // quote after i, as computed before updating for i itself.
    out
}

impl<'t> Lexer<'t> {
    fn new(text: &'t str) -> Self {
        let b = text.as_bytes();
        Lexer {
            b,
            dq_end: quote_ends(b, b'"'),
            sq_end: quote_ends(b, b'\''),
        }
    }

    /// The length of one identifier character at `i` (ASCII or a
    /// placeholder); `first` for the first one (`[[:alnum:]_]`).
    fn ident_char(&self, i: usize, first: bool) -> usize {
        let Some(&c) = self.b.get(i) else { return 0 };
        if c.is_ascii_alphanumeric() || c == b'_' || (!first && matches!(c, b'-' | b'%' | b':')) {
            1
        } else if self.b[i..].starts_with(PLACEHOLDER.encode_utf8(&mut [0; 4]).as_bytes()) {
            PLACEHOLDER.len_utf8()
        } else {
            0
        }
    }

    fn ident(&self, mut i: usize) -> Option<usize> {
        let n = self.ident_char(i, true);
        if n == 0 {
            return None;
        }
        i += n;
        loop {
            let n = self.ident_char(i, false);
            if n == 0 {
                return Some(i);
            }
            i += n;
        }
    }

    fn spaces(&self, mut i: usize) -> usize {
        while self.b.get(i).is_some_and(|c| is_space(*c)) {
            i += 1;
        }
        i
    }

    fn assign(&self, i: usize) -> Option<usize> {
        let j = self.spaces(i);
        (self.b.get(j) == Some(&b'=')).then(|| self.spaces(j + 1))
    }

    /// `{_char}+`: non-space bytes, a backslash escaping one byte that is
    /// not a newline.
    fn chars(&self, mut i: usize) -> usize {
        while let Some(&c) = self.b.get(i) {
            if c == b'\\' && self.b.get(i + 1).is_some_and(|n| *n != b'\n') {
                i += 2;
            } else if !is_space(c) {
                i += 1;
            } else {
                break;
            }
        }
        i
    }

    fn string(&self, i: usize) -> Option<usize> {
        let run = self.chars(i);
        let quoted = match self.b.get(i) {
            Some(b'"') => self.dq_end[i],
            Some(b'\'') => self.sq_end[i],
            _ => None,
        };
        let end = run.max(quoted.unwrap_or(0));
        (end > i).then_some(end)
    }

    fn assignment(&self, i: usize) -> Option<(usize, usize, usize)> {
        let key_end = self.ident(i)?;
        let value_start = self.assign(key_end)?;
        let end = self.string(value_start)?;
        Some((key_end, value_start, end))
    }

    fn preset(&self, i: usize) -> Option<usize> {
        if !self.b[i..].starts_with(b"@preset") {
            return None;
        }
        self.string(self.assign(i + 7)?)
    }

    fn padref(&self, i: usize) -> Option<usize> {
        (self.b.get(i) == Some(&b'.')).then(|| self.ident(i + 1)).flatten()
    }

    fn reference(&self, i: usize) -> Option<(usize, usize)> {
        let name_end = self.ident(i)?;
        (self.b.get(name_end) == Some(&b'.')).then(|| (name_end, self.ident(name_end + 1).unwrap_or(name_end + 1)))
    }

    fn binref(&self, i: usize) -> Option<usize> {
        let j = self.spaces(self.ident(i)?);
        (self.b.get(j) == Some(&b'.')).then_some(())?;
        let k = self.spaces(j + 1);
        (self.b.get(k) == Some(&b'(')).then_some(k + 1)
    }

    fn mimetype(&self, mut i: usize) -> Option<usize> {
        let mime = |c: u8| c.is_ascii_alphanumeric() || c == b'-';
        let start = i;
        while self.b.get(i).copied().is_some_and(mime) {
            i += 1;
        }
        if i == start || self.b.get(i) != Some(&b'/') {
            return None;
        }
        let after = i + 1;
        i = after;
        while self.b.get(i).copied().is_some_and(mime) {
            i += 1;
        }
        (i > after).then_some(i)
    }

    /// `{_caps}` from `i`, greedy; the offsets of the `:` it passed (each a
    /// place a shorter match may end at).
    fn caps(&self, i: usize, colons: &mut Vec<usize>) -> Option<usize> {
        let mut j = self.mimetype(i)?;
        loop {
            match self.b.get(j) {
                Some(b'\\') if self.b.get(j + 1).is_some_and(|n| *n != b'\n') => j += 2,
                Some(b',') if self.b.get(j + 1).is_some_and(|n| *n != b'!') => j += 2,
                Some(b';' | b'!') | None => return Some(j),
                Some(c) => {
                    if *c == b':' {
                        colons.push(j);
                    }
                    j += 1
                }
            }
        }
    }

    /// `_link`: `!` (or `:`), or caps between two of them. Returns the end
    /// and the caps' range.
    fn link(&self, i: usize) -> Option<(usize, Option<Span>)> {
        if !matches!(self.b.get(i), Some(b'!' | b':')) {
            return None;
        }
        let start = self.spaces(i + 1);
        let mut colons = Vec::new();
        if let Some(mut j) = self.caps(start, &mut colons) {
            loop {
                let k = self.spaces(j);
                match self.b.get(k) {
                    Some(b'!') => return Some((k + 1, Some(start..k))),
                    Some(b';') => match self.caps(self.spaces(k + 1), &mut colons) {
                        Some(e) => j = e,
                        None => break,
                    },
                    _ => break,
                }
            }
            // No closing `!`: the longest match ends at the last `:`.
            if let Some(&c) = colons.last() {
                return Some((c + 1, Some(start..c)));
            }
        }
        Some((i + 1, None))
    }

    fn url(&self, i: usize) -> Option<usize> {
        let b = self.b;
        // {_protocol}"://"{_string}? (the bare `proto://` form included)
        if b.get(i).is_some_and(u8::is_ascii_alphabetic) {
            let mut j = i + 1;
            while b
                .get(j)
                .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b',' | b'-' | b'.'))
            {
                j += 1;
            }
            if b[j..].starts_with(b"://") {
                return Some(self.string(j + 3).unwrap_or(j + 3));
            }
        }
        // ["."{_identifier}]?"/"{_string}: one optional character of that
        // bracket expression, then a slash.
        let mut j = i;
        if b.get(j).is_some_and(|c| b"\".{_identifier}".contains(c)) {
            j += 1;
        }
        if b.get(j) == Some(&b'/') {
            return self.string(j + 1);
        }
        None
    }

    fn next(&self, i: usize, text: &str) -> Token {
        // Candidates in rule order; the longest wins, the earliest on a tie.
        let mut best: Option<(usize, Tok)> = None;
        let mut offer = |end: usize, tok: &dyn Fn() -> Tok| {
            if best.as_ref().is_none_or(|(e, _)| end > *e) {
                best = Some((end, tok()));
            }
        };
        if let Some((key_end, value_start, end)) = self.assignment(i) {
            offer(end, &|| Tok::Assignment(assignment(text, i, key_end, value_start, end)));
        }
        if let Some(end) = self.preset(i) {
            offer(end, &|| Tok::Preset);
        }
        if let Some(end) = self.padref(i) {
            offer(end, &|| Tok::PadRef(text[i + 1..end].to_string()));
        }
        if let Some((name_end, end)) = self.reference(i) {
            offer(end, &|| Tok::Ref {
                name: text[i..name_end].to_string(),
                pad: (end > name_end + 1).then(|| text[name_end + 1..end].to_string()),
            });
        }
        if let Some(end) = self.binref(i) {
            offer(end, &|| Tok::BinRef);
        }
        if let Some(end) = self.ident(i) {
            offer(end, &|| Tok::Ident(text[i..end].to_string()));
        }
        if let Some((end, caps)) = self.link(i) {
            offer(end, &|| Tok::Link(caps.clone().map(|c| text[c].trim_end().to_string())));
        }
        if let Some(end) = self.url(i) {
            offer(end, &|| Tok::Url);
        }
        if b"(){}.!:,;=".contains(&self.b[i]) {
            offer(i + 1, &|| Tok::Op(self.b[i]));
        }
        let (end, tok) = best.unwrap_or_else(|| {
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            (i + len, Tok::Bad)
        });
        Token { tok, span: i..end }
    }
}

/// The parts of an assignment token.
fn assignment(text: &str, start: usize, key_end: usize, value_start: usize, end: usize) -> Assignment {
    let raw = &text[value_start..end];
    // gst_parse_split_assignment drops one pair of enclosing double quotes.
    let (inner, inner_start) = if raw.len() >= 2 && raw.starts_with('"') && raw.ends_with('"') {
        (&raw[1..raw.len() - 1], value_start + 1)
    } else {
        (raw, value_start)
    };
    Assignment {
        key: text[start..key_end].to_string(),
        key_span: start..key_end,
        value: unescape(inner),
        value_span: inner_start..inner_start + inner.len(),
        span: start..end,
    }
}

/// `gst_parse_unescape`: a backslash outside double quotes escapes the next
/// character; inside them it stays.
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_quotes = false;
    let mut prev: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && !in_quotes {
            match chars.next() {
                Some(n) => {
                    out.push(n);
                    prev = Some(n);
                }
                None => break,
            }
            continue;
        }
        if c == '"' && (!in_quotes || prev != Some('\\')) {
            in_quotes = !in_quotes;
        }
        out.push(c);
        prev = Some(c);
    }
    out
}

fn lex(text: &str) -> Vec<Token> {
    let lexer = Lexer::new(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if is_space(text.as_bytes()[i]) {
            i += 1;
            continue;
        }
        let t = lexer.next(i, text);
        i = t.span.end;
        out.push(t);
    }
    out
}

/// Parse a description (the grammar of `grammar.y.in`, with its error
/// recovery reduced to "record the error and go on").
pub fn parse(text: &str) -> Description {
    let mut d = Description::default();
    if text.len() > MAX_DESCRIPTION {
        d.errors.push((0..0, format!("over {MAX_DESCRIPTION} bytes: not read")));
        return d;
    }
    let tokens = lex(text);
    let mut p = Parser {
        d,
        last: None,
        link: None,
        to_pad: None,
        depth: 0,
    };
    let mut i = 0;
    while i < tokens.len() {
        i = p.token(&tokens, i);
    }
    if p.link.is_some() {
        p.d.errors
            .push((text.len()..text.len(), "a link with nothing after it".into()));
    }
    if p.depth > 0 {
        p.d.errors.push((text.len()..text.len(), "an unclosed bin `(`".into()));
    }
    p.d
}

struct Parser {
    d: Description,
    /// The open end of the current chain.
    last: Option<End>,
    /// A link waiting for its sink, with its caps.
    link: Option<(Span, Option<String>)>,
    /// A pad named after the link (`! .sink_0 element`).
    to_pad: Option<String>,
    depth: usize,
}

impl Parser {
    fn error(&mut self, span: &Span, msg: &str) {
        self.d.errors.push((span.clone(), msg.to_string()));
    }

    /// Join `end` to the chain: linked from the open end when a link waits,
    /// else it starts a new chain.
    fn attach(&mut self, end: End, pad: Option<String>) {
        if let Some((_, caps)) = self.link.take() {
            if let Some(from) = self.last.take() {
                self.d.links.push(LinkDesc {
                    from,
                    to: end.clone(),
                    to_pad: self.to_pad.take().or(pad),
                    caps,
                });
            }
        }
        self.to_pad = None;
        self.last = Some(end);
    }

    fn token(&mut self, tokens: &[Token], i: usize) -> usize {
        let t = &tokens[i];
        match &t.tok {
            Tok::Ident(factory) => {
                let mut e = Element {
                    factory: factory.clone(),
                    factory_span: t.span.clone(),
                    assignments: Vec::new(),
                    end: t.span.end,
                };
                let mut j = i + 1;
                while let Some(next) = tokens.get(j) {
                    match &next.tok {
                        Tok::Assignment(a) => e.assignments.push(a.clone()),
                        Tok::Preset => {}
                        _ => break,
                    }
                    e.end = next.span.end;
                    j += 1;
                }
                let id = self.d.elements.len();
                self.d.elements.push(e);
                self.attach(End::Element(id), None);
                j
            }
            Tok::Ref { name, pad } => {
                // `morepads`: `,name` after a reference adds pads.
                let mut j = i + 1;
                while matches!(tokens.get(j).map(|t| &t.tok), Some(Tok::Op(b','))) {
                    j += if matches!(tokens.get(j + 1).map(|t| &t.tok), Some(Tok::Ident(_))) {
                        2
                    } else {
                        1
                    };
                }
                let end = End::Ref {
                    name: name.clone(),
                    span: t.span.clone(),
                };
                if self.link.is_some() {
                    // A reference after a link ends the chain.
                    self.attach(end, pad.clone());
                    self.last = None;
                } else {
                    self.last = Some(end);
                }
                j
            }
            Tok::PadRef(pad) => {
                if self.link.is_some() {
                    self.to_pad = Some(pad.clone());
                }
                let mut j = i + 1;
                while matches!(tokens.get(j).map(|t| &t.tok), Some(Tok::Op(b','))) {
                    j += 2;
                }
                j
            }
            Tok::Link(caps) => {
                if self.last.is_none() {
                    self.error(&t.span, "a link with no source");
                }
                if self.link.is_some() {
                    self.error(&t.span, "two links in a row");
                }
                self.link = Some((t.span.clone(), caps.clone()));
                i + 1
            }
            Tok::Url => {
                // An element made from a URI: which one depends on the
                // installed URI handlers.
                self.d.opaque.push(t.span.clone());
                self.link = None;
                self.last = None;
                i + 1
            }
            Tok::BinRef | Tok::Op(b'(') => {
                self.d.opaque.push(t.span.clone());
                self.depth += 1;
                self.link = None;
                self.last = None;
                i + 1
            }
            Tok::Op(b')') if self.depth > 0 => {
                self.depth -= 1;
                self.link = None;
                self.last = None;
                i + 1
            }
            Tok::Assignment(_) | Tok::Preset if self.depth > 0 && self.last.is_none() => i + 1,
            _ => {
                self.error(&t.span, "syntax error");
                i + 1
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(text: &str) -> Description {
        parse(text)
    }

    #[test]
    fn elements_properties_and_links() {
        let d = desc(
            "filesrc location=\"a b.mp4\" ! qtdemux ! h264parse ! nvv4l2decoder ! m.sink_0 nvstreammux name=m batch-size= 4 live_source=1 ! nvinfer config-file-path=c\\ d.txt ! fakesink sync=0",
        );
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let f: Vec<&str> = d.elements.iter().map(|e| e.factory.as_str()).collect();
        assert_eq!(
            f,
            [
                "filesrc",
                "qtdemux",
                "h264parse",
                "nvv4l2decoder",
                "nvstreammux",
                "nvinfer",
                "fakesink"
            ]
        );
        assert_eq!(d.elements[0].assignments[0].value, "a b.mp4");
        let mux = &d.elements[4];
        assert_eq!(mux.name(), Some("m"));
        let batch = &mux.assignments[1];
        assert_eq!((batch.key.as_str(), batch.value.as_str()), ("batch-size", "4"));
        assert_eq!(d.elements[5].assignments[0].value, "c d.txt");
        assert_eq!(
            d.links[3],
            LinkDesc {
                from: End::Element(3),
                to: End::Ref {
                    name: "m".into(),
                    span: 67..75
                },
                to_pad: Some("sink_0".into()),
                caps: None
            }
        );
        // The mux starts a new chain after the reference.
        assert_eq!(d.links[4].from, End::Element(4));
        assert_eq!(d.links[4].to, End::Element(5));
        assert_eq!(d.links.len(), 6);
    }

    #[test]
    fn caps_links_and_references_before_the_element() {
        let d = desc(
            "nvstreammux name=mux batch-size=2 ! nvvideoconvert ! video/x-raw(memory:NVMM), format=RGBA ! fakesink \
             uridecodebin uri=rtsp://cam/1 ! mux.sink_0  uridecodebin uri=file:///a.mp4 ! mux.sink_1",
        );
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        assert_eq!(
            d.links[1].caps.as_deref(),
            Some("video/x-raw(memory:NVMM), format=RGBA")
        );
        let pads: Vec<Option<&str>> = d.links.iter().map(|l| l.to_pad.as_deref()).collect();
        assert_eq!(pads, [None, None, Some("sink_0"), Some("sink_1")]);
        assert_eq!(d.elements[3].assignments[0].value, "rtsp://cam/1");
    }

    #[test]
    fn tees_and_pad_names() {
        let d =
            desc("videotestsrc ! tee name=t t. ! queue ! fakesink t. ! queue max-size-buffers=2 leaky=2 ! fakesink");
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let from: Vec<&End> = d.links.iter().map(|l| &l.from).collect();
        assert!(matches!(from[1], End::Ref { name, .. } if name == "t"));
        assert_eq!(d.links.len(), 5);
    }

    #[test]
    fn quoting_and_unescaping() {
        assert_eq!(unescape("a\\ b"), "a b");
        assert_eq!(unescape("\"a\\ b\""), "\"a\\ b\"");
        let d = desc("x k='v w' j=\"q\\\"r\"");
        assert_eq!(d.elements[0].assignments[0].value, "'v w'");
        // Quotes dropped, then `\"` unescaped (gst_parse_unescape).
        assert_eq!(d.elements[0].assignments[1].value, "q\"r");
        assert_eq!(quote_ends(b"\"ab\"", b'"'), vec![Some(4), None, None, None]);
    }

    #[test]
    fn errors_are_recorded() {
        assert!(!desc("! fakesink").errors.is_empty());
        assert!(!desc("a ! ! b").errors.is_empty());
        assert!(!desc("a =").errors.is_empty());
        assert!(desc("").errors.is_empty());
    }

    #[test]
    fn placeholders_are_identifier_characters() {
        let mut m = Mapped::default();
        m.push_verbatim("nvstreammux name=m batch-size=", 0);
        m.push_unknown(30..32, "`$B`".into());
        m.push_verbatim(" ! m.sink_", 32);
        m.push_unknown(42..44, "`$i`".into());
        let d = parse(&m.text);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let b = &d.elements[0].assignments[1];
        assert_eq!(m.unknowns_in(&b.value_span), ["`$B`"]);
    }
}
