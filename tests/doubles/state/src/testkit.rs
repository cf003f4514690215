//! Test support shared by the doubles' tests (not used by the libraries themselves).
//!
//! The doubles hold process-wide state (the cuInit pid, NVML's init count) and read the
//! environment, while a test binary runs its tests as threads of one process. So each test that
//! needs its own environment runs a *role* in a fresh copy of the test binary: the parent calls
//! [`run_role`], the child runs only the crate's dispatcher test, which calls [`role`] and then
//! the role's function; the child reports with [`emit`] lines and its exit status.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub const ROLE_VAR: &str = "GPUDOUBLE_TEST_ROLE";

/// Variables a test's parent environment might hold that would change a double's behaviour.
const SCRUBBED: &[&str] = &[
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "NCCL_MULTI_RANK_GPU_ENABLE",
];

/// The role this process was started for, if any.
pub fn role() -> Option<String> {
    std::env::var(ROLE_VAR).ok().filter(|r| !r.is_empty())
}

/// Reports a result to the parent.
pub fn emit(key: &str, value: impl std::fmt::Display) {
    println!("OUT {key}={value}");
}

/// What a role's process left behind.
#[derive(Debug)]
pub struct RoleOutput {
    pub status: ExitStatus,
    pub out: BTreeMap<String, String>,
    pub stdout: String,
    pub stderr: String,
}

impl RoleOutput {
    /// An emitted value; panics with the child's output when missing.
    pub fn get(&self, key: &str) -> &str {
        match self.out.get(key) {
            Some(v) => v,
            None => panic!("role did not emit {key}\n{}", self.describe()),
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.status, self.stdout, self.stderr
        )
    }

    /// Asserts the role's test passed (exit 0).
    pub fn assert_ok(&self) -> &Self {
        assert!(self.status.success(), "role failed\n{}", self.describe());
        self
    }
}

/// Starts this test binary again running only `entry` (the dispatcher test's full path) as
/// `role`, with the doubles' variables scrubbed from the inherited environment and `envs` set.
pub fn spawn_role(entry: &str, role: &str, envs: &[(&str, String)]) -> Child {
    let exe = std::env::current_exe().expect("test binary path");
    let mut cmd = Command::new(exe);
    cmd.args([entry, "--exact", "--nocapture", "--test-threads=1"]);
    for (key, _) in std::env::vars() {
        if key.starts_with("GPUDOUBLE_") || SCRUBBED.contains(&key.as_str()) {
            cmd.env_remove(&key);
        }
    }
    cmd.env(ROLE_VAR, role)
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("spawn role")
}

/// Waits for a role's process (killing it after `limit`) and collects what it emitted.
pub fn finish(mut child: Child, limit: Duration) -> RoleOutput {
    let deadline = Instant::now() + limit;
    let mut stdout_pipe = child.stdout.take().expect("piped stdout");
    let mut stderr_pipe = child.stderr.take().expect("piped stderr");
    // Read in threads so a chatty child cannot block on a full pipe.
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout_pipe.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr_pipe.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait role") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break child.wait().expect("wait killed role");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let out = stdout
        .lines()
        // libtest prints "test name ... " without a newline before the test runs, so the first
        // line may start with that.
        .filter_map(|l| l.find("OUT ").map(|i| &l[i + 4..]))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    RoleOutput {
        status,
        out,
        stdout,
        stderr,
    }
}

/// [`spawn_role`] then [`finish`] with a 30 s limit.
pub fn run_role(entry: &str, role: &str, envs: &[(&str, String)]) -> RoleOutput {
    finish(spawn_role(entry, role, envs), Duration::from_secs(30))
}

/// Runs `role` with `state` as its state folder and `envs`, and checks that it succeeded.
pub fn run_ok(
    entry: &str,
    role: &str,
    state: &std::path::Path,
    envs: &[(&str, &str)],
) -> RoleOutput {
    let mut all = vec![("GPUDOUBLE_STATE", state.display().to_string())];
    all.extend(envs.iter().map(|(k, v)| (*k, v.to_string())));
    let out = run_role(entry, role, &all);
    out.assert_ok();
    out
}

/// A shared library built in this workspace, found next to the running test binary
/// (target/<profile>/deps/lib<name>.so or target/<profile>/lib<name>.so).
pub fn built_library(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps folder").to_path_buf();
    let file = format!("lib{name}.so");
    let candidates = [deps.join(&file), deps.join("..").join(&file)];
    for c in &candidates {
        if c.exists() {
            return c.clone();
        }
    }
    panic!("{file} not built; looked at {candidates:?} (run the tests with cargo test)");
}
