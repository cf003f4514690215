//! Snapshots of the rendered output (`full` and `json`) of every corpus case, corpus project and
//! example: a change of message, label, related location or fix shows up in review, not just a
//! changed line number. A reviewer reads the fixture and its snapshot and knows what users see.

mod common;

use std::path::Path;

use common::*;

fn render(format: &str, target: &str, dir: &Path) -> String {
    let out = gpulint(&["check", "--output-format", format, target], dir);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let absolute = std::fs::canonicalize(dir).unwrap().display().to_string();
    text.replace(&absolute, "[ROOT]")
}

/// Every case under `dir`: each `.py` file and notebook outside `projects/`, and each folder of
/// `projects/`.
fn cases(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = case_files(dir)
        .iter()
        .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
        .filter(|rel| !rel.starts_with("projects/"))
        .collect();
    if let Ok(entries) = std::fs::read_dir(dir.join("projects")) {
        let mut projects: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| format!("projects/{}", e.file_name().to_string_lossy()))
            .collect();
        projects.sort();
        out.extend(projects);
    }
    out
}

fn snapshot_all(folder: &str) {
    let dir = root().join(folder);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("tests/snapshots").join(folder));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for case in cases(&dir) {
            let name = case.replace(['/', '.'], "_");
            for format in ["full", "json"] {
                insta::assert_snapshot!(format!("{format}__{name}"), render(format, &case, &dir));
            }
        }
    });
}

#[test]
fn corpus_output() {
    snapshot_all("corpus");
}

/// A notebook's findings in the concise format: `path:cell N:line:col:` (the full one is among the
/// corpus snapshots).
#[test]
fn notebook_concise_output() {
    let dir = root().join("corpus");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("tests/snapshots/corpus"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for case in [
            "gpu001/pos_notebook_model_cuda_then_pool.ipynb",
            "gpu006/pos_notebook_dataset_to_spawn_loader.ipynb",
        ] {
            let name = case.replace(['/', '.'], "_");
            insta::assert_snapshot!(format!("concise__{name}"), render("concise", case, &dir));
        }
    });
}

#[test]
fn examples_output() {
    snapshot_all("examples");
}
