// silent: one process, one GPU — the cached context takes no ordinal, so no caller asks for another
use std::sync::{Arc, OnceLock};

use cudarc::driver::CudaContext;

static CTX: OnceLock<Arc<CudaContext>> = OnceLock::new();

pub fn context() -> Arc<CudaContext> {
    CTX.get_or_init(|| CudaContext::new(0).unwrap()).clone()
}
