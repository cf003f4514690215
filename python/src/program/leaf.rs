//! The leaves: checked files no other module imports, parsed by their own analysis (once), and the
//! names they read that the other modules' analyses need.

use rayon::prelude::*;
use rustc_hash::FxHashSet as HashSet;

use crate::known;
use crate::lower;
use crate::model::Module;
use crate::source::{FileId, Span};

use super::read::read_text;
use super::resolve::wanted_imports;
use super::{FileError, Program};

impl Program {
    /// Whether `name` is read (or is an attribute name) in a file other than the leaves, or, with
    /// `in_leaves`, in any file: a function by such a name has a caller somewhere.
    pub fn is_referenced(&self, name: &str, in_leaves: bool) -> bool {
        self.referenced.contains(name) || in_leaves && self.leaf_names().contains(name)
    }

    /// The names the leaves read that no other file does. A leaf's functions are called only from
    /// the leaf itself (no module imports it), but the leaves call into the other modules, whose
    /// analyses need these. Parsed here when no check supplied them ([`Program::add_leaf_names`]).
    pub fn leaf_names(&self) -> &HashSet<String> {
        self.leaf_names.get_or_init(|| {
            let lazy: Vec<FileId> = self
                .files()
                .filter(|(id, _)| self.is_lazy(*id))
                .map(|(id, _)| id)
                .collect();
            let names: Vec<Vec<String>> = lazy
                .par_iter()
                .filter_map(|id| {
                    let leaf = self.parse_leaf(*id)?.ok()?;
                    Some(self.names_only_in(&crate::names::referenced_names(&leaf.module)))
                })
                .collect();
            names.into_iter().flatten().collect()
        })
    }

    /// Of the names a leaf reads ([`crate::names::referenced_names`]), those no file but the
    /// leaves does.
    pub fn names_only_in(&self, names: &HashSet<&str>) -> Vec<String> {
        names
            .iter()
            .filter(|name| !self.referenced.contains(**name))
            .map(|name| name.to_string())
            .collect()
    }

    /// What the analyses of the leaves found while parsing them: each leaf's comments (for
    /// suppression comments) and the names the leaves read that no other file does. Call it
    /// before analysing the other files, as a check does.
    pub fn add_leaf_names(&mut self, names: HashSet<String>, comments: Vec<(FileId, Vec<Span>)>) {
        for (id, spans) in comments {
            self.files[id.0 as usize].comments = spans;
        }
        let _ = self.leaf_names.set(names);
    }

    /// Whether the file is a leaf, parsed by its own analysis (see [`Program::parse_leaf`]).
    pub fn is_lazy(&self, id: FileId) -> bool {
        self.files[id.0 as usize].lazy
    }

    /// A leaf's model and comments, parsed from its text (see [`SourceFile`]'s `lazy`); `None` for
    /// any other file.
    pub fn parse_leaf(&self, id: FileId) -> Option<Result<lower::Lowered, FileError>> {
        self.parse_leaf_checked(id).map(|(parsed, _)| parsed)
    }

    /// [`Program::parse_leaf`], and whether the text parsed is the one scanned (always, where the
    /// build kept no digest).
    pub fn parse_leaf_checked(
        &self,
        id: FileId,
    ) -> Option<(Result<lower::Lowered, FileError>, bool)> {
        let file = self.files.get(id.0 as usize)?;
        if !file.lazy {
            return None;
        }
        let same = |text: &str| {
            file.text_digest
                .is_none_or(|d| known::digest(text.as_bytes()) == d)
        };
        if !file.text.is_on_disk() {
            let text = file.text.unpacked();
            return Some((
                lower::parse(&text, id).map_err(FileError::Syntax),
                same(&text),
            ));
        }
        // Read again: it may have changed or gone since the scan, which this reports like any
        // file that cannot be read. What is read is what is analysed.
        Some(match read_text(&file.path) {
            Ok(text) => (
                lower::parse(&text, id).map_err(FileError::Syntax),
                same(&text),
            ),
            Err((_, error)) => (Err(error), false),
        })
    }

    /// The syntax error of a checked file that was only scanned (it can reach no GPU library, so
    /// nothing else is looked for in it), parsed now and its tree dropped; `None` for every other
    /// file, whose parse (while loading, or [`Program::parse_leaf`]) reports its own.
    pub fn syntax_error(&self, id: FileId) -> Option<FileError> {
        if !self.checked_for_syntax_only(id) {
            return None;
        }
        let file = &self.files[id.0 as usize];
        lower::syntax_error(&file.text.unpacked(), id).map(FileError::Syntax)
    }

    /// Whether `id` is a checked file that was only scanned: its check parses it for its syntax
    /// alone ([`Program::syntax_error`]).
    pub fn checked_for_syntax_only(&self, id: FileId) -> bool {
        self.files.get(id.0 as usize).is_some_and(|file| {
            file.checked && file.scanned_only && !file.lazy && file.module.is_ok()
        })
    }

    /// Whether analysing a leaf can find anything, judged from its model: [`Program::is_relevant`]
    /// judged it from the imports the scan read, which may be more than it has.
    pub fn leaf_is_relevant(&self, id: FileId, module: &Module) -> bool {
        let wanted = wanted_imports(module);
        let asked = self.files[id.0 as usize].asked;
        crate::names::imports_gpu_library(module, asked)
            || crate::names::sets_start_method(
                &wanted.imports,
                asked,
                &self.files[id.0 as usize].path,
            )
            || self.imports_native(&wanted.imports)
            || wanted.imports.iter().any(|(level, dotted)| {
                self.resolve(id, *level, dotted).is_some_and(|chain| {
                    chain.iter().any(|n| {
                        self.nodes[n.0 as usize]
                            .file
                            .is_some_and(|f| f != id && self.files[f.0 as usize].reaches_gpu)
                    })
                })
            })
    }
}
