//! SARIF 2.1.0 (GitHub code scanning), written as it is made: typed
//! records serialized one result at a time to the writer, so the output is
//! never held whole (no `serde_json::Value` tree, no output string). Fields
//! are declared in name order, the order the keys always had.

use std::io::{self, Write};

use serde::Serialize;
use serde::ser::Serializer;

use crate::base::FileId;
use crate::base::diagnostic::{Diagnostic, Severity};
use crate::base::edit::{Applicability, Fix};
use crate::base::rule as registry;
use crate::model::workspace::Workspace;
use crate::output::fingerprint::fnv1a;
use crate::output::machine::{INFO_URI, uri};
use crate::output::{FileProblem, locate};
use crate::syntax::Document;

/// Bytes a URI path keeps as they are: RFC 3986 unreserved and `/`.
const URI_PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// A SARIF `artifactLocation.uri`: a relative reference with every other
/// byte percent-encoded (`my configs/100%.txt` → `my%20configs/100%25.txt`),
/// or a `file://` URI for an absolute path.
fn sarif_uri(p: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let rel = p.strip_prefix(".").unwrap_or(p);
    let encoded = percent_encoding::percent_encode(rel.as_os_str().as_bytes(), URI_PATH).to_string();
    if rel.is_absolute() {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

#[derive(Serialize)]
struct Log<R: Serialize> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    runs: [Run<R>; 1],
    version: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<R: Serialize> {
    column_kind: &'static str,
    results: R,
    tool: Tool,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    information_uri: &'static str,
    name: &'static str,
    rules: Vec<RuleRecord>,
    version: &'static str,
}

#[derive(Serialize)]
struct Text<S: Serialize> {
    text: S,
}

#[derive(Serialize)]
struct Help {
    markdown: &'static str,
    text: &'static str,
}

#[derive(Serialize)]
struct Level {
    level: &'static str,
}

#[derive(Serialize)]
struct FixProperty {
    fix: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleRecord {
    default_configuration: Level,
    full_description: Text<String>,
    help: Help,
    help_uri: String,
    id: &'static str,
    name: &'static str,
    properties: FixProperty,
    short_description: Text<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultRecord<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    fixes: Option<[FixRecord; 1]>,
    level: &'static str,
    locations: [Location; 1],
    message: Text<String>,
    partial_fingerprints: Fingerprints,
    rule_id: &'a str,
    rule_index: usize,
}

#[derive(Serialize)]
struct Fingerprints {
    #[serde(rename = "dslint/v1")]
    v1: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: Artifact,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct Artifact {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    end_column: usize,
    end_line: usize,
    start_column: usize,
    start_line: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FixRecord {
    artifact_changes: Vec<ArtifactChange>,
    description: Text<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactChange {
    artifact_location: Artifact,
    replacements: Vec<Replacement>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Replacement {
    deleted_region: DeletedRegion,
    inserted_content: Text<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeletedRegion {
    byte_length: usize,
    byte_offset: usize,
}

/// The results, made one at a time as the serializer asks for them.
struct Results<'a> {
    ws: &'a Workspace,
    diags: &'a [Diagnostic],
    problems: &'a [FileProblem<'a>],
}

impl Serialize for Results<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let index = |code: &str| registry::RULES.iter().position(|r| r.code == code).unwrap_or(0);
        let problems = self.problems.iter().map(|p| ResultRecord {
            fixes: None,
            level: level(p.severity),
            locations: [Location {
                physical_location: PhysicalLocation {
                    artifact_location: Artifact { uri: sarif_uri(p.path) },
                    region: None,
                },
            }],
            message: Text {
                text: p.message.to_string(),
            },
            partial_fingerprints: Fingerprints {
                v1: fnv1a(&[p.code, &uri(p.path)]),
            },
            rule_id: p.code,
            rule_index: index(p.code),
        });
        // Findings come sorted by file: each file's keys are indexed once.
        let mut keys: Option<(FileId, LogicalKeys)> = None;
        let diags = self.diags.iter().map(move |d| {
            if keys.as_ref().is_none_or(|(f, _)| *f != d.file) {
                keys = Some((d.file, LogicalKeys::new(&self.ws.files[d.file].doc)));
            }
            let key = keys
                .as_ref()
                .and_then(|(_, k)| k.key(d.span.start))
                .unwrap_or_else(|| d.message.clone());
            result(self.ws, d, &key)
        });
        s.collect_seq(problems.chain(diags))
    }
}

fn result<'a>(ws: &Workspace, d: &'a Diagnostic, logical_key: &str) -> ResultRecord<'a> {
    let l = locate(ws, d);
    let mut text = d.message.clone();
    if let Some(e) = &d.expected {
        text.push_str(&format!(" (expected: {e})"));
    }
    ResultRecord {
        fixes: d.fix.as_ref().map(|f| [fix(ws, f)]),
        level: level(d.severity()),
        locations: [Location {
            physical_location: PhysicalLocation {
                artifact_location: Artifact { uri: sarif_uri(l.path) },
                region: Some(Region {
                    end_column: l
                        .end_col
                        .max(l.col + usize::from(l.end_line == l.line && l.end_col == l.col)),
                    end_line: l.end_line,
                    start_column: l.col,
                    start_line: l.line,
                }),
            },
        }],
        message: Text { text },
        partial_fingerprints: Fingerprints {
            v1: fnv1a(&[d.code(), &uri(l.path), logical_key]),
        },
        rule_id: d.code(),
        rule_index: d.rule() as usize,
    }
}

/// A fix: its edits grouped by file, files in id order.
fn fix(ws: &Workspace, fix: &Fix) -> FixRecord {
    let files: std::collections::BTreeSet<FileId> = fix.edits.iter().map(|e| e.file).collect();
    let safety = if fix.applicability == Applicability::Safe {
        "safe"
    } else {
        "unsafe"
    };
    FixRecord {
        artifact_changes: files
            .into_iter()
            .map(|file| ArtifactChange {
                artifact_location: Artifact {
                    uri: sarif_uri(&ws.files[file].path),
                },
                replacements: fix
                    .edits
                    .iter()
                    .filter(|e| e.file == file)
                    .map(|e| Replacement {
                        deleted_region: DeletedRegion {
                            byte_length: e.range.len(),
                            byte_offset: e.range.start,
                        },
                        inserted_content: Text { text: e.text.clone() },
                    })
                    .collect(),
            })
            .collect(),
        description: Text {
            text: format!("{} ({safety})", fix.title),
        },
    }
}

fn rules() -> Vec<RuleRecord> {
    registry::RULES
        .iter()
        .map(|r| RuleRecord {
            default_configuration: Level {
                level: level(r.severity),
            },
            full_description: Text {
                text: section(r.page, "## What it checks"),
            },
            help: Help {
                markdown: r.page,
                text: r.page,
            },
            help_uri: format!("{INFO_URI}/blob/main/rules/{}.md", r.code),
            id: r.code,
            name: r.name,
            properties: FixProperty { fix: r.fix.describe() },
            short_description: Text { text: r.summary },
        })
        .collect()
}

fn section(page: &str, heading: &str) -> String {
    page.split(heading)
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Write the SARIF log of a run (pretty, two-space indent, a final newline).
pub fn write(out: &mut dyn Write, ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> io::Result<()> {
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        runs: [Run {
            column_kind: "unicodeCodePoints",
            results: Results { ws, diags, problems },
            tool: Tool {
                driver: Driver {
                    information_uri: INFO_URI,
                    name: "dslint",
                    rules: rules(),
                    version: env!("CARGO_PKG_VERSION"),
                },
            },
        }],
        version: "2.1.0",
    };
    log.serialize(&mut serde_json::Serializer::pretty(&mut *out))
        .map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// The SARIF log as a string (tests, and callers that want it whole).
pub fn render(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> String {
    crate::output::to_string(|w| write(w, ws, diags, problems))
}

/// The group/key a finding is about, for fingerprints (else the message):
/// the first group, in file order, with an entry whose line holds the
/// finding, or whose name does.
///
/// Looked up by binary search over the document's spans when they do not
/// overlap (then at most one holds any offset, so the first in file order
/// is that one), so a file of 100k groups with 100k findings stays
/// n log n; a document whose spans overlap is scanned as it always was.
struct LogicalKeys<'a> {
    doc: &'a Document,
    spans: Option<Vec<KeySpan>>,
}

/// (start, end, group, entry) of a span that names a key: entry `None`
/// for the group's name.
type KeySpan = (usize, usize, usize, Option<usize>);

impl<'a> LogicalKeys<'a> {
    fn new(doc: &'a Document) -> LogicalKeys<'a> {
        let mut spans = Vec::new();
        for (gi, g) in doc.groups.iter().enumerate() {
            spans.push((g.name_span.start, g.name_span.end + 1, gi, None));
            for (ei, e) in g.entries.iter().enumerate() {
                spans.push((
                    e.spans.line().start,
                    e.spans.line().end.max(e.spans.line().start + 1),
                    gi,
                    Some(ei),
                ));
            }
        }
        spans.sort_unstable_by_key(|s| (s.0, s.1));
        let disjoint = spans.windows(2).all(|w| w[0].1 <= w[1].0);
        LogicalKeys {
            doc,
            spans: disjoint.then_some(spans),
        }
    }

    /// The key at a byte offset, if a group or entry holds it.
    fn key(&self, at: usize) -> Option<String> {
        let Some(spans) = &self.spans else {
            return self.scan(at);
        };
        let i = spans.partition_point(|s| s.0 <= at);
        let (_, end, gi, entry) = spans[i.checked_sub(1)?];
        if at >= end {
            return None;
        }
        let g = &self.doc.groups[gi];
        Some(match entry {
            Some(ei) => format!("{}/{}", g.name, g.entries[ei].key),
            None => g.name.to_string(),
        })
    }

    fn scan(&self, at: usize) -> Option<String> {
        for g in &self.doc.groups {
            for e in &g.entries {
                if e.spans.line().start <= at && at < e.spans.line().end.max(e.spans.line().start + 1) {
                    return Some(format!("{}/{}", g.name, e.key));
                }
            }
            if g.name_span.start <= at && at <= g.name_span.end {
                return Some(g.name.to_string());
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::LogicalKeys;
    use crate::syntax::{Document, Format};

    /// The indexed lookup answers what the scan of every group answers, at
    /// every offset of key-files and YAML (nested maps, comments, repeated
    /// groups, a key outside any group).
    #[test]
    fn indexed_keys_are_the_scanned_keys() {
        let texts = [
            (
                "a.txt",
                "# top\n[property]\nbatch-size=1\n\n# note\ngpu-id=0\n[class-attrs-0]\ntopk=2\n[property]\nbatch-size=4\n",
            ),
            (
                "b.txt",
                "[application]\nenable-perf-measurement=1\n[source0]\nenable=1\nuri=file:///x.mp4\n",
            ),
            (
                "c.yml",
                "property:\n  gie-unique-id: 1\n  nested:\n    a: 1\n    b: [1, 2]\n# c\nclass-attrs-all:\n  topk: 3\n",
            ),
            ("d.yml", "source:\n  list: a;b\nsink0:\n  enable: 1\n  type: 2\n"),
        ];
        let mut indexed = 0;
        for (name, text) in texts {
            let format = if name.ends_with(".yml") {
                Format::Yaml
            } else {
                Format::KeyFile
            };
            let doc = Document::parse(text.to_string(), format);
            assert!(doc.groups.len() >= 2 && doc.errors.is_empty(), "{name}");
            let keys = LogicalKeys::new(&doc);
            indexed += usize::from(keys.spans.is_some());
            for at in 0..=text.len() {
                assert_eq!(keys.key(at), keys.scan(at), "{name} at {at}");
            }
        }
        assert_eq!(indexed, texts.len(), "every test document has disjoint spans");
    }
}
