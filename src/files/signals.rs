//! SIGINT, SIGTERM and SIGHUP while dslint writes files: the handler only
//! records the signal, so the write in progress either finishes its rename
//! or removes its temporary file, and no further file is touched; then the
//! signal is raised again with its default action, so the caller sees dslint
//! die of it (exit status 128 + N) with nothing half-done left behind.

use std::sync::atomic::{AtomicI32, Ordering};

static CAUGHT: AtomicI32 = AtomicI32::new(0);

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn record(sig: libc::c_int) {
    CAUGHT.store(sig, Ordering::SeqCst);
}

/// The signal caught since the guard was set, if any.
pub fn caught() -> Option<i32> {
    match CAUGHT.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// While alive, the three signals are recorded instead of killing dslint.
pub struct Deferred {
    old: Vec<(libc::c_int, libc::sigaction)>,
}

impl Deferred {
    pub fn install() -> Deferred {
        let mut old = Vec::new();
        for sig in SIGNALS {
            // SAFETY: sigaction(2) with a zeroed struct, a handler that only
            // stores to an atomic (async-signal-safe) and SA_RESTART.
            unsafe {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = record as extern "C" fn(libc::c_int) as usize;
                act.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut act.sa_mask);
                let mut prev: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &act, &mut prev) == 0 {
                    old.push((sig, prev));
                }
            }
        }
        Deferred { old }
    }

    /// Put the previous handlers back; if a signal came meanwhile, die of
    /// it now (its default action) so the caller sees the signal.
    pub fn finish(self) {
        drop(self);
        if let Some(sig) = caught() {
            // SAFETY: restoring the default action and raising the signal
            // this process received.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
            }
        }
    }
}

impl Drop for Deferred {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            // SAFETY: putting back the action saved by `install`.
            unsafe {
                libc::sigaction(*sig, prev, std::ptr::null_mut());
            }
        }
    }
}
