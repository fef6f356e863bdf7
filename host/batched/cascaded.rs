//! Batched Cascaded (`nvcompBatchedCascaded*`): nvCOMP 6's Cascaded chunks, one per chunk.
use gpucomp_kernels::cascaded::{self as geometry, compress};

use super::{Alignments, CompressLaunch, Description, Geometry, Table};
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
        decompress: Some(Geometry {
            kernel: |k| &k.cascaded_decompress,
            grid: geometry::grid_dim,
            block: geometry::BLOCK_THREADS,
        }),
        size_query: Geometry::header_size_query(|k| &k.cascaded_decompressed_size),
    };

    type Options = CascadedCompressOptions;

    /// nvCOMP's values: compression inputs aligned to the element width, outputs to 4 bytes;
    /// decompression inputs to 4 bytes, outputs to 8.
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
