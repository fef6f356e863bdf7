//! Batched Cascaded (`nvcompBatchedCascaded*`): nvCOMP 6's Cascaded chunks, one per chunk.
//!
//! Decompression (`cascaded_decompress`) runs `split` thread blocks per chunk when the batch has
//! too few chunks to fill the GPU (`gpucomp_kernels::cascaded::blocks_per_chunk` of the chunk
//! count, the batch's `max_uncompressed_chunk_bytes` and the SM count), each decoding a share of
//! the chunk's 4 KiB blocks; the blocks of a chunk combine their verdicts in one zeroed `u32` per
//! chunk in the temp buffer ([`decompress_temp_size`](super::BatchedCodec::decompress_temp_size)
//! reports it). Without that temp buffer (or with a smaller or unaligned one), or with a bound
//! of 0, it runs one block per chunk.
use gpucomp_kernels::cascaded::{self as geometry, compress};

use super::{Alignments, CompressLaunch, DecompressKernel, Description, Geometry, SplitGeometry, Table};
use crate::algorithm::{CascadedMode, CascadedOptions};
use crate::error::{Error, Result};
use crate::gpu::kernels::CascadedCompressOptions;
use crate::gpu::Gpu;

/// Batched Cascaded with fixed options, on the GPU.
///
/// Decompression reads every chunk nvCOMP 6 writes (asymmetric, symmetric, raw fallback) whatever
/// the options say, as nvCOMP's default decompression options do.
#[derive(Debug, Clone, Copy)]
pub struct Cascaded {
    options: CascadedOptions,
    width: usize,
}

impl Cascaded {
    /// Cascaded with `options`; fails for the types Cascaded refuses (floats) and, as nvCOMP,
    /// for options without frame of reference (`NotSupported`).
    pub fn new(options: CascadedOptions) -> Result<Cascaded> {
        let width = options.element_width()?;
        if !options.frame_of_reference {
            return Err(Error::Unsupported("Cascaded compression needs the FOR flag (nvCOMP refuses it too)".into()));
        }
        Ok(Cascaded { options, width })
    }
}

impl Description for Cascaded {
    const TABLE: Table = Table {
        name: "Cascaded",
        max_chunk: CascadedOptions::MAX_CHUNK_SIZE,
        max_decompress_chunk: None,
        // The geometry depends on the batch and the GPU.
        decompress: DecompressKernel::Split(SplitGeometry {
            kernel: |k| &k.cascaded_decompress,
            parts_per_chunk: geometry::blocks_per_chunk,
            grid: |n, split, _| geometry::split_grid_dim(n, split),
            block: geometry::BLOCK_THREADS,
            temp_bytes: geometry::split_temp_bytes,
        }),
        size_query: Geometry::header_size_query(|k| &k.cascaded_decompressed_size),
    };

    type Options = CascadedCompressOptions;

    /// nvCOMP's values: compression inputs aligned to the element width, outputs to 4 bytes;
    /// decompression inputs to 4 bytes, outputs to 8 (temp: nvCOMP's 1 byte; a temp buffer that
    /// is not 4-byte aligned runs one block per chunk).
    fn alignments(&self) -> (Alignments, Alignments) {
        (Alignments { input: self.width, output: 4, temp: 1 }, Alignments { input: 4, output: 8, temp: 1 })
    }

    fn bound(&self, max_chunk: usize) -> usize {
        CascadedOptions::max_compressed_chunk_size(max_chunk)
    }

    /// `cascaded_compress`, asymmetric mode (the default) only: symmetric-mode compression is
    /// `Unsupported`.
    fn compress_launch<'k>(
        &self,
        gpu: &'k Gpu,
        num_chunks: usize,
        _max_chunk: usize,
    ) -> Result<CompressLaunch<'k, Self::Options>> {
        let o = &self.options;
        if o.mode == CascadedMode::Symmetric {
            return Err(Error::Unsupported("Cascaded symmetric-mode compression is not implemented".into()));
        }
        Ok(CompressLaunch {
            kernel: &gpu.kernels().cascaded_compress,
            config: super::launch_config(compress::grid_dim(num_chunks as u64), compress::BLOCK_THREADS),
            options: CascadedCompressOptions {
                data_type: o.data_type as u32,
                level: u32::from(o.compression_level),
                flags: o.fine_grained_flags() as u32,
            },
        })
    }
}
