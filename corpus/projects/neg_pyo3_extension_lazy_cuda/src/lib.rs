//! The same extension, but the context is opened by a function Python calls, not at import.
use cudarc::driver::CudaContext;
use pyo3::prelude::*;

#[pyfunction]
fn open_ordinal() -> usize {
    CudaContext::new(0).expect("a GPU").ordinal()
}

#[pymodule]
fn fastops(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(open_ordinal, m)?)?;
    Ok(())
}
