//! DLPack: the ABI structs (DLPack 1.x `DLManagedTensorVersioned` and the legacy
//! `DLManagedTensor`), export of an Array as a capsule, and import of a producer's capsule.
use std::ffi::{c_void, CStr};

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `DLDeviceType` values used here.
pub const DEVICE_CPU: i32 = 1;
/// `kDLCUDA`.
pub const DEVICE_CUDA: i32 = 2;
/// `kDLCUDAHost` (pinned host memory).
pub const DEVICE_CUDA_HOST: i32 = 3;
/// `kDLCUDAManaged`.
pub const DEVICE_CUDA_MANAGED: i32 = 13;

/// `DLPACK_FLAG_BITMASK_READ_ONLY`.
const FLAG_READ_ONLY: u64 = 1;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`.
const FLAG_IS_COPIED: u64 = 2;
/// `kDLFloat8_e4m3fn` (DLPack 1.1): nvCOMP's FLOAT8 E4M3.
const CODE_FLOAT8_E4M3FN: u8 = 10;

const LEGACY: &CStr = c"dltensor";
const LEGACY_USED: &CStr = c"used_dltensor";
const VERSIONED: &CStr = c"dltensor_versioned";
const VERSIONED_USED: &CStr = c"used_dltensor_versioned";

/// `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDevice {
    /// `DLDeviceType`.
    pub device_type: i32,
    /// The device ordinal.
    pub device_id: i32,
}

/// `DLDataType`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

/// `DLTensor`.
#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

/// `DLManagedTensor` (legacy, unversioned).
#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy)]
struct DLPackVersion {
    major: u32,
    minor: u32,
}

/// `DLManagedTensorVersioned` (DLPack 1.x).
#[repr(C)]
struct DLManagedTensorVersioned {
    version: DLPackVersion,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DLTensor,
}

/// A tensor to export: address, device, element type, shape and strides (in elements).
pub struct Export {
    /// Data address.
    pub data: usize,
    /// Where it lives.
    pub device: DLDevice,
    /// Array-protocol type string of the elements.
    pub typestr: String,
    /// Shape.
    pub shape: Vec<i64>,
    /// Strides in elements; `None` for C-contiguous.
    pub strides: Option<Vec<i64>>,
    /// Read-only memory.
    pub readonly: bool,
    /// The memory is a copy made for this export.
    pub copied: bool,
}

/// What an exported tensor's `manager_ctx` keeps: the shape and strides it points to and the
/// Python object that owns the memory.
struct Keep {
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    _owner: Py<PyAny>,
}

#[repr(C)]
struct ExportedLegacy {
    managed: DLManagedTensor,
    keep: Keep,
}

#[repr(C)]
struct ExportedVersioned {
    managed: DLManagedTensorVersioned,
    keep: Keep,
}

unsafe extern "C" fn delete_legacy(m: *mut DLManagedTensor) {
    if !m.is_null() {
        // SAFETY: `m` is the first field of the ExportedLegacy box `export` leaked; the deleter
        // runs once (DLPack's contract). Dropping the owner without the GIL defers its decref.
        drop(unsafe { Box::from_raw(m as *mut ExportedLegacy) });
    }
}

unsafe extern "C" fn delete_versioned(m: *mut DLManagedTensorVersioned) {
    if !m.is_null() {
        // SAFETY: as in `delete_legacy`, for the ExportedVersioned box.
        drop(unsafe { Box::from_raw(m as *mut ExportedVersioned) });
    }
}

/// The capsule destructor: a capsule nobody consumed (still named `dltensor`) frees its tensor.
unsafe extern "C" fn destroy_legacy_capsule(capsule: *mut ffi::PyObject) {
    // SAFETY: called by Python with a live capsule; the pointer under our name is ours.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, LEGACY.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(capsule, LEGACY.as_ptr()) as *mut DLManagedTensor;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        }
    }
}

unsafe extern "C" fn destroy_versioned_capsule(capsule: *mut ffi::PyObject) {
    // SAFETY: as in `destroy_legacy_capsule`.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, VERSIONED.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(capsule, VERSIONED.as_ptr()) as *mut DLManagedTensorVersioned;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        }
    }
}

fn dtype_of(typestr: &str, versioned: bool) -> PyResult<DLDataType> {
    let body = typestr.trim_start_matches(['<', '|', '=']);
    if typestr.starts_with('>') && !body.ends_with('1') {
        return Err(PyBufferError::new_err(format!("DLPack: big-endian type {typestr} cannot be exported")));
    }
    let size: u8 = body.get(1..).and_then(|n| n.parse().ok()).unwrap_or(0);
    let code = match (body.as_bytes().first(), size) {
        (Some(b'i'), _) => 0,
        (Some(b'u'), _) => 1,
        // nvCOMP's "|f1" (FLOAT8 E4M3): a DLPack 1.1 type; bytes for legacy consumers.
        (Some(b'f'), 1) if versioned => CODE_FLOAT8_E4M3FN,
        (Some(b'f'), 1) => 1,
        (Some(b'f'), _) => 2,
        (Some(b'c'), _) => 5,
        (Some(b'b'), _) => 6,
        _ => return Err(PyBufferError::new_err(format!("DLPack: type {typestr} has no DLPack equivalent"))),
    };
    if size == 0 || size > 16 {
        return Err(PyBufferError::new_err(format!("DLPack: type {typestr} has no DLPack equivalent")));
    }
    Ok(DLDataType { code, bits: size * 8, lanes: 1 })
}

fn typestr_of(t: DLDataType) -> PyResult<String> {
    if t.lanes != 1 || !t.bits.is_multiple_of(8) || t.bits == 0 {
        return Err(PyTypeError::new_err(format!(
            "DLPack: {} lanes of {} bits: expected one lane of whole bytes",
            t.lanes, t.bits
        )));
    }
    let size = t.bits / 8;
    let order = if size == 1 { '|' } else { '<' };
    Ok(match t.code {
        0 => format!("{order}i{size}"),
        1 => format!("{order}u{size}"),
        2 => format!("{order}f{size}"),
        5 => format!("{order}c{size}"),
        6 => format!("{order}b{size}"),
        CODE_FLOAT8_E4M3FN => "|f1".to_owned(),
        // bfloat16, other float8 formats: their bytes, as NumPy's opaque type.
        _ => format!("|V{size}"),
    })
}

/// A DLPack capsule of `t` (versioned when `versioned`), keeping `owner` alive until the
/// consumer's deleter (or the unconsumed capsule's destructor) runs.
pub fn export<'py>(py: Python<'py>, t: Export, owner: Py<PyAny>, versioned: bool) -> PyResult<Bound<'py, PyAny>> {
    let dtype = dtype_of(&t.typestr, versioned)?;
    let mut keep = Keep { shape: t.shape, strides: t.strides, _owner: owner };
    let tensor = DLTensor {
        data: t.data as *mut c_void,
        device: t.device,
        ndim: keep.shape.len() as i32,
        dtype,
        shape: keep.shape.as_mut_ptr(),
        strides: keep.strides.as_mut().map_or(std::ptr::null_mut(), |s| s.as_mut_ptr()),
        byte_offset: 0,
    };
    let (ptr, name, destructor): (*mut c_void, &CStr, ffi::PyCapsule_Destructor) = if versioned {
        let flags = if t.readonly { FLAG_READ_ONLY } else { 0 } | if t.copied { FLAG_IS_COPIED } else { 0 };
        let b = Box::new(ExportedVersioned {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion { major: 1, minor: 1 },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_versioned),
                flags,
                dl_tensor: tensor,
            },
            keep,
        });
        let raw = Box::into_raw(b);
        // SAFETY: `raw` is the live box just leaked.
        unsafe { (*raw).managed.manager_ctx = raw as *mut c_void };
        (raw as *mut c_void, VERSIONED, destroy_versioned_capsule)
    } else {
        let b = Box::new(ExportedLegacy {
            managed: DLManagedTensor {
                dl_tensor: tensor,
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_legacy),
            },
            keep,
        });
        let raw = Box::into_raw(b);
        // SAFETY: `raw` is the live box just leaked.
        unsafe { (*raw).managed.manager_ctx = raw as *mut c_void };
        (raw as *mut c_void, LEGACY, destroy_legacy_capsule)
    };
    // SAFETY: `ptr` is a leaked box whose deleter the capsule's destructor calls unless a
    // consumer renames the capsule and takes it over; `name` is a static C string.
    let capsule = unsafe { ffi::PyCapsule_New(ptr, name.as_ptr(), Some(destructor)) };
    if capsule.is_null() {
        // SAFETY: the capsule was not made, so the box is still ours to free.
        unsafe {
            if versioned {
                delete_versioned(ptr as *mut DLManagedTensorVersioned)
            } else {
                delete_legacy(ptr as *mut DLManagedTensor)
            }
        };
        return Err(PyErr::fetch(py));
    }
    // SAFETY: `capsule` is a new, owned reference.
    Ok(unsafe { Bound::from_owned_ptr(py, capsule) })
}

/// A consumed capsule's tensor: its deleter runs when this is dropped.
pub struct Imported {
    managed: *mut c_void,
    versioned: bool,
}

// SAFETY: DLPack's deleter may be called from any thread, and nothing else touches the pointer.
unsafe impl Send for Imported {}
// SAFETY: shared references only read the (immutable) tensor description.
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        // SAFETY: `managed` is the producer's tensor, taken over once; its deleter runs once.
        unsafe {
            if self.versioned {
                let m = self.managed as *mut DLManagedTensorVersioned;
                if let Some(d) = (*m).deleter {
                    d(m);
                }
            } else {
                let m = self.managed as *mut DLManagedTensor;
                if let Some(d) = (*m).deleter {
                    d(m);
                }
            }
        }
    }
}

/// A producer's tensor, read from its DLPack capsule.
pub struct Tensor {
    /// Data address (byte offset applied).
    pub data: usize,
    /// Where it lives.
    pub device: DLDevice,
    /// Array-protocol type string.
    pub typestr: String,
    /// Bytes per element.
    pub item_size: usize,
    /// Shape.
    pub shape: Vec<usize>,
    /// Byte strides, `None` when the producer gave none (C-contiguous).
    pub strides: Option<Vec<isize>>,
    /// Read-only (DLPack 1.x flag).
    pub readonly: bool,
    /// Keeps the memory alive; runs the producer's deleter when dropped.
    pub keep: Imported,
}

/// Calls `obj.__dlpack__` (asking for a versioned capsule, with `stream` for CUDA producers:
/// the stream the consumer will use) and takes the tensor over.
pub fn import(obj: &Bound<'_, PyAny>, stream: Option<isize>) -> PyResult<Tensor> {
    let py = obj.py();
    let device: Option<(i32, i32)> = match obj.getattr_opt("__dlpack_device__")? {
        Some(f) => Some(f.call0()?.extract()?),
        None => None,
    };
    let kwargs = PyDict::new(py);
    if matches!(device, Some((DEVICE_CUDA | DEVICE_CUDA_MANAGED, _))) {
        kwargs.set_item("stream", stream)?;
    }
    kwargs.set_item("max_version", (1, 1))?;
    let dlpack = obj.getattr("__dlpack__")?;
    let capsule = match dlpack.call((), Some(&kwargs)) {
        Ok(c) => c,
        // A producer older than DLPack 1.0 takes no max_version.
        Err(e) if e.is_instance_of::<PyTypeError>(py) => {
            kwargs.del_item("max_version")?;
            dlpack.call((), Some(&kwargs))?
        }
        Err(e) => return Err(e),
    };
    let cap = capsule.as_ptr();
    // SAFETY: `cap` is a live object; IsValid checks type and name without raising.
    let versioned = unsafe { ffi::PyCapsule_IsValid(cap, VERSIONED.as_ptr()) } == 1;
    // SAFETY: as above.
    if !versioned && unsafe { ffi::PyCapsule_IsValid(cap, LEGACY.as_ptr()) } != 1 {
        return Err(PyTypeError::new_err("__dlpack__ did not return an unconsumed DLPack capsule"));
    }
    let (name, used) = if versioned { (VERSIONED, VERSIONED_USED) } else { (LEGACY, LEGACY_USED) };
    // SAFETY: the capsule is valid under `name` (checked above).
    let managed = unsafe { ffi::PyCapsule_GetPointer(cap, name.as_ptr()) };
    if managed.is_null() {
        return Err(PyErr::fetch(py));
    }
    // Take it over: renamed, the capsule's destructor leaves the tensor to us.
    // SAFETY: a valid capsule and a static name.
    if unsafe { ffi::PyCapsule_SetName(cap, used.as_ptr()) } != 0 {
        return Err(PyErr::fetch(py));
    }
    let keep = Imported { managed, versioned };
    // SAFETY: `managed` points to the producer's live tensor of the capsule's kind.
    let (tensor, flags, version) = unsafe {
        if versioned {
            let m = &*(managed as *const DLManagedTensorVersioned);
            (&m.dl_tensor, m.flags, m.version.major)
        } else {
            let m = &*(managed as *const DLManagedTensor);
            (&m.dl_tensor, 0, 1)
        }
    };
    if version != 1 {
        return Err(PyBufferError::new_err(format!("DLPack major version {version}: gpucomp reads version 1")));
    }
    let typestr = typestr_of(tensor.dtype)?;
    let item_size = usize::from(tensor.dtype.bits / 8);
    let ndim = usize::try_from(tensor.ndim).map_err(|_| PyTypeError::new_err("DLPack: negative ndim"))?;
    let read = |p: *const i64| -> Vec<i64> {
        if p.is_null() || ndim == 0 {
            Vec::new()
        } else {
            // SAFETY: DLPack's shape and strides arrays hold `ndim` values.
            unsafe { std::slice::from_raw_parts(p, ndim) }.to_vec()
        }
    };
    let shape: Vec<usize> = read(tensor.shape)
        .into_iter()
        .map(|n| usize::try_from(n).map_err(|_| PyTypeError::new_err("DLPack: negative extent")))
        .collect::<PyResult<_>>()?;
    let strides = (!tensor.strides.is_null() && ndim > 0)
        .then(|| read(tensor.strides).into_iter().map(|s| s as isize * item_size as isize).collect());
    Ok(Tensor {
        data: tensor.data as usize + tensor.byte_offset as usize,
        device: tensor.device,
        typestr,
        item_size,
        shape,
        strides,
        readonly: flags & FLAG_READ_ONLY != 0,
        keep,
    })
}
