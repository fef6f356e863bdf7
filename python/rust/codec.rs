//! `Codec`: nvidia.nvcomp.Codec's constructor, `encode` and `decode`, plus `out=` and size
//! queries, over gpucomp's [`Codec`](gpucomp::Codec) on a GPU or on the CPU codecs.
use gpucomp::container::{self, ChecksumPolicy as RustPolicy, NativeStream};
use gpucomp::{Algorithm, BitstreamKind as RustKind, DataType, Device};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::array::{as_array, Array};
use crate::cuda::gpu;
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
    device: Device,
    device_id: usize,
    cuda_stream: Option<usize>,
}

/// Inputs given as one array or as a list: the result follows the same form.
enum Batch<'py> {
    One(Bound<'py, Array>),
    Many(Vec<Bound<'py, Array>>),
}

impl<'py> Batch<'py> {
    fn read(obj: &Bound<'py, PyAny>) -> PyResult<Batch<'py>> {
        if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
            Ok(Batch::Many(obj.try_iter()?.map(|o| as_array(&o?)).collect::<PyResult<_>>()?))
        } else {
            Ok(Batch::One(as_array(obj)?))
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

    fn result(&self, py: Python<'py>, mut out: Vec<Bound<'py, Array>>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Batch::One(_) => Ok(out.remove(0).into_any()),
            Batch::Many(_) => Ok(PyList::new(py, out)?.into_any()),
        }
    }
}

/// The `out=` arrays of a call: as many as the inputs, in the same form.
fn outputs<'py>(batch: &Batch<'py>, out: Option<&Bound<'py, PyAny>>) -> PyResult<Option<Batch<'py>>> {
    let Some(out) = out.filter(|o| !o.is_none()) else { return Ok(None) };
    let outs = Batch::read(out)?;
    if matches!(batch, Batch::Many(_)) != matches!(outs, Batch::Many(_)) || outs.arrays().len() != batch.arrays().len()
    {
        return Err(PyValueError::new_err(format!(
            "out: expected {} to match the input, got {}",
            match batch {
                Batch::One(_) => "one array".to_owned(),
                Batch::Many(v) => format!("a list of {} arrays", v.len()),
            },
            match &outs {
                Batch::One(_) => "one array".to_owned(),
                Batch::Many(v) => format!("a list of {} arrays", v.len()),
            }
        )));
    }
    Ok(Some(outs))
}

impl Codec {
    fn rust_codec(&self, algorithm: Algorithm, checksums: bool) -> gpucomp::Result<gpucomp::Codec> {
        Ok(gpucomp::Codec::on(algorithm, self.device.clone())
            .with_chunk_size(self.chunk_size)?
            .with_checksums(checksums))
    }

    fn encoder(&self) -> PyResult<gpucomp::Codec> {
        let algorithm = self.algorithm.ok_or_else(|| {
            PyValueError::new_err("encode: this Codec has no algorithm; create it with Codec(algorithm=...)")
        })?;
        self.rust_codec(algorithm, self.policy.to_rust().computes())
            .map_err(|e| PyValueError::new_err(format!("Codec: {e}")))
    }

    /// The decoder: this codec's algorithm (RAW / WITH_UNCOMPRESSED_SIZE streams) or, without
    /// one, any (NVCOMP_NATIVE streams carry theirs; the others are refused in `stream_algorithm`).
    fn decoder(&self) -> gpucomp::Codec {
        let algorithm = self.algorithm.unwrap_or_default();
        gpucomp::Codec::on(algorithm, self.device.clone()).with_checksums(false)
    }

    /// An error unless a stream can be read by this codec: RAW and WITH_UNCOMPRESSED_SIZE
    /// streams need the codec's algorithm.
    fn check_stream(&self, stream: &[u8]) -> gpucomp::Result<()> {
        if self.algorithm.is_none() && container::detect(stream) != RustKind::Native {
            return Err(gpucomp::Error::InvalidArgument {
                status: gpucomp::Status::InvalidValue,
                reason: "a RAW or WITH_UNCOMPRESSED_SIZE stream needs the Codec's algorithm \
                         (Codec(algorithm=...)); only NVCOMP_NATIVE streams name theirs"
                    .into(),
            });
        }
        Ok(())
    }

    /// The type decoded arrays get without `data_type=`: the stream's data type for
    /// NVCOMP_NATIVE streams of multi-byte types, else bytes.
    fn default_typestr(&self, stream: &[u8]) -> &'static str {
        let t = match container::detect(stream) {
            RustKind::Native => {
                NativeStream::parse(stream).ok().and_then(|s| s.algorithm().ok()).map(|a| options::data_type_of(&a))
            }
            _ => self.algorithm.map(|a| options::data_type_of(&a)),
        };
        match t {
            Some(t) if t.size() > 1 => options::typestr_of(t),
            _ => "|u1",
        }
    }

    fn max_encoded_size_of(&self, algorithm: &Algorithm, nbytes: usize) -> gpucomp::Result<usize> {
        let kind = self.kind.to_rust();
        let max_chunk = |n: usize| algorithm.max_compressed_chunk_size(n);
        match kind {
            RustKind::Raw => Ok(max_chunk(nbytes)),
            RustKind::WithUncompressedSize => Ok(8 + max_chunk(nbytes)),
            RustKind::Native => {
                let chunks = nbytes.div_ceil(self.chunk_size);
                let align = algorithm.format().chunk_alignment();
                let full = max_chunk(self.chunk_size).next_multiple_of(align);
                let last = nbytes - chunks.saturating_sub(1) * self.chunk_size;
                let data = chunks.saturating_sub(1) * full
                    + if chunks > 0 { max_chunk(last).next_multiple_of(align) } else { 0 };
                let checksums = self.policy.to_rust().computes();
                Ok(container::native_data_offset(algorithm.format(), chunks, checksums)? + data)
            }
        }
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
    Bound::new(py, Array::view_of(o, out.clone().into_any().unbind(), bytes.len(), typestr)?)
}

#[pymethods]
impl Codec {
    /// `Codec(algorithm=None, device_id=0, cuda_stream=None, uncomp_chunk_size=65536,
    /// checksum_policy=NO_COMPUTE_NO_VERIFY, bitstream_kind=NVCOMP_NATIVE, device=None, **options)`.
    ///
    /// `device`: None runs on GPU `device_id` when one can be opened, else on the CPU codecs;
    /// "cpu" forces the CPU codecs; "cuda" requires the GPU (CudaError otherwise).
    #[new]
    #[pyo3(signature = (
        algorithm = None, device_id = 0, cuda_stream = None, uncomp_chunk_size = 65536,
        checksum_policy = None, bitstream_kind = None, device = None, **options
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        algorithm: Option<&str>,
        device_id: usize,
        cuda_stream: Option<usize>,
        uncomp_chunk_size: usize,
        checksum_policy: Option<&Bound<'_, PyAny>>,
        bitstream_kind: Option<&Bound<'_, PyAny>>,
        device: Option<&str>,
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
        let device = match device.map(str::to_ascii_lowercase).as_deref() {
            Some("cpu") => Device::Cpu,
            None | Some("auto") => py.detach(|| gpu(device_id)).map_or(Device::Cpu, Device::Gpu),
            Some("cuda" | "gpu") => Device::Gpu(
                py.detach(|| gpu(device_id)).map_err(|e| CudaError::new_err(format!("GPU {device_id}: {e}")))?,
            ),
            Some(other) => {
                return Err(PyValueError::new_err(format!("device {other:?}: expected None, 'cpu' or 'cuda'")));
            }
        };
        let codec = Codec { algorithm, chunk_size: uncomp_chunk_size, policy, kind, device, device_id, cuda_stream };
        if let Some(a) = codec.algorithm {
            codec.rust_codec(a, false).map_err(|e| PyValueError::new_err(format!("uncomp_chunk_size: {e}")))?;
        } else if uncomp_chunk_size == 0 {
            return Err(PyValueError::new_err("uncomp_chunk_size: must be positive"));
        }
        Ok(codec)
    }

    /// Encodes an array or a list of arrays (host or device memory, any contiguous array-like)
    /// into streams of this codec's bitstream kind: one `uint8` Array per input, in the same
    /// form. `out=`: arrays (same form) the streams are written into; the result views them.
    #[pyo3(signature = (arrays, out = None))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        arrays: &Bound<'py, PyAny>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let batch = Batch::read(arrays)?;
        let outs = outputs(&batch, out)?;
        let codec = self.encoder()?;
        let kind = self.kind.to_rust();
        let inputs: Vec<&[u8]> = batch
            .arrays()
            .iter()
            .enumerate()
            .map(|(i, a)| a.get().host_bytes(&format!("encode input {i}")))
            .collect::<PyResult<_>>()?;
        let results = py.detach(|| {
            inputs
                .iter()
                .enumerate()
                .map(|(i, input)| codec.compress_as(input, kind).map_err(|e| (i, e)))
                .collect::<Result<Vec<_>, _>>()
        });
        let streams = results.map_err(|(i, e)| to_pyerr(py, e, Op::Encode, batch.index(i)))?;
        let arrays = match outs {
            None => streams
                .into_iter()
                .map(|s| Bound::new(py, Array::from_bytes(s, "|u1")?))
                .collect::<PyResult<Vec<_>>>()?,
            Some(outs) => streams
                .iter()
                .zip(outs.arrays())
                .enumerate()
                .map(|(i, (s, o))| write_out(py, o, s, "|u1", &format!("encode out {i}")))
                .collect::<PyResult<Vec<_>>>()?,
        };
        batch.result(py, arrays)
    }

    /// Decodes a stream or a list of streams (NVCOMP_NATIVE, RAW or WITH_UNCOMPRESSED_SIZE,
    /// detected from the bytes) into Arrays of `data_type` (an array-protocol type string or
    /// NumPy dtype; default: the stream's type for NVCOMP_NATIVE streams, else bytes).
    /// `out=`: arrays (same form) the data is written into; the result views them.
    #[pyo3(signature = (arrays, data_type = None, out = None))]
    fn decode<'py>(
        &self,
        py: Python<'py>,
        arrays: &Bound<'py, PyAny>,
        data_type: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let batch = Batch::read(arrays)?;
        let outs = outputs(&batch, out)?;
        let typestr = data_type.filter(|t| !t.is_none()).map(options::parse_data_type).transpose()?;
        let streams: Vec<&[u8]> = batch
            .arrays()
            .iter()
            .enumerate()
            .map(|(i, a)| a.get().host_bytes(&format!("decode input {i}")))
            .collect::<PyResult<_>>()?;
        let codec = self.decoder();
        let policy = self.policy.to_rust();
        let results = py.detach(|| {
            streams
                .iter()
                .enumerate()
                .map(|(i, s)| self.check_stream(s).and_then(|()| decode_one(&codec, s, policy)).map_err(|e| (i, e)))
                .collect::<Result<Vec<_>, _>>()
        });
        let decoded = results.map_err(|(i, e)| to_pyerr(py, e, Op::Decode, batch.index(i)))?;
        let mut arrays = Vec::with_capacity(decoded.len());
        for (i, (bytes, stream)) in decoded.into_iter().zip(&streams).enumerate() {
            let t = match typestr {
                Some(t) => typestr_checked(t, bytes.len())?,
                None => match self.default_typestr(stream) {
                    t if bytes.len() % crate::array::item_size_of(t)? == 0 => t,
                    _ => "|u1",
                },
            };
            arrays.push(match &outs {
                None => Bound::new(py, Array::from_bytes(bytes, t)?)?,
                Some(outs) => write_out(py, &outs.arrays()[i], &bytes, t, &format!("decode out {i}"))?,
            });
        }
        batch.result(py, arrays)
    }

    /// The decoded size in bytes of a stream, or a list of sizes for a list of streams, from
    /// the headers (RAW streams: from the chunk, with this codec's algorithm).
    fn decoded_size<'py>(&self, py: Python<'py>, arrays: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let batch = Batch::read(arrays)?;
        let codec = self.decoder();
        let mut sizes = Vec::with_capacity(batch.arrays().len());
        for (i, a) in batch.arrays().iter().enumerate() {
            let s = a.get().host_bytes(&format!("decoded_size input {i}"))?;
            let size = self
                .check_stream(s)
                .and_then(|()| codec.decompressed_size(s))
                .map_err(|e| to_pyerr(py, e, Op::Decode, batch.index(i)))?;
            sizes.push(size);
        }
        match batch {
            Batch::One(_) => Ok(sizes[0].into_pyobject(py)?.into_any()),
            Batch::Many(_) => Ok(PyList::new(py, sizes)?.into_any()),
        }
    }

    /// The largest stream `encode` can write for an input of `nbytes` bytes (to size `out=`).
    fn max_encoded_size(&self, nbytes: usize) -> PyResult<usize> {
        let algorithm =
            self.algorithm.ok_or_else(|| PyValueError::new_err("max_encoded_size: this Codec has no algorithm"))?;
        self.max_encoded_size_of(&algorithm, nbytes).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// nvCOMP's name of the algorithm, or None.
    #[getter]
    fn algorithm(&self) -> Option<&'static str> {
        self.algorithm.as_ref().map(options::algorithm_name)
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
        match &self.device {
            Device::Cpu => "cpu".into(),
            Device::Gpu(g) => format!("cuda:{}", g.info().ordinal),
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "gpucomp.Codec(algorithm={}, uncomp_chunk_size={}, bitstream_kind={:?}, checksum_policy={:?}, device={:?})",
            self.algorithm.as_ref().map_or("None".to_owned(), |a| format!("{:?}", options::algorithm_name(a))),
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
    if nbytes % size != 0 {
        return Err(PyValueError::new_err(format!(
            "data_type {s}: the decoded {nbytes} bytes are not a whole number of {size}-byte elements"
        )));
    }
    Ok(s)
}
