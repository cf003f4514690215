//! The semantic model: an abstract interpreter that runs a module in program order, following calls
//! into the program's own functions and classes, and reports what happens as effects to the
//! analyses (`A: Analysis`), which it drives without knowing them.
//!
//! It models, per simulated process, the CUDA state (clean, driver- or context-initialised), the
//! start method of each multiprocessing layer, the environment and the device binding; and per
//! value, what the effects need (strings, devices, CUDA tensors and models, contexts, pools,
//! loaders). Child processes are run as processes of their own: a forked child inherits the parent's
//! state and objects, a spawned one re-imports the module first.

mod bindings;
mod branches;
mod budget;
mod calls;
mod children;
mod class_table;
mod control;
mod decide;
mod entry;
mod environment;
mod expressions;
mod forking_calls;
mod frozen;
mod heap;
mod held;
mod imports;
mod interp;
mod launch;
mod loaders;
mod spelling;
mod statements;
pub use launch::documented_nodes;
mod library;
mod memo;
mod names;
mod one_rank;
mod pickling;
mod process;
mod remainder;
mod returns;
#[cfg(test)]
mod tests;
mod threads;
mod trail;
pub mod value;
mod with_stmt;
mod workers;
mod world;

pub use frozen::ImportCache;
pub use names::{
    imports_gpu_library, is_gpu_module, is_main_guard, is_type_checking, referenced_names,
};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context};
use gpulint_core::effect::{CudaInitSite, CudaObject, DefaultContextCall, Effect};

use crate::libraries::processes::StartMethod;
use crate::model::{Class, ClassId, FuncId, Function, Module};
use crate::program::Program;
use crate::source::{FileId, Span};
use entry::EntryBase;
use process::Process;
use value::{Captures, Name, ObjId, Value};

/// Analysis settings that change verdicts.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The start method a default context uses (Linux before Python 3.14: fork).
    pub default_start_method: StartMethod,
    /// The Python version the code runs on (`major.minor`).
    pub python: crate::target::PythonVersion,
    /// The server the project runs its web application under, where it imports the application
    /// in its master and then forks the workers (gunicorn's `preload_app = True` or `--preload`,
    /// uWSGI without `lazy-apps`): request handlers run in children forked after the application
    /// module's import. Its launcher words the findings.
    pub preloading_server: Option<&'static gpulint_core::effect::Launcher>,
    /// The versions of its dependencies the project declares.
    pub requirements: crate::requirements::Requirements,
    /// How the project's launch scripts (or the file's own usage text) run this file as a job: on
    /// one machine or several; `None` where nothing says.
    pub documented_launch: Option<gpulint_core::effect::Nodes>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            default_start_method: StartMethod::Fork,
            python: crate::target::PythonVersion::DEFAULT,
            preloading_server: None,
            requirements: Default::default(),
            documented_launch: None,
        }
    }
}

/// Runs the semantic model with `file` as the main program: its imports of the program's other
/// modules run their top levels, and calls follow into them. Facts may point into any file.
pub fn analyze<A: Analysis>(
    program: &Program,
    cache: &ImportCache<A>,
    file: FileId,
    settings: Settings,
) -> A::Facts {
    analyze_bounded(program, cache, file, settings).facts
}

/// What an analysis found, and where its budgets cut it short.
#[derive(Default)]
pub struct Analysed<F> {
    pub facts: F,
    /// Empty when nothing was cut: the facts are those of the whole program.
    pub cuts: Vec<Cut>,
    /// The names the analysis asked whether the program references anywhere (to choose its entry
    /// points), with the answers: besides the files it reads, what its facts depend on.
    pub queried: Vec<(String, bool)>,
    /// Each place in an installed package that an effect was moved from, with the project's call
    /// it was moved to (see `environment`), in the order they happened.
    pub crossings: Vec<(Span, Span)>,
}

/// [`analyze`], with the places where a budget cut the analysis short.
pub fn analyze_bounded<A: Analysis>(
    program: &Program,
    cache: &ImportCache<A>,
    file: FileId,
    settings: Settings,
) -> Analysed<A::Facts> {
    match program.parse_leaf(file) {
        Some(Ok(leaf)) => {
            let names = referenced_names(&leaf.module);
            analyze_leaf(program, cache, file, settings, &leaf.module, &names)
        }
        Some(Err(_)) => Analysed::default(),
        None if program.is_relevant(file) && program.module(file).is_some() => {
            interpret(program, cache, file, settings, None)
        }
        None => Analysed::default(),
    }
}

/// [`analyze_bounded`] for a leaf (see [`Program::parse_leaf`]), given its model and the names it
/// reads ([`referenced_names`]).
pub fn analyze_leaf<A: Analysis>(
    program: &Program,
    cache: &ImportCache<A>,
    file: FileId,
    settings: Settings,
    module: &Module,
    names: &HashSet<&str>,
) -> Analysed<A::Facts> {
    if !program.leaf_is_relevant(file, module) {
        return Analysed::default();
    }
    interpret(program, cache, file, settings, Some((module, names)))
}

/// Runs the interpreter on `file` as the main program (with its model and names, for a leaf).
fn interpret<A: Analysis>(
    program: &Program,
    cache: &ImportCache<A>,
    file: FileId,
    settings: Settings,
    leaf: Option<(&Module, &HashSet<&str>)>,
) -> Analysed<A::Facts> {
    let mut interp = Interp::new(program, cache, file, settings, leaf);
    interp.run();
    let mut queried = interp.queried;
    queried.sort_unstable();
    queried.dedup();
    Analysed {
        facts: interp.facts,
        cuts: interp.budget.cuts,
        queried,
        crossings: interp.crossings,
    }
}

/// Objects with identity, which calls and later statements refer to.
#[derive(Clone, Debug)]
enum Object {
    Instance {
        class: ClassId,
        attrs: HashMap<Name, Value>,
        /// The module state that holds it (a global, a class attribute), once stored there.
        held_by: Option<held::Holder>,
    },
    Process {
        target: Value,
        /// The `target` argument, where the child is handed it.
        target_span: Option<Span>,
        args: Vec<Value>,
        start: Option<(StartMethod, Span)>,
        layer: crate::libraries::processes::Layer,
        made_by: Option<DefaultContextCall>,
    },
    Pool {
        span: Span,
        start: Option<(StartMethod, Span)>,
        layer: crate::libraries::processes::Layer,
        made_by: Option<DefaultContextCall>,
        /// The parent's CUDA state when the workers were forked.
        forked_with: Option<CudaInitSite>,
        /// What the analyses knew of the parent when the workers were forked (a
        /// `gpulint_core::analysis::Shared<A>`, type-erased so that objects need not know the
        /// analyses): each task runs in a worker forked then, not when the task is handed over.
        forked_from: Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
        /// Workers are replaced later (`maxtasksperchild`), forked from the parent as it is then.
        refork: bool,
        /// The initializer each worker runs before its tasks, and its arguments.
        initializer: Option<(Value, Vec<Value>)>,
    },
    Executor {
        span: Span,
        start: Option<(StartMethod, Span)>,
        made_by: Option<DefaultContextCall>,
        started_with: Option<Option<CudaInitSite>>,
        /// The initializer each worker runs before its tasks, and its arguments.
        initializer: Option<(Value, Vec<Value>)>,
    },
    Loader {
        span: Span,
        dataset: Value,
        collate: Value,
        worker_init: Value,
        workers: bool,
        start: Option<(StartMethod, Span)>,
        /// What each worker is handed (the dataset, `collate_fn`, `worker_init_fn`), with the
        /// argument that gave it.
        handed: Vec<(Value, Span, gpulint_core::effect::Handed)>,
        /// Each worker limits the intra-op thread pool to one thread first.
        one_thread: bool,
        /// Made with `pin_memory=True` here: its iterator pins through the current device.
        pins: Option<Span>,
        /// The child, once run: its final state and the batch it yields. Type-erased so that
        /// objects need not know the analyses; see `children::CachedChild`.
        child: Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
    },
    /// A dataset from a library, with its transforms (`torchvision.datasets.ImageFolder(transform=...)`).
    LibraryDataset {
        transforms: Vec<Value>,
    },
    /// A dataset whose items index the CUDA objects it holds (`TensorDataset(x, y)`), each with the
    /// argument's span and name. Called (a worker fetching an item), it reads each.
    ArgumentsDataset {
        name: String,
        held: Vec<(CudaObject, Span, String)>,
    },
    /// `transforms.Compose([...])`: calling it calls each.
    Compose(Vec<Value>),
    Partial {
        func: Value,
        args: Vec<Value>,
    },
    /// What a `Behaviour::Defers` row returned: calling it makes a partial of this callable.
    Deferred(Value),
    /// What a `ForksWorkers` row that forks at a method returned, with what its arguments
    /// decided: where the workers run, and whether `OnDevices` workers compute on the GPU.
    Forking {
        call: &'static crate::libraries::processes::launchers::ForkingCall,
        workers: forking_calls::Workers,
        on_gpu: bool,
    },
    /// What `os.fork()` returned.
    ForkResult {
        span: Span,
    },
    /// A dataset whose `map`/`filter` fork workers (`Behaviour::ForkingDataset`).
    ForkingDataset,
    /// An object holding the process's per-rank device (`Behaviour::BindsDeviceUnderLauncher`).
    DeviceOwner,
    /// A thread (`Behaviour::StartsThread`): pickle refuses it; started, it runs `target(*args)`.
    Thread {
        span: Span,
        what: String,
        target: Value,
        args: Vec<Value>,
    },
    /// An object `pickle` refuses (`Behaviour::Unpicklable`): where it was made, and what it is.
    Unpicklable {
        span: Span,
        what: String,
    },
    /// A queue, a pipe's connection or a manager's proxy: what is put in it goes to another
    /// process.
    Channel(gpulint_core::effect::Channel),
    /// A manager, whose methods make proxies.
    Manager,
}

/// How the usage lines of a module's docstring launch it (`torchrun --nproc_per_node=2 this.py`).
fn usage_launch(module: &Module, path: &std::path::Path) -> Option<gpulint_core::effect::Nodes> {
    let name = path.file_name()?.to_str()?;
    documented_nodes(module.docstring.as_deref()?, name)
}

/// A place where a budget cut the analysis short.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The function whose calls were not followed, and its definition.
    pub function: String,
    pub span: Span,
    pub reason: &'static str,
    /// The function was analysed often enough in this process already: its calls were seen, only
    /// not again. Otherwise its code was never reached (see `Effect::NotFollowed`).
    pub repeat: bool,
}

/// A function or a class, where it matters which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Definition {
    Function(FuncId),
    Class(ClassId),
}

/// A scope's bindings, shared until written (branches snapshot them).
type Scope = Arc<HashMap<Name, Value>>;

struct Frame {
    func: FuncId,
    locals: Scope,
    declared_global: HashSet<String>,
    captures: Option<Captures>,
    returns: Value,
    /// The call that entered the frame, if the interpreter made it from a call expression.
    called_at: Option<Span>,
    /// Locals whose value is exact on every path that reached here: bound from a literal default
    /// the caller left, or assigned a literal, and not written on a branch joined since (see
    /// `decide`). Joins keep a constant from one path where the other knows nothing, so a value
    /// alone does not say it is exact.
    exact: Vec<(Name, Value)>,
}

// Work bounds. Each is per program point, so that no early part of a file can use up the
// analysis of a later one: a cut costs precision where it happens, never the rest of the file.
/// Steps one module-level statement may take (with all it calls).
const STATEMENT_FUEL: u64 = 200_000;
/// Steps one entry point (a function nobody calls) may take.
const ENTRY_FUEL: u64 = 20_000;
/// Steps one child process may take.
const CHILD_FUEL: u64 = 100_000;
/// How often one fork point starts its child in one process (a loop's second pass is the one that
/// matters: epoch 2 forks after epoch 1 initialised CUDA).
const CHILDREN_PER_FORK_POINT: u32 = 4;
/// How many of the main module's registered tasks are run in a task worker's children.
const MAX_FORKED_TASKS: usize = 16;
/// How often one function is analysed in one process; later calls take its last result (their
/// effects are not seen again). Bounds call trees, fans and recursion cliques.
const CALLS_PER_FUNCTION: u32 = 32;
const MAX_CALL_DEPTH: usize = 64;
const MAX_PROCESS_DEPTH: usize = 4;
const MAX_LOOP_DEPTH: u32 = 3;

struct Interp<'m, A: Analysis> {
    p: &'m Program,
    /// The main module's model when the program does not hold it (a leaf, parsed by its analysis).
    main_module: Option<&'m Module>,
    /// The names that model reads ([`referenced_names`]).
    leaf_names: Option<&'m HashSet<&'m str>>,
    /// The builtins read so far, by name (see `Interp::builtin`).
    builtins: HashMap<&'m str, Value>,
    cache: &'m ImportCache<A>,
    /// Modules imported by running their top level even when the cache has them (the import cycle
    /// being frozen).
    run_directly: HashSet<FileId>,
    /// While freezing an import: what its top level read of the process context (see
    /// `frozen::ContextReads`), so that the frozen import is reused only where that reads the same.
    context_reads: Option<std::cell::RefCell<frozen::ContextReads>>,
    /// The file run as `__main__`.
    main: FileId,
    /// The module whose globals the running code sees.
    cur: FileId,
    settings: Settings,
    /// The program's shared state; every write of it goes through its methods, which tell the
    /// memo (see `world`).
    world: world::World,
    frames: Vec<Frame>,
    /// Project modules that are a modelled library's own (checked from its sources), by their
    /// absolute name: their public API keeps the library's rows (see `imports`).
    library_modules: HashMap<crate::program::NodeId, std::sync::Arc<str>>,
    /// The call expression being called, for the frame it enters (`Frame::called_at`).
    pending_call: Option<Span>,
    /// The right-hand side of the assignment statement whose targets are being bound.
    assigned_from: Option<&'m crate::model::Expr>,
    /// The statement of the main module's top level that is running (`Context::main_statement`).
    main_statement: Option<Span>,
    /// `Context::calls` of the effect being emitted (a buffer kept between effects).
    call_sites: Vec<Option<Span>>,
    /// The bindings written since the open branches began (see `trail`); it goes with `frames`.
    trail: trail::Trail,
    /// The process stack; the last is the one running.
    procs: Vec<Process<A>>,
    next_process: u32,
    entered: HashSet<FuncId>,
    /// The flags that steer how the running code runs (see `control`).
    control: control::Control,
    /// The work bounds, as they are spent (see `budget`).
    budget: budget::Budget,
    /// What the main program leaves for its entry points and children (see `entry`).
    entry: entry::EntryState<A>,
    /// The calls an `Answers` row answered while the running `if` test was evaluated, by span
    /// (see `decide`).
    answered: Vec<(Span, bool)>,
    import_depth: usize,
    /// The `os.fork()` calls evaluated so far.
    fork_calls: HashSet<Span>,
    /// Calls recorded for replay, and what tells a pure one (see `memo`).
    memo: memo::Memo<A>,
    /// The process states of the paths that returned from the running function, joined at its end.
    returned: Option<Process<A>>,
    /// The names `run` asked whether the program references, with the answers (see
    /// `Analysed::queried`).
    queried: Vec<(String, bool)>,
    /// Places in installed packages moved to the project's call (see `environment`).
    crossings: Vec<(Span, Span)>,
    /// For each child running, the project's call that ran the package code starting it.
    child_package_calls: Vec<Option<Span>>,
    facts: A::Facts,
}

impl<'m, A: Analysis> Interp<'m, A> {
    fn new(
        p: &'m Program,
        cache: &'m ImportCache<A>,
        main: FileId,
        settings: Settings,
        leaf: Option<(&'m Module, &'m HashSet<&'m str>)>,
    ) -> Self {
        Interp {
            p,
            main_module: leaf.map(|(m, _)| m),
            leaf_names: leaf.map(|(_, n)| n),
            builtins: HashMap::default(),
            cache,
            run_directly: HashSet::default(),
            context_reads: None,
            main,
            cur: main,
            settings,
            world: world::World::new(),
            frames: Vec::new(),
            pending_call: None,
            assigned_from: None,
            main_statement: None,
            library_modules: HashMap::default(),
            call_sites: Vec::new(),
            trail: Default::default(),
            procs: vec![Process::default()],
            next_process: 1,
            entered: HashSet::default(),
            answered: Vec::new(),
            import_depth: 0,
            fork_calls: HashSet::default(),
            control: control::Control::default(),
            budget: budget::Budget::new(),
            entry: entry::EntryState::new(p.is_interactive(main)),
            memo: memo::Memo::default(),
            returned: None,
            queried: Vec::new(),
            crossings: Vec::new(),
            child_package_calls: Vec::new(),
            facts: A::Facts::default(),
        }
    }

    /// A module's model: the program's, or the main module's own when the program does not hold it.
    fn module(&self, file: FileId) -> Option<&'m Module> {
        match self.main_module {
            Some(m) if file == self.main => Some(m),
            _ => self.p.module(file),
        }
    }

    fn func(&self, id: FuncId) -> &'m Function {
        self.module(id.file)
            .expect("function ids come from parsed modules")
            .function(id)
    }

    fn class(&self, id: ClassId) -> &'m Class {
        self.module(id.file)
            .expect("class ids come from parsed modules")
            .class(id)
    }

    /// A global of the running module.
    fn global(&self, name: &str) -> Option<&Value> {
        self.world.globals().get(&self.cur)?.get(name)
    }

    fn scope_mut(&mut self) -> &mut HashMap<Name, Value> {
        let cur = self.cur;
        Arc::make_mut(self.world.globals_mut().entry(cur).or_default())
    }

    fn proc(&mut self) -> &mut Process<A> {
        self.procs
            .last_mut()
            .expect("the process stack is never empty")
    }

    fn proc_ref(&self) -> &Process<A> {
        self.procs.last().expect("the process stack is never empty")
    }

    /// The running process, read for its context as a whole (its environment, bound device or
    /// default CUDA device): a frozen import that did is reused only in a clean process.
    fn context(&self) -> &Process<A> {
        self.note_read(frozen::Read::Whole);
        self.proc_ref()
    }

    /// The value of `key` in the process's environment, noted as read (see `Interp::context`).
    fn env_var(&self, key: &str) -> Option<&String> {
        let value = self.proc_ref().env.get(key);
        self.note_read(frozen::Read::Env(key.to_string(), value.cloned()));
        value
    }

    /// Whether the device is bound in this process, noted as read (see `Interp::context`).
    fn device_bound(&self) -> bool {
        let bound = self.proc_ref().bound.is_some();
        self.note_read(frozen::Read::Bound(bound));
        bound
    }

    /// Whether a default CUDA device is set in this process, noted as read.
    fn default_cuda_set(&self) -> bool {
        let set = self.proc_ref().default_cuda.is_some();
        self.note_read(frozen::Read::DefaultCuda(set));
        set
    }

    /// Notes a read of the context while freezing an import (see `frozen::ContextReads`).
    fn note_read(&self, read: frozen::Read) {
        if let Some(reads) = &self.context_reads {
            reads.borrow_mut().read(read);
        }
    }

    fn new_process_id(&mut self) -> u32 {
        self.next_process += 1;
        self.next_process
    }

    /// The module as the main program, then every function nobody in it calls, as an entry of its own.
    fn run(&mut self) {
        let Some(m) = self.module(self.main) else {
            return;
        };
        self.budget.statement_budgets = true;
        let main = self.p.file(self.main);
        let start = Span::new(self.main, 0, 0);
        if crate::libraries::processes::is_test_module(&main.path, main.in_test_folder) {
            self.launched(start, gpulint_core::effect::Nodes::One);
        } else if let Some(nodes) = self
            .settings
            .documented_launch
            .or_else(|| usage_launch(m, &main.path))
        {
            self.launched(start, nodes);
        }
        self.entry.main_guard = names::trailing_main_guard(&m.body);
        self.exec_module(self.main);
        self.budget.statement_budgets = false;
        self.run_forked_tasks();
        self.run_server_hooks();
        let main = self.procs.pop().unwrap_or_default();
        // Entry points are called from outside (a console script, a test runner, a library's
        // user) after an import of the module, where the main guard's body does not run.
        let (world, end_of_main) = self
            .entry
            .import_state
            .take()
            .unwrap_or_else(|| (self.world.save(), main.clone()));
        let mut base = EntryBase {
            world,
            end_of_main,
            receivers: HashMap::default(),
        };
        self.finish_process(main);
        // A function named anywhere in the program has a caller that may bind what it needs. A
        // leaf's functions can be called only from the leaf itself: no module imports it.
        let (own, program) = (self.leaf_names, self.p);
        let queried = std::cell::RefCell::new(Vec::new());
        let referenced = |name: &str| {
            let answer = match own {
                Some(own) => own.contains(name) || program.is_referenced(name, false),
                None => program.is_referenced(name, true),
            };
            queried.borrow_mut().push((name.to_string(), answer));
            answer
        };
        self.memo.enabled = true;
        // From a plain process (not a worker, not a child), an entry that can reach no decisive
        // call completes no hazard: it is not run (see `crate::reach`).
        let end = &base.end_of_main;
        let plain = !end.per_worker
            && end.child_of.is_none()
            && !end.spawned
            && !end.reimport
            && end.bound.is_none()
            && end.launcher_binding.is_none();
        let reaches = plain.then(|| self.p.reach().functions(m));
        let mut skipped = [false; 2];
        for partial in [false, true] {
            for index in 0..m.functions.len() as u32 {
                let id = FuncId {
                    file: self.main,
                    index,
                };
                let func = self.func(id);
                // `Backend()` calls `Backend.__init__`: a class named somewhere has callers of its
                // implicitly called methods.
                let implicit_caller = func.name.starts_with("__")
                    && func
                        .class
                        .is_some_and(|c| referenced(self.class(c).name.as_str()));
                let is_root = !referenced(func.name.as_str()) && !implicit_caller;
                if !self.entered.contains(&id) && func.name != "<lambda>" && is_root != partial {
                    let inert = reaches
                        .as_deref()
                        .is_some_and(|r| !crate::reach::reaches(r, id))
                        && names::narrowing_decorator(self, id).is_none();
                    if inert {
                        skipped[partial as usize] = true;
                    } else {
                        self.run_entry(id, partial, &mut base);
                    }
                }
            }
        }
        self.finish_skipped(skipped, &base);
        self.queried = queried.into_inner();
    }

    /// The names function `id` may read from enclosing scopes (see `names::free_names`).
    fn free_names(&self, id: FuncId) -> Arc<Vec<String>> {
        let Some(module) = self.module(id.file) else {
            return Arc::default();
        };
        let cell = &module.function(id).names.free;
        Arc::clone(cell.get_or_init(|| Arc::new(names::free_names(module, id))))
    }

    /// The module globals function `id` binds or changes in place (see `names::written_globals`).
    fn written_globals(&self, id: FuncId) -> Arc<Vec<String>> {
        let Some(module) = self.module(id.file) else {
            return Arc::default();
        };
        let cell = &module.function(id).names.written_globals;
        Arc::clone(cell.get_or_init(|| Arc::new(names::written_globals(module, id))))
    }

    /// The names function `id` calls directly, found once and shared like `written_globals`.
    fn called_names(&self, id: FuncId) -> Arc<Vec<String>> {
        let Some(module) = self.module(id.file) else {
            return Arc::default();
        };
        let cell = &module.function(id).names.called;
        Arc::clone(cell.get_or_init(|| Arc::new(names::called_names(module, id))))
    }

    fn alloc(&mut self, object: Object) -> Value {
        Value::Object(self.world.alloc(object))
    }

    fn object(&self, value: &Value) -> Option<&Object> {
        match value.primary() {
            Value::Object(id) => self.world.object(*id),
            _ => None,
        }
    }

    /// An object, to write (telling the memo; see `world`).
    fn object_mut(&mut self, id: ObjId) -> Option<&mut Object> {
        self.world.object_mut(id)
    }

    /// Reports an effect to the running process's analyses.
    fn emit(&mut self, mut effect: Effect) {
        self.memo.emits += 1;
        self.place_in_project(&mut effect);
        self.call_sites.clear();
        self.call_sites
            .extend(self.frames.iter().map(|f| f.called_at));
        let cx = Context {
            function: self.frames.last().map(|f| self.func(f.func).name_span),
            one_rank: self.control.one_rank_depth > 0,
            calls: &self.call_sites,
            main_statement: self.main_statement,
        };
        let process = self
            .procs
            .last_mut()
            .expect("the process stack is never empty");
        process.analyses.effect(&effect, &cx, &mut self.facts);
    }

    /// A process ended: its analyses emit what its end decides.
    fn finish_process(&mut self, process: Process<A>) {
        let end = process.end();
        process.analyses.finish(&end, &mut self.facts);
    }
}
