// hazard: one OnceLock caches the context of whichever ordinal asked first; later ordinals get it
use std::sync::{Arc, OnceLock};

use cudarc::driver::CudaContext;

static CTX: OnceLock<Arc<CudaContext>> = OnceLock::new(); // expect: GPU102

pub fn context(ordinal: usize) -> Arc<CudaContext> {
    CTX.get_or_init(|| CudaContext::new(ordinal).expect("CUDA device"))
        .clone()
}
