//! Batched Bitcomp (`nvcompBatchedBitcomp*`): nvCOMP 6's lossless Bitcomp chunks, one per chunk.
//!
//! Decompression (`bitcomp_decompress`) runs a warp per 8 KiB block of the batch's largest chunk
//! (`gpucomp_kernels::bitcomp::warps_per_chunk` of its `max_uncompressed_chunk_bytes`; 4 for a
//! bound of 0); the warps of a chunk combine their verdicts in one zeroed `u32` per chunk in the
//! temp buffer ([`decompress_temp_size`](super::BatchedCodec::decompress_temp_size) reports it).
//! Without that temp buffer (or with a smaller or unaligned one) it runs one warp per chunk.
use cudarc::driver::LaunchConfig;
use gpucomp_kernels::bitcomp as geometry;

use super::{Alignments, CompressLaunch, DecompressKernel, Description, Geometry, SplitGeometry, Table};
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
        // The geometry depends on the batch and the GPU.
        decompress: DecompressKernel::Split(SplitGeometry {
            kernel: |k| &k.bitcomp_decompress,
            parts_per_chunk: |_, max_chunk, _| geometry::warps_per_chunk(max_chunk),
            grid: geometry::decompress_grid_dim,
            block: geometry::BLOCK_THREADS,
            temp_bytes: geometry::decompress_temp_bytes,
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
