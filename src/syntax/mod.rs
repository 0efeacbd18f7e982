//! Lossless documents: every group, key and value remembers its byte span in
//! the original text, so a fix can replace exactly the bytes it means to and
//! printing an unedited document is the identity.

pub mod c_enums;
pub mod c_keys;
pub mod dockerfile;
pub mod glib;
pub mod keyfile;
pub mod launch;
pub mod mounts;
pub mod pbtxt;
mod points;
pub mod python;
pub mod python_cuts;
pub mod python_plain;
mod render;
pub mod shell;
pub mod shell_cuts;
pub mod shell_plain;
pub mod yaml;
mod yaml_plain;
mod yaml_plain_kept;
pub mod yaml_tree;

use std::hash::BuildHasher;

use hashbrown::HashTable;

use crate::base::shared::Shared;
use crate::base::{LineSpans, Span};

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
///
/// Every document's entries live to the end of a check, one per line, so
/// the spans are held in 32-bit positions ([`LineSpans`]) and the texts
/// are one pointer each ([`Shared`]): 48 bytes an entry instead of 96.
#[derive(Debug, Clone)]
pub struct Entry {
    pub key: Shared,
    /// The value as the reader sees it before typing: for key-files the raw
    /// text after `=` (leading whitespace dropped, trailing kept, as GLib
    /// does); for YAML the scalar after unquoting; for protobuf text the
    /// token (a string unescaped, adjacent strings joined). `None` for a
    /// nested YAML sequence or map, or a protobuf list.
    pub value: Option<Shared>,
    /// The key's bytes, the value's (for a quoted YAML scalar: including
    /// the quotes) and the whole line(s) of this entry, up to and
    /// including the line end.
    pub spans: LineSpans,
    children: u32,
    /// For a key-file key written `key[locale]`: a translation, which GLib
    /// hides from `get_keys`.
    pub localized: bool,
}

impl Entry {
    /// An entry of a format without translations (YAML, protobuf text):
    /// never `localized`.
    pub fn plain(
        key: &str,
        key_span: Span,
        value: Option<&str>,
        value_span: Span,
        line_span: Span,
        children: usize,
    ) -> Entry {
        let mut e = Entry::new(
            Shared::interned(key),
            key_span,
            value.map(Shared::interned),
            value_span,
            line_span,
        );
        e.children = u32::try_from(children).unwrap_or(u32::MAX);
        e
    }

    /// An entry of one value (no nested items), not `localized`.
    pub fn new(key: Shared, key_span: Span, value: Option<Shared>, value_span: Span, line_span: Span) -> Entry {
        Entry {
            key,
            value,
            spans: LineSpans::new(key_span, value_span, line_span),
            children: 0,
            localized: false,
        }
    }

    /// For a nested YAML sequence or map, or a protobuf list: how many
    /// items it holds.
    pub fn children(&self) -> usize {
        self.children as usize
    }
}

/// A `[group]` (key-file), a top-level `name:` map (YAML), or one message
/// of a protobuf text, named by its path (`infer_config.backend`).
#[derive(Debug, Clone)]
pub struct Group {
    /// Interned per thread ([`Shared::interned`]): the same names
    /// (`property`, `source0`, `class-attrs-all`) recur across files.
    pub name: Shared,
    pub name_span: Span,
    pub entries: Vec<Entry>,
    /// Where a new key for this group goes: after the last key line.
    pub insert_at: usize,
    /// Indentation of the entries (YAML), or "" for key-files (interned).
    pub indent: Shared,
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
    /// YAML: the trees of the top-level keys a front end reads deeper than
    /// entries (`yaml::KEPT_KEYS`), built in this document's one parse;
    /// `None` when there are none or the text has a syntax error (as
    /// [`yaml_tree::parse`] has no tree then).
    pub kept: Option<std::sync::Arc<yaml_tree::Kept>>,
}

/// Group name → its groups in file order, and the winning entry of each
/// (group, key). The tables hold indices into the document's groups and
/// entries, never copies of the names, and only 32-bit ones (a file is at
/// most `MAX_FILE_BYTES`, so its groups and entries are far fewer): every
/// document's index lives to the end of the run, and with 64-bit pairs it
/// was a sixth of a 10k-file check's memory. Building it allocates a few
/// tables per document, not one list per group name.
#[derive(Debug, Clone, Default)]
struct Index {
    /// Distinct group names: the first group of each.
    names: HashTable<u32>,
    /// For each group, the next group of its name in file order (`NONE`:
    /// the last).
    next: Vec<u32>,
    /// The winning entry of each (group name, key): its group and its
    /// position there, packed in 32 bits ([`Winner`]): a finding of an
    /// ordinal's group was a binary search over the groups on every probe
    /// of every lookup (a tenth of an 8 MiB YAML config's check), and a
    /// pair of 32-bit numbers made this table, which every document keeps
    /// to the end of a run, a tenth of a 10k-file check's heap.
    winners: HashTable<u32>,
    /// How `winners` packs a group and a position.
    winner: Winner,
    /// Whether a later entry with the same group name and key overrides
    /// an entry, by the entry's ordinal in the file (`first_entry[group] +
    /// entry`): "is this line the one that counts?" is an index, not a
    /// lookup of the winner.
    overridden: Vec<bool>,
    /// The ordinal of each group's first entry (non-decreasing).
    first_entry: Vec<u32>,
    /// Whether some group name is written twice: without, every group is
    /// the first of its name, and questions about repeats need no lookup.
    repeated_names: bool,
    /// Seeded at random per run: the names come from the file, and a fixed
    /// seed would let a crafted file collide them all (quadratic lookups).
    hasher: foldhash::fast::RandomState,
}

/// No next group.
const NONE: u32 = u32::MAX;

/// How an [`Index`]'s winners pack an entry's group and its position in
/// one 32-bit number: the group above the position's `shift` bits, where
/// both fit (every file short of millions of groups and entries); else
/// the entry's ordinal in the file, whose group is then found by a binary
/// search over the groups' first entries.
#[derive(Debug, Clone, Copy, Default)]
enum Winner {
    #[default]
    Ordinal,
    Packed {
        shift: u8,
    },
}

/// Bits a number up to `n` takes.
fn bits(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

impl Winner {
    fn of(groups: &[Group]) -> Winner {
        let longest = groups.iter().map(|g| g.entries.len()).max().unwrap_or(0);
        let shift = bits(longest);
        if shift + bits(groups.len()) <= u32::BITS {
            Winner::Packed { shift: shift as u8 }
        } else {
            Winner::Ordinal
        }
    }

    fn pack(self, first_entry: &[u32], group: u32, entry: u32) -> u32 {
        match self {
            Winner::Packed { shift } => (group << shift) | entry,
            Winner::Ordinal => first_entry[group as usize] + entry,
        }
    }

    fn unpack(self, first_entry: &[u32], w: u32) -> (u32, u32) {
        match self {
            Winner::Packed { shift } => (w >> shift, w & ((1u32 << shift) - 1)),
            Winner::Ordinal => {
                // The last group starting at or before the entry (a group
                // before it that is empty starts where the next one does).
                let g = first_entry.partition_point(|&f| f <= w) - 1;
                (small(g), w - first_entry[g])
            }
        }
    }
}

/// A position as the index holds it.
fn small(i: usize) -> u32 {
    u32::try_from(i).expect("a document of at most MAX_FILE_BYTES has fewer than 2^32 groups and entries")
}

/// A byte offset as a line index holds it.
fn small_offset(i: usize) -> u32 {
    u32::try_from(i).expect("a file of at most MAX_FILE_BYTES has 32-bit offsets")
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
                small(entries - g.entries.len())
            })
            .collect();
        ix.overridden = vec![false; entries];
        ix.next = vec![NONE; groups.len()];
        // The last group of each name so far, by its first group (only
        // while building).
        let mut tail: Vec<u32> = vec![NONE; groups.len()];
        ix.names
            .reserve(groups.len(), |&f| hasher.hash_one(groups[f as usize].name.as_str()));
        let winner = Winner::of(groups);
        ix.winner = winner;
        let first_entry = &ix.first_entry;
        let hash_winner = |&w: &u32| {
            let (wg, we) = winner.unpack(first_entry, w);
            let g = &groups[wg as usize];
            hasher.hash_one((g.name.as_str(), g.entries[we as usize].key.as_str()))
        };
        ix.winners.reserve(entries, hash_winner);
        for (gi, g) in groups.iter().enumerate() {
            let h = hasher.hash_one(g.name.as_str());
            let found = ix.names.find(h, |&f| groups[f as usize].name == g.name);
            ix.repeated_names |= found.is_some();
            match found {
                Some(_) if yaml_cpp.is_some() => {
                    // A later map of the same name: yaml-cpp's lookup never
                    // reaches it, so every entry of it is overridden (DS004
                    // names the first map's entry where it has one).
                    let at = first_entry[gi] as usize;
                    ix.overridden[at..at + g.entries.len()].fill(true);
                    continue;
                }
                Some(&f) => {
                    let last = match tail[f as usize] {
                        NONE => f,
                        t => t,
                    };
                    ix.next[last as usize] = small(gi);
                    tail[f as usize] = small(gi);
                }
                None => {
                    ix.names
                        .insert_unique(h, small(gi), |&f| hasher.hash_one(groups[f as usize].name.as_str()));
                }
            }
            for (ei, e) in g.entries.iter().enumerate() {
                if e.localized {
                    continue;
                }
                let h = hasher.hash_one((g.name.as_str(), e.key.as_str()));
                let same = |&w: &u32| {
                    let (wg, we) = winner.unpack(first_entry, w);
                    let w = &groups[wg as usize];
                    w.name == g.name && w.entries[we as usize].key == e.key
                };
                let first_wins = yaml_cpp.is_some_and(|f| f(&g.name, &e.key));
                let ordinal = first_entry[gi] + small(ei);
                match ix.winners.find_mut(h, same) {
                    Some(_) if first_wins => {
                        ix.overridden[ordinal as usize] = true;
                    }
                    Some(slot) => {
                        let (wg, we) = winner.unpack(first_entry, *slot);
                        ix.overridden[(first_entry[wg as usize] + we) as usize] = true;
                        *slot = winner.pack(first_entry, small(gi), small(ei));
                    }
                    None => {
                        let w = winner.pack(first_entry, small(gi), small(ei));
                        ix.winners.insert_unique(h, w, hash_winner);
                    }
                }
            }
        }
        ix
    }

    /// Whether a group name or a key in a group name repeats: only then
    /// does how repeats resolve change the index.
    fn has_repeats(&self) -> bool {
        self.next.iter().any(|&n| n != NONE) || self.overridden.iter().any(|&o| o)
    }

    /// The first group named `name`.
    fn first(&self, all: &[Group], name: &str) -> Option<usize> {
        let h = self.hasher.hash_one(name);
        self.names
            .find(h, |&f| all[f as usize].name == name)
            .map(|&f| f as usize)
    }

    /// The groups named `name`, in file order.
    fn groups<'a>(&'a self, all: &[Group], name: &str) -> impl Iterator<Item = usize> + use<'a> {
        let first = self.first(all, name);
        std::iter::successors(first, |&g| match self.next[g] {
            NONE => None,
            n => Some(n as usize),
        })
    }

    fn winner(&self, all: &[Group], group: &str, key: &str) -> Option<(usize, usize)> {
        let h = self.hasher.hash_one((group, key));
        let winner = |w: u32| self.winner.unpack(&self.first_entry, w);
        self.winners
            .find(h, |&w| {
                let (g, e) = winner(w);
                let g = &all[g as usize];
                g.name == group && g.entries[e as usize].key == key
            })
            .map(|&w| {
                let (g, e) = winner(w);
                (g as usize, e as usize)
            })
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

    /// [`parse`](Self::parse), with the text's line index where the parser
    /// made it on its way (a key-file's lexer finds every line end);
    /// `None` for the others.
    pub fn parse_lined(text: String, format: Format) -> (Document, Option<LineIndex>) {
        match format {
            Format::KeyFile => {
                let (doc, lines) = keyfile::parse_lined(text);
                (doc, Some(lines))
            }
            Format::Yaml => {
                let (doc, lines) = yaml::parse_lined(text);
                (doc, Some(lines))
            }
            _ => (Document::parse(text, format), None),
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
            kept: None,
        }
    }

    /// Drop what the parser made (groups, errors, lookups, kept trees),
    /// keeping the text, format, BOM and line ending: for a run done with
    /// every reader and rule (`check`'s report and output read texts and
    /// positions only). Every lookup finds nothing after.
    pub fn drop_parse(&mut self) {
        let groups = std::mem::take(&mut self.groups);
        // An 8 MiB file's 100k groups are freed on all threads.
        if groups.len() >= 4096 {
            use rayon::prelude::*;
            groups.into_par_iter().with_min_len(1024).for_each(drop);
        }
        self.errors = Vec::new();
        self.by_name = Index::default();
        self.kept = None;
    }

    /// Whether repeats resolve as yaml-cpp sees them
    /// ([`Document::resolve_as_yaml_cpp`]).
    pub fn first_map_only(&self) -> bool {
        self.first_map_only
    }

    /// Parse the text again after [`Document::drop_parse`]: the document
    /// [`Document::parse`] makes of it, as the load made it (a caller
    /// does this only for a text read whole, whose repeats resolve as
    /// GLib's: `Workspace::may_drop_early`).
    pub fn parse_again(&mut self) {
        let text = std::mem::take(&mut self.text);
        *self = Document::parse(text, self.format);
    }

    /// Resolve repeats as a reader that looks keys up through yaml-cpp
    /// (`YAML::Node::operator[]`) sees them: `node_data::get`
    /// (yaml-cpp `node/detail/impl.h`) scans the map's pairs in order and
    /// returns the first whose key matches, so of a repeated top-level key
    /// only the first map is ever reached, and in it a key the reader looks
    /// up directly (`first_wins(group, key)`) keeps its first copy; a key
    /// the reader meets by iterating the map keeps its last.
    pub fn resolve_as_yaml_cpp(&mut self, first_wins: &FirstWins) {
        // Without a repeated group or key the index is the same either
        // way: not built a second time (a tenth of an 8 MiB
        // deepstream-parallel-infer config's check).
        if self.by_name.has_repeats() {
            self.by_name = Index::build_with(&self.groups, Some(first_wins));
        }
        self.first_map_only = true;
    }

    /// The first group of `group`'s name when only that one is read (see
    /// [`Document::resolve_as_yaml_cpp`]) and `group` is another: `None`
    /// when `group` is read.
    pub fn unread_repeat_of(&self, group: &Group) -> Option<&Group> {
        if !self.first_map_only || !self.by_name.repeated_names {
            return None;
        }
        let first = self.groups_named(&group.name).next()?;
        (!std::ptr::eq(first, group)).then_some(first)
    }

    /// Groups with this name, in file order (GLib merges repeats).
    pub fn groups_named<'a, 'n>(&'a self, name: &'n str) -> impl Iterator<Item = &'a Group> + use<'a, 'n> {
        self.by_name.groups(&self.groups, name).map(|i| &self.groups[i])
    }

    /// The entries of the groups named `name`, in file order, that a reader
    /// reads (translations aside): all of them, but a copy after the entry
    /// that wins its key (the first, for a key yaml-cpp's lookup finds
    /// first: [`Document::resolve_as_yaml_cpp`]). Asks the index's flags,
    /// and looks the winner up only for an overridden entry.
    pub fn entries_read<'a, 'n>(&'a self, name: &'n str) -> impl Iterator<Item = &'a Entry> + use<'a, 'n> {
        self.entries_read_of(self.by_name.groups(&self.groups, name))
    }

    /// `entries_read`, with how many entries the groups hold in all (at
    /// least as many as it yields), the name looked up once.
    pub fn entries_read_counted<'a>(&'a self, name: &str) -> (usize, impl Iterator<Item = &'a Entry> + use<'a>) {
        let groups: smallvec::SmallVec<[usize; 2]> = self.by_name.groups(&self.groups, name).collect();
        let entries = groups.iter().map(|&g| self.groups[g].entries.len()).sum();
        (entries, self.entries_read_of(groups.into_iter()))
    }

    fn entries_read_of(&self, groups: impl Iterator<Item = usize>) -> impl Iterator<Item = &Entry> {
        groups
            .flat_map(move |gi| {
                self.groups[gi]
                    .entries
                    .iter()
                    .enumerate()
                    .map(move |(ei, e)| (gi, ei, e))
            })
            .filter(|(_, _, e)| !e.localized)
            .filter(|&(gi, ei, e)| {
                self.overridden_by(gi, ei)
                    .is_none_or(|w| e.spans.key().start <= w.spans.key().start)
            })
            .map(|(_, _, e)| e)
    }

    pub fn has_group(&self, name: &str) -> bool {
        self.by_name.first(&self.groups, name).is_some()
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
            .and_then(|&at| ix.overridden.get(at as usize + entry))
            .is_some_and(|&o| o)
        {
            return None;
        }
        let (g, e) = (&self.groups[group], &self.groups[group].entries[entry]);
        self.get(&g.name, &e.key)
    }

    /// Distinct group names in first-seen order.
    pub fn group_names(&self) -> Vec<&str> {
        if !self.by_name.repeated_names {
            return self.groups.iter().map(|g| g.name.as_str()).collect();
        }
        (0..self.groups.len())
            .filter(|&g| self.by_name.first(&self.groups, &self.groups[g].name) == Some(g))
            .map(|g| self.groups[g].name.as_str())
            .collect()
    }

    /// The last occurrence of a group: where a missing key is added.
    pub fn last_group(&self, name: &str) -> Option<&Group> {
        self.groups_named(name).last()
    }
}

/// Maps byte offsets to 1-based line and column (columns count characters,
/// skipping a leading BOM, as editors show them).
///
/// Every loaded file's index lives to the end of a run: the line starts
/// are counted before the list is made, so it holds no growth slack, and
/// are 16-bit where the last one fits (most configs), else 32-bit (a file
/// is at most `MAX_FILE_BYTES`): a tenth of a 10k-file check's heap was
/// the texts' line starts with every one 32-bit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    starts: Starts,
}

/// A [`LineIndex`]'s line starts, in order: 16-bit ones when the last
/// fits (chosen by it alone, so that a text gives one index however it is
/// made).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Starts {
    Short(Box<[u16]>),
    Long(Box<[u32]>),
}

impl Starts {
    fn of(starts: &[u32]) -> Starts {
        match starts.last() {
            Some(&last) if u16::try_from(last).is_ok() => Starts::Short(starts.iter().map(|&s| s as u16).collect()),
            _ => Starts::Long(starts.into()),
        }
    }

    fn get(&self, line: usize) -> Option<usize> {
        match self {
            Starts::Short(s) => s.get(line).map(|&s| usize::from(s)),
            Starts::Long(s) => s.get(line).map(|&s| s as usize),
        }
    }

    /// The index of the last start at or before `offset`.
    fn last_at_or_before(&self, offset: usize) -> usize {
        // An offset past the type's range is past every start it holds.
        let found = match self {
            Starts::Short(s) => s.binary_search(&u16::try_from(offset).unwrap_or(u16::MAX)),
            Starts::Long(s) => s.binary_search(&u32::try_from(offset).unwrap_or(u32::MAX)),
        };
        match found {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    #[cfg(test)]
    fn to_vec(&self) -> Vec<u32> {
        match self {
            Starts::Short(s) => s.iter().map(|&s| u32::from(s)).collect(),
            Starts::Long(s) => s.to_vec(),
        }
    }
}

impl LineIndex {
    /// The index of a text whose line starts a parser found: 0, then the
    /// offset after each line feed, in order (`keyfile::parse_lined`).
    fn from_starts(starts: Vec<u32>) -> LineIndex {
        LineIndex {
            starts: Starts::of(&starts),
        }
    }

    /// The index and the line ending ([`detect_line_ending`]) of a text,
    /// in one pass over its line feeds (`new` and `detect_line_ending`
    /// take three): the starts are gathered in a buffer the thread keeps,
    /// then copied to a list of their exact count.
    pub fn scan(text: &str) -> (LineIndex, &'static str) {
        thread_local! {
            static STARTS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        STARTS.with_borrow_mut(|starts| {
            let bytes = text.as_bytes();
            starts.clear();
            starts.push(0);
            let mut crlf = 0usize;
            for i in memchr::memchr_iter(b'\n', bytes) {
                starts.push(small_offset(i + 1));
                crlf += usize::from(i > 0 && bytes[i - 1] == b'\r');
            }
            let lf = starts.len() - 1;
            let ending = if crlf > 0 && crlf * 2 >= lf { "\r\n" } else { "\n" };
            let index = LineIndex {
                starts: Starts::of(starts),
            };
            // A huge file's buffer is not kept for the rest of the run.
            if starts.capacity() > 1 << 16 {
                *starts = Vec::new();
            }
            (index, ending)
        })
    }

    pub fn new(text: &str) -> LineIndex {
        // memchr's iterator: a config's lines found many bytes a step, not
        // a byte at a time.
        let bytes = text.as_bytes();
        let mut starts = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| small_offset(i + 1)));
        LineIndex::from_starts(starts)
    }

    /// The index of the line holding a byte offset (0-based).
    fn index(&self, offset: usize) -> usize {
        self.starts.last_at_or_before(offset)
    }

    /// The start of a 0-based line.
    fn start(&self, line: usize) -> usize {
        self.starts.get(line).expect("a line of the text")
    }

    /// The 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.index(offset) + 1
    }

    /// 1-based (line, column) of a byte offset.
    pub fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.index(offset);
        let start = self.start(line);
        let prefix = text.get(start..offset).unwrap_or("");
        let col = prefix.trim_start_matches('\u{feff}').chars().count() + 1;
        (line + 1, col)
    }

    /// 1-based line and byte column of a byte offset (the column counts
    /// bytes from the line's start, a BOM included, as review tools do).
    pub fn byte_position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.line(offset);
        (line, offset - self.start(line - 1) + 1)
    }

    /// Byte range of a 1-based line, without its line ending.
    pub fn line_span(&self, text: &str, line: usize) -> Span {
        let start = self.start(line - 1);
        let mut end = self.starts.get(line).unwrap_or(text.len());
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
    use super::{Document, Entry, Format, LineIndex, detect_line_ending};

    /// Every document's entries live to the end of a check: 48 bytes an
    /// entry (64 with `Arc<str>` texts, 96 with 64-bit spans and count too).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn an_entry_keeps_its_compact_size() {
        assert_eq!(std::mem::size_of::<Entry>(), 48);
    }

    /// A group's name and indent are one pointer each (interned): 64 bytes
    /// a group, not 96 with owned `String`s.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_group_keeps_its_compact_size() {
        assert_eq!(std::mem::size_of::<super::Group>(), 64);
    }

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
            let mut starts = vec![0u32];
            starts.extend(
                t.bytes()
                    .enumerate()
                    .filter(|&(_, b)| b == b'\n')
                    .map(|(i, _)| i as u32 + 1),
            );
            assert_eq!(LineIndex::new(t).starts.to_vec(), starts, "{t:?}");
            assert_eq!(LineIndex::scan(t), (LineIndex::new(t), detect_line_ending(t)), "{t:?}");
            // The parsers that make the index on their way make the same.
            for format in [Format::KeyFile, Format::Yaml] {
                let (doc, lines) = Document::parse_lined(t.to_string(), format);
                assert_eq!(lines, Some(LineIndex::new(t)), "{format:?} {t:?}");
                assert_eq!(doc.line_ending, detect_line_ending(t), "{format:?} {t:?}");
            }
            let crlf = t.matches("\r\n").count();
            let lf = t.matches('\n').count();
            let want = if crlf > 0 && crlf * 2 >= lf { "\r\n" } else { "\n" };
            assert_eq!(detect_line_ending(t), want, "{t:?}");
        }
        assert_eq!(detect_line_ending("a\r\nb\nc\n"), "\n");
        assert_eq!(detect_line_ending("a\r\nb\r\nc\n"), "\r\n");
    }

    /// Line starts are 16-bit when the last one fits and 32-bit past it:
    /// lines, columns and line spans either side of the boundary are those
    /// a count over the text gives.
    #[test]
    fn line_starts_either_side_of_sixteen_bits() {
        for len in [65_533usize, 65_534, 65_535, 65_536, 65_537, 70_000] {
            // Lines of 9 bytes and a line feed, the last line cut to `len`.
            let mut t: String = "123456789\n".repeat(len / 10 + 1);
            t.truncate(len);
            for tail in ["", "\n", "x\n", "é\r\nz"] {
                let text = format!("{t}{tail}");
                let index = LineIndex::new(&text);
                let last = text.rfind('\n').map_or(0, |i| i + 1);
                assert_eq!(
                    matches!(index.starts, super::Starts::Short(_)),
                    last <= 65_535,
                    "{len} {tail:?}"
                );
                assert_eq!(index, LineIndex::scan(&text).0);
                for offset in [
                    0,
                    9,
                    10,
                    65_529,
                    65_530,
                    65_534,
                    65_535,
                    65_536,
                    65_537,
                    text.len(),
                    text.len() + 5,
                ] {
                    let o = offset.min(text.len());
                    if !text.is_char_boundary(o) {
                        continue;
                    }
                    let line = text[..o].matches('\n').count() + 1;
                    let start = text[..o].rfind('\n').map_or(0, |i| i + 1);
                    let col = text[start..o].chars().count() + 1;
                    assert_eq!(index.position(&text, offset), (line, col), "{len} {tail:?} {offset}");
                    assert_eq!(
                        index.byte_position(&text, offset),
                        (line, o - start + 1),
                        "{len} {tail:?} {offset}"
                    );
                    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
                    let end = if text[start..end].ends_with('\r') { end - 1 } else { end };
                    assert_eq!(index.line_span(&text, line), start..end, "{len} {tail:?} {offset}");
                }
            }
        }
    }

    /// A document's winners as a scan finds them: the last entry of each
    /// (group name, key), translations aside.
    fn winners_by_scan(d: &Document) -> std::collections::HashMap<(String, String), (usize, usize)> {
        let mut out = std::collections::HashMap::new();
        for (g, group) in d.groups.iter().enumerate() {
            for (e, entry) in group.entries.iter().enumerate().filter(|(_, e)| !e.localized) {
                out.insert((group.name.to_string(), entry.key.to_string()), (g, e));
            }
        }
        out
    }

    /// Every lookup of a document against [`winners_by_scan`]: `get` and
    /// `overridden_by` for each entry.
    fn assert_winners_as_scanned(d: &Document) {
        let want = winners_by_scan(d);
        for (g, group) in d.groups.iter().enumerate() {
            for (e, entry) in group.entries.iter().enumerate().filter(|(_, e)| !e.localized) {
                let (wg, we) = want[&(group.name.to_string(), entry.key.to_string())];
                let winner = &d.groups[wg].entries[we];
                let got = d.get(&group.name, &entry.key).expect("a winner");
                assert!(std::ptr::eq(got, winner), "{g}/{e}");
                let over = d.overridden_by(g, e);
                assert_eq!(
                    over.map(|w| w as *const Entry),
                    ((wg, we) != (g, e)).then_some(winner as *const Entry),
                    "{g}/{e}"
                );
            }
        }
        assert!(d.get("no such group", "k").is_none());
    }

    /// The winners table packs an entry's group and position in 32 bits
    /// where both fit, else keeps its ordinal (a file of 2^16 groups and a
    /// group of 2^15 entries): either way each look-up finds the entry a
    /// scan finds, empty and repeated groups and repeated keys among them.
    #[test]
    fn winners_packed_or_by_ordinal_are_the_scanned_ones() {
        let small = "[a]\nx=1\ny=2\n[e]\n[a]\nx=3\n[b]\nx=4\nx=5\nz[de]=6\nz=7\n[e]\n";
        let d = Document::parse(small.to_string(), Format::KeyFile);
        assert!(matches!(d.by_name.winner, super::Winner::Packed { shift: 3 }));
        assert_winners_as_scanned(&d);
        let mut big = String::from("[a]\nx=1\n");
        big.push_str(&"[e]\n".repeat(65_536));
        big.push_str("[b]\n");
        for i in 0..32_768 {
            big.push_str(&format!("k{}=v\n", i % 30_000));
        }
        big.push_str("[a]\nx=2\ny=3\n");
        let d = Document::parse(big, Format::KeyFile);
        assert!(matches!(d.by_name.winner, super::Winner::Ordinal));
        assert_winners_as_scanned(&d);
    }

    /// Resolving repeats as yaml-cpp does: a document without repeats
    /// keeps its index (it would be built the same); with a repeated map
    /// or key, the first map and a looked-up key's first copy win.
    #[test]
    fn yaml_cpp_resolution_with_and_without_repeats() {
        let lookups = |d: &Document| {
            let mut out = Vec::new();
            for (g, group) in d.groups.iter().enumerate() {
                for (e, entry) in group.entries.iter().enumerate() {
                    let winner = d.get(&group.name, &entry.key).map(|w| w.spans.key());
                    let over = d.overridden_by(g, e).map(|w| w.spans.key());
                    let named: Vec<_> = d.groups_named(&group.name).map(|x| x.name_span.clone()).collect();
                    out.push(format!("{g}/{e}: {winner:?} {over:?} {named:?}"));
                }
            }
            out
        };
        let plain = "a:\n  x: 1\n  y: 2\nb:\n  x: 3\n";
        let mut d = Document::parse(plain.to_string(), Format::Yaml);
        let before = lookups(&d);
        d.resolve_as_yaml_cpp(&|_, _| true);
        assert_eq!(lookups(&d), before);
        assert!(d.unread_repeat_of(&d.groups[1]).is_none());

        let repeats = "a:\n  x: 1\n  x: 2\n  y: 5\n  y: 6\na:\n  x: 3\n";
        let mut d = Document::parse(repeats.to_string(), Format::Yaml);
        assert_eq!(d.get("a", "x").and_then(|e| e.value.as_deref()), Some("3"));
        d.resolve_as_yaml_cpp(&|_, key| key == "x");
        assert_eq!(d.get("a", "x").and_then(|e| e.value.as_deref()), Some("1"));
        assert_eq!(d.get("a", "y").and_then(|e| e.value.as_deref()), Some("6"));
        assert!(d.unread_repeat_of(&d.groups[1]).is_some());
    }
}
