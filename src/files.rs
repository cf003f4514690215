//! The run's file table: every file a diagnostic of the run may point into, whatever its language.
//! The Python frontend's files are its program's (ids `0..n`, as the program gave them); the Rust
//! frontend's follow, in a [`FileTable`] of their own (ids `n..`). No frontend holds another's
//! files: what shows, locates, suppresses or records a finding reads its file here.

use std::path::Path;

use gpulint_core::diagnostic::Sources;
use gpulint_core::files::{File, FileTable, Files};
use gpulint_core::fsio::Stamp;
use gpulint_core::source::{FileId, LineCol};
use gpulint_python::notebook::Notebook;
use gpulint_python::program::Program;

/// The files of a run: the Python program's, then the Rust frontend's.
pub struct RunFiles {
    python: Program,
    /// The id of the first Rust file: how many files the program holds.
    first_rust: u32,
    rust: FileTable,
}

impl RunFiles {
    /// The run's files: `python`'s, then `rust`, each with the next id (`first_rust` on: the ids
    /// the Rust frontend's findings were given, which must follow the program's last file).
    pub fn new(python: Program, first_rust: u32, rust: Vec<File>) -> RunFiles {
        assert_eq!(
            python.files().count() as u32,
            first_rust,
            "the Rust files' ids follow the program's"
        );
        let mut table = FileTable::default();
        for (i, mut file) in rust.into_iter().enumerate() {
            let id = FileId(first_rust + i as u32);
            for comment in &mut file.comments {
                comment.file = id;
            }
            table.add(file);
        }
        RunFiles {
            python,
            first_rust,
            rust: table,
        }
    }

    /// The Python frontend's program.
    pub fn python(&self) -> &Program {
        &self.python
    }

    /// The Python frontend's program, for what changes its files' contents (a deferred file parsed,
    /// the leaves' names): adding a file to it would move the Rust files' ids.
    pub fn python_mut(&mut self) -> &mut Program {
        &mut self.python
    }

    /// Whether `id` is one of the Rust frontend's files.
    pub fn is_rust(&self, id: FileId) -> bool {
        id.0 >= self.first_rust
    }

    /// Every file, by id, in order.
    pub fn all(&self) -> impl Iterator<Item = (FileId, &File)> {
        self.ids().map(move |id| (id, self.file(id)))
    }

    /// The notebook file `id` is, if it is one (for fixes and positions in its JSON).
    pub fn notebook(&self, id: FileId) -> Option<&Notebook> {
        match self.is_rust(id) {
            true => None,
            false => self.python.file(id).notebook.as_deref(),
        }
    }

    /// What file `id` looked like when it was first read: a fix is written only if it still does.
    /// `None` for a file whose text was not read from the disk by its frontend.
    pub fn stamp(&self, id: FileId) -> Option<Stamp> {
        match self.is_rust(id) {
            true => None,
            false => self.python.file(id).stamp,
        }
    }
}

impl Sources for RunFiles {
    fn text(&self, file: FileId) -> &str {
        &self.file(file).text
    }
}

impl Files for RunFiles {
    fn file(&self, id: FileId) -> &File {
        match self.is_rust(id) {
            true => self.rust.file(FileId(id.0 - self.first_rust)),
            false => Files::file(&self.python, id),
        }
    }

    fn ids(&self) -> Box<dyn Iterator<Item = FileId> + '_> {
        Box::new((0..self.first_rust + self.rust.len() as u32).map(FileId))
    }

    fn stored_line_col(&self, id: FileId, offset: u32) -> LineCol {
        match self.is_rust(id) {
            true => self.file(id).line_col(offset),
            false => self.python.stored_line_col(id, offset),
        }
    }

    fn path(&self, id: FileId) -> &Path {
        &self.file(id).path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_core::source::Span;
    use gpulint_core::text::Text;
    use gpulint_python::program::Input;

    #[test]
    fn the_rust_files_follow_the_programs_with_their_comments_moved_to_their_ids() {
        let program = Program::build(vec![Input::Text {
            path: "a.py".into(),
            text: "x = 1\n".into(),
        }]);
        let first = program.files().count() as u32;
        let rust = File::new(
            "b.rs".into(),
            Text::from("// c\nfn f() {}\n".to_string()),
            true,
        )
        .with_comments(vec![Span::new(FileId(0), 0, 4)]);
        let files = RunFiles::new(program, first, vec![rust]);
        let b = FileId(first);
        assert!(!files.is_rust(FileId(0)) && files.is_rust(b));
        assert_eq!(files.ids().count() as u32, first + 1);
        assert_eq!(files.path(FileId(0)), Path::new("a.py"));
        assert_eq!(files.path(b), Path::new("b.rs"));
        assert_eq!(files.text(b), "// c\nfn f() {}\n");
        assert_eq!(files.file(b).comments, [Span::new(b, 0, 4)]);
        assert_eq!(files.stored_line_col(b, 6), LineCol { line: 2, column: 2 });
        assert!(files.notebook(b).is_none() && files.stamp(b).is_none());
        assert_eq!(files.all().map(|(id, _)| id).last(), Some(b));
    }

    #[test]
    #[should_panic(expected = "follow the program's")]
    fn rust_ids_that_do_not_follow_the_program_are_refused() {
        RunFiles::new(Program::default(), 1, Vec::new());
    }
}
