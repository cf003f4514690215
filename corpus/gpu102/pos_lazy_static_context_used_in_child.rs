// hazard: a lazy_static context is created by the parent, then a forked child launches on it
use std::sync::Arc;

use cudarc::driver::CudaContext;
use lazy_static::lazy_static;
use nix::unistd::{fork, ForkResult};

lazy_static! {
    static ref CTX: Arc<CudaContext> = CudaContext::new(0).unwrap(); // expect: GPU102
}

fn main() {
    let warm = CTX.default_stream();
    drop(warm);
    match unsafe { fork() }.unwrap() { // expect: GPU101
        ForkResult::Child => {
            let stream = CTX.new_stream().unwrap();
            drop(stream);
            std::process::exit(0);
        }
        ForkResult::Parent { .. } => {}
    }
}
