//! Writes and creations that cannot be redirected. Every file is reached
//! through an open folder descriptor (`openat`), and folders under the
//! project root are opened one component at a time with `O_NOFOLLOW`, so a
//! link swapped in anywhere fails the write instead of leading it out of the
//! tree. New bytes go to a temporary file created exclusively (`O_EXCL`,
//! unpredictable name, mode 0600) in the same folder and renamed over the
//! target: a name planted in advance is replaced, never written through.
//!
//! Rewriting an existing file (`replace_checked`) also:
//! - refuses a file with other hard links (renaming would silently split
//!   them; writing in place would not be atomic);
//! - keeps owner, group and mode: the temporary file is given the original
//!   owner (`fchown`) before its mode (`fchmod`, which keeps setuid/setgid
//!   only because the owner is the same); when the owner cannot be kept the
//!   write is refused, so a setuid bit never lands on a file whose owner
//!   changed;
//! - compares the file with what was read, once before writing and again
//!   right before the rename (same inode, same bytes).
//!
//! A temporary file is removed on every exit path (its guard's `Drop`), and
//! a signal during the write only stops it (see `signals`).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, Mode, OFlags};

use crate::files::read::MAX_FILE_BYTES;
use crate::files::root::{Place, ProjectRoot};
use crate::files::signals;

/// An open folder that files are created in.
pub struct Dir {
    fd: OwnedFd,
    /// For messages.
    path: PathBuf,
}

fn os(e: rustix::io::Errno) -> std::io::Error {
    std::io::Error::from(e)
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOFOLLOW);

impl Dir {
    /// A folder under the project root, given by its real path: opened from
    /// the root down, refusing a link at every step.
    pub fn under_root(root: &ProjectRoot, real: &Path) -> Result<Dir, String> {
        let rel = real.strip_prefix(root.path()).map_err(|_| {
            format!(
                "{} is outside the project root {}; not written",
                real.display(),
                root.path().display()
            )
        })?;
        let mut fd = rustix::fs::open(root.path(), DIR_FLAGS, Mode::empty())
            .map_err(|e| format!("{}: {}", root.path().display(), os(e)))?;
        for c in rel.components() {
            let Component::Normal(name) = c else {
                return Err(format!("{}: not a plain path", real.display()));
            };
            fd = rustix::fs::openat(&fd, name, DIR_FLAGS, Mode::empty()).map_err(|e| {
                format!(
                    "{}: {} (a folder on the way changed or is a link); not written",
                    real.display(),
                    os(e)
                )
            })?;
        }
        Ok(Dir {
            fd,
            path: real.to_path_buf(),
        })
    }

    /// A folder the user named (links in the path they typed are theirs).
    pub fn open(path: &Path) -> Result<Dir, String> {
        let dir = if path.as_os_str().is_empty() {
            Path::new(".")
        } else {
            path
        };
        let flags = DIR_FLAGS.difference(OFlags::NOFOLLOW);
        let fd = rustix::fs::open(dir, flags, Mode::empty()).map_err(|e| format!("{}: {}", dir.display(), os(e)))?;
        Ok(Dir {
            fd,
            path: dir.to_path_buf(),
        })
    }

    /// An output folder (nsys reports, logs), created 0700 when missing.
    /// Refused when it is a link or belongs to another user: a shared
    /// default such as `/tmp/nsys_record` may have been made by anyone.
    pub fn own_output(path: &Path) -> Result<Dir, String> {
        if std::fs::symlink_metadata(path).is_err() {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            use std::os::unix::fs::DirBuilderExt;
            match std::fs::DirBuilder::new().mode(0o700).create(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
        let fd = rustix::fs::open(path, DIR_FLAGS, Mode::empty()).map_err(|e| {
            format!(
                "{}: {} (an output folder must be a real folder, not a link); not used",
                path.display(),
                os(e)
            )
        })?;
        let st = rustix::fs::fstat(&fd).map_err(|e| format!("{}: {}", path.display(), os(e)))?;
        let me = rustix::process::geteuid().as_raw();
        if st.st_uid != me {
            return Err(format!(
                "{} belongs to uid {}, not to you (uid {me}); not used: choose another --output-dir",
                path.display(),
                st.st_uid
            ));
        }
        Ok(Dir {
            fd,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn show(&self, name: &str) -> String {
        self.path.join(name).display().to_string()
    }

    /// Write `bytes` as `name` (mode `mode`): a new file renamed into place,
    /// replacing whatever had the name (a planted link is replaced, not
    /// followed).
    pub fn create_or_replace(&self, name: &str, bytes: &[u8], mode: u32) -> Result<(), String> {
        let show = self.show(name);
        let mut tmp = Temp::create(self)?;
        tmp.fill(bytes).map_err(|e| format!("{show}: {e}"))?;
        rustix::fs::fchmod(&tmp.fd, Mode::from_raw_mode(mode & 0o7777)).map_err(|e| format!("{show}: {}", os(e)))?;
        tmp.persist_as(name).map_err(|e| format!("{show}: {e}"))
    }

    /// Create `name` only if nothing has that name (not even a link);
    /// `Ok(false)` when something does.
    pub fn create_new(&self, name: &str, bytes: &[u8], mode: u32) -> Result<bool, String> {
        let show = self.show(name);
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(mode & 0o777)) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::EXIST) => return Ok(false),
            Err(e) => return Err(format!("{show}: {}", os(e))),
        };
        let mut f = File::from(fd);
        if let Err(e) = f.write_all(bytes).and_then(|()| f.sync_all()) {
            let _ = rustix::fs::unlinkat(&self.fd, name, AtFlags::empty());
            return Err(format!("{show}: {e}"));
        }
        Ok(true)
    }

    /// A fresh file for appending output (a log): any old `name` is
    /// unlinked (never opened), then the name is created exclusively.
    pub fn create_fresh(&self, name: &str, mode: u32) -> Result<File, String> {
        let show = self.show(name);
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) | Err(rustix::io::Errno::NOENT) => {}
            Err(e) => return Err(format!("{show}: {}", os(e))),
        }
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(mode & 0o777))
            .map(File::from)
            .map_err(|e| format!("{show}: {}", os(e)))
    }

    /// Rewrite the existing file `name`, which must still hold `original`.
    pub fn replace_checked(&self, name: &str, original: &[u8], new: &[u8]) -> Result<(), String> {
        let show = self.show(name);
        let before = self.current(name, original, &show)?;
        let mut tmp = Temp::create(self)?;
        tmp.fill(new).map_err(|e| format!("{show}: {e}"))?;
        let (uid, gid) = (before.st_uid, before.st_gid);
        let mine = rustix::fs::fstat(&tmp.fd).map_err(|e| format!("{show}: {}", os(e)))?;
        if (mine.st_uid, mine.st_gid) != (uid, gid) {
            let (u, g) = (rustix::fs::Uid::from_raw(uid), rustix::fs::Gid::from_raw(gid));
            rustix::fs::fchown(&tmp.fd, Some(u), Some(g)).map_err(|e| {
                format!(
                    "{show}: owned by {uid}:{gid}, which dslint cannot keep ({}); not written",
                    os(e)
                )
            })?;
        }
        rustix::fs::fchmod(&tmp.fd, Mode::from_raw_mode(before.st_mode & 0o7777))
            .map_err(|e| format!("{show}: {}", os(e)))?;
        tmp.fd_sync().map_err(|e| format!("{show}: {e}"))?;
        // The same file, with the same bytes, right before the rename.
        let same = |st: &rustix::fs::Stat| (st.st_dev, st.st_ino) == (before.st_dev, before.st_ino);
        let again = self.current(name, original, &show)?;
        if !same(&again) {
            return Err(format!("{show} changed since it was read; not written"));
        }
        test_pause_before_rename();
        if let Some(sig) = signals::caught() {
            return Err(format!("{show}: interrupted (signal {sig}); not written"));
        }
        // The name can still change between that look and the rename (a
        // file written in place, another file, a link or a FIFO renamed
        // over it): the new file is exchanged with what the name holds
        // (`RENAME_EXCHANGE`, one atomic step), and what came out is
        // looked at. When it is not the file that was read, holding what
        // was read, the two are exchanged back: the name holds what it
        // held, and the new bytes go with the temporary file.
        match tmp.exchange_with(name) {
            Ok(true) => {}
            // A file system without the exchange (an old kernel, some
            // network ones): the plain rename, after the last look.
            Ok(false) => return tmp.persist_as(name).map_err(|e| format!("{show}: {e}")),
            Err(e) => return Err(format!("{show}: {e}")),
        }
        let out = self.current(&tmp.name, original, &show);
        if out.as_ref().is_ok_and(same) {
            // The old file goes with the temporary name (`Temp`'s drop).
            let _ = rustix::fs::fsync(&self.fd);
            return Ok(());
        }
        match tmp.exchange_with(name) {
            Ok(true) => Err(out
                .err()
                .unwrap_or_else(|| format!("{show} changed since it was read; not written"))),
            _ => {
                // Not expected: the name was changed twice within the
                // write. What it held is left, under the temporary name.
                tmp.kept = true;
                Err(format!(
                    "{show} changed while it was written; what it held is now {}",
                    self.show(&tmp.name)
                ))
            }
        }
    }

    /// Open `name` without following a link, check it is a lone regular
    /// file holding `original`, and return its status.
    fn current(&self, name: &str, original: &[u8], show: &str) -> Result<rustix::fs::Stat, String> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).map_err(|e| match e {
            rustix::io::Errno::LOOP => format!("{show} is a link; not written"),
            e => format!("{show}: {}", os(e)),
        })?;
        let st = rustix::fs::fstat(&fd).map_err(|e| format!("{show}: {}", os(e)))?;
        if rustix::fs::FileType::from_raw_mode(st.st_mode) != rustix::fs::FileType::RegularFile {
            return Err(format!("{show} is not a regular file; not written"));
        }
        if st.st_nlink > 1 {
            return Err(format!(
                "{show} has {} hard links; not written (a rename would split them): edit it by hand or break the link",
                st.st_nlink
            ));
        }
        let mut bytes = Vec::new();
        File::from(fd)
            .take(MAX_FILE_BYTES.max(original.len() as u64) + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{show}: {e}"))?;
        if bytes != original {
            return Err(format!("{show} changed since it was read; not written"));
        }
        Ok(st)
    }
}

/// Rewrite an existing file under the project root.
pub fn replace_file(root: &ProjectRoot, path: &Path, original: &[u8], new: &[u8]) -> Result<(), String> {
    let real = match root.place_now(path) {
        Place::Inside(real) => real,
        Place::Missing(_) => return Err(format!("{} no longer exists; not written", path.display())),
        Place::Outside => {
            return Err(format!(
                "{} is outside the project root {}; not written",
                path.display(),
                root.path().display()
            ));
        }
    };
    let (Some(parent), Some(name)) = (real.parent(), real.file_name().and_then(|n| n.to_str())) else {
        return Err(format!("{}: not a file name dslint writes", path.display()));
    };
    Dir::under_root(root, parent)?.replace_checked(name, original, new)
}

/// Create or replace `path` (whose folder must be under the project root).
pub fn create_under_root(root: &ProjectRoot, path: &Path, bytes: &[u8], mode: u32) -> Result<(), String> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return Err(format!("{}: not a file name dslint writes", path.display()));
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    match root.place_now(parent) {
        Place::Inside(real) => Dir::under_root(root, &real)?.create_or_replace(name, bytes, mode),
        _ => Err(format!(
            "{} is outside the project root {}; not written",
            path.display(),
            root.path().display()
        )),
    }
}

/// Create or replace a file at a path the user named (its folder as they
/// typed it; the name itself is replaced, never followed).
pub fn create_at(path: &Path, bytes: &[u8], mode: u32) -> Result<(), String> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{}: not a file name dslint writes", path.display()))?;
    Dir::open(path.parent().unwrap_or(Path::new("")))?.create_or_replace(name, bytes, mode)
}

/// `DSLINT_TEST_PAUSE_BEFORE_RENAME_MS`: the tests' way to act between the
/// temporary file and the rename (modify the file, send a signal). It only
/// waits; a signal ends the wait.
fn test_pause_before_rename() {
    let Some(ms) = std::env::var("DSLINT_TEST_PAUSE_BEFORE_RENAME_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return;
    };
    let until = std::time::Instant::now() + std::time::Duration::from_millis(ms.min(60_000));
    while std::time::Instant::now() < until && signals::caught().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// A temporary file in a folder, removed unless renamed into place.
struct Temp<'a> {
    dir: &'a Dir,
    name: String,
    fd: OwnedFd,
    kept: bool,
}

impl<'a> Temp<'a> {
    fn create(dir: &'a Dir) -> Result<Temp<'a>, String> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut last = None;
        for _ in 0..8 {
            let name = format!(".dslint-{}.tmp", random_hex());
            match rustix::fs::openat(&dir.fd, name.as_str(), flags, Mode::from_raw_mode(0o600)) {
                Ok(fd) => {
                    return Ok(Temp {
                        dir,
                        name,
                        fd,
                        kept: false,
                    });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(format!(
            "{}: cannot create a temporary file: {}",
            dir.path.display(),
            last.map_or_else(|| "no name left".to_string(), |e| os(e).to_string())
        ))
    }

    fn fill(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let mut f = File::from(self.fd.as_fd().try_clone_to_owned()?);
        f.write_all(bytes)
    }

    fn fd_sync(&self) -> std::io::Result<()> {
        rustix::fs::fsync(&self.fd).map_err(os)
    }

    /// Exchange the temporary file with `name` (`renameat2`'s
    /// `RENAME_EXCHANGE`); `Ok(false)` when the file system cannot.
    fn exchange_with(&self, name: &str) -> std::io::Result<bool> {
        use rustix::fs::RenameFlags;
        match rustix::fs::renameat_with(
            &self.dir.fd,
            self.name.as_str(),
            &self.dir.fd,
            name,
            RenameFlags::EXCHANGE,
        ) {
            Ok(()) => Ok(true),
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS | rustix::io::Errno::OPNOTSUPP) => Ok(false),
            Err(e) => Err(os(e)),
        }
    }

    fn persist_as(mut self, name: &str) -> std::io::Result<()> {
        self.fd_sync()?;
        rustix::fs::renameat(&self.dir.fd, self.name.as_str(), &self.dir.fd, name).map_err(os)?;
        self.kept = true;
        let _ = rustix::fs::fsync(&self.dir.fd);
        Ok(())
    }
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        if !self.kept {
            let _ = rustix::fs::unlinkat(&self.dir.fd, self.name.as_str(), AtFlags::empty());
        }
    }
}

/// 16 random bytes as hex: a name no one can plant in advance.
fn random_hex() -> String {
    let mut buf = [0u8; 16];
    if rustix::rand::getrandom(&mut buf, rustix::rand::GetRandomFlags::empty()).is_err() {
        // Never expected on Linux; the name is still created exclusively.
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        buf[..16].copy_from_slice(&(t ^ u128::from(std::process::id())).to_le_bytes());
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}
