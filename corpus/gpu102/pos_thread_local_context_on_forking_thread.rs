// hazard: the main thread keeps its cust context in a thread_local! slot and fills it before forking; fork copies that thread, slot included, so the child reuses the parent's context
use std::cell::OnceCell;

use cust::context::Context;
use nix::unistd::{fork, ForkResult};

thread_local! {
    static GPU: OnceCell<Context> = OnceCell::new(); // expect: GPU102
}

fn api_version() -> u32 {
    GPU.with(|slot| {
        let ctx = slot.get_or_init(|| cust::quick_init().unwrap());
        ctx.get_api_version().unwrap() as u32
    })
}

fn main() {
    println!("{}", api_version());
    match unsafe { fork() }.unwrap() { // expect: GPU101
        ForkResult::Child => {
            println!("{}", api_version());
            std::process::exit(0);
        }
        ForkResult::Parent { .. } => {}
    }
}
