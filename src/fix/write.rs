//! Writing the fixed files: each one through `files::write::replace_file`
//! (under the project root, never through a link, owner and mode kept,
//! refused when it changed since it was read or has other hard links).
//! SIGINT, SIGTERM and SIGHUP during the writes stop them cleanly: each file
//! being written is either renamed or its temporary file removed, no other
//! file is touched, and dslint then dies of the signal.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::files::root::ProjectRoot;
use crate::files::signals;
use crate::files::write::replace_file;

/// Write every changed file, several at once (each write waits on its
/// fsync); the files not written with why (one line each), in path order. A file is started
/// only while no signal has come, so after one, the files being written
/// finish or are rolled back and no other is touched.
pub fn write_changed(root: &ProjectRoot, changed: &BTreeMap<PathBuf, (String, String)>) -> Vec<(PathBuf, String)> {
    use rayon::prelude::*;
    let deferred = signals::Deferred::install();
    let files: Vec<_> = changed.iter().collect();
    let errors = files
        .par_iter()
        .filter_map(|(path, (original, new))| {
            if signals::caught().is_some() {
                return None;
            }
            replace_file(root, path, original.as_bytes(), new.as_bytes())
                .err()
                .map(|e| ((*path).clone(), e))
        })
        .collect();
    deferred.finish();
    errors
}
