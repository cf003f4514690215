// silent: the local rank — SLURM_LOCALID numbers the tasks on this node, so it is a valid ordinal
use candle_core::{DType, Device, Tensor};

fn main() -> candle_core::Result<()> {
    let local: usize = std::env::var("SLURM_LOCALID")
        .expect("launched by srun")
        .parse()
        .expect("a number");
    let device = Device::new_cuda(local)?;
    let ones = Tensor::ones((8, 8), DType::F32, &device)?;
    println!("{:?}", ones.sum_all()?);
    Ok(())
}
