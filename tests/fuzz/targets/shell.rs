//! The launch-script lexer behind `dslint nsys wrap`: words, single, double
//! and `$'…'` quotes, expansions, heredocs (`<<`, `<<-`, quoted
//! delimiters, unclosed), backslash continuations, separators and
//! redirections, `if`/`case` branches, functions, comments, CRLF.

use dslint::nsys::{shell, wrap};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

use crate::checks::span_ok;
use crate::grammar::{block, joined, lines, one, pick, word};

fn token() -> BoxedStrategy<String> {
    prop_oneof![
        4 => word(),
        3 => pick(&["python3", "python", "torchrun", "-m", "server", "--port", "8080", "exec", "nohup", "env", "echo", "cat", "export"]),
        2 => pick(&["$X", "${X:-é}", "$(date)", "`cmd`", "A=1", "CUDA_VISIBLE_DEVICES=0", "NSYS_OUTPUT_DIR=/tmp/é", "x=\"$y\""]),
        2 => word().prop_map(|w| format!("'{w} {w}'")),
        2 => word().prop_map(|w| format!("\"{w} $x\"")),
        1 => pick(&["$'a\\'b'", "$'é\\n'", "\"a\\\"b\"", "\"unclosed", "'unclosed", "\\", "\\é", "\\ "]),
        2 => pick(&[";", "&", "&&", "||", "|", "2>&1", ">", "&>", ">&2", "<", "(", ")", "{", "}", "()", ";;"]),
        1 => pick(&["<<EOF", "<<-'EOF'", "<< \"EOF\"", "<<<x", "<<é"]),
        1 => pick(&["if", "then", "else", "elif", "fi", "case", "esac", "in", "do", "done", "while", "for", "function"]),
        1 => pick(&["# comment é", "#"]),
    ]
    .boxed()
}

fn line() -> BoxedStrategy<String> {
    prop_oneof![
        8 => (pick(&["", "", "  ", "\t"]), joined(token(), 7), pick(&["", "", "", " \\", "\\"]))
            .prop_map(|(indent, body, cont)| format!("{indent}{body}{cont}")),
        1 => pick(&["EOF", "\tEOF", "é", "#!/bin/bash", "run() {", "}", "fi", "done", "esac", ""]),
    ]
    .boxed()
}

/// A heredoc: its opener, body lines, and a terminator (sometimes wrong
/// or missing).
fn heredoc() -> BoxedStrategy<Vec<String>> {
    (
        pick(&["cat <<EOF", "cat <<-'EOF'", "cat << \"EOF\" > f", "python3 - <<EOF &"]),
        prop::collection::vec(joined(token(), 4), 0..3),
        pick(&["EOF", "EOF", "\tEOF", "EOF ", "EO", ""]),
    )
        .prop_map(|(open, body, close)| {
            std::iter::once(open)
                .chain(body)
                .chain(std::iter::once(close))
                .collect()
        })
        .boxed()
}

pub fn document() -> BoxedStrategy<String> {
    let piece = prop_oneof![
        6 => one(line()),
        1 => heredoc(),
        1 => block(pick(&["if [ -n \"$X\" ]; then", "run() {", "case $X in", "while true; do"]), &["  ", "\t"], line(), 4),
    ];
    lines(piece.boxed(), 8)
}

/// A word whose source has no quote, escape or expansion is its own bytes.
fn plain(source: &str) -> bool {
    !source.contains(['\'', '"', '\\', '$', '`'])
}

pub fn check(input: &str) -> Result<(), String> {
    let Ok(script) = shell::lex(input) else {
        return Ok(());
    };
    let mut last_end = 0;
    for c in &script.commands {
        for w in &c.words {
            if !span_ok(input, &w.span) {
                return Err(format!("word {:?} span {:?}", w.text, w.span));
            }
            if w.span.start < last_end {
                return Err(format!("word {:?} at {:?} overlaps the previous word", w.text, w.span));
            }
            last_end = w.span.end;
            let source = &input[w.span.clone()];
            if plain(source) && source != w.text {
                return Err(format!("word {:?} reads {:?} from {:?}", w.text, source, w.span));
            }
        }
    }
    if let Ok(out) = wrap::wrap(input, wrap::Level::Coarse, None, None) {
        if out != input && !only_insertions(input, &out) {
            return Err(format!("wrap changed more than it inserted:\n{out}"));
        }
    }
    Ok(())
}

/// `out` is `input` plus the wrap block and one `${NSYS_CMD} `.
fn only_insertions(input: &str, out: &str) -> bool {
    let Some(begin) = out.find(wrap::BEGIN) else {
        return false;
    };
    let Some(end) = out[begin..].find(wrap::END).map(|i| begin + i + wrap::END.len()) else {
        return false;
    };
    let eol = if input.contains("\r\n") { "\r\n" } else { "\n" };
    let rest = out.get(end + eol.len()..).unwrap_or("");
    let mut candidates = vec![format!("{}{rest}", &out[..begin])];
    if let Some(before) = begin.checked_sub(eol.len()).and_then(|b| out.get(..b)) {
        candidates.push(format!("{before}{rest}"));
    }
    const CMD: &str = "${NSYS_CMD} ";
    candidates.iter().any(|s| {
        s.match_indices(CMD)
            .any(|(i, _)| format!("{}{}", &s[..i], &s[i + CMD.len()..]) == input)
    })
}
