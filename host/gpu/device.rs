//! Opening a GPU: driver and device checks, the context, the stream, the kernel module, and the
//! memory pool every device buffer of the library comes from.
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::result::mem_pool;
use cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream, DeviceRepr, DriverError, ValidAsZeroBits};

use super::kernels::Kernels;
use super::read_back::ReadBack;
use super::upload::Upload;
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
///
/// Memory: every device buffer the library allocates ([`Gpu::alloc`]: outputs, staging, uploads,
/// temp space) comes from one memory pool per device, private to gpucomp and shared by every
/// `Gpu` of the device, allocated and freed in stream order. The pool keeps the memory it has
/// mapped when buffers are freed (its release threshold is unlimited), so repeated calls reuse it
/// instead of mapping it again after each synchronisation, as the device's default pool (release
/// threshold 0) would. The device memory it holds is therefore the peak of what the library's live
/// buffers needed at once since the process opened the device; [`Gpu::release_cached_memory`]
/// gives the unused part back, [`Gpu::reserved_memory`] tells how much it holds. The device's
/// default and current pools (what `cudaMallocAsync` and other libraries use) are not touched.
#[derive(Clone)]
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernels: Arc<Kernels>,
    pool: Option<Pool>,
    info: DeviceInfo,
    /// The page-locked buffer this stream's read-backs go through (shared by clones, which
    /// share the stream).
    read_back: Arc<ReadBack>,
    /// The page-locked buffer this stream's uploads go through (shared as `read_back` is).
    upload: Arc<Upload>,
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

/// Whether the CUDA driver library (`libcuda.so`) loads. Checked once per process: the check is a
/// `dlopen`, which costs microseconds, and callers ask it per array.
pub fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only attempts dlopen() of the driver library; makes no CUDA call.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

impl Gpu {
    /// Opens device `ordinal`: loads the driver, creates (retains) its primary context and a
    /// stream, and loads the PTX that fits its compute capability.
    ///
    /// Errors: [`Error::NoDriver`] when `libcuda.so` cannot be loaded, [`Error::NoDevice`] when
    /// the driver reports no such device, [`Error::Unsupported`] below compute capability 8.0,
    /// [`Error::Cuda`] for other driver failures. Never panics.
    pub fn new(ordinal: usize) -> Result<Gpu> {
        if !driver_present() {
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
        Ok(Gpu {
            ctx: shared.ctx,
            stream,
            kernels: shared.kernels,
            pool: shared.pool,
            info: shared.info,
            read_back: Arc::default(),
            upload: Arc::default(),
        })
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
        Gpu { stream, read_back: Arc::default(), upload: Arc::default(), ..self.clone() }
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

    /// Copies `len` bytes at device address `address` to the host after the work queued on
    /// [`Gpu::stream`], waits for them, and passes them to `f` (through page-locked memory).
    ///
    /// # Safety
    /// `address..address + len` must be readable device memory of this device.
    pub(crate) unsafe fn read_back<R>(&self, address: u64, len: usize, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        // SAFETY: this function's contract.
        unsafe { self.read_back.read(&self.ctx, &self.stream, address, len, f) }
    }

    /// Queues a copy of `words` to device address `address` on [`Gpu::stream`] through
    /// page-locked memory; returns once the words are staged.
    ///
    /// # Safety
    /// `address..address + 8 · words.len()` must be writable device memory of this device, not
    /// used by other work until the stream has run the copy.
    pub(crate) unsafe fn upload(&self, address: u64, words: &[u64]) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { self.upload.write(&self.ctx, &self.stream, address, bytemuck::cast_slice(words)) }
    }

    /// [`read_back`](Self::read_back), calling `then` once the copy is queued so that it can
    /// queue more work behind it; waits for the copy only.
    ///
    /// # Safety
    /// As [`read_back`](Self::read_back).
    pub(crate) unsafe fn read_back_then<R>(
        &self,
        address: u64,
        len: usize,
        then: impl FnOnce() -> Result<()>,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        // SAFETY: this function's contract.
        unsafe { self.read_back.read_then(&self.ctx, &self.stream, address, len, Some(then), f) }
    }

    /// A new device buffer of `len` elements, uninitialised, from the device's gpucomp pool (see
    /// [`Gpu`]), allocated in order on [`Gpu::stream`] and freed on drop in order on it. A buffer
    /// of 0 elements holds a 1-byte allocation (the driver refuses 0-byte ones). On a device
    /// without memory pools, cudarc's allocation on the stream.
    ///
    /// # Safety
    /// The memory is uninitialised: every element must be written before it is read.
    pub unsafe fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::invalid(format!("{len} elements of {} bytes overflow", std::mem::size_of::<T>())))?
            .max(1);
        let address = match self.pool {
            Some(pool) => {
                self.ctx.bind_to_thread()?;
                // SAFETY: the pool and the stream are live objects of this device's context.
                unsafe { mem_pool::alloc_async(pool.0, bytes, self.stream.cu_stream())? }
            }
            // SAFETY: taken over below.
            None => unsafe { self.stream.alloc::<u8>(bytes)? }.leak(),
        };
        // SAFETY: a live allocation of `bytes` >= `len` elements of `T`, allocated on this stream:
        // the slice frees it there on drop (cuMemFreeAsync returns it to the pool it came from).
        Ok(unsafe { self.stream.upgrade_device_ptr::<T>(address, len) })
    }

    /// [`Gpu::alloc`], zeroed (a memset queued on [`Gpu::stream`]).
    pub fn alloc_zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<CudaSlice<T>> {
        // SAFETY: zeroed below before anything can read it.
        let mut buf = unsafe { self.alloc::<T>(len)? };
        if len > 0 {
            self.stream.memset_zeros(&mut buf)?;
        }
        Ok(buf)
    }

    /// Gives the memory the device's gpucomp pool holds but no live buffer uses back to the
    /// driver (`cuMemPoolTrimTo(pool, 0)`). Buffers dropped on a stream that has not reached their
    /// free yet still count as used: synchronise the streams first to release everything. The
    /// next allocations map memory again. Nothing to do on a device without memory pools.
    pub fn release_cached_memory(&self) -> Result<()> {
        if let Some(pool) = self.pool {
            self.ctx.bind_to_thread()?;
            // SAFETY: a live pool; trimming never touches memory in use.
            unsafe { mem_pool::trim_to(pool.0, 0)? };
        }
        Ok(())
    }

    /// Bytes of device memory the device's gpucomp pool holds now, in use or cached for reuse
    /// (`CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT`); 0 on a device without memory pools.
    pub fn reserved_memory(&self) -> Result<u64> {
        let Some(pool) = self.pool else { return Ok(0) };
        let mut bytes = 0u64;
        self.ctx.bind_to_thread()?;
        // SAFETY: a live pool; this attribute is a `cuuint64_t`, written to `bytes`.
        unsafe {
            mem_pool::get_attribute(
                pool.0,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
                (&mut bytes as *mut u64).cast(),
            )?
        };
        Ok(bytes)
    }
}

/// gpucomp's memory pool on one device (see [`Gpu`]), created once per device and process and
/// never destroyed (like the context, it lives as long as the process).
#[derive(Clone, Copy)]
struct Pool(sys::CUmemoryPool);

// SAFETY: a pool handle is a driver object that any thread may use; the pool is never destroyed.
unsafe impl Send for Pool {}
// SAFETY: as above; the driver serialises concurrent use of the pool.
unsafe impl Sync for Pool {}

impl Pool {
    /// A pool of device memory on `ctx`'s device that keeps what it maps; `None` when the device
    /// has no memory pools (cudarc then allocates without one, and frees synchronously).
    fn create(ctx: &CudaContext) -> Result<Option<Pool>> {
        if !ctx.has_async_alloc() {
            return Ok(None);
        }
        // SAFETY: all-zero bytes are a valid value of this plain C struct (null pointer, zero
        // sizes, the enums' 0 variants); the fields that matter are set below.
        let mut props: sys::CUmemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        // The location's id is the device ordinal (ordinals count an `i32` device count).
        let id = i32::try_from(ctx.ordinal()).map_err(|_| Error::invalid("device ordinal out of range"))?;
        props.location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id };
        ctx.bind_to_thread()?;
        // SAFETY: `props` is a valid pool description of this device, alive during the call.
        let pool = Pool(unsafe { mem_pool::create(&props)? });
        // Unlimited: synchronisations never give the pool's memory back; a 256 MiB batch through
        // the default pool (threshold 0) mapped its staging (~270 MB) and outputs again every call.
        let mut threshold = u64::MAX;
        // SAFETY: a live pool; this attribute is a `cuuint64_t`, read from `threshold`.
        unsafe {
            mem_pool::set_attribute(
                pool.0,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&mut threshold as *mut u64).cast(),
            )?
        };
        Ok(Some(pool))
    }
}

/// What every [`Gpu`] of one device shares: the context, the loaded module, the memory pool, the
/// device's facts.
#[derive(Clone)]
struct Shared {
    ctx: Arc<CudaContext>,
    kernels: Arc<Kernels>,
    pool: Option<Pool>,
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
        let pool = Pool::create(&ctx)?;
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
        Ok(Shared { ctx, kernels: Arc::new(kernels), pool, info })
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
