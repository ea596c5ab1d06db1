//! The AcoustiClaim claim parser, compiled into `acousticlaim._parser`.
//!
//! This first cut only exposes the crate's version so that packaging can be tested;
//! the parser itself lands with its own issue.
use pyo3::prelude::*;

/// Version of the parser crate, so Python can record which parser read a claim.
#[pyfunction]
fn parser_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _parser(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parser_version, m)?)?;
    Ok(())
}
