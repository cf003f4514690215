//! A file's text, once it has been parsed or scanned.
//!
//! After parsing, a file's text is needed only to show a finding's source, read its suppression
//! comments, or parse a leaf; but every file's text was held for the whole run (on transformers,
//! 44 MB of a 186 MiB peak). A text read from a file is not held at all: it is read again where it
//! is needed (a leaf's analysis; a finding shown), which few files are. A text given otherwise
//! (standard input, an editor's buffer, a notebook's cells) is held packed with LZ4, in under a
//! third of its size, and unpacked in microseconds when needed.

use std::borrow::Cow;
use std::ops::Deref;
use std::path::Path;
use std::sync::OnceLock;

/// Texts shorter than this stay plain: packing them saves too little to pay for itself.
const PACK_FROM: usize = 2048;

#[derive(Debug, Default)]
pub struct Text {
    /// The text, once unpacked (or never packed).
    plain: OnceLock<String>,
    /// The packed text, as [`lz4_flex::compress_prepend_size`] writes it.
    packed: Option<Box<[u8]>>,
    /// Not held: read from this file when needed (lossily: the analysis that reads it first
    /// reports what is wrong with it).
    file: Option<Box<Path>>,
}

impl Text {
    /// Holds `text` packed, unless it is short.
    pub fn pack(text: String) -> Text {
        if text.len() < PACK_FROM {
            return Text::from(text);
        }
        Text {
            plain: OnceLock::new(),
            packed: Some(lz4_flex::compress_prepend_size(text.as_bytes()).into_boxed_slice()),
            file: None,
        }
    }

    /// The text of `path`, not held: read from the file each time it is needed.
    pub fn on_disk(path: &Path) -> Text {
        Text {
            file: Some(path.into()),
            ..Text::default()
        }
    }

    /// Whether the text is not held but read from its file when needed.
    pub fn is_on_disk(&self) -> bool {
        self.file.is_some() && self.plain.get().is_none()
    }

    /// The text, unpacked for this use only: it is not kept unpacked afterwards (a model parsed
    /// again, while the analysis runs, should not bring every text back).
    pub fn unpacked(&self) -> Cow<'_, str> {
        match (self.plain.get(), &self.packed, &self.file) {
            (Some(plain), _, _) => Cow::Borrowed(plain),
            (None, Some(packed), _) => Cow::Owned(unpack(packed)),
            (None, None, Some(file)) => Cow::Owned(read_lossy(file)),
            (None, None, None) => Cow::Borrowed(""),
        }
    }

    /// The text as a string, leaving this one empty; a plain text is moved, not copied.
    pub fn take(&mut self) -> String {
        let text = match self.plain.take() {
            Some(plain) => plain,
            None => self.unpacked().into_owned(),
        };
        *self = Text::default();
        text
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text {
            plain: OnceLock::from(text),
            ..Text::default()
        }
    }
}

/// Unpacks (or reads) the text the first time it is read this way, and keeps it (for the files
/// whose findings are shown).
impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.plain.get_or_init(|| self.unpacked().into_owned())
    }
}

/// A file's text as the frontends decode it, lossy: a NUL byte read as a space, invalid UTF-8 as
/// U+FFFD; empty where the file cannot be read (the check that read it first reported why).
pub fn read_lossy(path: &Path) -> String {
    match crate::fsio::read_regular_state(path, crate::fsio::MAX_FILE_BYTES) {
        Ok((bytes, _)) => lossy(bytes),
        Err(_) => String::new(),
    }
}

/// `bytes` as text, lossy: a NUL byte read as a space, invalid UTF-8 as U+FFFD.
pub fn lossy(bytes: Vec<u8>) -> String {
    if memchr::memchr(0, &bytes).is_some() {
        return String::from_utf8_lossy(&bytes).replace('\0', " ");
    }
    String::from_utf8(bytes)
        .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

fn unpack(packed: &[u8]) -> String {
    // Packed from a `String` by `pack`: valid LZ4 holding valid UTF-8.
    let bytes = lz4_flex::decompress_size_prepended(packed).unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long() -> String {
        "import torch\nx = torch.zeros(3, device='cuda')  # é\n".repeat(100)
    }

    #[test]
    fn a_packed_text_reads_back_whole() {
        let text = Text::pack(long());
        assert!(text
            .packed
            .as_ref()
            .is_some_and(|p| p.len() < long().len() / 4));
        assert_eq!(text.unpacked(), long());
        assert!(text.plain.get().is_none(), "`unpacked` keeps nothing");
        assert_eq!(&*text, long());
        assert!(
            text.plain.get().is_some(),
            "reading through `Deref` keeps it"
        );
    }

    #[test]
    fn short_texts_stay_plain_and_take_empties() {
        let mut short = Text::pack("x = 1\n".to_string());
        assert!(short.packed.is_none());
        assert_eq!(short.take(), "x = 1\n");
        assert_eq!(&*short, "");
        let mut packed = Text::pack(long());
        assert!(packed.packed.is_some());
        assert_eq!(packed.take(), long());
    }
}
