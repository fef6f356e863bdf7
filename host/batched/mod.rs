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
//! One module per algorithm ([`lz4`], [`cascaded`], [`bitcomp`], [`ans`], [`zstd`]), each a type with the
//! algorithm's options that describes its kernels, limits, alignments and sizes; [`BatchedCodec`] is
//! implemented once, in this module, for every such description. [`for_algorithm`] gives the codec
//! of an [`Algorithm`].
pub mod ans;
pub mod bitcomp;
pub mod cascaded;
pub mod lz4;
pub mod zstd;

use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig};

use crate::algorithm::Algorithm;
use crate::error::{Error, Result, Status};
use crate::gpu::kernels::{
    CompressArgs, DecompressArgs, Kernel, KernelArgs, Kernels, SizeQueryArgs, SplitDecompressArgs,
};
use crate::gpu::Gpu;

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
    /// (ANS: a `u32` per chunk once chunks may span several thread blocks; a call given less runs
    /// one block per chunk.)
    fn compress_temp_size(&self, num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize>;

    /// Temp bytes [`decompress_async`](Self::decompress_async) needs (`…DecompressGetTempSize`).
    /// (ANS and Cascaded: a `u32` per chunk once chunks may span several thread blocks; Bitcomp:
    /// once chunks hold two 8 KiB blocks, a warp each. A call given less runs one block, or for
    /// Bitcomp one warp, per chunk.)
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

    /// [`compress_async`](Self::compress_async) with the arrays given by device address, so that
    /// they may live anywhere (e.g. all in one allocation, uploaded by one copy).
    ///
    /// # Safety
    /// As [`compress_async`](Self::compress_async); besides, each array address must hold
    /// `num_chunks` entries (`statuses` 0: none).
    unsafe fn compress_async_at(&self, gpu: &Gpu, batch: CompressBatchAt<'_>) -> Result<()>;

    /// [`decompress_async`](Self::decompress_async) with the arrays given by device address.
    ///
    /// # Safety
    /// As [`decompress_async`](Self::decompress_async); besides, each array address must hold
    /// `num_chunks` entries (`out_actual` and `statuses` 0: none).
    unsafe fn decompress_async_at(&self, gpu: &Gpu, batch: DecompressBatchAt<'_>) -> Result<()>;

    /// [`decompressed_size_async`](Self::decompressed_size_async) with the arrays given by device
    /// address.
    ///
    /// # Safety
    /// As [`decompressed_size_async`](Self::decompressed_size_async); besides, each array address
    /// must hold `num_chunks` entries.
    unsafe fn decompressed_size_async_at(
        &self,
        gpu: &Gpu,
        in_ptrs: u64,
        in_bytes: u64,
        num_chunks: usize,
        out_sizes: u64,
    ) -> Result<()>;
}

/// The batched GPU codec of an algorithm with its options; `Unsupported` for options the
/// algorithm refuses. (A direction without a GPU kernel answers `Unsupported` when called: Zstd
/// compression, which runs on the CPU codec.)
pub fn for_algorithm(algorithm: &Algorithm) -> Result<Box<dyn BatchedCodec>> {
    match algorithm {
        Algorithm::Lz4(o) => Ok(Box::new(lz4::Lz4::new(*o)?)),
        Algorithm::Cascaded(o) => Ok(Box::new(cascaded::Cascaded::new(*o)?)),
        Algorithm::Bitcomp(o) => Ok(Box::new(bitcomp::Bitcomp::new(*o)?)),
        Algorithm::Ans(o) => Ok(Box::new(ans::Ans::new(*o)?)),
        Algorithm::Zstd(o) => Ok(Box::new(zstd::Zstd::new(*o)?)),
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
    /// tables by it: pass the largest chunk, as nvCOMP's high-level API does; ANS also spreads a
    /// chunk over more thread blocks by it when the batch has few chunks).
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
    /// Upper bound of the uncompressed chunk sizes, as given to the temp-size query (ANS,
    /// Cascaded and Bitcomp also spread a chunk over more thread blocks by it when the batch has
    /// few chunks; 0: unknown).
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

/// [`CompressBatch`] with its arrays as device addresses ([`BatchedCodec::compress_async_at`]).
pub struct CompressBatchAt<'a> {
    /// Address of the `u64` array of uncompressed chunk addresses.
    pub in_ptrs: u64,
    /// Address of the `u64` array of their sizes.
    pub in_bytes: u64,
    /// Chunks in the batch.
    pub num_chunks: usize,
    /// Upper bound of the chunk sizes (see [`CompressBatch::max_uncompressed_chunk_bytes`]).
    pub max_uncompressed_chunk_bytes: usize,
    /// Temp space of at least the queried size (`None` when that size is 0).
    pub temp: Option<&'a mut CudaSlice<u8>>,
    /// Address of the `u64` array of output chunk addresses.
    pub out_ptrs: u64,
    /// Address of the `u64` array receiving the compressed sizes.
    pub out_bytes: u64,
    /// Address of the `i32` array receiving the statuses, or 0.
    pub statuses: u64,
}

/// [`DecompressBatch`] with its arrays as device addresses ([`BatchedCodec::decompress_async_at`]).
pub struct DecompressBatchAt<'a> {
    /// Address of the `u64` array of compressed chunk addresses.
    pub in_ptrs: u64,
    /// Address of the `u64` array of their exact sizes.
    pub in_bytes: u64,
    /// Chunks in the batch.
    pub num_chunks: usize,
    /// Upper bound of the uncompressed chunk sizes, as given to the temp-size query (ANS,
    /// Cascaded and Bitcomp also spread a chunk over more thread blocks by it when the batch has
    /// few chunks; 0: unknown).
    pub max_uncompressed_chunk_bytes: usize,
    /// Temp space of at least the queried size (`None` when that size is 0).
    pub temp: Option<&'a mut CudaSlice<u8>>,
    /// Address of the `u64` array of output chunk addresses.
    pub out_ptrs: u64,
    /// Address of the `u64` array of the room at each output.
    pub out_capacity: u64,
    /// Address of the `u64` array receiving the decompressed sizes, or 0.
    pub out_actual: u64,
    /// Address of the `i32` array receiving the statuses, or 0.
    pub statuses: u64,
}

/// The part of an algorithm's batched codec that is not shared: its limits, alignments, sizes,
/// kernels and their launches. [`BatchedCodec`] is implemented for every description.
pub(crate) trait Description {
    /// The kernels and limits that do not depend on the options.
    const TABLE: Table;

    /// The compression kernels' options.
    type Options: KernelArgs + Copy;

    /// Alignments of the compression buffers, then of the decompression buffers.
    fn alignments(&self) -> (Alignments, Alignments);

    /// Largest compressed size of a chunk of up to `max_chunk` bytes (within the chunk limit).
    fn bound(&self, max_chunk: usize) -> usize;

    /// Temp bytes of a compression (within the chunk limit).
    fn compress_temp(&self, _num_chunks: usize, _max_chunk: usize) -> usize {
        0
    }

    /// Temp bytes of a decompression: a split kernel's words, else none.
    fn decompress_temp(&self, num_chunks: usize, max_chunk: usize) -> usize {
        match &Self::TABLE.decompress {
            DecompressKernel::Fixed(_) | DecompressKernel::Own => 0,
            DecompressKernel::Split(split) => (split.temp_bytes)(num_chunks as u64, max_chunk as u64) as usize,
        }
    }

    /// The compression kernel for `num_chunks` chunks of up to `max_chunk` bytes (within the chunk
    /// limit), with its launch and options; `Unsupported` for options without a GPU compressor.
    fn compress_launch<'k>(
        &self,
        gpu: &'k Gpu,
        num_chunks: usize,
        max_chunk: usize,
    ) -> Result<CompressLaunch<'k, Self::Options>>;

    /// Runs before the compression kernel, once the batch's addresses are in `args` (a non-empty
    /// batch): may stage the input elsewhere in `temp` and point `args` there.
    fn prepare_compress(
        &self,
        _gpu: &Gpu,
        _args: &mut CompressArgs<Self::Options>,
        _max_chunk: usize,
        _temp: Option<&mut CudaSlice<u8>>,
    ) -> Result<()> {
        Ok(())
    }

    /// Queues the compression kernel on the prepared batch `args` (non-empty), or whatever the
    /// algorithm runs in its place for these options and chunk sizes.
    ///
    /// # Safety
    /// As [`BatchedCodec::compress_async_at`]; `args` addresses the batch's arrays.
    unsafe fn launch_compress(
        &self,
        gpu: &Gpu,
        launch: CompressLaunch<'_, Self::Options>,
        args: &CompressArgs<Self::Options>,
        _max_chunk: usize,
        _temp: Option<&mut CudaSlice<u8>>,
    ) -> Result<()> {
        // SAFETY: this function's contract.
        unsafe { launch.kernel.launch(gpu.stream(), launch.config, args) }
    }

    /// Runs before the decompression kernel (a non-empty batch): may point `args.out_actual` into
    /// `temp` when a later pass needs the sizes.
    fn prepare_decompress(
        &self,
        _gpu: &Gpu,
        _args: &mut DecompressArgs,
        _temp: Option<&mut CudaSlice<u8>>,
    ) -> Result<()> {
        Ok(())
    }

    /// Queues the decompression kernel over a non-empty batch (after
    /// [`prepare_decompress`](Self::prepare_decompress)) of chunks of up to `max_chunk` bytes (0:
    /// not known): [`Table::decompress`] by default, over the chunk count or split.
    ///
    /// # Safety
    /// The arrays in `args` hold `num_chunks` entries, the chunks they point to are valid per
    /// [`BatchedCodec::decompress_async`]'s contract, and `temp` is not in use by other work.
    unsafe fn launch_decompress(
        &self,
        gpu: &Gpu,
        args: &DecompressArgs,
        max_chunk: usize,
        temp: Option<&mut CudaSlice<u8>>,
    ) -> Result<()> {
        match &Self::TABLE.decompress {
            DecompressKernel::Fixed(geometry) => {
                let (kernel, config) = geometry.launch(gpu, args.num_chunks);
                // SAFETY: this function's contract.
                unsafe { kernel.launch(gpu.stream(), config, args) }
            }
            // SAFETY: this function's contract.
            DecompressKernel::Split(split) => unsafe { split.launch(gpu, args, max_chunk, temp) },
            DecompressKernel::Own => {
                Err(Error::Unsupported(format!("{}: the description launches its own decompression", Self::TABLE.name)))
            }
        }
    }

    /// Runs after the decompression kernel, with its arguments.
    fn finish_decompress(&self, _gpu: &Gpu, _args: &DecompressArgs) -> Result<()> {
        Ok(())
    }
}

/// What an algorithm's batched codec fixes whatever its options.
pub(crate) struct Table {
    /// The algorithm's name in errors.
    pub(crate) name: &'static str,
    /// Largest uncompressed chunk the compressor takes.
    pub(crate) max_chunk: usize,
    /// Largest uncompressed chunk the decompression temp-size query takes (`None`: not checked).
    pub(crate) max_decompress_chunk: Option<usize>,
    /// The decompression kernel and its geometry.
    pub(crate) decompress: DecompressKernel,
    /// The size-query kernel and its geometry.
    pub(crate) size_query: Geometry<SizeQueryArgs>,
}

/// A kernel of [`Kernels`] and its 1-D geometry from the chunk count, static shared memory only.
pub(crate) struct Geometry<A> {
    /// The entry point.
    pub(crate) kernel: fn(&Kernels) -> &Kernel<A>,
    /// Blocks for a chunk count.
    pub(crate) grid: fn(u64) -> u32,
    /// Threads per block.
    pub(crate) block: u32,
}

impl<A> Geometry<A> {
    /// `kernel` on the geometry of the header-reading size queries (`gpucomp_kernels::size_query`:
    /// one thread per chunk).
    pub(crate) const fn header_size_query(kernel: fn(&Kernels) -> &Kernel<A>) -> Geometry<A> {
        use gpucomp_kernels::size_query::{size_grid_dim, SIZE_BLOCK_THREADS};
        Geometry { kernel, grid: size_grid_dim, block: SIZE_BLOCK_THREADS }
    }

    /// The kernel on `gpu` and its launch over `num_chunks` chunks.
    fn launch<'k>(&self, gpu: &'k Gpu, num_chunks: u64) -> (&'k Kernel<A>, LaunchConfig) {
        ((self.kernel)(gpu.kernels()), launch_config((self.grid)(num_chunks), self.block))
    }
}

/// How a decompression kernel is launched.
pub(crate) enum DecompressKernel {
    /// A geometry from the chunk count alone.
    Fixed(Geometry<DecompressArgs>),
    /// Several thread blocks per chunk when the batch has few chunks.
    Split(SplitGeometry),
    /// The description's [`launch_decompress`](Description::launch_decompress) launches it.
    Own,
}

/// A decompression kernel that spreads a chunk over several parts, each adding its verdict to the
/// chunk's word in the temp: thread blocks when the batch has few chunks (`ans_decompress`,
/// `cascaded_decompress`), or warps, one per 8 KiB block (`bitcomp_decompress`). Its entry point
/// and its geometry from `gpucomp_kernels` (parts per chunk, grid, block size).
pub(crate) struct SplitGeometry {
    /// The entry point.
    pub(crate) kernel: fn(&Kernels) -> &Kernel<SplitDecompressArgs>,
    /// Parts per chunk for (chunks, largest chunk, SMs).
    pub(crate) parts_per_chunk: fn(u64, u64, u32) -> u32,
    /// Blocks for (chunks, parts per chunk, SMs).
    pub(crate) grid: fn(u64, u32, u32) -> u32,
    /// Threads per block.
    pub(crate) block: u32,
    /// Temp bytes for (chunks, largest chunk): the chunks' words, or 0 when no such batch splits.
    pub(crate) temp_bytes: fn(u64, u64) -> u64,
}

impl SplitGeometry {
    /// Queues the kernel over a non-empty batch of chunks of up to `max_chunk` bytes (0: not
    /// known) at `parts_per_chunk` parts per chunk, the chunks' words (a `u32` each) at the
    /// start of `temp`, zeroed on the stream first; at one part per chunk when `temp` is absent,
    /// too small or not 4-byte aligned.
    ///
    /// # Safety
    /// As [`Description::launch_decompress`].
    unsafe fn launch(
        &self,
        gpu: &Gpu,
        args: &DecompressArgs,
        max_chunk: usize,
        temp: Option<&mut CudaSlice<u8>>,
    ) -> Result<()> {
        let n = args.num_chunks;
        let sms = gpu.info().multiprocessors;
        let split = (self.parts_per_chunk)(n, max_chunk as u64, sms);
        let (split, parts) = split_parts(gpu, split, temp, n)?;
        let config = launch_config((self.grid)(n, split, sms), self.block);
        let kernel = (self.kernel)(gpu.kernels());
        // SAFETY: the batch per this function's contract; `parts` holds `n` words zeroed on the
        // stream before the launch (when `split > 1`).
        unsafe { kernel.launch(gpu.stream(), config, &SplitDecompressArgs { batch: *args, parts, split }) }
    }
}

/// `split` parts (blocks or warps) per chunk and the device address of the chunks' `u32` words
/// at the start of `temp`, zeroed on the stream, where the parts of a chunk combine; one part per
/// chunk (and no words) at `split` 1 or when `temp` cannot hold them 4-byte aligned.
fn split_parts(gpu: &Gpu, split: u32, temp: Option<&mut CudaSlice<u8>>, num_chunks: u64) -> Result<(u32, u64)> {
    let bytes = 4 * num_chunks as usize;
    match temp {
        Some(t) if split > 1 && t.len() >= bytes && t.device_ptr(gpu.stream()).0 % 4 == 0 => {
            let mut words = t.slice_mut(..bytes);
            gpu.stream().memset_zeros(&mut words)?;
            let parts = words.device_ptr(gpu.stream()).0;
            Ok((split, parts))
        }
        _ => Ok((1, 0)),
    }
}

/// A chosen compression kernel, its launch and the options it takes.
pub(crate) struct CompressLaunch<'k, O> {
    /// The entry point.
    pub(crate) kernel: &'k Kernel<CompressArgs<O>>,
    /// Grid, block and dynamic shared memory.
    pub(crate) config: LaunchConfig,
    /// The kernel's options.
    pub(crate) options: O,
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

/// [`check_chunk_size`] against the compressor's limit.
fn check_compress_chunk<D: Description>(bytes: usize) -> Result<()> {
    check_chunk_size(D::TABLE.name, bytes, D::TABLE.max_chunk)
}

impl<D: Description> BatchedCodec for D {
    fn compress_alignments(&self) -> Alignments {
        self.alignments().0
    }

    fn decompress_alignments(&self) -> Alignments {
        self.alignments().1
    }

    fn max_compressed_chunk_size(&self, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_compress_chunk::<D>(max_uncompressed_chunk_bytes)?;
        Ok(self.bound(max_uncompressed_chunk_bytes))
    }

    fn compress_temp_size(&self, num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_compress_chunk::<D>(max_uncompressed_chunk_bytes)?;
        Ok(self.compress_temp(num_chunks, max_uncompressed_chunk_bytes))
    }

    fn decompress_temp_size(&self, num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        if let Some(max) = D::TABLE.max_decompress_chunk {
            check_chunk_size(D::TABLE.name, max_uncompressed_chunk_bytes, max)?;
        }
        Ok(self.decompress_temp(num_chunks, max_uncompressed_chunk_bytes))
    }

    unsafe fn compress_async(&self, gpu: &Gpu, batch: CompressBatch<'_>) -> Result<()> {
        let n = batch.num_chunks;
        let at = CompressBatchAt {
            in_ptrs: address(gpu, batch.in_ptrs, n, "in_ptrs")?,
            in_bytes: address(gpu, batch.in_bytes, n, "in_bytes")?,
            num_chunks: n,
            max_uncompressed_chunk_bytes: batch.max_uncompressed_chunk_bytes,
            temp: batch.temp,
            out_ptrs: address(gpu, batch.out_ptrs, n, "out_ptrs")?,
            out_bytes: address(gpu, batch.out_bytes, n, "out_bytes")?,
            statuses: optional_address(gpu, batch.statuses.as_deref(), n, "statuses")?,
        };
        // SAFETY: the arrays hold `n` entries (checked above); the rest is this function's contract.
        unsafe { self.compress_async_at(gpu, at) }
    }

    unsafe fn decompress_async(&self, gpu: &Gpu, batch: DecompressBatch<'_>) -> Result<()> {
        let n = batch.num_chunks;
        let at = DecompressBatchAt {
            in_ptrs: address(gpu, batch.in_ptrs, n, "in_ptrs")?,
            in_bytes: address(gpu, batch.in_bytes, n, "in_bytes")?,
            num_chunks: n,
            max_uncompressed_chunk_bytes: batch.max_uncompressed_chunk_bytes,
            temp: batch.temp,
            out_ptrs: address(gpu, batch.out_ptrs, n, "out_ptrs")?,
            out_capacity: address(gpu, batch.out_capacity, n, "out_capacity")?,
            out_actual: optional_address(gpu, batch.out_actual.as_deref(), n, "out_actual")?,
            statuses: optional_address(gpu, batch.statuses.as_deref(), n, "statuses")?,
        };
        // SAFETY: the arrays hold `n` entries (checked above); the rest is this function's contract.
        unsafe { self.decompress_async_at(gpu, at) }
    }

    unsafe fn decompressed_size_async(
        &self,
        gpu: &Gpu,
        in_ptrs: &CudaSlice<u64>,
        in_bytes: &CudaSlice<u64>,
        num_chunks: usize,
        out_sizes: &mut CudaSlice<u64>,
    ) -> Result<()> {
        let n = num_chunks;
        let (i, b, o) = (
            address(gpu, in_ptrs, n, "in_ptrs")?,
            address(gpu, in_bytes, n, "in_bytes")?,
            address(gpu, out_sizes, n, "out_sizes")?,
        );
        // SAFETY: the arrays hold `n` entries (checked above); the rest is this function's contract.
        unsafe { self.decompressed_size_async_at(gpu, i, b, n, o) }
    }

    unsafe fn compress_async_at(&self, gpu: &Gpu, batch: CompressBatchAt<'_>) -> Result<()> {
        let max_chunk = batch.max_uncompressed_chunk_bytes;
        check_compress_chunk::<D>(max_chunk)?;
        let launch = self.compress_launch(gpu, batch.num_chunks, max_chunk)?;
        let n = batch.num_chunks;
        let mut args = CompressArgs {
            in_ptrs: batch.in_ptrs,
            in_bytes: batch.in_bytes,
            num_chunks: n as u64,
            out_ptrs: batch.out_ptrs,
            out_bytes: batch.out_bytes,
            statuses: batch.statuses,
            options: launch.options,
        };
        if n == 0 {
            return Ok(());
        }
        let mut temp = batch.temp;
        self.prepare_compress(gpu, &mut args, max_chunk, temp.as_deref_mut())?;
        // SAFETY: the arrays hold `n` entries and the chunks they point to are valid per this
        // function's contract.
        unsafe { self.launch_compress(gpu, launch, &args, max_chunk, temp) }
    }

    unsafe fn decompress_async_at(&self, gpu: &Gpu, batch: DecompressBatchAt<'_>) -> Result<()> {
        let n = batch.num_chunks;
        let mut args = DecompressArgs {
            in_ptrs: batch.in_ptrs,
            in_bytes: batch.in_bytes,
            num_chunks: n as u64,
            out_ptrs: batch.out_ptrs,
            out_capacity: batch.out_capacity,
            out_actual: batch.out_actual,
            statuses: batch.statuses,
        };
        if n == 0 {
            return Ok(());
        }
        let mut temp = batch.temp;
        self.prepare_decompress(gpu, &mut args, temp.as_deref_mut())?;
        // SAFETY: the arrays hold `n` entries and the chunks they point to are valid per this
        // function's contract; the temp buffer is this call's.
        unsafe { self.launch_decompress(gpu, &args, batch.max_uncompressed_chunk_bytes, temp)? };
        self.finish_decompress(gpu, &args)
    }

    unsafe fn decompressed_size_async_at(
        &self,
        gpu: &Gpu,
        in_ptrs: u64,
        in_bytes: u64,
        num_chunks: usize,
        out_sizes: u64,
    ) -> Result<()> {
        let args = SizeQueryArgs { in_ptrs, in_bytes, num_chunks: num_chunks as u64, out_sizes };
        if num_chunks == 0 {
            return Ok(());
        }
        let (kernel, config) = D::TABLE.size_query.launch(gpu, args.num_chunks);
        // SAFETY: the arrays hold `num_chunks` entries and the chunks are readable per this
        // function's contract.
        unsafe { kernel.launch(gpu.stream(), config, &args) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithm::{AnsOptions, BitcompOptions, CascadedOptions, Lz4Options, ZstdOptions};
    use crate::types::{BitshuffleMode, DataType};

    fn codec(algorithm: Algorithm) -> Box<dyn BatchedCodec> {
        for_algorithm(&algorithm).unwrap()
    }

    fn too_large<T: std::fmt::Debug>(r: Result<T>) -> bool {
        matches!(r, Err(Error::InvalidArgument { status: Status::ChunkSizeTooLarge, .. }))
    }

    /// The host-side queries of every description: nvCOMP's alignments, the bounds, temp sizes
    /// and chunk limits.
    #[test]
    fn descriptions_answer_the_queries() {
        let al = |input, output, temp| Alignments { input, output, temp };
        let over = (1 << 24) + 1;

        let lz4 = codec(Algorithm::Lz4(Lz4Options { data_type: DataType::Int, ..Default::default() }));
        assert_eq!((lz4.compress_alignments(), lz4.decompress_alignments()), (al(4, 1, 16), al(1, 4, 16)));
        assert_eq!(lz4.max_compressed_chunk_size(65536).unwrap(), Lz4Options::max_compressed_chunk_size(65536));
        assert_eq!((lz4.compress_temp_size(3, 100).unwrap(), lz4.decompress_temp_size(3, 100).unwrap()), (0, 0));
        assert!(too_large(lz4.max_compressed_chunk_size(over)) && too_large(lz4.decompress_temp_size(1, over)));
        // Above 16 KiB, gpucomp's encoder needs per segment 36 bytes of arrays and a 16464-byte
        // block slot (2 chunks of 4 segments here); nvCOMP's encoder none.
        assert_eq!(lz4.compress_temp_size(2, 65536).unwrap(), 8 * 36 + 8 * 16464);
        let nvcomp = codec(Algorithm::Lz4(Lz4Options { encoder: crate::Lz4Encoder::Nvcomp, ..Default::default() }));
        assert_eq!(nvcomp.compress_temp_size(2, 65536).unwrap(), 0);
        let shuffled = codec(Algorithm::Lz4(Lz4Options { bitshuffle: BitshuffleMode::MsbFirst, ..Default::default() }));
        // 3 addresses (24 bytes, to 32), then 3 copies of 100 bytes at a 112-byte stride.
        assert_eq!(shuffled.compress_temp_size(3, 100).unwrap(), 32 + 3 * 112);
        // Both: the shuffled copy first (its address, to 16, and 16400 bytes), then 2 segments
        // (72 bytes of arrays, to 80, and their slots).
        assert_eq!(shuffled.compress_temp_size(1, 16400).unwrap(), 16 + 16400 + 80 + 2 * 16464);
        assert_eq!(shuffled.decompress_temp_size(3, 100).unwrap(), 24);

        let cascaded = codec(Algorithm::Cascaded(CascadedOptions::default()));
        assert_eq!((cascaded.compress_alignments(), cascaded.decompress_alignments()), (al(4, 4, 1), al(4, 8, 1)));
        assert_eq!(cascaded.max_compressed_chunk_size(4096).unwrap(), CascadedOptions::max_compressed_chunk_size(4096));
        assert!(too_large(cascaded.compress_temp_size(1, over)));
        // A u32 per chunk once a chunk holds two groups of 4 blocks of 4 KiB (blocks per chunk).
        assert_eq!(cascaded.decompress_temp_size(1, over).unwrap(), 4);
        let temp = |n, max| cascaded.decompress_temp_size(n, max).unwrap();
        assert_eq!((temp(3, 16384), temp(3, 16385)), (0, 12));

        let bitcomp = codec(Algorithm::Bitcomp(BitcompOptions::default()));
        assert_eq!((bitcomp.compress_alignments(), bitcomp.decompress_alignments()), (al(1, 8, 1), al(8, 8, 4)));
        assert_eq!(bitcomp.max_compressed_chunk_size(65536).unwrap(), BitcompOptions::max_compressed_chunk_size(65536));
        assert!(too_large(bitcomp.compress_temp_size(1, over)));
        // A u32 per chunk once a chunk holds two blocks of 8 KiB (a warp each).
        assert_eq!(bitcomp.decompress_temp_size(1, over).unwrap(), 4);
        let temp = |n, max| bitcomp.decompress_temp_size(n, max).unwrap();
        assert_eq!((temp(3, 8192), temp(3, 8193)), (0, 12));

        let options = AnsOptions::default();
        let ans = codec(Algorithm::Ans(options));
        assert_eq!((ans.compress_alignments(), ans.decompress_alignments()), (al(16, 16, 4), al(16, 16, 4)));
        assert_eq!(ans.max_compressed_chunk_size(65536).unwrap(), options.max_compressed_chunk_size(65536));
        assert!(too_large(ans.compress_temp_size(1, over)));
        // Compression: a u32 per chunk once a chunk holds two groups of 4 sub-chunks (8 KiB
        // chunks are 4 sub-chunks of 2 KiB with the default options).
        assert_eq!((ans.compress_temp_size(3, 8192).unwrap(), ans.compress_temp_size(3, 8193).unwrap()), (0, 12));
        assert_eq!(ans.compress_temp_size(2, 1 << 24).unwrap(), 8);
        // A u32 per chunk once a chunk holds two groups of 4 sub-chunks of 8 KiB (blocks per chunk).
        assert_eq!(ans.decompress_temp_size(1, over).unwrap(), 4);
        assert_eq!((ans.decompress_temp_size(3, 32768).unwrap(), ans.decompress_temp_size(3, 32769).unwrap()), (0, 12));
        assert!(too_large(ans.decompress_temp_size(1, AnsOptions::MAX_DECOMPRESSED_CHUNK_SIZE + 1)));

        let zstd = codec(Algorithm::Zstd(ZstdOptions::default()));
        assert_eq!((zstd.compress_alignments(), zstd.decompress_alignments()), (al(4, 1, 1), al(1, 1, 8)));
        assert_eq!(zstd.max_compressed_chunk_size(65536).unwrap(), ZstdOptions::max_compressed_chunk_size(65536));
        // A literal buffer per chunk: min(largest chunk, 128 KiB), 128 KiB when unknown.
        assert_eq!(
            (zstd.decompress_temp_size(100, 1 << 24).unwrap(), zstd.compress_temp_size(1, 100).unwrap()),
            (100 << 17, 0)
        );
        assert_eq!(
            (zstd.decompress_temp_size(3, 100).unwrap(), zstd.decompress_temp_size(3, 0).unwrap()),
            (300, 3 << 17)
        );
        assert!(too_large(zstd.max_compressed_chunk_size(over)));
        assert!(matches!(
            for_algorithm(&Algorithm::Zstd(ZstdOptions::default().with_level(23))),
            Err(Error::Unsupported(_))
        ));
    }
}
