//! gpulint's analyzer: parsing, the program model, and the semantic facts rules read.

pub mod facts;
pub mod libraries;
pub mod lower;
pub mod model;
pub mod program;
pub mod semantic;
pub mod source;
pub mod target;
