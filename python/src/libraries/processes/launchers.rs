//! Where processes run: the commands that launch a distributed job and how many machines they
//! span, test suites (one machine), this machine's host names, and the hooks a server calls in its
//! master before it forks the workers.

/// A command that launches a distributed job: its program (or `-m` module), the option that
/// says on how many machines (one when absent), and options that keep it on one.
#[derive(Debug)]
pub struct LaunchCommand {
    pub program: &'static str,
    pub nodes: &'static str,
    pub one_node: &'static [&'static str],
    pub reason: &'static str,
}

pub const LAUNCH_COMMANDS: &[LaunchCommand] = &[
    LaunchCommand {
        program: "torchrun",
        nodes: "--nnodes",
        one_node: &["--standalone"],
        reason: "torchrun runs on one node unless `--nnodes` says more (its default is `1:1`)",
    },
    LaunchCommand {
        program: "torch.distributed.run",
        nodes: "--nnodes",
        one_node: &["--standalone"],
        reason: "the module behind torchrun (`python -m torch.distributed.run`)",
    },
    LaunchCommand {
        program: "torch.distributed.launch",
        nodes: "--nnodes",
        one_node: &[],
        reason: "the older launcher; `--nnodes` defaults to 1",
    },
];

/// A test suite runs on one machine: the modules a test runner collects (pytest's `test_*.py`,
/// `*_test.py` and `conftest.py`, and anything under a `tests` or `test` folder: the suite's
/// helpers and the workers its tests launch) are launched there, whatever they start.
pub fn is_test_module(path: &std::path::Path, in_test_folder: bool) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let stem = name.strip_suffix(".py").unwrap_or(name);
    in_test_folder || stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest"
}

/// The folders a test suite lives in (below the project's root).
pub const TEST_FOLDERS: &[&str] = &["tests", "test"];

/// Host names and addresses of this machine: a rendezvous there keeps every rank on it.
pub const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// A server's configuration module, by file name, and the functions in it the server calls in its
/// master process before it forks the workers (the hooks that run in each worker, gunicorn's
/// `post_fork` and `post_worker_init`, are not listed: nothing is inherited from them).
pub struct ServerHooks {
    pub files: &'static [&'static str],
    pub master_hooks: &'static [&'static str],
    /// How a project asks the server to import the application in its master before it forks:
    /// a setting of the configuration file (`name = True`), or a flag on the command that starts it.
    pub preload_setting: &'static str,
    pub command: &'static str,
    pub preload_flag: &'static str,
    pub reason: &'static str,
}

pub const SERVER_HOOKS: &[ServerHooks] = &[ServerHooks {
    files: &["gunicorn.conf.py", "gunicorn_config.py", "gunicorn.py"],
    master_hooks: &["on_starting", "when_ready"],
    preload_setting: "preload_app",
    command: "gunicorn",
    preload_flag: "--preload",
    reason:
        "gunicorn calls `on_starting` and `when_ready` in its master, which then forks the workers",
}];
