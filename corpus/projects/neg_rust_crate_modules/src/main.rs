//! silent: fork before init — the workers module forks first, and each child opens its own
//! context through the gpu module; the parent opens one only afterwards
mod gpu;
mod workers;

use crate::gpu::open as open_device;

fn main() {
    workers::start(4);
    let stream = open_device(0);
    drop(stream);
}
