//! SARIF 2.1.0 (GitHub code scanning), written as it is made: typed
//! records serialized one result at a time to the writer, so the output is
//! never held whole (no `serde_json::Value` tree, no output string). Fields
//! are declared in name order, the order the keys always had.

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;

use crate::base::FileId;
use crate::base::diagnostic::{Diagnostic, Severity};
use crate::base::edit::{Applicability, Fix};
use crate::base::rule as registry;
use crate::model::workspace::Workspace;
use crate::output::fingerprint::{Fnv, fnv1a};
use crate::output::machine::{INFO_URI, uri};
use crate::output::{FileProblem, locate, pretty};
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
    fixes: Option<[FixRecord<'a>; 1]>,
    level: &'static str,
    locations: [Location<'a>; 1],
    message: Text<Cow<'a, str>>,
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
struct Location<'a> {
    physical_location: PhysicalLocation<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation<'a> {
    artifact_location: Artifact<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct Artifact<'a> {
    uri: Cow<'a, str>,
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
struct FixRecord<'a> {
    artifact_changes: Vec<ArtifactChange<'a>>,
    description: Text<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactChange<'a> {
    artifact_location: Artifact<'a>,
    replacements: Vec<Replacement<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Replacement<'a> {
    deleted_region: DeletedRegion,
    inserted_content: Text<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeletedRegion {
    byte_length: usize,
    byte_offset: usize,
}

/// What a file's findings share, made once per batch of runs (not per
/// finding): its URIs and its logical keys.
struct FileShared<'a> {
    /// `artifactLocation.uri`.
    sarif_uri: String,
    /// The path the fingerprint hashes.
    uri: String,
    keys: LogicalKeys<'a>,
}

/// The files of a batch's findings, in id order, each made when a run
/// first asks for it.
type BatchFiles<'a> = Vec<(FileId, std::sync::OnceLock<FileShared<'a>>)>;

fn batch_files<'a>(diags: &[Diagnostic]) -> BatchFiles<'a> {
    let mut ids: Vec<FileId> = diags.iter().map(|d| d.file).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter().map(|f| (f, std::sync::OnceLock::new())).collect()
}

fn shared<'a, 'b>(ws: &'a Workspace, files: &'b BatchFiles<'a>, file: FileId) -> Option<&'b FileShared<'a>> {
    let i = files.binary_search_by_key(&file, |(f, _)| *f).ok()?;
    Some(files[i].1.get_or_init(|| {
        let f = &ws.files[file];
        FileShared {
            sarif_uri: sarif_uri(&f.path),
            uri: uri(&f.path),
            keys: LogicalKeys::new(&f.doc),
        }
    }))
}

fn problem<'a>(p: &'a FileProblem) -> ResultRecord<'a> {
    ResultRecord {
        fixes: None,
        level: level(p.severity),
        locations: [Location {
            physical_location: PhysicalLocation {
                artifact_location: Artifact {
                    uri: Cow::Owned(sarif_uri(p.path)),
                },
                region: None,
            },
        }],
        message: Text {
            text: Cow::Borrowed(p.message),
        },
        partial_fingerprints: Fingerprints {
            v1: fnv1a(&[p.code, &uri(p.path)]),
        },
        rule_id: p.code,
        rule_index: registry::RULES.iter().position(|r| r.code == p.code).unwrap_or(0),
    }
}

fn result<'a>(ws: &'a Workspace, d: &'a Diagnostic, file: &'a FileShared) -> ResultRecord<'a> {
    let l = locate(ws, d);
    let text = match &d.expected {
        // (Joined, not `format!`ed: most results have one.)
        Some(e) => Cow::Owned([&*d.message, " (expected: ", e, ")"].concat()),
        None => Cow::Borrowed(&*d.message),
    };
    // The group/key the finding is about (else its message), hashed as
    // the one part `group/key` without being made.
    let at = Fnv::new().part(d.code()).part(&file.uri);
    let v1 = match file.keys.key(d.span.start) {
        Some((group, Some(key))) => at.bytes(group.as_bytes()).bytes(b"/").part(key),
        Some((group, None)) => at.part(group),
        None => at.part(&d.message),
    }
    .hex();
    ResultRecord {
        fixes: d.fix.as_ref().map(|f| [fix(ws, f, d.file, file)]),
        level: level(d.severity()),
        locations: [Location {
            physical_location: PhysicalLocation {
                artifact_location: Artifact {
                    uri: Cow::Borrowed(&file.sarif_uri),
                },
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
        partial_fingerprints: Fingerprints { v1 },
        rule_id: d.code(),
        rule_index: d.rule() as usize,
    }
}

/// A fix: its edits grouped by file, files in id order (the finding's own
/// file's URI is the one already made).
fn fix<'a>(ws: &Workspace, fix: &'a Fix, own: FileId, shared: &'a FileShared) -> FixRecord<'a> {
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
                    uri: if file == own {
                        Cow::Borrowed(shared.sarif_uri.as_str())
                    } else {
                        Cow::Owned(sarif_uri(&ws.files[file].path))
                    },
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
                        inserted_content: Text { text: &e.text },
                    })
                    .collect(),
            })
            .collect(),
        description: Text {
            text: [fix.title.as_str(), " (", safety, ")"].concat(),
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

/// The log's keys before the results, in name order (`$schema`, `runs`
/// and the run's `columnKind`), as the pretty serializer writes them.
const HEAD: &str = "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"runs\": [\n    {\n      \"columnKind\": \"unicodeCodePoints\",\n      \"results\": ";

/// Write the SARIF log of a run (pretty, two-space indent, a final
/// newline): the results, at depth 4 (log, runs, run, results), made a run
/// at a time on all threads and written in order (`pretty::write_array`:
/// the bytes the pretty serializer writes of the whole log, on any number
/// of threads), then the tool; only a batch of the output is ever held.
pub fn write(out: &mut dyn Write, ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> io::Result<()> {
    out.write_all(HEAD.as_bytes())?;
    let mut lead = Vec::new();
    for p in problems {
        pretty::element(&mut lead, RESULTS, &problem(p));
    }
    pretty::write_array(out, RESULTS, &lead, diags, batch_files, |files, run| {
        // About what a run takes (a result is ~1,200 bytes in the
        // benchmark's trees).
        let mut b = Vec::with_capacity(run.len() * 1536);
        for d in run {
            if let Some(file) = shared(ws, files, d.file) {
                pretty::element(&mut b, RESULTS, &result(ws, d, file));
            }
        }
        b
    })?;
    out.write_all(b",\n      \"tool\": ")?;
    let tool = Tool {
        driver: Driver {
            information_uri: INFO_URI,
            name: "dslint",
            rules: rules(),
            version: env!("CARGO_PKG_VERSION"),
        },
    };
    pretty::value(out, RESULTS - 1, &tool)?;
    out.write_all(b"\n    }\n  ],\n  \"version\": \"2.1.0\"\n}\n")
}

/// How deep the results sit: in the log, its runs, the run, the results.
const RESULTS: usize = 4;

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

/// A logical key: the group's name and the entry's key (`group/key`), or
/// the group's name alone.
type Key<'a> = (&'a str, Option<&'a str>);

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
    fn key(&self, at: usize) -> Option<Key<'a>> {
        let Some(spans) = &self.spans else {
            return self.scan(at);
        };
        let i = spans.partition_point(|s| s.0 <= at);
        let (_, end, gi, entry) = spans[i.checked_sub(1)?];
        if at >= end {
            return None;
        }
        let g = &self.doc.groups[gi];
        Some((g.name.as_str(), entry.map(|ei| g.entries[ei].key.as_str())))
    }

    fn scan(&self, at: usize) -> Option<Key<'a>> {
        for g in &self.doc.groups {
            for e in &g.entries {
                if e.spans.line().start <= at && at < e.spans.line().end.max(e.spans.line().start + 1) {
                    return Some((g.name.as_str(), Some(e.key.as_str())));
                }
            }
            if g.name_span.start <= at && at <= g.name_span.end {
                return Some((g.name.as_str(), None));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::pretty::sample;
    use crate::syntax::{Document, Format};

    /// The whole log as one typed value, serialized whole by the pretty
    /// serializer: what `write` wrote before its results were made on all
    /// threads.
    fn whole(ws: &Workspace, diags: &[Diagnostic], problems: &[FileProblem]) -> String {
        #[derive(Serialize)]
        struct Log<'a> {
            #[serde(rename = "$schema")]
            schema: &'static str,
            runs: [Run<'a>; 1],
            version: &'static str,
        }
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Run<'a> {
            column_kind: &'static str,
            results: Vec<ResultRecord<'a>>,
            tool: Tool,
        }
        let files = batch_files(diags);
        let results = problems
            .iter()
            .map(problem)
            .chain(diags.iter().map(|d| result(ws, d, shared(ws, &files, d.file).unwrap())))
            .collect();
        let log = Log {
            schema: "https://json.schemastore.org/sarif-2.1.0.json",
            runs: [Run {
                column_kind: "unicodeCodePoints",
                results,
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
        serde_json::to_string_pretty(&log).unwrap() + "\n"
    }

    /// The log written with its results made a run at a time on all
    /// threads is the whole log's pretty bytes, on 1 thread and on 4 (with
    /// results, with none, with problems alone), and parses back to a
    /// result a finding.
    #[test]
    fn the_log_is_the_whole_pretty_log_on_any_threads() {
        let s = sample::many_findings();
        let problems = s.problems();
        let out = sample::on_1_and_4_threads(|| render(&s.ws, &s.diags, &problems));
        assert!(out == whole(&s.ws, &s.diags, &problems), "not the whole log's bytes");
        assert_eq!(render(&s.ws, &[], &[]), whole(&s.ws, &[], &[]));
        assert_eq!(render(&s.ws, &[], &problems), whole(&s.ws, &[], &problems));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let results = v["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), problems.len() + s.diags.len());
        assert_eq!(
            results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "bad%20%22name%22%20100%25.txt"
        );
        assert_eq!(
            results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "file:///abs/%C3%A9.txt"
        );
        let d = &s.diags[s.diags.len() - 1];
        let last = &results[results.len() - 1];
        assert_eq!(last["ruleId"], d.code());
        assert_eq!(last["ruleIndex"], d.rule() as usize);
        // The fingerprint hashes `group/key` as one part.
        let f = &s.ws.files[d.file];
        let key = LogicalKeys::new(&f.doc)
            .key(d.span.start)
            .map(|(g, k)| k.map_or(g.to_string(), |k| format!("{g}/{k}")))
            .unwrap_or_else(|| d.message.to_string());
        assert_eq!(
            last["partialFingerprints"]["dslint/v1"],
            fnv1a(&[d.code(), &uri(&f.path), &key])
        );
        assert!(key.contains('/'), "{key}");
    }

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
