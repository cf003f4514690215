//! Probes of the behaviour kinds of the frameworks' rows (`libraries/frameworks.rs`).

use super::*;

/// The probes of a row that does `CudaDevice`.
pub(crate) fn cuda_device(c: &Callee, index: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    let on = |arg: &[(Param, &str)]| {
        p(py(&[&format!(
            "t = torch.zeros(1, device={})",
            call(x, arg)
        )]))
    };
    vec![
        Probe::new("names the ordinal given", on(&[(index, "1")]))
            .has("a tensor on cuda:1", object(CUDA_1))
            .holds("one CudaInit, the tensor's", |e| {
                e.iter().filter(|e| any_init(e)).count() == 1
            }),
        Probe::new("names device 0 by default", on(&[]))
            .has("a tensor on cuda:0", object(DeviceIndex::Fixed(0))),
        Probe::new(
            "names a rank's device",
            p(py(&[
                "v = int(os.environ['LOCAL_RANK'])",
                &format!("t = torch.zeros(1, device={})", call(x, &[(index, "v")])),
            ])),
        )
        .has("a tensor on a per-worker device", object(PER_WORKER)),
        Probe::new(
            "touches nothing itself",
            p(py(&[&format!("d = {}", call(x, &[(index, "1")]))])),
        )
        .lacks("CudaInit", any_init),
    ]
}
