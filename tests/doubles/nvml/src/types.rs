//! C types and constants from nvml.h (as nvml-wrapper-sys 0.10 declares them).

// nvml.h spells these names.
#![allow(non_camel_case_types)]

use std::ffi::c_void;

/// `nvmlReturn_t`; nvml-wrapper maps it to an enum, so only documented values may leave.
pub type nvmlReturn_t = u32;
pub type nvmlDevice_t = *mut c_void;

pub const NVML_SUCCESS: nvmlReturn_t = 0;
pub const NVML_ERROR_UNINITIALIZED: nvmlReturn_t = 1;
pub const NVML_ERROR_INVALID_ARGUMENT: nvmlReturn_t = 2;
pub const NVML_ERROR_NOT_SUPPORTED: nvmlReturn_t = 3;
pub const NVML_ERROR_NO_PERMISSION: nvmlReturn_t = 4;
pub const NVML_ERROR_ALREADY_INITIALIZED: nvmlReturn_t = 5;
pub const NVML_ERROR_NOT_FOUND: nvmlReturn_t = 6;
pub const NVML_ERROR_INSUFFICIENT_SIZE: nvmlReturn_t = 7;
pub const NVML_ERROR_INSUFFICIENT_POWER: nvmlReturn_t = 8;
pub const NVML_ERROR_DRIVER_NOT_LOADED: nvmlReturn_t = 9;
pub const NVML_ERROR_UNKNOWN: nvmlReturn_t = 999;

/// Whether the double may return `code` (0..=9 and 999).
pub fn returnable(code: nvmlReturn_t) -> bool {
    code <= NVML_ERROR_DRIVER_NOT_LOADED || code == NVML_ERROR_UNKNOWN
}

/// `nvmlMemory_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NvmlMemory {
    pub total: u64,
    pub free: u64,
    pub used: u64,
}

/// `nvmlMemory_v2_t`; the caller sets `version` to NVML_STRUCT_VERSION(Memory, 2).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NvmlMemoryV2 {
    pub version: u32,
    pub total: u64,
    pub reserved: u64,
    pub free: u64,
    pub used: u64,
}

/// nvml.h: `NVML_STRUCT_VERSION(Memory, 2)` = sizeof | 2 << 24.
pub const NVML_MEMORY_V2: u32 = (std::mem::size_of::<NvmlMemoryV2>() as u32) | (2 << 24);

/// `nvmlProcessInfo_t` (the v2/v3 layout used by ..._v3 calls).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NvmlProcessInfo {
    pub pid: u32,
    pub used_gpu_memory: u64,
    pub gpu_instance_id: u32,
    pub compute_instance_id: u32,
}

/// Instance ids when MIG is off.
pub const NVML_INVALID_ID: u32 = 0xFFFF_FFFF;
