//! Fixes write through the format's own lossless document: a new value
//! replaces exactly the bytes of the old one at a `Site`, and a new key is
//! added at an element's `Home` in the file's own style (its `=` spelling,
//! its indentation, its line ending).

use crate::base::FileId;
use crate::base::edit::Edit;
use crate::model::graph::{Element, Home, Site};
use crate::model::workspace::Workspace;
use crate::syntax::{Format, glib};

impl Workspace {
    /// An edit that sets the value at `site`: only the value's bytes change
    /// (for an integer, only its digits, so a trailing `# note` GLib ignores
    /// stays; YAML quotes stay).
    pub fn set_value(&self, site: &Site, new: &str) -> Edit {
        let file = &self.files[site.file];
        let text = file.doc.text.get(site.value_span.clone()).unwrap_or("");
        let mut range = site.value_span.clone();
        // A boolean written as a word stays a word (`sync=true` becomes
        // `sync=false`, Python's `True` becomes `False`).
        if let Some(word) = boolean_word(text, new) {
            return Edit {
                file: site.file,
                range,
                text: word,
            };
        }
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
        } else if file.doc.format == Format::KeyFile {
            // Keep trailing whitespace outside the replaced value.
            let trimmed = text.trim_end_matches([' ', '\t']).len();
            range = range.start..range.start + trimmed;
        }
        Edit {
            file: site.file,
            range,
            text: new.to_string(),
        }
    }

    /// An edit that adds `key` at `home`: at the end of the group, in the
    /// file's separator style and line ending.
    pub fn insert_key(&self, home: &Home, key: &str, value: &str) -> Option<Edit> {
        let (file, group) = match home {
            Home::Group { file, group, .. } => (file, group),
            Home::Launch { file, at, .. } => {
                return Some(Edit {
                    file: *file,
                    range: *at..*at,
                    text: format!(" {key}={value}"),
                });
            }
            Home::Python { file, at, template, .. } => {
                let value = python_literal(value);
                return Some(Edit {
                    file: *file,
                    range: *at..*at,
                    text: template.replace("{key}", key).replace("{value}", &value),
                });
            }
        };
        let doc = &self.files[*file].doc;
        let g = doc.last_group(group)?;
        let eol = doc.line_ending;
        let line = match doc.format {
            Format::KeyFile => format!("{key}{}{value}", key_separator(self, *file)),
            Format::Yaml => format!("{}{key}: {value}", g.indent),
            // A script or module has no groups.
            Format::Shell | Format::Python => return None,
        };
        let at_end = g.insert_at >= doc.text.len();
        let text = if at_end && !doc.text.is_empty() && !doc.text.ends_with('\n') {
            format!("{eol}{line}")
        } else {
            format!("{line}{eol}")
        };
        Some(Edit {
            file: *file,
            range: g.insert_at..g.insert_at,
            text,
        })
    }

    /// Set `key` where it wins on `elem`, or add it at the element's home.
    pub fn set_or_insert(&self, elem: &Element, key: &str, value: &str) -> Option<Edit> {
        self.set_or_insert_at(elem, elem.home.as_ref()?, key, value)
    }

    /// Set `key` where it wins on `elem`, or add it at `home` (an element's
    /// `declared` group, for the app's own keys such as `enable`).
    pub fn set_or_insert_at(&self, elem: &Element, home: &Home, key: &str, value: &str) -> Option<Edit> {
        match elem.prop(key).and_then(|p| p.effective()).and_then(|s| s.site.as_ref()) {
            Some(site) => Some(self.set_value(site, value)),
            None => self.insert_key(home, key, value),
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

/// `new` ("0" / "1") in the style of the boolean word `old`, if it is one.
fn boolean_word(old: &str, new: &str) -> Option<String> {
    let on = match new {
        "1" => true,
        "0" => false,
        _ => return None,
    };
    let word = match old {
        "true" | "false" => {
            if on {
                "true"
            } else {
                "false"
            }
        }
        "True" | "False" => {
            if on {
                "True"
            } else {
                "False"
            }
        }
        "TRUE" | "FALSE" => {
            if on {
                "TRUE"
            } else {
                "FALSE"
            }
        }
        _ => return None,
    };
    Some(word.to_string())
}

/// A value as a Python literal: a number stays, anything else is quoted.
fn python_literal(value: &str) -> String {
    if value.parse::<i64>().is_ok() || value.parse::<f64>().is_ok_and(f64::is_finite) {
        value.to_string()
    } else {
        format!("{value:?}")
    }
}
