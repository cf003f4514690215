//! NVML's init reference count and the settings snapshot taken by the first init.

use std::ffi::c_void;
use std::sync::Mutex;

use gpudouble_state::Config;

use crate::types::*;

struct Session {
    refs: u32,
    cfg: Config,
}

static SESSION: Mutex<Option<Session>> = Mutex::new(None);

fn lock() -> std::sync::MutexGuard<'static, Option<Session>> {
    SESSION.lock().unwrap_or_else(|e| e.into_inner())
}

/// nvml.h: init may be called more than once; each call needs a matching shutdown.
pub(crate) fn init() {
    let mut s = lock();
    match s.as_mut() {
        Some(session) => session.refs += 1,
        None => {
            *s = Some(Session {
                refs: 1,
                cfg: Config::from_env(),
            })
        }
    }
}

pub(crate) fn shutdown() -> Result<(), nvmlReturn_t> {
    let mut s = lock();
    let session = s.as_mut().ok_or(NVML_ERROR_UNINITIALIZED)?;
    session.refs -= 1;
    if session.refs == 0 {
        *s = None;
    }
    Ok(())
}

/// The settings, or NVML_ERROR_UNINITIALIZED before nvmlInit.
pub(crate) fn config() -> Result<Config, nvmlReturn_t> {
    lock()
        .as_ref()
        .map(|s| s.cfg.clone())
        .ok_or(NVML_ERROR_UNINITIALIZED)
}

/// Device handles are opaque values per physical index; nothing dereferences them.
const DEVICE_BASE: usize = 0x0d5e_0000;
const DEVICE_STRIDE: usize = 0x100;

pub(crate) fn handle(index: u32) -> nvmlDevice_t {
    std::ptr::without_provenance_mut::<c_void>(DEVICE_BASE + (index as usize + 1) * DEVICE_STRIDE)
}

/// The physical index behind a handle, checked against the device count.
pub(crate) fn index_of(cfg: &Config, device: nvmlDevice_t) -> Result<u32, nvmlReturn_t> {
    let offset = (device as usize)
        .checked_sub(DEVICE_BASE + DEVICE_STRIDE)
        .filter(|o| o % DEVICE_STRIDE == 0)
        .ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
    u32::try_from(offset / DEVICE_STRIDE)
        .ok()
        .filter(|&i| i < cfg.devices)
        .ok_or(NVML_ERROR_INVALID_ARGUMENT)
}
