//! Plain command lines: a top-level line of a script (between two of
//! `shell_cuts`' cuts) that is one command made only of plain words, read
//! without tree-sitter. tree-sitter-bash was most of an 8 MiB script's
//! check (its lexer, parse stack and subtrees, ~10 MB/s a core), while
//! such a line has nothing for a grammar to decide: words split at blanks.
//!
//! A word is plain when it holds only characters bash and
//! tree-sitter-bash read as themselves outside quotes (no expansion,
//! escape, glob, operator, redirection, comment or bracket), and quotes
//! whose content is taken as it is: `'…'`, or `"…"` without `$`, `` ` ``
//! or `\`. Anything else on the line and the line is not plain: it is
//! parsed, as before. That a plain line reads as tree-sitter reads it is a
//! test (`tests/code_frontends.rs`, every script of testdata and the
//! corpus; `syntax::shell`'s tests, generated lines).

use crate::base::Span;

/// One word of a plain line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// Its bytes in the script.
    pub span: Span,
    /// Whether it holds a quote (then it is not a static word).
    pub quoted: bool,
}

/// Characters a plain word may hold outside quotes: each stands for
/// itself in bash and is part of a tree-sitter-bash `word` (or `number`),
/// wherever it is in the word. `!` only as a whole word (gst-launch's link,
/// see `words`).
fn plain_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'-' | b'_' | b'.' | b'/' | b'=' | b':' | b',' | b'+' | b'@' | b'%' | b'^'
        )
}

/// The words of `line` (without its newline; at offset `at` in the
/// script) when it is one command of plain words, else `None`. A word
/// starting with `=` is not plain (tree-sitter-bash reads `==` and `=~`
/// after a command name as operators).
pub fn words(line: &str, at: usize) -> Option<Vec<Word>> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if matches!(b[i], b' ' | b'\t') {
            i += 1;
            continue;
        }
        let start = i;
        if b[i] == b'!' {
            i += 1;
            if i < b.len() && !matches!(b[i], b' ' | b'\t') {
                return None;
            }
            out.push(Word {
                span: at + start..at + i,
                quoted: false,
            });
            continue;
        }
        if b[i] == b'=' {
            return None;
        }
        let mut quoted = false;
        while i < b.len() && !matches!(b[i], b' ' | b'\t') {
            match b[i] {
                b'\'' => {
                    let close = memchr::memchr(b'\'', &b[i + 1..])?;
                    i += close + 2;
                    quoted = true;
                }
                b'"' => {
                    let close = memchr::memchr(b'"', &b[i + 1..])?;
                    if b[i + 1..i + 1 + close]
                        .iter()
                        .any(|&c| matches!(c, b'$' | b'`' | b'\\'))
                    {
                        return None;
                    }
                    i += close + 2;
                    quoted = true;
                }
                c if plain_byte(c) => i += 1,
                _ => return None,
            }
        }
        out.push(Word {
            span: at + start..at + i,
            quoted,
        });
    }
    // A quote holding a newline is not on one line.
    if line.contains('\n') || out.is_empty() {
        return None;
    }
    Some(out)
}

/// The parts of a plain word as the shell reads them, in order: text
/// outside quotes (`Unquoted`), inside `'…'` and inside `"…"`, each with
/// its offset in the script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part<'t> {
    Unquoted(&'t str, usize),
    Single(&'t str, usize),
    Double(&'t str, usize),
}

/// The parts of word `w` of `text` (one `words` gave).
pub fn parts<'t>(text: &'t str, w: &Word) -> Vec<Part<'t>> {
    let s = &text[w.span.clone()];
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = s[from..].find(['\'', '"']) {
        let open = from + k;
        if open > from {
            out.push(Part::Unquoted(&s[from..open], w.span.start + from));
        }
        let quote = s.as_bytes()[open];
        let close = s[open + 1..].find(quote as char).map_or(s.len(), |c| open + 1 + c);
        let body = &s[open + 1..close];
        let at = w.span.start + open + 1;
        out.push(if quote == b'\'' {
            Part::Single(body, at)
        } else {
            Part::Double(body, at)
        });
        from = (close + 1).min(s.len());
    }
    if from < s.len() {
        out.push(Part::Unquoted(&s[from..], w.span.start + from));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Option<Vec<&str>> {
        words(line, 0).map(|ws| ws.iter().map(|w| &line[w.span.clone()]).collect())
    }

    #[test]
    fn plain_words_split_at_blanks() {
        assert_eq!(
            texts("  gst-launch-1.0 -e a ! b\tname=m caps=\"x, y=(int)1\" 'it''s' "),
            Some(vec![
                "gst-launch-1.0",
                "-e",
                "a",
                "!",
                "b",
                "name=m",
                "caps=\"x, y=(int)1\"",
                "'it''s'"
            ])
        );
        let line = "a x=\"b c\"d";
        let ws = words(line, 10).unwrap();
        let text = format!("{}{line}", " ".repeat(10));
        assert_eq!(
            parts(&text, &ws[1]),
            vec![
                Part::Unquoted("x=", 12),
                Part::Double("b c", 15),
                Part::Unquoted("d", 19)
            ]
        );
    }

    #[test]
    fn anything_the_shell_reads_otherwise_is_not_plain() {
        for line in [
            "a $HOME",
            "a \"$x\"",
            "a b\\ c",
            "a `b`",
            "a 'b",
            "a \"b",
            "a b;",
            "a b | c",
            "a b > c",
            "a (b)",
            "a {b}",
            "a [b]",
            "a # c",
            "a *.mp4",
            "a ~/x",
            "a !b",
            "a b!",
            "a == b",
            "a =x",
            "a b &",
            "a\r",
            "",
            "   ",
            "a \"b\nc\"",
        ] {
            assert_eq!(texts(line), None, "{line:?}");
        }
    }
}
