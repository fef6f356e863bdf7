//! The decoder's table: the frequency table checked and its cumulative frequencies, the slot
//! lookup table (`pb ≤ 11`), and one symbol's decode step by lookup or by binary search.

use super::header::{bytes_per_symbol, Hd};
use super::{opaque, Shared, LUT_BITS};
use crate::thread::thread_here;
use crate::warp::warp_scan_at;
use crate::Thread;
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Reads the frequency table (lane `j`: entries `8j .. 8j + 8`); `None` unless it sums to
/// `2^pb`, else whether the slot lookup table serves it: `pb ≤ 11` and every frequency below
/// `2^pb` (a table of one symbol decodes by the search; see [`fill_lut`]). Warp 0 also writes the cumulative frequencies to shared memory and resets `failed` (thread 0
/// read the previous chunk's value before it got here).
#[inline(always)]
pub(super) unsafe fn table<T: Thread>(t: &T, smem: *mut Shared, hd: Hd) -> Option<bool> {
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
pub(super) unsafe fn fill_lut(smem: *mut Shared, hd: Hd, tid: u32) {
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

/// The next state (before renormalisation) of state `x` whose slot's lookup entry is `v` (see
/// [`fill_lut`]): `⌊x·f / 2^pb⌋ = hi32(x · f·2^(32−pb))` plus the signed bias. Three SASS
/// instructions: IMAD.SHL for `f·2^(32−pb)` (the entry times `2^21`, which drops the fields
/// above `f`), IMAD.HI, and LEA.HI.SX32 adding the bias from the entry's top bits.
#[inline(always)]
pub(super) fn lut_step(v: u32, x: u32) -> u32 {
    // A multiplication LLVM does not see through (IMAD.SHL on the FMA pipe, not SHF).
    let fs = v.wrapping_mul(opaque(1 << 21));
    (((x as u64 * fs as u64) >> 32) as u32).wrapping_add((v as i32 >> 21) as u32)
}

/// The symbol of a lookup entry.
#[inline(always)]
pub(super) fn lut_symbol(v: u32) -> u32 {
    v >> 12 & 0xff
}

/// One decode step of state `x`: (symbol, next state before renormalisation, the state a seeded
/// sub-chunk's last step must leave: `f · 2^(16−pb)` of the symbol).
#[inline(always)]
pub(super) unsafe fn decode<const LUT: bool>(smem: *const Shared, h: Hd, pb: u32, x: u32) -> (u32, u32, u32) {
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
