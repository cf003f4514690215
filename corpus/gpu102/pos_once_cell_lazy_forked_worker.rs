// hazard: a once_cell Lazy CUDA device is read by the parent, and a worker forked with libc uses it
use candle_core::{DType, Device, Tensor};
use once_cell::sync::Lazy;

static GPU: Lazy<Device> = Lazy::new(|| Device::cuda_if_available(0).unwrap()); // expect: GPU102

fn serve() {
    let t = Tensor::zeros((2, 2), DType::F32, &GPU).unwrap();
    println!("{t}");
}

fn main() {
    println!("{:?}", GPU.location());
    let pid = unsafe { libc::fork() }; // expect: GPU101
    if pid == 0 {
        serve();
        unsafe { libc::_exit(0) };
    }
}
