//! Fixes write through the format's own lossless document: a new value
//! replaces exactly the bytes of the old one at a `Site`, and a new key is
//! added at an element's `Home` in the file's own style (its `=` spelling,
//! its indentation, its line ending).

use crate::base::FileId;
use crate::base::edit::Edit;
use crate::model::frontend::{inferserver, service_maker};
use crate::model::graph::{Element, Home, Site};
use crate::model::workspace::Workspace;
use crate::syntax::{Format, glib};

impl Workspace {
    /// An edit that sets the value at `site`: only the value's bytes change
    /// (for an integer, only its digits, so a trailing `# note` GLib ignores
    /// stays; YAML quotes stay).
    pub fn set_value(&self, site: &Site, new: &str) -> Edit {
        let file = &self.files[site.file];
        let text = file.doc.text.get(site.spans.value()).unwrap_or("");
        let mut range = site.spans.value();
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
        // A YAML boolean written as a word stays a word (`live-source:
        // true`), in its own case: Service Maker reads GObject booleans so.
        let new = match (file.doc.format, yaml_word(text), new) {
            (Format::Yaml, Some(words), "0") => words.1,
            (Format::Yaml, Some(words), "1") => words.0,
            _ => new,
        };
        Edit {
            file: site.file,
            range,
            text: new.to_string(),
        }
    }

    /// An edit that adds `key` at `home`: at the end of the group, in the
    /// file's separator style and line ending. For an nvinferserver config
    /// `key` is the property's name and goes in its own message, which the
    /// file must already have.
    pub fn insert_key(&self, home: &Home, key: &str, value: &str) -> Option<Edit> {
        let (file, group, key) = match home {
            Home::YamlMap {
                file,
                insert_at,
                indent,
                open,
                ..
            } => return Some(self.insert_in_map(*file, *insert_at, indent, open.as_deref(), key, value)),
            Home::Group { file, group, .. } => (*file, group.as_str(), key),
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
            Home::InferServer { file, .. } => {
                let (message, field) = inferserver::field_for(key)?;
                (*file, message, field)
            }
        };
        let doc = &self.files[file].doc;
        let g = doc.last_group(group)?;
        let eol = doc.line_ending;
        let line = match doc.format {
            Format::KeyFile => format!("{key}{}{value}", key_separator(self, file)),
            Format::Yaml | Format::Protobuf => format!("{}{key}: {value}", g.indent),
            // A script or module has no groups.
            Format::Shell | Format::Python => return None,
        };
        let on_own_line = g.insert_at == 0 || doc.text[..g.insert_at].ends_with('\n');
        let at_end = g.insert_at >= doc.text.len();
        let text = if doc.format == Format::Protobuf && !on_own_line {
            // A message on one line (`input_control { interval: 0 }`): the
            // field goes before its closing brace.
            let pad = if doc.text[..g.insert_at].ends_with([' ', '\t']) {
                ""
            } else {
                " "
            };
            format!("{pad}{key}: {value} ")
        } else if at_end && !doc.text.is_empty() && !doc.text.ends_with('\n') {
            format!("{eol}{line}")
        } else {
            format!("{line}{eol}")
        };
        Some(Edit {
            file,
            range: g.insert_at..g.insert_at,
            text,
        })
    }

    /// A `key: value` line at `at` in a nested YAML map (after the map's own
    /// key line `open`, when it has none yet). A boolean property is
    /// written as YAML's `true`/`false`, which Service Maker reads.
    fn insert_in_map(&self, file: FileId, at: usize, indent: &str, open: Option<&str>, key: &str, value: &str) -> Edit {
        let doc = &self.files[file].doc;
        let eol = doc.line_ending;
        let value = yaml_boolean(key, value);
        let mut text = String::new();
        if at >= doc.text.len() && !doc.text.is_empty() && !doc.text.ends_with('\n') {
            text.push_str(eol);
        }
        if let Some(open) = open {
            text.push_str(open);
            text.push_str(eol);
        }
        text.push_str(&format!("{indent}{key}: {value}{eol}"));
        Edit {
            file,
            range: at..at,
            text,
        }
    }

    /// Set each key where it wins on `elem`, or add the missing ones at the
    /// element's home in one edit per place: two insertions at one offset
    /// would be ambiguous, and a YAML node without a map must open it once.
    pub fn set_or_insert_all(&self, elem: &Element, keys: &[(&str, String)]) -> Option<Vec<Edit>> {
        let home = elem.home.as_deref()?;
        let mut edits: Vec<Edit> = Vec::new();
        let mut opened = false;
        for (key, value) in keys {
            let edit = match elem.prop(key).and_then(|p| p.effective()).and_then(|s| s.site.as_ref()) {
                Some(site) => self.set_value(site, value),
                None => match home {
                    Home::YamlMap {
                        file,
                        insert_at,
                        indent,
                        open,
                        ..
                    } => {
                        let open = if opened { None } else { open.as_deref() };
                        opened = true;
                        self.insert_in_map(*file, *insert_at, indent, open, key, value)
                    }
                    _ => self.insert_key(home, key, value)?,
                },
            };
            match edits
                .iter_mut()
                .find(|e| e.file == edit.file && e.range.is_empty() && e.range == edit.range)
            {
                Some(e) => e.text.push_str(&edit.text),
                None => edits.push(edit),
            }
        }
        Some(edits)
    }

    /// Set `key` where it wins on `elem`, or add it at the element's home.
    pub fn set_or_insert(&self, elem: &Element, key: &str, value: &str) -> Option<Edit> {
        self.set_or_insert_at(elem, elem.home.as_deref()?, key, value)
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

/// The (true, false) words of the spelling a YAML boolean uses.
fn yaml_word(text: &str) -> Option<(&'static str, &'static str)> {
    match text {
        "true" | "false" => Some(("true", "false")),
        "True" | "False" => Some(("True", "False")),
        "TRUE" | "FALSE" => Some(("TRUE", "FALSE")),
        _ => None,
    }
}

/// `0`/`1` for a GObject boolean, as a YAML boolean.
fn yaml_boolean<'v>(key: &str, value: &'v str) -> &'v str {
    if !service_maker::BOOLEAN_PROPERTIES.contains(&key) {
        return value;
    }
    match value {
        "0" => "false",
        "1" => "true",
        v => v,
    }
}

/// The `=` spelling most lines of a key-file use (`=`, ` = `, `= `).
fn key_separator(ws: &Workspace, file: FileId) -> String {
    let doc = &ws.files[file].doc;
    let mut counts: Vec<(String, usize)> = Vec::new();
    for e in doc.groups.iter().flat_map(|g| &g.entries) {
        if e.spans.value().start < e.spans.key().end {
            continue;
        }
        let sep = &doc.text[e.spans.key().end..e.spans.value().start];
        if e.spans.value().is_empty() {
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
