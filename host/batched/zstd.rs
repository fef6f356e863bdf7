//! Batched Zstd (`nvcompBatchedZstd*`): chunks of zstd frames (RFC 8878), decompressed on the
//! GPU (`zstd_decompress`, one warp per chunk, its Huffman literals decoded into a literal buffer
//! per chunk in the decompression temp); compression runs on the CPU codec
//! ([`crate::cpu::zstd`]), so this codec's compression answers `Unsupported`.
use cudarc::driver::{CudaSlice, DevicePtr};
use gpucomp_kernels::zstd as geometry;

use super::{launch_config, Alignments, CompressLaunch, DecompressKernel, Description, Geometry, Table};
use crate::algorithm::ZstdOptions;
use crate::error::{Error, Result};
use crate::gpu::kernels::{DecompressArgs, ZstdDecompressArgs};
use crate::gpu::Gpu;

/// Largest literal section of a block (Block_Maximum_Size), the most a literal buffer holds.
const MAX_LITERALS: usize = 128 << 10;

/// Each chunk's literal buffer for chunks of up to `max_chunk` bytes (0: unknown).
fn literal_stride(max_chunk: usize) -> usize {
    if max_chunk == 0 {
        MAX_LITERALS
    } else {
        max_chunk.min(MAX_LITERALS)
    }
}

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
        // `launch_decompress` below: the kernel takes the literal buffers.
        decompress: DecompressKernel::Own,
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
    /// to 8 bytes (the kernel reads and writes bytes; temp holds the literal buffers).
    fn alignments(&self) -> (Alignments, Alignments) {
        (Alignments { input: 4, output: 1, temp: 1 }, Alignments { input: 1, output: 1, temp: 8 })
    }

    /// A literal buffer per chunk: min(largest chunk, 128 KiB) bytes (128 KiB when unknown).
    fn decompress_temp(&self, num_chunks: usize, max_chunk: usize) -> usize {
        num_chunks.saturating_mul(literal_stride(max_chunk))
    }

    /// The kernel with literal buffers of min(128 KiB, `temp` / chunks) bytes (8-byte multiples);
    /// a block whose Huffman literals do not fit (none without temp) is decoded by one lane.
    unsafe fn launch_decompress(
        &self,
        gpu: &Gpu,
        args: &DecompressArgs,
        _max_chunk: usize,
        temp: Option<&mut CudaSlice<u8>>,
    ) -> Result<()> {
        let n = args.num_chunks;
        let (literals, stride) = match temp {
            Some(t) => {
                let stride = (t.len() / n as usize).min(MAX_LITERALS) & !7;
                (if stride == 0 { 0 } else { t.device_ptr(gpu.stream()).0 }, stride as u64)
            }
            None => (0, 0),
        };
        let config = launch_config(geometry::decompress_grid_dim(n), geometry::DECOMPRESS_BLOCK);
        let kernel = &gpu.kernels().zstd_decompress;
        // SAFETY: the batch per this function's contract; `literals` holds `n * stride` bytes
        // of this call's temp.
        unsafe {
            kernel.launch(gpu.stream(), config, &ZstdDecompressArgs { batch: *args, literals, literal_stride: stride })
        }
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
