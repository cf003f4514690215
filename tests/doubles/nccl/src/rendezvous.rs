//! The rendezvous folder named by a unique id: each rank writes `rank.<r>` (pid, CUDA ordinal,
//! device UUID), then waits for all of them. The duplicate-GPU check reads the records.

use std::fs;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use gpudouble_state::{identity, layout};

use crate::types::*;

/// How long a rank waits for the others. The real bootstrap waits about as patiently; this
/// only keeps a forgotten test process from living forever.
const GATHER_LIMIT: Duration = Duration::from_secs(3600);
const POLL: Duration = Duration::from_millis(2);

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    pub pid: i32,
    pub ordinal: i32,
    pub uuid: [u8; 16],
}

impl Record {
    fn encode(&self) -> String {
        let hex: String = self.uuid.iter().map(|b| format!("{b:02x}")).collect();
        format!("{} {} {}\n", self.pid, self.ordinal, hex)
    }

    fn decode(text: &str) -> Option<Record> {
        let mut parts = text.split_whitespace();
        let pid = parts.next()?.parse().ok()?;
        let ordinal = parts.next()?.parse().ok()?;
        let hex = parts.next()?;
        if hex.len() != 32 {
            return None;
        }
        let mut uuid = [0u8; 16];
        for (i, b) in uuid.iter_mut().enumerate() {
            *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Record { pid, ordinal, uuid })
    }
}

pub(crate) fn publish(dir: &Path, rank: usize, record: &Record) -> io::Result<()> {
    layout::write_atomic(
        &dir.join(format!("rank.{rank}")),
        record.encode().as_bytes(),
    )
}

/// Waits until every rank's record is there (files appear whole, by rename).
pub(crate) fn gather(dir: &Path, nranks: usize) -> io::Result<Vec<Record>> {
    let deadline = Instant::now() + GATHER_LIMIT;
    loop {
        let records: Vec<Option<Record>> = (0..nranks)
            .map(|r| {
                fs::read_to_string(dir.join(format!("rank.{r}")))
                    .ok()
                    .and_then(|t| Record::decode(&t))
            })
            .collect();
        if records.iter().all(Option::is_some) {
            return Ok(records.into_iter().flatten().collect());
        }
        if Instant::now() > deadline {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "ranks missing"));
        }
        std::thread::sleep(POLL);
    }
}

/// NCCL's busId for a device UUID, printed in hex in "Duplicate GPU detected".
fn bus_id(uuid: &[u8; 16]) -> i64 {
    identity::physical_of(uuid).map_or(0, identity::pci_bus_id)
}

/// NCCL's check after the first all-gather. Before 2.30 each rank compares itself with the
/// others ("Duplicate GPU detected : rank <self> and rank <other> both on CUDA device <busId>");
/// from 2.30 every rank compares all pairs by UUID and NCCL_MULTI_RANK_GPU_ENABLE=1 allows it.
pub(crate) fn check_devices(
    records: &[Record],
    rank: usize,
    version: i32,
    multi_rank_gpu: bool,
) -> Result<(), (ncclResult_t, String)> {
    let shared =
        |i: usize| (0..records.len()).find(|&j| j != i && records[j].uuid == records[i].uuid);
    if version >= MULTI_RANK_GPU_VERSION {
        if !multi_rank_gpu && (0..records.len()).any(|i| shared(i).is_some()) {
            return Err((
                NCCL_INVALID_USAGE,
                "Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 \
                 to enable this configuration."
                    .into(),
            ));
        }
        return Ok(());
    }
    let duplicate = |a: usize, b: usize| {
        format!(
            "Duplicate GPU detected : rank {a} and rank {b} both on CUDA device {:x}",
            bus_id(&records[a].uuid)
        )
    };
    if let Some(other) = shared(rank) {
        return Err((NCCL_INVALID_USAGE, duplicate(rank, other)));
    }
    // This rank is fine but others fail here; real NCCL would then lose them at the next
    // bootstrap step. The double ends at once with a remote error that says why.
    if let Some((a, b)) = (0..records.len()).find_map(|i| shared(i).map(|j| (i, j))) {
        return Err((
            NCCL_REMOTE_ERROR,
            format!("remote rank failed: {}", duplicate(a, b)),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod unit {
    use super::*;

    fn rec(physical: u32) -> Record {
        Record {
            pid: 1,
            ordinal: 0,
            uuid: identity::uuid_bytes(physical),
        }
    }

    #[test]
    fn records_round_trip() {
        let r = Record {
            pid: 4242,
            ordinal: 3,
            uuid: identity::uuid_bytes(9),
        };
        assert_eq!(Record::decode(&r.encode()), Some(r));
        assert_eq!(Record::decode("1 2 abc"), None);
    }

    #[test]
    fn duplicate_texts_by_version() {
        let recs = [rec(0), rec(1), rec(1)];
        assert_eq!(check_devices(&[rec(0), rec(1)], 0, 22105, false), Ok(()));
        assert_eq!(
            check_devices(&recs, 2, 22105, false),
            Err((
                5,
                "Duplicate GPU detected : rank 2 and rank 1 both on CUDA device 2000".into()
            ))
        );
        let (code, text) = check_devices(&recs, 0, 22105, false).unwrap_err();
        assert_eq!(code, 6);
        assert!(
            text.ends_with("rank 1 and rank 2 both on CUDA device 2000"),
            "{text}"
        );
        // The variable means nothing before 2.30.
        assert_eq!(check_devices(&recs, 1, 22905, true).unwrap_err().0, 5);
        let (code, text) = check_devices(&recs, 0, 23000, false).unwrap_err();
        assert_eq!(code, 5);
        assert!(text.starts_with("Multiple Ranks are using the same GPU"));
        assert!(text.contains("Set NCCL_MULTI_RANK_GPU_ENABLE=1"));
        assert_eq!(check_devices(&recs, 0, 23000, true), Ok(()));
    }
}
