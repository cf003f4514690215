// hazard: cust::quick_init's context is cached in a OnceLock by the parent; the forked child asks the same cache and gets the parent's context back
use std::sync::OnceLock;

use cust::context::Context;
use nix::unistd::{fork, ForkResult};

static SHARED: OnceLock<Context> = OnceLock::new(); // expect: GPU102

fn shared() -> &'static Context {
    SHARED.get_or_init(|| cust::quick_init().expect("no GPU"))
}

fn main() {
    let _ = shared().get_api_version();
    match unsafe { fork() }.unwrap() { // expect: GPU101
        ForkResult::Child => {
            let _ = shared().get_api_version();
            std::process::exit(0);
        }
        ForkResult::Parent { .. } => {}
    }
}
