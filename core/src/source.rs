//! Byte spans and the byte-offset → line/column map, built once per file.

/// One source file of the program being analysed (an index into [`crate::program::Program`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: u32, end: u32) -> Self {
        Span { file, start, end }
    }
}

/// A 1-based line and column (column counted in characters, as ruff does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub column: u32,
}

/// Maps byte offsets of one file to lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    /// Lines end at `\n`, `\r\n` or a lone `\r`, as Python's tokenizer ends them.
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            if bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n') {
                line_starts.push(i as u32 + 1);
            }
        }
        LineIndex { line_starts }
    }

    /// The 1-based line and column of `offset` (clamped to the text).
    pub fn line_col(&self, text: &str, offset: u32) -> LineCol {
        let offset = offset.min(text.len() as u32);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).max(start);
        let column = text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count());
        LineCol {
            line: line as u32 + 1,
            column: column as u32 + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let text = "ab\nλx = 1\n";
        let index = LineIndex::new(text);
        assert_eq!(index.line_col(text, 0), LineCol { line: 1, column: 1 });
        assert_eq!(index.line_col(text, 3), LineCol { line: 2, column: 1 });
        // 'x' follows a two-byte character: byte 5, character column 2.
        assert_eq!(index.line_col(text, 5), LineCol { line: 2, column: 2 });
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line_and_crlf_ends_one() {
        let text = "a\rb\r\nc\nd";
        let index = LineIndex::new(text);
        let lines: Vec<u32> = [0, 2, 5, 7]
            .iter()
            .map(|&o| index.line_col(text, o).line)
            .collect();
        assert_eq!(lines, [1, 2, 3, 4]);
    }
}
