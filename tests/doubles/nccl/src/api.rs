//! The exported C ABI (signatures as in cudarc 0.19's NCCL bindings). Every function returning
//! ncclResult_t gives 0..=7: bodies run under catch_unwind, GPUDOUBLE_FAIL is checked first, and
//! an error's text goes to ncclGetLastError.

// C names and C pointer contracts: the safety rules are nccl.h's.
#![allow(non_snake_case, clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_void, CStr};
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use gpudouble_state::{fail, layout, pids, Config};

use crate::comm::{self, Comm};
use crate::rendezvous::{self, Record};
use crate::types::*;
use crate::{last_error, reduce};

type Outcome = Result<(), (ncclResult_t, String)>;

fn run(symbol: &str, body: impl FnOnce() -> Outcome) -> ncclResult_t {
    catch_unwind(AssertUnwindSafe(|| {
        if let Some(code) = fail::injected(symbol) {
            // Out-of-range codes would be undefined behaviour for cudarc's enum.
            return u32::try_from(code)
                .ok()
                .filter(|&c| c <= NCCL_IN_PROGRESS)
                .unwrap_or(NCCL_INTERNAL_ERROR);
        }
        match body() {
            Ok(()) => NCCL_SUCCESS,
            Err((code, text)) => {
                last_error::set(&text);
                code
            }
        }
    }))
    .unwrap_or_else(|_| {
        last_error::set("internal error in the NCCL test double (panic)");
        NCCL_INTERNAL_ERROR
    })
}

unsafe fn put<T>(out: *mut T, value: T, what: &str) -> Outcome {
    if out.is_null() {
        return Err((NCCL_INVALID_ARGUMENT, format!("{what} argument is NULL")));
    }
    out.write(value);
    Ok(())
}

gpudouble_state::export_marker!();

#[no_mangle]
pub unsafe extern "C" fn ncclGetVersion(version: *mut c_int) -> ncclResult_t {
    run("ncclGetVersion", || {
        put(version, Config::from_env().nccl_version, "version")
    })
}

/// Creates a fresh rendezvous folder under $GPUDOUBLE_STATE/nccl and puts its absolute path,
/// NUL-terminated, in the id.
#[no_mangle]
pub unsafe extern "C" fn ncclGetUniqueId(id: *mut NcclUniqueId) -> ncclResult_t {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    run("ncclGetUniqueId", || {
        if id.is_null() {
            return Err((NCCL_INVALID_ARGUMENT, "uniqueId argument is NULL".into()));
        }
        let system = |e: std::io::Error| (NCCL_SYSTEM_ERROR, format!("ncclGetUniqueId : {e}"));
        let parent = layout::nccl_dir(&Config::from_env().state_dir);
        fs::create_dir_all(&parent).map_err(system)?;
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!("{}-{nanos}-{n}", pids::current()));
        fs::create_dir(&dir).map_err(system)?;
        let path = dir.to_string_lossy();
        let mut internal = [0 as c_char; 128];
        if path.len() >= internal.len() {
            return Err((
                NCCL_SYSTEM_ERROR,
                format!("ncclGetUniqueId : state path too long for the id: {path}"),
            ));
        }
        for (slot, b) in internal.iter_mut().zip(path.bytes()) {
            *slot = b as c_char;
        }
        id.write(NcclUniqueId { internal });
        Ok(())
    })
}

/// The rendezvous folder an id names.
fn rendezvous_dir(id: &NcclUniqueId) -> Result<PathBuf, (ncclResult_t, String)> {
    let bytes = id.internal.map(|b| b as u8);
    let path = CStr::from_bytes_until_nul(&bytes)
        .ok()
        .and_then(|c| c.to_str().ok())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.is_dir());
    path.ok_or((
        NCCL_INVALID_ARGUMENT,
        "ncclCommInitRank : unique id does not name a rendezvous folder of the test double".into(),
    ))
}

/// Binds to the calling thread's current device, meets the other ranks, and refuses two ranks
/// on one GPU as the configured NCCL version does.
#[no_mangle]
pub unsafe extern "C" fn ncclCommInitRank(
    comm: *mut ncclComm_t,
    nranks: c_int,
    comm_id: NcclUniqueId,
    rank: c_int,
) -> ncclResult_t {
    run("ncclCommInitRank", || {
        if comm.is_null() {
            return Err((NCCL_INVALID_ARGUMENT, "comm argument is NULL".into()));
        }
        comm.write(std::ptr::null_mut());
        if nranks < 1 || rank < 0 || rank >= nranks {
            return Err((
                NCCL_INVALID_ARGUMENT,
                format!("Invalid rank requested : {rank}/{nranks}"),
            ));
        }
        let (rank, nranks) = (rank as usize, nranks as usize);
        let cfg = Config::from_env();
        let dir = rendezvous_dir(&comm_id)?;
        let device = comm::bind_device()?;
        let system = |e: std::io::Error| (NCCL_SYSTEM_ERROR, format!("bootstrap : {e}"));
        let me = Record {
            pid: pids::current(),
            ordinal: device.ordinal,
            uuid: device.uuid,
        };
        rendezvous::publish(&dir, rank, &me).map_err(system)?;
        let records = rendezvous::gather(&dir, nranks).map_err(system)?;
        rendezvous::check_devices(&records, rank, cfg.nccl_version, cfg.multi_rank_gpu)?;
        comm.write(comm::register(Comm {
            dir,
            rank,
            nranks,
            ordinal: device.ordinal,
            seq: 0,
        }));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn ncclAllReduce(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    count: usize,
    datatype: u32,
    op: u32,
    comm: ncclComm_t,
    _stream: cudaStream_t,
) -> ncclResult_t {
    run("ncclAllReduce", || {
        let c = comm::lookup(comm)?;
        let mut c = c.lock().unwrap_or_else(|e| e.into_inner());
        reduce::all_reduce(
            &mut c,
            sendbuff.cast(),
            recvbuff.cast(),
            count,
            datatype,
            op,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn ncclCommCuDevice(comm: ncclComm_t, device: *mut c_int) -> ncclResult_t {
    run("ncclCommCuDevice", || {
        let ordinal = comm::lookup(comm)?
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .ordinal;
        put(device, ordinal, "device")
    })
}

/// Extra, used by some callers: the number of ranks.
#[no_mangle]
pub unsafe extern "C" fn ncclCommCount(comm: ncclComm_t, count: *mut c_int) -> ncclResult_t {
    run("ncclCommCount", || {
        let n = comm::lookup(comm)?
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .nranks;
        put(count, n as c_int, "count")
    })
}

/// Extra: this rank.
#[no_mangle]
pub unsafe extern "C" fn ncclCommUserRank(comm: ncclComm_t, rank: *mut c_int) -> ncclResult_t {
    run("ncclCommUserRank", || {
        let r = comm::lookup(comm)?
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .rank;
        put(rank, r as c_int, "rank")
    })
}

/// Destroy and abort free the communicator; NULL is accepted, as by NCCL.
fn release(comm: ncclComm_t) -> Outcome {
    if comm.is_null() || comm::remove(comm) {
        Ok(())
    } else {
        Err((NCCL_INVALID_ARGUMENT, "Invalid communicator".into()))
    }
}

#[no_mangle]
pub unsafe extern "C" fn ncclCommDestroy(comm: ncclComm_t) -> ncclResult_t {
    run("ncclCommDestroy", || release(comm))
}

#[no_mangle]
pub unsafe extern "C" fn ncclCommAbort(comm: ncclComm_t) -> ncclResult_t {
    run("ncclCommAbort", || release(comm))
}

/// Extra: collectives run synchronously, so groups have nothing to batch.
#[no_mangle]
pub unsafe extern "C" fn ncclGroupStart() -> ncclResult_t {
    run("ncclGroupStart", || Ok(()))
}

#[no_mangle]
pub unsafe extern "C" fn ncclGroupEnd() -> ncclResult_t {
    run("ncclGroupEnd", || Ok(()))
}

/// NCCL's texts (src/init.cc).
#[no_mangle]
pub extern "C" fn ncclGetErrorString(result: ncclResult_t) -> *const c_char {
    let text = match result {
        0 => c"no error",
        1 => c"unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        2 => c"unhandled system error (run with NCCL_DEBUG=INFO for details)",
        3 => c"internal error - please report this issue to the NCCL developers",
        4 => c"invalid argument (run with NCCL_DEBUG=WARN for details)",
        5 => c"invalid usage (run with NCCL_DEBUG=WARN for details)",
        6 => c"remote process exited or there was a network error",
        7 => c"NCCL operation in progress",
        _ => c"unknown result code",
    };
    text.as_ptr()
}

/// The process-wide last warning (empty when none); the communicator is not consulted.
#[no_mangle]
pub extern "C" fn ncclGetLastError(_comm: ncclComm_t) -> *const c_char {
    last_error::get()
}
