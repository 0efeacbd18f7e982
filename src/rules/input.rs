//! DS001–DS006: what a file's reader would refuse or misread.

use rayon::prelude::*;

use crate::base::FileId;
use crate::base::Span;
use crate::base::diagnostic::Diagnostic;
use crate::base::edit::{Edit, Fix};
use crate::base::rule::{Rule, When};
use crate::model::detect::Kind;
use crate::model::keys::{self, Schema};
use crate::rules::context::Ctx;
use crate::syntax::{Document, Format, SyntaxError, glib};

const MAX_SUGGESTIONS_PER_FILE: usize = 1000;

pub fn check_file(ctx: &Ctx, file: FileId, out: &mut Vec<Diagnostic>) {
    let f = &ctx.ws.files[file];
    let doc = &f.doc;
    // A test app's tracker key-file is read by the app's own code: C's
    // deepstream-test2 with GLib (`g_key_file_load_from_file`), the Python
    // apps with `configparser` (deepstream_python_apps' `config.read(…)`
    // then `config['tracker']`), which also takes `key: value` lines and
    // `;` comments. Which one reads it is not in the file: a line only
    // GLib refuses is no certain error there.
    let refused: Vec<&SyntaxError> = if f.kind == Some(Kind::Tracker) {
        doc.errors
            .iter()
            .filter(|e| !configparser_reads(&doc.text, &e.span))
            .collect()
    } else {
        doc.errors.iter().collect()
    };
    check_syntax(file, doc, &refused, out);
    if f.kind == Some(Kind::Tracker) {
        if let Some(d) = out
            .last_mut()
            .filter(|d| d.rule() == Rule::SyntaxError && d.file == file)
        {
            d.why = Some(
                "a test app reads this file with GLib's key-file reader (C's deepstream-test2) or Python's configparser (deepstream_python_apps), and both refuse it: GLib the whole file, configparser with a parsing error"
                    .into(),
            );
        }
    }
    let schema = match f.kind {
        Some(Kind::App) => Some(Schema::App),
        Some(Kind::NvInfer) => Some(Schema::NvInfer),
        Some(Kind::Tracker) => Some(Schema::Tracker),
        Some(Kind::NewStreammux) => Some(Schema::NewStreammux),
        _ => None,
    };
    let per_group: Vec<(Vec<Diagnostic>, Vec<Unknown>)> = doc
        .groups
        .par_iter()
        .enumerate()
        .with_min_len(64)
        .map(|(gi, group)| {
            let (mut out, mut unknown) = (Vec::new(), Vec::new());
            check_group(ctx, file, gi, group, schema, &mut out, &mut unknown);
            (out, unknown)
        })
        .collect();
    // "Did you mean" costs an edit distance per known key: offered for the
    // first unknown keys of a file only, so a file of 100k junk keys stays
    // fast (each still gets its DS002).
    let mut suggestions_left = MAX_SUGGESTIONS_PER_FILE;
    // The findings of a group that has them all (a file of one large
    // group) are moved, not copied; else room is made for all at once, so
    // that a file of 100k findings is not copied again at each doubling.
    let total: usize = per_group.iter().map(|(found, _)| found.len()).sum();
    let one = out.is_empty() && per_group.iter().any(|(found, _)| found.len() == total);
    if !one {
        out.reserve(total);
    }
    for ((mut found, unknown), group) in per_group.into_iter().zip(&doc.groups) {
        for (at, schema, entry) in unknown {
            if suggestions_left == 0 {
                break;
            }
            suggestions_left -= 1;
            if let Some(s) = keys::suggest_key(schema, &group.name, &group.entries[entry].key) {
                found[at].expected = Some(format!("did you mean `{s}`?").into());
            }
        }
        if one && out.is_empty() {
            *out = found;
        } else {
            out.extend(found);
        }
    }
}

/// An unknown key's finding that may get a "did you mean": its position in
/// its group's findings, the key table, and the entry's position in the group.
type Unknown = (usize, Schema, usize);

/// The checks of one group: every group is checked on its own, on all
/// threads (see `check_file`).
fn check_group(
    ctx: &Ctx,
    file: FileId,
    gi: usize,
    group: &crate::syntax::Group,
    schema: Option<Schema>,
    out: &mut Vec<Diagnostic>,
    unknown: &mut Vec<Unknown>,
) {
    let f = &ctx.ws.files[file];
    let doc = &f.doc;
    // A deepstream-parallel-infer tracker fragment's `tracker:` is read
    // by deepstream-app's own `parse_tracker_yaml`; nothing else in a
    // fragment is read by a reader with a key table.
    let schema = match f.kind {
        Some(Kind::ParallelFragment) => (group.name == "tracker").then_some(Schema::App),
        _ => schema,
    };
    if f.kind == Some(Kind::App) {
        if let Some(d) = app_refuses_source_group(file, doc, group) {
            out.push(d);
            return;
        }
        out.extend(app_refuses_source_list(file, doc, group));
    }
    // Groups only the key-file reader takes: the YAML reader skips them.
    if f.kind == Some(Kind::App) && doc.format == Format::Yaml && crate::model::detect::app_yaml_skips(&group.name) {
        let expected = if group.name.starts_with("source") {
            "`source:` with `csv-file-path:` (the YAML reader's only sources)".to_string()
        } else {
            format!("the key-file form of the config ([{}]) to use this group", group.name)
        };
        out.push(
            Diagnostic::new(
                Rule::UnknownKey,
                file,
                group.name_span.clone(),
                format!("unknown group `{}` for a deepstream-app config (YAML)", group.name),
            )
            .expected(expected)
            .why("deepstream-app's YAML reader (parse_config_file_yaml, deepstream_app_config_parser_yaml.cpp) has no branch for it and skips it, so nothing in it takes effect; the key-file reader's [sourceN], [source-list], [source-attr-all], [visionencoder], [text-embedder] and [secondary-pre-process…] groups are not read from YAML"),
        );
        return;
    }
    if let Some(schema) = schema {
        if !keys::known_group(schema, &group.name)
            && !group.name.is_empty()
            && !ctx.ws.reader_keys().contains(group.name.as_str())
        {
            let mut d = Diagnostic::new(
                Rule::UnknownKey,
                file,
                group.name_span.clone(),
                format!(
                    "unknown group `{}` for a {}",
                    group.name,
                    f.kind.map_or("", |k| k.describe())
                ),
            )
            .why("the reader skips groups it does not know, so nothing in it takes effect");
            if let Some(s) = keys::suggest_group(schema, &group.name) {
                d = d.expected(format!("did you mean `{s}`?"));
            }
            out.push(d);
            return;
        }
    }
    // Precision 3: a group the app's parser never reads (off) has no
    // keys to judge.
    if f.kind
        .is_some_and(|k| crate::model::frontend::app::keys_unread(doc, &group.name, k))
    {
        // `enable` that is not an integer: `g_key_file_get_integer`
        // fails and the parser returns TRUE, so the group is skipped
        // without a word while the user meant it on.
        let bad_enable = (doc.format == Format::KeyFile)
            .then(|| doc.get(&group.name, "enable"))
            .flatten()
            .filter(|e| e.value.as_deref().is_some_and(|v| glib::parse_int(v).is_none()));
        if let Some(e) = bad_enable {
            out.push(
                Diagnostic::new(
                    Rule::InvalidValue,
                    file,
                    e.spans.value(),
                    format!(
                        "`enable`: `{}` cannot be read as an integer: [{}] is skipped",
                        e.value.as_deref().unwrap_or(""),
                        group.name
                    ),
                )
                .expected("enable=1 or enable=0")
                .why("parse_gie/parse_source/parse_sink read `enable` first and return without reading the group when it is not an integer: the app starts without this element"),
            );
        }
        return;
    }
    if group.name.is_empty() && schema == Some(Schema::NvInfer) && doc.format == Format::Yaml {
        top_level_nvinfer_keys(file, group, out);
        return;
    }
    // A repeated top-level map that yaml-cpp's lookups never reach.
    if let Some(first) = doc.unread_repeat_of(group) {
        let (line, _) = f.position(first.name_span.start);
        out.push(
            Diagnostic::new(
                Rule::DuplicateKey,
                file,
                group.name_span.clone(),
                format!(
                    "`{}` is repeated: the app reads only the first `{}` (line {line}); nothing in this one is read",
                    group.name, group.name
                ),
            )
            .why("yaml-cpp's map lookup (node_data::get) returns the first matching key, and every parser looks the group up by name")
            .related(file, first.name_span.clone()),
        );
        return;
    }
    let n = group.entries.len();
    let python_readers = PythonReaders::default();
    if n <= ENTRIES_PER_TASK {
        check_entries(ctx, file, gi, group, 0..n, schema, &python_readers, out, unknown);
        return;
    }
    // A group of many entries (100k keys in one [tracker]) is checked in
    // runs of entries on all threads, each run's findings in entry order,
    // joined in run order: the same list as one pass.
    let runs: Vec<(Vec<Diagnostic>, Vec<Unknown>)> = (0..n.div_ceil(ENTRIES_PER_TASK))
        .into_par_iter()
        .map(|r| {
            let from = r * ENTRIES_PER_TASK;
            let to = (from + ENTRIES_PER_TASK).min(n);
            // Room for a finding an entry (a file of junk keys has one
            // each), not grown by doubling run after run.
            let (mut out, mut unknown) = (Vec::with_capacity(to - from), Vec::new());
            check_entries(
                ctx,
                file,
                gi,
                group,
                from..to,
                schema,
                &python_readers,
                &mut out,
                &mut unknown,
            );
            (out, unknown)
        })
        .collect();
    out.reserve_exact(runs.iter().map(|(found, _)| found.len()).sum());
    for (found, run_unknown) in runs {
        let at = out.len();
        unknown.extend(
            run_unknown
                .into_iter()
                .map(|(i, schema, entry)| (at + i, schema, entry)),
        );
        out.extend(found);
    }
}

/// Entries a task checks at most: a group of more is cut in runs of this
/// many (`check_group`).
const ENTRIES_PER_TASK: usize = 4096;

/// The checks of the entries `range` of the `gi`-th group (its group-level
/// checks passed: `check_group`), in entry order; `unknown` gets positions
/// in `out`.
#[allow(clippy::too_many_arguments)]
fn check_entries(
    ctx: &Ctx,
    file: FileId,
    gi: usize,
    group: &crate::syntax::Group,
    range: std::ops::Range<usize>,
    schema: Option<Schema>,
    python_readers: &PythonReaders,
    out: &mut Vec<Diagnostic>,
    unknown: &mut Vec<Unknown>,
) {
    let f = &ctx.ws.files[file];
    let doc = &f.doc;
    // The key table's rows for this group, gathered once for the run's keys.
    let rows = schema.map(|s| (s, keys::GroupRows::of(s, &group.name)));
    for (i, e) in group.entries.iter().enumerate().skip(range.start).take(range.len()) {
        if e.localized {
            continue;
        }
        // DS004: another line with the same key in the same (merged)
        // group wins: a later one (the last wins), or an earlier one
        // (yaml-cpp's direct lookups keep the first copy). Not in
        // protobuf text, where a repeated field is a list and a
        // repeated message another item of it.
        // NvMultiObjectTracker's YAML is read by the low-level library,
        // whose handling of a repeated key is not known (yaml-cpp's
        // lookup by name takes the first copy, a walk of the map the
        // last): silent.
        let winner = doc.overridden_by(gi, i).filter(|w| {
            w.spans.key().start != e.spans.key().start
                && doc.format != Format::Protobuf
                && f.kind != Some(Kind::TrackerLowLevel)
        });
        if let Some(winner) = winner {
            let (line, _) = f.position(winner.spans.key().start);
            let (message, why) = if winner.spans.key().start > e.spans.key().start {
                (
                    format!("`{}` is set again on line {line}; this line is ignored", e.key),
                    if doc.format == Format::KeyFile {
                        "GLib's key-file reader returns the last value of a repeated key"
                    } else {
                        "the reader walks the map's pairs in order (as nvinfer's `gst_nvinfer_parse_props_yaml` does), each copy overwriting the one before, so the last is read"
                    },
                )
            } else {
                (
                    format!(
                        "`{}` is already set on line {line}, which the app reads; this line is ignored",
                        e.key
                    ),
                    "the app looks this key up directly, and yaml-cpp's map lookup (node_data::get) returns the first matching key",
                )
            };
            out.push(
                Diagnostic::new(Rule::DuplicateKey, file, e.spans.key(), message)
                    .why(why)
                    .related(file, winner.spans.key()),
            );
        }
        let Some(value) = e.value.as_deref() else { continue };
        // DS006: GLib keeps ` # …` as part of a string value.
        if doc.format == Format::KeyFile {
            check_trailing_comment(ctx, file, e, value, rows.as_ref().map(|(_, r)| r), out);
        }
        let Some((schema, rows)) = &rows else { continue };
        let schema = *schema;
        if !rows.has_key_table() {
            continue;
        }
        let spec = rows.lookup(&e.key);
        if let Some(removal) = spec.and_then(keys::KeySpec::removal) {
            let spec = spec.expect("a removal comes from a spec");
            // Info: which release runs the config is not known, and the
            // releases that read the key still honour it.
            let mut d = Diagnostic::new(
                Rule::UnknownKey,
                file,
                e.spans.key(),
                format!("`{}` in [{}]: {removal}", e.key, group.name),
            )
            .when(When::RemovedKey, true);
            let reader = (schema == Schema::Tracker)
                .then(|| python_readers.get(ctx, file, &e.key))
                .flatten();
            d = match reader {
                // The project's own app reads the key: "test apps pass
                // over it" is not what happens to this file.
                Some(TrackerReader::Linked((py, span))) => {
                    let (line, _) = ctx.ws.files[py].position(span.start);
                    d.why(format!(
                        "this project's own code reads the key ({}:{line}), but nvtracker has no `{}` property from DS 6.3 (DS 9.1 gstnvtracker.cpp registers none), so no reader can give it the setting there: PyGObject's set_property raises TypeError (\"does not have property\") on a property the element lacks",
                        ctx.ws.files[py].path.display(),
                        e.key
                    ))
                    .related(py, span)
                }
                // The project's own code reads a key of this name, but no
                // module ties it to this file: which reader reads the file
                // is unknown, so the why says what holds for every one.
                Some(TrackerReader::Named((py, span))) => {
                    let (line, _) = ctx.ws.files[py].position(span.start);
                    let by = format!("this project's own code names the key ({}:{line})", ctx.ws.files[py].path.display());
                    d.why(any_reader_why(&e.key, &by)).related(py, span)
                }
                Some(TrackerReader::Unloaded(module, line)) => {
                    let by = format!("this project's own code names the key ({module}:{line} under the project root)");
                    d.why(any_reader_why(&e.key, &by))
                }
                Some(TrackerReader::Source) => d.why(any_reader_why(
                    &e.key,
                    "a C or C++ source of this project reads a key of this name (a `#define CONFIG_…` string, or one it compares or asks GLib for)",
                )),
                // A test app's `[tracker]` file: see `unknown_key_why`.
                None if schema == Schema::Tracker => d.why("a release whose test apps no longer read the key passes over it (deepstream-test2's C reader, set_tracker_properties, prints \"Unknown key\"; the Python apps' loop over config['tracker'] says nothing), so the setting has no effect there"),
                None => d.why("a release that no longer reads the key prints \"Unknown key\" and ignores it, so the setting has no effect there"),
            };
            if let Some(new) = spec.note.strip_prefix("renamed ") {
                d = d.expected(format!("`{new}`"));
            }
            out.push(d);
            continue;
        }
        let Some(spec) = spec else {
            // A reader the project ships (a fork of NVIDIA's parser) may
            // read it: its reader decides, not NVIDIA's (unknown, silent).
            // A name NVIDIA reads elsewhere counts where the fork's define
            // gives it to this group.
            let readers = ctx.ws.reader_keys();
            if readers.contains(e.key.as_str()) || readers.reads_in_group(&group.name, &e.key) {
                continue;
            }
            let d = Diagnostic::new(
                Rule::UnknownKey,
                file,
                e.spans.key(),
                format!("unknown key `{}` in [{}]", e.key, group.name),
            )
            .why(unknown_key_why(schema, &group.name));
            unknown.push((out.len(), schema, i));
            out.push(d);
            continue;
        };
        check_type(ctx, file, doc, e, value, spec, out);
    }
}

/// DS003 where deepstream-app refuses a key-file config for a
/// `[source-list]` with no `[source-attr-all]` beside it:
/// `parse_config_file` (deepstream_app_config_parser.c) parses the list,
/// then stops ("[source-attr-all] group not present."). The list's own
/// keys are still checked.
fn app_refuses_source_list(file: FileId, doc: &Document, group: &crate::syntax::Group) -> Option<Diagnostic> {
    if doc.format != Format::KeyFile || group.name.as_str() != "source-list" || doc.has_group("source-attr-all") {
        return None;
    }
    Some(
        Diagnostic::new(
            Rule::InvalidValue,
            file,
            group.name_span.clone(),
            "[source-list] without [source-attr-all]: deepstream-app refuses the config",
        )
        .expected("a [source-attr-all] group (with enable=1) giving the listed sources their settings")
        .why("parse_config_file (deepstream_app_config_parser.c) reads [source-list], then stops when the file has no [source-attr-all]: \"[source-attr-all] group not present.\""),
    )
}

/// DS003 where deepstream-app refuses the config for a source group's
/// name. Key-file: `parse_config_file` (deepstream_app_config_parser.c)
/// removes `[source-list]` and `[source-attr-all]`, then takes every group
/// whose name starts with `source` as a source, reads its number with
/// `g_ascii_strtoull` and stops unless that reads to the name's end
/// ("Source group \"[%s]\" is not in the form \"[source<%d>]\""): `[source]`,
/// `[sources]`, `[source1x]`. YAML: `parse_config_file_yaml`
/// (deepstream_app_config_parser_yaml.cpp) reads `source:` only for its
/// `csv-file-path` and stops without one ("CSV file not specified").
fn app_refuses_source_group(file: FileId, doc: &Document, group: &crate::syntax::Group) -> Option<Diagnostic> {
    let name = group.name.as_str();
    let d = match doc.format {
        Format::KeyFile => {
            let numbered = crate::model::detect::app_source_group(name);
            if !name.starts_with("source") || numbered || matches!(name, "source-list" | "source-attr-all") {
                return None;
            }
            Diagnostic::new(
                Rule::InvalidValue,
                file,
                group.name_span.clone(),
                format!("[{name}] is not a numbered source group: deepstream-app refuses the config"),
            )
            .expected("[source0], [source1], … (or [source-list] with [source-attr-all])")
            .why(format!(
                "parse_config_file (deepstream_app_config_parser.c) takes every group whose name starts with `source` (but [source-list] and [source-attr-all]) as a source, reads its number with g_ascii_strtoull to the end of the name, and stops: \"Source group \"[{name}]\" is not in the form \"[source<%d>]\"\""
            ))
        }
        Format::Yaml if name == "source" && doc.get(name, "csv-file-path").is_none() => Diagnostic::new(
            Rule::InvalidValue,
            file,
            group.name_span.clone(),
            "`source:` has no `csv-file-path`: deepstream-app refuses the config",
        )
        .expected("`source:` with `csv-file-path:` naming the CSV of sources")
        .why("parse_config_file_yaml (deepstream_app_config_parser_yaml.cpp) reads its sources only from the CSV that `source: csv-file-path` names, and stops without one: \"CSV file not specified\""),
        _ => return None,
    };
    Some(d)
}

/// The project's own reader of each removed key of one tracker group
/// (`tracker_reader`), looked up once a key: a file may repeat the key on
/// every line, and a large group's runs of entries share it.
#[derive(Default)]
struct PythonReaders(std::sync::Mutex<Vec<(String, Option<TrackerReader>)>>);

/// A place in a file: a module's quoted key name.
type Place = (FileId, Span);

/// Code of the project that reads a removed key of a tracker key-file.
#[derive(Clone)]
enum TrackerReader {
    /// A Python module that reads this very file (`python_tracker_reader`).
    Linked(Place),
    /// A Python module that names the key but not this file
    /// (`python_key_mention`): a helper given the file's path, or another
    /// app's reader.
    Named(Place),
    /// The same of a module no front end loaded (it builds no pipeline:
    /// `Workspace::python_tracker_key_modules`): its path and line.
    Unloaded(String, usize),
    /// A C or C++ source of the project reads a key of this name
    /// (`Workspace::reader_keys`); where is not kept.
    Source,
}

impl PythonReaders {
    fn get(&self, ctx: &Ctx, tracker: FileId, key: &str) -> Option<TrackerReader> {
        let mut known = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, reader)) = known.iter().find(|(k, _)| k == key) {
            return reader.clone();
        }
        let reader = tracker_reader(ctx, tracker, key);
        known.push((key.to_string(), reader.clone()));
        reader
    }
}

/// The project's code that reads `key` of the tracker key-file `tracker`,
/// nearest tie first: a Python module that reads this file, one that
/// names the key, a C or C++ source that reads a key of this name.
fn tracker_reader(ctx: &Ctx, tracker: FileId, key: &str) -> Option<TrackerReader> {
    if let Some(place) = python_tracker_reader(ctx, tracker, key) {
        return Some(TrackerReader::Linked(place));
    }
    if let Some(place) = python_key_mention(ctx, tracker, key) {
        return Some(TrackerReader::Named(place));
    }
    if let Some((module, line)) = unloaded_key_mention(ctx, tracker, key) {
        return Some(TrackerReader::Unloaded(module, line));
    }
    ctx.ws
        .reader_keys()
        .names("tracker", key)
        .then_some(TrackerReader::Source)
}

/// DS002's why for a removed tracker key where the project's own code
/// (`by`) may be the file's reader but nothing ties it to the file: what
/// holds whichever reader reads it. nvtracker registers no such property
/// from DS 6.3 (DS 9.1 gstnvtracker.cpp); deepstream-test2's readers pass
/// over the key (`unknown_key_why`); a reader that still sets it asks for
/// a property the element lacks: PyGObject's `set_property` raises
/// TypeError, GLib's `g_object_set` warns "object class … has no property
/// named …" and sets nothing.
fn any_reader_why(key: &str, by: &str) -> String {
    format!(
        "nvtracker has no `{key}` property from DS 6.3 (DS 9.1 gstnvtracker.cpp registers none), so no reader gives it the setting there: DeepStream's test apps pass over the key, and a reader that still sets it fails (PyGObject's set_property raises TypeError, GLib's g_object_set warns \"has no property named\" and sets nothing); {by}, so which of these happens depends on the reader"
    )
}

/// A Python module of the project, outside the ties
/// `python_tracker_reader` looks for, that names the removed `key` in
/// quotes (`if key == 'enable-batch-process':`, `{"enable-batch-process":
/// getint}`): a helper that reads whatever path it is given may be this
/// file's reader. A module that names a file of this file's name and
/// lies outside this file's folder and those above it reads another app's
/// file of that name, not this one (`python_tracker_reader`'s rule), and
/// is passed over, and so is one that names another tracker key-file of
/// the project (`reads_another_tracker_file`). The place: the quoted
/// name. Modules outside the root are not looked at.
fn python_key_mention(ctx: &Ctx, tracker: FileId, key: &str) -> Option<Place> {
    let path = &ctx.ws.files[tracker].path;
    let name = path.file_name()?.to_str()?;
    ctx.ws.files.iter().enumerate().find_map(|(id, f)| {
        if f.doc.format != Format::Python || f.outside {
            return None;
        }
        if reads_another_tracker_file(ctx, &f.doc.text, name) {
            return None;
        }
        quoted_key_in(&f.path, &f.doc.text, path, name, key).map(|at| (id, at))
    })
}

/// Whether a module's text names another tracker key-file of the project
/// (a file name none but `name`): it is that file's reader (the Python
/// apps name their own file), not a helper that may read this one.
fn reads_another_tracker_file(ctx: &Ctx, text: &str, name: &str) -> bool {
    ctx.ws.files.iter().any(|f| {
        f.kind == Some(Kind::Tracker)
            && f.path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|other| other != name && text.contains(other))
    })
}

/// `python_key_mention` for the project's modules no front end loaded (a
/// helper that builds no pipeline), from one walk of the root: the
/// module's path as the walk spells it and the line of the quoted name.
fn unloaded_key_mention(ctx: &Ctx, tracker: FileId, key: &str) -> Option<(String, usize)> {
    let path = &ctx.ws.files[tracker].path;
    let name = path.file_name()?.to_str()?;
    ctx.ws.python_tracker_key_modules().iter().find_map(|m| {
        // The module's path is the root's and the tracker's as given:
        // "above" is not told apart, so a module naming a file of this
        // name is taken for another app's reader (passed over).
        if reads_another_tracker_file(ctx, &m.text, name) {
            return None;
        }
        let at = quoted_key_in(&m.path, &m.text, std::path::Path::new(""), name, key)?;
        let line = m.text[..at.start].matches('\n').count() + 1;
        Some((m.path.display().to_string(), line))
    })
}

/// Where the module at `module` (text `text`) names `key` in quotes,
/// unless it names a file called `name` and lies outside the folder of
/// the tracker file `tracker` and those above it (another app's reader of
/// a file of that name: `python_key_mention`).
fn quoted_key_in(
    module: &std::path::Path,
    text: &str,
    tracker: &std::path::Path,
    name: &str,
    key: &str,
) -> Option<Span> {
    let above = module.parent().is_some_and(|folder| tracker.starts_with(folder));
    if !above && text.contains(name) {
        return None;
    }
    ['"', '\''].iter().find_map(|q| {
        let quoted = format!("{q}{key}{q}");
        text.find(&quoted).map(|at| at..at + quoted.len())
    })
}

/// A Python module of the project that reads `key` of the tracker
/// key-file `tracker`: the file lies in the module's folder or below it,
/// the module names it (the file name in its text, as `configparser`'s
/// `read("config/tracker_config.txt")` does; a relative path is the
/// working directory's, so the name and the folder are what is known),
/// and it compares a key with the key's name (`if key ==
/// 'enable-batch-process':`, the loop of deepstream_python_apps'
/// deepstream-test2 before DS 6.3 and of its copies). Another app's module
/// elsewhere that reads a file of the same name is not this file's
/// reader. The place: the quoted name. Modules outside the root are not
/// looked at (nothing there is shown).
fn python_tracker_reader(ctx: &Ctx, tracker: FileId, key: &str) -> Option<Place> {
    let path = &ctx.ws.files[tracker].path;
    let name = path.file_name()?.to_str()?;
    ctx.ws.files.iter().enumerate().find_map(|(id, f)| {
        if f.doc.format != Format::Python
            || f.outside
            || !f.path.parent().is_some_and(|folder| path.starts_with(folder))
            || !f.doc.text.contains(name)
        {
            return None;
        }
        let text = f.doc.text.as_str();
        ['"', '\''].iter().find_map(|q| {
            let quoted = format!("{q}{key}{q}");
            text.match_indices(&quoted)
                .find(|(at, _)| text[..*at].trim_end_matches([' ', '\t']).ends_with("=="))
                .map(|(at, _)| (id, at..at + quoted.len()))
        })
    })
}

/// What the reader does with a key it does not know (DS002's why). The new
/// nvstreammux's `[source-config-N]` reader
/// (`MuxConfigParser::ParseTxtConfigPerSourceProps`, MuxConfigParser.cpp)
/// asks GLib for its fixed keys only and says nothing of the others. A test
/// app's `[tracker]` file is read by the app itself, and which app (C or
/// Python) is not in the file: deepstream-test2's `set_tracker_properties`
/// (deepstream_test2_app.c) compares each key with the ones it sets and
/// prints "Unknown key '%s' for group [%s]" for the rest; the Python apps
/// (deepstream_python_apps' deepstream-test2 and its copies) loop over
/// configparser's `config['tracker']` with an `if key == 'tracker-width':`
/// for each key they set and no `else`: the rest pass without a word.
fn unknown_key_why(schema: Schema, group: &str) -> &'static str {
    if schema == Schema::NewStreammux && group.starts_with("source-config") {
        "the new nvstreammux reads only its own keys of a [source-config-N] group and silently ignores the rest, so the setting has no effect"
    } else if schema == Schema::Tracker {
        "the test app that reads this file sets only the keys it names: deepstream-test2's C reader (set_tracker_properties) prints \"Unknown key\" and goes on, the Python apps' loop over config['tracker'] (`if key == 'tracker-width': ...`) passes over it without a word; either way nvtracker never gets the setting"
    } else {
        "DeepStream prints \"Unknown key\" and ignores it, so the setting has no effect"
    }
}

fn check_type(
    ctx: &Ctx,
    file: FileId,
    doc: &Document,
    e: &crate::syntax::Entry,
    value: &str,
    spec: &keys::KeySpec,
    out: &mut Vec<Diagnostic>,
) {
    let format = doc.format;
    use glib::ValueType as T;
    // YAML readers convert scalars themselves; for them check the number
    // kinds only, not GLib's whitespace rules.
    let checked = if format == Format::Yaml {
        match spec.ty {
            T::Int | T::Uint64 => glib::parse_int(value.trim())
                .map(|_| ())
                .ok_or_else(|| format!("`{value}` is not an integer")),
            T::Double => glib::parse_double(value.trim())
                .map(|_| ())
                .ok_or_else(|| format!("`{value}` is not a number")),
            _ => Ok(()),
        }
    } else {
        glib::check(value, spec.ty)
    };
    // A template's placeholder (`batch-size=${BATCH}`, `{{ mode }}`) is
    // rendered before DeepStream reads the file: the value it will read is
    // unknown, so no claim that the parser fails on it.
    if checked.is_err() && crate::model::workspace::templated(value) {
        return;
    }
    if let Err(msg) = checked {
        let mut d = Diagnostic::new(
            Rule::InvalidValue,
            file,
            e.spans.value(),
            format!("`{}`: {msg}", e.key),
        )
        .expected(spec.ty.describe())
        .why(if spec.schema == Schema::NewStreammux {
            // `CHECK_ERROR` in MuxConfigParser.cpp: the default, no failure.
            "the new nvstreammux's config parser cannot read this value and keeps its default: the setting has no effect"
        } else {
            "DeepStream's parser fails on this value and the pipeline does not start"
        });
        if format == Format::KeyFile {
            d = d.fix(trailing_comment_fix(file, doc, e, value, spec.ty));
        }
        out.push(d);
        return;
    }
    if matches!(spec.ty, T::Int) {
        if let Some(n) = glib::parse_int(value.trim()) {
            if !spec.accepts(n) && !range_is_the_projects(ctx, spec, &e.key) {
                out.push(
                    Diagnostic::new(
                        Rule::InvalidValue,
                        file,
                        e.spans.value(),
                        format!("`{}={n}` is out of range", e.key),
                    )
                    .expected(spec.describe_range())
                    .why("the element rejects the value or misbehaves"),
                );
            }
        }
    }
}

/// Whether the values nvinfer takes for `key` are decided by a reader the
/// project ships rather than NVIDIA's: a fork that adds a member to the
/// key's enumeration (`NvDsInferNetworkType_FaceDetection`, with its `case`
/// in the fork's `gst_nvinfer_parse_props`) accepts a value the table's
/// range refuses, so the range is unknown (`syntax::c_enums`). Asked only
/// of a value out of range: the project's sources are read once, for all
/// readers (`Workspace::reader_keys`).
fn range_is_the_projects(ctx: &Ctx, spec: &keys::KeySpec, key: &str) -> bool {
    spec.schema == Schema::NvInfer
        && crate::syntax::c_enums::STOCK_ENUMS.iter().any(|s| s.key == key)
        && ctx.ws.reader_keys().extends_enum(key)
}

fn check_trailing_comment(
    ctx: &Ctx,
    file: FileId,
    e: &crate::syntax::Entry,
    value: &str,
    rows: Option<&keys::GroupRows>,
    out: &mut Vec<Diagnostic>,
) {
    let Some((hash, kept, edits)) = comment_moved_above(file, &ctx.ws.files[file].doc, e, value) else {
        return;
    };
    let spec = rows.and_then(|r| r.lookup(&e.key));
    if spec.is_none() && rows.is_some_and(keys::GroupRows::has_key_table) {
        return; // a key its reader does not read: DS002 says so, and nothing reads the comment
    }
    if !spec.is_none_or(|k| matches!(k.ty, glib::ValueType::String | glib::ValueType::StringList)) {
        return; // integers read past it (DS003 covers doubles and booleans)
    }
    out.push(
        Diagnostic::new(
            Rule::TrailingCommentInValue,
            file,
            e.spans.value().start + hash..e.spans.value().end,
            format!("`{}` reads as `{}`: GLib has no trailing comments", e.key, value),
        )
        .expected(format!("`{}={}` with the comment on its own line above", e.key, kept))
        .why("the key-file reader keeps everything after `=`, so the path or name includes the comment")
        .fix(Some(Fix::safe("move the comment to its own line above", edits))),
    );
}

/// Whether Python's `configparser` (its defaults, as deepstream_python_apps
/// use it) reads what GLib's key-file reader refuses at `span` of `text`: a
/// `key: value` line (`:` is one of its delimiters, `=` the other), a `;`
/// comment (one of its comment prefixes), or a key name GLib refuses
/// (`a[b]=1`: configparser takes any key before its delimiter). A
/// byte-order mark, a key before the first section, an empty `[]` and a
/// line with no delimiter it refuses too (`MissingSectionHeaderError`,
/// `ParsingError`).
fn configparser_reads(text: &str, span: &Span) -> bool {
    let Some(piece) = text.get(span.clone()) else {
        return false;
    };
    let key_refused = !piece.is_empty()
        && !piece.contains(['=', '\n'])
        && text[span.end..].trim_start_matches([' ', '\t']).starts_with('=');
    if key_refused || piece.starts_with(';') {
        return true;
    }
    match (piece.find(':'), piece.find('=')) {
        (Some(colon), eq) => eq.is_none_or(|eq| colon < eq) && !piece[..colon].trim().is_empty(),
        (None, _) => false,
    }
}

/// DS001. GLib's `g_key_file_load_from_file` (and yaml-cpp's `LoadFile`)
/// stops at the first error and refuses the whole file, so the file gets one
/// finding, at that error (Precision 2); the other lines it would refuse next
/// are related notes, and the fix mends every one of them it can: a
/// byte-order mark, a `# comment` after a `[group]` header.
fn check_syntax(file: FileId, doc: &Document, errors: &[&SyntaxError], out: &mut Vec<Diagnostic>) {
    let Some(first) = errors.first() else { return };
    let more = errors.len() - 1;
    let mut message = first.message.clone();
    if more > 0 {
        message.push_str(&format!(
            " (and {more} more line{} the reader would refuse next)",
            if more == 1 { "" } else { "s" }
        ));
    }
    let mut d = Diagnostic::new(Rule::SyntaxError, file, first.span.clone(), message)
        .related_all(errors[1..].iter().map(|e| (file, e.span.clone())));
    if doc.format == Format::Protobuf {
        d = d.why("nvinferserver reads this file with protobuf's TextFormat parser, which refuses the whole file (gstnvinferserver_impl.cpp, GstNvInferServerImpl::start: \"Configuration file parsing failed\")");
    }
    if doc.format == Format::KeyFile {
        d = d.why("DeepStream reads this file with GLib's key-file reader, which refuses the whole file");
        let mut edits = Vec::new();
        let mut titles: Vec<&str> = Vec::new();
        for err in errors {
            if err.span == (0..3) && doc.has_bom {
                edits.push(Edit {
                    file,
                    range: 0..3,
                    text: String::new(),
                });
                titles.push("drop the byte-order mark");
            } else if let Some(e) = header_comment_edits(doc, file, &err.span) {
                edits.extend(e);
                titles.push("move the comment after the group header to its own line above");
            }
        }
        titles.dedup();
        if !edits.is_empty() {
            d = d.fix(Some(Fix::safe(titles.join("; "), edits)));
        }
    }
    out.push(d);
}

/// `[class-attrs-0]  # person`: GLib's `g_key_file_line_is_group` accepts
/// only spaces and tabs after the `]`, so the line is neither a group nor a
/// key and the file is refused. The edits put the comment on its own line
/// above the header.
fn header_comment_edits(doc: &Document, file: FileId, span: &Span) -> Option<Vec<Edit>> {
    let line = doc.text.get(span.clone())?;
    let inner = line.strip_prefix('[')?;
    let close = inner.find(']')?;
    let after = &inner[close + 1..];
    let comment = after.trim_start_matches([' ', '\t']);
    if !comment.starts_with('#') || inner[..close].is_empty() {
        return None;
    }
    let header_end = span.start + 1 + close + 1;
    Some(comment_to_own_line(
        doc,
        file,
        span.start,
        header_end..span.end,
        comment.trim_end(),
    ))
}

/// Edits that cut `cut` (a trailing `# comment` and the blanks before it)
/// from the line whose text starts at `text_start`, and write `comment` on a
/// line of its own above, with the same indentation and line ending.
fn comment_to_own_line(doc: &Document, file: FileId, text_start: usize, cut: Span, comment: &str) -> Vec<Edit> {
    let line_start = doc.text[..text_start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &doc.text[line_start..text_start];
    vec![
        Edit {
            file,
            range: line_start..line_start,
            text: format!("{indent}{comment}{}", doc.line_ending),
        },
        Edit {
            file,
            range: cut,
            text: String::new(),
        },
    ]
}

/// `net-scale-factor=0.0039 #1/255`: GLib has no trailing comments, and
/// `g_key_file_get_double` (like the boolean and list getters) fails on what
/// follows the number. When the value without the comment reads, the fix
/// moves the comment to its own line above, as DS006 does for strings.
fn trailing_comment_fix(
    file: FileId,
    doc: &Document,
    e: &crate::syntax::Entry,
    value: &str,
    ty: glib::ValueType,
) -> Option<Fix> {
    let (_, kept, edits) = comment_moved_above(file, doc, e, value)?;
    glib::check(kept, ty).ok()?;
    Some(Fix::safe("move the comment to its own line above", edits))
}

/// A key-file value with a ` # comment` after it: where the comment starts
/// (in the value), the value without it, and the edits that move it to its
/// own line above the key.
fn comment_moved_above<'v>(
    file: FileId,
    doc: &Document,
    e: &crate::syntax::Entry,
    value: &'v str,
) -> Option<(usize, &'v str, Vec<Edit>)> {
    // Most values have no `#` at all: one byte scan, not two substring
    // searches (each with its own setup), answers them.
    if !value.as_bytes().contains(&b'#') {
        return None;
    }
    let hash = value.find(" #").or_else(|| value.find("\t#"))?;
    let kept = value[..hash].trim_end();
    let edits = comment_to_own_line(
        doc,
        file,
        e.spans.key().start,
        e.spans.value().start + kept.len()..e.spans.value().end,
        value[hash..].trim(),
    );
    Some((hash, kept, edits))
}

/// nvinfer's YAML reader (`gst_nvinfer_parse_config_file_yaml`,
/// gstnvinfer_yaml_parser.cpp) reads only the `property:` map and the
/// `class-attrs-*:` maps: an nvinfer key written at the top level is never
/// read. Only keys nvinfer's `[property]` knows are reported (anything else
/// may be for another reader of the same file).
fn top_level_nvinfer_keys(file: FileId, group: &crate::syntax::Group, out: &mut Vec<Diagnostic>) {
    for e in &group.entries {
        if e.key.starts_with("class-attrs-") || keys::lookup(Schema::NvInfer, "property", &e.key).is_none() {
            continue;
        }
        out.push(
            Diagnostic::new(
                Rule::UnknownKey,
                file,
                e.spans.key(),
                format!("`{}` is at the top level, where nvinfer does not read it", e.key),
            )
            .expected(format!("`{}` under `property:`", e.key))
            .why("nvinfer's YAML reader reads only the `property:` and `class-attrs-*:` maps; the value has no effect"),
        );
    }
}
