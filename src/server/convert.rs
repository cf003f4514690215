//! Byte offsets ↔ LSP positions, and paths ↔ file URIs. A position's character counts UTF-16
//! code units unless the client accepted UTF-8 (LSP 3.17 `positionEncoding`); lines end where
//! Python's tokenizer ends them (`\n`, `\r\n`, a lone `\r`), as the protocol has it too.

use std::path::{Path, PathBuf};

use gpulint_core::files::normalize;
use gpulint_core::source::LineIndex;
use lsp_types::{Position, PositionEncodingKind, Range, Url};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    /// UTF-8 when the client offers it (no conversion at all); else UTF-16, the protocol's
    /// default, which every client understands.
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        match offered {
            Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }
}

/// The largest character boundary of `text` at or before `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// Where the line starting at byte `start` ends, before its line break.
fn line_end(text: &str, start: usize) -> usize {
    text[start..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| start + i)
}

/// The position of byte `offset` (clamped to the text).
pub fn position(text: &str, lines: &LineIndex, offset: u32, encoding: Encoding) -> Position {
    let offset = floor_boundary(text, offset as usize);
    let line = lines.line_col(text, offset as u32).line;
    let start = lines.line_start(line).map_or(0, |s| s as usize).min(offset);
    let before = &text[start..offset];
    let character = match encoding {
        Encoding::Utf8 => before.len(),
        Encoding::Utf16 => before.encode_utf16().count(),
    };
    Position::new(line - 1, character as u32)
}

pub fn range(text: &str, lines: &LineIndex, start: u32, end: u32, encoding: Encoding) -> Range {
    Range::new(
        position(text, lines, start, encoding),
        position(text, lines, end, encoding),
    )
}

/// The byte offset of `position`: past the last line, the end of the text; past a line's end,
/// the end of that line; inside a character (a UTF-16 surrogate pair), that character's start.
pub fn offset(text: &str, lines: &LineIndex, position: Position, encoding: Encoding) -> usize {
    let Some(start) = position
        .line
        .checked_add(1)
        .and_then(|line| lines.line_start(line))
    else {
        return text.len();
    };
    let start = (start as usize).min(text.len());
    let end = line_end(text, start);
    let wanted = position.character as usize;
    match encoding {
        Encoding::Utf8 => floor_boundary(text, (start + wanted).min(end)),
        Encoding::Utf16 => {
            let mut units = 0;
            for (i, c) in text[start..end].char_indices() {
                units += c.len_utf16();
                if units > wanted {
                    return start + i;
                }
            }
            end
        }
    }
}

/// The file a `file:` URI names, absolute and normalised; `None` for other schemes.
pub fn uri_path(uri: &Url) -> Option<PathBuf> {
    if uri.scheme() != "file" {
        return None;
    }
    uri.to_file_path().ok().map(|p| normalize(&p))
}

/// The `file:` URI of `path` (relative paths are taken from the working directory).
pub fn path_uri(path: &Path) -> Option<Url> {
    Url::from_file_path(normalize(path)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    // 'é' is 2 bytes and 1 UTF-16 unit; '🚀' is 4 bytes and 2 UTF-16 units.
    const TEXT: &str = "é = 1\nx = \"🚀\"; y = 2\r\nlast";

    fn at(text: &str, offset: usize, encoding: Encoding) -> Position {
        position(text, &LineIndex::new(text), offset as u32, encoding)
    }

    #[test]
    fn positions_count_utf16_units_or_bytes() {
        let y = TEXT.find('y').unwrap();
        // `x = "` is 5, the rocket 2 units or 4 bytes, `"; ` 3.
        assert_eq!(at(TEXT, y, Encoding::Utf16), Position::new(1, 10));
        assert_eq!(at(TEXT, y, Encoding::Utf8), Position::new(1, 12));
        let equals = TEXT.find('=').unwrap();
        assert_eq!(at(TEXT, equals, Encoding::Utf16), Position::new(0, 2));
        assert_eq!(at(TEXT, equals, Encoding::Utf8), Position::new(0, 3));
        // After `\r\n`, the next line starts at character 0.
        let last = TEXT.find("last").unwrap();
        assert_eq!(at(TEXT, last, Encoding::Utf16), Position::new(2, 0));
        assert_eq!(at(TEXT, TEXT.len(), Encoding::Utf16), Position::new(2, 4));
    }

    #[test]
    fn offsets_round_trip_in_both_encodings() {
        let lines = LineIndex::new(TEXT);
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            // Between `\r` and `\n` is no position of its own.
            let crlf = TEXT.find("\r\n").unwrap() + 1;
            for (i, _) in TEXT.char_indices().filter(|(i, _)| *i != crlf) {
                let p = position(TEXT, &lines, i as u32, encoding);
                assert_eq!(offset(TEXT, &lines, p, encoding), i, "{p:?} {encoding:?}");
            }
        }
    }

    #[test]
    fn out_of_range_positions_are_clamped_never_split_a_character() {
        let lines = LineIndex::new(TEXT);
        let rocket = TEXT.find('🚀').unwrap();
        // The middle of the surrogate pair: the character's start.
        let inside = Position::new(1, 6);
        assert_eq!(offset(TEXT, &lines, inside, Encoding::Utf16), rocket);
        // Byte 1 of 'é' is no boundary either.
        assert_eq!(offset(TEXT, &lines, Position::new(0, 1), Encoding::Utf8), 0);
        // Past the line's end: before its line break.
        let end = TEXT.find('\r').unwrap();
        assert_eq!(
            offset(TEXT, &lines, Position::new(1, 99), Encoding::Utf16),
            end
        );
        assert_eq!(
            offset(TEXT, &lines, Position::new(7, 0), Encoding::Utf8),
            TEXT.len()
        );
        assert_eq!(
            offset(TEXT, &lines, Position::new(u32::MAX, 0), Encoding::Utf8),
            TEXT.len()
        );
        assert_eq!(
            at(TEXT, rocket + 1, Encoding::Utf16),
            at(TEXT, rocket, Encoding::Utf16)
        );
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line() {
        let text = "a\rbé\n";
        let b = text.find('b').unwrap();
        assert_eq!(at(text, b, Encoding::Utf16), Position::new(1, 0));
        assert_eq!(
            at(text, text.len() - 1, Encoding::Utf16),
            Position::new(1, 2)
        );
    }

    #[test]
    fn utf8_is_chosen_only_when_offered() {
        let both = [PositionEncodingKind::UTF16, PositionEncodingKind::UTF8];
        assert_eq!(Encoding::negotiate(Some(&both)), Encoding::Utf8);
        let utf32 = [PositionEncodingKind::UTF32];
        assert_eq!(Encoding::negotiate(Some(&utf32)), Encoding::Utf16);
        assert_eq!(Encoding::negotiate(None), Encoding::Utf16);
    }

    #[test]
    fn file_uris_and_paths_convert_both_ways() {
        let uri = Url::parse("file:///tmp/my%20dir/a.py").unwrap();
        assert_eq!(uri_path(&uri), Some(PathBuf::from("/tmp/my dir/a.py")));
        assert_eq!(
            path_uri(Path::new("/tmp/my dir/./a.py")).map(|u| u.to_string()),
            Some("file:///tmp/my%20dir/a.py".to_string())
        );
        assert_eq!(uri_path(&Url::parse("untitled:Untitled-1").unwrap()), None);
    }
}
