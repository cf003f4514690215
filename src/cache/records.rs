//! What a cache file holds: its header's records of the files, file-system answers and main
//! programs' findings, and their conversions to and from the program's own types (paths as bytes,
//! spans as file ids and offsets, diagnostics with their fixes).

use std::path::{Path, PathBuf};

use gpulint_core::fsio::FileState;
use gpulint_python::known::Digest;
use gpulint_python::source::{FileId, Span};
use gpulint_rules::{Applicability, Diagnostic, Edit, Fix, Related, Severity};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
pub(super) struct Head {
    pub(super) identity: String,
    /// When the run that wrote it started (nanoseconds since the epoch).
    pub(super) started_ns: i64,
    /// The inputs, as given to the program: a path, and why it could not be walked.
    pub(super) inputs: Vec<(Vec<u8>, Option<String>)>,
    /// Every file of the program, in id order.
    pub(super) files: Vec<FileRecord>,
    pub(super) probes: Vec<ProbeRecord>,
    /// The digest of the native extension modules the Rust sources define.
    pub(super) native: Digest,
    /// Each main program's findings, in the order the run collected them.
    pub(super) mains: Vec<MainRecord>,
}

pub(super) type State = (u64, i64, i64, u64, u64);

pub(super) fn state_record(s: FileState) -> State {
    (s.len, s.modified_ns, s.changed_ns, s.inode, s.device)
}

pub(super) fn state_of((len, modified_ns, changed_ns, inode, device): State) -> FileState {
    FileState {
        len,
        modified_ns,
        changed_ns,
        inode,
        device,
    }
}

#[derive(Serialize, Deserialize)]
pub(super) struct FileRecord {
    pub(super) path: Vec<u8>,
    pub(super) checked: bool,
    pub(super) notebook: bool,
    /// The Rust frontend's (not the Python program's): loaded again on every run, not restored.
    pub(super) foreign: bool,
    /// What the file system said of it when it was read, and the digest of its bytes; `None` for
    /// a file not read from the disk (it could not be).
    pub(super) read: Option<(State, Digest)>,
    pub(super) comments: Vec<(u32, u32)>,
}

#[derive(Serialize, Deserialize, Debug)]
pub(super) enum ProbeRecord {
    Listing(Vec<u8>, Option<State>, Digest),
    Unlistable(Vec<u8>),
    Link(Vec<u8>, u8),
    Read(Vec<u8>, Option<State>, Option<Digest>),
}

#[derive(Serialize, Deserialize, Clone)]
pub(super) struct MainRecord {
    pub(super) file: u32,
    pub(super) settings: Digest,
    pub(super) fingerprint: Digest,
    pub(super) queried: Vec<(String, bool)>,
    pub(super) diagnostics: Vec<DiagnosticRecord>,
    /// Where budgets cut its analysis short.
    pub(super) unseen: Vec<SpanRecord>,
}

pub(super) type SpanRecord = (u32, u32, u32);

#[derive(Serialize, Deserialize, Clone)]
pub(super) struct DiagnosticRecord {
    pub(super) code: String,
    pub(super) name: String,
    pub(super) severity: u8,
    pub(super) message: String,
    pub(super) span: SpanRecord,
    pub(super) label: String,
    pub(super) related: Vec<(SpanRecord, String)>,
    pub(super) help: String,
    pub(super) fix: Option<FixRecord>,
}

/// Safe?, its message, its edits.
pub(super) type FixRecord = (bool, String, Vec<(SpanRecord, String)>);

pub(super) fn path_bytes(path: &Path) -> Vec<u8> {
    path.as_os_str().as_encoded_bytes().to_vec()
}

pub(super) fn path_of(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_vec(bytes.to_vec()))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

pub(super) fn span_record(span: Span) -> SpanRecord {
    (span.file.0, span.start, span.end)
}

/// The span a record names, its file moved by `file` (`None` when that file is gone).
pub(super) fn span_of(
    (file, start, end): SpanRecord,
    remap: &impl Fn(u32) -> Option<FileId>,
) -> Option<Span> {
    Some(Span::new(remap(file)?, start, end))
}

pub(super) fn diagnostic_record(d: &Diagnostic) -> DiagnosticRecord {
    DiagnosticRecord {
        code: d.code.to_string(),
        name: d.name.to_string(),
        severity: d.severity as u8,
        message: d.message.clone(),
        span: span_record(d.span),
        label: d.label.clone(),
        related: d
            .related
            .iter()
            .map(|r| (span_record(r.span), r.message.clone()))
            .collect(),
        help: d.help.clone(),
        fix: d.fix.as_ref().map(|f| {
            (
                f.applicability == Applicability::Safe,
                f.message.clone(),
                f.edits
                    .iter()
                    .map(|e| (span_record(e.span), e.content.clone()))
                    .collect(),
            )
        }),
    }
}

/// A code or name as the `&'static str` diagnostics hold: the rules' own, else one kept for the
/// rest of the process (a handful at most: GPU999 words its two kinds of name).
pub(super) fn static_str(text: &str) -> &'static str {
    use std::sync::Mutex;
    static KEPT: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    for rule in gpulint_rules::RULES {
        for known in [rule.code, rule.name] {
            if known == text {
                return known;
            }
        }
    }
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = kept.iter().find(|k| **k == text) {
        return found;
    }
    let leaked: &'static str = Box::leak(text.to_string().into_boxed_str());
    kept.push(leaked);
    leaked
}

pub(super) fn diagnostic_of(
    r: &DiagnosticRecord,
    remap: &impl Fn(u32) -> Option<FileId>,
) -> Option<Diagnostic> {
    let severity = match r.severity {
        s if s == Severity::Info as u8 => Severity::Info,
        s if s == Severity::Warning as u8 => Severity::Warning,
        _ => Severity::Error,
    };
    let mut related = Vec::new();
    for (span, message) in &r.related {
        related.push(Related {
            span: span_of(*span, remap)?,
            message: message.clone(),
        });
    }
    let fix = match &r.fix {
        None => None,
        Some((safe, message, edits)) => {
            let mut out = Vec::new();
            for (span, content) in edits {
                out.push(Edit {
                    span: span_of(*span, remap)?,
                    content: content.clone(),
                });
            }
            Some(Fix {
                applicability: if *safe {
                    Applicability::Safe
                } else {
                    Applicability::Unsafe
                },
                message: message.clone(),
                edits: out,
            })
        }
    };
    Some(Diagnostic {
        code: static_str(&r.code),
        name: static_str(&r.name),
        severity,
        message: r.message.clone(),
        span: span_of(r.span, remap)?,
        label: r.label.clone(),
        related,
        help: r.help.clone(),
        fix,
    })
}
