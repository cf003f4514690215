//! Process-wide driver state: who called cuInit, which devices are visible, primary contexts,
//! the per-thread current context, and the memory this process holds on each device.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use gpudouble_state::{identity, layout, pids, Config};

use crate::events::Event;
use crate::memory::Alloc;
use crate::types::*;

/// Settings and visible devices, fixed by the first successful cuInit of the process.
pub(crate) struct Driver {
    pub cfg: Config,
    /// CUDA ordinal → physical index (CUDA_VISIBLE_DEVICES applied).
    pub visible: Vec<u32>,
}

/// Pid that initialised the driver; 0 before. A forked child inherits it and so can tell that
/// it is not that process.
static INIT_PID: AtomicI32 = AtomicI32::new(0);
static DRIVER: OnceLock<Driver> = OnceLock::new();
static INIT_LOCK: Mutex<()> = Mutex::new(());

/// Mutable per-process state. BTreeMaps because they can be built in a const static.
pub(crate) struct Process {
    /// Primary context reference counts by CUDA ordinal.
    pub ctx_refs: BTreeMap<CUdevice, u32>,
    /// Bytes this process holds per physical device (mirrored to the state folder).
    pub charged: BTreeMap<u32, u64>,
    pub allocs: BTreeMap<u64, Alloc>,
    pub events: BTreeMap<usize, Event>,
    pub next_event: usize,
}

static PROCESS: Mutex<Process> = Mutex::new(Process {
    ctx_refs: BTreeMap::new(),
    charged: BTreeMap::new(),
    allocs: BTreeMap::new(),
    events: BTreeMap::new(),
    next_event: 1,
});

thread_local! {
    /// The calling thread's current context, as a CUDA ordinal.
    static CURRENT: Cell<Option<CUdevice>> = const { Cell::new(None) };
}

/// Poison-tolerant lock: a panic was already turned into an error code for its caller.
pub(crate) fn process() -> MutexGuard<'static, Process> {
    PROCESS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A call made in a process other than the one that ran cuInit: returns 3 at once, or with
/// GPUDOUBLE_HANG_AFTER_FORK=1 blocks forever (a lock held across fork is never released).
fn forked_child(cfg: Option<&Config>) -> CUresult {
    if cfg.is_some_and(|c| c.hang_after_fork) {
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
    CUDA_ERROR_NOT_INITIALIZED
}

/// Entry check of every call that needs an initialised driver.
pub(crate) fn enter() -> Result<&'static Driver, CUresult> {
    match INIT_PID.load(Ordering::Acquire) {
        0 => Err(CUDA_ERROR_NOT_INITIALIZED),
        pid if pid != pids::current() => Err(forked_child(DRIVER.get().map(|d| &d.cfg))),
        _ => DRIVER.get().ok_or(CUDA_ERROR_NOT_INITIALIZED),
    }
}

pub(crate) fn init(flags: u32) -> Result<(), CUresult> {
    let me = pids::current();
    let check = |pid: i32| match pid {
        0 => Ok(false),
        pid if pid == me => Ok(true),
        _ => Err(forked_child(DRIVER.get().map(|d| &d.cfg))),
    };
    // Checked before taking the lock: a forked child may have inherited it held.
    if check(INIT_PID.load(Ordering::Acquire))? {
        return Ok(());
    }
    let _guard = INIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if check(INIT_PID.load(Ordering::Acquire))? {
        return Ok(());
    }
    if flags != 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let cfg = Config::from_env();
    let cvd = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    let visible = visible_devices(cfg.devices, cvd.as_deref());
    std::thread::sleep(Duration::from_millis(cfg.init_ms));
    if visible.is_empty() {
        return Err(CUDA_ERROR_NO_DEVICE);
    }
    for physical in 0..cfg.devices {
        // A file under our pid is left from an earlier process with the same pid; we hold
        // nothing yet. Dead pids' files are stale too.
        let _ = layout::write_usage(&cfg.state_dir, physical, me, 0);
        layout::remove_dead(&cfg.state_dir, physical);
    }
    let _ = DRIVER.set(Driver { cfg, visible });
    INIT_PID.store(me, Ordering::Release);
    Ok(())
}

/// CUDA_VISIBLE_DEVICES as the driver reads it: physical indices or (prefixes of) UUID strings,
/// in the order given; the first invalid or repeated entry ends the list. Unset: all devices.
pub(crate) fn visible_devices(devices: u32, cvd: Option<&str>) -> Vec<u32> {
    let Some(list) = cvd else {
        return (0..devices).collect();
    };
    let mut visible = Vec::new();
    for entry in list.split(',').map(str::trim) {
        let found = if let Ok(index) = entry.parse::<u32>() {
            (index < devices).then_some(index)
        } else if entry.len() > 4 && entry.starts_with("GPU-") {
            let mut matches = (0..devices).filter(|&p| identity::uuid_string(p).starts_with(entry));
            match (matches.next(), matches.next()) {
                (Some(p), None) => Some(p),
                _ => None, // no match, or an ambiguous prefix
            }
        } else {
            None
        };
        match found {
            Some(p) if !visible.contains(&p) => visible.push(p),
            _ => break,
        }
    }
    visible
}

impl Driver {
    pub fn count(&self) -> usize {
        self.visible.len()
    }

    pub fn physical(&self, ordinal: CUdevice) -> Result<u32, CUresult> {
        usize::try_from(ordinal)
            .ok()
            .and_then(|i| self.visible.get(i).copied())
            .ok_or(CUDA_ERROR_INVALID_DEVICE)
    }

    /// Adds `bytes` to what this process holds on `physical`, failing with out-of-memory when
    /// all live processes together would exceed the device. The device's flock makes the check
    /// and the write one step for every process.
    pub fn charge(&self, p: &mut Process, physical: u32, bytes: u64) -> Result<(), CUresult> {
        let state = &self.cfg.state_dir;
        let _lock = layout::lock_device(state, physical).map_err(|_| CUDA_ERROR_UNKNOWN)?;
        let me = pids::current();
        let others: u64 = layout::live_usage(state, physical)
            .iter()
            .filter(|&&(pid, _)| pid != me)
            .map(|&(_, b)| b)
            .sum();
        let mine = p.charged.get(&physical).copied().unwrap_or(0);
        let after = mine.checked_add(bytes).ok_or(CUDA_ERROR_OUT_OF_MEMORY)?;
        if others.saturating_add(after) > self.cfg.total_bytes {
            return Err(CUDA_ERROR_OUT_OF_MEMORY);
        }
        layout::write_usage(state, physical, me, after).map_err(|_| CUDA_ERROR_UNKNOWN)?;
        p.charged.insert(physical, after);
        Ok(())
    }

    pub fn uncharge(&self, p: &mut Process, physical: u32, bytes: u64) {
        let state = &self.cfg.state_dir;
        let after = p
            .charged
            .get(&physical)
            .copied()
            .unwrap_or(0)
            .saturating_sub(bytes);
        p.charged.insert(physical, after);
        let _lock = layout::lock_device(state, physical);
        // Best effort: if the write fails the pid's file overstates until the process exits.
        let _ = layout::write_usage(state, physical, pids::current(), after);
    }

    /// Retains the device's primary context; the first retain in the process creates it and
    /// charges its cost on the device.
    pub fn retain(&self, ordinal: CUdevice) -> Result<CUcontext, CUresult> {
        let physical = self.physical(ordinal)?;
        let mut p = process();
        let refs = p.ctx_refs.get(&ordinal).copied().unwrap_or(0);
        if refs == 0 {
            self.charge(&mut p, physical, self.cfg.context_bytes)?;
            std::thread::sleep(Duration::from_millis(self.cfg.context_ms));
        }
        p.ctx_refs.insert(ordinal, refs + 1);
        Ok(ctx_handle(ordinal))
    }

    /// Releases one reference; at zero the context is destroyed with everything allocated in
    /// it, and its memory returns to the device.
    pub fn release(&self, ordinal: CUdevice) -> Result<(), CUresult> {
        let physical = self.physical(ordinal)?;
        let mut p = process();
        let refs = p.ctx_refs.get(&ordinal).copied().unwrap_or(0);
        if refs == 0 {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        if refs > 1 {
            p.ctx_refs.insert(ordinal, refs - 1);
            return Ok(());
        }
        p.ctx_refs.remove(&ordinal);
        let (freed, kept): (BTreeMap<_, _>, BTreeMap<_, _>) = std::mem::take(&mut p.allocs)
            .into_iter()
            .partition(|(_, a)| a.ordinal == ordinal);
        p.allocs = kept;
        let bytes: u64 = freed.values().map(|a| a.size() as u64).sum();
        self.uncharge(&mut p, physical, bytes + self.cfg.context_bytes);
        Ok(())
    }

    /// The calling thread's current context as an ordinal whose primary context is alive.
    pub fn current(&self) -> Result<CUdevice, CUresult> {
        let ordinal = CURRENT.get().ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
        if process().ctx_refs.get(&ordinal).copied().unwrap_or(0) == 0 {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        Ok(ordinal)
    }

    pub fn set_current(&self, ctx: CUcontext) -> Result<(), CUresult> {
        if ctx.is_null() {
            CURRENT.set(None);
            return Ok(());
        }
        let ordinal = ctx_ordinal(ctx)
            .filter(|&o| self.physical(o).is_ok())
            .ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
        if process().ctx_refs.get(&ordinal).copied().unwrap_or(0) == 0 {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        CURRENT.set(Some(ordinal));
        Ok(())
    }

    /// The current context handle, null when none.
    pub fn get_current(&self) -> CUcontext {
        CURRENT
            .get()
            .map(ctx_handle)
            .unwrap_or(std::ptr::null_mut())
    }
}

/// Primary context handles are stable opaque values per ordinal; nothing dereferences them.
const CTX_BASE: usize = 0x0c7c_0000;
const CTX_STRIDE: usize = 0x100;

pub(crate) fn ctx_handle(ordinal: CUdevice) -> CUcontext {
    std::ptr::without_provenance_mut(CTX_BASE + (ordinal as usize + 1) * CTX_STRIDE)
}

fn ctx_ordinal(ctx: CUcontext) -> Option<CUdevice> {
    let offset = (ctx as usize).checked_sub(CTX_BASE)?;
    if offset % CTX_STRIDE != 0 || offset == 0 {
        return None;
    }
    CUdevice::try_from(offset / CTX_STRIDE - 1).ok()
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn cuda_visible_devices() {
        assert_eq!(visible_devices(3, None), vec![0, 1, 2]);
        assert_eq!(visible_devices(3, Some("2,0")), vec![2, 0]);
        assert_eq!(visible_devices(3, Some("")), Vec::<u32>::new());
        assert_eq!(
            visible_devices(3, Some("1,7,0")),
            vec![1],
            "invalid entry ends the list"
        );
        assert_eq!(
            visible_devices(3, Some("1,1,0")),
            vec![1],
            "repeat ends the list"
        );
        assert_eq!(visible_devices(3, Some("-1,0")), Vec::<u32>::new());
        let uuid2 = identity::uuid_string(2);
        assert_eq!(visible_devices(3, Some(&format!("{uuid2},0"))), vec![2, 0]);
        assert_eq!(
            visible_devices(3, Some("GPU-6770")),
            Vec::<u32>::new(),
            "ambiguous"
        );
        assert_eq!(visible_devices(3, Some("MIG-x,0")), Vec::<u32>::new());
    }

    #[test]
    fn context_handles_round_trip() {
        for o in 0..5 {
            assert_eq!(ctx_ordinal(ctx_handle(o)), Some(o));
        }
        assert_eq!(ctx_ordinal(std::ptr::null_mut()), None);
        assert_eq!(
            ctx_ordinal(std::ptr::without_provenance_mut(CTX_BASE + 1)),
            None
        );
    }
}
