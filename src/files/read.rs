//! Bounded reads of regular files. A FIFO, a device, a socket or a folder
//! is refused before it is opened (a FIFO would block, `/dev/zero` never
//! ends), checked again on the open descriptor (the name may have changed
//! in between), and the read stops one byte past the cap, whatever the
//! size the file claims.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Files larger than this are not read (no DeepStream config is near it).
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// Not a regular file: what it is.
    NotRegular(&'static str),
    TooLarge {
        cap: u64,
    },
    Io(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotRegular(what) => write!(f, "is {what}, not a regular file; only regular files are read"),
            ReadError::TooLarge { cap } => write!(f, "file is over the {cap} byte limit"),
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
        }
    }
}

fn describe(t: std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a folder")
    } else if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_char_device() || t.is_block_device() {
        Some("a device")
    } else {
        Some("not a file")
    }
}

/// Open `path` for reading if it is a regular file: never blocks (a FIFO
/// swapped in after the check opens without waiting and is refused).
pub fn open_regular(path: &Path, follow_links: bool) -> Result<File, ReadError> {
    open_regular_sized(path, follow_links).map(|(f, _)| f)
}

/// `open_regular`, with the size the open file claims (from the same
/// `fstat` that checks its type).
pub fn open_regular_sized(path: &Path, follow_links: bool) -> Result<(File, u64), ReadError> {
    let meta = if follow_links {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }
    .map_err(|e| ReadError::Io(e.to_string()))?;
    if meta.file_type().is_symlink() {
        return Err(ReadError::NotRegular("a symbolic link"));
    }
    if let Some(what) = describe(meta.file_type()) {
        return Err(ReadError::NotRegular(what));
    }
    let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY;
    if !follow_links {
        flags |= libc::O_NOFOLLOW;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| ReadError::Io(e.to_string()))?;
    let meta = file.metadata().map_err(|e| ReadError::Io(e.to_string()))?;
    if let Some(what) = describe(meta.file_type()) {
        return Err(ReadError::NotRegular(what));
    }
    Ok((file, meta.len()))
}

/// Read at most `cap` bytes from an open file; more is an error.
pub fn read_capped(file: &mut File, cap: u64) -> Result<Vec<u8>, ReadError> {
    read_capped_sized(file, cap, 0)
}

/// `read_capped` into a buffer sized for what the file claims (`size`, a
/// hint only: the read still stops one byte past the cap), so a file is
/// read in one call. Asked for one byte more than its size, a file that
/// gives back exactly its size has been read whole, as it was when its
/// size was taken: no second call to see its end (one a file, ~5% of a
/// walk's calls). Any other count (a file that grew or shrank since, or a
/// file system that hands out less per call) is read on to its end.
fn read_capped_sized(file: &mut File, cap: u64, size: u64) -> Result<Vec<u8>, ReadError> {
    let want = usize::try_from(size.min(cap) + 1).unwrap_or(0);
    let mut bytes = Vec::with_capacity(want);
    if size > 0 && size <= cap && want > 0 {
        bytes.resize(want, 0);
        let n = loop {
            match file.read(&mut bytes) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ReadError::Io(e.to_string())),
            }
        };
        bytes.truncate(n);
        if n as u64 == size {
            return Ok(bytes);
        }
    }
    let done = bytes.len() as u64;
    file.take(cap + 1 - done)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(e.to_string()))?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge { cap });
    }
    Ok(bytes)
}

/// The bytes of a regular file, at most `cap` of them.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    let (mut file, size) = open_regular_sized(path, true)?;
    read_capped_sized(&mut file, cap, size)
}

/// Open `real` (a real path: no link in it) through no link at all:
/// `openat2`'s `RESOLVE_NO_SYMLINKS`, so a folder on the way that became a
/// link since it was placed (to a folder outside the root) fails the open
/// (`ELOOP`) instead of being followed; `O_NOFOLLOW` alone guards only the
/// last name. Where the kernel has no `openat2` (before Linux 5.6, or a
/// sandbox that refuses it: `ENOSYS`, `EPERM`), `O_NOFOLLOW` alone.
pub fn open_without_links(real: &Path, flags: rustix::fs::OFlags) -> std::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{CWD, Mode, OFlags, ResolveFlags};
    use std::sync::atomic::{AtomicBool, Ordering};
    static NO_OPENAT2: AtomicBool = AtomicBool::new(false);
    let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    if !NO_OPENAT2.load(Ordering::Relaxed) {
        match rustix::fs::openat2(CWD, real, flags, Mode::empty(), ResolveFlags::NO_SYMLINKS) {
            Err(e) if e == rustix::io::Errno::NOSYS || e == rustix::io::Errno::PERM => {
                NO_OPENAT2.store(true, Ordering::Relaxed);
            }
            opened => return opened.map_err(std::io::Error::from),
        }
    }
    open_without_openat2(real, flags)
}

/// [`open_without_links`] where the kernel has no `openat2`: each folder
/// on the way is opened on its own, from `/`, through no link
/// (`O_PATH | O_DIRECTORY | O_NOFOLLOW`: a link is opened as itself, not
/// a folder, and fails; `O_PATH` asks no read permission, as a lookup
/// asks none), then the last name with `O_NOFOLLOW`. A link on the way is
/// `ELOOP`, as `RESOLVE_NO_SYMLINKS` makes it; `O_NOFOLLOW` alone, the
/// fallback before (hostile10), guarded only the last name, and a
/// sandbox's `EPERM` for `openat2` (a container's seccomp profile, common
/// on CI runners) turned it on for the whole run. Some `openat`s more a
/// file: taken only where `openat2` is not.
fn open_without_openat2(real: &Path, flags: rustix::fs::OFlags) -> std::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use std::path::Component;
    let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let (Some(parent), Some(name)) = (real.parent(), real.file_name()) else {
        // `/` (a real path ends in no `..`).
        return rustix::fs::open(real, flags, Mode::empty()).map_err(std::io::Error::from);
    };
    let step = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let start = if real.is_absolute() { "/" } else { "." };
    let mut dir = rustix::fs::open(start, step, Mode::empty())?;
    for part in parent.components() {
        let Component::Normal(part) = part else {
            continue;
        };
        dir = match rustix::fs::openat(&dir, part, step, Mode::empty()) {
            Ok(fd) => fd,
            // A link (opened as itself, no folder) or a file.
            Err(e) if e == rustix::io::Errno::NOTDIR => {
                let link = rustix::fs::statat(&dir, part, AtFlags::SYMLINK_NOFOLLOW)
                    .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink);
                let code = if link { libc::ELOOP } else { libc::ENOTDIR };
                return Err(std::io::Error::from_raw_os_error(code));
            }
            Err(e) => return Err(e.into()),
        };
    }
    rustix::fs::openat(&dir, name, flags, Mode::empty()).map_err(std::io::Error::from)
}

/// The bytes of a file a folder listing just showed to be a regular file
/// and not a link (a walk's entry), by its real path: opened without a
/// look first (the listing was that look; a FIFO or device swapped in
/// since opens without blocking, as `O_NONBLOCK` asks, and is refused on
/// the open descriptor), and never through a link
/// ([`open_without_links`]): one swapped in since the listing, for the
/// file or a folder above it, is refused, as the file was placed against
/// the root as a plain file in plain folders, not where a link leads.
pub fn read_listed(real: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    read_listed_with(real, cap, open_without_links)
}

/// [`read_listed`], opening with `open` (tests take the fallback).
fn read_listed_with(
    real: &Path,
    cap: u64,
    open: fn(&Path, rustix::fs::OFlags) -> std::io::Result<std::os::fd::OwnedFd>,
) -> Result<Vec<u8>, ReadError> {
    use rustix::fs::OFlags;
    let opened = open(real, OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY);
    let mut file = match opened {
        Ok(fd) => File::from(fd),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(ReadError::Io("became a link while the folder was walked".into()));
        }
        Err(e) => return Err(ReadError::Io(e.to_string())),
    };
    let meta = file.metadata().map_err(|e| ReadError::Io(e.to_string()))?;
    if let Some(what) = describe(meta.file_type()) {
        return Err(ReadError::NotRegular(what));
    }
    read_capped_sized(&mut file, cap, meta.len())
}

/// Whether any of `needles` occurs in a file, read in pieces that are not
/// kept (a file too large to read whole: memory stays at one piece);
/// `None` when the file is over `cap` bytes (not read to its end:
/// unknown). Opened as [`read_listed`] opens a walk's entry (`listed`:
/// `path` is its real path, opened through no link) or as
/// [`read_regular`] a link's target.
pub fn find_any(path: &Path, listed: bool, cap: u64, needles: &[&[u8]]) -> Result<Option<bool>, ReadError> {
    let (file, len) = if listed {
        use rustix::fs::OFlags;
        let file = open_without_links(path, OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY)
            .map(File::from)
            .map_err(|e| ReadError::Io(e.to_string()))?;
        let meta = file.metadata().map_err(|e| ReadError::Io(e.to_string()))?;
        if let Some(what) = describe(meta.file_type()) {
            return Err(ReadError::NotRegular(what));
        }
        (file, meta.len())
    } else {
        open_regular_sized(path, true)?
    };
    find_in(file, len, cap, needles, b"")
}

/// The most [`find_in`] reads at once.
const PIECE: usize = 1 << 20;

/// Whether any of `needles` occurs in what `r` gives, read in pieces that
/// are not kept: `Some(false)` when read to its end without one, `None`
/// when more than `cap` bytes came first (unknown), or when the stream
/// starts with `refused_start` (a file that stands for another, such as a
/// Git LFS pointer: what it holds is not in the tree). `size` is what the
/// stream was thought to hold: the buffer is no larger (zeroing a 1 MiB
/// piece for each of a tree's empty placeholder models was 17% of a 10k
/// run), and a stream that gives more is still read to its end.
pub fn find_in(
    mut r: impl Read,
    size: u64,
    cap: u64,
    needles: &[&[u8]],
    refused_start: &[u8],
) -> Result<Option<bool>, ReadError> {
    // Bytes kept from the previous piece, so a needle cut by a piece's end
    // is still found.
    let overlap = needles.iter().map(|n| n.len()).max().unwrap_or(1).saturating_sub(1);
    let least = refused_start.len().max(overlap) + 1;
    let wanted = usize::try_from(size).unwrap_or(PIECE).saturating_add(overlap);
    let mut buf = vec![0u8; wanted.clamp(least, PIECE.max(least) + overlap)];
    let mut kept = 0usize;
    let mut read: u64 = 0;
    let mut judged_start = refused_start.is_empty();
    loop {
        let n = match r.read(&mut buf[kept..]) {
            // What was kept back while the start was judged is searched
            // too (kept bytes once judged were searched already).
            Ok(0) => return Ok(Some(!judged_start && any_in(&buf[..kept], needles))),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadError::Io(e.to_string())),
        };
        read += n as u64;
        if read > cap {
            return Ok(None);
        }
        let filled = kept + n;
        if !judged_start {
            if buf[..filled].starts_with(refused_start) {
                return Ok(None);
            }
            if refused_start.starts_with(&buf[..filled]) {
                // Too short yet to tell: read on before judging.
                kept = filled;
                continue;
            }
            judged_start = true;
        }
        if any_in(&buf[..filled], needles) {
            return Ok(Some(true));
        }
        kept = overlap.min(filled);
        buf.copy_within(filled - kept..filled, 0);
    }
}

fn any_in(bytes: &[u8], needles: &[&[u8]]) -> bool {
    needles.iter().any(|x| memchr::memmem::find(bytes, x).is_some())
}

/// The text of a regular file (UTF-8), at most `cap` bytes; errors name
/// what went wrong, never the content.
pub fn read_text(path: &Path, cap: u64) -> Result<String, String> {
    let bytes = read_regular(path, cap).map_err(|e| format!("{}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: not UTF-8 (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_regular_file() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(read_regular(&fifo, 10), Err(ReadError::NotRegular("a FIFO")));
        assert_eq!(
            read_regular(Path::new("/dev/zero"), 10),
            Err(ReadError::NotRegular("a device"))
        );
        assert_eq!(read_regular(d.path(), 10), Err(ReadError::NotRegular("a folder")));
        let f = d.path().join("f");
        std::fs::write(&f, "0123456789").unwrap();
        assert_eq!(read_regular(&f, 10).unwrap(), b"0123456789");
        assert_eq!(read_regular(&f, 9), Err(ReadError::TooLarge { cap: 9 }));
        std::os::unix::fs::symlink(&f, d.path().join("l")).unwrap();
        assert!(open_regular(&d.path().join("l"), true).is_ok());
        assert_eq!(
            open_regular(&d.path().join("l"), false).err(),
            Some(ReadError::NotRegular("a symbolic link"))
        );
    }

    /// A walk's entry is read with the same refusals, and a link found
    /// where the listing showed a file is not followed.
    #[test]
    fn listed_reads_keep_the_refusals() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(read_listed(&fifo, 10), Err(ReadError::NotRegular("a FIFO")));
        assert_eq!(read_listed(d.path(), 10), Err(ReadError::NotRegular("a folder")));
        let f = d.path().join("f");
        std::fs::write(&f, "0123456789").unwrap();
        assert_eq!(read_listed(&f, 10).unwrap(), b"0123456789");
        assert_eq!(read_listed(&f, 9), Err(ReadError::TooLarge { cap: 9 }));
        std::os::unix::fs::symlink(&f, d.path().join("l")).unwrap();
        assert_eq!(
            read_listed(&d.path().join("l"), 10),
            Err(ReadError::Io("became a link while the folder was walked".into()))
        );
    }

    /// A folder above a listed file that became a link since the listing
    /// (to a folder outside the root) is not followed either: the file is
    /// read by its real path, and no link on the way is (hostile9: a walk
    /// racing with a folder swapped for a link read and echoed a file
    /// outside the root).
    #[test]
    fn listed_reads_follow_no_link_on_the_way() {
        let d = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir(base.join("outside")).unwrap();
        std::fs::write(base.join("outside/f"), "secret").unwrap();
        std::os::unix::fs::symlink(base.join("outside"), base.join("was_a_folder")).unwrap();
        assert_eq!(
            read_listed(&base.join("was_a_folder/f"), 10),
            Err(ReadError::Io("became a link while the folder was walked".into()))
        );
        assert_eq!(read_listed(&base.join("outside/f"), 10).unwrap(), b"secret");
    }

    /// Where the kernel has no `openat2` (or a sandbox refuses it: `EPERM`
    /// under a container's seccomp profile, common on CI runners), a link
    /// on the way is still not followed: the fallback took `O_NOFOLLOW`
    /// alone, which guards only the last name, so a folder swapped for a
    /// link to a folder outside was followed (hostile10). Each folder on
    /// the way is opened on its own, from `/`, through no link.
    #[test]
    fn without_openat2_no_link_on_the_way_is_followed() {
        use rustix::fs::OFlags;
        let d = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir_all(base.join("outside/deeper")).unwrap();
        std::fs::write(base.join("outside/deeper/f"), "secret").unwrap();
        std::os::unix::fs::symlink(base.join("outside"), base.join("was_a_folder")).unwrap();
        std::fs::write(base.join("file"), "").unwrap();
        let open = |p: &Path, flags: OFlags| open_without_openat2(p, flags).map_err(|e| e.raw_os_error());
        let read = OFlags::RDONLY | OFlags::NONBLOCK;
        let dir = OFlags::RDONLY | OFlags::DIRECTORY;
        // A link on the way: ELOOP, as `RESOLVE_NO_SYMLINKS` says; a file
        // on the way: ENOTDIR; nothing there: ENOENT.
        let cases = [
            ("was_a_folder/deeper/f", read, Some(libc::ELOOP)),
            ("was_a_folder/deeper", dir, Some(libc::ELOOP)),
            ("file/f", read, Some(libc::ENOTDIR)),
            ("gone/f", read, Some(libc::ENOENT)),
        ];
        for (p, flags, errno) in cases {
            assert_eq!(open(&base.join(p), flags).err(), Some(errno), "{p}");
        }
        // Every case, and the last name a link: what `openat2` says, where
        // this kernel has it.
        for (p, flags) in [
            ("was_a_folder", dir),
            ("was_a_folder", read),
            ("file", dir),
            ("outside/deeper/f", read),
            ("outside/deeper", dir),
        ]
        .into_iter()
        .chain(cases.iter().map(|c| (c.0, c.1)))
        {
            let fallback = open(&base.join(p), flags).err();
            let openat2 = open_without_links(&base.join(p), flags).map_err(|e| e.raw_os_error());
            assert_eq!(fallback, openat2.err(), "{p}");
        }
        // No link: opened, with the flags asked.
        let mut f = File::from(open(&base.join("outside/deeper/f"), read).unwrap());
        let mut text = String::new();
        f.read_to_string(&mut text).unwrap();
        assert_eq!(text, "secret");
        assert!(open(&base.join("outside/deeper"), dir).is_ok());
        assert!(open(Path::new("/"), dir).is_ok());
        // Reads through the fallback keep `read_listed`'s refusals.
        assert_eq!(
            read_listed_with(&base.join("was_a_folder/deeper/f"), 10, open_without_openat2),
            Err(ReadError::Io("became a link while the folder was walked".into()))
        );
    }

    /// A needle cut by a piece's end (1 MiB) is found, wherever the cut
    /// falls in it, and in a file of many pieces; a file over the cap is
    /// unknown (hostile10: held, no change).
    #[test]
    fn find_any_finds_a_needle_across_piece_ends() {
        let d = tempfile::tempdir().unwrap();
        let f = std::fs::canonicalize(d.path()).unwrap().join("big.c");
        let piece = 1 << 20;
        let needle: &[u8] = b"g_key_file_get_string";
        for cut in 0..=needle.len() {
            let mut bytes = vec![b'x'; 3 * piece];
            let at = 2 * piece - cut;
            bytes[at..at + needle.len()].copy_from_slice(needle);
            std::fs::write(&f, &bytes).unwrap();
            let cap = bytes.len() as u64;
            assert_eq!(find_any(&f, false, cap, &[b"zz", needle]), Ok(Some(true)), "cut {cut}");
            assert_eq!(find_any(&f, true, cap, &[needle]), Ok(Some(true)), "cut {cut}");
            assert_eq!(find_any(&f, false, cap, &[b"g_key_file_get_strinh"]), Ok(Some(false)));
            assert_eq!(find_any(&f, false, cap - 1, &[b"zz"]), Ok(None));
        }
    }

    /// `find_in` judges the start before it searches, searches what it
    /// kept back when the stream ends while judging, and reads a stream
    /// that gives more than its size said to its end.
    #[test]
    fn find_in_judges_the_start_then_searches() {
        let find = |bytes: &[u8], size: u64, cap: u64| find_in(bytes, size, cap, &[b"bc", b"xyz"], b"abcdef");
        assert_eq!(find(b"abcdef and xyz", 14, 100), Ok(None));
        // Ends while still a prefix of the refused start: searched.
        assert_eq!(find(b"abc", 3, 100), Ok(Some(true)));
        assert_eq!(find(b"ab", 2, 100), Ok(Some(false)));
        assert_eq!(find(b"", 0, 100), Ok(Some(false)));
        assert_eq!(find(b"abd xyz", 7, 100), Ok(Some(true)));
        assert_eq!(find(b"abd xyz", 0, 100), Ok(Some(true)));
        assert_eq!(find(b"abd xyz", 7, 6), Ok(None));
        let mut long = vec![b'.'; 3 << 20];
        long.extend_from_slice(b"xyz");
        assert_eq!(find(&long, 10, u64::MAX), Ok(Some(true)));
        assert_eq!(find(&long[..long.len() - 1], 10, u64::MAX), Ok(Some(false)));
    }

    /// The size taken when the file was opened is a hint: read in one call
    /// when the file still has exactly that many bytes, read on to its end
    /// when it has more or fewer (it changed since), and the cap holds
    /// whatever the hint said.
    #[test]
    fn a_stale_size_is_read_past() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, "0123456789").unwrap();
        let read = |cap: u64, size: u64| read_capped_sized(&mut File::open(&f).unwrap(), cap, size);
        for size in [0, 1, 5, 9, 10, 11, 100] {
            assert_eq!(read(10, size).unwrap(), b"0123456789", "size {size}");
            assert_eq!(read(11, size).unwrap(), b"0123456789", "size {size}");
            assert_eq!(read(9, size), Err(ReadError::TooLarge { cap: 9 }), "size {size}");
            assert_eq!(read(0, size), Err(ReadError::TooLarge { cap: 0 }), "size {size}");
        }
        let empty = d.path().join("e");
        std::fs::write(&empty, "").unwrap();
        for size in [0, 1, 10] {
            assert_eq!(
                read_capped_sized(&mut File::open(&empty).unwrap(), 10, size).unwrap(),
                b""
            );
        }
    }
}
