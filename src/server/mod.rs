//! `gpulint server`: a language server on standard input and output. Documents (Python files,
//! notebooks as their JSON, Rust files) are checked by the same code as `gpulint check
//! --stdin-filename PATH`, with the editor's text of the document and of the open Python modules
//! it imports, and the rest of the project from disk. Findings are pushed with
//! `textDocument/publishDiagnostics`, or answered to `textDocument/diagnostic` when the client
//! pulls them; fixes and `# noqa` comments are offered as quick fixes, the safe fixes together as
//! `source.fixAll.gpulint`. Files changed on disk are watched where the client can.
//!
//! Checks wait until no message has arrived for [`QUIET`]: a burst of keystrokes is checked once,
//! and a code action or diagnostic request first brings the checks up to date.

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
    DiagnosticOptions, DiagnosticServerCapabilities, DidChangeTextDocumentParams,
    DidChangeWatchedFilesParams, DidChangeWatchedFilesRegistrationOptions,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams,
    DocumentDiagnosticParams, DocumentDiagnosticReport, DocumentDiagnosticReportResult,
    FileSystemWatcher, FullDocumentDiagnosticReport, GlobPattern, InitializeParams,
    InitializeResult, LogMessageParams, MessageType, PublishDiagnosticsParams, Registration,
    RegistrationParams, RelatedFullDocumentDiagnosticReport,
    RelatedUnchangedDocumentDiagnosticReport, SaveOptions, ServerCapabilities, ServerInfo,
    ShowMessageParams, TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, UnchangedDocumentDiagnosticReport,
};
use serde::de::DeserializeOwned;

use convert::Encoding;
use session::{Session, Wanted};

/// How long the client must be quiet before the changed documents are checked.
const QUIET: Duration = Duration::from_millis(100);

/// The largest document held: what one message can carry.
const MAX_DOCUMENT: u64 = framing::MAX_MESSAGE;

/// The files whose changes on disk the server asks to be told of: sources, and the files
/// `gpulint check` reads besides (configuration, dependency versions, how the project is launched).
const WATCHED: &[&str] = &[
    "**/*.py",
    "**/*.pyi",
    "**/*.ipynb",
    "**/*.rs",
    "**/pyproject.toml",
    "**/gpulint.toml",
    "**/.gpulint.toml",
    "**/requirements.txt",
    "**/Cargo.toml",
    "**/*.sh",
    "**/Procfile",
    "**/Dockerfile",
    "**/*baseline*.json",
];

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
        client: Client::default(),
        shut_down: false,
        next_id: 0,
    };
    server.main_loop()
}

struct Server<'a> {
    connection: &'a Connection,
    /// Set by `initialize`.
    session: Option<Session>,
    client: Client,
    shut_down: bool,
    /// The id of the last request the server sent.
    next_id: i32,
}

/// What the client said it can do, as far as the server cares.
#[derive(Clone, Copy, Debug, Default)]
struct Client {
    /// It registers `workspace/didChangeWatchedFiles` when asked to.
    watches_files: bool,
    /// It pulls diagnostics, and takes `workspace/diagnostic/refresh`.
    pulls: bool,
    refreshes: bool,
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
            ("initialize", None) => match params::<InitializeParams>(request.params.clone()) {
                Ok(params) => {
                    let refreshes = refresh_support(&request.params);
                    let (result, session, client) = initialize(params, refreshes);
                    self.session = Some(session);
                    self.client = client;
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
                        let wanted = wanted_actions(params.context.only.as_deref());
                        let actions = self.session.as_ref().map(|s| {
                            let uri = &params.text_document.uri;
                            s.code_actions(uri, params.range, &params.context.diagnostics, wanted)
                        });
                        self.send(Response::new_ok(id, actions.unwrap_or_default()))
                    }
                    Err(message) => self.error(id, ErrorCode::InvalidParams, message),
                }
            }
            ("textDocument/diagnostic", Some(_)) => {
                match params::<DocumentDiagnosticParams>(request.params) {
                    Ok(params) => {
                        self.check_and_publish()?;
                        let report = self.session.as_mut().map(|s| {
                            let previous = params.previous_result_id.as_deref();
                            s.pulled(&params.text_document.uri, previous)
                        });
                        let report = report.unwrap_or((String::new(), Some(Vec::new())));
                        self.send(Response::new_ok(id, diagnostic_report(report)))
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
        if self.session.is_none() {
            // Before `initialize`, notifications are dropped.
            return Ok(());
        }
        if notification.method == "initialized" && self.client.watches_files {
            return self.watch_files();
        }
        let Some(session) = &mut self.session else {
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
            "workspace/didChangeWatchedFiles" => {
                params::<DidChangeWatchedFilesParams>(notification.params).map(|p| {
                    let changes: Vec<_> = p
                        .changes
                        .into_iter()
                        .filter_map(|c| Some((convert::uri_path(&c.uri)?, c.typ)))
                        .collect();
                    session.files_changed(&changes);
                })
            }
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
        let refresh = session.take_refresh() && self.client.refreshes;
        for (uri, version, diagnostics) in session.publications() {
            let params = PublishDiagnosticsParams {
                uri,
                diagnostics,
                version,
            };
            self.notify("textDocument/publishDiagnostics", params)?;
        }
        if refresh {
            // A document the client pulled changed through another: it pulls them all again.
            self.request_client("workspace/diagnostic/refresh", ())?;
        }
        Ok(())
    }

    /// Sends a request to the client; its answer is not waited for (responses are dropped).
    fn request_client(&mut self, method: &str, params: impl serde::Serialize) -> Result<(), Stop> {
        self.next_id += 1;
        let id = RequestId::from(format!("gpulint-{}", self.next_id));
        self.send(Request::new(id, method.to_string(), params))
    }

    /// Asks the client to report changes to the files a check reads.
    fn watch_files(&mut self) -> Result<(), Stop> {
        let watchers = WATCHED
            .iter()
            .map(|glob| FileSystemWatcher {
                glob_pattern: GlobPattern::String(glob.to_string()),
                kind: None,
            })
            .collect();
        let options = DidChangeWatchedFilesRegistrationOptions { watchers };
        let registration = Registration {
            id: "gpulint-watched-files".to_string(),
            method: "workspace/didChangeWatchedFiles".to_string(),
            register_options: serde_json::to_value(options).ok(),
        };
        let params = RegistrationParams {
            registrations: vec![registration],
        };
        self.request_client("client/registerCapability", params)
    }
}

/// A request's or notification's parameters, or why they are not what the method takes.
fn params<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| format!("invalid parameters: {e}"))
}

/// The actions `only` (the kinds the client asks for) admits: a kind admits itself and the kinds
/// below it (`source` admits `source.fixAll.gpulint`).
fn wanted_actions(only: Option<&[CodeActionKind]>) -> Wanted {
    let admits = |kind: &str| {
        only.is_none_or(|asked| {
            asked.iter().any(|k| {
                let k = k.as_str();
                k.is_empty()
                    || kind == k
                    || kind.strip_prefix(k).is_some_and(|r| r.starts_with('.'))
            })
        })
    };
    Wanted {
        quick_fixes: admits(CodeActionKind::QUICKFIX.as_str()),
        fix_all: admits(session::FIX_ALL),
    }
}

/// A pull's answer: the diagnostics, or that those of the client's result id still hold.
fn diagnostic_report(
    (result_id, diagnostics): (String, Option<Vec<lsp_types::Diagnostic>>),
) -> DocumentDiagnosticReportResult {
    let report = match diagnostics {
        Some(items) => DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: Some(result_id),
                items,
            },
        }),
        None => DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
            related_documents: None,
            unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport { result_id },
        }),
    };
    DocumentDiagnosticReportResult::Report(report)
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
            let lines = gpulint_core::source::LineIndex::new(text);
            let start = convert::offset(text, &lines, range.start, encoding);
            let end = convert::offset(text, &lines, range.end, encoding).max(start);
            text.replace_range(start..end, &change.text);
        }
    }
}

/// Whether the client takes `workspace/diagnostic/refresh`: `workspace.diagnostics.refreshSupport`
/// in LSP 3.17, which `lsp-types` reads under another name (`diagnostic`); both are accepted.
fn refresh_support(initialize: &serde_json::Value) -> bool {
    let workspace = &initialize["capabilities"]["workspace"];
    ["diagnostics", "diagnostic"]
        .iter()
        .any(|key| workspace[key]["refreshSupport"] == true)
}

/// The server's capabilities, its session (position encoding, workspace folders, pushed or
/// pulled diagnostics) and what the client can do.
#[allow(deprecated)] // `root_uri` and `root_path`: what clients without workspace folders send.
fn initialize(params: InitializeParams, refreshes: bool) -> (InitializeResult, Session, Client) {
    let workspace = params.capabilities.workspace.as_ref();
    let client = Client {
        watches_files: workspace
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|w| w.dynamic_registration)
            .unwrap_or(false),
        pulls: params
            .capabilities
            .text_document
            .as_ref()
            .is_some_and(|t| t.diagnostic.is_some()),
        refreshes,
    };
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
                .map(|p| gpulint_core::files::normalize(p.as_ref())),
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
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::new(session::FIX_ALL),
            ]),
            ..CodeActionOptions::default()
        })),
        // A module's change changes its importers' findings.
        diagnostic_provider: client.pulls.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("gpulint".to_string()),
                inter_file_dependencies: true,
                workspace_diagnostics: false,
                ..DiagnosticOptions::default()
            })
        }),
        ..ServerCapabilities::default()
    };
    let result = InitializeResult {
        capabilities,
        server_info: Some(ServerInfo {
            name: "gpulint".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    (result, Session::new(encoding, roots, client.pulls), client)
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
    fn actions_are_offered_for_the_kinds_asked_for_and_those_below_them() {
        let all = Wanted {
            quick_fixes: true,
            fix_all: true,
        };
        assert_eq!(wanted_actions(None), all);
        assert_eq!(wanted_actions(Some(&[CodeActionKind::EMPTY])), all);
        let quick = wanted_actions(Some(&[CodeActionKind::QUICKFIX]));
        assert!(quick.quick_fixes && !quick.fix_all);
        for kind in ["source", "source.fixAll", "source.fixAll.gpulint"] {
            let source = wanted_actions(Some(&[CodeActionKind::new(kind)]));
            assert!(!source.quick_fixes && source.fix_all, "{kind}");
        }
        // Another server's fix-all, or a kind that merely starts alike, is not ours.
        for kind in ["source.fixAll.ruff", "source.fix", "refactor"] {
            let none = wanted_actions(Some(&[CodeActionKind::new(kind)]));
            assert!(!none.quick_fixes && !none.fix_all, "{kind}");
        }
    }
}
