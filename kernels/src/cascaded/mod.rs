//! Cascaded decompression (nvCOMP 6's asymmetric and symmetric chunk formats and the raw
//! fallback), nvCOMP's batched contract: `cascaded_decompress(in_ptrs, in_bytes, num_chunks,
//! out_ptrs, out_capacity, out_actual, statuses)`, and `cascaded_decompressed_size(in_ptrs,
//! in_bytes, num_chunks, out_sizes)` (`size.rs`).
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
//! | `cascaded_decompress` | [`BLOCK_THREADS`] | [`grid_dim`] | static only ([`SHARED_BYTES`] = 34 464 B); pass 0 dynamic bytes |
//! | `cascaded_decompressed_size` | [`SIZE_BLOCK_THREADS`] | [`size_grid_dim`] | none |
//!
//! # Design
//!
//! One thread block (4 warps) per chunk; blocks loop over chunks beyond the grid, twice: the
//! first pass decodes asymmetric chunks and reports invalid ones, the second decodes the
//! symmetric ones (`symmetric.rs`), so that the two decoders' loop-invariant lane and warp
//! addresses are never live together (inlined into one loop they spilled on sm_80).
//!
//! * **Raw fallback**: the whole thread block copies the bytes, 16/8/4/1 bytes per thread and
//!   step depending on the common alignment of source and destination.
//! * **Prefetch**: an encoded chunk's first 256 KiB are requested into L2 by the whole thread
//!   block (`prefetch.global.L2`, one per 128-byte line) before the walk, so that the walk's and
//!   the blocks' dependent loads wait for L2 rather than DRAM. With one thread block per chunk
//!   and a 64 KiB-chunked TPC-H column being about one wave of thread blocks, the time is one
//!   chunk's latency chain, not bandwidth.
//! * **Block walk**: thread 0 walks the 16-bit block sizes (`w0` bits 0–15), 16 blocks (a
//!   64 KiB chunk) at a time, checking each size (≥ 8, a multiple of `max(4, width)`, inside the
//!   chunk) and publishing the block offsets in shared memory; then warp `w` decodes blocks `w`,
//!   `w + 4`, … of the 16 without waiting for the other warps.
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
//! thread blocks either way). No spills on sm_80 or sm_90 (ptxas 13: 127 registers on sm_90).
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

/// Output bytes per encoded block.
pub const BLOCK_BYTES: usize = 4096;
/// Warps per thread block (one 4 KiB block each at a time).
pub const WARPS_PER_BLOCK: u32 = 4;
/// `blockDim.x` of `cascaded_decompress`.
pub const BLOCK_THREADS: u32 = WARPS_PER_BLOCK * 32;
/// Static shared memory of `cascaded_decompress`, bytes.
pub const SHARED_BYTES: usize = core::mem::size_of::<Shared>();

/// `gridDim.x` of `cascaded_decompress` for `num_chunks` chunks: one thread block per chunk,
/// capped at 65535 (blocks loop over the rest).
pub const fn grid_dim(num_chunks: u64) -> u32 {
    if num_chunks == 0 {
        1
    } else if num_chunks > 65535 {
        65535
    } else {
        num_chunks as u32
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
}

/// Kernel body of `cascaded_decompress`: decompresses chunk `i` (for `i = blockIdx.x`, stepping
/// by `gridDim.x`) and stores its result.
///
/// # Safety
/// Launched with [`BLOCK_THREADS`] threads per block; `args` valid, every chunk's buffers valid
/// for its input size and output capacity (a null pointer with a nonzero length is reported as
/// corrupt), outputs overlapping nothing; `smem` is the block's.
#[inline(always)]
pub unsafe fn decompress<T: Thread>(t: &T, smem: *mut Shared, args: DecompressArgs) {
    // Asymmetric, raw and invalid chunks first; symmetric ones in a second pass, so that the two
    // decoders' loop-invariant values (lane and warp addresses) are never live together. The
    // result comes from thread 0 (the walker).
    for i in batch::block_chunks(t, args.num_chunks) {
        let ((inp, in_len), (out, cap)) = (args.input(i), args.output(i));
        let r = decompress_chunk(t, smem, inp, in_len, out, cap);
        if r != Err(SYMMETRIC) && t.thread_idx() == 0 {
            args.finish(i, r);
        }
        // The next chunk reuses the shared memory.
        t.sync_threads();
    }
    for i in batch::block_chunks(t, args.num_chunks) {
        let (inp, in_len) = args.input(i);
        if symmetric::is_symmetric(inp, in_len) {
            let (out, cap) = args.output(i);
            let r = symmetric::decompress_chunk(t, smem, inp, in_len, out, cap);
            if t.thread_idx() == 0 {
                args.finish(i, r);
            }
            t.sync_threads();
        }
    }
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
    if in_len >= 8 + n.next_multiple_of(4) {
        copy(inp.add(8), out, n as usize, t.thread_idx() as usize, t.block_dim() as usize);
        return Ok(n);
    }
    let wlog = (h[3] & 0x7f) >> 1;
    if n % (1u64 << wlog) != 0 {
        return Err(BAD);
    }
    prefetch_l2(inp, in_len.min(PREFETCH_BYTES), t.thread_idx() as u64, t.block_dim() as u64);
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
        // Blocks first + warp, first + warp + W, ... of this walk (warp-uniform loop).
        let end = (first + WALK as u64).min(nblocks);
        let mut b = first + warp as u64;
        let mut failed = 0;
        while b < end && failed == 0 {
            // `b - first < WALK`; the mask only keeps a bounds check (a `trap`) out of the PTX.
            let off = (*smem).offsets[(b - first) as usize % WALK] as usize;
            let elements = ((n - b * BLOCK_BYTES as u64).min(BLOCK_BYTES as u64) / N as u64) as u32;
            let bufs = (&raw mut (*smem).warps[warp]).cast::<u8>();
            let dst = out.add(b as usize * BLOCK_BYTES);
            failed = !decode_block::<T, N>(t, inp.add(off), aligned, elements, bufs, dst) as u32;
            b += W as u64;
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
        fn cascaded_decompress(args: DecompressArgs) [smem: static cascaded_decompress: super::Shared] {
            super::decompress(&Ptx, smem, args)
        }
    }
}
