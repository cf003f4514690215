//! The file layer: the files of a run, whatever their language, as the outputs, suppression
//! comments and baselines read them (a path, a text, positions, a notebook's cells, comments).
//!
//! A frontend keeps what only it needs of a file (a Python module, an import table) beside a
//! [`File`]; everything that shows or locates a finding reads the file through [`Files`] and
//! knows no frontend.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use crate::diagnostic::Sources;
use crate::source::{Cells, FileId, LineCol, LineIndex, Location, Span};
use crate::text::Text;

/// One file of a run: what every language's file has.
#[derive(Debug, Default)]
pub struct File {
    /// As given on the command line for checked files; relative to the working directory (or
    /// absolute) for files a frontend found itself (imports, a crate's modules).
    pub path: PathBuf,
    /// The text (lossy for a file that is not UTF-8), for excerpts and positions.
    pub text: Text,
    /// Built on first use: most files never show a finding.
    lines: OnceLock<LineIndex>,
    /// Where its comments are (suppression comments are read from these).
    pub comments: Vec<Span>,
    /// Named by the user (or found under a named folder), not only reached from one; or reached
    /// and not parsed (its error is reported).
    pub checked: bool,
    /// For a notebook, the cell each line of `text` comes from.
    pub cells: Option<Cells>,
}

impl File {
    /// A file at `path` with `text`, no comments and no cells.
    pub fn new(path: PathBuf, text: Text, checked: bool) -> File {
        File {
            path,
            text,
            checked,
            ..File::default()
        }
    }

    /// The file with its comments at `comments`.
    pub fn with_comments(mut self, comments: Vec<Span>) -> File {
        self.comments = comments;
        self
    }

    /// Where each line starts, built from the text on first use.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// The line and column of byte `offset` of the text, counted in the whole text (a notebook's
    /// cells in order): for ordering, and where a cell's own count is not wanted.
    pub fn line_col(&self, offset: u32) -> LineCol {
        self.lines().line_col(&self.text, offset)
    }

    /// Where byte `offset` of the text is, as users count (in its cell for a notebook).
    pub fn location(&self, offset: u32) -> Location {
        Location::of(&self.text, self.lines(), self.cells.as_ref(), offset)
    }

    /// For a notebook, the cell holding byte `offset` of the text: its number and its bytes.
    pub fn cell_at(&self, offset: u32) -> Option<(u32, std::ops::Range<usize>)> {
        let cells = self.cells.as_ref()?;
        let line = self.line_col(offset).line;
        let (number, _) = cells.locate(line);
        let (first, next) = cells.lines_of(line);
        let start = self.lines().line_start(first).unwrap_or(0) as usize;
        let end = next
            .and_then(|n| self.lines().line_start(n))
            .map_or(self.text.len(), |e| e as usize);
        Some((
            number,
            start.min(self.text.len())..end.max(start).min(self.text.len()),
        ))
    }
}

/// The files of a run, by id: what the outputs, suppression comments and baselines read. The
/// run's file table implements it; a frontend registers its files there.
pub trait Files: Sources + Sync {
    /// The file `id` (every id a diagnostic of this run names is one).
    fn file(&self, id: FileId) -> &File;

    /// The ids of the files, in order.
    fn ids(&self) -> Box<dyn Iterator<Item = FileId> + '_>;

    /// Where byte `offset` of `id`'s text is in the file as stored: its line and column there. For
    /// most files, [`File::line_col`]'s; for a notebook, the line of its JSON where that character
    /// of its cell's `source` is written (what annotations on the stored file need).
    fn stored_line_col(&self, id: FileId, offset: u32) -> LineCol {
        self.file(id).line_col(offset)
    }

    /// The path of file `id`.
    fn path(&self, id: FileId) -> &Path {
        &self.file(id).path
    }
}

/// A file table of its own: the files a frontend registers, each with the next id.
#[derive(Debug, Default)]
pub struct FileTable {
    files: Vec<File>,
}

impl FileTable {
    /// Registers `file`; returns its id.
    pub fn add(&mut self, file: File) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl Sources for FileTable {
    fn text(&self, file: FileId) -> &str {
        &self.files[file.0 as usize].text
    }
}

impl Files for FileTable {
    fn file(&self, id: FileId) -> &File {
        &self.files[id.0 as usize]
    }

    fn ids(&self) -> Box<dyn Iterator<Item = FileId> + '_> {
        Box::new((0..self.files.len() as u32).map(FileId))
    }
}

/// An absolute path with `.` and `..` worked out, without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    // Most paths asked about are normal already (absolute, no `.` or `..`, no doubled or trailing
    // `/`): the work below, for each file of a tree, is a large part of a run answered from the
    // cache.
    #[cfg(unix)]
    {
        let bytes = path.as_os_str().as_encoded_bytes();
        let normal = bytes.first() == Some(&b'/')
            && (bytes.len() == 1 || !bytes.ends_with(b"/"))
            && !bytes.ends_with(b"/.")
            && !bytes.ends_with(b"/..")
            && !bytes.windows(2).any(|w| w == b"//")
            && !bytes.windows(3).any(|w| w == b"/./")
            && !bytes.windows(4).any(|w| w == b"/../");
        if normal {
            return path.to_path_buf();
        }
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_gives_ids_in_order_and_positions_by_id() {
        let mut table = FileTable::default();
        let a = table.add(File::new(
            "a.py".into(),
            Text::from("x\n".to_string()),
            true,
        ));
        let b = table.add(File::new(
            "b.rs".into(),
            Text::from("ab\ncd\n".to_string()),
            false,
        ));
        assert_eq!((a, b), (FileId(0), FileId(1)));
        assert_eq!(table.ids().collect::<Vec<_>>(), [a, b]);
        assert_eq!(table.path(b), Path::new("b.rs"));
        assert_eq!(table.text(b), "ab\ncd\n");
        assert_eq!(table.file(b).location(4).to_string(), "2:2");
        assert_eq!(table.stored_line_col(b, 4), LineCol { line: 2, column: 2 });
        assert_eq!(table.file(b).cell_at(4), None);
    }

    #[test]
    fn a_cell_is_found_by_offset() {
        let mut cells = Cells::default();
        cells.push(1, 1);
        cells.push(3, 4);
        let file = File {
            cells: Some(cells),
            ..File::new("n.ipynb".into(), Text::from("a\nb\nc\n".to_string()), true)
        };
        assert_eq!(file.cell_at(0), Some((1, 0..4)));
        assert_eq!(file.cell_at(4), Some((4, 4..6)));
        assert_eq!(file.location(4).to_string(), "cell 4:1:1");
    }
}
