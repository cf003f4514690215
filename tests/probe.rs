//! `gpulint probe` against the project's test doubles of libcuda, libnvidia-ml and libnccl,
//! always through `tests/doubles/run-probe.sh`, the way a developer runs it. The doubles follow
//! the documented behaviour of NVIDIA's libraries (tests/doubles/README.md), not the probe.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Where cargo put the gpulint binary, and with it the doubles' shared libraries.
fn target() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_gpulint"))
        .parent()
        .expect("a folder")
        .to_path_buf()
}

/// The doubles' libraries are built by the workspace build (`cargo test --workspace`); they are
/// also dev-dependencies of gpulint, so `cargo test` on this package builds them too.
fn doubles_built() {
    for lib in [
        "libgpudouble_cuda.so",
        "libgpudouble_nvml.so",
        "libgpudouble_nccl.so",
    ] {
        let path = double_path(lib);
        assert!(
            path.exists(),
            "{} is missing: build the workspace first",
            path.display()
        );
    }
}

fn probe_cmd(args: &[&str], env: &[(&str, &str)]) -> Command {
    doubles_built();
    let mut cmd = Command::new(common::root().join("tests/doubles/run-probe.sh"));
    cmd.args(args).env("RUN_PROBE_TARGET", target());
    for (k, _) in std::env::vars() {
        if k.starts_with("GPUDOUBLE_") || k.starts_with("RUN_PROBE_") && k != "RUN_PROBE_TARGET" {
            cmd.env_remove(k);
        }
    }
    for var in [
        "CUDA_VISIBLE_DEVICES",
        "NCCL_MULTI_RANK_GPU_ENABLE",
        "RANK",
        "WORLD_SIZE",
        "LOCAL_RANK",
        "LOCAL_WORLD_SIZE",
        "SLURM_PROCID",
        "SLURM_NTASKS",
        "SLURM_STEP_ID",
        "SLURM_STEPID",
        "SLURM_LOCALID",
        "SLURM_NODEID",
        "SLURM_STEP_TASKS_PER_NODE",
        "SLURM_NNODES",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    cmd
}

fn probe(args: &[&str], env: &[(&str, &str)]) -> Output {
    probe_cmd(args, env).output().expect("run-probe.sh runs")
}

/// `probe --json ARGS` with a 20 s step limit: the parsed report, after checking it exited 0.
fn probe_json(args: &[&str], env: &[(&str, &str)]) -> Value {
    let mut all = vec!["--json"];
    if !args.contains(&"--timeout") {
        all.extend(["--timeout", "20"]);
    }
    all.extend_from_slice(args);
    let out = probe(&all, env);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn hazard<'a>(report: &'a Value, rule: &str) -> &'a Value {
    report["hazards"]
        .as_array()
        .expect("hazards")
        .iter()
        .find(|h| h["rule"] == rule)
        .unwrap_or_else(|| panic!("{rule} missing from {report:#}"))
}

fn fix<'a>(h: &'a Value, name: &str) -> &'a Value {
    h["fixes"]
        .as_array()
        .expect("fixes")
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("{name} missing from {h:#}"))
}

fn evidence(h: &Value) -> &str {
    h["evidence"].as_str().unwrap_or_default()
}

#[test]
fn two_gpus_reproduce_every_hazard_and_every_fix_works() {
    let r = probe_json(&[], &[]);
    assert_eq!(r["status"], "ok");
    let host = &r["host"];
    assert_eq!(host["test_doubles"], true, "{host:#}");
    assert_eq!(host["nccl"], "2.21.5");
    assert_eq!(host["cuda"], "12.8");
    assert_eq!(host["nvml_cuda"], "12.8");
    let gpus = host["gpus"].as_array().expect("gpus");
    assert_eq!(gpus.len(), 2);
    for (i, g) in gpus.iter().enumerate() {
        assert_eq!(g["ordinal"], i);
        assert_eq!(g["nvml_index"], i, "matched by UUID: {g:#}");
        assert!(g["uuid"].as_str().unwrap().starts_with("GPU-"));
    }
    assert!(
        host["libraries"]["cuda"]
            .as_str()
            .unwrap()
            .ends_with("libcuda.so"),
        "{host:#}"
    );

    let g1 = hazard(&r, "GPU001");
    assert_eq!(g1["verdict"], "reproduced", "{g1:#}");
    assert!(
        evidence(g1).contains("cuInit → 3 CUDA_ERROR_NOT_INITIALIZED \"initialization error\""),
        "{g1:#}"
    );
    assert!(evidence(g1).contains("NVML: the parent (pid"), "{g1:#}");
    assert!(
        evidence(g1).contains("holds 501 MiB on GPU 0; the child (pid"),
        "{g1:#}"
    );
    for name in ["spawn", "fork-before-init", "forkserver"] {
        let f = fix(g1, name);
        assert_eq!(f["works"], true, "{f:#}");
        assert!(f["ms"].as_f64().unwrap() > 0.0, "{f:#}");
        // The double charges 500 MiB per context, plus the 1 MiB first allocation.
        assert_eq!(f["mib"], 501, "{f:#}");
    }

    let g2 = hazard(&r, "GPU002");
    assert_eq!(g2["verdict"], "reproduced", "{g2:#}");
    assert!(
        evidence(g2).contains("GPU 0 holds 2 of 2 workers"),
        "{g2:#}"
    );
    assert!(
        evidence(g2).contains("1 worker that chose another GPU still holds the model on GPU 0"),
        "{g2:#}"
    );
    let f = fix(g2, "device-first");
    assert_eq!(f["works"], true, "{f:#}");
    assert_eq!(f["mib"], 500 + 256 + 1, "{f:#}");
    assert!(
        f["detail"].as_str().unwrap().contains("GPU 0: 1, GPU 1: 1"),
        "{f:#}"
    );

    let g3 = hazard(&r, "GPU003");
    assert_eq!(g3["verdict"], "reproduced", "{g3:#}");
    assert!(
        evidence(g3).contains("Duplicate GPU detected : rank 0 and rank 1 both on CUDA device"),
        "{g3:#}"
    );
    let f = fix(g3, "set-device-first");
    assert_eq!(f["works"], true, "{f:#}");
    assert!(f["ms"].as_f64().unwrap() > 0.0);

    let g7 = hazard(&r, "GPU007");
    assert_eq!(g7["verdict"], "reproduced", "{g7:#}");
    assert!(
        evidence(g7)
            .contains("saw 2 GPUs, then set CUDA_VISIBLE_DEVICES=0: the driver still shows 2"),
        "{g7:#}"
    );
    assert_eq!(fix(g7, "set-before-init")["works"], true);
}

#[test]
fn human_report_shows_the_host_verdicts_and_fix_table() {
    let out = probe(&["--timeout", "20"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for want in [
        "NOTE: these are gpulint's test doubles",
        "GPU001 fork-after-cuda-init: reproduced",
        "GPU002 device-pinned-global: reproduced",
        "GPU003 process-group-before-set-device: reproduced",
        "fix                     ms/worker MiB/worker  works",
        "forkserver",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
}

#[test]
fn one_gpu_reports_the_pile_up_and_skips_what_needs_two() {
    let r = probe_json(&[], &[("GPUDOUBLE_DEVICES", "1")]);
    let g2 = hazard(&r, "GPU002");
    assert_eq!(g2["verdict"], "skipped", "{g2:#}");
    assert!(
        g2["reason"].as_str().unwrap().starts_with("needs ≥ 2 GPUs"),
        "{g2:#}"
    );
    assert!(
        evidence(g2).contains("GPU 0 holds 2 of 2 workers"),
        "the pile-up is still shown: {g2:#}"
    );
    assert!(g2["fixes"].as_array().unwrap().is_empty());
    let g3 = hazard(&r, "GPU003");
    assert_eq!(g3["verdict"], "skipped");
    assert!(g3["reason"].as_str().unwrap().contains("needs ≥ 2 GPUs"));
    assert_eq!(hazard(&r, "GPU007")["verdict"], "skipped");
    assert_eq!(fix(hazard(&r, "GPU001"), "spawn")["works"], true);
}

#[test]
fn without_nccl_only_gpu003_is_skipped() {
    let r = probe_json(&[], &[("RUN_PROBE_WITHOUT", "nccl")]);
    let g3 = hazard(&r, "GPU003");
    assert_eq!(g3["verdict"], "skipped");
    assert!(
        g3["reason"]
            .as_str()
            .unwrap()
            .contains("libnccl.so not found"),
        "{g3:#}"
    );
    assert_eq!(hazard(&r, "GPU001")["verdict"], "reproduced");
    assert_eq!(hazard(&r, "GPU002")["verdict"], "reproduced");
    assert_eq!(r["host"]["nccl"], Value::Null);
}

#[test]
fn without_nvml_gpu002_is_skipped_and_memory_is_not_measured() {
    let r = probe_json(
        &["--hazard", "GPU001", "--hazard", "device-pinned-global"],
        &[("RUN_PROBE_WITHOUT", "nvml")],
    );
    assert!(
        r["host"]["missing"][0]
            .as_str()
            .unwrap()
            .contains("libnvidia-ml.so.1 not found"),
        "{r:#}"
    );
    assert_eq!(r["host"]["gpus"][0]["nvml_index"], Value::Null);
    let g2 = hazard(&r, "GPU002");
    assert_eq!(g2["verdict"], "skipped");
    let spawn = fix(hazard(&r, "GPU001"), "spawn");
    assert_eq!(spawn["works"], true);
    assert_eq!(spawn["mib"], Value::Null);
    assert_eq!(
        r["hazards"].as_array().unwrap().len(),
        2,
        "--hazard filters"
    );
}

#[test]
fn nvml_that_cannot_list_processes_skips_gpu002_with_its_error() {
    // Some boards answer "Not Supported" (3) to the process query.
    let r = probe_json(
        &["--hazard", "GPU002"],
        &[(
            "GPUDOUBLE_FAIL",
            "nvmlDeviceGetComputeRunningProcesses_v3=3",
        )],
    );
    let g2 = hazard(&r, "GPU002");
    assert_eq!(g2["verdict"], "skipped", "{g2:#}");
    assert!(
        g2["reason"]
            .as_str()
            .unwrap()
            .contains("NVML cannot list the processes on a GPU"),
        "{g2:#}"
    );
}

#[test]
fn without_any_library_exits_3_naming_what_is_missing() {
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .arg("probe")
        .env("LD_LIBRARY_PATH", empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("gpulint probe: no GPU: no CUDA driver: libcuda.so"),
        "{err}"
    );
    assert!(
        err.contains(&format!("LD_LIBRARY_PATH={}", empty.path().display())),
        "{err}"
    );

    let out = probe(&["--json"], &[("RUN_PROBE_WITHOUT", "cuda nvml nccl")]);
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "no-gpu");
    assert!(v["reason"].as_str().unwrap().contains("libcuda.so"), "{v}");
}

/// The freshest build of a double: `cargo test` on this package refreshes only `deps/`.
fn double_path(lib: &str) -> PathBuf {
    let (top, deps) = (target().join(lib), target().join("deps").join(lib));
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if modified(&deps) > modified(&top) {
        deps
    } else {
        top
    }
}

/// A folder of links named like NVIDIA's libraries, each to the double a test asks for.
fn lib_dir(links: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, double) in links {
        std::os::unix::fs::symlink(double_path(double), dir.path().join(name)).unwrap();
    }
    dir
}

#[test]
fn libraries_lacking_a_symbol_are_refused_without_a_panic() {
    // cudarc panics on a missing symbol: a library that has none of libcuda's (here the NVML
    // double under libcuda's name) must end in exit 3, not a panic.
    doubles_built();
    let dir = lib_dir(&[("libcuda.so", "libgpudouble_nvml.so")]);
    let state = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .arg("probe")
        .env("LD_LIBRARY_PATH", dir.path())
        .env("GPUDOUBLE_STATE", state.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("libcuda.so has no cuInit: the driver is too old for the probe"),
        "{err}"
    );

    // An NCCL without the probe's symbols: only GPU003 is skipped.
    let dir = lib_dir(&[
        ("libcuda.so", "libgpudouble_cuda.so"),
        ("libnccl.so", "libgpudouble_nvml.so"),
    ]);
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args([
            "probe", "--json", "--hazard", "GPU003", "--hazard", "GPU001",
        ])
        .env("LD_LIBRARY_PATH", dir.path())
        .env("GPUDOUBLE_STATE", state.path())
        .env("GPUDOUBLE_DEVICES", "2")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let g3 = hazard(&r, "GPU003");
    assert_eq!(g3["verdict"], "skipped");
    assert!(
        g3["reason"]
            .as_str()
            .unwrap()
            .contains("has no ncclGetVersion"),
        "{g3:#}"
    );
    assert_eq!(hazard(&r, "GPU001")["verdict"], "reproduced");
}

#[test]
fn zero_devices_and_a_failing_cuinit_exit_3() {
    let out = probe(&["--json"], &[("GPUDOUBLE_DEVICES", "0")]);
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("CUDA_ERROR_NO_DEVICE"),
        "{v}"
    );

    let out = probe(&[], &[("GPUDOUBLE_FAIL", "cuInit=999")]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cuInit → 999 CUDA_ERROR_UNKNOWN"), "{err}");
}

#[test]
fn failing_calls_are_reported_not_panicked_on() {
    // Every allocation fails: the fixes cannot work, and the report says why.
    let r = probe_json(
        &["--hazard", "GPU001"],
        &[("GPUDOUBLE_FAIL", "cuMemAlloc_v2=2")],
    );
    let g1 = hazard(&r, "GPU001");
    assert_eq!(g1["verdict"], "skipped", "{g1:#}");
    assert!(
        g1["reason"]
            .as_str()
            .unwrap()
            .contains("cuMemAlloc → 2 CUDA_ERROR_OUT_OF_MEMORY"),
        "{g1:#}"
    );
    let f = fix(g1, "spawn");
    assert_eq!(f["works"], false);
    assert!(
        f["detail"]
            .as_str()
            .unwrap()
            .contains("CUDA_ERROR_OUT_OF_MEMORY"),
        "{f:#}"
    );

    // NCCL itself fails.
    let r = probe_json(
        &["--hazard", "GPU003"],
        &[("GPUDOUBLE_FAIL", "ncclCommInitRank=2")],
    );
    let g3 = hazard(&r, "GPU003");
    assert_eq!(g3["verdict"], "skipped", "{g3:#}");
    assert!(
        g3["reason"]
            .as_str()
            .unwrap()
            .starts_with("the reproduction failed: rank 0: ncclCommInitRank → 2"),
        "{g3:#}"
    );
    assert_eq!(fix(g3, "set-device-first")["works"], false);
}

#[test]
fn a_crashing_worker_is_reported_as_a_crash_with_its_signal() {
    // The driver faults in cuMemAlloc: every process that allocates dies of SIGABRT.
    let r = probe_json(
        &["--hazard", "GPU001"],
        &[("GPUDOUBLE_FAIL", "cuMemAlloc_v2=abort")],
    );
    let g1 = hazard(&r, "GPU001");
    assert_eq!(g1["verdict"], "skipped", "{g1:#}");
    let reason = g1["reason"].as_str().unwrap();
    assert!(
        reason.contains("the reproduction's process failed: the worker died of signal 6 (SIGABRT)"),
        "{g1:#}"
    );
    for name in ["spawn", "fork-before-init", "forkserver"] {
        let f = fix(g1, name);
        assert_eq!(f["works"], false, "{f:#}");
        assert!(
            !f["detail"].as_str().unwrap().contains("in time"),
            "a crash is not a timeout: {f:#}"
        );
    }
    assert!(
        fix(g1, "spawn")["detail"]
            .as_str()
            .unwrap()
            .contains("SIGABRT"),
        "{g1:#}"
    );
}

#[test]
fn a_timeout_is_inconclusive_and_bounded() {
    // Making a context takes 3 s in every process; each step may take 0.5 s.
    let start = Instant::now();
    let r = probe_json(
        &[
            "--hazard",
            "GPU002",
            "--hazard",
            "GPU001",
            "--timeout",
            "0.5",
            "--workers",
            "8",
        ],
        &[("GPUDOUBLE_CONTEXT_MS", "3000")],
    );
    let elapsed = start.elapsed();
    for rule in ["GPU001", "GPU002"] {
        let h = hazard(&r, rule);
        assert_eq!(h["verdict"], "skipped", "{h:#}");
        assert!(
            h["reason"].as_str().unwrap().starts_with("inconclusive: "),
            "{h:#}"
        );
    }
    assert!(fix(hazard(&r, "GPU001"), "spawn")["detail"]
        .as_str()
        .unwrap()
        .contains("no answer in time"));
    // Six steps, each bounded by the timeout (twice for the fork reproduction), however many workers.
    assert!(elapsed < Duration::from_secs(12), "{elapsed:?}");
}

#[test]
fn a_driver_that_never_answers_the_probe_itself_exits_3_in_time() {
    let start = Instant::now();
    let out = probe(
        &["--json", "--timeout", "0.5"],
        &[("GPUDOUBLE_INIT_MS", "20000")],
    );
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["reason"],
        "the CUDA driver (cuInit and the device queries) did not answer within 0.5 s"
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_detail_the_driver_refuses_is_named_and_the_probe_goes_on() {
    let r = probe_json(
        &["--hazard", "GPU001"],
        &[("GPUDOUBLE_FAIL", "cuDeviceGetName=999")],
    );
    let missing = r["host"]["missing"].as_array().unwrap();
    assert!(
        missing.iter().any(|m| m
            .as_str()
            .unwrap()
            .starts_with("CUDA: cuDeviceGetName → 999 CUDA_ERROR_UNKNOWN")),
        "{missing:?}"
    );
    assert_eq!(r["host"]["gpus"][0]["name"], "unknown");
    assert_eq!(hazard(&r, "GPU001")["verdict"], "reproduced");
}

#[test]
fn running_gpu_0_out_of_memory_is_the_pile_up() {
    // 900 MiB holds one worker (500 MiB context + 256 MiB model) but never two contexts, so the
    // count does not depend on how the workers' steps interleave, as it would with room for
    // two contexts and one model (the real driver races the same way). Each GPU holds one
    // worker under the fix.
    let r = probe_json(
        &["--hazard", "GPU002", "--workers", "2"],
        &[("GPUDOUBLE_TOTAL_MIB", "900")],
    );
    let g2 = hazard(&r, "GPU002");
    assert_eq!(g2["verdict"], "reproduced", "{g2:#}");
    assert!(
        evidence(g2).contains(
            "GPU 0 ran out of memory: 1 of 2 workers failed with CUDA_ERROR_OUT_OF_MEMORY there"
        ),
        "{g2:#}"
    );
    assert_eq!(g2["fixes"][0]["works"], true, "{g2:#}");
}

#[test]
fn one_worker_cannot_pile_up() {
    let r = probe_json(&["--hazard", "GPU002", "--workers", "1"], &[]);
    assert_eq!(
        hazard(&r, "GPU002")["reason"],
        "needs ≥ 2 workers (--workers)"
    );
}

#[test]
fn a_killed_probe_leaves_no_worker_behind() {
    // A reproduction whose forked child hangs in the driver, killed with the probe mid-way: the
    // worker and its hung child must die with it. A marker in their environment finds them.
    let marker = format!("gpulint-orphan-check-{}", std::process::id());
    let mut child = probe_cmd(
        &["--hazard", "GPU001", "--timeout", "30"],
        &[
            ("GPUDOUBLE_HANG_AFTER_FORK", "1"),
            ("GPUDOUBLE_NAME", &marker),
        ],
    )
    .stdout(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let with_marker = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .chars()
                    .all(|c| c.is_ascii_digit())
            })
            .filter(|e| {
                std::fs::read(e.path().join("environ"))
                    .is_ok_and(|env| env.windows(marker.len()).any(|w| w == marker.as_bytes()))
            })
            .count()
    };
    let start = Instant::now();
    while with_marker() < 4 && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        with_marker() >= 4,
        "the script, gpulint, the worker and its hung child should be running"
    );
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    child.wait().unwrap();
    let start = Instant::now();
    while with_marker() > 0 && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(with_marker(), 0, "processes outlived the probe");
}

#[test]
fn a_hanging_child_is_killed_by_the_watchdog() {
    let start = Instant::now();
    let r = probe_json(
        &["--hazard", "GPU001", "--timeout", "1"],
        &[("GPUDOUBLE_HANG_AFTER_FORK", "1")],
    );
    let g1 = hazard(&r, "GPU001");
    assert_eq!(g1["verdict"], "reproduced", "{g1:#}");
    assert!(
        evidence(g1).contains("cuInit did not return: the child hung and the watchdog killed it"),
        "{g1:#}"
    );
    // Spawned and fork-before-init workers are not forked after init: they still work.
    assert_eq!(fix(g1, "spawn")["works"], true);
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn nccl_2_30_says_multiple_ranks_and_allows_them_when_asked() {
    let r = probe_json(
        &["--hazard", "GPU003"],
        &[("GPUDOUBLE_NCCL_VERSION", "23000")],
    );
    let g3 = hazard(&r, "GPU003");
    assert_eq!(g3["verdict"], "reproduced");
    assert!(
        evidence(g3).contains("NCCL_MULTI_RANK_GPU_ENABLE=1"),
        "{g3:#}"
    );

    let r = probe_json(
        &["--hazard", "GPU003"],
        &[
            ("GPUDOUBLE_NCCL_VERSION", "23000"),
            ("NCCL_MULTI_RANK_GPU_ENABLE", "1"),
        ],
    );
    let g3 = hazard(&r, "GPU003");
    assert_eq!(g3["verdict"], "reproduced", "{g3:#}");
    assert!(
        evidence(g3).contains("every rank's communicator is on GPU 0"),
        "{g3:#}"
    );
    assert!(
        evidence(g3).contains("NVML: GPU 0 holds 2 of the 2 rank processes"),
        "{g3:#}"
    );
}

#[test]
fn cuda_ordinals_map_to_nvml_indices_by_uuid() {
    let r = probe_json(
        &["--hazard", "GPU001"],
        &[("CUDA_VISIBLE_DEVICES", "1"), ("GPUDOUBLE_DEVICES", "2")],
    );
    let gpus = r["host"]["gpus"].as_array().unwrap();
    assert_eq!(gpus.len(), 1);
    assert_eq!(gpus[0]["ordinal"], 0);
    assert_eq!(gpus[0]["nvml_index"], 1, "{gpus:#?}");
    // The workers use CUDA ordinal 0, which NVML calls index 1: memory is still found.
    assert_eq!(fix(hazard(&r, "GPU001"), "spawn")["mib"], 501);
}

#[test]
fn findings_run_only_their_rules_and_are_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    let findings = dir.path().join("findings.json");
    let case = common::root().join("corpus/gpu001");
    let check = common::gpulint(&["check", "--output-format", "json", "--exit-zero"], &case);
    assert!(check.status.success());
    std::fs::write(&findings, &check.stdout).unwrap();
    let all: Value = serde_json::from_slice(&check.stdout).unwrap();
    let codes: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert!(codes.contains(&"GPU001"));

    let r = probe_json(&["--findings", findings.to_str().unwrap()], &[]);
    let rules: Vec<&str> = r["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["rule"].as_str().unwrap())
        .collect();
    let mut want: Vec<&str> = codes
        .iter()
        .copied()
        .filter(|c| ["GPU001", "GPU002", "GPU003"].contains(c))
        .collect();
    want.sort();
    want.dedup();
    assert_eq!(rules, want);
    let checks = r["findings"].as_array().unwrap();
    assert_eq!(checks.len(), codes.len());
    for c in checks.iter().filter(|c| c["code"] == "GPU001") {
        assert_eq!(c["status"], "confirmed", "{c:#}");
        assert!(
            c["evidence"]
                .as_str()
                .unwrap()
                .contains("cuInit → 3 CUDA_ERROR_NOT_INITIALIZED"),
            "{c:#}"
        );
    }

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "[\n  {\"code\": ").unwrap();
    let out = probe(&["--findings", bad.to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.json:2:"), "{err}");
}

#[test]
fn under_a_launcher_each_rank_probes_gpu003_with_the_others() {
    // Two ranks as torchrun would start them, sharing NCCL ids through rank 0 on a free port.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let state = tempfile::tempdir().unwrap();
    let ranks: Vec<_> = (0..2)
        .map(|r| {
            let rank = r.to_string();
            probe_cmd(
                &["--json", "--timeout", "20"],
                &[
                    ("RANK", &rank),
                    ("LOCAL_RANK", &rank),
                    ("WORLD_SIZE", "2"),
                    ("MASTER_ADDR", "127.0.0.1"),
                    ("GPULINT_PROBE_PORT", &port),
                    ("GPUDOUBLE_STATE", state.path().to_str().unwrap()),
                ],
            )
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let reports: Vec<Value> = ranks
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(0));
            serde_json::from_slice(&out.stdout).unwrap()
        })
        .collect();
    for (r, report) in reports.iter().enumerate() {
        assert_eq!(report["host"]["launcher"]["rank"], r);
        assert_eq!(hazard(report, "GPU001")["verdict"], "skipped");
        let g3 = hazard(report, "GPU003");
        assert_eq!(g3["verdict"], "reproduced", "{g3:#}");
        assert!(evidence(g3).contains("Duplicate GPU detected"), "{g3:#}");
        assert_eq!(fix(g3, "set-device-first")["works"], true, "{g3:#}");
    }
}

#[test]
fn impossible_launcher_numbers_exit_2() {
    let out = probe(
        &["--hazard", "GPU003"],
        &[("RANK", "3"), ("WORLD_SIZE", "2")],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("RANK=3 WORLD_SIZE=2 LOCAL_RANK=0: a rank must lie in 0..WORLD_SIZE"),
        "{err}"
    );
}

#[test]
fn an_srun_step_is_a_launch_and_a_batch_script_is_not() {
    let out = probe(
        &["--hazard", "GPU003"],
        &[
            ("SLURM_PROCID", "5"),
            ("SLURM_NTASKS", "2"),
            ("SLURM_STEP_ID", "0"),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "SLURM_PROCID=5 SLURM_NTASKS=2 SLURM_LOCALID=0: a rank must lie in 0..SLURM_NTASKS"
        ),
        "{err}"
    );

    // sbatch sets SLURM_PROCID and SLURM_NTASKS in the batch script too, with no step id.
    let r = probe_json(
        &["--hazard", "GPU007"],
        &[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "4")],
    );
    assert_eq!(r["host"]["launcher"], Value::Null);
    assert_eq!(hazard(&r, "GPU007")["verdict"], "reproduced");
}

#[test]
fn bad_arguments_exit_2() {
    let out = common::gpulint(&["probe", "--hazard", "GPU999"], Path::new("."));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("the probe reproduces GPU001 (fork-after-cuda-init)"));
}

#[test]
fn a_driver_library_in_the_working_directory_is_never_loaded() {
    // `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/x` with the variable unset leaves an empty entry,
    // which the loader reads as the working directory: a cloned repository's `libcuda.so` there
    // would be loaded and its constructor run.
    doubles_built();
    let cwd = tempfile::tempdir().unwrap();
    for name in ["libcuda.so", "libcuda.so.1"] {
        std::fs::copy(double_path("libgpudouble_cuda.so"), cwd.path().join(name)).unwrap();
    }
    let empty = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .arg("probe")
        .current_dir(cwd.path())
        .env(
            "LD_LIBRARY_PATH",
            format!(":{}:lib", empty.path().display()),
        )
        .env("GPUDOUBLE_STATE", state.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("not absolute folders are not searched")
            && err.contains("'' (the working directory)")
            && err.contains("'lib'"),
        "{err}"
    );
    assert!(err.contains("no CUDA driver"), "{err}");
    assert!(
        err.contains(&format!("LD_LIBRARY_PATH={}", empty.path().display()))
            && !err.contains(&cwd.path().display().to_string()),
        "{err}"
    );
}
