// hazard: the global rank read from RANK picks the cudarc device
use std::env;

use cudarc::driver::CudaContext;

fn main() {
    let rank: usize = env::var("RANK").unwrap().parse().unwrap();
    let ctx = CudaContext::new(rank).unwrap(); // expect: GPU103
    let _ = ctx.default_stream();
}
