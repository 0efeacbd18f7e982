//! A small POSIX shell lexer: enough structure to find the command that
//! starts a server in a launch script — quotes, comments, heredocs,
//! backslash continuations, `;`/`&`/`&&`/`||`/`|` separators, leading
//! variable assignments, and `if`/`case` branches — with byte offsets, so a
//! word can be inserted without touching anything else.

use std::ops::Range;

#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    /// The word with quotes removed (escapes kept as written).
    pub text: String,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SimpleCommand {
    pub words: Vec<Word>,
    /// Ends with `&` (runs in the background).
    pub background: bool,
    /// 1-based line of the first word.
    pub line: usize,
    /// Innermost `if`/`case` block and branch, for ambiguity.
    pub branch: Option<(usize, usize)>,
    /// Inside a function body (`name() { … }`).
    pub in_function: bool,
}

impl SimpleCommand {
    /// Index of the program word: after `VAR=value` assignments and the
    /// `exec`, `nohup`, `env`, `time` prefixes.
    pub fn program_index(&self) -> Option<usize> {
        let mut i = 0;
        while i < self.words.len() {
            let w = &self.words[i].text;
            let is_assignment = w.find('=').is_some_and(|eq| {
                eq > 0
                    && w[..eq].chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !w.starts_with(|c: char| c.is_ascii_digit())
            });
            if is_assignment || matches!(w.as_str(), "exec" | "nohup" | "env" | "time" | "command") {
                i += 1;
                continue;
            }
            return Some(i);
        }
        None
    }

    pub fn program(&self) -> Option<&Word> {
        self.words.get(self.program_index()?)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    pub commands: Vec<SimpleCommand>,
}

pub fn lex(src: &str) -> Result<Script, String> {
    let b = src.as_bytes();
    let mut commands = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    let mut cur = String::new();
    let mut cur_start: Option<usize> = None;
    let mut pending_heredocs: Vec<(String, bool)> = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let mut cmd_line = 1;
    // Conditional blocks: (block id, branch index).
    let mut blocks: Vec<(usize, usize)> = Vec::new();
    let mut next_block = 0;
    let mut fn_depth: Vec<usize> = Vec::new(); // brace depth at which a function body started
    let mut brace_depth = 0usize;
    // Line numbers by binary search over the newline offsets: counting
    // newlines from the start at every command made a long script
    // quadratic.
    let newlines: Vec<usize> = b
        .iter()
        .enumerate()
        .filter(|(_, c)| **c == b'\n')
        .map(|(i, _)| i)
        .collect();
    let line_of = |pos: usize| newlines.partition_point(|&n| n < pos) + 1;

    macro_rules! end_word {
        () => {
            if let Some(s) = cur_start.take() {
                words.push(Word {
                    text: std::mem::take(&mut cur),
                    span: s..i,
                });
            }
        };
    }
    macro_rules! end_command {
        ($bg:expr) => {{
            end_word!();
            if !words.is_empty() {
                let first = words[0].text.clone();
                let mut push = true;
                match first.as_str() {
                    "if" | "case" => {
                        blocks.push((next_block, 0));
                        next_block += 1;
                        words.remove(0);
                    }
                    "then" | "do" | "elif" | "else" | "in" => {
                        if matches!(first.as_str(), "elif" | "else") {
                            if let Some(top) = blocks.last_mut() {
                                top.1 += 1;
                            }
                        }
                        words.remove(0);
                    }
                    "fi" | "esac" => {
                        blocks.pop();
                        push = false;
                    }
                    "while" | "until" | "for" | "done" | "{" | "}" => push = first == "while" || first == "until",
                    _ => {}
                }
                if first.ends_with("()") || words.get(1).is_some_and(|w| w.text == "()") {
                    push = false;
                }
                if push && !words.is_empty() {
                    commands.push(SimpleCommand {
                        line: line_of(words[0].span.start),
                        words: std::mem::take(&mut words),
                        background: $bg,
                        branch: blocks.last().copied(),
                        in_function: !fn_depth.is_empty(),
                    });
                }
                words.clear();
            }
            let _ = cmd_line;
        }};
    }

    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' if i + 1 < b.len() && b[i + 1] == b'\n' => {
                i += 2;
                line += 1;
            }
            b'\\' if i + 2 < b.len() && b[i + 1] == b'\r' && b[i + 2] == b'\n' => {
                i += 3;
                line += 1;
            }
            b'\\' => {
                cur_start.get_or_insert(i);
                if let Some(ch) = src[i + 1..].chars().next() {
                    cur.push('\\');
                    cur.push(ch);
                    i += 1 + ch.len_utf8();
                } else {
                    i += 1;
                }
            }
            b'$' if b.get(i + 1) == Some(&b'\'') => {
                // ANSI-C quoting, `$'it\'s'`: a backslash escapes the next
                // character, so `\'` does not end the word.
                cur_start.get_or_insert(i);
                let unescape = |c| match c {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    other => other,
                };
                let j = read_escaped(src, i + 2, b'\'', unescape, &mut cur)
                    .ok_or_else(|| format!("line {}: unterminated $'…' quote", line_of(i)))?;
                line += src[i..j].matches('\n').count();
                i = j + 1;
            }
            b'\'' => {
                cur_start.get_or_insert(i);
                let end = src[i + 1..]
                    .find('\'')
                    .ok_or_else(|| format!("line {}: unterminated single quote", line_of(i)))?;
                cur.push_str(&src[i + 1..i + 1 + end]);
                line += src[i + 1..i + 1 + end].matches('\n').count();
                i += end + 2;
            }
            b'"' => {
                cur_start.get_or_insert(i);
                let j = read_escaped(src, i + 1, b'"', |c| c, &mut cur)
                    .ok_or_else(|| format!("line {}: unterminated double quote", line_of(i)))?;
                line += src[i..j].matches('\n').count();
                i = j + 1;
            }
            b'#' if cur_start.is_none() => {
                // A comment runs to the end of the line.
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'\n' => {
                end_word!();
                let was_fn_open = words.last().is_some_and(|w| w.text == "{")
                    && words.len() >= 2
                    && (words[0].text.ends_with("()")
                        || words.get(1).is_some_and(|w| w.text == "()")
                        || words[0].text == "function");
                if was_fn_open {
                    fn_depth.push(brace_depth);
                    brace_depth += 1;
                    words.clear();
                    cur_start = None;
                    cur.clear();
                } else {
                    if words.first().is_some_and(|w| w.text == "}") {
                        brace_depth = brace_depth.saturating_sub(1);
                        if fn_depth.last() == Some(&brace_depth) {
                            fn_depth.pop();
                        }
                    }
                    end_command!(false);
                }
                i += 1;
                line += 1;
                cmd_line = line;
                // Heredoc bodies follow the line that opened them.
                for (delim, strip_tabs) in std::mem::take(&mut pending_heredocs) {
                    loop {
                        if i >= b.len() {
                            return Err(format!("heredoc `{delim}` is not closed"));
                        }
                        let end = src[i..].find('\n').map_or(b.len(), |e| i + e);
                        let body_line = src[i..end].trim_end_matches('\r');
                        let body_line = if strip_tabs {
                            body_line.trim_start_matches('\t')
                        } else {
                            body_line
                        };
                        i = (end + 1).min(b.len());
                        line += 1;
                        if body_line == delim {
                            break;
                        }
                    }
                }
            }
            b';' | b'&' | b'|' => {
                let bg = c == b'&'
                    && b.get(i + 1) != Some(&b'&')
                    && (i == 0 || b[i - 1] != b'&')
                    && b.get(i + 1) != Some(&b'>')
                    && (i == 0 || b[i - 1] != b'>');
                if c == b'&' && (b.get(i + 1) == Some(&b'>') || (i > 0 && b[i - 1] == b'>')) {
                    // `&>` and `>&`: redirections, not separators.
                    cur_start.get_or_insert(i);
                    cur.push('&');
                    i += 1;
                    continue;
                }
                end_command!(bg);
                i += 1;
                if i < b.len() && (b[i] == b'&' || b[i] == b'|' || b[i] == b';') {
                    i += 1;
                }
            }
            b' ' | b'\t' | b'\r' => {
                end_word!();
                i += 1;
            }
            b'<' if b.get(i + 1) == Some(&b'<') && b.get(i + 2) != Some(&b'<') => {
                end_word!();
                let mut j = i + 2;
                let strip = b.get(j) == Some(&b'-');
                if strip {
                    j += 1;
                }
                while b.get(j).is_some_and(|c| *c == b' ' || *c == b'\t') {
                    j += 1;
                }
                let start = j;
                while b
                    .get(j)
                    .is_some_and(|c| !matches!(*c, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'>' | b'<' | b')'))
                {
                    j += 1;
                }
                let delim: String = src[start..j]
                    .chars()
                    .filter(|c| *c != '\'' && *c != '"' && *c != '\\')
                    .collect();
                if !delim.is_empty() {
                    pending_heredocs.push((delim, strip));
                }
                i = j;
            }
            _ => {
                cur_start.get_or_insert(i);
                let ch = src[i..].chars().next().unwrap_or(' ');
                cur.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    end_command!(false);
    let _ = next_block; // read once more: the last command's block count
    Ok(Script { commands })
}

/// A quoted string whose backslash escapes the next character, from
/// `start` (after the opening quote) to the closing `close` byte: pushes
/// the text onto `cur` (`unescape` maps an escaped character) and returns
/// the index of the closing quote; `None` when it is not closed.
fn read_escaped(src: &str, start: usize, close: u8, unescape: fn(char) -> char, cur: &mut String) -> Option<usize> {
    let b = src.as_bytes();
    let mut j = start;
    loop {
        match *b.get(j)? {
            c if c == close => return Some(j),
            b'\\' => match src.get(j + 1..).and_then(|s| s.chars().next()) {
                Some(ch) => {
                    cur.push(unescape(ch));
                    j += 1 + ch.len_utf8();
                }
                None => j += 1,
            },
            _ => {
                let ch = src[j..].chars().next()?;
                cur.push(ch);
                j += ch.len_utf8();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn programs(src: &str) -> Vec<(String, bool, usize)> {
        lex(src)
            .unwrap()
            .commands
            .iter()
            .filter_map(|c| Some((c.program()?.text.clone(), c.background, c.line)))
            .collect()
    }

    #[test]
    fn ansi_c_quotes_are_one_word() {
        assert_eq!(
            programs("echo $'it\\'s'\npython3 -c $'a\\nb' serve.py\n"),
            vec![("echo".to_string(), false, 1), ("python3".to_string(), false, 2)]
        );
        let s = lex("python3 $'x\\'y' z\n").unwrap();
        assert_eq!(s.commands[0].words[1].text, "x'y");
        assert!(lex("echo $'open\n").unwrap_err().contains("unterminated $'"));
    }

    #[test]
    fn structure() {
        let s = "#!/bin/bash\n# python in a comment\nexport A=1\ncat <<EOF\npython not.py\nEOF\nCUDA_VISIBLE_DEVICES=0 python3 -m server \\\n  --port 8080 &\nwait\n";
        assert_eq!(
            programs(s),
            vec![
                ("export".into(), false, 3),
                ("cat".into(), false, 4),
                ("python3".into(), true, 7),
                ("wait".into(), false, 9)
            ]
        );
        let s = "echo 'a;b' \"c # d\" && nohup torchrun x.py > log 2>&1 &\n";
        assert_eq!(
            programs(s),
            vec![("echo".into(), false, 1), ("torchrun".into(), true, 1)]
        );
        assert!(lex("echo 'open\n").is_err());
    }

    #[test]
    fn branches_and_functions() {
        let s = "if [ -n \"$X\" ]; then\n  python a.py\nelse\n  python b.py\nfi\nrun() {\n  python c.py\n}\n";
        let cmds = lex(s).unwrap().commands;
        let py: Vec<&SimpleCommand> = cmds
            .iter()
            .filter(|c| c.program().is_some_and(|p| p.text == "python"))
            .collect();
        assert_eq!(py.len(), 3);
        assert_eq!(py[0].branch.map(|b| b.0), py[1].branch.map(|b| b.0));
        assert_ne!(py[0].branch.map(|b| b.1), py[1].branch.map(|b| b.1));
        assert!(py[2].in_function);
    }
}
