// hazard: tch::Device::Cuda gets the global rank, so a model lands on a GPU the node lacks
use tch::{nn, Device};

fn main() {
    let rank: usize = std::env::var("RANK").map(|r| r.parse().unwrap()).unwrap_or(0);
    let device = Device::Cuda(rank); // expect: GPU103
    let vs = nn::VarStore::new(device);
    println!("{:?}", vs.device());
}
