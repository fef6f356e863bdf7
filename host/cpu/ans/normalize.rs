//! Frequency quantisation: zstd's public `FSE_normalizeM2` algorithm with `tableLog = pb` and
//! `lowProbCount = −1` (ANS.md 2.1), re-implemented from its description; nvCOMP always uses
//! this routine (never the first pass of `FSE_normalizeCount`).
//!
//! Over the counts `c[s]` of the table's range (total `T`):
//! 1. `lowThreshold = T >> pb`, `lowOne = (3T) >> (pb + 1)`. Count 0 → 0; `c ≤ lowThreshold` →
//!    −1 (stored 0xFFFF, coded as 1); else `c ≤ lowOne` → 1. Each such symbol takes one slot and
//!    its count leaves `T`.
//! 2. `toDistribute = 2^pb − slots taken`. If `T / toDistribute > lowOne`:
//!    `lowOne = 3T / (2 · toDistribute)`, the remaining symbols with `c ≤ lowOne` get 1 (same
//!    bookkeeping), and `toDistribute` is recomputed.
//! 3. The rest by cumulative rounding: `vStepLog = 62 − pb`, `mid = 2^(vStepLog−1) − 1`,
//!    `rStep = (2^vStepLog · toDistribute + mid) / T`, `acc = mid`; for each remaining symbol in
//!    ascending order: `end = acc + c · rStep`, `f = (end >> vStepLog) − (acc >> vStepLog)`,
//!    `acc = end`.
//!
//! A table with a single present symbol is `[2^pb]` (handled by the caller, M2 is not reached).

/// Not yet assigned (zstd's `NOT_YET_ASSIGNED`).
const UNASSIGNED: i32 = -2;

/// The normalised table for `counts` (entry `i` = symbol `mn + i`): frequencies with −1 for
/// low-probability symbols, summing to `2^pb` when −1 counts as 1. `None` if every present symbol
/// is "poor" with slots left over (cannot happen for at most 256 symbols and `pb ≥ 9`) or the
/// counts are all zero.
pub fn normalize_m2(counts: &[u64], pb: u8) -> Option<Vec<i32>> {
    let pb = pb as u32;
    if pb > 16 {
        return None;
    }
    let mut total: u128 = counts.iter().map(|&c| c as u128).sum();
    if total == 0 {
        return None;
    }
    let mut norm = vec![0i32; counts.len()];
    let mut distributed: u128 = 0;
    let low_threshold = total >> pb;
    let mut low_one = (total * 3) >> (pb + 1);
    for (s, &c) in counts.iter().enumerate() {
        let c = c as u128;
        if c == 0 {
            norm[s] = 0;
        } else if c <= low_threshold {
            norm[s] = -1;
            distributed += 1;
            total -= c;
        } else if c <= low_one {
            norm[s] = 1;
            distributed += 1;
            total -= c;
        } else {
            norm[s] = UNASSIGNED;
        }
    }
    let m: u128 = 1 << pb;
    if distributed > m {
        return None;
    }
    let mut to_distribute = m - distributed;
    if to_distribute == 0 {
        return if norm.contains(&UNASSIGNED) { None } else { Some(norm) };
    }
    if total / to_distribute > low_one {
        low_one = (total * 3) / (to_distribute * 2);
        for (s, &c) in counts.iter().enumerate() {
            if norm[s] == UNASSIGNED && c as u128 <= low_one {
                norm[s] = 1;
                distributed += 1;
                total -= c as u128;
            }
        }
        if distributed > m {
            return None;
        }
        to_distribute = m - distributed;
    }
    if !norm.contains(&UNASSIGNED) || total == 0 {
        return None; // zstd's "all poor" case: nvCOMP never reaches it
    }
    let v_step_log = 62 - pb;
    let mid: u128 = (1u128 << (v_step_log - 1)) - 1;
    let r_step = ((1u128 << v_step_log) * to_distribute + mid) / total;
    let mut acc = mid;
    for (s, &c) in counts.iter().enumerate() {
        if norm[s] == UNASSIGNED {
            let end = acc + c as u128 * r_step;
            norm[s] = ((end >> v_step_log) - (acc >> v_step_log)) as i32;
            acc = end;
        }
    }
    Some(norm)
}
