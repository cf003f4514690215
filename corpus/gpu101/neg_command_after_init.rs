// silent: a new program, not a fork — std::process::Command execs a fresh process that shares no
// CUDA state with the parent
use std::process::Command;

use cudarc::driver::CudaContext;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let status = Command::new("worker").arg("--device=1").status().unwrap();
    let buf = stream.alloc_zeros::<u8>(64).unwrap();
    drop(buf);
    assert!(status.success());
}
