//! Notebooks as IPython reads them but a Python parser would not: magics continued with `\` onto
//! indented lines, lone carriage returns; and notebooks that are not notebooks at all. The first
//! are checked like the code they hold, the second give one GPU999 each and the rest goes on.

mod common;

use std::fs;

use serde_json::{json, Value};

/// A notebook with these code cells, each a list of lines.
fn notebook(cells: &[&[&str]]) -> String {
    let cells: Vec<Value> = cells
        .iter()
        .map(|lines| {
            json!({"cell_type": "code", "execution_count": null, "metadata": {},
                   "outputs": [], "source": lines})
        })
        .collect();
    json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).to_string()
}

/// `(file, cell, row, code)` of a finding.
type Found = (String, i64, i64, String);

/// Each finding of `gpulint check` in `dir`, and the exit code.
fn check(dir: &std::path::Path) -> (Vec<Found>, Option<i32>) {
    let output = common::gpulint(&["check", "--output-format", "json", "."], dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("internal error"), "{stderr}");
    let findings: Vec<Value> = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("JSON output ({e}); stderr: {stderr}"));
    let mut out: Vec<_> = findings
        .iter()
        .map(|f| {
            let file = f["filename"].as_str().unwrap_or_default();
            let name = file.rsplit('/').next().unwrap_or_default().to_string();
            let cell = f["cell"].as_i64().unwrap_or(0);
            let row = f["location"]["row"].as_i64().unwrap_or(0);
            (
                name,
                cell,
                row,
                f["code"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    out.sort();
    (out, output.status.code())
}

/// A forked child that uses CUDA after its parent did: GPU001 at its `start()`, line 4.
const FORK_CELL: &[&str] = &[
    "def work():\n",
    "    return torch.ones(1).cuda()\n",
    "p = mp.get_context('fork').Process(target=work)\n",
    "p.start()\n",
];

#[test]
fn a_magic_continued_onto_an_indented_line_is_blanked_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let cells: &[&[&str]] = &[
        &[
            "import torch\n",
            "import multiprocessing as mp\n",
            "%time x = \\\n",
            "    1\n",
            "!pip install \\\n",
            "   torch\n",
            "for i in range(2):\n",
            "    %time y = \\\n",
            "        i\n",
            "    z = i\n",
            "files = !ls \\\n",
            "        -l\n",
            "model = torch.nn.Linear(2, 2).cuda()\n",
        ],
        // A cell magic blanks its whole cell, continued lines included.
        &["%%bash\n", "echo \\\n", "    hi\n"],
        FORK_CELL,
    ];
    fs::write(dir.path().join("continued.ipynb"), notebook(cells)).unwrap();
    let (found, code) = check(dir.path());
    // No syntax error, and the finding is in the cell and at the line it is written on.
    let expected = [("continued.ipynb".to_string(), 3, 4, "GPU001".to_string())];
    assert_eq!(found, expected);
    assert_eq!(code, Some(1));
}

#[test]
fn a_lone_carriage_return_ends_a_magic_and_the_code_after_it_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    // CUDA is initialised on the line after the magic; a cell that is one string.
    let first = "import torch\rimport multiprocessing as mp\r%time x = 1\rmodel = torch.nn.Linear(2, 2).cuda()\r";
    let text = notebook(&[&[first], FORK_CELL]);
    fs::write(dir.path().join("cr.ipynb"), text).unwrap();
    let (found, _) = check(dir.path());
    assert_eq!(
        found,
        [("cr.ipynb".to_string(), 2, 4, "GPU001".to_string())]
    );

    // Found by the notebook fuzzer: a continued magic's lone `\r`, once the line is emptied, met
    // the next emptied line's `\n` and the two read as one `\r\n`: every later line was one off.
    // The fork cell here starts with such a magic, so `p.start()` is on its line 6.
    let fork = [&["%time x = \\\r", "  1\n"][..], FORK_CELL].concat();
    let head = [
        "import torch\n",
        "import multiprocessing as mp\n",
        "torch.cuda.init()\n",
    ];
    fs::write(dir.path().join("cr.ipynb"), notebook(&[&head, &fork])).unwrap();
    let (found, _) = check(dir.path());
    assert_eq!(
        found,
        [("cr.ipynb".to_string(), 2, 6, "GPU001".to_string())]
    );
}

#[test]
fn what_is_not_a_notebook_gives_one_error_each_and_the_rest_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let bad: [(&str, Vec<u8>); 7] = [
        (
            "truncated.ipynb",
            br#"{"nbformat": 4, "cells": [{"cell_type": "co"#.to_vec(),
        ),
        (
            "latin1.ipynb",
            b"{\"nbformat\": 4, \"cells\": [], \"x\": \"\xe9\"}".to_vec(),
        ),
        ("deep.ipynb", deep.into_bytes()),
        (
            "deep_cells.ipynb",
            format!(r#"{{"nbformat": 4, "cells": {}}}"#, "[".repeat(50_000)).into_bytes(),
        ),
        (
            "old.ipynb",
            br#"{"nbformat": 3, "worksheets": []}"#.to_vec(),
        ),
        (
            "number_source.ipynb",
            br#"{"nbformat": 4, "cells": [{"cell_type": "code", "source": 7}]}"#.to_vec(),
        ),
        ("empty.ipynb", Vec::new()),
    ];
    for (name, bytes) in &bad {
        fs::write(dir.path().join(name), bytes).unwrap();
    }
    let good = notebook(&[
        &[
            "import torch\n",
            "import multiprocessing as mp\n",
            "torch.cuda.init()\n",
        ],
        FORK_CELL,
    ]);
    fs::write(dir.path().join("good.ipynb"), good).unwrap();
    let (found, code) = check(dir.path());
    assert_eq!(code, Some(1));
    let mut expected: Vec<Found> = bad
        .iter()
        .map(|(name, _)| (name.to_string(), 0, 1, "GPU999".to_string()))
        .collect();
    expected.push(("good.ipynb".to_string(), 2, 4, "GPU001".to_string()));
    expected.sort();
    let errors: Vec<_> = found
        .iter()
        .map(|(name, cell, _, code)| (name.clone(), *cell, code.clone()))
        .collect();
    let wanted: Vec<_> = expected
        .iter()
        .map(|(name, cell, _, code)| (name.clone(), *cell, code.clone()))
        .collect();
    assert_eq!(errors, wanted, "{found:#?}");
}
