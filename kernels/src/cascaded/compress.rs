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
//! Measurements and the builds before: `benches/notes/cascaded.md`.
// `x % a != 0` rather than `is_multiple_of`, as in the decompression kernel.
#![allow(clippy::manual_is_multiple_of)]
use super::{copy, get, value_mask};
use crate::batch::{self, CompressArgs};
use crate::{status, Thread};
use analyze::{analyze, Stats};
use emit::write_block;
use sizing::{size_of, Plan};

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

// The phases, declared in the order the kernel runs them (`emit` after `choose`).
mod analyze;
mod sizing;

// The one function the kernel calls rather than inlines: it stays in this module so that its
// PTX symbol keeps this module's path.
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

mod emit;

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
