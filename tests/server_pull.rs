//! `gpulint server` with a client that pulls diagnostics (`textDocument/diagnostic`, LSP 3.17):
//! answers with result ids, pushes nothing, asks the client to pull again when a module changes
//! an importer's findings; and the `source.fixAll.gpulint` action.

mod common;
mod lsp;

use std::fs;

use serde_json::{json, Value};

use lsp::{apply_edits, initialize, uri, Client};

const HELPER_IDLE: &str = "import torch\n\n\ndef setup():\n    return None\n";
const HELPER_CUDA: &str =
    "import torch\n\n\ndef setup():\n    return torch.nn.Linear(2, 2).cuda()\n";
const TRAIN: &str = "import torch\nfrom torch.utils.data import DataLoader\n\nimport helper\n\n\nclass Frames(torch.utils.data.Dataset):\n    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n        return torch.zeros(2).cuda()\n\n\nif __name__ == \"__main__\":\n    helper.setup()\n    for batch in DataLoader(Frames(), num_workers=2):\n        print(batch)\n";

/// Two process groups created before the device is bound (GPU015, each with a safe fix) and a
/// loader forked after CUDA (GPU001, whose fix is unsafe).
const GROUPS: &str = "import os\nimport torch\nimport torch.distributed as dist\nfrom torch.utils.data import DataLoader\n\n\nclass Ones(torch.utils.data.Dataset):\n    def __len__(self):\n        return 4\n\n    def __getitem__(self, i):\n        return torch.ones(2).cuda()\n\n\ndef first():\n    dist.init_process_group(\"nccl\")\n    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n    return torch.ones(1).cuda()\n\n\ndef second():\n    dist.init_process_group(\"nccl\")\n    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n    return torch.ones(1).cuda()\n\n\ndef third():\n    model = torch.nn.Linear(2, 2).cuda()\n    return DataLoader(Ones(), num_workers=2), model\n";

fn pull(client: &mut Client, uri: &str, previous: Option<&str>) -> Value {
    let mut params = json!({"textDocument": {"uri": uri}});
    if let Some(previous) = previous {
        params["previousResultId"] = json!(previous);
    }
    let response = client.request("textDocument/diagnostic", params);
    assert!(response.get("error").is_none(), "{response}");
    response["result"].clone()
}

fn codes(report: &Value) -> Vec<String> {
    report["items"]
        .as_array()
        .unwrap_or_else(|| panic!("a full report: {report:#}"))
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_pulling_client_gets_reports_and_a_refresh_when_a_module_changes_its_importer() {
    let (_dir, root) = lsp::project();
    fs::write(root.join("helper.py"), HELPER_IDLE).unwrap();
    fs::write(root.join("train.py"), TRAIN).unwrap();
    let (helper, train) = (uri(&root.join("helper.py")), uri(&root.join("train.py")));
    let mut client = Client::start(&root);
    let capabilities = json!({
        "textDocument": {"diagnostic": {"dynamicRegistration": false}},
        "workspace": {"diagnostics": {"refreshSupport": true}},
    });
    let init = initialize(&mut client, &root, capabilities);
    let provider = &init["result"]["capabilities"]["diagnosticProvider"];
    assert_eq!(provider["interFileDependencies"], true, "{init:#}");
    assert_eq!(provider["workspaceDiagnostics"], false);

    client.open(&train, "python", TRAIN);
    client.open(&helper, "python", HELPER_IDLE);
    let first = pull(&mut client, &train, None);
    assert_eq!(first["kind"], "full");
    assert_eq!(codes(&first), Vec::<String>::new());
    let id = first["resultId"].as_str().unwrap().to_string();
    // Asked again with its result id: unchanged.
    let again = pull(&mut client, &train, Some(&id));
    assert_eq!(again, json!({"kind": "unchanged", "resultId": id}));

    // The helper's unsaved edit changes the importer's findings: the client is asked to pull.
    client.change(&helper, 2, HELPER_CUDA);
    let refresh = client.wait_for(|m| m["method"] == "workspace/diagnostic/refresh");
    client.send(json!({"jsonrpc": "2.0", "id": refresh["id"], "result": null}));
    let now = pull(&mut client, &train, Some(&id));
    assert_eq!(now["kind"], "full");
    assert_eq!(codes(&now), ["GPU001"]);
    assert_ne!(now["resultId"], json!(id));
    // Nothing was pushed meanwhile.
    client.sync(&train);
    assert!(
        !client.has_queued_diagnostics(&train),
        "{:#?}",
        client.queued
    );
    assert!(
        !client.has_queued_diagnostics(&helper),
        "{:#?}",
        client.queued
    );
    // A document never opened has no findings.
    let never = pull(&mut client, &uri(&root.join("never.py")), None);
    assert_eq!(codes(&never), Vec::<String>::new());
    let bad = client.request("textDocument/diagnostic", json!({"textDocument": 7}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    client.shutdown();
}

#[test]
fn fix_all_applies_every_safe_fix_and_nothing_else() {
    let (_dir, root) = lsp::project();
    let path = root.join("groups.py");
    fs::write(&path, GROUPS).unwrap();
    let groups = uri(&path);
    let mut client = Client::start(&root);
    initialize(&mut client, &root, json!({}));
    client.open(&groups, "python", GROUPS);
    let published = client.diagnostics(&groups);
    let mut found: Vec<&str> = published["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    found.sort();
    assert_eq!(found, ["GPU001", "GPU015", "GPU015"], "{published:#}");

    // Asked for source actions only: the one fix-all action, without the quick fixes.
    let actions = client.code_actions(&groups, 30, Some(&["source"]));
    let [fix_all] = actions.as_slice() else {
        panic!("one action: {actions:#?}");
    };
    assert_eq!(fix_all["kind"], "source.fixAll.gpulint");
    assert_eq!(fix_all["title"], "Fix all safe gpulint findings (2)");
    let fixed = apply_edits(
        GROUPS,
        fix_all["edit"]["changes"][&groups].as_array().unwrap(),
    );
    // What `--fix` writes, which leaves the unsafe fix alone.
    let fixing = common::gpulint(&["check", "--fix", "groups.py"], &root);
    assert_eq!(fixed, fs::read_to_string(&path).unwrap(), "{fixing:?}");
    assert!(fixed.contains("num_workers=2)"));
    // Offered beside the quick fixes when no kind is asked for.
    let all = client.code_actions(&groups, 30, None);
    assert!(all.iter().any(|a| a["kind"] == "source.fixAll.gpulint"));
    assert!(all.iter().any(|a| a["kind"] == "quickfix"));

    client.change(&groups, 2, &fixed);
    let published = client.diagnostics(&groups);
    assert_eq!(published["diagnostics"][0]["code"], "GPU001");
    assert_eq!(published["diagnostics"].as_array().unwrap().len(), 1);
    // Nothing safe left to fix: no fix-all action.
    let actions = client.code_actions(&groups, 30, Some(&["source.fixAll"]));
    assert_eq!(actions, Vec::<Value>::new());
    client.shutdown();
}
