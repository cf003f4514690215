//! What the analyses' unit tests share.

use gpulint_core::source::{FileId, Span};

/// A one-byte span at `start` in file 0.
pub fn at(start: u32) -> Span {
    Span::new(FileId(0), start, start + 1)
}
