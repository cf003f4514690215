//! Reading a file's text: bounded, regular files only, NUL bytes and invalid UTF-8 reported at
//! their offset with the text (lossy) kept to show them.

use std::path::Path;

use gpulint_core::fsio::{FileState, Stamp};

use crate::known::{self, Digest};
use crate::lower;
use crate::model::Module;
use crate::source::{FileId, Span};

use super::FileError;

/// Files larger than this are not read: reported, not analysed. Python sources this large are
/// generated (tables, bindings); reading them whole would make one file dominate the run.
pub use gpulint_core::fsio::MAX_FILE_BYTES;

/// [`read_stamped`], with what the file system said of the file and, with `digest`, the digest
/// of its bytes.
#[allow(clippy::type_complexity)]
pub(super) fn read_observed(
    path: &Path,
    digest: bool,
) -> (
    Result<String, (String, FileError)>,
    Option<(Stamp, FileState, Option<Digest>)>,
) {
    match read_source(path) {
        Ok((bytes, meta)) => {
            let digest = digest.then(|| known::digest(&bytes));
            let seen = (Stamp::of(&meta), FileState::of(&meta), digest);
            (decode(bytes), Some(seen))
        }
        Err(reason) => (Err((String::new(), FileError::Unreadable(reason))), None),
    }
}

/// The bytes of a regular file of at most [`MAX_FILE_BYTES`]. A FIFO, a device (a link to
/// `/dev/zero`), a socket or a larger file is refused with the reason, never read or waited on.
fn read_source(path: &Path) -> Result<(Vec<u8>, std::fs::Metadata), String> {
    use gpulint_core::fsio::ReadError;
    match gpulint_core::fsio::read_regular_state(path, MAX_FILE_BYTES) {
        Ok(read) => Ok(read),
        Err(ReadError::NotRegular(kind)) => Err(format!("not a regular file ({kind}): skipped")),
        Err(ReadError::TooLarge(_)) => Err(too_large()),
        Err(ReadError::Io(e)) => Err(e.to_string()),
    }
}

fn too_large() -> String {
    format!(
        "larger than {} MiB: skipped (generated code?)",
        MAX_FILE_BYTES >> 20
    )
}

/// A file's text, or why it cannot be read or decoded (with the text, lossy, where there is one).
pub(super) fn read_text(path: &Path) -> Result<String, (String, FileError)> {
    read_stamped(path).0
}

/// [`read_text`], and the file's stamp where it could be read.
fn read_stamped(path: &Path) -> (Result<String, (String, FileError)>, Option<Stamp>) {
    match read_source(path) {
        Ok((bytes, meta)) => (decode(bytes), Some(Stamp::of(&meta))),
        Err(reason) => (Err((String::new(), FileError::Unreadable(reason))), None),
    }
}

/// Source text from bytes; a NUL byte or invalid UTF-8 is reported at its offset, with the text
/// (lossy) kept to show it.
pub(super) fn decode(bytes: Vec<u8>) -> Result<String, (String, FileError)> {
    if let Some(nul) = memchr::memchr(0, &bytes) {
        let offset = String::from_utf8_lossy(&bytes[..nul]).len() as u32;
        let text = String::from_utf8_lossy(&bytes).replace('\0', " ");
        let reason = "the file contains a NUL byte";
        return Err((text, FileError::Binary { reason, offset }));
    }
    String::from_utf8(bytes).map_err(|err| {
        let offset = err.utf8_error().valid_up_to() as u32;
        let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
        let reason = "the file is not valid UTF-8";
        (text, FileError::Binary { reason, offset })
    })
}

/// The module, and the spans of its comments (for suppression comments).
pub(super) fn parse(text: &str, id: FileId) -> (Result<Module, FileError>, Vec<Span>) {
    match lower::parse(text, id) {
        Ok(lowered) => (Ok(lowered.module), lowered.comments),
        Err(err) => (Err(FileError::Syntax(err)), Vec::new()),
    }
}
