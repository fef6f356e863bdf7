//! Batched ANS (`nvcompBatchedANS*`): nvCOMP 6's rANS chunks, one per chunk.
//!
//! Decompression runs on the GPU (every mode nvCOMP writes: bytes, FLOAT16, FLOAT32; one or two
//! states per lane; any sub-chunk size). GPU compression is not written yet: `compress_async`
//! answers `Unsupported`, and the high-level [`Codec`](crate::Codec) compresses ANS with the CPU
//! codec, which writes nvCOMP's bytes.
use cudarc::driver::CudaSlice;
use gpucomp_kernels::ans as geometry;

use super::{check_chunk_size, launch_decompress, launch_size_query, Alignments, BatchedCodec};
use super::{CompressBatch, DecompressBatch};
use crate::algorithm::AnsOptions;
use crate::error::{Error, Result};
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

    /// The options.
    pub fn options(&self) -> &AnsOptions {
        &self.options
    }
}

impl BatchedCodec for Ans {
    /// nvCOMP's values: 16 bytes for inputs and outputs.
    fn compress_alignments(&self) -> Alignments {
        Alignments { input: AnsOptions::ALIGNMENT, output: AnsOptions::ALIGNMENT, temp: 1 }
    }

    /// nvCOMP's values: 16 bytes for inputs and outputs.
    fn decompress_alignments(&self) -> Alignments {
        Alignments { input: AnsOptions::ALIGNMENT, output: AnsOptions::ALIGNMENT, temp: 1 }
    }

    fn max_compressed_chunk_size(&self, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_chunk_size("ANS", max_uncompressed_chunk_bytes, AnsOptions::MAX_CHUNK_SIZE)?;
        Ok(self.options.max_compressed_chunk_size(max_uncompressed_chunk_bytes))
    }

    fn compress_temp_size(&self, _num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_chunk_size("ANS", max_uncompressed_chunk_bytes, AnsOptions::MAX_CHUNK_SIZE)?;
        Ok(0)
    }

    /// 0: the decompressor needs no temp space.
    fn decompress_temp_size(&self, _num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_chunk_size("ANS", max_uncompressed_chunk_bytes, AnsOptions::MAX_DECOMPRESSED_CHUNK_SIZE)?;
        Ok(0)
    }

    /// Not written yet: `Unsupported` (the CPU codec compresses ANS).
    unsafe fn compress_async(&self, _gpu: &Gpu, _batch: CompressBatch<'_>) -> Result<()> {
        Err(Error::Unsupported("no GPU compression kernel for ANS yet: use the CPU codec".into()))
    }

    unsafe fn decompress_async(&self, gpu: &Gpu, batch: DecompressBatch<'_>) -> Result<()> {
        // SAFETY: `ans_decompress` has the batched decompression signature; the batch meets this
        // function's contract.
        unsafe {
            launch_decompress(gpu, &gpu.kernels().ans_decompress, batch, geometry::grid_dim, geometry::BLOCK_THREADS)
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
        let geometry = (geometry::size_grid_dim(num_chunks as u64), geometry::SIZE_BLOCK_THREADS);
        // SAFETY: `ans_decompressed_size` has the size-query signature; the chunks are valid per
        // this function's contract.
        unsafe {
            launch_size_query(
                gpu,
                &gpu.kernels().ans_decompressed_size,
                (in_ptrs, in_bytes, num_chunks, out_sizes),
                geometry,
            )
        }
    }
}
