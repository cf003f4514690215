//! Checks files in parallel: read and parse them and the project modules they import (once each),
//! analyse each checked file as a main program, run the rules. A file that cannot be read or parsed
//! becomes a GPU999 diagnostic and the others go on.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

use gpulint_analyses::Analyses;
use gpulint_core::files::{normalize, Files};
use gpulint_core::source::{FileId, Span};
use gpulint_python::known::{Digest, Knowledge, Parsed};
use gpulint_python::program::{Input, Program};
use gpulint_python::semantic::{ImportCache, Settings};
use gpulint_rules::Diagnostic;
use rayon::prelude::*;

mod environment;
mod one;
mod verdicts;

use one::{check_file, FileChecked};
use verdicts::{configure, drop_fixes_that_cannot_apply, merge, suppress};

use crate::cache;
use crate::config::Resolver;
use crate::discover::Found;
use crate::files::RunFiles;

/// What a run produced: the run's files (paths and texts of every file a diagnostic may point
/// into), the findings, and any bug in gpulint itself, by file.
pub struct Checked {
    pub files: RunFiles,
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
    /// Texts an editor holds for other files: an import that reaches one reads it instead of the
    /// file (the language server's open documents).
    pub held: Vec<(PathBuf, String)>,
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
    /// Where this kind of run keeps its cache; `None`: none is read or written.
    pub cache: Option<cache::Store>,
}

/// How a check runs, taken from its request.
struct Run {
    free_memory: bool,
    report_unused_noqa: bool,
    use_baseline: bool,
    /// `GPULINT_TIMINGS`: where the time goes, on standard error.
    timings: bool,
    started: std::time::Instant,
    /// Files the user named (standard input too): checked even when the configuration excludes
    /// them, unless `--force-exclude` took them out of the inputs already.
    named: HashSet<PathBuf>,
    store: Option<cache::Store>,
    /// How each main program is analysed.
    analyse: Analyse,
}

/// How each main program is analysed: see [`check_file`].
#[derive(Clone, Copy)]
struct Analyse {
    verbose: bool,
    /// Keep what parsing a leaf gave, for the cache.
    learn: bool,
    timings: bool,
}

/// What the analyses of the main programs gave.
struct Analysed {
    /// Each main program's findings, with the names its analysis asked about.
    results: Vec<(cache::MainResult, Vec<(String, bool)>)>,
    /// Every text analysed was the one the program was built from: what the run found may be
    /// recorded.
    consistent: bool,
    /// What parsing the leaves gave, for the cache.
    learned_leaves: Vec<(Digest, Parsed)>,
    /// The import caches the analyses ran with.
    caches: Vec<ImportCache<Analyses>>,
}

fn check_in_pool(mut request: Request, mut resolver: Resolver) -> anyhow::Result<Checked> {
    let import_root = request.import_root.clone();
    let store = request.cache.take();
    let mut named: HashSet<PathBuf> = request.named.iter().map(|p| normalize(p)).collect();
    if let Some((path, _)) = &request.stdin {
        named.insert(normalize(path));
    }
    let run = run_of(&request, named, store);
    let (inputs, rust_inputs) = crate::rust::split(inputs(request, &mut resolver)?);
    let environment = match inputs.iter().find_map(input_path) {
        Some(first) => crate::config::find_environment(&mut resolver, first)?,
        None => Default::default(),
    };
    let loaded = crate::rust::read(rust_inputs);
    let native = crate::rust::native_modules(&loaded);
    // The environment read changes what imports resolve to: the cache keeps it with the native
    // modules (nothing changes without one).
    let native_digest =
        environment_digest(crate::rust::native_digest(&native, &loaded), &environment);
    let mut previous = run.store.as_ref().and_then(cache::Store::load);
    let whole = reuse_whole(
        &run,
        &mut previous,
        &inputs,
        native_digest,
        loaded,
        &mut resolver,
    )?;
    let loaded = match whole {
        Ok(checked) => return Ok(checked),
        Err(loaded) => loaded,
    };
    let knowledge = run.store.as_ref().map(|_| {
        Arc::new(
            previous
                .as_ref()
                .map(cache::Previous::knowledge)
                .unwrap_or_default(),
        )
    });
    let input_records = run.store.as_ref().map(|_| cache::input_records(&inputs));
    let mut program =
        Program::build_knowing(inputs, native, import_root, knowledge.clone(), environment);
    let rust = crate::rust::add(loaded, program.files().count() as u32);
    program.remap_native(|f| rust.id(f), |f| rust.path(f));
    // From here on every file of the run is in its table: a Python finding may point into a Rust
    // file (a native module's initialisation).
    let mut files = RunFiles::new(program, rust.first(), rust.files());
    let built = run.started.elapsed();
    let mains = main_programs(files.python(), &run.named, &mut resolver)?;
    let mut plan = run
        .store
        .as_ref()
        .map(|_| cache::Plan::new(previous.as_ref(), files.python(), &mains, native_digest));
    let analysed = analyse_mains(&run, &mut files, mains, &mut plan, &knowledge, built);
    if let (Some(store), Some(plan), Some(inputs), true) =
        (&run.store, &plan, input_records, analysed.consistent)
    {
        store.record(cache::Outcome {
            files: &files,
            inputs,
            native: native_digest,
            plan,
            results: &analysed.results,
            leaves: analysed.learned_leaves,
            previous: knowledge.clone(),
        });
    }
    let mut results: Vec<cache::MainResult> =
        analysed.results.into_iter().map(|(r, _)| r).collect();
    results.extend(rust_results(&rust, &files));
    // Its frozen module states die with the process (at most ten `--fix` rounds keep one each):
    // freeing them piece by piece only costs time.
    if run.free_memory {
        drop(analysed.caches);
    } else {
        std::mem::forget(analysed.caches);
    }
    finish(
        files,
        results,
        &mut resolver,
        run.report_unused_noqa,
        run.use_baseline,
    )
}

/// How the request asks the run to go: its flags, the files it names, and the cache.
fn run_of(request: &Request, named: HashSet<PathBuf>, store: Option<cache::Store>) -> Run {
    let timings = std::env::var_os("GPULINT_TIMINGS").is_some();
    Run {
        free_memory: request.free_memory,
        report_unused_noqa: request.report_unused_noqa,
        use_baseline: request.use_baseline,
        timings,
        started: std::time::Instant::now(),
        named,
        analyse: Analyse {
            verbose: request.verbose,
            learn: store.is_some(),
            timings,
        },
        store,
    }
}

/// Nothing the recorded run read has changed: its findings, reported with today's configuration
/// and comments; the program only restored, for the report. Otherwise `loaded` back.
fn reuse_whole(
    run: &Run,
    previous: &mut Option<cache::Previous>,
    inputs: &[Input],
    native_digest: u128,
    loaded: gpulint_rust::Loaded,
    resolver: &mut Resolver,
) -> anyhow::Result<Result<Checked, gpulint_rust::Loaded>> {
    let Some(prev) = previous.as_mut() else {
        return Ok(Err(loaded));
    };
    let unchanged = prev.unchanged(inputs, native_digest);
    if let (Err(why), true) = (&unchanged, run.timings) {
        eprintln!("gpulint: the cache is not reused whole: {why}");
    }
    let Ok(files) = unchanged else {
        return Ok(Err(loaded));
    };
    let program = Program::restore(files);
    let mains = main_programs(&program, &run.named, resolver)?;
    let Some(mut results) = prev.results_if_same(&mains) else {
        return Ok(Err(loaded));
    };
    let rust = crate::rust::add(loaded, program.files().count() as u32);
    let files = RunFiles::new(program, rust.first(), rust.files());
    results.extend(rust_results(&rust, &files));
    if run.timings {
        eprintln!(
            "gpulint: {} main programs answered from the cache in {:.2?}",
            mains.len(),
            run.started.elapsed()
        );
    }
    if let (Some(prev), Some(store)) = (previous.take(), &run.store) {
        prev.refresh(store);
    }
    finish(
        files,
        results,
        resolver,
        run.report_unused_noqa,
        run.use_baseline,
    )
    .map(Ok)
}

/// Analyses the main programs whose recorded findings do not hold, the leaves first (parsing them
/// gives the names they read, which the other files' analyses need: see `Program::leaf_names`),
/// and takes the recorded findings of the others.
fn analyse_mains(
    run: &Run,
    files: &mut RunFiles,
    mains: Vec<(FileId, Settings)>,
    plan: &mut Option<cache::Plan>,
    knowledge: &Option<Arc<Knowledge>>,
    built: std::time::Duration,
) -> Analysed {
    let (leaves, others): (Vec<_>, Vec<_>) = mains
        .into_iter()
        .partition(|(id, _)| files.python().is_lazy(*id));
    let mut reused_leaves = reusable_leaves(plan, &leaves, files.python(), knowledge.as_deref());
    let stale =
        |id: FileId, plan: &Option<cache::Plan>| plan.as_ref().is_none_or(|p| !p.is_candidate(id));
    let stale_leaves: Vec<(FileId, Settings)> = leaves
        .iter()
        .filter(|(id, _)| stale(*id, plan))
        .cloned()
        .collect();
    let roots: Vec<FileId> = stale_leaves
        .iter()
        .map(|(id, _)| *id)
        .chain(
            others
                .iter()
                .map(|(id, _)| *id)
                .filter(|id| stale(*id, plan)),
        )
        .collect();
    let mut consistent = knowledge.is_none() || materialize(files.python_mut(), &roots);
    // Import-time state does not depend on the start method unless a module forks at import, which
    // the module's own analysis reports.
    let mut caches = vec![import_cache(files.python(), &roots)];
    let frozen = run.started.elapsed() - built;
    // One file a job: with rayon's own splitting, a thread could be left alone at a phase's end
    // with a run of files no other thread could steal from (60–70 ms on transformers).
    let analysed: HashMap<FileId, FileChecked> = stale_leaves
        .into_par_iter()
        .with_max_len(1)
        .map(|f| run.analyse.one(files, &caches[0], f))
        .collect();
    let mut out = Analysed {
        results: Vec::new(),
        consistent: true,
        learned_leaves: Vec::new(),
        caches: Vec::new(),
    };
    let (names, comments) = take_leaves(
        &mut out,
        analysed,
        &leaves,
        plan,
        &mut reused_leaves,
        files.python(),
        knowledge.as_deref(),
    );
    files.python_mut().add_leaf_names(names, comments);
    let late_others = stale_after_leaves(plan, &others, files.python());
    if !late_others.is_empty() {
        consistent &= materialize(files.python_mut(), &late_others);
        caches.push(import_cache(files.python(), &late_others));
    }
    take_others(&mut out, run, files, &others, plan, &caches, &late_others);
    if run.timings {
        print_timings(
            files.python(),
            leaves.len(),
            out.results.len(),
            run.started,
            built,
            frozen,
        );
    }
    out.consistent &= consistent;
    out.caches = caches;
    out
}

/// Each main program other than the leaves: its findings, analysed now (with the import cache
/// of those the leaves' names made stale, for those) or recorded, into `out`.
fn take_others(
    out: &mut Analysed,
    run: &Run,
    files: &RunFiles,
    others: &[(FileId, Settings)],
    plan: &mut Option<cache::Plan>,
    caches: &[ImportCache<Analyses>],
    late_others: &[FileId],
) {
    let stale_others: Vec<(FileId, Settings)> = others
        .iter()
        .filter(|(id, _)| plan.as_ref().is_none_or(|p| !p.is_candidate(*id)))
        .cloned()
        .collect();
    let late: HashSet<FileId> = late_others.iter().copied().collect();
    let mut analysed: HashMap<FileId, FileChecked> = stale_others
        .into_par_iter()
        .with_max_len(1)
        .map(|f| {
            let cache = if late.contains(&f.0) {
                &caches[caches.len() - 1]
            } else {
                &caches[0]
            };
            run.analyse.one(files, cache, f)
        })
        .collect();
    for (id, _) in others {
        match analysed.remove(id) {
            Some(checked) => {
                out.consistent &= checked.consistent;
                out.results
                    .push(((*id, checked.result, checked.unseen), checked.queried));
            }
            None => out.results.push(reused(plan, *id)),
        }
    }
}

/// The leaves whose recorded findings hold, with the names each reads: those whose every name
/// asked about is referenced as before (by itself, or by a file other than the leaves). The plan
/// drops the others.
fn reusable_leaves(
    plan: &mut Option<cache::Plan>,
    leaves: &[(FileId, Settings)],
    program: &Program,
    knowledge: Option<&Knowledge>,
) -> HashMap<FileId, Vec<String>> {
    let mut reused: HashMap<FileId, Vec<String>> = HashMap::new();
    let Some(plan) = plan.as_mut() else {
        return reused;
    };
    for (id, _) in leaves {
        if !plan.is_candidate(*id) {
            continue;
        }
        let Some(own) = known_names(program, knowledge, *id) else {
            plan.reject(*id);
            continue;
        };
        let same = plan.queried(*id).iter().all(|(name, answer)| {
            let referenced = own.binary_search_by(|n| n.as_str().cmp(name)).is_ok()
                || program.is_referenced(name, false);
            referenced == *answer
        });
        if same {
            reused.insert(*id, own.to_vec());
        } else {
            plan.reject(*id);
        }
    }
    reused
}

/// The names the cache knows `id`'s text reads, where it knows its parse.
fn known_names<'a>(
    program: &Program,
    knowledge: Option<&'a Knowledge>,
    id: FileId,
) -> Option<&'a [String]> {
    let digest = program.text_digest(id)?;
    let known = knowledge?.get(&digest)?;
    known.parse.as_ref().map(|p| p.names.as_slice())
}

/// Each leaf's findings, analysed now or recorded, into `out`; returns the names the leaves read
/// that no other file does, and their comments.
#[allow(clippy::type_complexity)]
fn take_leaves(
    out: &mut Analysed,
    mut analysed: HashMap<FileId, FileChecked>,
    leaves: &[(FileId, Settings)],
    plan: &mut Option<cache::Plan>,
    reused_leaves: &mut HashMap<FileId, Vec<String>>,
    program: &Program,
    knowledge: Option<&Knowledge>,
) -> (rustc_hash::FxHashSet<String>, Vec<(FileId, Vec<Span>)>) {
    let mut names = rustc_hash::FxHashSet::default();
    let mut comments = Vec::new();
    for (id, _) in leaves {
        match analysed.remove(id) {
            Some(checked) => {
                if let Some(leaf) = checked.leaf {
                    names.extend(leaf.names);
                    comments.push((*id, leaf.comments));
                }
                out.consistent &= checked.consistent;
                out.learned_leaves.extend(checked.summary);
                out.results
                    .push(((*id, checked.result, checked.unseen), checked.queried));
            }
            None => {
                let (result, queried) = reused(plan, *id);
                let own = reused_leaves.remove(id).unwrap_or_default();
                let own: HashSet<&str> = own.iter().map(String::as_str).collect();
                names.extend(program.names_only_in(&own.into_iter().collect()));
                let known = program
                    .text_digest(*id)
                    .and_then(|d| knowledge?.get(&d)?.parse.clone());
                if let Some(parsed) = known {
                    let spans = parsed
                        .comments
                        .iter()
                        .map(|(start, end)| Span::new(*id, *start, *end))
                        .collect();
                    comments.push((*id, spans));
                }
                out.results.push((result, queried));
            }
        }
    }
    (names, comments)
}

/// The files imported by others whose recorded findings no longer hold now that the leaves'
/// names are known (a name one asked about is referenced otherwise than before): dropped from the
/// plan, to be analysed with an import cache of their own.
fn stale_after_leaves(
    plan: &mut Option<cache::Plan>,
    others: &[(FileId, Settings)],
    program: &Program,
) -> Vec<FileId> {
    let mut late = Vec::new();
    let Some(plan) = plan.as_mut() else {
        return late;
    };
    for (id, _) in others {
        if !plan.is_candidate(*id) {
            continue;
        }
        let same = plan
            .queried(*id)
            .iter()
            .all(|(name, answer)| program.is_referenced(name, true) == *answer);
        if !same {
            plan.reject(*id);
            late.push(*id);
        }
    }
    late
}

/// `GPULINT_TIMINGS`: how many files were parsed where, and where the time went.
fn print_timings(
    program: &Program,
    leaf_count: usize,
    results: usize,
    started: std::time::Instant,
    built: std::time::Duration,
    frozen: std::time::Duration,
) {
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
        "gpulint: {results} checked + {imported} imported files; read and parsed in {built:.2?}, imports run in {frozen:.2?}, analysed in {:.2?}",
        started.elapsed() - built - frozen
    );
}

impl Analyse {
    /// Analyses main program `id` with `settings`, naming what it found and how long it took
    /// under `GPULINT_TIMINGS`.
    fn one(
        self,
        files: &RunFiles,
        cache: &ImportCache<Analyses>,
        (id, settings): (FileId, Settings),
    ) -> (FileId, FileChecked) {
        let start = std::time::Instant::now();
        let checked = check_file(files, cache, id, settings, self.verbose, self.learn);
        if self.timings {
            for d in checked.result.iter().flatten() {
                eprintln!(
                    "gpulint: {} {} found by analysing {}",
                    d.code,
                    files.path(d.span.file).display(),
                    files.path(id).display()
                );
            }
        }
        if self.timings && start.elapsed().as_millis() >= 100 {
            eprintln!(
                "gpulint: {} took {:.2?}",
                files.path(id).display(),
                start.elapsed()
            );
        }
        (id, checked)
    }
}

/// The checked files each analysed as a main program, with their settings: every checked Python
/// file and notebook (the program holds no other language's files), but excluded ones that
/// reached the program only as imports that do not parse (the configuration's word wins; a named
/// file is checked).
fn main_programs(
    program: &Program,
    named: &HashSet<PathBuf>,
    resolver: &mut Resolver,
) -> anyhow::Result<Vec<(FileId, Settings)>> {
    let mut checked: Vec<(FileId, Settings)> = Vec::new();
    for (id, file) in program.files().filter(|(_, f)| f.checked) {
        // Excluded files reach this only when named, or imported and unparsable (checked so that
        // their error is said): the configuration's word wins over the second.
        let path = normalize(&file.path);
        if !named.contains(&path) && resolver.excludes(&path)? {
            continue;
        }
        checked.push((id, resolver.settings_for(&file.path)?));
    }
    Ok(checked)
}

/// Parses the deferred files the analyses of `roots` can read (see `gpulint_python::known`);
/// `false` when one changed since the program was built.
fn materialize(program: &mut Program, roots: &[FileId]) -> bool {
    let mut needed = program.imported_from(roots.iter().copied());
    needed.extend(roots.iter().copied());
    program.materialize(&needed)
}

/// The import cache for the analyses of `roots`; a bug while running imports leaves it empty, and
/// analyses run every import themselves instead.
fn import_cache(program: &Program, roots: &[FileId]) -> ImportCache<Analyses> {
    catch_unwind(AssertUnwindSafe(|| {
        ImportCache::<Analyses>::build_for(program, Settings::default(), roots)
    }))
    .unwrap_or_else(|_| {
        eprintln!("gpulint: internal error while running imported modules (please report this)");
        ImportCache::default()
    })
}

/// The recorded findings of a main program the cache's plan reused instead of analysing it, and
/// the names it asked about. Only planned files are left unanalysed, so both are there; were one
/// missing, the file is named with an internal error rather than passed as clean.
fn reused(plan: &mut Option<cache::Plan>, id: FileId) -> (cache::MainResult, Vec<(String, bool)>) {
    let recorded = plan
        .as_mut()
        .and_then(|plan| Some((plan.queried(id).to_vec(), plan.take(id)?)));
    match recorded {
        Some((queried, result)) => (result, queried),
        None => (
            (
                id,
                Err("the cache's plan lost this file's findings (please report this)".into()),
                Vec::new(),
            ),
            Vec::new(),
        ),
    }
}

/// The Rust frontend's findings, with the unseen places it has none of.
fn rust_results(rust: &crate::rust::Rust, files: &RunFiles) -> Vec<cache::MainResult> {
    crate::rust::check(rust, files)
        .into_iter()
        .map(|(id, result)| (id, result, Vec::new()))
        .collect()
}

/// Merges, configures and suppresses the main programs' findings, and counts what fails the run.
fn finish(
    files: RunFiles,
    results: Vec<cache::MainResult>,
    resolver: &mut Resolver,
    report_unused_noqa: bool,
    use_baseline: bool,
) -> anyhow::Result<Checked> {
    let mut diagnostics = Vec::new();
    let mut internal_errors = Vec::new();
    let mut not_followed = rustc_hash::FxHashSet::default();
    for (id, result, unseen) in results {
        not_followed.extend(unseen);
        match result {
            Ok(found) => diagnostics.extend(found),
            Err(message) => internal_errors.push((files.path(id).to_path_buf(), message)),
        }
    }
    let diagnostics = configure(&files, resolver, merge(&files, diagnostics))?;
    let (mut diagnostics, suppressed, unused) = suppress(&files, diagnostics, report_unused_noqa);
    // GPU900 findings are configured like any other.
    diagnostics.extend(configure(&files, resolver, unused)?);
    let (diagnostics, baselined) = match use_baseline {
        true => crate::baseline::hide(&files, resolver, diagnostics)?,
        false => (diagnostics, 0),
    };
    let mut diagnostics = diagnostics;
    drop_fixes_that_cannot_apply(&files, &mut diagnostics);
    let mut failing = 0;
    for d in &diagnostics {
        if d.severity >= resolver.fail_on_for(files.path(d.span.file))? {
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
        files,
        internal_errors,
    })
}

/// The path an input names, if it names a file to check.
fn input_path(input: &Input) -> Option<&std::path::Path> {
    match input {
        Input::Path(path) | Input::Text { path, .. } | Input::Bytes { path, .. } => Some(path),
        Input::Unreadable { .. } | Input::Held { .. } => None,
    }
}

/// `native` with the environment's site-packages folders mixed in; `native` itself without one.
fn environment_digest(native: u128, environment: &gpulint_python::program::Environment) -> u128 {
    if environment.is_empty() {
        return native;
    }
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&native.to_le_bytes());
    for root in environment.site_packages() {
        h.update(root.as_os_str().as_encoded_bytes());
        h.update(&[0]);
    }
    h.digest128()
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
    inputs.extend(
        request
            .held
            .into_iter()
            .map(|(path, text)| Input::Held { path, text }),
    );
    Ok(inputs)
}
