// silent: fork before init — the LazyLock is first read in each child, which creates its own
use std::sync::{Arc, LazyLock};

use cudarc::driver::CudaContext;
use nix::unistd::{fork, ForkResult};

static CTX: LazyLock<Arc<CudaContext>> = LazyLock::new(|| CudaContext::new(0).unwrap());

fn main() {
    for _ in 0..2 {
        if let Ok(ForkResult::Child) = unsafe { fork() } {
            let stream = CTX.default_stream();
            drop(stream);
            std::process::exit(0);
        }
    }
}
