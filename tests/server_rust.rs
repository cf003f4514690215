//! `gpulint server` on a Rust file: checked through the Rust frontend as `gpulint check` checks it
//! (its crate's modules read from disk, and checked again when the client reports one changed),
//! with `// noqa` as the suppression comment.

mod lsp;

use std::fs;

use serde_json::json;

use lsp::{apply_edits, initialize, uri, Client};

/// A crate root that forks after calling into its `worker` module, whose child creates a CUDA
/// context: a hazard exactly when `worker::prepare` initialises CUDA in the parent (GPU101).
const MAIN: &str = "use cudarc::driver::CudaContext;
use nix::unistd::{fork, ForkResult};

mod worker;

fn main() {
    worker::prepare();
    if let Ok(ForkResult::Child) = unsafe { fork() } {
        let _context = CudaContext::new(0).unwrap();
    }
}
";
const WORKER_IDLE: &str = "pub fn prepare() {}\n";
const WORKER_CUDA: &str = "use cudarc::driver::CudaContext;

pub fn prepare() {
    let _context = CudaContext::new(0).unwrap();
}
";

#[test]
fn a_rust_file_is_checked_again_when_its_module_changes_on_disk_and_takes_a_noqa_comment() {
    let (_dir, root) = lsp::project();
    fs::create_dir(root.join("src")).unwrap();
    fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"forks\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    let main_path = root.join("src").join("main.rs");
    let worker_path = root.join("src").join("worker.rs");
    fs::write(&main_path, MAIN).unwrap();
    fs::write(&worker_path, WORKER_IDLE).unwrap();
    let main = uri(&main_path);

    let mut client = Client::start(&root);
    let watching = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    initialize(&mut client, &root, watching);
    let register = client.wait_for(|m| m["method"] == "client/registerCapability");
    let globs = register["params"]["registrations"][0]["registerOptions"]["watchers"].to_string();
    assert!(
        globs.contains("**/*.rs") && globs.contains("**/Cargo.toml"),
        "{globs}"
    );
    client.send(json!({"jsonrpc": "2.0", "id": register["id"], "result": null}));

    client.open(&main, "rust", MAIN);
    assert_eq!(client.diagnostics(&main)["diagnostics"], json!([]));

    // The module now initialises CUDA: saved by another tool, reported by the client's watcher.
    fs::write(&worker_path, WORKER_CUDA).unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&worker_path), "type": 2}]}),
    );
    let published = client.diagnostics(&main);
    let [d] = published["diagnostics"].as_array().unwrap().as_slice() else {
        panic!("one finding: {published:#}");
    };
    assert_eq!(d["code"], "GPU101");
    let fork_line = "    if let Ok(ForkResult::Child) = unsafe { fork() } {";
    assert_eq!(d["range"]["start"]["line"], 7);
    assert_eq!(
        d["range"]["start"]["character"],
        fork_line.find("fork()").unwrap()
    );
    let related = d["relatedInformation"].to_string();
    assert!(related.contains(&uri(&worker_path)), "{related}");

    // Disabled for the line with a Rust comment, which silences it.
    let actions = client.code_actions(&main, 12, None);
    let [noqa] = actions.as_slice() else {
        panic!("only the noqa action: {actions:#?}");
    };
    assert_eq!(noqa["title"], "Disable GPU101 for this line");
    let edits = noqa["edit"]["changes"][&main].as_array().unwrap();
    assert_eq!(edits[0]["newText"], "  // noqa: GPU101");
    let silenced = apply_edits(MAIN, edits);
    assert!(silenced.contains(&format!("{fork_line}  // noqa: GPU101\n")));
    client.change(&main, 2, &silenced);
    let published = client.diagnostics(&main);
    assert_eq!(published["version"], 2);
    assert_eq!(published["diagnostics"], json!([]));
    client.shutdown();
}
