//! Lossless documents: every group, key and value remembers its byte span in
//! the original text, so a fix can replace exactly the bytes it means to and
//! printing an unedited document is the identity.

pub mod glib;
pub mod keyfile;
pub mod launch;
pub mod pbtxt;
pub mod python;
pub mod python_cuts;
mod render;
pub mod shell;
pub mod shell_cuts;
pub mod yaml;
pub mod yaml_tree;

use std::hash::BuildHasher;

use hashbrown::HashTable;

use crate::base::Span;
use crate::base::shared::Shared;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    KeyFile,
    Yaml,
    /// A shell script (its `gst-launch-1.0` lines: `syntax::shell`).
    Shell,
    /// A Python module (`syntax::python`).
    Python,
    /// Protobuf text format (nvinferserver).
    Protobuf,
}

impl Format {
    pub fn describe(self) -> &'static str {
        match self {
            Format::KeyFile => "key-file",
            Format::Yaml => "YAML",
            Format::Shell => "shell script",
            Format::Python => "Python",
            Format::Protobuf => "protobuf text",
        }
    }
}

/// One `key=value` line (key-file), `key: value` pair (YAML) or scalar
/// field (protobuf text).
#[derive(Debug, Clone)]
pub struct Entry {
    pub key: Shared,
    pub key_span: Span,
    /// The value as the reader sees it before typing: for key-files the raw
    /// text after `=` (leading whitespace dropped, trailing kept, as GLib
    /// does); for YAML the scalar after unquoting; for protobuf text the
    /// token (a string unescaped, adjacent strings joined). `None` for a
    /// nested YAML sequence or map, or a protobuf list.
    pub value: Option<Shared>,
    /// Bytes of the value in the source (for a quoted YAML scalar: including
    /// the quotes).
    pub value_span: Span,
    /// The whole line(s) of this entry, up to and including the line end.
    pub line_span: Span,
    /// For a key-file key written `key[locale]`: a translation, which GLib
    /// hides from `get_keys`.
    pub localized: bool,
    /// For a nested YAML sequence or map, or a protobuf list: how many
    /// items it holds.
    pub children: usize,
}

impl Entry {
    /// An entry of a format without translations (YAML, protobuf text):
    /// never `localized`.
    pub fn plain(
        key: impl Into<Shared>,
        key_span: Span,
        value: Option<String>,
        value_span: Span,
        line_span: Span,
        children: usize,
    ) -> Entry {
        Entry {
            key: key.into(),
            key_span,
            value: value.map(Shared::from),
            value_span,
            line_span,
            localized: false,
            children,
        }
    }
}

/// A `[group]` (key-file), a top-level `name:` map (YAML), or one message
/// of a protobuf text, named by its path (`infer_config.backend`).
#[derive(Debug, Clone)]
pub struct Group {
    pub name: String,
    pub name_span: Span,
    pub entries: Vec<Entry>,
    /// Where a new key for this group goes: after the last key line.
    pub insert_at: usize,
    /// Indentation of the entries (YAML), or "" for key-files.
    pub indent: String,
}

#[derive(Debug, Clone)]
pub struct SyntaxError {
    pub span: Span,
    pub message: String,
}

/// A parsed configuration file that still owns its exact bytes.
#[derive(Debug, Clone)]
pub struct Document {
    pub text: String,
    pub format: Format,
    pub groups: Vec<Group>,
    pub errors: Vec<SyntaxError>,
    pub has_bom: bool,
    pub line_ending: &'static str,
    /// Whether repeats resolve as a yaml-cpp reader that looks keys up by
    /// name sees them ([`Document::resolve_as_yaml_cpp`]).
    first_map_only: bool,
    /// Lookups by name, built once by the parsers (`index`), so that
    /// every per-line question is a hash lookup, not a scan: a hostile file
    /// of 100k groups or keys stays linear.
    by_name: Index,
}

/// Group name → its groups in file order, and the winning entry of each
/// (group, key). The tables hold indices into the document's groups and
/// entries, never copies of the names: building it allocates once per
/// distinct group name, not once per key.
#[derive(Debug, Clone, Default)]
struct Index {
    /// Distinct group names: an index into `lists`.
    names: HashTable<usize>,
    /// For each distinct name, in first-seen order: its groups in file order.
    lists: Vec<Vec<usize>>,
    /// (group, entry) of the winning entry of each (group name, key).
    winners: HashTable<(usize, usize)>,
    /// Whether a later entry with the same group name and key overrides
    /// an entry, by the entry's ordinal in the file (`first_entry[group] +
    /// entry`): "is this line the one that counts?" is an index, not a
    /// lookup of the winner.
    overridden: Vec<bool>,
    /// The ordinal of each group's first entry.
    first_entry: Vec<usize>,
    /// Seeded at random per run: the names come from the file, and a fixed
    /// seed would let a crafted file collide them all (quadratic lookups).
    hasher: foldhash::fast::RandomState,
}

/// Whether a reader keeps the first copy of `group`/`key` (see
/// [`Document::resolve_as_yaml_cpp`]).
pub type FirstWins = dyn Fn(&str, &str) -> bool;

impl Index {
    fn build(groups: &[Group]) -> Index {
        Index::build_with(groups, None)
    }

    /// `yaml_cpp`: only the first group of a name counts, and in it a key
    /// the predicate names keeps its first entry (see
    /// [`Document::resolve_as_yaml_cpp`]).
    fn build_with(groups: &[Group], yaml_cpp: Option<&FirstWins>) -> Index {
        let mut ix = Index::default();
        let hasher = ix.hasher.clone();
        // Sized once: growing the tables by doubling rehashed every entry
        // again and again (a tenth of an 8 MiB file's check).
        let mut entries = 0;
        ix.first_entry = groups
            .iter()
            .map(|g| {
                entries += g.entries.len();
                entries - g.entries.len()
            })
            .collect();
        ix.overridden = vec![false; entries];
        ix.names
            .reserve(groups.len(), |&l| hasher.hash_one(groups[ix.lists[l][0]].name.as_str()));
        ix.winners.reserve(entries, |&(wg, we)| {
            hasher.hash_one((groups[wg].name.as_str(), groups[wg].entries[we].key.as_str()))
        });
        for (gi, g) in groups.iter().enumerate() {
            let h = hasher.hash_one(g.name.as_str());
            let lists = &mut ix.lists;
            match ix.names.find(h, |&l| groups[lists[l][0]].name == g.name) {
                Some(_) if yaml_cpp.is_some() => {
                    // A later map of the same name: yaml-cpp's lookup never
                    // reaches it, so every entry of it is overridden (DS004
                    // names the first map's entry where it has one).
                    let at = ix.first_entry[gi];
                    ix.overridden[at..at + g.entries.len()].fill(true);
                    continue;
                }
                Some(&l) => lists[l].push(gi),
                None => {
                    ix.names
                        .insert_unique(h, lists.len(), |&l| hasher.hash_one(groups[lists[l][0]].name.as_str()));
                    lists.push(vec![gi]);
                }
            }
            for (ei, e) in g.entries.iter().enumerate() {
                if e.localized {
                    continue;
                }
                let h = hasher.hash_one((g.name.as_str(), e.key.as_str()));
                let same = |&(wg, we): &(usize, usize)| {
                    let w: &Group = &groups[wg];
                    w.name == g.name && w.entries[we].key == e.key
                };
                let first_wins = yaml_cpp.is_some_and(|f| f(&g.name, &e.key));
                match ix.winners.find_mut(h, same) {
                    Some(_) if first_wins => {
                        ix.overridden[ix.first_entry[gi] + ei] = true;
                    }
                    Some(slot) => {
                        ix.overridden[ix.first_entry[slot.0] + slot.1] = true;
                        *slot = (gi, ei);
                    }
                    None => {
                        ix.winners.insert_unique(h, (gi, ei), |&(wg, we)| {
                            hasher.hash_one((groups[wg].name.as_str(), groups[wg].entries[we].key.as_str()))
                        });
                    }
                }
            }
        }
        ix
    }

    /// The groups named `name`, in file order.
    fn groups(&self, all: &[Group], name: &str) -> Option<&[usize]> {
        let h = self.hasher.hash_one(name);
        let &l = self.names.find(h, |&l| all[self.lists[l][0]].name == name)?;
        Some(&self.lists[l])
    }

    fn winner(&self, all: &[Group], group: &str, key: &str) -> Option<(usize, usize)> {
        let h = self.hasher.hash_one((group, key));
        self.winners
            .find(h, |&(g, e)| all[g].name == group && all[g].entries[e].key == key)
            .copied()
    }
}

impl Document {
    pub fn parse(text: String, format: Format) -> Document {
        match format {
            Format::KeyFile => keyfile::parse(text),
            Format::Yaml => yaml::parse(text),
            Format::Shell | Format::Python => Document::code(text, format),
            Format::Protobuf => pbtxt::parse(text),
        }
    }

    /// A script or module: its text, with no groups. Its pipelines are read
    /// from the text by the front ends (`syntax::shell`, `syntax::python`),
    /// whose trees keep a byte span on every node.
    fn code(text: String, format: Format) -> Document {
        let line_ending = detect_line_ending(&text);
        let has_bom = text.starts_with('\u{feff}');
        let errors = match format {
            Format::Python => python::too_deep(&text).into_iter().collect(),
            _ => Vec::new(),
        };
        Document::new(text, format, Vec::new(), errors, has_bom, line_ending)
    }

    /// A document from a parser's parts, with its lookups built.
    pub fn new(
        text: String,
        format: Format,
        groups: Vec<Group>,
        errors: Vec<SyntaxError>,
        has_bom: bool,
        line_ending: &'static str,
    ) -> Document {
        // Parsers grow these by pushing: a doubling vector's slack is a
        // quarter of the entries on average, held for the whole run.
        let mut groups = groups;
        groups.shrink_to_fit();
        for g in &mut groups {
            g.entries.shrink_to_fit();
        }
        let by_name = Index::build(&groups);
        Document {
            text,
            format,
            groups,
            errors,
            has_bom,
            line_ending,
            first_map_only: false,
            by_name,
        }
    }

    /// Resolve repeats as a reader that looks keys up through yaml-cpp
    /// (`YAML::Node::operator[]`) sees them: `node_data::get`
    /// (yaml-cpp `node/detail/impl.h`) scans the map's pairs in order and
    /// returns the first whose key matches, so of a repeated top-level key
    /// only the first map is ever reached, and in it a key the reader looks
    /// up directly (`first_wins(group, key)`) keeps its first copy; a key
    /// the reader meets by iterating the map keeps its last.
    pub fn resolve_as_yaml_cpp(&mut self, first_wins: &FirstWins) {
        self.by_name = Index::build_with(&self.groups, Some(first_wins));
        self.first_map_only = true;
    }

    /// The first group of `group`'s name when only that one is read (see
    /// [`Document::resolve_as_yaml_cpp`]) and `group` is another: `None`
    /// when `group` is read.
    pub fn unread_repeat_of(&self, group: &Group) -> Option<&Group> {
        if !self.first_map_only {
            return None;
        }
        let first = self.groups_named(&group.name).next()?;
        (!std::ptr::eq(first, group)).then_some(first)
    }

    /// Groups with this name, in file order (GLib merges repeats).
    pub fn groups_named<'a, 'n>(&'a self, name: &'n str) -> impl Iterator<Item = &'a Group> + use<'a, 'n> {
        self.by_name
            .groups(&self.groups, name)
            .into_iter()
            .flatten()
            .map(|&i| &self.groups[i])
    }

    /// The entries of the groups named `name`, in file order, that a reader
    /// reads (translations aside): all of them, but a copy after the entry
    /// that wins its key (the first, for a key yaml-cpp's lookup finds
    /// first: [`Document::resolve_as_yaml_cpp`]). Asks the index's flags,
    /// and looks the winner up only for an overridden entry.
    pub fn entries_read<'a, 'n>(&'a self, name: &'n str) -> impl Iterator<Item = &'a Entry> + use<'a, 'n> {
        self.by_name
            .groups(&self.groups, name)
            .into_iter()
            .flatten()
            .flat_map(move |&gi| {
                self.groups[gi]
                    .entries
                    .iter()
                    .enumerate()
                    .map(move |(ei, e)| (gi, ei, e))
            })
            .filter(|(_, _, e)| !e.localized)
            .filter(|&(gi, ei, e)| {
                self.overridden_by(gi, ei)
                    .is_none_or(|w| e.key_span.start <= w.key_span.start)
            })
            .map(|(_, _, e)| e)
    }

    pub fn has_group(&self, name: &str) -> bool {
        self.by_name.groups(&self.groups, name).is_some()
    }

    /// The entry that wins for `group`/`key`: the last one, as GLib and
    /// yaml maps resolve repeats.
    pub fn get(&self, group: &str, key: &str) -> Option<&Entry> {
        let (g, e) = self.by_name.winner(&self.groups, group, key)?;
        Some(&self.groups[g].entries[e])
    }

    /// The entry that overrides entry `entry` of the `group`-th group: the
    /// winner of its group name and key when that is not this entry itself
    /// (a repeated key or a repeated group), else `None`.
    pub fn overridden_by(&self, group: usize, entry: usize) -> Option<&Entry> {
        let ix = &self.by_name;
        if !ix
            .first_entry
            .get(group)
            .and_then(|&at| ix.overridden.get(at + entry))
            .is_some_and(|&o| o)
        {
            return None;
        }
        let (g, e) = (&self.groups[group], &self.groups[group].entries[entry]);
        self.get(&g.name, &e.key)
    }

    /// Distinct group names in first-seen order.
    pub fn group_names(&self) -> Vec<&str> {
        self.by_name
            .lists
            .iter()
            .map(|l| self.groups[l[0]].name.as_str())
            .collect()
    }

    /// The last occurrence of a group: where a missing key is added.
    pub fn last_group(&self, name: &str) -> Option<&Group> {
        self.groups_named(name).last()
    }
}

/// Maps byte offsets to 1-based line and column (columns count characters,
/// skipping a leading BOM, as editors show them).
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        // memchr's iterator: a config's lines found many bytes a step, not
        // a byte at a time.
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// The 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// 1-based (line, column) of a byte offset.
    pub fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let prefix = text.get(start..offset).unwrap_or("");
        let col = prefix.trim_start_matches('\u{feff}').chars().count() + 1;
        (line + 1, col)
    }

    /// 1-based line and byte column of a byte offset (the column counts
    /// bytes from the line's start, a BOM included, as review tools do).
    pub fn byte_position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.line(offset);
        (line, offset - self.starts[line - 1] + 1)
    }

    /// Byte range of a 1-based line, without its line ending.
    pub fn line_span(&self, text: &str, line: usize) -> Span {
        let start = self.starts[line - 1];
        let mut end = self.starts.get(line).copied().unwrap_or(text.len());
        let bytes = text.as_bytes();
        if end > start && bytes[end - 1] == b'\n' {
            end -= 1;
        }
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        start..end
    }
}

/// The line ending the file mostly uses; new lines are written the same way.
pub fn detect_line_ending(text: &str) -> &'static str {
    // One memchr pass over the line feeds; a CRLF is a line feed after a
    // carriage return (two never overlap).
    let bytes = text.as_bytes();
    let (mut lf, mut crlf) = (0usize, 0usize);
    for i in memchr::memchr_iter(b'\n', bytes) {
        lf += 1;
        crlf += usize::from(i > 0 && bytes[i - 1] == b'\r');
    }
    if crlf > 0 && crlf * 2 >= lf { "\r\n" } else { "\n" }
}

#[cfg(test)]
mod tests {
    use super::{LineIndex, detect_line_ending};

    /// Line starts and the line ending, against a byte-at-a-time count, on
    /// texts with LF, CRLF, lone CRs, a BOM, multi-byte chars and no final
    /// line feed.
    #[test]
    fn lines_and_line_endings_as_counted_byte_by_byte() {
        let texts = [
            "",
            "\n",
            "a",
            "a\nb\n",
            "a\r\nb\r\nc",
            "\r\n\r\n\n",
            "a\r\nb\nc\n",
            "a\r\nb\nc\nd\n",
            "\r\r\n\rx\n",
            "\u{feff}é\r\nü\nß",
        ];
        for t in texts {
            let mut starts = vec![0];
            starts.extend(t.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
            assert_eq!(LineIndex::new(t).starts, starts, "{t:?}");
            let crlf = t.matches("\r\n").count();
            let lf = t.matches('\n').count();
            let want = if crlf > 0 && crlf * 2 >= lf { "\r\n" } else { "\n" };
            assert_eq!(detect_line_ending(t), want, "{t:?}");
        }
        assert_eq!(detect_line_ending("a\r\nb\nc\n"), "\n");
        assert_eq!(detect_line_ending("a\r\nb\r\nc\n"), "\r\n");
    }
}
