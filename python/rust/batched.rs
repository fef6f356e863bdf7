//! `gpucomp.batched`: the low-level batched API (nvCOMP's `nvcompBatched<X>*` functions), one
//! function per nvCOMP function, PEP 8 names, the algorithm and its options as arguments. Device
//! arrays (of chunk pointers, sizes, statuses) are given as device addresses (ints) or as device
//! arrays (CuPy, PyTorch, gpucomp.Array); work is queued on `stream` and not waited for (so the
//! GIL is kept: nothing here blocks); a bad
//! argument raises instead of returning a status, and per-chunk statuses land in
//! `device_statuses` as in nvCOMP.
use cudarc::driver::{sys, CudaSlice};
use gpucomp::batched::{self, Alignments, BatchedCodec, CompressBatchAt, DecompressBatchAt};
use gpucomp::gpu::Gpu;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::array::{as_array, Memory};
use crate::cuda;
use crate::errors::{to_pyerr, Op};
use crate::options;

/// The batched codec of `algorithm` with keyword `options` (the names `Codec` takes).
fn codec_of(algorithm: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Box<dyn BatchedCodec>> {
    let a = options::algorithm_from_options(options::canonical_algorithm(algorithm)?, options)?;
    batched::for_algorithm(&a).map_err(|e| PyValueError::new_err(format!("{algorithm}: {e}")))
}

fn alignments_dict<'py>(py: Python<'py>, a: Alignments) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("input", a.input)?;
    d.set_item("output", a.output)?;
    d.set_item("temp", a.temp)?;
    Ok(d)
}

/// The device address of a device array argument: an int, or a contiguous device array of
/// elements of `item_size` bytes holding at least `count` of them. 0 (or None where `optional`)
/// is "none".
fn address(
    obj: Option<&Bound<'_, PyAny>>,
    what: &str,
    item_size: usize,
    count: usize,
    optional: bool,
) -> PyResult<u64> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return if optional { Ok(0) } else { Err(PyTypeError::new_err(format!("{what}: a device array is required"))) };
    };
    if let Ok(v) = obj.extract::<u64>() {
        if v == 0 && !optional {
            return Err(PyValueError::new_err(format!("{what}: a null address")));
        }
        return Ok(v);
    }
    let a = as_array(obj)?;
    let a = a.get();
    if !matches!(a.memory(), Memory::Device { .. }) {
        return Err(PyTypeError::new_err(format!("{what}: expected device memory (an address or a device array)")));
    }
    a.require_contiguous(what)?;
    let needed = count * item_size;
    if a.nbytes() < needed {
        return Err(PyValueError::new_err(format!(
            "{what}: {} bytes, {count} entries of {item_size} bytes need {needed}",
            a.nbytes()
        )));
    }
    Ok(a.ptr() as u64)
}

/// GPU `device_id` with its work going to `stream` (an int or a stream object; 0 is the legacy
/// default stream).
fn gpu_on(py: Python<'_>, device_id: i32, stream: Option<&Bound<'_, PyAny>>) -> PyResult<Gpu> {
    let g = cuda::require_gpu(py, device_id)?;
    let s = match stream.filter(|s| !s.is_none()) {
        Some(s) => crate::codec::stream_handle(s)?,
        None => 0,
    };
    // SAFETY: the caller's stream of this device (nvCOMP's contract for `stream`).
    Ok(unsafe { g.with_borrowed_stream(s as sys::CUstream) })
}

/// Runs `f` with the caller's temp buffer as a slice of `gpu`'s stream (none when absent), and
/// leaks the slice after it, so the caller's memory is never freed here.
///
/// # Safety
/// `address` must hold `bytes` bytes of device memory of `gpu`'s device.
unsafe fn with_borrowed_temp<R>(
    gpu: &Gpu,
    address: u64,
    bytes: usize,
    f: impl FnOnce(Option<&mut CudaSlice<u8>>) -> R,
) -> R {
    // SAFETY: the caller's contract; the slice is leaked below, never dropped.
    let mut temp =
        (address != 0 && bytes > 0).then(|| unsafe { gpu.stream().upgrade_device_ptr::<u8>(address, bytes) });
    let r = f(temp.as_mut());
    if let Some(t) = temp {
        t.leak();
    }
    r
}

/// Alignment in bytes required of compression buffers: `{"input", "output", "temp"}`
/// (`nvcompBatched<X>CompressGetRequiredAlignments`).
#[pyfunction(signature = (algorithm, **options))]
pub fn compress_get_required_alignments<'py>(
    py: Python<'py>,
    algorithm: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    alignments_dict(py, codec_of(algorithm, options)?.compress_alignments())
}

/// Alignment in bytes required of decompression buffers (`…DecompressGetRequiredAlignments`).
#[pyfunction(signature = (algorithm, **options))]
pub fn decompress_get_required_alignments<'py>(
    py: Python<'py>,
    algorithm: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    alignments_dict(py, codec_of(algorithm, options)?.decompress_alignments())
}

/// Largest compressed chunk of up to `max_uncompressed_chunk_bytes` (`…CompressGetMaxOutputChunkSize`).
#[pyfunction(signature = (algorithm, max_uncompressed_chunk_bytes, **options))]
pub fn compress_get_max_output_chunk_size(
    py: Python<'_>,
    algorithm: &str,
    max_uncompressed_chunk_bytes: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<usize> {
    codec_of(algorithm, options)?
        .max_compressed_chunk_size(max_uncompressed_chunk_bytes)
        .map_err(|e| to_pyerr(py, e, Op::Encode, None))
}

/// Temp bytes `compress_async` needs (`…CompressGetTempSize`).
#[pyfunction(signature = (algorithm, num_chunks, max_uncompressed_chunk_bytes, **options))]
pub fn compress_get_temp_size(
    py: Python<'_>,
    algorithm: &str,
    num_chunks: usize,
    max_uncompressed_chunk_bytes: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<usize> {
    codec_of(algorithm, options)?
        .compress_temp_size(num_chunks, max_uncompressed_chunk_bytes)
        .map_err(|e| to_pyerr(py, e, Op::Encode, None))
}

/// Temp bytes `decompress_async` needs (`…DecompressGetTempSize`).
#[pyfunction(signature = (algorithm, num_chunks, max_uncompressed_chunk_bytes, **options))]
pub fn decompress_get_temp_size(
    py: Python<'_>,
    algorithm: &str,
    num_chunks: usize,
    max_uncompressed_chunk_bytes: usize,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<usize> {
    codec_of(algorithm, options)?
        .decompress_temp_size(num_chunks, max_uncompressed_chunk_bytes)
        .map_err(|e| to_pyerr(py, e, Op::Decode, None))
}

/// Queues compression of `num_chunks` chunks (`…CompressAsync`): chunk `i` of
/// `device_uncompressed_chunk_bytes[i]` bytes at `device_uncompressed_chunk_ptrs[i]` goes to
/// `device_compressed_chunk_ptrs[i]` (room for the maximum output chunk size), its size to
/// `device_compressed_chunk_bytes[i]`, its status to `device_statuses[i]` (optional).
#[pyfunction(signature = (
    algorithm, device_uncompressed_chunk_ptrs, device_uncompressed_chunk_bytes, max_uncompressed_chunk_bytes,
    num_chunks, device_temp_ptr, temp_bytes, device_compressed_chunk_ptrs, device_compressed_chunk_bytes,
    device_statuses = None, stream = None, device_id = 0, **options
))]
#[allow(clippy::too_many_arguments)]
pub fn compress_async(
    py: Python<'_>,
    algorithm: &str,
    device_uncompressed_chunk_ptrs: &Bound<'_, PyAny>,
    device_uncompressed_chunk_bytes: &Bound<'_, PyAny>,
    max_uncompressed_chunk_bytes: usize,
    num_chunks: usize,
    device_temp_ptr: Option<&Bound<'_, PyAny>>,
    temp_bytes: usize,
    device_compressed_chunk_ptrs: &Bound<'_, PyAny>,
    device_compressed_chunk_bytes: &Bound<'_, PyAny>,
    device_statuses: Option<&Bound<'_, PyAny>>,
    stream: Option<&Bound<'_, PyAny>>,
    device_id: i32,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let codec = codec_of(algorithm, options)?;
    let n = num_chunks;
    let in_ptrs = address(Some(device_uncompressed_chunk_ptrs), "device_uncompressed_chunk_ptrs", 8, n, false)?;
    let in_bytes = address(Some(device_uncompressed_chunk_bytes), "device_uncompressed_chunk_bytes", 8, n, false)?;
    let temp = address(device_temp_ptr, "device_temp_ptr", 1, temp_bytes, true)?;
    let out_ptrs = address(Some(device_compressed_chunk_ptrs), "device_compressed_chunk_ptrs", 8, n, false)?;
    let out_bytes = address(Some(device_compressed_chunk_bytes), "device_compressed_chunk_bytes", 8, n, false)?;
    let statuses = address(device_statuses, "device_statuses", 4, n, true)?;
    let needed =
        codec.compress_temp_size(n, max_uncompressed_chunk_bytes).map_err(|e| to_pyerr(py, e, Op::Encode, None))?;
    if temp_bytes < needed {
        return Err(PyValueError::new_err(format!("temp_bytes {temp_bytes}: the batch needs {needed}")));
    }
    let gpu = gpu_on(py, device_id, stream)?;
    // SAFETY: nvCOMP's contract, the caller's: the arrays hold `n` entries (sizes checked for
    // arrays), the chunks and the temp buffer are valid device memory of this device.
    unsafe {
        with_borrowed_temp(&gpu, temp, temp_bytes, |temp| {
            let batch = CompressBatchAt {
                in_ptrs,
                in_bytes,
                num_chunks: n,
                max_uncompressed_chunk_bytes,
                temp,
                out_ptrs,
                out_bytes,
                statuses,
            };
            codec.compress_async_at(&gpu, batch)
        })
    }
    .map_err(|e| to_pyerr(py, e, Op::Encode, None))
}

/// Queues decompression of `num_chunks` chunks (`…DecompressAsync`): chunk `i`
/// (`device_compressed_chunk_bytes[i]` bytes at `device_compressed_chunk_ptrs[i]`) into
/// `device_uncompressed_chunk_ptrs[i]` (room: `device_uncompressed_buffer_bytes[i]`), its size
/// to `device_uncompressed_chunk_bytes[i]` and status to `device_statuses[i]` (both optional).
#[pyfunction(signature = (
    algorithm, device_compressed_chunk_ptrs, device_compressed_chunk_bytes, device_uncompressed_buffer_bytes,
    device_uncompressed_chunk_bytes, num_chunks, device_temp_ptr, temp_bytes, device_uncompressed_chunk_ptrs,
    device_statuses = None, stream = None, device_id = 0, **options
))]
#[allow(clippy::too_many_arguments)]
pub fn decompress_async(
    py: Python<'_>,
    algorithm: &str,
    device_compressed_chunk_ptrs: &Bound<'_, PyAny>,
    device_compressed_chunk_bytes: &Bound<'_, PyAny>,
    device_uncompressed_buffer_bytes: &Bound<'_, PyAny>,
    device_uncompressed_chunk_bytes: Option<&Bound<'_, PyAny>>,
    num_chunks: usize,
    device_temp_ptr: Option<&Bound<'_, PyAny>>,
    temp_bytes: usize,
    device_uncompressed_chunk_ptrs: &Bound<'_, PyAny>,
    device_statuses: Option<&Bound<'_, PyAny>>,
    stream: Option<&Bound<'_, PyAny>>,
    device_id: i32,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let codec = codec_of(algorithm, options)?;
    let n = num_chunks;
    let in_ptrs = address(Some(device_compressed_chunk_ptrs), "device_compressed_chunk_ptrs", 8, n, false)?;
    let in_bytes = address(Some(device_compressed_chunk_bytes), "device_compressed_chunk_bytes", 8, n, false)?;
    let capacity = address(Some(device_uncompressed_buffer_bytes), "device_uncompressed_buffer_bytes", 8, n, false)?;
    let actual = address(device_uncompressed_chunk_bytes, "device_uncompressed_chunk_bytes", 8, n, true)?;
    let temp = address(device_temp_ptr, "device_temp_ptr", 1, temp_bytes, true)?;
    let out_ptrs = address(Some(device_uncompressed_chunk_ptrs), "device_uncompressed_chunk_ptrs", 8, n, false)?;
    let statuses = address(device_statuses, "device_statuses", 4, n, true)?;
    let gpu = gpu_on(py, device_id, stream)?;
    // SAFETY: nvCOMP's contract, the caller's: the arrays hold `n` entries, the chunks, outputs
    // and temp buffer are valid device memory of this device.
    unsafe {
        with_borrowed_temp(&gpu, temp, temp_bytes, |temp| {
            let batch = DecompressBatchAt {
                in_ptrs,
                in_bytes,
                num_chunks: n,
                // The decompressors take their bounds from `out_capacity`; this field only sizes temp.
                max_uncompressed_chunk_bytes: 0,
                temp,
                out_ptrs,
                out_capacity: capacity,
                out_actual: actual,
                statuses,
            };
            codec.decompress_async_at(&gpu, batch)
        })
    }
    .map_err(|e| to_pyerr(py, e, Op::Decode, None))
}

/// Queues the decompressed-size query (`nvcompBatched<X>GetDecompressSizeAsync`): each chunk's
/// uncompressed size into `device_uncompressed_chunk_bytes[i]` (0 for an invalid chunk).
#[pyfunction(signature = (
    algorithm, device_compressed_chunk_ptrs, device_compressed_chunk_bytes, device_uncompressed_chunk_bytes,
    num_chunks, stream = None, device_id = 0, **options
))]
#[allow(clippy::too_many_arguments)]
pub fn get_decompress_size_async(
    py: Python<'_>,
    algorithm: &str,
    device_compressed_chunk_ptrs: &Bound<'_, PyAny>,
    device_compressed_chunk_bytes: &Bound<'_, PyAny>,
    device_uncompressed_chunk_bytes: &Bound<'_, PyAny>,
    num_chunks: usize,
    stream: Option<&Bound<'_, PyAny>>,
    device_id: i32,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let codec = codec_of(algorithm, options)?;
    let n = num_chunks;
    let in_ptrs = address(Some(device_compressed_chunk_ptrs), "device_compressed_chunk_ptrs", 8, n, false)?;
    let in_bytes = address(Some(device_compressed_chunk_bytes), "device_compressed_chunk_bytes", 8, n, false)?;
    let sizes = address(Some(device_uncompressed_chunk_bytes), "device_uncompressed_chunk_bytes", 8, n, false)?;
    let gpu = gpu_on(py, device_id, stream)?;
    // SAFETY: nvCOMP's contract, the caller's: the arrays hold `n` entries and the chunks are
    // readable device memory of this device.
    unsafe { codec.decompressed_size_async_at(&gpu, in_ptrs, in_bytes, n, sizes) }
        .map_err(|e| to_pyerr(py, e, Op::Decode, None))
}

/// The `batched` submodule.
pub fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, "batched")?;
    m.add_function(wrap_pyfunction!(compress_get_required_alignments, &m)?)?;
    m.add_function(wrap_pyfunction!(decompress_get_required_alignments, &m)?)?;
    m.add_function(wrap_pyfunction!(compress_get_max_output_chunk_size, &m)?)?;
    m.add_function(wrap_pyfunction!(compress_get_temp_size, &m)?)?;
    m.add_function(wrap_pyfunction!(decompress_get_temp_size, &m)?)?;
    m.add_function(wrap_pyfunction!(compress_async, &m)?)?;
    m.add_function(wrap_pyfunction!(decompress_async, &m)?)?;
    m.add_function(wrap_pyfunction!(get_decompress_size_async, &m)?)?;
    Ok(m)
}
