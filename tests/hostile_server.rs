//! `gpulint server` fed what is not a message: lengths that are huge, negative or missing, bodies
//! that are not UTF-8 or not JSON, input that ends inside a message. Each is answered with an
//! error and the next request still is, or the server ends with the reason on standard error;
//! never a crash, a hang or memory taken on a header's word. Memory is the child's own peak
//! (`wait4`); every wait has a deadline that only guards against a hang.

mod lsp;

use std::io::{BufReader, Read, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(60);

struct Server {
    pid: libc::pid_t,
    stdin: Option<ChildStdin>,
    incoming: mpsc::Receiver<Value>,
    stderr: Option<JoinHandle<String>>,
    reaped: bool,
}

/// How the server ended: its exit code, its peak resident memory in MiB, what it wrote on
/// standard error.
struct Ended {
    code: Option<i32>,
    peak_mib: i64,
    stderr: String,
}

impl Server {
    fn start() -> Server {
        let dir = std::env::temp_dir();
        let mut child = Command::new(env!("CARGO_BIN_EXE_gpulint"))
            .arg("server")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the gpulint binary runs");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = lsp::read_message(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let mut server = Server {
            pid: child.id() as libc::pid_t,
            stdin: child.stdin.take(),
            incoming,
            stderr: Some(stderr),
            reaped: false,
        };
        // Reaped by `wait4` below, which also gives the peak memory.
        std::mem::forget(child);
        let init = server.request(1, "initialize", json!({"capabilities": {}}));
        assert!(init.get("result").is_some(), "{init}");
        server.send_raw(&frame(
            &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}).to_string(),
        ));
        server
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("input open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(&frame(&body.to_string()));
        self.wait_for(|m| m["id"] == id)
    }

    /// The next message `wanted` accepts; others are dropped.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .incoming
                .recv_timeout(left)
                .expect("an answer before the deadline (else the server hung or died)");
            if wanted(&message) {
                return message;
            }
        }
    }

    /// Closes standard input and waits for the process to end.
    fn end(mut self) -> Ended {
        drop(self.stdin.take());
        let deadline = Instant::now() + WAIT;
        let mut status = 0;
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        loop {
            let pid = unsafe { libc::wait4(self.pid, &mut status, libc::WNOHANG, &mut usage) };
            if pid == self.pid {
                break;
            }
            assert!(Instant::now() < deadline, "the server did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
        self.reaped = true;
        let stderr = self.stderr.take().unwrap().join().unwrap();
        Ended {
            code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
            peak_mib: usage.ru_maxrss / 1024,
            stderr,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A failed test must not leave the server running.
        if !self.reaped {
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
                libc::waitpid(self.pid, std::ptr::null_mut(), 0);
            }
        }
    }
}

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// An error answer that has no id: its code and message.
fn error_without_id(server: &mut Server) -> (i64, String) {
    let answer = server.wait_for(|m| m.get("id") == Some(&Value::Null));
    let code = answer["error"]["code"].as_i64().expect("an error code");
    let message = answer["error"]["message"].as_str().unwrap().to_string();
    (code, message)
}

#[test]
fn a_huge_announced_length_is_answered_without_allocating_it() {
    let mut server = Server::start();
    // 1 TiB announced; the request after it is, by the framing, part of that message.
    server.send_raw(b"Content-Length: 1099511627776\r\n\r\n");
    let (code, message) = error_without_id(&mut server);
    assert_eq!(code, -32700);
    assert!(
        message.contains("1099511627776 bytes, over the limit of 64 MiB"),
        "{message}"
    );
    server.send_raw(&frame(
        r#"{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}"#,
    ));
    let ended = server.end();
    assert_eq!(ended.code, Some(1));
    assert!(
        ended
            .stderr
            .contains("standard input ended inside a message of 1099511627776 bytes"),
        "{}",
        ended.stderr
    );
    // Far under what was announced, and under a 64 MiB body: nothing was sized by the header.
    assert!(ended.peak_mib < 64, "peak {} MiB", ended.peak_mib);
}

#[test]
fn a_message_over_the_limit_is_dropped_as_it_arrives_and_the_next_one_answered() {
    let mut server = Server::start();
    let length = (64 << 20) + 1;
    server.send_raw(format!("Content-Length: {length}\r\n\r\n").as_bytes());
    let (code, message) = error_without_id(&mut server);
    assert_eq!(code, -32700);
    assert!(message.contains("over the limit"), "{message}");
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..64 {
        server.send_raw(&chunk);
    }
    server.send_raw(b" ");
    let answer = server.request(2, "gpulint/unknown", json!({}));
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    let ended = server.end();
    assert!(ended.peak_mib < 64, "peak {} MiB", ended.peak_mib);
}

#[test]
fn bad_frames_and_bodies_are_answered_and_the_next_request_still_is() {
    let mut server = Server::start();
    let cases: [(&[u8], i64, &str); 9] = [
        (
            b"Content-Length: -5\r\n\r\nhello",
            -32700,
            "Content-Length \"-5\" is not a byte count",
        ),
        (
            b"Content-Length: twelve\r\n\r\n{}",
            -32700,
            "is not a byte count",
        ),
        (
            b"Content-Length: 99999999999999999999999\r\n\r\n{}",
            -32700,
            "is not a byte count",
        ),
        (
            b"Content-Type: application/vscode-jsonrpc\r\n\r\n{\"id\": 9}",
            -32700,
            "without Content-Length",
        ),
        (b"no colon here\r\n\r\n", -32700, "malformed header line"),
        (
            b"Content-Length: 4\r\n\r\n\xff\xfe\xfd\xfc",
            -32700,
            "not UTF-8",
        ),
        (
            b"Content-Length: 12\r\n\r\n{\"jsonrpc\": ",
            -32700,
            "not JSON",
        ),
        (
            b"Content-Length: 6\r\n\r\n[1, 2]",
            -32600,
            "not a JSON-RPC message",
        ),
        (
            b"Content-Length: 4\r\n\r\nnull",
            -32600,
            "not a JSON-RPC message",
        ),
    ];
    for (i, (bytes, code, reason)) in cases.into_iter().enumerate() {
        server.send_raw(bytes);
        let (got, message) = error_without_id(&mut server);
        assert_eq!(got, code, "case {i}: {message}");
        assert!(message.contains(reason), "case {i}: {message}");
        let id = 100 + i as i64;
        let answer = server.request(id, "gpulint/unknown", json!({}));
        assert_eq!(answer["error"]["code"], -32601, "case {i}: {answer}");
    }
    // A request whose id the protocol allows but `lsp-server` cannot hold is answered by id.
    let big = 1_099_511_627_776i64;
    let answer = server.request(big, "gpulint/unknown", json!({}));
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    let answer = server.request(3, "shutdown", json!(null));
    assert!(answer.get("error").is_none(), "{answer}");
    server.send_raw(&frame(r#"{"jsonrpc": "2.0", "method": "exit"}"#));
    let ended = server.end();
    assert_eq!(ended.code, Some(0), "{}", ended.stderr);
    // Each refusal is in the log too.
    assert!(ended.stderr.contains("not UTF-8"), "{}", ended.stderr);
}

#[test]
fn input_that_ends_inside_a_message_ends_the_server_with_the_reason() {
    let mut server = Server::start();
    server.send_raw(b"Content-Length: 100\r\n\r\n{\"jsonrpc\"");
    let ended = server.end();
    assert_eq!(ended.code, Some(1));
    assert!(
        ended
            .stderr
            .contains("standard input ended inside a message (10 of 100 bytes)"),
        "{}",
        ended.stderr
    );

    let mut server = Server::start();
    server.send_raw(b"Content-Length: 100\r\n");
    let ended = server.end();
    assert!(
        ended.stderr.contains("inside a message header"),
        "{}",
        ended.stderr
    );

    // Between messages, without `exit`: status 1, and why.
    let ended = Server::start().end();
    assert_eq!(ended.code, Some(1));
    assert!(
        ended.stderr.contains("standard input closed before `exit`"),
        "{}",
        ended.stderr
    );
}
