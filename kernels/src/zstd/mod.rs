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
//! The decoder is a warp per chunk ([`parallel`]): all lanes walk the frames and blocks; raw
//! and RLE blocks are copied by all lanes; lane 0 builds the tables; 4-stream Huffman literals
//! are decoded by 4 lanes at once into the chunk's literal buffer (a region of the decompression
//! temp, `literal_stride` bytes per chunk, at most 128 KiB: a block's literals); lane 0 decodes
//! the sequences in batches of 32 into shared memory, and the warp writes each batch's output 32
//! bytes at a time. A block whose Huffman literals do not fit the literal buffer (none given, or
//! a smaller one) is decoded by lane 0 alone, literals decoded as the sequences consume them
//! (the serial decoder of [`frame`], which the size query also uses). Per-warp state is the
//! [`Workspace`] in shared memory, 15232 bytes: the Huffman table (4096 × 2 B; libzstd accepts
//! table logs up to 12), the three sequence tables (512 + 256 + 512 × 4 B, kept across blocks for
//! repeat mode), the table-build scratch, and a batch of 32 sequences (384 B).
//!
//! Launch geometry, for the host (1-D; both kernels the same):
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `zstd_decompress`, `zstd_decompressed_size` | [`DECOMPRESS_BLOCK`] | [`decompress_grid_dim`] | static only ([`DecompressShared`], 30464 B); pass 0 dynamic bytes |
//!
//! `zstd_decompressed_size` answers what the CPU codec's `decompressed_size` answers: the sum of
//! the frames' content sizes, a frame without one decoded without writing to count its bytes
//! ([`frame::chunk_size`]).
pub mod bitstream;
pub mod execute;
pub mod frame;
pub mod fse;
pub mod huffman;
pub mod literals;
pub mod parallel;
pub mod sequences;
pub mod xxh64;

use crate::batch::{self, DecompressArgs, SizeArgs};
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
    /// A batch of sequences (literal length, match length, offset) for the warp to execute.
    pub seq: [[u32; 3]; parallel::BATCH],
}

// The footprint the module docs and the launch table give.
const _: () = assert!(core::mem::size_of::<Workspace>() == 15232);

/// Shared memory of one block of [`decompress`].
#[repr(C)]
pub struct DecompressShared {
    warps: [Workspace; WARPS_PER_BLOCK as usize],
}

/// Kernel body of `zstd_decompress`: the warp decodes chunk `blockIdx.x * WARPS_PER_BLOCK +
/// warp` ([`parallel::decode_chunk`]), with the chunk's literal buffer of `literal_stride`
/// bytes at `literals + chunk * literal_stride` (`literals` null or `literal_stride` 0: no
/// buffer, Huffman literals are decoded by lane 0 alone), and lane 0 stores its size and status.
///
/// # Safety
/// Launched with [`DECOMPRESS_BLOCK`] threads per block; `args` valid, every chunk's input
/// valid for its size and its output for its capacity, outputs not overlapping inputs or each
/// other; `literals` (unless null) writable for `num_chunks * literal_stride` bytes, used by
/// nothing else; `smem` is the block's shared memory.
#[inline(always)]
pub unsafe fn decompress<T: Thread>(
    t: &T,
    smem: *mut DecompressShared,
    args: DecompressArgs,
    literals: *mut u8,
    literal_stride: u64,
) {
    if t.warp() >= WARPS_PER_BLOCK {
        return;
    }
    let Some(chunk) = batch::warp_chunk(t, WARPS_PER_BLOCK, args.num_chunks) else { return };
    // SAFETY: `warp < WARPS_PER_BLOCK`; a place projection, no reference is created.
    let ws = (&raw mut (*smem).warps).cast::<Workspace>().add(t.warp() as usize);
    let (inp, in_len) = args.input(chunk);
    let (out, cap) = args.output(chunk);
    let stride = if literals.is_null() { 0 } else { literal_stride.min(isize::MAX as u64) as usize };
    let r = match input(inp, in_len) {
        None => Err(status::CANNOT_DECOMPRESS),
        Some(input) => {
            let cap = if out.is_null() { 0 } else { cap.min(isize::MAX as u64) as usize };
            // SAFETY: `chunk < num_chunks`, so the chunk's buffer is inside `literals`.
            let lits = if stride == 0 { literals } else { literals.wrapping_add(chunk * stride) };
            let c = parallel::Chunk { out, cap, lits, lit_cap: stride, ws };
            parallel::decode_chunk(t, input, &c).map(|n| n as u64)
        }
    };
    if t.lane() == 0 {
        args.finish(chunk, r);
    }
}

/// Kernel body of `zstd_decompressed_size`: stores the size of chunk `blockIdx.x *
/// WARPS_PER_BLOCK + warp` as [`frame::chunk_size`] counts it (0 where it refuses the chunk),
/// on lane 0, with [`decompress`]'s geometry and shared memory.
///
/// # Safety
/// As for [`decompress`] (no outputs).
#[inline(always)]
pub unsafe fn decompressed_size<T: Thread>(t: &T, smem: *mut DecompressShared, args: SizeArgs) {
    let Some((chunk, ws)) = chunk_of(t, smem, args.num_chunks) else { return };
    let (inp, in_len) = args.input(chunk);
    let size = input(inp, in_len).and_then(|input| frame::chunk_size(input, ws).ok());
    args.set_size(chunk, size.unwrap_or(0));
}

/// This lane's chunk and workspace: lane 0 of each warp below [`WARPS_PER_BLOCK`] whose chunk is
/// in the batch.
///
/// # Safety
/// `smem` is the block's shared memory.
#[inline(always)]
unsafe fn chunk_of<'a, T: Thread>(
    t: &T,
    smem: *mut DecompressShared,
    num_chunks: u64,
) -> Option<(usize, &'a mut Workspace)> {
    if t.warp() >= WARPS_PER_BLOCK || t.lane() != 0 {
        return None;
    }
    let chunk = batch::warp_chunk(t, WARPS_PER_BLOCK, num_chunks)?;
    // SAFETY: `warp < WARPS_PER_BLOCK`, and only lane 0 of this warp uses its workspace.
    Some((chunk, &mut *(&raw mut (*smem).warps).cast::<Workspace>().add(t.warp() as usize)))
}

/// A chunk's input as a slice; `None` for a null pointer with a nonzero length or a length
/// beyond `isize::MAX`.
///
/// # Safety
/// The caller's contract: `inp` holds `len` bytes.
#[inline(always)]
unsafe fn input<'a>(inp: *const u8, len: u64) -> Option<&'a [u8]> {
    if len == 0 {
        Some(&[])
    } else if inp.is_null() || len > isize::MAX as u64 {
        None
    } else {
        // SAFETY: the caller's contract; a non-null pointer to `len` bytes, `len <= isize::MAX`.
        Some(core::slice::from_raw_parts(inp, len as usize))
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// Zstd decompression of `num_chunks` chunks; see [`super::decompress`] and the module
        /// docs for the geometry.
        #[link_section = "nvvm:maxntid=64"]
        fn zstd_decompress(args: DecompressArgs, literals: *mut u8, literal_stride: u64) [smem: static zstd_decompress: super::DecompressShared] {
            super::decompress(&Ptx, smem, args, literals, literal_stride)
        }
    }

    kernel! {
        /// The decompressed size of each of `num_chunks` Zstd chunks (0 for a chunk the decoder
        /// refuses); see [`super::decompressed_size`].
        #[link_section = "nvvm:maxntid=64"]
        fn zstd_decompressed_size(args: SizeArgs) [smem: static zstd_decompress: super::DecompressShared] {
            super::decompressed_size(&Ptx, smem, args)
        }
    }
}

#[cfg(test)]
mod tests;
