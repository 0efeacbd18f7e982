//! Safe writes: a temporary file in the same folder renamed over the
//! original, permissions kept, nothing written when the file changed since it
//! was read, and never through a link that leaves the tree.

use std::io::Write;
use std::path::{Path, PathBuf};

pub fn write_atomic(path: &Path, original: &str, new: &str, roots: &[PathBuf]) -> Result<(), String> {
    let target = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let is_link = std::fs::symlink_metadata(path)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false);
    if is_link {
        let inside = roots.iter().filter_map(|r| std::fs::canonicalize(r).ok()).any(|r| {
            let dir = if r.is_file() {
                r.parent().map(Path::to_path_buf).unwrap_or(r.clone())
            } else {
                r
            };
            target.starts_with(dir)
        });
        if !inside {
            return Err(format!(
                "{} is a link to {}, outside the checked tree; not written",
                path.display(),
                target.display()
            ));
        }
    }
    let current = std::fs::read(&target).map_err(|e| format!("{}: {e}", path.display()))?;
    if current != original.as_bytes() {
        return Err(format!("{} changed since it was read; not written", path.display()));
    }
    let meta = std::fs::metadata(&target).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = target
        .parent()
        .ok_or_else(|| format!("{}: no parent folder", path.display()))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".dslint-")
        .tempfile_in(dir)
        .map_err(|e| format!("{}: cannot create a temporary file: {e}", dir.display()))?;
    tmp.write_all(new.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::set_permissions(tmp.path(), meta.permissions()).map_err(|e| format!("{}: {e}", path.display()))?;
    tmp.persist(&target).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}
