//! Events: a recorded event holds the host time of its recording (work is synchronous here).

use std::time::Instant;

use crate::driver::{process, Driver};
use crate::types::*;

pub(crate) struct Event {
    flags: u32,
    recorded: Option<Instant>,
}

/// Event handles are opaque values; nothing dereferences them.
const EVENT_BASE: usize = 0x0e7e_0000;
const EVENT_STRIDE: usize = 0x10;

fn handle(id: usize) -> CUevent {
    std::ptr::without_provenance_mut(EVENT_BASE + id * EVENT_STRIDE)
}

fn id_of(ev: CUevent) -> Result<usize, CUresult> {
    let offset = (ev as usize)
        .checked_sub(EVENT_BASE)
        .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    if offset % EVENT_STRIDE != 0 {
        return Err(CUDA_ERROR_INVALID_HANDLE);
    }
    Ok(offset / EVENT_STRIDE)
}

pub(crate) fn create(d: &Driver, flags: u32) -> Result<CUevent, CUresult> {
    d.current()?;
    let known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if flags & !known != 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // cuda.h: CU_EVENT_INTERPROCESS must be set together with CU_EVENT_DISABLE_TIMING.
    if flags & CU_EVENT_INTERPROCESS != 0 && flags & CU_EVENT_DISABLE_TIMING == 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let mut p = process();
    let id = p.next_event;
    p.next_event += 1;
    p.events.insert(
        id,
        Event {
            flags,
            recorded: None,
        },
    );
    Ok(handle(id))
}

pub(crate) fn record(ev: CUevent) -> Result<(), CUresult> {
    let id = id_of(ev)?;
    let mut p = process();
    let e = p.events.get_mut(&id).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    e.recorded = Some(Instant::now());
    Ok(())
}

/// Synchronize and query: all work is already done, so a known event is complete.
pub(crate) fn check(ev: CUevent) -> Result<(), CUresult> {
    let id = id_of(ev)?;
    if process().events.contains_key(&id) {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_HANDLE)
    }
}

/// Milliseconds between two recordings. cuda.h: either event created with
/// CU_EVENT_DISABLE_TIMING, or not recorded, gives CUDA_ERROR_INVALID_HANDLE.
pub(crate) fn elapsed(start: CUevent, end: CUevent) -> Result<f32, CUresult> {
    let (start, end) = (id_of(start)?, id_of(end)?);
    let p = process();
    let time = |id: usize| -> Result<Instant, CUresult> {
        let e = p.events.get(&id).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        if e.flags & CU_EVENT_DISABLE_TIMING != 0 {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        e.recorded.ok_or(CUDA_ERROR_INVALID_HANDLE)
    };
    let (t0, t1) = (time(start)?, time(end)?);
    let ms = if t1 >= t0 {
        (t1 - t0).as_secs_f64() * 1000.0
    } else {
        -((t0 - t1).as_secs_f64() * 1000.0)
    };
    Ok(ms as f32)
}

pub(crate) fn destroy(ev: CUevent) -> Result<(), CUresult> {
    let id = id_of(ev)?;
    process()
        .events
        .remove(&id)
        .map(|_| ())
        .ok_or(CUDA_ERROR_INVALID_HANDLE)
}
