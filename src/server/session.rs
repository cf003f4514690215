//! The open documents, the last check of each, and what the client was sent: which documents to
//! check again after a change (to the document, to a module it imports, open or on disk, to a
//! configuration), the diagnostics of each (pushed, or answered when the client pulls them), and
//! the code actions at a range.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Diagnostic, FileChangeType, Range, TextEdit,
    Url, WorkspaceEdit,
};

use super::convert::{self, Encoding};
use super::findings::{self, Finding, Report};
use crate::{check, config};

/// How a document is checked, as `gpulint check` would check its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// A script or module (`.py`, `.pyi`, or any file the editor calls Python): other documents'
    /// checks read its text where they import it.
    Python,
    /// A Jupyter notebook opened as its `.ipynb` JSON: positions are the JSON's.
    Notebook,
    Rust,
}

impl Language {
    /// The language of a document at `path` that the editor calls `language_id`; `None` for files
    /// `gpulint check` does not read.
    pub fn of(path: &Path, language_id: &str) -> Option<Language> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("ipynb") => Some(Language::Notebook),
            Some("rs") => Some(Language::Rust),
            Some("py" | "pyi") => Some(Language::Python),
            _ if language_id == "python" => Some(Language::Python),
            _ => None,
        }
    }
}

pub struct Doc {
    pub path: PathBuf,
    pub text: String,
    pub version: i32,
    language: Language,
}

/// A message for the user (a configuration error, a bug in gpulint).
pub type Note = String;

/// What a document was last sent: its version then, and its diagnostics.
struct Sent {
    version: Option<i32>,
    diagnostics: Vec<Diagnostic>,
}

/// Which code actions the client asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wanted {
    pub quick_fixes: bool,
    pub fix_all: bool,
}

/// The kind of the action that applies every safe fix of a document.
pub const FIX_ALL: &str = "source.fixAll.gpulint";

pub struct Session {
    pub encoding: Encoding,
    /// The workspace folders: a document is checked from the innermost one holding it, as
    /// `gpulint check` runs from the project's root.
    roots: Vec<PathBuf>,
    docs: BTreeMap<Url, Doc>,
    /// The last check of each open document.
    reports: HashMap<Url, Report>,
    /// What each open document was last sent.
    sent: HashMap<Url, Sent>,
    /// Open documents to check before the next publication.
    dirty: BTreeSet<Url>,
    /// The last note shown, so that a broken configuration is not reported at every keystroke.
    last_note: Option<Note>,
    /// The client pulls diagnostics (`textDocument/diagnostic`): none are pushed.
    pull: bool,
}

impl Session {
    pub fn new(encoding: Encoding, roots: Vec<PathBuf>, pull: bool) -> Session {
        Session {
            encoding,
            roots,
            docs: BTreeMap::new(),
            reports: HashMap::new(),
            sent: HashMap::new(),
            dirty: BTreeSet::new(),
            last_note: None,
            pull,
        }
    }

    /// Opens a document of a language `gpulint check` reads; others are left alone.
    pub fn open(&mut self, uri: Url, language_id: &str, text: String, version: i32) {
        let Some(path) = convert::uri_path(&uri) else {
            return;
        };
        let Some(language) = Language::of(&path, language_id) else {
            return;
        };
        // Its importers now read the editor's text, not the file's.
        self.readers_of(&path);
        self.docs.insert(
            uri.clone(),
            Doc {
                path,
                text,
                version,
                language,
            },
        );
        self.dirty.insert(uri);
    }

    pub fn doc_mut(&mut self, uri: &Url) -> Option<&mut Doc> {
        self.docs.get_mut(uri)
    }

    /// The document's text changed in the editor: check it again, and the open documents whose
    /// check read it (they see the editor's text of a Python module they import).
    pub fn changed(&mut self, uri: &Url) {
        let Some(path) = self.docs.get(uri).map(|d| d.path.clone()) else {
            return;
        };
        self.dirty.insert(uri.clone());
        self.readers_of(&path);
    }

    /// The document was written to disk: check it, and every open document whose check read it
    /// (a Rust module, a configuration read from the file, or a client that reports no watched
    /// files).
    pub fn saved(&mut self, uri: &Url) {
        self.changed(uri);
    }

    /// Files changed on disk (`workspace/didChangeWatchedFiles`): the open documents whose check
    /// read a changed file are checked again; every open document when a file was created or
    /// deleted (an import may now resolve elsewhere) or when the file is not a source (a
    /// configuration, a requirements file, a launch script: they may hold for any file).
    pub fn files_changed(&mut self, changes: &[(PathBuf, FileChangeType)]) {
        for (path, kind) in changes {
            let source = Language::of(path, "").is_some();
            if !source || *kind != FileChangeType::CHANGED {
                self.dirty.extend(self.docs.keys().cloned());
                return;
            }
            self.readers_of(path);
        }
    }

    /// Marks for checking every open document whose last check read `path`.
    fn readers_of(&mut self, path: &Path) {
        for (other, report) in &self.reports {
            if report.read.contains(path) {
                self.dirty.insert(other.clone());
            }
        }
    }

    /// Forgets the document; its diagnostics are cleared by the next publication.
    pub fn close(&mut self, uri: &Url) {
        let Some(doc) = self.docs.remove(uri) else {
            return;
        };
        self.reports.remove(uri);
        self.dirty.remove(uri);
        // Its importers read the file again.
        self.readers_of(&doc.path);
    }

    pub fn has_pending(&self) -> bool {
        !self.dirty.is_empty()
    }

    /// Checks the documents that need it; returns the notes for the user.
    pub fn run_checks(&mut self) -> Vec<Note> {
        let mut notes = Vec::new();
        for uri in std::mem::take(&mut self.dirty) {
            let Some(doc) = self.docs.get(&uri) else {
                continue;
            };
            let (report, note) = self.check(doc);
            self.reports.insert(uri, report);
            notes.extend(note);
        }
        // A note repeats only after the problem went away in between.
        match notes.last() {
            Some(note) if self.last_note.as_ref() == Some(note) => notes.clear(),
            Some(note) => self.last_note = Some(note.clone()),
            None => self.last_note = None,
        }
        notes
    }

    /// The same check as `gpulint check --force-exclude --stdin-filename PATH` with the editor's
    /// text on standard input; the modules it imports are read from the editor where they are
    /// open, else from disk.
    fn check(&self, doc: &Doc) -> (Report, Option<Note>) {
        let shown = crate::paths::relative(&doc.path);
        // As `gpulint check` refuses a larger file or standard input.
        let limit = gpulint_core::fsio::MAX_FILE_BYTES;
        if doc.text.len() as u64 > limit {
            let note = format!(
                "gpulint: {shown} not checked: larger than {} MiB",
                limit >> 20
            );
            return (Report::default(), Some(note));
        }
        // Import resolution stops at the workspace folder when it finds no project root, and
        // shown paths are relative to it.
        let import_root = self.root_of(&doc.path).map(Path::to_path_buf);
        if let Some(root) = &import_root {
            let _ = std::env::set_current_dir(root);
        }
        let held = self
            .docs
            .values()
            .filter(|d| d.language == Language::Python && d.path != doc.path)
            .filter(|d| d.text.len() as u64 <= limit)
            .map(|d| (d.path.clone(), d.text.clone()))
            .collect();
        let request = check::Request {
            found: Vec::new(),
            stdin: Some((doc.path.clone(), doc.text.clone().into_bytes())),
            held,
            named: Vec::new(),
            // A file the configuration excludes shows nothing, as in a pre-commit run.
            force_exclude: true,
            use_baseline: true,
            report_unused_noqa: false,
            verbose: false,
            import_root,
            free_memory: true,
            cache: None,
        };
        let run = || -> anyhow::Result<check::Checked> {
            let resolver = config::Resolver::new(config::Overrides::default())?;
            check::check(request, resolver)
        };
        let hash = findings::text_hash(&doc.text);
        match catch_unwind(AssertUnwindSafe(run)) {
            Ok(Ok(checked)) => {
                let note = checked.internal_errors.first().map(|(path, e)| {
                    format!(
                        "gpulint: internal error in {}: {e} (please report this)",
                        path.display()
                    )
                });
                let report = catch_unwind(AssertUnwindSafe(|| {
                    findings::report(&checked, self.encoding, &doc.path, hash)
                }));
                match report {
                    Ok(report) => (report, note),
                    Err(_) => (Report::default(), Some(internal_error(&shown))),
                }
            }
            Ok(Err(err)) => {
                // One line: a message box shows no excerpt.
                let text = match err.downcast_ref::<config::ConfigError>() {
                    Some(e) => {
                        let at = e.span.start.min(e.text.len());
                        let line = e.text.as_bytes()[..at]
                            .iter()
                            .filter(|b| **b == b'\n')
                            .count();
                        let file = crate::paths::relative(&e.path);
                        format!("{file}:{}: invalid configuration: {}", line + 1, e.message)
                    }
                    None => format!("{err:#}"),
                };
                (
                    Report::default(),
                    Some(format!("gpulint: {shown} not checked: {text}")),
                )
            }
            Err(_) => (Report::default(), Some(internal_error(&shown))),
        }
    }

    /// The innermost workspace folder holding `path`.
    fn root_of(&self, path: &Path) -> Option<&Path> {
        self.roots
            .iter()
            .filter(|r| path.starts_with(r))
            .max_by_key(|r| r.components().count())
            .map(PathBuf::as_path)
    }

    /// The findings shown in an open document: those its own check found there, and those the
    /// checks of other open documents found there (a module's hazard may show only when a program
    /// that imports it runs), when they read the text the editor holds.
    fn findings_in(&self, uri: &Url) -> Vec<&Finding> {
        let Some(doc) = self.docs.get(uri) else {
            return Vec::new();
        };
        let hash = findings::text_hash(&doc.text);
        let own = self.reports.get(uri).into_iter();
        let others = self
            .reports
            .iter()
            .filter(|(other, _)| *other != uri)
            .map(|(_, r)| r);
        let mut out: Vec<&Finding> = Vec::new();
        for report in own.chain(others) {
            for f in &report.findings {
                let seen = out.iter().any(|o| {
                    o.diagnostic.range == f.diagnostic.range
                        && o.diagnostic.code == f.diagnostic.code
                });
                if f.path == doc.path && f.text_hash == hash && !seen {
                    out.push(f);
                }
            }
        }
        out.sort_by_key(|f| (f.diagnostic.range.start, f.diagnostic.range.end));
        out
    }

    fn diagnostics_of(&self, uri: &Url) -> Vec<Diagnostic> {
        self.findings_in(uri)
            .into_iter()
            .map(|f| f.diagnostic.clone())
            .collect()
    }

    /// The diagnostics to push: `(uri, version, diagnostics)` for each document whose
    /// diagnostics changed since last sent, and an empty list for each closed one. None when the
    /// client pulls them.
    pub fn publications(&mut self) -> Vec<(Url, Option<i32>, Vec<Diagnostic>)> {
        let mut out = Vec::new();
        if self.pull {
            self.sent.retain(|uri, _| self.docs.contains_key(uri));
            return out;
        }
        let closed: Vec<Url> = self
            .sent
            .keys()
            .filter(|u| !self.docs.contains_key(*u))
            .cloned()
            .collect();
        for uri in closed {
            self.sent.remove(&uri);
            out.push((uri, None, Vec::new()));
        }
        for (uri, doc) in &self.docs {
            let now = self.diagnostics_of(uri);
            if self.sent.get(uri).map(|s| &s.diagnostics) != Some(&now) {
                let version = Some(doc.version);
                out.push((uri.clone(), version, now.clone()));
                let sent = Sent {
                    version,
                    diagnostics: now,
                };
                self.sent.insert(uri.clone(), sent);
            }
        }
        out
    }

    /// The answer to a pull (`textDocument/diagnostic`): the document's diagnostics and their
    /// result id, or `None` when they are those of `previous`, the result id the client holds.
    pub fn pulled(
        &mut self,
        uri: &Url,
        previous: Option<&str>,
    ) -> (String, Option<Vec<Diagnostic>>) {
        let now = self.diagnostics_of(uri);
        let id = result_id(&now);
        let version = self.docs.get(uri).map(|d| d.version);
        let unchanged = previous == Some(id.as_str());
        self.sent.insert(
            uri.clone(),
            Sent {
                version,
                diagnostics: now.clone(),
            },
        );
        (id, (!unchanged).then_some(now))
    }

    /// Whether a pulled document that has not changed since its last pull now has other
    /// diagnostics (a module it imports changed): the client should pull again. Each change is
    /// told once.
    pub fn take_refresh(&mut self) -> bool {
        if !self.pull {
            return false;
        }
        let mut stale = Vec::new();
        for (uri, sent) in &self.sent {
            let Some(doc) = self.docs.get(uri) else {
                continue;
            };
            let now = self.diagnostics_of(uri);
            if sent.version == Some(doc.version) && sent.diagnostics != now {
                stale.push((uri.clone(), now));
            }
        }
        for (uri, now) in &stale {
            if let Some(sent) = self.sent.get_mut(uri) {
                sent.diagnostics.clone_from(now);
            }
        }
        !stale.is_empty()
    }

    /// For each finding at `range` or among the diagnostics the client `listed`: its fix
    /// (preferred when safe, labelled when unsafe) and a `# noqa` comment for its line; and an
    /// action that applies every safe fix of the document.
    pub fn code_actions(
        &self,
        uri: &Url,
        range: Range,
        listed: &[Diagnostic],
        wanted: Wanted,
    ) -> Vec<CodeActionOrCommand> {
        let mut actions = Vec::new();
        let found = self.findings_in(uri);
        let edit = |edits: Vec<TextEdit>| WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        };
        for f in found.iter().filter(|_| wanted.quick_fixes) {
            let at = f.diagnostic.range;
            let overlaps = at.start <= range.end && range.start <= at.end;
            let is_listed = listed
                .iter()
                .any(|l| l.range == at && l.code == f.diagnostic.code);
            if !overlaps && !is_listed {
                continue;
            }
            let code = match &f.diagnostic.code {
                Some(lsp_types::NumberOrString::String(code)) => code.as_str(),
                _ => "",
            };
            let action = |title: String, edits: Vec<TextEdit>, preferred: bool| {
                CodeActionOrCommand::CodeAction(CodeAction {
                    title,
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![f.diagnostic.clone()]),
                    edit: Some(edit(edits)),
                    is_preferred: Some(preferred),
                    ..CodeAction::default()
                })
            };
            if let Some(fix) = &f.fix {
                let title = match fix.safe {
                    true => format!("Fix {code}: {}", fix.message),
                    false => format!("Fix {code} (unsafe): {}", fix.message),
                };
                actions.push(action(title, fix.edits.clone(), fix.safe));
            }
            if let Some(noqa) = &f.noqa {
                let title = format!("Disable {code} for this line");
                actions.push(action(title, vec![noqa.clone()], false));
            }
        }
        if wanted.fix_all {
            let (edits, fixed) = safe_fixes(&found);
            if !edits.is_empty() {
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("Fix all safe gpulint findings ({fixed})"),
                    kind: Some(CodeActionKind::new(FIX_ALL)),
                    diagnostics: None,
                    edit: Some(edit(edits)),
                    ..CodeAction::default()
                }));
            }
        }
        actions
    }
}

/// The edits of the safe fixes of `found`, and how many fixes they are; a fix whose edits touch
/// text another fix edits waits for the next time, as with `--fix`.
fn safe_fixes(found: &[&Finding]) -> (Vec<TextEdit>, usize) {
    let mut taken: Vec<TextEdit> = Vec::new();
    let mut fixed = 0;
    for fix in found
        .iter()
        .filter_map(|f| f.fix.as_ref())
        .filter(|f| f.safe)
    {
        let clash =
            |a: &Range, b: &Range| a.start == b.start || (a.start < b.end && b.start < a.end);
        let overlaps = fix
            .edits
            .iter()
            .any(|e| taken.iter().any(|t| clash(&e.range, &t.range)));
        if !overlaps {
            taken.extend(fix.edits.iter().cloned());
            fixed += 1;
        }
    }
    (taken, fixed)
}

/// A result id that changes when the diagnostics do.
fn result_id(diagnostics: &[Diagnostic]) -> String {
    let json = serde_json::to_string(diagnostics).unwrap_or_default();
    format!("{:016x}", findings::text_hash(&json))
}

fn internal_error(shown: &str) -> Note {
    format!("gpulint: internal error while checking {shown} (please report this)")
}
