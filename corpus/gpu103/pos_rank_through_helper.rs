// hazard: a helper returns the global rank, and main opens that ordinal
use cudarc::driver::CudaContext;

fn global_rank() -> usize {
    std::env::var("RANK")
        .expect("launched by torchrun")
        .parse()
        .expect("a number")
}

fn main() {
    let ctx = CudaContext::new(global_rank()).unwrap(); // expect: GPU103
    drop(ctx);
}
