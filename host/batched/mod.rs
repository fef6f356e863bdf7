//! The low-level batched API, with nvCOMP's contract (`nvcompBatched*`).
//!
//! A batch is described by device arrays: `in_ptrs[i]` / `in_bytes[i]` for the chunks to read,
//! `out_ptrs[i]` for where to write them, and a per-chunk `statuses[i]` with nvCOMP's values
//! ([`crate::Status`]). Pointer arrays hold raw device addresses (`u64`), exactly as nvCOMP takes
//! `void* const*`, so buffers from any allocator work; that is also why the launching functions
//! are `unsafe`: the library cannot check addresses it has not allocated.
//!
//! Every `*_async` function only queues work on [`Gpu::stream`](crate::gpu::Gpu::stream) and
//! returns; results are valid once the stream reaches them. Size queries are host functions.
//! Temp space is sized by query and is as small as the options allow (often zero).
//!
//! One module per algorithm ([`lz4`], [`cascaded`], [`bitcomp`], [`ans`]), each a type implementing
//! [`BatchedCodec`]; [`for_algorithm`] gives the one for an [`Algorithm`].
pub mod ans;
pub mod bitcomp;
pub mod cascaded;
pub mod lz4;

/// Alignment (bytes) an algorithm requires of chunk pointers: `nvcompAlignmentRequirements_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alignments {
    /// Every input chunk pointer.
    pub input: usize,
    /// Every output chunk pointer.
    pub output: usize,
    /// The temp buffer.
    pub temp: usize,
}

use cudarc::driver::{CudaFunction, CudaSlice, DevicePtr, LaunchConfig};

use crate::algorithm::Algorithm;
use crate::error::{Error, Result, Status};
use crate::gpu::Gpu;

/// One algorithm's batched GPU codec with fixed options: nvCOMP's `nvcompBatched<X>*` functions.
pub trait BatchedCodec {
    /// Alignment of compression buffers (`nvcompBatched<X>CompressGetRequiredAlignments`).
    fn compress_alignments(&self) -> Alignments;

    /// Alignment of decompression buffers (`nvcompBatched<X>DecompressGetRequiredAlignments`).
    fn decompress_alignments(&self) -> Alignments;

    /// Largest compressed size of a chunk of up to `max_uncompressed_chunk_bytes`
    /// (`…CompressGetMaxOutputChunkSize`).
    fn max_compressed_chunk_size(&self, max_uncompressed_chunk_bytes: usize) -> Result<usize>;

    /// Temp bytes [`compress_async`](Self::compress_async) needs (`…CompressGetTempSize`).
    fn compress_temp_size(&self, num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize>;

    /// Temp bytes [`decompress_async`](Self::decompress_async) needs (`…DecompressGetTempSize`).
    fn decompress_temp_size(&self, num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize>;

    /// Queues compression of the batch (`…CompressAsync`).
    ///
    /// # Safety
    /// Every `in_ptrs[i]` must be a device address readable for `in_bytes[i]` bytes, with
    /// `in_bytes[i] <= max_uncompressed_chunk_bytes`, and every `out_ptrs[i]` writable for
    /// [`max_compressed_chunk_size`](Self::max_compressed_chunk_size) bytes, not overlapping
    /// any input, the temp buffer or another output, until the stream has run the work.
    unsafe fn compress_async(&self, gpu: &Gpu, batch: CompressBatch<'_>) -> Result<()>;

    /// Queues decompression of the batch (`…DecompressAsync`). Corrupt chunks and chunks that do
    /// not fit their output get `CannotDecompress` and a size of 0.
    ///
    /// # Safety
    /// Every `in_ptrs[i]` must be readable for `in_bytes[i]` bytes and every `out_ptrs[i]`
    /// writable for `out_capacity[i]` bytes, outputs not overlapping inputs or each other,
    /// until the stream has run the work.
    unsafe fn decompress_async(&self, gpu: &Gpu, batch: DecompressBatch<'_>) -> Result<()>;

    /// Queues the decompressed-size query (`nvcompBatched<X>GetDecompressSizeAsync`): each
    /// chunk's uncompressed size, 0 for a chunk that is not valid.
    ///
    /// # Safety
    /// Every `in_ptrs[i]` must be readable for `in_bytes[i]` bytes until the stream has run it.
    unsafe fn decompressed_size_async(
        &self,
        gpu: &Gpu,
        in_ptrs: &CudaSlice<u64>,
        in_bytes: &CudaSlice<u64>,
        num_chunks: usize,
        out_sizes: &mut CudaSlice<u64>,
    ) -> Result<()>;
}

/// The batched GPU codec of an algorithm with its options; `Unsupported` for options the
/// algorithm refuses. (A direction without a GPU kernel yet answers `Unsupported` when called.)
pub fn for_algorithm(algorithm: &Algorithm) -> Result<Box<dyn BatchedCodec>> {
    match algorithm {
        Algorithm::Lz4(o) => Ok(Box::new(lz4::Lz4::new(*o)?)),
        Algorithm::Cascaded(o) => Ok(Box::new(cascaded::Cascaded::new(*o)?)),
        Algorithm::Bitcomp(o) => Ok(Box::new(bitcomp::Bitcomp::new(*o)?)),
        Algorithm::Ans(o) => Ok(Box::new(ans::Ans::new(*o)?)),
    }
}

/// The device address of a buffer, and a check that it holds at least `count` elements.
fn address<T>(gpu: &Gpu, buf: &CudaSlice<T>, count: usize, what: &str) -> Result<u64> {
    if buf.len() < count {
        return Err(Error::InvalidArgument {
            status: Status::InvalidValue,
            reason: format!("{what} holds {} entries, the batch needs {count}", buf.len()),
        });
    }
    Ok(buf.device_ptr(gpu.stream()).0)
}

/// As [`address`], for an optional buffer: 0 (a null pointer) when absent.
fn optional_address<T>(gpu: &Gpu, buf: Option<&CudaSlice<T>>, count: usize, what: &str) -> Result<u64> {
    buf.map_or(Ok(0), |b| address(gpu, b, count, what))
}

/// The device arrays of one batched compression call (`nvcompBatched*CompressAsync`).
pub struct CompressBatch<'a> {
    /// Device addresses of the uncompressed chunks.
    pub in_ptrs: &'a CudaSlice<u64>,
    /// Their sizes in bytes.
    pub in_bytes: &'a CudaSlice<u64>,
    /// Chunks in the batch (the arrays may be longer).
    pub num_chunks: usize,
    /// Upper bound of `in_bytes` (nvCOMP's `max_uncompressed_chunk_bytes`; encoders size their
    /// tables by it: pass the largest chunk, as nvCOMP's high-level API does).
    pub max_uncompressed_chunk_bytes: usize,
    /// Temp space of at least the queried size (`None` when that size is 0).
    pub temp: Option<&'a mut CudaSlice<u8>>,
    /// Device addresses of the output chunks, each with room for the queried maximum size.
    pub out_ptrs: &'a CudaSlice<u64>,
    /// Receives each chunk's compressed size.
    pub out_bytes: &'a mut CudaSlice<u64>,
    /// Receives each chunk's status (optional, as in nvCOMP).
    pub statuses: Option<&'a mut CudaSlice<i32>>,
}

/// The device arrays of one batched decompression call (`nvcompBatched*DecompressAsync`).
pub struct DecompressBatch<'a> {
    /// Device addresses of the compressed chunks.
    pub in_ptrs: &'a CudaSlice<u64>,
    /// Their exact compressed sizes.
    pub in_bytes: &'a CudaSlice<u64>,
    /// Chunks in the batch (the arrays may be longer).
    pub num_chunks: usize,
    /// Upper bound of the uncompressed chunk sizes, as given to the temp-size query.
    pub max_uncompressed_chunk_bytes: usize,
    /// Temp space of at least the queried size (`None` when that size is 0).
    pub temp: Option<&'a mut CudaSlice<u8>>,
    /// Device addresses of the output chunks.
    pub out_ptrs: &'a CudaSlice<u64>,
    /// Room at each output address; a chunk that needs more fails with `CannotDecompress`.
    pub out_capacity: &'a CudaSlice<u64>,
    /// Receives each chunk's decompressed size (optional).
    pub out_actual: Option<&'a mut CudaSlice<u64>>,
    /// Receives each chunk's status (optional).
    pub statuses: Option<&'a mut CudaSlice<i32>>,
}

/// Checks a batch's `max_uncompressed_chunk_bytes` against an algorithm's chunk limit.
fn check_chunk_size(name: &str, bytes: usize, max: usize) -> Result<()> {
    if bytes > max {
        return Err(Error::InvalidArgument {
            status: Status::ChunkSizeTooLarge,
            reason: format!("{name} chunks hold at most {max} bytes, not {bytes}"),
        });
    }
    Ok(())
}

/// The 1-D launch of a chunk-parallel kernel: `grid` blocks of `block` threads, static shared
/// memory only.
fn launch_config(grid: u32, block: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }
}

/// Queues a decompression kernel with nvCOMP's batched signature `(in_ptrs, in_bytes, num_chunks,
/// out_ptrs, out_capacity, out_actual, statuses)` over the batch, one block of `block` threads per
/// chunk up to `grid`.
///
/// # Safety
/// `kernel` must take exactly that argument list; the batch must satisfy
/// [`BatchedCodec::decompress_async`]'s contract.
unsafe fn launch_decompress(
    gpu: &Gpu,
    kernel: &CudaFunction,
    batch: DecompressBatch<'_>,
    grid: impl Fn(u64) -> u32,
    block: u32,
) -> Result<()> {
    use cudarc::driver::PushKernelArg;
    let n = batch.num_chunks;
    let in_ptrs = address(gpu, batch.in_ptrs, n, "in_ptrs")?;
    let in_bytes = address(gpu, batch.in_bytes, n, "in_bytes")?;
    let out_ptrs = address(gpu, batch.out_ptrs, n, "out_ptrs")?;
    let out_capacity = address(gpu, batch.out_capacity, n, "out_capacity")?;
    let out_actual = optional_address(gpu, batch.out_actual.as_deref(), n, "out_actual")?;
    let statuses = optional_address(gpu, batch.statuses.as_deref(), n, "statuses")?;
    if n == 0 {
        return Ok(());
    }
    let num = n as u64;
    // SAFETY: the argument list is the kernel's (caller's contract); the addresses hold `n`
    // entries (checked above) and the chunks they point to are valid per the caller's contract.
    unsafe {
        gpu.stream()
            .launch_builder(kernel)
            .arg(&in_ptrs)
            .arg(&in_bytes)
            .arg(&num)
            .arg(&out_ptrs)
            .arg(&out_capacity)
            .arg(&out_actual)
            .arg(&statuses)
            .launch(launch_config(grid(num), block))?
    };
    Ok(())
}

/// Queues a compression kernel with the batched signature `(in_ptrs, in_bytes, num_chunks,
/// out_ptrs, out_bytes, statuses, options...)`, the options being `u32` values, on a `(grid,
/// block, dynamic shared bytes)` geometry.
///
/// # Safety
/// `kernel` must take exactly that argument list; the batch must satisfy
/// [`BatchedCodec::compress_async`]'s contract.
unsafe fn launch_compress(
    gpu: &Gpu,
    kernel: &CudaFunction,
    batch: CompressBatch<'_>,
    (grid, block, dynamic_shared): (u32, u32, u32),
    options: &[u32],
) -> Result<()> {
    use cudarc::driver::PushKernelArg;
    let n = batch.num_chunks;
    let in_ptrs = address(gpu, batch.in_ptrs, n, "in_ptrs")?;
    let in_bytes = address(gpu, batch.in_bytes, n, "in_bytes")?;
    let out_ptrs = address(gpu, batch.out_ptrs, n, "out_ptrs")?;
    let out_bytes = address(gpu, batch.out_bytes, n, "out_bytes")?;
    let statuses = optional_address(gpu, batch.statuses.as_deref(), n, "statuses")?;
    if n == 0 {
        return Ok(());
    }
    let num = n as u64;
    let mut launch = gpu.stream().launch_builder(kernel);
    launch.arg(&in_ptrs).arg(&in_bytes).arg(&num).arg(&out_ptrs).arg(&out_bytes).arg(&statuses);
    for o in options {
        launch.arg(o);
    }
    // SAFETY: the argument list is the kernel's (caller's contract); the arrays hold `n` entries
    // (checked above) and the chunks they point to are valid per the caller's contract.
    unsafe { launch.launch(LaunchConfig { shared_mem_bytes: dynamic_shared, ..launch_config(grid, block) })? };
    Ok(())
}

/// Queues a header-reading size-query kernel (`cascaded_decompressed_size`, …) with the geometry
/// they share (`gpucomp_kernels::size_query`: one thread per chunk).
///
/// # Safety
/// As [`launch_size_query`].
unsafe fn launch_header_size_query(
    gpu: &Gpu,
    kernel: &CudaFunction,
    arrays: (&CudaSlice<u64>, &CudaSlice<u64>, usize, &mut CudaSlice<u64>),
) -> Result<()> {
    use gpucomp_kernels::size_query::{size_grid_dim, SIZE_BLOCK_THREADS};
    let geometry = (size_grid_dim(arrays.2 as u64), SIZE_BLOCK_THREADS);
    // SAFETY: the caller's contract is this function's.
    unsafe { launch_size_query(gpu, kernel, arrays, geometry) }
}

/// Queues a size-query kernel `(in_ptrs, in_bytes, num_chunks, out_sizes)` on a `(grid, block)`
/// geometry.
///
/// # Safety
/// `kernel` must take exactly that argument list; every `in_ptrs[i]` must be readable for
/// `in_bytes[i]` bytes until the stream has run it.
unsafe fn launch_size_query(
    gpu: &Gpu,
    kernel: &CudaFunction,
    (in_ptrs, in_bytes, num_chunks, out_sizes): (&CudaSlice<u64>, &CudaSlice<u64>, usize, &mut CudaSlice<u64>),
    (grid, block): (u32, u32),
) -> Result<()> {
    use cudarc::driver::PushKernelArg;
    let n = num_chunks;
    let (ip, ib) = (address(gpu, in_ptrs, n, "in_ptrs")?, address(gpu, in_bytes, n, "in_bytes")?);
    let os = address(gpu, out_sizes, n, "out_sizes")?;
    if n == 0 {
        return Ok(());
    }
    let num = n as u64;
    // SAFETY: the argument list is the kernel's (caller's contract); the arrays hold `n` entries.
    unsafe {
        gpu.stream().launch_builder(kernel).arg(&ip).arg(&ib).arg(&num).arg(&os).launch(launch_config(grid, block))?
    };
    Ok(())
}
