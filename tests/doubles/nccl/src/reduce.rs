//! ncclAllReduce, run synchronously: each rank writes its send buffer to `ar.<seq>.<rank>` in
//! the rendezvous folder, waits for every rank's file of the same sequence number, and reduces
//! them in rank order (so every rank gets the same bits). Buffers are the libcuda double's host
//! memory, read and written directly.

use std::fs;
use std::path::Path;
use std::time::Duration;

use gpudouble_state::layout;

use crate::comm::Comm;
use crate::types::*;

const POLL: Duration = Duration::from_millis(1);

trait Elem: Copy {
    const SIZE: usize;
    fn read(bytes: &[u8]) -> Self;
    fn bytes(self) -> Vec<u8>;
    fn sum(self, other: Self) -> Self;
}

macro_rules! elem {
    ($t:ty, $sum:ident) => {
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(bytes: &[u8]) -> Self {
                <$t>::from_ne_bytes(bytes.try_into().expect("slice of SIZE bytes"))
            }
            fn bytes(self) -> Vec<u8> {
                self.to_ne_bytes().to_vec()
            }
            fn sum(self, other: Self) -> Self {
                self.$sum(other)
            }
        }
    };
}

// Integers wrap like the GPU's do; floats add.
elem!(i32, wrapping_add);
elem!(u32, wrapping_add);
elem!(i64, wrapping_add);
elem!(u64, wrapping_add);

trait FloatAdd {
    fn float_add(self, other: Self) -> Self;
}
impl FloatAdd for f32 {
    fn float_add(self, other: Self) -> Self {
        self + other
    }
}
impl FloatAdd for f64 {
    fn float_add(self, other: Self) -> Self {
        self + other
    }
}
elem!(f32, float_add);
elem!(f64, float_add);

fn sum<T: Elem>(parts: &[Vec<u8>]) -> Vec<u8> {
    let n = parts[0].len() / T::SIZE;
    (0..n)
        .flat_map(|i| {
            let at = |p: &Vec<u8>| T::read(&p[i * T::SIZE..(i + 1) * T::SIZE]);
            parts[1..]
                .iter()
                .fold(at(&parts[0]), |acc, p| acc.sum(at(p)))
                .bytes()
        })
        .collect()
}

/// Combines every rank's bytes into the result's bytes.
type Reducer = fn(&[Vec<u8>]) -> Vec<u8>;

/// (element size, reducer) for the supported types.
fn kind(datatype: u32) -> Option<(usize, Reducer)> {
    Some(match datatype {
        NCCL_INT32 => (4, sum::<i32>),
        NCCL_UINT32 => (4, sum::<u32>),
        NCCL_INT64 => (8, sum::<i64>),
        NCCL_UINT64 => (8, sum::<u64>),
        NCCL_FLOAT32 => (4, sum::<f32>),
        NCCL_FLOAT64 => (8, sum::<f64>),
        _ => return None,
    })
}

fn part(dir: &Path, seq: u64, rank: usize) -> std::path::PathBuf {
    dir.join(format!("ar.{seq}.{rank}"))
}

/// # Safety
/// `send` and `recv` must hold `count` elements of `datatype` (they may be the same buffer).
pub(crate) unsafe fn all_reduce(
    comm: &mut Comm,
    send: *const u8,
    recv: *mut u8,
    count: usize,
    datatype: u32,
    op: u32,
) -> Result<(), (ncclResult_t, String)> {
    let invalid = |text: String| (NCCL_INVALID_ARGUMENT, text);
    let Some((size, reducer)) = kind(datatype) else {
        return Err(invalid(format!(
            "AllReduce : data type {datatype} not supported by the test double"
        )));
    };
    if op != NCCL_SUM {
        return Err(invalid(format!(
            "AllReduce : reduction operation {op} not supported by the test double"
        )));
    }
    let bytes = count
        .checked_mul(size)
        .ok_or_else(|| invalid("AllReduce : count too large".into()))?;
    if bytes > 0 && (send.is_null() || recv.is_null()) {
        return Err(invalid("AllReduce : null buffer".into()));
    }
    let system = |e: std::io::Error| (NCCL_SYSTEM_ERROR, format!("AllReduce : {e}"));
    comm.seq += 1;
    let seq = comm.seq;
    let mine = if bytes == 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(send, bytes).to_vec()
    };
    layout::write_atomic(&part(&comm.dir, seq, comm.rank), &mine).map_err(system)?;
    let mut parts = Vec::with_capacity(comm.nranks);
    for r in 0..comm.nranks {
        let path = part(&comm.dir, seq, r);
        // No timeout: a missing rank hangs the collective, as on a GPU.
        let data = loop {
            match fs::read(&path) {
                Ok(d) => break d,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::thread::sleep(POLL),
                Err(e) => return Err(system(e)),
            }
        };
        if data.len() != bytes {
            return Err(invalid(format!(
                "AllReduce : rank {r} sent {} bytes, rank {} {bytes}",
                data.len(),
                comm.rank
            )));
        }
        parts.push(data);
    }
    // Every rank has finished the previous collective (it posted this one), so nobody reads our
    // previous file any more.
    let _ = fs::remove_file(part(&comm.dir, seq - 1, comm.rank));
    if bytes > 0 {
        let out = reducer(&parts);
        std::ptr::copy_nonoverlapping(out.as_ptr(), recv, bytes);
    }
    Ok(())
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn sums_in_rank_order() {
        let parts: Vec<Vec<u8>> = [[1.5f32, -2.0], [0.25, 4.0]]
            .iter()
            .map(|p| p.iter().flat_map(|v| v.to_ne_bytes()).collect())
            .collect();
        let out = sum::<f32>(&parts);
        assert_eq!(f32::read(&out[..4]), 1.75);
        assert_eq!(f32::read(&out[4..]), 2.0);
        let ints: Vec<Vec<u8>> = vec![i32::MAX.bytes(), 1i32.bytes()];
        assert_eq!(i32::read(&sum::<i32>(&ints)), i32::MIN, "wraps");
        assert!(kind(NCCL_FLOAT16).is_none());
    }
}
