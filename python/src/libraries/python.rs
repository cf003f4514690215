//! Python's builtins and standard-library plumbing that values flow through: conversions,
//! iteration helpers, partials, the environment, memoising decorators, command-line entry helpers;
//! the objects `pickle` refuses, and the container methods that change a container in place.

use super::{Behaviour, Iteration, Param, Row};

const fn row(name: &'static str, does: Behaviour, reason: &'static str) -> Row {
    Row { name, does, reason }
}

const KEY: Param = Param::pos(0, "key");
const ITEMS: Behaviour = Behaviour::Iterates(Iteration::Items);
const ENTRY: Behaviour = Behaviour::CallsArgument(Param::pos(0, "component"));
/// `timeit`'s statement, which may be a callable.
const TIMED: Behaviour = Behaviour::CallsArgument(Param::pos(0, "stmt"));

/// The environment mapping, which code subscripts to read a variable.
pub const ENVIRON: &str = "os.environ";

pub const ROWS: &[Row] = &[
    row(
        "builtins.dict",
        Behaviour::DictOfKeywords,
        "`dict(a=1)` holds its keywords",
    ),
    row(
        "functools.partial",
        Behaviour::Partial,
        "binds leading arguments",
    ),
    row(
        "os.getenv",
        Behaviour::ReadsEnv { key: KEY },
        "reads the environment",
    ),
    row(
        "os.environ.get",
        Behaviour::ReadsEnv { key: KEY },
        "reads the environment",
    ),
    row(
        "os.environ.setdefault",
        Behaviour::WritesEnv {
            key: KEY,
            value: Param::pos(1, "default"),
        },
        "writes the environment when unset",
    ),
    row(
        "os.putenv",
        Behaviour::WritesEnv {
            key: KEY,
            value: Param::pos(1, "value"),
        },
        "writes the environment",
    ),
    row(
        "os.environ.pop",
        Behaviour::RemovesEnv { key: KEY },
        "removes the variable from the environment",
    ),
    row(
        "os.unsetenv",
        Behaviour::RemovesEnv { key: KEY },
        "removes the variable from the environment",
    ),
    row(
        ENVIRON,
        Behaviour::Environ,
        "the environment, by subscript",
    ),
    row(
        "builtins.int",
        Behaviour::Converts { to_int: true },
        "a rank stays a rank",
    ),
    row(
        "builtins.str",
        Behaviour::Converts { to_int: false },
        "a rank stays a rank",
    ),
    row(
        "builtins.float",
        Behaviour::ToHost,
        "a Python number: a tensor's value comes to the host",
    ),
    row(
        "builtins.bool",
        Behaviour::ToHost,
        "a Python bool: a tensor's value comes to the host",
    ),
    row(
        "builtins.enumerate",
        Behaviour::Iterates(Iteration::Enumerate),
        "iterates its argument",
    ),
    row(
        "builtins.zip",
        Behaviour::Iterates(Iteration::Zip),
        "iterates its arguments",
    ),
    row("builtins.iter", ITEMS, "iterates its argument"),
    row("builtins.list", ITEMS, "iterates its argument"),
    row(
        "builtins.next",
        Behaviour::Iterates(Iteration::First),
        "takes one item",
    ),
    row("tqdm.tqdm", ITEMS, "iterates its argument"),
    row("tqdm.auto.tqdm", ITEMS, "iterates its argument"),
    row(
        "builtins.len",
        Behaviour::Inspects,
        "asks the length without iterating",
    ),
    row(
        "fire.Fire",
        ENTRY,
        "calls the function from the command line",
    ),
    row(
        "typer.run",
        ENTRY,
        "calls the function from the command line",
    ),
    row(
        "jsonargparse.CLI",
        ENTRY,
        "calls the function from the command line",
    ),
    row(
        "timeit.timeit",
        TIMED,
        "calls `stmt` `number` times when it is a callable",
    ),
    row(
        "timeit.repeat",
        TIMED,
        "calls `stmt` `repeat` × `number` times when it is a callable",
    ),
    row(
        "functools.lru_cache",
        Behaviour::Memoises,
        "the result is kept for later calls",
    ),
    row(
        "functools.cache",
        Behaviour::Memoises,
        "the result is kept for later calls",
    ),
    row(
        "contextlib.contextmanager",
        Behaviour::EntersAtYield,
        "the generator runs up to its `yield` when the `with` is entered, the rest when it is left",
    ),
    row(
        "contextlib.asynccontextmanager",
        Behaviour::EntersAtYield,
        "the generator runs up to its `yield` when the `async with` is entered, the rest when it is left",
    ),
    row(
        "threading.Lock",
        Behaviour::Unpicklable,
        "\"cannot pickle '_thread.lock' object\"",
    ),
    row(
        "threading.RLock",
        Behaviour::Unpicklable,
        "\"cannot pickle '_thread.RLock' object\"",
    ),
    row(
        "threading.Condition",
        Behaviour::Unpicklable,
        "holds a lock, which pickle refuses",
    ),
    row(
        "threading.Event",
        Behaviour::Unpicklable,
        "holds a lock, which pickle refuses",
    ),
    row(
        "threading.Semaphore",
        Behaviour::Unpicklable,
        "holds a lock, which pickle refuses",
    ),
    row(
        "threading.Thread",
        Behaviour::StartsThread {
            target: Param::pos(1, "target"),
            args: Param::pos(3, "args"),
        },
        "runs `target(*args)` (or `run`) in a thread of this process, whose current CUDA device starts unbound; holds locks, which pickle refuses",
    ),
    row(
        "queue.Queue",
        Behaviour::Unpicklable,
        "holds a lock, which pickle refuses",
    ),
    row(
        "builtins.open",
        Behaviour::Unpicklable,
        "\"cannot pickle '_io.TextIOWrapper' object\" (an open file)",
    ),
    row(
        "io.open",
        Behaviour::Unpicklable,
        "an open file, which pickle refuses",
    ),
    row(
        "socket.socket",
        Behaviour::Unpicklable,
        "\"cannot pickle 'socket' object\"",
    ),
    row(
        "sqlite3.connect",
        Behaviour::Unpicklable,
        "\"cannot pickle 'sqlite3.Connection' object\"",
    ),
    row(
        "h5py.File",
        Behaviour::Unpicklable,
        "an open HDF5 file: \"h5py objects cannot be pickled\"",
    ),
];

/// Methods of Python's containers that change the container in place (`CONFIG.update(...)`).
pub const CONTAINER_MUTATORS: &[&str] = &[
    "append",
    "extend",
    "insert",
    "update",
    "setdefault",
    "add",
    "pop",
    "popitem",
    "remove",
    "discard",
    "clear",
];

/// The builtin that sets an attribute named at run time (`setattr(obj, name, value)`): a change
/// of the object, as `obj.name = value` is.
pub const SETS_ATTRIBUTE: &str = "builtins.setattr";
