//! Where a shell script can be cut into pieces that each parse alone as
//! they parse in the whole script: line starts at its top level, outside
//! any quote, here-document, bracket, compound command (`if … fi`, `case
//! … esac`, a loop from its `for`/`while`/`until`/`select` to its `done`,
//! so a `do` on the line after the loop's head is inside it) or continued
//! line (`\`, `|`, `&&`, `||` at its end). A big script's pieces are parsed on all threads, and a piece that
//! cannot hold a `gst-launch-1.0` command is not parsed at all.
//!
//! The scan only ever gives up cuts: past anything it does not follow (a
//! command substitution inside double quotes, a backquote, a bracket or
//! keyword it counts below zero, an unclosed quote or here-document) it
//! cuts no more, and the rest is one piece.

/// Byte offsets of line starts where `text` can be cut, in order (neither
/// 0 nor `text.len()`).
pub fn cuts(text: &str) -> Vec<usize> {
    let mut scan = Scan {
        b: text.as_bytes(),
        text,
        i: 0,
        depth: 0,
        keywords: 0,
        command_position: true,
        continued: false,
        heredocs: Vec::new(),
        cuts: Vec::new(),
    };
    // `None`: the scan stopped following the script.
    let _ = scan.run();
    scan.cuts
}

struct Scan<'t> {
    b: &'t [u8],
    text: &'t str,
    i: usize,
    /// Open `(`, `{`, `[` (and `$(`, `${`) less closed ones.
    depth: u32,
    /// Open `if`, `case` and loops (`for`, `while`, `until`, `select`) less
    /// `fi`, `esac`, `done`.
    keywords: u32,
    /// The next word is a command's first (where keywords are).
    command_position: bool,
    /// The line so far ends with an operator that wants more (`|`, `&&`).
    continued: bool,
    /// Here-documents started on this line: their delimiter, and whether
    /// leading tabs are stripped (`<<-`).
    heredocs: Vec<(String, bool)>,
    cuts: Vec<usize>,
}

/// Bytes that end a plain word.
fn ends_word(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b';'
            | b'&'
            | b'|'
            | b'<'
            | b'>'
            | b'('
            | b')'
            | b'{'
            | b'}'
            | b'['
            | b']'
            | b'\''
            | b'"'
            | b'`'
            | b'$'
            | b'\\'
    )
}

impl Scan<'_> {
    fn run(&mut self) -> Option<()> {
        let len = self.b.len();
        while self.i < len {
            let c = self.b[self.i];
            match c {
                b'\n' => {
                    self.i += 1;
                    self.heredoc_bodies()?;
                    if self.depth == 0 && self.keywords == 0 && !self.continued && self.i < len {
                        self.cuts.push(self.i);
                    }
                    self.command_position = true;
                    self.continued = false;
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'#' if self.word_start() => {
                    // A comment runs to the end of the line.
                    self.i = self.text[self.i..].find('\n').map_or(len, |n| self.i + n);
                }
                b'\\' => {
                    // An escaped character, or a line continued.
                    self.i += 2;
                    self.word();
                }
                b'\'' => {
                    let close = self.text[self.i + 1..].find('\'')?;
                    self.i += close + 2;
                    self.word();
                }
                b'"' => {
                    self.i = self.double_quoted(self.i + 1)?;
                    self.word();
                }
                b'`' => return None,
                b'$' => match self.b.get(self.i + 1) {
                    Some(b'\'') => {
                        self.i = self.ansi_c_quoted(self.i + 2)?;
                        self.word();
                    }
                    Some(b'(' | b'{') => {
                        self.depth += 1;
                        self.i += 2;
                        self.command_position = true;
                    }
                    _ => {
                        self.i += 1;
                        self.word();
                    }
                },
                b'(' | b'{' | b'[' => {
                    self.depth += 1;
                    self.i += 1;
                    self.command_position = true;
                }
                b')' if self.depth == 0 && self.keywords > 0 => {
                    // A `case` pattern's end (`a)`).
                    self.i += 1;
                    self.command_position = true;
                }
                b')' | b'}' | b']' => {
                    self.depth = self.depth.checked_sub(1)?;
                    self.i += 1;
                }
                b';' | b'&' | b'|' => {
                    let start = self.i;
                    while self.i < len && matches!(self.b[self.i], b';' | b'&' | b'|') {
                        self.i += 1;
                    }
                    let op = &self.text[start..self.i];
                    self.continued = op.ends_with('|') || op == "&&" || op == "|&";
                    self.command_position = true;
                }
                b'<' if self.text[self.i..].starts_with("<<<") => {
                    self.i += 3;
                    self.continued = false;
                }
                b'<' if self.text[self.i..].starts_with("<<") => {
                    self.heredoc_start()?;
                    self.continued = false;
                }
                b'<' | b'>' => {
                    self.i += 1;
                    if self.b.get(self.i) == Some(&b'&') {
                        self.i += 1;
                    }
                    self.continued = false;
                }
                _ => {
                    let start = self.i;
                    while self.i < len && !ends_word(self.b[self.i]) {
                        self.i += 1;
                    }
                    let at_command = self.command_position;
                    self.word();
                    let whole = self
                        .b
                        .get(self.i)
                        .is_none_or(|c| c.is_ascii_whitespace() || b";&|)".contains(c));
                    if at_command && whole {
                        self.keyword(&self.text[start..self.i])?;
                    }
                }
            }
        }
        Some(())
    }

    /// A word was read (or part of one): the line no longer wants more and
    /// the next word is an argument.
    fn word(&mut self) {
        self.command_position = false;
        self.continued = false;
    }

    /// Whether `#` here starts a comment (it does at a word's start).
    fn word_start(&self) -> bool {
        self.i == 0
            || matches!(
                self.b[self.i - 1],
                b' ' | b'\t' | b'\n' | b'\r' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
            )
    }

    fn keyword(&mut self, word: &str) -> Option<()> {
        match word {
            // A loop opens at its head, not at `do`: the newline between
            // `for i in a b` and a `do` on the next line is no cut.
            "if" | "case" | "for" | "while" | "until" | "select" => self.keywords += 1,
            "fi" | "esac" | "done" => self.keywords = self.keywords.checked_sub(1)?,
            _ => {}
        }
        // After these the next word is a command again.
        self.command_position = matches!(
            word,
            "if" | "then" | "else" | "elif" | "do" | "while" | "until" | "!" | "time" | "fi" | "done" | "esac"
        );
        Some(())
    }

    /// The end of a double-quoted string whose body starts at `i`; `None`
    /// at an expansion that may hold quotes of its own, or no end.
    fn double_quoted(&self, mut i: usize) -> Option<usize> {
        while i < self.b.len() {
            match self.b[i] {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                b'`' => return None,
                b'$' if matches!(self.b.get(i + 1), Some(b'(' | b'{')) => return None,
                _ => i += 1,
            }
        }
        None
    }

    /// The end of a `$'…'` string whose body starts at `i`.
    fn ansi_c_quoted(&self, mut i: usize) -> Option<usize> {
        while i < self.b.len() {
            match self.b[i] {
                b'\\' => i += 2,
                b'\'' => return Some(i + 1),
                _ => i += 1,
            }
        }
        None
    }

    /// `<<WORD` or `<<-WORD`: its body starts at the next line.
    fn heredoc_start(&mut self) -> Option<()> {
        let mut j = self.i + 2;
        let strip = self.b.get(j) == Some(&b'-');
        if strip {
            j += 1;
        }
        while matches!(self.b.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        let mut delimiter = String::new();
        while let Some(&c) = self.b.get(j) {
            if c.is_ascii_whitespace() || b";&|<>()".contains(&c) {
                break;
            }
            if !matches!(c, b'\'' | b'"' | b'\\') {
                delimiter.push(c as char);
            }
            j += 1;
        }
        if delimiter.is_empty() || !delimiter.is_ascii() {
            return None;
        }
        self.heredocs.push((delimiter, strip));
        self.i = j;
        self.command_position = false;
        Some(())
    }

    /// Skip the bodies of the here-documents started on the line that just
    /// ended.
    fn heredoc_bodies(&mut self) -> Option<()> {
        for (delimiter, strip) in std::mem::take(&mut self.heredocs) {
            loop {
                if self.i >= self.b.len() {
                    return None;
                }
                let end = self.text[self.i..].find('\n').map_or(self.b.len(), |n| self.i + n);
                let line = &self.text[self.i..end];
                let line = if strip { line.trim_start_matches('\t') } else { line };
                self.i = (end + 1).min(self.b.len());
                if line == delimiter {
                    break;
                }
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut at = 0;
        for c in cuts(text).into_iter().chain([text.len()]) {
            out.push(&text[at..c]);
            at = c;
        }
        out
    }

    #[test]
    fn cuts_only_at_the_top_level() {
        let script = "a=1\n\
            gst-launch-1.0 a ! b \\\n  ! c\n\
            if x; then\n  gst-launch-1.0 d ! e\nfi\n\
            cat <<-'EOF' | tee x\n\tgst-launch-1.0 f\n\tEOF\n\
            echo 'it''s\n' \"q\n\" done # if\n\
            f() {\n  g\n}\n\
            x | \n  y && # more\n  z\n\
            case $1 in\n  -a) shift;;\n  (b) x;;\nesac\n\
            for i in 1 2; do echo $((i << 1)); done\n\
            last\n";
        assert_eq!(
            pieces(script),
            [
                "a=1\n",
                "gst-launch-1.0 a ! b \\\n  ! c\n",
                "if x; then\n  gst-launch-1.0 d ! e\nfi\n",
                "cat <<-'EOF' | tee x\n\tgst-launch-1.0 f\n\tEOF\n",
                "echo 'it''s\n' \"q\n\" done # if\n",
                "f() {\n  g\n}\n",
                "x | \n  y && # more\n  z\n",
                "case $1 in\n  -a) shift;;\n  (b) x;;\nesac\n",
                // `$((i << 1))` reads as a here-document that never ends:
                // no cut after it.
                "for i in 1 2; do echo $((i << 1)); done\nlast\n",
            ]
        );
    }

    #[test]
    fn a_loop_is_one_piece_with_do_on_its_own_line() {
        let script = "for f in a.mp4 b.mp4\n\
            do\n  gst-launch-1.0 filesrc location=$f ! fakesink\ndone\n\
            while read -r f\ndo\n  echo $f\ndone < list\n\
            until false\ndo\n  break\ndone\n\
            select f in a b\ndo\n  break\ndone\n\
            last\n";
        assert_eq!(
            pieces(script),
            [
                "for f in a.mp4 b.mp4\ndo\n  gst-launch-1.0 filesrc location=$f ! fakesink\ndone\n",
                "while read -r f\ndo\n  echo $f\ndone < list\n",
                "until false\ndo\n  break\ndone\n",
                "select f in a b\ndo\n  break\ndone\n",
                "last\n",
            ]
        );
    }

    #[test]
    fn gives_up_where_it_cannot_follow() {
        // A command substitution inside double quotes may hold quotes.
        assert_eq!(pieces("a\necho \"$(b \")\")\"\nc\nd\n").len(), 2);
        // A keyword or bracket closed more than opened.
        assert_eq!(pieces("a\necho x; fi\nc\n").len(), 2);
        assert_eq!(pieces("a\necho }\nc\n").len(), 2);
        assert_eq!(pieces("a\necho `b`\nc\n").len(), 2);
        assert_eq!(pieces("a\necho 'open\nc\n").len(), 2);
    }
}
