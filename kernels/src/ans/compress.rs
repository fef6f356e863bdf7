//! ANS compression: `ans_compress(in_ptrs, in_bytes, num_chunks, out_ptrs, out_bytes, statuses,
//! data_type, max_sub_chunk_count, states_per_lane, histogram_reduction_log2, max_chunk_bytes)`,
//! writing exactly the bytes of the CPU encoder (`gpucomp::cpu::ans::compress_in_batch`, whose
//! module docs define the format): byte, FLOAT16 and FLOAT32 modes, one or two states per lane,
//! every `max_sub_chunk_count`, exact and sampled histograms. The options are nvCOMP's raw
//! values (`data_type` as `nvcompType_t`, 0 meaning "default" for the three counts);
//! `max_chunk_bytes` is the batch's largest chunk, which sets the sub-chunk size.
//!
//! Launch geometry (1-D):
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `ans_compress` | [`COMPRESS_BLOCK_THREADS`] (4 warps) | [`compress_grid_dim`]`(num_chunks)` | static only ([`COMPRESS_SHARED_BYTES`] = 6 416 B); pass 0 dynamic bytes |
//!
//! Outputs must hold `AnsOptions::max_compressed_chunk_size(in_bytes[i])` bytes (the batch
//! maximum's bound is larger, so nvCOMP's buffers qualify); the kernel uses the space beyond the
//! chunk as scratch and never writes past that bound.
//!
//! # Design
//!
//! One thread block per chunk (blocks loop over chunks beyond the grid).
//!
//! 1. **Histogram**: the block reads the chunk in 16-byte groups (one wide load per thread and
//!    group when the input is 16-byte aligned), extracts the symbols (bytes, or the exponent
//!    byte `(h >> 7) & 0xFF` of each half / `(v >> 23) & 0xFF` of each float) and counts them
//!    with shared-memory atomics into one sub-histogram per warp. Sampled histograms
//!    (`histogram_reduction_log2 > 0`, at least 4096 symbols) count only the head of each of the
//!    8 slices. The float modes' raw section is written in the same pass (FLOAT16: two raw bytes
//!    per pair of halves, one 8-byte store per group; FLOAT32: the quad's three interleaved
//!    words).
//! 2. **Table** (warp 0): lane `l` owns symbols `8l .. 8l + 8`; the quantisation is
//!    `FSE_normalizeM2` exactly as `cpu::ans::normalize` computes it (64-bit integers, every
//!    division the same; the cumulative rounding is a warp prefix sum, since `acc` before a
//!    symbol is `mid + rStep · Σ` earlier counts). The lanes store the frequency table and, per
//!    symbol, the encoder's entry: frequency, cumulative frequency and a Granlund–Montgomery
//!    reciprocal (`x / f` as a `mul.hi`, a subtract, an add and two shifts, exact for every
//!    32-bit `x`).
//! 3. **Encode**: warp `w` encodes sub-chunks `w, w + 4, …`, lane `j` holding its `spl` states
//!    in registers and walking the schedule backwards (`cpu::ans::rans::encode_sub_chunk`): per
//!    tile one load of the lane's 8, 2 or 4 symbols (an 8- or 16-byte load when aligned), per
//!    step a ballot per state of "emits a word"; a state's word goes to position `W + popc` of
//!    the flags of the higher lanes (and of its lane's higher states), which is the CPU's
//!    emission order (lanes descending, states descending). The words go straight to a scratch
//!    slot in the output, `roundup16(128·spl + ⌈pb·S/8⌉)` bytes per sub-chunk of `S` symbols
//!    (the most nvCOMP's bound allows it), laid out from the chunk's data offset; the final
//!    states follow the words.
//! 4. **Place**: sub-chunk `i` moves down from its slot to `data + Σ roundup16(size)` of the
//!    ones before it, in order, the whole block moving 2 KiB per barrier (16-byte words when the
//!    output is 16-byte aligned). A sub-chunk larger than its slot (possible only for
//!    adversarial symbol statistics) makes warp 0 encode the whole chunk again, sub-chunk by
//!    sub-chunk at the final offsets, bounded by the output's size
//!    (`OUTPUT_BUFFER_TOO_SMALL` if it does not fit, as the CPU encoder with that output).
//! 5. **Header** and size table, zero padding between the parts.
//!
//! Statuses, as `compress_in_batch`: unknown data type `NOT_SUPPORTED`; bad option values
//! `INVALID_VALUE`; FLOAT8 `NOT_SUPPORTED`; more than 2^24 bytes `CHUNK_SIZE_TOO_LARGE`; a length
//! that is not a whole number of elements `INVALID_VALUE`; `out_bytes` is 0 for all of them.
//! Empty chunks give the CPU's 32-byte chunk. Inputs and outputs may have any alignment
//! (unaligned ones take byte-wise paths).
//!
//! Launch bounds `.maxntid 128`, `.minnctapersm 4`: ptxas (CUDA 13) gives 128 registers on
//! sm_80 and sm_90, no spills (40 B of stack: the table step's per-lane arrays), 6 416 B static
//! shared memory; unbounded it takes 159 registers, and at 5 blocks per SM (96) it spills.
//!
//! Measured (H200, 2026-11-21, `benches/kernels/ans_compress.py`: the first 8 MiB of each anchor
//! replicated to 256 MiB (weights: 4 Mi halves to 128 MiB), 64 KiB chunks, default options, every
//! chunk equal to the CPU encoder's; CUDA events, median of 15), GB/s:
//!
//! | build (variants on top of 453a909) | lineitem.tbl | lineitem_comment.txt | weights.f16 (FLOAT16) |
//! | --- | --- | --- | --- |
//! | this one (the kernel of 428a54c) | 154.4 | 155.5 | 165.3 |
//! | 453a909: groups and tiles loaded one iteration ahead | 155.5 | 156.1 | 156.6 |
//! | a: lane-striped histogram (32 KiB, bin `32s + lane`), 32-word sums (16 B spilled) | 151.0 | 151.5 | 152.5 |
//! | b: a with sums by 16-byte rows (no spills) | 155.7 | 156.4 | 156.7 |
//! | c: a + two groups in flight per thread, 8 KiB moved per barrier (48 B spilled) | 148.6 | 149.1 | 147.7 |
//! | d: c with sums by 16-byte rows (spills) | 149.2 | 149.7 | 149.1 |
//! | e: c at 3 blocks per SM (168 registers) | 126.9 | 127.2 | 125.4 |
//! | nvCOMP 6 | 675.2 | 696.0 | 900.6 |
//!
//! The load-ahead commit and the histogram rewrites bring nothing (the weights lose 5 %), so the
//! kernel stays as it was. ncu (453a909, one launch on the comment batch, 1.5 GHz): 3.33 M
//! cycles, issue slots busy 55 % (IPC 2.28; ALU pipe 54 %, the busiest), 3.85 active and 0.89
//! eligible warps per scheduler (occupancy 25 %, the register limit), L1 hit rate 43 %, DRAM
//! 321 GB/s. That is about 238 000 warp instructions per 64 KiB chunk (3.6 per input byte, 116
//! lane slots) and ~430 000 cycles per chunk and block: the kernel is bound by its
//! instruction count at low occupancy, not by atomic conflicts or memory. Fewer blocks per SM
//! (more registers) is slower. What would pay: fewer instructions per coded symbol in the
//! encode step (entry unpacking and variable shifts, the ballots and popcounts, the alignment
//! and limit checks of each 2-byte word store) and fewer registers for more warps per SM.
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::warp::warp_scan;
use crate::{status, Thread};

/// Warps per thread block of `ans_compress`.
pub const COMPRESS_WARPS: usize = 4;
/// `blockDim.x` of `ans_compress`.
pub const COMPRESS_BLOCK_THREADS: u32 = COMPRESS_WARPS as u32 * 32;
/// Static shared memory of `ans_compress`, bytes.
pub const COMPRESS_SHARED_BYTES: usize = core::mem::size_of::<Shared>();

/// `gridDim.x` of `ans_compress`: one block per chunk, capped at 65535.
pub const fn compress_grid_dim(num_chunks: u64) -> u32 {
    super::grid_dim(num_chunks)
}

/// Largest chunk nvCOMP's ANS compressor accepts.
const MAX_CHUNK_SIZE: usize = 1 << 24;
/// Most sub-chunks a chunk can have (`n ≤ max_chunk_bytes`, `max_sub_chunk_count ≤ 64`).
const MAX_SUB_CHUNKS: usize = 64;
/// Chunks with fewer symbols always use the exact histogram.
const EXACT_BELOW_SYMBOLS: usize = 4096;
/// Slices of a sampled histogram.
const SAMPLE_SLICES: usize = 8;
/// The states' lower bound, every state's initial value.
const STATE_INITIAL: u32 = 1 << 16;
/// Threads of a block.
const THREADS: usize = COMPRESS_BLOCK_THREADS as usize;

/// Shared memory of one thread block.
#[repr(C, align(16))]
pub struct Shared {
    /// One symbol histogram per warp.
    hist: [[u32; 256]; COMPRESS_WARPS],
    /// Per symbol the encoder's entry (see [`Entry`]).
    enc: [u64; 256],
    /// Stored size of each sub-chunk.
    sizes: [u32; MAX_SUB_CHUNKS],
    /// Whether a sub-chunk outgrew its scratch slot.
    overflow: u32,
    /// `mn` and the number of table entries.
    table: [u32; 2],
}

/// The chunk's coding mode (from the data type).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bytes,
    Float16,
    Float32,
}

impl Mode {
    /// Input bytes per symbol (also the element width).
    #[inline(always)]
    fn bps(self) -> usize {
        match self {
            Mode::Bytes => 1,
            Mode::Float16 => 2,
            Mode::Float32 => 4,
        }
    }

    /// Probability bits.
    #[inline(always)]
    fn pb(self) -> u32 {
        if self == Mode::Bytes {
            11
        } else {
            10
        }
    }

    /// The chunk header's mode byte.
    #[inline(always)]
    fn code(self) -> u32 {
        match self {
            Mode::Bytes => 0,
            Mode::Float16 => 1,
            Mode::Float32 => 3,
        }
    }

    /// Raw section bytes for `n` input bytes.
    #[inline(always)]
    fn raw_len(self, n: usize) -> usize {
        match self {
            Mode::Bytes => 0,
            Mode::Float16 => n / 2,
            Mode::Float32 => n / 4 * 3,
        }
    }
}

/// The options of a launch, checked.
#[derive(Clone, Copy)]
struct Options {
    mode: Mode,
    msc: usize,
    spl: usize,
    hrl2: u32,
}

/// `AnsOptions::validate` and `mode`: the options or the status every chunk gets.
#[inline(always)]
fn options(data_type: u32, msc: u32, spl: u32, hrl2: u32) -> Result<Options, i32> {
    let mode = match data_type {
        0 | 1 => Some(Mode::Bytes),
        10 => Some(Mode::Float16),
        11 => Some(Mode::Float32),
        9 => None, // FLOAT8 E4M3: valid options, but not supported
        _ => return Err(status::NOT_SUPPORTED),
    };
    if msc != 0 && !(msc.is_power_of_two() && (4..=64).contains(&msc)) {
        return Err(status::INVALID_VALUE);
    }
    if spl > 2 || hrl2 > 8 {
        return Err(status::INVALID_VALUE);
    }
    let Some(mode) = mode else { return Err(status::NOT_SUPPORTED) };
    let msc = if msc == 0 { 8 } else { msc as usize };
    Ok(Options { mode, msc, spl: if spl == 1 { 1 } else { 2 }, hrl2 })
}

/// `AnsOptions::sub_chunk_size` for a batch whose largest chunk has `m` bytes.
#[inline(always)]
fn sub_chunk_size(o: &Options, m: usize) -> usize {
    let per = m.div_ceil(o.msc).max(1);
    per.next_power_of_two().max(2048 * o.mode.bps())
}

/// Scratch slot of a sub-chunk of `s` symbols: the most nvCOMP's bound allows it.
#[inline(always)]
fn slot_bytes(o: &Options, s: usize) -> usize {
    (128 * o.spl + (o.mode.pb() as usize * s).div_ceil(8)).next_multiple_of(16)
}

/// `AnsOptions::max_compressed_chunk_size(n)`: the output bytes the kernel may use.
#[inline(always)]
fn max_compressed(o: &Options, n: usize) -> usize {
    let sc = sub_chunk_size(o, n);
    let nsub = n.div_ceil(sc).max(1);
    let raw = o.mode.raw_len(n);
    let head = ((16 + 4 * nsub).next_multiple_of(8) + raw + (raw & 1) + 512).next_multiple_of(16);
    head + nsub * slot_bytes(o, sc / o.mode.bps())
}

/// The encoder's entry of a symbol, packed in a u64: `f` (bits 0..12), `cum` (12..24), the
/// reciprocal's shifts `sh1` (bit 24) and `sh2` (25..29), the low-probability marker (bit 29),
/// the multiplier (32..64).
#[derive(Clone, Copy)]
struct Entry(u64);

impl Entry {
    /// The entry of frequency `f` (0 for an absent symbol), cumulative frequency `cum`.
    #[inline(always)]
    fn new(f: u32, cum: u32, low: bool) -> Entry {
        // Granlund–Montgomery: l = ceil(log2 f), m = floor(2^(32+l) / f) − 2^32 + 1 (< 2^32).
        let l = if f <= 1 { 0 } else { 32 - (f - 1).leading_zeros() };
        let m = match (1u64 << (32 + l)).checked_div(f as u64) {
            Some(q) => (q - (1 << 32) + 1) as u32,
            None => 0,
        };
        let (sh1, sh2) = (l.min(1), l.saturating_sub(1));
        Entry(
            f as u64
                | (cum as u64) << 12
                | (sh1 as u64) << 24
                | (sh2 as u64) << 25
                | (low as u64) << 29
                | (m as u64) << 32,
        )
    }

    #[inline(always)]
    fn f(self) -> u32 {
        self.0 as u32 & 0xFFF
    }

    /// The stored table value: 0xFFFF for a low-probability symbol, else `f`.
    #[inline(always)]
    fn stored(self) -> u32 {
        if (self.0 >> 29) & 1 != 0 {
            0xFFFF
        } else {
            self.f()
        }
    }

    /// The state after coding this symbol from `x < f · 2^(32 − pb)`:
    /// `(x / f) · 2^pb + x mod f + cum`.
    #[inline(always)]
    fn encode(self, x: u32, pb: u32) -> u32 {
        let e = self.0;
        let t = ((x as u64 * (e >> 32)) >> 32) as u32;
        let q = (t + ((x - t) >> ((e >> 24) & 1) as u32)) >> ((e >> 25) & 15) as u32;
        (q << pb) + (x - q * self.f()) + ((e >> 12) as u32 & 0xFFF)
    }
}

/// Warp sum of `v`.
#[inline(always)]
fn warp_sum<T: Thread>(t: &T, v: u32) -> u32 {
    let mut x = v;
    let mut d = 16;
    while d > 0 {
        x += t.shfl_xor(x, d);
        d >>= 1;
    }
    x
}

/// The `k`-bytes little-endian value at `p` (`k ≤ 16`), one load when `p` is `k`-aligned and
/// `k` a power of two.
#[inline(always)]
unsafe fn load(p: *const u8, k: usize) -> u128 {
    if (p as usize).is_multiple_of(k) {
        match k {
            16 => return u128::from_le(*(p as *const u128)),
            8 => return u64::from_le(*(p as *const u64)) as u128,
            4 => return u32::from_le(*(p as *const u32)) as u128,
            2 => return u16::from_le(*(p as *const u16)) as u128,
            _ => {}
        }
    }
    let mut v = 0u128;
    for i in 0..k {
        v |= (*p.add(i) as u128) << (8 * i);
    }
    v
}

/// Stores the low `k` bytes of `v` at `p` (one store when `p` is `k`-aligned, `k` 2, 4 or 8).
#[inline(always)]
unsafe fn store(p: *mut u8, v: u64, k: usize) {
    if (p as usize).is_multiple_of(k) {
        match k {
            8 => return *(p as *mut u64) = v.to_le(),
            4 => return *(p as *mut u32) = (v as u32).to_le(),
            2 => return *(p as *mut u16) = (v as u16).to_le(),
            _ => {}
        }
    }
    for i in 0..k {
        *p.add(i) = (v >> (8 * i)) as u8;
    }
}

/// The symbols of the `k` elements in `v` (element `i` at bits `i · 8 · bps`), packed one byte
/// each: the byte itself, or the rotated value's exponent byte.
#[inline(always)]
fn symbols(v: u128, bps: usize, k: usize) -> u64 {
    match bps {
        1 => v as u64,
        2 => {
            let mut s = 0u64;
            for i in 0..k {
                s |= (((v >> (16 * i + 7)) as u64) & 0xFF) << (8 * i);
            }
            s
        }
        _ => {
            let mut s = 0u64;
            for i in 0..k {
                s |= (((v >> (32 * i + 23)) as u64) & 0xFF) << (8 * i);
            }
            s
        }
    }
}

/// Kernel body of `ans_compress` (see the module docs).
///
/// # Safety
/// Launched with [`COMPRESS_BLOCK_THREADS`] threads per block; the arrays hold `num_chunks`
/// entries; input `i` is readable for `in_bytes[i]` bytes, output `i` writable for
/// `AnsOptions::max_compressed_chunk_size(in_bytes[i])` bytes, and outputs overlap nothing;
/// `statuses` is null or holds `num_chunks` entries; `smem` is this block's.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn compress<T: Thread>(
    t: &T,
    smem: *mut Shared,
    in_ptrs: *const *const u8,
    in_bytes: *const u64,
    num_chunks: u64,
    out_ptrs: *const *mut u8,
    out_bytes: *mut u64,
    statuses: *mut i32,
    data_type: u32,
    max_sub_chunk_count: u32,
    states_per_lane: u32,
    histogram_reduction_log2: u32,
    max_chunk_bytes: u32,
) {
    let opts = options(data_type, max_sub_chunk_count, states_per_lane, histogram_reduction_log2);
    let mut chunk = t.block_idx() as u64;
    while chunk < num_chunks {
        let i = chunk as usize;
        let (src, n, dst) = (*in_ptrs.add(i), *in_bytes.add(i), *out_ptrs.add(i));
        let result = match opts {
            Err(e) => Err(e),
            Ok(_) if n > MAX_CHUNK_SIZE as u64 => Err(status::CHUNK_SIZE_TOO_LARGE),
            Ok(o) if !(n as usize).is_multiple_of(o.mode.bps()) => Err(status::INVALID_VALUE),
            Ok(o) => compress_chunk(t, smem, &o, src, n as usize, dst, max_chunk_bytes as usize),
        };
        if t.thread_idx() == 0 {
            let (s, len) = match result {
                Ok(len) => (status::SUCCESS, len as u64),
                Err(e) => (e, 0),
            };
            *out_bytes.add(i) = len;
            if !statuses.is_null() {
                *statuses.add(i) = s;
            }
        }
        // The next chunk reuses the shared memory.
        t.sync_threads();
        chunk += t.grid_dim() as u64;
    }
}

/// Compresses one chunk of `n` bytes (a whole number of elements, at most 2^24); returns its
/// length.
#[inline(always)]
unsafe fn compress_chunk<T: Thread>(
    t: &T,
    smem: *mut Shared,
    o: &Options,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    max_chunk_bytes: usize,
) -> Result<usize, i32> {
    let tid = t.thread_idx() as usize;
    let (warp, lane) = (t.warp() as usize, t.lane() as usize);
    let bps = o.mode.bps();
    let pb = o.mode.pb();
    let nsym = n / bps;
    let sc = sub_chunk_size(o, max_chunk_bytes.max(n));
    let nsub = n.div_ceil(sc);
    let cap = max_compressed(o, n);
    // Layout (cpu::ans::header::Layout).
    let sizes_end = 16 + 4 * nsub;
    let raw_start = if o.mode == Mode::Bytes { sizes_end } else { sizes_end.next_multiple_of(8) };
    let raw_end = raw_start + o.mode.raw_len(n);
    let table_start = raw_end + (raw_end & 1);
    let sampled = o.hrl2 > 0 && nsym >= EXACT_BELOW_SYMBOLS;

    // 1. Histogram (and the raw section).
    let hist = (&raw mut (*smem).hist).cast::<u32>();
    let mut k = tid;
    while k < 256 * COMPRESS_WARPS {
        *hist.add(k) = 0;
        k += THREADS;
    }
    t.sync_threads();
    let my_hist = hist.add(256 * warp);
    if sampled {
        let p = nsym.div_ceil(SAMPLE_SLICES).next_multiple_of(16).max(16);
        let mut start = 0;
        while start < nsym {
            let keep = (nsym - start).min(p) >> o.hrl2;
            count(tid, my_hist, src, bps, start, keep);
            start += p;
        }
    } else {
        count(tid, my_hist, src, bps, 0, nsym);
    }
    match o.mode {
        Mode::Float16 => raw_f16(tid, src, n, dst.add(raw_start)),
        Mode::Float32 => raw_f32(tid, src, n, dst.add(raw_start)),
        Mode::Bytes => {}
    }
    if tid < raw_start - sizes_end {
        *dst.add(sizes_end + tid) = 0;
    }
    if tid == 0 && table_start > raw_end {
        *dst.add(raw_end) = 0;
    }
    t.sync_threads();

    // 2. Table.
    let enc = (&raw mut (*smem).enc).cast::<u64>();
    if warp == 0 && table(t, smem, pb, sampled, dst.add(table_start)).is_err() && lane == 0 {
        (*smem).table = [0, 0];
    }
    t.sync_threads();
    let entries = (*smem).table[1] as usize;
    if entries == 0 {
        return Err(status::INTERNAL);
    }
    let data = (table_start + 2 * entries).next_multiple_of(16);
    if tid == 0 {
        let mn = (*smem).table[0];
        let w =
            [n as u32, sc as u32, mn | (mn + entries as u32 - 1) << 8 | pb << 16 | o.mode.code() << 24, o.spl as u32];
        for (k, &v) in w.iter().enumerate() {
            store(dst.add(4 * k), v as u64, 4);
        }
    }
    let mut k = table_start + 2 * entries + tid;
    while k < data {
        *dst.add(k) = 0;
        k += THREADS;
    }

    // 3. Encode each sub-chunk into its scratch slot.
    if tid == 0 {
        (*smem).overflow = 0;
    }
    t.sync_threads();
    let symbols_of = |s: usize| (n - s * sc).min(sc) / bps;
    let mut slot = data;
    let mut s = 0;
    while s < nsub {
        if s % COMPRESS_WARPS == warp {
            let limit = cap.saturating_sub(slot).min(slot_bytes(o, symbols_of(s)));
            let size = encode(t, o, src.add(s * sc), symbols_of(s), enc, dst.add(slot), limit);
            if size > limit {
                if lane == 0 {
                    AtomicU32::from_ptr(&raw mut (*smem).overflow).store(1, Relaxed);
                }
            } else if s + 1 < nsub {
                // Zero padding to the next sub-chunk, moved along with it.
                let pad = size.next_multiple_of(16) - size;
                if lane < pad {
                    *dst.add(slot + size + lane) = 0;
                }
            }
            if lane == 0 {
                *(&raw mut (*smem).sizes).cast::<u32>().add(s) = size as u32;
            }
        }
        slot += slot_bytes(o, symbols_of(s));
        s += 1;
    }
    t.sync_threads();
    let sizes = (&raw const (*smem).sizes).cast::<u32>();

    // 4. Place.
    let end = if AtomicU32::from_ptr(&raw mut (*smem).overflow).load(Relaxed) != 0 {
        t.sync_threads(); // every thread has read the flag
        if warp == 0 {
            let mut off = data;
            let mut s = 0;
            while s < nsub {
                let room = cap.saturating_sub(off);
                let size = encode(t, o, src.add(s * sc), symbols_of(s), enc, dst.add(off), room);
                if size > room {
                    break;
                }
                if lane == 0 {
                    *(&raw mut (*smem).sizes).cast::<u32>().add(s) = size as u32;
                    (*smem).overflow = (s + 1 == nsub) as u32 ^ 1;
                }
                off += size;
                if s + 1 < nsub {
                    let padded = off.next_multiple_of(16).min(cap);
                    if off + lane < padded {
                        *dst.add(off + lane) = 0;
                    }
                    off = padded;
                }
                s += 1;
            }
            t.sync_warp();
        }
        t.sync_threads();
        if (*smem).overflow != 0 {
            return Err(status::OUTPUT_BUFFER_TOO_SMALL);
        }
        let mut off = data;
        for s in 0..nsub {
            off += *sizes.add(s) as usize;
            if s + 1 < nsub {
                off = off.next_multiple_of(16);
            }
        }
        off
    } else {
        let mut off = data;
        let mut slot = data;
        for s in 0..nsub {
            let size = *sizes.add(s) as usize;
            let len = if s + 1 < nsub { size.next_multiple_of(16) } else { size };
            if slot != off {
                move_down(t, dst.add(slot), dst.add(off), len);
            }
            off += len;
            slot += slot_bytes(o, symbols_of(s));
        }
        off
    };

    // 5. Size table.
    let mut k = tid;
    while k < nsub {
        store(dst.add(16 + 4 * k), *sizes.add(k) as u64, 4);
        k += THREADS;
    }
    Ok(end)
}

/// Adds the symbols `start .. start + len` (`start` a multiple of 16) to `hist`, the block's
/// threads taking 16-byte groups in turn.
#[inline(always)]
unsafe fn count(tid: usize, hist: *mut u32, src: *const u8, bps: usize, start: usize, len: usize) {
    let per = 16 / bps;
    let mut g = tid;
    while g * per < len {
        let k = (len - g * per).min(per);
        let v = load(src.add((start + g * per) * bps), k * bps);
        let mut s = symbols(v, bps, k.min(8));
        for j in 0..k {
            if j == 8 {
                s = (v >> 64) as u64; // bytes 8..16 of a byte-mode group
            }
            AtomicU32::from_ptr(hist.add((s & 0xFF) as usize)).fetch_add(1, Relaxed);
            s >>= 8;
        }
        g += THREADS;
    }
}

/// FLOAT16 raw section: per pair of halves `w`, bytes 0 and 2 of `rotl32(w, 1)`; an odd last
/// half `h`: byte 0 of `rotl16(h, 1)`.
#[inline(always)]
unsafe fn raw_f16(tid: usize, src: *const u8, n: usize, raw: *mut u8) {
    let mut g = tid;
    while g * 16 < n {
        let k = (n - g * 16).min(16);
        let v = load(src.add(16 * g), k);
        let mut r = 0u64;
        for p in 0..k / 4 {
            let w = ((v >> (32 * p)) as u32).rotate_left(1);
            r |= ((w & 0xFF) as u64 | ((w >> 8) & 0xFF00) as u64) << (16 * p);
        }
        if k % 4 == 2 {
            let h = ((v >> (8 * (k - 2))) as u16).rotate_left(1);
            r |= ((h & 0xFF) as u64) << (8 * (k / 2 - 1));
        }
        store(raw.add(8 * g), r, k / 2);
        g += THREADS;
    }
}

/// FLOAT32 raw section: bytes 0..3 of each `rotl32(v, 1)`; in whole 1024-byte tiles the quad
/// `q`'s 12 bytes as three words, word `w` at `tile · 768 + 256w + 8(q mod 32) + 4(q div 32)`;
/// the tail sequential.
#[inline(always)]
unsafe fn raw_f32(tid: usize, src: *const u8, n: usize, raw: *mut u8) {
    let full = n / 1024 * 1024;
    let mut g = tid;
    while g * 16 < full {
        let v = load(src.add(16 * g), 16);
        let r = |i: usize| ((v >> (32 * i)) as u32).rotate_left(1) & 0xFF_FFFF;
        let words = [r(0) | r(1) << 24, r(1) >> 8 | r(2) << 16, r(2) >> 16 | r(3) << 8];
        let (tile, q) = (g / 64, g % 64);
        for (w, &x) in words.iter().enumerate() {
            store(raw.add(tile * 768 + 256 * w + 8 * (q % 32) + 4 * (q / 32)), x as u64, 4);
        }
        g += THREADS;
    }
    let mut e = full / 4 + tid;
    while e < n / 4 {
        let r = (load(src.add(4 * e), 4) as u32).rotate_left(1);
        for b in 0..3 {
            *raw.add(3 * e + b) = (r >> (8 * b)) as u8;
        }
        e += THREADS;
    }
}

/// Warp 0: sums the sub-histograms, quantises them (`cpu::ans::normalize::normalize_m2`), stores
/// the frequency table at `out`, the encoder entries and `(mn, entries)` in shared memory.
/// `Err` where the reference fails with `Internal` (unreachable for `pb ≥ 10`).
#[inline(always)]
unsafe fn table<T: Thread>(t: &T, smem: *mut Shared, pb: u32, sampled: bool, out: *mut u8) -> Result<(), ()> {
    let lane = t.lane() as usize;
    let hist = (&raw const (*smem).hist).cast::<u32>();
    let mut c = [0u32; 8];
    for (k, ck) in c.iter_mut().enumerate() {
        let s = 8 * lane + k;
        for w in 0..COMPRESS_WARPS {
            *ck += *hist.add(256 * w + s);
        }
        if sampled {
            *ck = (*ck).max(1);
        }
    }
    // The table's range: mn..=mx of the present symbols (exact), 0..=255 (sampled).
    let present = t.ballot(c.iter().any(|&x| x > 0));
    let (mn, mx) = if present == 0 {
        (0, 0)
    } else {
        let (lo, hi) = (present.trailing_zeros(), 31 - present.leading_zeros());
        let first = c.iter().position(|&x| x > 0).unwrap_or(0) as u32;
        let last = c.iter().rposition(|&x| x > 0).unwrap_or(0) as u32;
        (8 * lo + t.shfl_idx(first, lo), 8 * hi + t.shfl_idx(last, hi))
    };
    let distinct = warp_sum(t, c.iter().filter(|&&x| x > 0).count() as u32);
    let m = 1u32 << pb;
    // Per symbol: 0 absent, 1 low probability (−1), 2 one, 3 unassigned.
    let mut class = [0u8; 8];
    let mut f = [0u32; 8];
    if distinct <= 1 {
        // Empty chunk or a single symbol: the one-entry table [M].
        for k in 0..8 {
            if 8 * lane + k == mn as usize {
                f[k] = m;
                class[k] = 2;
            }
        }
    } else {
        let total0: u64 = warp_sum(t, c.iter().sum::<u32>()) as u64;
        let low_threshold = total0 >> pb;
        let low_one = (3 * total0) >> (pb + 1);
        let (mut taken, mut removed) = (0u32, 0u32);
        for k in 0..8 {
            let x = c[k] as u64;
            class[k] = if x == 0 {
                0
            } else if x <= low_threshold {
                1
            } else if x <= low_one {
                2
            } else {
                3
            };
            if class[k] == 1 || class[k] == 2 {
                taken += 1;
                removed += c[k];
            }
        }
        let mut distributed = warp_sum(t, taken) as u64;
        let mut total = total0 - warp_sum(t, removed) as u64;
        if distributed > m as u64 {
            return Err(());
        }
        let mut to_distribute = m as u64 - distributed;
        if to_distribute == 0 {
            return Err(()); // unassigned symbols remain (the reference: None)
        }
        if total / to_distribute > low_one {
            let low_one = (total * 3) / (to_distribute * 2);
            let (mut taken, mut removed) = (0u32, 0u32);
            for k in 0..8 {
                if class[k] == 3 && c[k] as u64 <= low_one {
                    class[k] = 2;
                    taken += 1;
                    removed += c[k];
                }
            }
            distributed += warp_sum(t, taken) as u64;
            total -= warp_sum(t, removed) as u64;
            if distributed > m as u64 {
                return Err(());
            }
            to_distribute = m as u64 - distributed;
        }
        let unassigned = warp_sum(t, class.iter().filter(|&&x| x == 3).count() as u32);
        if unassigned == 0 || total == 0 {
            return Err(());
        }
        let v_step_log = 62 - pb;
        let mid = (1u64 << (v_step_log - 1)) - 1;
        let r_step = ((1u64 << v_step_log) * to_distribute + mid) / total;
        let mine: u32 = (0..8).filter(|&k| class[k] == 3).map(|k| c[k]).sum();
        let (mut before, _) = warp_scan(t, mine);
        for k in 0..8 {
            match class[k] {
                1 | 2 => f[k] = 1,
                3 => {
                    let acc = mid + r_step * before as u64;
                    let end = acc + r_step * c[k] as u64;
                    f[k] = ((end >> v_step_log) - (acc >> v_step_log)) as u32;
                    before += c[k];
                }
                _ => {}
            }
        }
    }
    let (mn, mx) = if sampled { (0, 255) } else { (mn, mx) };
    let (mut cum, _) = warp_scan(t, f.iter().sum());
    let enc = (&raw mut (*smem).enc).cast::<u64>();
    for k in 0..8 {
        let s = 8 * lane + k;
        let e = Entry::new(f[k], cum, class[k] == 1);
        *enc.add(s) = e.0;
        if s as u32 >= mn && s as u32 <= mx {
            store(out.add(2 * (s - mn as usize)), e.stored() as u64, 2);
        }
        cum += f[k];
    }
    if lane == 0 {
        (*smem).table = [mn, mx - mn + 1];
    }
    Ok(())
}

/// One warp encodes a sub-chunk of `nsym` symbols from `src` (`cpu::ans::rans::encode_sub_chunk`),
/// writing its words and final states at `out`, but nothing at or past `limit` bytes; returns
/// its stored size (`2 · words + 128 · spl`), which may exceed `limit`.
#[inline(always)]
unsafe fn encode<T: Thread>(
    t: &T,
    o: &Options,
    src: *const u8,
    nsym: usize,
    enc: *const u64,
    out: *mut u8,
    limit: usize,
) -> usize {
    match (o.mode, o.spl) {
        (Mode::Bytes, 1) => encode_spl::<T, 1, 1>(t, src, nsym, enc, out, limit),
        (Mode::Bytes, _) => encode_spl::<T, 1, 2>(t, src, nsym, enc, out, limit),
        (Mode::Float16, 1) => encode_spl::<T, 2, 1>(t, src, nsym, enc, out, limit),
        (Mode::Float16, _) => encode_spl::<T, 2, 2>(t, src, nsym, enc, out, limit),
        (Mode::Float32, 1) => encode_spl::<T, 4, 1>(t, src, nsym, enc, out, limit),
        (Mode::Float32, _) => encode_spl::<T, 4, 2>(t, src, nsym, enc, out, limit),
    }
}

/// [`encode`] for `BPS` input bytes per symbol and `SPL` states per lane.
#[inline(always)]
unsafe fn encode_spl<T: Thread, const BPS: usize, const SPL: usize>(
    t: &T,
    src: *const u8,
    nsym: usize,
    enc: *const u64,
    out: *mut u8,
    limit: usize,
) -> usize {
    let lane = t.lane() as usize;
    let pb = if BPS == 1 { 11 } else { 10 };
    // Lanes above this one: their words come first in a step.
    let above = if lane == 31 { 0 } else { u32::MAX << (lane + 1) };
    // The body unit is one pass of the warp's 32·SPL states over 8 symbols each.
    let (body, body_block, tail_block) = if BPS == 4 { (0, 4, 4) } else { (nsym / (256 * SPL) * (256 * SPL), 8, 2) };
    let body_tiles = body / (32 * body_block);
    let mut tile = body_tiles + (nsym - body).div_ceil(32 * tail_block);
    let mut x = [STATE_INITIAL; SPL];
    let mut words = 0usize;
    while tile > 0 {
        tile -= 1;
        let (start, block) = if tile < body_tiles {
            (tile * 32 * body_block, body_block)
        } else {
            (body + (tile - body_tiles) * 32 * tail_block, tail_block)
        };
        let len = (nsym - start).min(32 * block);
        let mine = len.saturating_sub(lane * block).min(block);
        let syms =
            if mine > 0 { symbols(load(src.add((start + lane * block) * BPS), mine * BPS), BPS, mine) } else { 0 };
        let mut step = block / SPL;
        while step > 0 {
            step -= 1;
            let mut e = [Entry(0); SPL];
            let mut emit = [false; SPL];
            let mut before = 0;
            let mut total = 0;
            for s in 0..SPL {
                let b = step * SPL + s;
                let valid = b < mine;
                e[s] = Entry(if valid { *enc.add(((syms >> (8 * b)) & 0xFF) as usize) } else { 0 });
                emit[s] = valid && (x[s] >> (32 - pb)) >= e[s].f();
                let bal = t.ballot(emit[s]);
                before += (bal & above).count_ones() as usize;
                total += bal.count_ones() as usize;
            }
            // This lane's states emit in descending order.
            for s in (0..SPL).rev() {
                if emit[s] {
                    let at = 2 * (words + before);
                    if at + 2 <= limit {
                        store(out.add(at), x[s] as u64, 2);
                    }
                    before += 1;
                    x[s] >>= 16;
                }
                if step * SPL + s < mine {
                    x[s] = e[s].encode(x[s], pb);
                }
            }
            words += total;
        }
    }
    // Lane j's state s at index (31 − j)·SPL + s.
    let size = 2 * words + 128 * SPL;
    // Indexed: the states stay in registers (unrolled over the constant SPL).
    #[allow(clippy::needless_range_loop)]
    for s in 0..SPL {
        let at = 2 * words + 4 * ((31 - lane) * SPL + s);
        if at + 4 <= limit {
            store(out.add(at), x[s] as u64, 2);
            store(out.add(at + 2), (x[s] >> 16) as u64, 2);
        }
    }
    size
}

/// The block moves `len` bytes from `from` down to `to` (`to < from`; the ranges may overlap),
/// 16 bytes per thread and round with a barrier between the loads and the stores of a round.
#[inline(always)]
unsafe fn move_down<T: Thread>(t: &T, from: *const u8, to: *mut u8, len: usize) {
    let tid = t.thread_idx() as usize;
    let wide = (from as usize | to as usize).is_multiple_of(16);
    let mut base = 0;
    while base < len {
        let at = base + 16 * tid;
        let k = len.saturating_sub(at).min(16);
        let v = if k == 16 && wide {
            *(from.add(at) as *const u128)
        } else if k > 0 {
            load(from.add(at), k)
        } else {
            0
        };
        t.sync_threads();
        if k == 16 && wide {
            *(to.add(at) as *mut u128) = v;
        } else {
            for b in 0..k {
                *to.add(at + b) = (v >> (8 * b)) as u8;
            }
        }
        base += 16 * THREADS;
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::Ptx;

    unsafe extern "C" {
        /// Becomes `ans_compress`'s `.shared` memory at link time (kernels/linkwrap.sh).
        static mut __smem_ans_compress: super::Shared;
    }

    /// ANS compression of `num_chunks` chunks (nvCOMP's batched contract plus the options);
    /// see [`super::compress`] and the module docs for the geometry.
    #[no_mangle]
    // 4 blocks (16 warps) per SM: 128 registers without spills (module docs).
    #[link_section = "nvvm:maxntid=128;minctasm=4"]
    #[allow(clippy::too_many_arguments)]
    pub unsafe extern "ptx-kernel" fn ans_compress(
        in_ptrs: *const *const u8,
        in_bytes: *const u64,
        num_chunks: u64,
        out_ptrs: *const *mut u8,
        out_bytes: *mut u64,
        statuses: *mut i32,
        data_type: u32,
        max_sub_chunk_count: u32,
        states_per_lane: u32,
        histogram_reduction_log2: u32,
        max_chunk_bytes: u32,
    ) {
        super::compress(
            &Ptx,
            &raw mut __smem_ans_compress,
            in_ptrs,
            in_bytes,
            num_chunks,
            out_ptrs,
            out_bytes,
            statuses,
            data_type,
            max_sub_chunk_count,
            states_per_lane,
            histogram_reduction_log2,
            max_chunk_bytes,
        )
    }
}
