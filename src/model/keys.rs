//! The key tables in `rules/keys.tsv`: which keys each DeepStream reader
//! knows, the GLib type it reads them with, and their valid range.

use std::collections::HashMap;
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

/// The table's rows by schema and group: exact group names in a map, the
/// few `prefix*` groups in a list. Lookups run once per key of a file, so
/// they must not scan the table.
struct Index {
    exact: HashMap<Schema, HashMap<&'static str, Vec<usize>>>,
    patterns: Vec<(Schema, &'static str, Vec<usize>)>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut ix = Index {
            exact: HashMap::new(),
            patterns: Vec::new(),
        };
        for (i, k) in table().iter().enumerate() {
            match k.group.strip_suffix('*') {
                Some(prefix) => match ix.patterns.iter_mut().find(|(s, p, _)| *s == k.schema && *p == prefix) {
                    Some((_, _, rows)) => rows.push(i),
                    None => ix.patterns.push((k.schema, prefix, vec![i])),
                },
                None => ix
                    .exact
                    .entry(k.schema)
                    .or_default()
                    .entry(k.group.as_str())
                    .or_default()
                    .push(i),
            }
        }
        ix
    })
}

/// The rows whose group matches `group`, in table order.
fn rows(schema: Schema, group: &str) -> Vec<&'static KeySpec> {
    let ix = index();
    let mut rows: Vec<usize> = ix
        .exact
        .get(&schema)
        .and_then(|m| m.get(group))
        .cloned()
        .unwrap_or_default();
    for (s, prefix, r) in &ix.patterns {
        if *s == schema && group.starts_with(prefix) {
            rows.extend(r);
        }
    }
    rows.sort_unstable();
    rows.into_iter().map(|i| &table()[i]).collect()
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
    // Exact group and key first, then patterns, so `[sink0] type` finds the
    // sink row rather than a looser match.
    let candidates = rows(schema, group);
    let mut best: Option<&KeySpec> = None;
    for k in candidates {
        if k.key == key {
            return Some(k);
        }
        if best.is_none() && matches(&k.key, key) {
            best = Some(k);
        }
    }
    best
}

/// Whether the keys of this group can be checked (the table lists them).
pub fn group_has_key_table(schema: Schema, group: &str) -> bool {
    let ix = index();
    ix.exact.get(&schema).is_some_and(|m| m.contains_key(group))
        || ix
            .patterns
            .iter()
            .any(|(s, prefix, _)| *s == schema && group.starts_with(prefix))
}

/// The closest known key of the group, for "did you mean". Distances are
/// computed only within the bound that would be accepted, so a file of
/// 100k unknown keys costs 100k short, banded comparisons per candidate.
pub fn suggest_key(schema: Schema, group: &str, key: &str) -> Option<&'static str> {
    rows(schema, group)
        .into_iter()
        .filter(|k| !k.key.ends_with('*'))
        .filter_map(|k| {
            let limit = 2.max(k.key.len() / 4);
            Some((edit_distance_within(&k.key, key, limit)?, k.key.as_str()))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
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
    let mut names: Vec<String> = table()
        .iter()
        .filter(|k| k.schema == schema)
        .map(|k| k.group.trim_end_matches('*').to_string())
        .collect();
    names.dedup();
    let trimmed = group.trim_end_matches(|c: char| c.is_ascii_digit());
    names
        .into_iter()
        .map(|g| (edit_distance(&g, trimmed), g))
        .filter(|(d, g)| *d <= 2.max(g.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, g)| {
            if group.len() > trimmed.len() {
                format!("{g}{}", &group[trimmed.len()..])
            } else {
                g
            }
        })
}

/// Levenshtein distance over bytes (keys are ASCII).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
