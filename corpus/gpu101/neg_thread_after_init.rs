// silent: threads share the process — a thread started after init uses the same, valid context
use std::thread;

use cudarc::driver::CudaContext;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let worker = {
        let ctx = ctx.clone();
        thread::spawn(move || {
            let stream = ctx.new_stream().unwrap();
            let buf = stream.alloc_zeros::<f32>(128).unwrap();
            drop(buf);
        })
    };
    worker.join().unwrap();
}
