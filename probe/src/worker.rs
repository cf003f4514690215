//! The hidden worker mode (`gpulint probe-worker ROLE key=value...`): the processes each
//! reproduction starts. Every role reports through JSON lines on the pipe its stdout was when it
//! started (`proc::own_protocol_fd`).

use std::time::Duration;

use serde_json::json;

use crate::cu::{self, CuError};
use crate::nccl::Comm;
use crate::proc::{emit, hold, ms_since, now_ns, watch, ChildEnd};

const MIB: usize = 1 << 20;

struct Args(Vec<String>);

impl Args {
    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find_map(|a| a.strip_prefix(key)?.strip_prefix('='))
    }
    fn num(&self, key: &str, default: u64) -> u64 {
        self.get(key)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    }
    fn int(&self, key: &str, default: i32) -> i32 {
        self.get(key)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    }
}

fn error_json(e: &CuError) -> serde_json::Value {
    json!({"call": e.call, "code": e.code, "name": e.name, "text": e.text})
}

fn pid() -> u32 {
    std::process::id()
}

/// Runs one role; returns the process exit status.
pub fn main(argv: Vec<String>) -> i32 {
    let parent = std::env::var(crate::proc::PARENT_VAR)
        .ok()
        .and_then(|p| p.parse().ok());
    // SAFETY: reads our parent's pid.
    crate::proc::die_with_parent(parent.unwrap_or_else(|| unsafe { libc::getppid() }));
    crate::proc::own_protocol_fd();
    let Some((role, rest)) = argv.split_first() else {
        eprintln!("probe-worker: missing role");
        return 2;
    };
    let args = Args(rest.to_vec());
    let hold_ms = args.num("hold", 60_000);
    match role.as_str() {
        "alloc" => {
            first_alloc(args.int("device", 0), args.num("t0", now_ns()));
            hold(0, hold_ms);
            0
        }
        "forker" => forker(&args, hold_ms),
        "forkserver" => forkserver(hold_ms),
        "fork-after-init" => {
            let status = fork_after_init(&args);
            // Keep the context while the prober reads NVML.
            hold(0, hold_ms);
            status
        }
        "model" => model(&args, hold_ms),
        "nccl-rank" => nccl_rank(&args, hold_ms),
        "visible-devices" => visible_devices(&args),
        other => {
            eprintln!("probe-worker: unknown role {other}");
            2
        }
    }
}

/// A fresh worker's path to its first allocation: `cuInit`, the primary context of `device`, and
/// 1 MiB. Reports the milliseconds since `t0_ns`, the moment its parent asked for it.
fn first_alloc(device: i32, t0_ns: u64) {
    let r = (|| {
        cu::init()?;
        cu::use_device(cu::device(device)?)?;
        cu::alloc(MIB)
    })();
    match r {
        Ok(_) => {
            emit(&json!({"event": "ready", "pid": pid(), "device": device, "ms": ms_since(t0_ns)}))
        }
        Err(e) => emit(
            &json!({"event": "error", "pid": pid(), "device": device, "error": error_json(&e)}),
        ),
    }
}

/// Forks a worker that runs `first_alloc` and then holds until the returned pipe's write end is
/// closed. Only called in processes that never touched CUDA.
fn fork_worker(
    device: i32,
    t0_ns: u64,
    hold_ms: u64,
    others: &[(libc::pid_t, i32)],
) -> Option<(libc::pid_t, i32)> {
    let mut fds = [0; 2];
    // SAFETY: creates a pipe into a two-int array.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        emit(&crate::proc::lost(
            0,
            false,
            format!("pipe: {}", std::io::Error::last_os_error()),
        ));
        return None;
    }
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    // SAFETY: this process is single-threaded and has not initialised CUDA.
    match unsafe { libc::fork() } {
        0 => {
            // The death signal is not inherited across fork: ask again.
            crate::proc::die_with_parent(me);
            // Hold only our own pipe: an earlier worker's write end kept here would keep that
            // worker from seeing its release.
            for &(_, fd) in others {
                // SAFETY: fds inherited from the parent, not used by this child.
                unsafe { libc::close(fd) };
            }
            // SAFETY: closes our copy of the write end, so EOF comes when the parent closes its.
            unsafe { libc::close(fds[1]) };
            first_alloc(device, t0_ns);
            hold(fds[0], hold_ms);
            // SAFETY: leave without running the parent's exit handlers twice.
            unsafe { libc::_exit(0) }
        }
        -1 => {
            emit(&crate::proc::lost(
                0,
                false,
                format!("fork: {}", std::io::Error::last_os_error()),
            ));
            // SAFETY: both ends of the unused pipe.
            unsafe {
                libc::close(fds[0]);
                libc::close(fds[1]);
            }
            None
        }
        child => {
            // SAFETY: our copy of the read end.
            unsafe { libc::close(fds[0]) };
            Some((child, fds[1]))
        }
    }
}

/// Forks a worker per device at once, then serves until stdin closes or `hold_ms` passes:
/// `fork DEVICE T0` lines on stdin fork more (`requests`), and a worker that dies abnormally is
/// reported as lost, since the prober reads one line per worker from the pipe they share.
fn serve(devices: &[i32], requests: bool, hold_ms: u64) -> i32 {
    let mut ends: Vec<(libc::pid_t, i32)> = Vec::new();
    for &d in devices {
        let forked = fork_worker(d, now_ns(), hold_ms, &ends);
        ends.extend(forked);
    }
    let deadline = now_ns() + hold_ms * 1_000_000;
    let mut pending = Vec::new();
    while now_ns() < deadline {
        let mut pfd = libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd on the stack.
        let ready = unsafe { libc::poll(&mut pfd, 1, 20) };
        if ready > 0 {
            let mut buf = [0u8; 512];
            // SAFETY: reads into a stack buffer.
            let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            pending.extend_from_slice(&buf[..n as usize]);
            while let Some(i) = pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pending.drain(..=i).collect();
                let line = String::from_utf8_lossy(&line);
                let mut words = line.split_whitespace();
                if requests && words.next() == Some("fork") {
                    let device = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
                    let t0 = words
                        .next()
                        .and_then(|w| w.parse().ok())
                        .unwrap_or_else(now_ns);
                    let forked = fork_worker(device, t0, hold_ms, &ends);
                    ends.extend(forked);
                }
            }
        } else if ready < 0 {
            break;
        }
        report_dead(&mut ends);
    }
    for &(_, fd) in &ends {
        // SAFETY: write ends this process created.
        unsafe { libc::close(fd) };
    }
    // SAFETY: reaps every child of this process.
    while unsafe { libc::wait(std::ptr::null_mut()) } > 0 {}
    0
}

/// Reaps workers that ended; one killed by a signal or failing never said `ready`, so say why.
fn report_dead(ends: &mut Vec<(libc::pid_t, i32)>) {
    ends.retain(|&(child, fd)| {
        let mut status = 0;
        // SAFETY: polls one of our children.
        if unsafe { libc::waitpid(child, &mut status, libc::WNOHANG) } != child {
            return true;
        }
        let why = if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            Some(format!(
                "the worker died of signal {sig} ({})",
                crate::proc::signal_name(sig)
            ))
        } else if libc::WEXITSTATUS(status) != 0 {
            Some(format!(
                "the worker exited with status {}",
                libc::WEXITSTATUS(status)
            ))
        } else {
            None
        };
        if let Some(why) = why {
            emit(&crate::proc::lost(child as u32, false, why));
        }
        // SAFETY: the write end of a worker that is gone.
        unsafe { libc::close(fd) };
        false
    });
}

/// Fork before init: the parent, never having touched CUDA, forks its workers first.
fn forker(args: &Args, hold_ms: u64) -> i32 {
    let devices: Vec<i32> = args
        .get("devices")
        .unwrap_or("0")
        .split(',')
        .filter_map(|d| d.parse().ok())
        .collect();
    serve(&devices, false, hold_ms)
}

/// Forkserver: a clean helper that forks a worker for each `fork DEVICE T0` line on stdin.
fn forkserver(hold_ms: u64) -> i32 {
    emit(&json!({"event": "up", "pid": pid()}));
    serve(&[], true, hold_ms)
}

/// The calls a forked child makes, in order; the parent made each of them first, so their
/// symbols are already resolved and the child takes no lock to look them up.
const CHILD_CALLS: [&str; 4] = [
    "cuInit",
    "cuDeviceGet",
    "cuDevicePrimaryCtxRetain",
    "cuMemAlloc",
];

/// GPU001's hazard: initialise CUDA and hold a context, then fork a child that uses CUDA.
fn fork_after_init(args: &Args) -> i32 {
    let device = args.int("device", 0);
    let timeout = Duration::from_millis(args.num("timeout", 10_000));
    let parent = (|| {
        cu::init()?;
        let dev = cu::device(device)?;
        cu::use_device(dev)?;
        cu::alloc(MIB)
    })();
    if let Err(e) = parent {
        emit(&json!({"event": "error", "pid": pid(), "error": error_json(&e)}));
        return 1;
    }
    let mut fds = [0; 2];
    // SAFETY: creates a pipe into a two-int array.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return 1;
    }
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    // SAFETY: the hazard under test. The child below only makes driver calls, writes fixed-size
    // records with write(2) and leaves with _exit: no allocation, no lock of ours.
    let child = unsafe { libc::fork() };
    if child == 0 {
        // prctl is a plain syscall: safe here, and no hung child outlives a killed probe.
        crate::proc::die_with_parent(me);
        unsafe { libc::close(fds[0]) };
        child_calls(device, fds[1]);
        unsafe { libc::_exit(0) }
    }
    // SAFETY: our copy of the write end.
    unsafe { libc::close(fds[1]) };
    if child < 0 {
        return 1;
    }
    let end = watch(child, timeout);
    let records = read_records(fds[0]);
    let calls: Vec<_> = records
        .iter()
        .map(|&(i, code, us)| {
            let (name, text) = cu::describe_raw(code);
            json!({"call": CHILD_CALLS[i as usize], "code": code, "name": name, "text": text, "us": us as f64})
        })
        .collect();
    let hung_in = matches!(end, ChildEnd::Hung).then(|| CHILD_CALLS.get(records.len()).copied());
    emit(&json!({
        "event": "fork-after-init",
        "parent_pid": pid(),
        "child_pid": child,
        "calls": calls,
        "expected_calls": CHILD_CALLS.len(),
        "hung": matches!(end, ChildEnd::Hung),
        "hung_in": hung_in.flatten(),
        "signal": match end { ChildEnd::Signalled(s) => Some(s), _ => None },
    }));
    0
}

/// In the forked child: each call's index, result code and duration in microseconds, written as
/// soon as the call returns, so a hang shows which call it was.
fn child_calls(device: i32, fd: i32) {
    use cudarc::driver::sys;
    let mut dev = 0;
    let mut ctx = std::ptr::null_mut();
    let mut ptr = 0;
    for (i, _) in CHILD_CALLS.iter().enumerate() {
        let t0 = now_ns();
        // SAFETY: driver calls with out-pointers on the stack.
        let r = unsafe {
            match i {
                0 => sys::cuInit(0),
                1 => sys::cuDeviceGet(&mut dev, device),
                2 => sys::cuDevicePrimaryCtxRetain(&mut ctx, dev),
                _ => sys::cuMemAlloc_v2(&mut ptr, MIB),
            }
        };
        let us = (now_ns() - t0) / 1000;
        let record: [u32; 3] = [i as u32, r as u32, us.min(u32::MAX as u64) as u32];
        // SAFETY: writes 12 bytes from the stack.
        unsafe { libc::write(fd, record.as_ptr().cast(), 12) };
    }
}

fn read_records(fd: i32) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    let mut rec = [0u32; 3];
    // SAFETY: the child has exited or been killed, so these reads end at EOF.
    while unsafe { libc::read(fd, rec.as_mut_ptr().cast(), 12) } == 12 {
        if (rec[0] as usize) < CHILD_CALLS.len() {
            out.push((rec[0], rec[1], rec[2]));
        }
    }
    unsafe { libc::close(fd) };
    out
}

/// GPU002's worker: load the "model" (`mib` MiB) on device `load`, then take up device `own`.
fn model(args: &Args, hold_ms: u64) -> i32 {
    let (load, own) = (args.int("load", 0), args.int("own", 0));
    let t0 = args.num("t0", now_ns());
    // Which step failed, and on which GPU: running out of memory on the load GPU (its context
    // or the model) is the pile-up, on the worker's own GPU it is not.
    let mut step = ("start", load);
    let r = (|| {
        cu::init()?;
        cu::use_device(cu::device(load)?)?;
        step = ("model", load);
        cu::alloc(args.num("mib", 256) as usize * MIB)?;
        step = ("own", own);
        if own != load {
            cu::use_device(cu::device(own)?)?;
        }
        cu::alloc(MIB)
    })();
    match r {
        Ok(_) => emit(
            &json!({"event": "ready", "pid": pid(), "load": load, "own": own, "ms": ms_since(t0)}),
        ),
        Err(e) => emit(
            &json!({"event": "error", "pid": pid(), "step": step.0, "device": step.1, "error": error_json(&e)}),
        ),
    }
    hold(0, hold_ms);
    0
}

/// GPU003's rank: create the communicator with (`device=N`) or without (`device=none`) binding a
/// device first; with a device, also all-reduce and check the sum.
fn nccl_rank(args: &Args, hold_ms: u64) -> i32 {
    let (rank, nranks) = (args.int("rank", 0), args.int("nranks", 1));
    let id = args.get("id").unwrap_or_default();
    let device: Option<i32> = args.get("device").and_then(|d| d.parse().ok());
    if let Err(e) = (|| {
        cu::init()?;
        match device {
            Some(d) => cu::use_device(cu::device(d)?).map(|_| ()),
            None => Ok(()),
        }
    })() {
        emit(&json!({"event": "error", "pid": pid(), "rank": rank, "error": error_json(&e)}));
        return 1;
    }
    let t0 = now_ns();
    let comm = match Comm::init(id, nranks, rank) {
        Ok(c) => c,
        Err(e) => {
            emit(
                &json!({"event": "rank", "pid": pid(), "rank": rank, "ok": false,
                "error": {"code": e.code, "last_error": e.last_error, "message": e.to_string()},
                "init_ms": ms_since(t0)}),
            );
            // Hold whatever context NCCL made, so NVML can be read.
            hold(0, hold_ms);
            return 0;
        }
    };
    let init_ms = ms_since(t0);
    let comm_device = comm.device().ok();
    let mut out = json!({"event": "rank", "pid": pid(), "rank": rank, "ok": true,
        "comm_device": comm_device, "init_ms": init_ms});
    if device.is_some() {
        out["all_reduce"] = all_reduce_check(&comm, rank, nranks);
    }
    emit(&out);
    hold(0, hold_ms);
    drop(comm);
    0
}

/// All-reduces 1 Mi floats of `rank + 1` and checks every element is the sum over ranks.
fn all_reduce_check(comm: &Comm, rank: i32, nranks: i32) -> serde_json::Value {
    const COUNT: usize = 1 << 20;
    let r = (|| -> Result<(f64, f32, bool), String> {
        let buf = cu::alloc(COUNT * 4).map_err(|e| e.to_string())?;
        cu::copy_to_device(buf, &vec![(rank + 1) as f32; COUNT]).map_err(|e| e.to_string())?;
        let t0 = now_ns();
        let start = cu::Event::record().map_err(|e| e.to_string())?;
        comm.all_reduce_f32(buf, COUNT).map_err(|e| e.to_string())?;
        let end = cu::Event::record().map_err(|e| e.to_string())?;
        cu::synchronize().map_err(|e| e.to_string())?;
        let wall = ms_since(t0);
        let gpu = start.elapsed_ms(&end).map_err(|e| e.to_string())?;
        let mut host = vec![0f32; COUNT];
        cu::copy_to_host(&mut host, buf).map_err(|e| e.to_string())?;
        let want = (nranks * (nranks + 1) / 2) as f32;
        Ok((wall, gpu, host.iter().all(|&x| x == want)))
    })();
    match r {
        Ok((wall, gpu, correct)) => json!({"ms": wall, "event_ms": gpu, "correct": correct}),
        Err(e) => json!({"error": e}),
    }
}

/// GPU007: how many devices the driver shows, before and after this process writes
/// `CUDA_VISIBLE_DEVICES=value` (`late=1`: after `cuInit`, as code that sets it in the script
/// after importing a library that initialised CUDA does).
fn visible_devices(args: &Args) -> i32 {
    let value = args.get("value").unwrap_or("0").to_string();
    let late = args.get("late") == Some("1");
    let r = (|| {
        let mut before = None;
        if late {
            cu::init()?;
            before = Some(cu::device_count()?);
        }
        // As user code does it (`os.environ[...] = ...`): after cuInit the driver's own threads
        // may read the environment meanwhile, the same race Python's write has.
        std::env::set_var("CUDA_VISIBLE_DEVICES", &value);
        let t0 = now_ns();
        cu::init()?;
        let after = cu::device_count()?;
        Ok::<_, CuError>((before, after, ms_since(t0)))
    })();
    match r {
        Ok((before, after, ms)) => emit(
            &json!({"event": "visible", "pid": pid(), "before": before, "after": after, "ms": ms}),
        ),
        Err(e) => emit(&json!({"event": "error", "pid": pid(), "error": error_json(&e)})),
    }
    0
}
