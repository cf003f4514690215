//! Byte spans and the byte-offset → line/column map, built once per file.

/// One source file of the run (an index into its file table, see [`crate::files::Files`]).
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

impl LineIndex {
    /// The byte offset where 1-based `line` starts; `None` past the last line.
    pub fn line_start(&self, line: u32) -> Option<u32> {
        self.line_starts
            .get((line as usize).checked_sub(1)?)
            .copied()
    }
}

/// Where each line of a text assembled from cells (a notebook's code cells, in order) comes from:
/// the text's line → (cell, line in the cell). Every place that shows a position goes through it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cells {
    /// Per cell, in text order: its first line in the text (1-based) and its number (1-based,
    /// counting every cell of the notebook, so it matches what the user sees).
    starts: Vec<(u32, u32)>,
}

impl Cells {
    /// Adds the cell numbered `number` whose first line in the text is `first_line`.
    pub fn push(&mut self, first_line: u32, number: u32) {
        self.starts.push((first_line, number));
    }

    /// The cell holding the text's 1-based `line`, and the line in that cell (both 1-based).
    pub fn locate(&self, line: u32) -> (u32, u32) {
        let i = self.starts.partition_point(|(first, _)| *first <= line);
        match i.checked_sub(1).map(|i| self.starts[i]) {
            Some((first, number)) => (number, line - first + 1),
            None => (self.starts.first().map_or(1, |s| s.1), line),
        }
    }

    /// The text's lines of the cell holding `line`: first, and the first of the next cell
    /// (`None` for the last cell).
    pub fn lines_of(&self, line: u32) -> (u32, Option<u32>) {
        let i = self.starts.partition_point(|(first, _)| *first <= line);
        let first = i.checked_sub(1).map_or(1, |i| self.starts[i].0);
        let next = self.starts[i..].iter().map(|s| s.0).find(|l| *l > first);
        (first, next)
    }
}

/// A position as users count it: a line and column, within its cell for a notebook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    pub cell: Option<u32>,
    pub line: u32,
    pub column: u32,
}

impl Location {
    /// Where `offset` of `text` is, mapped to its cell when the text is made of cells.
    pub fn of(text: &str, lines: &LineIndex, cells: Option<&Cells>, offset: u32) -> Location {
        let at = lines.line_col(text, offset);
        match cells {
            Some(cells) => {
                let (cell, line) = cells.locate(at.line);
                Location {
                    cell: Some(cell),
                    line,
                    column: at.column,
                }
            }
            None => Location {
                cell: None,
                line: at.line,
                column: at.column,
            },
        }
    }
}

/// `line:column`, or `cell N:line:column` (ruff's notebook form).
impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(cell) = self.cell {
            write!(f, "cell {cell}:")?;
        }
        write!(f, "{}:{}", self.line, self.column)
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

    #[test]
    fn lines_map_to_cells_and_back() {
        let mut cells = Cells::default();
        cells.push(1, 2); // cell 2: lines 1-3
        cells.push(4, 4); // cell 3 is markdown; an empty code cell 5 has no line
        cells.push(6, 5);
        cells.push(6, 7);
        assert_eq!(cells.locate(1), (2, 1));
        assert_eq!(cells.locate(3), (2, 3));
        assert_eq!(cells.locate(4), (4, 1));
        assert_eq!(cells.locate(6), (7, 1));
        assert_eq!(cells.locate(9), (7, 4));
        assert_eq!(cells.lines_of(2), (1, Some(4)));
        assert_eq!(cells.lines_of(5), (4, Some(6)));
        assert_eq!(cells.lines_of(7), (6, None));
    }

    #[test]
    fn a_location_shows_its_cell() {
        let text = "a\nbb\nc\n";
        let lines = LineIndex::new(text);
        let mut cells = Cells::default();
        cells.push(1, 1);
        cells.push(2, 3);
        let at = Location::of(text, &lines, Some(&cells), 4);
        assert_eq!(at.to_string(), "cell 3:1:3");
        assert_eq!(Location::of(text, &lines, None, 4).to_string(), "2:3");
        assert_eq!(lines.line_start(3), Some(5));
        assert_eq!(lines.line_start(0), None);
    }
}
