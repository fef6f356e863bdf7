//! Batched Zstd (`nvcompBatchedZstd*`): chunks of zstd frames (RFC 8878), decompressed on the
//! GPU (`zstd_decompress`, one warp per chunk); compression runs on the CPU codec
//! ([`crate::cpu::zstd`]), so this codec's compression answers `Unsupported`.
use gpucomp_kernels::zstd as geometry;

use super::{Alignments, CompressLaunch, DecompressKernel, Description, Geometry, Table};
use crate::algorithm::ZstdOptions;
use crate::error::{Error, Result};
use crate::gpu::Gpu;

/// Batched Zstd on the GPU: decompression and the size query.
///
/// Decompression reads any chunk of zstd frames (several frames, skippable frames, with or
/// without content sizes and checksums) whatever the options say; the options (the level) only
/// matter to compression, which is the CPU codec's.
#[derive(Debug, Clone, Copy)]
pub struct Zstd;

impl Zstd {
    /// Zstd with `options`; fails for a level outside libzstd's range.
    pub fn new(options: ZstdOptions) -> Result<Zstd> {
        options.check()?;
        Ok(Zstd)
    }
}

impl Description for Zstd {
    const TABLE: Table = Table {
        name: "Zstd",
        max_chunk: ZstdOptions::MAX_CHUNK_SIZE,
        max_decompress_chunk: None,
        decompress: DecompressKernel::Fixed(Geometry {
            kernel: |k| &k.zstd_decompress,
            grid: geometry::decompress_grid_dim,
            block: geometry::DECOMPRESS_BLOCK,
        }),
        // Content sizes from the frame headers; a frame without one is decoded to count it.
        size_query: Geometry {
            kernel: |k| &k.zstd_decompressed_size,
            grid: geometry::decompress_grid_dim,
            block: geometry::DECOMPRESS_BLOCK,
        },
    };

    type Options = ();

    /// nvCOMP's values: compression inputs to 4 bytes (its encoder reads words; gpucomp has no
    /// GPU encoder), outputs and temp unaligned; decompression inputs and outputs unaligned, temp
    /// to 8 bytes (the kernel reads and writes bytes and needs no temp).
    fn alignments(&self) -> (Alignments, Alignments) {
        (Alignments { input: 4, output: 1, temp: 1 }, Alignments { input: 1, output: 1, temp: 8 })
    }

    fn bound(&self, max_chunk: usize) -> usize {
        ZstdOptions::max_compressed_chunk_size(max_chunk)
    }

    /// No GPU compressor: `Unsupported`.
    fn compress_launch<'k>(
        &self,
        _gpu: &'k Gpu,
        _num_chunks: usize,
        _max_chunk: usize,
    ) -> Result<CompressLaunch<'k, Self::Options>> {
        Err(Error::Unsupported("Zstd compression runs on the CPU codec (cpu::zstd), not on the GPU".into()))
    }
}
