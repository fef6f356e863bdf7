//! Warp-wide collectives over the [`Thread`] trait's shuffles, shared by the kernels.
use crate::Thread;

/// Exclusive warp prefix sum of `v` and the warp total (wrapping, so hostile sizes cannot
/// overflow into a panic path).
#[inline(always)]
pub fn warp_scan<T: Thread>(t: &T, v: u32) -> (u32, u32) {
    warp_scan_at(t, v, t.lane())
}

/// [`warp_scan`] with the caller's lane index `lane` (for a caller that reads it where it is
/// used, so that LLVM does not hoist the scan's lane tests out of its outer loops).
#[inline(always)]
pub fn warp_scan_at<T: Thread>(t: &T, v: u32, lane: u32) -> (u32, u32) {
    let mut x = v;
    let mut d = 1;
    while d < 32 {
        let y = t.shfl_up(x, d);
        if lane >= d {
            x = x.wrapping_add(y);
        }
        d <<= 1;
    }
    (x.wrapping_sub(v), t.shfl_idx(x, 31))
}

/// Inclusive warp prefix sum of the 64-bit `v` (wrapping), as two 32-bit shuffles a step.
#[inline(always)]
pub fn warp_inclusive_scan_u64<T: Thread>(t: &T, v: u64) -> u64 {
    let lane = t.lane();
    let mut x = v;
    let mut d = 1;
    while d < 32 {
        let lo = t.shfl_up(x as u32, d);
        let hi = t.shfl_up((x >> 32) as u32, d);
        if lane >= d {
            x = x.wrapping_add(lo as u64 | (hi as u64) << 32);
        }
        d <<= 1;
    }
    x
}

/// Lane `src`'s 64-bit `v`, by the whole warp.
#[inline(always)]
pub fn shfl_idx_u64<T: Thread>(t: &T, v: u64, src: u32) -> u64 {
    (t.shfl_idx((v >> 32) as u32, src) as u64) << 32 | t.shfl_idx(v as u32, src) as u64
}
