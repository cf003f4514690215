// hazard: a tch tensor is placed on the GPU, then the process forks and the child reduces it
use tch::{Device, Kind, Tensor};

fn main() {
    let t = Tensor::randn([1024, 1024], (Kind::Float, Device::Cuda(0)));
    let pid = unsafe { libc::fork() }; // expect: GPU101
    if pid == 0 {
        let total = t.sum(Kind::Float);
        total.print();
        std::process::exit(0);
    }
}
