//! Where a Python module can be cut into pieces that each parse alone as
//! they parse in the whole module: the starts of logical lines that begin a
//! statement of the module's top level, or of the body of a top-level `def`
//! whose body starts on its own line (an app's `def main():` is most of
//! the app). A piece that starts inside such a body is parsed with the
//! `def`'s header line(s) before it (tree-sitter's included ranges), so
//! its statements sit in a function body at the same indentation as in the
//! whole module.
//!
//! Why a piece parses as its part of the whole: Python's grammar makes a
//! module a sequence of statements and a body a sequence of statements at
//! one indentation; which statement a line starts depends only on what
//! the tokenizer carries across the line break, and at a cut that is
//! nothing but the indentation stack: no open bracket, string or
//! backslash continuation (tracked here), the line is not a blank or
//! comment line, it is indented exactly as the top level (nothing) or as
//! the `def`'s first body line (the same bytes: the same column whatever
//! the tab width), it does not continue the statement before it (`else`,
//! `elif`, `except`, `finally`) and does not follow a decorator. The
//! stack there is `[0]` or `[0, body]`, as it is after the header in the
//! piece: every line of the body so far was indented by the body's
//! indentation and maybe more (the scan stops at a line that is not: a
//! dedent to no level is read differently by different tokenizers). The reader (`python::parse`) also checks that every piece parses
//! without an error and starts where its cut says, and parses the whole
//! module otherwise.
//!
//! The scan only ever gives up cuts: past anything it does not follow (an
//! f-string replacement field holding a quote, comment, backslash or line
//! break; a string prefix it does not know; a bracket closed more than
//! opened; an unterminated string; a backslash outside a string that does
//! not end a line) it cuts no more. A module with a form feed, a NUL or a
//! carriage return that does not end a line is not cut at all.

use std::ops::Range;

/// A place a module can be cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// A line start (neither 0 nor the text's length).
    pub at: usize,
    /// The header of the top-level `def` whose body the line continues
    /// (from the `def` line's start to the start of the line after it);
    /// `None` at the top level.
    pub header: Option<Range<usize>>,
}

/// The places `text` can be cut, in order.
pub fn cuts(text: &str) -> Vec<Cut> {
    let b = text.as_bytes();
    let stray_cr = b
        .iter()
        .enumerate()
        .any(|(i, &c)| c == b'\r' && b.get(i + 1) != Some(&b'\n'));
    if stray_cr || b.iter().any(|&c| c == b'\x0c' || c == 0) {
        return Vec::new();
    }
    let mut scan = Scan {
        b,
        i: 0,
        cuts: Vec::new(),
    };
    // `None`: the scan stopped following the module.
    let _ = scan.run();
    scan.cuts
}

struct Scan<'t> {
    b: &'t [u8],
    i: usize,
    cuts: Vec<Cut>,
}

/// A top-level `def` whose body is being read.
struct Def {
    header: Range<usize>,
    /// The indentation of its first body line.
    indent: Option<Range<usize>>,
}

/// Bytes that continue an identifier (any byte of a non-ASCII character
/// may be part of one).
fn ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// Whether `s` starts with the keyword `word` (not a longer name).
fn starts_with_word(s: &[u8], word: &str) -> bool {
    s.starts_with(word.as_bytes()) && !s.get(word.len()).copied().is_some_and(ident_byte)
}

impl Scan<'_> {
    fn run(&mut self) -> Option<()> {
        let b = self.b;
        let mut def: Option<Def> = None;
        let mut after_decorator = false;
        while self.i < b.len() {
            let start = self.i;
            let mut j = start;
            while matches!(b.get(j), Some(b' ' | b'\t')) {
                j += 1;
            }
            match b.get(j) {
                None => break,
                Some(b'\n') => {
                    self.i = j + 1;
                    continue;
                }
                Some(b'\r') => {
                    // `\r\n` (a stray `\r` was refused above).
                    self.i = j + 2;
                    continue;
                }
                Some(b'#') => {
                    self.i = line_end(b, j);
                    continue;
                }
                Some(b'\\') => return None,
                _ => {}
            }
            let first = &b[j..];
            let top = j == start;
            if top {
                def = None;
            }
            let header = if top {
                Some(None)
            } else {
                match &mut def {
                    Some(d) => match &d.indent {
                        None => {
                            // The body's first line: it sets the indentation.
                            d.indent = Some(start..j);
                            None
                        }
                        Some(r) if b[r.clone()] == b[start..j] => Some(Some(d.header.clone())),
                        // Deeper in the body.
                        Some(r) if b[start..j].starts_with(&b[r.clone()]) => None,
                        // A dedent the body's indentation does not start
                        // (`  x` in a body indented by four spaces):
                        // tokenizers part ways there.
                        Some(_) => return None,
                    },
                    None => None,
                }
            };
            let continues = ["else", "elif", "except", "finally"]
                .iter()
                .any(|k| starts_with_word(first, k));
            if let Some(header) = header {
                if start > 0 && !continues && !after_decorator {
                    self.cuts.push(Cut { at: start, header });
                }
            }
            after_decorator = first.starts_with(b"@");
            let opens_def = top && {
                let rest = if starts_with_word(first, "async") {
                    let k = first[5..].iter().take_while(|c| matches!(c, b' ' | b'\t')).count();
                    &first[5 + k..]
                } else {
                    first
                };
                starts_with_word(rest, "def")
            };
            let last = self.logical_line(j)?;
            if opens_def && last == b':' {
                def = Some(Def {
                    header: start..self.i,
                    indent: None,
                });
            }
        }
        Some(())
    }

    /// Read the logical line from `i` (after its indentation) to the start
    /// of the next; its last byte that is not blank or a comment.
    fn logical_line(&mut self, mut i: usize) -> Option<u8> {
        let b = self.b;
        let mut depth: u32 = 0;
        let mut last = 0;
        while let Some(&c) = b.get(i) {
            match c {
                b'\n' => {
                    i += 1;
                    if depth == 0 {
                        self.i = i;
                        return Some(last);
                    }
                }
                b' ' | b'\t' | b'\r' => i += 1,
                b'#' => i = line_end(b, i) - 1,
                b'\\' => match b.get(i + 1) {
                    // An explicit line join: the line goes on.
                    Some(b'\n') => i += 2,
                    Some(b'\r') if b.get(i + 2) == Some(&b'\n') => i += 3,
                    _ => return None,
                },
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    last = c;
                    i += 1;
                }
                b')' | b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    last = c;
                    i += 1;
                }
                b'"' | b'\'' => {
                    i = self.string(i)?;
                    last = c;
                }
                _ => {
                    last = c;
                    i += 1;
                }
            }
        }
        // The module's end (a comment's `line_end` may pass it by one).
        self.i = b.len();
        (depth == 0).then_some(last)
    }

    /// The end of the string literal whose opening quote is at `i`.
    fn string(&self, i: usize) -> Option<usize> {
        let b = self.b;
        let q = b[i];
        let p = b[..i].iter().rev().take_while(|&&c| ident_byte(c)).count();
        let prefix = b[i - p..i].to_ascii_lowercase();
        let known = ["", "r", "u", "b", "f", "t", "br", "rb", "fr", "rf", "tr", "rt"];
        if !known.iter().any(|k| k.as_bytes() == prefix.as_slice()) {
            return None;
        }
        let formatted = prefix.iter().any(|c| matches!(c, b'f' | b't'));
        let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
        let mut j = if triple { i + 3 } else { i + 1 };
        loop {
            let c = *b.get(j)?;
            match c {
                // Raw or not, a backslash keeps the next byte in the string.
                b'\\' if formatted && b.get(j + 1) == Some(&b'{') => return None,
                b'\\' => j += 2,
                _ if c == q => {
                    if !triple {
                        return Some(j + 1);
                    }
                    if b.get(j + 1) == Some(&q) && b.get(j + 2) == Some(&q) {
                        return Some(j + 3);
                    }
                    j += 1;
                }
                b'\n' if !triple => return None,
                b'{' if formatted => {
                    if b.get(j + 1) == Some(&b'{') {
                        j += 2;
                    } else {
                        j = field(b, j + 1)?;
                    }
                }
                _ => j += 1,
            }
        }
    }
}

/// The end of an f-string replacement field whose body starts at `i`;
/// `None` at anything that could hold a string or a line of its own.
fn field(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 1u32;
    loop {
        match *b.get(i)? {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'\'' | b'"' | b'#' | b'\n' | b'\r' | b'\\' => return None,
            _ => {}
        }
        i += 1;
    }
}

/// The start of the line after the one holding `i`.
fn line_end(b: &[u8], i: usize) -> usize {
    b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |n| i + n + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module's pieces, each with the header it is parsed after.
    fn pieces(text: &str) -> Vec<(Option<&str>, &str)> {
        let cuts = cuts(text);
        let mut out = Vec::new();
        let mut at = 0;
        let mut header = None;
        for c in cuts.iter().map(Some).chain([None]) {
            let end = c.map_or(text.len(), |c| c.at);
            out.push((header.clone().map(|h: Range<usize>| &text[h]), &text[at..end]));
            if let Some(c) = c {
                at = c.at;
                header = c.header.clone();
            }
        }
        out
    }

    #[test]
    fn cuts_at_top_level_and_main_body_statements() {
        let module = "import gi\n\
            s = '''a\nb = 1\n'''\n\
            @dec\n\
            def main(a,\n         b):  # the app\n    x = (1,\n2)\n\n    # c\n\
            \x20   if x:\n        y\n    else:\n        z\n\
            \x20   t = f\"{x} {{\" + r'\\'' \\\n  + 'q'\n\
            \x20   u = 1\n\
            class C:\n    def m(self):\n        pass\n\
            try:\n    pass\nexcept E:\n    pass\n\
            def f(): return 1\n\
            g = 2\n";
        let main = "def main(a,\n         b):  # the app\n";
        assert_eq!(
            pieces(module),
            [
                (None, "import gi\n"),
                (None, "s = '''a\nb = 1\n'''\n"),
                (
                    None,
                    "@dec\ndef main(a,\n         b):  # the app\n    x = (1,\n2)\n\n    # c\n"
                ),
                (Some(main), "    if x:\n        y\n    else:\n        z\n"),
                (Some(main), "    t = f\"{x} {{\" + r'\\'' \\\n  + 'q'\n"),
                (Some(main), "    u = 1\n"),
                (None, "class C:\n    def m(self):\n        pass\n"),
                (None, "try:\n    pass\nexcept E:\n    pass\n"),
                (None, "def f(): return 1\n"),
                (None, "g = 2\n"),
            ]
        );
    }

    #[test]
    fn async_def_bodies_and_crlf() {
        let module = "async  def main():\r\n    a = 1\r\n    b = 2\r\nc = 3\r\n";
        assert_eq!(
            cuts(module),
            [
                Cut {
                    at: 31,
                    header: Some(0..20)
                },
                Cut { at: 42, header: None }
            ]
        );
    }

    #[test]
    fn gives_up_where_it_cannot_follow() {
        // A replacement field holding a quote (Python 3.12 allows the
        // string's own quote there).
        assert_eq!(pieces("a\nb = f\"{x[\"k\"]}\"\nc\nd\n").len(), 2);
        assert_eq!(pieces("a\nb = f'{x\n}'\nc\n").len(), 2);
        assert_eq!(pieces("a\nb = f'\\{x}'\nc\n").len(), 2);
        assert_eq!(pieces("a\nb = x'q'\nc\n").len(), 2);
        assert_eq!(pieces("a\nb = )\nc\n").len(), 2);
        assert_eq!(pieces("a\nb = 'open\nc\n").len(), 2);
        assert_eq!(pieces("a\nb = \\ c\nd\n").len(), 2);
        assert_eq!(pieces("a\nb\rc\nd\n").len(), 1);
        assert_eq!(pieces("a\n\x0cb\nc\n").len(), 1);
        // A line of the body indented differently (tree-sitter reads the
        // dedent to two spaces as a new level, not as an error).
        assert_eq!(pieces("def f():\n    a\n\tb\n    c\n").len(), 1);
        assert_eq!(pieces("def f():\n    a\n  b\n    c\n").len(), 1);
    }
}
