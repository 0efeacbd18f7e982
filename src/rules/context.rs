//! The inputs rules share: n_streams, final_batch, the effective batch
//! sizes and where they are written, and helpers that build fixes in the
//! file's own style.

use crate::base::FileId;
use crate::base::Span;
use crate::base::edit::Edit;
use crate::model::detect::Kind;
use crate::model::facts::Facts;
use crate::model::pipeline::{At, Pipeline};
use crate::model::workspace::Workspace;
use crate::syntax::{Format, glib};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Bench,
    Display,
}

pub struct Ctx<'a> {
    pub ws: &'a Workspace,
    pub facts: Option<&'a Facts>,
    pub profile: Profile,
    /// The sink type the bench profile asks for (DS603).
    pub bench_sink_type: i64,
}

/// Where a value is written.
#[derive(Debug, Clone)]
pub struct Loc {
    pub file: FileId,
    pub group: String,
    pub key: String,
    pub value_span: Span,
}

/// An effective value and the line that wins, or how it was computed.
#[derive(Debug, Clone)]
pub struct Effective {
    pub value: i64,
    /// The line DeepStream takes the value from; `None` when computed.
    pub loc: Option<Loc>,
    /// Where to point a finding about it (the line, or what computes it).
    pub at: (FileId, Span),
    pub how: String,
}

impl Effective {
    /// A value written on a line (which a fix can edit).
    pub fn written(value: i64, loc: Loc, how: String) -> Effective {
        Effective {
            value,
            at: (loc.file, loc.value_span.clone()),
            loc: Some(loc),
            how,
        }
    }
}

impl<'a> Ctx<'a> {
    pub fn loc(&self, at: &At, key: &str) -> Option<Loc> {
        let e = self.ws.entry_at(at, key)?;
        Some(Loc {
            file: at.file,
            group: at.group.clone(),
            key: key.to_string(),
            value_span: e.value_span.clone(),
        })
    }

    pub fn text(&self, file: FileId, span: &Span) -> &str {
        self.ws.files[file].doc.text.get(span.clone()).unwrap_or("")
    }

    /// n_streams: facts first, else the enabled sources of the config.
    pub fn n_streams(&self, p: &Pipeline) -> Option<(u32, String)> {
        if let Some(n) = self.facts.and_then(Facts::n_streams) {
            return Some((n, "workload.n_streams in facts".into()));
        }
        if p.use_nvmultiurisrcbin {
            return None;
        }
        if p.sources.is_empty() {
            return None;
        }
        // Each `num-sources` is a C int from the config, so the sum can pass
        // u32 (three of 2147483647 once wrapped to 1 stream, and DS101 asked
        // for batch-size=1): past it the count is unknown.
        let mut n: u32 = 0;
        for s in &p.sources {
            n = n.checked_add(s.streams?)?;
        }
        (n > 0).then(|| (n, "enabled sources in the config".into()))
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

    fn overridden_by_source_list(&self, p: &Pipeline) -> Option<Effective> {
        if p.kind != Kind::App {
            return None;
        }
        let (at, uris) = p.source_list.as_ref()?;
        if p.use_nvmultiurisrcbin {
            let e = self.ws.entry_at(at, "max-batch-size")?;
            return Some(Effective {
                value: glib::parse_int(e.value.as_deref()?)?,
                loc: self.loc(at, "max-batch-size"),
                at: (at.file, e.value_span.clone()),
                how: "use-nvmultiurisrcbin sets it to [source-list] max-batch-size".into(),
            });
        }
        let list = self
            .ws
            .entry_at(at, "list")
            .or_else(|| self.ws.entry(at.file, "", "source-list"));
        Some(Effective {
            value: uris.len() as i64,
            loc: None,
            at: (at.file, list.map_or(0..0, |e| e.key_span.clone())),
            how: format!("[source-list] sets it to the number of sources ({})", uris.len()),
        })
    }

    pub fn streammux_batch(&self, p: &Pipeline) -> Option<Effective> {
        if let Some(e) = self.overridden_by_source_list(p) {
            return Some(e);
        }
        let at = p.streammux.as_ref()?;
        let v = self.ws.int_at(at, "batch-size")?;
        Some(Effective::written(
            v,
            self.loc(at, "batch-size")?,
            "[streammux] batch-size".into(),
        ))
    }

    /// The primary nvinfer's batch-size as the element ends up with it.
    pub fn primary_batch(&self, p: &Pipeline) -> Option<Effective> {
        if let Some(e) = self.overridden_by_source_list(p) {
            return Some(e);
        }
        let gie = p.primary.as_ref()?;
        self.gie_batch(gie)
    }

    pub fn gie_batch(&self, gie: &crate::model::pipeline::Gie) -> Option<Effective> {
        if let Some(v) = self.ws.int_at(&gie.at, "batch-size") {
            let how = format!(
                "[{}] batch-size (set on the element, overrides the config file)",
                gie.at.group
            );
            return Some(Effective::written(v, self.loc(&gie.at, "batch-size")?, how));
        }
        let cfg = At {
            file: gie.config?,
            group: "property".into(),
        };
        let v = self.ws.int_at(&cfg, "batch-size")?;
        Some(Effective::written(
            v,
            self.loc(&cfg, "batch-size")?,
            "nvinfer [property] batch-size".into(),
        ))
    }

    /// An integer set on an inference element: its app group wins over its
    /// config file's `[property]` (deepstream-app sets the group's keys on
    /// the element after loading the file).
    pub fn element_int(&self, group: Option<&At>, config: Option<FileId>, key: &str) -> Option<Effective> {
        if let Some(at) = group {
            if let Some(v) = self.ws.int_at(at, key) {
                return Some(Effective::written(
                    v,
                    self.loc(at, key)?,
                    format!("[{}] {key}", at.group),
                ));
            }
        }
        let prop = At {
            file: config?,
            group: "property".into(),
        };
        let v = self.ws.int_at(&prop, key)?;
        Some(Effective::written(
            v,
            self.loc(&prop, key)?,
            format!("[property] {key}"),
        ))
    }

    /// An edit that sets the value at `loc`: only the value's bytes change
    /// (for an integer, only its digits, so a trailing `# note` GLib ignores
    /// stays; YAML quotes stay).
    pub fn set_value(&self, loc: &Loc, new: &str) -> Edit {
        let text = self.text(loc.file, &loc.value_span);
        let mut range = loc.value_span.clone();
        if let Some(q) = text.chars().next().filter(|c| *c == '"' || *c == '\'') {
            if text.len() >= 2 && text.ends_with(q) {
                range = range.start + 1..range.end - 1;
            }
        } else if glib::parse_int(text).is_some() {
            let len = text
                .bytes()
                .enumerate()
                .take_while(|(i, b)| b.is_ascii_digit() || (*i == 0 && (*b == b'-' || *b == b'+')))
                .count();
            range = range.start..range.start + len;
        } else if self.ws.files[loc.file].doc.format == Format::KeyFile {
            // Keep trailing whitespace outside the replaced value.
            let trimmed = text.trim_end_matches([' ', '\t']).len();
            range = range.start..range.start + trimmed;
        }
        Edit {
            file: loc.file,
            range,
            text: new.to_string(),
        }
    }

    /// An edit that adds `key` at the end of the group, in the file's
    /// separator style and line ending.
    pub fn insert_key(&self, at: &At, key: &str, value: &str) -> Option<Edit> {
        let file = &self.ws.files[at.file];
        let doc = &file.doc;
        let group = doc.last_group(&at.group)?;
        let eol = doc.line_ending;
        let line = match doc.format {
            Format::KeyFile => format!("{key}{}{value}", key_separator(self.ws, at.file)),
            Format::Yaml => format!("{}{key}: {value}", group.indent),
        };
        let at_end = group.insert_at >= doc.text.len();
        let text = if at_end && !doc.text.is_empty() && !doc.text.ends_with('\n') {
            format!("{eol}{line}")
        } else {
            format!("{line}{eol}")
        };
        Some(Edit {
            file: at.file,
            range: group.insert_at..group.insert_at,
            text,
        })
    }

    pub fn set_or_insert(&self, at: &At, key: &str, value: &str) -> Option<Edit> {
        match self.loc(at, key) {
            Some(loc) => Some(self.set_value(&loc, value)),
            None => self.insert_key(at, key, value),
        }
    }
}

/// The `=` spelling most lines of a key-file use (`=`, ` = `, `= `).
fn key_separator(ws: &Workspace, file: FileId) -> String {
    let doc = &ws.files[file].doc;
    let mut counts: Vec<(String, usize)> = Vec::new();
    for e in doc.groups.iter().flat_map(|g| &g.entries) {
        if e.value_span.start < e.key_span.end {
            continue;
        }
        let sep = &doc.text[e.key_span.end..e.value_span.start];
        if e.value_span.is_empty() {
            continue;
        }
        match counts.iter_mut().find(|(s, _)| s == sep) {
            Some((_, n)) => *n += 1,
            None => counts.push((sep.to_string(), 1)),
        }
    }
    counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map_or_else(|| "=".to_string(), |(s, _)| s)
}
