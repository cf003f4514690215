//! Probes of CUDA initialisation (`InitsCuda`), the one behaviour of the GPU array libraries
//! (`libraries/gpu_arrays.rs`) and of many torch and Hugging Face calls.

use super::*;

/// The probes of a row that does `InitsCuda`.
pub(crate) fn inits_cuda(
    c: &Callee,
    level: Init,
    returns_object: bool,
    safe_in_child: bool,
    unless_env: Option<(&'static str, &'static str)>,
) -> Vec<Probe> {
    let x = c.expr.as_str();
    let mut out = Vec::new();
    if level == Init::None {
        out.push(
            Probe::new(
                "touches no CUDA state, returns no CUDA object",
                program(
                    c,
                    &py(&[
                        &format!("{x}()"),
                        "t = torch.zeros(1, device='cuda:1')",
                        &format!("y = {x}(t)"),
                        "print(y)",
                    ]),
                ),
            )
            .holds("one CudaInit, the tensor's", |e| {
                e.iter().filter(|e| any_init(e)).count() == 1
            })
            .has("a use of `t` (control)", uses("t"))
            .lacks("use of `y`", uses("y")),
        );
    } else {
        let fails = level == Init::Context || !safe_in_child;
        let probe = Probe::new(
            format!("initialises CUDA to {level:?}"),
            program(c, &py(&[&format!("{x}()")])),
        )
        .has(
            &format!("CudaInit at {level:?}, fails_in_child {fails}"),
            init_failing(level, fails),
        );
        out.push(if returns_object {
            probe.has("a CUDA object on the current device", object(CURRENT))
        } else {
            probe.lacks("CUDA object", any_object)
        });
    }
    if let Some((key, value)) = unless_env {
        out.push(
            Probe::new(
                format!("does nothing while {key}={value}"),
                program(
                    c,
                    &py(&[
                        &format!("os.environ['{key}'] = '{value}'"),
                        &format!("{x}()"),
                    ]),
                ),
            )
            .has("the write (control)", written(key))
            .lacks("CudaInit", any_init),
        );
    }
    out
}
