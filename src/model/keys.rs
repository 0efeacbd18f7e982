//! The key tables in `rules/keys.tsv`: which keys each DeepStream reader
//! knows, the GLib type it reads them with, and their valid range.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::syntax::glib::ValueType;

const TABLE: &str = include_str!("../../rules/keys.tsv");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Schema {
    /// deepstream-app's config (`[application]`, `[sourceN]`, …).
    App,
    /// nvinfer's config (`[property]`, `[class-attrs-*]`).
    NvInfer,
    /// nvtracker's key-file (`[tracker]`).
    Tracker,
    /// The new nvstreammux's config (`[property]`, `[source-config-N]`).
    NewStreammux,
}

#[derive(Debug, Clone)]
pub struct KeySpec {
    pub schema: Schema,
    /// Group name, or a prefix when it ends in `*`.
    pub group: String,
    /// Key name, or a prefix when it ends in `*`.
    pub key: String,
    pub ty: ValueType,
    /// The values the reader accepts: a union of inclusive ranges, each
    /// end open when `None` (`network-type`: 0..3 and 100). Empty: any.
    pub ranges: Vec<(Option<i64>, Option<i64>)>,
    /// The first release whose parser reads the key (`None`: 6.0 or older).
    pub since: Option<&'static str>,
    /// The first release whose parser no longer reads it (`None`: 9.1 does).
    pub until: Option<&'static str>,
    /// A note from the table (`renamed config-file-path`).
    pub note: &'static str,
}

/// The DeepStream releases whose parsers the table was checked against, in
/// order (8.0's sources were not available).
pub const CHECKED_RELEASES: &[&str] = &[
    "6.0", "6.0.1", "6.1", "6.1.1", "6.2", "6.3", "6.4", "7.0", "7.1", "9.0", "9.1",
];

impl KeySpec {
    /// Whether `n` lies in one of the accepted ranges.
    pub fn accepts(&self, n: i64) -> bool {
        self.ranges.is_empty()
            || self
                .ranges
                .iter()
                .any(|(lo, hi)| lo.is_none_or(|l| n >= l) && hi.is_none_or(|h| n <= h))
    }

    /// The accepted values in words (`0..3 or 100`, `1 or more`).
    pub fn describe_range(&self) -> String {
        let one = |(lo, hi): &(Option<i64>, Option<i64>)| match (lo, hi) {
            (Some(a), Some(b)) if a == b => format!("{a}"),
            (Some(a), Some(b)) => format!("{a}..{b}"),
            (Some(a), None) => format!("{a} or more"),
            (None, Some(b)) => format!("{b} or less"),
            (None, None) => "any".to_string(),
        };
        self.ranges.iter().map(one).collect::<Vec<_>>().join(" or ")
    }

    /// For a key a release stopped reading: which releases read it, in
    /// words ("removed in DS 6.3: DS 6.0–6.2 read it").
    pub fn removal(&self) -> Option<String> {
        let until = self.until?;
        let at = CHECKED_RELEASES.iter().position(|r| *r == until)?;
        if at == 0 {
            return Some(format!("no DeepStream release since {until} reads it"));
        }
        let last = CHECKED_RELEASES[at - 1];
        let first = self.since.unwrap_or(CHECKED_RELEASES[0]);
        let read = if first == last {
            format!("DS {last} reads it")
        } else {
            format!("DS {first}–{last} read it")
        };
        // 8.0 was not checked: between 7.1 and 9.0 say only what is known.
        Some(if last == "7.1" && until == "9.0" {
            format!("{read}, DS 9.0 does not")
        } else {
            format!("removed in DS {until}: {read}")
        })
    }
}

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

pub fn table() -> &'static [KeySpec] {
    static KEYS: OnceLock<Vec<KeySpec>> = OnceLock::new();
    KEYS.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let cols: Vec<&str> = l.split('\t').collect();
                let schema = match *cols.first()? {
                    "app" => Schema::App,
                    "nvinfer" => Schema::NvInfer,
                    "tracker" => Schema::Tracker,
                    "newmux" => Schema::NewStreammux,
                    _ => return None,
                };
                let ranges = cols
                    .get(4)
                    .copied()
                    .unwrap_or("")
                    .split(',')
                    .filter_map(|r| r.split_once(".."))
                    .map(|(a, b)| (a.parse().ok(), b.parse().ok()))
                    .collect();
                let version = |i: usize| cols.get(i).copied().filter(|v| !v.is_empty());
                Some(KeySpec {
                    schema,
                    group: cols.get(1)?.to_string(),
                    key: cols.get(2)?.to_string(),
                    ty: ValueType::parse(cols.get(3)?)?,
                    ranges,
                    since: version(5),
                    until: version(6),
                    note: cols.get(7).copied().unwrap_or(""),
                })
            })
            .collect()
    })
}

/// The index's maps: hashed with foldhash (a lookup runs for every key of
/// every file; SipHash was 5% of a check). Their keys are the table's own,
/// fixed when the index is built: input only asks, never inserts.
type TableMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// The table's rows by schema and group: exact group names in a map, the
/// few `prefix*` groups in a list; within each group, its exact key names
/// in a map too. Lookups run once per key of a file, so they must not scan
/// the table, nor allocate.
struct Index {
    exact: TableMap<Schema, TableMap<&'static str, Rows>>,
    patterns: Vec<(Schema, &'static str, Rows)>,
    /// Each schema's group names (a pattern without its `*`), for "did you
    /// mean" on groups.
    group_names: TableMap<Schema, Vec<&'static str>>,
}

/// The rows of one group, in table order.
#[derive(Default)]
struct Rows {
    all: Vec<usize>,
    /// Key name as written → its first row, by [`key_hash`]: a key looked
    /// up in a group's exact rows and in a pattern's is hashed once.
    by_key: hashbrown::HashTable<(&'static str, usize)>,
    /// `prefix*` keys: (prefix, row), in table order.
    key_patterns: Vec<(&'static str, usize)>,
}

impl Rows {
    fn add(&mut self, i: usize, key: &'static str) {
        self.all.push(i);
        let h = key_hash(key);
        if self.by_key.find(h, |&(k, _)| k == key).is_none() {
            self.by_key.insert_unique(h, (key, i), |&(k, _)| key_hash(k));
        }
        if let Some(prefix) = key.strip_suffix('*') {
            self.key_patterns.push((prefix, i));
        }
    }
}

/// The hash of a key name in every group's [`Rows::by_key`]: foldhash,
/// seeded at random once a run (the table's names are fixed; input only
/// asks), over the name's bytes in one write.
fn key_hash(key: &str) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static STATE: OnceLock<foldhash::fast::RandomState> = OnceLock::new();
    let mut h = STATE.get_or_init(foldhash::fast::RandomState::default).build_hasher();
    h.write(key.as_bytes());
    h.finish()
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut ix = Index {
            exact: TableMap::default(),
            patterns: Vec::new(),
            group_names: TableMap::default(),
        };
        for (i, k) in table().iter().enumerate() {
            let rows = match k.group.strip_suffix('*') {
                Some(prefix) => match ix.patterns.iter().position(|(s, p, _)| *s == k.schema && *p == prefix) {
                    Some(at) => &mut ix.patterns[at].2,
                    None => {
                        ix.patterns.push((k.schema, prefix, Rows::default()));
                        &mut ix.patterns.last_mut().expect("just pushed").2
                    }
                },
                None => ix
                    .exact
                    .entry(k.schema)
                    .or_default()
                    .entry(k.group.as_str())
                    .or_default(),
            };
            rows.add(i, k.key.as_str());
            let names = ix.group_names.entry(k.schema).or_default();
            let name = k.group.trim_end_matches('*');
            if names.last() != Some(&name) {
                names.push(name);
            }
        }
        ix
    })
}

/// The row groups that apply to `group`: its exact group, then the
/// patterns it matches.
fn row_groups(schema: Schema, group: &str) -> impl Iterator<Item = &'static Rows> + Clone + use<'_> {
    let ix = index();
    ix.exact.get(&schema).and_then(|m| m.get(group)).into_iter().chain(
        ix.patterns
            .iter()
            .filter(move |(s, prefix, _)| *s == schema && group.starts_with(prefix))
            .map(|(_, _, r)| r),
    )
}

/// The rows whose group matches `group`, in table order.
fn rows(schema: Schema, group: &str) -> Vec<&'static KeySpec> {
    let mut rows: Vec<usize> = row_groups(schema, group).flat_map(|r| r.all.iter().copied()).collect();
    rows.sort_unstable();
    rows.into_iter().map(|i| &table()[i]).collect()
}

/// Whether some NVIDIA reader in the tables reads a key or a group of
/// this name (any schema, any group; a pattern's prefix counts as its
/// name). A project's own reader that reads such a name (a vendored copy
/// of NVIDIA's parser) adds nothing dslint does not know.
pub fn known_name(name: &str) -> bool {
    static NAMES: OnceLock<HashSet<&'static str>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            let mut names: HashSet<&'static str> = table()
                .iter()
                .flat_map(|k| [k.key.trim_end_matches('*'), k.group.trim_end_matches('*')])
                .collect();
            names.extend(APP_GROUPS_WITHOUT_TABLE.iter().map(|g| g.trim_end_matches('*')));
            names
        })
        .contains(name)
}

/// Whether `group` is a group this schema's reader knows.
pub fn known_group(schema: Schema, group: &str) -> bool {
    group_has_key_table(schema, group)
        || (schema == Schema::App && APP_GROUPS_WITHOUT_TABLE.iter().any(|g| matches(g, group)))
}

/// Groups deepstream-app accepts whose keys it reads generically (so no
/// key table): their keys are not checked.
const APP_GROUPS_WITHOUT_TABLE: &[&str] = &["visionencoder", "audio-transform", "audio-classifier", "pre-process*"];

pub fn lookup(schema: Schema, group: &str, key: &str) -> Option<&'static KeySpec> {
    lookup_in(row_groups(schema, group), key)
}

/// [`lookup`] in the row groups that apply to a group.
fn lookup_in(rows: impl Iterator<Item = &'static Rows> + Clone, key: &str) -> Option<&'static KeySpec> {
    // Exact group and key first, then patterns, so `[sink0] type` finds the
    // sink row rather than a looser match: the first row in table order
    // that names the key, else the first whose key pattern matches it.
    let mut groups = rows.clone().peekable();
    groups.peek()?;
    let h = key_hash(key);
    let exact = groups
        .filter_map(|r| r.by_key.find(h, |&(k, _)| k == key).map(|&(_, i)| i))
        .min();
    let row = exact.or_else(|| {
        rows.filter_map(|r| r.key_patterns.iter().find(|(p, _)| key.starts_with(p)).map(|&(_, i)| i))
            .min()
    })?;
    Some(&table()[row])
}

/// The row groups that apply to one group ([`row_groups`]), gathered once:
/// the input checks look up every key of a group, and gathering them for
/// each key (two map lookups and the patterns) cost more than the lookup.
pub struct GroupRows(smallvec::SmallVec<[&'static Rows; 2]>);

impl GroupRows {
    pub fn of(schema: Schema, group: &str) -> GroupRows {
        GroupRows(row_groups(schema, group).collect())
    }

    /// [`group_has_key_table`] for this group.
    pub fn has_key_table(&self) -> bool {
        !self.0.is_empty()
    }

    /// [`lookup`] in this group.
    pub fn lookup(&self, key: &str) -> Option<&'static KeySpec> {
        lookup_in(self.0.iter().copied(), key)
    }
}

/// Whether the keys of this group can be checked (the table lists them).
pub fn group_has_key_table(schema: Schema, group: &str) -> bool {
    row_groups(schema, group).next().is_some()
}

/// The closest known key of the group, for "did you mean". Distances are
/// computed only within the bound that would be accepted, so a file of
/// 100k unknown keys costs 100k short, banded comparisons per candidate;
/// and a name asked about again (the same typo in many files) is answered
/// from a small cache.
pub fn suggest_key(schema: Schema, group: &str, key: &str) -> Option<&'static str> {
    cached_suggestion(Asked::Key, schema, group, key, || {
        rows(schema, group)
            .into_iter()
            .filter(|k| !k.key.ends_with('*'))
            .filter_map(|k| {
                let limit = 2.max(k.key.len() / 4);
                Some((edit_distance_within(&k.key, key, limit)?, k.key.as_str()))
            })
            .min_by_key(|(d, _)| *d)
            .map(|(_, k)| Cow::Borrowed(k))
    })
    .and_then(|s| match s {
        Cow::Borrowed(k) => Some(k),
        Cow::Owned(_) => None,
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Asked {
    Key,
    Group,
}

/// Suggestions already computed on this thread, by question; cleared when
/// full, so hostile input cannot grow it.
fn cached_suggestion(
    asked: Asked,
    schema: Schema,
    group: &str,
    name: &str,
    compute: impl FnOnce() -> Option<Cow<'static, str>>,
) -> Option<Cow<'static, str>> {
    type Cache = HashMap<(Asked, Schema, String, String), Option<Cow<'static, str>>>;
    const MAX_CACHED: usize = 4096;
    thread_local! {
        static CACHE: std::cell::RefCell<Cache> = std::cell::RefCell::new(HashMap::new());
    }
    let q = (asked, schema, group.to_string(), name.to_string());
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&q).cloned()) {
        return hit;
    }
    let answer = compute();
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= MAX_CACHED {
            c.clear();
        }
        c.insert(q, answer.clone());
    });
    answer
}

/// The edit distance when it is at most `limit`; `None` past it (checked
/// on the lengths first, then row by row).
pub fn edit_distance_within(a: &str, b: &str, limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            row_min = row_min.min(cur[j]);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|d| *d <= limit)
}

/// The closest known group name, for "did you mean".
pub fn suggest_group(schema: Schema, group: &str) -> Option<String> {
    cached_suggestion(Asked::Group, schema, "", group, || {
        let names = index().group_names.get(&schema)?;
        let trimmed = group.trim_end_matches(|c: char| c.is_ascii_digit());
        names
            .iter()
            .map(|g| (edit_distance(g, trimmed), *g))
            .filter(|(d, g)| *d <= 2.max(g.len() / 4))
            .min_by_key(|(d, _)| *d)
            .map(|(_, g)| {
                Cow::Owned(if group.len() > trimmed.len() {
                    format!("{g}{}", &group[trimmed.len()..])
                } else {
                    g.to_string()
                })
            })
    })
    .map(Cow::into_owned)
}

/// Levenshtein distance over bytes (keys are ASCII).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // Two rows, reused (not one allocated a row).
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounded distance is the distance when within the limit, `None`
    /// past it, and the distance is Levenshtein's.
    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("source", "sourse"), 1);
        assert_eq!(edit_distance("tiled-display", "tiled-dispaly"), 2);
        let words = [
            "",
            "a",
            "ab",
            "source",
            "sources",
            "sink",
            "streammux",
            "stremmux",
            "osd",
            "tracker",
            "trakcer",
        ];
        for a in words {
            for b in words {
                let d = edit_distance(a, b);
                assert_eq!(d, edit_distance(b, a), "{a} {b}");
                for limit in 0..5 {
                    assert_eq!(
                        edit_distance_within(a, b, limit),
                        (d <= limit).then_some(d),
                        "{a} {b} {limit}"
                    );
                }
            }
        }
    }

    #[test]
    fn table_lookups() {
        let k = lookup(Schema::App, "source0", "type").unwrap();
        assert_eq!(k.ty, ValueType::Int);
        let mode = lookup(Schema::NvInfer, "property", "network-mode").unwrap();
        assert!(mode.accepts(3) && !mode.accepts(4));
        // NvDsInferNetworkType (nvdsinfer_context.h): 0..3, and 100 (Other);
        // gst_nvinfer_parse_props rejects anything else.
        let ty = lookup(Schema::NvInfer, "property", "network-type").unwrap();
        assert!(ty.accepts(0) && ty.accepts(3) && ty.accepts(100));
        assert!(!ty.accepts(4) && !ty.accepts(99) && !ty.accepts(101) && !ty.accepts(-1));
        assert_eq!(ty.describe_range(), "0..3 or 100");
        // parse_tracker reads enable-batch-process in DS 6.0-6.2 only.
        let ebp = lookup(Schema::App, "tracker", "enable-batch-process").unwrap();
        assert_eq!(ebp.removal().unwrap(), "removed in DS 6.3: DS 6.0–6.2 read it");
        let mux = lookup(Schema::App, "streammux", "config-file").unwrap();
        assert_eq!(mux.removal().unwrap(), "DS 6.0–7.1 read it, DS 9.0 does not");
        assert_eq!(
            lookup(Schema::NvInfer, "property", "parse-func")
                .unwrap()
                .removal()
                .unwrap(),
            "no DeepStream release since 6.0 reads it"
        );
        assert!(lookup(Schema::App, "sink0", "sync").unwrap().removal().is_none());
        assert_eq!(
            lookup(Schema::NvInfer, "class-attrs-all", "pre-cluster-threshold")
                .unwrap()
                .ty,
            ValueType::Double
        );
        assert_eq!(
            lookup(Schema::App, "primary-gie", "bbox-border-color0").unwrap().ty,
            ValueType::DoubleList
        );
        assert!(lookup(Schema::App, "streammux", "batchsize").is_none());
        assert_eq!(suggest_key(Schema::App, "streammux", "batchsize"), Some("batch-size"));
        assert_eq!(suggest_group(Schema::App, "sorce0").as_deref(), Some("source0"));
        assert!(known_group(Schema::App, "secondary-gie3"));
        assert!(!known_group(Schema::App, "primary_gie"));
        for (a, b) in [
            ("batch-size", "batchsize"),
            ("gpu-id", "gpuid"),
            ("width", "height"),
            ("", "abc"),
        ] {
            for limit in 0..6 {
                let full = edit_distance(a, b);
                assert_eq!(
                    edit_distance_within(a, b, limit),
                    (full <= limit).then_some(full),
                    "{a} {b} {limit}"
                );
            }
        }
    }

    /// `GroupRows::lookup` (the index: each group's rows hashed once a
    /// key) finds what a scan of the table finds: the first row in table
    /// order whose group matches and that names the key, else the first
    /// whose key pattern matches it; for every group and key the table
    /// names (patterns instantiated), each key asked in every group of its
    /// schema, and names no row has.
    #[test]
    fn group_lookups_are_the_tables_scan() {
        let t = table();
        let scan = |schema: Schema, group: &str, key: &str| {
            let group_ok = |k: &KeySpec| {
                k.schema == schema
                    && (k.group == group || k.group.strip_suffix('*').is_some_and(|p| group.starts_with(p)))
            };
            t.iter().position(|k| group_ok(k) && k.key == key).or_else(|| {
                t.iter()
                    .position(|k| group_ok(k) && k.key.strip_suffix('*').is_some_and(|p| key.starts_with(p)))
            })
        };
        let named = |s: &str| match s.strip_suffix('*') {
            Some(p) => vec![s.to_string(), p.to_string(), format!("{p}0"), format!("{p}12")],
            None => vec![s.to_string()],
        };
        let mut asked = 0;
        for schema in [Schema::App, Schema::NvInfer, Schema::Tracker, Schema::NewStreammux] {
            let mut groups: Vec<String> = t
                .iter()
                .filter(|k| k.schema == schema)
                .flat_map(|k| named(&k.group))
                .collect();
            groups.extend(["no-such-group".to_string(), String::new()]);
            groups.sort();
            groups.dedup();
            let mut keys: Vec<String> = t
                .iter()
                .filter(|k| k.schema == schema)
                .flat_map(|k| named(&k.key))
                .collect();
            keys.extend(["no-such-key".to_string(), String::new(), "batch-size-x".to_string()]);
            keys.sort();
            keys.dedup();
            for g in &groups {
                let rows = GroupRows::of(schema, g);
                for k in &keys {
                    let found = rows
                        .lookup(k)
                        .map(|r| (r as *const KeySpec as usize - t.as_ptr() as usize) / std::mem::size_of::<KeySpec>());
                    assert_eq!(found, scan(schema, g, k), "{schema:?} [{g}] {k}");
                    assert_eq!(
                        lookup(schema, g, k).map(|r| r as *const KeySpec),
                        found.map(|i| &t[i] as *const KeySpec)
                    );
                    asked += 1;
                }
            }
        }
        assert!(asked > 10_000, "{asked}");
    }
}
