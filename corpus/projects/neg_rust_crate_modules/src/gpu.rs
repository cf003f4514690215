use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream};

pub fn open(ordinal: usize) -> Arc<CudaStream> {
    CudaContext::new(ordinal).unwrap().default_stream()
}
