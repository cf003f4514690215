//! What an importer's diagnostics follow in `gpulint server`: the unsaved text of an open module
//! it imports, and files changed on disk that the client reports (`workspace/didChangeWatchedFiles`,
//! registered only when the client can register it): a module, a configuration.

mod lsp;

use std::fs;

use serde_json::{json, Value};

use lsp::{initialize, uri, Client};

const HELPER_IDLE: &str = "import torch\n\n\ndef setup():\n    return None\n";
const HELPER_CUDA: &str =
    "import torch\n\n\ndef setup():\n    x = 1\n    return torch.nn.Linear(2, 2).cuda()\n";
/// Forks DataLoader workers that use CUDA after calling `helper.setup()`: GPU001 exactly when
/// the helper initialises CUDA.
const TRAIN: &str = "import torch\nfrom torch.utils.data import DataLoader\n\nimport helper\n\n\nclass Frames(torch.utils.data.Dataset):\n    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n        return torch.zeros(2).cuda()\n\n\nif __name__ == \"__main__\":\n    helper.setup()\n    for batch in DataLoader(Frames(), num_workers=2):\n        print(batch)\n";

fn codes(published: &Value) -> Vec<String> {
    published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_importer_sees_the_unsaved_text_of_an_open_module() {
    let (_dir, root) = lsp::project();
    fs::write(root.join("helper.py"), HELPER_IDLE).unwrap();
    fs::write(root.join("train.py"), TRAIN).unwrap();
    let (helper, train) = (uri(&root.join("helper.py")), uri(&root.join("train.py")));
    let mut client = Client::start(&root);
    initialize(&mut client, &root, json!({}));
    // Without the capability, nothing is registered: the code action's answer comes after
    // anything the server sent before it.
    client.sync(&train);
    let registered = client
        .queued
        .iter()
        .any(|m| m["method"] == "client/registerCapability");
    assert!(!registered, "{:#?}", client.queued);

    client.open(&train, "python", TRAIN);
    client.open(&helper, "python", HELPER_IDLE);
    assert_eq!(codes(&client.diagnostics(&train)), Vec::<String>::new());
    // The helper's edit, never saved (the file still leaves CUDA alone), reaches the importer;
    // the related location is the `.cuda()` of the editor's text, one line lower than any
    // text on disk had it.
    client.change(&helper, 2, HELPER_CUDA);
    let published = client.diagnostics(&train);
    assert_eq!(codes(&published), ["GPU001"]);
    let init = published["diagnostics"][0]["relatedInformation"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["location"]["uri"] == helper.as_str())
        .unwrap_or_else(|| panic!("a location in the helper: {published:#}"))
        .clone();
    assert_eq!(
        init["location"]["range"]["start"],
        json!({"line": 5, "character": 11})
    );
    assert_eq!(
        fs::read_to_string(root.join("helper.py")).unwrap(),
        HELPER_IDLE
    );
    // Undone in the editor: clean again.
    client.change(&helper, 3, HELPER_IDLE);
    assert_eq!(codes(&client.diagnostics(&train)), Vec::<String>::new());
    // Edited again, then closed without saving: the importer reads the file once more.
    client.change(&helper, 4, HELPER_CUDA);
    assert_eq!(codes(&client.diagnostics(&train)), ["GPU001"]);
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": helper}}),
    );
    assert_eq!(codes(&client.diagnostics(&train)), Vec::<String>::new());
    client.shutdown();
}

#[test]
fn watched_files_check_the_open_importers_and_a_configuration_checks_every_document() {
    let (_dir, root) = lsp::project();
    fs::write(root.join("helper.py"), HELPER_IDLE).unwrap();
    fs::write(root.join("train.py"), TRAIN).unwrap();
    let other_text = TRAIN
        .replace("import helper\n", "")
        .replace("    helper.setup()\n", "    torch.ones(1).cuda()\n");
    fs::write(root.join("other.py"), &other_text).unwrap();
    let (train, other) = (uri(&root.join("train.py")), uri(&root.join("other.py")));

    let mut client = Client::start(&root);
    let watching = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    initialize(&mut client, &root, watching);
    let register = client.wait_for(|m| m["method"] == "client/registerCapability");
    let registration = &register["params"]["registrations"][0];
    assert_eq!(registration["method"], "workspace/didChangeWatchedFiles");
    let globs: Vec<&str> = registration["registerOptions"]["watchers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["globPattern"].as_str().unwrap())
        .collect();
    for glob in ["**/*.py", "**/*.ipynb", "**/*.rs", "**/pyproject.toml"] {
        assert!(globs.contains(&glob), "{glob} in {globs:?}");
    }
    client.send(json!({"jsonrpc": "2.0", "id": register["id"], "result": null}));

    client.open(&train, "python", TRAIN);
    client.open(&other, "python", &other_text);
    assert_eq!(codes(&client.diagnostics(&train)), Vec::<String>::new());
    assert_eq!(codes(&client.diagnostics(&other)), ["GPU001"]);

    // The helper, not open, changes on disk: its importer is checked again.
    fs::write(root.join("helper.py"), HELPER_CUDA).unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&root.join("helper.py")), "type": 2}]}),
    );
    assert_eq!(codes(&client.diagnostics(&train)), ["GPU001"]);

    // A configuration appears that ignores the rule: every open document is checked again.
    fs::write(
        root.join("pyproject.toml"),
        "[tool.gpulint]\nignore = [\"GPU001\"]\n",
    )
    .unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&root.join("pyproject.toml")), "type": 1}]}),
    );
    assert_eq!(codes(&client.diagnostics(&train)), Vec::<String>::new());
    assert_eq!(codes(&client.diagnostics(&other)), Vec::<String>::new());
    // Events the server cannot use (another scheme, a bad URI) are ignored, not fatal.
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": "untitled:Untitled-1", "type": 2}]}),
    );
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": 7}));
    let log = client.wait_for(|m| m["method"] == "window/logMessage");
    assert!(log["params"]["message"]
        .as_str()
        .unwrap()
        .contains("didChangeWatchedFiles"));
    client.shutdown();
}
