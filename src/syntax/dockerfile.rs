//! What a Dockerfile or Containerfile copies from its build context into
//! an image: the sources of its `COPY` and `ADD` instructions. A config
//! that is copied runs from the copy, in the image's tree, next to files
//! the base image and the build's other steps put there (`RUN cp`, `RUN
//! wget`, the DeepStream install of an `nvcr.io/nvidia/deepstream` image),
//! which the project's tree does not show (`Workspace::resolve`).
//!
//! Read as Docker's parser reads the file (its reference, "Dockerfile
//! reference"): instructions are case-insensitive; a line ending in the
//! escape character (`\`, or the one a leading `# escape=` directive names)
//! goes on on the next, comment and empty lines inside it dropped; `COPY`
//! and `ADD` take flags (`--chown=…`, `--link`, …) and then sources and one
//! destination, whitespace-separated or as a JSON array. Sources are
//! relative to the build context (a leading `/` too; `..` stops at its
//! top). A copy `--from` another stage or image, a heredoc (`<<EOF`) and an
//! `ADD` of a URL copy nothing of the project. A source with a wildcard or
//! a variable (`config/*.txt`, `$APP_DIR`) is cut to the folder before it:
//! what it copies lies inside that folder, and more of the tree counted as
//! copied only leaves more paths unknown, never a finding.

use std::path::Path;

/// The most sources one file gives (a hostile file stays bounded; a real
/// one has tens); a file with more may copy anything (`copied_sources`).
const MAX_SOURCES: usize = 1_000;

/// Whether a file of this name is a Dockerfile or a Containerfile
/// (`Dockerfile`, `Dockerfile.dev`, `app.Dockerfile`, any case).
pub fn is_containerfile(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    // Every file of a walk is asked: its name's bytes, nothing allocated.
    let Some(name) = path.file_name().map(|n| n.as_bytes()) else {
        return false;
    };
    [b"dockerfile".as_slice(), b"containerfile"].iter().any(|k| {
        let n = k.len();
        let starts = name.len() >= n && name[..n].eq_ignore_ascii_case(k) && (name.len() == n || name[n] == b'.');
        let ends = name.len() > n && name[name.len() - n..].eq_ignore_ascii_case(k) && name[name.len() - n - 1] == b'.';
        starts || ends
    })
}

/// The build-context paths the file's `COPY` and `ADD` instructions copy,
/// relative to the context, normalized (`""` is the context itself), in
/// the order written, each cut at its first component with a wildcard or
/// a variable. `None` for a file with more than [`MAX_SOURCES`] sources:
/// what the ones not read copy is unknown.
pub fn copied_sources(text: &str) -> Option<Vec<String>> {
    let escape = escape_char(text);
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(first) = lines.next() {
        let trimmed = first.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        // One instruction: its lines joined while each ends in the escape.
        let mut joined = String::new();
        let mut line = first;
        loop {
            let body = line.trim_end();
            match body.strip_suffix(escape) {
                Some(cont) => {
                    joined.push_str(cont);
                    joined.push(' ');
                    let Some(next) = lines.by_ref().find(|l| {
                        let t = l.trim();
                        !t.is_empty() && !t.starts_with('#')
                    }) else {
                        break;
                    };
                    line = next;
                }
                None => {
                    joined.push_str(body);
                    break;
                }
            }
        }
        // A heredoc's body is no instruction: skipped to its delimiter.
        for (word, strip_tabs) in heredocs(&joined) {
            for l in lines.by_ref() {
                let l = if strip_tabs { l.trim_start_matches('\t') } else { l };
                if l == word {
                    break;
                }
            }
        }
        let mut words = joined.trim_start().splitn(2, char::is_whitespace);
        let instruction = words.next().unwrap_or("");
        let add = instruction.eq_ignore_ascii_case("add");
        if !add && !instruction.eq_ignore_ascii_case("copy") {
            continue;
        }
        for source in sources(words.next().unwrap_or(""), add)? {
            if out.len() == MAX_SOURCES {
                return None;
            }
            out.push(source);
        }
    }
    Some(out)
}

/// The escape character a `# escape=` parser directive at the top of the
/// file names (`\` without one).
fn escape_char(text: &str) -> char {
    for line in text.lines() {
        // Directives are `# name=value` comments before anything else.
        let Some(rest) = line.trim().strip_prefix('#') else {
            break;
        };
        let Some((name, value)) = rest.split_once('=') else {
            break;
        };
        let name = name.trim();
        if name.eq_ignore_ascii_case("escape") {
            if value.trim() == "`" {
                return '`';
            }
            break;
        }
        if !name.eq_ignore_ascii_case("syntax") && !name.eq_ignore_ascii_case("check") {
            break;
        }
    }
    '\\'
}

/// The heredocs an instruction opens: each word that begins with `<<`
/// (`<<EOF`, `<<-EOF`, `<<"EOF"`; BuildKit's `ParseHeredoc` reads no other,
/// so `$((1<<2))` opens none), its delimiter and whether its body's lines
/// lose their leading tabs; found as they are read (none is copied: a
/// hostile line of 2 million held ~110 MB).
fn heredocs(instruction: &str) -> impl Iterator<Item = (&str, bool)> {
    instruction.split_whitespace().filter_map(|w| {
        let rest = w.strip_prefix("<<")?;
        let (strip, rest) = match rest.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let word = rest.trim_matches(['"', '\'']);
        (!word.is_empty() && !word.starts_with('<')).then_some((word, strip))
    })
}

/// The sources of one `COPY` / `ADD` (its arguments), normalized; `None`
/// past [`MAX_SOURCES`] arguments, told before they are listed (a hostile
/// `COPY` of 5 million words held ~420 MB as strings).
fn sources(args: &str, add: bool) -> Option<Vec<String>> {
    let mut rest = args.trim_start();
    // Flags first: `--chown=…`, `--link`; `--from` copies another stage's
    // or image's files, none of the context's.
    while let Some(flag) = rest.strip_prefix("--") {
        let end = flag.find(char::is_whitespace).unwrap_or(flag.len());
        let name = flag[..end].split('=').next().unwrap_or("");
        if name.eq_ignore_ascii_case("from") {
            return Some(Vec::new());
        }
        rest = flag[end..].trim_start();
    }
    // At most the sources and the destination, as whitespace-separated
    // words.
    let words = || {
        let words: Vec<String> = rest
            .split_whitespace()
            .take(MAX_SOURCES + 2)
            .map(str::to_string)
            .collect();
        (words.len() <= MAX_SOURCES + 1).then_some(words)
    };
    let mut paths: Vec<String> = if rest.starts_with('[') {
        // A JSON array of more has more than twice as many quotes.
        if memchr::memchr_iter(b'"', rest.as_bytes())
            .nth(2 * MAX_SOURCES + 2)
            .is_some()
        {
            return None;
        }
        match serde_json::from_str::<Vec<String>>(rest) {
            Ok(list) => list,
            // Not JSON: Docker then reads the line as whitespace-separated.
            Err(_) => words()?,
        }
    } else {
        words()?
    };
    // The last is the destination.
    paths.pop();
    let sources = paths
        .iter()
        .filter(|p| !p.starts_with("<<"))
        .filter(|p| !(add && (p.contains("://") || p.starts_with("git@"))))
        .map(|p| normalize(p))
        .collect();
    Some(sources)
}

/// A source relative to the context: `.` dropped, `..` folded (never above
/// the context), cut before its first component with a wildcard or a
/// variable.
fn normalize(source: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in source.split('/') {
        if c.contains(['*', '?', '[', '$', '{']) {
            break;
        }
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for yes in [
            "Dockerfile",
            "dockerfile",
            "Dockerfile.dev",
            "gpu.Dockerfile",
            "Containerfile",
        ] {
            assert!(is_containerfile(Path::new(yes)), "{yes}");
        }
        for no in ["Dockerfiles", "docker-compose.yml", "mydockerfile", "README.md"] {
            assert!(!is_containerfile(Path::new(no)), "{no}");
        }
    }

    #[test]
    fn copy_and_add_sources() {
        let text = "\
# syntax=docker/dockerfile:1
FROM nvcr.io/nvidia/deepstream:7.1-samples AS base
copy . .
COPY --chown=1000:1000 --link configs/app.txt configs/pgie.txt /opt/app/
COPY [\"models dir/\", \"/models\"]
ADD https://example.com/m.onnx ./ /srv/
ADD --checksum=sha256:00 scripts/run.sh \\
    # a comment inside the instruction
    tools/ /usr/bin/
COPY --from=base /opt/x /opt/x
COPY config/*.txt /opt/nvidia/deepstream/deepstream/samples/configs/
COPY ./a/../b/./c $DIR/d /dst
RUN <<EOF
COPY heredoc/body /nowhere
EOF
COPY <<EOF /etc/app.conf
COPY inline/text /x
EOF
COPY last /dst
";
        assert_eq!(
            copied_sources(text).unwrap(),
            [
                "",
                "configs/app.txt",
                "configs/pgie.txt",
                "models dir",
                "",
                "scripts/run.sh",
                "tools",
                "config",
                "b/c",
                "",
                "last",
            ]
        );
    }

    #[test]
    fn escape_directive() {
        let text = "# escape=`\nFROM x\nCOPY a `\n  b C:\\dst\\\nCOPY c\\ /d\n";
        assert_eq!(copied_sources(text).unwrap(), ["a", "b", "c\\"]);
    }

    #[test]
    fn bounded() {
        let text = format!("COPY {} /d\n", "a ".repeat(MAX_SOURCES + 5));
        assert_eq!(copied_sources(&text), None);
        let text = format!("COPY {} /d\n", "a ".repeat(MAX_SOURCES));
        assert_eq!(copied_sources(&text).unwrap().len(), MAX_SOURCES);
        // As a JSON array, the same.
        let json = |n: usize| format!("COPY [{}\"/d\"]\n", "\"a\", ".repeat(n));
        assert_eq!(copied_sources(&json(MAX_SOURCES + 1)), None);
        assert_eq!(copied_sources(&json(MAX_SOURCES)).unwrap().len(), MAX_SOURCES);
        // Told before they are listed: what one instruction gives past the
        // bound is not counted, whatever comes after it.
        let text = format!("COPY {} /d\nCOPY b /d\n", "a ".repeat(10 * MAX_SOURCES));
        assert_eq!(copied_sources(&text), None);
    }
}
