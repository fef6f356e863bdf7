//! LZ4 CPU reference codec: raw LZ4 blocks as nvCOMP 6 writes them (FORMATS.md C.1).
//!
//! - [`decompress()`]: a safe decoder for raw LZ4 blocks from any source, hostile input included.
//! - bitshuffle: nvCOMP's optional bit-transpose pre-pass (8 KiB sub-chunks), applied by
//!   [`crate::cpu::compress_chunk`] and undone by [`crate::cpu::decompress_chunk`].
//! - [`compress()`]: the warp-window encoder, run sequentially: [`Lz4Encoder::Nvcomp`] reproduces
//!   nvCOMP 6's GPU encoder byte for byte, [`Lz4Encoder::Gpucomp`] (the default) is gpucomp's
//!   variant with a better ratio at the same per-warp cost; the GPU kernel reproduces its bytes.
//!
//! [`Lz4Encoder::Nvcomp`]: crate::Lz4Encoder::Nvcomp
//! [`Lz4Encoder::Gpucomp`]: crate::Lz4Encoder::Gpucomp
pub(crate) mod bitshuffle;
mod compress;
mod decompress;

pub use compress::{compress, compress_to_vec, EncoderParams, SEGMENT};
pub use decompress::{decompress, decompressed_size, DecompressError};

/// Largest raw LZ4 block either encoder writes for `n` input bytes (nvCOMP's bound, 8-aligned);
/// the output buffer [`compress()`] needs.
pub fn max_compressed_size(n: usize) -> usize {
    crate::Lz4Options::max_compressed_chunk_size(n)
}
