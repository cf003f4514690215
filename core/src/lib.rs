//! gpulint's language-neutral core. Frontends (one per source language) interpret a program and
//! report what happens in it as [`effect::Effect`]s, in program order, per simulated process;
//! analyses ([`analysis::Analysis`], one per hazard) receive them and decide; rules turn the facts
//! analyses emit into [`diagnostic::Diagnostic`]s.
//!
//! This crate knows no source language, no library and no rule: an effect says "CUDA was
//! initialised here", never "`torch.cuda.init` was called".

pub mod analysis;
pub mod diagnostic;
pub mod effect;
pub mod files;
pub mod fsio;
pub mod source;
pub mod text;
