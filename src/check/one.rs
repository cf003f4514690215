//! One main program's check: analyse it (a leaf is parsed here), render its facts as findings,
//! and say where budgets cut it short.

use std::panic::{catch_unwind, AssertUnwindSafe};

use gpulint_analyses::Analyses;
use gpulint_core::source::{FileId, Span};
use gpulint_python::lower;
use gpulint_python::program::{FileError, Program};
use gpulint_python::semantic::{self, ImportCache, Settings};
use gpulint_rules::Diagnostic;

use crate::files::RunFiles;

/// What parsing a leaf gave besides its model (see `Program::add_leaf_names`).
pub(super) struct LeafParse {
    /// The names it reads that no other module does.
    pub(super) names: Vec<String>,
    pub(super) comments: Vec<Span>,
}

/// What analysing one main program gave.
pub(super) struct FileChecked {
    pub(super) result: Result<Vec<Diagnostic>, String>,
    /// What parsing it gave, for a leaf.
    pub(super) leaf: Option<LeafParse>,
    /// Where budgets cut the analysis short.
    pub(super) unseen: Vec<Span>,
    /// The names it asked whether the program references, with the answers.
    pub(super) queried: Vec<(String, bool)>,
    /// For the cache, where it learns: a leaf's parse, by the digest of its text.
    pub(super) summary: Option<(gpulint_python::known::Digest, gpulint_python::known::Parsed)>,
    /// The leaf's text was the one scanned (it did not change meanwhile).
    pub(super) consistent: bool,
}

/// The findings of analysing `id` as the main program; they may point into files it imports. A
/// leaf is parsed here (see `Program::parse_leaf`), and what its parse gave is returned too.
pub(super) fn check_file(
    files: &RunFiles,
    cache: &ImportCache<Analyses>,
    id: FileId,
    settings: Settings,
    verbose: bool,
    learn: bool,
) -> FileChecked {
    let program = files.python();
    let file = program.file(id);
    let mut out = FileChecked {
        result: Ok(Vec::new()),
        leaf: None,
        unseen: Vec::new(),
        queried: Vec::new(),
        summary: None,
        consistent: true,
    };
    if let Some(error) = program.syntax_error(id) {
        out.result = Ok(file_error_findings(id, &error));
        return out;
    }
    let (leaf, parse) = match program.parse_leaf_checked(id) {
        Some((Err(error), same)) => {
            out.result = Ok(file_error_findings(id, &error));
            out.consistent = same;
            return out;
        }
        Some((Ok(lower::Lowered { module, comments }), same)) => {
            out.consistent = same;
            (Some(module), Some(comments))
        }
        None => (None, None),
    };
    if learn {
        if let (Some(module), Some(comments), Some(digest)) =
            (&leaf, &parse, program.text_digest(id))
        {
            out.summary = Some((
                digest,
                gpulint_python::program::leaf_summary(module, program.file(id).asked(), comments),
            ));
        }
    }
    let leaf_names = leaf.as_ref().map(semantic::referenced_names);
    out.leaf = parse
        .zip(leaf_names.as_ref())
        .map(|(comments, names)| LeafParse {
            names: program.names_only_in(names),
            comments,
        });
    let found = match &file.module {
        Err(error) => Ok((file_error_findings(id, error), Vec::new(), Vec::new())),
        Ok(_) => catch_unwind(AssertUnwindSafe(|| {
            let analysed = match (&leaf, &leaf_names) {
                (Some(module), Some(names)) => {
                    semantic::analyze_leaf(program, cache, id, settings, module, names)
                }
                _ => semantic::analyze_bounded(program, cache, id, settings),
            };
            // A cut only loses findings: the analyses take code not followed as possibly doing
            // what would silence them (`Effect::NotFollowed`). The summary counts the cuts.
            let found =
                gpulint_rules::check(&analysed.facts, files, gpulint_rules::Language::Python);
            let found = super::environment::place(program, found, &analysed.crossings);
            if verbose {
                for cut in &analysed.cuts {
                    eprintln!(
                        "gpulint: {}: analysis cut short: {}",
                        file.path.display(),
                        describe_cut(program, cut)
                    );
                }
            }
            let unseen = analysed.cuts.iter().filter(|c| !c.repeat).map(|c| c.span);
            (found, unseen.collect(), analysed.queried)
        }))
        .map_err(crate::panics::panic_message),
    };
    match found {
        Ok((found, unseen, queried)) => {
            out.result = Ok(found);
            out.unseen = unseen;
            out.queried = queried;
        }
        Err(e) => out.result = Err(e),
    }
    out
}

/// The findings that stand for a file that could not be analysed: why it could not be read or
/// parsed.
pub(super) fn file_error_findings(id: FileId, error: &FileError) -> Vec<Diagnostic> {
    match error {
        FileError::Unreadable(reason) => {
            vec![gpulint_rules::unreadable_file(reason, Span::new(id, 0, 0))]
        }
        FileError::Binary { reason, offset } => vec![gpulint_rules::unreadable_file(
            reason,
            Span::new(id, *offset, *offset),
        )],
        FileError::Syntax(err) => vec![gpulint_rules::invalid_syntax(&err.message, err.span)],
    }
}

/// Where and why a budget cut an analysis short: "`f` (path:line) was not followed further (reason)".
pub(super) fn describe_cut(program: &Program, cut: &semantic::Cut) -> String {
    let file = program.file(cut.span.file);
    let at = file.lines().line_col(&file.text, cut.span.start);
    format!(
        "`{}` ({}:{}) was not followed further ({})",
        cut.function,
        file.path.display(),
        at.line,
        cut.reason
    )
}
