//! Plain statement lines of a Python module, read without tree-sitter: a
//! line of a top-level `def`'s body that is one call of a dotted name with
//! plain arguments, or one name assigned such a call:
//!
//! ```text
//!     q1 = Gst.ElementFactory.make("queue", "queue1")
//!     q1.set_property("max-size-buffers", 4)
//!     pipeline.add(q1)
//! ```
//!
//! An app of many elements is mostly such lines, and tree-sitter's parse
//! of them was most of its check. What tree-sitter-python makes of such a
//! line is fixed: an `expression_statement` holding an `assignment` (left:
//! an `identifier`, right: the `call`) or the `call`, whose `function` is
//! an `attribute` chain of `identifier`s and whose `argument_list` holds
//! `identifier`, `string` (start, at most one plain content, end),
//! `integer`, `true` and `false` nodes. The reader (`python::parse`) takes
//! a line only where the module's cuts (`python_cuts`) start it and the
//! next line, so no bracket, string or continuation crosses it and it is
//! indented as the body; the rest of the piece is parsed by tree-sitter
//! around it. `tests/code_frontends.rs` and the front end's proptests
//! compare what the front end builds from these lines with what it builds
//! from the whole module's tree.
//!
//! Anything else is left to tree-sitter: another spelling of a value (a
//! prefix, an escape, a brace, a float, a sign, `_` in a number, a leading
//! zero), a keyword (or a name tree-sitter-python reads as one somewhere:
//! `print`, `exec`, `match`, `type`, …), a name that is not ASCII, a tab or
//! a comment on the line, keyword arguments, a trailing comma, a call of
//! `format` (a string constant's `.format()` evaluates), of a launch
//! parser (`parse_launch`) or of `set_property` on an attribute
//! (`self.sink.set_property`, which the module walk records), a target
//! that is not one name.

use std::ops::Range;

/// A plain statement line (see the module's doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plain {
    /// The statement's bytes (past the indentation, to the call's `)`).
    pub span: Range<usize>,
    /// The start of its line, and the line's row (from 0).
    pub line: usize,
    pub row: usize,
    /// The name assigned the call's value, if any.
    pub target: Option<Range<usize>>,
    /// The call's bytes.
    pub call: Range<usize>,
    /// The called dotted name's names (two or more): the object's, then
    /// the method.
    pub callee: Vec<Range<usize>>,
    pub args: Vec<Arg>,
}

/// An argument of a plain call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    pub kind: ArgKind,
    /// Its bytes (a string's with its quotes).
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A name (tree-sitter's `identifier`).
    Name,
    /// A string literal without prefix, escape, brace or line break.
    Str,
    /// A decimal integer of at most 18 digits, no leading zero.
    Int,
    True,
    False,
}

impl Arg {
    /// A string's contents (between its quotes).
    pub fn content(&self) -> Range<usize> {
        self.span.start + 1..self.span.end - 1
    }
}

impl Plain {
    /// The called object's dotted name (`Gst.ElementFactory`).
    pub fn object(&self) -> Range<usize> {
        let n = self.callee.len();
        self.callee[0].start..self.callee[n - 2].end
    }

    /// The method's name.
    pub fn method(&self) -> Range<usize> {
        self.callee[self.callee.len() - 1].clone()
    }

    /// The names the line holds (tree-sitter's `identifier` nodes), in
    /// order.
    pub fn names(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.target.iter().cloned().chain(self.callee.iter().cloned()).chain(
            self.args
                .iter()
                .filter(|a| a.kind == ArgKind::Name)
                .map(|a| a.span.clone()),
        )
    }
}

/// Names that tree-sitter-python reads as (or as part of) something other
/// than a plain identifier in some place: Python's keywords and soft
/// keywords, and the grammar's own (`print`, `exec`: Python 2 statements).
const RESERVED: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "case", "class", "continue", "def",
    "del", "elif", "else", "except", "exec", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "match", "nonlocal", "not", "or", "pass", "print", "raise", "return", "try", "type", "while", "with", "yield", "_",
];

/// The plain statement on the line starting at `line` (row `row`), and
/// the start of the next line; `None` when the line is not one (see the
/// module's doc).
pub fn read(text: &str, line: usize, row: usize) -> Option<(Plain, usize)> {
    let b = text.as_bytes();
    let mut r = Reader { b, i: line };
    while matches!(r.peek(), Some(b' ' | b'\t')) {
        r.i += 1;
    }
    let start = r.i;
    let first = r.name()?;
    r.spaces();
    let (target, head) = if r.peek() == Some(b'=') && b.get(r.i + 1) != Some(&b'=') {
        r.i += 1;
        r.spaces();
        (Some(first), r.name()?)
    } else {
        (None, first)
    };
    let mut callee = vec![head];
    while r.peek() == Some(b'.') {
        r.i += 1;
        callee.push(r.name()?);
    }
    if callee.len() < 2 {
        return None;
    }
    let method = &text[callee[callee.len() - 1].clone()];
    // `format` of a string constant evaluates; a launch parser's string is
    // read by the module walk; `set_property` on an attribute
    // (`self.sink.set_property`) may set an element another method made.
    let attribute_set = method == "set_property" && callee.len() > 2;
    if method == "format"
        || method.ends_with("parse_launch")
        || method.ends_with("parse_bin_from_description")
        || attribute_set
    {
        return None;
    }
    r.expect(b'(')?;
    r.spaces();
    let mut args = Vec::new();
    if r.peek() != Some(b')') {
        loop {
            args.push(r.arg()?);
            r.spaces();
            match r.peek()? {
                b',' => {
                    r.i += 1;
                    r.spaces();
                }
                b')' => break,
                _ => return None,
            }
        }
    }
    r.expect(b')')?;
    let end = r.i;
    r.spaces();
    if r.peek() == Some(b'\r') {
        r.i += 1;
    }
    r.expect(b'\n')?;
    Some((
        Plain {
            span: start..end,
            line,
            row,
            call: callee[0].start..end,
            target,
            callee,
            args,
        },
        r.i,
    ))
}

struct Reader<'b> {
    b: &'b [u8],
    i: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// An ASCII name that is not reserved.
    fn word(&mut self) -> Option<Range<usize>> {
        let start = self.i;
        if !self.peek().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_') {
            return None;
        }
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
            self.i += 1;
        }
        // A byte of a non-ASCII character would go on with the name.
        (self.peek().is_none_or(|c| c < 0x80)).then_some(start..self.i)
    }

    fn name(&mut self) -> Option<Range<usize>> {
        let r = self.word()?;
        let w = std::str::from_utf8(&self.b[r.clone()]).ok()?;
        (!RESERVED.contains(&w)).then_some(r)
    }

    /// An argument, followed (past spaces) by `,` or `)`.
    fn arg(&mut self) -> Option<Arg> {
        let start = self.i;
        let c = self.peek()?;
        let kind = if c == b'"' || c == b'\'' {
            self.i += 1;
            loop {
                let d = self.peek()?;
                self.i += 1;
                if d == c {
                    break;
                }
                if matches!(d, b'\\' | b'\n' | b'\r' | b'{' | b'}' | b'"' | b'\'') {
                    return None;
                }
            }
            ArgKind::Str
        } else if c.is_ascii_digit() {
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
            let digits = self.i - start;
            if digits > 18 || (c == b'0' && digits > 1) {
                return None;
            }
            ArgKind::Int
        } else {
            let w = self.word()?;
            match &self.b[w] {
                b"True" => ArgKind::True,
                b"False" => ArgKind::False,
                w if !RESERVED.iter().any(|r| r.as_bytes() == w) => ArgKind::Name,
                _ => return None,
            }
        };
        let end = self.i;
        self.spaces();
        matches!(self.peek(), Some(b',' | b')')).then_some(Arg { kind, span: start..end })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines() {
        let t = "    q1 = Gst.ElementFactory.make(\"queue\", 'q1')\nx";
        let (p, next) = read(t, 0, 0).unwrap();
        assert_eq!(next, t.len() - 1);
        assert_eq!(&t[p.span.clone()], "q1 = Gst.ElementFactory.make(\"queue\", 'q1')");
        assert_eq!(&t[p.target.clone().unwrap()], "q1");
        assert_eq!(&t[p.object()], "Gst.ElementFactory");
        assert_eq!(&t[p.method()], "make");
        assert_eq!(&t[p.call.clone()], "Gst.ElementFactory.make(\"queue\", 'q1')");
        assert_eq!(
            p.args.iter().map(|a| &t[a.content()]).collect::<Vec<_>>(),
            ["queue", "q1"]
        );
        let names: Vec<&str> = p.names().map(|r| &t[r]).collect();
        assert_eq!(names, ["q1", "Gst", "ElementFactory", "make"]);
        let t = "\tm.set_property( 'width' ,1920 ) \r\n";
        let (p, next) = read(t, 0, 0).unwrap();
        assert_eq!(next, t.len());
        assert_eq!(
            p.args.iter().map(|a| a.kind).collect::<Vec<_>>(),
            [ArgKind::Str, ArgKind::Int]
        );
        let t = "    a.link(b, True, False, 0)\n";
        let (p, _) = read(t, 0, 0).unwrap();
        let kinds: Vec<ArgKind> = p.args.iter().map(|a| a.kind).collect();
        assert_eq!(kinds, [ArgKind::Name, ArgKind::True, ArgKind::False, ArgKind::Int]);
        assert!(read("    Gst.init()\n", 0, 0).is_some());
        for not in [
            "    q = make('a')\n",
            "    q.x = a.make('a')\n",
            "    q = a.make('a') # c\n",
            "    q = a.make('a'),\n",
            "    q = a.make('a',)\n",
            "    q = a.make(k='a')\n",
            "    q = a.make(f'a')\n",
            "    q = a.make('a' 'b')\n",
            "    q = a.make('{a}')\n",
            "    q = a.make('a\\n')\n",
            "    q = a.make(\"it's\")\n",
            "    q = a.make(1.5)\n",
            "    q = a.make(-1)\n",
            "    q = a.make(1_0)\n",
            "    q = a.make(01)\n",
            "    q = a.make(1234567890123456789)\n",
            "    q = a.make(None)\n",
            "    q = a.make(x.y)\n",
            "    q = a.make(x[0])\n",
            "    q = a.make(g())\n",
            "    print = a.make()\n",
            "    q = a.print()\n",
            "    q = match.make()\n",
            "    q = a.make()",
            "    q == a.make()\n",
            "    q += a.make()\n",
            "    q = r = a.make()\n",
            "    q = a.make()\tx\n",
            "    q = a .make()\n",
            "    q = a.make ()\n",
            "    q = a.make(x)[0]\n",
            "    q = a.make(x).b\n",
            "    q = a.format(x)\n",
            "    q = Gst.parse_launch(x)\n",
            "    self.sink.set_property('sync', 0)\n",
            "    q = é.make()\n",
            "    qé = a.make()\n",
            "    q = a.make(\n",
        ] {
            assert!(read(not, 0, 0).is_none(), "{not:?}");
        }
    }
}
