//! Warp-wide collectives over the [`Thread`] trait's shuffles, shared by the kernels.
use crate::Thread;

/// Exclusive warp prefix sum of `v` and the warp total (wrapping, so hostile sizes cannot
/// overflow into a panic path).
#[inline(always)]
pub fn warp_scan<T: Thread>(t: &T, v: u32) -> (u32, u32) {
    let lane = t.lane();
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
