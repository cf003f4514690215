//! gpulint's Python frontend: parsing (behind its own model), the project loader, the Python library
//! tables, and the interpreter that reports effects to the analyses.

pub mod known;
pub mod libraries;
pub mod lower;
pub mod model;
pub mod names;
pub mod notebook;
pub mod prefilter;
pub mod program;
pub mod reach;
pub mod requirements;
pub mod semantic;
pub mod target;

pub use gpulint_core::source;
