//! Tests of the NCCL double. Each rank is its own process (a role of this test binary) that
//! drives the built libgpudouble_cuda.so through dlopen, as a program would, and calls the NCCL
//! functions directly.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::Path;
use std::ptr::null_mut;
use std::time::Duration;

use gpudouble_state::cuda_client::CudaClient;
use gpudouble_state::testkit::{self, emit, RoleOutput};
use gpudouble_state::{layout, pids};

use crate::*;

const ENTRY: &str = "tests::role_entry";
const MULTI_RANK_TEXT: &str = "Multiple Ranks are using the same GPU/Partition. \
                               Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.";

#[test]
fn role_entry() {
    let Some(role) = testkit::role() else {
        return;
    };
    match role.as_str() {
        "rank" => rank(),
        "unique_id" => unique_id(),
        "invalid" => invalid_arguments(),
        "forked" => forked_child(),
        "inject" => injection(),
        other => panic!("unknown role {other}"),
    }
}

fn text(p: *const c_char) -> String {
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn id_for(dir: &Path) -> NcclUniqueId {
    let mut internal = [0 as c_char; 128];
    for (slot, b) in internal.iter_mut().zip(dir.to_str().unwrap().bytes()) {
        *slot = b as c_char;
    }
    NcclUniqueId { internal }
}

fn env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

fn cuda() -> &'static CudaClient {
    CudaClient::shared().expect("libcuda double")
}

/// Base environment of a role: its own state folder and the built libcuda double.
fn base_env(state: &Path, extra: &[(&str, &str)]) -> Vec<(&'static str, String)> {
    let libcuda = testkit::built_library("gpudouble_cuda");
    let mut all: Vec<(&'static str, String)> = vec![
        ("GPUDOUBLE_STATE", state.display().to_string()),
        ("GPUDOUBLE_LIBCUDA", libcuda.display().to_string()),
    ];
    for (k, v) in extra {
        let k: &'static str = Box::leak(k.to_string().into_boxed_str());
        all.push((k, v.to_string()));
    }
    all
}

/// Starts one process per rank (each with its own extra variables) on a fresh rendezvous
/// folder and collects them.
fn ranks(common: &[(&str, &str)], per_rank: &[&[(&str, &str)]]) -> Vec<RoleOutput> {
    let state = tempfile::tempdir().unwrap();
    let dir = layout::nccl_dir(state.path()).join("test");
    std::fs::create_dir_all(&dir).unwrap();
    let n = per_rank.len().to_string();
    let children: Vec<_> = per_rank
        .iter()
        .enumerate()
        .map(|(r, extra)| {
            let r = r.to_string();
            let dir = dir.display().to_string();
            let mut vars: Vec<(&str, &str)> = vec![("RANK", &r), ("NRANKS", &n), ("ID_DIR", &dir)];
            vars.extend_from_slice(common);
            vars.extend_from_slice(extra);
            testkit::spawn_role(ENTRY, "rank", &base_env(state.path(), &vars))
        })
        .collect();
    children
        .into_iter()
        .map(|c| {
            let out = testkit::finish(c, Duration::from_secs(20));
            out.assert_ok();
            out
        })
        .collect()
}

/// One rank: optionally choose a device, init the communicator, report, optionally all-reduce.
fn rank() {
    let r: c_int = env("RANK").unwrap().parse().unwrap();
    let n: c_int = env("NRANKS").unwrap().parse().unwrap();
    let id = id_for(Path::new(&env("ID_DIR").unwrap()));
    let cuda = cuda();
    unsafe {
        assert_eq!((cuda.init)(0), 0);
        if let Some(d) = env("DEVICE") {
            let mut ctx = null_mut();
            assert_eq!((cuda.primary_ctx_retain)(&mut ctx, d.parse().unwrap()), 0);
            assert_eq!((cuda.ctx_set_current)(ctx), 0);
        }
    }
    let mut comm = null_mut();
    let rc = unsafe { ncclCommInitRank(&mut comm, n, id, r) };
    emit("rc", rc);
    emit("err", text(ncclGetLastError(comm)));
    if rc != 0 {
        assert!(comm.is_null());
        return;
    }
    let mut dev = -1;
    assert_eq!(unsafe { ncclCommCuDevice(comm, &mut dev) }, 0);
    emit("dev", dev);
    // Bound to the thread's current device (device 0 made current when none was).
    let mut current = -1;
    assert_eq!(unsafe { (cuda.ctx_get_device)(&mut current) }, 0);
    assert_eq!(current, dev);
    if env("ALLREDUCE").is_some() {
        all_reduce(comm, r);
    }
    assert_eq!(unsafe { ncclCommDestroy(comm) }, 0);
    assert_eq!(unsafe { ncclCommDestroy(comm) }, 4, "already destroyed");
}

/// Device buffer with `data`; returns its address.
fn upload<T: Copy>(data: &[T]) -> u64 {
    let bytes = std::mem::size_of_val(data);
    let mut dptr = 0;
    unsafe {
        assert_eq!((cuda().mem_alloc)(&mut dptr, bytes), 0);
        assert_eq!((cuda().memcpy_htod)(dptr, data.as_ptr().cast(), bytes), 0);
    }
    dptr
}

fn download<T: Copy + Default>(dptr: u64, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    let bytes = std::mem::size_of_val(out.as_slice());
    unsafe {
        assert_eq!(
            (cuda().memcpy_dtoh)(out.as_mut_ptr().cast(), dptr, bytes),
            0
        );
    }
    out
}

fn ptr(dptr: u64) -> *mut c_void {
    std::ptr::with_exposed_provenance_mut(dptr as usize)
}

fn all_reduce(comm: ncclComm_t, r: c_int) {
    let k = (r + 1) as f32;
    let send = upload(&[k, 10.0 * k, 0.5]);
    let recv = upload(&[0f32; 3]);
    let rc = unsafe {
        ncclAllReduce(
            ptr(send),
            ptr(recv),
            3,
            NCCL_FLOAT32,
            NCCL_SUM,
            comm,
            null_mut(),
        )
    };
    assert_eq!(rc, 0);
    emit("f32", format!("{:?}", download::<f32>(recv, 3)));
    // In place, a second collective on the same communicator.
    let f = upload(&[f64::from(r) + 0.25]);
    assert_eq!(
        unsafe { ncclAllReduce(ptr(f), ptr(f), 1, NCCL_FLOAT64, NCCL_SUM, comm, null_mut()) },
        0
    );
    emit("f64", format!("{:?}", download::<f64>(f, 1)));
    let i = upload(&[r * 100 - 7, 1]);
    assert_eq!(
        unsafe { ncclAllReduce(ptr(i), ptr(i), 2, NCCL_INT32, NCCL_SUM, comm, null_mut()) },
        0
    );
    emit("i32", format!("{:?}", download::<i32>(i, 2)));
    // Unsupported op or type: invalid argument, no collective issued.
    let bad_op =
        unsafe { ncclAllReduce(ptr(i), ptr(i), 2, NCCL_INT32, NCCL_PROD, comm, null_mut()) };
    let bad_type =
        unsafe { ncclAllReduce(ptr(i), ptr(i), 2, NCCL_FLOAT16, NCCL_SUM, comm, null_mut()) };
    assert_eq!((bad_op, bad_type), (4, 4));
}

#[test]
fn error_strings() {
    let cases = [
        (0, "no error"),
        (
            1,
            "unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        ),
        (
            2,
            "unhandled system error (run with NCCL_DEBUG=INFO for details)",
        ),
        (
            3,
            "internal error - please report this issue to the NCCL developers",
        ),
        (4, "invalid argument (run with NCCL_DEBUG=WARN for details)"),
        (5, "invalid usage (run with NCCL_DEBUG=WARN for details)"),
        (6, "remote process exited or there was a network error"),
        (7, "NCCL operation in progress"),
        (8, "unknown result code"),
    ];
    for (code, want) in cases {
        assert_eq!(text(ncclGetErrorString(code)), want);
    }
    assert_eq!(text(gpudouble_marker()), "gpulint test double");
}

#[test]
fn duplicate_gpu_before_2_30_names_the_ranks() {
    // Nobody chose a device: every rank lands on GPU 0 (physical 0, PCI bus 1 → busId 1000).
    let common = [
        ("GPUDOUBLE_NCCL_VERSION", "22105"),
        ("GPUDOUBLE_DEVICES", "2"),
    ];
    let out = ranks(&common, &[&[], &[]]);
    assert_eq!(out[0].get("rc"), "5");
    assert_eq!(out[1].get("rc"), "5");
    assert_eq!(
        out[0].get("err"),
        "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1000"
    );
    assert_eq!(
        out[1].get("err"),
        "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000"
    );
    // NCCL_MULTI_RANK_GPU_ENABLE does not exist before 2.30.
    let common = [
        ("GPUDOUBLE_NCCL_VERSION", "22905"),
        ("NCCL_MULTI_RANK_GPU_ENABLE", "1"),
    ];
    let out = ranks(&common, &[&[], &[]]);
    assert_eq!(out[0].get("rc"), "5");
}

#[test]
fn duplicate_gpu_from_2_30_unless_enabled() {
    let out = ranks(&[("GPUDOUBLE_NCCL_VERSION", "23000")], &[&[], &[]]);
    for o in &out {
        assert_eq!(o.get("rc"), "5");
        assert_eq!(o.get("err"), MULTI_RANK_TEXT);
    }
    let common = [
        ("GPUDOUBLE_NCCL_VERSION", "23000"),
        ("NCCL_MULTI_RANK_GPU_ENABLE", "1"),
    ];
    let out = ranks(&common, &[&[], &[]]);
    for o in &out {
        assert_eq!(o.get("rc"), "0");
        assert_eq!(o.get("dev"), "0");
    }
}

#[test]
fn distinct_devices_succeed_and_all_reduce_sums() {
    let common = [("GPUDOUBLE_DEVICES", "2"), ("ALLREDUCE", "1")];
    let out = ranks(&common, &[&[("DEVICE", "0")], &[("DEVICE", "1")]]);
    for (r, o) in out.iter().enumerate() {
        assert_eq!(o.get("rc"), "0");
        assert_eq!(o.get("err"), "", "no error yet");
        assert_eq!(o.get("dev"), r.to_string());
        assert_eq!(o.get("f32"), "[3.0, 30.0, 1.0]");
        assert_eq!(o.get("f64"), "[1.5]");
        assert_eq!(o.get("i32"), "[86, 2]");
    }
}

#[test]
fn devices_are_compared_by_uuid_across_cuda_visible_devices() {
    // Both ranks use ordinal 0, but of different physical GPUs.
    let out = ranks(
        &[("GPUDOUBLE_DEVICES", "2")],
        &[
            &[("CUDA_VISIBLE_DEVICES", "1")],
            &[("CUDA_VISIBLE_DEVICES", "0")],
        ],
    );
    assert_eq!((out[0].get("rc"), out[1].get("rc")), ("0", "0"));
    assert_eq!((out[0].get("dev"), out[1].get("dev")), ("0", "0"));
    // Different ordinals, same physical GPU 1 (PCI bus 2 → busId 2000).
    let out = ranks(
        &[("GPUDOUBLE_DEVICES", "2")],
        &[
            &[("CUDA_VISIBLE_DEVICES", "1")],
            &[("CUDA_VISIBLE_DEVICES", "0,1"), ("DEVICE", "1")],
        ],
    );
    assert_eq!(
        out[0].get("err"),
        "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000"
    );
    assert_eq!(out[1].get("rc"), "5");
}

#[test]
fn rank_not_sharing_a_gpu_fails_with_remote_error() {
    let common = [("GPUDOUBLE_DEVICES", "2")];
    let out = ranks(
        &common,
        &[&[("DEVICE", "0")], &[("DEVICE", "1")], &[("DEVICE", "1")]],
    );
    assert_eq!(out[0].get("rc"), "6");
    assert!(out[0]
        .get("err")
        .contains("rank 1 and rank 2 both on CUDA device 2000"));
    assert_eq!(
        out[2].get("err"),
        "Duplicate GPU detected : rank 2 and rank 1 both on CUDA device 2000"
    );
}

#[test]
fn unique_id_names_a_fresh_rendezvous_folder() {
    let state = tempfile::tempdir().unwrap();
    let out = testkit::run_role(ENTRY, "unique_id", &base_env(state.path(), &[]));
    out.assert_ok();
    let parent = layout::nccl_dir(state.path());
    for key in ["id1", "id2"] {
        let path = Path::new(out.get(key));
        assert!(path.is_absolute() && path.is_dir());
        assert_eq!(path.parent().unwrap(), parent);
    }
    assert_ne!(out.get("id1"), out.get("id2"));
    assert_eq!(out.get("version"), "22105");
}

fn unique_id() {
    for key in ["id1", "id2"] {
        let mut id = NcclUniqueId { internal: [1; 128] };
        assert_eq!(unsafe { ncclGetUniqueId(&mut id) }, 0);
        let bytes = id.internal.map(|b| b as u8);
        let path = CStr::from_bytes_until_nul(&bytes).expect("NUL-terminated");
        emit(key, path.to_str().unwrap());
    }
    assert_eq!(unsafe { ncclGetUniqueId(null_mut()) }, 4);
    let mut v = 0;
    assert_eq!(unsafe { ncclGetVersion(&mut v) }, 0);
    emit("version", v);
}

#[test]
fn invalid_arguments_are_rejected() {
    let state = tempfile::tempdir().unwrap();
    testkit::run_role(ENTRY, "invalid", &base_env(state.path(), &[])).assert_ok();
}

fn invalid_arguments() {
    assert_eq!(
        text(ncclGetLastError(null_mut())),
        "",
        "empty before any error"
    );
    let id = id_for(Path::new("/nonexistent/rendezvous"));
    let mut comm = 1 as ncclComm_t;
    assert_eq!(unsafe { ncclCommInitRank(&mut comm, 2, id, 2) }, 4);
    assert!(comm.is_null());
    assert_eq!(
        text(ncclGetLastError(null_mut())),
        "Invalid rank requested : 2/2"
    );
    assert_eq!(unsafe { ncclCommInitRank(&mut comm, 1, id, 0) }, 4);
    let mut dev = 0;
    assert_eq!(unsafe { ncclCommCuDevice(0x99 as ncclComm_t, &mut dev) }, 4);
    assert_eq!(unsafe { ncclCommAbort(null_mut()) }, 0, "NULL is accepted");
    assert_eq!(unsafe { ncclCommAbort(0x99 as ncclComm_t) }, 4);

    // A single rank with nobody choosing a device binds device 0.
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        unsafe { ncclCommInitRank(&mut comm, 1, id_for(dir.path()), 0) },
        0
    );
    assert_eq!(unsafe { ncclCommCuDevice(comm, &mut dev) }, 0);
    assert_eq!(dev, 0);
    let (mut count, mut rank) = (0, -1);
    assert_eq!(unsafe { ncclCommCount(comm, &mut count) }, 0);
    assert_eq!(unsafe { ncclCommUserRank(comm, &mut rank) }, 0);
    assert_eq!((count, rank), (1, 0));
    assert_eq!(unsafe { ncclCommAbort(comm) }, 0);
}

#[test]
fn forked_child_gets_unhandled_cuda_error() {
    let state = tempfile::tempdir().unwrap();
    let out = testkit::run_role(ENTRY, "forked", &base_env(state.path(), &[]));
    out.assert_ok();
    assert_eq!(out.get("child_exit"), "0");
}

fn forked_child() {
    assert_eq!(unsafe { (cuda().init)(0) }, 0);
    let dir = tempfile::tempdir().unwrap();
    let id = id_for(dir.path());
    match unsafe { libc::fork() } {
        0 => {
            // The driver was initialised by the parent: CUDA says 3, NCCL says 1.
            let mut comm = null_mut();
            let rc = unsafe { ncclCommInitRank(&mut comm, 1, id, 0) };
            let err = text(ncclGetLastError(null_mut()));
            let ok = rc == 1 && err == "Cuda failure 'initialization error'";
            if !ok {
                eprintln!("child: rc {rc} err {err:?}");
            }
            unsafe { libc::_exit(if ok { 0 } else { 1 }) }
        }
        child => {
            let mut status = 0;
            assert_eq!(unsafe { libc::waitpid(child, &mut status, 0) }, child);
            emit("child_exit", libc::WEXITSTATUS(status));
            assert_ne!(pids::current(), child);
        }
    }
}

#[test]
fn failure_injection() {
    let state = tempfile::tempdir().unwrap();
    let vars = [("GPUDOUBLE_FAIL", "ncclCommInitRank=2,ncclGetVersion=99")];
    testkit::run_role(ENTRY, "inject", &base_env(state.path(), &vars)).assert_ok();
}

fn injection() {
    let dir = tempfile::tempdir().unwrap();
    let mut comm = 7 as ncclComm_t;
    assert_eq!(
        unsafe { ncclCommInitRank(&mut comm, 1, id_for(dir.path()), 0) },
        2
    );
    assert_eq!(comm, 7 as ncclComm_t, "nothing done");
    let mut v = 0;
    assert_eq!(
        unsafe { ncclGetVersion(&mut v) },
        3,
        "99 is not an ncclResult_t"
    );
    let mut id = NcclUniqueId { internal: [0; 128] };
    assert_eq!(unsafe { ncclGetUniqueId(&mut id) }, 0);
}
