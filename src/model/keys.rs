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
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub legacy: bool,
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
                let (min, max) = match cols.get(4).copied().unwrap_or("").split_once("..") {
                    Some((a, b)) => (a.parse().ok(), b.parse().ok()),
                    None => (None, None),
                };
                Some(KeySpec {
                    schema,
                    group: cols.get(1)?.to_string(),
                    key: cols.get(2)?.to_string(),
                    ty: ValueType::parse(cols.get(3)?)?,
                    min,
                    max,
                    legacy: cols.get(5).is_some_and(|n| n.contains("older")),
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
        assert_eq!(
            lookup(Schema::NvInfer, "property", "network-mode").unwrap().max,
            Some(3)
        );
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
