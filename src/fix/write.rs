//! Writing the fixed files: each one through `files::write::replace_file`
//! (under the project root, never through a link, owner and mode kept,
//! refused when it changed since it was read or has other hard links).
//! SIGINT, SIGTERM and SIGHUP during the writes stop them cleanly: the file
//! being written is either renamed or its temporary file removed, no later
//! file is touched, and dslint then dies of the signal.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::files::root::ProjectRoot;
use crate::files::signals;
use crate::files::write::replace_file;

/// Write every changed file; the errors, one line each.
pub fn write_changed(root: &ProjectRoot, changed: &BTreeMap<PathBuf, (String, String)>) -> Vec<String> {
    let deferred = signals::Deferred::install();
    let mut errors = Vec::new();
    for (path, (original, new)) in changed {
        if signals::caught().is_some() {
            break;
        }
        if let Err(e) = replace_file(root, path, original.as_bytes(), new.as_bytes()) {
            errors.push(e);
        }
    }
    deferred.finish();
    errors
}
