//! Phase 1: the chunk's symbol histogram, one sub-histogram per warp in shared memory (and, for
//! FLOAT16 and FLOAT8, the raw bytes of the groups it loads).

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use super::mem::{load, load_tile, st8_last, L2};
use super::raw::{pack_f16_group, pack_f8_group};
use super::symbols::{f8_pair_symbols, symbol_offset, symbols};
use super::{Mode, HIST_LOADS, THREADS};

/// Adds the symbols `start .. start + len` (`start` a multiple of 16) to warp `warp`'s
/// histogram of the block's `hist`, the block's threads taking 16-byte groups in turn.
#[inline(always)]
pub(super) unsafe fn count(
    tid: usize,
    hist: *mut u32,
    warp: usize,
    src: *const u8,
    mode: Mode,
    start: usize,
    len: usize,
) {
    let null = core::ptr::null_mut();
    match mode {
        Mode::Bytes => count_bps::<1, false, false>(tid, hist, warp, src, start, len, null),
        Mode::Float16 => count_bps::<2, false, false>(tid, hist, warp, src, start, len, null),
        Mode::Float8 => count_bps::<2, false, true>(tid, hist, warp, src, start, len, null),
        Mode::Float32 => count_bps::<4, false, false>(tid, hist, warp, src, start, len, null),
    }
}

/// [`count`] for `BPS` bytes per symbol (FLOAT8 pairs if `F8`): whole 16-byte aligned groups
/// with one load each and the symbols at constant positions, the rest (unaligned input, the
/// last group) byte-wise.
/// With `RAW` (FLOAT16, or FLOAT8 if `F8`; `start` 0, `src` 16-byte and `raw` 8-byte aligned),
/// also the whole groups' raw bytes at `raw` (the rest is [`raw_f16`](super::raw::raw_f16)'s or [`raw_f8`](super::raw::raw_f8)'s).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn count_bps<const BPS: usize, const RAW: bool, const F8: bool>(
    tid: usize,
    hist: *mut u32,
    warp: usize,
    src: *const u8,
    start: usize,
    len: usize,
    raw: *mut u8,
) {
    let per = 16 / BPS;
    let base = src.add(start * BPS);
    let whole = if (base as usize) & 15 == 0 { len / per } else { 0 };
    // The warp's histogram as an offset ORed into each counter's (the histograms are 1 KiB
    // each, so the block's base stays one uniform register and an address is two
    // instructions).
    let warp_offset = (1024 * warp) as u32;
    let counter = |offset: u32| AtomicU32::from_ptr(hist.byte_add((offset | warp_offset) as usize));
    let add = |v: [u32; 4]| {
        for i in 0..per {
            let (w, shift) = match BPS {
                1 => (v[i / 4], 8 * (i % 4)),
                2 if F8 => (f8_pair_symbols(v[i / 2]), 16 * (i % 2)),
                2 => (v[i / 2], 16 * (i % 2) + 7),
                _ => (v[i], 23),
            };
            counter(symbol_offset(w, shift as u32)).fetch_add(1, Relaxed);
        }
    };
    // Batches of HIST_LOADS groups per thread, each batch loaded while the one before is
    // counted; two batches per iteration, so that a batch is loaded into the registers of the
    // one counted before it (no copies).
    let batch = HIST_LOADS * THREADS;
    let batches = whole / batch;
    let load_batch = |b: usize| {
        let p = base.add(16 * (b * batch + tid));
        let mut v = [[0u32; 4]; HIST_LOADS];
        for (u, vu) in v.iter_mut().enumerate() {
            *vu = load_tile::<1, 16>(p.add(16 * u * THREADS), L2::Normal);
        }
        v
    };
    let count_batch = |v: [[u32; 4]; HIST_LOADS], b: usize| {
        if RAW {
            let r = raw.add(8 * (b * batch + tid));
            for (u, &vu) in v.iter().enumerate() {
                if F8 {
                    st8_last(r.add(8 * u * THREADS), pack_f8_group(vu));
                } else {
                    st8_last(r.add(8 * u * THREADS), pack_f16_group(vu));
                }
            }
        }
        for vu in v {
            add(vu);
        }
    };
    let mut b = 0;
    let mut v = if batches > 0 { load_batch(0) } else { [[0u32; 4]; HIST_LOADS] };
    while b + 1 < batches {
        let next = load_batch(b + 1);
        count_batch(v, b);
        if b + 2 < batches {
            v = load_batch(b + 2);
        }
        count_batch(next, b + 1);
        b += 2;
    }
    if b < batches {
        count_batch(v, b);
    }
    let mut g = batches * batch + tid;
    while g < whole {
        let v = load_tile::<1, 16>(base.add(16 * g), L2::Normal);
        if RAW {
            if F8 {
                st8_last(raw.add(8 * g), pack_f8_group(v));
            } else {
                st8_last(raw.add(8 * g), pack_f16_group(v));
            }
        }
        add(v);
        g += THREADS;
    }
    let mut g = whole + tid;
    while g * per < len {
        let k = (len - g * per).min(per);
        let v = load(base.add(g * per * BPS), k * BPS);
        let mut s = symbols(v, BPS, k.min(8), F8);
        for j in 0..k {
            if j == 8 {
                s = (v >> 64) as u64; // bytes 8..16 of a byte-mode group
            }
            counter(4 * (s as u32 & 0xFF)).fetch_add(1, Relaxed);
            s >>= 8;
        }
        g += THREADS;
    }
}
