//! The environment variables the doubles read (documented in tests/doubles/README.md).

use std::path::{Path, PathBuf};

pub const DEFAULT_NAME: &str = "NVIDIA H100 80GB HBM3 (gpulint test double)";
pub const DEFAULT_TOTAL_MIB: u64 = 81559;
pub const DEFAULT_CONTEXT_MIB: u64 = 500;
pub const DEFAULT_DRIVER_VERSION: i32 = 12080;
pub const DEFAULT_DRIVER_STRING: &str = "570.86.15";
pub const DEFAULT_NCCL_VERSION: i32 = 22105;
/// More than any real host has; keeps handle encodings and loops small.
pub const MAX_DEVICES: u32 = 64;

const MIB: u64 = 1024 * 1024;

/// One snapshot of the doubles' settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Physical devices (`GPUDOUBLE_DEVICES`).
    pub devices: u32,
    /// Absolute state folder shared by all processes (`GPUDOUBLE_STATE`).
    pub state_dir: PathBuf,
    pub total_bytes: u64,
    /// What retaining a primary context costs on the device.
    pub context_bytes: u64,
    /// How long cuInit sleeps, to model its cost.
    pub init_ms: u64,
    /// How long creating a primary context sleeps (its first retain in a process), to model
    /// its cost.
    pub context_ms: u64,
    /// CUDA driver API version (e.g. 12080).
    pub driver_version: i32,
    /// NVML's driver version string (e.g. "570.86.15").
    pub driver_string: String,
    /// NCCL_VERSION_CODE (major*10000 + minor*100 + patch).
    pub nccl_version: i32,
    pub name: String,
    /// A forked child's libcuda calls block forever instead of returning 3.
    pub hang_after_fork: bool,
    /// NCCL ≥ 2.30: allow several ranks on one GPU.
    pub multi_rank_gpu: bool,
}

impl Config {
    pub fn from_env() -> Self {
        Self::from_lookup(|key| std::env::var(key).ok())
    }

    /// Builds the settings from any key lookup; unparsable values fall back to the default, since
    /// a library cannot report a configuration error through the C API.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Self {
        let num = |key: &str| get(key).and_then(|v| v.trim().parse::<u64>().ok());
        let int = |key: &str| get(key).and_then(|v| v.trim().parse::<i32>().ok());
        let text = |key: &str| get(key).filter(|v| !v.is_empty());
        let flag = |key: &str| get(key).is_some_and(|v| v.trim() == "1");
        let state_dir = text("GPUDOUBLE_STATE")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                let tmp = text("TMPDIR").unwrap_or_else(|| "/tmp".into());
                Path::new(&tmp).join("gpudouble-state")
            });
        Config {
            devices: num("GPUDOUBLE_DEVICES")
                .unwrap_or(1)
                .min(u64::from(MAX_DEVICES)) as u32,
            state_dir: absolute(state_dir),
            total_bytes: num("GPUDOUBLE_TOTAL_MIB")
                .unwrap_or(DEFAULT_TOTAL_MIB)
                .saturating_mul(MIB),
            context_bytes: num("GPUDOUBLE_CONTEXT_MIB")
                .unwrap_or(DEFAULT_CONTEXT_MIB)
                .saturating_mul(MIB),
            init_ms: num("GPUDOUBLE_INIT_MS").unwrap_or(0),
            context_ms: num("GPUDOUBLE_CONTEXT_MS").unwrap_or(0),
            driver_version: int("GPUDOUBLE_DRIVER_VERSION").unwrap_or(DEFAULT_DRIVER_VERSION),
            driver_string: text("GPUDOUBLE_DRIVER_STRING")
                .unwrap_or_else(|| DEFAULT_DRIVER_STRING.into()),
            nccl_version: int("GPUDOUBLE_NCCL_VERSION").unwrap_or(DEFAULT_NCCL_VERSION),
            name: text("GPUDOUBLE_NAME").unwrap_or_else(|| DEFAULT_NAME.into()),
            hang_after_fork: flag("GPUDOUBLE_HANG_AFTER_FORK"),
            multi_rank_gpu: flag("NCCL_MULTI_RANK_GPU_ENABLE"),
        }
    }
}

/// The NCCL rendezvous path goes into a 128-byte id that other processes (with other working
/// folders) read, so the state folder must be absolute.
fn absolute(path: PathBuf) -> PathBuf {
    if path.is_absolute() {
        return path;
    }
    std::env::current_dir()
        .map(|cwd| cwd.join(&path))
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(pairs: &[(&str, &str)]) -> Config {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults() {
        let c = config(&[]);
        assert_eq!(c.devices, 1);
        assert_eq!(c.state_dir, PathBuf::from("/tmp/gpudouble-state"));
        assert_eq!(c.total_bytes, 81559 * MIB);
        assert_eq!(c.context_bytes, 500 * MIB);
        assert_eq!(c.init_ms, 0);
        assert_eq!(c.context_ms, 0);
        assert_eq!(c.driver_version, 12080);
        assert_eq!(c.driver_string, "570.86.15");
        assert_eq!(c.nccl_version, 22105);
        assert_eq!(c.name, DEFAULT_NAME);
        assert!(!c.hang_after_fork && !c.multi_rank_gpu);
    }

    #[test]
    fn overrides_and_bad_values() {
        let c = config(&[
            ("GPUDOUBLE_DEVICES", "0"),
            ("TMPDIR", "/var/tmp"),
            ("GPUDOUBLE_TOTAL_MIB", "1024"),
            ("GPUDOUBLE_CONTEXT_MIB", "nonsense"),
            ("GPUDOUBLE_NCCL_VERSION", "23000"),
            ("GPUDOUBLE_HANG_AFTER_FORK", "1"),
            ("NCCL_MULTI_RANK_GPU_ENABLE", "0"),
        ]);
        assert_eq!(c.devices, 0);
        assert_eq!(c.state_dir, PathBuf::from("/var/tmp/gpudouble-state"));
        assert_eq!(c.total_bytes, 1024 * MIB);
        assert_eq!(c.context_bytes, 500 * MIB);
        assert_eq!(c.nccl_version, 23000);
        assert!(c.hang_after_fork && !c.multi_rank_gpu);
        let relative = config(&[("GPUDOUBLE_STATE", "rel/state")]);
        assert!(relative.state_dir.is_absolute());
        assert!(relative.state_dir.ends_with("rel/state"));
    }
}
