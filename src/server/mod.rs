//! `gpulint server`: a language server on standard input and output. Documents are checked by the
//! same code as `gpulint check --stdin-filename PATH`, with the editor's text of the document and
//! the rest of the project from disk; findings are pushed with `textDocument/publishDiagnostics`,
//! fixes and `# noqa` comments offered as quick fixes.
//!
//! Checks wait until no message has arrived for [`QUIET`]: a burst of keystrokes is checked once,
//! and a code action request first brings the checks up to date.

mod convert;
mod findings;
mod framing;
mod session;
mod transport;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crossbeam_channel::RecvTimeoutError;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, InitializeParams, InitializeResult, LogMessageParams, MessageType,
    PublishDiagnosticsParams, SaveOptions, ServerCapabilities, ServerInfo, ShowMessageParams,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions,
};
use serde::de::DeserializeOwned;

use convert::Encoding;
use session::Session;

/// How long the client must be quiet before the changed documents are checked.
const QUIET: Duration = Duration::from_millis(100);

/// The largest document held: what one message can carry.
const MAX_DOCUMENT: u64 = framing::MAX_MESSAGE;

pub fn run() -> anyhow::Result<ExitCode> {
    let (connection, threads) = transport::stdio()?;
    let stop = serve(&connection);
    // Dropping the connection lets the writer finish what is queued, then stop.
    drop(connection);
    let code = match stop {
        Stop::Exit(code) => code,
        Stop::Disconnected => {
            // The reader has stopped: it says why.
            if let Ok(Some(reason)) = threads.reader.join() {
                transport::log(&reason);
            }
            1
        }
        Stop::CannotSend => {
            transport::log("standard output is closed");
            return Ok(ExitCode::from(1));
        }
    };
    // The reader may still wait on standard input after `exit`: leave without it.
    let _ = threads.writer.join();
    Ok(ExitCode::from(code))
}

/// Why the loop stopped.
enum Stop {
    /// `exit`: 0 after `shutdown`, 1 without, as the protocol asks.
    Exit(u8),
    /// Standard input closed, or the framing of messages was lost.
    Disconnected,
    /// Standard output is gone.
    CannotSend,
}

fn serve(connection: &Connection) -> Stop {
    let mut server = Server {
        connection,
        session: None,
        shut_down: false,
    };
    server.main_loop()
}

struct Server<'a> {
    connection: &'a Connection,
    /// Set by `initialize`.
    session: Option<Session>,
    shut_down: bool,
}

impl Server<'_> {
    fn main_loop(&mut self) -> Stop {
        loop {
            let pending = self.session.as_ref().is_some_and(Session::has_pending);
            let message = if pending {
                match self.connection.receiver.recv_timeout(QUIET) {
                    Ok(message) => message,
                    Err(RecvTimeoutError::Timeout) => {
                        if let Err(stop) = self.check_and_publish() {
                            return stop;
                        }
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => return Stop::Disconnected,
                }
            } else {
                match self.connection.receiver.recv() {
                    Ok(message) => message,
                    Err(_) => return Stop::Disconnected,
                }
            };
            let handled = match message {
                Message::Request(request) => self.request(request),
                Message::Notification(notification) => self.notification(notification),
                // The server sends no requests, so expects no responses.
                Message::Response(_) => Ok(()),
            };
            if let Err(stop) = handled {
                return stop;
            }
        }
    }

    fn send(&self, message: impl Into<Message>) -> Result<(), Stop> {
        self.connection
            .sender
            .send(message.into())
            .map_err(|_| Stop::CannotSend)
    }

    fn notify(&self, method: &str, params: impl serde::Serialize) -> Result<(), Stop> {
        self.send(Notification::new(method.to_string(), params))
    }

    fn error(&self, id: RequestId, code: ErrorCode, message: String) -> Result<(), Stop> {
        self.send(Response::new_err(id, code as i32, message))
    }

    fn request(&mut self, request: Request) -> Result<(), Stop> {
        let id = request.id.clone();
        if self.shut_down {
            let message = format!("`{}` after shutdown", request.method);
            return self.error(id, ErrorCode::InvalidRequest, message);
        }
        match (request.method.as_str(), &self.session) {
            ("initialize", None) => match params::<InitializeParams>(request.params) {
                Ok(params) => {
                    let (result, session) = initialize(params);
                    self.session = Some(session);
                    self.send(Response::new_ok(id, result))
                }
                Err(message) => self.error(id, ErrorCode::InvalidParams, message),
            },
            ("initialize", Some(_)) => {
                let message = "the server is already initialised".to_string();
                self.error(id, ErrorCode::InvalidRequest, message)
            }
            (_, None) => {
                let message = "the first request must be `initialize`".to_string();
                self.error(id, ErrorCode::ServerNotInitialized, message)
            }
            ("shutdown", Some(_)) => {
                self.shut_down = true;
                self.send(Response::new_ok(id, ()))
            }
            ("textDocument/codeAction", Some(_)) => {
                match params::<CodeActionParams>(request.params) {
                    Ok(params) => {
                        // Actions come from the findings of the text the editor holds now.
                        self.check_and_publish()?;
                        let actions = self.session.as_ref().map(|s| {
                            let uri = &params.text_document.uri;
                            match wants_quick_fixes(params.context.only.as_deref()) {
                                true => {
                                    s.code_actions(uri, params.range, &params.context.diagnostics)
                                }
                                false => Vec::new(),
                            }
                        });
                        self.send(Response::new_ok(id, actions.unwrap_or_default()))
                    }
                    Err(message) => self.error(id, ErrorCode::InvalidParams, message),
                }
            }
            (method, Some(_)) => {
                let message = format!("gpulint's server does not handle `{method}`");
                self.error(id, ErrorCode::MethodNotFound, message)
            }
        }
    }

    fn notification(&mut self, notification: Notification) -> Result<(), Stop> {
        if notification.method == "exit" {
            return Err(Stop::Exit(if self.shut_down { 0 } else { 1 }));
        }
        let Some(session) = &mut self.session else {
            // Before `initialize`, notifications are dropped.
            return Ok(());
        };
        let method = notification.method.clone();
        let applied = match method.as_str() {
            "textDocument/didOpen" => {
                params::<DidOpenTextDocumentParams>(notification.params).map(|p| {
                    let doc = p.text_document;
                    session.open(doc.uri, &doc.language_id, doc.text, doc.version);
                })
            }
            "textDocument/didChange" => params::<DidChangeTextDocumentParams>(notification.params)
                .and_then(|p| {
                    let uri = p.text_document.uri;
                    let encoding = session.encoding;
                    let mut too_large = false;
                    if let Some(doc) = session.doc_mut(&uri) {
                        for change in p.content_changes {
                            apply_change(&mut doc.text, change, encoding);
                            // Ranged inserts could grow it without end.
                            too_large = doc.text.len() as u64 > MAX_DOCUMENT;
                            if too_large {
                                break;
                            }
                        }
                        doc.version = p.text_document.version;
                    }
                    if too_large {
                        session.close(&uri);
                        return Err(format!(
                            "the document grew over {} MiB: closed, no longer checked",
                            MAX_DOCUMENT >> 20
                        ));
                    }
                    session.changed(&uri);
                    Ok(())
                }),
            "textDocument/didSave" => {
                params::<DidSaveTextDocumentParams>(notification.params).map(|p| {
                    let uri = p.text_document.uri;
                    if let (Some(text), Some(doc)) = (p.text, session.doc_mut(&uri)) {
                        doc.text = text;
                    }
                    session.saved(&uri);
                })
            }
            "textDocument/didClose" => params::<DidCloseTextDocumentParams>(notification.params)
                .map(|p| session.close(&p.text_document.uri)),
            _ => Ok(()),
        };
        match applied {
            // Closing publishes at once: nothing to check for it.
            Ok(()) if method == "textDocument/didClose" => self.publish(),
            Ok(()) => Ok(()),
            // A notification gets no response: say it in the client's log. A document closed
            // for its size has its diagnostics cleared.
            Err(message) => {
                let params = LogMessageParams {
                    typ: MessageType::WARNING,
                    message: format!("gpulint: `{method}` ignored: {message}"),
                };
                self.notify("window/logMessage", params)?;
                self.publish()
            }
        }
    }

    /// Checks the documents that changed, then publishes what changed.
    fn check_and_publish(&mut self) -> Result<(), Stop> {
        let Some(session) = &mut self.session else {
            return Ok(());
        };
        let notes = session.run_checks();
        for message in notes {
            let params = ShowMessageParams {
                typ: MessageType::ERROR,
                message,
            };
            self.notify("window/showMessage", params)?;
        }
        self.publish()
    }

    fn publish(&mut self) -> Result<(), Stop> {
        let Some(session) = &mut self.session else {
            return Ok(());
        };
        for (uri, version, diagnostics) in session.publications() {
            let params = PublishDiagnosticsParams {
                uri,
                diagnostics,
                version,
            };
            self.notify("textDocument/publishDiagnostics", params)?;
        }
        Ok(())
    }
}

/// A request's or notification's parameters, or why they are not what the method takes.
fn params<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| format!("invalid parameters: {e}"))
}

/// Whether `only` (the kinds the client asks for) admits quick fixes.
fn wants_quick_fixes(only: Option<&[CodeActionKind]>) -> bool {
    only.is_none_or(|kinds| {
        kinds
            .iter()
            .any(|k| k.as_str().is_empty() || k == &CodeActionKind::QUICKFIX)
    })
}

/// Full sync sends the whole text; a client that sends ranges anyway is followed.
fn apply_change(
    text: &mut String,
    change: lsp_types::TextDocumentContentChangeEvent,
    encoding: Encoding,
) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let lines = gpulint_python::source::LineIndex::new(text);
            let start = convert::offset(text, &lines, range.start, encoding);
            let end = convert::offset(text, &lines, range.end, encoding).max(start);
            text.replace_range(start..end, &change.text);
        }
    }
}

/// The server's capabilities and its session: position encoding, and the workspace folders.
#[allow(deprecated)] // `root_uri` and `root_path`: what clients without workspace folders send.
fn initialize(params: InitializeParams) -> (InitializeResult, Session) {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_deref());
    let encoding = Encoding::negotiate(offered);
    let mut roots: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| convert::uri_path(&f.uri))
        .collect();
    if roots.is_empty() {
        roots.extend(params.root_uri.as_ref().and_then(convert::uri_path));
    }
    if roots.is_empty() {
        roots.extend(
            params
                .root_path
                .map(|p| gpulint_python::program::normalize(p.as_ref())),
        );
    }
    let capabilities = ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    };
    let result = InitializeResult {
        capabilities,
        server_info: Some(ServerInfo {
            name: "gpulint".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    (result, Session::new(encoding, roots))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

    #[test]
    fn a_ranged_change_is_applied_at_its_utf16_positions() {
        let mut text = "é🚀x\nnext\n".to_string();
        let change = TextDocumentContentChangeEvent {
            // From after 'é' to after the rocket (two units).
            range: Some(Range::new(Position::new(0, 1), Position::new(0, 3))),
            range_length: None,
            text: "y".to_string(),
        };
        apply_change(&mut text, change, Encoding::Utf16);
        assert_eq!(text, "éyx\nnext\n");
        let whole = TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: "new".to_string(),
        };
        apply_change(&mut text, whole, Encoding::Utf16);
        assert_eq!(text, "new");
    }

    #[test]
    fn quick_fixes_are_offered_unless_other_kinds_only_are_asked_for() {
        assert!(wants_quick_fixes(None));
        assert!(wants_quick_fixes(Some(&[CodeActionKind::QUICKFIX])));
        assert!(!wants_quick_fixes(Some(&[CodeActionKind::REFACTOR])));
    }
}
