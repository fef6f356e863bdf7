//! Batched Cascaded (`nvcompBatchedCascaded*`): nvCOMP 6's Cascaded chunks, one per chunk.
use cudarc::driver::CudaSlice;
use gpucomp_kernels::cascaded::{self as geometry, compress};

use super::{check_chunk_size, launch_compress, launch_decompress, launch_header_size_query, Alignments, BatchedCodec};
use super::{CompressBatch, DecompressBatch};
use crate::algorithm::{CascadedMode, CascadedOptions};
use crate::error::{Error, Result};
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

    /// The options.
    pub fn options(&self) -> &CascadedOptions {
        &self.options
    }
}

impl BatchedCodec for Cascaded {
    /// nvCOMP's values: inputs aligned to the element width, outputs to 4 bytes.
    fn compress_alignments(&self) -> Alignments {
        Alignments { input: self.width, output: 4, temp: 1 }
    }

    /// nvCOMP's values: inputs to 4 bytes, outputs to 8.
    fn decompress_alignments(&self) -> Alignments {
        Alignments { input: 4, output: 8, temp: 1 }
    }

    fn max_compressed_chunk_size(&self, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_chunk_size("Cascaded", max_uncompressed_chunk_bytes, CascadedOptions::MAX_CHUNK_SIZE)?;
        Ok(CascadedOptions::max_compressed_chunk_size(max_uncompressed_chunk_bytes))
    }

    /// 0: the compressor needs no temp space.
    fn compress_temp_size(&self, _num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_chunk_size("Cascaded", max_uncompressed_chunk_bytes, CascadedOptions::MAX_CHUNK_SIZE)?;
        Ok(0)
    }

    /// 0: the decompressor needs no temp space.
    fn decompress_temp_size(&self, _num_chunks: usize, _max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        Ok(0)
    }

    /// Asymmetric mode (the default) only: symmetric-mode compression is `Unsupported`.
    unsafe fn compress_async(&self, gpu: &Gpu, batch: CompressBatch<'_>) -> Result<()> {
        if self.options.mode == CascadedMode::Symmetric {
            return Err(Error::Unsupported("Cascaded symmetric-mode compression is not implemented".into()));
        }
        check_chunk_size("Cascaded", batch.max_uncompressed_chunk_bytes, CascadedOptions::MAX_CHUNK_SIZE)?;
        let o = &self.options;
        let options = [o.data_type as u32, u32::from(o.compression_level), o.fine_grained_flags() as u32];
        let geometry = (compress::grid_dim(batch.num_chunks as u64), compress::BLOCK_THREADS, 0);
        // SAFETY: `cascaded_compress` takes the batched compression arguments, then the data
        // type, level and fine-grained flags; the batch meets this function's contract.
        unsafe { launch_compress(gpu, &gpu.kernels().cascaded_compress, batch, geometry, &options) }
    }

    unsafe fn decompress_async(&self, gpu: &Gpu, batch: DecompressBatch<'_>) -> Result<()> {
        // SAFETY: `cascaded_decompress` has the batched decompression signature; the batch meets
        // this function's contract.
        unsafe {
            launch_decompress(
                gpu,
                &gpu.kernels().cascaded_decompress,
                batch,
                geometry::grid_dim,
                geometry::BLOCK_THREADS,
            )
        }
    }

    unsafe fn decompressed_size_async(
        &self,
        gpu: &Gpu,
        in_ptrs: &CudaSlice<u64>,
        in_bytes: &CudaSlice<u64>,
        num_chunks: usize,
        out_sizes: &mut CudaSlice<u64>,
    ) -> Result<()> {
        // SAFETY: `cascaded_decompressed_size` has the size-query signature; the chunks are valid per this
        // function's contract.
        unsafe {
            launch_header_size_query(
                gpu,
                &gpu.kernels().cascaded_decompressed_size,
                (in_ptrs, in_bytes, num_chunks, out_sizes),
            )
        }
    }
}
