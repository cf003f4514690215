// hazard: Slurm's job-wide task id is used as the candle CUDA ordinal
use candle_core::Device;

fn main() -> anyhow::Result<()> {
    let rank = std::env::var("SLURM_PROCID")?.parse::<usize>()?;
    let device = Device::new_cuda(
        rank, // expect: GPU103
    )?;
    println!("{device:?}");
    Ok(())
}
