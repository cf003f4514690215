//! Per-rank probing under torchrun or srun: the launcher started one probe per rank and set
//! RANK/WORLD_SIZE (or SLURM_PROCID/SLURM_NTASKS). Rank 0 makes the NCCL ids and hands them to the
//! other ranks over TCP at MASTER_ADDR, on GPULINT_PROBE_PORT or MASTER_PORT + 1 (the launcher's
//! own store holds MASTER_PORT).

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::report::Launcher;

/// Rank 0's host and the port the ids are served on.
fn address() -> Result<(String, u16), String> {
    let nodes = std::env::var("SLURM_NNODES")
        .ok()
        .and_then(|n| n.parse::<u32>().ok())
        .unwrap_or(1);
    let host = match std::env::var("MASTER_ADDR") {
        Ok(h) => h,
        Err(_) if nodes > 1 => {
            return Err(format!(
                "the ranks run on {nodes} nodes: set MASTER_ADDR to rank 0's host"
            ))
        }
        Err(_) => "127.0.0.1".into(),
    };
    let port = match std::env::var("GPULINT_PROBE_PORT") {
        Ok(p) => p
            .parse::<u16>()
            .map_err(|_| format!("GPULINT_PROBE_PORT={p} is not a port"))?,
        Err(_) => match std::env::var("MASTER_PORT") {
            Ok(p) => p
                .parse::<u16>()
                .map_err(|_| format!("MASTER_PORT={p} is not a port"))?
                .wrapping_add(1),
            Err(_) => 29501,
        },
    };
    Ok((host, port))
}

/// Shares `ids` (made by rank 0) with every rank; returns them on every rank.
pub fn exchange(
    l: &Launcher,
    make: impl FnOnce() -> Result<String, String>,
    timeout: Duration,
) -> Result<String, String> {
    let (host, port) = address()?;
    let addr = format!("{host}:{port}");
    let deadline = Instant::now() + timeout;
    if l.rank == 0 {
        let ids = make()?;
        let listener = TcpListener::bind(format!("0.0.0.0:{port}"))
            .map_err(|e| format!("listening on port {port}: {e}"))?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let mut served = 1;
        while served < l.world_size {
            match listener.accept() {
                Ok((mut s, _)) => {
                    let _ = s.set_nonblocking(false);
                    writeln!(s, "{ids}").map_err(|e| e.to_string())?;
                    served += 1;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
                        return Err(format!(
                            "only {served} of {} ranks reached {addr} in {timeout:?}",
                            l.world_size
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(e.to_string()),
            }
        }
        return Ok(ids);
    }
    loop {
        let target = addr.to_socket_addrs().ok().and_then(|mut a| a.next());
        if let Some(s) =
            target.and_then(|t| TcpStream::connect_timeout(&t, Duration::from_secs(1)).ok())
        {
            let _ = s.set_read_timeout(Some(
                deadline
                    .saturating_duration_since(Instant::now())
                    .max(Duration::from_millis(1)),
            ));
            let mut line = String::new();
            BufReader::new(s)
                .read_line(&mut line)
                .map_err(|e| format!("reading the ids from {addr}: {e}"))?;
            return Ok(line.trim().to_string());
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "rank 0 did not answer at {addr} within {timeout:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
