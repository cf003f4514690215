// hazard: the child allocates on a stream of the context its parent created before forking
use cudarc::driver::CudaContext as Ctx;
use nix::unistd::{fork, ForkResult};

fn main() {
    let ctx = Ctx::new(0).unwrap();
    let stream = ctx.default_stream();
    match unsafe { fork() }.expect("fork failed") { // expect: GPU101
        ForkResult::Child => {
            let buf = stream.alloc_zeros::<f32>(1 << 20).unwrap();
            drop(buf);
            std::process::exit(0);
        }
        ForkResult::Parent { child } => {
            nix::sys::wait::waitpid(child, None).unwrap();
        }
    }
}
