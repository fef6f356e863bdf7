//! GPU side: the zero-sized [`Ptx`] thread and the `extern "ptx-kernel"` entry points.
use crate::Thread;
use core::arch::nvptx::*;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; the host sees a launch failure, never a wrong result.
    unsafe { trap() }
}

unsafe extern "C" {
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    fn shfl_sync_idx(mask: u32, v: u32, lane: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.up.i32"]
    fn shfl_sync_up(mask: u32, v: u32, delta: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
    fn shfl_sync_bfly(mask: u32, v: u32, m: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn vote_ballot_sync(mask: u32, p: bool) -> u32;
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
}

/// The calling GPU thread; every method is one intrinsic.
pub struct Ptx;

// SAFETY (all methods): the intrinsics read special registers or are warp/block collectives,
// which the kernel bodies call with all threads of the warp/block converged, as `Thread` requires.
impl Thread for Ptx {
    #[inline(always)]
    fn thread_idx(&self) -> u32 {
        unsafe { _thread_idx_x() as u32 }
    }
    #[inline(always)]
    fn block_idx(&self) -> u32 {
        unsafe { _block_idx_x() as u32 }
    }
    #[inline(always)]
    fn block_dim(&self) -> u32 {
        unsafe { _block_dim_x() as u32 }
    }
    #[inline(always)]
    fn grid_dim(&self) -> u32 {
        unsafe { _grid_dim_x() as u32 }
    }
    #[inline(always)]
    fn sync_threads(&self) {
        unsafe { _syncthreads() }
    }
    #[inline(always)]
    fn sync_warp(&self) {
        unsafe { bar_warp_sync(!0) }
    }
    #[inline(always)]
    fn shfl_idx(&self, v: u32, src_lane: u32) -> u32 {
        unsafe { shfl_sync_idx(!0, v, src_lane, 0x1f) }
    }
    #[inline(always)]
    fn shfl_up(&self, v: u32, delta: u32) -> u32 {
        unsafe { shfl_sync_up(!0, v, delta, 0) }
    }
    #[inline(always)]
    fn shfl_xor(&self, v: u32, lane_mask: u32) -> u32 {
        unsafe { shfl_sync_bfly(!0, v, lane_mask, 0x1f) }
    }
    #[inline(always)]
    fn ballot(&self, pred: bool) -> u32 {
        unsafe { vote_ballot_sync(!0, pred) }
    }
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn probe(out: *mut u32) {
    let t = Ptx;
    *out.add(t.thread_idx() as usize) = t.shfl_xor(t.lane(), 1);
}
