//! C types and constants from nccl.h (as cudarc 0.19's bindings declare them).

// nccl.h spells these names.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_void};

/// `ncclResult_t`; cudarc maps it to an enum, so only 0..=7 may leave this library.
pub type ncclResult_t = u32;
pub type ncclComm_t = *mut c_void;
pub type cudaStream_t = *mut c_void;

pub const NCCL_SUCCESS: ncclResult_t = 0;
pub const NCCL_UNHANDLED_CUDA_ERROR: ncclResult_t = 1;
pub const NCCL_SYSTEM_ERROR: ncclResult_t = 2;
pub const NCCL_INTERNAL_ERROR: ncclResult_t = 3;
pub const NCCL_INVALID_ARGUMENT: ncclResult_t = 4;
pub const NCCL_INVALID_USAGE: ncclResult_t = 5;
pub const NCCL_REMOTE_ERROR: ncclResult_t = 6;
pub const NCCL_IN_PROGRESS: ncclResult_t = 7;

/// `ncclUniqueId`: 128 opaque bytes, passed by value to ncclCommInitRank.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NcclUniqueId {
    pub internal: [c_char; 128],
}

/// `ncclDataType_t` values the all-reduce supports.
pub const NCCL_INT32: u32 = 2;
pub const NCCL_UINT32: u32 = 3;
pub const NCCL_INT64: u32 = 4;
pub const NCCL_UINT64: u32 = 5;
pub const NCCL_FLOAT16: u32 = 6;
pub const NCCL_FLOAT32: u32 = 7;
pub const NCCL_FLOAT64: u32 = 8;

/// `ncclRedOp_t`.
pub const NCCL_SUM: u32 = 0;
pub const NCCL_PROD: u32 = 1;

/// NCCL_VERSION_CODE of 2.30.0: from here on several ranks per GPU can be enabled.
pub const MULTI_RANK_GPU_VERSION: i32 = 23000;
