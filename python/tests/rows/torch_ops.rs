//! The operator table generated from torch's metadata: every operator that has no row of its own
//! does on host tensors what its class says, at the sizes that decide it.

use gpulint_python::libraries::torch_ops::{self, OpClass, GRAIN_SIZE};

use super::*;

/// 300 × 300 elements, more than the grain size; 3 × 3, fewer.
const LARGE: &str = "a = torch.empty(300, 300)";
const SMALL: &str = "a = torch.empty(3, 3)";

/// The call of an operator on `a`: `torch.X(a, a)` or `a.X(a)`.
fn call_of(name: &str, method: bool) -> String {
    if method {
        format!("y = a.{name}(a)")
    } else {
        format!("y = torch.{name}(a, a)")
    }
}

/// An operator with a row of its own is decided by that row, not by the table.
fn has_own_row(name: &str, method: bool) -> bool {
    if method {
        libraries::method(name, |on, _| matches!(on, Receiver::Any)).is_some()
    } else {
        libraries::lookup(&format!("torch.{name}")).is_some()
    }
}

fn op_probes(name: &str, method: bool, class: OpClass) -> Vec<Probe> {
    let op = call_of(name, method);
    let run = |setup: &str, then: &[&str]| {
        let mut lines = vec!["import torch", setup, op.as_str()];
        lines.extend(then);
        py(&lines)
    };
    let large = Probe::new("on a large host tensor", run(LARGE, &[]));
    let small = Probe::new("on a small host tensor", run(SMALL, &[]));
    let then_scaled = Probe::new("its result scaled", run(LARGE, &["z = y * 2"]));
    match class {
        OpClass::Blas => vec![small.has("HostCompute", host_compute)],
        OpClass::Pointwise | OpClass::Sized | OpClass::Fill => vec![
            large.has("HostCompute", host_compute),
            small.lacks("HostCompute", host_compute),
        ],
        OpClass::SameView => vec![
            large.lacks("HostCompute", host_compute),
            then_scaled.has("HostCompute", host_compute),
        ],
        OpClass::View | OpClass::Random | OpClass::Setter => vec![
            large.lacks("HostCompute", host_compute),
            then_scaled.lacks("HostCompute", host_compute),
        ],
        OpClass::Query | OpClass::Factory => vec![large.lacks("HostCompute", host_compute)],
    }
}

#[test]
fn every_operator_does_what_its_class_says() {
    assert_eq!(GRAIN_SIZE, 32768);
    let mut report = Report::default();
    for &(name, method, class) in torch_ops::rows() {
        if has_own_row(name, method) {
            continue;
        }
        let id = if method {
            format!(".{name}")
        } else {
            format!("torch.{name}")
        };
        report.row(&id, Ok(op_probes(name, method, class)));
    }
    report.assert("torch operators");
}

#[test]
fn a_filling_factory_computes_above_the_grain_size_only() {
    let run = |line: &str| py(&["import torch", line]);
    let mut report = Report::default();
    let probes = vec![
        Probe::new("zeros of 300 × 300", run("t = torch.zeros(300, 300)"))
            .has("HostCompute", host_compute),
        Probe::new("full of (300, 300)", run("t = torch.full((300, 300), 1.5)"))
            .has("HostCompute", host_compute),
        Probe::new("zeros of 3 × 3", run("t = torch.zeros(3, 3)"))
            .lacks("HostCompute", host_compute),
        Probe::new("empty of 300 × 300", run("t = torch.empty(300, 300)"))
            .lacks("HostCompute", host_compute),
        Probe::new("randn of 300 × 300", run("t = torch.randn(300, 300)"))
            .lacks("HostCompute", host_compute),
        Probe::new(
            "ones_like of a large tensor",
            run("t = torch.ones_like(torch.empty(300, 300))"),
        )
        .has("HostCompute", host_compute),
        Probe::new(
            "zeros of 300 × 300 on CUDA",
            run("t = torch.zeros(300, 300, device='cuda')"),
        )
        .lacks("HostCompute", host_compute),
        Probe::new("zeros of a size not known", run("t = torch.zeros(n, n)"))
            .lacks("HostCompute", host_compute),
    ];
    report.row("filling factories", Ok(probes));
    report.assert("filling factories");
}

/// The probes of a method that does `LoadsState`: a copy per parameter, sized by the layers.
pub(crate) fn loads_state(method: &str) -> Vec<Probe> {
    let load = format!("m.{method}(torch.load('w.pt', map_location='cpu'))");
    let run = |lines: &[&str]| {
        let mut all = vec!["import torch"];
        all.extend(lines);
        all.push(&load);
        py(&all)
    };
    vec![
        Probe::new(
            "a host layer of 90000 weights",
            run(&["m = torch.nn.Linear(300, 300)"]),
        )
        .has("HostCompute", host_compute),
        Probe::new(
            "a module holding a large host layer",
            run(&[
                "class Net(torch.nn.Module):",
                "    def __init__(self):",
                "        super().__init__()",
                "        self.head = torch.nn.Linear(512, 512)",
                "m = Net()",
            ]),
        )
        .has("HostCompute", host_compute),
        Probe::new("a small host layer", run(&["m = torch.nn.Linear(3, 3)"]))
            .lacks("HostCompute", host_compute),
        Probe::new(
            "a layer on CUDA",
            run(&["m = torch.nn.Linear(300, 300).to('cuda:1')"]),
        )
        .lacks("HostCompute", host_compute),
    ]
}

#[test]
fn every_layer_weight_sizes_its_layer() {
    let mut report = Report::default();
    for layer in gpulint_python::libraries::torch::LAYER_WEIGHTS {
        let build = |dim: &str| {
            let dims = vec![dim; layer.dims].join(", ");
            py(&[
                "import torch",
                &format!("m = {}({dims})", layer.name),
                "m.load_state_dict(torch.load('w.pt', map_location='cpu'))",
            ])
        };
        let probes = vec![
            Probe::new("200 along each size", build("200")).has("HostCompute", host_compute),
            Probe::new("10 along each size", build("10")).lacks("HostCompute", host_compute),
        ];
        report.row(layer.name, Ok(probes));
    }
    report.assert("layer weights");
}
