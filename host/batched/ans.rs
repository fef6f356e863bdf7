//! Batched ANS (`nvcompBatchedANS*`): nvCOMP 6's rANS chunks, one per chunk.
//!
//! Both directions run on the GPU. Compression (`ans_compress`; `ans_compress_float` for FLOAT16
//! and FLOAT32 sub-chunks that its smaller staging buffers hold, and `ans_compress_float8` for
//! FLOAT8 E4M3: `gpucomp_kernels::ans::compress`) writes exactly the CPU codec's bytes (nvCOMP's)
//! for byte, FLOAT16, FLOAT8 and FLOAT32 data, every option value. Decompression reads every
//! mode nvCOMP writes: bytes, FLOAT16, FLOAT8, FLOAT32; one or two states per lane; any
//! sub-chunk size.
use gpucomp_kernels::ans as geometry;
use gpucomp_kernels::ans::compress;

use super::{Alignments, CompressLaunch, Description, Geometry, Table};
use crate::algorithm::AnsOptions;
use crate::error::Result;
use crate::gpu::kernels::AnsCompressOptions;
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
        decompress: Geometry {
            kernel: |k| &k.ans_decompress,
            grid: geometry::grid_dim,
            block: geometry::BLOCK_THREADS,
        },
        size_query: Geometry::header_size_query(|k| &k.ans_decompressed_size),
    };

    type Options = AnsCompressOptions;

    /// nvCOMP's values: 16 bytes for inputs and outputs, both ways.
    fn alignments(&self) -> (Alignments, Alignments) {
        let a = Alignments { input: AnsOptions::ALIGNMENT, output: AnsOptions::ALIGNMENT, temp: 1 };
        (a, a)
    }

    fn bound(&self, max_chunk: usize) -> usize {
        self.options.max_compressed_chunk_size(max_chunk)
    }

    /// `ans_compress`, `ans_compress_float` or `ans_compress_float8`
    /// (`gpucomp_kernels::ans::compress::Kernel::for_batch`), one thread block per chunk. The
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
            },
        })
    }
}
