//! `gpulint server` on a Jupyter notebook opened as a text document (its `.ipynb` JSON): findings
//! sit where `--output-format github` annotates the file, and edits land in the cells' sources as
//! `--add-noqa` and `--fix` write them. A buffer that is not a notebook gets a finding that says
//! why, and the server goes on.

mod common;
mod lsp;

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use lsp::{apply_edits, initialize, uri, Client};

/// A markdown cell, then code cells written as lists of lines (as Jupyter writes them): a magic,
/// and a forked DataLoader after CUDA was initialised (GPU001) on a line with a character that is
/// two UTF-16 code units.
const EXPLORE: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": ["# Trying a loader\n"]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": [
    "import torch\n",
    "from torch.utils.data import DataLoader\n",
    "%matplotlib inline\n",
    "\n",
    "class Squares(torch.utils.data.Dataset):\n",
    "    def __len__(self):\n",
    "        return 4\n",
    "\n",
    "    def __getitem__(self, i):\n",
    "        return torch.full((2,), i * i).cuda()\n"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": [
    "net = torch.nn.Linear(2, 2).cuda()\n",
    "note = \"🚀\"; batches = DataLoader(Squares(), num_workers=2)\n",
    "for b in batches:\n",
    "    net(b.float())"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

/// A process group created before the device is bound (GPU015, with a safe fix that moves a
/// line), in the middle cell of three; the cells' sources are single strings.
const GROUP: &str = r#"{"cells": [
 {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
  "source": "import os\nimport torch\nimport torch.distributed as dist\n"},
 {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
  "source": "def main():\n    dist.init_process_group(\"nccl\")\n    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n    return torch.ones(1).cuda()\n"},
 {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
  "source": "main()\n"}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
"#;

/// The `(line, column, end line, end column)` of each annotation `--output-format github` writes
/// for `file` (1-based; columns in characters).
fn github_annotations(root: &Path, file: &str) -> Vec<(usize, usize, usize, usize)> {
    let output = common::gpulint(&["check", "--output-format", "github", file], root);
    let text = String::from_utf8(output.stdout).unwrap();
    let number = |line: &str, key: &str| -> usize {
        let start = line.find(key).unwrap() + key.len();
        let digits: String = line[start..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    };
    text.lines()
        .map(|l| {
            (
                number(l, ",line="),
                number(l, ",col="),
                number(l, "endLine="),
                number(l, "endColumn="),
            )
        })
        .collect()
}

/// The LSP position (UTF-16) of a 1-based line and column in characters of `text`.
fn position(text: &str, line: usize, column: usize) -> Value {
    let written = text.lines().nth(line - 1).unwrap();
    let before: String = written.chars().take(column - 1).collect();
    json!({"line": line - 1, "character": before.encode_utf16().count()})
}

fn only_diagnostic(published: &Value) -> Value {
    let [d] = published["diagnostics"].as_array().unwrap().as_slice() else {
        panic!("one finding: {published:#}");
    };
    d.clone()
}

#[test]
fn a_notebook_opened_as_json_is_annotated_and_fixed_where_the_command_line_does() {
    let (_dir, root) = lsp::project();
    fs::write(root.join("explore.ipynb"), EXPLORE).unwrap();
    fs::write(root.join("group.ipynb"), GROUP).unwrap();
    let explore = uri(&root.join("explore.ipynb"));
    let group = uri(&root.join("group.ipynb"));
    let mut client = Client::start(&root);
    initialize(&mut client, &root, json!({}));

    // The finding's range is the github annotation's, in UTF-16 units (the rocket is two).
    client.open(&explore, "json", EXPLORE);
    let d = only_diagnostic(&client.diagnostics(&explore));
    assert_eq!(d["code"], "GPU001");
    let [(line, column, end_line, end_column)] = github_annotations(&root, "explore.ipynb")[..]
    else {
        panic!("one annotation");
    };
    assert_eq!(d["range"]["start"], position(EXPLORE, line, column));
    assert_eq!(d["range"]["end"], position(EXPLORE, end_line, end_column));
    assert!(EXPLORE
        .lines()
        .nth(line - 1)
        .unwrap()
        .contains("DataLoader("));
    // Related locations point into the same JSON: where CUDA was initialised, in the same cell.
    let related = &d["relatedInformation"][0]["location"];
    assert_eq!(related["uri"], explore.as_str());
    let init_line = EXPLORE.lines().position(|l| l.contains("net = ")).unwrap();
    assert_eq!(related["range"]["start"]["line"], init_line);

    // "Disable for this line" writes what `--add-noqa` writes into the cell's source.
    let actions = client.code_actions(&explore, 60, None);
    let noqa = actions
        .iter()
        .find(|a| a["title"] == "Disable GPU001 for this line")
        .unwrap_or_else(|| panic!("a noqa action: {actions:#?}"));
    let edits = noqa["edit"]["changes"][&explore].as_array().unwrap();
    let edited = apply_edits(EXPLORE, edits);
    fs::copy(root.join("explore.ipynb"), root.join("copy.ipynb")).unwrap();
    let added = common::gpulint(&["check", "--add-noqa", "copy.ipynb"], &root);
    assert!(added.status.success(), "{added:?}");
    assert_eq!(edited, fs::read_to_string(root.join("copy.ipynb")).unwrap());
    client.change(&explore, 2, &edited);
    let published = client.diagnostics(&explore);
    assert_eq!(published["version"], 2);
    assert_eq!(published["diagnostics"], json!([]));

    // "Fix all" on a notebook rewrites the cell as `--fix` does.
    client.open(&group, "json", GROUP);
    assert_eq!(
        only_diagnostic(&client.diagnostics(&group))["code"],
        "GPU015"
    );
    let actions = client.code_actions(&group, 20, Some(&["source.fixAll"]));
    let [fix_all] = actions.as_slice() else {
        panic!("one fix-all action: {actions:#?}");
    };
    assert_eq!(fix_all["kind"], "source.fixAll.gpulint");
    let fixed = apply_edits(
        GROUP,
        fix_all["edit"]["changes"][&group].as_array().unwrap(),
    );
    let fixing = common::gpulint(&["check", "--fix", "group.ipynb"], &root);
    assert!(fixing.status.success(), "{fixing:?}");
    assert_eq!(fixed, fs::read_to_string(root.join("group.ipynb")).unwrap());
    client.shutdown();
}

#[test]
fn a_buffer_that_is_not_a_notebook_gets_a_finding_that_says_why() {
    let (_dir, root) = lsp::project();
    let path = root.join("draft.ipynb");
    let draft = uri(&path);
    let mut client = Client::start(&root);
    initialize(&mut client, &root, json!({}));

    // Half-typed JSON: one finding at the start, naming the problem and where it is.
    let broken = &EXPLORE[..EXPLORE.find("\"outputs\"").unwrap()];
    client.open(&draft, "json", broken);
    let d = only_diagnostic(&client.diagnostics(&draft));
    assert_eq!(d["code"], "GPU999");
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("invalid notebook"), "{message}");
    assert!(message.contains("line"), "{message}");
    // JSON that is no notebook; then one of another format version.
    client.change(&draft, 2, "[1, 2]");
    let message = only_diagnostic(&client.diagnostics(&draft))["message"].clone();
    assert!(
        message.as_str().unwrap().contains("not a notebook"),
        "{message}"
    );
    client.change(&draft, 3, r#"{"nbformat": 3, "cells": []}"#);
    let message = only_diagnostic(&client.diagnostics(&draft))["message"].clone();
    assert!(
        message.as_str().unwrap().contains("nbformat 3"),
        "{message}"
    );
    // Completed: the notebook's own finding, and no more error.
    client.change(&draft, 4, EXPLORE);
    let published = client.diagnostics(&draft);
    assert_eq!(published["version"], 4);
    assert_eq!(only_diagnostic(&published)["code"], "GPU001");
    client.shutdown();
}
