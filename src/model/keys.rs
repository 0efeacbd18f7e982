//! The key tables in `rules/keys.tsv`: which keys each DeepStream reader
//! knows, the GLib type it reads them with, and their valid range.

use std::sync::OnceLock;

use crate::syntax::glib::ValueType;

const TABLE: &str = include_str!("../../rules/keys.tsv");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// Whether `group` is a group this schema's reader knows.
pub fn known_group(schema: Schema, group: &str) -> bool {
    table().iter().any(|k| k.schema == schema && matches(&k.group, group))
        || (schema == Schema::App && APP_GROUPS_WITHOUT_TABLE.iter().any(|g| matches(g, group)))
}

/// Groups deepstream-app accepts whose keys it reads generically (so no
/// key table): their keys are not checked.
const APP_GROUPS_WITHOUT_TABLE: &[&str] = &["visionencoder", "audio-transform", "audio-classifier", "pre-process*"];

pub fn lookup(schema: Schema, group: &str, key: &str) -> Option<&'static KeySpec> {
    // Exact group and key first, then patterns, so `[sink0] type` finds the
    // sink row rather than a looser match.
    let candidates = table()
        .iter()
        .filter(|k| k.schema == schema && matches(&k.group, group));
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
    table().iter().any(|k| k.schema == schema && matches(&k.group, group))
}

/// The closest known key of the group, for "did you mean".
pub fn suggest_key(schema: Schema, group: &str, key: &str) -> Option<&'static str> {
    table()
        .iter()
        .filter(|k| k.schema == schema && matches(&k.group, group) && !k.key.ends_with('*'))
        .map(|k| (edit_distance(&k.key, key), k.key.as_str()))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
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
    }
}
