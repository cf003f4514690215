//! Snapshots of the rendered output for a few corpus cases: a reviewer reads the fixture and its
//! snapshot and knows what users see.

mod common;

use common::*;

fn render(format: &str, file: &str) -> String {
    let dir = root().join("corpus");
    let out = gpulint(&["check", "--output-format", format, file], &dir);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let absolute = std::fs::canonicalize(&dir).unwrap().display().to_string();
    text.replace(&absolute, "[CORPUS]")
}

#[test]
fn full_output() {
    for file in [
        "gpu001/pos_dataset_getitem_cuda.py",
        "gpu002/pos_module_model_cuda0_spawn.py",
        "gpu003/pos_set_device_right_after_init.py",
    ] {
        insta::assert_snapshot!(
            format!("full__{}", file.replace(['/', '.'], "_")),
            render("full", file)
        );
    }
}

#[test]
fn json_output() {
    for file in [
        "gpu001/pos_collate_fn_cuda.py",
        "gpu003/pos_set_device_after_barrier.py",
    ] {
        insta::assert_snapshot!(
            format!("json__{}", file.replace(['/', '.'], "_")),
            render("json", file)
        );
    }
}
