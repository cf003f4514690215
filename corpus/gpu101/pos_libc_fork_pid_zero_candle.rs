// hazard: candle's CUDA device is created, then libc::fork; the child builds a tensor on it
use candle_core::{DType, Device, Tensor};

fn main() -> candle_core::Result<()> {
    let device = Device::new_cuda(0)?;
    let weights = Tensor::ones((4, 4), DType::F32, &device)?;
    let pid = unsafe { libc::fork() }; // expect: GPU101
    if pid == 0 {
        let x = Tensor::zeros((4, 4), DType::F32, &device)?;
        let _ = x.matmul(&weights)?;
        unsafe { libc::_exit(0) };
    }
    println!("parent {}", weights.dims().len());
    Ok(())
}
