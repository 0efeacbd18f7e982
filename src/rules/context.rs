//! The inputs rules share: n_streams and final_batch, and the helpers that
//! build fixes through the files' own documents.

use crate::base::edit::{Edit, Fix};
use crate::base::{FileId, Span};
use crate::model::facts::Facts;
use crate::model::graph::{Element, Home, Pipeline, Setting, Site};
use crate::model::workspace::Workspace;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Bench,
    Display,
}

pub struct Ctx<'a> {
    /// The files (texts, positions, paths), for messages and edits; what a
    /// pipeline is comes from the graph.
    pub ws: &'a Workspace,
    pub facts: Option<&'a Facts>,
    pub profile: Profile,
    /// The sink type the bench profile asks for (DS603).
    pub bench_sink_type: i64,
    /// The project says the apps run the new nvstreammux (DS107).
    pub new_streammux: bool,
    /// The DeepStream release the project says its configs run on.
    pub deepstream_version: Option<(u32, u32)>,
}

/// Where a value comes from, as messages say it: how the app derives it,
/// `[group] key` for the line that sets it, or, where no line holds it as
/// a literal dslint could edit (a Python constant used more than once, a
/// gst-launch value written with quotes or escapes), the element, the key
/// and the expression as written.
pub fn origin(ctx: &Ctx, elem: &Element, key: &str, s: &Setting) -> String {
    match (&s.derived, &s.site) {
        (Some(how), _) => how.to_string(),
        (None, Some(site)) => format!("[{}] {}", site.group, site.key),
        (None, None) => {
            let (file, span) = s.at.get();
            let written = crate::model::frontend::python::short(ctx.text(file, &span));
            format!("[{}] {key} = `{written}`", elem.name)
        }
    }
}

/// The line that sets `key` on `elem` and wins, if one does.
pub fn site<'e>(elem: &'e Element, key: &str) -> Option<&'e Site> {
    elem.prop(key)?.effective()?.site.as_ref()
}

impl<'a> Ctx<'a> {
    /// What the rules of a run see.
    pub fn new(ws: &'a Workspace, facts: Option<&'a Facts>, profile: Profile, sel: &crate::rules::Settings) -> Ctx<'a> {
        Ctx {
            ws,
            facts,
            profile,
            bench_sink_type: sel.bench_sink_type.unwrap_or(1),
            new_streammux: sel.new_streammux,
            deepstream_version: sel.deepstream_version,
        }
    }

    pub fn text(&self, file: FileId, span: &Span) -> &str {
        self.ws.files[file].doc.text.get(span.clone()).unwrap_or("")
    }

    /// n_streams: the streams the config's sources feed when it can count
    /// them; facts' `workload.n_streams` only where it cannot (Precision 8:
    /// the facts may describe another pipeline, and a fix that sets the
    /// batch to their count while the config runs fewer streams would be
    /// undone by a run without facts).
    pub fn n_streams(&self, p: &Pipeline) -> Option<(u32, String)> {
        // A checked sum: each `num-sources` is a C int from the config, so
        // the sum can pass u32 (three of 2147483647 once wrapped to 1 stream,
        // and DS101 asked for batch-size=1); past it the count is unknown.
        if let Some(n) = p.streams().filter(|&n| n > 0) {
            let code = matches!(
                self.ws.files[p.root].kind,
                Some(crate::model::detect::Kind::LaunchScript | crate::model::detect::Kind::PythonApp)
            );
            let from = if code {
                "the pipeline's sources"
            } else {
                "enabled sources in the config"
            };
            return Some((n, from.into()));
        }
        let n = self.facts.and_then(Facts::n_streams)?;
        Some((n, "workload.n_streams in facts".into()))
    }

    /// final_batch = min(plateau_batch, n_streams) with facts, else
    /// min(n_streams, 16) (the Stage 0 preset).
    pub fn final_batch(&self, p: &Pipeline) -> Option<(u32, String)> {
        let (n, from) = self.n_streams(p)?;
        match self.facts.and_then(Facts::plateau_batch) {
            Some(plateau) => Some((
                plateau.min(n),
                format!("final_batch = min(plateau_batch {plateau}, n_streams {n}); n_streams from {from}"),
            )),
            None => Some((
                n.min(16),
                format!("final_batch = min(n_streams {n}, 16); n_streams from {from}"),
            )),
        }
    }

    /// Whether `batch` is provably wrong for pipeline `p`, or `final_batch`
    /// is a measurement: then a batch rule may warn and fix safely.
    /// Otherwise `final_batch` is the Stage 0 preset `min(n_streams, 16)`, a
    /// suggestion (Precision 7). Provable without facts: a batch larger
    /// than the streams that feed it (streammux waits for frames that never
    /// come).
    pub fn batch_is_proven(&self, p: &Pipeline, batch: i64) -> bool {
        self.facts.and_then(Facts::plateau_batch).is_some()
            || self.n_streams(p).is_some_and(|(n, _)| batch > i64::from(n))
    }

    /// A fix that sets `site` to `value`: safe when `proven`, else unsafe
    /// (the value is a preset the user may have tuned away from).
    pub fn fix_value(&self, proven: bool, site: &Site, title: String, value: &str) -> Fix {
        let edit = vec![self.set_value(site, value)];
        if proven {
            Fix::safe(title, edit)
        } else {
            Fix::unsafe_(title, edit)
        }
    }

    /// An edit that sets the value at `site` (only the value's bytes).
    pub fn set_value(&self, site: &Site, new: &str) -> Edit {
        self.ws.set_value(site, new)
    }

    /// An edit that adds `key` at `home`, in the file's own style.
    pub fn insert(&self, home: &Home, key: &str, value: &str) -> Option<Edit> {
        self.ws.insert_key(home, key, value)
    }

    /// Set `key` where it wins on `elem`, or add it at the element's home.
    pub fn set_or_insert(&self, elem: &Element, key: &str, value: &str) -> Option<Edit> {
        self.ws.set_or_insert(elem, key, value)
    }

    pub fn set_or_insert_all(&self, elem: &Element, keys: &[(&str, String)]) -> Option<Vec<Edit>> {
        self.ws.set_or_insert_all(elem, keys)
    }
}
