//! A library's process-wide settings that a child started by spawn or forkserver does not
//! inherit: it starts with the library's default, whatever its parent set at run time (GPU013).
//! Each row names the setter, the state, and the calls whose result depends on it unless they
//! are given the keyword that overrides it.

#[derive(Debug)]
pub struct StateRow {
    /// The call that sets the state for the rest of the process.
    pub setter: &'static str,
    /// The state, as messages name it.
    pub state: &'static str,
    /// Calls that read it.
    pub readers: &'static [&'static str],
    /// The keyword that makes a reader independent of the state.
    pub unless: &'static str,
    /// The values a fresh interpreter starts with: setting one of them changes nothing.
    pub defaults: &'static [&'static str],
    pub reason: &'static str,
}

/// Calls that make floating-point tensors or parameters in the default dtype when given none.
const FLOAT_MAKERS: &[&str] = &[
    "torch.zeros",
    "torch.ones",
    "torch.empty",
    "torch.rand",
    "torch.randn",
    "torch.linspace",
    "torch.logspace",
    "torch.eye",
    "torch.nn.Linear",
    "torch.nn.Conv1d",
    "torch.nn.Conv2d",
    "torch.nn.Conv3d",
    "torch.nn.Embedding",
    "torch.nn.LayerNorm",
];

pub const STATES: &[StateRow] = &[
    StateRow {
        setter: "torch.set_default_dtype",
        state: "torch's default dtype",
        readers: FLOAT_MAKERS,
        unless: "dtype",
        defaults: &["torch.float32", "torch.float"],
        reason: "a module-level setting of the interpreter (torch/__init__.py keeps it in C++ \
                 state, not in the module): a fresh interpreter starts with float32 \
                 (pytorch issue 75269)",
    },
    StateRow {
        setter: "torch.set_default_tensor_type",
        state: "torch's default dtype",
        readers: FLOAT_MAKERS,
        unless: "dtype",
        defaults: &["torch.FloatTensor"],
        reason: "sets the default dtype with the default tensor type, for this interpreter only",
    },
];

/// The state a call of `name` sets, if it sets one.
pub fn set_by(name: &str) -> Option<&'static StateRow> {
    STATES.iter().find(|r| r.setter == name)
}

/// The states a call of `name` reads.
pub fn read_by(name: &str) -> impl Iterator<Item = &'static StateRow> + '_ {
    STATES.iter().filter(move |r| r.readers.contains(&name))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_state_has_readers_and_one_name_per_setter() {
        for row in super::STATES {
            assert!(!row.readers.is_empty(), "{}", row.setter);
            assert!(!row.reason.is_empty());
            assert_eq!(super::set_by(row.setter).map(|r| r.state), Some(row.state));
        }
    }
}
