//! Calls that work on the calling thread's current CUDA device unless they name one. The current
//! device is per thread: in a thread that never set it, they work on device 0.

use super::Param;

/// A library call whose CUDA work runs on the calling thread's current device.
#[derive(Debug)]
pub struct CurrentDeviceRow {
    pub name: &'static str,
    pub work: Work,
    pub reason: &'static str,
}

/// When the work runs on the current device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Work {
    /// At the call, unless `device` names another device (or is `None`).
    Call { device: Option<Param> },
    /// Where the loader it makes is iterated, when `flag` is `True`: the loader pins its batches
    /// through the device current in the thread that iterates it.
    PinsWhenIterated { flag: Param },
}

const fn row(name: &'static str, device: Option<Param>, reason: &'static str) -> CurrentDeviceRow {
    CurrentDeviceRow {
        name,
        work: Work::Call { device },
        reason,
    }
}

const DEVICE: Option<Param> = Some(Param::pos(0, "device"));

pub const ROWS: &[CurrentDeviceRow] = &[
    row(
        "torch.cuda.synchronize",
        DEVICE,
        "waits for the current device (`device=None`), creating its context if the thread has none",
    ),
    row(
        "torch.cuda.empty_cache",
        None,
        "frees the caching allocator's blocks through the current device's context, creating one on device 0 in a thread that never set it (nvidia-resiliency-ext PR 103)",
    ),
    row(
        "torch.cuda.current_stream",
        DEVICE,
        "the current device's stream (`device=None`), in a context on it",
    ),
    row(
        "torch.cuda.default_stream",
        DEVICE,
        "the current device's default stream (`device=None`), in a context on it",
    ),
    row(
        "torch.cuda.Stream",
        DEVICE,
        "a stream on the current device (`device=None`), in a context on it",
    ),
    row(
        "torch.cuda.mem_get_info",
        DEVICE,
        "queries the current device (`device=None`) through a context on it",
    ),
    CurrentDeviceRow {
        name: "torch.utils.data.DataLoader",
        work: Work::PinsWhenIterated {
            flag: Param::pos(7, "pin_memory"),
        },
        reason: "with `pin_memory=True`, its iterator pins batches for `torch.cuda.current_device()` of the thread that iterates it (fairseq PR 3560)",
    },
];

/// The row of a call that works on the current device, if it is one.
pub fn lookup(name: &str) -> Option<&'static CurrentDeviceRow> {
    ROWS.iter().find(|r| r.name == name)
}
