//! Python exceptions: gpucomp's errors as `GpucompError` (a `RuntimeError`) and its subclasses,
//! carrying the failing array's index, the chunk and nvCOMP's status name; bad arguments as
//! `TypeError` / `ValueError`.
use gpucomp::{Error, Status};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

pyo3::create_exception!(
    gpucomp,
    GpucompError,
    PyRuntimeError,
    "A compression or decompression failed. Attributes: `index` (the array in the call's list, or \
     None), `chunk` (the chunk within it, or None), `status` (nvCOMP's status name, e.g. \
     'nvcompErrorCannotDecompress', or None)."
);
pyo3::create_exception!(
    gpucomp,
    DecodeError,
    GpucompError,
    "A stream could not be decoded: corrupt or truncated data, a bad checksum, an unsupported format."
);
pyo3::create_exception!(gpucomp, EncodeError, GpucompError, "An array could not be encoded.");
pyo3::create_exception!(
    gpucomp,
    CudaError,
    GpucompError,
    "The CUDA driver failed, or no GPU could be opened where one was required."
);

/// nvCOMP's name of a status (`nvcompStatus_t` enumerator).
pub fn status_name(status: Status) -> &'static str {
    match status {
        Status::Success => "nvcompSuccess",
        Status::InvalidValue => "nvcompErrorInvalidValue",
        Status::NotSupported => "nvcompErrorNotSupported",
        Status::CannotDecompress => "nvcompErrorCannotDecompress",
        Status::BadChecksum => "nvcompErrorBadChecksum",
        Status::CannotVerifyChecksums => "nvcompErrorCannotVerifyChecksums",
        Status::OutputBufferTooSmall => "nvcompErrorOutputBufferTooSmall",
        Status::WrongHeaderLength => "nvcompErrorWrongHeaderLength",
        Status::Alignment => "nvcompErrorAlignment",
        Status::ChunkSizeTooLarge => "nvcompErrorChunkSizeTooLarge",
        Status::CannotCompress => "nvcompErrorCannotCompress",
        Status::WrongInputLength => "nvcompErrorWrongInputLength",
        Status::BatchSizeTooLarge => "nvcompErrorBatchSizeTooLarge",
        Status::SubChunkCountTooLarge => "nvcompErrorSubChunkCountTooLarge",
        Status::SubChunkCountTooSmall => "nvcompErrorSubChunkCountTooSmall",
        Status::OutputBufferAlignmentTooSmall => "nvcompErrorOutputBufferAlignmentTooSmall",
        Status::CudaError => "nvcompErrorCudaError",
        _ => "nvcompErrorInternal",
    }
}

/// Which operation failed: decides the exception class of stream and chunk errors.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    /// `encode`.
    Encode,
    /// `decode` and the size queries.
    Decode,
}

/// The Python exception for a gpucomp error in operation `op` on array `index` of the call.
pub fn to_pyerr(py: Python<'_>, err: Error, op: Op, index: Option<usize>) -> PyErr {
    let (chunk, status) = match &err {
        Error::Chunk { chunk, status } => (Some(*chunk), Some(*status)),
        Error::InvalidArgument { status, .. } => (None, Some(*status)),
        Error::InvalidStream(_) => (None, Some(Status::CannotDecompress)),
        Error::Unsupported(_) => (None, Some(Status::NotSupported)),
        Error::OutputTooSmall { .. } => (None, Some(Status::OutputBufferTooSmall)),
        Error::NoDriver | Error::NoDevice(_) | Error::Cuda(_) => (None, Some(Status::CudaError)),
        _ => (None, None),
    };
    let at = index.map_or(String::new(), |i| format!("array {i}: "));
    let message = format!("{at}{err}");
    let pyerr = match (&err, op) {
        (Error::NoDriver | Error::NoDevice(_) | Error::Cuda(_), _) => CudaError::new_err(message),
        // A caller mistake (sizes, types, options), except where it concerns the stream's content.
        (Error::InvalidArgument { status, .. }, _)
            if !matches!(status, Status::BadChecksum | Status::CannotVerifyChecksums) =>
        {
            return PyValueError::new_err(message);
        }
        (Error::OutputTooSmall { .. }, _) => return PyValueError::new_err(message),
        (Error::Unsupported(_), Op::Encode) => return PyValueError::new_err(message),
        (_, Op::Decode) => DecodeError::new_err(message),
        (_, Op::Encode) => EncodeError::new_err(message),
    };
    annotate(py, pyerr, index, chunk, status.map(status_name))
}

/// A `GpucompError` subclass instance with its `index`, `chunk` and `status` attributes set.
pub fn annotate(
    py: Python<'_>,
    err: PyErr,
    index: Option<usize>,
    chunk: Option<usize>,
    status: Option<&'static str>,
) -> PyErr {
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("index", index)?;
        value.setattr("chunk", chunk)?;
        value.setattr("status", status.map(|s| PyString::new(py, s)))?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// Registers the exception classes on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("GpucompError", py.get_type::<GpucompError>())?;
    m.add("DecodeError", py.get_type::<DecodeError>())?;
    m.add("EncodeError", py.get_type::<EncodeError>())?;
    m.add("CudaError", py.get_type::<CudaError>())?;
    Ok(())
}
