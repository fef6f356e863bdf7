//! The GPU side of arrays: opened GPUs (one per ordinal, shared by every Codec and Array), the
//! device of an address, waits on a producer's stream, and copies between host and device.
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Mutex, OnceLock};

use cudarc::driver::{result, sys, CudaSlice, DevicePtr};
use gpucomp::gpu::Gpu;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::CudaError;

/// GPU `ordinal`, opened once per process (the failure text when it cannot be): a `Codec` per
/// call must not reload the kernel module, and a machine without a GPU must not retry loading
/// the driver each time.
pub fn gpu(ordinal: usize) -> Result<Gpu, String> {
    static GPUS: OnceLock<Mutex<HashMap<usize, Result<Gpu, String>>>> = OnceLock::new();
    let mut gpus = GPUS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    gpus.entry(ordinal).or_insert_with(|| Gpu::new(ordinal).map_err(|e| e.to_string())).clone()
}

/// GPU `ordinal` or a CudaError saying why it cannot be opened.
pub fn require_gpu(py: Python<'_>, ordinal: i32) -> PyResult<Gpu> {
    let o = usize::try_from(ordinal).map_err(|_| PyValueError::new_err(format!("device {ordinal}: not a GPU")))?;
    py.detach(|| gpu(o)).map_err(|e| CudaError::new_err(format!("GPU {o}: {e}")))
}

/// The devices of the addresses of one batch of arrays, asked of the CUDA driver once per
/// allocation: pools (CuPy's, PyTorch's) carve many arrays out of one allocation, and asking the
/// driver about each cost about a microsecond an array. Lives for one import of a batch, while
/// the arrays keep their memory.
#[derive(Default)]
pub struct DeviceOf {
    /// The last allocation asked about and its device.
    last: Option<(Range<usize>, i32)>,
}

impl DeviceOf {
    /// The device ordinal of the `len` bytes at device address `ptr` (0 when no CUDA driver is
    /// loaded, so that the address cannot be checked).
    pub fn of(&mut self, ptr: usize, len: usize) -> PyResult<i32> {
        if ptr == 0 || !gpucomp::gpu::driver_present() {
            return Ok(0);
        }
        if let Some((range, ordinal)) = &self.last {
            if range.contains(&ptr) && ptr.saturating_add(len) <= range.end {
                return Ok(*ordinal);
            }
        }
        let (mut start, mut size, mut ordinal): (sys::CUdeviceptr, usize, i32) = (0, 0, -1);
        let mut attributes = [
            sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
            sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_SIZE,
            sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        ];
        let mut data = [
            &mut start as *mut sys::CUdeviceptr as *mut std::ffi::c_void,
            &mut size as *mut usize as *mut std::ffi::c_void,
            &mut ordinal as *mut i32 as *mut std::ffi::c_void,
        ];
        // SAFETY: each attribute's value is written to the matching pointer (a CUdeviceptr, a
        // size_t and an int); the driver validates the address.
        let r = unsafe {
            sys::cuPointerGetAttributes(
                attributes.len() as u32,
                attributes.as_mut_ptr(),
                data.as_mut_ptr(),
                ptr as sys::CUdeviceptr,
            )
        };
        match r {
            // An address the driver does not know reads as success with null values: no range.
            sys::CUresult::CUDA_SUCCESS if size > 0 && ordinal >= 0 => {
                let start = start as usize;
                self.last = Some((start..start.saturating_add(size), ordinal));
                Ok(ordinal)
            }
            e => Err(PyValueError::new_err(format!(
                "address {ptr:#x} is not device memory the CUDA driver knows ({e:?}); expected a CUDA allocation"
            ))),
        }
    }
}

/// Orders `gpu`'s stream after the work queued so far on `producer` (a CUDA array interface /
/// DLPack stream value: 1 legacy default, 2 per-thread default, else a `cudaStream_t` of the
/// device), with an event: no device-wide synchronisation.
pub fn wait_for(gpu: &Gpu, producer: Option<usize>) -> gpucomp::Result<()> {
    match producer {
        // SAFETY: the producer's stream value comes from its array interface, which promises a
        // live stream of the array's device.
        Some(p) => unsafe { gpu.wait_for_stream(p as sys::CUstream) },
        None => Ok(()),
    }
}

/// Orders `consumer` (a stream value as in [`wait_for`]) after `producer`'s queued work.
pub fn order(gpu: &Gpu, consumer: usize, producer: Option<usize>) -> gpucomp::Result<()> {
    if producer.is_none_or(|p| p == consumer) {
        return Ok(());
    }
    // SAFETY: the consumer passed its own live stream of this device (DLPack's contract).
    let borrowed = unsafe { gpu.with_borrowed_stream(consumer as sys::CUstream) };
    wait_for(&borrowed, producer)
}

/// A host copy of `n` device bytes at `ptr`, read after `producer`'s queued work.
pub fn to_host(gpu: &Gpu, ptr: usize, n: usize, producer: Option<usize>) -> gpucomp::Result<Vec<u8>> {
    let mut out = vec![0u8; n];
    if n == 0 {
        return Ok(out);
    }
    wait_for(gpu, producer)?;
    gpu.context().bind_to_thread()?;
    // SAFETY: `ptr` addresses `n` bytes of this device's memory (the caller's array); `out`
    // holds `n` bytes and outlives the copy, which the synchronize below completes.
    unsafe { result::memcpy_dtoh_async(&mut out, ptr as sys::CUdeviceptr, gpu.stream().cu_stream())? };
    gpu.synchronize()?;
    Ok(out)
}

/// A device copy of host bytes, in gpucomp's memory pool.
pub fn to_device(gpu: &Gpu, bytes: &[u8]) -> gpucomp::Result<CudaSlice<u8>> {
    // SAFETY: every byte is written by the copy below before anything reads it.
    let mut out = unsafe { gpu.alloc::<u8>(bytes.len())? };
    if !bytes.is_empty() {
        gpu.stream().memcpy_htod(bytes, &mut out)?;
    }
    gpu.synchronize()?;
    Ok(out)
}

/// A device copy of `n` device bytes at `ptr`, read after `producer`'s queued work, in
/// gpucomp's memory pool.
pub fn copy_on_device(gpu: &Gpu, ptr: usize, n: usize, producer: Option<usize>) -> gpucomp::Result<CudaSlice<u8>> {
    // SAFETY: every byte is written by the copy below before anything reads it.
    let out = unsafe { gpu.alloc::<u8>(n)? };
    if n > 0 {
        wait_for(gpu, producer)?;
        let (dst, _sync) = out.device_ptr(gpu.stream());
        // SAFETY: `ptr` addresses `n` device bytes of the caller's array; `out` holds `n`.
        unsafe { result::memcpy_dtod_async(dst, ptr as sys::CUdeviceptr, n, gpu.stream().cu_stream())? };
    }
    gpu.synchronize()?;
    Ok(out)
}

/// Copies host bytes to device address `dst` (at least `bytes.len()` bytes of this device's
/// memory, the caller's) and waits for the copy.
pub fn upload(gpu: &Gpu, bytes: &[u8], dst: usize) -> gpucomp::Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    gpu.context().bind_to_thread()?;
    // SAFETY: `dst` holds `bytes.len()` writable device bytes (checked by the caller); `bytes`
    // outlives the copy, which the synchronize below completes.
    unsafe { result::memcpy_htod_async(dst as sys::CUdeviceptr, bytes, gpu.stream().cu_stream())? };
    gpu.synchronize()?;
    Ok(())
}
