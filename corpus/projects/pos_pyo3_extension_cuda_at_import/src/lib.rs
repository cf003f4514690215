//! A Python extension that opens a CUDA context on GPU 0 as soon as Python imports it.
use cudarc::driver::CudaContext;
use pyo3::prelude::*;

#[pyfunction]
fn device_name() -> String {
    "gpu0".to_string()
}

#[pymodule]
fn fastops(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let ctx = CudaContext::new(0).expect("a GPU");
    m.add("ordinal", ctx.ordinal())?;
    m.add_function(wrap_pyfunction!(device_name, m)?)?;
    Ok(())
}
