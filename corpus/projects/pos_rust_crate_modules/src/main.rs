//! hazard: the context is opened by a function of another module (imported under an alias), and
//! a worker module forks children that launch on its stream
mod gpu;
mod workers;

use crate::gpu::open as open_device;

fn main() {
    let stream = open_device(0);
    workers::start(&stream, 4);
}
