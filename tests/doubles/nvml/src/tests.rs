//! Tests of the NVML double. NVML's init count is process-wide, so scenarios run as roles in
//! fresh processes; the cross-library one drives the built libgpudouble_cuda.so through dlopen
//! and checks that NVML sees what it charged.

use std::ffi::{c_char, c_uint, CStr};
use std::ptr::null_mut;

use gpudouble_state::cuda_client::CudaClient;
use gpudouble_state::testkit::{self, emit, RoleOutput};
use gpudouble_state::{identity, layout, pids};

use crate::*;

const ENTRY: &str = "tests::role_entry";
const MIB: u64 = 1024 * 1024;

#[test]
fn role_entry() {
    let Some(role) = testkit::role() else {
        return;
    };
    match role.as_str() {
        "init" => init_protocol(),
        "devices" => devices(),
        "with_cuda" => with_cuda(),
        "inject" => injection(),
        other => panic!("unknown role {other}"),
    }
}

fn run(role: &str, state: &tempfile::TempDir, envs: &[(&str, &str)]) -> RoleOutput {
    testkit::run_ok(ENTRY, role, state.path(), envs)
}

fn text(p: *const c_char) -> String {
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn handle(index: c_uint) -> nvmlDevice_t {
    let mut dev = null_mut();
    assert_eq!(unsafe { nvmlDeviceGetHandleByIndex_v2(index, &mut dev) }, 0);
    dev
}

/// The processes on a device through the documented two-call protocol.
fn processes(dev: nvmlDevice_t) -> Vec<NvmlProcessInfo> {
    let mut count: c_uint = 0;
    match unsafe { nvmlDeviceGetComputeRunningProcesses_v3(dev, &mut count, null_mut()) } {
        NVML_SUCCESS => {
            assert_eq!(count, 0);
            return Vec::new();
        }
        NVML_ERROR_INSUFFICIENT_SIZE => assert!(count > 0),
        other => panic!("unexpected {other}"),
    }
    let mut buf = vec![NvmlProcessInfo::default(); count as usize + 2];
    let mut cap = buf.len() as c_uint;
    assert_eq!(
        unsafe { nvmlDeviceGetComputeRunningProcesses_v3(dev, &mut cap, buf.as_mut_ptr()) },
        0
    );
    buf.truncate(cap as usize);
    buf
}

fn memory_v2(dev: nvmlDevice_t) -> NvmlMemoryV2 {
    let mut mem = NvmlMemoryV2 {
        version: NVML_MEMORY_V2,
        ..Default::default()
    };
    assert_eq!(unsafe { nvmlDeviceGetMemoryInfo_v2(dev, &mut mem) }, 0);
    mem
}

#[test]
fn error_strings() {
    let cases = [
        (0, "Success"),
        (1, "Uninitialized"),
        (2, "Invalid Argument"),
        (3, "Not Supported"),
        (4, "Insufficient Permissions"),
        (5, "Already Initialized"),
        (6, "Not Found"),
        (7, "Insufficient Size"),
        (8, "Insufficient External Power"),
        (9, "Driver Not Loaded"),
        (999, "Unknown Error"),
        (12345, "Unknown Error"),
    ];
    for (code, want) in cases {
        assert_eq!(text(nvmlErrorString(code)), want, "code {code}");
    }
    assert_eq!(text(gpudouble_marker()), "gpulint test double");
    // The v2 struct version nvml-wrapper sets: sizeof | 2 << 24.
    assert_eq!(NVML_MEMORY_V2, 40 | (2 << 24));
}

#[test]
fn calls_need_init_and_init_is_counted() {
    let state = tempfile::tempdir().unwrap();
    run("init", &state, &[]);
}

fn init_protocol() {
    let mut n: c_uint = 9;
    assert_eq!(unsafe { nvmlDeviceGetCount_v2(&mut n) }, 1);
    let mut dev = null_mut();
    assert_eq!(unsafe { nvmlDeviceGetHandleByIndex_v2(0, &mut dev) }, 1);
    let mut buf = [0 as c_char; 80];
    assert_eq!(
        unsafe { nvmlSystemGetDriverVersion(buf.as_mut_ptr(), 80) },
        1
    );
    assert_eq!(unsafe { nvmlShutdown() }, 1);

    assert_eq!(unsafe { nvmlInit_v2() }, 0);
    assert_eq!(unsafe { nvmlInitWithFlags(0) }, 0);
    assert_eq!(unsafe { nvmlDeviceGetCount_v2(&mut n) }, 0);
    assert_eq!(n, 1);
    assert_eq!(unsafe { nvmlShutdown() }, 0);
    assert_eq!(
        unsafe { nvmlDeviceGetCount_v2(&mut n) },
        0,
        "one init still open"
    );
    assert_eq!(unsafe { nvmlShutdown() }, 0);
    assert_eq!(unsafe { nvmlDeviceGetCount_v2(&mut n) }, 1);
}

#[test]
fn devices_in_physical_order_ignoring_cuda_visible_devices() {
    let state = tempfile::tempdir().unwrap();
    let out = run(
        "devices",
        &state,
        &[
            ("GPUDOUBLE_DEVICES", "3"),
            ("CUDA_VISIBLE_DEVICES", "2"),
            ("GPUDOUBLE_DRIVER_STRING", "555.42.06"),
            ("GPUDOUBLE_DRIVER_VERSION", "12050"),
            ("GPUDOUBLE_TOTAL_MIB", "2048"),
        ],
    );
    assert_eq!(out.get("count"), "3");
    for i in 0..3 {
        assert_eq!(out.get(&format!("uuid{i}")), identity::uuid_string(i));
    }
}

fn devices() {
    assert_eq!(unsafe { nvmlInit_v2() }, 0);
    let mut n: c_uint = 0;
    assert_eq!(unsafe { nvmlDeviceGetCount_v2(&mut n) }, 0);
    emit("count", n);
    let mut buf = [0 as c_char; 96];
    for i in 0..n {
        let dev = handle(i);
        let mut index = 99;
        assert_eq!(unsafe { nvmlDeviceGetIndex(dev, &mut index) }, 0);
        assert_eq!(index, i);
        assert_eq!(unsafe { nvmlDeviceGetUUID(dev, buf.as_mut_ptr(), 96) }, 0);
        emit(&format!("uuid{i}"), text(buf.as_ptr()));
        assert_eq!(unsafe { nvmlDeviceGetName(dev, buf.as_mut_ptr(), 96) }, 0);
        assert_eq!(text(buf.as_ptr()), gpudouble_state::config::DEFAULT_NAME);
        let mem = memory_v2(dev);
        assert_eq!((mem.total, mem.used, mem.free), (2048 * MIB, 0, 2048 * MIB));
        let mut v1 = NvmlMemory::default();
        assert_eq!(unsafe { nvmlDeviceGetMemoryInfo(dev, &mut v1) }, 0);
        assert_eq!(v1.total, 2048 * MIB);
        assert!(processes(dev).is_empty());
    }
    let mut dev = null_mut();
    assert_eq!(unsafe { nvmlDeviceGetHandleByIndex_v2(n, &mut dev) }, 2);
    let mut index = 0;
    assert_eq!(
        unsafe { nvmlDeviceGetIndex(0x1234 as nvmlDevice_t, &mut index) },
        2
    );
    // Short buffers: NVML_ERROR_INSUFFICIENT_SIZE (40 chars + NUL for a UUID).
    assert_eq!(
        unsafe { nvmlDeviceGetUUID(handle(0), buf.as_mut_ptr(), 40) },
        7
    );
    assert_eq!(
        unsafe { nvmlDeviceGetUUID(handle(0), buf.as_mut_ptr(), 41) },
        0
    );
    assert_eq!(
        unsafe { nvmlDeviceGetName(handle(0), buf.as_mut_ptr(), 4) },
        7
    );
    assert_eq!(
        unsafe { nvmlSystemGetDriverVersion(buf.as_mut_ptr(), 80) },
        0
    );
    assert_eq!(text(buf.as_ptr()), "555.42.06");
    assert_eq!(
        unsafe { nvmlSystemGetDriverVersion(buf.as_mut_ptr(), 9) },
        7
    );
    let (mut v, mut v2) = (0, 0);
    assert_eq!(unsafe { nvmlSystemGetCudaDriverVersion(&mut v) }, 0);
    assert_eq!(unsafe { nvmlSystemGetCudaDriverVersion_v2(&mut v2) }, 0);
    assert_eq!((v, v2), (12050, 12050));
    // A v2 struct without the right version is rejected.
    let mut mem = NvmlMemoryV2::default();
    assert_eq!(
        unsafe { nvmlDeviceGetMemoryInfo_v2(handle(0), &mut mem) },
        2
    );
    let mut count: c_uint = 0;
    assert_eq!(
        unsafe { nvmlDeviceGetComputeRunningProcesses_v3(handle(0), null_mut(), null_mut()) },
        2
    );
    assert_eq!(
        unsafe { nvmlDeviceGetComputeRunningProcesses_v3(handle(0), &mut count, null_mut()) },
        0
    );
}

#[test]
fn sees_what_the_cuda_double_charges_per_pid() {
    let state = tempfile::tempdir().unwrap();
    // This test process is live and holds 50 MiB on physical 1; a reaped child's file is stale.
    layout::write_usage(state.path(), 1, pids::current(), 50 * MIB).unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id() as i32;
    child.wait().unwrap();
    layout::write_usage(state.path(), 1, dead, 700 * MIB).unwrap();
    let libcuda = testkit::built_library("gpudouble_cuda");
    run(
        "with_cuda",
        &state,
        &[
            ("GPUDOUBLE_LIBCUDA", libcuda.to_str().unwrap()),
            ("GPUDOUBLE_DEVICES", "2"),
            ("CUDA_VISIBLE_DEVICES", "1"),
            ("GPUDOUBLE_TOTAL_MIB", "1000"),
            ("GPUDOUBLE_CONTEXT_MIB", "300"),
            ("PARENT_PID", &pids::current().to_string()),
        ],
    );
}

fn with_cuda() {
    let parent: u32 = std::env::var("PARENT_PID").unwrap().parse().unwrap();
    let me = pids::current() as u32;
    assert_eq!(unsafe { nvmlInit_v2() }, 0);
    let (dev0, dev1) = (handle(0), handle(1));

    // Before CUDA: only the live parent's 50 MiB; the dead pid's file is ignored.
    let before = processes(dev1);
    assert_eq!(before.len(), 1);
    assert_eq!(
        (before[0].pid, before[0].used_gpu_memory),
        (parent, 50 * MIB)
    );
    assert_eq!(memory_v2(dev1).used, 50 * MIB);

    // CUDA ordinal 0 is physical device 1 (CUDA_VISIBLE_DEVICES=1); NVML does not renumber.
    let cuda = CudaClient::open(&std::env::var("GPUDOUBLE_LIBCUDA").unwrap()).unwrap();
    let mut ctx = null_mut();
    let mut dptr = 0;
    unsafe {
        assert_eq!((cuda.init)(0), 0);
        assert_eq!((cuda.primary_ctx_retain)(&mut ctx, 0), 0);
        assert_eq!((cuda.ctx_set_current)(ctx), 0);
        assert_eq!((cuda.mem_alloc)(&mut dptr, 100 * MIB as usize), 0);
    }
    assert!(processes(dev0).is_empty());
    let procs = processes(dev1);
    let mine = procs.iter().find(|p| p.pid == me).expect("our pid listed");
    assert_eq!(mine.used_gpu_memory, 400 * MIB, "context + allocation");
    assert_eq!(
        (mine.gpu_instance_id, mine.compute_instance_id),
        (NVML_INVALID_ID, NVML_INVALID_ID)
    );
    assert_eq!(procs.len(), 2);
    assert!(procs[0].pid < procs[1].pid, "sorted by pid");
    let mem = memory_v2(dev1);
    assert_eq!(
        (mem.used, mem.free, mem.reserved),
        (450 * MIB, 550 * MIB, 0)
    );
    assert_eq!(mem.version, NVML_MEMORY_V2);

    // Buffer too small: INSUFFICIENT_SIZE and the needed count.
    let mut buf = [NvmlProcessInfo::default(); 1];
    let mut cap: c_uint = 1;
    assert_eq!(
        unsafe { nvmlDeviceGetComputeRunningProcesses_v3(dev1, &mut cap, buf.as_mut_ptr()) },
        NVML_ERROR_INSUFFICIENT_SIZE
    );
    assert_eq!(cap, 2);
    let mut cap: c_uint = 0;
    assert_eq!(
        unsafe { nvmlDeviceGetComputeRunningProcesses_v3(dev1, &mut cap, null_mut()) },
        NVML_ERROR_INSUFFICIENT_SIZE
    );
    assert_eq!(cap, 2);

    // Released: the pid disappears.
    unsafe {
        assert_eq!((cuda.primary_ctx_release)(0), 0);
    }
    let after = processes(dev1);
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].pid, parent);
    assert_eq!(unsafe { nvmlShutdown() }, 0);
}

#[test]
fn failure_injection() {
    let state = tempfile::tempdir().unwrap();
    run(
        "inject",
        &state,
        &[("GPUDOUBLE_FAIL", "nvmlInit_v2=9,nvmlDeviceGetCount_v2=42")],
    );
}

fn injection() {
    assert_eq!(unsafe { nvmlInit_v2() }, 9);
    let mut n: c_uint = 0;
    assert_eq!(
        unsafe { nvmlDeviceGetCount_v2(&mut n) },
        999,
        "42 is not a code"
    );
    assert_eq!(
        unsafe { nvmlInitWithFlags(0) },
        0,
        "only the named symbol fails"
    );
    let mut dev = null_mut();
    assert_eq!(unsafe { nvmlDeviceGetHandleByIndex_v2(0, &mut dev) }, 0);
}
