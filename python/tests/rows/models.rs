//! Probes of whole models a library builds (`torch::MODEL_WEIGHTS`) and of
//! `MethodBehaviour::Parameters`: an operation on each parameter of a host model reaches its
//! largest weight.

use super::*;

/// `[p.clone() for p in m.parameters()]` after `build`: a copy of every parameter.
fn clone_each(build: &[&str], method: &str) -> String {
    let mut lines = vec!["import torch", "import torchvision"];
    lines.extend(build);
    let copy = format!("copies = [p.clone() for p in m.{method}()]");
    lines.push(&copy);
    py(&lines)
}

pub(crate) fn parameters(method: &str) -> Vec<Probe> {
    vec![
        Probe::new(
            "a host layer of 90000 weights",
            clone_each(&["m = torch.nn.Linear(300, 300)"], method),
        )
        .has("HostCompute", host_compute),
        Probe::new(
            "a module holding a large host layer",
            clone_each(
                &[
                    "class Net(torch.nn.Module):",
                    "    def __init__(self):",
                    "        super().__init__()",
                    "        self.head = torch.nn.Linear(512, 512)",
                    "m = Net()",
                ],
                method,
            ),
        )
        .has("HostCompute", host_compute),
        Probe::new(
            "a small host layer",
            clone_each(&["m = torch.nn.Linear(3, 3)"], method),
        )
        .lacks("HostCompute", host_compute),
        Probe::new(
            "a layer of sizes not known",
            clone_each(&["m = torch.nn.Linear(n, n)"], method),
        )
        .lacks("HostCompute", host_compute),
        Probe::new(
            "a layer on CUDA",
            clone_each(&["m = torch.nn.Linear(300, 300).to('cuda:1')"], method),
        )
        .lacks("HostCompute", host_compute),
    ]
}

#[test]
fn every_model_constructor_sizes_its_largest_weight() {
    let mut report = Report::default();
    for model in gpulint_python::libraries::torch::MODEL_WEIGHTS {
        if model.numel <= u64::from(gpulint_python::libraries::torch_ops::GRAIN_SIZE) {
            let why = format!("{} elements: not above the grain size", model.numel);
            report.row(model.name, Err(why));
            continue;
        }
        let (module, leaf) = model.name.rsplit_once('.').unwrap_or(("", model.name));
        let import = format!("from {module} import {leaf}");
        let on_host = format!("m = {leaf}(num_classes=2)");
        let on_cuda = format!("m = {leaf}().cuda()");
        let probes = vec![
            Probe::new(
                "its parameters copied",
                clone_each(&[&import, &on_host], "parameters"),
            )
            .has("HostCompute", host_compute),
            Probe::new("on CUDA", clone_each(&[&import, &on_cuda], "parameters"))
                .lacks("HostCompute", host_compute),
        ];
        report.row(model.name, Ok(probes));
    }
    report.assert("model weights");
}
