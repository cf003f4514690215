//! A language client for the server tests: `gpulint server` started from the built binary, spoken
//! to over standard input and output with Content-Length framing. Every wait has a deadline that
//! only guards against a hang.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const WAIT: Duration = Duration::from_secs(60);

pub struct Client {
    pub child: Child,
    pub stdin: ChildStdin,
    incoming: mpsc::Receiver<Value>,
    /// Messages read while waiting for another.
    pub queued: VecDeque<Value>,
    next_id: i64,
}

impl Client {
    pub fn start(cwd: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gpulint"))
            .arg("server")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the gpulint binary runs");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            incoming,
            queued: VecDeque::new(),
            next_id: 1,
        }
    }

    pub fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response (`result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(|m| m["id"] == id && m.get("method").is_none())
    }

    /// The first message (queued or new) that `wanted` accepts; the others stay queued.
    pub fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.queued.iter().position(&wanted) {
            return self.queued.remove(i).unwrap();
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .incoming
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no such message in time; got {:#?}", self.queued));
            if wanted(&message) {
                return message;
            }
            self.queued.push_back(message);
        }
    }

    /// The next diagnostics published for `uri`.
    pub fn diagnostics(&mut self, uri: &str) -> Value {
        let message = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        message["params"].clone()
    }

    /// Whether diagnostics for `uri` were published and not yet taken.
    pub fn has_queued_diagnostics(&self, uri: &str) -> bool {
        self.queued
            .iter()
            .any(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
    }

    /// Brings the server's checks up to date: a code action request checks what changed and
    /// publishes before it answers, so whatever those checks publish is queued after this.
    pub fn sync(&mut self, uri: &str) {
        let zero = json!({"line": 0, "character": 0});
        let params = json!({
            "textDocument": {"uri": uri},
            "range": {"start": zero, "end": zero},
            "context": {"diagnostics": [], "only": ["refactor"]},
        });
        let response = self.request("textDocument/codeAction", params);
        assert!(response.get("error").is_none(), "{response}");
    }

    pub fn open(&mut self, uri: &str, language: &str, text: &str) {
        let document = json!({"uri": uri, "languageId": language, "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({ "textDocument": document }));
    }

    pub fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            }),
        );
    }

    /// The code actions offered for the whole first `lines` lines of `uri`.
    pub fn code_actions(&mut self, uri: &str, lines: u32, only: Option<&[&str]>) -> Vec<Value> {
        let mut context = json!({"diagnostics": []});
        if let Some(only) = only {
            context["only"] = json!(only);
        }
        let params = json!({
            "textDocument": {"uri": uri},
            "range": {
                "start": {"line": 0, "character": 0},
                "end": {"line": lines, "character": 0},
            },
            "context": context,
        });
        let response = self.request("textDocument/codeAction", params);
        response["result"]
            .as_array()
            .unwrap_or_else(|| panic!("a list of actions: {response:#}"))
            .clone()
    }

    pub fn shutdown(&mut self) {
        let shutdown = self.request("shutdown", json!(null));
        assert!(shutdown.get("error").is_none(), "{shutdown}");
        self.notify("exit", json!(null));
        assert_eq!(self.exit_status(), Some(0));
    }

    /// Waits for the process to end; its exit status.
    pub fn exit_status(&mut self) -> Option<i32> {
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the server did not exit");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // A failed test must not leave the server running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The next message the server wrote, by its `Content-Length` header; `None` at the end of its
/// output or on a body that is not JSON.
pub fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// `initialize` with the workspace folder `root`, then `initialized`.
pub fn initialize(client: &mut Client, root: &Path, capabilities: Value) -> Value {
    let params = json!({
        "processId": null,
        "capabilities": capabilities,
        "workspaceFolders": [{"uri": uri(root), "name": "project"}],
    });
    let response = client.request("initialize", params);
    client.notify("initialized", json!({}));
    response
}

/// A fresh folder for a project, canonical (the server reports canonical paths).
pub fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

/// The text with `edits` (LSP `TextEdit`s with UTF-16 positions) applied, as an editor does.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| -> usize {
        let line = p["line"].as_u64().unwrap() as usize;
        let character = p["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let mut units = 0;
        for (i, c) in text[start..].char_indices() {
            if units >= character || c == '\n' {
                return start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    let mut sorted: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap(),
            )
        })
        .collect();
    sorted.sort();
    let mut out = text.to_string();
    for (start, end, new) in sorted.into_iter().rev() {
        out.replace_range(start..end, new);
    }
    out
}
