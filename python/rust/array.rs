//! `Array`: a typed, shaped view of host or device memory that the codecs read and write, owned
//! (bytes the codec produced) or borrowed from another Python object, which it keeps alive.
use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use pyo3::exceptions::{PyAttributeError, PyBufferError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};

use crate::cuda;
use crate::dlpack::{self, DLDevice};
use crate::enums::ArrayBufferKind;
use crate::errors::{to_pyerr, Op};

/// Where an array's memory lives.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Memory {
    /// Host memory.
    Host,
    /// Memory of CUDA device `device_id`.
    Device {
        /// The device ordinal.
        device_id: i32,
    },
}

/// What keeps an array's memory alive.
pub enum Owner {
    /// Host bytes the array owns (a codec's output).
    Bytes(Vec<u8>),
    /// The Python object that owns the memory.
    Object(Py<PyAny>),
    /// A DLPack producer's tensor (its deleter runs when the array goes).
    Tensor(dlpack::Imported),
    /// Device memory the array owns, alone (a copy) or with the other results of one batched
    /// call (one allocation for the batch), freed with the last of them on the stream it was
    /// allocated on, which `stream` keeps alive.
    Device {
        /// The allocation (dropped first).
        memory: Arc<CudaSlice<u8>>,
        /// What keeps the stream the memory is freed on alive.
        stream: StreamKeeper,
    },
}

/// What keeps alive the stream a device array's memory is freed on: freeing on a destroyed
/// stream is undefined behaviour in the driver (a crash, not an error).
pub enum StreamKeeper {
    /// Nothing: a stream that outlives every array (the device's copies, an int handle whose
    /// lifetime the caller vouches for).
    Nothing,
    /// A codec's own stream.
    Own(Arc<CudaStream>),
    /// The Python stream object (CuPy's `Stream`, PyTorch's `Stream`) a codec was given.
    Object(Py<PyAny>),
}

/// A typed, shaped view of memory with nvidia.nvcomp.Array's properties and interfaces.
#[pyclass(frozen, module = "gpucomp")]
pub struct Array {
    ptr: usize,
    shape: Vec<usize>,
    /// Byte strides; `None` for C-contiguous.
    strides: Option<Vec<isize>>,
    typestr: String,
    item_size: usize,
    memory: Memory,
    readonly: bool,
    /// The producer's stream (CUDA array interface `stream`), for device memory.
    stream: Option<usize>,
    /// Held for its lifetime only: it keeps the memory at `ptr` alive.
    _owner: Owner,
}

impl Array {
    /// A one-dimensional array owning `bytes`, read as elements of `typestr`
    /// (`bytes.len()` must be a multiple of the item size).
    pub fn from_bytes(bytes: Vec<u8>, typestr: &str) -> PyResult<Array> {
        let item_size = item_size_of(typestr)?;
        Ok(Array {
            ptr: bytes.as_ptr() as usize,
            shape: vec![bytes.len() / item_size],
            strides: None,
            typestr: typestr.to_owned(),
            item_size,
            memory: Memory::Host,
            readonly: false,
            stream: None,
            _owner: Owner::Bytes(bytes),
        })
    }

    /// A one-dimensional array owning device memory of GPU `device_id`, the first `nbytes` of
    /// `memory` read as `typestr`, complete once `ready_on`'s queued work is (None: now), its
    /// allocation stream kept alive by `keep`.
    pub fn from_device(
        memory: CudaSlice<u8>,
        nbytes: usize,
        device_id: i32,
        typestr: &str,
        ready_on: Option<usize>,
        keep: StreamKeeper,
    ) -> PyResult<Array> {
        Array::in_shared_device(Arc::new(memory), 0..nbytes, device_id, typestr, ready_on, keep)
    }

    /// A one-dimensional array over the bytes `range` of `memory`, an allocation of GPU
    /// `device_id` that other arrays may share (a batch's results), read as `typestr`; otherwise
    /// as [`from_device`](Self::from_device).
    pub fn in_shared_device(
        memory: Arc<CudaSlice<u8>>,
        range: Range<usize>,
        device_id: i32,
        typestr: &str,
        ready_on: Option<usize>,
        keep: StreamKeeper,
    ) -> PyResult<Array> {
        let item_size = item_size_of(typestr)?;
        let ptr = {
            let (base, _sync) = memory.device_ptr(memory.stream());
            base as usize + range.start
        };
        Ok(Array {
            ptr,
            shape: vec![range.len() / item_size],
            strides: None,
            typestr: typestr.to_owned(),
            item_size,
            memory: Memory::Device { device_id },
            readonly: false,
            stream: ready_on,
            _owner: Owner::Device { memory, stream: keep },
        })
    }

    /// A DLPack producer's tensor as an array; `stream` is the stream it was ordered on.
    fn from_tensor(t: dlpack::Tensor, stream: Option<usize>) -> PyResult<Array> {
        let memory = match t.device.device_type {
            dlpack::DEVICE_CPU | dlpack::DEVICE_CUDA_HOST => Memory::Host,
            dlpack::DEVICE_CUDA | dlpack::DEVICE_CUDA_MANAGED => Memory::Device { device_id: t.device.device_id },
            other => {
                return Err(PyBufferError::new_err(format!(
                    "DLPack device type {other}: expected CPU (1), CUDA (2), CUDA host (3) or CUDA managed (13)"
                )));
            }
        };
        Ok(Array {
            ptr: t.data,
            strides: normalized(&t.shape, t.item_size, t.strides),
            shape: t.shape,
            typestr: t.typestr,
            item_size: t.item_size,
            stream: stream.filter(|_| memory != Memory::Host),
            memory,
            readonly: t.readonly,
            _owner: Owner::Tensor(t.keep),
        })
    }

    /// A one-dimensional view of the first `nbytes` of `base`'s memory as `typestr`, keeping
    /// `owner` (the Python object behind `base`) alive; for device memory, complete once
    /// `ready_on`'s queued work is (None: now).
    pub fn view_of(
        base: &Array,
        owner: Py<PyAny>,
        nbytes: usize,
        typestr: &str,
        ready_on: Option<usize>,
    ) -> PyResult<Array> {
        let item_size = item_size_of(typestr)?;
        Ok(Array {
            ptr: base.ptr,
            shape: vec![nbytes / item_size],
            strides: None,
            typestr: typestr.to_owned(),
            item_size,
            memory: base.memory,
            readonly: base.readonly,
            stream: if base.memory == Memory::Host { None } else { ready_on },
            _owner: Owner::Object(owner),
        })
    }

    /// The data address.
    pub fn ptr(&self) -> usize {
        self.ptr
    }

    /// Where the memory lives.
    pub fn memory(&self) -> Memory {
        self.memory
    }

    /// The producer's stream for device memory, as the CUDA array interface gave it.
    pub fn stream(&self) -> Option<usize> {
        self.stream
    }

    /// Whether the memory may be written.
    pub fn readonly(&self) -> bool {
        self.readonly
    }

    /// Number of elements.
    pub fn num_elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// Bytes spanned by the elements (the whole buffer for a contiguous array).
    pub fn nbytes(&self) -> usize {
        match &self.strides {
            None => self.num_elements() * self.item_size,
            Some(_) if self.num_elements() == 0 => 0,
            Some(strides) => {
                let (mut lo, mut hi) = (0isize, 0isize);
                for (&n, &s) in self.shape.iter().zip(strides) {
                    let reach = (n as isize - 1) * s;
                    if reach < 0 {
                        lo += reach;
                    } else {
                        hi += reach;
                    }
                }
                (hi - lo) as usize + self.item_size
            }
        }
    }

    /// Whether the elements are laid out C-contiguously (dimensions of extent 1 may have any stride).
    pub fn is_contiguous(&self) -> bool {
        let Some(strides) = &self.strides else { return true };
        if self.num_elements() == 0 {
            return true;
        }
        let mut expected = self.item_size as isize;
        for (&n, &s) in self.shape.iter().zip(strides).rev() {
            if n > 1 && s != expected {
                return false;
            }
            expected *= n as isize;
        }
        true
    }

    /// The bytes of a contiguous host array. `what` names the argument in errors.
    ///
    /// The slice stays valid while `self` is alive and nobody frees or resizes the owner's
    /// memory; like NumPy releasing the GIL, concurrent writers are the caller's business.
    pub fn host_bytes(&self, what: impl std::fmt::Display + Copy) -> PyResult<&[u8]> {
        self.require_host(what)?;
        self.require_contiguous(what)?;
        let n = self.nbytes();
        if n == 0 {
            return Ok(&[]);
        }
        // SAFETY: `ptr` addresses `n` readable host bytes (the exporter's interface says so) that
        // `owner`, held by `self`, keeps alive for the borrow of `self`.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr as *const u8, n) })
    }

    /// The address and size of a contiguous, writable host array, for a codec's `out=`.
    pub fn writable_host(&self, what: impl std::fmt::Display + Copy) -> PyResult<(usize, usize)> {
        self.require_host(what)?;
        self.require_contiguous(what)?;
        if self.readonly {
            return Err(PyValueError::new_err(format!("{what}: the array is read-only; expected a writable array")));
        }
        Ok((self.ptr, self.nbytes()))
    }

    /// A TypeError unless the memory is on the host.
    pub fn require_host(&self, what: impl std::fmt::Display + Copy) -> PyResult<()> {
        match self.memory {
            Memory::Host => Ok(()),
            Memory::Device { device_id } => Err(PyTypeError::new_err(format!(
                "{what}: expected host memory (NumPy, bytes, memoryview), got device memory of GPU {device_id}"
            ))),
        }
    }

    /// A ValueError unless the array is C-contiguous.
    pub fn require_contiguous(&self, what: impl std::fmt::Display + Copy) -> PyResult<()> {
        if self.is_contiguous() {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "{what}: expected a C-contiguous array, got shape {:?} with byte strides {:?} (copy it first, \
                 e.g. numpy.ascontiguousarray)",
                self.shape,
                self.strides.as_deref().unwrap_or(&[])
            )))
        }
    }

    fn dl_device(&self) -> DLDevice {
        match self.memory {
            Memory::Host => DLDevice { device_type: dlpack::DEVICE_CPU, device_id: 0 },
            Memory::Device { device_id } => DLDevice { device_type: dlpack::DEVICE_CUDA, device_id },
        }
    }

    fn interface<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("shape", PyTuple::new(py, &self.shape)?)?;
        match &self.strides {
            Some(s) => d.set_item("strides", PyTuple::new(py, s)?)?,
            None => d.set_item("strides", py.None())?,
        }
        d.set_item("typestr", &self.typestr)?;
        d.set_item("data", (self.ptr, self.readonly))?;
        d.set_item("version", 3)?;
        Ok(d)
    }
}

#[pymethods]
impl Array {
    /// nvCOMP's dtype: a `numpy.dtype` (the type string where NumPy has no such type, e.g. `|f1`).
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match py.import("numpy").and_then(|np| np.call_method1("dtype", (&self.typestr,))) {
            Ok(d) => Ok(d),
            Err(_) => Ok(self.typestr.clone().into_pyobject(py)?.into_any()),
        }
    }

    /// The array-protocol type string.
    #[getter]
    pub fn typestr(&self) -> &str {
        &self.typestr
    }

    /// The shape.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.shape)
    }

    /// Byte strides (computed for C-contiguous arrays, as nvCOMP reports them).
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        match &self.strides {
            Some(s) => PyTuple::new(py, s),
            None => {
                let mut s = vec![0isize; self.shape.len()];
                let mut step = self.item_size as isize;
                for (i, &n) in self.shape.iter().enumerate().rev() {
                    s[i] = step;
                    step *= n as isize;
                }
                PyTuple::new(py, s)
            }
        }
    }

    /// Number of elements.
    #[getter]
    fn size(&self) -> usize {
        self.num_elements()
    }

    /// Number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Bytes per element.
    #[getter]
    fn item_size(&self) -> usize {
        self.item_size
    }

    /// Bytes of the buffer the elements span.
    #[getter]
    fn buffer_size(&self) -> usize {
        self.nbytes()
    }

    /// Host or device memory.
    #[getter]
    fn buffer_kind(&self) -> ArrayBufferKind {
        match self.memory {
            Memory::Host => ArrayBufferKind::STRIDED_HOST,
            Memory::Device { .. } => ArrayBufferKind::STRIDED_DEVICE,
        }
    }

    /// The CUDA device of device memory; -1 for host memory.
    #[getter]
    fn device_id(&self) -> i32 {
        match self.memory {
            Memory::Host => -1,
            Memory::Device { device_id } => device_id,
        }
    }

    /// NumPy's array interface (version 3); host arrays only (AttributeError on device arrays,
    /// so that NumPy never reads a device address).
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if self.memory != Memory::Host {
            return Err(PyAttributeError::new_err(
                "__array_interface__: this Array holds device memory; use .cpu() or __cuda_array_interface__",
            ));
        }
        self.interface(py)
    }

    /// The CUDA array interface (version 3, with `stream`); device arrays only.
    #[getter]
    fn __cuda_array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        if self.memory == Memory::Host {
            return Err(PyAttributeError::new_err(
                "__cuda_array_interface__: this Array holds host memory; use .cuda() or __array_interface__",
            ));
        }
        let d = self.interface(py)?;
        d.set_item("stream", self.stream)?;
        Ok(d)
    }

    /// A host array's bytes (a copy), e.g. `bytes(arr)`.
    fn __bytes__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, self.host_bytes("bytes(Array)")?))
    }

    /// The array itself when it is on the host; a host copy of a device array.
    pub fn cpu<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, Array>> {
        let py = slf.py();
        let a = slf.get();
        let Memory::Device { device_id } = a.memory else { return Ok(slf) };
        a.require_contiguous("Array.cpu()")?;
        let gpu = cuda::require_gpu(py, device_id)?;
        let (ptr, n, stream) = (a.ptr, a.nbytes(), a.stream);
        let bytes = py.detach(|| cuda::to_host(&gpu, ptr, n, stream)).map_err(|e| to_pyerr(py, e, Op::Decode, None))?;
        let mut host = Array::from_bytes(bytes, &a.typestr)?;
        host.shape = a.shape.clone();
        Bound::new(py, host)
    }

    /// The array itself when it is on GPU `device_id` (default: its own GPU, or 0 for host
    /// arrays); otherwise a copy there.
    #[pyo3(signature = (device_id = None))]
    pub fn cuda<'py>(slf: Bound<'py, Self>, device_id: Option<i32>) -> PyResult<Bound<'py, Array>> {
        let py = slf.py();
        let a = slf.get();
        a.require_contiguous("Array.cuda()")?;
        let copy = match (a.memory, device_id) {
            (Memory::Device { .. }, None) => return Ok(slf),
            (Memory::Device { device_id: own }, Some(want)) if own == want => return Ok(slf),
            (Memory::Device { device_id: own }, Some(want)) => {
                return Err(PyValueError::new_err(format!(
                    "Array.cuda({want}): the array is on GPU {own}; copies between GPUs are not supported"
                )));
            }
            (Memory::Host, want) => want.unwrap_or(0),
        };
        let gpu = cuda::require_gpu(py, copy)?;
        let bytes = a.host_bytes("Array.cuda()")?;
        let memory = py.detach(|| cuda::to_device(&gpu, bytes)).map_err(|e| to_pyerr(py, e, Op::Encode, None))?;
        let mut dev = Array::from_device(memory, a.nbytes(), copy, &a.typestr, None, StreamKeeper::Nothing)?;
        dev.shape = a.shape.clone();
        Bound::new(py, dev)
    }

    /// `(device_type, device_id)`: (1, 0) for host memory, (2, N) for GPU N.
    fn __dlpack_device__(&self) -> (i32, i32) {
        let d = self.dl_device();
        (d.device_type, d.device_id)
    }

    /// A DLPack capsule of the array: versioned (DLPack 1.x) when `max_version` >= (1, 0),
    /// else legacy. `stream` (the consumer's stream) needs no wait: the codecs return complete
    /// arrays. `dl_device` other than the array's own, or `copy=True`, exports a copy
    /// (`copy=False` then raises BufferError).
    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__<'py>(
        slf: Bound<'py, Self>,
        stream: Option<isize>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let a = slf.get();
        if a.memory == Memory::Host && stream.is_some_and(|s| s != -1) {
            return Err(PyValueError::new_err("__dlpack__: stream must be None for a host array"));
        }
        let versioned = max_version.is_some_and(|(major, _)| major >= 1);
        let own = a.dl_device();
        let target = dl_device.map_or(own, |(device_type, device_id)| DLDevice { device_type, device_id });
        let must_copy = target != own || copy == Some(true);
        if must_copy && copy == Some(false) {
            return Err(PyBufferError::new_err(format!(
                "__dlpack__: dl_device {:?} differs from the array's {:?} and copy=False",
                (target.device_type, target.device_id),
                (own.device_type, own.device_id)
            )));
        }
        let source = if !must_copy {
            slf
        } else {
            match target.device_type {
                dlpack::DEVICE_CPU if a.memory == Memory::Host => {
                    let bytes = a.host_bytes("__dlpack__")?.to_vec();
                    let mut c = Array::from_bytes(bytes, &a.typestr)?;
                    c.shape = a.shape.clone();
                    Bound::new(py, c)?
                }
                dlpack::DEVICE_CPU => Array::cpu(slf)?,
                dlpack::DEVICE_CUDA => match a.memory {
                    Memory::Host => Array::cuda(slf, Some(target.device_id))?,
                    Memory::Device { device_id } => {
                        let gpu = cuda::require_gpu(py, device_id)?;
                        let (ptr, n, producer) = (a.ptr, a.nbytes(), a.stream);
                        a.require_contiguous("__dlpack__")?;
                        let memory = py
                            .detach(|| cuda::copy_on_device(&gpu, ptr, n, producer))
                            .map_err(|e| to_pyerr(py, e, Op::Decode, None))?;
                        let mut c = Array::from_device(memory, n, device_id, &a.typestr, None, StreamKeeper::Nothing)?;
                        c.shape = a.shape.clone();
                        Bound::new(py, c)?
                    }
                },
                other => {
                    return Err(PyBufferError::new_err(format!(
                        "__dlpack__: dl_device type {other}: expected 1 (CPU) or 2 (CUDA)"
                    )));
                }
            }
        };
        let s = source.get();
        if let (Memory::Device { device_id }, Some(producer)) = (s.memory, s.stream) {
            // The consumer reads on `stream` (None: the legacy default stream, 1; -1: it
            // orders itself): order it after the work that completes this array.
            if let Some(consumer) = match stream {
                None => Some(1),
                Some(-1) => None,
                Some(c) => Some(c as usize),
            } {
                let gpu = cuda::require_gpu(py, device_id)?;
                cuda::order(&gpu, consumer, Some(producer)).map_err(|e| to_pyerr(py, e, Op::Decode, None))?;
            }
        }
        let item = s.item_size as isize;
        let export = dlpack::Export {
            data: s.ptr,
            device: s.dl_device(),
            typestr: s.typestr.clone(),
            shape: s.shape.iter().map(|&n| n as i64).collect(),
            strides: s.strides.as_ref().map(|v| v.iter().map(|&b| (b / item) as i64).collect()),
            readonly: s.readonly,
            copied: must_copy,
        };
        if s.strides.as_ref().is_some_and(|v| v.iter().any(|b| b % item != 0)) {
            return Err(PyBufferError::new_err("__dlpack__: byte strides that are not whole elements"));
        }
        dlpack::export(py, export, source.clone().into_any().unbind(), versioned)
    }

    fn __len__(&self) -> usize {
        self.shape.first().copied().unwrap_or(1)
    }

    fn __repr__(&self) -> String {
        let place = match self.memory {
            Memory::Host => "host".to_owned(),
            Memory::Device { device_id } => format!("cuda:{device_id}"),
        };
        format!("gpucomp.Array(shape={:?}, typestr={:?}, {place}, {} bytes)", self.shape, self.typestr, self.nbytes())
    }
}

/// `None` for strides that are C-contiguous (the array interface's spelling of them).
fn normalized(shape: &[usize], item_size: usize, strides: Option<Vec<isize>>) -> Option<Vec<isize>> {
    let s = strides?;
    let mut expected = item_size as isize;
    for (&n, &st) in shape.iter().zip(&s).rev() {
        if st != expected {
            return Some(s);
        }
        expected *= n as isize;
    }
    None
}

/// Bytes per element of an array-protocol type string (`<i4` -> 4, `|V16` -> 16, `<U3` -> 12).
pub fn item_size_of(typestr: &str) -> PyResult<usize> {
    let bad = || PyValueError::new_err(format!("typestr {typestr:?}: expected e.g. '<i4' or '|u1'"));
    let body = typestr.trim_start_matches(['<', '>', '|', '=']);
    let kind = body.chars().next().ok_or_else(bad)?;
    let n: usize = body[kind.len_utf8()..].parse().map_err(|_| bad())?;
    let size = if kind == 'U' { n * 4 } else { n };
    if size == 0 {
        return Err(bad());
    }
    Ok(size)
}

/// Reads an array interface dict (`__array_interface__` or `__cuda_array_interface__`).
fn from_interface<'py>(
    owner: &Bound<'py, PyAny>,
    iface: &Bound<'py, PyAny>,
    memory: Memory,
    what: &str,
) -> PyResult<Option<Array>> {
    let bad = |why: String| PyValueError::new_err(format!("{what}: {why}"));
    let py = iface.py();
    // Both interfaces are dicts: absent keys read as `None`, without raising a KeyError each
    // (which cost most of an import).
    let iface = iface.cast::<PyDict>().map_err(|_| bad(format!("expected a dict, got {}", iface.get_type())))?;
    fn item<'py>(d: &Bound<'py, PyDict>, k: &Bound<'py, PyString>) -> PyResult<Option<Bound<'py, PyAny>>> {
        d.get_item(k).map(|v| v.filter(|v| !v.is_none()))
    }
    let key = |k: &Bound<'py, PyString>| item(iface, k);
    let Some(data) = key(intern!(py, "data"))? else {
        // Data through the buffer protocol (array interface without an address).
        return Ok(None);
    };
    let (ptr, readonly): (usize, bool) =
        data.extract().map_err(|_| bad("'data' is not (address, read-only)".into()))?;
    let typestr: String = key(intern!(py, "typestr"))?.ok_or_else(|| bad("no 'typestr'".into()))?.extract()?;
    let shape: Vec<usize> = key(intern!(py, "shape"))?.ok_or_else(|| bad("no 'shape'".into()))?.extract()?;
    let strides: Option<Vec<isize>> = key(intern!(py, "strides"))?.map(|s| s.extract()).transpose()?;
    if strides.as_ref().is_some_and(|s| s.len() != shape.len()) {
        return Err(bad("'strides' and 'shape' differ in length".into()));
    }
    if key(intern!(py, "mask"))?.is_some() {
        return Err(bad("masked arrays are not supported".into()));
    }
    let stream = match memory {
        Memory::Host => None,
        Memory::Device { .. } => key(intern!(py, "stream"))?.map(|s| s.extract()).transpose()?,
    };
    let item_size = item_size_of(&typestr)?;
    Ok(Some(Array {
        ptr,
        strides: normalized(&shape, item_size, strides),
        shape,
        typestr,
        item_size,
        memory,
        readonly,
        stream,
        _owner: Owner::Object(owner.clone().unbind()),
    }))
}

/// `obj` as an Array, zero-copy: an Array itself, or anything with the CUDA array interface,
/// NumPy's array interface, DLPack, or the buffer protocol (bytes, bytearray, memoryview, ...).
pub fn as_array<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Array>> {
    Importer::new(None).import(obj)
}

/// The imports of one call's arrays (see [`Importer::import`]).
pub struct Importer {
    /// The stream the consumer reads on (a `cudaStream_t` value), for DLPack producers.
    consumer: Option<usize>,
    devices: cuda::DeviceOf,
    /// CuPy's `ndarray` type and the stream its interface named, when the first array imported
    /// through the interface was one.
    cupy: Option<(Py<PyType>, Option<usize>)>,
    /// Whether an array was imported through the interface yet.
    interfaced: bool,
}

impl Importer {
    /// An importer for a consumer that reads on stream `consumer`.
    pub fn new(consumer: Option<usize>) -> Importer {
        Importer { consumer, devices: cuda::DeviceOf::default(), cupy: None, interfaced: false }
    }

    /// `obj` as an Array, zero-copy: an Array itself, or anything with the CUDA array interface,
    /// NumPy's array interface, DLPack, or the buffer protocol. A DLPack producer on a GPU orders
    /// its work before the consumer's stream, else before the legacy default stream, which the
    /// array then names as its stream to wait on.
    pub fn import<'py>(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Array>> {
        let py = obj.py();
        if let Ok(a) = obj.cast::<Array>() {
            return Ok(a.clone());
        }
        if let Some((ty, stream)) = &self.cupy {
            if obj.get_type().is(ty.bind(py)) {
                return Bound::new(py, from_cupy(obj, *stream)?);
            }
        }
        let Some(iface) = obj.getattr_opt(intern!(py, "__cuda_array_interface__"))? else {
            return import_host(obj, self.consumer);
        };
        // An interface without `stream` (version 2, e.g. PyTorch's) cannot order our reads after
        // the producer's work; DLPack's stream handshake can, so it goes first there.
        let ordered = iface.cast::<PyDict>().is_ok_and(|d| d.contains(intern!(py, "stream")).unwrap_or(false));
        if !ordered && obj.hasattr("__dlpack__")? {
            return import_dlpack(obj, self.consumer);
        }
        let Some(mut a) = from_interface(obj, &iface, Memory::Device { device_id: 0 }, "__cuda_array_interface__")?
        else {
            return import_host(obj, self.consumer);
        };
        a.memory = Memory::Device { device_id: self.devices.of(a.ptr, a.nbytes())? };
        if !self.interfaced {
            self.interfaced = true;
            let ty = obj.get_type();
            if is_cupy_ndarray(&ty) {
                self.cupy = Some((ty.unbind(), a.stream));
            }
        }
        Bound::new(py, a)
    }
}

/// Whether `ty` is CuPy's `ndarray` (not a subclass, which may change what its attributes mean).
fn is_cupy_ndarray(ty: &Bound<'_, PyType>) -> bool {
    let named = |s: PyResult<Bound<'_, PyString>>, want: &str| s.is_ok_and(|s| s.to_str().is_ok_and(|s| s == want));
    named(ty.name(), "ndarray") && named(ty.module(), "cupy")
}

/// A CuPy array read from its public attributes (`data.ptr`, `data.device_id`, `shape`,
/// `strides`, `dtype.str`) with the interface's `stream`: what its `__cuda_array_interface__`
/// holds, without building that dict, which cost about a microsecond an array. CuPy's interface
/// names the thread's current stream, the same for every array of one call, so the first array
/// of a call is read through the interface and gives the stream for the others.
fn from_cupy(obj: &Bound<'_, PyAny>, stream: Option<usize>) -> PyResult<Array> {
    let py = obj.py();
    let data = obj.getattr(intern!(py, "data"))?;
    let shape: Vec<usize> = obj.getattr(intern!(py, "shape"))?.extract()?;
    let typestr: String = obj.getattr(intern!(py, "dtype"))?.getattr(intern!(py, "str"))?.extract()?;
    let strides: Vec<isize> = obj.getattr(intern!(py, "strides"))?.extract()?;
    let item_size = item_size_of(&typestr)?;
    // An empty array is contiguous, at address 0, as the interface gives it.
    let empty = shape.contains(&0);
    Ok(Array {
        ptr: if empty { 0 } else { data.getattr(intern!(py, "ptr"))?.extract()? },
        strides: if empty { None } else { normalized(&shape, item_size, Some(strides)) },
        shape,
        typestr,
        item_size,
        memory: Memory::Device { device_id: data.getattr(intern!(py, "device_id"))?.extract()? },
        readonly: false,
        stream,
        _owner: Owner::Object(obj.clone().unbind()),
    })
}

/// [`Importer::import`] of an object without a usable CUDA array interface.
fn import_host<'py>(obj: &Bound<'py, PyAny>, consumer: Option<usize>) -> PyResult<Bound<'py, Array>> {
    let py = obj.py();
    if let Some(iface) = obj.getattr_opt("__array_interface__")? {
        if let Some(a) = from_interface(obj, &iface, Memory::Host, "__array_interface__")? {
            return Bound::new(py, a);
        }
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        return Bound::new(
            py,
            Array {
                ptr: bytes.as_ptr() as usize,
                shape: vec![bytes.len()],
                strides: None,
                typestr: "|u1".into(),
                item_size: 1,
                memory: Memory::Host,
                readonly: true,
                stream: None,
                _owner: Owner::Object(obj.clone().unbind()),
            },
        );
    }
    if obj.hasattr("__dlpack__")? {
        return import_dlpack(obj, consumer);
    }
    // The buffer protocol (bytearray, memoryview, array.array, mmap): its limited-API form needs
    // Python 3.11, so NumPy (a dependency) reads it, zero-copy, and owns the export.
    let builtins = py.import("builtins")?;
    if let Ok(view) = builtins.getattr("memoryview")?.call1((obj,)) {
        let np = py.import("numpy")?;
        let arr = np.call_method1("asarray", (view,))?;
        let iface = arr.getattr("__array_interface__")?;
        if let Some(a) = from_interface(&arr, &iface, Memory::Host, "buffer")? {
            return Bound::new(py, a);
        }
    }
    Err(PyTypeError::new_err(format!(
        "expected an array: an object with __cuda_array_interface__, __array_interface__, __dlpack__ or \
         the buffer protocol (CuPy, PyTorch, JAX, NumPy, bytes, memoryview), got {}",
        obj.get_type().name()?
    )))
}

/// `obj`'s tensor through DLPack. A CUDA producer orders its work before `consumer`, or without
/// one before the legacy default stream (DLPack's stream 1), which readers then wait on.
fn import_dlpack<'py>(obj: &Bound<'py, PyAny>, consumer: Option<usize>) -> PyResult<Bound<'py, Array>> {
    // Named explicitly: some producers (PyTorch) take `stream=None` as "no ordering".
    const LEGACY_DEFAULT_STREAM: usize = 1;
    let stream = consumer.unwrap_or(LEGACY_DEFAULT_STREAM);
    let t = dlpack::import(obj, Some(stream as isize))?;
    // Readers on other streams wait on this one (a codec skips the wait on its own stream).
    Bound::new(obj.py(), Array::from_tensor(t, Some(stream))?)
}

/// Python's `from_dlpack(obj, cuda_stream=None)`: `obj`'s tensor through DLPack, zero-copy; a
/// GPU producer orders its work before `cuda_stream` (default: the legacy default stream).
#[pyfunction(signature = (obj, cuda_stream = None))]
pub fn from_dlpack<'py>(
    obj: &Bound<'py, PyAny>,
    cuda_stream: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, Array>> {
    if let Ok(a) = obj.cast::<Array>() {
        return Ok(a.clone());
    }
    import_dlpack(obj, consumer_stream(cuda_stream)?)
}

fn consumer_stream(cuda_stream: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    cuda_stream.filter(|s| !s.is_none()).map(crate::codec::stream_handle).transpose()
}

/// Python's `as_array(obj, cuda_stream=None)`: see [`as_array`]; `cuda_stream` as for
/// [`from_dlpack`].
#[pyfunction(name = "as_array", signature = (obj, cuda_stream = None))]
pub fn py_as_array<'py>(
    obj: &Bound<'py, PyAny>,
    cuda_stream: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, Array>> {
    Importer::new(consumer_stream(cuda_stream)?).import(obj)
}

/// Python's `as_arrays(objs)` (a list of array-like objects), or `as_arrays(buffer, offsets,
/// sizes)`: byte ranges of one buffer as separate arrays (`sizes` in bytes, each range inside
/// the buffer), all sharing the buffer's memory.
#[pyfunction(name = "as_arrays", signature = (objs, offsets = None, sizes = None, cuda_stream = None))]
pub fn py_as_arrays<'py>(
    objs: &Bound<'py, PyAny>,
    offsets: Option<Vec<usize>>,
    sizes: Option<Vec<usize>>,
    cuda_stream: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let py = objs.py();
    let consumer = consumer_stream(cuda_stream)?;
    match (offsets, sizes) {
        (None, None) => {
            let mut importer = Importer::new(consumer);
            let items: Vec<Bound<'py, Array>> =
                objs.try_iter()?.map(|o| importer.import(&o?)).collect::<PyResult<_>>()?;
            PyList::new(py, items)
        }
        (Some(offsets), Some(sizes)) => {
            if offsets.len() != sizes.len() {
                return Err(PyValueError::new_err(format!(
                    "as_arrays: {} offsets but {} sizes",
                    offsets.len(),
                    sizes.len()
                )));
            }
            let base = Importer::new(consumer).import(objs)?;
            let b = base.get();
            b.require_contiguous("as_arrays buffer")?;
            let total = b.nbytes();
            let owner = base.clone().into_any().unbind();
            let mut items = Vec::with_capacity(offsets.len());
            for (i, (&off, &len)) in offsets.iter().zip(&sizes).enumerate() {
                if off.checked_add(len).is_none_or(|end| end > total) {
                    return Err(PyValueError::new_err(format!(
                        "as_arrays: range {i} ({off}, {len} bytes) exceeds the buffer's {total} bytes"
                    )));
                }
                let a = Array {
                    ptr: b.ptr + off,
                    shape: vec![len],
                    strides: None,
                    typestr: "|u1".into(),
                    item_size: 1,
                    memory: b.memory,
                    readonly: b.readonly,
                    stream: b.stream,
                    _owner: Owner::Object(owner.clone_ref(py)),
                };
                items.push(Bound::new(py, a)?);
            }
            PyList::new(py, items)
        }
        _ => Err(PyTypeError::new_err("as_arrays: give both offsets and sizes, or neither")),
    }
}
