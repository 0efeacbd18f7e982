//! Standard output and error that a reader going away does not crash.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe (`dslint check | head
//! -1`, `| grep -q`) fails with EPIPE, and `print!`/`eprint!` panic on it.
//! Every write to stdout goes through [`write`] or [`print`] instead: a
//! reader that went away ends the output quietly, and the command exits 0
//! at once, as ruff and ripgrep do (the reader took what it wanted; a
//! `grep -q` that found its line must not see a failure from upstream).
//! Messages to stderr go through [`errln!`](crate::errln) and
//! [`errprint!`](crate::errprint), which drop a failed write (`2>&1 | head`):
//! there is nowhere left to say it.

use std::io::{self, Write};
use std::process::ExitCode;

/// Why output stopped early.
#[derive(Debug)]
pub enum Stop {
    /// The reader closed the pipe: exit 0, say nothing.
    ReaderGone,
    /// Any other failure to write (a full disk, a closed descriptor).
    Failed(io::Error),
}

impl Stop {
    /// The exit code the command ends with; a failure says why on stderr.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Stop::ReaderGone => ExitCode::SUCCESS,
            Stop::Failed(e) => {
                crate::errln!("dslint: writing the output: {e}");
                ExitCode::from(2)
            }
        }
    }
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Stop::ReaderGone
        } else {
            Stop::Failed(e)
        }
    }
}

/// Write to stdout through one buffer (output made as it is written goes
/// out in large writes), then flush.
pub fn write(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), Stop> {
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    f(&mut out)?;
    out.flush()?;
    Ok(())
}

/// Whether stdout is a regular file (`> out.patch`): no terminal and no
/// other program reads what is written there as it is written.
pub fn stdout_is_regular_file() -> bool {
    rustix::fs::fstat(std::io::stdout())
        .is_ok_and(|st| rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile)
}

/// Write `text` to stdout.
pub fn print(text: &str) -> Result<(), Stop> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// `eprintln!` that never panics: a message stderr cannot take is dropped.
/// Control characters are escaped ([`err_text`]).
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {{
        $crate::files::stdio::err_text(&::std::format!($($arg)*), true);
    }};
}

/// `eprint!` that never panics (see [`errln!`]).
#[macro_export]
macro_rules! errprint {
    ($($arg:tt)*) => {{
        $crate::files::stdio::err_text(&::std::format!($($arg)*), false);
    }};
}

/// Write a message to stderr (and a final newline when `newline`), each of
/// its lines with control characters and bidirectional overrides escaped
/// (`output::escape_controls`): messages name files and values of the
/// repository (`--changed-since` and pre-commit name its files, its
/// `dslint.toml` its codes), which must not retitle or clear the terminal.
/// A failed write is dropped: there is nowhere left to say it.
pub fn err_text(text: &str, newline: bool) {
    let mut out = crate::output::escape_controls_by_line(text);
    if newline {
        out.push('\n');
    }
    let _ = io::stderr().write_all(out.as_bytes());
}
