//! Kernel body of `ans_decompress`: `split` thread blocks per chunk, one warp per sub-chunk
//! (design in the [module docs](super)). The chunk loop and the sub-chunk walk are here; the
//! header, the table, the word ring, the tiles and the output are modules of their own.
// `x % a == 0` rather than `is_multiple_of`, and indexed loops over the `SPL` states (unrolled
// into registers), as measured with ptxas; the register budget is tight.
#![allow(clippy::manual_is_multiple_of, clippy::needless_range_loop)]
mod header;
mod output;
mod ring;
mod table;
mod tiles;

use super::WARPS;
use crate::batch::DecompressArgs;
use crate::thread::thread_here;
use crate::warp::warp_scan_at;
use crate::{status, Thread};
use core::ptr::read_volatile;
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
pub(super) use header::read_header;
use header::{bytes_per_symbol, parse, rd_u32, Chunk, Hd};
use table::{fill_lut, table};
use tiles::sub_chunk;

/// Bytes of the fixed chunk header.
const HEADER: u64 = 16;
/// Largest uncompressed chunk nvCOMP's decoder accepts (2^25 bytes).
const MAX_CHUNK: u64 = 1 << 25;
/// The states' lower bound `L = 2^16`.
const L: u32 = 1 << 16;
/// Probability bits up to which the slot lookup table is used (`M = 2^11` slots).
const LUT_BITS: u32 = 11;
/// Slots of the lookup table.
const LUT_SLOTS: usize = 1 << LUT_BITS;
/// Bytes of a word page: one 16-byte load per lane.
const PAGE: u32 = 512;
/// Word bytes a warp's ring holds (two pages: the one being read and the one below it).
const RING: u32 = 2 * PAGE;
/// Bytes of a warp's ring: a `u32` per word, the word and the one above it.
const RING_BYTES: u32 = 2 * RING;
/// Sub-chunk sizes above this cannot be valid (a symbol takes at most one 2-byte word, a chunk
/// has at most 2^25 symbols, plus 256 bytes of states): refusing them early keeps the warp's
/// scan of 32 sizes in 32 bits.
const MAX_SUB_BYTES: u32 = (1 << 26) + 256;

const BAD: i32 = status::CANNOT_DECOMPRESS;

/// Shared memory of one thread block.
#[repr(C, align(16))]
pub struct Shared {
    /// Per slot (probability bits ≤ 11): `f | (slot − cum) << 12 | symbol << 24`.
    lut: [u32; LUT_SLOTS],
    /// Cumulative frequencies `cum[0..=entries]` (`cum[entries] = 2^pb`).
    cum: [u32; 257],
    /// 1 when a warp found the chunk corrupt (read by thread 0 only).
    failed: u32,
    /// The chunk being decoded (written by thread 0 before the chunk's first barrier).
    chunk: Chunk,
    /// Per warp: the offsets and sizes of the batch of 32 sub-chunks it walks.
    batch_off: [[u64; 32]; WARPS as usize],
    batch_size: [[u32; 32]; WARPS as usize],
    /// Per warp: a ring of two word pages, the word at (even) byte `w` of the word region as
    /// the `u32` `word(w) | word(w + 2) << 16` at byte `2w mod RING_BYTES`, so that one load
    /// gives a lane both words it may take in a step; the rings start at the first shared
    /// address here that is a multiple of `RING_BYTES` (one ring of slack), so that a ring
    /// address is the ring's base OR the index.
    ring: [[u128; RING_BYTES as usize / 16]; WARPS as usize + 1],
    // Last, so that the fields above keep the offsets (shared-address immediates) they had
    // before the blocks per chunk.
    /// The block's part of each of its chunks (`blockIdx.x % split`), the blocks per chunk and
    /// the chunk loop's step (`gridDim.x / split`), written by thread 0 before the first chunk
    /// (read where used: not kept in registers).
    part: u32,
    split: u32,
    stride: u32,
    /// Per warp: the first sub-chunk of the batch in its slots.
    batch_at: [u32; WARPS as usize],
}

/// A block's count in its chunk's word of `parts`: finished blocks in the low 16 bits, failed
/// ones in the high 16 (`split ≤ 65535`: neither carries over).
const PART_DONE: u32 = 1;
const PART_FAILED: u32 = 1 << 16;

/// Kernel body of `ans_decompress`: `split` blocks per chunk, block `b` decompressing part
/// `b % split` of chunk `i = b / split` (stepping by `gridDim.x / split`) and, the last of the
/// chunk's blocks to finish, storing its result.
///
/// # Safety
/// Launched with [`super::BLOCK_THREADS`] threads per block and a grid of a multiple of `split`
/// blocks (`1 ≤ split ≤ 65535`); with `split > 1`, `parts` holds `num_chunks` zeroed words
/// (not read otherwise); `args` valid, every chunk's buffers valid for its input size and output
/// capacity (a null pointer with a nonzero size is reported as corrupt), outputs overlapping
/// nothing; `smem` is the block's.
#[inline(always)]
pub unsafe fn decompress<T: Thread>(t: &T, smem: *mut Shared, args: DecompressArgs, parts: *mut u32, split: u32) {
    let split = split.max(1);
    if thread_here(t) == 0 {
        // Read after the first chunk's first barrier.
        (*smem).part = t.block_idx() % split;
        (*smem).split = split;
        (*smem).stride = t.grid_dim() / split;
    }
    let mut i = (t.block_idx() / split) as u64;
    while i < args.num_chunks {
        let ((src, len), (out, cap)) = (args.input(i as usize), args.output(i as usize));
        let ok = decompress_chunk(t, smem, src, len, out, cap);
        if thread_here(t) == 0 {
            if let Some(ok) = chunk_result(parts, i as usize, ok, read_volatile(&raw const (*smem).split)) {
                // Thread 0 wrote the chunk's header to shared memory (and writes the next one
                // after this); a valid chunk decompresses to its `n` bytes.
                args.finish(i as usize, if ok { Ok(Hd(&raw const (*smem).chunk).n() as u64) } else { Err(BAD) });
            }
        }
        // The next chunk starts with a barrier: thread 0 read `failed` and the chunk's `n` after
        // the last one and before it writes the next chunk's header.
        i += read_volatile(&raw const (*smem).stride) as u64;
    }
}

/// Adds this block's part of chunk `i` (`ok`: it found nothing corrupt) to the chunk's word of
/// `parts`: `Some(the chunk decompressed)` for the last of its `split` blocks, `None` for the
/// others. (With `split = 1`, `Some(ok)` and `parts` not read.)
#[inline(always)]
unsafe fn chunk_result(parts: *mut u32, i: usize, ok: bool, split: u32) -> Option<bool> {
    if split == 1 {
        return Some(ok);
    }
    // Only this word passes between the chunk's blocks (each writes only its own output bytes,
    // and the last one the result), so a relaxed RMW is all the ordering needed: the last add
    // reads the sum of every other block's.
    let word = AtomicU32::from_ptr(parts.add(i));
    let old = word.fetch_add(if ok { PART_DONE } else { PART_DONE | PART_FAILED }, Relaxed);
    (old & 0xFFFF == split - 1).then_some(ok && old >> 16 == 0)
}

/// `v`, hidden from LLVM's loop analysis: a batch counter that it sees through gets induction
/// variables of its own (one more register across the decode loops).
#[inline(always)]
fn opaque(v: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::asm::opaque(v)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        v
    }
}

/// One chunk, by the whole thread block: true when it decompressed (the same in every thread).
#[inline(always)]
unsafe fn decompress_chunk<T: Thread>(
    t: &T,
    smem: *mut Shared,
    src: *const u8,
    len: u64,
    out: *mut u8,
    cap: u64,
) -> bool {
    let hd = Hd(&raw const (*smem).chunk);
    // Every warp is done with the previous chunk (a corrupt one ends after any barrier).
    t.sync_threads();
    if thread_here(t) == 0 {
        let c = &raw mut (*smem).chunk;
        (*c).ok = 0;
        parse(c, src, len, out, cap);
    }
    t.sync_threads();
    // Uniform from here: every thread reads the same shared chunk, so all take the same branches
    // around the barriers below.
    if hd.ok() == 0 {
        return false;
    }
    // Every warp checks the table itself (no shared flag that the next chunk could overwrite
    // before a slow warp reads it); warp 0 publishes the cumulative frequencies.
    let Some(lut) = table(t, smem, hd) else {
        return false;
    };
    t.sync_threads();
    // Without symbols the table may be all zero, and nothing is decoded.
    if lut && hd.n() / bytes_per_symbol(hd.mode()) > 0 {
        fill_lut(smem, hd, thread_here(t));
    }
    if hd.mode() == 2 && hd.n() % 2 == 1 && thread_here(t) == 0 && read_volatile(&raw const (*smem).part) == 0 {
        // FLOAT8: an odd last value is not coded; it ends the raw section (inside the input).
        // Part 0 of the chunk writes it.
        let n = hd.n();
        *hd.out().add(n as usize - 1) = *hd.src().add((hd.raw() + n / 2) as usize);
    }
    t.sync_threads();
    let ok = match (hd.mode(), hd.spl(), lut) {
        (0, 1, true) => sub_chunks::<T, 0, 1, true>(t, smem, hd),
        (0, 1, false) => sub_chunks::<T, 0, 1, false>(t, smem, hd),
        (0, _, true) => sub_chunks::<T, 0, 2, true>(t, smem, hd),
        (0, _, false) => sub_chunks::<T, 0, 2, false>(t, smem, hd),
        (1, 1, true) => sub_chunks::<T, 1, 1, true>(t, smem, hd),
        (1, 1, false) => sub_chunks::<T, 1, 1, false>(t, smem, hd),
        (1, _, true) => sub_chunks::<T, 1, 2, true>(t, smem, hd),
        (1, _, false) => sub_chunks::<T, 1, 2, false>(t, smem, hd),
        (2, 1, true) => sub_chunks::<T, 2, 1, true>(t, smem, hd),
        (2, 1, false) => sub_chunks::<T, 2, 1, false>(t, smem, hd),
        (2, _, true) => sub_chunks::<T, 2, 2, true>(t, smem, hd),
        (2, _, false) => sub_chunks::<T, 2, 2, false>(t, smem, hd),
        (_, 1, true) => sub_chunks::<T, 3, 1, true>(t, smem, hd),
        (_, 1, false) => sub_chunks::<T, 3, 1, false>(t, smem, hd),
        (_, _, true) => sub_chunks::<T, 3, 2, true>(t, smem, hd),
        (_, _, false) => sub_chunks::<T, 3, 2, false>(t, smem, hd),
    };
    let failed = AtomicU32::from_ptr(&raw mut (*smem).failed);
    if !ok {
        failed.store(1, Relaxed);
    }
    t.sync_threads();
    failed.load(Relaxed) == 0
}

/// Warp `w` of the chunk's part `b` (of `split`) decodes sub-chunks `b·WARPS + w`, stepping by
/// `WARPS·split`, walking the whole size table 32 entries at a time: in each batch it checks
/// every size as the reference does (so every block checks every size) and keeps the offsets and
/// sizes in its shared slots, then decodes the sub-chunks of the batch that are its own. False
/// when corrupt.
#[inline(always)]
unsafe fn sub_chunks<T: Thread, const MODE: u32, const SPL: u32, const LUT: bool>(
    t: &T,
    smem: *mut Shared,
    h: Hd,
) -> bool {
    let states = 128 * SPL;
    // The only value kept across the decode loops: the warp's next sub-chunk (the batch's first,
    // the offsets and sizes stay in shared memory, the lane, the warp, the part and the step are
    // read again where used: what 7 blocks per SM, 72 registers, cannot spare).
    let mut k = read_volatile(&raw const (*smem).part) * WARPS + thread_here(t) / 32;
    let mut k0 = 0;
    while k0 < h.nsub() {
        let tid = thread_here(t);
        let (lane, warp) = (tid % 32, tid / 32);
        let (bo, bs) = batch_slots(smem, warp);
        // The previous batch ends this one's base (sizes past the last sub-chunk are 0).
        let base = if k0 == 0 {
            h.data() as u64
        } else {
            read_volatile(bo.add(31)) + read_volatile(bs.add(31)).next_multiple_of(16) as u64
        };
        let kl = k0 + lane;
        let nsub = h.nsub();
        let size = if kl < nsub { rd_u32(h.src().add((HEADER + 4 * kl as u64) as usize)) } else { 0 };
        // FLOAT8: a last sub-chunk of one byte codes no symbol and is stored empty.
        let empty = MODE == 2 && kl < nsub && h.n() - kl * h.sc() < 2;
        let good = kl >= nsub
            || if empty { size == 0 } else { size >= states && (size - states) % 2 == 0 && size <= MAX_SUB_BYTES };
        let step = if kl < nsub && good { size.next_multiple_of(16) } else { 0 };
        let (excl, _) = warp_scan_at(t, step, lane);
        let off = base + excl as u64;
        let inside = kl >= nsub || off + size as u64 <= h.len();
        if t.any(!(good && inside)) {
            return false;
        }
        // The warp's reads of the previous batch are done.
        t.sync_warp();
        *bo.add(lane as usize) = off;
        *bs.add(lane as usize) = size;
        if lane == 0 {
            *(&raw mut (*smem).batch_at).cast::<u32>().add(warp as usize) = k0;
        }
        t.sync_warp();
        loop {
            let warp = thread_here(t) / 32;
            let k0 = read_volatile((&raw const (*smem).batch_at).cast::<u32>().add(warp as usize));
            if k >= h.nsub() || k >= k0 + 32 {
                break;
            }
            let (bo, bs) = batch_slots(smem, warp);
            let j = (k - k0) as usize;
            if !sub_chunk::<T, MODE, SPL, LUT>(t, smem, read_volatile(bo.add(j)), read_volatile(bs.add(j)), h, k) {
                return false;
            }
            k = opaque(k + WARPS * read_volatile(&raw const (*smem).split));
        }
        k0 = read_volatile((&raw const (*smem).batch_at).cast::<u32>().add(thread_here(t) as usize / 32)) + 32;
    }
    true
}

/// Warp `warp`'s batch slots (`warp < WARPS`): offsets and sizes.
#[inline(always)]
unsafe fn batch_slots(smem: *mut Shared, warp: u32) -> (*mut u64, *mut u32) {
    let at = 32 * warp as usize;
    ((&raw mut (*smem).batch_off).cast::<u64>().add(at), (&raw mut (*smem).batch_size).cast::<u32>().add(at))
}
