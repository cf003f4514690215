//! The NCCL calls the probe makes. Call only after `libs::nccl_present()`: cudarc panics when
//! libnccl.so or a symbol is missing.

use std::ffi::{c_char, CStr};

use cudarc::nccl::sys::{self, ncclResult_t};

/// An NCCL call that failed, with NCCL's text for the code and its last error message.
#[derive(Debug, Clone)]
pub struct NcclError {
    pub call: &'static str,
    pub code: i32,
    pub text: String,
    pub last_error: String,
}

impl std::fmt::Display for NcclError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} → {} \"{}\"", self.call, self.code, self.text)?;
        if !self.last_error.is_empty() {
            write!(f, "; last error: \"{}\"", self.last_error)?;
        }
        Ok(())
    }
}

fn c_text(ptr: *const c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: NCCL returns NUL-terminated strings it owns.
    unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned()
}

fn check(call: &'static str, r: ncclResult_t) -> Result<(), NcclError> {
    if r == ncclResult_t::ncclSuccess {
        return Ok(());
    }
    // SAFETY: both return static or NCCL-owned strings.
    let (text, last_error) = unsafe {
        (
            c_text(sys::ncclGetErrorString(r)),
            c_text(sys::ncclGetLastError(std::ptr::null_mut())),
        )
    };
    Err(NcclError {
        call,
        code: r as i32,
        text,
        last_error,
    })
}

/// NCCL's version as "2.21.5".
pub fn version() -> Result<String, NcclError> {
    let mut code = 0;
    // SAFETY: writes one int.
    check("ncclGetVersion", unsafe { sys::ncclGetVersion(&mut code) })?;
    Ok(version_text(code))
}

/// NCCL_VERSION_CODE as "2.21.5": major*10000 + minor*100 + patch since 2.9, major*1000 +
/// minor*100 + patch before.
fn version_text(code: i32) -> String {
    let (major, minor, patch) = if code >= 20900 {
        (code / 10000, code / 100 % 100, code % 100)
    } else {
        (code / 1000, code / 100 % 10, code % 100)
    };
    format!("{major}.{minor}.{patch}")
}

pub fn unique_id() -> Result<String, NcclError> {
    let mut id = sys::ncclUniqueId { internal: [0; 128] };
    // SAFETY: writes the 128-byte id.
    check("ncclGetUniqueId", unsafe { sys::ncclGetUniqueId(&mut id) })?;
    Ok(id
        .internal
        .iter()
        .map(|b| format!("{:02x}", *b as u8))
        .collect())
}

fn parse_id(hex: &str) -> Option<sys::ncclUniqueId> {
    let mut id = sys::ncclUniqueId { internal: [0; 128] };
    if hex.len() != 256 {
        return None;
    }
    for (i, slot) in id.internal.iter_mut().enumerate() {
        *slot = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()? as c_char;
    }
    Some(id)
}

pub struct Comm(sys::ncclComm_t);

impl Comm {
    /// `ncclCommInitRank`: binds the communicator to this thread's current device.
    pub fn init(id_hex: &str, nranks: i32, rank: i32) -> Result<Comm, NcclError> {
        let Some(id) = parse_id(id_hex) else {
            return Err(NcclError {
                call: "ncclCommInitRank",
                code: -1,
                text: "malformed unique id".into(),
                last_error: String::new(),
            });
        };
        let mut comm = std::ptr::null_mut();
        // SAFETY: writes one handle; the id came from ncclGetUniqueId.
        check("ncclCommInitRank", unsafe {
            sys::ncclCommInitRank(&mut comm, nranks, id, rank)
        })?;
        Ok(Comm(comm))
    }

    /// The CUDA ordinal NCCL bound this communicator to.
    pub fn device(&self) -> Result<i32, NcclError> {
        let mut dev = -1;
        // SAFETY: a live communicator; writes one int.
        check("ncclCommCuDevice", unsafe {
            sys::ncclCommCuDevice(self.0, &mut dev)
        })?;
        Ok(dev)
    }

    /// Sums `count` f32 values at `buf` across ranks, in place, on the null stream.
    pub fn all_reduce_f32(&self, buf: u64, count: usize) -> Result<(), NcclError> {
        let p = buf as *mut std::ffi::c_void;
        // SAFETY: `buf` is a device allocation of `count` f32 values on this comm's device.
        check("ncclAllReduce", unsafe {
            sys::ncclAllReduce(
                p,
                p,
                count,
                sys::ncclDataType_t::ncclFloat32,
                sys::ncclRedOp_t::ncclSum,
                self.0,
                std::ptr::null_mut(),
            )
        })
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        // Unlike cudarc's safe `Comm`, never panic when destruction fails: the probe reports,
        // it does not crash. SAFETY: a live communicator.
        unsafe { sys::ncclCommDestroy(self.0) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_in_both_encodings() {
        assert_eq!(version_text(22105), "2.21.5");
        assert_eq!(version_text(23000), "2.30.0");
        assert_eq!(version_text(2804), "2.8.4");
    }

    #[test]
    fn ids_round_trip_through_hex_and_reject_bad_input() {
        let hex: String = (0..128u32)
            .map(|i| format!("{:02x}", (i * 7 % 256) as u8))
            .collect();
        let id = parse_id(&hex).expect("valid");
        let back: String = id
            .internal
            .iter()
            .map(|b| format!("{:02x}", *b as u8))
            .collect();
        assert_eq!(back, hex);
        assert!(parse_id(&hex[2..]).is_none(), "too short");
        assert!(parse_id(&format!("zz{}", &hex[2..])).is_none(), "not hex");
    }

    #[test]
    fn errors_read_as_call_code_text_and_last_error() {
        let e = NcclError {
            call: "ncclCommInitRank",
            code: 5,
            text: "invalid usage".into(),
            last_error: "Duplicate GPU".into(),
        };
        assert_eq!(
            e.to_string(),
            "ncclCommInitRank → 5 \"invalid usage\"; last error: \"Duplicate GPU\""
        );
        let e = NcclError {
            last_error: String::new(),
            ..e
        };
        assert_eq!(e.to_string(), "ncclCommInitRank → 5 \"invalid usage\"");
    }
}
