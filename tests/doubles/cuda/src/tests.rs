//! Tests of the libcuda double against the documented behaviour. The driver state is
//! process-wide, so each scenario runs as a role in a fresh process (see gpudouble_state's
//! testkit); fork scenarios fork inside that process.

use std::ffi::{c_char, c_int, CStr};
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use gpudouble_state::testkit::{self, emit, RoleOutput};
use gpudouble_state::{identity, layout, pids};

use crate::*;

const ENTRY: &str = "tests::role_entry";
const MIB: usize = 1024 * 1024;

/// The dispatcher: does nothing in a normal run, runs one role in a child process.
#[test]
fn role_entry() {
    let Some(role) = testkit::role() else {
        return;
    };
    match role.as_str() {
        "before_init" => before_init(),
        "fork" => fork_semantics(),
        "hang" => hang_after_fork(),
        "visible" => visible_devices(),
        "no_devices" => no_devices(),
        "contexts_memory" => contexts_and_memory(),
        "other_processes" => other_processes(),
        "events" => event_timing(),
        "inject" => failure_injection(),
        other => panic!("unknown role {other}"),
    }
}

fn run(role: &str, state: &tempfile::TempDir, envs: &[(&str, &str)]) -> RoleOutput {
    testkit::run_ok(ENTRY, role, state.path(), envs)
}

fn text(p: *const c_char) -> String {
    assert!(!p.is_null());
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn error_string(code: CUresult) -> String {
    let mut p = std::ptr::null();
    assert_eq!(unsafe { cuGetErrorString(code, &mut p) }, 0);
    text(p)
}

fn count() -> (CUresult, c_int) {
    let mut n = -1;
    let rc = unsafe { cuDeviceGetCount(&mut n) };
    (rc, n)
}

fn retain(ordinal: c_int) -> CUcontext {
    let mut ctx = null_mut();
    assert_eq!(unsafe { cuDevicePrimaryCtxRetain(&mut ctx, ordinal) }, 0);
    assert!(!ctx.is_null());
    ctx
}

fn current_device() -> (CUresult, c_int) {
    let mut d = -1;
    let rc = unsafe { cuCtxGetDevice(&mut d) };
    (rc, d)
}

fn state_dir() -> std::path::PathBuf {
    std::env::var("GPUDOUBLE_STATE").unwrap().into()
}

fn my_usage(physical: u32) -> Option<u64> {
    layout::all_usage(&state_dir(), physical)
        .into_iter()
        .find(|&(pid, _)| pid == pids::current())
        .map(|(_, b)| b)
}

/// Forks; the child runs `f` and leaves through _exit with 0 when it returns Ok, 1 otherwise,
/// so it never returns into the test harness.
fn fork_child(f: impl FnOnce() -> Result<(), String>) -> libc::pid_t {
    match unsafe { libc::fork() } {
        0 => {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            let code = match result {
                Ok(Ok(())) => 0,
                Ok(Err(msg)) => {
                    eprintln!("child: {msg}");
                    1
                }
                Err(_) => 2,
            };
            unsafe { libc::_exit(code) }
        }
        pid => {
            assert!(pid > 0, "fork failed");
            pid
        }
    }
}

/// Exit status of `pid`, or None if it is still running after `limit`.
fn wait_child(pid: libc::pid_t, limit: Duration) -> Option<c_int> {
    let deadline = Instant::now() + limit;
    loop {
        let mut status = 0;
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            return Some(if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                -1
            });
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn expect(what: &str, got: CUresult, want: CUresult) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, want {want}"))
    }
}

// ---- in-process tests: they touch no driver state ----

#[test]
fn error_names_and_texts() {
    let cases: [(CUresult, &str, &str); 10] = [
        (0, "CUDA_SUCCESS", "no error"),
        (1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"),
        (2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"),
        (3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"),
        (
            100,
            "CUDA_ERROR_NO_DEVICE",
            "no CUDA-capable device is detected",
        ),
        (101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"),
        (201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"),
        (400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"),
        (600, "CUDA_ERROR_NOT_READY", "device not ready"),
        (999, "CUDA_ERROR_UNKNOWN", "unknown error"),
    ];
    for (code, name, description) in cases {
        let mut p = std::ptr::null();
        assert_eq!(unsafe { cuGetErrorName(code, &mut p) }, 0);
        assert_eq!(text(p), name);
        assert_eq!(error_string(code), description);
    }
    // cuda.h: an unrecognised code gives CUDA_ERROR_INVALID_VALUE and *pStr = NULL.
    let mut p: *const c_char = c"sentinel".as_ptr();
    assert_eq!(unsafe { cuGetErrorString(12345, &mut p) }, 1);
    assert!(p.is_null());
    assert_eq!(unsafe { cuGetErrorName(12345, null_mut()) }, 1);
    assert_eq!(text(gpudouble_marker()), "gpulint test double");
}

// ---- role tests ----

#[test]
fn calls_before_cuinit_return_not_initialized() {
    let state = tempfile::tempdir().unwrap();
    let out = run(
        "before_init",
        &state,
        &[("GPUDOUBLE_DRIVER_VERSION", "12040")],
    );
    assert_eq!(out.get("version"), "12040");
}

fn before_init() {
    assert_eq!(count().0, 3);
    assert_eq!(current_device().0, 3);
    let mut ctx = null_mut();
    assert_eq!(unsafe { cuDevicePrimaryCtxRetain(&mut ctx, 0) }, 3);
    let mut dptr = 0;
    assert_eq!(unsafe { cuMemAlloc_v2(&mut dptr, 16) }, 3);
    // These work without cuInit.
    let mut version = 0;
    assert_eq!(unsafe { cuDriverGetVersion(&mut version) }, 0);
    emit("version", version);
    assert_eq!(error_string(3), "initialization error");
    assert_eq!(unsafe { cuInit(1) }, 1, "flags must be 0");
    assert_eq!(unsafe { cuInit(0) }, 0);
    assert_eq!(count(), (0, 1));
}

#[test]
fn forked_child_of_initialised_process_gets_not_initialized() {
    let state = tempfile::tempdir().unwrap();
    run("fork", &state, &[("GPUDOUBLE_DEVICES", "2")]);
}

fn fork_semantics() {
    // Forked before any cuInit: the child initialises on its own and works.
    let early = fork_child(|| {
        expect("cuInit in early child", unsafe { cuInit(0) }, 0)?;
        let (rc, n) = count();
        expect("count in early child", rc, 0)?;
        if n != 2 {
            return Err(format!("count {n}"));
        }
        let mut ctx = null_mut();
        expect(
            "retain",
            unsafe { cuDevicePrimaryCtxRetain(&mut ctx, 1) },
            0,
        )
    });
    assert_eq!(wait_child(early, Duration::from_secs(10)), Some(0));

    assert_eq!(unsafe { cuInit(0) }, 0);
    let ctx = retain(0);
    assert_eq!(unsafe { cuCtxSetCurrent(ctx) }, 0);
    let late = fork_child(|| {
        // Every call, cuInit included, returns 3 at once.
        expect("cuInit in forked child", unsafe { cuInit(0) }, 3)?;
        expect("count in forked child", count().0, 3)?;
        expect("ctx device in forked child", current_device().0, 3)?;
        let mut c = null_mut();
        expect(
            "retain in forked child",
            unsafe { cuDevicePrimaryCtxRetain(&mut c, 0) },
            3,
        )?;
        let mut dptr = 0;
        expect(
            "alloc in forked child",
            unsafe { cuMemAlloc_v2(&mut dptr, 16) },
            3,
        )?;
        // The error text still resolves, so a program can say what happened.
        if error_string(3) != "initialization error" {
            return Err("error text".into());
        }
        Ok(())
    });
    assert_eq!(wait_child(late, Duration::from_secs(10)), Some(0));
    // The parent is unaffected.
    assert_eq!(count(), (0, 2));
    assert_eq!(current_device(), (0, 0));
}

#[test]
fn hang_after_fork_blocks_instead_of_returning() {
    let state = tempfile::tempdir().unwrap();
    let out = run("hang", &state, &[("GPUDOUBLE_HANG_AFTER_FORK", "1")]);
    assert_eq!(out.get("child_returned"), "false");
}

fn hang_after_fork() {
    assert_eq!(unsafe { cuInit(0) }, 0);
    let child = fork_child(|| {
        count();
        Ok(())
    });
    let status = wait_child(child, Duration::from_millis(300));
    if status.is_none() {
        unsafe { libc::kill(child, libc::SIGKILL) };
        wait_child(child, Duration::from_secs(5));
    }
    emit("child_returned", status.is_some());
    // The initialising process itself is not affected.
    assert_eq!(count(), (0, 1));
}

#[test]
fn cuda_visible_devices_renumbers_ordinals() {
    let state = tempfile::tempdir().unwrap();
    let uuid1 = identity::uuid_string(1);
    let cvd = format!("2,{uuid1},9,3");
    let out = run(
        "visible",
        &state,
        &[("GPUDOUBLE_DEVICES", "4"), ("CUDA_VISIBLE_DEVICES", &cvd)],
    );
    assert_eq!(out.get("count"), "2");
    assert_eq!(out.get("uuid0"), identity::uuid_string(2));
    assert_eq!(out.get("uuid1"), uuid1);
}

fn visible_devices() {
    assert_eq!(unsafe { cuInit(0) }, 0);
    let (rc, n) = count();
    assert_eq!(rc, 0);
    emit("count", n);
    for ordinal in 0..n {
        let mut dev = -1;
        assert_eq!(unsafe { cuDeviceGet(&mut dev, ordinal) }, 0);
        let mut uuid = CUuuid::default();
        assert_eq!(unsafe { cuDeviceGetUuid_v2(&mut uuid, dev) }, 0);
        let mut v1 = CUuuid::default();
        assert_eq!(unsafe { cuDeviceGetUuid(&mut v1, dev) }, 0);
        assert_eq!(uuid, v1);
        emit(
            &format!("uuid{ordinal}"),
            identity::format_uuid(&uuid.bytes.map(|b| b as u8)),
        );
    }
    let mut dev = -1;
    assert_eq!(unsafe { cuDeviceGet(&mut dev, n) }, 101);
    let mut ctx = null_mut();
    assert_eq!(unsafe { cuDevicePrimaryCtxRetain(&mut ctx, n) }, 101);
}

#[test]
fn no_devices_gives_no_device() {
    let state = tempfile::tempdir().unwrap();
    run("no_devices", &state, &[("GPUDOUBLE_DEVICES", "0")]);
    run(
        "no_devices",
        &state,
        &[("GPUDOUBLE_DEVICES", "2"), ("CUDA_VISIBLE_DEVICES", "")],
    );
}

fn no_devices() {
    assert_eq!(unsafe { cuInit(0) }, 100);
    assert_eq!(
        count().0,
        3,
        "a failed cuInit leaves the driver uninitialised"
    );
    assert_eq!(unsafe { cuInit(0) }, 100);
}

#[test]
fn contexts_charge_memory_per_pid() {
    let state = tempfile::tempdir().unwrap();
    run(
        "contexts_memory",
        &state,
        &[
            ("GPUDOUBLE_DEVICES", "2"),
            ("GPUDOUBLE_TOTAL_MIB", "1024"),
            ("GPUDOUBLE_CONTEXT_MIB", "100"),
            ("GPUDOUBLE_CONTEXT_MS", "150"),
            ("GPUDOUBLE_NAME", "Test GPU"),
        ],
    );
}

fn contexts_and_memory() {
    assert_eq!(unsafe { cuInit(0) }, 0);
    let mut name = [0 as c_char; 64];
    assert_eq!(unsafe { cuDeviceGetName(name.as_mut_ptr(), 64, 0) }, 0);
    assert_eq!(text(name.as_ptr()), "Test GPU");
    assert_eq!(unsafe { cuDeviceGetName(name.as_mut_ptr(), 5, 0) }, 0);
    assert_eq!(text(name.as_ptr()), "Test", "truncated and NUL-terminated");
    let mut total = 0;
    assert_eq!(unsafe { cuDeviceTotalMem_v2(&mut total, 1) }, 0);
    assert_eq!(total, 1024 * MIB);

    // No current context yet.
    assert_eq!(current_device().0, 201);
    let mut dptr = 0;
    assert_eq!(unsafe { cuMemAlloc_v2(&mut dptr, 16) }, 201);
    let mut cur = 1 as CUcontext;
    assert_eq!(unsafe { cuCtxGetCurrent(&mut cur) }, 0);
    assert!(cur.is_null());

    // The first retain charges the context to this pid on the device and takes
    // GPUDOUBLE_CONTEXT_MS; handles are stable, and a second retain is free.
    let t0 = std::time::Instant::now();
    let ctx = retain(1);
    assert!(t0.elapsed() >= std::time::Duration::from_millis(150));
    assert_eq!(my_usage(1), Some(100 * MIB as u64));
    assert_eq!(my_usage(0), None);
    let t1 = std::time::Instant::now();
    assert_eq!(retain(1), ctx);
    assert!(t1.elapsed() < std::time::Duration::from_millis(150));
    assert_eq!(
        my_usage(1),
        Some(100 * MIB as u64),
        "charged once per process"
    );
    assert_eq!(unsafe { cuCtxSetCurrent(ctx) }, 0);
    assert_eq!(current_device(), (0, 1));
    assert_eq!(unsafe { cuCtxGetCurrent(&mut cur) }, 0);
    assert_eq!(cur, ctx);
    assert_eq!(unsafe { cuCtxSynchronize() }, 0);
    // The current context is per thread.
    let other = std::thread::spawn(|| current_device().0).join().unwrap();
    assert_eq!(other, 201);

    let (mut free, mut total) = (0, 0);
    assert_eq!(unsafe { cuMemGetInfo_v2(&mut free, &mut total) }, 0);
    assert_eq!((free, total), (924 * MIB, 1024 * MIB));

    // Allocations are charged, zeroed, and usable with memset and memcpy.
    assert_eq!(unsafe { cuMemAlloc_v2(&mut dptr, 64 * MIB) }, 0);
    assert_eq!(my_usage(1), Some(164 * MIB as u64));
    let mut host = [7u8; 8];
    assert_eq!(
        unsafe { cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), dptr, 8) },
        0
    );
    assert_eq!(host, [0; 8]);
    assert_eq!(unsafe { cuMemsetD8_v2(dptr + 2, 0xab, 3) }, 0);
    assert_eq!(
        unsafe { cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), dptr, 8) },
        0
    );
    assert_eq!(host, [0, 0, 0xab, 0xab, 0xab, 0, 0, 0]);
    let data = [1u8, 2, 3, 4];
    let end = dptr + 64 * MIB as u64 - 4;
    assert_eq!(unsafe { cuMemcpyHtoD_v2(end, data.as_ptr().cast(), 4) }, 0);
    assert_eq!(
        unsafe { cuMemcpyDtoH_v2(host.as_mut_ptr().cast(), end, 4) },
        0
    );
    assert_eq!(host[..4], data);
    assert_eq!(
        unsafe { cuMemcpyHtoD_v2(end, data.as_ptr().cast(), 5) },
        1,
        "past the end"
    );
    assert_eq!(unsafe { cuMemsetD8_v2(12345, 0, 1) }, 1);

    // More than is left: out of memory, nothing charged.
    let mut big = 0;
    assert_eq!(unsafe { cuMemAlloc_v2(&mut big, 900 * MIB) }, 2);
    assert_eq!(unsafe { cuMemAlloc_v2(&mut big, 0) }, 1);
    assert_eq!(my_usage(1), Some(164 * MIB as u64));

    assert_eq!(unsafe { cuMemFree_v2(dptr) }, 0);
    assert_eq!(my_usage(1), Some(100 * MIB as u64));
    assert_eq!(unsafe { cuMemFree_v2(dptr) }, 1);

    // Released to zero references: the context is gone and so is the charge.
    assert_eq!(unsafe { cuMemAlloc_v2(&mut dptr, MIB) }, 0);
    assert_eq!(unsafe { cuDevicePrimaryCtxRelease_v2(1) }, 0);
    assert_eq!(my_usage(1), Some(101 * MIB as u64));
    assert_eq!(unsafe { cuDevicePrimaryCtxRelease_v2(1) }, 0);
    assert_eq!(my_usage(1), None);
    assert!(!layout::mem_file(&state_dir(), 1, pids::current()).exists());
    assert_eq!(current_device().0, 201, "destroyed context");
    assert_eq!(unsafe { cuDevicePrimaryCtxRelease_v2(1) }, 201);
    assert_eq!(unsafe { cuCtxSetCurrent(ctx) }, 201);
    assert_eq!(unsafe { cuCtxSetCurrent(null_mut()) }, 0);
}

#[test]
fn memory_of_other_live_processes_counts() {
    let state = tempfile::tempdir().unwrap();
    // A live process (this test) holds 900 MiB; a dead one's 1000 MiB is stale.
    layout::write_usage(state.path(), 0, pids::current(), 900 * MIB as u64).unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id() as i32;
    child.wait().unwrap();
    layout::write_usage(state.path(), 0, dead, 1000 * MIB as u64).unwrap();
    run(
        "other_processes",
        &state,
        &[
            ("GPUDOUBLE_TOTAL_MIB", "1024"),
            ("GPUDOUBLE_CONTEXT_MIB", "100"),
        ],
    );
    // cuInit removed the dead pid's file; ours is untouched. (The role's own file stays: it
    // exited holding memory, which is what a dead pid's stale file looks like.)
    let left = layout::all_usage(state.path(), 0);
    assert!(left.contains(&(pids::current(), 900 * MIB as u64)));
    assert!(left.iter().all(|&(pid, _)| pid != dead), "{left:?}");
    assert_eq!(
        layout::live_usage(state.path(), 0),
        vec![(pids::current(), 900 * MIB as u64)]
    );
}

fn other_processes() {
    assert_eq!(unsafe { cuInit(0) }, 0);
    let ctx = retain(0);
    assert_eq!(unsafe { cuCtxSetCurrent(ctx) }, 0);
    let (mut free, mut total) = (0, 0);
    assert_eq!(unsafe { cuMemGetInfo_v2(&mut free, &mut total) }, 0);
    assert_eq!(free, 24 * MIB);
    let mut dptr = 0;
    assert_eq!(unsafe { cuMemAlloc_v2(&mut dptr, 25 * MIB) }, 2);
    assert_eq!(unsafe { cuMemAlloc_v2(&mut dptr, 24 * MIB) }, 0);
    let mut ctx2 = null_mut();
    assert_eq!(
        unsafe { cuDevicePrimaryCtxRetain(&mut ctx2, 0) },
        0,
        "same context"
    );
}

#[test]
fn events_time_and_disable_timing() {
    let state = tempfile::tempdir().unwrap();
    let out = run("events", &state, &[]);
    let ms: f32 = out.get("elapsed_ms").parse().unwrap();
    assert!((15.0..5000.0).contains(&ms), "{ms}");
}

fn event_timing() {
    assert_eq!(unsafe { cuInit(0) }, 0);
    let mut ev = null_mut();
    assert_eq!(
        unsafe { cuEventCreate(&mut ev, CU_EVENT_DEFAULT) },
        201,
        "needs a context"
    );
    assert_eq!(unsafe { cuCtxSetCurrent(retain(0)) }, 0);
    let (mut start, mut end, mut untimed) = (null_mut(), null_mut(), null_mut());
    assert_eq!(unsafe { cuEventCreate(&mut start, CU_EVENT_DEFAULT) }, 0);
    assert_eq!(
        unsafe { cuEventCreate(&mut end, CU_EVENT_BLOCKING_SYNC) },
        0
    );
    // cudarc's new_event(None) passes CU_EVENT_DISABLE_TIMING.
    assert_eq!(
        unsafe { cuEventCreate(&mut untimed, CU_EVENT_DISABLE_TIMING) },
        0
    );
    assert_ne!(start, end);
    let mut ms = 0f32;
    assert_eq!(
        unsafe { cuEventElapsedTime(&mut ms, start, end) },
        400,
        "not recorded"
    );
    assert_eq!(unsafe { cuEventRecord(start, null_mut()) }, 0);
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(unsafe { cuEventRecord(end, null_mut()) }, 0);
    assert_eq!(unsafe { cuEventSynchronize(end) }, 0);
    assert_eq!(unsafe { cuEventQuery(end) }, 0);
    assert_eq!(unsafe { cuEventElapsedTime(&mut ms, start, end) }, 0);
    emit("elapsed_ms", ms);
    assert_eq!(unsafe { cuEventElapsedTime(&mut ms, end, start) }, 0);
    assert!(ms < 0.0, "reversed order is negative");

    assert_eq!(unsafe { cuEventRecord(untimed, null_mut()) }, 0);
    assert_eq!(unsafe { cuEventElapsedTime(&mut ms, start, untimed) }, 400);
    assert_eq!(unsafe { cuEventElapsedTime(&mut ms, untimed, end) }, 400);

    assert_eq!(unsafe { cuEventCreate(&mut ev, CU_EVENT_INTERPROCESS) }, 1);
    assert_eq!(unsafe { cuEventCreate(&mut ev, 0x100) }, 1);
    assert_eq!(unsafe { cuEventDestroy_v2(untimed) }, 0);
    assert_eq!(unsafe { cuEventDestroy_v2(untimed) }, 400);
    assert_eq!(unsafe { cuEventRecord(untimed, null_mut()) }, 400);
    assert_eq!(unsafe { cuEventRecord(0x1234 as CUevent, null_mut()) }, 400);
}

#[test]
fn failure_injection_returns_the_code_and_does_nothing() {
    let state = tempfile::tempdir().unwrap();
    run(
        "inject",
        &state,
        &[(
            "GPUDOUBLE_FAIL",
            "cuMemAlloc_v2=2,cuCtxSynchronize=999,cuDeviceGetName=77,cuDriverGetVersion=3",
        )],
    );
}

fn failure_injection() {
    let mut v = 0;
    assert_eq!(unsafe { cuDriverGetVersion(&mut v) }, 3);
    assert_eq!(v, 0, "nothing written");
    assert_eq!(unsafe { cuInit(0) }, 0);
    assert_eq!(unsafe { cuCtxSetCurrent(retain(0)) }, 0);
    let before = my_usage(0);
    let mut dptr = 0;
    assert_eq!(unsafe { cuMemAlloc_v2(&mut dptr, 1024) }, 2);
    assert_eq!(dptr, 0);
    assert_eq!(my_usage(0), before, "nothing charged");
    assert_eq!(unsafe { cuCtxSynchronize() }, 999);
    let mut name = [0 as c_char; 8];
    // 77 is not a CUresult the double may return: it becomes CUDA_ERROR_UNKNOWN.
    assert_eq!(unsafe { cuDeviceGetName(name.as_mut_ptr(), 8, 0) }, 999);
    assert_eq!(count(), (0, 1));
}
