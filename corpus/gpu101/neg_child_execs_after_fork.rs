// silent: the forked child replaces itself with another program at once, so nothing in it reaches
// the parent's CUDA context
use std::ffi::CString;

use cudarc::driver::CudaContext;
use nix::unistd::{execvp, fork, ForkResult};

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    // Built before the fork: the child only calls exec, which allocates nothing.
    let prog = CString::new("nvidia-smi").unwrap();
    let argv = [prog.clone()];
    match unsafe { fork() }.expect("fork failed") {
        ForkResult::Child => {
            let _ = execvp(&prog, &argv);
            unsafe { libc::_exit(127) };
        }
        ForkResult::Parent { child } => {
            let buf = stream.alloc_zeros::<f32>(1 << 20).unwrap();
            nix::sys::wait::waitpid(child, None).unwrap();
            drop(buf);
        }
    }
}
