//! Checks files in parallel: read and parse them and the project modules they import (once each),
//! analyse each checked file as a main program, run the rules. A file that cannot be read or parsed
//! becomes a GPU999 diagnostic and the others go on.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use gpulint_analyses::Analyses;
use gpulint_python::lower;
use gpulint_python::program::{normalize, FileError, Input, Program};
use gpulint_python::semantic::{self, ImportCache, Settings};
use gpulint_python::source::{FileId, Span};
use gpulint_rules::Diagnostic;
use rayon::prelude::*;

use crate::config::Resolver;
use crate::discover::Found;
use crate::noqa::{self, Directives};

/// What a run produced: the program (paths and texts of every file a diagnostic may point into),
/// the findings, and any bug in gpulint itself, by file.
pub struct Checked {
    pub program: Program,
    pub diagnostics: Vec<Diagnostic>,
    /// How many of them are at least as severe as their file's `fail-on`: these make the run fail.
    pub failing: usize,
    /// Findings a `# noqa` comment silenced.
    pub suppressed: usize,
    /// Findings a baseline recorded, not reported.
    pub baselined: usize,
    /// Findings `--fix` fixed before this check.
    pub fixed: usize,
    pub internal_errors: Vec<(PathBuf, String)>,
    /// Functions whose calls a budget cut before they were analysed (counted once each, over
    /// every file's analysis): what the run could not see.
    pub not_followed: usize,
}

/// Deep nesting is parsed and analysed recursively: give each worker thread room for it.
const STACK_SIZE: usize = 256 << 20;

pub fn check(request: Request, resolver: Resolver) -> anyhow::Result<Checked> {
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(STACK_SIZE)
        .build()?;
    pool.install(|| check_in_pool(request, resolver))
}

/// What to check.
pub struct Request {
    pub found: Vec<Found>,
    /// A file's path and text read from standard input.
    pub stdin: Option<(PathBuf, Vec<u8>)>,
    /// The files named on the command line: checked even when the configuration excludes them,
    /// unless `force_exclude`.
    pub named: Vec<PathBuf>,
    pub force_exclude: bool,
    /// Hide the findings recorded in each file's baseline (not while writing one).
    pub use_baseline: bool,
    /// Report suppression comments that suppress nothing (GPU900).
    pub report_unused_noqa: bool,
    /// Name on standard error each place where a budget cut an analysis short.
    pub verbose: bool,
    /// Outside a project root, absolute imports are looked for in the folders up to this one (an
    /// editor's workspace folder); `None`: up to the folder holding every checked file.
    pub import_root: Option<PathBuf>,
    /// The caller lives on after the check (the language server): free the import cache, which a
    /// run of the command leaves to the end of the process.
    pub free_memory: bool,
}

fn check_in_pool(request: Request, mut resolver: Resolver) -> anyhow::Result<Checked> {
    let free_memory = request.free_memory;
    let report_unused_noqa = request.report_unused_noqa;
    let use_baseline = request.use_baseline;
    let verbose = request.verbose;
    let import_root = request.import_root.clone();
    // Files the user named (standard input too): checked even when the configuration excludes
    // them, unless `--force-exclude` took them out of the inputs already.
    let mut named: HashSet<PathBuf> = request.named.iter().map(|p| normalize(p)).collect();
    if let Some((path, _)) = &request.stdin {
        named.insert(normalize(path));
    }
    let (inputs, rust_inputs) = crate::rust::split(inputs(request, &mut resolver)?);
    let timings = std::env::var_os("GPULINT_TIMINGS").is_some();
    let started = std::time::Instant::now();
    let loaded = crate::rust::read(rust_inputs);
    let native = crate::rust::native_modules(&loaded);
    let mut program = Program::build_with_native(inputs, native, import_root);
    let rust = crate::rust::add(loaded, &mut program);
    program.remap_native(|f| rust.id(f));
    let built = started.elapsed();
    // Import-time state does not depend on the start method unless a module forks at import, which
    // the module's own analysis reports.
    let cache = catch_unwind(AssertUnwindSafe(|| {
        ImportCache::<Analyses>::build(&program, Settings::default())
    }))
    .unwrap_or_else(|_| {
        // A bug while running imports: analyses run every import themselves instead.
        eprintln!("gpulint: internal error while running imported modules (please report this)");
        ImportCache::default()
    });
    let frozen = started.elapsed() - built;
    let mut checked: Vec<(FileId, Settings)> = Vec::new();
    for (id, file) in program.files().filter(|(_, f)| f.checked) {
        if matches!(file.module, Err(FileError::Foreign)) {
            continue;
        }
        // Excluded files reach this only when named, or imported and unparsable (checked so that
        // their error is said): the configuration's word wins over the second.
        let path = normalize(&file.path);
        if !named.contains(&path) && resolver.excludes(&path)? {
            continue;
        }
        checked.push((id, resolver.settings_for(&file.path)?));
    }
    // The leaves first: parsing them gives the names they read, which the other files' analyses
    // need (see `Program::leaf_names`).
    let (leaves, others): (Vec<_>, Vec<_>) = checked
        .into_iter()
        .partition(|(id, _)| program.is_lazy(*id));
    let leaf_count = leaves.len();
    let run = |program: &Program, (id, settings): (FileId, Settings)| {
        let start = std::time::Instant::now();
        let (result, leaf, unseen) = check_file(program, &cache, id, settings, verbose);
        if timings {
            for d in result.iter().flatten() {
                eprintln!(
                    "gpulint: {} {} found by analysing {}",
                    d.code,
                    program.file(d.span.file).path.display(),
                    program.file(id).path.display()
                );
            }
        }
        if timings && start.elapsed().as_millis() >= 100 {
            eprintln!(
                "gpulint: {} took {:.2?}",
                program.file(id).path.display(),
                start.elapsed()
            );
        }
        (id, result, leaf, unseen)
    };
    // One file a job: with rayon's own splitting, a thread could be left alone at a phase's end
    // with a run of files no other thread could steal from (60–70 ms on transformers).
    let checked_leaves: Vec<_> = leaves
        .into_par_iter()
        .with_max_len(1)
        .map(|f| run(&program, f))
        .collect();
    let mut names = rustc_hash::FxHashSet::default();
    let mut comments = Vec::new();
    let mut results: Vec<(FileId, Result<Vec<Diagnostic>, String>)> = Vec::new();
    let mut not_followed = rustc_hash::FxHashSet::default();
    for (id, result, leaf, unseen) in checked_leaves {
        not_followed.extend(unseen);
        if let Some(leaf) = leaf {
            names.extend(leaf.names);
            comments.push((id, leaf.comments));
        }
        results.push((id, result));
    }
    program.add_leaf_names(names, comments);
    for (id, result, _, unseen) in others
        .into_par_iter()
        .with_max_len(1)
        .map(|f| run(&program, f))
        .collect::<Vec<_>>()
    {
        not_followed.extend(unseen);
        results.push((id, result));
    }
    results.extend(crate::rust::check(&rust, &program));
    if timings {
        let imported = program.files().filter(|(_, f)| !f.checked).count();
        eprintln!("gpulint: {leaf_count} files parsed when analysed");
        let syntax_only = program
            .files()
            .filter(|(id, _)| program.checked_for_syntax_only(*id))
            .count();
        eprintln!(
            "gpulint: {syntax_only} files (reaching no GPU library) parsed for their syntax only"
        );
        eprintln!(
            "gpulint: {} checked + {imported} imported files; read and parsed in {built:.2?}, imports run in {frozen:.2?}, analysed in {:.2?}",
            results.len(),
            started.elapsed() - built - frozen
        );
    }
    let mut diagnostics = Vec::new();
    let mut internal_errors = Vec::new();
    for (id, result) in results {
        match result {
            Ok(found) => diagnostics.extend(found),
            Err(message) => internal_errors.push((program.file(id).path.clone(), message)),
        }
    }
    let diagnostics = configure(&program, &mut resolver, merge(&program, diagnostics))?;
    let (mut diagnostics, suppressed, unused) = suppress(&program, diagnostics, report_unused_noqa);
    // GPU900 findings are configured like any other.
    diagnostics.extend(configure(&program, &mut resolver, unused)?);
    let (diagnostics, baselined) = match use_baseline {
        true => crate::baseline::hide(&program, &mut resolver, diagnostics)?,
        false => (diagnostics, 0),
    };
    // Its frozen module states die with the process (at most ten `--fix` rounds keep one each):
    // freeing them piece by piece only costs time.
    if free_memory {
        drop(cache);
    } else {
        std::mem::forget(cache);
    }
    let mut diagnostics = diagnostics;
    drop_fixes_that_cannot_apply(&program, &mut diagnostics);
    let mut failing = 0;
    for d in &diagnostics {
        if d.severity >= resolver.fail_on_for(&program.file(d.span.file).path)? {
            failing += 1;
        }
    }
    Ok(Checked {
        failing,
        diagnostics,
        suppressed,
        baselined,
        fixed: 0,
        not_followed: not_followed.len(),
        program,
        internal_errors,
    })
}

/// A finding whose fix edits another file than its own offers none (fixes are applied to the
/// finding's file). Nor does a notebook finding whose fix cannot be put back in its cells (it spans
/// two cells, or a cell holds a lone carriage return): `--fix` would refuse it, so it is not
/// counted or shown as fixable; nor one whose edits reach more than one cell: a fix stays in its
/// cell (a statement moved between cells would change what each cell does when run alone).
fn drop_fixes_that_cannot_apply(program: &Program, diagnostics: &mut [Diagnostic]) {
    for d in diagnostics {
        let elsewhere = |f: &gpulint_rules::Fix| f.edits.iter().any(|e| e.span.file != d.span.file);
        if d.fix.as_ref().is_some_and(elsewhere) {
            d.fix = None;
        }
        let file = program.file(d.span.file);
        let (Some(fix), Some(notebook)) = (&d.fix, &file.notebook) else {
            continue;
        };
        let edits: Vec<&gpulint_rules::Edit> = fix.edits.iter().collect();
        let cells = notebook.apply(&file.text, file.lines(), &edits);
        if !matches!(cells, Ok(fixed) if fixed.cells.len() <= 1) {
            d.fix = None;
        }
    }
}

/// What a request checks: standard input, or the files found less those the configuration
/// excludes (a file named on the command line stays, unless `force_exclude`).
pub fn inputs(request: Request, resolver: &mut Resolver) -> anyhow::Result<Vec<Input>> {
    let mut excluded = |path: &PathBuf| -> anyhow::Result<bool> {
        let named = request.named.contains(path) && !request.force_exclude;
        Ok(!named && resolver.excludes(path)?)
    };
    let mut inputs = Vec::new();
    if let Some((path, bytes)) = request.stdin {
        if !(request.force_exclude && excluded(&path)?) {
            inputs.push(Input::Bytes { path, bytes });
        }
    }
    for f in request.found {
        match f {
            Found::File(path) => {
                if !excluded(&path)? {
                    inputs.push(Input::Path(path));
                }
            }
            Found::Error(path, reason) => inputs.push(Input::Unreadable { path, reason }),
        }
    }
    Ok(inputs)
}

/// What parsing a leaf gave besides its model (see `Program::add_leaf_names`).
struct LeafParse {
    /// The names it reads that no other module does.
    names: Vec<String>,
    comments: Vec<Span>,
}

/// The findings of analysing `id` as the main program; they may point into files it imports. A
/// leaf is parsed here (see `Program::parse_leaf`), and what its parse gave is returned too.
fn check_file(
    program: &Program,
    cache: &ImportCache<Analyses>,
    id: FileId,
    settings: Settings,
    verbose: bool,
) -> (
    Result<Vec<Diagnostic>, String>,
    Option<LeafParse>,
    Vec<Span>,
) {
    let file = program.file(id);
    if let Some(error) = program.syntax_error(id) {
        return (Ok(file_error_findings(id, &error)), None, Vec::new());
    }
    let (leaf, parse) = match program.parse_leaf(id) {
        Some(Err(error)) => return (Ok(file_error_findings(id, &error)), None, Vec::new()),
        Some(Ok(lower::Lowered { module, comments })) => (Some(module), Some(comments)),
        None => (None, None),
    };
    let leaf_names = leaf.as_ref().map(semantic::referenced_names);
    let parse = parse
        .zip(leaf_names.as_ref())
        .map(|(comments, names)| LeafParse {
            names: program.names_only_in(names),
            comments,
        });
    let found = match &file.module {
        Err(error) => Ok((file_error_findings(id, error), Vec::new())),
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
                gpulint_rules::check(&analysed.facts, program, gpulint_rules::Language::Python);
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
            (found, unseen.collect())
        }))
        .map_err(panic_message),
    };
    match found {
        Ok((found, unseen)) => (Ok(found), parse, unseen),
        Err(e) => (Err(e), parse, Vec::new()),
    }
}

/// The findings that stand for a file that could not be analysed: why it could not be read or
/// parsed (nothing for a file another frontend checks).
fn file_error_findings(id: FileId, error: &FileError) -> Vec<Diagnostic> {
    match error {
        FileError::Unreadable(reason) => {
            vec![gpulint_rules::unreadable_file(reason, Span::new(id, 0, 0))]
        }
        FileError::Binary { reason, offset } => vec![gpulint_rules::unreadable_file(
            reason,
            Span::new(id, *offset, *offset),
        )],
        FileError::Syntax(err) => vec![gpulint_rules::invalid_syntax(&err.message, err.span)],
        FileError::Foreign => Vec::new(),
    }
}

/// What a caught panic said, for the internal-error report of the file whose check it ended.
pub(crate) fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Where and why a budget cut an analysis short: "`f` (path:line) was not followed further (reason)".
fn describe_cut(program: &Program, cut: &semantic::Cut) -> String {
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

/// Applies each finding's configuration (that of its primary file): selection, per-file ignores,
/// severity. Read and syntax errors are always reported.
fn configure(
    program: &Program,
    resolver: &mut Resolver,
    diagnostics: Vec<Diagnostic>,
) -> anyhow::Result<Vec<Diagnostic>> {
    let mut out = Vec::new();
    for mut d in diagnostics {
        if d.code == "GPU999" {
            out.push(d);
            continue;
        }
        let path = &program.file(d.span.file).path;
        if resolver.reports(path, d.code)? {
            d.severity = resolver.config_for(path)?.severity(d.code, d.severity);
            out.push(d);
        }
    }
    Ok(out)
}

/// Drops findings that a suppression comment in their primary file covers; returns the rest and how
/// many were dropped. Syntax and read errors cannot be suppressed. With `report_unused`, also returns
/// GPU900 for the gpulint codes in the checked files' suppression comments that suppressed nothing.
fn suppress(
    program: &Program,
    diagnostics: Vec<Diagnostic>,
    report_unused: bool,
) -> (Vec<Diagnostic>, usize, Vec<Diagnostic>) {
    let mut directives: HashMap<FileId, Directives> = HashMap::new();
    let mut used: HashMap<FileId, HashSet<noqa::Use>> = HashMap::new();
    let before = diagnostics.len();
    let kept: Vec<Diagnostic> = diagnostics
        .into_iter()
        .filter(|d| {
            if d.code == "GPU999" {
                return true;
            }
            let file = program.file(d.span.file);
            let line = file.lines().line_col(&file.text, d.span.start).line;
            let by = directives
                .entry(d.span.file)
                .or_insert_with(|| Directives::of(file))
                .suppressing(line, d.code);
            match by {
                Some(by) => {
                    used.entry(d.span.file).or_default().insert(by);
                    false
                }
                None => true,
            }
        })
        .collect();
    let dropped = before - kept.len();
    let mut unused = Vec::new();
    if report_unused {
        let none = HashSet::new();
        for (id, file) in program.files().filter(|(_, f)| f.checked) {
            let found = directives
                .remove(&id)
                .unwrap_or_else(|| Directives::of(file));
            unused.extend(found.unused(used.get(&id).unwrap_or(&none), file));
        }
    }
    (kept, dropped, unused)
}

/// One diagnostic per place and rule: two main programs reaching the same fork report it once, with
/// the more severe verdict (the first program, in path order, when they agree).
fn merge(program: &Program, mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics.sort_by(|a, b| {
        let key = |d: &Diagnostic| {
            (
                &program.file(d.span.file).path,
                d.span.start,
                d.span.end,
                d.code,
            )
        };
        // The more severe verdict first; then the one that explains more (found through a caller).
        key(a)
            .cmp(&key(b))
            .then(b.severity.cmp(&a.severity))
            .then(b.related.len().cmp(&a.related.len()))
    });
    let mut seen = HashSet::new();
    diagnostics.retain(|d| seen.insert((d.span, d.code)));
    gpulint_rules::drop_replaced(&mut diagnostics);
    diagnostics
}
