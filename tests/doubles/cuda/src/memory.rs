//! Device memory: zeroed host memory, so memset/memcpy work and NCCL's double can read and write
//! it through the returned address. Sizes are charged to the context's device.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

use crate::driver::{process, Driver};
use crate::types::*;

/// Device allocations are aligned like the real driver's (at least 256 bytes).
const ALIGN: usize = 256;

pub(crate) struct Alloc {
    ptr: NonNull<u8>,
    layout: Layout,
    /// The ordinal of the context it was allocated in.
    pub ordinal: CUdevice,
}

// The allocation is owned by the process-wide table and only touched under its lock.
unsafe impl Send for Alloc {}

impl Alloc {
    pub fn size(&self) -> usize {
        self.layout.size()
    }
}

impl Drop for Alloc {
    fn drop(&mut self) {
        // SAFETY: allocated in `alloc` with this layout, dropped once.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

pub(crate) fn alloc(d: &Driver, bytes: usize) -> Result<CUdeviceptr, CUresult> {
    if bytes == 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let ordinal = d.current()?;
    let physical = d.physical(ordinal)?;
    let layout = Layout::from_size_align(bytes, ALIGN).map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
    let mut p = process();
    d.charge(&mut p, physical, bytes as u64)?;
    // SAFETY: layout has a non-zero size.
    let Some(ptr) = NonNull::new(unsafe { alloc_zeroed(layout) }) else {
        d.uncharge(&mut p, physical, bytes as u64);
        return Err(CUDA_ERROR_OUT_OF_MEMORY);
    };
    // Exposed so that a pointer can be rebuilt from the integer CUdeviceptr.
    let addr = ptr.as_ptr().expose_provenance() as CUdeviceptr;
    p.allocs.insert(
        addr,
        Alloc {
            ptr,
            layout,
            ordinal,
        },
    );
    Ok(addr)
}

pub(crate) fn free(d: &Driver, dptr: CUdeviceptr) -> Result<(), CUresult> {
    d.current()?;
    let mut p = process();
    let a = p.allocs.remove(&dptr).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    let physical = d.physical(a.ordinal)?;
    d.uncharge(&mut p, physical, a.size() as u64);
    Ok(())
}

/// Runs `f` on `n` bytes at `dptr`, which must lie inside one live allocation. The table stays
/// locked meanwhile so the memory cannot be freed under `f`.
pub(crate) fn with_range<R>(
    d: &Driver,
    dptr: CUdeviceptr,
    n: usize,
    f: impl FnOnce(*mut u8) -> R,
) -> Result<R, CUresult> {
    d.current()?;
    let p = process();
    let (&base, a) = p
        .allocs
        .range(..=dptr)
        .next_back()
        .ok_or(CUDA_ERROR_INVALID_VALUE)?;
    let offset = usize::try_from(dptr - base).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
    match offset.checked_add(n) {
        Some(end) if end <= a.size() => {}
        _ => return Err(CUDA_ERROR_INVALID_VALUE),
    }
    // SAFETY: offset + n lies inside the allocation.
    Ok(f(unsafe { a.ptr.as_ptr().add(offset) }))
}

/// (free, total) of the current context's device, counting every live process.
pub(crate) fn info(d: &Driver) -> Result<(usize, usize), CUresult> {
    let physical = d.physical(d.current()?)?;
    let used = gpudouble_state::layout::used_bytes(&d.cfg.state_dir, physical);
    let total = d.cfg.total_bytes;
    Ok((total.saturating_sub(used) as usize, total as usize))
}
