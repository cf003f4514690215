//! Installed packages whose code is not followed even where no other row names them (see
//! `program::environment`): they start processes their own way, which reading their Python
//! would take for plain `multiprocessing` with the platform's default start method.

/// A package left to the rows (and to what it is without them: a call gpulint does not know).
pub struct NotFollowed {
    pub package: &'static str,
    pub reason: &'static str,
}

pub static NOT_FOLLOWED: &[NotFollowed] = &[
    NotFollowed {
        package: "joblib",
        reason: "`Parallel`'s default backend (loky) starts fresh interpreters through its own launcher; only `backend=\"multiprocessing\"` forks",
    },
    NotFollowed {
        package: "loky",
        reason: "its workers are fresh interpreters started by fork and exec, not forked copies of the parent",
    },
    NotFollowed {
        package: "dask",
        reason: "the multiprocessing scheduler takes its start method from dask's configuration (`multiprocessing.context`, spawn by default)",
    },
    NotFollowed {
        package: "distributed",
        reason: "a nanny starts each worker with the configured method (`distributed.worker.multiprocessing-method`, spawn by default)",
    },
];
