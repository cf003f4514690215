//! Probes of the behaviour kinds of the inference runtimes' rows (`libraries/inference.rs`).

use super::*;

/// The probes of a row that does `LoadsOnProviders`.
pub(crate) fn loads_on_providers(
    c: &Callee,
    providers: Param,
    cuda: &'static [&'static str],
) -> Result<Vec<Probe>, String> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    if cuda.is_empty() {
        return Err("no provider names CUDA".into());
    }
    let load = |list: &str| {
        let args = [(Param::pos(0, "path"), "'model.onnx'"), (providers, list)];
        p(py(&[&format!("s = {}", call(x, &args))]))
    };
    let mut out = Vec::new();
    for name in cuda {
        out.push(
            Probe::new(
                format!("`{name}` loads onto CUDA"),
                load(&format!("['{name}', 'CPUExecutionProvider']")),
            )
            .has("a session on the current device", object(CURRENT)),
        );
        out.push(
            Probe::new(
                format!("`{name}` with options loads onto CUDA"),
                load(&format!("[('{name}', {{'device_id': 0}})]")),
            )
            .has("a session on the current device", object(CURRENT)),
        );
    }
    out.push(
        Probe::new("the CPU provider alone", load("['CPUExecutionProvider']"))
            .lacks("CudaInit", any_init),
    );
    out.push(
        Probe::new("no providers", p(py(&[&format!("s = {x}('model.onnx')")])))
            .lacks("CudaInit", any_init),
    );
    Ok(out)
}
