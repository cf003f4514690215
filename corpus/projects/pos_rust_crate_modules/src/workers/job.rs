use std::sync::Arc;

use cudarc::driver::CudaStream;

pub fn run(stream: &Arc<CudaStream>, i: usize) {
    let input = vec![i as f32; 256];
    let on_gpu = stream.memcpy_stod(&input).unwrap();
    drop(on_gpu);
}
