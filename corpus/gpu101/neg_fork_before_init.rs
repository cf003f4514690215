// silent: fork before init — every child creates its own context after the fork, and the parent
// only initialises CUDA once its children exist
use cudarc::driver::CudaContext;
use nix::unistd::{fork, ForkResult};

fn main() {
    for ordinal in 0..2 {
        match unsafe { fork() }.unwrap() {
            ForkResult::Child => {
                let ctx = CudaContext::new(ordinal).unwrap();
                let buf = ctx.default_stream().alloc_zeros::<f32>(256).unwrap();
                drop(buf);
                std::process::exit(0);
            }
            ForkResult::Parent { .. } => {}
        }
    }
    let ctx = CudaContext::new(0).unwrap();
    let _ = ctx.default_stream();
}
