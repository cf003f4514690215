//! Nothing lost: every file gpulint writes (fixes, noqa comments, reports, baselines) is written
//! whole or not at all, never over what the user changed meanwhile, never through a link out of
//! the folder checked, never over a source; and every file it reads for settings is a regular
//! file of bounded size.

mod common;

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::gpulint;

/// A file with one GPU015 finding whose fix is safe: the device bound before the group starts.
fn fixable(padding: usize) -> String {
    format!(
        "import os\nimport torch\nimport torch.distributed as dist\n\n\ndef main():\n    rank = int(os.environ[\"LOCAL_RANK\"])\n    dist.init_process_group(backend=\"nccl\")\n    torch.cuda.set_device(rank)\n    torch.ones(1, device=\"cuda\")\n\n\nif __name__ == \"__main__\":\n    main()\n{}",
        "# padding so that the file takes a while to write\n".repeat(padding)
    )
}

/// What [`fixable`] becomes once fixed.
fn fixed(padding: usize) -> String {
    fixable(padding).replace(
        "    dist.init_process_group(backend=\"nccl\")\n    torch.cuda.set_device(rank)\n",
        "    torch.cuda.set_device(rank)\n    dist.init_process_group(backend=\"nccl\")\n",
    )
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Temporary files a write left behind in `dir` (and below).
fn leftovers(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(leftovers(&path));
        } else if path.to_string_lossy().ends_with(".tmp") {
            out.push(path);
        }
    }
    out
}

/// Runs the binary, failing the test (not hanging it) if it has not ended within a minute.
fn run_bounded(args: &[&str], cwd: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read on threads, so a long message never blocks the child on a full pipe.
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("gpulint {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

#[test]
fn a_full_disk_leaves_the_file_whole_and_the_other_files_are_still_fixed() {
    // A file-size limit makes every write past it fail as a full disk does (EFBIG instead of
    // ENOSPC), for root too. The big file comes first in the walk.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a_big.py"), fixable(4000)).unwrap();
    fs::write(dir.path().join("b_small.py"), fixable(0)).unwrap();
    let limit = fixable(0).len() as u64 + 4096;
    let out = unsafe {
        Command::new(env!("CARGO_BIN_EXE_gpulint"))
            .args(["check", "--fix", "."])
            .current_dir(dir.path())
            .pre_exec(move || {
                // SAFETY: async-signal-safe calls only, between fork and exec.
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let rl = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &rl) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            })
            .output()
            .unwrap()
    };
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        fs::read_to_string(dir.path().join("a_big.py")).unwrap(),
        fixable(4000),
        "the file that could not be written is as it was"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("b_small.py")).unwrap(),
        fixed(0),
        "the file after it is still fixed"
    );
    assert!(
        err.contains("a_big.py: fix not written:") && err.contains("the file is as it was"),
        "{err}"
    );
    assert!(
        leftovers(dir.path()).is_empty(),
        "{:?}",
        leftovers(dir.path())
    );
}

/// Kills `child` with SIGKILL after `delay`, then reaps it.
fn kill_after(mut child: Child, delay: Duration) {
    std::thread::sleep(delay);
    // SAFETY: a signal to our own child, not yet reaped.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    let _ = child.wait();
}

#[test]
fn killing_fix_at_any_moment_leaves_each_file_old_or_new() {
    const FILES: usize = 40;
    const PADDING: usize = 6000; // about 300 kB a file
    let tree = tempfile::tempdir().unwrap();
    let write_tree = |dir: &Path| {
        for i in 0..FILES {
            let sub = dir.join(format!("pkg{}", i % 4));
            fs::create_dir_all(&sub).unwrap();
            fs::write(sub.join(format!("m{i}.py")), fixable(PADDING)).unwrap();
        }
    };
    // How long a whole run takes here, so that the kills land all through it.
    write_tree(tree.path());
    let started = Instant::now();
    let whole = gpulint(&["check", "--fix", "."], tree.path());
    let span = started.elapsed();
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    let (old, new) = (fixable(PADDING), fixed(PADDING));
    let mut saw_both = (false, false);
    for trial in 0..12u32 {
        let dir = tempfile::tempdir().unwrap();
        write_tree(dir.path());
        let child = Command::new(env!("CARGO_BIN_EXE_gpulint"))
            .args(["check", "--fix", "."])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        kill_after(child, span.mul_f64(f64::from(trial) / 10.0));
        for i in 0..FILES {
            let path = dir
                .path()
                .join(format!("pkg{}", i % 4))
                .join(format!("m{i}.py"));
            let text = fs::read_to_string(&path).unwrap();
            assert!(
                text == old || text == new,
                "trial {trial}: {} is neither the old nor the new version ({} bytes)",
                path.display(),
                text.len()
            );
            saw_both.0 |= text == old;
            saw_both.1 |= text == new;
        }
    }
    // Not an assertion on timing: only that the trials exercised something.
    eprintln!("old versions seen: {}, new: {}", saw_both.0, saw_both.1);
    assert!(saw_both.0 && saw_both.1, "the kills never landed mid-run");
}

#[test]
fn an_edit_saved_while_fix_runs_is_never_overwritten() {
    // Wherever the edit lands, it survives: before the file is read, the fix applies to it; after,
    // the fix is refused and said so.
    for delay_ms in [0u64, 5, 20, 60, 150] {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..30 {
            fs::write(dir.path().join(format!("m{i:02}.py")), fixable(3000)).unwrap();
        }
        let target = dir.path().join("m29.py");
        let child = Command::new(env!("CARGO_BIN_EXE_gpulint"))
            .args(["check", "--fix", "."])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let edited = fixable(3000).replace("import os\n", "import os  # my edit\n");
        fs::write(&target, &edited).unwrap();
        let out = child.wait_with_output().unwrap();
        let now = fs::read_to_string(&target).unwrap();
        assert!(
            now.contains("# my edit"),
            "delay {delay_ms} ms: the edit was overwritten; stderr: {}",
            stderr(&out)
        );
        if !stderr(&out).contains("the file changed since it was read") {
            assert_eq!(
                now,
                fixed(3000).replace("import os\n", "import os  # my edit\n")
            );
        }
        assert!(leftovers(dir.path()).is_empty());
    }
}

#[test]
fn fix_does_not_write_through_a_link_out_of_the_folder_checked() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("victim.py");
    fs::write(&target, fixable(0)).unwrap();
    let tree = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&target, tree.path().join("link.py")).unwrap();
    fs::write(tree.path().join("own.py"), fixable(0)).unwrap();
    // A link to a file inside the tree is written through, and stays a link.
    fs::create_dir(tree.path().join("sub")).unwrap();
    fs::write(tree.path().join("sub").join("real.py"), fixable(1)).unwrap();
    std::os::unix::fs::symlink("sub/real.py", tree.path().join("inner.py")).unwrap();

    let out = gpulint(&["check", "--fix", "."], tree.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(fs::read_to_string(&target).unwrap(), fixable(0), "{err}");
    assert!(
        err.contains("link.py: fix not written: a symbolic link to"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(tree.path().join("own.py")).unwrap(),
        fixed(0)
    );
    assert_eq!(
        fs::read_to_string(tree.path().join("sub").join("real.py")).unwrap(),
        fixed(1)
    );
    assert!(fs::symlink_metadata(tree.path().join("inner.py"))
        .unwrap()
        .file_type()
        .is_symlink());
    // --add-noqa neither.
    let out = gpulint(&["check", "--add-noqa", "."], tree.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("link.py: a symbolic link to"), "{err}");
    assert_eq!(fs::read_to_string(&target).unwrap(), fixable(0), "{err}");
}

#[test]
fn a_report_or_baseline_never_replaces_a_source() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), fixable(0)).unwrap();
    for args in [
        &["check", "-o", "a.py", "."][..],
        &["check", "--output-file", "./a.py", "a.py"],
        &["check", "--write-baseline", "a.py", "."],
    ] {
        let out = gpulint(args, dir.path());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("is a file this run checks or imports"),
            "{args:?}: {err}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("a.py")).unwrap(),
            fixable(0)
        );
    }
    // Elsewhere they are written, whole.
    let out = gpulint(&["check", "-o", "report.txt", "."], dir.path());
    // GPU015 is an info: it does not fail the run.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(fs::read_to_string(dir.path().join("report.txt"))
        .unwrap()
        .contains("GPU015"));
    assert!(leftovers(dir.path()).is_empty());
}

/// A notebook: a markdown cell, then `cells` as code cells with outputs, then metadata.
fn notebook(cells: &[&str]) -> String {
    let mut items = vec![serde_json::json!({
        "cell_type": "markdown", "metadata": {}, "source": ["# Training notes"]
    })];
    for (i, source) in cells.iter().enumerate() {
        items.push(serde_json::json!({
            "cell_type": "code",
            "execution_count": i + 1,
            "metadata": {"tags": ["keep"]},
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["ok\n"]}],
            "source": source.split_inclusive('\n').collect::<Vec<_>>(),
        }));
    }
    let doc = serde_json::json!({
        "cells": items,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    });
    serde_json::to_string_pretty(&doc).unwrap()
}

#[test]
fn add_noqa_on_a_notebook_edits_its_cells_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("train.ipynb");
    let before = notebook(&[
        "import os\nimport torch\nimport torch.distributed as dist\n",
        "dist.init_process_group(backend=\"nccl\")\ntorch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n",
    ]);
    fs::write(&path, &before).unwrap();
    let out = gpulint(&["check", "--add-noqa", "train.ipynb"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Added 1 noqa directive."),
        "{}",
        stderr(&out)
    );
    let after: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).expect("still a notebook");
    let was: serde_json::Value = serde_json::from_str(&before).unwrap();
    assert_eq!(after["cells"][0], was["cells"][0], "the markdown cell");
    assert_eq!(after["metadata"], was["metadata"]);
    assert_eq!(after["cells"][2]["outputs"], was["cells"][2]["outputs"]);
    let source: String = after["cells"][2]["source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        source.starts_with("dist.init_process_group(backend=\"nccl\")  # noqa: GPU015\n"),
        "{source}"
    );
    let again = gpulint(&["check", "train.ipynb"], dir.path());
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
}

#[test]
fn settings_files_that_are_not_regular_files_are_refused_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), fixable(0)).unwrap();
    let fifo = dir.path().join("pipe.toml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    for (args, says) in [
        (&["check", "--config", "pipe.toml", "a.py"][..], "a FIFO"),
        (&["check", "--config", "/dev/zero", "a.py"], "a device"),
        (&["check", "--baseline", "pipe.toml", "a.py"], "a FIFO"),
        (&["check", "--baseline", "/dev/zero", "a.py"], "a device"),
    ] {
        let out = run_bounded(args, dir.path());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // A gpulint.toml that is a folder (or a FIFO) is named, not silently skipped.
    fs::create_dir(dir.path().join("gpulint.toml")).unwrap();
    let out = run_bounded(&["check", "a.py"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("gpulint.toml: not a regular file (a directory): its settings do not apply"),
        "{err}"
    );
}

#[test]
fn a_configuration_too_large_is_refused_and_many_patterns_stay_small() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), fixable(0)).unwrap();
    // `count` plain names: refused with exit 2, naming the file and why.
    let refused = |count: usize, why: &str| {
        let patterns: String = (0..count).map(|i| format!("\"d{i}\",")).collect();
        let config = format!("exclude = [{patterns}]\n");
        fs::write(dir.path().join("gpulint.toml"), config).unwrap();
        let out = run_bounded(&["check", "a.py"], dir.path());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("gpulint.toml") && err.contains(why), "{err}");
    };
    // 10 MB of patterns: past the size cap.
    refused(1_000_000, "larger than 8 MiB");
    // Past the most patterns read.
    refused(10_001, "10001 exclude patterns: at most 10000");
    // 2,000 patterns of both kinds: read, applied, and held in little memory.
    let patterns: String = (0..2_000)
        .map(|i| match i % 2 {
            0 => format!("\"n{i}\","),
            _ => format!("\"gen/x{i}/*.py\","),
        })
        .collect();
    fs::write(
        dir.path().join("gpulint.toml"),
        format!("exclude = [{patterns} \"skipped\"]\n"),
    )
    .unwrap();
    fs::create_dir(dir.path().join("skipped")).unwrap();
    fs::write(dir.path().join("skipped").join("b.py"), fixable(0)).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", "--output-format", "concise", "."])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (out, peak_mib) = wait_with_peak(child);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(text.contains("a.py") && !text.contains("b.py"), "{text}");
    eprintln!("2,000 exclude patterns: {peak_mib} MiB");
    assert!(peak_mib < 300, "{peak_mib} MiB");
}

/// The child's output and its peak resident memory in MiB, from the kernel's accounting of it.
#[allow(clippy::zombie_processes)]
fn wait_with_peak(child: Child) -> (Output, i64) {
    let pid = child.id() as libc::pid_t;
    // Output is read on threads so the child never blocks on a full pipe.
    let mut child = child;
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut v).unwrap();
        v
    });
    let err_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut v).unwrap();
        v
    });
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid value; wait4 on our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let output = Output {
        status: std::os::unix::process::ExitStatusExt::from_raw(match code {
            Some(c) => c << 8,
            None => status,
        }),
        stdout: out_thread.join().unwrap(),
        stderr: err_thread.join().unwrap(),
    };
    (output, usage.ru_maxrss / 1024)
}

#[test]
fn a_notebook_fix_that_cells_refuse_is_not_offered() {
    // A cell holds a carriage return that does not end a line (Python reads it as one; the
    // cell's lines would shift): `--fix` refuses to edit such a notebook, so the report must not
    // count its finding as fixable either.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("split.ipynb");
    let before = notebook(&[
        "import os\rimport torch\nimport torch.distributed as dist\n",
        "dist.init_process_group(backend=\"nccl\")\ntorch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n",
    ]);
    fs::write(&path, &before).unwrap();
    let out = gpulint(&["check", "split.ipynb"], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("GPU015"), "{text}");
    assert!(!text.contains("fixable"), "{text}");
    let fix = gpulint(&["check", "--fix", "split.ipynb"], dir.path());
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        before,
        "{}",
        stderr(&fix)
    );
    assert!(!String::from_utf8_lossy(&fix.stdout).contains("Fixed"));
}
