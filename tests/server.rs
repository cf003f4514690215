//! `gpulint server` as an editor meets it: a client session over standard input and output,
//! with Content-Length framing, against the built binary. Every wait has a deadline.

mod lsp;

use std::fs;
use std::io::Write;

use serde_json::{json, Value};

use lsp::{initialize, uri, Client};

/// A forked DataLoader after CUDA was initialised (GPU001), on a line with a character outside
/// the Basic Multilingual Plane before it: 4 bytes, 2 UTF-16 code units, 1 character.
const LOADER: &str = "import torch\nfrom torch.utils.data import DataLoader\n\n\nclass Frames(torch.utils.data.Dataset):\n    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n        return torch.zeros(2).cuda()\n\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n    tag = \"🚀\"; loader = DataLoader(Frames(), num_workers=2)\n    for batch in loader:\n        model(batch)\n";
const LOADER_LINE: &str = "    tag = \"🚀\"; loader = DataLoader(Frames(), num_workers=2)";

const HELPER_IDLE: &str = "import torch\n\n\ndef setup():\n    return None\n";
const HELPER_CUDA: &str =
    "import torch\n\n\ndef setup():\n    return torch.nn.Linear(2, 2).cuda()\n";
const USER: &str = "import torch\nfrom torch.utils.data import DataLoader\n\nimport helper\n\n\nclass Frames(torch.utils.data.Dataset):\n    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n        return torch.zeros(2).cuda()\n\n\nif __name__ == \"__main__\":\n    helper.setup()\n    for batch in DataLoader(Frames(), num_workers=2):\n        print(batch)\n";

fn utf16_len(text: &str) -> i64 {
    text.encode_utf16().count() as i64
}

#[test]
fn a_client_session_gets_diagnostics_fixes_and_updates_for_importers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let loader_path = root.join("loader.py");
    fs::write(&loader_path, LOADER).unwrap();
    fs::write(root.join("helper.py"), HELPER_IDLE).unwrap();
    fs::write(root.join("user.py"), USER).unwrap();
    let (loader, helper, user) = (
        uri(&loader_path),
        uri(&root.join("helper.py")),
        uri(&root.join("user.py")),
    );

    let mut client = Client::start(&root);
    // The client offers no position encoding: UTF-16, the protocol's default.
    let init = initialize(&mut client, &root, json!({}));
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(capabilities["positionEncoding"], "utf-16", "{init}");
    assert_eq!(capabilities["textDocumentSync"]["openClose"], true);
    assert_eq!(capabilities["textDocumentSync"]["change"], 1, "full sync");
    assert_eq!(
        capabilities["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix", "source.fixAll.gpulint"])
    );
    // The client neither pulls diagnostics nor watches files: they are pushed, and nothing is
    // registered.
    assert!(capabilities.get("diagnosticProvider").is_none(), "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "gpulint");

    // Open: the fork point's range counts UTF-16 units (the rocket is two).
    client.open(&loader, "python", LOADER);
    let published = client.diagnostics(&loader);
    assert_eq!(published["version"], 1);
    let [d] = published["diagnostics"].as_array().unwrap().as_slice() else {
        panic!("one finding: {published:#}");
    };
    assert_eq!(d["code"], "GPU001");
    assert_eq!(d["source"], "gpulint");
    assert_eq!(d["severity"], 1, "error");
    let call = LOADER_LINE.find("DataLoader(").unwrap();
    assert_eq!(
        d["range"],
        json!({
            "start": {"line": 14, "character": utf16_len(&LOADER_LINE[..call])},
            "end": {"line": 14, "character": utf16_len(LOADER_LINE)},
        })
    );
    assert_eq!(d["range"]["start"]["character"], 25);
    let message = d["message"].as_str().unwrap();
    assert!(message.starts_with("This DataLoader starts a child process by fork"));
    assert!(message.contains("\nhelp: "), "{message}");
    // No repository is named yet, so no absolute rule address either.
    assert!(d.get("codeDescription").is_none(), "{d}");
    let related = d["relatedInformation"].as_array().unwrap();
    assert_eq!(related.len(), 2, "{d:#}");
    assert_eq!(related[0]["location"]["uri"], loader.as_str());
    assert_eq!(related[0]["location"]["range"]["start"]["line"], 13);
    assert!(related[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("CUDA was initialised here"));
    assert_eq!(related[1]["location"]["range"]["start"]["line"], 9);

    // Code actions at the finding: its unsafe fix (not preferred) and the noqa comment.
    let params = json!({
        "textDocument": {"uri": loader},
        "range": d["range"],
        "context": {"diagnostics": [d]},
    });
    let response = client.request("textDocument/codeAction", params);
    let actions = response["result"].as_array().expect("a list of actions");
    assert_eq!(actions.len(), 2, "{response:#}");
    let fix = &actions[0];
    assert!(fix["title"]
        .as_str()
        .unwrap()
        .starts_with("Fix GPU001 (unsafe)"));
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["isPreferred"], false);
    assert_eq!(fix["diagnostics"][0]["code"], "GPU001");
    let [edit] = fix["edit"]["changes"][&loader]
        .as_array()
        .unwrap()
        .as_slice()
    else {
        panic!("one edit: {fix:#}");
    };
    assert_eq!(edit["newText"], ", multiprocessing_context=\"spawn\"");
    let close_paren = utf16_len(&LOADER_LINE[..LOADER_LINE.len() - 1]);
    assert_eq!(
        edit["range"]["start"],
        json!({"line": 14, "character": close_paren})
    );
    let noqa = &actions[1];
    assert_eq!(noqa["title"], "Disable GPU001 for this line");
    let [edit] = noqa["edit"]["changes"][&loader]
        .as_array()
        .unwrap()
        .as_slice()
    else {
        panic!("one edit: {noqa:#}");
    };
    assert_eq!(edit["newText"], "  # noqa: GPU001");
    let line_end = json!({"line": 14, "character": utf16_len(LOADER_LINE)});
    assert_eq!(edit["range"], json!({"start": line_end, "end": line_end}));
    // A request elsewhere in the file gets no action.
    let params = json!({
        "textDocument": {"uri": loader},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}},
        "context": {"diagnostics": []},
    });
    let response = client.request("textDocument/codeAction", params);
    assert_eq!(response["result"], json!([]));

    // The fix typed in: the finding goes away.
    let fixed = LOADER.replace(
        "num_workers=2)",
        "num_workers=2, multiprocessing_context=\"spawn\")",
    );
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": loader, "version": 2},
            "contentChanges": [{"text": fixed}],
        }),
    );
    let published = client.diagnostics(&loader);
    assert_eq!(published["version"], 2);
    assert_eq!(published["diagnostics"], json!([]));

    // A program that imports a helper: clean while the helper leaves CUDA alone.
    client.open(&helper, "python", HELPER_IDLE);
    client.open(&user, "python", USER);
    assert_eq!(client.diagnostics(&user)["diagnostics"], json!([]));
    assert_eq!(client.diagnostics(&helper)["diagnostics"], json!([]));
    // The helper now initialises CUDA (edited, then saved): the importer's diagnostics update,
    // pointing into the helper.
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": helper, "version": 2},
            "contentChanges": [{"text": HELPER_CUDA}],
        }),
    );
    fs::write(root.join("helper.py"), HELPER_CUDA).unwrap();
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": helper}}),
    );
    let published = client.diagnostics(&user);
    let [d] = published["diagnostics"].as_array().unwrap().as_slice() else {
        panic!("one finding: {published:#}");
    };
    assert_eq!(d["code"], "GPU001");
    assert_eq!(d["range"]["start"]["line"], 16);
    let related = &d["relatedInformation"][0]["location"];
    assert_eq!(related["uri"], helper.as_str());
    assert_eq!(
        related["range"]["start"],
        json!({"line": 4, "character": 11})
    );

    // Closing clears.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": user}}),
    );
    let published = client.diagnostics(&user);
    assert_eq!(published["diagnostics"], json!([]));

    let shutdown = client.request("shutdown", json!(null));
    assert_eq!(shutdown["result"], json!(null), "{shutdown}");
    assert!(shutdown.get("error").is_none());
    client.notify("exit", json!(null));
    assert_eq!(client.exit_status(), Some(0));
}

/// GPU015 (info) with a safe fix that moves a line.
const GROUP: &str = "import os\nimport torch\nimport torch.distributed as dist\n\n\ndef main():\n    dist.init_process_group(\"nccl\")  # é\n    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n    return torch.ones(1).cuda()\n\n\nif __name__ == \"__main__\":\n    main()\n";

#[test]
fn utf8_positions_safe_fixes_and_errors_for_bad_requests() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // A module the checked file imports that is not UTF-8: a read error there, no crash.
    fs::write(root.join("broken.py"), b"import torch\n\xff\xfe\n").unwrap();
    let group = uri(&root.join("group.py"));
    let mut client = Client::start(&root);

    // Before initialize: an error, and the server goes on.
    let early = client.request("textDocument/codeAction", json!({}));
    assert_eq!(early["error"]["code"], -32002, "{early}");

    let capabilities = json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}});
    let init = initialize(&mut client, &root, capabilities);
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-8");

    // Malformed parameters, an unknown method, a document never opened: answers, not crashes.
    let bad = client.request("textDocument/codeAction", json!({"textDocument": 7}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let unknown = client.request("textDocument/hover", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    client.notify("textDocument/didChange", json!({"nonsense": true}));
    let log = client.wait_for(|m| m["method"] == "window/logMessage");
    assert!(log["params"]["message"]
        .as_str()
        .unwrap()
        .contains("didChange"));
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&root.join("never.py"))}}),
    );

    // The document exists only in the editor, and imports the unreadable module.
    let text = format!("import broken\n{GROUP}");
    client.open(&group, "python", &text);
    let published = client.diagnostics(&group);
    let [d] = published["diagnostics"].as_array().unwrap().as_slice() else {
        panic!("one finding: {published:#}");
    };
    assert_eq!(d["code"], "GPU015");
    assert_eq!(d["severity"], 3, "info is Information");
    assert_eq!(d["range"]["start"], json!({"line": 7, "character": 4}));
    assert_eq!(d["range"]["end"], json!({"line": 7, "character": 35}));

    // Asked for elsewhere on the line, with the finding in the context, as editors do for a
    // line's diagnostics.
    let start = json!({"line": 7, "character": 0});
    let params = json!({
        "textDocument": {"uri": group},
        "range": {"start": start, "end": start},
        "context": {"diagnostics": [d], "only": ["quickfix"]},
    });
    let response = client.request("textDocument/codeAction", params);
    let actions = response["result"].as_array().unwrap();
    assert_eq!(actions.len(), 2, "{response:#}");
    assert!(actions[0]["title"]
        .as_str()
        .unwrap()
        .starts_with("Fix GPU015: bind the device"));
    assert_eq!(actions[0]["isPreferred"], true);
    let edits = actions[0]["edit"]["changes"][&group].as_array().unwrap();
    assert_eq!(edits.len(), 2, "{edits:#?}");
    // The existing comment is not a noqa one: the directive goes after it, at the line's end
    // counted in bytes ('é' is two).
    let line = "    dist.init_process_group(\"nccl\")  # é";
    let end = json!({"line": 7, "character": line.len()});
    let [edit] = actions[1]["edit"]["changes"][&group]
        .as_array()
        .unwrap()
        .as_slice()
    else {
        panic!("one edit");
    };
    assert_eq!(edit["newText"], "  # noqa: GPU015");
    assert_eq!(edit["range"]["start"], end);

    // Only other kinds asked for: none.
    let params = json!({
        "textDocument": {"uri": group},
        "range": d["range"],
        "context": {"diagnostics": [], "only": ["refactor"]},
    });
    let response = client.request("textDocument/codeAction", params);
    assert_eq!(response["result"], json!([]));

    // After shutdown, requests are refused; exit ends the process with 0.
    let shutdown = client.request("shutdown", json!(null));
    assert!(shutdown.get("error").is_none(), "{shutdown}");
    let late = client.request("textDocument/codeAction", json!({}));
    assert_eq!(late["error"]["code"], -32600, "{late}");
    client.notify("exit", json!(null));
    assert_eq!(client.exit_status(), Some(0));
}

#[test]
fn a_broken_configuration_is_shown_once_and_the_document_gets_no_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    fs::write(
        root.join("pyproject.toml"),
        "[tool.gpulint]\nplatform = \"amiga\"\n",
    )
    .unwrap();
    let loader = uri(&root.join("loader.py"));
    let mut client = Client::start(&root);
    initialize(&mut client, &root, json!({}));
    client.open(&loader, "python", LOADER);
    let shown = client.wait_for(|m| m["method"] == "window/showMessage");
    assert_eq!(shown["params"]["type"], 1, "an error");
    assert_eq!(
        shown["params"]["message"],
        "gpulint: loader.py not checked: pyproject.toml:2: invalid configuration: platform `amiga` is not \"linux\", \"macos\" or \"windows\""
    );
    assert_eq!(client.diagnostics(&loader)["diagnostics"], json!([]));
    // The same error at the next keystroke is not shown again; once fixed, the check runs.
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": loader, "version": 2},
            "contentChanges": [{"text": format!("{LOADER}\n")}],
        }),
    );
    // A code action request checks first: any message of that check comes before its answer.
    let zero = json!({"line": 0, "character": 0});
    let params = json!({
        "textDocument": {"uri": loader},
        "range": {"start": zero, "end": zero},
        "context": {"diagnostics": []},
    });
    let response = client.request("textDocument/codeAction", params);
    assert_eq!(response["result"], json!([]));
    let shown_again = |c: &Client| c.queued.iter().any(|m| m["method"] == "window/showMessage");
    assert!(!shown_again(&client), "{:#?}", client.queued);
    fs::write(root.join("pyproject.toml"), "[tool.gpulint]\n").unwrap();
    client.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": loader}}),
    );
    let published = client.diagnostics(&loader);
    assert_eq!(published["diagnostics"][0]["code"], "GPU001", "{published}");
    assert!(!shown_again(&client), "{:#?}", client.queued);
}

#[test]
fn exit_without_shutdown_is_status_1_and_a_body_that_is_not_json_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path());
    initialize(&mut client, dir.path(), json!({}));
    client.notify("exit", json!(null));
    assert_eq!(client.exit_status(), Some(1));

    let mut client = Client::start(dir.path());
    initialize(&mut client, dir.path(), json!({}));
    // Not JSON at all: a parse error without an id, and the server goes on.
    write!(client.stdin, "Content-Length: 5\r\n\r\nhello").unwrap();
    client.stdin.flush().unwrap();
    let error = client.wait_for(|m| m.get("id") == Some(&Value::Null));
    assert_eq!(error["error"]["code"], -32700, "{error}");
    let unknown = client.request("textDocument/hover", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    client.notify("exit", json!(null));
    assert_eq!(client.exit_status(), Some(1));
}
