// silent: a probe, not a use — the child asks how many devices there are, which returns an error
// in a forked child instead of using the parent's context
use cudarc::driver::CudaContext;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let n = CudaContext::device_count().unwrap_or(0);
        println!("{n}");
        unsafe { libc::_exit(0) };
    }
    let _ = ctx.default_stream();
}
