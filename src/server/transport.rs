//! Standard input and output as `lsp-server` messages, read through [`framing`] instead of
//! `lsp-server`'s own reader. A frame or body that is not a message is answered here, on the
//! reader's thread, with a JSON-RPC error (`id` null where it cannot be known, which
//! `lsp-server`'s `Response` cannot hold), logged on standard error, and reading goes on.

use std::io::{self, Write};
use std::thread::{self, JoinHandle};

use crossbeam_channel::{bounded, Sender};
use lsp_server::{Connection, ErrorCode, Message};
use serde_json::{json, Value};

use super::framing::{Frame, Lost, Reader};

pub struct Threads {
    /// Why reading stopped; `None` after `exit`, or when the message loop had gone.
    pub reader: JoinHandle<Option<String>>,
    pub writer: JoinHandle<()>,
}

pub fn stdio() -> io::Result<(Connection, Threads)> {
    // Unbuffered channels, as `lsp-server`'s: the reader holds at most the message it is handing
    // over.
    let (writer_sender, writer_receiver) = bounded::<Message>(0);
    let writer = thread::Builder::new()
        .name("gpulint-lsp-writer".to_string())
        .spawn(move || {
            for message in writer_receiver {
                // Locked for the whole frame: the reader's answers go between frames.
                let mut out = io::stdout().lock();
                if message.write(&mut out).is_err() {
                    return;
                }
            }
        })?;
    let (reader_sender, reader_receiver) = bounded::<Message>(0);
    let reader = thread::Builder::new()
        .name("gpulint-lsp-reader".to_string())
        .spawn(move || read(reader_sender))?;
    let connection = Connection {
        sender: writer_sender,
        receiver: reader_receiver,
    };
    Ok((connection, Threads { reader, writer }))
}

fn read(sender: Sender<Message>) -> Option<String> {
    let stdin = io::stdin();
    let mut frames = Reader::new(stdin.lock());
    loop {
        let body = match frames.next_frame() {
            Ok(Frame::Body(body)) => body,
            Ok(Frame::Skipped(reason)) => {
                answer(
                    Value::Null,
                    ErrorCode::ParseError,
                    &format!("skipped {reason}"),
                );
                continue;
            }
            Ok(Frame::End) => return Some("standard input closed before `exit`".to_string()),
            Err(Lost(reason)) => return Some(reason),
        };
        match decode(&body) {
            Ok(message) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if sender.send(message).is_err() || exit {
                    return None;
                }
            }
            Err((id, code, reason)) => answer(id, code, &reason),
        }
    }
}

/// A body as a message, or the error to answer it with: the id to answer (null when it cannot
/// be known), the code and the reason.
fn decode(body: &[u8]) -> Result<Message, (Value, ErrorCode, String)> {
    let parse_error = |reason: String| (Value::Null, ErrorCode::ParseError, reason);
    let text = std::str::from_utf8(body)
        .map_err(|e| parse_error(format!("a message that is not UTF-8: {e}")))?;
    let value: Value = serde_json::from_str(text)
        .map_err(|e| parse_error(format!("a message that is not JSON: {e}")))?;
    // A request's id, when it is one JSON-RPC allows.
    let id = match (value.get("method"), value.get("id")) {
        (Some(_), Some(id @ (Value::Number(_) | Value::String(_)))) => id.clone(),
        _ => Value::Null,
    };
    let has_id = value.get("id").is_some_and(|id| !id.is_null());
    let invalid = |reason: String| (id.clone(), ErrorCode::InvalidRequest, reason);
    match serde_json::from_value::<Message>(value) {
        // `lsp-server` reads a request whose id it cannot hold (2^40, 1.5) as a notification,
        // which would never be answered.
        Ok(Message::Notification(n)) if has_id => Err(invalid(format!(
            "`{}`: a request id must be a string or a 32-bit integer",
            n.method
        ))),
        Ok(message) => Ok(message),
        Err(e) => Err(invalid(format!("not a JSON-RPC message: {e}"))),
    }
}

/// A line on standard error, the editor's log; a closed one is not worth a panic (`eprintln!`).
pub fn log(line: &str) {
    let _ = writeln!(io::stderr(), "gpulint server: {line}");
}

/// Answers what was not a message, and says so on standard error (the editor's log).
fn answer(id: Value, code: ErrorCode, reason: &str) {
    log(reason);
    let error = json!({"code": code as i32, "message": format!("gpulint: {reason}")});
    let body = json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string();
    let mut out = io::stdout().lock();
    // A closed output is the message loop's to find.
    let _ = write!(out, "Content-Length: {}\r\n\r\n{body}", body.len()).and_then(|()| out.flush());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(body: &[u8]) -> (Value, i32, String) {
        match decode(body) {
            Ok(message) => panic!("read as {message:?}"),
            Err((id, code, reason)) => (id, code as i32, reason),
        }
    }

    #[test]
    fn what_is_not_a_message_is_answered_with_its_id_where_it_has_one() {
        let (id, code, reason) = refused(b"\xff\xfe{}");
        assert_eq!((id, code), (Value::Null, -32700));
        assert!(reason.contains("not UTF-8"), "{reason}");
        let (id, code, _) = refused(b"{\"jsonrpc\": ");
        assert_eq!((id, code), (Value::Null, -32700));
        let (id, code, _) = refused(b"[1, 2]");
        assert_eq!((id, code), (Value::Null, -32600));
        let (id, code, reason) =
            refused(br#"{"jsonrpc": "2.0", "id": 1099511627776, "method": "x"}"#);
        assert_eq!((id, code), (json!(1099511627776u64), -32600));
        assert!(reason.contains("32-bit"), "{reason}");
        let (id, code, _) = refused(br#"{"jsonrpc": "2.0", "id": "a", "method": 3}"#);
        assert_eq!((id, code), (json!("a"), -32600));
        assert!(matches!(
            decode(br#"{"jsonrpc": "2.0", "id": 7, "method": "shutdown"}"#),
            Ok(Message::Request(_))
        ));
        assert!(matches!(
            decode(br#"{"jsonrpc": "2.0", "method": "exit"}"#),
            Ok(Message::Notification(_))
        ));
    }
}
