//! Shell scripts, read with tree-sitter-bash (a maintained grammar with a
//! byte span on every node): the `gst-launch-1.0` commands a script runs,
//! each turned into the pipeline description gst-launch builds from its
//! arguments, mapped back to the script's bytes.
//!
//! gst-launch (`tools/gst-launch.c`) hands its arguments, after GOption has
//! taken its own `-e`, `-v`, `--gst-debug-level=…`, to `gst_parse_launchv`,
//! which escapes the spaces of each argument outside double quotes
//! (`_gst_parse_escape` in `gst/gstparse.c`) and joins them with a space.
//! The shell has already removed its quotes and backslashes; what it
//! expands (`$VAR`, `${VAR}`, `$(cmd)`) is not knowable here and becomes a
//! placeholder.

use rayon::prelude::*;
use tree_sitter::{Node, Parser, Point, Range, Tree};

use crate::base::Span;
use crate::syntax::launch::Mapped;
use crate::syntax::points::points;
use crate::syntax::shell_cuts;
use crate::syntax::shell_plain::{self, Part};

/// One `gst-launch-1.0` command of a script.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The description gst-launch parses.
    pub mapped: Mapped,
    /// The whole command in the script.
    pub span: Span,
}

/// Programs that run the command after them (with their own options).
const WRAPPERS: &[&str] = &[
    "exec", "sudo", "nohup", "time", "env", "command", "nice", "stdbuf", "timeout",
];

/// gst-launch and GStreamer options whose value may be the next argument.
const OPTIONS_WITH_VALUE: &[&str] = &[
    "--gst-debug-level",
    "--gst-debug",
    "--gst-debug-color-mode",
    "--gst-plugin-path",
    "--gst-plugin-load",
    "-X",
    "--exclude",
];

pub fn parse_tree(text: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
    parser.parse(text, None)
}

/// A script longer than this is parsed in pieces of about this size, on
/// all threads (tree-sitter-bash parses ~10 MB/s on one core).
const PIECE: usize = 256 * 1024;

/// Every `gst-launch-1.0` command of a script, in order.
pub fn launches(text: &str) -> Vec<Launch> {
    launches_by(text, PIECE)
}

/// `launches`, parsing the script in pieces of about `piece` bytes cut at
/// its top level (`shell_cuts`) when it is longer. Where a piece does not
/// parse cleanly, the whole script is parsed, as before: tree-sitter's
/// recovery from an error may reach across a cut.
pub fn launches_by(text: &str, piece: usize) -> Vec<Launch> {
    if text.len() > piece {
        if let Some(l) = launches_in_pieces(text, piece) {
            return l;
        }
    }
    let Some(tree) = parse_tree(text) else {
        return Vec::new();
    };
    launches_in(&tree, text)
}

/// The pieces' launches, in order; `None` when there is only one piece or
/// a piece has a syntax error.
fn launches_in_pieces(text: &str, piece: usize) -> Option<Vec<Launch>> {
    let cuts = shell_cuts::cuts(text);
    let ranges = pieces(text, &cuts, piece);
    if ranges.len() < 2 {
        return None;
    }
    let per_piece: Option<Vec<Vec<Launch>>> = ranges.par_iter().map(|r| piece_launches(text, &cuts, r)).collect();
    Some(per_piece?.into_iter().flatten().collect())
}

/// The launches of piece `r`, whose lines start at `cuts`: a plain line
/// (`shell_plain`) read as it is, each run of other lines parsed apart
/// (whole lines between cuts parse alone as in the whole script); `None`
/// when a run has a syntax error.
fn piece_launches(text: &str, cuts: &[usize], r: &Range) -> Option<Vec<Launch>> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
    let mut out = Vec::new();
    // Lines not read yet, from this offset and point.
    let mut pending: Option<(usize, Point)> = None;
    let mut parse = |from: (usize, Point), to: (usize, Point), out: &mut Vec<Launch>| -> Option<()> {
        let range = Range {
            start_byte: from.0,
            start_point: from.1,
            end_byte: to.0,
            end_point: to.1,
        };
        parser.set_included_ranges(&[range]).ok()?;
        let tree = parser.parse(text, None)?;
        if tree.root_node().has_error() {
            return None;
        }
        out.extend(launches_in(&tree, text));
        Some(())
    };
    let first = cuts.partition_point(|&c| c <= r.start_byte);
    let ends = cuts[first..]
        .iter()
        .copied()
        .take_while(|&c| c < r.end_byte)
        .chain([r.end_byte]);
    // Each line's start and point (a cut starts a line: column 0).
    let mut line = (r.start_byte, r.start_point);
    for end in ends {
        let end_point = if end == r.end_byte {
            r.end_point
        } else {
            let rows = memchr::memchr_iter(b'\n', &text.as_bytes()[line.0..end]).count();
            Point {
                row: line.1.row + rows,
                column: 0,
            }
        };
        match plain_launch(text, line.0..end) {
            Some(l) => {
                if let Some(from) = pending.take() {
                    parse(from, line, &mut out)?;
                }
                out.push(l);
            }
            None => {
                pending.get_or_insert(line);
            }
        }
        line = (end, end_point);
    }
    if let Some(from) = pending {
        parse(from, line, &mut out)?;
    }
    Some(out)
}

/// The launch of line `span` when it is a plain `gst-launch-1.0` command
/// (`shell_plain`); `None` for any other line.
fn plain_launch(text: &str, span: Span) -> Option<Launch> {
    let line = &text[span.clone()];
    let words = shell_plain::words(line.strip_suffix('\n').unwrap_or(line), span.start)?;
    let (name, args) = words.split_first()?;
    let program = &text[name.span.clone()];
    // `a=b/gst-launch-1.0` would be an assignment.
    if name.quoted || program.contains('=') || !is_gst_launch(program) {
        return None;
    }
    let args: Vec<PlainArg> = args.iter().map(|w| PlainArg { w, text }).collect();
    let end = words.last().map_or(name.span.end, |w| w.span.end);
    launch_of(program, &args, name.span.start..end)
}

/// The script's ranges between `cuts`, joined into pieces of at least
/// `piece` bytes (the last may be shorter).
fn pieces(text: &str, cuts: &[usize], piece: usize) -> Vec<Range> {
    let mut bounds = vec![0];
    for &cut in cuts.iter().chain([text.len()].iter()) {
        if cut - bounds[bounds.len() - 1] >= piece || cut == text.len() {
            bounds.push(cut);
        }
    }
    let points = points(text, &bounds);
    bounds
        .windows(2)
        .map(|w| Range {
            start_byte: w[0],
            end_byte: w[1],
            start_point: points[&w[0]],
            end_point: points[&w[1]],
        })
        .collect()
}

/// Every `gst-launch-1.0` command in a parsed script (or piece), in order.
fn launches_in(tree: &Tree, text: &str) -> Vec<Launch> {
    let mut out = Vec::new();
    // Depth-first, children in order, with one cursor.
    let mut c = tree.walk();
    loop {
        let node = c.node();
        if node.kind() == "command" {
            if let Some(l) = launch(node, text) {
                out.push(l);
            }
        }
        if c.goto_first_child() {
            continue;
        }
        while !c.goto_next_sibling() {
            if !c.goto_parent() {
                return out;
            }
        }
    }
}

/// The plain text of a word that has no quotes or expansions.
fn static_word<'t>(n: Node, text: &'t str) -> Option<&'t str> {
    matches!(n.kind(), "word" | "command_name" | "number")
        .then(|| &text[n.byte_range()])
        .filter(|w| !w.contains(['\\', '$', '"', '\'', '`']))
}

fn is_gst_launch(word: &str) -> bool {
    word.rsplit('/').next() == Some("gst-launch-1.0")
}

fn launch(cmd: Node, text: &str) -> Option<Launch> {
    let name = cmd.child_by_field_name("name")?;
    let mut c = cmd.walk();
    let args: Vec<NodeArg> = cmd
        .children_by_field_name("argument", &mut c)
        .map(|n| NodeArg { n, text })
        .collect();
    let program = static_word(name, text)?;
    launch_of(program, &args, cmd.byte_range())
}

/// An argument of a command as `launch_of` reads it: a node of the parsed
/// script, or a word of a plain line.
trait CommandArg {
    /// Its text when it has no quotes or expansions.
    fn static_text(&self) -> Option<&str>;
    /// The file offset just after its last byte.
    fn end_byte(&self) -> usize;
    /// Its characters as the shell leaves them.
    fn build(&self, b: &mut Arg);
}

struct NodeArg<'t> {
    n: Node<'t>,
    text: &'t str,
}

impl CommandArg for NodeArg<'_> {
    fn static_text(&self) -> Option<&str> {
        static_word(self.n, self.text)
    }
    fn end_byte(&self) -> usize {
        self.n.end_byte()
    }
    fn build(&self, b: &mut Arg) {
        b.node(self.n, self.text);
    }
}

struct PlainArg<'w> {
    w: &'w shell_plain::Word,
    text: &'w str,
}

impl CommandArg for PlainArg<'_> {
    fn static_text(&self) -> Option<&str> {
        (!self.w.quoted).then(|| &self.text[self.w.span.clone()])
    }
    fn end_byte(&self) -> usize {
        self.w.span.end
    }
    fn build(&self, b: &mut Arg) {
        for part in shell_plain::parts(self.text, self.w) {
            match part {
                Part::Unquoted(s, at) => b.unquoted(s, at),
                Part::Single(s, at) => b.chars(s, at),
                Part::Double(s, at) => b.double_quoted(s, at),
            }
        }
    }
}

/// The launch of command `program` with `args` (the whole command at
/// `span`), when it runs gst-launch (itself or behind a wrapper).
fn launch_of(program: &str, args: &[impl CommandArg], span: Span) -> Option<Launch> {
    let rest = if is_gst_launch(program) {
        args
    } else if WRAPPERS.contains(&program) {
        let at = args.iter().position(|a| a.static_text().is_some_and(is_gst_launch))?;
        // Only the wrappers' own options and `VAR=x` words before it.
        let before_ok = args[..at].iter().all(|a| {
            a.static_text()
                .is_some_and(|w| w.starts_with('-') || w.contains('=') || w.parse::<f64>().is_ok())
        });
        if !before_ok {
            return None;
        }
        &args[at + 1..]
    } else {
        return None;
    };
    let mut mapped = Mapped {
        shell_words: true,
        ..Mapped::default()
    };
    // The description is about as long as the command.
    let len = span.len();
    mapped.text.reserve(len);
    mapped.origin.reserve(len);
    let mut skip_value = false;
    let mut first = true;
    for arg in rest {
        if let Some(w) = arg.static_text() {
            if skip_value {
                skip_value = false;
                continue;
            }
            if w.starts_with('-') && w.len() > 1 {
                skip_value = OPTIONS_WITH_VALUE.contains(&w);
                continue;
            }
        }
        skip_value = false;
        if !first {
            mapped.push_synthetic(" ");
        }
        first = false;
        let mut b = Arg::new(&mut mapped);
        arg.build(&mut b);
        let end = mapped.text.len();
        mapped.word_ends.push((end, arg.end_byte()));
    }
    Some(Launch { mapped, span })
}

/// Builds one argument: its characters as the shell leaves them, with
/// gst_parse_launchv's escaping of spaces outside double quotes.
struct Arg<'m> {
    m: &'m mut Mapped,
    in_quotes: bool,
    prev: Option<char>,
}

impl<'m> Arg<'m> {
    fn new(m: &'m mut Mapped) -> Self {
        Arg {
            m,
            in_quotes: false,
            prev: None,
        }
    }

    fn char(&mut self, c: char, at: usize) {
        if c == '"' && (!self.in_quotes || self.prev != Some('\\')) {
            self.in_quotes = !self.in_quotes;
        }
        if c == ' ' && !self.in_quotes {
            self.m.push_synthetic("\\");
        }
        self.m.push_char(c, at);
        self.prev = Some(c);
    }

    /// `char` of each character of `s` (file offset `at`), a run without
    /// a quote or a space copied at once: the byte-by-byte push was most of
    /// an 8 MiB script's reading.
    fn chars(&mut self, s: &str, at: usize) {
        let mut from = 0;
        for (i, c) in s.match_indices(['"', ' ']) {
            if i > from {
                self.run(&s[from..i], at + from);
            }
            self.char(c.chars().next().unwrap_or(' '), at + i);
            from = i + c.len();
        }
        if s.len() > from {
            self.run(&s[from..], at + from);
        }
    }

    /// Characters without a quote or a space: `char` of each changes
    /// nothing but the text and `prev`.
    fn run(&mut self, s: &str, at: usize) {
        self.m.push_verbatim(s, at);
        self.prev = s.chars().next_back();
    }

    fn unknown(&mut self, n: Node, text: &str) {
        self.m
            .push_unknown(n.byte_range(), format!("`{}`", &text[n.byte_range()]));
        self.prev = None;
    }

    /// Characters outside quotes: a backslash escapes the next one.
    fn unquoted(&mut self, s: &str, at: usize) {
        let mut from = 0;
        while let Some(k) = s[from..].find('\\') {
            let i = from + k;
            self.chars(&s[from..i], at + from);
            from = i + 1;
            if let Some(n) = s[from..].chars().next() {
                if n != '\n' {
                    self.char(n, at + from);
                }
                from += n.len_utf8();
            }
        }
        self.chars(&s[from..], at + from);
    }

    /// Characters inside double quotes: a backslash escapes only `$`,
    /// `` ` ``, `"`, `\` and a newline.
    fn double_quoted(&mut self, s: &str, at: usize) {
        let mut from = 0;
        let mut search = 0;
        while let Some(k) = s[search..].find('\\') {
            let i = search + k;
            match s[i + 1..].chars().next() {
                Some(n) if matches!(n, '$' | '`' | '"' | '\\' | '\n') => {
                    self.chars(&s[from..i], at + from);
                    if n != '\n' {
                        self.char(n, at + i + 1);
                    }
                    from = i + 2;
                    search = from;
                }
                // A backslash that escapes nothing is itself.
                _ => search = i + 1,
            }
        }
        self.chars(&s[from..], at + from);
    }

    fn node(&mut self, n: Node, text: &str) {
        let r = n.byte_range();
        match n.kind() {
            "word" | "number" => self.unquoted(&text[r.clone()], r.start),
            "raw_string" => {
                let inner = &text[r.clone()];
                let body = inner.strip_prefix('\'').unwrap_or(inner);
                let body = body.strip_suffix('\'').unwrap_or(body);
                self.chars(body, r.start + 1);
            }
            "string" => {
                // The bytes between the quotes: content, with expansions.
                // A string left unclosed (tree-sitter's recovery) has no
                // closing quote to skip.
                let mut pos = r.start + 1;
                let closed = r.len() >= 2 && text[r.clone()].ends_with('"');
                let end = if closed { r.end - 1 } else { r.end }.max(pos);
                let mut c = n.walk();
                for child in n.named_children(&mut c) {
                    if child.kind() == "string_content" {
                        continue;
                    }
                    let cr = child.byte_range();
                    if cr.start > pos {
                        self.double_quoted(&text[pos..cr.start], pos);
                    }
                    self.unknown(child, text);
                    pos = cr.end.max(pos);
                }
                if end > pos {
                    self.double_quoted(&text[pos..end], pos);
                }
            }
            "concatenation" => {
                let mut c = n.walk();
                let children: Vec<Node> = n.children(&mut c).collect();
                let mut pos = r.start;
                for child in children {
                    let cr = child.byte_range();
                    if cr.start > pos {
                        // Bytes the grammar leaves between parts.
                        self.unquoted(&text[pos..cr.start], pos);
                    }
                    self.node(child, text);
                    pos = cr.end.max(pos);
                }
            }
            _ => self.unknown(n, text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_become_one_description() {
        let src = "B=4\nGST_DEBUG=3 gst-launch-1.0 -e --gst-debug-level 3 filesrc location=\"$HOME/my file.mp4\" ! m.sink_0 \\\n  nvstreammux name=m batch-size=${B} 'width'=1920 height= 1080 ! fakesink sync=a\\ b 2>&1 | tee log\necho gst-launch-1.0\n";
        let l = launches(src);
        assert_eq!(l.len(), 1);
        let m = &l[0].mapped;
        let p = crate::syntax::launch::PLACEHOLDER;
        assert_eq!(
            m.text,
            format!(
                "filesrc location={p}/my\\ file.mp4 ! m.sink_0 nvstreammux name=m batch-size={p} width=1920 height= 1080 ! fakesink sync=a\\ b"
            )
        );
        // `width` comes from inside the quotes; `1920` is verbatim.
        let at = m.text.find("1920").unwrap();
        assert_eq!(
            m.verbatim(&(at..at + 4), src),
            Some(src.find("1920").unwrap()..src.find("1920").unwrap() + 4)
        );
        assert_eq!(m.unknown[1].2, "`${B}`");
        // A new word after `height= 1080` goes after its word in the script.
        let end = m.text.find(" 1080").unwrap() + 5;
        assert_eq!(m.insertion_after(end, src), Some(src.find("1080").unwrap() + 4));
    }

    #[test]
    fn wrappers_and_non_launch_commands() {
        assert_eq!(launches("exec gst-launch-1.0 fakesrc ! fakesink\n").len(), 1);
        assert_eq!(
            launches("timeout 10 /usr/bin/gst-launch-1.0 fakesrc ! fakesink\n").len(),
            1
        );
        assert_eq!(launches("echo gst-launch-1.0 a ! b\n# gst-launch-1.0 x\n").len(), 0);
        assert_eq!(
            launches("f() {\n  gst-launch-1.0 a ! b\n}\nif x; then gst-launch-1.0 c ! d; fi\n").len(),
            2
        );
    }

    /// Snippets of scripts, each whole lines: what the cuts must not split
    /// wrongly.
    const SNIPPETS: &[&str] = &[
        "gst-launch-1.0 filesrc location=a.mp4 ! nvstreammux name=m batch-size=2 ! fakesink\n",
        "gst-launch-1.0 -e videotestsrc ! \\\n  nvvideoconvert ! fakesink sync=0\n",
        "if [ -n \"$X\" ]; then\n  gst-launch-1.0 a ! b\nfi\n",
        "cat <<EOF\ngst-launch-1.0 in ! heredoc\nEOF\n",
        "cat <<-'E' | sh\n\tgst-launch-1.0 x ! y\n\tE\n",
        "echo 'gst-launch-1.0 quoted\n' \"and $HOME\n\"\n",
        "# gst-launch-1.0 comment\n",
        "f() {\n  exec gst-launch-1.0 $SRC ! fakesink\n}\n",
        "case $1 in\n  -a) gst-launch-1.0 c ! d;;\n  *) ;;\nesac\n",
        "for i in 1 2; do\n  timeout 5 gst-launch-1.0 e ! f &\ndone\nwait\n",
        "A=$(gst-launch-1.0 g ! h)\n",
        "x=\"$(echo \")\")\"\n",
        "echo `gst-launch-1.0 i ! j`\n",
        "echo $'a\\'b\n'\n",
        "gst-launch-1.0 k ! l | tee log &&\n  echo ok\n",
        "echo x; fi\n",
        "(cd /tmp && gst-launch-1.0 m ! n)\n",
        "{ gst-launch-1.0 o ! p; }\n",
        "echo $((1 << 2))\n",
        "gst-launch-1.0 q ! r 2>&1 >/dev/null\n",
        "while read l; do gst-launch-1.0 \"$l\" ! s; done < list\n",
    ];

    /// Bits of shell syntax, glued at random.
    const BITS: &[&str] = &[
        "gst-launch-1.0 a ! b",
        "\n",
        "'",
        "\"",
        "\\",
        "$(",
        ")",
        "{",
        "}",
        "<<E",
        "E",
        "#",
        ";",
        "|",
        "&&",
        "if x; then",
        "fi",
        " ",
        "do",
        "done",
        "case",
        "esac",
        "`",
        "$'",
        "(",
        "<<-E",
        "\t",
    ];

    /// Words of plain lines, and some that make a line not plain.
    const WORDS: &[&str] = &[
        "!",
        "-e",
        "-v",
        "-",
        "--gst-debug-level",
        "3",
        "-1",
        "0x1f",
        "1.5",
        "a=b",
        "name=m",
        "m.sink_0",
        "location=/a/b_c.mp4",
        "\"q s\"",
        "'s q'",
        "a\"b\"c",
        "x='y z'",
        "caps=\"video/x-raw(memory:NVMM), width=(int)1920\"",
        "\"\"",
        "''",
        "=x",
        "==",
        "%d",
        "a@b",
        "+x",
        "^",
        "a,b:c",
        "\"it's\"",
        "'say \"hi\"'",
        "\"a!b\"",
        "$X",
        "a#b",
        "fi",
        "done",
        "then",
        "in",
        "esac",
        "{",
        "\\",
        "",
        "\t",
    ];

    /// How a line starts: plain launches and lines that are not.
    const HEADS: &[&str] = &[
        "gst-launch-1.0",
        "/usr/bin/gst-launch-1.0",
        "  gst-launch-1.0",
        "\tgst-launch-1.0",
        "exec gst-launch-1.0",
        "echo",
        "A=1 gst-launch-1.0",
        // Not a line of assignments only: tree-sitter-bash reads the next
        // line into the same command after two of them (bash does not).
        "a=b/gst-launch-1.0 x",
        "gst-launch-1.0\"\"",
    ];

    /// tree-sitter-bash reads a line of two assignments and the next line
    /// as one command (`a=b c=d` as its environment); bash runs them apart.
    /// Only the command's name and arguments make its description, so the
    /// launch is the one the script runs either way.
    #[test]
    fn assignments_on_the_line_before_do_not_change_the_launch() {
        let launch = "gst-launch-1.0 -e filesrc location=a.mp4 ! nvstreammux name=m batch-size=2 ! fakesink\n";
        for before in ["a=b c=d\n", "A=1 B=2 C=3\n", "a=b c=d \\\n  e=f\n"] {
            let with = launches_by(&format!("{before}{launch}"), usize::MAX);
            let without = launches_by(launch, usize::MAX);
            assert_eq!(with.len(), 1, "{before:?}");
            assert_eq!(with[0].mapped.text, without[0].mapped.text, "{before:?}");
            let at = before.len();
            let origins = |l: &Launch| l.mapped.origin.iter().map(|o| o.get()).collect::<Vec<_>>();
            let shifted: Vec<Option<usize>> = origins(&without[0]).into_iter().map(|o| o.map(|o| o + at)).collect();
            assert_eq!(origins(&with[0]), shifted, "{before:?}");
        }
    }

    #[test]
    fn a_plain_line_is_read_without_parsing() {
        let line = "gst-launch-1.0 filesrc location=/opt/s0.h264 ! h264parse ! m.sink_0 nvstreammux name=m batch-size=1 caps=\"a, b=(int)1\" 'c d' ! fakesink\n";
        let text = format!("set -e\n{line}");
        let plain = plain_launch(&text, 7..text.len()).expect("a plain line");
        let parsed = launches_by(&text, usize::MAX);
        assert_eq!(format!("{:?}", [plain]), format!("{parsed:?}"));
        assert!(plain_launch(&text, 0..7).is_none());
    }

    fn whole_and_pieces(text: &str) -> (String, String) {
        (
            format!("{:?}", launches_by(text, usize::MAX)),
            format!("{:?}", launches_by(text, 1)),
        )
    }

    proptest::proptest! {
        /// A script read in pieces gives the launches the whole gives.
        #[test]
        fn pieces_read_as_the_whole(
            parts in proptest::collection::vec(proptest::sample::select(SNIPPETS), 0..16)
        ) {
            let text = parts.concat();
            let (whole, pieces) = whole_and_pieces(&text);
            proptest::prop_assert_eq!(whole, pieces, "{}", text);
        }

        /// Plain lines read as tree-sitter reads them (and lines that
        /// are almost plain are parsed).
        #[test]
        fn plain_lines_read_as_the_whole(
            lines in proptest::collection::vec(
                (proptest::sample::select(HEADS), proptest::collection::vec(proptest::sample::select(WORDS), 0..8)),
                1..6,
            )
        ) {
            let text: String = lines
                .iter()
                .map(|(head, words)| format!("{head} {}\n", words.join(" ")))
                .collect();
            let (whole, pieces) = whole_and_pieces(&text);
            proptest::prop_assert_eq!(whole, pieces, "{}", text);
        }

        #[test]
        fn pieces_of_any_syntax_read_as_the_whole(
            parts in proptest::collection::vec(proptest::sample::select(BITS), 0..40)
        ) {
            let text = parts.concat();
            let (whole, pieces) = whole_and_pieces(&text);
            proptest::prop_assert_eq!(whole, pieces, "{}", text);
        }
    }

    #[test]
    fn a_long_script_is_read_in_pieces() {
        // Without the syntax error (which makes the whole script one piece).
        let text: String = SNIPPETS.iter().filter(|s| !s.contains("; fi")).copied().collect();
        assert!(shell_cuts::cuts(&text).len() >= 10);
        assert!(launches_in_pieces(&text, 1).is_some());
        let (whole, pieces) = whole_and_pieces(&text);
        assert_eq!(whole, pieces);
        assert_eq!(launches_by(&text, 1).len(), 13);
    }
}
