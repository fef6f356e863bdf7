//! Cascaded decompression (nvCOMP 6's asymmetric and symmetric chunk formats and the raw
//! fallback), nvCOMP's batched contract: `cascaded_decompress(in_ptrs, in_bytes, num_chunks,
//! out_ptrs, out_capacity, out_actual, statuses)` followed by `(parts, split)` (the blocks per
//! chunk and their per-chunk words, below), and `cascaded_decompressed_size(in_ptrs, in_bytes,
//! num_chunks, out_sizes)` (`size.rs`).
//!
//! The format is described in the CPU reference (`gpucomp::cpu::cascaded`, FORMATS C.2): an
//! 8-byte chunk header, then either the raw bytes (chunk length `≥ 8 + roundup4(n)`) or one
//! encoded block per 4096 output bytes; a block is `w0` (size, slot mask, slot kinds), the final
//! stream's byte count, up to eight RLE/DELTA stages in slots, and a FOR + bit-packed final
//! stream. Symmetric chunks (header mode 1, 4- and 8-byte types) hold 8 KiB blocks of bit-plane
//! sub-streams instead (`symmetric.rs`).
//!
//! Launch geometry (1-D):
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `cascaded_decompress` | [`BLOCK_THREADS`] | [`split_grid_dim`]`(num_chunks, split)` ([`grid_dim`]`(num_chunks)` at `split` 1) | static only ([`SHARED_BYTES`] = 34 464 B); pass 0 dynamic bytes |
//! | `cascaded_decompressed_size` | [`SIZE_BLOCK_THREADS`] | [`size_grid_dim`] | none |
//!
//! # Design
//!
//! `split` thread blocks (4 warps each) per chunk, groups of `split` blocks looping over chunks
//! beyond the grid, twice: the first pass decodes asymmetric chunks and reports invalid ones,
//! the second decodes the symmetric ones (`symmetric.rs`), so that the two decoders'
//! loop-invariant lane and warp addresses are never live together (inlined into one loop they
//! spilled on sm_80). Block `b` of the grid takes part `p = b % split` of chunk `b / split`.
//!
//! * **Blocks per chunk**: the host picks `split` per launch ([`blocks_per_chunk`]: enough
//!   blocks to fill the GPU, [`BLOCKS_PER_SM`] per SM, at most a chunk's groups of 4 blocks of
//!   4 KiB, 1 for batches of many chunks), since a chunk's 4 KiB blocks decode independently once
//!   their offsets are known: with one block per chunk, a batch of few chunks leaves the GPU idle
//!   and one 64 KiB chunk takes 4 rounds of its 4 warps (35.8 µs on an H200). Every block of a
//!   chunk reads the header and walks the whole block table (every size is checked by every
//!   block, the chunk's end included); each can find the chunk corrupt, so at `split > 1` they
//!   combine in the chunk's word of `parts` (a `u32` in the decompression temp, zeroed on the
//!   stream before the launch): each block's thread 0 adds 1 (finished, low 16 bits) and, if the
//!   block found the chunk corrupt, `2^16` (failed, high 16 bits) by one relaxed atomic add, and
//!   the block whose add sees `split − 1` finished ones stores the chunk's status and size
//!   ([`batch::part_result`]). Nothing else passes between the blocks (each writes only its own
//!   blocks' output), so the atomic word needs no fence. At `split` 1 `parts` is not read. The
//!   block's part, `split` and chunk step live in shared memory (written once by thread 0, read
//!   where used), so the hot loops keep their registers.
//! * **Raw fallback**: the chunk's thread blocks copy the bytes together (thread `t` of part `p`
//!   is thread `p·128 + t` of `split·128`), 16/8/4/1 bytes per thread and step depending on the
//!   common alignment of source and destination.
//! * **Prefetch**: an encoded chunk's first 256 KiB are requested into L2 by the chunk's thread
//!   blocks (`prefetch.global.L2`, one per 128-byte line, shared out like the raw copy) before
//!   the walk, so that the walk's and the blocks' dependent loads wait for L2 rather than DRAM.
//!   With one thread block per chunk and a 64 KiB-chunked TPC-H column being about one wave of
//!   thread blocks, the time is one chunk's latency chain, not bandwidth.
//! * **Block walk**: thread 0 walks the 16-bit block sizes (`w0` bits 0–15), 16 blocks (a
//!   64 KiB chunk) at a time, checking each size (≥ 8, a multiple of `max(4, width)`, inside the
//!   chunk) and publishing the block offsets in shared memory; then warp `w` of part `p` decodes
//!   its blocks among the 16 (`4p + w`, stepping by `4·split` across the walks; at `split` 1: `w`,
//!   `w + 4`, …) without waiting for the other warps.
//! * **Block decode** (one warp, monomorphised per element width): every lane parses the block
//!   header (uniform loads), with every check of the CPU reference's `block::parse`; the final
//!   stream's packed words (at most 1024, since `count·bits ≤ 8·4096`) are copied into the
//!   second 4 KiB buffer with eight independent loads in flight per lane, and unpacked from
//!   there: 4- and 8-byte values 16 bytes per lane and step (one 16-byte store), straight to the
//!   output when the block has no stages (FOR only: every 4-byte TPC-H column and
//!   extendedprice) and the output is 16-byte aligned, else into the first buffer; the stages are
//!   undone in reverse slot order between two such buffers: RLE takes 32 runs per step, an
//!   inclusive warp scan of their counts gives the run ends, which go to a 32-entry shared table
//!   with the run values; each lane then writes 4 consecutive positions (1 for 4- and 8-byte
//!   values), finding the run of the first by a 5-step binary search over the table and the
//!   others by stepping forward; DELTA is a warp scan over 4 consecutive differences per lane (1
//!   for 4- and 8-byte values; wrapping in the element width, 32-bit arithmetic for widths up to
//!   4) with a carry between steps. 1- and 2-byte final streams are unpacked a 4-byte word per
//!   lane. The finished block leaves shared memory with 16-byte stores when the destination is
//!   16-byte aligned.
//!
//! Launch bounds `.maxntid 128`, `.minnctapersm 4` (4 blocks, 16 warps per SM): with the
//! staged, 16-byte unpacking and the 16-block walk, 5 blocks (96 registers) spilled 80 bytes on
//! sm_90 (and measured 2–5 % slower than 4 on the anchors, which run about one wave of
//! thread blocks either way). No spills on sm_80 or sm_90 (ptxas 13: 127 registers on sm_90,
//! as before the blocks per chunk; `benches/notes/cascaded.md`).
//!
//! The L2 prefetch measured 2–5 % faster on the anchors (H200). Measurements:
//! `benches/notes/cascaded.md`.
//!
//! # Hostile input
//!
//! Every input read lies within `in_bytes` (all fields are validated against the block size,
//! and block sizes against the chunk length before any read), every write within the output
//! capacity (`n ≤ out_capacity` first; blocks write at most their element count, RLE totals are
//! checked per step before expanding), every loop is bounded by the block's element count or the
//! chunk length. Any inconsistency gives the chunk `CANNOT_DECOMPRESS` and `out_actual = 0`
//! (output bytes already written stay); the statuses agree with the CPU reference's decoder.
//! No code path panics (no `trap` in the PTX).
//!
//! Any inconsistency found by any of a chunk's `split` blocks fails the chunk (every block checks
//! the header and every block size; the block decoding a 4 KiB block checks its fields).
//!
//! **Symmetric chunks** (header mode 1) are decoded with the same checks as the reference's
//! `symmetric::decode` (1- and 2-byte types, unknown sub-stream forms, any inconsistency:
//! `CANNOT_DECOMPRESS`); their hostile-input guarantees are in `symmetric.rs`.
// `x % a != 0` rather than `is_multiple_of`: the latter's `a == 0` case costs the kernel a
// register and a spill (ptxas, sm_90).
#![allow(clippy::manual_is_multiple_of)]
pub mod compress;
mod size;
mod symmetric;

pub use size::{decompressed_size, size_grid_dim, SIZE_BLOCK_THREADS};

use crate::batch::{self, DecompressArgs};
use crate::warp::{shfl_idx_u64, warp_inclusive_scan_u64};
use crate::{status, Thread};
use core::ptr::read_volatile;

/// Output bytes per encoded block.
pub const BLOCK_BYTES: usize = 4096;
/// Warps per thread block (one 4 KiB block each at a time).
pub const WARPS_PER_BLOCK: u32 = 4;
/// `blockDim.x` of `cascaded_decompress`.
pub const BLOCK_THREADS: u32 = WARPS_PER_BLOCK * 32;
/// Static shared memory of `cascaded_decompress`, bytes.
pub const SHARED_BYTES: usize = core::mem::size_of::<Shared>();

/// `gridDim.x` of `cascaded_decompress` for `num_chunks` chunks at one thread block per chunk,
/// capped at 65535 (blocks loop over the rest): [`split_grid_dim`]`(num_chunks, 1)`.
pub const fn grid_dim(num_chunks: u64) -> u32 {
    split_grid_dim(num_chunks, 1)
}

/// `gridDim.x` of `cascaded_decompress` for `num_chunks` chunks at `split` thread blocks per
/// chunk (`1 ≤ split ≤ 65535`): `split` times the chunks, capped at the largest multiple of
/// `split` up to 65535 (groups of `split` blocks loop over the rest).
pub const fn split_grid_dim(num_chunks: u64, split: u32) -> u32 {
    batch::split_grid_dim(num_chunks, split, 65535)
}

/// Thread blocks of `cascaded_decompress` an SM holds (its `.minnctapersm`).
pub const BLOCKS_PER_SM: u32 = 4;
/// Uncompressed bytes a thread block decodes per round: its warps' 4 KiB blocks.
pub const SPLIT_GROUP_BYTES: u64 = WARPS_PER_BLOCK as u64 * BLOCK_BYTES as u64;

/// Thread blocks per chunk (`split`) for a batch of `num_chunks` chunks of up to
/// `max_chunk_bytes` uncompressed bytes on a GPU of `sms` SMs: enough for the batch to fill the
/// GPU ([`BLOCKS_PER_SM`] blocks per SM), never more than a chunk has groups of
/// [`SPLIT_GROUP_BYTES`], and 1 for a batch that fills the GPU alone (or an unknown bound, 0).
/// A launch at `split > 1` needs [`split_temp_bytes`] of zeroed temp memory.
pub const fn blocks_per_chunk(num_chunks: u64, max_chunk_bytes: u64, sms: u32) -> u32 {
    batch::blocks_per_chunk(num_chunks, max_chunk_bytes, SPLIT_GROUP_BYTES, sms, BLOCKS_PER_SM)
}

/// Temp bytes `cascaded_decompress` needs for `num_chunks` chunks of up to `max_chunk_bytes`
/// bytes to run at more than one block per chunk: one `u32` per chunk (the chunk's finished and
/// failed blocks), or 0 when no batch of such chunks splits them ([`blocks_per_chunk`]).
pub const fn split_temp_bytes(num_chunks: u64, max_chunk_bytes: u64) -> u64 {
    if max_chunk_bytes.div_ceil(SPLIT_GROUP_BYTES) < 2 {
        0
    } else {
        4 * num_chunks
    }
}

const W: usize = WARPS_PER_BLOCK as usize;
/// Blocks one walk publishes (a 64 KiB chunk's 16): each warp then decodes every `W`-th of them
/// without waiting for the others.
const WALK: usize = 16;
/// Bytes of a chunk prefetched into L2 before its walk.
const PREFETCH_BYTES: u64 = 256 << 10;

/// One warp's part of the shared memory.
#[repr(C, align(16))]
pub struct WarpArea {
    /// Two 4 KiB ping-pong element buffers.
    bufs: [[u128; BLOCK_BYTES / 16]; 2],
    /// The run values of the RLE step in progress.
    run_val: [u64; 32],
    /// The run ends of the RLE step in progress.
    run_end: [u32; 32],
}

/// Byte offset of `run_val` in a [`WarpArea`].
const RUN_VAL: usize = 2 * BLOCK_BYTES;
/// Byte offset of `run_end` in a [`WarpArea`].
const RUN_END: usize = RUN_VAL + 32 * 8;

/// Shared memory of one thread block.
#[repr(C, align(16))]
pub struct Shared {
    warps: [WarpArea; W],
    /// Chunk offsets of the blocks of this walk (`u64::MAX`: none).
    offsets: [u64; WALK],
    /// Per warp: 1 when its block was invalid.
    failed: [u32; W],
    /// 1 when the block walk of this step found an invalid size.
    walk_failed: u32,
    /// The block's part of each of its chunks (`blockIdx.x % split`), the blocks per chunk and
    /// the chunk loop's step (`gridDim.x / split`), written by thread 0 before the first chunk
    /// and read where used (not kept in registers; they fill what was padding).
    part: u32,
    split: u32,
    stride: u32,
}

/// The block's part of its chunks and the blocks per chunk, from shared memory.
#[inline(always)]
unsafe fn part_here(smem: *const Shared) -> (u32, u32) {
    (read_volatile(&raw const (*smem).part), read_volatile(&raw const (*smem).split))
}

/// Kernel body of `cascaded_decompress`: `split` thread blocks per chunk, block `b` decompressing
/// part `b % split` of chunk `i = b / split` (stepping by `gridDim.x / split`) and, the last of
/// the chunk's blocks to finish, storing its result.
///
/// # Safety
/// Launched with [`BLOCK_THREADS`] threads per block and a grid of a multiple of `split` blocks
/// (`1 ≤ split ≤ 65535`); with `split > 1`, `parts` holds `num_chunks` zeroed words (not read
/// otherwise); `args` valid, every chunk's buffers valid for its input size and output capacity
/// (a null pointer with a nonzero length is reported as corrupt), outputs overlapping nothing;
/// `smem` is the block's.
#[inline(always)]
pub unsafe fn decompress<T: Thread>(t: &T, smem: *mut Shared, args: DecompressArgs, parts: *mut u32, split: u32) {
    let split = split.max(1);
    if t.thread_idx() == 0 {
        (*smem).part = t.block_idx() % split;
        (*smem).split = split;
        (*smem).stride = t.grid_dim() / split;
    }
    // Every thread reads them from the first chunk on.
    t.sync_threads();
    // Asymmetric, raw and invalid chunks first; symmetric ones in a second pass, so that the two
    // decoders' loop-invariant values (lane and warp addresses) are never live together. The
    // result comes from thread 0 (the walker).
    let mut i = (t.block_idx() / split) as u64;
    while i < args.num_chunks {
        let ((inp, in_len), (out, cap)) = (args.input(i as usize), args.output(i as usize));
        let r = decompress_chunk(t, smem, inp, in_len, out, cap);
        if r != Err(SYMMETRIC) && t.thread_idx() == 0 {
            finish(args, parts, smem, i as usize, r);
        }
        // The next chunk reuses the shared memory.
        t.sync_threads();
        i += read_volatile(&raw const (*smem).stride) as u64;
    }
    // (`split ≥ 1`: the `max` only keeps a division-by-zero panic path out of the PTX.)
    let mut i = (t.block_idx() / read_volatile(&raw const (*smem).split).max(1)) as u64;
    while i < args.num_chunks {
        let (inp, in_len) = args.input(i as usize);
        if symmetric::is_symmetric(inp, in_len) {
            let (out, cap) = args.output(i as usize);
            let r = symmetric::decompress_chunk(t, smem, inp, in_len, out, cap);
            if t.thread_idx() == 0 {
                finish(args, parts, smem, i as usize, r);
            }
            t.sync_threads();
        }
        i += read_volatile(&raw const (*smem).stride) as u64;
    }
}

/// This block's result `r` for chunk `i` (by thread 0): stored when the block is the chunk's last
/// ([`batch::finish_part`]).
#[inline(always)]
unsafe fn finish(args: DecompressArgs, parts: *mut u32, smem: *const Shared, i: usize, r: Result<u64, i32>) {
    let (n, s) = match r {
        Ok(n) => (n, status::SUCCESS),
        Err(e) => (0, e),
    };
    batch::finish_part(args, parts, i, read_volatile(&raw const (*smem).split), n, s);
}

/// [`decompress_chunk`]'s answer for a symmetric chunk: decoded in the second pass.
const SYMMETRIC: i32 = -1;

const BAD: i32 = status::CANNOT_DECOMPRESS;

/// One asymmetric chunk, by the whole thread block ([`SYMMETRIC`] for a symmetric one). The
/// result is meaningful in thread 0 (the walker).
#[inline(always)]
unsafe fn decompress_chunk<T: Thread>(
    t: &T,
    smem: *mut Shared,
    inp: *const u8,
    in_len: u64,
    out: *mut u8,
    cap: u64,
) -> Result<u64, i32> {
    if in_len < 8 || inp.is_null() {
        return Err(BAD);
    }
    let h: [u8; 8] = core::array::from_fn(|k| *inp.add(k));
    if !valid_header(&h) {
        return Err(BAD);
    }
    if h[2] == 1 {
        return Err(SYMMETRIC);
    }
    let n = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as u64;
    if n > cap || (out.is_null() && n > 0) {
        return Err(BAD);
    }
    // The chunk's blocks share the raw copy and the prefetch: thread `tid` of part `p` is thread
    // `p · blockDim + tid` of `split · blockDim`.
    let (part, split) = part_here(smem);
    let (idx, stride) = (part * t.block_dim() + t.thread_idx(), split * t.block_dim());
    if in_len >= 8 + n.next_multiple_of(4) {
        copy(inp.add(8), out, n as usize, idx as usize, stride as usize);
        return Ok(n);
    }
    let wlog = (h[3] & 0x7f) >> 1;
    if n % (1u64 << wlog) != 0 {
        return Err(BAD);
    }
    prefetch_l2(inp, in_len.min(PREFETCH_BYTES), idx as u64, stride as u64);
    let aligned = (inp as usize).is_multiple_of(4);
    let ok = match wlog {
        0 => blocks::<T, 1>(t, smem, inp, in_len, out, n, aligned),
        1 => blocks::<T, 2>(t, smem, inp, in_len, out, n, aligned),
        2 => blocks::<T, 4>(t, smem, inp, in_len, out, n, aligned),
        _ => blocks::<T, 8>(t, smem, inp, in_len, out, n, aligned),
    };
    if ok {
        Ok(n)
    } else {
        Err(BAD)
    }
}

/// Whether a chunk header is one the CPU reference's `ChunkHeader::parse` accepts: bytes 0 and 1
/// zero, mode 0 (asymmetric) or 1 (symmetric), type byte `0x80` + an integer type (0 to 7).
#[inline(always)]
fn valid_header(h: &[u8; 8]) -> bool {
    h[0] == 0 && h[1] == 0 && h[2] <= 1 && (0x80..=0x87).contains(&h[3])
}

/// Asks L2 for the `len` bytes at `p` (readable), one request per 128-byte line, by the threads
/// `idx` of `stride`: the walk and the blocks then find them there instead of in DRAM, each
/// dependent load a shorter wait. No effect in the simulator.
#[inline(always)]
unsafe fn prefetch_l2(p: *const u8, len: u64, idx: u64, stride: u64) {
    let mut k = idx * 128;
    while k < len {
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: `k < len`: the address lies in the readable buffer (a prefetch never faults anyway).
        crate::asm::prefetch_l2(p.add(k as usize));
        #[cfg(not(target_arch = "nvptx64"))]
        let _ = p;
        k += 128 * stride;
    }
}

/// Little-endian `u32` at `p` (4-byte aligned when `aligned`).
#[inline(always)]
unsafe fn ld32(p: *const u8, aligned: bool) -> u32 {
    if aligned {
        *(p as *const u32)
    } else {
        u32::from_le_bytes([*p, *p.add(1), *p.add(2), *p.add(3)])
    }
}

/// Mask of the low `N` bytes.
#[inline(always)]
const fn value_mask<const N: usize>() -> u64 {
    if N >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * N)) - 1
    }
}

/// An `N`-byte value stored at `p` in a field of at least 4 bytes (8 for `N = 8`).
#[inline(always)]
unsafe fn ld_val<const N: usize>(p: *const u8, aligned: bool) -> u64 {
    if N == 8 {
        ld32(p, aligned) as u64 | (ld32(p.add(4), aligned) as u64) << 32
    } else {
        ld32(p, aligned) as u64 & value_mask::<N>()
    }
}

/// Element `i` of an `N`-byte array in shared memory.
#[inline(always)]
unsafe fn get<const N: usize>(buf: *const u8, i: u32) -> u64 {
    let i = i as usize;
    match N {
        1 => *buf.add(i) as u64,
        2 => *(buf as *const u16).add(i) as u64,
        4 => *(buf as *const u32).add(i) as u64,
        _ => *(buf as *const u64).add(i),
    }
}

/// Stores element `i` of an `N`-byte array in shared memory.
#[inline(always)]
unsafe fn set<const N: usize>(buf: *mut u8, i: u32, v: u64) {
    let i = i as usize;
    match N {
        1 => *buf.add(i) = v as u8,
        2 => *(buf as *mut u16).add(i) = v as u16,
        4 => *(buf as *mut u32).add(i) = v as u32,
        _ => *(buf as *mut u64).add(i) = v,
    }
}

/// Copies `n` bytes by the threads `idx` of `stride`, in the widest words both ends' alignment
/// allows.
#[inline(always)]
unsafe fn copy(src: *const u8, dst: *mut u8, n: usize, idx: usize, stride: usize) {
    let common = (src as usize | dst as usize) & 15;
    let wide = if common == 0 {
        16
    } else if common & 7 == 0 {
        8
    } else if common & 3 == 0 {
        4
    } else {
        1
    };
    // Bytes one by one when no word size fits (`wide == 1`: no words, all tail).
    let words = if wide == 1 { 0 } else { n / wide };
    let mut k = idx;
    match wide {
        16 => {
            while k < words {
                *(dst as *mut u128).add(k) = *(src as *const u128).add(k);
                k += stride;
            }
        }
        8 => {
            while k < words {
                *(dst as *mut u64).add(k) = *(src as *const u64).add(k);
                k += stride;
            }
        }
        4 => {
            while k < words {
                *(dst as *mut u32).add(k) = *(src as *const u32).add(k);
                k += stride;
            }
        }
        _ => {}
    }
    let mut k = words * wide + idx;
    while k < n {
        *dst.add(k) = *src.add(k);
        k += stride;
    }
}

/// Inclusive warp scan of `x` (wrapping).
#[inline(always)]
fn scan32<T: Thread>(t: &T, mut x: u32) -> u32 {
    let lane = t.lane();
    let mut d = 1;
    while d < 32 {
        let y = t.shfl_up(x, d);
        if lane >= d {
            x = x.wrapping_add(y);
        }
        d <<= 1;
    }
    x
}

/// The `bits`-bit field at bit `bitpos` of the `nwords` little-endian words at `words` (LSB
/// first across word boundaries; words past `nwords` read as 0). `bits` in 1..=64.
#[inline(always)]
unsafe fn field(words: *const u8, nwords: u32, aligned: bool, bitpos: u32, bits: u32) -> u64 {
    let (wi, sh) = (bitpos / 32, bitpos % 32);
    let at = |k: u32| if wi + k < nwords { ld32(words.add(4 * (wi + k) as usize), aligned) as u64 } else { 0 };
    let mut v = at(0) >> sh;
    if sh + bits > 32 {
        v |= at(1) << (32 - sh);
        if sh + bits > 64 {
            v |= at(2) << (64 - sh);
        }
    }
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// The asymmetric blocks of a chunk (elements of `N` bytes, `n` output bytes), by the whole
/// thread block. The result is meaningful in thread 0.
#[inline(always)]
unsafe fn blocks<T: Thread, const N: usize>(
    t: &T,
    smem: *mut Shared,
    inp: *const u8,
    in_len: u64,
    out: *mut u8,
    n: u64,
    aligned: bool,
) -> bool {
    let a = N.max(4) as u64;
    let nblocks = n.div_ceil(BLOCK_BYTES as u64);
    let (tid, warp, lane) = (t.thread_idx(), t.warp() as usize, t.lane());
    // The walker's (thread 0's) position in the chunk.
    let mut pos = 8u64;
    let mut first = 0u64;
    // The warp's next block: `4·part + warp`, stepping by `4·split` across the walks.
    let mut b = (part_here(smem).0 * W as u32) as u64 + warp as u64;
    while first < nblocks {
        if tid == 0 {
            let mut bad = 0;
            for k in 0..WALK {
                let b = first + k as u64;
                let mut off = u64::MAX;
                if b < nblocks && bad == 0 {
                    if in_len - pos < 4 {
                        bad = 1;
                    } else {
                        let size = (ld32(inp.add(pos as usize), aligned) & 0xffff) as u64;
                        if size < 8 || size % a != 0 || size > in_len - pos {
                            bad = 1;
                        } else {
                            off = pos;
                            pos += size;
                        }
                    }
                }
                (*smem).offsets[k] = off;
            }
            (*smem).walk_failed = bad;
        }
        t.sync_threads();
        if (*smem).walk_failed != 0 {
            return false;
        }
        // The warp's blocks of this walk (warp-uniform loop).
        let end = (first + WALK as u64).min(nblocks);
        let mut failed = 0;
        while b < end && failed == 0 {
            // `b - first < WALK`; the mask only keeps a bounds check (a `trap`) out of the PTX.
            let off = (*smem).offsets[(b - first) as usize % WALK] as usize;
            let elements = ((n - b * BLOCK_BYTES as u64).min(BLOCK_BYTES as u64) / N as u64) as u32;
            let bufs = (&raw mut (*smem).warps[warp]).cast::<u8>();
            let dst = out.add(b as usize * BLOCK_BYTES);
            failed = !decode_block::<T, N>(t, inp.add(off), aligned, elements, bufs, dst) as u32;
            b += (W as u32 * read_volatile(&raw const (*smem).split)) as u64;
        }
        if lane == 0 {
            (*smem).failed[warp] = failed;
        }
        t.sync_threads();
        let mut any = 0;
        for k in 0..W {
            any |= (*smem).failed[k];
        }
        if any != 0 {
            return false;
        }
        first += WALK as u64;
    }
    pos == in_len
}

/// Decodes one block (whose size was checked against the chunk) into `dst`, by one warp, with
/// the two 4 KiB buffers at `bufs`. Warp-uniform result: whether the block is valid.
#[inline(always)]
unsafe fn decode_block<T: Thread, const N: usize>(
    t: &T,
    blk: *const u8,
    aligned: bool,
    elements: u32,
    bufs: *mut u8,
    dst: *mut u8,
) -> bool {
    let a = N.max(4) as u32;
    let lane = t.lane();
    let w0 = ld32(blk, aligned);
    let size = w0 & 0xffff;
    let (mask, kinds) = ((w0 >> 16) & 0xff, w0 >> 24);
    let final_len = ld32(blk.add(4), aligned);
    // Forward pass over the slots: field positions, checked; lane `s` keeps slot `s`'s offset.
    let mut p = 8u32;
    let mut my_off = 0u32;
    for s in 0..8 {
        if (mask >> s) & 1 == 0 {
            continue;
        }
        if lane == s {
            my_off = p;
        }
        if (kinds >> s) & 1 == 1 {
            if p + 12 > size {
                return false;
            }
            let len = ld32(blk.add(p as usize), aligned);
            let hdr = ld32(blk.add(p as usize + 8), aligned);
            let (bits, count) = (hdr >> 16, hdr & 0xffff);
            if bits > 16 || count > elements {
                return false;
            }
            let slen = 8 + 4 * (count * bits).div_ceil(32);
            if slen != len || slen > size - (p + 4) {
                return false;
            }
            p += 4 + slen;
        } else {
            if p + a > size {
                return false;
            }
            p += a;
        }
    }
    let fo = p.next_multiple_of(a);
    let hb = if N == 8 { 16 } else { 8 };
    if fo + hb > size {
        return false;
    }
    let hdr = ld32(blk.add(fo as usize + N.next_multiple_of(4)), aligned);
    let (bits, count) = (hdr >> 16, hdr & 0xffff);
    if bits > 8 * N as u32 || count > elements {
        return false;
    }
    let flen = hb + 4 * (count * bits).div_ceil(32);
    if flen > size - fo || flen != final_len || (fo + flen).next_multiple_of(a) != size {
        return false;
    }

    if mask == 0 && count != elements {
        return false;
    }

    // The final stream's packed words (at most 1024: `count·bits ≤ 8·4096`) go to the second
    // buffer in one batch of loads, so that unpacking reads shared memory only.
    let reference = ld_val::<N>(blk.add(fo as usize), aligned);
    let nwords = (count * bits).div_ceil(32);
    let packed = bufs.add(BLOCK_BYTES);
    // This warp's previous block may still be read from the buffers.
    t.sync_warp();
    stage_words(lane, blk.add((fo + hb) as usize), nwords, aligned, packed as *mut u32);
    t.sync_warp();
    if N < 4 {
        unpack_narrow::<N>(lane, packed, nwords, true, reference, bits, count, bufs);
    } else {
        // Without stages the values go straight to a 16-byte aligned output.
        let direct = mask == 0 && (dst as usize) % 16 == 0;
        unpack_wide::<N>(lane, packed, nwords, reference, bits, count, if direct { dst } else { bufs });
        if direct {
            return true;
        }
    }
    t.sync_warp();

    // The stages, last slot first.
    let mut cur = 0usize;
    let mut len = count;
    let mut s = 8u32;
    while s > 0 {
        s -= 1;
        if (mask >> s) & 1 == 0 {
            continue;
        }
        let off = t.shfl_idx(my_off, s) as usize;
        let src = bufs.add(cur * BLOCK_BYTES);
        let out = bufs.add((cur ^ 1) * BLOCK_BYTES);
        if (kinds >> s) & 1 == 1 {
            let cref = ld32(blk.add(off + 4), aligned) & 0xffff;
            let hdr = ld32(blk.add(off + 8), aligned);
            let (cbits, ccount) = (hdr >> 16, hdr & 0xffff);
            if ccount != len {
                return false;
            }
            match expand_rle::<T, N>(t, src, len, blk.add(off + 12), aligned, cref, cbits, elements, out, bufs) {
                Some(l) => len = l,
                None => return false,
            }
        } else {
            if len >= elements {
                return false;
            }
            let first = ld_val::<N>(blk.add(off), aligned);
            undo_delta::<T, N>(t, src, len, first, out);
            len += 1;
        }
        cur ^= 1;
    }
    if len != elements {
        return false;
    }
    copy(bufs.add(cur * BLOCK_BYTES), dst, (len as usize) * N, lane as usize, 32);
    true
}

/// Copies the `nwords ≤ 1024` little-endian words at `src` to `dst` (shared memory), by the
/// lanes of a warp, eight loads in flight per lane.
#[inline(always)]
unsafe fn stage_words(lane: u32, src: *const u8, nwords: u32, aligned: bool, dst: *mut u32) {
    let mut w = lane;
    while w < nwords {
        let mut v = [0u32; 8];
        for (k, x) in v.iter_mut().enumerate() {
            let i = w + 32 * k as u32;
            if i < nwords {
                *x = ld32(src.add(4 * i as usize), aligned);
            }
        }
        for (k, x) in v.iter().enumerate() {
            let i = w + 32 * k as u32;
            if i < nwords {
                *dst.add(i as usize) = *x;
            }
        }
        w += 256;
    }
}

/// The final stream of 4- or 8-byte values (`bits ≤ 8·N`, packed words in shared memory at
/// `words`) into `out` (16-byte aligned): each lane produces 16 consecutive bytes (`16 / N`
/// values) per step, one 16-byte store.
#[inline(always)]
unsafe fn unpack_wide<const N: usize>(
    lane: u32,
    words: *const u8,
    nwords: u32,
    reference: u64,
    bits: u32,
    count: u32,
    out: *mut u8,
) {
    let per = (16 / N) as u32;
    let groups = count.div_ceil(per);
    let mut g = lane;
    while g < groups {
        let i0 = g * per;
        let mut v = [0u64; 4];
        for e in 0..per {
            let i = i0 + e;
            let f = if bits == 0 || i >= count { 0 } else { field(words, nwords, true, i * bits, bits) };
            v[(e % 4) as usize] = reference.wrapping_add(f) & value_mask::<N>();
        }
        if i0 + per <= count {
            let word = if N == 8 {
                v[0] as u128 | (v[1] as u128) << 64
            } else {
                v[0] as u128 | (v[1] as u128) << 32 | (v[2] as u128) << 64 | (v[3] as u128) << 96
            };
            *(out as *mut u128).add(g as usize) = word;
        } else {
            for e in 0..per {
                if i0 + e < count {
                    set::<N>(out, i0 + e, v[(e % 4) as usize]);
                }
            }
        }
        g += 32;
    }
}

/// The final stream of 1- or 2-byte values (`bits ≤ 16`): each lane produces the `4 / N`
/// elements of one 4-byte word of `out` from one 64-bit window of the packed words.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn unpack_narrow<const N: usize>(
    lane: u32,
    words: *const u8,
    nwords: u32,
    aligned: bool,
    reference: u64,
    bits: u32,
    count: u32,
    out: *mut u8,
) {
    let per = (4 / N) as u32;
    let groups = count.div_ceil(per);
    let fmask = (1u64 << bits) - 1;
    let mut g = lane;
    while g < groups {
        let bitpos = g * per * bits;
        let (wi, sh) = (bitpos / 32, bitpos % 32);
        let at = |k: u32| if wi + k < nwords { ld32(words.add(4 * (wi + k) as usize), aligned) as u64 } else { 0 };
        let win = if bits == 0 { 0 } else { (at(0) | at(1) << 32) >> sh };
        let mut word = 0u32;
        for e in 0..per {
            let x = reference.wrapping_add((win >> (e * bits)) & fmask) & value_mask::<N>();
            word |= (x as u32) << (8 * N as u32 * e);
        }
        let i0 = g * per;
        if i0 + per <= count {
            *(out as *mut u32).add(g as usize) = word;
        } else {
            for e in 0..per {
                if i0 + e < count {
                    set::<N>(out, i0 + e, (word >> (8 * N as u32 * e)) as u64 & value_mask::<N>());
                }
            }
        }
        g += 32;
    }
}

/// Expands `runs` run values (in `src`) by their counts (bit-packed, `cbits` bits from `cref`, at
/// `cwords`) into `out`; `None` when a count is 0 or the total exceeds `limit`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn expand_rle<T: Thread, const N: usize>(
    t: &T,
    src: *const u8,
    runs: u32,
    cwords: *const u8,
    aligned: bool,
    cref: u32,
    cbits: u32,
    limit: u32,
    out: *mut u8,
    area: *mut u8,
) -> Option<u32> {
    let (run_val, run_end) = (area.add(RUN_VAL) as *mut u64, area.add(RUN_END) as *mut u32);
    let lane = t.lane();
    let nwords = (runs * cbits).div_ceil(32);
    let mut pos = 0u32;
    let mut base = 0u32;
    while base < runs {
        let j = base + lane;
        let (c, v) = if j < runs {
            let f = if cbits == 0 { 0 } else { field(cwords, nwords, aligned, j * cbits, cbits) as u32 };
            (cref.wrapping_add(f) & 0xffff, get::<N>(src, j))
        } else {
            (0, 0)
        };
        if t.any(j < runs && c == 0) {
            return None;
        }
        let incl = scan32(t, c);
        let total = t.shfl_idx(incl, 31);
        if total > limit - pos {
            return None;
        }
        let stop = pos + total;
        *run_end.add(lane as usize) = pos + incl;
        *run_val.add(lane as usize) = v;
        t.sync_warp();
        // Each lane writes `per` consecutive positions (4 for 1- and 2-byte values): a binary
        // search over the 32 run ends for the first, then forward steps. The last end is `stop`,
        // so the searches stay within the 32 entries.
        let per: u32 = if N <= 2 { 4 } else { 1 };
        let mut q = pos;
        while q < stop {
            let p0 = q + lane * per;
            if p0 < stop {
                let mut k = 0u32;
                let mut step = 16u32;
                while step > 0 {
                    if *run_end.add((k + step - 1) as usize) <= p0 {
                        k += step;
                    }
                    step >>= 1;
                }
                for e in 0..per {
                    let p = p0 + e;
                    if p < stop {
                        while k < 31 && *run_end.add(k as usize) <= p {
                            k += 1;
                        }
                        set::<N>(out, p, *run_val.add(k as usize));
                    }
                }
            }
            q += 32 * per;
        }
        // The next step rewrites the run tables.
        t.sync_warp();
        pos = stop;
        base += 32;
    }
    t.sync_warp();
    Some(pos)
}

/// Prefix sums of the `len` differences in `src` from `first` into `out` (`len + 1` elements,
/// wrapping in `N` bytes).
#[inline(always)]
unsafe fn undo_delta<T: Thread, const N: usize>(t: &T, src: *const u8, len: u32, first: u64, out: *mut u8) {
    let lane = t.lane();
    let mut carry = first & value_mask::<N>();
    if lane == 0 {
        set::<N>(out, 0, carry);
    }
    // Each lane takes `k` consecutive differences (4 for 1- and 2-byte values, whose 4 share a
    // bank; 1 above): a serial sum, then one warp scan per 32·k.
    let k: u32 = if N <= 2 { 4 } else { 1 };
    let mut base = 0u32;
    while base < len {
        let j0 = base + lane * k;
        let mut loc = [0u64; 4];
        let mut acc = 0u64;
        for e in 0..k {
            let j = j0 + e;
            if j < len {
                acc = acc.wrapping_add(get::<N>(src, j));
            }
            loc[e as usize] = acc;
        }
        let (excl, total) = if N == 8 {
            let incl = warp_inclusive_scan_u64(t, acc);
            let total = shfl_idx_u64(t, incl, 31);
            (incl.wrapping_sub(acc), total)
        } else {
            let incl = scan32(t, acc as u32);
            (incl.wrapping_sub(acc as u32) as u64, t.shfl_idx(incl, 31) as u64)
        };
        let start = carry.wrapping_add(excl);
        for e in 0..k {
            let j = j0 + e;
            if j < len {
                set::<N>(out, j + 1, start.wrapping_add(loc[e as usize]) & value_mask::<N>());
            }
        }
        carry = carry.wrapping_add(total) & value_mask::<N>();
        base += 32 * k;
    }
    t.sync_warp();
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// Cascaded decompression of `num_chunks` chunks; see [`super::decompress`] and the
        /// module docs for the geometry.
        #[link_section = "nvvm:maxntid=128;minctasm=4"]
        fn cascaded_decompress(args: DecompressArgs, parts: *mut u32, split: u32) [smem: static cascaded_decompress: super::Shared] {
            super::decompress(&Ptx, smem, args, parts, split)
        }
    }
}
