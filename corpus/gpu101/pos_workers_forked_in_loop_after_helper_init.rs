// hazard: a helper creates the context, then main forks one worker per shard, and each worker
// runs a function of the crate that launches work on the inherited stream
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream};
use nix::unistd::{fork, ForkResult};

fn open_gpu() -> Arc<CudaStream> {
    let ctx = CudaContext::new(0).expect("a GPU");
    ctx.default_stream()
}

fn work(stream: &Arc<CudaStream>, shard: usize) {
    let data = vec![shard as f32; 1024];
    let on_gpu = stream.memcpy_stod(&data).unwrap();
    drop(on_gpu);
}

fn main() {
    let stream = open_gpu();
    for shard in 0..4 {
        match unsafe { fork() } { // expect: GPU101
            Ok(ForkResult::Child) => {
                work(&stream, shard);
                std::process::exit(0);
            }
            Ok(ForkResult::Parent { .. }) => {}
            Err(e) => panic!("fork: {e}"),
        }
    }
}
