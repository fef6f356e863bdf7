//! Batched Bitcomp (`nvcompBatchedBitcomp*`): nvCOMP 6's lossless Bitcomp chunks, one per chunk.
use cudarc::driver::LaunchConfig;
use gpucomp_kernels::bitcomp as geometry;

use super::{Alignments, CompressLaunch, Description, Geometry, Table};
use crate::algorithm::bitcomp::ElementType;
use crate::algorithm::BitcompOptions;
use crate::error::Result;
use crate::gpu::kernels::BitcompCompressOptions;
use crate::gpu::Gpu;

/// Batched Bitcomp with fixed options (lossless), on the GPU.
///
/// Chunks are self-describing: decompression reads any Bitcomp chunk (both algorithms, every
/// type) whatever the options say.
#[derive(Debug, Clone, Copy)]
pub struct Bitcomp {
    options: BitcompOptions,
    element: ElementType,
}

impl Bitcomp {
    /// Bitcomp with `options`; fails for the types Bitcomp refuses (FP8, `Bits`).
    pub fn new(options: BitcompOptions) -> Result<Bitcomp> {
        Ok(Bitcomp { options, element: options.element_type()? })
    }
}

impl Description for Bitcomp {
    const TABLE: Table = Table {
        name: "Bitcomp",
        max_chunk: BitcompOptions::MAX_CHUNK_SIZE,
        max_decompress_chunk: None,
        decompress: Some(Geometry {
            kernel: |k| &k.bitcomp_decompress,
            grid: geometry::grid_dim,
            block: geometry::BLOCK_THREADS,
        }),
        size_query: Geometry::header_size_query(|k| &k.bitcomp_decompressed_size),
    };

    type Options = BitcompCompressOptions;

    /// nvCOMP's values: compression inputs unaligned, outputs to 8 bytes; decompression 8-byte
    /// inputs and outputs, 4-byte temp.
    fn alignments(&self) -> (Alignments, Alignments) {
        (Alignments { input: 1, output: 8, temp: 1 }, Alignments { input: 8, output: 8, temp: 4 })
    }

    fn bound(&self, max_chunk: usize) -> usize {
        BitcompOptions::max_compressed_chunk_size(max_chunk)
    }

    /// `bitcomp_compress`, one thread block per chunk with a warp per 8 KiB block of the largest
    /// chunk (up to 8), its shared memory dynamic. Outputs need `max_compressed_chunk_size` of
    /// their chunk (the kernel uses the room past each chunk as scratch).
    fn compress_launch<'k>(
        &self,
        gpu: &'k Gpu,
        num_chunks: usize,
        max_chunk: usize,
    ) -> Result<CompressLaunch<'k, Self::Options>> {
        let warps = geometry::compress_warps(max_chunk as u64);
        Ok(CompressLaunch {
            kernel: &gpu.kernels().bitcomp_compress,
            config: LaunchConfig {
                grid_dim: (geometry::compress_grid_dim(num_chunks as u64), 1, 1),
                block_dim: (32 * warps, 1, 1),
                shared_mem_bytes: geometry::compress_shared_bytes(warps),
            },
            options: BitcompCompressOptions {
                type_code: u32::from(self.element.code()),
                algorithm: self.options.algorithm as u32,
            },
        })
    }
}
