//! No dead rows: every row of every library table, run in a small program that calls (or reads) its
//! name, produces the effect its behaviour documents.
//!
//! Each behaviour kind has its probes: a program and what its effects must (and must not) hold. The
//! programs are built so that the expected effect can only come from the row under test: with the
//! row removed, the call is an unknown call and some check fails. The matches in `kinds.rs` (calls)
//! and `methods.rs` (methods and attributes) name every behaviour kind without a catch-all, so a new
//! kind cannot be added without probes of its own; the probes of a call's kind are in the module of
//! its library family.

mod env;
mod forking;
mod forking_versions;
mod frameworks;
mod gpu_arrays;
mod huggingface;
mod imports;
mod inference;
mod kinds;
mod methods;
mod models;
mod predicates;
mod probe;
mod processes;
mod python;
mod run;
mod states;
mod threads;
mod torch;
mod torch_ops;

use std::collections::HashSet;
use std::fmt::Write as _;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{
    Backend, Binding, Channel, DeviceIndex, Effect, Init, Nodes, StartMethod, Unserializable,
    VisibilityWrite,
};
use gpulint_python::libraries::processes::launchers::{
    self, ForkAt, ForkingCall, Given, WorkersRun,
};
use gpulint_python::libraries::processes::{Carrier, Layer, ProcessApi, WorkerCall};
use gpulint_python::libraries::{
    self, AttributeBehaviour, AttributeRow, Behaviour, EnvRole, EnvRow, ImportRow, Iteration,
    MethodBehaviour, MethodRow, Param, Receiver, Row,
};
use gpulint_python::program::{Input, Program};
use gpulint_python::semantic::{analyze, ImportCache, Settings};
use gpulint_python::source::FileId;
use gpulint_python::target::PythonVersion;

use env::env_probes;
use imports::import_probes;
use kinds::probes;
use methods::{attribute_probes, method_probes};
use predicates::*;
use probe::*;
use run::*;

/// Records every effect of every simulated process, in the order the interpreter reports them.
#[derive(Clone, Default, Debug)]
struct Log;

impl Analysis for Log {
    type Facts = Vec<Effect>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Vec<Effect>) {
        facts.push(effect.clone());
    }

    fn join(&mut self, _: Log) {}

    fn finish(self, _: &ProcessEnd, _: &mut Vec<Effect>) {}
}

/// Probes known to fail, as (row, probe label): each entry is a reported finding (a dead row or an
/// interpreter bug), never a way to quiet one. Empty: every probe passes.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

#[test]
fn every_row_does_what_it_says() {
    let mut report = Report::default();
    for row in libraries::rows() {
        report.row(row.name, probes(&callee(row.name), row.does));
    }
    report.assert("rows");
}

#[test]
fn every_prefix_row_covers_its_names_but_not_its_exceptions() {
    let mut report = Report::default();
    for row in libraries::prefix_rows() {
        let (prefix, suffix) = (row.prefix, row.suffix);
        let id = format!("{prefix}*{suffix}");
        // Prefix rows are found by their prefix's first name, which a dot must end.
        if !prefix.ends_with('.') {
            report.row(&id, Err("the prefix does not end with a dot".to_string()));
        }
        let this = Some((row.does, row.reason));
        let nested = [
            format!("{prefix}sample{suffix}"),
            format!("{prefix}sub.Sample{suffix}"),
        ];
        let samples = if row.class_leaf {
            vec![format!("{prefix}Sample{suffix}")]
        } else {
            nested.to_vec()
        };
        for sample in &samples {
            let found = libraries::lookup(sample);
            let probes = if found == this {
                probes(&callee(sample), row.does)
                    .map(|ps| ps.into_iter().map(|p| p.labelled(sample)).collect())
            } else {
                Err(format!("`{sample}` looks up as {found:?}, not as this row"))
            };
            report.row(&id, probes);
        }
        if row.class_leaf {
            for other in nested.iter().filter(|n| libraries::lookup(n) == this) {
                report.row(&id, Err(format!("covers `{other}`, not a class")));
            }
        }
        for &except in row.except {
            if libraries::lookup(except) == this {
                report.row(&id, Err(format!("covers `{except}`, an exception")));
                continue;
            }
            let c = callee(except);
            let probe = Probe::new(
                format!("`{except}` touches no CUDA"),
                program(
                    &c,
                    &py(&[&format!("x = {}()", c.expr), "torch.cuda.init()"]),
                ),
            )
            .holds("only the control's CudaInit", |e| {
                e.len() == 1 && e.iter().all(init_at(Init::Context))
            });
            report.row(&id, Ok(vec![probe]));
        }
    }
    report.assert("prefix rows");
}

#[test]
fn every_method_row_does_what_it_says() {
    let mut report = Report::default();
    for row in libraries::method_rows() {
        report.row(
            &format!("{:?}.{}", row.on, row.name),
            Ok(method_probes(row)),
        );
    }
    report.assert("method rows");
}

#[test]
fn every_attribute_row_does_what_it_says() {
    let mut report = Report::default();
    for row in libraries::attribute_rows() {
        report.row(
            &format!("{:?}.{}", row.on, row.name),
            Ok(attribute_probes(row)),
        );
    }
    report.assert("attribute rows");
}

#[test]
fn every_environment_row_does_what_it_says() {
    let mut report = Report::default();
    for row in libraries::env_rows() {
        report.row(row.name, env_probes(row));
    }
    report.assert("environment rows");
}

#[test]
fn every_import_row_does_what_it_says() {
    let mut report = Report::default();
    for row in libraries::import_rows() {
        report.row(row.module, import_probes(row));
    }
    report.assert("import rows");
}

/// A name listed twice is looked up as its first row only: the second is dead.
#[test]
fn no_name_appears_twice() {
    fn twice<K: std::hash::Hash + Eq + std::fmt::Debug>(
        table: &str,
        keys: impl Iterator<Item = K>,
    ) -> Vec<String> {
        let mut seen = HashSet::new();
        keys.filter_map(|k| {
            let message = format!("{table}: {k:?}");
            (!seen.insert(k)).then_some(message)
        })
        .collect()
    }
    let debug = |on: Receiver| format!("{on:?}");
    let mut all = Vec::new();
    all.extend(twice("rows", libraries::rows().map(|r| r.name)));
    all.extend(twice(
        "prefix rows",
        libraries::prefix_rows().map(|r| (r.prefix, r.suffix, r.class_leaf)),
    ));
    all.extend(twice(
        "method rows",
        libraries::method_rows().map(|r| (r.name, debug(r.on))),
    ));
    all.extend(twice(
        "attribute rows",
        libraries::attribute_rows().map(|r| (r.name, debug(r.on))),
    ));
    all.extend(twice(
        "environment rows",
        libraries::env_rows().iter().map(|r| r.name),
    ));
    all.extend(twice(
        "import rows",
        libraries::import_rows().map(|r| r.module),
    ));
    assert!(all.is_empty(), "listed twice:\n{}", all.join("\n"));
}
