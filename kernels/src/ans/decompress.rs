//! Kernel body of `ans_decompress`: one thread block per chunk, one warp per sub-chunk (design in
//! the [module docs](super)).
// `x % a == 0` rather than `is_multiple_of`, and indexed loops over the `SPL` states (unrolled
// into registers), as measured with ptxas; the register budget is tight.
#![allow(clippy::manual_is_multiple_of, clippy::needless_range_loop)]
use super::WARPS;
use crate::batch::{self, DecompressArgs};
use crate::bits::prmt;
use crate::thread::thread_here;
use crate::warp::warp_scan_at;
use crate::{status, Thread};
use core::ptr::read_volatile;
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

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
}

/// What the header says, checked as the CPU reference's `ChunkHeader::read` and `Layout::new`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Header {
    n: u32,
    sc: u32,
    mn: u32,
    entries: u32,
    pb: u32,
    /// 0 bytes, 1 FLOAT16, 2 FLOAT8 E4M3, 3 FLOAT32.
    mode: u32,
    spl: u32,
    nsub: u32,
    /// Offsets of the raw section, the table and the first sub-chunk (below 2^28).
    raw: u32,
    table: u32,
    data: u32,
}

/// A chunk's header and buffers, kept in shared memory for the sub-chunk walk.
#[repr(C)]
#[derive(Clone, Copy)]
struct Chunk {
    h: Header,
    /// The input and output pointers as addresses (shared memory is `Sync`).
    src: usize,
    out: usize,
    len: u64,
    /// 1 when the header is valid for the chunk's buffers.
    ok: u32,
}

/// The block's [`Chunk`] in shared memory, each field read where it is used (volatile loads):
/// kept in registers across the decode loops, these 14 values cost registers that 7 blocks per
/// SM (72 registers) cannot spare.
#[derive(Clone, Copy)]
struct Hd(*const Chunk);

macro_rules! hd_fields {
    ($($name:ident: $ty:ty = $($path:ident).+;)*) => {
        impl Hd {
            $(
                #[inline(always)]
                fn $name(self) -> $ty {
                    // SAFETY: `self.0` is the block's shared `Chunk`, written before the barrier
                    // that precedes every read and not written again before the chunk's last one.
                    unsafe { core::ptr::read_volatile(&raw const (*self.0).$($path).+) }
                }
            )*
        }
    };
}

hd_fields! {
    n: u32 = h.n;
    sc: u32 = h.sc;
    mn: u32 = h.mn;
    entries: u32 = h.entries;
    pb: u32 = h.pb;
    nsub: u32 = h.nsub;
    mode: u32 = h.mode;
    spl: u32 = h.spl;
    ok: u32 = ok;
    raw: u32 = h.raw;
    data: u32 = h.data;
    src_at: usize = src;
    out_at: usize = out;
    len: u64 = len;
}

impl Hd {
    #[inline(always)]
    fn src(self) -> *const u8 {
        self.src_at() as *const u8
    }

    #[inline(always)]
    fn out(self) -> *mut u8 {
        self.out_at() as *mut u8
    }

    /// The whole header (for the table code, which uses most of it).
    #[inline(always)]
    fn get(self) -> Header {
        // SAFETY: as for the fields.
        unsafe { core::ptr::read_volatile(&raw const (*self.0).h) }
    }
}

/// Input bytes per symbol of a mode.
#[inline(always)]
fn bytes_per_symbol(mode: u32) -> u32 {
    match mode {
        0 => 1,
        1 | 2 => 2,
        _ => 4,
    }
}

#[inline(always)]
unsafe fn rd_u32(p: *const u8) -> u32 {
    u32::from_le_bytes([*p, *p.add(1), *p.add(2), *p.add(3)])
}

/// Reads and checks the fixed header (every check of `ChunkHeader::read`); `None` when corrupt.
///
/// # Safety
/// `src` is valid for `len` bytes.
#[inline(always)]
pub(super) unsafe fn read_header(src: *const u8, len: u64) -> Option<(u32, u32, u32, u32, u32, u32, u32)> {
    if len < HEADER || src.is_null() {
        return None;
    }
    let v = header_fields(src);
    if header_ok(v) {
        Some(v)
    } else {
        None
    }
}

/// The fixed header's fields `(n, sc, min, max, pb, mode, spl)` of a header inside the input.
#[inline(always)]
unsafe fn header_fields(src: *const u8) -> (u32, u32, u32, u32, u32, u32, u32) {
    let (n, sc) = (rd_u32(src), rd_u32(src.add(4)));
    let (mn, mx, pb, mode) = (*src.add(8) as u32, *src.add(9) as u32, *src.add(10) as u32, *src.add(11) as u32);
    (n, sc, mn, mx, pb, mode, rd_u32(src.add(12)))
}

/// Every check of `ChunkHeader::read` on the fields of [`header_fields`].
#[inline(always)]
fn header_ok((n, sc, mn, mx, pb, mode, spl): (u32, u32, u32, u32, u32, u32, u32)) -> bool {
    if mode > 3 {
        return false;
    }
    let w = bytes_per_symbol(mode);
    (spl == 1 || spl == 2)
        && pb <= 16
        && mn <= mx
        && n as u64 <= MAX_CHUNK
        && sc > 0
        && sc % w == 0
        && (mode != 1 || n % 2 == 0)
        && (mode != 3 || n % 4 == 0)
}

/// The header and the layout of the parts after it, all inside `len`, with the chunk's buffers,
/// written to `c` when valid (`n ≤ cap`, a null output only for an empty chunk) and `c.ok` set;
/// nothing written otherwise. (Stored where every field is defined: an `Option<Header>` that
/// is `None` on some paths becomes undefined registers that LLVM carries around the chunk loop
/// and ptxas spills.)
#[inline(always)]
unsafe fn parse(c: *mut Chunk, src: *const u8, len: u64, out: *mut u8, cap: u64) {
    if len < HEADER || src.is_null() {
        return;
    }
    let v = header_fields(src);
    if !header_ok(v) {
        return;
    }
    let (n, sc, mn, mx, pb, mode, spl) = v;
    let nsub = n.div_ceil(sc);
    let mut off = HEADER + 4 * nsub as u64;
    if off > len || n as u64 > cap || (out.is_null() && n > 0) {
        return;
    }
    let mut raw = off;
    if mode != 0 {
        off = off.next_multiple_of(8);
        raw = off;
        off += match mode {
            1 => n as u64 / 2,
            2 => (n as u64).div_ceil(2),
            _ => n as u64 / 4 * 3,
        };
        off += off & 1;
    }
    let entries = mx - mn + 1;
    let table = off;
    off += 2 * entries as u64;
    if off > len {
        return;
    }
    // Every offset is below 2^28 (n, nsub ≤ 2^25, entries ≤ 256).
    let h = Header {
        n,
        sc,
        mn,
        entries,
        pb,
        mode,
        spl,
        nsub,
        raw: raw as u32,
        table: table as u32,
        data: off.next_multiple_of(16) as u32,
    };
    *c = Chunk { h, src: src as usize, out: out as usize, len, ok: 1 };
}

/// Kernel body of `ans_decompress`: decompresses chunk `i` (for `i = blockIdx.x`, stepping by
/// `gridDim.x`) and stores its result.
///
/// # Safety
/// Launched with [`super::BLOCK_THREADS`] threads per block; `args` valid, every chunk's buffers
/// valid for its input size and output capacity (a null pointer with a nonzero size is reported
/// as corrupt), outputs overlapping nothing; `smem` is the block's.
#[inline(always)]
pub unsafe fn decompress<T: Thread>(t: &T, smem: *mut Shared, args: DecompressArgs) {
    for i in batch::block_chunks(t, args.num_chunks) {
        let ((src, len), (out, cap)) = (args.input(i), args.output(i));
        let ok = decompress_chunk(t, smem, src, len, out, cap);
        if thread_here(t) == 0 {
            // Thread 0 wrote the chunk's header to shared memory (and writes the next one after
            // this); a valid chunk decompresses to its `n` bytes.
            args.finish(i, if ok { Ok(Hd(&raw const (*smem).chunk).n() as u64) } else { Err(BAD) });
        }
        // The next chunk starts with a barrier: thread 0 read `failed` and the chunk's `n` after
        // the last one and before it writes the next chunk's header.
    }
}

/// `v`, hidden from LLVM's loop analysis: a batch counter that it sees through gets induction
/// variables of its own (one more register across the decode loops).
#[inline(always)]
fn opaque(v: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // SAFETY: a register move.
        unsafe {
            core::arch::asm!("mov.u32 {r}, {v};", r = out(reg32) r, v = in(reg32) v, options(pure, nomem, nostack))
        };
        r
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
    if hd.mode() == 2 && hd.n() % 2 == 1 && thread_here(t) == 0 {
        // FLOAT8: an odd last value is not coded; it ends the raw section (inside the input).
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

/// Reads the frequency table (lane `j`: entries `8j .. 8j + 8`); `None` unless it sums to
/// `2^pb`, else whether the slot lookup table serves it: `pb ≤ 11` and every frequency below
/// `2^pb` (a table of one symbol decodes by the search; see [`fill_lut`]). Warp 0 also writes the cumulative frequencies to shared memory and resets `failed` (thread 0
/// read the previous chunk's value before it got here).
#[inline(always)]
unsafe fn table<T: Thread>(t: &T, smem: *mut Shared, hd: Hd) -> Option<bool> {
    let h = hd.get();
    let table = hd.src().add(h.table as usize);
    let lane = thread_here(t) % 32;
    let mut f = [0u32; 8];
    let mut sum = 0u32;
    for (k, fk) in f.iter_mut().enumerate() {
        let e = 8 * lane + k as u32;
        if e < h.entries {
            let v = *table.add(2 * e as usize) as u32 | (*table.add(2 * e as usize + 1) as u32) << 8;
            *fk = if v == 0xffff { 1 } else { v };
            sum += *fk;
        }
    }
    // At most 256 · 65535 in all: no overflow.
    let (mut c, total) = warp_scan_at(t, sum, lane);
    if thread_here(t) / 32 == 0 {
        let cum = (&raw mut (*smem).cum).cast::<u32>();
        for (k, fk) in f.iter().enumerate() {
            let e = 8 * lane + k as u32;
            if e < h.entries {
                *cum.add(e as usize) = c;
                c += *fk;
            }
        }
        if lane == 0 {
            // entries ≤ 256: inside the 257 slots.
            *cum.add(h.entries as usize) = total;
            AtomicU32::from_ptr(&raw mut (*smem).failed).store(0, Relaxed);
        }
    }
    // A chunk without symbols (a FLOAT8 chunk of one value) may have nvCOMP's all-zero table.
    if total == 1 << h.pb || (total == 0 && h.n / bytes_per_symbol(h.mode) == 0) {
        // pb ≤ 16: no overflow.
        Some(h.pb <= LUT_BITS && !t.any(f.iter().any(|&fk| fk == 1 << h.pb)))
    } else {
        None
    }
}

/// The table entry whose slot range `cum[e] .. cum[e+1]` holds `slot` (`< cum[entries]`): the
/// largest `e` with `cum[e] ≤ slot` (entries of frequency 0 have empty ranges).
#[inline(always)]
unsafe fn find_entry(cum: *const u32, entries: u32, slot: u32) -> u32 {
    let (mut lo, mut hi) = (0u32, entries);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if *cum.add(mid as usize) <= slot {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// All threads: the slot lookup table (`2^pb ≤ 2048` slots, every frequency below `2^pb`);
/// thread `k` fills slots `16k .. 16k + 16`, finding the first entry by binary search and the
/// next by walking up. Slot `s` of entry `e` (frequency `f`, cumulative frequency `c`) holds
/// `f·2^(11−pb) | symbol << 12 | b << 21` with the 11-bit signed `b = s − c − ⌊s·f / 2^pb⌋`, so
/// that [`lut_step`] takes state `x` (slot `s`) to `f·⌊x / 2^pb⌋ + s − c = ⌊x·f / 2^pb⌋ + b`
/// (`x = 2^pb·⌊x / 2^pb⌋ + s`). With `s = c + d`, `0 ≤ d < f`: `b ≥ d − (c + d)·f / 2^pb ≥
/// −c·f / 2^pb ≥ −(2^pb − f)·f / 2^pb ≥ −2^pb / 4`, and `b < d·(1 − f / 2^pb) + 1 ≤ 2^pb / 4 +
/// 1`: `|b| ≤ 512`.
#[inline(always)]
unsafe fn fill_lut(smem: *mut Shared, hd: Hd, tid: u32) {
    let h = hd.get();
    let m = 1u32 << h.pb;
    let s0 = 16 * tid;
    if s0 >= m {
        return;
    }
    let cum = (&raw const (*smem).cum).cast::<u32>();
    let lut = (&raw mut (*smem).lut).cast::<u32>();
    let mut e = find_entry(cum, h.entries, s0);
    let (mut lo, mut hi) = (*cum.add(e as usize), *cum.add(e as usize + 1));
    let mut v = [0u32; 4];
    for g in 0..4 {
        for (k, vk) in v.iter_mut().enumerate() {
            let s = s0 + 4 * g + k as u32;
            // cum[entries] = m > s: the walk stays inside the table.
            while s >= hi && s < m {
                e += 1;
                lo = hi;
                hi = *cum.add(e as usize + 1);
            }
            // f < 2^pb ≤ 2^11 (see `table`); s·f < 2^22.
            let f = hi - lo;
            let bias = (s - lo).wrapping_sub((s * f) >> h.pb);
            *vk = f << (LUT_BITS - h.pb) | (h.mn + e) << 12 | bias << 21;
        }
        if s0 + 4 * g + 4 <= m {
            *(lut.add((s0 + 4 * g) as usize) as *mut [u32; 4]) = v;
        } else {
            for (k, &vk) in v.iter().enumerate() {
                if s0 + 4 * g + (k as u32) < m {
                    *lut.add((s0 + 4 * g) as usize + k) = vk;
                }
            }
        }
    }
}

/// Warp `w` decodes sub-chunks `w, w + WARPS, …`, walking the size table 32 entries at a time:
/// in each batch of 32 where it has a sub-chunk, it checks every size as the reference does
/// (so every batch is checked, by warp 0 at least) and keeps the offsets and sizes in its shared
/// slots. False when corrupt.
#[inline(always)]
unsafe fn sub_chunks<T: Thread, const MODE: u32, const SPL: u32, const LUT: bool>(
    t: &T,
    smem: *mut Shared,
    h: Hd,
) -> bool {
    let states = 128 * SPL;
    // The only value kept across the decode loops: the sub-chunk, k % 32 = the warp's index at
    // the start of a batch (the offsets and sizes stay in shared memory, the lane and the warp
    // are read again where used: what 7 blocks per SM, 72 registers, cannot spare).
    let mut k = thread_here(t) / 32;
    while k < h.nsub() {
        let tid = thread_here(t);
        let (lane, warp) = (tid % 32, tid / 32);
        let (bo, bs) = batch_slots(smem, warp);
        let k0 = k - warp;
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
        t.sync_warp();
        loop {
            let (bo, bs) = batch_slots(smem, thread_here(t) / 32);
            let j = (k % 32) as usize;
            if !sub_chunk::<T, MODE, SPL, LUT>(t, smem, read_volatile(bo.add(j)), read_volatile(bs.add(j)), h, k) {
                return false;
            }
            k = opaque(k + WARPS);
            // 32 is a multiple of WARPS: k % 32 < WARPS starts the next batch.
            if k % 32 < WARPS || k >= h.nsub() {
                break;
            }
        }
    }
    true
}

/// Warp `warp`'s batch slots (`warp < WARPS`): offsets and sizes.
#[inline(always)]
unsafe fn batch_slots(smem: *mut Shared, warp: u32) -> (*mut u64, *mut u32) {
    let at = 32 * warp as usize;
    ((&raw mut (*smem).batch_off).cast::<u64>().add(at), (&raw mut (*smem).batch_size).cast::<u32>().add(at))
}

/// Loads lane `lane`'s 16 bytes of word page `page` (zeros past the word region's end `wend`) of
/// a 16-byte aligned sub-chunk.
#[inline(always)]
unsafe fn load_page(sub: *const u8, wend: u32, page: u32, lane: u32) -> u128 {
    let b = page * PAGE + 16 * lane;
    if b < wend {
        // The 16-byte block ends at most 14 bytes past `wend`, inside the final states.
        *(sub.add(b as usize) as *const u128)
    } else {
        0
    }
}

/// Stores a lane's 16 bytes (8 words) of word page `page` into the warp's ring, each word
/// with the one above it (by the whole warp). The page's last word takes the first of page
/// `page + 1` from the ring (stored before it; above the top page, none is read).
#[inline(always)]
unsafe fn store_page<T: Thread>(t: &T, ring: *mut u8, page: u32, lane: u32, v: u128) {
    let a = [v as u32, (v >> 32) as u32, (v >> 64) as u32, (v >> 96) as u32];
    // The next lane's first word, in the low half.
    let up = t.shfl_down(a[0], 1);
    let above = if lane == 31 { *(ring.add((((page + 1) & 1) * PAGE * 2) as usize) as *const u16) as u32 } else { up };
    // Entry i: word i | word i + 1 << 16.
    let e0 = [a[0], prmt(a[0], a[1], 0x5432), a[1], prmt(a[1], a[2], 0x5432)];
    let e1 = [a[2], prmt(a[2], a[3], 0x5432), a[3], prmt(a[3], above, 0x5432)];
    let at = ring.add(((page & 1) * PAGE * 2 + 32 * lane) as usize);
    let wide = |e: [u32; 4]| e[0] as u128 | (e[1] as u128) << 32 | (e[2] as u128) << 64 | (e[3] as u128) << 96;
    *(at as *mut u128) = wide(e0);
    *(at.add(16) as *mut u128) = wide(e1);
    if page == 0 && lane == 0 {
        // Word 0 also in the high half of the entry below it (the ring's last, page 1's top
        // entry, whose own high half is read no more): state 0 reads it there when it takes
        // the last word.
        *(ring.add(RING_BYTES as usize - 2) as *mut u16) = a[0] as u16;
    }
}

/// The shared-window address of a pointer into shared memory (on the CPU: its low 32 bits, which
/// have the same alignment).
#[inline(always)]
fn shared_addr(p: *const u8) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let a: u64;
        // SAFETY: `p` points into this block's shared memory; a register operation.
        unsafe {
            core::arch::asm!("cvta.to.shared.u64 {a}, {p};", a = out(reg64) a, p = in(reg64) p as u64,
                options(pure, nomem, nostack, preserves_flags));
        }
        a as u32
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        p as usize as u32
    }
}

/// The word at (even) byte `pos` of the word region (`pos mod RING` in the warp's ring).
#[inline(always)]
unsafe fn ring_word(ring: *const u8, ring_sa: u32, pos: u32) -> u32 {
    ring_pair(ring, ring_sa, pos) & 0xffff
}

/// The words at (even) bytes `pos` and `pos + 2` of the word region, as `word(pos) |
/// word(pos + 2) << 16`, from the warp's ring.
#[inline(always)]
unsafe fn ring_pair(ring: *const u8, ring_sa: u32, pos: u32) -> u32 {
    ring_entry(ring, ring_sa, pos << 1)
}

/// The ring entry at byte `at mod RING_BYTES` (`at` = twice a word's position) of a warp's ring
/// (`ring`, at shared address `ring_sa`, a multiple of `RING_BYTES`): on the GPU one LOP3 and
/// one LDS with a 32-bit shared address.
#[inline(always)]
unsafe fn ring_entry(ring: *const u8, ring_sa: u32, at: u32) -> u32 {
    let at = at & (RING_BYTES - 4);
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = ring;
        let w: u32;
        // SAFETY: `ring_sa | at` lies inside the warp's ring.
        core::arch::asm!("ld.shared.u32 {w}, [{a}];", w = out(reg32) w, a = in(reg32) at | ring_sa,
            options(pure, readonly, nostack, preserves_flags));
        w
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = ring_sa;
        *(ring.add(at as usize) as *const u32)
    }
}

/// Decodes sub-chunk `k` (at chunk offset `off`, `size` bytes, inside the input) by one warp.
/// Warp-uniform result: false when corrupt.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn sub_chunk<T: Thread, const MODE: u32, const SPL: u32, const LUT: bool>(
    t: &T,
    smem: *mut Shared,
    off: u64,
    size: u32,
    h: Hd,
    k: u32,
) -> bool {
    let w = bytes_per_symbol(MODE);
    let sc = h.sc();
    let first = k * (sc / w);
    let nsym = (h.n() - k * sc).min(sc) / w;
    if nsym == 0 {
        // An empty FLOAT8 sub-chunk (its size checked to be 0).
        return true;
    }
    let tid = thread_here(t);
    let lane = tid % 32;
    let sub = h.src().add(off as usize);
    let wend = size - 128 * SPL;
    // Lane j's state s is stored at index (31 − j)·spl + s.
    let sp = sub.add((wend + 4 * (31 - lane) * SPL) as usize);
    let mut x = [rd_u32(sp), if SPL == 2 { rd_u32(sp.add(4)) } else { L }];
    if t.any(x[0] < L || x[1] < L) {
        return false;
    }
    let area = (&raw mut (*smem).ring).cast::<u8>();
    let sa = shared_addr(area);
    // The first multiple of RING_BYTES in the area, then this warp's ring.
    let at = (sa.wrapping_neg() & (RING_BYTES - 1)) + tid / 32 * RING_BYTES;
    let (ring, ring_sa) = (area.add(at as usize), sa.wrapping_add(at));
    // Words go through the ring when the sub-chunk is 16-byte aligned (always in nvCOMP's
    // streams); otherwise they are read from global memory byte by byte.
    let aligned = (sub as usize) % 16 == 0;
    // Pages `cur` (holding byte p − 1) and `cur − 1` are in the ring, `cur − 2` in `next`.
    let mut cur = 0u32;
    let mut next = 0u128;
    if wend > 0 && aligned {
        cur = (wend - 1) / PAGE;
        store_page(t, ring, cur, lane, load_page(sub, wend, cur, lane));
        if cur >= 1 {
            // Lane 31 reads page cur's first word.
            t.sync_warp();
            store_page(t, ring, cur - 1, lane, load_page(sub, wend, cur - 1, lane));
        }
        if cur >= 2 {
            next = load_page(sub, wend, cur - 2, lane);
        }
        t.sync_warp();
    }
    // Hidden from LLVM, which would turn the multiplications by it into shifts.
    let upto = opaque(1 << (31 - lane));
    let mut d = Dec { p: wend, cur, next, x, ring, ring_sa, sub, wend, aligned, pb: h.pb(), lane, upto };
    // The schedule (the reference's `rans::tiles`): a body of whole units of 256·spl symbols
    // (what one pass of the warp's 32·spl states codes) in tiles of 32·B, the rest in tiles of
    // 64; FLOAT32 tiles of 128 throughout.
    let unit = 256 * SPL;
    let (body, body_block, tail_block) = match MODE {
        3 => (0, 4, 4),
        2 => (nsym / unit * unit, 4, 2),
        _ => (nsym / unit * unit, 8, 2),
    };
    // FLOAT8 sub-chunks without a tail are seeded (the reference's `rans::seeded`).
    let seeded = MODE == 2 && nsym % unit == 0;
    let mut start = 0;
    if LUT && aligned && MODE != 3 {
        // The body's whole tiles (a seeded sub-chunk's last tile excepted: nsym ≥ unit > tile).
        let hot = if seeded { body - 32 * body_block } else { body };
        let Some(done) = body_tiles::<T, MODE, SPL>(t, smem, h, &mut d, first, hot) else {
            return false;
        };
        start = done;
    }
    while start < nsym {
        let (block, tlen) = if start < body {
            (body_block, 32 * body_block)
        } else {
            (tail_block, (nsym - start).min(32 * tail_block))
        };
        let seed = seeded && start + tlen == nsym;
        let full = LUT && aligned && tlen == 32 * block && !seed;
        let r = match block {
            8 if full => tile_full::<T, SPL, 8>(t, smem, &mut d),
            4 if full => tile_full::<T, SPL, 4>(t, smem, &mut d),
            _ => tile::<T, SPL, LUT>(t, smem, h, &mut d, block, tlen, seed),
        };
        let Some(acc) = r else { return false };
        let q = block * lane;
        if q < tlen {
            put::<MODE>(h, first + start + q, acc, (tlen - q).min(block));
        }
        if full && block != 2 {
            // After a `tile_full` (the general tile turns its pages itself).
            turn_page(t, &mut d);
        }
        start += tlen;
    }
    x = d.x;
    !t.any(d.p != 0 || x[0] != L || x[1] != L)
}

/// The hot loop of [`sub_chunk`]: the first `hot` symbols (whole body tiles of `32·B`, `B` = 8,
/// FLOAT8 4) of a 16-byte aligned sub-chunk with the lookup table, decoded by [`tile_full`] and
/// stored whole, when the sub-chunk's output (and raw section) is aligned for the wide stores of
/// its mode; the alignment holds for every tile once it holds for the first (tiles start at
/// multiples of 128 symbols). Returns the symbols done (0 when unaligned; FLOAT8 whole pairs of
/// tiles, an odd last one left), `None` when corrupt.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn body_tiles<T: Thread, const MODE: u32, const SPL: u32>(
    t: &T,
    smem: *mut Shared,
    h: Hd,
    d: &mut Dec,
    first: u32,
    hot: u32,
) -> Option<u32> {
    let lane = d.lane;
    let out = h.out();
    let raw = h.src().add(h.raw() as usize);
    // The cursor as the steps keep it (see `tile_steps`), checked once at the end: words that
    // ran out wrap it around below −1 (as i32), where it stays (a tile takes at most 256 words),
    // turning no page; the tiles after that decode garbage inside the ring into the sub-chunk's
    // output, and the sub-chunk fails.
    let mut r = cursor_of::<SPL>(d.p);
    let done = match MODE {
        0 => {
            let dst = out.add((first + 8 * lane) as usize);
            if (out.add(first as usize) as usize) % 8 != 0 {
                return Some(0);
            }
            by_twos(hot, 256, |start| {
                let acc = tile_steps::<T, SPL, 8>(t, smem, d, &mut r);
                *(dst.add(start as usize) as *mut u64) = acc.bytes();
                hot_turn::<T, SPL>(t, d, r);
            })
        }
        1 => {
            let g = first + 8 * lane;
            let (rp, dst) = (raw.add(g as usize), out.add(2 * g as usize));
            if first % 2 != 0
                || (raw.add(first as usize) as usize) % 8 != 0
                || (out.add(2 * first as usize) as usize) % 16 != 0
            {
                return Some(0);
            }
            by_twos(hot, 256, |start| {
                // The next tile's raw bytes prefetched (ptxas then issues this tile's load before
                // the steps too; alone, it waits until their end).
                prefetch_l1(rp.add((start + 256).min(hot - 256) as usize));
                let raw8 = *(rp.add(start as usize) as *const u64);
                let acc = tile_steps::<T, SPL, 8>(t, smem, d, &mut r);
                *(dst.add(2 * start as usize) as *mut u128) = merge_f16_pairs(raw8, &acc.pairs);
                hot_turn::<T, SPL>(t, d, r);
            })
        }
        _ => {
            let g = first + 4 * lane;
            let (rp, dst) = (raw.add(g as usize), out.add(2 * g as usize));
            if (raw.add(first as usize) as usize) % 4 != 0 || (out.add(2 * first as usize) as usize) % 8 != 0 {
                return Some(0);
            }
            // Two tiles of 32·4 at a time: their four steps take at most a page of words, as one
            // tile of 32·8 (one page check, the addresses shared). A plain loop, and an odd last
            // tile left to the general one: unrolled further, the kernel's other hot loops lost
            // 1–6 % (ptxas's choices for the whole kernel).
            let pairs = hot / 256 * 256;
            let mut start = 0;
            while start < pairs {
                let p = rp.add(start as usize);
                // The raw bytes (two lines) of the pair after the next, where there is one: a
                // pair ahead measured 0.7 % slower, clamped addresses (10 SASS instructions) 0.8 %,
                // none 7 % (H200).
                if start + 512 < pairs {
                    prefetch_l1(p.add(512));
                    prefetch_l1(p.add(640));
                }
                let raw4 = [*(p as *const u32), *(p.add(128) as *const u32)];
                let acc = tile_steps::<T, SPL, 8>(t, smem, d, &mut r);
                let to = dst.add(2 * start as usize);
                *(to as *mut u64) = merge_f8_entries(raw4[0], &acc.ent[..4]);
                *(to.add(256) as *mut u64) = merge_f8_entries(raw4[1], &acc.ent[4..]);
                hot_turn::<T, SPL>(t, d, r);
                start += 256;
            }
            pairs
        }
    };
    d.p = p_of::<SPL>(r);
    if d.p > d.wend {
        return None;
    }
    Some(done)
}

/// Runs `tile(start)` for `start = 0, step, …` below `hot` (a multiple of `step`), two tiles
/// per loop iteration (the loop's count, compare and branch once per two tiles); returns `hot`.
#[inline(always)]
fn by_twos(hot: u32, step: u32, mut tile: impl FnMut(u32)) -> u32 {
    let mut start = 0;
    while start + step < hot {
        tile(start);
        tile(start + step);
        start += 2 * step;
    }
    if start < hot {
        tile(start);
        start += step;
    }
    start
}

/// Bits the steps' cursor is shifted by: it counts words (the word index `r = (p − 2) / 2`)
/// with two states per lane, where a step's reads are at `r` less the sum of two counts (one
/// IADD3); ring bytes (`4r`) with one, where they are at `4r` less four times one count (one
/// IMAD).
#[inline(always)]
const fn cursor_shift(spl: u32) -> u32 {
    if spl == 2 {
        0
    } else {
        2
    }
}

/// The steps' cursor for word cursor `p` (even): `r = (p − 2) / 2` (signed: `p = 0` is −1),
/// shifted by [`cursor_shift`].
#[inline(always)]
fn cursor_of<const SPL: u32>(p: u32) -> u32 {
    ((p.wrapping_sub(2) as i32 >> 1) << cursor_shift(SPL)) as u32
}

/// The word cursor `p` of the steps' cursor `c`.
#[inline(always)]
fn p_of<const SPL: u32>(c: u32) -> u32 {
    (((c as i32) >> cursor_shift(SPL)) << 1).wrapping_add(2) as u32
}

/// [`turn_page`] in [`body_tiles`], from the steps' cursor `c`.
#[inline(always)]
unsafe fn hot_turn<T: Thread, const SPL: u32>(t: &T, d: &mut Dec, c: u32) {
    // 0 < p ≤ cur · PAGE: 0 ≤ r < cur · PAGE / 2, unsigned (r < 0 is above it).
    if c < (d.cur * (PAGE / 2)) << cursor_shift(SPL) {
        next_page(t, d);
    }
}

/// Prefetches the line of `p` (inside the input) into L1.
#[inline(always)]
unsafe fn prefetch_l1<T>(p: *const T) {
    #[cfg(target_arch = "nvptx64")]
    {
        // SAFETY: a prefetch of an address inside the input.
        core::arch::asm!("prefetch.global.L1 [{p}];", p = in(reg64) p, options(readonly, nostack));
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = p;
    }
}

/// A warp's decoder state for one sub-chunk.
struct Dec {
    /// Word cursor: bytes of the word region not yet consumed.
    p: u32,
    /// Page holding byte `p − 1`.
    cur: u32,
    /// This lane's part of page `cur − 2`, loaded ahead.
    next: u128,
    /// This lane's states.
    x: [u32; 2],
    /// This warp's ring and its shared address (a multiple of `RING`).
    ring: *mut u8,
    ring_sa: u32,
    sub: *const u8,
    wend: u32,
    aligned: bool,
    /// Probability bits.
    pb: u32,
    /// The lane, and `2^(31 − lane)`: `m · upto` keeps the bits of a lane mask `m` up to the
    /// lane (at the top), `m · 2·upto` those below it, the products on the FMA pipe rather than
    /// an AND on the ALU pipe, which limits the decode loops.
    lane: u32,
    upto: u32,
}

/// The next state (before renormalisation) of state `x` whose slot's lookup entry is `v` (see
/// [`fill_lut`]): `⌊x·f / 2^pb⌋ = hi32(x · f·2^(32−pb))` plus the signed bias. Three SASS
/// instructions: IMAD.SHL for `f·2^(32−pb)` (the entry times `2^21`, which drops the fields
/// above `f`), IMAD.HI, and LEA.HI.SX32 adding the bias from the entry's top bits.
#[inline(always)]
fn lut_step(v: u32, x: u32) -> u32 {
    // A multiplication LLVM does not see through (IMAD.SHL on the FMA pipe, not SHF).
    let fs = v.wrapping_mul(opaque(1 << 21));
    (((x as u64 * fs as u64) >> 32) as u32).wrapping_add((v as i32 >> 21) as u32)
}

/// The symbol of a lookup entry.
#[inline(always)]
fn lut_symbol(v: u32) -> u32 {
    v >> 12 & 0xff
}

/// One decode step of state `x`: (symbol, next state before renormalisation, the state a seeded
/// sub-chunk's last step must leave: `f · 2^(16−pb)` of the symbol).
#[inline(always)]
unsafe fn decode<const LUT: bool>(smem: *const Shared, h: Hd, pb: u32, x: u32) -> (u32, u32, u32) {
    if LUT {
        let v = *(&raw const (*smem).lut).cast::<u32>().add((x & ((1u32 << pb) - 1)) as usize);
        // The entry holds f · 2^(11−pb).
        (lut_symbol(v), lut_step(v, x), (v & 0x7ff) << 5)
    } else {
        let slot = x & ((1u32 << pb) - 1);
        let cum = (&raw const (*smem).cum).cast::<u32>();
        let e = find_entry(cum, h.entries(), slot);
        let (lo, hi) = (*cum.add(e as usize), *cum.add(e as usize + 1));
        // f · (x >> pb) + (slot − cum) < f · ((x >> pb) + 1) ≤ 2^32; pb ≤ 16, f · 2^(16−pb) ≤ 2^16.
        (h.mn() + e, (hi - lo).wrapping_mul(x >> pb).wrapping_add(slot - lo), (hi - lo) << (16 - pb))
    }
}

/// One tile of `32 · b` symbols (`tlen` of them present): lane `j` decodes positions
/// `b·j .. b·j + b` step by step; returns its symbols (byte `i` = position `b·j + i`), or `None`
/// when the words run out. `seed`: the last tile of a seeded sub-chunk (whole), whose last step
/// reads no word and must leave each state at `f · 2^(16−pb)` of its symbol (then taken as
/// `2^16` for the final check), as the reference's `decode_sub_chunk`.
#[inline(always)]
unsafe fn tile<T: Thread, const SPL: u32, const LUT: bool>(
    t: &T,
    smem: *mut Shared,
    h: Hd,
    d: &mut Dec,
    b: u32,
    tlen: u32,
    seed: bool,
) -> Option<u64> {
    let (lane, below) = (d.lane, opaque(d.upto.wrapping_add(d.upto)));
    let mut acc = 0u64;
    let q0 = b * lane;
    for step in 0..b / SPL {
        let last = seed && step + 1 == b / SPL;
        let mut need = [false; 2];
        let mut off_seed = false;
        for s in 0..SPL as usize {
            let i = step * SPL + s as u32;
            if q0 + i < tlen {
                let (sym, x, seed_x) = decode::<LUT>(smem, h, d.pb, d.x[s]);
                acc |= (sym as u64) << (8 * i);
                if last {
                    off_seed |= x != seed_x;
                    d.x[s] = L;
                } else {
                    d.x[s] = x;
                    need[s] = x < L;
                }
            }
        }
        if last && t.any(off_seed) {
            return None;
        }
        // Words go to the flagged states in (lane, state) order, the k-th reading p − 2 − 2k.
        let b0 = t.ballot(need[0]);
        let b1 = if SPL == 2 { t.ballot(need[1]) } else { 0 };
        let total = 2 * (b0.count_ones() + b1.count_ones());
        if total > d.p {
            return None;
        }
        let r0 = b0.wrapping_mul(below).count_ones() + b1.wrapping_mul(below).count_ones();
        let ranks = [r0, r0 + need[0] as u32];
        for s in 0..SPL as usize {
            if need[s] {
                let wpos = d.p - 2 - 2 * ranks[s];
                let word = if d.aligned {
                    ring_word(d.ring, d.ring_sa, wpos)
                } else {
                    *d.sub.add(wpos as usize) as u32 | (*d.sub.add(wpos as usize + 1) as u32) << 8
                };
                d.x[s] = d.x[s] << 16 | word;
            }
        }
        d.p -= total;
        if d.aligned {
            turn_page(t, d);
        }
    }
    Some(acc)
}

/// [`tile`] for a whole tile of `32 · B` symbols of a 16-byte aligned sub-chunk with the slot
/// lookup table (the hot path): unrolled ([`step_full`]) and branch-free. A tile takes at most
/// `32 · B` words (`B · 64 ≤ PAGE` bytes), so all its reads lie in the pages `cur` and `cur − 1`
/// that the ring holds, and the page hand-over (at most one) waits until the tile's end. A step
/// that takes more words than remain wraps the cursor around (it cannot come back below the
/// word region's end within a tile): the tile then fails at its end.
#[inline(always)]
unsafe fn tile_full<T: Thread, const SPL: u32, const B: u32>(t: &T, smem: *mut Shared, d: &mut Dec) -> Option<u64> {
    let mut r = cursor_of::<SPL>(d.p);
    let acc = tile_steps::<T, SPL, B>(t, smem, d, &mut r);
    d.p = p_of::<SPL>(r);
    if d.p > d.wend {
        return None;
    }
    Some(acc.bytes())
}

/// The steps of a [`tile_full`], with their cursor `r` ([`cursor_of`]: the index of the next
/// word, or four times it). Words that run out wrap it around (below −1 as i32).
#[inline(always)]
unsafe fn tile_steps<T: Thread, const SPL: u32, const B: u32>(
    t: &T,
    smem: *mut Shared,
    d: &mut Dec,
    r: &mut u32,
) -> Syms {
    let f = Fast {
        lut: (&raw const (*smem).lut).cast::<u32>(),
        ring: d.ring,
        ring_sa: d.ring_sa,
        upto: d.upto,
        // Hidden from LLVM (see `Dec::upto`).
        below: opaque(d.upto.wrapping_add(d.upto)),
        mask: (1u32 << d.pb) - 1,
    };
    let mut acc = Syms { ent: [0; 8], pairs: [0; 4], words: [0; 2] };
    step_full::<T, SPL, 0>(t, &f, &mut d.x, r, &mut acc);
    step_full::<T, SPL, 1>(t, &f, &mut d.x, r, &mut acc);
    if B / SPL > 2 {
        step_full::<T, SPL, 2>(t, &f, &mut d.x, r, &mut acc);
        step_full::<T, SPL, 3>(t, &f, &mut d.x, r, &mut acc);
    }
    if B / SPL > 4 {
        step_full::<T, SPL, 4>(t, &f, &mut d.x, r, &mut acc);
        step_full::<T, SPL, 5>(t, &f, &mut d.x, r, &mut acc);
        step_full::<T, SPL, 6>(t, &f, &mut d.x, r, &mut acc);
        step_full::<T, SPL, 7>(t, &f, &mut d.x, r, &mut acc);
    }
    // The last step's renormalisation stays here, as predicated PRMTs: LLVM would sink its
    // selects past the page turn, where ptxas makes them PRMTs and SELs.
    d.x = [opaque(d.x[0]), opaque(d.x[1])];
    acc
}

/// A [`tile_full`]'s symbols as its steps collect them (constant indices: registers): the
/// lookup entries, their symbols by pairs (two entries' bytes 1 and 2 by one PRMT, shifted by 4
/// bits on the FMA pipe: the symbols in bytes 1 and 3), and by fours (bytes 1 and 3 of two
/// pairs by one PRMT): three instructions per four symbols more than a PRMT per symbol, where
/// the entry layout that puts the symbol there saves one per symbol in [`lut_step`]. FLOAT16
/// merges the pairs with the raw bytes instead ([`merge_f16_pairs`]).
struct Syms {
    ent: [u32; 8],
    pairs: [u32; 4],
    words: [u32; 2],
}

impl Syms {
    /// Entry `i` of the tile's lane (symbol `i`), its pair and its word once complete.
    #[inline(always)]
    fn put(&mut self, i: usize, v: u32) {
        self.ent[i] = v;
        if i % 2 == 1 {
            self.pairs[i / 2] = prmt(self.ent[i - 1], v, 0x6521).wrapping_mul(opaque(16));
        }
        if i % 4 == 3 {
            self.words[i / 4] = prmt(self.pairs[i / 2 - 1], self.pairs[i / 2], 0x7531);
        }
    }

    /// The symbols as bytes (byte `i` = symbol `i`).
    #[inline(always)]
    fn bytes(&self) -> u64 {
        self.words[0] as u64 | (self.words[1] as u64) << 32
    }
}

/// The page hand-over of an aligned sub-chunk: after every step of a [`tile`], after a
/// [`tile_full`] once its symbols are stored (they are not kept live across the page loads).
#[inline(always)]
unsafe fn turn_page<T: Thread>(t: &T, d: &mut Dec) {
    if d.p > 0 && d.p <= d.cur * PAGE {
        next_page(t, d);
    }
}

/// Byte p − 1 left page `cur`: the reads of page cur + 1's slot are done, page cur − 1 takes
/// it, and page cur − 2 is loaded.
#[inline(always)]
unsafe fn next_page<T: Thread>(t: &T, d: &mut Dec) {
    let lane = d.lane;
    d.cur -= 1;
    t.sync_warp();
    if d.cur >= 1 {
        store_page(t, d.ring, d.cur - 1, lane, d.next);
    }
    t.sync_warp();
    if d.cur >= 2 {
        d.next = load_page(d.sub, d.wend, d.cur - 2, lane);
    }
}

/// What [`step_full`] needs besides the decoder state.
struct Fast {
    lut: *const u32,
    ring: *const u8,
    ring_sa: u32,
    upto: u32,
    below: u32,
    mask: u32,
}

/// Step `S` of [`tile_full`]: every state decodes a symbol (byte `S·SPL + s` of the lane's
/// symbols), then reads a word (the ring index is masked, so the read stays inside the warp's
/// ring) and keeps it only when it needs one. `r`: the cursor ([`cursor_of`]).
#[inline(always)]
unsafe fn step_full<T: Thread, const SPL: u32, const S: u32>(
    t: &T,
    f: &Fast,
    xs: &mut [u32; 2],
    r: &mut u32,
    acc: &mut Syms,
) {
    let mut need = [false; 2];
    for s in 0..SPL as usize {
        let x = xs[s];
        let v = *f.lut.add((x & f.mask) as usize);
        acc.put((S * SPL) as usize + s, v);
        let x = lut_step(v, x);
        xs[s] = x;
        need[s] = x < L;
    }
    let b0 = t.ballot(need[0]);
    let b1 = if SPL == 2 { t.ballot(need[1]) } else { 0 };
    // The k-th flagged state reads the word at p − 2 − 2k, index r − k. State 0 of
    // this lane is the k-th (k: the flags before it), state 1 the (k + need0)-th: the entry at
    // the latter (the flags up to state 0) holds both, state 1's word low and state 0's high.
    // `x << 16 | w` by a PRMT.
    let k1 = b0.wrapping_mul(f.upto).count_ones() + b1.wrapping_mul(f.below).count_ones();
    let cs = cursor_shift(SPL);
    let w = ring_entry(f.ring, f.ring_sa, r.wrapping_sub(k1 << cs) << (2 - cs));
    if need[0] {
        xs[0] = prmt(w, xs[0], 0x5432);
    }
    if SPL == 2 && need[1] {
        xs[1] = prmt(w, xs[1], 0x5410);
    }
    *r = r.wrapping_sub((b0.count_ones() + b1.count_ones()) << cs);
}

/// Writes a lane's `cnt` decoded symbols, the chunk's symbols `g .. g + cnt`, as output bytes.
#[inline(always)]
unsafe fn put<const MODE: u32>(h: Hd, g: u32, acc: u64, cnt: u32) {
    let out = h.out();
    let raw = h.src().add(h.raw() as usize);
    match MODE {
        0 => put_bytes(out.add(g as usize), acc, cnt),
        1 => put_f16(out, raw, h.n() / 2, g, acc, cnt),
        2 => put_f8(out, raw, g, acc, cnt),
        _ => put_f32(out, raw, h.n() / 4, g, acc, cnt),
    }
}

/// Byte mode: the symbols are the bytes.
#[inline(always)]
unsafe fn put_bytes(dst: *mut u8, acc: u64, cnt: u32) {
    let a = dst as usize;
    if cnt == 8 && a % 8 == 0 {
        *(dst as *mut u64) = acc;
    } else if cnt == 2 && a % 2 == 0 {
        *(dst as *mut u16) = acc as u16;
    } else if cnt == 4 && a % 4 == 0 {
        *(dst as *mut u32) = acc as u32;
    } else {
        for i in 0..cnt {
            *dst.add(i as usize) = (acc >> (8 * i)) as u8;
        }
    }
}

/// FLOAT8 E4M3: symbol `g + i` (a pair of values) gives output bytes `2(g + i)` and
/// `2(g + i) + 1`, each `(r & 8) << 4 | (e & 15) << 3 | (r & 7)` from the raw nibble `r` and the
/// symbol nibble `e` (low nibbles first), as the reference's `float::merge`.
#[inline(always)]
unsafe fn put_f8(out: *mut u8, raw: *const u8, g: u32, acc: u64, cnt: u32) {
    let dst = out.add(2 * g as usize);
    let rp = raw.add(g as usize);
    if cnt == 4 && (rp as usize) % 4 == 0 && (dst as usize) % 8 == 0 {
        *(dst as *mut u64) = merge_f8(*(rp as *const u32), acc as u32);
    } else {
        for i in 0..cnt as usize {
            let (r, e) = (*rp.add(i), (acc >> (8 * i)) as u8);
            *dst.add(2 * i) = (r & 8) << 4 | (e & 15) << 3 | (r & 7);
            *dst.add(2 * i + 1) = (r >> 4 & 8) << 4 | (e >> 4) << 3 | (r >> 4 & 7);
        }
    }
}

/// FLOAT8: 4 raw bytes and 4 symbols (pairs of values) as 8 output bytes (see [`put_f8`]).
#[inline(always)]
fn merge_f8(raw: u32, sym: u32) -> u64 {
    // Each symbol's exponent nibbles to bits 3..6 of its even and odd value's bytes.
    merge_f8_exponents(raw, sym << 3, sym >> 1)
}

/// [`merge_f8`] of 4 raw bytes and the lookup entries of 4 symbols (symbol bits 12..19) as a
/// hot tile's steps leave them: the exponent nibbles gathered straight into the even and the odd
/// values' bytes (two PRMTs of entry pairs, two of those), 14 SASS instructions in all where the
/// symbol bytes and [`merge_f8`] take 17.
#[inline(always)]
fn merge_f8_entries(raw: u32, ent: &[u32]) -> u64 {
    // Bytes e0.b1, e0.b2, e1.b1, e1.b2 (and e2, e3): each symbol's low nibble at bits 4..7 of
    // its first byte, the high one at bits 0..3 of its second.
    let (p01, p23) = (prmt(ent[0], ent[1], 0x6521), prmt(ent[2], ent[3], 0x6521));
    let (lo, hi) = (prmt(p01, p23, 0x6420), prmt(p01, p23, 0x7531));
    merge_f8_exponents(raw, lo >> 1, hi << 3)
}

/// FLOAT8's 8 output bytes from 4 raw bytes and the exponents of the even values (`even_e`) and
/// of the odd ones (`odd_e`), each at bits 3..6 of byte `i` for pair `i`: a word of 4 output bytes
/// per half by two shifts and two bit selects (LOP3), interleaved by two PRMTs (about 12 SASS
/// instructions with the shifts that place the exponents; spreading the nibbles over 64 bits
/// took 35).
#[inline(always)]
fn merge_f8_exponents(raw: u32, even_e: u32, odd_e: u32) -> u64 {
    // Per byte, no carries: the sign (raw bit 3, or 7) to bit 7, the exponent to bits 3..6, the
    // mantissa (raw bits 0..2, or 4..6) to bits 0..2.
    let even = select(select(raw, raw << 4, 0x0707_0707), even_e, 0x8787_8787);
    let odd = select(select(raw >> 4, raw, 0x0707_0707), odd_e, 0x8787_8787);
    prmt(even, odd, 0x5140) as u64 | (prmt(even, odd, 0x7362) as u64) << 32
}

/// The bits of `a` where `mask` is set, those of `b` elsewhere (one LOP3 with a constant mask).
#[inline(always)]
fn select(a: u32, b: u32, mask: u32) -> u32 {
    (a & mask) | (b & !mask)
}

/// FLOAT16: 8 raw bytes and 8 symbols as 8 halves (an even number of them from an even one, see
/// [`put_f16`]): per pair, bytes `raw, sym, raw, sym` (one PRMT) rotated right by one bit.
#[inline(always)]
fn merge_f16(raw: u64, sym: u64) -> u128 {
    let (r, a) = ([raw as u32, (raw >> 32) as u32], [sym as u32, (sym >> 32) as u32]);
    let mut v = 0u128;
    for i in 0..4 {
        let w = prmt(r[i / 2], a[i / 2], if i % 2 == 0 { 0x5140 } else { 0x7362 });
        v |= (w.rotate_right(1) as u128) << (32 * i);
    }
    v
}

/// [`merge_f16`] of 8 raw bytes and a tile's symbols by [`Syms`] pairs (pair `i`: symbols
/// `2i`, `2i + 1` in bytes 1 and 3), one PRMT per pair of halves.
#[inline(always)]
fn merge_f16_pairs(raw: u64, pairs: &[u32; 4]) -> u128 {
    let r = [raw as u32, (raw >> 32) as u32];
    let mut v = 0u128;
    for i in 0..4 {
        let w = prmt(r[i / 2], pairs[i], if i % 2 == 0 { 0x7150 } else { 0x7352 });
        v |= (w.rotate_right(1) as u128) << (32 * i);
    }
    v
}

/// FLOAT16: half `h` is `rotr16(raw[h] | sym[h] << 8, 1)` with bit 15 taken from bit 0 of
/// `raw[h ^ 1]` (`raw[h]` for a last odd half): the CPU reference's pairwise `rotr32`, per half.
#[inline(always)]
unsafe fn put_f16(out: *mut u8, raw: *const u8, halves: u32, g: u32, acc: u64, cnt: u32) {
    let dst = out.add(2 * g as usize);
    let rp = raw.add(g as usize);
    if cnt == 8 && g % 2 == 0 && (rp as usize) % 8 == 0 && (dst as usize) % 16 == 0 {
        *(dst as *mut u128) = merge_f16(*(rp as *const u64), acc);
    } else {
        for i in 0..cnt {
            let hh = g + i;
            let nb = if hh ^ 1 < halves { hh ^ 1 } else { hh };
            let r = *raw.add(hh as usize) as u32 | ((acc >> (8 * i)) as u8 as u32) << 8;
            let o = r >> 1 | (*raw.add(nb as usize) as u32 & 1) << 15;
            *dst.add(2 * i as usize) = o as u8;
            *dst.add(2 * i as usize + 1) = (o >> 8) as u8;
        }
    }
}

/// Offset in the FLOAT32 raw section of byte `i` (0..3) of value `v` (`full` tiles of 256
/// values interleaved by quads, then 3 bytes per value).
#[inline(always)]
fn f32_raw_at(v: u32, i: u32, full: u32) -> usize {
    if v < 256 * full {
        let (tl, u) = (v / 256, v % 256);
        let (q, b) = (u / 4, 3 * (u % 4) + i);
        (tl * 768 + (b / 4) * 256 + 8 * (q % 32) + 4 * (q / 32) + b % 4) as usize
    } else {
        (768 * full + 3 * (v - 256 * full) + i) as usize
    }
}

/// FLOAT32: value `v` is `rotr32(raw bytes | sym << 24, 1)`.
#[inline(always)]
unsafe fn put_f32(out: *mut u8, raw: *const u8, values: u32, g: u32, acc: u64, cnt: u32) {
    let full = values / 256;
    let dst = out.add(4 * g as usize);
    let s = |k: u32| ((acc >> (8 * k)) as u8 as u32) << 24;
    if cnt == 4 && g % 4 == 0 && g + 4 <= 256 * full && (raw as usize) % 4 == 0 && (dst as usize) % 16 == 0 {
        let at = f32_raw_at(g, 0, full);
        let w0 = *(raw.add(at) as *const u32);
        let w1 = *(raw.add(at + 256) as *const u32);
        let w2 = *(raw.add(at + 512) as *const u32);
        let v0 = (w0 & 0xff_ffff | s(0)).rotate_right(1);
        let v1 = (w0 >> 24 | (w1 & 0xffff) << 8 | s(1)).rotate_right(1);
        let v2 = (w1 >> 16 | (w2 & 0xff) << 16 | s(2)).rotate_right(1);
        let v3 = (w2 >> 8 | s(3)).rotate_right(1);
        *(dst as *mut u128) = v0 as u128 | (v1 as u128) << 32 | (v2 as u128) << 64 | (v3 as u128) << 96;
    } else {
        for k in 0..cnt {
            let v = g + k;
            let b = |i: u32| *raw.add(f32_raw_at(v, i, full)) as u32;
            let x = (b(0) | b(1) << 8 | b(2) << 16 | s(k)).rotate_right(1);
            for (i, byte) in x.to_le_bytes().into_iter().enumerate() {
                *dst.add(4 * k as usize + i) = byte;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::xorshift;

    #[test]
    fn merge_f8_entries_is_merge_f8_of_the_symbols() {
        // Lookup entries with their other fields random (xorshift), symbols at bits 12..19.
        let mut z = xorshift(0x9E37_79B9);
        let mut next = || (z() >> 32) as u32;
        for _ in 0..100_000 {
            let raw = next();
            let ent = [next(), next(), next(), next()];
            let sym = (0..4).fold(0, |w, i| w | lut_symbol(ent[i]) << (8 * i));
            assert_eq!(merge_f8_entries(raw, &ent), merge_f8(raw, sym), "raw {raw:#x} entries {ent:x?}");
        }
    }

    #[test]
    fn merge_f8_is_the_bytewise_merge() {
        // Every raw byte against every symbol byte, in each of the four positions.
        for r in 0..=255u32 {
            for e in 0..=255u32 {
                for k in 0..4 {
                    let (raw, sym) =
                        (r << (8 * k) | 0x5A << (8 * ((k + 1) % 4)), e << (8 * k) | 0xC3 << (8 * ((k + 2) % 4)));
                    let got = merge_f8(raw, sym);
                    for i in 0..4 {
                        let (r, e) = ((raw >> (8 * i)) as u8, (sym >> (8 * i)) as u8);
                        let lo = (r & 8) << 4 | (e & 15) << 3 | (r & 7);
                        let hi = (r >> 4 & 8) << 4 | (e >> 4) << 3 | (r >> 4 & 7);
                        assert_eq!(
                            [(got >> (16 * i)) as u8, (got >> (16 * i + 8)) as u8],
                            [lo, hi],
                            "raw {raw:#x} sym {sym:#x}"
                        );
                    }
                }
            }
        }
    }
}
