// hazard: a worker thread opens its own CUDA context in its thread-local slot, so the process has initialised CUDA when the main thread forks; the child's thread-local slot is empty (fork copies only the main thread), so it opens a context of its own, which fails in a forked child
use std::cell::OnceCell;

use cust::context::Context;
use nix::unistd::{fork, ForkResult};

thread_local! {
    static SLOT: OnceCell<Context> = OnceCell::new();
}

fn with_context() {
    SLOT.with(|slot| {
        let ctx = slot.get_or_init(|| cust::quick_init().unwrap());
        let _ = ctx.get_api_version();
    });
}

fn main() {
    std::thread::spawn(|| with_context()).join().unwrap();
    match unsafe { fork() }.unwrap() { // expect: GPU101
        ForkResult::Child => {
            with_context();
            std::process::exit(0);
        }
        ForkResult::Parent { .. } => {}
    }
}
