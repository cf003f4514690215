// silent: a probe, not a use — the child only asks tch whether CUDA is available, which answers
// false in a forked child instead of touching the parent's tensor
use tch::{Cuda, Device, Kind, Tensor};

fn main() {
    let t = Tensor::randn([1024, 1024], (Kind::Float, Device::Cuda(0)));
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        println!("cuda in child: {}", Cuda::is_available());
        std::process::exit(0);
    }
    t.sum(Kind::Float).print();
}
