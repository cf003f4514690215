//! The interpreter's flags that steer how the running code runs, in one value that the memo's
//! replay key compares whole (see `memo::control_key`).

/// How the running code is nested and when it runs. Every field is classified by the replay key
/// (`memo::control_key`, which destructures this type without `..`): adding one does not compile
/// until it says whether a replay must match it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Control {
    /// How many loop bodies the running code is in (`MAX_LOOP_DEPTH` bounds their passes).
    pub loop_depth: u32,
    /// How many comprehensions the running code is in (their elements are computed per item).
    pub comprehension_depth: u32,
    /// How many `try` bodies with handlers the running code is in: what raises there may be caught.
    pub try_depth: u32,
    /// How many `if get_start_method(allow_none=True) is None:` bodies the running code is in.
    pub unset_guard_depth: u32,
    /// How many branches that run on one rank only (`if rank == 0:`) the running code is in.
    pub one_rank_depth: u32,
    /// A `get_start_method(allow_none=True)` ran since the running `if` test began.
    pub start_query_seen: bool,
    /// The running code runs after the program started, not while a module is imported: in a
    /// function called from the main guard or from an entry point, or in a child's target. What it
    /// binds globally, a fresh interpreter importing the program does not bind.
    pub run_time: bool,
}

impl Control {
    /// The running code runs once per item of a loop or comprehension.
    pub fn repeats(&self) -> bool {
        self.loop_depth > 0 || self.comprehension_depth > 0
    }

    /// A child process starts outside its parent's loops, `try` bodies and guarded branches (and
    /// runs its own code, on whichever rank started it): the depths are taken, and the flags as
    /// they were returned, for [`Control::put_depths`].
    pub fn take_depths(&mut self) -> Control {
        let outer = *self;
        self.loop_depth = 0;
        self.comprehension_depth = 0;
        self.try_depth = 0;
        self.unset_guard_depth = 0;
        self.one_rank_depth = 0;
        outer
    }

    /// The child ended: the depths [`Control::take_depths`] took are back (the other flags are
    /// as the child left them).
    pub fn put_depths(&mut self, outer: Control) {
        self.loop_depth = outer.loop_depth;
        self.comprehension_depth = outer.comprehension_depth;
        self.try_depth = outer.try_depth;
        self.unset_guard_depth = outer.unset_guard_depth;
        self.one_rank_depth = outer.one_rank_depth;
    }
}
