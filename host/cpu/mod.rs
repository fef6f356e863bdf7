//! CPU reference codecs: every algorithm on the CPU, chunk by chunk.
//!
//! They define what the GPU kernels must produce (the kernels are tested against them) and are
//! the high-level API's fallback when no GPU is present. [`compress_chunk`] and
//! [`decompress_chunk`] dispatch on the [`Algorithm`]; one module per algorithm holds the codec,
//! with `compress`, `decompress` and `decompressed_size` on one chunk.
//!
//! ```
//! use gpucomp::{cpu, Algorithm, BitcompOptions, DataType};
//!
//! let values: Vec<u8> = (0..4096u32).flat_map(|v| (v % 100).to_le_bytes()).collect();
//! let algorithm = Algorithm::Bitcomp(BitcompOptions::default().with_data_type(DataType::Uint));
//! let mut chunk = vec![0u8; algorithm.max_compressed_chunk_size(values.len())];
//! let n = cpu::compress_chunk(&algorithm, values.len(), &values, &mut chunk).unwrap();
//! chunk.truncate(n);
//! assert_eq!(cpu::decompressed_chunk_size(&algorithm, &chunk), Ok(values.len()));
//!
//! let mut back = vec![0u8; values.len()];
//! assert_eq!(cpu::decompress_chunk(&algorithm, &chunk, &mut back), Ok(values.len()));
//! assert_eq!(back, values);
//! // The same chunk through the algorithm's own module:
//! assert_eq!(cpu::bitcomp::decompress_to_vec(&chunk), Ok(values));
//! ```
// No `unsafe` code in the CPU codecs, except the SIMD tile decoders of ANS (`ans/x86.rs`, which
// allows it; `deny` rather than `forbid` here so that it can): every other module forbids it.
#![deny(unsafe_code)]
pub mod ans;
#[forbid(unsafe_code)]
pub mod bitcomp;
#[forbid(unsafe_code)]
mod bits;
#[forbid(unsafe_code)]
pub mod cascaded;
#[forbid(unsafe_code)]
pub mod lz4;
#[forbid(unsafe_code)]
pub mod zstd;

use crate::algorithm::Algorithm;
use crate::error::Status;
use crate::types::BitshuffleMode;

/// Compresses one chunk into `output`, which holds at least
/// [`Algorithm::max_compressed_chunk_size`] of the input length; returns the bytes written.
/// `max_chunk_bytes` is the largest chunk of the batch (nvCOMP's `max_uncompressed_chunk_bytes`:
/// the stream's chunk size, or the whole input if that is smaller), which LZ4's table size and
/// ANS's sub-chunk size follow.
pub fn compress_chunk(
    algorithm: &Algorithm,
    max_chunk_bytes: usize,
    input: &[u8],
    output: &mut [u8],
) -> Result<usize, Status> {
    match algorithm {
        Algorithm::Lz4(opts) => {
            let params = lz4::EncoderParams::new(opts, max_chunk_bytes)?;
            match opts.bitshuffle {
                BitshuffleMode::None => lz4::compress(input, output, &params),
                mode => {
                    lz4::compress(&lz4::bitshuffle::shuffle_to_vec(input, params.element_width, mode)?, output, &params)
                }
            }
        }
        Algorithm::Ans(opts) => ans::compress_in_batch(input, output, opts, max_chunk_bytes),
        Algorithm::Bitcomp(opts) => bitcomp::compress(input, output, opts),
        Algorithm::Cascaded(opts) => cascaded::compress(input, output, opts),
        Algorithm::Zstd(opts) => zstd::compress(input, output, opts),
    }
}

/// Decompresses one chunk into `output`, which must be at least as long as the chunk's
/// uncompressed size; returns the bytes written. Corrupt input gives `CannotDecompress`.
/// Bytes of `output` past the returned length may be overwritten (decoders copy in whole words
/// where the output has room), and so may bytes of an output whose chunk failed.
pub fn decompress_chunk(algorithm: &Algorithm, input: &[u8], output: &mut [u8]) -> Result<usize, Status> {
    match algorithm {
        Algorithm::Lz4(opts) => {
            let width = opts.element_width().map_err(|_| Status::NotSupported)?;
            match opts.bitshuffle {
                BitshuffleMode::None => Ok(lz4::decompress(input, output)?),
                mode => {
                    let n = lz4::decompressed_size(input)?;
                    let out = output.get_mut(..n).ok_or(Status::CannotDecompress)?;
                    let mut shuffled = vec![0u8; n];
                    lz4::decompress(input, &mut shuffled)?;
                    lz4::bitshuffle::unshuffle(&shuffled, out, width, mode)?;
                    Ok(n)
                }
            }
        }
        Algorithm::Ans(_) => ans::decompress(input, output),
        Algorithm::Bitcomp(_) => bitcomp::decompress(input, output),
        Algorithm::Cascaded(_) => cascaded::decompress(input, output),
        Algorithm::Zstd(_) => Ok(zstd::decompress(input, output)?),
    }
}

/// The uncompressed size of one chunk, read from the chunk itself (for RAW streams).
pub fn decompressed_chunk_size(algorithm: &Algorithm, input: &[u8]) -> Result<usize, Status> {
    match algorithm {
        Algorithm::Lz4(_) => Ok(lz4::decompressed_size(input)?),
        Algorithm::Ans(_) => ans::decompressed_size(input),
        Algorithm::Bitcomp(_) => bitcomp::decompressed_size(input),
        Algorithm::Cascaded(_) => cascaded::decompressed_size(input),
        Algorithm::Zstd(_) => Ok(zstd::decompressed_size(input)?),
    }
}
