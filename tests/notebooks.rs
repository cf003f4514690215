//! Jupyter notebooks as users meet them: found like scripts, located in their cells, the same
//! findings as the same code in a script (except what an interactive `__main__` changes), `# noqa`
//! in a cell, fixes that leave the rest of the JSON alone, and bad notebooks reported by name.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use common::*;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A notebook as Jupyter writes it (sorted keys, one-space indentation), with these code cells
/// (each a list of lines) and a markdown cell after the first.
fn notebook(cells: &[&str]) -> String {
    let mut list = Vec::new();
    for (i, source) in cells.iter().enumerate() {
        let lines: Vec<&str> = source.split_inclusive('\n').collect();
        list.push(serde_json::json!({
            "cell_type": "code",
            "execution_count": i + 1,
            "metadata": {"tags": ["t"]},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["ok\n"]}],
            "source": lines,
        }));
        if i == 0 {
            list.push(serde_json::json!({"cell_type": "markdown", "metadata": {}, "source": ["# Notes é"]}));
        }
    }
    let document = serde_json::json!({
        "cells": list,
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    });
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&document, &mut serializer).unwrap();
    String::from_utf8(out).unwrap() + "\n"
}

/// A script cut into cells at each blank line that a top-level statement follows.
fn cells_of(script: &str) -> Vec<String> {
    let mut cells: Vec<String> = vec![String::new()];
    let mut blank = false;
    for line in script.split_inclusive('\n') {
        let top = !line.starts_with([' ', '\t', ')', ']', '}'])
            && !["else", "elif", "except", "finally"]
                .iter()
                .any(|k| line.starts_with(k));
        if blank && top && !line.trim().is_empty() {
            cells.push(String::new());
        }
        blank = line.trim().is_empty();
        cells.last_mut().unwrap().push_str(line);
    }
    cells
}

/// The notebook's (cell, line) of each line of the script it was cut from.
fn cell_lines(cells: &[String]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    // Cell numbers count the markdown cell `notebook` puts after the first.
    for (i, cell) in cells.iter().enumerate() {
        let number = if i == 0 { 1 } else { i as u32 + 2 };
        for line in 0..cell.lines().count() {
            out.push((number, line as u32 + 1));
        }
    }
    out
}

/// `(code, cell, line, message)` of every finding in `file` (a script's cell is 0).
type Found = BTreeSet<(String, u32, u32, String)>;

fn findings(json: &serde_json::Value, file: &Path) -> Found {
    let file = fs::canonicalize(file).unwrap();
    json.as_array()
        .unwrap()
        .iter()
        .filter(|d| fs::canonicalize(d["filename"].as_str().unwrap()).unwrap() == file)
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["cell"].as_u64().unwrap_or(0) as u32,
                d["location"]["row"].as_u64().unwrap() as u32,
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Each corpus script of `rule` next to the same code as a notebook, checked in one run: the
/// script's and the notebook's findings, the latter keyed like the former's lines.
fn script_and_notebook(rule: &str, dir: &Path) -> Vec<(String, Found, Found)> {
    let mut names = Vec::new();
    for script in python_files(&root().join("corpus").join(rule)) {
        let name = script.file_stem().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(&script).unwrap();
        let cells = cells_of(&text);
        let refs: Vec<&str> = cells.iter().map(String::as_str).collect();
        fs::write(dir.join(format!("{name}.py")), &text).unwrap();
        fs::write(dir.join(format!("{name}.ipynb")), notebook(&refs)).unwrap();
        names.push((name, cell_lines(&cells)));
    }
    let out = gpulint(&["check", "--output-format", "json", "."], dir);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    names
        .into_iter()
        .map(|(name, lines)| {
            let script: Found = findings(&json, &dir.join(format!("{name}.py")))
                .into_iter()
                .map(|(code, _, line, message)| {
                    let (cell, line) = lines[line as usize - 1];
                    (code, cell, line, message)
                })
                .collect();
            let notebook = findings(&json, &dir.join(format!("{name}.ipynb")));
            (name, script, notebook)
        })
        .collect()
}

/// A notebook's own definitions reach no spawned or forkserver child: GPU006 says so.
fn notebook_only(f: &(String, u32, u32, String)) -> bool {
    f.0 == "GPU006" && f.3.contains("defined in the notebook")
}

#[test]
fn gpu001_is_found_in_a_notebook_as_in_the_same_script() {
    let dir = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for (name, script, notebook) in script_and_notebook("gpu001", dir.path()) {
        let extra: Found = notebook
            .iter()
            .filter(|f| notebook_only(f))
            .cloned()
            .collect();
        let notebook: Found = notebook.difference(&extra).cloned().collect();
        if name == "pos_forkserver_module_level_cuda"
            || name == "pos_spawned_controller_default_fork"
        {
            // The forkserver imports a script's main module, with its CUDA call; a notebook's it
            // cannot: what breaks there is the notebook's target (GPU006). Likewise a spawned
            // controller defined in a notebook never runs, so it forks nothing.
            assert!(script.iter().any(|f| f.0 == "GPU001"), "{name}");
            assert!(
                notebook.is_empty() && !extra.is_empty(),
                "{name}: {extra:?}"
            );
            continue;
        }
        assert_eq!(script, notebook, "{name}");
        compared += usize::from(!script.is_empty());
    }
    assert!(
        compared >= 30,
        "only {compared} cases with findings compared"
    );
}

#[test]
fn gpu006_is_found_in_a_notebook_where_it_is_in_the_same_script() {
    let dir = tempfile::tempdir().unwrap();
    for (name, script, notebook) in script_and_notebook("gpu006", dir.path()) {
        // Where the script hands something pickle refuses, the notebook does too; the reason may
        // be that the notebook defines it (checked first).
        let place = |found: &Found| -> BTreeSet<(String, u32, u32)> {
            found
                .iter()
                .map(|(code, cell, line, _)| (code.clone(), *cell, *line))
                .collect()
        };
        let extra: Found = notebook
            .iter()
            .filter(|f| notebook_only(f))
            .cloned()
            .collect();
        assert!(
            place(&script).is_subset(&place(&notebook)),
            "{name}: {script:?} / {notebook:?}"
        );
        let unexplained: BTreeSet<_> = place(&notebook)
            .difference(&place(&script))
            .cloned()
            .collect::<BTreeSet<_>>()
            .difference(&place(&extra))
            .cloned()
            .collect();
        assert!(unexplained.is_empty(), "{name}: {unexplained:?}");
        if name == "pos_lambda_task_in_default_pool" {
            assert_eq!(script, notebook, "a lambda fails the same way anywhere");
        }
    }
}

#[test]
fn gpu004_in_a_script_is_gpu006_in_the_same_notebook() {
    let dir = tempfile::tempdir().unwrap();
    let mut positives = 0;
    for (name, script, notebook) in script_and_notebook("gpu004", dir.path()) {
        // No child of a notebook runs its cells again; the child cannot import what it defines.
        assert!(
            notebook.iter().all(|f| f.0 != "GPU004"),
            "{name}: {notebook:?}"
        );
        if name.starts_with("pos_") {
            positives += 1;
            assert!(script.iter().any(|f| f.0 == "GPU004"), "{name}");
            // An engine's workers are handed nothing the notebook defines: in a notebook the
            // same engine is fine.
            if name != "pos_vllm_engine_at_module_scope" {
                assert!(notebook.iter().any(notebook_only), "{name}: {notebook:?}");
            }
        }
    }
    assert!(positives >= 4);
}

const HAZARD_CELLS: [&str; 3] = [
    "import multiprocessing as mp\n%matplotlib inline\nimport torch\n",
    "def work(x):\n    return x.cuda()\n",
    "model = torch.nn.Linear(2, 2).cuda()\n!nvidia-smi\nwith mp.Pool(2) as pool:\n    pool.map(work, [torch.ones(2)])\n",
];

#[test]
fn a_notebook_is_found_walked_and_located_in_its_cells() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("nb")).unwrap();
    fs::write(dir.path().join("nb/train.ipynb"), notebook(&HAZARD_CELLS)).unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // Cell 4 (after the markdown cell), line 3: the magic and the shell escape keep their lines.
    assert!(
        stdout(&out).starts_with("nb/train.ipynb:cell 4:3:6: GPU001 "),
        "{}",
        stdout(&out)
    );

    let full = stdout(&gpulint(&["check", "nb/train.ipynb"], dir.path()));
    assert!(full.contains("[ nb/train.ipynb:cell 4:3:6 ]"), "{full}");
    assert!(full.contains(" 3 │ with mp.Pool(2) as pool:"), "{full}");
    assert!(full.contains("[ nb/train.ipynb:cell 3:2:12 ]"), "{full}");

    let json: serde_json::Value = serde_json::from_slice(
        &gpulint(&["check", "--output-format", "json", "."], dir.path()).stdout,
    )
    .unwrap();
    let d = &json[0];
    assert_eq!(d["cell"], 4);
    assert_eq!(d["location"], serde_json::json!({"row": 3, "column": 6}));
    assert_eq!(d["noqa_row"], 3);
    assert_eq!(d["related"][0]["cell"], 4, "the CUDA initialisation");
    assert_eq!(d["related"][0]["location"]["row"], 1);
    assert_eq!(d["related"][1]["cell"], 3, "the child's CUDA use");

    let sarif: serde_json::Value = serde_json::from_slice(
        &gpulint(&["check", "--output-format", "sarif", "."], dir.path()).stdout,
    )
    .unwrap();
    let result = &sarif["runs"][0]["results"][0];
    let region = &result["locations"][0]["physicalLocation"]["region"];
    // The line of the `.ipynb` file where cell 4's third line is written.
    let raw = notebook(&HAZARD_CELLS);
    let written = raw.find("with mp.Pool(2) as pool:").unwrap();
    assert_eq!(
        region["startLine"],
        raw[..written].matches('\n').count() + 1
    );
    assert_eq!(region["properties"]["cell"], 4);
    assert_eq!(region["properties"]["cellLine"], 3);
    let related = &result["relatedLocations"][1]["physicalLocation"]["region"];
    assert_eq!(related["properties"]["cell"], 3);
    let schema: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    assert!(validator.is_valid(&sarif));
}

#[test]
fn exclude_drops_a_notebook_unless_it_is_named() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("train.ipynb"), notebook(&HAZARD_CELLS)).unwrap();
    fs::write(
        dir.path().join("gpulint.toml"),
        "extend-exclude = [\"train.ipynb\"]\n",
    )
    .unwrap();
    let walked = gpulint(&["check", "."], dir.path());
    assert_eq!(walked.status.code(), Some(0), "{walked:?}");
    assert!(stdout(&walked).contains("No Python files or notebooks found under ."));
    let named = gpulint(&["check", "train.ipynb"], dir.path());
    assert_eq!(named.status.code(), Some(1), "{named:?}");
}

#[test]
fn a_folder_without_python_files_or_notebooks_says_so() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("docs")).unwrap();
    fs::write(dir.path().join("docs/notes.md"), "# notes\n").unwrap();
    let out = gpulint(&["check", "docs"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert_eq!(text, "No Python files or notebooks found under docs.\n");
    let json = gpulint(&["check", "--output-format", "json", "docs"], dir.path());
    assert_eq!(stdout(&json).trim(), "[]");
    assert!(String::from_utf8_lossy(&json.stderr).contains("No Python files or notebooks"));
}

#[test]
fn noqa_in_a_cell_suppresses_the_finding_on_that_line() {
    let dir = tempfile::tempdir().unwrap();
    let cells = [
        HAZARD_CELLS[0],
        HAZARD_CELLS[1],
        &HAZARD_CELLS[2].replace("as pool:", "as pool:  # noqa: GPU001"),
        "x = 1  # noqa: GPU002\n",
    ];
    fs::write(dir.path().join("train.ipynb"), notebook(&cells)).unwrap();
    let out = gpulint(
        &[
            "check",
            "--report-unused-noqa",
            "--output-format",
            "concise",
            "train.ipynb",
        ],
        dir.path(),
    );
    let text = stdout(&out);
    assert!(!text.contains("GPU001"), "{text}");
    // The unused one is located in its own cell.
    assert!(
        text.starts_with("train.ipynb:cell 5:1:8: GPU900 "),
        "{text}"
    );
    assert!(
        text.contains("1 more suppressed by `noqa` comments"),
        "{text}"
    );
}

const DDP_CELLS: [&str; 2] = [
    "import os\n%load_ext autoreload\nimport torch\nimport torch.distributed as dist\n",
    "dist.init_process_group(backend=\"nccl\")\ntorch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\nx = torch.ones(2, device=\"cuda\")  # café",
];

#[test]
fn a_fix_edits_the_cell_and_leaves_the_rest_of_the_json_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ddp.ipynb");
    let before = notebook(&DDP_CELLS);
    fs::write(&path, &before).unwrap();

    let diff = gpulint(&["check", "--diff", "ddp.ipynb"], dir.path());
    assert_eq!(diff.status.code(), Some(1), "{diff:?}");
    let shown = stdout(&diff);
    assert!(
        shown.starts_with("--- ddp.ipynb:cell 3\n+++ ddp.ipynb:cell 3\n"),
        "{shown}"
    );
    assert!(shown.contains("+torch.cuda.set_device("), "{shown}");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        before,
        "--diff writes nothing"
    );

    let fixed = gpulint(&["check", "--fix", "ddp.ipynb"], dir.path());
    assert_eq!(fixed.status.code(), Some(0), "{fixed:?}");
    assert!(stdout(&fixed).contains("Fixed 1 finding."));
    let after = fs::read_to_string(&path).unwrap();
    let init = "    \"dist.init_process_group(backend=\\\"nccl\\\")\\n\",\n";
    let bind = "    \"torch.cuda.set_device(int(os.environ[\\\"LOCAL_RANK\\\"]))\\n\",\n";
    assert!(before.contains(&format!("{init}{bind}")), "{before}");
    // The two lines swap places; every other byte, the non-ASCII line, the markdown cell, the
    // outputs and the metadata included, is as it was.
    assert_eq!(
        after,
        before.replace(&format!("{init}{bind}"), &format!("{bind}{init}"))
    );
    let notebook: serde_json::Value = serde_json::from_str(&after).unwrap();
    assert_eq!(
        notebook["cells"][1]["source"],
        serde_json::json!(["# Notes é"])
    );
}

#[test]
fn bad_notebooks_are_reported_by_name_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.ipynb"), notebook(&HAZARD_CELLS)).unwrap();
    fs::write(dir.path().join("broken.ipynb"), "{\"cells\": [").unwrap();
    fs::write(
        dir.path().join("old.ipynb"),
        "{\"nbformat\": 3, \"worksheets\": []}",
    )
    .unwrap();
    fs::write(
        dir.path().join("nocells.ipynb"),
        "{\"nbformat\": 4, \"metadata\": {}}",
    )
    .unwrap();
    fs::write(
        dir.path().join("syntax.ipynb"),
        notebook(&["import torch\n", "def broken(:\n    pass\n"]),
    )
    .unwrap();
    let big = format!(
        "{{\"nbformat\": 4, \"cells\": [], \"pad\": \"{}\"}}",
        "x".repeat(9 << 20)
    );
    fs::write(dir.path().join("huge.ipynb"), big).unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = stdout(&out);
    for (file, reason) in [
        ("broken.ipynb", "invalid notebook: invalid JSON"),
        ("old.ipynb", "nbformat 3"),
        ("nocells.ipynb", "no `cells` list"),
        ("huge.ipynb", "larger than 8 MiB"),
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{file}:1:1: GPU999 [error] ")))
            .unwrap_or_else(|| panic!("{file}: {text}"));
        assert!(line.contains(reason), "{line}");
    }
    assert!(
        text.contains("syntax.ipynb:cell 3:1:12: GPU999 [error] Syntax error"),
        "{text}"
    );
    assert!(text.contains("hazard.ipynb:cell 4:3:6: GPU001 "), "{text}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn the_pre_commit_hook_runs_on_notebooks() {
    let hooks = fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap();
    let types = hooks
        .lines()
        .find_map(|l| l.trim().strip_prefix("types_or:"))
        .expect("the hook lists its file types");
    for kind in ["python", "pyi", "jupyter", "rust"] {
        assert!(types.contains(kind), "{types}");
    }
}
