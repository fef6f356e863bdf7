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
