//! The open documents, the last check of each, and what was published: which documents to check
//! again after a change, the diagnostics of each, and the code actions at a range.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Diagnostic, Range, TextEdit, Url,
    WorkspaceEdit,
};

use super::convert::{self, Encoding};
use super::findings::{self, Finding, Report};
use crate::{check, config};

pub struct Doc {
    pub path: PathBuf,
    pub text: String,
    pub version: i32,
}

/// A message for the user (a configuration error, a bug in gpulint).
pub type Note = String;

pub struct Session {
    pub encoding: Encoding,
    /// The workspace folders: a document is checked from the innermost one holding it, as
    /// `gpulint check` runs from the project's root.
    roots: Vec<PathBuf>,
    docs: BTreeMap<Url, Doc>,
    /// The last check of each open document.
    reports: HashMap<Url, Report>,
    /// What each open document was last sent.
    published: HashMap<Url, Vec<Diagnostic>>,
    /// Open documents to check before the next publication.
    dirty: BTreeSet<Url>,
    /// The last note shown, so that a broken configuration is not reported at every keystroke.
    last_note: Option<Note>,
}

impl Session {
    pub fn new(encoding: Encoding, roots: Vec<PathBuf>) -> Session {
        Session {
            encoding,
            roots,
            docs: BTreeMap::new(),
            reports: HashMap::new(),
            published: HashMap::new(),
            dirty: BTreeSet::new(),
            last_note: None,
        }
    }

    /// Opens a document; only Python files are checked (a notebook is not yet: its positions
    /// count in cells).
    pub fn open(&mut self, uri: Url, language: &str, text: String, version: i32) {
        let Some(path) = convert::uri_path(&uri) else {
            return;
        };
        let python = path.extension().is_some_and(|e| e == "py" || e == "pyi");
        if (!python && language != "python") || gpulint_python::program::is_notebook(&path) {
            return;
        }
        self.docs.insert(
            uri.clone(),
            Doc {
                path,
                text,
                version,
            },
        );
        self.dirty.insert(uri);
    }

    pub fn doc_mut(&mut self, uri: &Url) -> Option<&mut Doc> {
        self.docs.get_mut(uri)
    }

    /// The document's text changed in the editor: check it again (the others read it from disk,
    /// where it has not changed).
    pub fn changed(&mut self, uri: &Url) {
        if self.docs.contains_key(uri) {
            self.dirty.insert(uri.clone());
        }
    }

    /// The document was written to disk: check it, and every open document whose check read it.
    pub fn saved(&mut self, uri: &Url) {
        let Some(path) = self.docs.get(uri).map(|d| d.path.clone()) else {
            return;
        };
        self.dirty.insert(uri.clone());
        for (other, report) in &self.reports {
            if report.read.contains(&path) {
                self.dirty.insert(other.clone());
            }
        }
    }

    /// Forgets the document; its diagnostics are cleared by the next publication.
    pub fn close(&mut self, uri: &Url) {
        self.docs.remove(uri);
        self.reports.remove(uri);
        self.dirty.remove(uri);
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
    /// text on standard input; the modules it imports are read from disk.
    fn check(&self, doc: &Doc) -> (Report, Option<Note>) {
        let shown = crate::paths::relative(&doc.path);
        // As `gpulint check` refuses a larger file or standard input.
        let limit = gpulint_python::program::MAX_FILE_BYTES;
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
        let request = check::Request {
            found: Vec::new(),
            stdin: Some((doc.path.clone(), doc.text.clone().into_bytes())),
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
        match catch_unwind(AssertUnwindSafe(run)) {
            Ok(Ok(checked)) => {
                let note = checked.internal_errors.first().map(|(path, e)| {
                    format!(
                        "gpulint: internal error in {}: {e} (please report this)",
                        path.display()
                    )
                });
                (findings::report(&checked, self.encoding), note)
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
            Err(_) => (
                Report::default(),
                Some(format!(
                    "gpulint: internal error while checking {shown} (please report this)"
                )),
            ),
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

    /// The diagnostics to publish: `(uri, version, diagnostics)` for each document whose
    /// diagnostics changed since last sent, and an empty list for each closed one.
    pub fn publications(&mut self) -> Vec<(Url, Option<i32>, Vec<Diagnostic>)> {
        let mut out = Vec::new();
        let closed: Vec<Url> = self
            .published
            .keys()
            .filter(|u| !self.docs.contains_key(*u))
            .cloned()
            .collect();
        for uri in closed {
            self.published.remove(&uri);
            out.push((uri, None, Vec::new()));
        }
        for (uri, doc) in &self.docs {
            let now: Vec<Diagnostic> = self
                .findings_in(uri)
                .into_iter()
                .map(|f| f.diagnostic.clone())
                .collect();
            if self.published.get(uri) != Some(&now) {
                self.published.insert(uri.clone(), now.clone());
                out.push((uri.clone(), Some(doc.version), now));
            }
        }
        out
    }

    /// For each finding at `range` or among the diagnostics the client `listed`: its fix
    /// (preferred when safe) and a `# noqa` comment for its line.
    pub fn code_actions(
        &self,
        uri: &Url,
        range: Range,
        listed: &[Diagnostic],
    ) -> Vec<CodeActionOrCommand> {
        let mut actions = Vec::new();
        for f in self.findings_in(uri) {
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
                    edit: Some(WorkspaceEdit {
                        changes: Some(HashMap::from([(uri.clone(), edits)])),
                        ..WorkspaceEdit::default()
                    }),
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
            if let Some(edit) = &f.noqa {
                let title = format!("Disable {code} for this line");
                actions.push(action(title, vec![edit.clone()], false));
            }
        }
        actions
    }
}
