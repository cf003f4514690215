//! ncclGetLastError: one process-wide buffer, like NCCL's `ncclLastError[1024]`, filled by the
//! last warning. Returning a pointer into a static keeps it valid after the lock is released.

use std::ffi::c_char;
use std::sync::Mutex;

static LAST: Mutex<[u8; 1024]> = Mutex::new([0; 1024]);

/// Stores `text` (truncated to fit) and, with NCCL_DEBUG=WARN or INFO, prints it as NCCL does.
pub(crate) fn set(text: &str) {
    if matches!(
        std::env::var("NCCL_DEBUG").as_deref(),
        Ok("WARN" | "INFO" | "TRACE")
    ) {
        eprintln!("NCCL WARN {text}");
    }
    let mut buf = LAST.lock().unwrap_or_else(|e| e.into_inner());
    let bytes = text.as_bytes();
    let n = bytes.len().min(buf.len() - 1);
    buf[..n].copy_from_slice(&bytes[..n]);
    buf[n] = 0;
}

pub(crate) fn get() -> *const c_char {
    LAST.lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ptr()
        .cast()
}
