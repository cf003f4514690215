//! What a rule reports: a diagnostic with its primary and related locations, and the fix that goes
//! with it. Output formats print these and nothing else.

use crate::source::{FileId, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A secondary location that explains a diagnostic.
#[derive(Clone, Debug, PartialEq)]
pub struct Related {
    pub span: Span,
    pub message: String,
}

/// One finding in one file.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// The primary label, shown under the primary location.
    pub label: String,
    pub related: Vec<Related>,
    /// How to fix it.
    pub help: String,
    /// Edits that fix it, when the fix is mechanical.
    pub fix: Option<Fix>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applicability {
    /// Keeps the program's meaning: applied by `--fix`.
    Safe,
    /// May change behaviour (say how in the message): applied only with `--unsafe-fixes`.
    Unsafe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// Replace the text at `span` by `content` (an empty span inserts).
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    pub span: Span,
    pub content: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    pub applicability: Applicability,
    /// What the fix does, and for an unsafe one why it is unsafe.
    pub message: String,
    /// Non-overlapping edits, all in one file.
    pub edits: Vec<Edit>,
}

/// The text of the program's files, for rules that build fixes.
pub trait Sources {
    fn text(&self, file: FileId) -> &str;
}
