//! Unified diffs of what `fix` would change, and its summary.

use std::fmt::Write;
use std::path::Path;

use similar::TextDiff;

use crate::fix::engine::FixOutcome;
use crate::output::{escape_controls, plural};

pub fn unified(path: &Path, original: &str, new: &str, color: bool) -> String {
    unified_between(path, path, original, new, color)
}

/// A diff from one file to another (a script and its wrapped copy).
pub fn unified_between(from: &Path, to: &Path, original: &str, new: &str, color: bool) -> String {
    let diff = TextDiff::from_lines(original, new);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{}", from.display()), &format!("b/{}", to.display()))
        .to_string();
    // A diff is read on a terminal: control characters from the configs
    // are shown escaped, line by line (the line structure stays).
    let text: String = text
        .split_inclusive('\n')
        .map(|l| {
            // The line ending (CRLF too) stays as it is.
            let body = l.trim_end_matches('\n').trim_end_matches('\r');
            format!("{}{}", escape_controls(body), &l[body.len()..])
        })
        .collect();
    if !color {
        return text;
    }
    text.lines()
        .map(|l| match l.as_bytes().first() {
            Some(b'+') if !l.starts_with("+++") => format!("\x1b[32m{l}\x1b[0m\n"),
            Some(b'-') if !l.starts_with("---") => format!("\x1b[31m{l}\x1b[0m\n"),
            Some(b'@') => format!("\x1b[36m{l}\x1b[0m\n"),
            _ => format!("{l}\n"),
        })
        .collect()
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
    if !o.unsafe_left.is_empty() {
        let per: Vec<String> = o.unsafe_left.iter().map(|(c, n)| format!("{c} ×{n}")).collect();
        let _ = writeln!(
            s,
            "{} left: unsafe ({}); use --unsafe-fixes to apply.",
            plural(o.unsafe_left.values().sum(), "fix"),
            per.join(", ")
        );
    }
    s
}
