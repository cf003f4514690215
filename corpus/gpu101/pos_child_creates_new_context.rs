// hazard: the parent initialised the driver; a child's own CudaContext::new fails after the fork
use cudarc::driver::{result, CudaContext};
use nix::unistd::{fork, ForkResult};

fn main() {
    result::init().unwrap();
    if let Ok(ForkResult::Child) = unsafe { fork() } { // expect: GPU101
        let ctx = CudaContext::new(1).unwrap();
        let _stream = ctx.new_stream().unwrap();
        std::process::exit(0);
    }
}
