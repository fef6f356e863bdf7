//! Phase 2: the frequency table (`FSE_normalizeM2` by the whole block) and the encoder's
//! entries.

use super::entries::Entry;
use super::mem::store;
use super::{warp_sum, Shared, COMPRESS_WARPS, THREADS};
use crate::thread::{lane_here, thread_here};
use crate::warp::warp_scan;
use crate::Thread;

/// The chunk's frequency table (`cpu::ans::normalize`, `FSE_normalizeM2`), by the whole block:
/// thread `t` owns symbols `2t` and `2t + 1` and sums their counts over the warps'
/// histograms. Sums over the symbols are block reductions ([`publish`], a barrier each: the
/// present symbols and the total, the low-probability symbols, a second pass of them if
/// needed), and the cumulative frequencies one block scan: `acc` before a symbol is `mid +
/// rStep · B` (`B` the counts of the distributed symbols before it), so `f = F(B + c) − F(B)`
/// with `F(B) = acc >> vStepLog` telescopes, and `cum` is `F(B)` plus the number of
/// low-probability symbols before it (`F(0) = 0`). Stores the frequency table at `out`, each
/// symbol's frequency and `cum` in the first two histograms (for [`encoder_entries`]) and
/// `table`; `Err` (the same in every thread) where the reference has no table (unreachable
/// for `pb ≥ 10`).
#[inline(always)]
pub(super) unsafe fn table<T: Thread, const PIECES: usize>(
    t: &T,
    smem: *mut Shared<PIECES>,
    pb: u32,
    sampled: bool,
    out: *mut u8,
) -> Result<(), ()> {
    let tid = thread_here(t) as usize;
    let warp = tid / 32;
    let hist = (&raw mut (*smem).stage).cast::<u32>();
    let partial = (&raw mut (*smem).partial).cast::<u32>();
    let mut round = 0;
    let mut c = [0u32; 2];
    for (k, ck) in c.iter_mut().enumerate() {
        for w in 0..COMPRESS_WARPS {
            *ck += *hist.add(256 * w + 2 * tid + k);
        }
        if sampled {
            *ck = (*ck).max(1);
        }
    }
    // Round 1: which symbols are present (each warp's 64 as two ballots: even and odd symbols)
    // and the total count.
    let even = t.ballot(c[0] > 0);
    let odd = t.ballot(c[1] > 0);
    let words = publish(t, [warp_sum(t, c[0] + c[1]), even, odd, 0], partial, &mut round);
    let total0 = sum_of(words, 0, COMPRESS_WARPS);
    let mut distinct = 0;
    let (mut mn, mut mx) = (u32::MAX, 0);
    for w in 0..COMPRESS_WARPS {
        let (e, o) = (*words.add(4 * w + 1), *words.add(4 * w + 2));
        distinct += e.count_ones() + o.count_ones();
        if e | o != 0 {
            let (lo, hi) = (lowest(e, o), highest(e, o));
            mn = mn.min(64 * w as u32 + lo);
            mx = 64 * w as u32 + hi;
        }
    }
    let m = 1u32 << pb;
    // Per symbol: 0 absent, 1 low probability (−1), 2 one, 3 distributed.
    let mut class = [0u8; 2];
    let mut f = [0u32; 2];
    let mut cum = [0u32; 2];
    if distinct <= 1 {
        // Empty chunk or a single symbol: the one-entry table [M].
        let mn = if distinct == 0 { 0 } else { mn };
        for k in 0..2 {
            let s = (2 * tid + k) as u32;
            if s == mn {
                f[k] = m;
                class[k] = 2;
            }
            cum[k] = if s > mn { m } else { 0 };
        }
    } else {
        let total0 = total0 as u64;
        let low_threshold = total0 >> pb;
        let low_one = (3 * total0) >> (pb + 1);
        // Taken symbols and their counts in one word: a low symbol's count is at most
        // 3 · 2^24 / 2^11, so 256 of them stay below 2^23.
        let mut taken = 0u32;
        for k in 0..2 {
            let x = c[k] as u64;
            class[k] = class_of(x, low_threshold, low_one);
            if class[k] == 1 || class[k] == 2 {
                taken += 1 << 23 | c[k];
            }
        }
        let words = publish(t, [warp_sum(t, taken), 0, 0, 0], partial, &mut round);
        let both = sum_of(words, 0, COMPRESS_WARPS);
        let mut distributed = (both >> 23) as u64;
        let mut total = total0 - (both & ((1 << 23) - 1)) as u64;
        if distributed > m as u64 {
            return Err(());
        }
        let mut to_distribute = m as u64 - distributed;
        if to_distribute == 0 {
            return Err(()); // unassigned symbols remain (the reference: None)
        }
        // 32-bit divisions: total < 2^25, to_distribute ≤ M.
        if (total as u32 / to_distribute as u32) as u64 > low_one {
            let low_one = ((total as u32 * 3) / (to_distribute as u32 * 2)) as u64;
            // Counts up to `total` now: two sums.
            let (mut taken, mut removed) = (0u32, 0u32);
            for k in 0..2 {
                if class[k] == 3 && c[k] as u64 <= low_one {
                    class[k] = 2;
                    taken += 1;
                    removed += c[k];
                }
            }
            let words = publish(t, [warp_sum(t, taken), warp_sum(t, removed), 0, 0], partial, &mut round);
            distributed += sum_of(words, 0, COMPRESS_WARPS) as u64;
            total -= sum_of(words, 1, COMPRESS_WARPS) as u64;
            if distributed > m as u64 {
                return Err(());
            }
            to_distribute = m as u64 - distributed;
        }
        // Every present symbol is low, one or distributed.
        if distinct as u64 == distributed || total == 0 {
            return Err(());
        }
        let v_step_log = 62 - pb;
        let mid = (1u64 << (v_step_log - 1)) - 1;
        let r_step = ((1u64 << v_step_log) * to_distribute + mid) / total;
        // The block scan of the distributed symbols' counts and the number of low ones.
        let dist = |k: usize| if class[k] == 3 { c[k] } else { 0 };
        let low = |k: usize| (class[k] == 1 || class[k] == 2) as u32;
        let (b_warp, b_total) = warp_scan(t, dist(0) + dist(1));
        let (l_warp, l_total) = warp_scan(t, low(0) + low(1));
        let words = publish(t, [b_total, l_total, 0, 0], partial, &mut round);
        let (mut b, mut l) = (b_warp + sum_of(words, 0, warp), l_warp + sum_of(words, 1, warp));
        let big_f = |b: u32| ((mid + r_step * b as u64) >> v_step_log) as u32;
        for k in 0..2 {
            cum[k] = l + big_f(b);
            f[k] = match class[k] {
                1 | 2 => 1,
                3 => big_f(b + c[k]) - big_f(b),
                _ => 0,
            };
            b += dist(k);
            l += low(k);
        }
    }
    let (mn, mx) = if sampled {
        (0, 255)
    } else if distinct == 0 {
        (0, 0)
    } else {
        (mn, mx)
    };
    for k in 0..2 {
        let s = 2 * tid + k;
        // For the entries (`encoder_entries`): the frequency and `cum` in the first two
        // histograms (this thread alone read these symbols' counts).
        *hist.add(s) = f[k];
        *hist.add(256 + s) = cum[k];
        if s as u32 >= mn && s as u32 <= mx {
            // A low-probability symbol is stored as 0xFFFF.
            store(out.add(2 * (s - mn as usize)), if class[k] == 1 { 0xFFFF } else { f[k] as u64 }, 2);
        }
    }
    if tid == 0 {
        (*smem).table = [mn, mx - mn + 1, 1];
    }
    Ok(())
}

/// The lowest of a warp's 64 symbols present, from the presence bits of its even symbols `e`
/// and its odd ones `o` (not both 0).
#[inline(always)]
fn lowest(e: u32, o: u32) -> u32 {
    if e.trailing_zeros() <= o.trailing_zeros() {
        2 * e.trailing_zeros()
    } else {
        2 * o.trailing_zeros() + 1
    }
}

/// The highest of a warp's 64 symbols present, from the presence bits as in [`lowest`].
#[inline(always)]
fn highest(e: u32, o: u32) -> u32 {
    if 31 - e.leading_zeros() as i32 > 31 - o.leading_zeros() as i32 {
        2 * (31 - e.leading_zeros())
    } else {
        2 * (31 - o.leading_zeros()) + 1
    }
}

/// A symbol's class by its count `x`: 0 absent, 1 low probability (−1), 2 one, 3 distributed.
#[inline(always)]
fn class_of(x: u64, low_threshold: u64, low_one: u64) -> u8 {
    if x == 0 {
        0
    } else if x <= low_threshold {
        1
    } else if x <= low_one {
        2
    } else {
        3
    }
}

/// Each warp's four (warp-uniform) words `v` to shared memory, in the next set of `partial`
/// (`round` counts the calls), then a barrier; returns the set: warp `w`'s words at `4w`.
#[inline(always)]
unsafe fn publish<T: Thread>(t: &T, v: [u32; 4], partial: *mut u32, round: &mut usize) -> *const u32 {
    let tid = thread_here(t) as usize;
    let words = partial.add(4 * COMPRESS_WARPS * (*round & 1));
    *round += 1;
    if lane_here(t) == 0 {
        for (i, &x) in v.iter().enumerate() {
            *words.add(4 * (tid / 32) + i) = x;
        }
    }
    t.sync_threads();
    words
}

/// Word `i` of the warps before `warps` in a set [`publish`] returned, summed.
#[inline(always)]
unsafe fn sum_of(words: *const u32, i: usize, warps: usize) -> u32 {
    (0..warps).map(|w| *words.add(4 * w + i)).sum()
}

/// The block's encoder entries from the frequencies and cumulative frequencies [`table`] left
/// in the first two histograms, two symbols per thread: fast ones if every symbol has one (the
/// threads clear `table[2]` where one has none), else exact ones (rare: a symbol above about
/// 0.7·M). Ends with a barrier.
#[inline(always)]
pub(super) unsafe fn encoder_entries<T: Thread, const PIECES: usize>(t: &T, smem: *mut Shared<PIECES>, pb: u32) {
    let tid = thread_here(t) as usize;
    let hist = (&raw const (*smem).stage).cast::<u32>();
    let enc = (&raw mut (*smem).enc).cast::<u32>();
    for s in [tid, tid + THREADS] {
        match Entry::fast(*hist.add(s), *hist.add(256 + s), pb) {
            Some(e) => e.store(enc, s),
            None => (*smem).table[2] = 0,
        }
    }
    t.sync_threads();
    if (*smem).table[2] == 0 {
        for s in [tid, tid + THREADS] {
            Entry::exact(*hist.add(s), *hist.add(256 + s), pb).store(enc, s);
        }
        t.sync_threads();
    }
}
