//! Unified diffs of what `fix` would change, and its summary.

use std::fmt::Write;
use std::path::Path;

use crate::fix::engine::FixOutcome;
use crate::fix::hunks;
use crate::output::{escape_controls, plural};

pub fn unified(path: &Path, original: &str, new: &str, color: bool) -> String {
    unified_between(path, path, original, new, color)
}

/// The diff with the files' bytes as they are (nothing escaped, no
/// colour): the diff that `patch` and `git apply` apply, as `git diff` and
/// GNU `diff -u` write it, for a reader that is no terminal (a patch file,
/// a JSON string, whose encoding escapes every control character).
pub fn unified_exact(path: &Path, original: &str, new: &str) -> String {
    hunks::unified(&header_name("a", path), &header_name("b", path), original, new)
}

/// Files whose diffs are made together (in parallel) and then written:
/// enough to keep every thread busy, few enough that the diffs of a large
/// tree are never all held at once (the 100k bench tree's are ~36 MB).
const DIFF_BATCH: usize = 512;

/// How `fix --diff` shows the files' bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// For a terminal, or a pipe that may lead to one: control characters
    /// escaped (`\x0d`), in colour where asked. A line with one no longer
    /// matches the file, so its hunk does not apply.
    Escaped { color: bool },
    /// For a regular file (`fix --diff > fix.patch`): the bytes as they
    /// are, the diff `git apply` and `patch` apply (`unified_exact`).
    Exact,
}

/// Write the diffs of every changed file, in path order, each batch of
/// files diffed in parallel (`DIFF_BATCH`). Returns how many diffs had
/// control characters escaped (their hunks do not apply).
pub fn write_all(
    changed: &std::collections::BTreeMap<std::path::PathBuf, (String, String)>,
    shown: Shown,
    w: &mut dyn std::io::Write,
) -> std::io::Result<usize> {
    use rayon::prelude::*;
    let files: Vec<_> = changed.iter().collect();
    let mut escaped = 0;
    for batch in files.chunks(DIFF_BATCH) {
        let diffs: Vec<(String, bool)> = batch
            .par_iter()
            .map(|(path, (original, new))| match shown {
                Shown::Exact => (unified_exact(path, original, new), false),
                Shown::Escaped { color } => shown_counted(unified_exact(path, original, new), color),
            })
            .collect();
        for (diff, had_controls) in diffs {
            escaped += usize::from(had_controls);
            w.write_all(diff.as_bytes())?;
        }
    }
    Ok(escaped)
}

/// A diff from one file to another (a script and its wrapped copy).
pub fn unified_between(from: &Path, to: &Path, original: &str, new: &str, color: bool) -> String {
    // `similar`'s line diff of the changed part only (hunks.rs says why it
    // is the whole texts' diff).
    let text = hunks::unified(&header_name("a", from), &header_name("b", to), original, new);
    shown(text, color)
}

/// A diff as the terminal gets it: control characters escaped, and in
/// colour where asked.
fn shown(text: String, color: bool) -> String {
    shown_counted(text, color).0
}

/// [`shown`], and whether a control character was escaped.
fn shown_counted(text: String, color: bool) -> (String, bool) {
    let (text, escaped) = escape_lines(text);
    if !color {
        return (text, escaped);
    }
    let text = text
        .lines()
        .map(|l| match l.as_bytes().first() {
            Some(b'+') if !l.starts_with("+++") => format!("\x1b[32m{l}\x1b[0m\n"),
            Some(b'-') if !l.starts_with("---") => format!("\x1b[31m{l}\x1b[0m\n"),
            Some(b'@') => format!("\x1b[36m{l}\x1b[0m\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    (text, escaped)
}

/// A diff is read on a terminal: control characters from the configs are
/// shown escaped, line by line (the line structure stays); and whether one
/// was.
fn escape_lines(text: String) -> (String, bool) {
    // Printable ASCII, tabs and newlines only (most diffs): nothing to
    // escape, the text as it is.
    if all_plain(text.as_bytes()) {
        return (text, false);
    }
    let mut any = false;
    // One string written line by line (a string a line was most of the
    // diffs' allocations).
    let mut escaped = String::with_capacity(text.len());
    for l in text.split_inclusive('\n') {
        // The line ending (one CRLF too) stays as it is. A lone CR is in
        // its line (`hunks::lines`), shown escaped like any control
        // character (`k=1\r\r\n` is the line `-k=1\x0d` and its CRLF).
        let body = l.strip_suffix('\n').map_or(l, |b| b.strip_suffix('\r').unwrap_or(b));
        let shown = escape_controls(body);
        any |= matches!(shown, std::borrow::Cow::Owned(_));
        escaped.push_str(&shown);
        escaped.push_str(&l[body.len()..]);
    }
    (escaped, any)
}

/// Whether every byte is printable ASCII, a tab or a newline. A block of
/// 64 bytes at a time is folded without a branch a byte (the compiler makes
/// it a vector loop): byte by byte, stopping at the first other, this scan
/// of the diffs was 48M of `fix --diff`'s 4.55G instructions on the 10k
/// bench tree.
fn all_plain(bytes: &[u8]) -> bool {
    let plain = |b: u8| (0x20..0x7f).contains(&b) | (b == b'\t') | (b == b'\n');
    let mut blocks = bytes.chunks_exact(64);
    blocks.by_ref().all(|b| b.iter().fold(true, |all, &c| all & plain(c)))
        && blocks.remainder().iter().all(|&c| plain(c))
}

/// A `---`/`+++` file name that GNU patch and `git apply` read back as the
/// same path, written as `git diff` writes it. A name with nothing to
/// quote is written as it is (as git does with `core.quotePath` off); one
/// with a quote, a backslash, a control character (C0, DEL, C1), a
/// bidirectional mark or bytes that are not UTF-8 is C-quoted as git's
/// default (`core.quotePath` on) quotes it: `\a \b \t \n \v \f \r \" \\`
/// by name, every other control byte and every byte from 0x80 up in
/// octal (`\302\233` for U+009B), so the quoted name is ASCII and shows as
/// it is on any terminal; patch 2.7 and `git apply` decode it. A name with
/// a space ends in a tab (patch ends a name at a tab), quoted or not, as
/// git writes it.
pub fn header_name(prefix: &str, path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    // Only a path spelt with a leading `.` can start with a `.` component
    // (`strip_prefix` walks the components: most of a name's cost).
    let path = if path.as_os_str().as_bytes().first() == Some(&b'.') {
        path.strip_prefix(".").unwrap_or(path)
    } else {
        path
    };
    let name = path.as_os_str().as_bytes();
    let tab = name.contains(&b' ') || prefix.contains(' ');
    // Most names: UTF-8 with nothing to quote, written as they are.
    let plain_ascii = |b: u8| b != b'"' && b != b'\\' && (0x20..0x7f).contains(&b);
    let plain = |s: &str| {
        // Printable ASCII is looked at a byte at a time; chars only where
        // there is other.
        s.bytes().all(plain_ascii)
            || s.chars().all(|c| {
                if c.is_ascii() {
                    plain_ascii(c as u8)
                } else {
                    !crate::output::acts_on_terminal(c)
                }
            })
    };
    let mut out = String::with_capacity(prefix.len() + name.len() + 4);
    match std::str::from_utf8(name) {
        Ok(n) if plain(prefix) && plain(n) => {
            for s in [prefix, "/", n] {
                out.push_str(s);
            }
        }
        _ => {
            out.push('"');
            for &b in prefix.as_bytes().iter().chain(b"/").chain(name) {
                match b {
                    b'"' => out.push_str("\\\""),
                    b'\\' => out.push_str("\\\\"),
                    0x07 => out.push_str("\\a"),
                    0x08 => out.push_str("\\b"),
                    b'\t' => out.push_str("\\t"),
                    b'\n' => out.push_str("\\n"),
                    0x0b => out.push_str("\\v"),
                    0x0c => out.push_str("\\f"),
                    b'\r' => out.push_str("\\r"),
                    0x20..0x7f => out.push(char::from(b)),
                    b => {
                        out.push('\\');
                        for shift in [6, 3, 0] {
                            out.push(char::from(b'0' + ((b >> shift) & 7)));
                        }
                    }
                }
            }
            out.push('"');
        }
    }
    if tab {
        out.push('\t');
    }
    out
}

pub fn summary(o: &FixOutcome, written: bool) -> String {
    let mut s = String::new();
    let verb = if written { "fixed" } else { "would fix" };
    let total: usize = o.applied.values().sum();
    let _ = write!(
        s,
        "{} {} in {}",
        verb,
        plural(total, "finding"),
        plural(o.changed.len(), "file")
    );
    if !o.applied.is_empty() {
        let per: Vec<String> = o.applied.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
        let _ = write!(s, " ({})", per.join(", "));
    }
    s.push_str(".\n");
    if !o.not_written.is_empty() {
        let _ = writeln!(
            s,
            "{} in {} not written (the errors above).",
            plural(o.unwritten_fixes, "fix"),
            plural(o.not_written.len(), "file"),
        );
    }
    if !o.unsafe_left.is_empty() {
        let per: Vec<String> = o.unsafe_left.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
        let _ = writeln!(
            s,
            "{} left: unsafe ({}); use --unsafe-fixes to apply.",
            plural(o.unsafe_left.values().sum(), "fix"),
            per.join(", ")
        );
    }
    if !o.dropped.is_empty() {
        let _ = writeln!(
            s,
            "{} dropped: a finding at warning or above appeared after {} (--show-fixes lists {}).",
            plural(o.dropped.len(), "fix"),
            if o.dropped.len() == 1 { "it" } else { "them" },
            if o.dropped.len() == 1 { "it" } else { "them" },
        );
    }
    if !o.conflicting.is_empty() {
        let shown: Vec<String> = o.conflicting.iter().take(3).map(|p| p.display().to_string()).collect();
        let more = o.conflicting.len().saturating_sub(shown.len());
        let _ = writeln!(
            s,
            "{} left unfixed where fixes undo one another (a file shared by pipelines that want different values): {}{}.",
            plural(o.conflicting.len(), "file"),
            crate::output::escape_controls(&shown.join(", ")),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `unified_between` as 8e7e589 made it: `similar`'s diff of the texts
    /// whole, then shown as every diff is (the escaping is tested by
    /// `a_stray_cr_in_a_diff_is_escaped_in_its_line`, tests/fix.rs).
    /// (Its lines ended at `\n` alone since hostile10, as GLib's and
    /// `patch`'s do: `hunks::tests::similar_lf`.)
    fn before(from: &Path, to: &Path, original: &str, new: &str, color: bool) -> String {
        let text = hunks::tests::similar_lf(original, new, &header_name("a", from), &header_name("b", to));
        shown(text, color)
    }

    fn text() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            Just("k=1\n"),
            Just("k=2\n"),
            Just("x\r\n"),
            Just("\r"),
            Just("\r\r\n"),
            Just("e\x1b]0;t\x07\n"),
            Just("r\u{202e}l\n"),
            Just("\u{85}\n"),
            Just("+++ x\n"),
            Just("--- y\n"),
            Just("@@ z\n"),
            Just("end"),
        ];
        prop::collection::vec(line, 0..40).prop_map(|v| v.concat())
    }

    /// The block scan says what a scan byte by byte says, at every length
    /// and place of the one byte that is not plain.
    #[test]
    fn all_plain_is_every_byte_plain() {
        let bytes_plain = |t: &[u8]| t.iter().all(|&b| (0x20..0x7f).contains(&b) || b == b'\t' || b == b'\n');
        for len in [0, 1, 63, 64, 65, 127, 128, 200] {
            let text = vec![b'k'; len];
            assert!(all_plain(&text));
            for at in 0..len {
                for odd in [b'\r', 0x1b, 0x7f, 0x1f, 0x80, 0xe2, b'\t', b'\n', b' ', b'~'] {
                    let mut t = text.clone();
                    t[at] = odd;
                    assert_eq!(all_plain(&t), bytes_plain(&t), "{len} {at} {odd}");
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn diffs_are_what_they_were(old in text(), new in text(), color: bool) {
            let (a, b) = (Path::new("./d/x y.txt"), Path::new("d/\x1b.txt"));
            prop_assert_eq!(unified_between(a, b, &old, &new, color), before(a, b, &old, &new, color));
        }
    }
}
