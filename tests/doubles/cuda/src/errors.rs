//! cuGetErrorName / cuGetErrorString texts, as the real driver gives them.

use std::ffi::CStr;

use crate::types::CUresult;

const TABLE: &[(CUresult, &CStr, &CStr)] = &[
    (0, c"CUDA_SUCCESS", c"no error"),
    (1, c"CUDA_ERROR_INVALID_VALUE", c"invalid argument"),
    (2, c"CUDA_ERROR_OUT_OF_MEMORY", c"out of memory"),
    (3, c"CUDA_ERROR_NOT_INITIALIZED", c"initialization error"),
    (4, c"CUDA_ERROR_DEINITIALIZED", c"driver shutting down"),
    (
        100,
        c"CUDA_ERROR_NO_DEVICE",
        c"no CUDA-capable device is detected",
    ),
    (101, c"CUDA_ERROR_INVALID_DEVICE", c"invalid device ordinal"),
    (
        201,
        c"CUDA_ERROR_INVALID_CONTEXT",
        c"invalid device context",
    ),
    (
        400,
        c"CUDA_ERROR_INVALID_HANDLE",
        c"invalid resource handle",
    ),
    (600, c"CUDA_ERROR_NOT_READY", c"device not ready"),
    (
        700,
        c"CUDA_ERROR_ILLEGAL_ADDRESS",
        c"an illegal memory access was encountered",
    ),
    (999, c"CUDA_ERROR_UNKNOWN", c"unknown error"),
];

/// `(name, text)` for a code the double knows, None otherwise.
pub(crate) fn describe(code: CUresult) -> Option<(&'static CStr, &'static CStr)> {
    TABLE
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|&(_, name, text)| (name, text))
}
