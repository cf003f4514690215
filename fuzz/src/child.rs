//! The binary under test as a child process: how it ended, its own CPU time and peak memory
//! (`wait4`), what it wrote on standard error. Costs are the child's own, not wall-clock time,
//! so that a busy machine does not make findings.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub struct Outcome {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    /// User and system time.
    pub cpu_seconds: f64,
    pub peak_mib: i64,
    /// Killed by the watchdog.
    pub hung: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// A crash: killed by a signal other than the watchdog's, an exit status other than 0 or 1,
    /// or a panic reported.
    pub fn crash(&self) -> Option<String> {
        if let Some(signal) = self.signal.filter(|_| !self.hung) {
            return Some(format!("killed by signal {signal}"));
        }
        let panicked = self.stderr.contains("panicked") || self.stderr.contains("internal error");
        if !self.hung && (!matches!(self.code, Some(0 | 1)) || panicked) {
            return Some(format!("exit {:?}: {}", self.code, tail(&self.stderr)));
        }
        None
    }

    /// A crash, a hang, or more CPU time or memory than the bounds.
    pub fn problem(&self, max_cpu_seconds: f64, max_mib: i64) -> Option<String> {
        if let Some(crash) = self.crash() {
            return Some(crash);
        }
        if self.hung || self.cpu_seconds > max_cpu_seconds {
            return Some(format!("took {:.2} s of CPU", self.cpu_seconds));
        }
        (self.peak_mib > max_mib).then(|| format!("used {} MiB", self.peak_mib))
    }
}

fn tail(text: &str) -> &str {
    let text = text.trim();
    let mut start = text.len().saturating_sub(2000);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// Runs `binary args` in `dir` with no input, killing it after `limit`.
pub fn run(binary: &Path, args: &[&str], dir: &Path, limit: Duration) -> Outcome {
    let err_path = dir.join("stderr.txt");
    let out_path = dir.join("stdout.txt");
    let child = Command::new(binary)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("gpulint runs");
    let mut outcome = wait(child, limit);
    outcome.stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    outcome.stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    outcome
}

/// Waits for `child`, killing it after `limit`; its standard error is the caller's to read.
pub fn wait(child: std::process::Child, limit: Duration) -> Outcome {
    let pid = child.id() as libc::pid_t;
    // Reaped by `wait4` below, which also gives its resource usage.
    std::mem::forget(child);
    let (done, finished) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        // Killed only while it is still unreaped: told when it was reaped, it never kills a pid
        // that may since have been reused.
        if finished.recv_timeout(limit).is_err() {
            unsafe { libc::kill(pid, libc::SIGKILL) };
            return true;
        }
        false
    });
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let _ = done.send(());
    let hung = watchdog.join().unwrap_or(false);
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Outcome {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        cpu_seconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        peak_mib: usage.ru_maxrss / 1024,
        hung,
        stdout: String::new(),
        stderr: String::new(),
    }
}
