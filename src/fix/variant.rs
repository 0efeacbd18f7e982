//! `fix --variant bench`: a sibling `NAME.bench.txt` / `NAME.bench.yml` of
//! each app config with the bench profile's output branch (R6) and file loop
//! applied, leaving the display config as it is. Referenced configs are not
//! changed by R6, so the variant keeps pointing at them (same folder, same
//! relative paths).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::os::unix::fs::PermissionsExt;

use crate::base::edit::Applicability;
use crate::files::read::{MAX_FILE_BYTES, read_text};
use crate::files::root::{Place, ProjectRoot};
use crate::files::stdio::{self, Stop};
use crate::files::write::create_under_root;
use crate::fix::apply;
use crate::model::detect::Kind;
use crate::model::facts::Facts;
use crate::model::workspace::Workspace;
use crate::rules::context::Profile;

const BENCH_CODES: &[&str] = &["DS601", "DS602", "DS603", "DS604", "DS303"];

pub fn bench_path(path: &Path) -> PathBuf {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("config");
    let ext = path.extension().and_then(|s| s.to_str()).unwrap_or("txt");
    path.with_file_name(format!("{stem}.bench.{ext}"))
}

/// The bench text of each app config: (config path, variant path, text).
pub fn bench_variants(paths: &[PathBuf], root: &ProjectRoot, facts: Option<&Facts>) -> Vec<(PathBuf, PathBuf, String)> {
    let mut ws = Workspace::load_in(paths, Some(root.clone()), Default::default());
    let result = crate::rules::check(&mut ws, facts, Profile::Bench);
    let mut out = Vec::new();
    for p in &result.pipelines {
        let file = &ws.files[p.root];
        if file.kind != Some(Kind::App) || file.outside || file.path.to_string_lossy().contains(".bench.") {
            continue;
        }
        let mut text = ws.files[p.root].doc.text.clone();
        // Passes until no bench fix is left for this file.
        for _ in 0..crate::fix::engine::MAX_PASSES {
            let mut vws = Workspace::default();
            let id = match vws.read_text(&ws.files[p.root].path, text.clone()) {
                Some(id) => id,
                None => break,
            };
            let r = crate::rules::check(&mut vws, facts, Profile::Bench);
            let fixes: Vec<_> = r
                .diagnostics
                .iter()
                .filter(|d| d.file == id && BENCH_CODES.contains(&d.code()))
                .filter_map(|d| d.fix.as_deref())
                .filter(|f| f.applicability == Applicability::Safe && f.edits.iter().all(|e| e.file == id))
                .collect();
            if fixes.is_empty() {
                break;
            }
            let (taken, _) = apply::select(fixes);
            let edits: Vec<_> = taken.iter().flat_map(|f| f.edits.iter().cloned()).collect();
            text = apply::apply_to_string(&text, &edits);
        }
        let path = ws.files[p.root].path.clone();
        out.push((path.clone(), bench_path(&path), text));
    }
    out
}

pub fn write_bench_variants(
    paths: &[PathBuf],
    root: &ProjectRoot,
    facts: Option<&Facts>,
    write: bool,
    color: bool,
) -> Result<ExitCode, Stop> {
    let variants = bench_variants(paths, root, facts);
    let mut changed = false;
    for (src, dst, text) in &variants {
        // An old variant is compared only when it is a regular file under
        // the root; anything else at that name is replaced, never followed.
        let old = match root.place(dst) {
            Place::Inside(real) => read_text(&real, MAX_FILE_BYTES).ok(),
            _ => None,
        };
        if old.as_deref() == Some(text.as_str()) {
            continue;
        }
        changed = true;
        if write {
            let mode = std::fs::metadata(src).map_or(0o644, |m| m.permissions().mode()) & 0o777;
            if let Err(e) = create_under_root(root, dst, text.as_bytes(), mode) {
                crate::errln!("dslint: {e}");
                return Ok(ExitCode::from(2));
            }
            crate::errln!("wrote {}", dst.display());
        } else {
            stdio::print(&crate::fix::diff::unified(
                dst,
                old.as_deref().unwrap_or(""),
                text,
                color,
            ))?;
        }
    }
    if variants.is_empty() {
        crate::errln!("no deepstream-app config found");
    }
    Ok(ExitCode::from(u8::from(!write && changed)))
}
