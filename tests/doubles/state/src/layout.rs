//! The state folder shared by every process and all three doubles:
//!
//! ```text
//! $GPUDOUBLE_STATE/mem/<physical index>/<pid>    decimal bytes that pid holds on that device
//! $GPUDOUBLE_STATE/mem/<physical index>/.lock    flock'd while a process checks and charges
//! $GPUDOUBLE_STATE/nccl/<id>/                    one rendezvous folder per ncclGetUniqueId
//! ```
//!
//! Files are replaced atomically (temp file + rename) so readers never see half a number.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::pids;

pub fn mem_dir(state: &Path, physical: u32) -> PathBuf {
    state.join("mem").join(physical.to_string())
}

pub fn mem_file(state: &Path, physical: u32, pid: i32) -> PathBuf {
    mem_dir(state, physical).join(pid.to_string())
}

pub fn nccl_dir(state: &Path) -> PathBuf {
    state.join("nccl")
}

/// Writes `contents` to `path` through a temp file in the same folder and a rename.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() };
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".tmp.{name}.{}.{tid}.{n}", pids::current()));
    let result = File::create(&tmp)
        .and_then(|mut f| f.write_all(contents))
        .and_then(|()| fs::rename(&tmp, path));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Records what `pid` holds on `physical`; zero removes the file.
pub fn write_usage(state: &Path, physical: u32, pid: i32, bytes: u64) -> io::Result<()> {
    let path = mem_file(state, physical, pid);
    if bytes == 0 {
        return match fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    fs::create_dir_all(mem_dir(state, physical))?;
    write_atomic(&path, bytes.to_string().as_bytes())
}

/// Every pid with a usage file on `physical`, live or not, sorted by pid.
pub fn all_usage(state: &Path, physical: u32) -> Vec<(i32, u64)> {
    let Ok(entries) = fs::read_dir(mem_dir(state, physical)) else {
        return Vec::new();
    };
    let mut usage: Vec<(i32, u64)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            // Temp and lock files start with '.', so they do not parse as pids.
            let pid: i32 = e.file_name().to_str()?.parse().ok()?;
            let bytes: u64 = fs::read_to_string(e.path()).ok()?.trim().parse().ok()?;
            Some((pid, bytes))
        })
        .filter(|&(_, bytes)| bytes > 0)
        .collect();
    usage.sort_unstable();
    usage
}

/// Usage of the live pids only: a dead process's file is stale.
pub fn live_usage(state: &Path, physical: u32) -> Vec<(i32, u64)> {
    let mut usage = all_usage(state, physical);
    usage.retain(|&(pid, _)| pids::alive(pid));
    usage
}

pub fn used_bytes(state: &Path, physical: u32) -> u64 {
    live_usage(state, physical).iter().map(|&(_, b)| b).sum()
}

/// Removes the files of dead pids (a pid may be reused later by a process that holds nothing).
pub fn remove_dead(state: &Path, physical: u32) {
    for (pid, _) in all_usage(state, physical) {
        if !pids::alive(pid) {
            let _ = fs::remove_file(mem_file(state, physical, pid));
        }
    }
}

/// An exclusive flock on a device's ledger; released when dropped (closing the file).
pub struct DeviceLock {
    _file: File,
}

/// Serialises check-then-charge between processes so two of them cannot both take the last
/// free bytes.
pub fn lock_device(state: &Path, physical: u32) -> io::Result<DeviceLock> {
    let dir = mem_dir(state, physical);
    fs::create_dir_all(&dir)?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".lock"))?;
    loop {
        // SAFETY: the fd is open for the duration of the call.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(DeviceLock { _file: file });
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn usage_files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path();
        let me = pids::current();
        write_usage(state, 1, me, 1234).unwrap();
        assert_eq!(fs::read_to_string(mem_file(state, 1, me)).unwrap(), "1234");
        assert_eq!(live_usage(state, 1), vec![(me, 1234)]);
        assert_eq!(used_bytes(state, 0), 0);

        // A reaped child's pid is dead: its file is ignored, then removed.
        let mut child = Command::new("true").spawn().unwrap();
        let dead = child.id() as i32;
        child.wait().unwrap();
        write_usage(state, 1, dead, 99).unwrap();
        assert_eq!(all_usage(state, 1).len(), 2);
        assert_eq!(used_bytes(state, 1), 1234);
        remove_dead(state, 1);
        assert_eq!(all_usage(state, 1), vec![(me, 1234)]);

        write_usage(state, 1, me, 0).unwrap();
        assert!(!mem_file(state, 1, me).exists());
        write_usage(state, 1, me, 0).unwrap();
        let _lock = lock_device(state, 1).unwrap();
        assert!(live_usage(state, 1).is_empty(), "lock file read as a pid");
    }
}
