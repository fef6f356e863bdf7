//! Opening a GPU: driver and device checks, the context, the stream, and the kernel module.
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{sys, CudaContext, CudaStream, DriverError};

use super::kernels::Kernels;
use crate::error::{Error, Result};

/// One CUDA device with gpucomp's kernels loaded and a stream to run them on.
///
/// Every launch goes to [`Gpu::stream`], in order; nothing in the library synchronises that
/// stream except the functions documented as synchronous (the high-level API, which returns
/// host values). Cloning is cheap (shared context, stream and module).
///
/// The context and the loaded module are opened once per device and process: every
/// [`Gpu::new`] of one ordinal after the first shares them and only creates its own stream
/// (loading the module takes milliseconds; a per-call binding must not pay that).
/// [`Gpu::with_borrowed_stream`] gives a `Gpu` that launches on a stream the caller owns.
#[derive(Clone)]
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernels: Arc<Kernels>,
    info: DeviceInfo,
}

/// What the library knows about the device it runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Device name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Number of streaming multiprocessors.
    pub multiprocessors: u32,
    /// Global memory, bytes.
    pub memory_bytes: usize,
    /// Shared memory one block may opt in to, bytes.
    pub max_shared_per_block: u32,
    /// Which embedded PTX was loaded ("sm_90" or "sm_80").
    pub ptx_arch: &'static str,
}

impl Gpu {
    /// Opens device `ordinal`: loads the driver, creates (retains) its primary context and a
    /// stream, and loads the PTX that fits its compute capability.
    ///
    /// Errors: [`Error::NoDriver`] when `libcuda.so` cannot be loaded, [`Error::NoDevice`] when
    /// the driver reports no such device, [`Error::Unsupported`] below compute capability 8.0,
    /// [`Error::Cuda`] for other driver failures. Never panics.
    pub fn new(ordinal: usize) -> Result<Gpu> {
        // SAFETY: only attempts dlopen() of the driver library; makes no CUDA call.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::NoDriver);
        }
        // cudarc panics if a driver symbol it needs is missing (a driver older than the
        // bindings): turn that into an error rather than unwinding through the caller.
        std::panic::catch_unwind(|| Self::open(ordinal)).unwrap_or_else(|_| {
            Err(Error::NoDevice("the CUDA driver is missing an entry point (driver too old?)".into()))
        })
    }

    fn open(ordinal: usize) -> Result<Gpu> {
        static OPENED: OnceLock<Mutex<HashMap<usize, Shared>>> = OnceLock::new();
        let mut opened = OPENED.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        let shared = match opened.get(&ordinal) {
            Some(s) => s.clone(),
            None => {
                let s = Shared::open(ordinal)?;
                opened.insert(ordinal, s.clone());
                s
            }
        };
        drop(opened);
        let stream = shared.ctx.new_stream()?;
        Ok(Gpu { ctx: shared.ctx, stream, kernels: shared.kernels, info: shared.info })
    }

    /// A clone of this `Gpu` whose launches, copies and allocations go to `stream`, a stream
    /// the caller owns (e.g. a CuPy or PyTorch stream), instead of the `Gpu`'s own.
    ///
    /// # Safety
    /// `stream` must be a valid stream of this device's primary context ([`Gpu::context`]) and
    /// must outlive the returned `Gpu`, its clones, and every buffer allocated through them
    /// (buffers are freed on the stream they were allocated on).
    pub unsafe fn with_borrowed_stream(&self, stream: sys::CUstream) -> Gpu {
        // SAFETY: the caller guarantees the stream's context and lifetime.
        let stream = unsafe { self.ctx.wrap_borrowed_stream(stream) };
        Gpu { stream, ..self.clone() }
    }

    /// Orders the work queued on [`Gpu::stream`] from now on after the work queued so far on
    /// `producer`: an event recorded on `producer`, which this `Gpu`'s stream waits for. Neither
    /// the host nor the device is synchronised.
    ///
    /// # Safety
    /// `producer` must be a valid stream of this device's primary context, alive during the call.
    pub unsafe fn wait_for_stream(&self, producer: sys::CUstream) -> Result<()> {
        // SAFETY: the caller guarantees the stream; the wrapper lives only for this call and does
        // not destroy the stream on drop.
        let producer = unsafe { self.ctx.wrap_borrowed_stream(producer) };
        Ok(self.stream.join(&producer)?)
    }

    /// The device this runs on.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The CUDA context (the device's primary context).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every launch of this `Gpu` goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Waits for all work queued on [`Gpu::stream`].
    pub fn synchronize(&self) -> Result<()> {
        Ok(self.stream.synchronize()?)
    }

    pub(crate) fn kernels(&self) -> &Kernels {
        &self.kernels
    }
}

/// What every [`Gpu`] of one device shares: the context, the loaded module, the device's facts.
#[derive(Clone)]
struct Shared {
    ctx: Arc<CudaContext>,
    kernels: Arc<Kernels>,
    info: DeviceInfo,
}

impl Shared {
    fn open(ordinal: usize) -> Result<Shared> {
        let ctx = CudaContext::new(ordinal).map_err(|e| match e.0 {
            sys::cudaError_enum::CUDA_ERROR_NO_DEVICE | sys::cudaError_enum::CUDA_ERROR_INVALID_DEVICE => {
                Error::NoDevice(format!("device {ordinal}: {e}"))
            }
            _ => Error::Cuda(e),
        })?;
        let compute_capability = ctx.compute_capability()?;
        let (ptx_arch, ptx) = super::kernels::ptx_for(compute_capability).ok_or_else(|| {
            Error::Unsupported(format!(
                "compute capability {}.{}: gpucomp needs 8.0 or newer",
                compute_capability.0, compute_capability.1
            ))
        })?;
        // Stream-ordered use of every buffer: cudarc's per-buffer event tracking would only add
        // work to each launch (and break graph capture).
        // SAFETY: the library uses each buffer on the stream of the Gpu that allocated it.
        unsafe { ctx.disable_event_tracking() };
        let kernels = Kernels::load(&ctx, ptx)?;
        let info = DeviceInfo {
            ordinal,
            name: ctx.name()?,
            compute_capability,
            multiprocessors: attribute(&ctx, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            memory_bytes: ctx.total_mem()?,
            max_shared_per_block: attribute(
                &ctx,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            ptx_arch,
        };
        Ok(Shared { ctx, kernels: Arc::new(kernels), info })
    }
}

fn attribute(ctx: &CudaContext, a: sys::CUdevice_attribute) -> Result<u32, DriverError> {
    ctx.attribute(a).map(|v| v.max(0) as u32)
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("info", &self.info).finish_non_exhaustive()
    }
}
