// hazard: a device accessor takes an ordinal but returns the one LazyLock device on GPU 0
use std::sync::LazyLock;

use candle_core::Device;

static DEVICE: LazyLock<Device> = LazyLock::new(|| Device::new_cuda(0).unwrap()); // expect: GPU102

pub fn device(ordinal: usize) -> Device {
    let _ = ordinal;
    DEVICE.clone()
}
