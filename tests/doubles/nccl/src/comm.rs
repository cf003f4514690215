//! Communicators and the device a rank binds to.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use gpudouble_state::cuda_client::{CuResult, CudaClient};

use crate::types::*;

/// cuda.h: CUDA_ERROR_INVALID_CONTEXT, what cuCtxGetDevice says with no current context.
const CUDA_ERROR_INVALID_CONTEXT: CuResult = 201;

pub(crate) struct Comm {
    pub dir: PathBuf,
    pub rank: usize,
    pub nranks: usize,
    /// CUDA ordinal of the bound device in this process.
    pub ordinal: i32,
    /// Collectives issued so far; names each all-reduce's files.
    pub seq: u64,
}

/// The calling thread's device as NCCL finds it: through the CUDA runtime, which initialises
/// the driver and, when no context is current, makes device 0's primary context current.
pub(crate) struct Binding {
    pub ordinal: i32,
    pub uuid: [u8; 16],
}

pub(crate) fn bind_device() -> Result<Binding, (ncclResult_t, String)> {
    let cuda = CudaClient::shared()
        .map_err(|e| (NCCL_UNHANDLED_CUDA_ERROR, format!("Cuda failure: {e}")))?;
    let check = |rc: CuResult| {
        if rc == 0 {
            Ok(())
        } else {
            // NCCL's CUDACHECK text.
            Err((
                NCCL_UNHANDLED_CUDA_ERROR,
                format!("Cuda failure '{}'", cuda.error_text(rc)),
            ))
        }
    };
    // SAFETY: out-pointers are valid locals; the client's signatures are cuda.h's.
    unsafe {
        check((cuda.init)(0))?;
        let mut ordinal = -1;
        match (cuda.ctx_get_device)(&mut ordinal) {
            0 => {}
            CUDA_ERROR_INVALID_CONTEXT => {
                let mut ctx = std::ptr::null_mut();
                check((cuda.device_get)(&mut ordinal, 0))?;
                check((cuda.primary_ctx_retain)(&mut ctx, ordinal))?;
                check((cuda.ctx_set_current)(ctx))?;
            }
            rc => check(rc)?,
        }
        let mut uuid = [0 as std::ffi::c_char; 16];
        check((cuda.device_get_uuid)(&mut uuid, ordinal))?;
        Ok(Binding {
            ordinal,
            uuid: uuid.map(|b| b as u8),
        })
    }
}

/// Live communicators by handle. Each has its own lock so that a rank blocked in a collective
/// does not stop other communicators (other ranks may be threads of this process).
static COMMS: Mutex<BTreeMap<usize, Arc<Mutex<Comm>>>> = Mutex::new(BTreeMap::new());
static NEXT: AtomicUsize = AtomicUsize::new(1);

/// Handles are opaque values; nothing dereferences them.
const COMM_BASE: usize = 0x0cc1_0000;
const COMM_STRIDE: usize = 0x10;

fn comms() -> std::sync::MutexGuard<'static, BTreeMap<usize, Arc<Mutex<Comm>>>> {
    COMMS.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn register(comm: Comm) -> ncclComm_t {
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let addr = COMM_BASE + id * COMM_STRIDE;
    comms().insert(addr, Arc::new(Mutex::new(comm)));
    std::ptr::without_provenance_mut(addr)
}

pub(crate) fn lookup(handle: ncclComm_t) -> Result<Arc<Mutex<Comm>>, (ncclResult_t, String)> {
    comms()
        .get(&(handle as usize))
        .cloned()
        .ok_or((NCCL_INVALID_ARGUMENT, "Invalid communicator".into()))
}

/// Whether the handle named a live communicator (now removed).
pub(crate) fn remove(handle: ncclComm_t) -> bool {
    comms().remove(&(handle as usize)).is_some()
}
