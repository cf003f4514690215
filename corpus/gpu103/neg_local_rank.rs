// silent: the local rank — LOCAL_RANK numbers the processes of this node only
use cudarc::driver::CudaContext;

fn main() {
    let local_rank: usize = std::env::var("LOCAL_RANK").unwrap().parse().unwrap();
    let ctx = CudaContext::new(local_rank).unwrap();
    drop(ctx);
}
