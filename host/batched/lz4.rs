//! Batched LZ4 (`nvcompBatchedLZ4*`): raw LZ4 blocks, one per chunk.
use cudarc::driver::{CudaFunction, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};
use gpucomp_kernels::lz4 as geometry;

use super::{address, launch_size_query, optional_address, Alignments, BatchedCodec, CompressBatch, DecompressBatch};
use crate::algorithm::{Lz4Encoder, Lz4Options};
use crate::cpu::lz4::EncoderParams;
use crate::error::{Error, Result, Status};
use crate::gpu::Gpu;
use crate::types::BitshuffleMode;

/// Batched LZ4 with fixed options, on the GPU.
#[derive(Debug, Clone, Copy)]
pub struct Lz4 {
    options: Lz4Options,
    width: usize,
}

impl Lz4 {
    /// LZ4 with `options`; fails for data types LZ4 refuses (8-byte and float types).
    pub fn new(options: Lz4Options) -> Result<Lz4> {
        Ok(Lz4 { width: options.element_width()?, options })
    }

    /// The options.
    pub fn options(&self) -> &Lz4Options {
        &self.options
    }
}

impl BatchedCodec for Lz4 {
    /// Alignment of compression buffers: inputs to the element width (as nvCOMP), outputs 1.
    fn compress_alignments(&self) -> Alignments {
        Alignments { input: self.width, output: 1, temp: 16 }
    }

    /// Alignment of decompression buffers: none beyond the element width of outputs.
    fn decompress_alignments(&self) -> Alignments {
        Alignments { input: 1, output: self.width, temp: 16 }
    }

    /// Largest compressed size of a chunk of up to `max_uncompressed_chunk_bytes`.
    fn max_compressed_chunk_size(&self, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_chunk_size(max_uncompressed_chunk_bytes)?;
        Ok(Lz4Options::max_compressed_chunk_size(max_uncompressed_chunk_bytes))
    }

    /// Temp bytes [`compress_async`](Self::compress_async) needs: 0 without bitshuffle; with it,
    /// a pointer array and a shuffled copy of every chunk.
    fn compress_temp_size(&self, num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_chunk_size(max_uncompressed_chunk_bytes)?;
        Ok(match self.options.bitshuffle {
            BitshuffleMode::None => 0,
            _ => ShuffleTemp::new(num_chunks, max_uncompressed_chunk_bytes).bytes(),
        })
    }

    /// Temp bytes [`decompress_async`](Self::decompress_async) needs: 0 without bitshuffle;
    /// with it, an array of decompressed sizes (the shuffle is undone in place).
    fn decompress_temp_size(&self, num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_chunk_size(max_uncompressed_chunk_bytes)?;
        Ok(match self.options.bitshuffle {
            BitshuffleMode::None => 0,
            _ => num_chunks * 8,
        })
    }

    /// Queues compression of the batch (`nvcompBatchedLZ4CompressAsync`).
    ///
    /// # Safety
    /// Every `in_ptrs[i]` must be a device address readable for `in_bytes[i]` bytes, with
    /// `in_bytes[i] <= max_uncompressed_chunk_bytes`, and every `out_ptrs[i]` writable for
    /// [`max_compressed_chunk_size`](Self::max_compressed_chunk_size) bytes, not overlapping
    /// any input, the temp buffer or another output, until the stream has run the work.
    unsafe fn compress_async(&self, gpu: &Gpu, batch: CompressBatch<'_>) -> Result<()> {
        let n = batch.num_chunks;
        check_chunk_size(batch.max_uncompressed_chunk_bytes)?;
        let in_bytes = address(gpu, batch.in_bytes, n, "in_bytes")?;
        let out_ptrs = address(gpu, batch.out_ptrs, n, "out_ptrs")?;
        let out_bytes = address(gpu, batch.out_bytes, n, "out_bytes")?;
        let statuses = optional_address(gpu, batch.statuses.as_deref(), n, "statuses")?;
        if n == 0 {
            return Ok(());
        }
        let mut in_ptrs = address(gpu, batch.in_ptrs, n, "in_ptrs")?;
        if let Some(msb_first) = self.shuffle_order() {
            let layout = ShuffleTemp::new(n, batch.max_uncompressed_chunk_bytes);
            let temp = temp_address(gpu, batch.temp, layout.bytes())?;
            // The shuffled copies' addresses go to the start of temp; the copies follow.
            let slots: Vec<u64> = (0..n as u64).map(|i| temp + layout.data_offset + i * layout.stride).collect();
            // SAFETY: temp holds `layout.bytes()` bytes, the first 8·n of which take the addresses;
            // the pageable source is staged by the driver before the call returns.
            unsafe { cudarc::driver::result::memcpy_htod_async(temp, &slots, gpu.stream().cu_stream())? };
            self.launch_shuffle(gpu, in_ptrs, in_bytes, n, temp, msb_first, false)?;
            in_ptrs = temp;
        }
        let k = &gpu.kernels().lz4_compress;
        let table_size = EncoderParams::table_size_for(self.options.encoder, batch.max_uncompressed_chunk_bytes) as u32;
        let (width, encoder) = (self.width as u32, encoder_code(self.options.encoder));
        let smem = gpu.info().max_shared_per_block;
        let cfg = LaunchConfig {
            grid_dim: (geometry::compress_grid_dim(n as u64, table_size, smem), 1, 1),
            block_dim: (geometry::compress_block_dim(table_size, smem), 1, 1),
            shared_mem_bytes: geometry::compress_shared_bytes(table_size, smem),
        };
        set_dynamic_smem(k, cfg.shared_mem_bytes)?;
        let num = n as u64;
        // SAFETY: argument list matches `lz4_compress` in kernels/src/ptx.rs; the addresses are
        // valid per this function's contract.
        unsafe {
            gpu.stream()
                .launch_builder(k)
                .arg(&in_ptrs)
                .arg(&in_bytes)
                .arg(&num)
                .arg(&out_ptrs)
                .arg(&out_bytes)
                .arg(&statuses)
                .arg(&table_size)
                .arg(&width)
                .arg(&encoder)
                .launch(cfg)?
        };
        Ok(())
    }

    /// Queues decompression of the batch (`nvcompBatchedLZ4DecompressAsync`). Corrupt chunks and
    /// chunks that do not fit their output get `CannotDecompress` and a size of 0.
    ///
    /// # Safety
    /// Every `in_ptrs[i]` must be readable for `in_bytes[i]` bytes and every `out_ptrs[i]`
    /// writable for `out_capacity[i]` bytes, outputs not overlapping inputs or each other,
    /// until the stream has run the work.
    unsafe fn decompress_async(&self, gpu: &Gpu, batch: DecompressBatch<'_>) -> Result<()> {
        let n = batch.num_chunks;
        let in_ptrs = address(gpu, batch.in_ptrs, n, "in_ptrs")?;
        let in_bytes = address(gpu, batch.in_bytes, n, "in_bytes")?;
        let out_ptrs = address(gpu, batch.out_ptrs, n, "out_ptrs")?;
        let out_capacity = address(gpu, batch.out_capacity, n, "out_capacity")?;
        let mut out_actual = optional_address(gpu, batch.out_actual.as_deref(), n, "out_actual")?;
        let statuses = optional_address(gpu, batch.statuses.as_deref(), n, "statuses")?;
        if n == 0 {
            return Ok(());
        }
        let shuffle = self.shuffle_order();
        if shuffle.is_some() && out_actual == 0 {
            // Undoing the shuffle needs each chunk's size: keep them in temp.
            out_actual = temp_address(gpu, batch.temp, n * 8)?;
        }
        let k = &gpu.kernels().lz4_decompress;
        let cfg = LaunchConfig {
            grid_dim: (geometry::decompress_grid_dim(n as u64), 1, 1),
            block_dim: (geometry::DECOMPRESS_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        set_dynamic_smem(k, cfg.shared_mem_bytes)?;
        let num = n as u64;
        // SAFETY: argument list matches `lz4_decompress`; addresses valid per the contract.
        unsafe {
            gpu.stream()
                .launch_builder(k)
                .arg(&in_ptrs)
                .arg(&in_bytes)
                .arg(&num)
                .arg(&out_ptrs)
                .arg(&out_capacity)
                .arg(&out_actual)
                .arg(&statuses)
                .launch(cfg)?
        };
        if let Some(msb_first) = shuffle {
            // In place: failed chunks report size 0, so nothing of theirs is touched.
            self.launch_shuffle(gpu, out_ptrs, out_actual, n, out_ptrs, msb_first, true)?;
        }
        Ok(())
    }

    /// Each block is parsed whole; corrupt chunks get 0.
    unsafe fn decompressed_size_async(
        &self,
        gpu: &Gpu,
        in_ptrs: &CudaSlice<u64>,
        in_bytes: &CudaSlice<u64>,
        num_chunks: usize,
        out_sizes: &mut CudaSlice<u64>,
    ) -> Result<()> {
        let geometry = (geometry::decompress_grid_dim(num_chunks as u64), geometry::DECOMPRESS_BLOCK);
        // SAFETY: `lz4_decompressed_size` has the size-query signature; the chunks are valid per
        // this function's contract.
        unsafe {
            launch_size_query(
                gpu,
                &gpu.kernels().lz4_decompressed_size,
                (in_ptrs, in_bytes, num_chunks, out_sizes),
                geometry,
            )
        }
    }
}

impl Lz4 {
    fn shuffle_order(&self) -> Option<bool> {
        match self.options.bitshuffle {
            BitshuffleMode::None => None,
            BitshuffleMode::MsbFirst => Some(true),
            BitshuffleMode::LsbFirst => Some(false),
        }
    }

    /// Launches the bitshuffle kernel over `n` chunks (`inverse`: undo it; may run in place).
    #[allow(clippy::too_many_arguments)]
    fn launch_shuffle(
        &self,
        gpu: &Gpu,
        in_ptrs: u64,
        sizes: u64,
        n: usize,
        out_ptrs: u64,
        msb_first: bool,
        inverse: bool,
    ) -> Result<()> {
        let k = &gpu.kernels().lz4_bitshuffle;
        let cfg = LaunchConfig {
            grid_dim: (gpucomp_kernels::bitshuffle::grid_dim(n as u64), 1, 1),
            block_dim: (gpucomp_kernels::bitshuffle::BLOCK_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let (num, width, msb, inv) = (n as u64, self.width as u32, msb_first as u32, inverse as u32);
        // SAFETY: argument list matches `lz4_bitshuffle`; the pointer arrays hold `n` entries.
        unsafe {
            gpu.stream()
                .launch_builder(k)
                .arg(&in_ptrs)
                .arg(&sizes)
                .arg(&num)
                .arg(&out_ptrs)
                .arg(&width)
                .arg(&msb)
                .arg(&inv)
                .launch(cfg)?
        };
        Ok(())
    }
}

/// Temp layout of a bitshuffled compression: `n` chunk addresses, then the shuffled chunks.
struct ShuffleTemp {
    data_offset: u64,
    stride: u64,
    n: u64,
}

impl ShuffleTemp {
    fn new(n: usize, max_chunk: usize) -> ShuffleTemp {
        ShuffleTemp {
            data_offset: (n as u64 * 8).next_multiple_of(16),
            stride: (max_chunk as u64).next_multiple_of(16),
            n: n as u64,
        }
    }

    fn bytes(&self) -> usize {
        (self.data_offset + self.n * self.stride) as usize
    }
}

fn encoder_code(e: Lz4Encoder) -> u32 {
    match e {
        Lz4Encoder::Gpucomp => 0,
        Lz4Encoder::Nvcomp => 1,
    }
}

fn check_chunk_size(bytes: usize) -> Result<()> {
    super::check_chunk_size("LZ4", bytes, Lz4Options::MAX_CHUNK_SIZE)
}

fn temp_address(gpu: &Gpu, temp: Option<&mut cudarc::driver::CudaSlice<u8>>, needed: usize) -> Result<u64> {
    match temp {
        Some(t) if t.len() >= needed => Ok(t.device_ptr(gpu.stream()).0),
        t => Err(Error::InvalidArgument {
            status: Status::InvalidValue,
            reason: format!("temp buffer of {} bytes, {needed} needed", t.map_or(0, |t| t.len())),
        }),
    }
}

/// Allows kernels above the default 48 KiB of dynamic shared memory.
fn set_dynamic_smem(k: &CudaFunction, bytes: u32) -> Result<()> {
    if bytes > 48 * 1024 {
        k.set_attribute(
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )?;
    }
    Ok(())
}
