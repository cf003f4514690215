//! Rust files: checked unless excluded, `target` folders skipped, syntax errors and noqa comments.

use super::*;

const RUST_HAZARD: &str = "use cudarc::driver::CudaContext;\nuse nix::unistd::{fork, ForkResult};\n\nfn main() {\n    let ctx = CudaContext::new(0).unwrap();\n    if let Ok(ForkResult::Child) = unsafe { fork() } {\n        let _ = ctx.default_stream();\n    }\n}\n";

#[test]
fn rust_files_are_checked_unless_excluded_and_target_folders_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(root.join("target/debug/build")).unwrap();
    fs::create_dir_all(root.join("vendor")).unwrap();
    fs::write(root.join("Cargo.toml"), "[package]\nname = \"k\"\n").unwrap();
    fs::write(root.join("src/main.rs"), RUST_HAZARD).unwrap();
    fs::write(root.join("target/debug/build/out.rs"), RUST_HAZARD).unwrap();
    fs::write(root.join("vendor/copy.rs"), RUST_HAZARD).unwrap();
    fs::write(root.join("gpulint.toml"), "extend-exclude = [\"vendor\"]\n").unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], root);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(text.contains("src/main.rs:6:45: GPU101"), "{text}");
    assert!(
        !text.contains("target") && !text.contains("vendor"),
        "{text}"
    );
}

#[test]
fn a_rust_syntax_error_is_gpu999_on_its_line_and_noqa_comments_apply() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bad.rs"), "fn main() {\n    let x = ;\n}\n").unwrap();
    let quiet = RUST_HAZARD.replace("unsafe { fork() } {", "unsafe { fork() } { // noqa: GPU101");
    fs::write(dir.path().join("quiet.rs"), quiet).unwrap();
    let out = gpulint(
        &["check", "--output-format", "concise", "bad.rs", "quiet.rs"],
        dir.path(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("bad.rs:2:13: GPU999"), "{text}");
    assert!(!text.contains("GPU101"), "{text}");
}
