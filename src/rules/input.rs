//! DS001–DS006: what a file's reader would refuse or misread.

use crate::base::FileId;
use crate::base::diagnostic::Diagnostic;
use crate::base::edit::{Edit, Fix};
use crate::base::rule::Rule;
use crate::model::detect::Kind;
use crate::model::keys::{self, Schema};
use crate::rules::context::Ctx;
use crate::syntax::{Format, glib};

const MAX_SUGGESTIONS_PER_FILE: usize = 1000;

pub fn check_file(ctx: &Ctx, file: FileId, out: &mut Vec<Diagnostic>) {
    let f = &ctx.ws.files[file];
    let doc = &f.doc;
    for err in &doc.errors {
        let mut d = Diagnostic::new(Rule::SyntaxError, file, err.span.clone(), err.message.clone());
        if doc.format == Format::KeyFile {
            d = d.why("DeepStream reads this file with GLib's key-file reader, which refuses the whole file");
            if err.span == (0..3) && doc.has_bom {
                d = d.fix(Some(Fix::safe(
                    "drop the byte-order mark",
                    vec![Edit {
                        file,
                        range: 0..3,
                        text: String::new(),
                    }],
                )));
            }
        }
        out.push(d);
    }
    let schema = match f.kind {
        Some(Kind::App) => Some(Schema::App),
        Some(Kind::NvInfer) => Some(Schema::NvInfer),
        Some(Kind::Tracker) => Some(Schema::Tracker),
        _ => None,
    };
    // "Did you mean" costs an edit distance per known key: offered for the
    // first unknown keys of a file only, so a file of 100k junk keys stays
    // fast (each still gets its DS002).
    let mut suggestions_left = MAX_SUGGESTIONS_PER_FILE;
    for group in &doc.groups {
        if let Some(schema) = schema {
            if !keys::known_group(schema, &group.name) && !group.name.is_empty() {
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
                continue;
            }
        }
        for (i, e) in group.entries.iter().enumerate() {
            if e.localized {
                continue;
            }
            // DS004: a later line with the same key in the same (merged)
            // group: the winner, when it is not this line.
            let later = doc
                .get(&group.name, &e.key)
                .filter(|w| w.key_span.start > e.key_span.start);
            if let Some(winner) = later {
                let (line, _) = f.position(winner.key_span.start);
                out.push(
                    Diagnostic::new(
                        Rule::DuplicateKey,
                        file,
                        e.key_span.clone(),
                        format!("`{}` is set again on line {line}; this line is ignored", e.key),
                    )
                    .why("the key-file reader keeps the last value of a repeated key")
                    .related(file, winner.key_span.clone()),
                );
            }
            let _ = i;
            let Some(value) = e.value.as_deref() else { continue };
            // DS006: GLib keeps ` # …` as part of a string value.
            if doc.format == Format::KeyFile {
                check_trailing_comment(ctx, file, e, value, schema, &group.name, out);
            }
            let Some(schema) = schema else { continue };
            if !keys::group_has_key_table(schema, &group.name) {
                continue;
            }
            let Some(spec) = keys::lookup(schema, &group.name, &e.key) else {
                let mut d = Diagnostic::new(
                    Rule::UnknownKey,
                    file,
                    e.key_span.clone(),
                    format!("unknown key `{}` in [{}]", e.key, group.name),
                )
                .why("DeepStream prints \"Unknown key\" and ignores it, so the setting has no effect");
                if suggestions_left > 0 {
                    suggestions_left -= 1;
                    if let Some(s) = keys::suggest_key(schema, &group.name, &e.key) {
                        d = d.expected(format!("did you mean `{s}`?"));
                    }
                }
                out.push(d);
                continue;
            };
            check_type(file, e, value, spec, doc.format, out);
        }
    }
}

fn check_type(
    file: FileId,
    e: &crate::syntax::Entry,
    value: &str,
    spec: &keys::KeySpec,
    format: Format,
    out: &mut Vec<Diagnostic>,
) {
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
    if let Err(msg) = checked {
        out.push(
            Diagnostic::new(
                Rule::InvalidValue,
                file,
                e.value_span.clone(),
                format!("`{}`: {msg}", e.key),
            )
            .expected(spec.ty.describe())
            .why("DeepStream's parser fails on this value and the pipeline does not start"),
        );
        return;
    }
    if matches!(spec.ty, T::Int) {
        if let Some(n) = glib::parse_int(value.trim()) {
            let low = spec.min.is_some_and(|m| n < m);
            let high = spec.max.is_some_and(|m| n > m);
            if low || high {
                let range = match (spec.min, spec.max) {
                    (Some(a), Some(b)) => format!("{a}..{b}"),
                    (Some(a), None) => format!("{a} or more"),
                    (None, Some(b)) => format!("{b} or less"),
                    _ => String::new(),
                };
                out.push(
                    Diagnostic::new(
                        Rule::InvalidValue,
                        file,
                        e.value_span.clone(),
                        format!("`{}={n}` is out of range", e.key),
                    )
                    .expected(range)
                    .why("the element rejects the value or misbehaves"),
                );
            }
        }
    }
}

fn check_trailing_comment(
    ctx: &Ctx,
    file: FileId,
    e: &crate::syntax::Entry,
    value: &str,
    schema: Option<Schema>,
    group: &str,
    out: &mut Vec<Diagnostic>,
) {
    let Some(hash) = value.find(" #").or_else(|| value.find("\t#")) else {
        return;
    };
    let is_string = schema
        .and_then(|s| keys::lookup(s, group, &e.key))
        .is_none_or(|k| matches!(k.ty, glib::ValueType::String | glib::ValueType::StringList));
    if !is_string {
        return; // integers read past it (DS003 covers doubles and booleans)
    }
    let kept = value[..hash].trim_end();
    let comment = value[hash..].trim();
    let doc = &ctx.ws.files[file].doc;
    let line_start = e.line_span.start;
    let indent: String = doc.text[line_start..e.key_span.start].to_string();
    let mut edits = vec![Edit {
        file,
        range: e.value_span.start + kept.len()..e.value_span.end,
        text: String::new(),
    }];
    edits.insert(
        0,
        Edit {
            file,
            range: line_start..line_start,
            text: format!("{indent}{comment}{}", doc.line_ending),
        },
    );
    out.push(
        Diagnostic::new(
            Rule::TrailingCommentInValue,
            file,
            e.value_span.start + hash..e.value_span.end,
            format!("`{}` reads as `{}`: GLib has no trailing comments", e.key, value),
        )
        .expected(format!("`{}={}` with the comment on its own line above", e.key, kept))
        .why("the key-file reader keeps everything after `=`, so the path or name includes the comment")
        .fix(Some(Fix::safe("move the comment to its own line above", edits))),
    );
}
