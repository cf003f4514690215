//! Probes of the behaviour kinds of the standard library's rows (`libraries/python.rs`): the
//! environment, conversions, iteration, callables and pickling.

use super::*;

/// The probes of a row that does `DictOfKeywords`.
pub(crate) fn dict_of_keywords(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![Probe::new(
        "holds its keywords for `**`",
        p(py(&[&format!(
            "t = torch.zeros(1, **{x}(device='cuda:1'))"
        )])),
    )
    .has("a tensor on cuda:1", object(CUDA_1))]
}

/// The probes of a row that does `Partial`.
pub(crate) fn partial(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![Probe::new(
        "binds leading arguments",
        p(py(&[
            "def make(v):",
            "    return torch.zeros(1, device=v)",
            &format!("f = {x}(make, 'cuda:1')"),
            "t = f()",
        ])),
    )
    .has("a tensor on cuda:1", object(CUDA_1))]
}

/// The probes of a row that does `ReadsEnv`.
pub(crate) fn reads_env(c: &Callee, key: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    let read = |k: &str| format!("v = {}", call(x, &[(key, k)]));
    vec![
        Probe::new(
            "reads a rank variable",
            p(py(&[&read("'LOCAL_RANK'"), "t = torch.zeros(1, device=v)"])),
        )
        .has("a tensor on a per-worker device", object(PER_WORKER)),
        Probe::new(
            "reads what the program wrote",
            p(py(&[
                "os.environ['WHERE'] = 'cuda:1'",
                &read("'WHERE'"),
                "t = torch.zeros(1, device=v)",
            ])),
        )
        .has("a tensor on cuda:1", object(CUDA_1)),
    ]
}

/// The probes of a row that does `WritesEnv`.
pub(crate) fn writes_env(c: &Callee, key: Param, value: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![Probe::new(
        "writes the environment",
        p(py(&[
            &call(x, &[(key, "'WHERE'"), (value, "'cuda:1'")]),
            "v = os.environ['WHERE']",
            "t = torch.zeros(1, device=v)",
        ])),
    )
    .has("EnvWritten WHERE=cuda:1", written_as("WHERE", "cuda:1"))
    .has("a tensor on the device read back", object(CUDA_1))]
}

/// The probes of a row that does `RemovesEnv`.
pub(crate) fn removes_env(c: &Callee, key: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![Probe::new(
        "removes what the program wrote",
        p(py(&[
            "os.environ['WHERE'] = 'cuda:1'",
            &call(x, &[(key, "'WHERE'")]),
            "v = os.environ.get('WHERE', 'cpu')",
            "t = torch.zeros(1, device=v)",
        ])),
    )
    .has(
        "EnvWritten WHERE=cuda:1 (control)",
        written_as("WHERE", "cuda:1"),
    )
    .lacks("a tensor on cuda:1", object(CUDA_1))]
}

/// The probes of a row that does `Environ`.
pub(crate) fn environ(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
        Probe::new(
            "written by subscript",
            p(py(&[&format!("{x}['WHERE'] = 'cuda:1'")])),
        )
        .has("EnvWritten WHERE", written("WHERE")),
        Probe::new(
            "read by subscript",
            p(py(&[
                &format!("v = {x}['LOCAL_RANK']"),
                "t = torch.zeros(1, device=v)",
            ])),
        )
        .has("a tensor on a per-worker device", object(PER_WORKER)),
    ]
}

/// The probes of a row that does `Converts`.
pub(crate) fn converts(c: &Callee, to_int: bool) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    let constant = if to_int { "'1'" } else { "'cuda:1'" };
    let convert = |arg: &str| {
        p(py(&[
            &format!("v = {x}({arg})"),
            "t = torch.zeros(1, device=v)",
        ]))
    };
    vec![
        Probe::new("keeps a rank a rank", convert("os.environ['LOCAL_RANK']"))
            .has("a tensor on a per-worker device", object(PER_WORKER)),
        Probe::new(format!("converts {constant}"), convert(constant))
            .has("a tensor on cuda:1", object(CUDA_1)),
    ]
}

/// The probes of a row that does `Iterates`.
pub(crate) fn iterates(c: &Callee, shape: Iteration) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    let each = match shape {
        Iteration::Items => format!("for v in {x}(devs):"),
        Iteration::Enumerate => format!("for _, v in {x}(devs):"),
        Iteration::Zip => format!("for v, _ in {x}(devs, devs):"),
        Iteration::First => format!("for v in [{x}(iter(devs))]:"),
    };
    vec![Probe::new(
        format!("yields its arguments' items ({shape:?})"),
        p(py(&[
            "devs = ['cuda:1']",
            &each,
            "    t = torch.zeros(1, device=v)",
        ])),
    )
    .has("a tensor on cuda:1", object(CUDA_1))]
}

/// The probes of a row that does `CallsArgument`.
pub(crate) fn calls_argument(c: &Callee, param: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![Probe::new(
        "calls the function it is given",
        p(py(&[
            "def make():",
            "    return 'cuda:1'",
            &format!("v = {}", call(x, &[(param, "make")])),
            "t = torch.zeros(1, device=v)",
        ])),
    )
    .has("a tensor on the device it returned", object(CUDA_1))]
}

/// The probes of a row that does `Inspects`.
pub(crate) fn inspects(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![Probe::new(
        "does not iterate a loader",
        p(format!(
            "{DATASET}{}",
            py(&[
                "loader = torch.utils.data.DataLoader(Items(), num_workers=2)",
                &format!("n = {x}(loader)"),
                "torch.cuda.init()",
            ])
        )),
    )
    .has("the CudaInit after it (control)", init_at(Init::Context))
    .lacks("child", any_child)]
}

/// The probes of a row that does `Memoises`.
pub(crate) fn memoises(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    let memo = |decorator: &str| {
        p(py(&[
            &format!("@{decorator}"),
            "def get():",
            "    return torch.zeros(1, device='cuda:1')",
            "def use():",
            "    m = get()",
            "    m.sum()",
            "use()",
        ]))
    };
    vec![
        Probe::new("its result is a global", memo(x))
            .has("a use of the global `get()`", global_use("get()")),
        Probe::new(
            "called with arguments too",
            memo(&format!("{x}(maxsize=None)")),
        )
        .has("a use of the global `get()`", global_use("get()")),
    ]
}

/// The probes of a row that does `EntersAtYield`.
pub(crate) fn enters_at_yield(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    let guarded = |read: &str| {
        p(py(&[
            &format!("@{x}"),
            "def placed():",
            "    os.environ['WHERE'] = 'cuda:1'",
            "    try:",
            "        yield",
            "    finally:",
            "        os.environ.pop('WHERE')",
            "def use():",
            "    with placed():",
            &format!("        {read}"),
            "use()",
        ]))
    };
    vec![
        Probe::new(
            "the block runs before the code after the yield",
            guarded("t = torch.zeros(1, device=os.environ['WHERE'])"),
        )
        .has("a tensor on cuda:1", object(CUDA_1)),
        Probe::new(
            "the code after the yield runs when the block ends",
            p(py(&[
                &format!("@{x}"),
                "def placed():",
                "    os.environ['WHERE'] = 'cuda:1'",
                "    yield",
                "    os.environ['WHERE'] = 'cpu'",
                "with placed():",
                "    pass",
                "t = torch.zeros(1, device=os.environ['WHERE'])",
            ])),
        )
        .has("EnvWritten WHERE=cpu", written_as("WHERE", "cpu"))
        .lacks("a tensor on cuda:1", object(CUDA_1)),
    ]
}

/// The probes of a row that does `Unpicklable`.
pub(crate) fn unpicklable(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    let held_by_target = |method: &str| {
        p(py(&[
            "import multiprocessing",
            "class Job:",
            "    def __init__(self):",
            &format!("        self.held = {x}()"),
            "    def run(self):",
            "        pass",
            &main_guard(&format!(
                "multiprocessing.get_context('{method}').Process(target=Job().run).start()"
            )),
        ]))
    };
    vec![
        Probe::new(
            "an object holding it cannot be pickled for a spawned child",
            held_by_target("spawn"),
        )
        .has("the held object, reported at the handover", holds("held")),
        Probe::new(
            "the report says how the child starts (fork: nothing is pickled)",
            held_by_target("fork"),
        )
        .has(
            "the handover, under fork",
            |e| matches!(e, Effect::UnserializableSent(s) if s.start_method == StartMethod::Fork),
        ),
    ]
}
