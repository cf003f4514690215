// silent: the rank chooses a data shard, not a device
use candle_core::Device;

fn main() {
    let rank: usize = std::env::var("RANK").unwrap().parse().unwrap();
    let shard = format!("data/shard-{rank:05}.bin");
    let device = Device::new_cuda(0).unwrap();
    println!("{shard} on {device:?}");
}
