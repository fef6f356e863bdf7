//! Plain zstd frames as zarr's `zstd` codec and numcodecs' `Zstd` store them: any libzstd level
//! (zarr and numcodecs take libzstd's whole range, -131072 to 22, where `Codec(algorithm="Zstd")`
//! takes gpucomp's -7 to 22), with or without the XXH64 content checksum (nvCOMP's chunks, which
//! `Codec` writes, have none). Used by `gpucomp.zarr.ZstdCodec` and `gpucomp.numcodecs.Zstd`.
use ::zstd::zstd_safe::{self, CCtx, CParameter};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::{as_array, Array};
use crate::errors::{annotate, status_name, EncodeError};

/// The version of the libzstd that writes gpucomp's frames, as libzstd numbers it (10507 for
/// 1.5.7): frames are byte-identical to another libzstd's at the same version (numcodecs bundles
/// its own).
pub fn version_number() -> u32 {
    zstd_safe::version_number()
}

/// Compresses each host array of `arrays` into one zstd frame at libzstd `level` (0 is libzstd's
/// default, 3), its content size in the header and, with `checksum`, the XXH64 content checksum
/// at its end: the frame `numcodecs.Zstd(level, checksum).encode` writes. Returns uint8 Arrays
/// on the host. The GIL is released while compressing.
#[pyfunction(signature = (arrays, level = 0, checksum = false))]
pub fn zstd_compress_frames<'py>(
    py: Python<'py>,
    arrays: Vec<Bound<'py, PyAny>>,
    level: i32,
    checksum: bool,
) -> PyResult<Vec<Bound<'py, Array>>> {
    let (min, max) = (zstd_safe::min_c_level(), zstd_safe::max_c_level());
    if !(min..=max).contains(&level) {
        return Err(PyValueError::new_err(format!("level {level}: libzstd's levels are {min} to {max}")));
    }
    let arrays: Vec<Bound<'py, Array>> = arrays.iter().map(as_array).collect::<PyResult<_>>()?;
    let inputs: Vec<&[u8]> = arrays
        .iter()
        .enumerate()
        .map(|(i, a)| a.get().host_bytes(format_args!("zstd input {i}")))
        .collect::<PyResult<_>>()?;
    let frames = py.detach(|| -> Result<Vec<Vec<u8>>, (Option<usize>, &'static str)> {
        let mut c = CCtx::try_create().ok_or((None, "cannot allocate a libzstd context"))?;
        let setup = c
            .set_parameter(CParameter::CompressionLevel(level))
            .and_then(|_| c.set_parameter(CParameter::ContentSizeFlag(true)))
            .and_then(|_| c.set_parameter(CParameter::ChecksumFlag(checksum)));
        setup.map_err(|code| (None, zstd_safe::get_error_name(code)))?;
        inputs
            .iter()
            .enumerate()
            .map(|(i, input)| {
                // compress2 writes one whole frame per call with the parameters set above.
                let mut out = vec![0u8; zstd_safe::compress_bound(input.len())];
                let n = c.compress2(&mut out, input).map_err(|code| (Some(i), zstd_safe::get_error_name(code)))?;
                out.truncate(n);
                Ok(out)
            })
            .collect()
    });
    let frames = frames.map_err(|(index, reason)| {
        let at = index.map_or(String::new(), |i| format!("array {i}: "));
        let err = EncodeError::new_err(format!("{at}libzstd: {reason}"));
        annotate(py, err, index, None, Some(status_name(gpucomp::Status::CannotCompress)))
    })?;
    frames.into_iter().map(|f| Bound::new(py, Array::from_bytes(f, "|u1")?)).collect()
}
