//! `gpucomp._gpucomp`: the extension module of the `gpucomp` Python package, nvidia.nvcomp's
//! Python API on gpucomp's kernels and CPU codecs.
use pyo3::prelude::*;

pub mod array;
pub mod batched;
pub mod codec;
pub mod cuda;
pub mod dlpack;
pub mod enums;
pub mod errors;
pub mod options;
pub mod zstd_frames;

#[pymodule]
fn _gpucomp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<codec::Codec>()?;
    m.add_class::<array::Array>()?;
    m.add_class::<enums::BitstreamKind>()?;
    m.add_class::<enums::ChecksumPolicy>()?;
    m.add_class::<enums::ArrayBufferKind>()?;
    m.add_function(wrap_pyfunction!(array::py_as_array, m)?)?;
    m.add_function(wrap_pyfunction!(array::py_as_arrays, m)?)?;
    m.add_function(wrap_pyfunction!(array::from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(codec::cuda_available, m)?)?;
    m.add_function(wrap_pyfunction!(zstd_frames::zstd_compress_frames, m)?)?;
    m.add("zstd_version_number", zstd_frames::version_number())?;
    errors::register(m)?;
    m.add_submodule(&batched::module(m.py())?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
