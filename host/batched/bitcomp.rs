//! Batched Bitcomp (`nvcompBatchedBitcomp*`): nvCOMP 6's lossless Bitcomp chunks, one per chunk.
use cudarc::driver::CudaSlice;
use gpucomp_kernels::bitcomp as geometry;

use super::{check_chunk_size, launch_compress, launch_decompress, launch_header_size_query, Alignments, BatchedCodec};
use super::{CompressBatch, DecompressBatch};
use crate::algorithm::BitcompOptions;
use crate::cpu::bitcomp::header::ElementType;
use crate::error::{Error, Result};
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
        options.element_width()?;
        let element = ElementType::from_data_type(options.data_type)
            .ok_or_else(|| Error::Unsupported(format!("Bitcomp does not accept {}", options.data_type.name())))?;
        Ok(Bitcomp { options, element })
    }

    /// The options.
    pub fn options(&self) -> &BitcompOptions {
        &self.options
    }
}

impl BatchedCodec for Bitcomp {
    /// nvCOMP's values: inputs unaligned, outputs to 8 bytes.
    fn compress_alignments(&self) -> Alignments {
        Alignments { input: 1, output: 8, temp: 1 }
    }

    /// nvCOMP's values: 8-byte inputs and outputs, 4-byte temp.
    fn decompress_alignments(&self) -> Alignments {
        Alignments { input: 8, output: 8, temp: 4 }
    }

    fn max_compressed_chunk_size(&self, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_chunk_size("Bitcomp", max_uncompressed_chunk_bytes, BitcompOptions::MAX_CHUNK_SIZE)?;
        Ok(BitcompOptions::max_compressed_chunk_size(max_uncompressed_chunk_bytes))
    }

    /// 0: the compressor needs no temp space.
    fn compress_temp_size(&self, _num_chunks: usize, max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        check_chunk_size("Bitcomp", max_uncompressed_chunk_bytes, BitcompOptions::MAX_CHUNK_SIZE)?;
        Ok(0)
    }

    /// 0: the decompressor needs no temp space.
    fn decompress_temp_size(&self, _num_chunks: usize, _max_uncompressed_chunk_bytes: usize) -> Result<usize> {
        Ok(0)
    }

    /// `bitcomp_compress`, one thread block per chunk. Outputs need `max_compressed_chunk_size`
    /// of their chunk (the kernel uses the room past each chunk as scratch).
    unsafe fn compress_async(&self, gpu: &Gpu, batch: CompressBatch<'_>) -> Result<()> {
        check_chunk_size("Bitcomp", batch.max_uncompressed_chunk_bytes, BitcompOptions::MAX_CHUNK_SIZE)?;
        let geometry = (
            geometry::compress_grid_dim(batch.num_chunks as u64),
            geometry::COMPRESS_BLOCK_THREADS,
            geometry::COMPRESS_SHARED_BYTES,
        );
        let options = [u32::from(self.element.code()), self.options.algorithm as u32];
        // SAFETY: `bitcomp_compress` takes the batched compression arguments, then the type code
        // and the algorithm; the batch meets this function's contract.
        unsafe { launch_compress(gpu, &gpu.kernels().bitcomp_compress, batch, geometry, &options) }
    }

    unsafe fn decompress_async(&self, gpu: &Gpu, batch: DecompressBatch<'_>) -> Result<()> {
        // SAFETY: `bitcomp_decompress` has the batched decompression signature; the batch meets
        // this function's contract.
        unsafe {
            launch_decompress(
                gpu,
                &gpu.kernels().bitcomp_decompress,
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
        // SAFETY: `bitcomp_decompressed_size` has the size-query signature; the chunks are valid per this
        // function's contract.
        unsafe {
            launch_header_size_query(
                gpu,
                &gpu.kernels().bitcomp_decompressed_size,
                (in_ptrs, in_bytes, num_chunks, out_sizes),
            )
        }
    }
}
