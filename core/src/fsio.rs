//! The one way gpulint reads and writes a user's files.
//!
//! Reading: regular files only (a FIFO, a device or a socket is refused before it is opened for
//! reading, and the open itself does not block), never more than a cap, so no input can hang a run
//! or grow it without bound. Writing: a new text goes to a temporary file beside the target, is
//! synced, and replaces the target by a rename only if the target still holds what the new text
//! was made from; so a kill, a full disk or an edit made meanwhile leaves either the old file or
//! the new one, never a part of either.

use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Sources larger than this are not read: generated code (tables, bindings) that would dominate a
/// run. Configuration and baselines have the same cap.
pub const MAX_FILE_BYTES: u64 = 8 << 20;

/// What a file looked like when it was read: a later look that differs means it changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    pub modified: Option<SystemTime>,
    #[cfg(unix)]
    pub inode: (u64, u64),
}

impl Stamp {
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            inode: {
                use std::os::unix::fs::MetadataExt;
                (meta.dev(), meta.ino())
            },
        }
    }
}

/// Everything the file system says changes when a file's bytes change (its change time included,
/// which no tool sets back), for a cache to tell a file it read before from one it must read again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FileState {
    pub len: u64,
    /// Modification and change times, in nanoseconds since the epoch.
    pub modified_ns: i64,
    pub changed_ns: i64,
    pub inode: u64,
    pub device: u64,
}

impl FileState {
    pub fn of(meta: &std::fs::Metadata) -> FileState {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            FileState {
                len: meta.len(),
                modified_ns: meta.mtime().saturating_mul(1_000_000_000) + meta.mtime_nsec(),
                changed_ns: meta.ctime().saturating_mul(1_000_000_000) + meta.ctime_nsec(),
                inode: meta.ino(),
                device: meta.dev(),
            }
        }
        #[cfg(not(unix))]
        {
            let ns = |t: std::io::Result<SystemTime>| {
                t.ok()
                    .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos() as i64)
            };
            FileState {
                len: meta.len(),
                modified_ns: ns(meta.modified()),
                changed_ns: ns(meta.modified()),
                inode: 0,
                device: 0,
            }
        }
    }

    /// The later of its modification and change times.
    pub fn latest_ns(&self) -> i64 {
        self.modified_ns.max(self.changed_ns)
    }
}

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// A FIFO, a device, a socket or a directory: never opened for reading.
    NotRegular(&'static str),
    /// Larger than the cap (bytes).
    TooLarge(u64),
    Io(std::io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotRegular(kind) => write!(f, "not a regular file ({kind})"),
            ReadError::TooLarge(cap) => write!(f, "larger than {}", size(*cap)),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// The bytes of the regular file at `path` (links followed), at most `cap` of them, and its stamp.
pub fn read_regular(path: &Path, cap: u64) -> Result<(Vec<u8>, Stamp), ReadError> {
    read_regular_state(path, cap).map(|(bytes, meta)| (bytes, Stamp::of(&meta)))
}

/// [`read_regular`], with the metadata of the file that was read.
pub fn read_regular_state(
    path: &Path,
    cap: u64,
) -> Result<(Vec<u8>, std::fs::Metadata), ReadError> {
    let regular = |meta: &std::fs::Metadata| -> Result<(), ReadError> {
        if !meta.is_file() {
            return Err(ReadError::NotRegular(kind_of(meta)));
        }
        if meta.len() > cap {
            return Err(ReadError::TooLarge(cap));
        }
        Ok(())
    };
    regular(&std::fs::metadata(path).map_err(ReadError::Io)?)?;
    // Non-blocking, so a file swapped for a FIFO after the check cannot hang the run.
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    regular(&meta)?;
    let bytes = read_bounded(file, meta.len() as usize, cap)
        .map_err(ReadError::Io)?
        .ok_or(ReadError::TooLarge(cap))?;
    Ok((bytes, meta))
}

/// The first `len` bytes (or fewer) of the regular file at `path`: for files only their start
/// tells about (a server's configuration), however large they are.
pub fn read_start(path: &Path, len: u64) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(&meta)));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(&meta)));
    }
    let mut bytes = Vec::new();
    file.take(len)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text; an invalid file is an error that says where.
pub fn read_text(path: &Path, cap: u64) -> Result<String, ReadError> {
    let (bytes, _) = read_regular(path, cap)?;
    String::from_utf8(bytes).map_err(|e| {
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not valid UTF-8 (at byte {})", e.utf8_error().valid_up_to()),
        ))
    })
}

/// Everything `reader` gives, unless it gives more than `cap` bytes (`None`): never more than
/// that is read. `expected` sizes the buffer.
pub fn read_bounded(
    reader: impl Read,
    expected: usize,
    cap: u64,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::with_capacity(expected.min(cap as usize).saturating_add(1));
    reader.take(cap + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= cap).then_some(bytes))
}

/// What kind of non-regular file `meta` describes, in words.
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

/// Why a file was not written. In every case the file is as it was.
#[derive(Debug)]
pub enum WriteError {
    /// The file no longer holds what the new text was made from.
    Changed,
    /// Not a regular file, or it could not be read back to compare.
    Unreadable(ReadError),
    Io(std::io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Changed => write!(f, "the file changed since it was read"),
            WriteError::Unreadable(e) => write!(f, "{e}"),
            WriteError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for WriteError {}

/// What a replaced file must still hold: its bytes when the new text was made from them, and the
/// stamp it had when first read (so an edit undone meanwhile still counts as a change).
pub struct Expected<'a> {
    pub bytes: &'a [u8],
    pub stamp: Option<Stamp>,
}

/// Replaces the file at `path` (its link target where it is a link, so the link stays) with `new`,
/// if it still holds `expected`. The old file stays whole until the rename, and keeps its
/// permissions.
pub fn replace(path: &Path, expected: &Expected, new: &[u8]) -> Result<(), WriteError> {
    let target = std::fs::canonicalize(path).map_err(WriteError::Io)?;
    let meta = std::fs::metadata(&target).map_err(WriteError::Io)?;
    // A cheap look first, so that a file already changed costs no temporary file.
    if expected.stamp.is_some_and(|s| s != Stamp::of(&meta)) {
        return Err(WriteError::Changed);
    }
    let temp = Temp::write(&target, new, Some(meta.permissions()))?;
    // Read right before the rename: an edit saved until then, even while the new text was being
    // written, wins.
    let (now, stamp) = read_regular(&target, u64::MAX >> 1).map_err(WriteError::Unreadable)?;
    if now != expected.bytes || expected.stamp.is_some_and(|s| s != stamp) {
        return Err(WriteError::Changed);
    }
    temp.rename_over(&target)
}

/// Writes `bytes` to `path` (a report, a baseline): whole or not at all, never a part of it.
/// A link at `path` is followed, so the file it names is written.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let target = match std::fs::canonicalize(path) {
        Ok(target) => target,
        // A new file: its folder must exist.
        Err(_) => path.to_path_buf(),
    };
    if let Ok(meta) = std::fs::metadata(&target) {
        if !meta.is_file() {
            return Err(WriteError::Unreadable(ReadError::NotRegular(kind_of(
                &meta,
            ))));
        }
    }
    let permissions = std::fs::metadata(&target).ok().map(|m| m.permissions());
    Temp::write(&target, bytes, permissions)?.rename_over(&target)
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, without
/// syncing: for files gpulint can always make again (its cache). A reader sees the old file or the
/// new one, whole; after a crash it may find a file cut short, which it must check for itself.
/// A link at `path` is replaced, not followed.
pub fn write_replaceable(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    Temp::create(path, bytes, None, false)?.rename_over(path)
}

/// A temporary file beside its target, removed unless it was renamed over the target.
struct Temp {
    path: PathBuf,
    kept: bool,
    /// Written to the disk: the rename is made durable too.
    synced: bool,
}

impl Temp {
    fn write(
        target: &Path,
        bytes: &[u8],
        permissions: Option<std::fs::Permissions>,
    ) -> Result<Temp, WriteError> {
        Temp::create(target, bytes, permissions, true)
    }

    /// The temporary file for `target`, holding `bytes`; synced to the disk when `sync`.
    fn create(
        target: &Path,
        bytes: &[u8],
        permissions: Option<std::fs::Permissions>,
        sync: bool,
    ) -> Result<Temp, WriteError> {
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut n = 0u32;
        let (file, path) = loop {
            let path = folder.join(format!(".{name}.gpulint-{}-{n}.tmp", std::process::id()));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => break (file, path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
                Err(e) => return Err(WriteError::Io(e)),
            }
        };
        let mut temp = Temp {
            path,
            kept: false,
            synced: sync,
        };
        let mut file = file;
        let written = file
            .write_all(bytes)
            .and_then(|()| match permissions {
                Some(p) => file.set_permissions(p),
                None => Ok(()),
            })
            .and_then(|()| if sync { file.sync_all() } else { Ok(()) });
        if let Err(e) = written {
            drop(file);
            temp.remove();
            return Err(WriteError::Io(e));
        }
        Ok(temp)
    }

    fn rename_over(mut self, target: &Path) -> Result<(), WriteError> {
        std::fs::rename(&self.path, target).map_err(WriteError::Io)?;
        self.kept = true;
        if !self.synced {
            return Ok(());
        }
        // The rename itself is durable once the folder is synced; a folder that cannot be opened
        // (rare) leaves it to the file system's own schedule.
        if let Some(folder) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
            if let Ok(dir) = std::fs::File::open(folder) {
                let _ = dir.sync_all();
            }
        }
        Ok(())
    }

    fn remove(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
            self.kept = true;
        }
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        self.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "gpulint-fsio-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn leftovers(d: &Path) -> Vec<String> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn replace_writes_when_unchanged_and_keeps_the_mode() {
        let d = dir();
        let f = d.join("a.py");
        std::fs::write(&f, "old\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o754)).unwrap();
        }
        let (bytes, stamp) = read_regular(&f, 100).unwrap();
        let expected = Expected {
            bytes: &bytes,
            stamp: Some(stamp),
        };
        replace(&f, &expected, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o754);
        }
        assert!(leftovers(&d).is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn replace_refuses_a_file_that_changed() {
        let d = dir();
        let f = d.join("a.py");
        std::fs::write(&f, "old\n").unwrap();
        let (bytes, stamp) = read_regular(&f, 100).unwrap();
        std::fs::write(&f, "edited meanwhile\n").unwrap();
        let expected = Expected {
            bytes: &bytes,
            stamp: Some(stamp),
        };
        let err = replace(&f, &expected, b"new\n").unwrap_err();
        assert!(matches!(err, WriteError::Changed), "{err}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "edited meanwhile\n");
        assert!(leftovers(&d).is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn replace_through_a_link_keeps_the_link() {
        let d = dir();
        let f = d.join("real.py");
        let link = d.join("link.py");
        std::fs::write(&f, "old\n").unwrap();
        std::os::unix::fs::symlink(&f, &link).unwrap();
        let expected = Expected {
            bytes: b"old\n",
            stamp: None,
        };
        replace(&link, &expected, b"new\n").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new\n");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_without_blocking() {
        let d = dir();
        let fifo = d.join("f.py");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert!(matches!(
            read_regular(&fifo, 100),
            Err(ReadError::NotRegular("a FIFO"))
        ));
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 100),
            Err(ReadError::NotRegular("a device"))
        ));
        assert!(matches!(
            read_regular(&d, 100),
            Err(ReadError::NotRegular("a directory"))
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_cap_is_never_passed() {
        let d = dir();
        let f = d.join("big");
        std::fs::write(&f, vec![b'x'; 101]).unwrap();
        assert!(matches!(
            read_regular(&f, 100),
            Err(ReadError::TooLarge(100))
        ));
        assert_eq!(
            read_bounded(&b"abc"[..], 0, 2).unwrap(),
            None,
            "a reader past the cap"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn write_replaceable_leaves_no_temporary_file() {
        let d = dir();
        let f = d.join("entry");
        write_replaceable(&f, b"one").unwrap();
        write_replaceable(&f, b"two").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"two");
        assert!(leftovers(&d).is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn write_whole_replaces_or_creates() {
        let d = dir();
        let f = d.join("report.json");
        write_whole(&f, b"one").unwrap();
        write_whole(&f, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "two");
        assert!(write_whole(&d, b"x").is_err(), "a folder is not written");
        assert!(leftovers(&d).is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
