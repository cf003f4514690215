//! `--target server`: one `gpulint server` session per case, in a temporary project. The session
//! mixes valid traffic (documents opened, changed in full and by ranges, some out of range or
//! reversed, in storms; saves, closes, code actions, unknown methods) with mutated messages and
//! frames that are not messages. Every request sent in a well-formed frame must be answered within
//! [`ANSWER`], every frame the server writes must be JSON, and the session must end as its last
//! step asks: status 0 after `shutdown` and `exit`, 1 otherwise, with the reason on standard
//! error when the input ended inside a message. The bytes sent are kept as `input.bin`:
//! `gpulint server < input.bin` replays a case.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::child;
use crate::rng::Rng;
use crate::{Options, Summary};

/// A request unanswered for this long is a hang.
const ANSWER: Duration = Duration::from_secs(20);
const MAX_MIB: i64 = 300;

const TEXTS: &[&str] = &[
    "import torch\nfrom torch.utils.data import DataLoader\n\nmodel = torch.nn.Linear(2, 2).cuda()\ntag = \"🚀\"; loader = DataLoader([1, 2], num_workers=2)\nfor b in loader:\n    print(b)\n",
    "import os\nimport torch\nimport torch.distributed as dist\n\n\ndef main():\n    dist.init_process_group(\"nccl\")  # é\n    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n\n\nif __name__ == \"__main__\":\n    main()\n",
    "import multiprocessing as mp\r\nimport torch\r\ntorch.cuda.init()\rp = mp.Process(target=print)\r\np.start()\r\n",
    "def f(:\n    return\n",
    "",
    "é🚀\u{2028}x = 1\n\t\tpass\n",
    "import helper\nhelper.setup()\n",
];

const INSERTS: &[&str] = &[
    "",
    "x",
    "\n",
    "\r\n",
    "\r",
    "é",
    "🚀",
    "import torch\n",
    ".cuda()",
    "    ",
    "(",
    "\"\"\"",
];

enum Incoming {
    Message(Value),
    /// A frame that is not JSON, or not framed.
    Garbage(String),
}

struct Session {
    pid: libc::pid_t,
    child: Option<std::process::Child>,
    stdin: Option<ChildStdin>,
    incoming: mpsc::Receiver<Incoming>,
    /// Every byte sent, to replay the case, but the bodies over the limit: `gaps` says where.
    sent: Vec<u8>,
    gaps: Vec<String>,
    next_id: i64,
    /// Requests sent in well-formed frames and not yet answered.
    waiting: BTreeSet<i64>,
    problem: Option<String>,
}

impl Session {
    fn start(binary: &Path, dir: &Path) -> Session {
        let mut child = Command::new(binary)
            .arg("server")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.join("stderr.txt")).expect("stderr file"))
            .spawn()
            .expect("gpulint runs");
        let stdout = child.stdout.take().expect("piped");
        let (tx, incoming) = mpsc::channel();
        // Drains standard output as it comes, so that the server never waits on the fuzzer.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_frame(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        Session {
            pid: child.id() as libc::pid_t,
            stdin: child.stdin.take(),
            child: Some(child),
            incoming,
            sent: Vec::new(),
            gaps: Vec::new(),
            next_id: 1,
            waiting: BTreeSet::new(),
            problem: None,
        }
    }

    fn raw(&mut self, bytes: &[u8]) {
        self.sent.extend_from_slice(bytes);
        self.write(bytes);
    }

    /// Writes without keeping the bytes: a child's peak memory counts its parent's (`exec` keeps
    /// the larger), so the fuzzer never holds a large message.
    fn write(&mut self, bytes: &[u8]) {
        let Some(stdin) = &mut self.stdin else {
            return;
        };
        if stdin.write_all(bytes).and_then(|()| stdin.flush()).is_err() {
            // The server stopped reading: the end of the session says whether it should have.
            self.stdin = None;
        }
    }

    fn frame(&mut self, body: &str) {
        self.raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.frame(&json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string());
    }

    fn request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.frame(&body.to_string());
        self.waiting.insert(id);
        id
    }

    /// Waits until `id` is answered (reading what comes before it); its answer.
    fn answer(&mut self, id: i64) -> Option<Value> {
        let deadline = Instant::now() + ANSWER;
        while self.problem.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(Incoming::Message(m)) => {
                    let answered = m.get("method").is_none().then(|| m["id"].as_i64());
                    if let Some(Some(got)) = answered {
                        self.waiting.remove(&got);
                        if got == id {
                            return Some(m);
                        }
                    }
                }
                Ok(Incoming::Garbage(what)) => self.problem = Some(format!("wrote {what}")),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    self.problem = Some(format!("request {id} unanswered after {ANSWER:?}"));
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    self.problem = Some(format!("output closed before request {id} was answered"));
                }
            }
        }
        None
    }

    /// Every request still waiting is answered.
    fn settle(&mut self) {
        while let Some(&id) = self.waiting.first() {
            if self.answer(id).is_none() {
                return;
            }
        }
    }
}

fn read_frame(reader: &mut impl BufRead) -> Option<Incoming> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        match line.strip_prefix("Content-Length: ") {
            Some(value) => length = value.parse::<usize>().ok(),
            None => return Some(Incoming::Garbage(format!("a header line {line:?}"))),
        }
    }
    let Some(length) = length.filter(|&n| n <= 256 << 20) else {
        return Some(Incoming::Garbage(
            "a frame without a sane length".to_string(),
        ));
    };
    let mut body = Vec::new();
    reader.take(length as u64).read_to_end(&mut body).ok()?;
    Some(match serde_json::from_slice(&body) {
        Ok(value) => Incoming::Message(value),
        Err(e) => Incoming::Garbage(format!("a body that is not JSON ({e})")),
    })
}

fn position(rng: &mut Rng) -> Value {
    let line = match rng.below(10) {
        0 => u32::MAX as u64,
        1 => 1000,
        n => n as u64 - 2,
    };
    let character = match rng.below(10) {
        0 => u32::MAX as u64,
        1 => 200,
        n => n as u64,
    };
    json!({"line": line, "character": character})
}

fn range(rng: &mut Rng) -> Value {
    json!({"start": position(rng), "end": position(rng)})
}

/// A change: the whole text, or an edit at a range (possibly out of the text, or reversed).
fn change(rng: &mut Rng) -> Value {
    if rng.chance(20) {
        return json!({"text": *rng.pick(TEXTS)});
    }
    json!({"range": range(rng), "text": *rng.pick(INSERTS)})
}

/// Frames that are not messages, after which the stream is in step again.
fn bad_frame(rng: &mut Rng) -> Vec<u8> {
    let frames: &[&[u8]] = &[
        b"Content-Length: -5\r\n\r\nhello",
        b"Content-Length: abc\r\n\r\n{}",
        b"Content-Length: 99999999999999999999999\r\n\r\n{}",
        b"Content-Length:\r\n\r\n",
        b"Content-Type: application/vscode-jsonrpc\r\n\r\n{\"id\": 1}",
        b"no colon\r\n\r\n",
        b"\r\n",
        b"Content-Length: 4\r\n\r\n\xff\xfe\xfd\xfc",
        b"Content-Length: 12\r\n\r\n{\"jsonrpc\": ",
        b"Content-Length: 6\r\n\r\n[1, 2]",
        b"Content-Length: 4\r\n\r\nnull",
        b"Content-Length: 2\r\ncontent-length: 3\r\n\r\n{} ",
        b"Content-Length: 2\nContent-Type: x\n\n{}",
    ];
    if rng.chance(5) {
        let mut long = vec![b'x'; 20 << 10];
        long.extend_from_slice(b"\r\n\r\n");
        return long;
    }
    rng.pick(frames).to_vec()
}

/// A valid message with one part replaced by something of the wrong shape.
fn mutated(rng: &mut Rng, uri: &str) -> String {
    let mut message = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 3}, "contentChanges": [change(rng)]}});
    let odd = rng
        .pick(&[
            json!(null),
            json!(-1),
            json!(1e300),
            json!("x"),
            json!([]),
            json!({}),
            json!(u64::MAX),
        ])
        .clone();
    match rng.below(6) {
        0 => message["params"] = odd,
        1 => message["params"]["textDocument"]["uri"] = odd,
        2 => message["params"]["textDocument"]["version"] = odd,
        3 => message["params"]["contentChanges"][0]["range"]["start"]["line"] = odd,
        4 => message["method"] = odd,
        _ => message["params"]["contentChanges"] = odd,
    }
    message.to_string()
}

/// How a session ends, and the status it must end with.
fn end(rng: &mut Rng, session: &mut Session) -> (Option<i32>, &'static str) {
    match rng.below(6) {
        0 | 1 => {
            let id = session.request("shutdown", json!(null));
            let ok = session.answer(id).is_some_and(|a| a.get("error").is_none());
            session.notify("exit", json!(null));
            (Some(if ok { 0 } else { 1 }), "")
        }
        2 => {
            session.notify("exit", json!(null));
            (Some(1), "")
        }
        3 => {
            session.raw(b"Content-Length: 100\r\n\r\n{\"jsonrpc\"");
            (Some(1), "standard input ended inside a message")
        }
        4 => {
            session.raw(b"Content-Length: 1099511627776\r\n\r\n{}");
            (
                Some(1),
                "standard input ended inside a message of 1099511627776 bytes",
            )
        }
        // After a frame that is not a message, what follows it was dropped, not read as a frame.
        _ => (Some(1), "standard input "),
    }
}

/// Runs one session; the problem, if any.
fn session(rng: &mut Rng, binary: &Path, dir: &Path) -> (Option<String>, Vec<u8>, child::Outcome) {
    std::fs::write(dir.join("helper.py"), TEXTS[0]).expect("write");
    let mut session = Session::start(binary, dir);
    // Kills a session that stops reading its input, so that a blocked write ends.
    let (cancel, cancelled) = mpsc::channel::<()>();
    let pid = session.pid;
    let watchdog = std::thread::spawn(move || {
        if cancelled.recv_timeout(Duration::from_secs(120)).is_err() {
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
    let uris: Vec<String> = ["a.py", "helper.py", "b.ipynb", "c.txt"]
        .iter()
        .map(|name| format!("file://{}", dir.join(name).display()))
        .chain(["untitled:Untitled-1".to_string()])
        .collect();
    if rng.chance(92) {
        let encodings = rng
            .pick(&[json!(["utf-8"]), json!(["utf-16"]), json!(null)])
            .clone();
        let params = json!({"capabilities": {"general": {"positionEncodings": encodings}},
                            "rootUri": format!("file://{}", dir.display())});
        let id = session.request("initialize", params);
        session.answer(id);
        session.notify("initialized", json!({}));
    }
    let steps = 3 + rng.below(60);
    let mut version = 1;
    for _ in 0..steps {
        if session.problem.is_some() {
            break;
        }
        let uri = rng.pick(&uris).clone();
        version += 1;
        match rng.below(16) {
            0 | 1 => {
                let document = json!({"uri": uri, "languageId": *rng.pick(&["python", "plaintext"]),
                                      "version": version, "text": *rng.pick(TEXTS)});
                session.notify("textDocument/didOpen", json!({ "textDocument": document }));
            }
            2..=4 => {
                let changes: Vec<Value> = (0..1 + rng.below(8)).map(|_| change(rng)).collect();
                let params = json!({"textDocument": {"uri": uri, "version": version},
                                    "contentChanges": changes});
                session.notify("textDocument/didChange", params);
            }
            5 => {
                // A storm of opens and edits, as fast as they can be written.
                for _ in 0..50 + rng.below(400) {
                    version += 1;
                    let uri = match rng.chance(80) {
                        true => uri.clone(),
                        false => rng.pick(&uris).clone(),
                    };
                    if rng.chance(10) {
                        let document = json!({"uri": uri, "languageId": "python",
                                              "version": version, "text": *rng.pick(TEXTS)});
                        session.notify("textDocument/didOpen", json!({ "textDocument": document }));
                        continue;
                    }
                    let params = json!({"textDocument": {"uri": uri, "version": version},
                                        "contentChanges": [change(rng)]});
                    session.notify("textDocument/didChange", params);
                }
            }
            6 => {
                let text = rng.chance(50).then(|| *rng.pick(TEXTS));
                let params = json!({"textDocument": {"uri": uri}, "text": text});
                session.notify("textDocument/didSave", params);
            }
            7 => session.notify(
                "textDocument/didClose",
                json!({"textDocument": {"uri": uri}}),
            ),
            8 | 9 => {
                let params = json!({"textDocument": {"uri": uri}, "range": range(rng),
                                    "context": {"diagnostics": [], "only": rng.chance(20).then_some(["refactor"])}});
                session.request("textDocument/codeAction", params);
            }
            10 => {
                let method = *rng.pick(&["textDocument/hover", "gpulint/x", ""]);
                session.request(method, json!({}));
                session.notify("$/cancelRequest", json!({"id": 1}));
            }
            11 | 12 => {
                let frame = bad_frame(rng);
                session.raw(&frame);
            }
            13 => {
                let body = mutated(rng, &uri);
                session.frame(&body);
            }
            14 => {
                // An id JSON-RPC allows and `lsp-server` cannot hold: answered by id all the same.
                let id = (1i64 << 40) + session.next_id;
                session.frame(&json!({"jsonrpc": "2.0", "id": id, "method": "x"}).to_string());
                session.waiting.insert(id);
            }
            _ if rng.chance(3) => {
                // A message over the limit, sent in full: dropped as it arrives.
                let length = (64 << 20) + 1 + rng.below(1000);
                session.raw(format!("Content-Length: {length}\r\n\r\n").as_bytes());
                session
                    .gaps
                    .push(format!("{length} spaces after byte {}", session.sent.len()));
                let chunk = vec![b' '; 1 << 20];
                for _ in 0..length >> 20 {
                    session.write(&chunk);
                }
                session.write(&vec![b' '; length & ((1 << 20) - 1)]);
            }
            _ => {}
        }
        if rng.chance(20) {
            let id = session.request("gpulint/probe", json!({}));
            session.answer(id);
        }
    }
    session.settle();
    let (code, reason) = end(rng, &mut session);
    drop(session.stdin.take());
    let _ = cancel.send(());
    let _ = watchdog.join();
    let child = session.child.take().expect("started");
    let mut outcome = child::wait(child, Duration::from_secs(30));
    outcome.stderr = std::fs::read_to_string(dir.join("stderr.txt")).unwrap_or_default();
    let mut problem = session.problem.take();
    if problem.is_none() {
        problem = outcome.crash();
    }
    if problem.is_none() && outcome.hung {
        problem = Some("did not end".to_string());
    }
    if problem.is_none() && outcome.signal.is_some() {
        problem = Some("killed: it stopped reading its input".to_string());
    }
    if problem.is_none() && outcome.code != code {
        problem = Some(format!("ended with {:?}, not {code:?}", outcome.code));
    }
    if problem.is_none() && !outcome.stderr.contains(reason) {
        problem = Some(format!("no `{reason}` on stderr: {}", outcome.stderr));
    }
    if problem.is_none() && outcome.peak_mib > MAX_MIB {
        problem = Some(format!("used {} MiB", outcome.peak_mib));
    }
    let problem = problem.map(|p| match session.gaps.is_empty() {
        true => p,
        false => format!("{p}\n(input.bin lacks {})", session.gaps.join(", ")),
    });
    (problem, std::mem::take(&mut session.sent), outcome)
}

pub fn fuzz(options: &Options) -> Summary {
    let mut rng = Rng(options.seed.max(1));
    let deadline = Instant::now() + Duration::from_secs(options.seconds);
    let mut summary = Summary::default();
    while Instant::now() < deadline {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("temp dir");
        let (problem, sent, outcome) = session(&mut rng, &options.binary, &root);
        summary.cases += 1;
        summary.note(outcome.cpu_seconds, outcome.peak_mib);
        let problem = match summary.cases <= options.samples {
            true => Some("sample".to_string()),
            false => problem,
        };
        if let Some(problem) = problem {
            let files = [
                ("input.bin".to_string(), sent),
                ("stderr.txt".to_string(), outcome.stderr.into_bytes()),
            ];
            summary.keep(options, &problem, &files);
        }
    }
    summary
}
