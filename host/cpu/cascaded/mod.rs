//! Cascaded CPU reference codec: nvCOMP 6's Cascaded chunk format (FORMATS C.2, C.2.2).
//!
//! - Decoder: asymmetric chunks of every integer type; symmetric chunks as far as their format
//!   is known (below); hostile input rejected without panics, huge allocations or unbounded work.
//! - Encoder: asymmetric chunks, nvCOMP 6's encoder reproduced: the same pipeline and block sizes
//!   everywhere it was compared (all golden chunks; 204 chunks nvCOMP wrote for every flag set,
//!   level and stage count; TPC-H SF 2 columns, to the byte in total), and the same bytes except
//!   in padding, which gpucomp zeroes and nvCOMP leaves stale. Symmetric-mode encoding is not
//!   implemented (`Status::NotSupported`).
//!
//! The code follows the format's parallel units so that a GPU kernel can mirror it block by block
//! and be tested against it: a chunk (`chunk`) is a header and a sequence of independent
//! 4 KiB blocks ([`mod@block`]); a block is a pipeline of up to three stages (`stages`: RLE,
//! DELTA) chosen per block (`select`) and a terminal FOR + bit-packing (`bitpack`).
//!
//! # Chunk format (asymmetric)
//!
//! Everything is little-endian. `n` is the chunk's uncompressed byte count, `width` the element
//! width of its type (1, 2, 4 or 8), `A = max(4, width)`.
//!
//! | offset | content |
//! |---|---|
//! | 0 | `u8 0, u8 0`, `u8` mode (0 asymmetric, 1 symmetric), `u8 0x80 + nvcompType` (0x80 CHAR … 0x87 ULONGLONG) |
//! | 4 | `u32 n` |
//! | 8 | **raw fallback**: the `n` input bytes, zero-padded to a multiple of 4 — the chunk is exactly `8 + roundup4(n)` bytes, nvCOMP's maximum compressed size; or **blocks**: one per 4096 input bytes (the last fewer), back to back, each a multiple of `A` bytes long |
//!
//! A decoder tells the fallback by the chunk length alone: `len ≥ 8 + roundup4(n)` means raw (in
//! asymmetric chunks only: a symmetric chunk can be longer than that, e.g. 26 bytes for one 8-byte
//! element, and is always read as symmetric). So the encoder falls back whenever the blocks would
//! not be strictly smaller, and also (gpucomp's rule) when the input is not a whole number of
//! elements. nvCOMP instead encodes the whole
//! elements only, writes their byte count as `n` and loses the 1 to `width − 1` trailing bytes: in
//! the golden stream `discount.u8.cascaded.native.checksum=COMPUTE_AND_NO_VERIFY.nvc` (UINT type),
//! chunk 1 covers 34 467 input bytes by the stream's tables, but its header says `n = 34 464` and
//! its blocks hold 34 464 bytes. The chunk is valid on its own and [`decompress`] returns 34 464
//! bytes (equal to the input's first 34 464); the stream-level caller must reject the chunk
//! because that size differs from the one the stream's tables give (`CannotDecompress`). A
//! block-coded chunk whose `n` is not a multiple of `width` (never written by either encoder) is
//! rejected with `CannotDecompress`.
//!
//! Block `i` holds `min(4096, n − 4096·i) / width` elements; its layout is in [`mod@block`], the
//! bit-packed streams in `bitpack`. Blocks are independent: a kernel finds block `i`'s start
//! by summing the 16-bit sizes in the `w0` words before it (a serial scan of at most 4096 words
//! per 16 MiB chunk) and decodes each block in its own thread group.
//!
//! Encoder rules (what gpucomp writes; the GPU encoder must produce the same bytes):
//! - values are read as `width`-byte little-endian integers; the FOR minimum and the bit width of
//!   `max − min` of the final stream follow the type's signedness (nvCOMP's signed-type blocks fit
//!   only the signed model, its unsigned ones only the unsigned one), **except after a DELTA
//!   stage, where they are always signed** (differences): settled with nvCOMP 6.0.0.12's GPU
//!   encoder (LLIF, H100) on inputs chosen for it — TPC-H `l_linenumber` as u8 (deltas +1 and
//!   −1…−6: nvCOMP picks DELTA, RLE with a 3-bit final stream and reference 0xfa = −6), and walks of
//!   alternating deltas 2^(8w−1) − 1 and 2^(8w−1) for every width and both signednesses (unsigned
//!   deltas would need 1 bit; nvCOMP stores them raw). Our chunks equal nvCOMP's outside padding
//!   on all of them, and the golden streams cannot tell the two rules apart;
//! - per block, the pipeline is chosen by `select::best` among `select::candidates`: every
//!   subset of the stage slots the options give (`min(level, 3)` slots of kinds RLE, DELTA, RLE —
//!   DELTA ×3 or RLE ×3 when only one kind is allowed), the smallest block, ties to the shorter
//!   pipeline, then to the lower slot mask; level 0 allows no stage; flags without FOR are
//!   refused (`NotSupported`, nvCOMP's status 11);
//! - RLE counts are bit-packed as unsigned 16-bit values with their own minimum as reference;
//! - every padding byte is zero: the 2 bytes after a RLE count stream's u16 reference, the bytes
//!   after a DELTA first value or a final reference narrower than 4 bytes, the 4 bytes after the
//!   bit header of an 8-byte final stream, the alignment gap before the final stream, the block tail
//!   and the raw fallback's tail ([`padding`] lists them for any chunk).
//!
//! # Symmetric chunks
//!
//! See `symmetric`: a different, bit-plane based block format (8 KiB blocks, 256-element
//! sub-blocks), 4- and 8-byte types (nvCOMP refuses 1- and 2-byte types in this mode, status 11);
//! only decoded. Every golden symmetric chunk decodes, and so do
//! the 46 chunks nvCOMP wrote for gpucomp's questions (every sub-stream mode it used: FOR, DELTA
//! with and without reference, zigzag DELTA, and their RLE forms; partial sub-blocks of every
//! length). Unknown forms give `CannotDecompress` — the decoder never guesses.
mod bitpack;
// Public only for the simulator tests (`tests/*_sim.rs`), which check the kernels phase by
// phase against these; not part of the API.
#[doc(hidden)]
pub mod block;
mod chunk;
pub mod describe;
mod select;
mod stages;
mod symmetric;

use crate::algorithm::cascaded::CascadedOptions;
use crate::Status;

#[doc(hidden)]
pub use chunk::{blocks, padding, ChunkHeader};

/// Compresses one chunk into `output`; returns the bytes written, at most
/// [`max_compressed_size`] of the input length.
///
/// Errors: `NotSupported` for float types and for symmetric mode, `ChunkSizeTooLarge` above
/// 16 MiB, `OutputBufferTooSmall` when the chunk does not fit in `output`.
pub fn compress(input: &[u8], output: &mut [u8], opts: &CascadedOptions) -> Result<usize, Status> {
    let v = chunk::compress_to_vec(input, opts)?;
    output.get_mut(..v.len()).ok_or(Status::OutputBufferTooSmall)?.copy_from_slice(&v);
    Ok(v.len())
}

/// Compresses one chunk into a new vector (see [`compress`]).
pub fn compress_to_vec(input: &[u8], opts: &CascadedOptions) -> Result<Vec<u8>, Status> {
    chunk::compress_to_vec(input, opts)
}

/// Decompresses one chunk (asymmetric or symmetric, type from its header) into the start of
/// `output`; returns its uncompressed size. Corrupt input, or an `output` shorter than the
/// chunk's uncompressed size, gives `CannotDecompress` (nvCOMP's status for both).
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, Status> {
    chunk::decompress(input, output)
}

/// The uncompressed size a chunk's header declares (`CannotDecompress` for a malformed header).
pub fn decompressed_size(input: &[u8]) -> Result<usize, Status> {
    Ok(ChunkHeader::parse(input)?.uncompressed_bytes)
}

/// Largest chunk [`compress`] writes for `n` input bytes: `8 + roundup4(n)`, the raw fallback.
pub fn max_compressed_size(n: usize) -> usize {
    CascadedOptions::max_compressed_chunk_size(n)
}
