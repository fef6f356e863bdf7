//! Zstandard decompression (RFC 8878), one warp per chunk: a chunk is a buffer of frames (zstd
//! frames decoded in order, skippable frames skipped), decoded into its output with nvCOMP's
//! statuses and the CPU codec's rules (`gpucomp::cpu::zstd`): what it decodes decodes to the
//! same bytes, what it refuses is refused (`CANNOT_DECOMPRESS`; `NOT_SUPPORTED` for
//! dictionaries and windows above 2^27 bytes), never with a panic, hang or access out of
//! bounds.
//!
//! Layers, one module each: [`bitstream`] (forward and backward bit readers), [`fse`]
//! (normalized counts, table build, predefined distributions), [`huffman`] (weights, table,
//! symbol decoding), [`literals`], [`sequences`], [`execute`], [`frame`], [`xxh64`], and the
//! kernel body [`decompress`].
//!
//! This first version is serial: lane 0 of the warp decodes the whole chunk (headers, tables,
//! Huffman streams one after another, sequences, copies, checksum); lanes 1-31 exit. Literals
//! are decoded straight into the output as sequences consume them, so no literal buffer is
//! needed. Per-warp state is the [`Workspace`] in shared memory, 14848 bytes: the Huffman table
//! (4096 × 2 B; libzstd accepts table logs up to 12), the three sequence tables (512 + 256 +
//! 512 × 4 B, kept across blocks for repeat mode), and the table-build scratch.
//!
//! Launch geometry: [`DECOMPRESS_BLOCK`] threads per block ([`WARPS_PER_BLOCK`] chunks),
//! [`decompress_grid_dim`] blocks, static shared memory only ([`DecompressShared`],
//! 29696 bytes).
pub mod bitstream;
pub mod execute;
pub mod frame;
pub mod fse;
pub mod huffman;
pub mod literals;
pub mod sequences;
pub mod xxh64;

use crate::batch::{self, DecompressArgs};
use crate::{status, Thread};

/// Warps (chunks) per block of [`decompress`].
pub const WARPS_PER_BLOCK: u32 = 2;
/// Threads per block of [`decompress`].
pub const DECOMPRESS_BLOCK: u32 = WARPS_PER_BLOCK * 32;

/// `gridDim.x` of [`decompress`] for `num_chunks` chunks.
pub const fn decompress_grid_dim(num_chunks: u64) -> u32 {
    num_chunks.div_ceil(WARPS_PER_BLOCK as u64) as u32
}

/// One warp's tables (shared memory).
#[repr(C, align(16))]
pub struct Workspace {
    /// Huffman decoding table.
    pub huf: [u16; 4096],
    /// Literal-length FSE table.
    pub ll: [u32; 512],
    /// Offset FSE table.
    pub of: [u32; 256],
    /// Match-length FSE table.
    pub ml: [u32; 512],
    /// FSE table of Huffman weights.
    pub weights_fse: [u32; 64],
    /// Normalized counts of an FSE header being read.
    pub norm: [i16; 256],
    /// Next-state counters of an FSE table build.
    pub next: [u16; 256],
    /// Huffman weights being read.
    pub weights: [u8; 256],
}

/// Shared memory of one block of [`decompress`].
#[repr(C)]
pub struct DecompressShared {
    warps: [Workspace; WARPS_PER_BLOCK as usize],
}

/// Kernel body of `zstd_decompress`: decompresses chunk `blockIdx.x * WARPS_PER_BLOCK + warp`
/// on lane 0 and stores its size and status.
///
/// # Safety
/// Launched with [`DECOMPRESS_BLOCK`] threads per block; `args` valid, every chunk's input
/// valid for its size and its output for its capacity, outputs not overlapping inputs or each
/// other; `smem` is the block's shared memory.
#[inline(always)]
pub unsafe fn decompress<T: Thread>(t: &T, smem: *mut DecompressShared, args: DecompressArgs) {
    if t.warp() >= WARPS_PER_BLOCK || t.lane() != 0 {
        return;
    }
    let Some(chunk) = batch::warp_chunk(t, WARPS_PER_BLOCK, args.num_chunks) else { return };
    let (inp, in_len) = args.input(chunk);
    let (out, cap) = args.output(chunk);
    let r = if (inp.is_null() && in_len > 0) || in_len > isize::MAX as u64 {
        Err(status::CANNOT_DECOMPRESS)
    } else {
        let cap = if out.is_null() { 0 } else { cap.min(isize::MAX as u64) as usize };
        // SAFETY: the caller's contract: the input holds `in_len` bytes, the output `cap`, and
        // only this lane touches them; a null pointer is only taken with length 0.
        let input = if in_len == 0 { &[][..] } else { core::slice::from_raw_parts(inp, in_len as usize) };
        let output = if cap == 0 { &mut [][..] } else { core::slice::from_raw_parts_mut(out, cap) };
        // SAFETY: `warp < WARPS_PER_BLOCK`, and only lane 0 of this warp uses its workspace.
        let ws = &mut *(&raw mut (*smem).warps).cast::<Workspace>().add(t.warp() as usize);
        frame::decode_chunk(input, output, ws).map(|n| n as u64)
    };
    args.finish(chunk, r);
}

#[cfg(test)]
mod tests;
