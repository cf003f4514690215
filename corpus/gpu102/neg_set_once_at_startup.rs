// silent: the process picks its one device at start-up; the accessor takes no ordinal
use std::sync::{Arc, OnceLock};

use cudarc::driver::CudaContext;

static CTX: OnceLock<Arc<CudaContext>> = OnceLock::new();

fn context() -> Arc<CudaContext> {
    CTX.get().expect("initialised in main").clone()
}

fn main() {
    let local_rank: usize = std::env::var("LOCAL_RANK").unwrap().parse().unwrap();
    let _ = CTX.set(CudaContext::new(local_rank).unwrap());
    let stream = context().default_stream();
    drop(stream);
}
