//! Project configuration: `dslint.toml` / `.dslint.toml`, or a
//! `[tool.dslint]` table in `pyproject.toml`, found by walking up from the
//! checked path (closest wins), or named with `--config`. Errors point at
//! the line and key; an unknown key is an error with a suggestion.
//!
//! ```toml
//! select = ["DS"]                 # codes or prefixes; default: all
//! ignore = ["DS208"]
//! extend-select = []              # added to select
//! profile = "display"             # or "bench"
//! facts = "facts.json"            # relative to this file
//!
//! [per-file-ignores]
//! "legacy/**" = ["DS2"]
//!
//! [options]
//! bench-sink-type = 1             # the sink type the bench profile asks for (1 fakesink)
//! new-streammux = true            # the apps run with USE_NEW_NVSTREAMMUX=yes (DS107)
//! deepstream-version = "6.2"      # the release the configs run on (DS401)
//! ```

use std::path::{Path, PathBuf};

use toml_edit::{Document, Item};

use crate::files::read::{MAX_FILE_BYTES, read_text};
use crate::files::root::{Place, ProjectRoot};

use crate::model::keys::edit_distance;
use crate::rules::selector;

#[derive(Debug, Clone, Default)]
pub struct ProjectConfig {
    pub path: Option<PathBuf>,
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    pub extend_select: Vec<String>,
    pub per_file_ignores: Vec<(String, Vec<String>)>,
    pub profile: Option<String>,
    pub facts: Option<PathBuf>,
    pub bench_sink_type: Option<i64>,
    /// `USE_NEW_NVSTREAMMUX=yes` where the configs run (the environment,
    /// which no file says).
    pub new_streammux: bool,
    /// The DeepStream release the configs run on (major, minor), when the
    /// project says: which keys a release still reads is not in the files.
    pub deepstream_version: Option<(u32, u32)>,
}

const TOP_KEYS: &[&str] = &[
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "profile",
    "facts",
    "options",
];
const OPTION_KEYS: &[&str] = &["bench-sink-type", "new-streammux", "deepstream-version"];

/// The closest config file above `start` (a file or folder), not above
/// the project root.
pub fn discover(start: &Path, root: &ProjectRoot) -> Option<PathBuf> {
    let abs = std::fs::canonicalize(start).ok()?;
    let mut dir = if abs.is_dir() {
        Some(abs.as_path())
    } else {
        abs.parent()
    };
    while let Some(d) = dir.filter(|d| root.contains(d)) {
        for name in ["dslint.toml", ".dslint.toml"] {
            let p = d.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
        let py = d.join("pyproject.toml");
        if py.is_file() && read_text(&py, MAX_FILE_BYTES).is_ok_and(|t| t.contains("[tool.dslint")) {
            return Some(py);
        }
        dir = d.parent();
    }
    None
}

fn position(text: &str, offset: usize) -> (usize, usize) {
    // A span from the TOML parser; brought to a character boundary before
    // slicing all the same.
    let offset = text.floor_char_boundary(offset);
    let line = text[..offset].matches('\n').count() + 1;
    let col = text[..offset].rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn suggest(key: &str, known: &[&str]) -> String {
    known
        .iter()
        .map(|k| {
            (
                if k.starts_with(key) || key.starts_with(k) {
                    0
                } else {
                    edit_distance(k, key)
                },
                *k,
            )
        })
        .filter(|(d, _)| *d <= 3)
        .min()
        .map_or_else(String::new, |(_, k)| format!(" (did you mean `{k}`?)"))
}

/// Read a project config. With a root, what it names (`facts`) must stay
/// under it: a repository's settings cannot point dslint outside.
pub fn load(path: &Path, root: Option<&ProjectRoot>) -> Result<ProjectConfig, String> {
    let text = read_text(path, MAX_FILE_BYTES)?;
    let at = |span: Option<std::ops::Range<usize>>| {
        let (l, c) = position(&text, span.map_or(0, |s| s.start));
        format!("{}:{l}:{c}", path.display())
    };
    let doc = Document::parse(text.as_str()).map_err(|e| format!("{}: {}", at(e.span()), e.message()))?;
    let mut table = doc.as_table();
    if path.file_name().is_some_and(|n| n == "pyproject.toml") {
        match doc.get("tool").and_then(|t| t.get("dslint")).and_then(Item::as_table) {
            Some(t) => table = t,
            None => {
                return Ok(ProjectConfig {
                    path: Some(path.to_path_buf()),
                    ..Default::default()
                });
            }
        }
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let mut cfg = ProjectConfig {
        path: Some(path.to_path_buf()),
        ..Default::default()
    };
    let strings = |item: &Item, key: &str, span: Option<std::ops::Range<usize>>| -> Result<Vec<String>, String> {
        let arr = item
            .as_array()
            .ok_or_else(|| format!("{}: `{key}` must be a list of codes", at(span.clone())))?;
        arr.iter()
            .map(|v| {
                let s = v
                    .as_str()
                    .ok_or_else(|| format!("{}: `{key}` must hold strings", at(span.clone())))?;
                selector::parse(s).map_err(|e| format!("{}: {e}", at(v.span().or(span.clone()))))
            })
            .collect()
    };
    for (key, item) in table.iter() {
        let span = table.key(key).and_then(|k| k.span());
        match key {
            "select" => cfg.select = strings(item, key, span)?,
            "ignore" => cfg.ignore = strings(item, key, span)?,
            "extend-select" => cfg.extend_select = strings(item, key, span)?,
            "profile" => {
                let p = item.as_str().filter(|p| *p == "bench" || *p == "display");
                cfg.profile = Some(
                    p.ok_or_else(|| format!("{}: `profile` must be \"bench\" or \"display\"", at(span)))?
                        .to_string(),
                );
            }
            "facts" => {
                let f = item
                    .as_str()
                    .ok_or_else(|| format!("{}: `facts` must be a path", at(span.clone())))?;
                let facts = base.join(f);
                if root.is_some_and(|r| r.place(&facts) == Place::Outside) {
                    return Err(format!(
                        "{}: `facts` leads outside the project root; a project config cannot point there (pass --facts)",
                        at(span)
                    ));
                }
                cfg.facts = Some(facts);
            }
            "per-file-ignores" => {
                let t = item.as_table_like().ok_or_else(|| {
                    format!(
                        "{}: `per-file-ignores` must be a table of glob = [codes]",
                        at(span.clone())
                    )
                })?;
                for (glob, codes) in t.iter() {
                    globset::Glob::new(glob).map_err(|e| format!("{}: bad glob `{glob}`: {e}", at(span.clone())))?;
                    cfg.per_file_ignores
                        .push((glob.to_string(), strings(codes, glob, span.clone())?));
                }
            }
            "options" => {
                let t = item
                    .as_table_like()
                    .ok_or_else(|| format!("{}: `options` must be a table", at(span)))?;
                for (k, v) in t.iter() {
                    let kspan = t.key(k).and_then(|k| k.span());
                    match k {
                        "bench-sink-type" => {
                            let n = v.as_integer().filter(|n| (1..=8).contains(n));
                            cfg.bench_sink_type =
                                Some(n.ok_or_else(|| {
                                    format!("{}: `bench-sink-type` must be a sink type 1..8", at(kspan))
                                })?);
                        }
                        "new-streammux" => {
                            cfg.new_streammux = v
                                .as_bool()
                                .ok_or_else(|| format!("{}: `new-streammux` must be true or false", at(kspan)))?;
                        }
                        "deepstream-version" => {
                            let parsed = v.as_str().and_then(|s| {
                                let (major, minor) = s.trim().split_once('.')?;
                                Some((major.parse().ok()?, minor.parse().ok()?))
                            });
                            cfg.deepstream_version = Some(parsed.ok_or_else(|| {
                                format!(
                                    "{}: `deepstream-version` must be a string \"MAJOR.MINOR\" (\"6.2\")",
                                    at(kspan)
                                )
                            })?);
                        }
                        other => {
                            return Err(format!(
                                "{}: unknown option `{other}`{}",
                                at(kspan),
                                suggest(other, OPTION_KEYS)
                            ));
                        }
                    }
                }
            }
            other => {
                return Err(format!(
                    "{}: unknown key `{other}`{}",
                    at(span),
                    suggest(other, TOP_KEYS)
                ));
            }
        }
    }
    Ok(cfg)
}

impl ProjectConfig {
    /// The selection, with command-line lists (non-empty) overriding.
    pub fn selection(&self, cli_select: &[String], cli_ignore: &[String]) -> Result<crate::rules::Settings, String> {
        let mut select = if cli_select.is_empty() {
            self.select.clone()
        } else {
            cli_select.to_vec()
        };
        if !self.extend_select.is_empty() && !select.is_empty() {
            select.extend(self.extend_select.iter().cloned());
        }
        let mut ignore = self.ignore.clone();
        ignore.extend(cli_ignore.iter().cloned());
        let mut per_file = Vec::new();
        for (glob, codes) in &self.per_file_ignores {
            let g = globset::GlobBuilder::new(glob)
                .literal_separator(false)
                .build()
                .map_err(|e| e.to_string())?;
            per_file.push(crate::rules::PerFileIgnore {
                pattern: glob.clone(),
                glob: g.compile_matcher(),
                codes: codes.clone(),
            });
        }
        let per_file_base = self
            .path
            .as_ref()
            .and_then(|p| p.parent())
            .map(|d| crate::model::workspace::canonical(if d.as_os_str().is_empty() { Path::new(".") } else { d }));
        Ok(crate::rules::Settings {
            select,
            ignore,
            per_file_ignores: per_file,
            per_file_base,
            bench_sink_type: self.bench_sink_type,
            new_streammux: self.new_streammux,
            deepstream_version: self.deepstream_version,
            whole_pipelines: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(name: &str, text: &str) -> Result<ProjectConfig, String> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        load(&p, None).map_err(|e| e.replace(&dir.path().display().to_string(), "DIR"))
    }

    #[test]
    fn reads_keys_and_points_at_errors() {
        let c = load_text("dslint.toml", "select = [\"DS1\", \"DS2\"]\nprofile = \"bench\"\n[per-file-ignores]\n\"legacy/*\" = [\"DS6\"]\n[options]\nbench-sink-type = 1\n").unwrap();
        assert_eq!(c.select, vec!["DS1", "DS2"]);
        assert_eq!(c.profile.as_deref(), Some("bench"));
        assert!(!c.new_streammux);
        assert_eq!(c.deepstream_version, None);
        assert_eq!(
            load_text("dslint.toml", "[options]\ndeepstream-version = \"6.2\"\n")
                .unwrap()
                .deepstream_version,
            Some((6, 2))
        );
        assert!(
            load_text("dslint.toml", "[options]\nnew-streammux = true\n")
                .unwrap()
                .new_streammux
        );
        assert_eq!(
            c.per_file_ignores,
            vec![("legacy/*".to_string(), vec!["DS6".to_string()])]
        );
        for (text, error) in [
            (
                "select = [\"DS1\"]\nignroe = [\"DS2\"]\n",
                "DIR/dslint.toml:2:1: unknown key `ignroe` (did you mean `ignore`?)",
            ),
            (
                "[options]\nnew-streammux = 1\n",
                "DIR/dslint.toml:2:1: `new-streammux` must be true or false",
            ),
            (
                "profile = \"fast\"\n",
                "DIR/dslint.toml:1:1: `profile` must be \"bench\" or \"display\"",
            ),
            (
                "select = [\"DS1\", \"ds2\"]\n",
                "DIR/dslint.toml:1:18: `ds2` is no rule code or prefix (codes are upper case: did you mean `DS2`?)",
            ),
            (
                "ignore = [\"\"]\n",
                "DIR/dslint.toml:1:11: empty rule code (a stray comma?)",
            ),
            (
                "[per-file-ignores]\n\"a/*\" = [\"DS9\"]\n",
                "DIR/dslint.toml:2:10: `DS9` is no rule code or prefix (see `dslint rules`)",
            ),
        ] {
            assert_eq!(load_text("dslint.toml", text).unwrap_err(), error, "{text}");
        }
        assert!(
            load_text("dslint.toml", "select = [\n")
                .unwrap_err()
                .starts_with("DIR/dslint.toml:")
        );
        let c = load_text(
            "pyproject.toml",
            "[project]\nname = \"x\"\n[tool.dslint]\nignore = [\"DS208\"]\n",
        )
        .unwrap();
        assert_eq!(c.ignore, vec!["DS208"]);
        assert_eq!(
            load_text(
                "pyproject.toml",
                "[tool.dslint]\n[tool.dslint.options]\nbench-sink = 1\n"
            )
            .unwrap_err(),
            "DIR/pyproject.toml:3:1: unknown option `bench-sink` (did you mean `bench-sink-type`?)"
        );
    }
}
