//! The command line as users meet it, one module per feature: exit statuses, formats, bad input,
//! file discovery, rule docs, configuration, imports, noqa comments, standard input, fixes, Rust
//! files, analysis limits, rule selection, baselines and notebooks.

#[path = "../common.rs"]
mod common;

mod bad_input;
mod baseline;
mod config;
mod discovery;
mod docs;
mod environment;
mod exit_status;
mod fix;
mod formats;
mod imports;
mod limits;
mod noqa;
mod notebooks;
mod rust;
mod selection;
mod stdin;

use std::fs;
use std::path::Path;

use common::*;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A fork after CUDA was initialised: one GPU001 (an error, with no fix) on line 8.
const HAZARD: &str = "import torch\nimport multiprocessing as mp\n\ndef work(x):\n    return x.cuda()\n\nmodel = torch.nn.Linear(2, 2).cuda()\nwith mp.Pool(2) as pool:\n    pool.map(work, [torch.ones(2)])\n";

/// A CUDA model and no child process: no finding.
const CLEAN: &str = "import torch\n\nmodel = torch.nn.Linear(2, 2).cuda()\nprint(model)\n";

/// `main.py` forks a pool whose function, in `app/engine.py`, uses a model that module put on CUDA
/// when it was imported.
fn write_cross_module_project(root: &std::path::Path) {
    fs::create_dir(root.join("app")).unwrap();
    fs::write(root.join("app/__init__.py"), "").unwrap();
    fs::write(
        root.join("app/engine.py"),
        "import torch\n\nnet = torch.nn.Linear(2, 2).cuda()\n\ndef run(x):\n    return net(x)\n",
    )
    .unwrap();
    fs::write(
        root.join("main.py"),
        "import multiprocessing as mp\nfrom app.engine import run\n\nwith mp.Pool(2) as pool:\n    pool.map(run, [1])\n",
    )
    .unwrap();
}

/// Order only: GPU015 (info), in `main`.
const GROUP: &str = "import os\nimport torch\nimport torch.distributed as dist\n\n\ndef main():\n    dist.init_process_group(\"nccl\")\n    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n\n\nif __name__ == \"__main__\":\n    main()\n";

/// `(path, code)` of each finding, from `gpulint check --output-format concise ARGS`.
fn findings(args: &[&str], dir: &std::path::Path) -> Vec<(String, String)> {
    let mut all = vec!["check", "--output-format", "concise", "--quiet"];
    all.extend_from_slice(args);
    let out = gpulint(&all, dir);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    stdout(&out)
        .lines()
        .map(|l| {
            let (path, rest) = l.split_once(':').unwrap();
            let code = rest.split(' ').nth(1).unwrap();
            (path.to_string(), code.to_string())
        })
        .collect()
}

fn gpulint_with_stdin(args: &[&str], dir: &std::path::Path, input: &str) -> std::process::Output {
    use std::io::Write as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A run refused before it reads (a usage error) closes its input: the write may find the pipe
    // broken, and the exit status says what happened.
    let written = child.stdin.take().unwrap().write_all(input.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `vendor/lib.py` and `app.py` hold a hazard; the configuration excludes `vendor`.
fn write_excluding_project(root: &std::path::Path) {
    fs::create_dir(root.join("vendor")).unwrap();
    fs::write(root.join("vendor/lib.py"), HAZARD).unwrap();
    fs::write(root.join("app.py"), HAZARD).unwrap();
    fs::write(root.join("gpulint.toml"), "exclude = [\"vendor\"]\n").unwrap();
}

/// The files a `--show-files` run in `dir` lists.
fn shown_files(args: &[&str], dir: &Path) -> Vec<String> {
    let mut all = vec!["check", "--show-files"];
    all.extend_from_slice(args);
    let out = gpulint(&all, dir);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out).lines().map(str::to_string).collect()
}
