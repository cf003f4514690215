// silent: the static holds one context per ordinal, keyed by the ordinal asked for
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::CudaContext;

static CONTEXTS: OnceLock<Mutex<HashMap<usize, Arc<CudaContext>>>> = OnceLock::new();

pub fn context(ordinal: usize) -> Arc<CudaContext> {
    let contexts = CONTEXTS.get_or_init(Default::default);
    let mut contexts = contexts.lock().unwrap();
    contexts
        .entry(ordinal)
        .or_insert_with(|| CudaContext::new(ordinal).unwrap())
        .clone()
}
