//! Batched ANS (`nvcompBatchedANS*`): nvCOMP 6's rANS chunks, one per chunk.
//!
//! Both directions run on the GPU. Compression (`ans_compress`; `ans_compress_float` for FLOAT16
//! and FLOAT32 sub-chunks that its smaller staging buffers hold, and `ans_compress_float8` for
//! FLOAT8 E4M3: `gpucomp_kernels::ans::compress`) writes exactly the CPU codec's bytes (nvCOMP's)
//! for byte, FLOAT16, FLOAT8 and FLOAT32 data, every option value. Decompression reads every
//! mode nvCOMP writes: bytes, FLOAT16, FLOAT8, FLOAT32; one or two states per lane; any
//! sub-chunk size.
//!
//! Decompression (`ans_decompress`) runs `split` thread blocks per chunk when the batch has too
//! few chunks to fill the GPU (`gpucomp_kernels::ans::blocks_per_chunk` of the chunk count, the
//! batch's `max_uncompressed_chunk_bytes` and the SM count), each decoding a share of the
//! chunk's sub-chunks; the blocks of a chunk combine their verdicts in one zeroed `u32` per
//! chunk in the temp buffer ([`decompress_temp_size`](super::BatchedCodec::decompress_temp_size)
//! reports it). Without that temp buffer (or with a smaller or unaligned one), or with a bound
//! of 0, it runs one block per chunk.
//!
//! Compression likewise runs `split` thread blocks per chunk when the batch has too few chunks
//! to fill the GPU (`gpucomp_kernels::ans::compress::compress_blocks_per_chunk` of the chunk
//! count, the sub-chunks of the batch's largest chunk and the SM count; sub-chunks of at least
//! 8 KiB), each block coding a
//! group of 4 sub-chunks of a chunk (every block builds the chunk's table), the last to finish
//! placing them; its zeroed `u32` per chunk is the compression temp
//! ([`compress_temp_size`](super::BatchedCodec::compress_temp_size)). Without it (or with a
//! smaller or unaligned one) it runs one block per chunk. The bytes are the same at every split.
use cudarc::driver::{CudaSlice, LaunchConfig};
use gpucomp_kernels::ans as geometry;
use gpucomp_kernels::ans::compress;

use super::{Alignments, CompressLaunch, DecompressKernel, Description, Geometry, SplitGeometry, Table};
use crate::algorithm::AnsOptions;
use crate::error::Result;
use crate::gpu::kernels::{AnsCompressOptions, CompressArgs};
use crate::gpu::Gpu;

/// Batched ANS with fixed options, on the GPU.
///
/// Chunks are self-describing: decompression reads any ANS chunk whatever the options say.
#[derive(Debug, Clone, Copy)]
pub struct Ans {
    options: AnsOptions,
}

impl Ans {
    /// ANS with `options`; fails for options ANS refuses.
    pub fn new(options: AnsOptions) -> Result<Ans> {
        options.element_width()?;
        Ok(Ans { options })
    }
}

impl Description for Ans {
    const TABLE: Table = Table {
        name: "ANS",
        max_chunk: AnsOptions::MAX_CHUNK_SIZE,
        max_decompress_chunk: Some(AnsOptions::MAX_DECOMPRESSED_CHUNK_SIZE),
        // The geometry depends on the batch and the GPU.
        decompress: DecompressKernel::Split(SplitGeometry {
            kernel: |k| &k.ans_decompress,
            parts_per_chunk: geometry::blocks_per_chunk,
            grid: |n, split, _| geometry::split_grid_dim(n, split),
            block: geometry::BLOCK_THREADS,
            temp_bytes: geometry::split_temp_bytes,
        }),
        size_query: Geometry::header_size_query(|k| &k.ans_decompressed_size),
    };

    type Options = AnsCompressOptions;

    /// nvCOMP's values: 16 bytes for inputs and outputs, both ways; the temp words are `u32`.
    fn alignments(&self) -> (Alignments, Alignments) {
        let a = Alignments { input: AnsOptions::ALIGNMENT, output: AnsOptions::ALIGNMENT, temp: 4 };
        (a, a)
    }

    /// A `u32` per chunk when chunks of `max_chunk` bytes may be split across blocks.
    fn compress_temp(&self, num_chunks: usize, max_chunk: usize) -> usize {
        compress::compress_split_temp_bytes(num_chunks as u64, self.sub_chunks(max_chunk)) as usize
    }

    fn bound(&self, max_chunk: usize) -> usize {
        self.options.max_compressed_chunk_size(max_chunk)
    }

    /// `ans_compress`, `ans_compress_float` or `ans_compress_float8`
    /// (`gpucomp_kernels::ans::compress::Kernel::for_batch`), one thread block per chunk
    /// ([`launch_compress`](Description::launch_compress) may spread chunks wider). The
    /// sub-chunk size follows `max_chunk` (pass the batch's largest chunk, as nvCOMP's high-level
    /// API does); outputs need `max_compressed_chunk_size` of it (the kernel uses the room past
    /// each chunk as scratch). Per-chunk statuses as the CPU codec's `compress_in_batch`.
    fn compress_launch<'k>(
        &self,
        gpu: &'k Gpu,
        num_chunks: usize,
        max_chunk: usize,
    ) -> Result<CompressLaunch<'k, Self::Options>> {
        let o = &self.options;
        let kernels = gpu.kernels();
        let kernel = match compress::Kernel::for_batch(o.data_type as u32, o.sub_chunk_size(max_chunk)) {
            compress::Kernel::General => &kernels.ans_compress,
            compress::Kernel::Float => &kernels.ans_compress_float,
            compress::Kernel::Float8 => &kernels.ans_compress_float8,
        };
        Ok(CompressLaunch {
            kernel,
            config: super::launch_config(
                compress::compress_grid_dim(num_chunks as u64),
                compress::COMPRESS_BLOCK_THREADS,
            ),
            // `max_chunk` fits: it is within the 2^24 chunk limit.
            options: AnsCompressOptions {
                data_type: o.data_type as u32,
                max_sub_chunk_count: u32::from(o.max_sub_chunk_count),
                states_per_lane: u32::from(o.states_per_lane),
                histogram_reduction_log2: u32::from(o.histogram_reduction_log2),
                max_chunk_bytes: max_chunk as u32,
                parts: 0,
                split: 1,
            },
        })
    }

    /// The kernel at `compress_blocks_per_chunk` blocks per chunk, its words in `temp` zeroed
    /// first; one block per chunk when `temp` cannot hold them.
    unsafe fn launch_compress(
        &self,
        gpu: &Gpu,
        launch: CompressLaunch<'_, Self::Options>,
        args: &CompressArgs<Self::Options>,
        max_chunk: usize,
        temp: Option<&mut CudaSlice<u8>>,
    ) -> Result<()> {
        let n = args.num_chunks;
        let sms = gpu.info().multiprocessors;
        let split = if self.options.sub_chunk_size(max_chunk) < MIN_SPLIT_SUB_CHUNK {
            1
        } else {
            compress::compress_blocks_per_chunk(n, self.sub_chunks(max_chunk), sms)
        };
        let mut args = *args;
        (args.options.split, args.options.parts) = super::split_parts(gpu, split, temp, n)?;
        let grid = compress::compress_split_grid_dim(n, args.options.split);
        let config = LaunchConfig { grid_dim: (grid, 1, 1), ..launch.config };
        // SAFETY: the batch per this function's contract; `parts` holds `n` words zeroed on the
        // stream before the launch (when `split > 1`).
        unsafe { launch.kernel.launch(gpu.stream(), config, &args) }
    }
}

/// Sub-chunks smaller than this compress at one block per chunk: a second block histograms the
/// whole chunk again, which for 2 KiB sub-chunks (16 KiB chunks) cost more than the halved
/// encode saved (H200, 1 MiB batch: 0.92x; 8 KiB sub-chunks of 64 KiB chunks: 1.14x).
const MIN_SPLIT_SUB_CHUNK: usize = 8 << 10;

impl Ans {
    /// Sub-chunks of the batch's largest chunk, `max_chunk` bytes (at least 1).
    fn sub_chunks(&self, max_chunk: usize) -> u64 {
        max_chunk.div_ceil(self.options.sub_chunk_size(max_chunk)).max(1) as u64
    }
}
