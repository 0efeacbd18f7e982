//! Inline suppressions, the way ruff's `noqa` and ESLint's
//! `disable-next-line` work:
//!
//! - `# dslint: ignore[DS101]` on a line of its own silences those codes on
//!   the next line that is not blank or a comment;
//! - in YAML, shell scripts and Python also as a trailing comment on the
//!   finding's line (not in key-files:
//!   GLib reads a trailing `#…` as part of the value);
//! - `# dslint: ignore-file[DS6]` anywhere silences the codes (a prefix
//!   selects a family) in the whole file; bare `ignore-file` silences all.
//!
//! A finding that names two files (DS701) is silenced by a suppression on
//! either. A suppression that silences nothing is reported (DS009).

use crate::base::FileId;
use crate::base::diagnostic::Diagnostic;
use crate::base::edit::{Edit, Fix};
use crate::base::rule::Rule;
use crate::model::workspace::Workspace;
use crate::syntax::Format;

#[derive(Debug, Clone)]
pub struct Suppression {
    pub file: FileId,
    /// The 1-based line it applies to; `None` for a whole-file one.
    pub target_line: Option<usize>,
    /// Codes or prefixes; empty means every code.
    pub codes: Vec<String>,
    /// The bytes a removal fix deletes (the comment line, or the trailing comment).
    pub removal: std::ops::Range<usize>,
    /// Where the directive is written (for DS009).
    pub at: std::ops::Range<usize>,
    pub used: bool,
}

const MARK: &str = "dslint:";

fn parse_codes(s: &str) -> Option<(bool, Vec<String>)> {
    let s = s.trim_start();
    let (file, rest) = if let Some(r) = s.strip_prefix("ignore-file") {
        (true, r)
    } else if let Some(r) = s.strip_prefix("ignore") {
        (false, r)
    } else {
        return None;
    };
    let rest = rest.trim_start();
    if let Some(inner) = rest.strip_prefix('[') {
        let inner = inner.split(']').next()?;
        let codes = inner
            .split(',')
            .map(|c| c.trim().to_ascii_uppercase())
            .filter(|c| !c.is_empty())
            .collect();
        Some((file, codes))
    } else if file {
        Some((true, Vec::new()))
    } else {
        None
    }
}

pub fn collect(ws: &Workspace, file: FileId) -> Vec<Suppression> {
    let f = &ws.files[file];
    let text = &f.doc.text;
    // Every directive has the mark: a file without it (nearly all) is
    // passed over in one memmem scan, not line by line (its searcher built
    // once, not once a file).
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(MARK));
    if FINDER.find(text.as_bytes()).is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut pending: Vec<Suppression> = Vec::new();
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let line_no = i + 1;
        let trimmed = line.trim();
        let start = offset;
        offset += line.len();
        let whole_comment = trimmed.starts_with('#');
        if !whole_comment && !trimmed.is_empty() {
            for mut p in pending.drain(..) {
                p.target_line = Some(line_no);
                out.push(p);
            }
        }
        let Some(pos) = line.find('#') else { continue };
        let comment = &line[pos + 1..];
        let Some(m) = comment.trim_start().strip_prefix(MARK) else {
            // A trailing comment in YAML may come after other text.
            if trailing_comments(f.doc.format) && !whole_comment {
                if let Some(p2) = line.find("# dslint:") {
                    let c = &line[p2 + 2 + MARK.len()..];
                    if let Some((false, codes)) = parse_codes(c) {
                        let end = start + line.trim_end_matches(['\n', '\r']).len();
                        let ws_start = start + line[..p2].trim_end().len();
                        out.push(Suppression {
                            file,
                            target_line: Some(line_no),
                            codes,
                            removal: ws_start..end,
                            at: start + p2..end,
                            used: false,
                        });
                    }
                }
            }
            continue;
        };
        let Some((is_file, codes)) = parse_codes(m) else {
            continue;
        };
        let end = start + line.trim_end_matches(['\n', '\r']).len();
        // A whole-line directive: removing it removes its line.
        let own_line = Suppression {
            file,
            target_line: None,
            codes: codes.clone(),
            removal: start..offset,
            at: start + pos..end,
            used: false,
        };
        if is_file {
            out.push(own_line);
        } else if whole_comment {
            pending.push(own_line);
        } else if trailing_comments(f.doc.format) {
            let ws_start = start + line[..pos].trim_end().len();
            out.push(Suppression {
                file,
                target_line: Some(line_no),
                codes,
                removal: ws_start..end,
                at: start + pos..end,
                used: false,
            });
        }
    }
    // A directive with no line after it applies to nothing (DS009 reports it).
    for mut p in pending {
        p.target_line = Some(usize::MAX);
        out.push(p);
    }
    out
}

fn matches(codes: &[String], code: &str) -> bool {
    codes.is_empty() || codes.iter().any(|c| code.starts_with(c.as_str()))
}

/// Every file's suppressions, in file order: what [`apply`] reads. `fix`
/// keeps them between passes and collects again only the files whose text
/// its edits changed.
pub struct Suppressions {
    per_file: Vec<Vec<Suppression>>,
}

impl Suppressions {
    /// Each file's suppressions, found in parallel.
    pub fn of(ws: &Workspace) -> Suppressions {
        use rayon::prelude::*;
        Suppressions {
            per_file: (0..ws.files.len()).into_par_iter().map(|f| collect(ws, f)).collect(),
        }
    }

    /// Collect again those of `files` (the workspace has the same files).
    pub fn update(&mut self, ws: &Workspace, files: &[FileId]) {
        use rayon::prelude::*;
        let found: Vec<(FileId, Vec<Suppression>)> = files.par_iter().map(|&f| (f, collect(ws, f))).collect();
        for (f, list) in found {
            self.per_file[f] = list;
        }
    }
}

/// Drop suppressed findings, then report unused suppressions whose codes
/// are all enabled (`enabled(code)`).
pub fn apply(
    ws: &Workspace,
    suppressions: &Suppressions,
    diags: Vec<Diagnostic>,
    enabled: &dyn Fn(&str) -> bool,
) -> Vec<Diagnostic> {
    let mut first = Vec::with_capacity(suppressions.per_file.len() + 1);
    let mut sups: Vec<Suppression> = Vec::new();
    for list in &suppressions.per_file {
        first.push(sups.len());
        sups.extend(list.iter().cloned());
    }
    first.push(sups.len());
    // In place: the findings kept are not moved to a second list, and a
    // run without suppressions (most) looks at none of them.
    let mut kept = diags;
    if !sups.is_empty() {
        kept.retain(|d| {
            let mut silenced = false;
            let places = std::iter::once((d.file, d.span.start)).chain(d.related.iter().map(|(f, s)| (*f, s.start)));
            for (file, offset) in places {
                let of_file = &mut sups[first[file]..first[file + 1]];
                if of_file.is_empty() {
                    continue;
                }
                let line = ws.files[file].lines.line(offset);
                for s in of_file.iter_mut().filter(|s| matches(&s.codes, d.code())) {
                    if s.target_line.is_none_or(|t| t == line) {
                        s.used = true;
                        silenced = true;
                    }
                }
            }
            !silenced
        });
    }
    for s in sups.iter().filter(|s| !s.used) {
        let all_enabled = if s.codes.is_empty() {
            enabled("DS")
        } else {
            s.codes.iter().all(|c| enabled(c))
        };
        if !all_enabled || !enabled("DS009") {
            continue;
        }
        let what = if s.codes.is_empty() {
            "all codes".to_string()
        } else {
            s.codes.join(", ")
        };
        let fix = Fix::safe(
            "remove the suppression",
            vec![Edit {
                file: s.file,
                range: s.removal.clone(),
                text: String::new(),
            }],
        );
        kept.push(
            Diagnostic::new(
                Rule::UnusedSuppression,
                s.file,
                s.at.clone(),
                format!("unused suppression ({what}): nothing here is reported"),
            )
            .why("a stale suppression would hide the next real finding on this line")
            .fix(Some(fix)),
        );
    }
    kept
}

/// Whether a `#` after other text on a line starts a comment: in YAML, shell
/// scripts and Python, not in key-files (GLib reads it as part of the value).
fn trailing_comments(format: Format) -> bool {
    matches!(format, Format::Yaml | Format::Shell | Format::Python)
}
