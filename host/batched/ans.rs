//! Batched ANS (`nvcompBatchedANS*`): nvCOMP 6's rANS chunks, one per chunk.
//!
//! Both directions run on the GPU. Compression (`ans_compress`; `ans_compress_float` for FLOAT16
//! and FLOAT32 sub-chunks that its smaller staging buffers hold, and `ans_compress_float8` for
//! FLOAT8 E4M3: `gpucomp_kernels::ans::compress`) writes exactly the CPU codec's bytes (nvCOMP's)
//! for byte, FLOAT16, FLOAT8 and FLOAT32 data, every option value. Decompression reads every
//! mode nvCOMP writes: bytes, FLOAT16, FLOAT8, FLOAT32; one or two states per lane; any
//! sub-chunk size.
use cudarc::driver::CudaSlice;
use gpucomp_kernels::ans as geometry;
use gpucomp_kernels::ans::compress;

use super::{check_chunk_size, launch_compress, launch_decompress, launch_header_size_query, Alignments, BatchedCodec};
use super::{CompressBatch, DecompressBatch};
use crate::algorithm::AnsOptions;
use crate::error::Result;
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

    /// `ans_compress`, `ans_compress_float` or `ans_compress_float8`
    /// (`gpucomp_kernels::ans::compress::Kernel::for_batch`), one thread block per chunk. The
    /// sub-chunk size follows `max_uncompressed_chunk_bytes` (pass the batch's largest chunk, as
    /// nvCOMP's high-level API does); outputs need `max_compressed_chunk_size` of it (the kernel
    /// uses the room past each chunk as scratch). Per-chunk statuses as the CPU codec's
    /// `compress_in_batch`.
    unsafe fn compress_async(&self, gpu: &Gpu, batch: CompressBatch<'_>) -> Result<()> {
        check_chunk_size("ANS", batch.max_uncompressed_chunk_bytes, AnsOptions::MAX_CHUNK_SIZE)?;
        let o = &self.options;
        let options = [
            o.data_type as u32,
            u32::from(o.max_sub_chunk_count),
            u32::from(o.states_per_lane),
            u32::from(o.histogram_reduction_log2),
            batch.max_uncompressed_chunk_bytes as u32,
        ];
        let geometry = (compress::compress_grid_dim(batch.num_chunks as u64), compress::COMPRESS_BLOCK_THREADS, 0);
        let kernels = gpu.kernels();
        let sub_chunk_bytes = o.sub_chunk_size(batch.max_uncompressed_chunk_bytes);
        let kernel = match compress::Kernel::for_batch(o.data_type as u32, sub_chunk_bytes) {
            compress::Kernel::General => &kernels.ans_compress,
            compress::Kernel::Float => &kernels.ans_compress_float,
            compress::Kernel::Float8 => &kernels.ans_compress_float8,
        };
        // SAFETY: the three kernels take the batched compression arguments, then the data type,
        // max_sub_chunk_count, states_per_lane, histogram_reduction_log2 and the batch's largest
        // chunk (at most 2^24, checked); the batch meets this function's contract.
        unsafe { launch_compress(gpu, kernel, batch, geometry, &options) }
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
        // SAFETY: `ans_decompressed_size` has the size-query signature; the chunks are valid per this
        // function's contract.
        unsafe {
            launch_header_size_query(
                gpu,
                &gpu.kernels().ans_decompressed_size,
                (in_ptrs, in_bytes, num_chunks, out_sizes),
            )
        }
    }
}
