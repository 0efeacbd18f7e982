//! gst-launch pipelines: a script's `gst-launch-1.0` commands and the
//! strings a program hands to `gst_parse_launch`. Each description
//! (`syntax::launch`) is one pipeline: its elements with their properties
//! (`key=value`, in order; the last of a repeated key wins, as GStreamer sets
//! them in order), its links, `m.sink_N` references resolved by name.
//!
//! A value that holds a placeholder (`$VAR`) is unknown; a value whose bytes
//! in the file are not exactly its text (quotes or escapes inside it) is
//! known but has no site a fix could edit. A description GStreamer would
//! refuse (a syntax error, a reference to no element) gives no pipeline:
//! the command fails before any property matters.

use std::collections::HashMap;

use crate::base::FileId;
use crate::model::frontend::gst::{self, Found};
use crate::model::graph::{Home, Layer, Link, Pipeline, Setting, Site, Value};
use crate::model::workspace::Workspace;
use crate::syntax::launch::{self, End, Mapped, PLACEHOLDER};

/// The pipeline one description builds; `None` when GStreamer would refuse
/// it or it names no DeepStream element. `source` is the file's text: the caller's
/// copy, made once for all the file's descriptions (a copy each made a
/// script of 80k `gst-launch-1.0` lines quadratic: 8 MiB in over 60 s).
pub fn build(ws: &mut Workspace, file: FileId, source: &str, mapped: &Mapped) -> Option<Pipeline> {
    build_parsed(ws, file, source, mapped, launch::parse(&mapped.text))
}

/// `build` of a description already parsed (`d`: `launch::parse` of
/// `mapped`'s text; a script's are parsed on all threads).
pub fn build_parsed(
    ws: &mut Workspace,
    file: FileId,
    source: &str,
    mapped: &Mapped,
    d: launch::Description,
) -> Option<Pipeline> {
    if !d.errors.is_empty() || d.elements.is_empty() {
        return None;
    }
    // A description that names none of DeepStream's elements is no
    // DeepStream pipeline (a plain viewer in a script whose only DeepStream
    // line is commented out, a camera check beside the real pipeline): no
    // rule has a claim to make about it.
    if !d
        .elements
        .iter()
        .any(|e| crate::model::detect::names_deepstream_element(&e.factory))
    {
        return None;
    }
    let mut counters: HashMap<&str, usize> = HashMap::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut found = Vec::new();
    let mut opaque = !d.opaque.is_empty();
    for (i, e) in d.elements.iter().enumerate() {
        // GStreamer names an unnamed element `<factory><n>`.
        let n = counters.entry(e.factory.as_str()).or_insert(0);
        let default = format!("{}{n}", e.factory);
        *n += 1;
        let name = e.name().map_or(default, str::to_string);
        if !name.contains(PLACEHOLDER) {
            names.insert(name.clone(), i);
        }
        let unknown_factory = e.factory.contains(PLACEHOLDER);
        opaque |= unknown_factory;
        let shown = if unknown_factory {
            mapped
                .source_span(&e.factory_span)
                .and_then(|s| source.get(s))
                .unwrap_or("?")
                .to_string()
        } else {
            name.clone()
        };
        let mut props = gst::Props::default();
        for a in &e.assignments {
            if a.key == "name" {
                continue;
            }
            if let Some(s) = setting(file, &shown, a, mapped, source) {
                props.push(&a.key, s);
            }
        }
        let home = mapped
            .insertion_after(e.end, source)
            .zip(mapped.source_span(&e.factory_span))
            .map(|(at, header)| Home::Launch { file, at, header });
        found.push(Found {
            factory: (!unknown_factory).then(|| e.factory.clone()),
            name: shown,
            props: props.into_vec(),
            home,
        });
    }
    let mut links = Vec::new();
    for l in &d.links {
        let resolve = |end: &End| match end {
            End::Element(i) => Some(*i),
            End::Ref { name, .. } => names.get(name).copied(),
        };
        match (resolve(&l.from), resolve(&l.to)) {
            (Some(from), Some(to)) => links.push(Link { from, to }),
            // A reference to a name the text does not spell out.
            _ if ref_unknown(&l.from) || ref_unknown(&l.to) => opaque = true,
            // gst_parse_launch fails on a reference to no element.
            _ => return None,
        }
    }
    let mut references = Vec::new();
    let elements = found
        .into_iter()
        .map(|f| gst::element(ws, file, f, &mut references))
        .collect();
    Some(gst::assemble(file, elements, links, opaque, references))
}

fn ref_unknown(end: &End) -> bool {
    matches!(end, End::Ref { name, .. } if name.contains(PLACEHOLDER))
}

/// One assignment as a setting: its value (unknown when it holds a
/// placeholder), and a site when its bytes in the file are its text.
fn setting(file: FileId, element: &str, a: &launch::Assignment, mapped: &Mapped, source: &str) -> Option<Setting> {
    let unknowns = mapped.unknowns_in(&a.value_span);
    let value = if unknowns.is_empty() {
        Value::Known(a.value.as_str().into())
    } else {
        Value::Unknown(unknowns.join(", "))
    };
    let span = mapped.source_span(&a.span)?;
    let at = mapped
        .source_span(&a.value_span)
        .or_else(|| mapped.source_span(&a.span))
        .unwrap_or(span.clone());
    let value_span = (unknowns.is_empty() && a.value == source.get(at.clone()).unwrap_or_default())
        .then(|| mapped.verbatim(&a.value_span, source))
        .flatten();
    let key_span = mapped.source_span(&a.key_span)?;
    let site = value_span.map(|value_span| {
        Site::new(
            file,
            element.into(),
            a.key.as_str().into(),
            key_span,
            value_span,
            span.clone(),
        )
    });
    Some(Setting {
        value,
        site,
        at: (file, at).into(),
        layer: Layer::Element,
        derived: None,
    })
}
