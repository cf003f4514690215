//! The host: driver and library versions, and the GPUs, matched between CUDA and NVML by UUID.

use std::collections::BTreeMap;

use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::Nvml;

use crate::cu::{self, Cu};
use crate::libs;
use crate::report::{Gpu, Host, Launcher, Libraries};

/// What the reproductions need to know about the host.
pub struct Env {
    pub host: Host,
    pub nvml: Option<Nvml>,
    /// Why NCCL cannot be used, when it cannot.
    pub nccl_missing: Option<String>,
}

/// Gathers the host, after `cuInit` has succeeded in this process.
pub fn gather(launcher: Option<Launcher>) -> Cu<Env> {
    let mut missing = Vec::new();
    let mut test_doubles = libs::cuda_is_double();
    let (nvml, nvml_path) = match libs::nvml() {
        Ok((n, double, path)) => {
            test_doubles |= double;
            (Some(n), path)
        }
        Err(why) => {
            missing.push(format!("NVML: {why}"));
            (None, None)
        }
    };
    let (nccl, nccl_path, nccl_missing) = nccl_state(&mut test_doubles);
    if let Some(why) = &nccl_missing {
        missing.push(format!("NCCL: {why}"));
    }
    let (cuda, mut gpus) = cuda_gpus(&mut missing)?;
    let (driver, nvml_cuda) = match &nvml {
        Some(n) => nvml_versions(n, &mut gpus),
        None => (None, None),
    };
    let host = Host {
        driver,
        cuda,
        nvml_cuda,
        nccl,
        missing,
        libraries: Libraries {
            cuda: libs::cuda_path(),
            nvml: nvml_path,
            nccl: nccl_path,
        },
        test_doubles,
        gpus,
        launcher,
    };
    Ok(Env {
        host,
        nvml,
        nccl_missing,
    })
}

/// NCCL's version and path, or why it cannot be used (absent, or older than the probe needs).
fn nccl_state(test_doubles: &mut bool) -> (Option<String>, Option<String>, Option<String>) {
    if libs::nccl_present() {
        *test_doubles |= libs::nccl_is_double();
        if let Some(sym) = libs::nccl_missing_symbol() {
            let path = libs::nccl_path().unwrap_or_else(|| "libnccl.so".into());
            (
                None,
                Some(path.clone()),
                Some(format!(
                    "{path} has no {sym} (the probe needs NCCL 2.13 or later)"
                )),
            )
        } else {
            match crate::nccl::version() {
                Ok(v) => (Some(v), libs::nccl_path(), None),
                Err(e) => (None, libs::nccl_path(), Some(e.to_string())),
            }
        }
    } else {
        let mut why = format!("libnccl.so not found ({})", libs::search_path());
        if let Some(hint) = libs::nccl_hint() {
            why = format!("{why}; {hint}");
        }
        (None, None, Some(why))
    }
}

/// The CUDA driver's version and the GPUs it counts. Only the count is needed to go on: a detail
/// the driver refuses is named in `missing` and left out.
fn cuda_gpus(missing: &mut Vec<String>) -> Cu<(String, Vec<Gpu>)> {
    let mut failed = |e: crate::cu::CuError| {
        missing.push(format!("CUDA: {e}"));
    };
    let cuda = match cu::driver_version() {
        Ok(v) => version_text(v),
        Err(e) => {
            failed(e);
            "unknown".into()
        }
    };
    let mut gpus = Vec::new();
    for ordinal in 0..cu::device_count()? {
        let dev = cu::device(ordinal)?;
        let name = cu::device_name(dev).unwrap_or_else(|e| {
            failed(e);
            "unknown".into()
        });
        let uuid = cu::device_uuid(dev).unwrap_or_else(|e| {
            failed(e);
            String::new()
        });
        let memory_mib = cu::total_mem(dev)
            .map(|b| (b >> 20) as u64)
            .unwrap_or_else(|e| {
                failed(e);
                0
            });
        gpus.push(Gpu {
            ordinal,
            nvml_index: None,
            name,
            uuid,
            memory_mib,
        });
    }
    Ok((cuda, gpus))
}

/// The driver's and NVML's CUDA versions, and each GPU's NVML index, matched by UUID.
fn nvml_versions(n: &Nvml, gpus: &mut [Gpu]) -> (Option<String>, Option<String>) {
    let driver = n.sys_driver_version().ok();
    let nvml_cuda = n.sys_cuda_driver_version().ok().map(version_text);
    let count = n.device_count().unwrap_or(0);
    for index in 0..count {
        let Ok(uuid) = n.device_by_index(index).and_then(|d| d.uuid()) else {
            continue;
        };
        if let Some(g) = gpus
            .iter_mut()
            .find(|g| !g.uuid.is_empty() && g.uuid.eq_ignore_ascii_case(&uuid))
        {
            g.nvml_index = Some(index);
        }
    }
    (driver, nvml_cuda)
}

/// A CUDA version number as "12.8" (12080 → 12.8).
fn version_text(v: i32) -> String {
    format!("{}.{}", v / 1000, v % 1000 / 10)
}

impl Env {
    pub fn gpu_count(&self) -> i32 {
        self.host.gpus.len() as i32
    }

    /// Why NVML cannot list the processes on a GPU (e.g. "Not Supported" on some boards), if it
    /// cannot.
    pub fn process_query_error(&self) -> Option<String> {
        self.host.gpus.iter().find_map(|g| {
            let e = self.processes(g)?.err()?;
            Some(format!(
                "nvmlDeviceGetComputeRunningProcesses on GPU {}: {e}",
                g.ordinal
            ))
        })
    }

    /// Which pids NVML sees on each CUDA ordinal, with the MiB each holds (none where NVML
    /// cannot say). `None` without NVML.
    pub fn holders(&self) -> Option<BTreeMap<i32, Vec<(u32, u64)>>> {
        self.nvml.as_ref()?;
        let listed = self.host.gpus.iter().filter_map(|g| {
            let procs = self.processes(g)?.unwrap_or_default();
            Some((g.ordinal, procs))
        });
        Some(listed.collect())
    }

    /// NVML's compute processes on one GPU as (pid, MiB); `None` when NVML is absent or does not
    /// know the GPU.
    fn processes(&self, g: &Gpu) -> Option<Result<Vec<(u32, u64)>, NvmlError>> {
        let nvml = self.nvml.as_ref()?;
        let procs = nvml
            .device_by_index(g.nvml_index?)
            .and_then(|d| d.running_compute_processes());
        Some(procs.map(|ps| {
            ps.iter()
                .map(|p| {
                    let mib = match p.used_gpu_memory {
                        UsedGpuMemory::Used(b) => b >> 20,
                        UsedGpuMemory::Unavailable => 0,
                    };
                    (p.pid, mib)
                })
                .collect()
        }))
    }
}
