//! `Codec`: nvidia.nvcomp.Codec's constructor, `encode` and `decode`, plus `out=` and size
//! queries, over gpucomp's [`Codec`](gpucomp::Codec) on a GPU or on the CPU codecs.
//!
//! Device arrays go through gpucomp's device-batch API: every array of a call in one launch,
//! zero-copy, after a wait (event) on each producer's stream (except the host-copy paths:
//! checksums, and Zstd compression, which is libzstd's). Host arrays go through the host API, on
//! the GPU when the codec has one, else on the CPU codecs.
use std::sync::Arc;

use cudarc::driver::{sys, CudaStream};
use gpucomp::codec::DeviceRange;
use gpucomp::container::{self, ChecksumPolicy as RustPolicy, NativeStream};
use gpucomp::gpu::Gpu;
use gpucomp::{Algorithm, BitstreamKind as RustKind, DataType, Device};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::array::{Array, Importer, Memory, StreamKeeper};
use crate::cuda::{self, gpu};
use crate::enums::{parse_enum, BitstreamKind, ChecksumPolicy};
use crate::errors::{to_pyerr, CudaError, Op};
use crate::options;

/// Whether GPU `device_id` can be opened (driver, device, compute capability 8.0 or newer).
#[pyfunction(signature = (device_id = 0))]
pub fn cuda_available(py: Python<'_>, device_id: usize) -> bool {
    py.detach(|| gpu(device_id).is_ok())
}

/// Compresses and decompresses arrays with one algorithm, chunk size and bitstream kind, on a
/// GPU or on the CPU codecs (the same bytes).
#[pyclass(frozen, module = "gpucomp")]
pub struct Codec {
    /// `None`: no algorithm given; NVCOMP_NATIVE streams name theirs when decoded.
    algorithm: Option<Algorithm>,
    chunk_size: usize,
    policy: ChecksumPolicy,
    kind: BitstreamKind,
    device_id: usize,
    cuda_stream: Option<usize>,
    /// Encodes (checksums as the policy says); `None` without an algorithm.
    encoder: Option<gpucomp::Codec>,
    /// Encodes device arrays (no checksums: the device path computes none).
    device_encoder: Option<gpucomp::Codec>,
    /// Decodes (checksums verified separately, as the policy says).
    decoder: gpucomp::Codec,
    /// The stream this codec created for its GPU work (None on the CPU or with `cuda_stream`):
    /// device arrays it returns keep it alive, as their memory is freed on it.
    own_stream: Option<Arc<CudaStream>>,
    /// The stream object `cuda_stream` was given as (not an int): device arrays the codec
    /// returns keep it alive, as their memory is freed on its stream.
    stream_object: Option<Py<PyAny>>,
}

/// Inputs given as one array or as a list: the result follows the same form.
enum Batch<'py> {
    One(Bound<'py, Array>),
    Many(Vec<Bound<'py, Array>>),
}

impl<'py> Batch<'py> {
    /// The arrays of `obj`; DLPack producers on a GPU order their work before `consumer`
    /// (the codec's stream, when it has one).
    fn read(obj: &Bound<'py, PyAny>, consumer: Option<usize>) -> PyResult<Batch<'py>> {
        let mut importer = Importer::new(consumer);
        if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
            let arrays = obj.try_iter()?.map(|o| importer.import(&o?));
            Ok(Batch::Many(arrays.collect::<PyResult<_>>()?))
        } else {
            Ok(Batch::One(importer.import(obj)?))
        }
    }

    fn arrays(&self) -> &[Bound<'py, Array>] {
        match self {
            Batch::One(a) => std::slice::from_ref(a),
            Batch::Many(v) => v,
        }
    }

    fn index(&self, i: usize) -> Option<usize> {
        matches!(self, Batch::Many(_)).then_some(i)
    }

    fn describe(&self) -> String {
        match self {
            Batch::One(_) => "one array".to_owned(),
            Batch::Many(v) => format!("a list of {} arrays", v.len()),
        }
    }

    fn result(&self, py: Python<'py>, mut out: Vec<Bound<'py, Array>>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Batch::One(_) => Ok(out.remove(0).into_any()),
            Batch::Many(_) => Ok(PyList::new(py, out)?.into_any()),
        }
    }

    /// Where the arrays are: all on the host, or all on one GPU (a TypeError for a mix).
    fn memory(&self, what: &str) -> PyResult<Memory> {
        let mut arrays = self.arrays().iter().map(|a| a.get().memory());
        let first = arrays.next().unwrap_or(Memory::Host);
        match arrays.find(|m| *m != first) {
            None => Ok(first),
            Some(other) => Err(PyTypeError::new_err(format!(
                "{what}: expected all arrays in host memory or all on one GPU, got {first:?} and {other:?}"
            ))),
        }
    }

    /// The device ranges of contiguous device arrays; `writable` for outputs.
    fn ranges(&self, what: &str, writable: bool) -> PyResult<Vec<DeviceRange>> {
        self.arrays()
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let a = a.get();
                a.require_contiguous(format_args!("{what} {i}"))?;
                if writable && a.readonly() {
                    return Err(PyValueError::new_err(format!("{what} {i}: the array is read-only")));
                }
                Ok(DeviceRange { address: a.ptr() as u64, len: a.nbytes() })
            })
            .collect()
    }

    /// The distinct producer streams the arrays ask to be waited on.
    fn producer_streams(&self) -> Vec<usize> {
        let mut streams: Vec<usize> = self.arrays().iter().filter_map(|a| a.get().stream()).collect();
        streams.sort_unstable();
        streams.dedup();
        streams
    }
}

/// The `out=` arrays of a call: as many as the inputs, in the same form.
fn outputs<'py>(
    batch: &Batch<'py>,
    out: Option<&Bound<'py, PyAny>>,
    consumer: Option<usize>,
) -> PyResult<Option<Batch<'py>>> {
    let Some(out) = out.filter(|o| !o.is_none()) else { return Ok(None) };
    let outs = Batch::read(out, consumer)?;
    if matches!(batch, Batch::Many(_)) != matches!(outs, Batch::Many(_)) || outs.arrays().len() != batch.arrays().len()
    {
        return Err(PyValueError::new_err(format!(
            "out: expected {} to match the input, got {}",
            batch.describe(),
            outs.describe()
        )));
    }
    Ok(Some(outs))
}

/// A stream given as an int (CuPy's `Stream.ptr`, PyTorch's `Stream.cuda_stream`) or an
/// object with `__cuda_stream__` (the CUDA stream protocol), `.ptr` or `.cuda_stream`.
pub fn stream_handle(obj: &Bound<'_, PyAny>) -> PyResult<usize> {
    if let Ok(v) = obj.extract::<usize>() {
        return Ok(v);
    }
    if let Some(f) = obj.getattr_opt("__cuda_stream__")? {
        let (_version, handle): (u32, usize) = f.call0()?.extract()?;
        return Ok(handle);
    }
    for attr in ["ptr", "cuda_stream"] {
        if let Some(v) = obj.getattr_opt(attr)? {
            return v.extract();
        }
    }
    Err(PyTypeError::new_err(format!(
        "cuda_stream: expected a cudaStream_t as an int or a stream object, got {}",
        obj.get_type().name()?
    )))
}

impl Codec {
    /// What keeps the codec's stream alive in the device arrays it returns.
    fn stream_keeper(&self, py: Python<'_>) -> StreamKeeper {
        match (&self.own_stream, &self.stream_object) {
            (Some(own), _) => StreamKeeper::Own(own.clone()),
            (None, Some(object)) => StreamKeeper::Object(object.clone_ref(py)),
            (None, None) => StreamKeeper::Nothing,
        }
    }

    /// The codec's GPU (with the codec's stream), or None on the CPU.
    fn gpu(&self) -> Option<&Gpu> {
        match self.decoder.device() {
            Device::Gpu(g) => Some(g),
            Device::Cpu => None,
        }
    }

    /// The producer streams to wait on before reading `batch`: all but this codec's own (its
    /// work is in order already).
    fn waits(&self, batch: &Batch<'_>) -> Vec<usize> {
        let own = self.stream_value();
        batch.producer_streams().into_iter().filter(|&s| Some(s) != own).collect()
    }

    /// The value a device array's `stream` gets for work queued on this codec's stream.
    fn stream_value(&self) -> Option<usize> {
        self.gpu().map(|g| g.stream().cu_stream() as usize)
    }

    fn encoder(&self) -> PyResult<&gpucomp::Codec> {
        if let Some(Algorithm::Cascaded(o)) = &self.algorithm {
            if o.mode == gpucomp::CascadedMode::Symmetric {
                return Err(PyValueError::new_err(
                    "encode: Cascaded mode SYMMETRIC is decoded but not encoded by gpucomp (no symmetric \
                     compressor); use mode ASYMMETRIC (the default)",
                ));
            }
        }
        self.encoder.as_ref().ok_or_else(|| {
            PyValueError::new_err("encode: this Codec has no algorithm; create it with Codec(algorithm=...)")
        })
    }

    /// The GPU for device arrays of GPU `device_id`: this codec's, on that device.
    fn gpu_for(&self, device_id: i32, what: &str) -> PyResult<&Gpu> {
        let g = self.gpu().ok_or_else(|| {
            PyTypeError::new_err(format!(
                "{what}: expected host memory (NumPy, bytes, memoryview) for a codec on the CPU, got device \
                 memory of GPU {device_id}"
            ))
        })?;
        if device_id as usize != self.device_id {
            return Err(PyValueError::new_err(format!(
                "{what}: the arrays are on GPU {device_id}, the codec on GPU {}; create it with device_id={device_id}",
                self.device_id
            )));
        }
        Ok(g)
    }

    /// The type decoded arrays get without `data_type=`: the codec's data type when it has more
    /// than one byte, else (no algorithm) an NVCOMP_NATIVE host stream's own, else bytes.
    fn default_typestr(&self, stream: Option<&[u8]>) -> &'static str {
        let t = match (self.algorithm, stream) {
            (Some(a), _) => Some(options::data_type_of(&a)),
            (None, Some(s)) if container::detect(s) == RustKind::Native => {
                NativeStream::parse(s).ok().and_then(|n| n.algorithm().ok()).map(|a| options::data_type_of(&a))
            }
            _ => None,
        };
        match t {
            Some(t) if t.size() > 1 => options::typestr_of(t),
            _ => "|u1",
        }
    }

    /// `encode` of device arrays: one batch, zero-copy, outputs on the device.
    fn encode_device<'py>(
        &self,
        py: Python<'py>,
        batch: &Batch<'py>,
        outs: Option<&Batch<'py>>,
        device_id: i32,
    ) -> PyResult<Vec<Bound<'py, Array>>> {
        let g = self.gpu_for(device_id, "encode")?;
        let gpu_compressor = self.algorithm.is_some_and(|a| a.has_gpu_compression());
        if self.policy.to_rust().computes() || !gpu_compressor {
            // Checksums are computed on the host, and Zstd compresses on the CPU codec
            // (libzstd): through a host copy (documented).
            return self.through_host(py, batch, outs, device_id, Op::Encode, None);
        }
        let codec =
            self.device_encoder.as_ref().ok_or_else(|| PyValueError::new_err("encode: this Codec has no algorithm"))?;
        let inputs = batch.ranges("encode input", false)?;
        let out_ranges = outs.map(|o| self.device_outputs(o, device_id, "encode out")).transpose()?;
        let waits = self.waits(batch);
        let kind = self.kind.to_rust();
        let ready = self.stream_value();
        let map_err = |e| match e {
            e @ gpucomp::Error::Buffer { .. } => to_pyerr(py, e, Op::Encode, batch.index(0)),
            e => to_pyerr(py, e, Op::Encode, None),
        };
        match out_ranges {
            None => {
                let streams = py
                    .detach(|| {
                        waits.iter().try_for_each(|&w| cuda::wait_for(g, Some(w)))?;
                        // SAFETY: the inputs are live device arrays of this GPU, kept alive by
                        // `batch` until the call returns and ordered after their producers above;
                        // the call reads them before it returns (sizes read back).
                        unsafe { codec.compress_device_batch(&inputs, kind) }
                    })
                    .map_err(map_err)?;
                let (memory, ranges) = streams.into_parts();
                let memory = Arc::new(memory);
                ranges
                    .into_iter()
                    .map(|r| {
                        let keep = self.stream_keeper(py);
                        Bound::new(py, Array::in_shared_device(memory.clone(), r, device_id, "|u1", ready, keep)?)
                    })
                    .collect()
            }
            Some(out_ranges) => {
                let sizes = py
                    .detach(|| {
                        waits.iter().try_for_each(|&w| cuda::wait_for(g, Some(w)))?;
                        // SAFETY: as above; the outputs are live, writable device arrays of this
                        // GPU (checked), which the caller gave to be written.
                        unsafe { codec.compress_device_batch_into(&inputs, kind, &out_ranges) }
                    })
                    .map_err(map_err)?;
                let outs = outs.map(Batch::arrays).unwrap_or(&[]);
                sizes
                    .into_iter()
                    .zip(outs)
                    .map(|(n, o)| {
                        Bound::new(py, Array::view_of(o.get(), o.clone().into_any().unbind(), n, "|u1", ready)?)
                    })
                    .collect()
            }
        }
    }

    /// `decode` of device streams: one batch, zero-copy, outputs on the device.
    fn decode_device<'py>(
        &self,
        py: Python<'py>,
        batch: &Batch<'py>,
        outs: Option<&Batch<'py>>,
        device_id: i32,
        typestr: Option<DataType>,
    ) -> PyResult<Vec<Bound<'py, Array>>> {
        let g = self.gpu_for(device_id, "decode")?;
        if self.policy.to_rust().verifies() {
            // Checksums are verified on the host: through a host copy (documented).
            return self.through_host(py, batch, outs, device_id, Op::Decode, typestr);
        }
        let streams = batch.ranges("decode input", false)?;
        let out_ranges = outs.map(|o| self.device_outputs(o, device_id, "decode out")).transpose()?;
        let waits = self.waits(batch);
        let codec = &self.decoder;
        let map_err = |e| match e {
            e @ gpucomp::Error::Buffer { .. } => to_pyerr(py, e, Op::Decode, batch.index(0)),
            e => to_pyerr(py, e, Op::Decode, None),
        };
        let t = |n: usize| match typestr {
            Some(t) => typestr_checked(t, n),
            None => Ok(match self.default_typestr(None) {
                s if n.is_multiple_of(crate::array::item_size_of(s)?) => s,
                _ => "|u1",
            }),
        };
        match out_ranges {
            None => {
                let (decoded, queued) = py
                    .detach(|| {
                        waits.iter().try_for_each(|&w| cuda::wait_for(g, Some(w)))?;
                        // SAFETY: the streams are live device arrays of this GPU, kept alive by
                        // `batch` until the wait below; ordered after their producers.
                        unsafe { codec.decompress_device_batch_queued(&streams) }
                    })
                    .map_err(map_err)?;
                // The result objects are built while the device decompresses; they are
                // returned only once every chunk checked out.
                let (memory, ranges) = decoded.into_parts();
                let memory = Arc::new(memory);
                let arrays = ranges
                    .into_iter()
                    .map(|r| {
                        let (keep, typestr) = (self.stream_keeper(py), t(r.len())?);
                        Bound::new(py, Array::in_shared_device(memory.clone(), r, device_id, typestr, None, keep)?)
                    })
                    .collect::<PyResult<Vec<_>>>();
                py.detach(|| queued.wait()).map_err(map_err)?;
                arrays
            }
            Some(out_ranges) => {
                let sizes = py
                    .detach(|| {
                        waits.iter().try_for_each(|&w| cuda::wait_for(g, Some(w)))?;
                        // SAFETY: as above; the outputs are live, writable device arrays of this
                        // GPU (checked), which the caller gave to be written.
                        unsafe { codec.decompress_device_batch_into(&streams, &out_ranges) }
                    })
                    .map_err(map_err)?;
                let outs = outs.map(Batch::arrays).unwrap_or(&[]);
                sizes
                    .into_iter()
                    .zip(outs)
                    .map(|(n, o)| {
                        Bound::new(py, Array::view_of(o.get(), o.clone().into_any().unbind(), n, t(n)?, None)?)
                    })
                    .collect()
            }
        }
    }

    /// Device `out=` arrays: on the codec's GPU, contiguous, writable.
    fn device_outputs(&self, outs: &Batch<'_>, device_id: i32, what: &str) -> PyResult<Vec<DeviceRange>> {
        match outs.memory(what)? {
            Memory::Device { device_id: d } if d == device_id => outs.ranges(what, true),
            m => Err(PyTypeError::new_err(format!(
                "{what}: expected device memory of GPU {device_id} for device inputs, got {m:?}"
            ))),
        }
    }

    /// Device arrays encoded or decoded through host copies (the checksum paths): host copies of
    /// the inputs, the host path, and device copies of the results.
    fn through_host<'py>(
        &self,
        py: Python<'py>,
        batch: &Batch<'py>,
        outs: Option<&Batch<'py>>,
        device_id: i32,
        op: Op,
        typestr: Option<DataType>,
    ) -> PyResult<Vec<Bound<'py, Array>>> {
        let host: Vec<Bound<'py, Array>> =
            batch.arrays().iter().map(|a| Array::cpu(a.clone())).collect::<PyResult<_>>()?;
        let host_batch = match batch {
            Batch::One(_) => Batch::One(host[0].clone()),
            Batch::Many(_) => Batch::Many(host),
        };
        let results = match op {
            Op::Encode => self.encode_host(py, &host_batch, None)?,
            Op::Decode => self.decode_host(py, &host_batch, None, typestr)?,
        };
        match outs {
            None => results.iter().map(|r| Array::cuda(r.clone(), Some(device_id))).collect(),
            Some(outs) => {
                let g = self.gpu_for(device_id, "out")?;
                let ranges = self.device_outputs(outs, device_id, "out")?;
                results
                    .iter()
                    .zip(ranges)
                    .zip(outs.arrays())
                    .enumerate()
                    .map(|(i, ((r, dst), o))| {
                        let r = r.get();
                        let bytes = r.host_bytes("result")?;
                        if bytes.len() > dst.len {
                            return Err(PyValueError::new_err(format!(
                                "out {i}: {} bytes are needed, the array has {}",
                                bytes.len(),
                                dst.len
                            )));
                        }
                        py.detach(|| cuda::upload(g, bytes, dst.address as usize))
                            .map_err(|e| to_pyerr(py, e, op, None))?;
                        Bound::new(
                            py,
                            Array::view_of(o.get(), o.clone().into_any().unbind(), bytes.len(), r.typestr(), None)?,
                        )
                    })
                    .collect()
            }
        }
    }

    /// `encode` of host arrays: the host API (on the codec's GPU or the CPU codecs).
    fn encode_host<'py>(
        &self,
        py: Python<'py>,
        batch: &Batch<'py>,
        outs: Option<&Batch<'py>>,
    ) -> PyResult<Vec<Bound<'py, Array>>> {
        let codec = self.encoder()?;
        let kind = self.kind.to_rust();
        let inputs: Vec<&[u8]> = batch
            .arrays()
            .iter()
            .enumerate()
            .map(|(i, a)| a.get().host_bytes(format_args!("encode input {i}")))
            .collect::<PyResult<_>>()?;
        if let Some(o) = outs {
            o.arrays().iter().try_for_each(|a| a.get().require_host("encode out"))?;
        }
        let results = py.detach(|| {
            inputs
                .iter()
                .enumerate()
                .map(|(i, input)| codec.compress_as(input, kind).map_err(|e| (i, e)))
                .collect::<Result<Vec<_>, _>>()
        });
        let streams = results.map_err(|(i, e)| to_pyerr(py, e, Op::Encode, batch.index(i)))?;
        match outs {
            None => streams.into_iter().map(|s| Bound::new(py, Array::from_bytes(s, "|u1")?)).collect(),
            Some(outs) => streams
                .iter()
                .zip(outs.arrays())
                .enumerate()
                .map(|(i, (s, o))| write_out(py, o, s, "|u1", &format!("encode out {i}")))
                .collect(),
        }
    }

    /// `decode` of host streams: the host API (on the codec's GPU or the CPU codecs).
    fn decode_host<'py>(
        &self,
        py: Python<'py>,
        batch: &Batch<'py>,
        outs: Option<&Batch<'py>>,
        typestr: Option<DataType>,
    ) -> PyResult<Vec<Bound<'py, Array>>> {
        let streams: Vec<&[u8]> = batch
            .arrays()
            .iter()
            .enumerate()
            .map(|(i, a)| a.get().host_bytes(format_args!("decode input {i}")))
            .collect::<PyResult<_>>()?;
        if let Some(o) = outs {
            o.arrays().iter().try_for_each(|a| a.get().require_host("decode out"))?;
        }
        let codec = &self.decoder;
        let policy = self.policy.to_rust();
        let results = py.detach(|| {
            streams
                .iter()
                .enumerate()
                .map(|(i, s)| decode_one(codec, s, policy).map_err(|e| (i, e)))
                .collect::<Result<Vec<_>, _>>()
        });
        let decoded = results.map_err(|(i, e)| to_pyerr(py, e, Op::Decode, batch.index(i)))?;
        let mut arrays = Vec::with_capacity(decoded.len());
        for (i, (bytes, stream)) in decoded.into_iter().zip(&streams).enumerate() {
            let t = match typestr {
                Some(t) => typestr_checked(t, bytes.len())?,
                None => match self.default_typestr(Some(stream)) {
                    t if bytes.len() % crate::array::item_size_of(t)? == 0 => t,
                    _ => "|u1",
                },
            };
            arrays.push(match outs {
                None => Bound::new(py, Array::from_bytes(bytes, t)?)?,
                Some(outs) => write_out(py, &outs.arrays()[i], &bytes, t, &format!("decode out {i}"))?,
            });
        }
        Ok(arrays)
    }
}

/// Decodes one stream and verifies its checksums as `policy` says.
fn decode_one(codec: &gpucomp::Codec, stream: &[u8], policy: RustPolicy) -> gpucomp::Result<Vec<u8>> {
    let out = codec.decompress(stream)?;
    if policy.verifies() && container::detect(stream) == RustKind::Native {
        let s = NativeStream::parse(stream)?;
        s.verify_compressed(policy)?;
        s.verify_uncompressed(&out)?;
    }
    Ok(out)
}

/// Copies `bytes` into output `i`'s memory and returns the view of what was written.
fn write_out<'py>(
    py: Python<'py>,
    out: &Bound<'py, Array>,
    bytes: &[u8],
    typestr: &str,
    what: &str,
) -> PyResult<Bound<'py, Array>> {
    let o = out.get();
    let (dst, room) = o.writable_host(what)?;
    if room < bytes.len() {
        return Err(PyValueError::new_err(format!("{what}: {} bytes are needed, the array has {room}", bytes.len())));
    }
    if !bytes.is_empty() {
        // SAFETY: `dst` addresses `room >= bytes.len()` writable host bytes kept alive by `out`;
        // `bytes` is this call's own buffer, so the two do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst as *mut u8, bytes.len()) };
    }
    Bound::new(py, Array::view_of(o, out.clone().into_any().unbind(), bytes.len(), typestr, None)?)
}

#[pymethods]
impl Codec {
    /// `Codec(algorithm=None, device_id=0, cuda_stream=None, uncomp_chunk_size=65536,
    /// checksum_policy=NO_COMPUTE_NO_VERIFY, bitstream_kind=NVCOMP_NATIVE, device=None,
    /// max_decompressed_size=None, **options)`.
    ///
    /// `device`: None runs on GPU `device_id` when one can be opened, else on the CPU codecs;
    /// "cpu" forces the CPU codecs; "cuda" requires the GPU (CudaError otherwise).
    /// `cuda_stream`: the stream GPU work goes to (an int or a stream object). A stream object
    /// is kept alive by the codec and the device arrays it returns; an int handle must outlive
    /// them. Without it the codec makes its own stream.
    /// `max_decompressed_size`: a stream that declares more uncompressed bytes is refused
    /// (ValueError) before anything is allocated for it (None: only the format's own bound).
    #[new]
    #[pyo3(signature = (
        algorithm = None, device_id = 0, cuda_stream = None, uncomp_chunk_size = 65536,
        checksum_policy = None, bitstream_kind = None, device = None, max_decompressed_size = None, **options
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        algorithm: Option<&str>,
        device_id: usize,
        cuda_stream: Option<&Bound<'_, PyAny>>,
        uncomp_chunk_size: usize,
        checksum_policy: Option<&Bound<'_, PyAny>>,
        bitstream_kind: Option<&Bound<'_, PyAny>>,
        device: Option<&str>,
        max_decompressed_size: Option<u64>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Codec> {
        let algorithm = match algorithm.filter(|a| !a.is_empty()) {
            Some(name) => Some(options::algorithm_from_options(options::canonical_algorithm(name)?, options)?),
            None => {
                if let Some(key) = options.and_then(|d| d.keys().iter().next()) {
                    return Err(PyTypeError::new_err(format!(
                        "Codec() got the option {key} without an algorithm; give algorithm=..."
                    )));
                }
                None
            }
        };
        let policy = match checksum_policy {
            None => ChecksumPolicy::NO_COMPUTE_NO_VERIFY,
            Some(v) => parse_enum(v, "checksum_policy", ChecksumPolicy::from_name, |i| {
                RustPolicy::from_raw(u32::try_from(i).ok()?).map(|p| match p {
                    RustPolicy::NoComputeNoVerify => ChecksumPolicy::NO_COMPUTE_NO_VERIFY,
                    RustPolicy::ComputeAndNoVerify => ChecksumPolicy::COMPUTE_AND_NO_VERIFY,
                    RustPolicy::NoComputeAndVerifyIfPresent => ChecksumPolicy::NO_COMPUTE_AND_VERIFY_IF_PRESENT,
                    RustPolicy::ComputeAndVerifyIfPresent => ChecksumPolicy::COMPUTE_AND_VERIFY_IF_PRESENT,
                    RustPolicy::ComputeAndVerify => ChecksumPolicy::COMPUTE_AND_VERIFY,
                })
            })?,
        };
        let kind = match bitstream_kind {
            None => BitstreamKind::NVCOMP_NATIVE,
            Some(v) => parse_enum(v, "bitstream_kind", BitstreamKind::from_name, |i| match i {
                0 => Some(BitstreamKind::NVCOMP_NATIVE),
                1 => Some(BitstreamKind::RAW),
                2 => Some(BitstreamKind::WITH_UNCOMPRESSED_SIZE),
                _ => None,
            })?,
        };
        let cuda_stream_arg = cuda_stream.filter(|s| !s.is_none());
        let stream_object = cuda_stream_arg.filter(|s| s.extract::<usize>().is_err()).map(|s| s.clone().unbind());
        let cuda_stream = cuda_stream_arg.map(stream_handle).transpose()?;
        let base = match device.map(str::to_ascii_lowercase).as_deref() {
            Some("cpu") => None,
            None | Some("auto") => py.detach(|| gpu(device_id)).ok(),
            Some("cuda" | "gpu") => {
                Some(py.detach(|| gpu(device_id)).map_err(|e| CudaError::new_err(format!("GPU {device_id}: {e}")))?)
            }
            Some(other) => {
                return Err(PyValueError::new_err(format!("device {other:?}: expected None, 'cpu' or 'cuda'")));
            }
        };
        // GPU work goes to the caller's stream or to one of the codec's own, so that codecs
        // used from different threads run side by side and never wait on each other's work.
        let (device, own_stream) = match base {
            None => (Device::Cpu, None),
            Some(g) => match cuda_stream {
                // SAFETY: the caller's stream of this device, which the caller keeps alive
                // while the codec and its device arrays are (documented on `cuda_stream`).
                Some(s) => (Device::Gpu(unsafe { g.with_borrowed_stream(s as sys::CUstream) }), None),
                None => {
                    let own =
                        g.context().new_stream().map_err(|e| CudaError::new_err(format!("GPU {device_id}: {e}")))?;
                    // SAFETY: `own` lives in the codec and in every device array it returns.
                    let g = unsafe { g.with_borrowed_stream(own.cu_stream()) };
                    (Device::Gpu(g), Some(own))
                }
            },
        };
        let make = |a: Algorithm, checksums: bool| {
            gpucomp::Codec::on(a, device.clone())
                .with_chunk_size(uncomp_chunk_size)
                .map(|c| c.with_checksums(checksums))
                .map_err(|e| PyValueError::new_err(format!("uncomp_chunk_size: {e}")))
        };
        let encoder = algorithm.map(|a| make(a, policy.to_rust().computes())).transpose()?;
        let device_encoder = algorithm.map(|a| make(a, false)).transpose()?;
        if algorithm.is_none() && uncomp_chunk_size == 0 {
            return Err(PyValueError::new_err("uncomp_chunk_size: must be positive"));
        }
        let decoder = gpucomp::Codec::on(algorithm.unwrap_or_default(), device.clone())
            .with_checksums(false)
            .with_max_decompressed_size(max_decompressed_size.unwrap_or(u64::MAX));
        // Without an algorithm only streams that name theirs can be read.
        let decoder = if algorithm.is_none() { decoder.with_native_streams_only() } else { decoder };
        Ok(Codec {
            algorithm,
            chunk_size: uncomp_chunk_size,
            policy,
            kind,
            device_id,
            cuda_stream,
            encoder,
            device_encoder,
            decoder,
            own_stream,
            stream_object,
        })
    }

    /// Encodes an array or a list of arrays (host or device memory, any contiguous array-like)
    /// into streams of this codec's bitstream kind: one `uint8` Array per input, in the same
    /// form and memory. Device arrays: one launch for the whole list, zero-copy, after the
    /// producers' streams; the results are ready once the codec's stream reaches them (their
    /// `__cuda_array_interface__` names it). `out=`: arrays (same form and memory) the streams
    /// are written into; the results view them.
    #[pyo3(signature = (arrays, out = None))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        arrays: &Bound<'py, PyAny>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let batch = Batch::read(arrays, self.stream_value())?;
        let outs = outputs(&batch, out, self.stream_value())?;
        self.encoder()?;
        let results = match batch.memory("encode")? {
            Memory::Host => self.encode_host(py, &batch, outs.as_ref())?,
            Memory::Device { device_id } => self.encode_device(py, &batch, outs.as_ref(), device_id)?,
        };
        batch.result(py, results)
    }

    /// Decodes a stream or a list of streams (NVCOMP_NATIVE, RAW or WITH_UNCOMPRESSED_SIZE,
    /// detected from the bytes) into Arrays of `data_type` (an array-protocol type string or
    /// NumPy dtype; default: the codec's data type, else bytes), in the streams' memory. Device
    /// streams: one launch per algorithm for the whole list; the results are complete.
    /// `out=`: arrays (same form and memory) the data is written into; the results view them.
    #[pyo3(signature = (arrays, data_type = None, out = None))]
    fn decode<'py>(
        &self,
        py: Python<'py>,
        arrays: &Bound<'py, PyAny>,
        data_type: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let batch = Batch::read(arrays, self.stream_value())?;
        let outs = outputs(&batch, out, self.stream_value())?;
        let typestr = data_type.filter(|t| !t.is_none()).map(options::parse_data_type).transpose()?;
        let results = match batch.memory("decode")? {
            Memory::Host => self.decode_host(py, &batch, outs.as_ref(), typestr)?,
            Memory::Device { device_id } => self.decode_device(py, &batch, outs.as_ref(), device_id, typestr)?,
        };
        batch.result(py, results)
    }

    /// The decoded size in bytes of a stream, or a list of sizes for a list of streams, from
    /// the headers (RAW streams: from the chunk, with this codec's algorithm).
    fn decoded_size<'py>(&self, py: Python<'py>, arrays: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let batch = Batch::read(arrays, self.stream_value())?;
        let sizes: Vec<u64> = match batch.memory("decoded_size")? {
            Memory::Host => batch
                .arrays()
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let s = a.get().host_bytes(format_args!("decoded_size input {i}"))?;
                    self.decoder.decompressed_size(s).map_err(|e| to_pyerr(py, e, Op::Decode, batch.index(i)))
                })
                .collect::<PyResult<_>>()?,
            Memory::Device { device_id } => {
                let g = self.gpu_for(device_id, "decoded_size")?;
                let streams = batch.ranges("decoded_size input", false)?;
                let waits = self.waits(&batch);
                py.detach(|| {
                    waits.iter().try_for_each(|&w| cuda::wait_for(g, Some(w)))?;
                    // SAFETY: live device arrays of this GPU, ordered after their producers.
                    unsafe { self.decoder.decompressed_sizes_device(&streams) }
                })
                .map_err(|e| match e {
                    e @ gpucomp::Error::Buffer { .. } => to_pyerr(py, e, Op::Decode, batch.index(0)),
                    e => to_pyerr(py, e, Op::Decode, None),
                })?
            }
        };
        match batch {
            Batch::One(_) => Ok(sizes[0].into_pyobject(py)?.into_any()),
            Batch::Many(_) => Ok(PyList::new(py, sizes)?.into_any()),
        }
    }

    /// The largest stream `encode` can write for an input of `nbytes` bytes (to size `out=`).
    fn max_encoded_size(&self, nbytes: usize) -> PyResult<usize> {
        self.encoder()?
            .max_compressed_size(nbytes, self.kind.to_rust())
            .map_err(|e| PyValueError::new_err(format!("max_encoded_size: {e}")))
    }

    /// nvCOMP's name of the algorithm, or None.
    #[getter]
    fn algorithm(&self) -> Option<&'static str> {
        self.algorithm.as_ref().map(Algorithm::name)
    }

    /// The array-protocol type string of the algorithm's data type, or None.
    #[getter]
    fn data_type(&self) -> Option<&'static str> {
        self.algorithm.as_ref().map(|a| options::typestr_of(options::data_type_of(a)))
    }

    /// The chunk size of NVCOMP_NATIVE streams.
    #[getter]
    fn uncomp_chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// The checksum policy.
    #[getter]
    fn checksum_policy(&self) -> ChecksumPolicy {
        self.policy
    }

    /// The bitstream kind `encode` writes.
    #[getter]
    fn bitstream_kind(&self) -> BitstreamKind {
        self.kind
    }

    /// The largest uncompressed size a decoded stream may declare, or None (no cap).
    #[getter]
    fn max_decompressed_size(&self) -> Option<u64> {
        Some(self.decoder.max_decompressed_size()).filter(|&b| b != u64::MAX)
    }

    /// The device ordinal asked for.
    #[getter]
    fn device_id(&self) -> usize {
        self.device_id
    }

    /// The CUDA stream given, or None.
    #[getter]
    fn cuda_stream(&self) -> Option<usize> {
        self.cuda_stream
    }

    /// Where the codec runs: "cpu" or "cuda:N".
    #[getter]
    fn device(&self) -> String {
        match self.gpu() {
            None => "cpu".into(),
            Some(g) => format!("cuda:{}", g.info().ordinal),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "gpucomp.Codec(algorithm={}, uncomp_chunk_size={}, bitstream_kind={:?}, checksum_policy={:?}, device={:?})",
            self.algorithm.as_ref().map_or("None".to_owned(), |a| format!("{:?}", a.name())),
            self.chunk_size,
            self.kind,
            self.policy,
            self.device()
        )
    }
}

/// `t`'s type string when `nbytes` is a whole number of its elements.
fn typestr_checked(t: DataType, nbytes: usize) -> PyResult<&'static str> {
    let s = options::typestr_of(t);
    let size = crate::array::item_size_of(s)?;
    if !nbytes.is_multiple_of(size) {
        return Err(PyValueError::new_err(format!(
            "data_type {s}: the decoded {nbytes} bytes are not a whole number of {size}-byte elements"
        )));
    }
    Ok(s)
}
