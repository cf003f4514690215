//! The new fixes as an editor gets them from `gpulint server`: a quick fix on the finding, whose
//! edit, typed in, makes the finding go away. Every wait has a deadline.

mod lsp;

use lsp::Client;
use serde_json::{json, Value};

/// The global rank picks the device (GPU008) on the eighth line.
const RANKS: &str = "import os\n\nimport torch\n\n\ndef setup():\n    rank = int(os.environ[\"RANK\"])\n    torch.cuda.set_device(rank)\n\n\nif __name__ == \"__main__\":\n    setup()\n";

#[test]
fn a_new_fix_is_a_quick_fix_whose_edit_clears_the_finding() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ranks.py");
    std::fs::write(&path, RANKS).unwrap();
    let uri = format!("file://{}", path.display());
    let mut server = Client::start(dir.path());
    let root = format!("file://{}", dir.path().display());
    server.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": null, "capabilities": {},
            "workspaceFolders": [{"uri": root, "name": "project"}],
        }}),
    );
    server.wait_for(|m| m["id"] == 1);
    server.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    let document = json!({"uri": uri, "languageId": "python", "version": 1, "text": RANKS});
    server.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": document}}));
    let published = |m: &Value| m["method"] == "textDocument/publishDiagnostics";
    let diagnostics = server.wait_for(published)["params"]["diagnostics"].clone();
    let [d] = diagnostics.as_array().unwrap().as_slice() else {
        panic!("one finding: {diagnostics:#}");
    };
    assert_eq!(d["code"], "GPU008");
    server.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction",
        "params": {"textDocument": {"uri": uri}, "range": d["range"],
                   "context": {"diagnostics": [d]}}}),
    );
    let actions = server.wait_for(|m| m["id"] == 2)["result"].clone();
    let fix = &actions[0];
    let title = fix["title"].as_str().unwrap();
    assert!(
        title.starts_with("Fix GPU008 (unsafe): use `int(os.environ[\"LOCAL_RANK\"])`"),
        "{title}"
    );
    assert_eq!(fix["isPreferred"], false);
    let [edit] = fix["edit"]["changes"][&uri].as_array().unwrap().as_slice() else {
        panic!("one edit: {fix:#}");
    };
    let line = "    torch.cuda.set_device(rank)";
    let at = line.find("rank").unwrap() as i64;
    assert_eq!(
        edit["range"],
        json!({"start": {"line": 7, "character": at}, "end": {"line": 7, "character": at + 4}})
    );
    assert_eq!(edit["newText"], "int(os.environ[\"LOCAL_RANK\"])");
    // The edit typed in: the finding goes away.
    let fixed = RANKS.replace(
        "set_device(rank)",
        "set_device(int(os.environ[\"LOCAL_RANK\"]))",
    );
    server.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}],
        }}),
    );
    let again = server.wait_for(|m| published(m) && m["params"]["version"] == 2);
    assert_eq!(again["params"]["diagnostics"], json!([]));
}
