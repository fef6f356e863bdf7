//! Cascaded compression: nvCOMP 6's asymmetric chunks, byte for byte what the CPU reference
//! encoder (`gpucomp::cpu::cascaded::compress`) writes, nvCOMP's batched contract:
//! `cascaded_compress(in_ptrs, in_bytes, num_chunks, out_ptrs, out_bytes, statuses, data_type,
//! level, flags)`.
//!
//! The format and every encoder rule (pipeline choice, tie-breaks, signedness of the final
//! frame, zero padding, raw fallback) are the CPU reference's (`host/cpu/cascaded/`); this
//! module only organises the same computation for a GPU.
//!
//! Launch geometry (1-D):
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `cascaded_compress` | [`BLOCK_THREADS`] (8 warps) | [`grid_dim`] | static only ([`SHARED_BYTES`] = 43 456 B); pass 0 dynamic bytes |
//!
//! Each `out_ptrs[i]` needs `8 + roundup4(in_bytes[i])` bytes (the raw fallback, nvCOMP's
//! maximum compressed chunk size); the kernel never writes more. `out_bytes[i]` receives the
//! chunk's length, `statuses[i]` (if not null) 0, or `NOT_SUPPORTED` for a `data_type` above 7 or
//! `flags` without FOR, `CHUNK_SIZE_TOO_LARGE` above 16 MiB, `INVALID_VALUE` for a null pointer
//! (`out_bytes[i]` is 0 then).
//!
//! # Design
//!
//! One thread block per chunk (blocks loop over chunks beyond the grid). A chunk whose length is
//! not a whole number of elements goes straight to the raw fallback (the reference's rule).
//! Otherwise the block's 8 warps take the chunk's 4 KiB blocks in rounds of 8, one block per
//! warp, in chunk order (a 64 KiB chunk in two rounds):
//!
//! 1. **Stage**: the warp copies its block into a 4 KiB shared buffer (16-byte loads when the
//!    input allows; a whole aligned block with all 8 of a lane's loads in flight at once).
//! 2. **Size every candidate without building it**: one pass over the block, 32 elements per
//!    step, one per lane, computes at once every statistic the candidate pipelines' sizes depend
//!    on. Each lane reads its element and its neighbours from shared memory, so it knows
//!    `x[i]`, the difference `d[i] = x[i+1] − x[i]`, whether a run of `x` starts at `i`, whether
//!    a run of `d` starts there, and (a ballot finds the last nonzero difference before it, a
//!    shuffle fetches it) whether a run of the nonzero differences starts there. Ballots turn these
//!    boundaries into run counts and, with a carry of the last boundary position, into run
//!    lengths. The sizes follow from these reductions alone, because each pipeline's arrays are
//!    selections of the same sequences: RLE keeps every distinct value (so run values have the
//!    minimum and maximum of their input), the differences of run values are exactly the
//!    nonzero differences, and a second RLE of run values has counts that are all 1. Per block:
//!    the minimum and maximum of `x` (type signedness), of `d`, of the nonzero `d` (signed), and
//!    of the second and third differences for DELTA-only options; run counts and minimum and
//!    maximum run lengths of `x`, of `d` and of the nonzero `d`. Each option class tracks only
//!    its own statistics (slots RLE, DELTA, RLE need no second differences; the extremes of `d`
//!    follow from those of the nonzero `d` and whether a zero occurred), and values of up to 4
//!    bytes are compared as 32-bit keys. That covers every candidate
//!    of every option set (slots RLE, DELTA, RLE; DELTA ×3; RLE ×3; up to 7 candidates). The
//!    choice (smallest size, then fewer stages, then lower slot mask) sizes the candidates in
//!    parallel, lane `k` the one of slot mask `k`, and one warp reduction of (size, stages,
//!    mask) keys picks the winner (a function of its own, not inlined: it keeps the kernel
//!    within its register budget). The statistics and the choice wait in the warp's shared
//!    area, not in registers, across the round's barrier, and so do the pass's ballots of the
//!    run starts of `x` (one word per 32 elements).
//! 3. **Offsets**: lane 0 of each warp publishes the winner's size; after one barrier every
//!    thread sums the sizes of the round (double-buffered by round parity, so one barrier per
//!    round suffices) onto the running chunk offset. As soon as the running size reaches the raw
//!    fallback's, the chunk is written raw instead (the reference's rule; blocks written
//!    already are overwritten).
//! 4. **Write only the winner**, straight to global memory at its offset: lane 0 writes the
//!    header, stage fields and stream headers (zero padding included). A final array that keeps
//!    every position (`x`, its first, second or third differences) is packed straight from the
//!    shared block: lane `q` assembles output words `q`, `q + 32`, ... from the few elements
//!    that overlap them. Every other bit-packed stream (RLE counts, run values, nonzero
//!    differences) is produced by another pass over the shared block that selects the stream's
//!    elements with the same boundary logic (tracking only the sequences that stream needs).
//!    Selected elements are
//!    compacted through a 64-entry shared ring (a ballot ranks them); every 32 of them make
//!    exactly `bits` output words, and lane `q` assembles words `q` and `q + 32` of those from
//!    the fields that overlap them (at most `32 / bits + 2`, read from the ring; no shuffles) and
//!    stores them as consecutive 4-byte words. A last RLE stage of `x`, of `d` or of the
//!    nonzero differences, with only RLEs of its run values after it (linenumber's DELTA, RLE;
//!    orderkey's RLE, DELTA, RLE), writes its counts and its run values, the final array, in
//!    one walk: both streams have one field per run, and run `r`'s length is known where run
//!    `r + 1` starts, so one ballot ranks both into two rings (`emit_runs`). Its frames wait in
//!    shared memory, not in registers, across the stage loop and the walk. Any other RLE
//!    counts of `x` (orderkey's first stage) come from the sizing pass's ballots, without
//!    reading the block again.
//!
//! The sizing pass reads the block once; the winner costs one pass per compacted stream or
//! pair of streams (at most two) and no intermediate array is ever stored.
//!
//! Launch bounds `.maxntid 256` and, on sm_90, `.minnctapersm 2`: 118 registers, no spills
//! (2 blocks, 16 warps per SM; the chunk's offsets are 32-bit, which the chunk limit allows).
//! On sm_80 ptxas spilled 12 bytes at 128 registers, so that build has `.minnctapersm 1` (173
//! registers, no spills; 8 warps per SM, not measured). Eight warps per block rather than four
//! halve a chunk's latency (two rounds), which is what a batch of fewer chunks than the GPU
//! holds at once waits for: the anchors' u8 columns are 183 chunks of 64 KiB. The kernel is
//! latency-bound (ncu on an H200, orderkey: 0.55 instructions issued per scheduler per cycle,
//! 0.86 eligible warps of 3.8), so resident warps count, and so did the scalar choice: 7
//! candidates sized one after the other cost orderkey a fifth of its time.
//!
//! Measured on an H200 (`benches/kernels/cascaded_compress.py --corpus`: the anchors' real
//! TPC-H files, 64 KiB chunks, level 3, all flags; ratios equal nvCOMP's), GB/s with nvCOMP 6's
//! figure in brackets: orderkey i64 248 (99.9), extendedprice i64 443 (100.1), partkey i32 274
//! (85.9), quantity i32 310 (90.6), shipdate i32 292 (85.7), discount u8 68 (9.4), linenumber
//! u8 27.0 (9.0). The build before (4 warps per block, candidates sized one after the other,
//! a walk per stream for linenumber, counts of `x` by a walk) ran 186, 289, 175, 193, 183, 37
//! and 13.8 on the same files; with the choice by lanes alone 234, 429, 226, 257, 241, 41 and
//! 14.3; that and 8 warps 236, 428, 258, 287, 272, 60 and 23.5. On 256 MiB synthetic columns
//! shaped like TPC-H lineitem's (every column fills the GPU many times over) this build runs
//! 267, 478, 310, 353, 331, 103, 39.6 and, random u32 (raw fallback), 307; the build before
//! 200, 315, 223, 245, 234, 84, 33 and 200. Before `emit_runs` (three writer walks for
//! orderkey) the synthetic run measured 178, 316, 223, 244, 234, 83, 33 and 203; its first
//! version, with the counts' frame kept in registers across the stage loop, spilled 60 bytes at
//! 128 registers. The build before that (12 warps per SM, 155 registers, final arrays packed by
//! walks, 64-bit keys) ran 120, 177, 117, 107, 113, 31, 26 and 124.
// `x % a != 0` rather than `is_multiple_of`, as in the decompression kernel.
#![allow(clippy::manual_is_multiple_of)]
use super::{copy, get, value_mask};
use crate::batch::{self, CompressArgs};
use crate::{status, Thread};

/// Input bytes per encoded block.
pub const BLOCK_BYTES: usize = 4096;
/// Warps per thread block (one 4 KiB block each per round).
pub const WARPS_PER_BLOCK: u32 = 8;
/// `blockDim.x` of `cascaded_compress`.
pub const BLOCK_THREADS: u32 = WARPS_PER_BLOCK * 32;
/// Static shared memory of `cascaded_compress`, bytes.
pub const SHARED_BYTES: usize = core::mem::size_of::<Shared>();
/// Largest chunk the compressor accepts (nvCOMP's limit, 16 MiB).
pub const MAX_CHUNK_BYTES: u64 = 1 << 24;

/// `gridDim.x` of `cascaded_compress` for `num_chunks` chunks: one thread block per chunk,
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
/// Entries of a warp's compaction ring (two batches of 32).
const RING: usize = 64;

/// One warp's part of the shared memory.
#[repr(C, align(16))]
pub struct WarpArea {
    /// The block's input bytes.
    x: [u128; BLOCK_BYTES / 16],
    /// Compaction ring of the stream being written.
    ring: [u64; RING],
    /// Compaction ring of a last RLE stage's counts, written in its run values' walk.
    lens: [u16; RING],
    /// The frames and offsets of that walk's two streams.
    runs: RunsFrames,
    /// Ballots of the run starts of `x`, one per 32 elements, from the sizing pass (for the
    /// writer's RLE counts of `x`).
    bx: [u32; BLOCK_BYTES / 32],
    /// The block's statistics and chosen pipeline, kept here across the round's barrier.
    stats: Stats,
    plan: Plan,
}

/// Frames (reference, bits) and offsets in the block's output of the run values and run lengths
/// of `e` that `emit_runs` writes in one walk; read from shared memory when packing, not kept in
/// registers across the walk.
#[repr(C)]
#[derive(Clone, Copy)]
struct RunsFrames {
    vref: u64,
    vbits: u32,
    voff: u32,
    cref: u32,
    cbits: u32,
    coff: u32,
}

/// Shared memory of one thread block.
#[repr(C, align(16))]
pub struct Shared {
    warps: [WarpArea; W],
    /// Encoded size of each warp's block, by round parity.
    sizes: [[u32; W]; 2],
}

/// Kernel body of `cascaded_compress`: compresses chunk `i` (for `i = blockIdx.x`, stepping by
/// `gridDim.x`) and stores its result. `data_type` is nvCOMP's integer type (0 to 7), `level`
/// the compression level (`min(level, 3)` stage slots), `flags` the fine-grained flags
/// (DELTA 1, RLE 2, FOR 4).
///
/// # Safety
/// Launched with [`BLOCK_THREADS`] threads per block; `args` valid, input `i` readable for its
/// size and output `i` writable for `8 + roundup4(size)` bytes, outputs overlapping nothing;
/// `smem` is the block's.
#[inline(always)]
pub unsafe fn compress<T: Thread>(
    t: &T,
    smem: *mut Shared,
    args: CompressArgs,
    data_type: u32,
    level: u32,
    flags: u32,
) {
    for i in batch::block_chunks(t, args.num_chunks) {
        let ((inp, n), out) = (args.input(i), args.output(i));
        let r = compress_chunk(t, smem, inp, n, out, data_type, level, flags);
        if t.thread_idx() == 0 {
            args.finish(i, r);
        }
        // The next chunk reuses the shared memory.
        t.sync_threads();
    }
}

/// One chunk, by the whole thread block: its compressed length (the same in every thread).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn compress_chunk<T: Thread>(
    t: &T,
    smem: *mut Shared,
    inp: *const u8,
    n: u64,
    out: *mut u8,
    data_type: u32,
    level: u32,
    flags: u32,
) -> Result<u64, i32> {
    if data_type > 7 || flags & 4 == 0 {
        return Err(status::NOT_SUPPORTED);
    }
    if n > MAX_CHUNK_BYTES {
        return Err(status::CHUNK_SIZE_TOO_LARGE);
    }
    if out.is_null() || (inp.is_null() && n > 0) {
        return Err(status::INVALID_VALUE);
    }
    let wlog = data_type >> 1;
    let raw_size = 8 + n.next_multiple_of(4);
    // Stage slot kinds (bit s: slot s is RLE) and count, as `select::template` sets them.
    let (tmpl, slots) = match (flags & 2 != 0, flags & 1 != 0) {
        (true, true) => (0b101, level.min(3)),
        (false, true) => (0b000, level.min(3)),
        (true, false) => (0b111, level.min(3)),
        (false, false) => (0, 0),
    };
    let opts = Opts { signed: data_type & 1 == 0, tmpl, slots };
    let coded = if n % (1u64 << wlog) != 0 {
        None
    } else {
        match wlog {
            0 => blocks::<T, 1>(t, smem, inp, n, out, raw_size, opts),
            1 => blocks::<T, 2>(t, smem, inp, n, out, raw_size, opts),
            2 => blocks::<T, 4>(t, smem, inp, n, out, raw_size, opts),
            _ => blocks::<T, 8>(t, smem, inp, n, out, raw_size, opts),
        }
    };
    let tid = t.thread_idx() as usize;
    let size = match coded {
        Some(size) => size,
        None => {
            // Raw fallback: the bytes, then zeros up to a multiple of 4. `blocks` returned
            // after a barrier that followed every block write, so these stores come last.
            copy(inp, out.add(8), n as usize, tid, t.block_dim() as usize);
            if tid == 0 {
                for k in n..n.next_multiple_of(4) {
                    *out.add(8 + k as usize) = 0;
                }
            }
            raw_size
        }
    };
    if tid == 0 {
        let aligned = (out as usize) % 4 == 0;
        st32(out, (0x80 | data_type) << 24, aligned);
        st32(out.add(4), n as u32, aligned);
    }
    Ok(size)
}

/// The options that shape a block's candidates.
#[derive(Clone, Copy)]
struct Opts {
    /// Whether the type is signed (the frame of values that passed no DELTA stage).
    signed: bool,
    /// Bit `s`: stage slot `s` is RLE (else DELTA).
    tmpl: u32,
    /// Stage slots (0 to 3).
    slots: u32,
}

/// The blocks of a chunk of `n` bytes (a multiple of `N`), by the whole thread block: the
/// chunk's length when it is below `raw_size`, else `None` (nothing is written after the last
/// barrier then). Every thread returns the same.
#[inline(always)]
unsafe fn blocks<T: Thread, const N: usize>(
    t: &T,
    smem: *mut Shared,
    inp: *const u8,
    n: u64,
    out: *mut u8,
    raw_size: u64,
    opts: Opts,
) -> Option<u64> {
    // 32-bit offsets (the chunk is at most 16 MiB): fewer registers across the loop.
    let (n, raw_size) = (n as u32, raw_size as u32);
    let nblocks = n.div_ceil(BLOCK_BYTES as u32);
    let (warp, lane) = (t.warp() as usize, t.lane());
    // SAFETY: `warp < W` (BLOCK_THREADS threads); raw offsets avoid a bounds-check panic path.
    let area = (&raw mut (*smem).warps).cast::<WarpArea>().add(warp);
    let x = (&raw mut (*area).x).cast::<u8>();
    let sizes = |parity: usize| (&raw mut (*smem).sizes[parity]).cast::<u32>();
    let aligned = (out as usize) % 4 == 0;
    let mut pos = 8u32;
    let mut round = 0u32;
    while round * W as u32 * (BLOCK_BYTES as u32) < n {
        let b = round * W as u32 + warp as u32;
        let parity = (round & 1) as usize;
        let mut size = 0;
        if b < nblocks {
            // The previous round's last reads of `x` come first.
            t.sync_warp();
            let start = b * BLOCK_BYTES as u32;
            let len = (n - start).min(BLOCK_BYTES as u32) as usize;
            load_block(inp.add(start as usize), x, len, lane as usize);
            t.sync_warp();
            let m = (len / N) as u32;
            let stats = analyze::<T, N>(t, x, m, opts, (&raw mut (*area).bx).cast::<u32>());
            if lane == 0 {
                (*area).stats = stats;
            }
            t.sync_warp();
            let plan = choose::<T, N>(t, &(*area).stats, m, opts);
            size = plan.size;
            if lane == 0 {
                (*area).plan = plan;
            }
        }
        if lane == 0 {
            *sizes(parity).add(warp) = size;
        }
        t.sync_threads();
        let (mut before, mut total) = (0u32, 0u32);
        for k in 0..W {
            let s = *sizes(parity).add(k);
            if k < warp {
                before += s;
            }
            total += s;
        }
        if pos + total >= raw_size {
            return None;
        }
        if b < nblocks {
            let (st, plan) = (&(*area).stats, &(*area).plan);
            let dst = out.add((pos + before) as usize);
            write_block::<T, N>(t, x, plan.m, st, plan, opts, dst, aligned, area);
        }
        pos += total;
        round += 1;
    }
    // An empty chunk has no block: its 8-byte header is the raw fallback.
    if pos >= raw_size {
        None
    } else {
        Some(pos as u64)
    }
}

/// Copies a block's `len` bytes from `src` into the warp's shared buffer `x`, by `lane`. A whole
/// 16-byte aligned block is read with all of a lane's 8 loads in flight at once (a loop of
/// load-store pairs would wait out the global latency 8 times).
#[inline(always)]
unsafe fn load_block(src: *const u8, x: *mut u8, len: usize, lane: usize) {
    const PER_LANE: usize = BLOCK_BYTES / 16 / 32;
    if len == BLOCK_BYTES && (src as usize) % 16 == 0 {
        let (s, d) = (src as *const u128, x as *mut u128);
        for half in [0, PER_LANE / 2] {
            let mut v = [0u128; PER_LANE / 2];
            for (j, v) in v.iter_mut().enumerate() {
                *v = *s.add(lane + 32 * (half + j));
            }
            for (j, v) in v.iter().enumerate() {
                *d.add(lane + 32 * (half + j)) = *v;
            }
        }
    } else {
        copy(src, x, len, lane, 32);
    }
}

/// Stores `v` little-endian at `p` (4-byte aligned when `aligned`).
#[inline(always)]
unsafe fn st32(p: *mut u8, v: u32, aligned: bool) {
    if aligned {
        *(p as *mut u32) = v;
    } else {
        for (k, b) in v.to_le_bytes().into_iter().enumerate() {
            *p.add(k) = b;
        }
    }
}

/// Lane `src`'s `v` (an `N`-byte value), by the whole warp.
#[inline(always)]
fn shfl<T: Thread, const N: usize>(t: &T, v: u64, src: u32) -> u64 {
    let lo = t.shfl_idx(v as u32, src) as u64;
    if N == 8 {
        lo | (t.shfl_idx((v >> 32) as u32, src) as u64) << 32
    } else {
        lo
    }
}

/// Sign bit of the order-preserving keys of signed values.
const BIAS: u64 = 1 << 63;

/// The key under which `v` (`N` bytes) compares as the frame sees it: itself when unsigned;
/// sign-extended with the sign bit flipped when signed.
#[inline(always)]
fn key<const N: usize>(v: u64, signed: bool) -> u64 {
    if !signed {
        return v;
    }
    let s = if N >= 8 { v } else { (((v << (64 - 8 * N)) as i64) >> (64 - 8 * N)) as u64 };
    s ^ BIAS
}

/// Running minimum and maximum of keys.
#[repr(C)]
#[derive(Clone, Copy)]
struct MinMax {
    lo: u64,
    hi: u64,
}

impl Default for MinMax {
    fn default() -> Self {
        MinMax { lo: u64::MAX, hi: 0 }
    }
}

impl MinMax {
    #[inline(always)]
    fn add(&mut self, on: bool, k: u64) {
        if on {
            self.lo = self.lo.min(k);
            self.hi = self.hi.max(k);
        }
    }

    /// The frame (reference, bits) of `count` values with these keys (`(0, 0)` when empty), as
    /// `bitpack::frame` computes it.
    #[inline(always)]
    fn frame<const N: usize>(self, count: u32, signed: bool) -> (u64, u32) {
        if count == 0 {
            return (0, 0);
        }
        let reference = if signed { (self.lo ^ BIAS) & value_mask::<N>() } else { self.lo };
        (reference, 64 - (self.hi - self.lo).leading_zeros())
    }
}

/// The keys the sizing pass compares: 32-bit ones for values of up to 4 bytes (half the
/// registers and one instruction per comparison), the 64-bit [`key`]s for 8-byte values.
trait Key: Copy + Ord {
    const MIN: Self;
    const MAX: Self;
    /// The key of the `N`-byte value `v`, ordered as the frame sees it.
    fn of<const N: usize>(v: u64, signed: bool) -> Self;
    /// The same value's 64-bit [`key`].
    fn wide(self, signed: bool) -> u64;
    /// The warp's maximum.
    fn warp_max<T: Thread>(self, t: &T) -> Self;
    /// The key with every bit flipped (reverses the order).
    fn flip(self) -> Self;
}

impl Key for u32 {
    const MIN: Self = 0;
    const MAX: Self = u32::MAX;
    #[inline(always)]
    fn of<const N: usize>(v: u64, signed: bool) -> u32 {
        let shift = 32 - 8 * N.min(4) as u32;
        if signed {
            ((((v as u32) << shift) as i32 >> shift) as u32) ^ 1 << 31
        } else {
            v as u32
        }
    }
    #[inline(always)]
    fn wide(self, signed: bool) -> u64 {
        if signed {
            ((self ^ 1 << 31) as i32 as i64 as u64) ^ BIAS
        } else {
            self as u64
        }
    }
    #[inline(always)]
    fn warp_max<T: Thread>(self, t: &T) -> u32 {
        t.reduce_max(self)
    }
    #[inline(always)]
    fn flip(self) -> u32 {
        !self
    }
}

impl Key for u64 {
    const MIN: Self = 0;
    const MAX: Self = u64::MAX;
    #[inline(always)]
    fn of<const N: usize>(v: u64, signed: bool) -> u64 {
        key::<N>(v, signed)
    }
    #[inline(always)]
    fn wide(self, _signed: bool) -> u64 {
        self
    }
    /// `redux.sync` on the high halves, then on the low halves of the lanes that hold the
    /// greatest high half.
    #[inline(always)]
    fn warp_max<T: Thread>(self, t: &T) -> u64 {
        let hi = t.reduce_max((self >> 32) as u32);
        (hi as u64) << 32 | t.reduce_max(if (self >> 32) as u32 == hi { self as u32 } else { 0 }) as u64
    }
    #[inline(always)]
    fn flip(self) -> u64 {
        !self
    }
}

/// One lane's running minimum and maximum of keys `K`.
#[derive(Clone, Copy)]
struct Acc<K: Key> {
    lo: K,
    hi: K,
}

impl<K: Key> Acc<K> {
    #[inline(always)]
    fn new() -> Self {
        Acc { lo: K::MAX, hi: K::MIN }
    }

    #[inline(always)]
    fn add(&mut self, on: bool, k: K) {
        if on {
            self.lo = self.lo.min(k);
            self.hi = self.hi.max(k);
        }
    }

    /// The warp's minimum and maximum, as 64-bit keys (the empty [`MinMax`] when no lane saw
    /// a value).
    #[inline(always)]
    fn reduce<T: Thread>(self, t: &T, signed: bool) -> MinMax {
        let (lo, hi) = (self.lo.flip().warp_max(t).flip(), self.hi.warp_max(t));
        if lo > hi {
            MinMax::default()
        } else {
            MinMax { lo: lo.wide(signed), hi: hi.wide(signed) }
        }
    }
}

/// Runs of one sequence, as the walk has seen them so far.
#[derive(Clone, Copy, Default)]
struct Runs {
    /// Runs started.
    count: u32,
    /// Position of the last run start.
    last: u32,
}

impl Runs {
    /// One step's run starts (`starts`: ballot; `pos`: this lane's position; `pos_of(h)`: lane
    /// `h`'s): whether this lane's run start has a run before it, and that run's length.
    #[inline(always)]
    fn step<T: Thread>(&mut self, t: &T, starts: u32, pos: u32, pos_of: impl Fn(u32) -> u32) -> (bool, u32) {
        let below = starts & t.lanemask_lt();
        let prev = if below != 0 { pos_of(31 - below.leading_zeros()) } else { self.last };
        let has_prev = below != 0 || self.count != 0;
        if starts != 0 {
            self.last = pos_of(31 - starts.leading_zeros());
        }
        self.count += starts.count_ones();
        (has_prev, pos.wrapping_sub(prev))
    }
}

/// Sequences a walk tracks beyond `x` and `d` (bits of its `S` parameter, a constant so that
/// each walk keeps only its own state in registers): runs of `d`.
const RD: u8 = 1;
/// The nonzero differences and their runs.
const E: u8 = 2;
/// Second and third differences.
const DD: u8 = 4;
/// Runs of `x` (every sizing pass; of the writer's walks, those of RLE counts of `x` and of
/// its run values).
const RX: u8 = 8;

/// One lane's view of one element `i` of the block (and what starts there).
#[derive(Clone, Copy, Default)]
struct Step {
    /// `i < m`, and `x[i]`.
    valid: bool,
    x: u64,
    /// `i + 1 < m`, and `d[i] = x[i+1] − x[i]`.
    vd: bool,
    d: u64,
    /// A run of `x` starts at `i` (`mx`: the warp's ballot of `bx`); it follows a run
    /// (`rx_prev`) of `rx_len` elements.
    bx: bool,
    mx: u32,
    rx_prev: bool,
    rx_len: u32,
    /// A run of `d` starts at `i` (`md`: the warp's ballot of `bd`); it follows a run of
    /// `rd_len`.
    bd: bool,
    md: u32,
    rd_prev: bool,
    rd_len: u32,
    /// `d[i] ≠ 0` (an element of `e`, the nonzero differences).
    nz: bool,
    /// A run of `e` starts at `i` (`me`: the warp's ballot of `be`); it follows a run of
    /// `re_len` (counted in `e`'s elements).
    be: bool,
    me: u32,
    re_prev: bool,
    re_len: u32,
    /// Second difference `d[i+1] − d[i]` (`i + 2 < m`), third difference (`i + 3 < m`).
    vdd: bool,
    dd: u64,
    vddd: bool,
    ddd: u64,
}

/// A walk over a block's `m` elements of `N` bytes in shared memory, 32 per step, tracking the
/// sequences `S` says.
struct Walk<const N: usize, const S: u8> {
    x: *const u8,
    m: u32,
    rx: Runs,
    rd: Runs,
    re: Runs,
    /// Nonzero differences seen, and the last of them.
    ecount: u32,
    last_nz: u64,
}

impl<const N: usize, const S: u8> Walk<N, S> {
    fn new(x: *const u8, m: u32) -> Self {
        Walk { x, m, rx: Runs::default(), rd: Runs::default(), re: Runs::default(), ecount: 0, last_nz: 0 }
    }

    /// Elements `base + lane`.
    #[inline(always)]
    unsafe fn step<T: Thread>(&mut self, t: &T, base: u32) -> Step {
        let vm = value_mask::<N>();
        let (lane, m) = (t.lane(), self.m);
        let i = base + lane;
        let mut s = Step { valid: i < m, vd: i + 1 < m, ..Step::default() };
        s.x = if s.valid { get::<N>(self.x, i) } else { 0 };
        let xp = if s.valid && i > 0 { get::<N>(self.x, i - 1) } else { 0 };
        let xn = if s.vd { get::<N>(self.x, i + 1) } else { 0 };
        s.d = xn.wrapping_sub(s.x) & vm;
        let at = |h: u32| base + h;
        if S & RX != 0 {
            s.bx = s.valid && (i == 0 || s.x != xp);
            s.mx = t.ballot(s.bx);
            (s.rx_prev, s.rx_len) = self.rx.step(t, s.mx, i, at);
        }
        if S & RD != 0 {
            let dp = s.x.wrapping_sub(xp) & vm;
            s.bd = s.vd && (i == 0 || s.d != dp);
            s.md = t.ballot(s.bd);
            (s.rd_prev, s.rd_len) = self.rd.step(t, s.md, i, at);
        }
        if S & E != 0 {
            s.nz = s.vd && s.d != 0;
            let nzm = t.ballot(s.nz);
            // The last nonzero difference before `i`: in a lower lane, else from earlier steps.
            let below = nzm & t.lanemask_lt();
            // Every lane shuffles (lane 0's `d` where no lower lane has one).
            let lower = shfl::<T, N>(t, s.d, 31 - (below | 1).leading_zeros());
            let (has, prev) = if below != 0 { (true, lower) } else { (self.ecount != 0, self.last_nz) };
            s.be = s.nz && (!has || prev != s.d);
            let ec = self.ecount;
            let epos = |h: u32| ec + (nzm & ((1u32 << h) - 1)).count_ones();
            s.me = t.ballot(s.be);
            (s.re_prev, s.re_len) = self.re.step(t, s.me, epos(lane), epos);
            if nzm != 0 {
                self.last_nz = shfl::<T, N>(t, s.d, 31 - nzm.leading_zeros());
            }
            self.ecount += nzm.count_ones();
        }
        if S & DD != 0 {
            s.vdd = i + 2 < m;
            s.vddd = i + 3 < m;
            let x2 = if s.vdd { get::<N>(self.x, i + 2) } else { 0 };
            let x3 = if s.vddd { get::<N>(self.x, i + 3) } else { 0 };
            let d1 = x2.wrapping_sub(xn) & vm;
            let d2 = x3.wrapping_sub(x2) & vm;
            s.dd = d1.wrapping_sub(s.d) & vm;
            s.ddd = d2.wrapping_sub(d1).wrapping_sub(s.dd) & vm;
        }
        s
    }

    /// Length of the last run of `x`, `d` and `e` (after the last step; 0 when none).
    fn last_lens(&self) -> [u32; 3] {
        let last = |r: &Runs, total: u32| if r.count != 0 { total - r.last } else { 0 };
        [last(&self.rx, self.m), last(&self.rd, self.m.saturating_sub(1)), last(&self.re, self.ecount)]
    }
}

/// Run count and minimum and maximum run length of one sequence.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct RunStats {
    count: u32,
    lo: u32,
    hi: u32,
}

impl RunStats {
    /// The frame of the run counts (unsigned 16-bit values).
    fn frame(&self) -> (u64, u32) {
        if self.count == 0 {
            (0, 0)
        } else {
            (self.lo as u64, 32 - (self.hi - self.lo).leading_zeros())
        }
    }
}

/// A block's statistics: everything the candidates' sizes depend on.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Stats {
    /// `x` (keys by the type's signedness), `d`, the nonzero `d`, second and third differences
    /// (signed keys).
    sx: MinMax,
    sd: MinMax,
    se: MinMax,
    sdd: MinMax,
    sddd: MinMax,
    /// Runs of `x`, of `d`, of the nonzero `d`.
    rx: RunStats,
    rd: RunStats,
    re: RunStats,
    /// Number of nonzero differences.
    ecount: u32,
}

/// The sizing pass over the block's `m` elements, by one warp (the result is warp-uniform),
/// tracking the sequences the options' candidates use; leaves the ballots of the run starts of
/// `x` in `bx` (word `k` for elements `32k..32k + 32`).
#[inline(always)]
unsafe fn analyze<T: Thread, const N: usize>(t: &T, x: *const u8, m: u32, opts: Opts, bx: *mut u32) -> Stats {
    if N <= 4 {
        analyze_keys::<T, N, u32>(t, x, m, opts, bx)
    } else {
        analyze_keys::<T, N, u64>(t, x, m, opts, bx)
    }
}

/// [`analyze`] with keys `K`.
#[inline(always)]
unsafe fn analyze_keys<T: Thread, const N: usize, K: Key>(
    t: &T,
    x: *const u8,
    m: u32,
    opts: Opts,
    bx: *mut u32,
) -> Stats {
    match (opts.tmpl, opts.slots) {
        (0b101, 3..) => analyze_with::<T, N, { RX | RD | E }, K>(t, x, m, opts.signed, bx),
        (0b101, 2) => analyze_with::<T, N, { RX | E }, K>(t, x, m, opts.signed, bx),
        (0, 2..) => analyze_with::<T, N, { RX | DD }, K>(t, x, m, opts.signed, bx),
        _ => analyze_with::<T, N, RX, K>(t, x, m, opts.signed, bx),
    }
}

/// [`analyze`] with the sequences `S` (always [`RX`]: `bx` is written).
#[inline(always)]
unsafe fn analyze_with<T: Thread, const N: usize, const S: u8, K: Key>(
    t: &T,
    x: *const u8,
    m: u32,
    signed: bool,
    bx: *mut u32,
) -> Stats {
    let mut w = Walk::<N, S>::new(x, m);
    let (mut sx, mut sd, mut se, mut sdd, mut sddd) =
        (Acc::<K>::new(), Acc::<K>::new(), Acc::<K>::new(), Acc::<K>::new(), Acc::<K>::new());
    let mut lens = [(u32::MAX, 0u32); 3];
    let mut fold = |k: usize, on: bool, l: u32| {
        if on {
            lens[k] = (lens[k].0.min(l), lens[k].1.max(l));
        }
    };
    let mut base = 0;
    while base < m {
        let s = w.step(t, base);
        if t.lane() == 0 {
            *bx.add(base as usize / 32) = s.mx;
        }
        sx.add(s.valid, K::of::<N>(s.x, signed));
        if S & E != 0 {
            se.add(s.nz, K::of::<N>(s.d, true));
        } else {
            sd.add(s.vd, K::of::<N>(s.d, true));
        }
        sdd.add(s.vdd, K::of::<N>(s.dd, true));
        sddd.add(s.vddd, K::of::<N>(s.ddd, true));
        fold(0, s.bx && s.rx_prev, s.rx_len);
        fold(1, s.bd && s.rd_prev, s.rd_len);
        fold(2, s.be && s.re_prev, s.re_len);
        base += 32;
    }
    let last = w.last_lens();
    let counts = [w.rx.count, w.rd.count, w.re.count];
    for k in 0..3 {
        fold(k, counts[k] != 0, last[k]);
    }
    let runs = |k: usize| RunStats {
        count: counts[k],
        lo: u32::MAX - t.reduce_max(u32::MAX - lens[k].0),
        hi: t.reduce_max(lens[k].1),
    };
    let rx = runs(0);
    let (rd, re) = if S & RD != 0 {
        (runs(1), runs(2))
    } else if S & E != 0 {
        (RunStats::default(), runs(2))
    } else {
        Default::default()
    };
    let (sdd, sddd) = if S & DD != 0 { (sdd.reduce(t, true), sddd.reduce(t, true)) } else { Default::default() };
    let (sd, se) = if S & E != 0 {
        // `d` is `e` plus its zeros: one register set fewer in the walk.
        let se = se.reduce(t, true);
        let mut sd = se;
        sd.add(w.ecount + 1 < m, key::<N>(0, true));
        (sd, se)
    } else {
        (sd.reduce(t, true), MinMax::default())
    };
    Stats { sx: sx.reduce(t, signed), sd, se, sdd, sddd, rx, rd, re, ecount: w.ecount }
}

/// The arrays a pipeline passes through, each a selection of the block's sequences.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arr {
    /// The block itself.
    X,
    /// Run values of `x`.
    Rx,
    /// Differences of `x`.
    D,
    /// Differences of the run values of `x` = the nonzero differences of `x`.
    E,
    /// Run values of `d`.
    Rd,
    /// Run values of `e`.
    Re,
    /// Second differences.
    Dd,
    /// Third differences.
    Ddd,
}

/// A bit-packed stream the writer produces by a walk.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The final values: array `Arr`.
    Final(Arr),
    /// Run lengths of `x`, `d` or `e` (0, 1, 2).
    Counts(u8),
}

/// What a stage stores.
#[derive(Clone, Copy)]
enum Field {
    /// RLE: the counts stream (`count` values, frame `(reference, bits)`; `src` None when all
    /// counts are 1).
    Counts { count: u32, reference: u64, bits: u32, src: Option<Source> },
    /// DELTA: the first element of the array (`x[0]`, `d[0]` or the first second difference).
    First(u8),
}

/// The stage `rle` applied to array `a`: the next array and the stage's field; `None` where the
/// stage does not apply (DELTA on an empty array) or no option set can reach it.
fn stage(a: Arr, rle: bool, st: &Stats, m: u32) -> Option<(Arr, Field)> {
    let counts = |r: &RunStats, src: u8| {
        let (reference, bits) = r.frame();
        Field::Counts { count: r.count, reference, bits, src: Some(Source::Counts(src)) }
    };
    // RLE of run values: every count is 1.
    let ones = |count: u32| Field::Counts { count, reference: (count != 0) as u64, bits: 0, src: None };
    Some(match (a, rle) {
        (Arr::X, true) => (Arr::Rx, counts(&st.rx, 0)),
        (Arr::X, false) => (Arr::D, Field::First(0)),
        (Arr::Rx, true) => (Arr::Rx, ones(st.rx.count)),
        (Arr::Rx, false) => (Arr::E, Field::First(0)),
        (Arr::D, true) => (Arr::Rd, counts(&st.rd, 1)),
        (Arr::D, false) if m >= 2 => (Arr::Dd, Field::First(1)),
        (Arr::Dd, false) if m >= 3 => (Arr::Ddd, Field::First(2)),
        (Arr::E, true) => (Arr::Re, counts(&st.re, 2)),
        (Arr::Rd, true) => (Arr::Rd, ones(st.rd.count)),
        (Arr::Re, true) => (Arr::Re, ones(st.re.count)),
        _ => return None,
    })
}

/// Element count and frame of the final array `a`.
fn final_frame<const N: usize>(a: Arr, st: &Stats, m: u32, signed: bool) -> (u32, u64, u32) {
    let (count, mm, signed) = match a {
        Arr::X => (m, st.sx, signed),
        Arr::Rx => (st.rx.count, st.sx, signed),
        Arr::D => (m - 1, st.sd, true),
        Arr::E => (st.ecount, st.se, true),
        Arr::Rd => (st.rd.count, st.sd, true),
        Arr::Re => (st.re.count, st.se, true),
        Arr::Dd => (m - 2, st.sdd, true),
        Arr::Ddd => (m - 3, st.sddd, true),
    };
    let (reference, bits) = mm.frame::<N>(count, signed);
    (count, reference, bits)
}

/// Header bytes of a bit-packed stream of `N`-byte values: 8, or 16 for 8-byte values.
const fn header_bytes<const N: usize>() -> u32 {
    if N == 8 {
        16
    } else {
        8
    }
}

/// Bytes of a bit-packed stream.
fn stream_bytes(header: u32, count: u32, bits: u32) -> u32 {
    header + 4 * (count * bits).div_ceil(32)
}

/// The chosen pipeline of a block.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Plan {
    /// Elements of the block.
    m: u32,
    mask: u32,
    kinds: u32,
    /// Encoded bytes (0: no block).
    size: u32,
}

/// Size of the block encoded with pipeline (`mask`, `kinds`), `None` when it does not apply.
fn size_of<const N: usize>(st: &Stats, m: u32, mask: u32, kinds: u32, signed: bool) -> Option<u32> {
    let a = N.max(4) as u32;
    let mut size = 8;
    let mut arr = Arr::X;
    let mut rest = mask;
    while rest != 0 {
        let s = rest.trailing_zeros();
        rest &= rest - 1;
        let (next, field) = stage(arr, (kinds >> s) & 1 == 1, st, m)?;
        size += match field {
            Field::Counts { count, bits, .. } => 4 + stream_bytes(8, count, bits),
            Field::First(_) => a,
        };
        arr = next;
    }
    let (count, _, bits) = final_frame::<N>(arr, st, m, signed);
    Some((size.next_multiple_of(a) + stream_bytes(header_bytes::<N>(), count, bits)).next_multiple_of(a))
}

/// The reference's choice (`select::best` over `select::candidates`): every subset of the slots
/// in ascending mask order, each stage sequence once; the smallest block, ties to fewer stages,
/// then to the earlier candidate. By the whole warp: lane `mask` sizes candidate `mask` (at most
/// 8), and one reduction picks the least (size, stages, mask). A repeated stage sequence has the
/// size and stage count of its first mask and a higher mask, so it never wins: no need to skip it.
#[inline(never)]
fn choose<T: Thread, const N: usize>(t: &T, st: &Stats, m: u32, opts: Opts) -> Plan {
    let mask = t.lane();
    let mut key = u32::MAX;
    if mask < 1 << opts.slots {
        if let Some(size) = size_of::<N>(st, m, mask, opts.tmpl & mask, opts.signed) {
            // Sizes stay far below 2^24 (a block's streams hold at most 4096 fields each).
            key = size << 8 | mask.count_ones() << 3 | mask;
        }
    }
    // The empty pipeline always applies, so some lane has a key.
    let best = !t.reduce_max(!key);
    let mask = best & 7;
    Plan { m, mask, kinds: opts.tmpl & mask, size: best >> 8 }
}

/// Writes the block (plan `plan` of the `m` elements at `x`) at `dst`, by one warp.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn write_block<T: Thread, const N: usize>(
    t: &T,
    x: *const u8,
    m: u32,
    st: &Stats,
    plan: &Plan,
    opts: Opts,
    dst: *mut u8,
    aligned: bool,
    area: *mut WarpArea,
) {
    let ring = (&raw mut (*area).ring).cast::<u64>();
    let a = N.max(4) as u32;
    let vm = value_mask::<N>();
    let lead = t.lane() == 0;
    let mut off = 8u32;
    let mut arr = Arr::X;
    let mut rest = plan.mask;
    while rest != 0 {
        let s = rest.trailing_zeros();
        rest &= rest - 1;
        // `choose` sized this pipeline, so every stage applies.
        let Some((next, field)) = stage(arr, (plan.kinds >> s) & 1 == 1, st, m) else {
            return;
        };
        match field {
            Field::Counts { count, reference, bits, src } => {
                let len = stream_bytes(8, count, bits);
                if lead {
                    st32(dst.add(off as usize), len, aligned);
                    st32(dst.add(off as usize + 4), reference as u32, aligned);
                    st32(dst.add(off as usize + 8), bits << 16 | count, aligned);
                }
                // Runs whose values are the final array (no DELTA stage follows, so later stages
                // are RLEs of the run values, all counts 1): both streams are written in one walk
                // below; the counts' frame waits in shared memory, not in registers across this
                // loop.
                if let Some(Source::Counts(k)) = src {
                    if rest & !plan.kinds != 0 {
                        let cdst = dst.add(off as usize + 12);
                        emit_counts::<T, N>(t, x, m, k, reference, bits, cdst, aligned, area)
                    } else if lead {
                        let r = &raw mut (*area).runs;
                        ((*r).cref, (*r).cbits, (*r).coff) = (reference as u32, bits, off + 12);
                    }
                }
                off += 4 + len;
            }
            Field::First(k) => {
                if lead {
                    let v = |i: u32| if i < m { get::<N>(x, i) } else { 0 };
                    let (x0, x1, x2) = (v(0), v(1), v(2));
                    let first = match k {
                        0 => x0,
                        1 => x1.wrapping_sub(x0),
                        _ => x2.wrapping_sub(x1).wrapping_sub(x1.wrapping_sub(x0)),
                    } & vm;
                    st32(dst.add(off as usize), first as u32, aligned);
                    if N == 8 {
                        st32(dst.add(off as usize + 4), (first >> 32) as u32, aligned);
                    }
                }
                off += a;
            }
        }
        arr = next;
    }
    if off % a != 0 {
        if lead {
            st32(dst.add(off as usize), 0, aligned);
        }
        off += 4;
    }
    let (count, reference, bits) = final_frame::<N>(arr, st, m, opts.signed);
    if lead {
        let p = dst.add(off as usize);
        st32(p, reference as u32, aligned);
        if N == 8 {
            st32(p.add(4), (reference >> 32) as u32, aligned);
            st32(p.add(8), bits << 16 | count, aligned);
            st32(p.add(12), 0, aligned);
        } else {
            st32(p.add(4), bits << 16 | count, aligned);
        }
        let w0 = plan.size | plan.mask << 16 | plan.kinds << 24;
        st32(dst, w0, aligned);
        st32(dst.add(4), stream_bytes(header_bytes::<N>(), count, bits), aligned);
    }
    let hb = header_bytes::<N>();
    let end = off + stream_bytes(hb, count, bits);
    if end % a != 0 && lead {
        st32(dst.add(end as usize), 0, aligned);
    }
    let voff = off + hb;
    let runs_of = match arr {
        Arr::Rx => Some(0),
        Arr::Rd => Some(1),
        Arr::Re => Some(2),
        _ => None,
    };
    if let Some(k) = runs_of {
        // The run values and counts of `x`, `d` or `e` (see the stage loop).
        if lead {
            let r = &raw mut (*area).runs;
            ((*r).vref, (*r).vbits, (*r).voff) = (reference, bits, voff);
        }
        t.sync_warp();
        let f = (*area).runs;
        if f.vbits != 0 && f.cbits != 0 {
            match k {
                0 => emit_runs::<T, N, RX>(t, x, m, dst, aligned, area),
                1 => emit_runs::<T, N, RD>(t, x, m, dst, aligned, area),
                _ => emit_runs::<T, N, E>(t, x, m, dst, aligned, area),
            }
            return;
        }
        let cdst = dst.add(f.coff as usize);
        emit_counts::<T, N>(t, x, m, k, f.cref as u64, f.cbits, cdst, aligned, area);
    }
    emit::<T, N>(t, x, m, Source::Final(arr), reference, bits, dst.add(voff as usize), aligned, ring);
}

/// Bit-packs the run lengths of `x`, `d` or `e` (`k` = 0, 1, 2; frame `reference`, `bits`) into
/// the words at `dst`, by one warp. Those of `x` need no walk over the values: the sizing pass
/// left the ballots of its run starts in the warp's `bx`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn emit_counts<T: Thread, const N: usize>(
    t: &T,
    x: *const u8,
    m: u32,
    k: u8,
    reference: u64,
    bits: u32,
    dst: *mut u8,
    aligned: bool,
    area: *mut WarpArea,
) {
    let ring = (&raw mut (*area).ring).cast::<u64>();
    if k != 0 {
        emit::<T, N>(t, x, m, Source::Counts(k), reference, bits, dst, aligned, ring);
        return;
    }
    if bits == 0 {
        return;
    }
    let bx = (&raw const (*area).bx).cast::<u32>();
    let mut p = Packer { ring, dst, aligned, bits, pushed: 0, flushed: 0 };
    let mut runs = Runs::default();
    let lane = t.lane();
    let mut base = 0;
    while base < m {
        let starts = *bx.add(base as usize / 32);
        let (prev, len) = runs.step(t, starts, base + lane, |h| base + h);
        p.push(t, (starts >> lane) & 1 != 0 && prev, (len as u64).wrapping_sub(reference) & 0xffff);
        base += 32;
    }
    // The last run ends with the block.
    let len = m.wrapping_sub(runs.last) as u64;
    p.push(t, lane == 0 && runs.count != 0, len.wrapping_sub(reference) & 0xffff);
    p.finish(t);
}

/// Bit-packs the stream `src` of the block (frame `reference`, `bits`) into the words at `dst`,
/// by one warp: a walk that selects the stream's elements, compacted through `ring`. Never the
/// run lengths of `x` ([`emit_counts`] packs those from the sizing pass's ballots).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn emit<T: Thread, const N: usize>(
    t: &T,
    x: *const u8,
    m: u32,
    src: Source,
    reference: u64,
    bits: u32,
    dst: *mut u8,
    aligned: bool,
    ring: *mut u64,
) {
    if bits == 0 {
        return;
    }
    match src {
        Source::Final(a @ (Arr::X | Arr::D | Arr::Dd | Arr::Ddd)) => {
            emit_dense::<T, N>(t, x, m, a, reference, bits, dst, aligned)
        }
        Source::Final(Arr::Rd) | Source::Counts(1) => {
            emit_with::<T, N, RD>(t, x, m, src, reference, bits, dst, aligned, ring)
        }
        Source::Final(Arr::E | Arr::Re) | Source::Counts(_) => {
            emit_with::<T, N, E>(t, x, m, src, reference, bits, dst, aligned, ring)
        }
        _ => emit_with::<T, N, RX>(t, x, m, src, reference, bits, dst, aligned, ring),
    }
}

/// [`emit`] by a walk over the sequences `S`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn emit_with<T: Thread, const N: usize, const S: u8>(
    t: &T,
    x: *const u8,
    m: u32,
    src: Source,
    reference: u64,
    bits: u32,
    dst: *mut u8,
    aligned: bool,
    ring: *mut u64,
) {
    let fmask = if matches!(src, Source::Counts(_)) { 0xffff } else { value_mask::<N>() };
    let mut p = Packer { ring, dst, aligned, bits, pushed: 0, flushed: 0 };
    let mut w = Walk::<N, S>::new(x, m);
    let mut base = 0;
    while base < m {
        let s = w.step(t, base);
        let (on, v) = match src {
            Source::Final(Arr::E) => (s.nz, s.d),
            Source::Final(Arr::Rd) => (s.bd, s.d),
            Source::Final(Arr::Re) => (s.be, s.d),
            Source::Counts(1) => (s.bd && s.rd_prev, s.rd_len as u64),
            Source::Counts(_) => (s.be && s.re_prev, s.re_len as u64),
            // Run values of `x`: `emit_dense` writes every other final array.
            Source::Final(_) => (s.bx, s.x),
        };
        p.push(t, on, v.wrapping_sub(reference) & fmask);
        base += 32;
    }
    if let Source::Counts(k) = src {
        // The last run ends with the block.
        let [_, ld, le] = w.last_lens();
        let (runs, len) = if k == 1 { (w.rd.count, ld) } else { (w.re.count, le) };
        let len = len as u64;
        p.push(t, t.lane() == 0 && runs != 0, len.wrapping_sub(reference) & fmask);
    }
    p.finish(t);
}

/// A last RLE stage of the runs of `x`, `d` or `e` (`S` = [`RX`], [`RD`] or [`E`]): bit-packs
/// the run values (the final array) and the run lengths (the stage's counts) into `dst` in one
/// walk, frames and offsets as in the warp's `runs`. Run `r`'s length is known where run
/// `r + 1` starts, and both streams have one field per run, so a run start ranked `r` by the
/// ballot stores its value in `ring[r]` and the previous run's length in `lens[r − 1]`: one
/// ballot serves both streams.
/// Fields `[f, f + 32)` are flushed (both streams) once run `f + 32` has started, which
/// completes `lens[f + 31]`; the last run's length is known at the end of the block.
#[inline(always)]
unsafe fn emit_runs<T: Thread, const N: usize, const S: u8>(
    t: &T,
    x: *const u8,
    m: u32,
    dst: *mut u8,
    aligned: bool,
    area: *mut WarpArea,
) {
    let (ring, lens) = ((&raw mut (*area).ring).cast::<u64>(), (&raw mut (*area).lens).cast::<u16>());
    let mut w = Walk::<N, S>::new(x, m);
    let (mut pushed, mut flushed) = (0u32, 0u32);
    // Fields `[flushed, flushed + count)` of both streams; `pushed − flushed` stays at most 64.
    let flush = |flushed: u32, count: u32| {
        t.sync_warp();
        let f = (*area).runs;
        let (vm, vdst, cdst) = (value_mask::<N>(), dst.add(f.voff as usize), dst.add(f.coff as usize));
        pack(t, vdst, f.vbits, flushed, count, aligned, |j| (*ring.add(j as usize % RING)).wrapping_sub(f.vref) & vm);
        pack(t, cdst, f.cbits, flushed, count, aligned, |j| {
            (*lens.add(j as usize % RING)).wrapping_sub(f.cref as u16) as u64
        });
        // The rings' slots are rewritten by the next pushes.
        t.sync_warp();
    };
    let mut base = 0;
    while base < m {
        let s = w.step(t, base);
        // This lane's run start, the warp's, its value and the length of the run before it.
        let (start, starts, v, len) = match S {
            RX => (s.bx, s.mx, s.x, s.rx_len),
            RD => (s.bd, s.md, s.d, s.rd_len),
            _ => (s.be, s.me, s.d, s.re_len),
        };
        if start {
            let at = pushed + (starts & t.lanemask_lt()).count_ones();
            *ring.add(at as usize % RING) = v;
            if at != 0 {
                *lens.add((at - 1) as usize % RING) = len as u16;
            }
        }
        pushed += starts.count_ones();
        if pushed - flushed > 32 {
            flush(flushed, 32);
            flushed += 32;
        }
        base += 32;
    }
    if pushed > flushed {
        // The last run ends with the block.
        let [lx, ld, le] = w.last_lens();
        let last = match S {
            RX => lx,
            RD => ld,
            _ => le,
        };
        if t.lane() == 0 {
            *lens.add((pushed - 1) as usize % RING) = last as u16;
        }
        flush(flushed, pushed - flushed);
    }
}

/// Packs fields `[from, from + count)` (`count` ≤ 32, `from` a multiple of 32 unless it is the
/// stream's end) of `bits` each, `field(j)` for field `j`, into their words of the stream at
/// `dst`, by one warp: 32 fields of `bits` bits are exactly `bits` words, and lane `q` assembles
/// words `q` and `q + 32` from the fields that overlap them (at most `32 / bits + 2`).
#[inline(always)]
unsafe fn pack<T: Thread>(
    t: &T,
    dst: *mut u8,
    bits: u32,
    from: u32,
    count: u32,
    aligned: bool,
    field: impl Fn(u32) -> u64,
) {
    if bits == 0 {
        // No words (and no division by zero below).
        return;
    }
    let dst = dst.add(4 * (from / 32 * bits) as usize);
    let nwords = (count * bits).div_ceil(32);
    let mut q = t.lane();
    while q < nwords {
        let w = 32 * q;
        let mut word = 0u32;
        let mut j = w / bits;
        while j < count && j * bits < w + 32 {
            let f = field(from + j);
            let s = j * bits;
            word |= if s >= w { (f << (s - w)) as u32 } else { (f >> (w - s)) as u32 };
            j += 1;
        }
        st32(dst.add(4 * q as usize), word, aligned);
        q += 32;
    }
}

/// [`emit`] of a final array that keeps every position (`x` or its differences): field `j` is a
/// function of `x[j..j + 4]`, so lane `q` assembles output words `q`, `q + 32`, ... straight
/// from the fields that overlap them (at most `32 / bits + 2`), read from shared memory; no
/// walk, no compaction, no barrier.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn emit_dense<T: Thread, const N: usize>(
    t: &T,
    x: *const u8,
    m: u32,
    a: Arr,
    reference: u64,
    bits: u32,
    dst: *mut u8,
    aligned: bool,
) {
    let vm = value_mask::<N>();
    let order = match a {
        Arr::X => 0,
        Arr::D => 1,
        Arr::Dd => 2,
        _ => 3,
    };
    let count = m - order;
    // The `order`-th difference at `j` (`j + order < m`).
    let field = |j: u32| {
        let x0 = get::<N>(x, j);
        let v = if order == 0 {
            x0
        } else {
            let x1 = get::<N>(x, j + 1);
            let d0 = x1.wrapping_sub(x0);
            if order == 1 {
                d0
            } else {
                let x2 = get::<N>(x, j + 2);
                let d1 = x2.wrapping_sub(x1);
                if order == 2 {
                    d1.wrapping_sub(d0)
                } else {
                    let d2 = get::<N>(x, j + 3).wrapping_sub(x2);
                    d2.wrapping_sub(d1).wrapping_sub(d1.wrapping_sub(d0))
                }
            }
        };
        v.wrapping_sub(reference) & vm
    };
    // At most 4096 fields of 64 bits: bit offsets fit in 32 bits.
    let nwords = (count * bits).div_ceil(32);
    let mut q = t.lane();
    while q < nwords {
        let w = 32 * q;
        let mut word = 0u32;
        let mut j = w / bits;
        while j < count && j * bits < w + 32 {
            let f = field(j);
            let s = j * bits;
            word |= if s >= w { (f << (s - w)) as u32 } else { (f >> (w - s)) as u32 };
            j += 1;
        }
        st32(dst.add(4 * q as usize), word, aligned);
        q += 32;
    }
}

/// Bit-packs a stream of fields pushed 32 lanes at a time, in order.
struct Packer {
    ring: *mut u64,
    dst: *mut u8,
    aligned: bool,
    bits: u32,
    /// Fields pushed and fields written (a multiple of 32 until `finish`).
    pushed: u32,
    flushed: u32,
}

impl Packer {
    /// Appends the fields of the lanes where `on`, in lane order.
    #[inline(always)]
    unsafe fn push<T: Thread>(&mut self, t: &T, on: bool, field: u64) {
        let ballot = t.ballot(on);
        if on {
            let at = self.pushed + (ballot & t.lanemask_lt()).count_ones();
            *self.ring.add(at as usize % RING) = field;
        }
        self.pushed += ballot.count_ones();
        if self.pushed - self.flushed >= 32 {
            self.flush(t, 32);
        }
    }

    /// Writes the pending fields.
    #[inline(always)]
    unsafe fn finish<T: Thread>(&mut self, t: &T) {
        if self.pushed > self.flushed {
            self.flush(t, self.pushed - self.flushed);
        }
    }

    /// Packs the next `count` (≤ 32) fields into `ceil(count · bits / 32)` words.
    #[inline(always)]
    unsafe fn flush<T: Thread>(&mut self, t: &T, count: u32) {
        t.sync_warp();
        let ring = self.ring;
        pack(t, self.dst, self.bits, self.flushed, count, self.aligned, |j| *ring.add(j as usize % RING));
        self.flushed += count;
        // The ring's slots are rewritten by the next pushes.
        t.sync_warp();
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// Cascaded compression of `num_chunks` chunks; see [`super::compress`] and the module
        /// docs for the geometry.
        // 2 blocks (16 warps) per SM where ptxas fits them in 128 registers without spills
        // (module docs).
        #[cfg_attr(target_feature = "sm_90", link_section = "nvvm:maxntid=256;minctasm=2")]
        #[cfg_attr(not(target_feature = "sm_90"), link_section = "nvvm:maxntid=256;minctasm=1")]
        fn cascaded_compress(args: CompressArgs, data_type: u32, level: u32, flags: u32)
            [smem: static cascaded_compress: super::Shared]
        {
            super::compress(&Ptx, smem, args, data_type, level, flags)
        }
    }
}
