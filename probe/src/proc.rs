//! Process plumbing for the reproductions: monotonic time shared across processes, one-write JSON
//! lines (atomic on a shared pipe), holding a worker until released, a fork watchdog, and
//! spawning this binary in its hidden worker mode.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// CLOCK_MONOTONIC in nanoseconds: the same clock in every process on the host, so a worker can
/// measure from the instant its parent asked for it.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes one timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

pub fn ms_since(t0_ns: u64) -> f64 {
    now_ns().saturating_sub(t0_ns) as f64 / 1e6
}

/// The fd a worker's JSON lines go to: stdout until `own_protocol_fd` moves them.
static PROTOCOL_FD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(1);

/// In a worker: keeps the pipe to the prober for JSON lines only, and points fd 1 at stderr, so
/// that what a library prints to stdout (NCCL's log does, with NCCL_DEBUG) cannot join a line.
pub fn own_protocol_fd() {
    // SAFETY: dup/dup2 on the standard fds of this process.
    unsafe {
        let fd = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if fd >= 0 && libc::dup2(2, 1) >= 0 {
            PROTOCOL_FD.store(fd, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

/// Writes one line with a single `write(2)`: lines from several forked workers sharing a pipe do
/// not interleave (they are far below PIPE_BUF), and no lock is taken in a forked child.
pub fn emit(value: &serde_json::Value) {
    let mut line = value.to_string();
    line.push('\n');
    let bytes = line.as_bytes();
    let fd = PROTOCOL_FD.load(std::sync::atomic::Ordering::SeqCst);
    let mut done = 0;
    while done < bytes.len() {
        // SAFETY: writes from a live buffer to the protocol pipe.
        let n = unsafe { libc::write(fd, bytes[done..].as_ptr().cast(), bytes.len() - done) };
        if n <= 0 {
            return;
        }
        done += n as usize;
    }
}

/// Blocks until `fd` reaches end of file (the parent released us) or `limit_ms` passes, so a
/// worker never outlives a probe that died.
pub fn hold(fd: i32, limit_ms: u64) {
    let deadline = now_ns() + limit_ms * 1_000_000;
    let mut buf = [0u8; 64];
    loop {
        let left = deadline.saturating_sub(now_ns()) / 1_000_000;
        if left == 0 {
            return;
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd on the stack.
        let ready = unsafe { libc::poll(&mut pfd, 1, left.min(i32::MAX as u64) as i32) };
        if ready < 0 {
            return;
        }
        if ready > 0 {
            // SAFETY: reads into a stack buffer.
            let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                return;
            }
        }
    }
}

/// How a forked child ended, as seen by its parent's watchdog.
pub enum ChildEnd {
    Exited,
    Signalled(i32),
    /// Still running at the deadline: killed.
    Hung,
}

/// Waits for a forked child up to `timeout`, killing it if it is still running then.
pub fn watch(pid: libc::pid_t, timeout: Duration) -> ChildEnd {
    let start = Instant::now();
    loop {
        let mut status = 0;
        // SAFETY: waits on our own child without blocking.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            if libc::WIFEXITED(status) {
                return ChildEnd::Exited;
            }
            return ChildEnd::Signalled(libc::WTERMSIG(status));
        }
        if r < 0 {
            return ChildEnd::Exited;
        }
        if start.elapsed() >= timeout {
            // SAFETY: our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            return ChildEnd::Hung;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The variable that tells a worker which pid started it.
pub const PARENT_VAR: &str = "GPULINT_PROBE_PARENT";

/// Asks the kernel to kill this process when its parent dies, so no worker outlives a probe that
/// was killed; exits at once if `parent` is already gone (we were re-parented). Compares with the
/// expected pid, not with 1: the probe itself may be pid 1 in a container.
pub fn die_with_parent(parent: libc::pid_t) {
    // SAFETY: prctl with integer arguments; getppid reads our parent's pid.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
}

/// What stands in for a worker's line when it gave none: the worker died, or did not answer in
/// time. `timed_out` tells the two apart, since a timeout proves nothing either way.
pub fn lost(pid: u32, timed_out: bool, why: String) -> serde_json::Value {
    serde_json::json!({"event": "lost", "pid": pid, "timed_out": timed_out, "why": why})
}

/// The `lost` line for a worker that gave no answer before the deadline.
pub fn no_answer(pid: u32) -> serde_json::Value {
    lost(pid, true, "no answer in time".into())
}

pub fn is_timeout(v: &serde_json::Value) -> bool {
    v["event"] == "lost" && v["timed_out"] == true
}

/// This binary started in its hidden worker mode, with its stdout read line by line on a thread.
pub struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    stderr_done: std::thread::JoinHandle<()>,
}

impl Worker {
    /// Starts `gpulint probe-worker ROLE ARGS`; on failure, the error as a lost line.
    pub fn start(role: &str, args: &[String]) -> Result<Worker, serde_json::Value> {
        Worker::spawn(role, args)
            .map_err(|e| lost(0, false, format!("could not start a worker: {e}")))
    }

    fn spawn(role: &str, args: &[String]) -> std::io::Result<Worker> {
        let exe = std::env::current_exe()?;
        let mut cmd = Command::new(exe);
        cmd.arg("probe-worker").arg(role).args(args);
        cmd.env(PARENT_VAR, std::process::id().to_string());
        // A group of its own, so a worker that forked workers is killed with them.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (Some(stdout), Some(err_pipe)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(std::io::Error::other("no pipes to the worker"));
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let stderr_done = std::thread::spawn(move || {
            for line in BufReader::new(err_pipe).lines().map_while(Result::ok) {
                if let Ok(mut s) = sink.lock() {
                    s.push_str(&line);
                    s.push('\n');
                }
            }
        });
        let stdin = child.stdin.take();
        Ok(Worker {
            child,
            stdin,
            lines,
            stderr,
            stderr_done,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The next JSON line; when there is none by `deadline`, or the worker closed its output, a
    /// `lost` line saying which, with how the worker ended and the last thing it wrote to stderr.
    pub fn next(&mut self, deadline: Instant) -> serde_json::Value {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Ok(v) = serde_json::from_str(&line) {
                        return v;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return no_answer(self.pid());
                }
                Err(RecvTimeoutError::Disconnected) => return self.ended(deadline),
            }
        }
    }

    /// Why a worker stopped answering: its exit status or signal, and its last stderr line.
    fn ended(&mut self, deadline: Instant) -> serde_json::Value {
        let give_up = (Instant::now() + Duration::from_millis(500)).min(deadline);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(st)) => break Some(st),
                Ok(None) if Instant::now() < give_up => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => break None,
            }
        };
        use std::os::unix::process::ExitStatusExt;
        let mut why = match status {
            Some(st) => match (st.code(), st.signal()) {
                (Some(c), _) => format!("the worker exited with status {c} without answering"),
                (_, Some(sig)) => format!("the worker died of signal {sig} ({})", signal_name(sig)),
                _ => "the worker ended without answering".into(),
            },
            None => "the worker closed its output without answering".into(),
        };
        let err = self.stderr_text(deadline);
        if let Some(last) = err.lines().rev().find(|l| !l.trim().is_empty()) {
            why = format!("{why}: {}", last.trim());
        }
        lost(self.pid(), false, why)
    }

    fn stderr_text(&self, deadline: Instant) -> String {
        // The reader ends when the pipe closes; wait for it only briefly, since a forked
        // grandchild may hold the pipe open.
        let give_up = (Instant::now() + Duration::from_millis(200)).min(deadline);
        while !self.stderr_done.is_finished() && Instant::now() < give_up {
            std::thread::sleep(Duration::from_millis(2));
        }
        self.stderr
            .lock()
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    }

    pub fn send(&mut self, line: &str) -> bool {
        use std::io::Write;
        match self.stdin.as_mut() {
            Some(s) => writeln!(s, "{line}").and_then(|_| s.flush()).is_ok(),
            None => false,
        }
    }

    /// Closes the worker's stdin: it (and any worker it forked) lets go and exits.
    pub fn release(&mut self) {
        self.stdin = None;
    }

    /// Releases the worker and waits for it to exit until `deadline`, then kills its group.
    pub fn finish(mut self, deadline: Instant) {
        self.release();
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() >= deadline => {
                    self.kill_group();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    }

    fn kill_group(&mut self) {
        // SAFETY: signals the process group this worker leads.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill_group();
        }
    }
}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        _ => "signal",
    }
}
