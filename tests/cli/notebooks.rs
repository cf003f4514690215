//! Notebooks from the command line: annotations on the `.ipynb` file's lines, and a Rust extension
//! imported by one.

use super::*;

/// A mixed project: a PyO3 crate whose module initialiser creates a context, a script and a
/// notebook that import it before forking. GPU001 names the Rust line as the initialisation, in
/// both; the same crate initialising lazily, in another project, does not leak into this one.
#[test]
fn a_rust_extension_initialising_cuda_at_import_is_seen_from_python_and_notebooks() {
    let projects = root().join("corpus/projects");
    let out = gpulint(
        &[
            "check",
            "--output-format",
            "json",
            "pos_pyo3_extension_cuda_at_import",
            "neg_pyo3_extension_lazy_cuda",
        ],
        &projects,
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = findings.as_array().unwrap();
    assert_eq!(findings.len(), 2, "{findings:#?}");
    for f in findings {
        assert_eq!(f["code"], "GPU001");
        let file = f["filename"].as_str().unwrap();
        assert!(file.contains("pos_pyo3_extension_cuda_at_import"), "{file}");
        let init = f["related"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| {
                r["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("CUDA was initialised")
            })
            .expect("the initialisation is related");
        assert!(
            init["filename"].as_str().unwrap().ends_with("src/lib.rs"),
            "{init}"
        );
        assert_eq!(init["location"]["row"], 12);
    }
}

/// The 1-based line and column of the `.ipynb` file where `needle` is written.
fn line_col_in(raw: &str, needle: &str) -> (u64, u64) {
    let at = raw.find(needle).unwrap_or_else(|| panic!("{needle:?}"));
    let line = raw[..at].matches('\n').count() as u64 + 1;
    let start = raw[..at].rfind('\n').map_or(0, |i| i + 1);
    (line, raw[start..at].chars().count() as u64 + 1)
}

/// The `key=value` properties of a GitHub workflow command line.
fn property<'a>(command: &'a str, key: &str) -> &'a str {
    let props = command.split("::").nth(1).unwrap();
    props
        .split(',')
        .find_map(|p| p.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("{key} in {command}"))
}

#[test]
fn notebook_annotations_point_at_the_line_of_the_ipynb_file() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = "gpu001/pos_notebook_model_cuda_then_pool.ipynb";
    let raw = fs::read_to_string(root().join("corpus").join(fixture)).unwrap();
    fs::write(dir.path().join("pool.ipynb"), &raw).unwrap();
    // The fork is `mp.Pool(4)` on line 2 of cell 5; the file writes it on a line of its own.
    let (line, column) = line_col_in(&raw, "mp.Pool(4)");
    assert!(
        line > 50,
        "the fixture's cell 5 is far down the file: {line}"
    );
    let (end_line, end_column) = line_col_in(&raw, " as pool:");

    let github = stdout(&gpulint(
        &["check", "--output-format", "github", "pool.ipynb"],
        dir.path(),
    ));
    let command = github.lines().next().unwrap();
    assert!(command.starts_with("::error file=pool.ipynb,"), "{github}");
    assert_eq!(property(command, "line"), line.to_string(), "{command}");
    assert_eq!(property(command, "col"), column.to_string(), "{command}");
    assert_eq!(property(command, "endLine"), end_line.to_string());
    assert_eq!(property(command, "endColumn"), end_column.to_string());
    // The message still says where in the notebook, as users count it.
    assert!(
        command.contains("::pool.ipynb:cell 5:2:6: GPU001 "),
        "{command}"
    );

    let sarif: serde_json::Value = serde_json::from_slice(
        &gpulint(
            &["check", "--output-format", "sarif", "pool.ipynb"],
            dir.path(),
        )
        .stdout,
    )
    .unwrap();
    let result = &sarif["runs"][0]["results"][0];
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], line);
    assert_eq!(region["startColumn"], column);
    assert_eq!(region["endLine"], end_line);
    assert_eq!(
        region["properties"],
        serde_json::json!({"cell": 5, "cellLine": 2, "cellColumn": 6})
    );
    // Related locations too: CUDA was initialised in cell 3 (`.cuda()` on its first line).
    let related = &result["relatedLocations"];
    let init = related
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["physicalLocation"]["region"])
        .find(|r| r["properties"]["cell"] == 3)
        .expect("a related location in cell 3");
    let (init_line, _) = line_col_in(&raw, "encoder = torch.nn.Linear(64, 16).cuda()");
    assert_eq!(init["startLine"], init_line);

    let gitlab: serde_json::Value = serde_json::from_slice(
        &gpulint(
            &["check", "--output-format", "gitlab", "pool.ipynb"],
            dir.path(),
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(gitlab[0]["location"]["lines"]["begin"], line);
    assert!(
        gitlab[0]["description"]
            .as_str()
            .unwrap()
            .ends_with("(cell 5, line 2)"),
        "{gitlab}"
    );
}

#[test]
fn a_notebook_whose_source_is_one_string_is_located_on_that_line() {
    let dir = tempfile::tempdir().unwrap();
    let notebook = serde_json::json!({
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# Notes é"},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
             "source": "import multiprocessing as mp\nimport torch\n\ndef work(x):\n    return x.cuda()\n"},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
             "source": "model = torch.nn.Linear(2, 2).cuda()\nwith mp.Pool(2) as pool:\n    pool.map(work, [torch.ones(2)])\n"},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5
    });
    let raw = serde_json::to_string_pretty(&notebook).unwrap();
    fs::write(dir.path().join("one.ipynb"), &raw).unwrap();
    let github = stdout(&gpulint(
        &["check", "--output-format", "github", "one.ipynb"],
        dir.path(),
    ));
    let command = github.lines().next().unwrap();
    let (line, column) = line_col_in(&raw, "mp.Pool(2)");
    assert_eq!(property(command, "line"), line.to_string(), "{command}");
    assert_eq!(property(command, "col"), column.to_string(), "{command}");
    assert!(
        command.contains("one.ipynb:cell 3:2:6: GPU001"),
        "{command}"
    );
}
