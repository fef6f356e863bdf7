//! The thread context every kernel body is generic over.

/// What a kernel body may ask of "its" GPU thread. Every method is a thin `#[inline(always)]`
/// wrapper around an intrinsic on the GPU, and a simulation on the CPU ([`crate::sim`]).
///
/// Warp collectives (`shfl_*`, `ballot`) use the full mask: all 32 lanes of the warp must call
/// them together, as the simulator checks.
pub trait Thread {
    /// `threadIdx.x`.
    fn thread_idx(&self) -> u32;
    /// `blockIdx.x`.
    fn block_idx(&self) -> u32;
    /// `blockDim.x`.
    fn block_dim(&self) -> u32;
    /// `gridDim.x`.
    fn grid_dim(&self) -> u32;
    /// `__syncthreads()`.
    fn sync_threads(&self);
    /// `__syncwarp()`: orders shared-memory accesses among the lanes of a warp.
    fn sync_warp(&self);
    /// `__shfl_sync(0xffffffff, v, src_lane)`.
    fn shfl_idx(&self, v: u32, src_lane: u32) -> u32;
    /// `__shfl_up_sync(0xffffffff, v, delta)`: lanes below `delta` keep their own `v`.
    fn shfl_up(&self, v: u32, delta: u32) -> u32;
    /// `__shfl_down_sync(0xffffffff, v, delta)`: lanes above `31 - delta` keep their own `v`.
    fn shfl_down(&self, v: u32, delta: u32) -> u32;
    /// `__shfl_xor_sync(0xffffffff, v, lane_mask)`.
    fn shfl_xor(&self, v: u32, lane_mask: u32) -> u32;
    /// `__ballot_sync(0xffffffff, pred)`.
    fn ballot(&self, pred: bool) -> u32;
    /// `__match_any_sync(0xffffffff, v)`: the mask of the lanes whose `v` equals this lane's.
    fn match_any(&self, v: u32) -> u32;
    /// `__reduce_or_sync(0xffffffff, v)` (sm_80+): the bitwise OR of `v` over the warp.
    fn reduce_or(&self, v: u32) -> u32;
    /// `__reduce_max_sync(0xffffffff, v)` (sm_80+): the largest `v` of the warp.
    fn reduce_max(&self, v: u32) -> u32;
    /// `__any_sync(0xffffffff, pred)`.
    #[inline(always)]
    fn any(&self, pred: bool) -> bool {
        self.ballot(pred) != 0
    }
    /// Lane index within the warp.
    #[inline(always)]
    fn lane(&self) -> u32 {
        self.thread_idx() % 32
    }
    /// Mask of the lanes below this one (`%lanemask_lt`).
    #[inline(always)]
    fn lanemask_lt(&self) -> u32 {
        (1u32 << self.lane()) - 1
    }
    /// Warp index within the block.
    #[inline(always)]
    fn warp(&self) -> u32 {
        self.thread_idx() / 32
    }
}

/// `threadIdx.x`, read where it is used (a volatile read of `%tid.x` on the GPU): LLVM hoists
/// what a kernel derives from [`Thread::thread_idx`] (addresses, masks) out of its loops to the
/// kernel's start, and ptxas then keeps those values live, or spills them, throughout.
#[inline(always)]
pub fn thread_here<T: Thread>(t: &T) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = t;
        crate::asm::tid_x()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        t.thread_idx()
    }
}

/// `blockIdx.x`, read where it is used (`%ctaid.x`), for the reason [`thread_here`] gives.
#[inline(always)]
pub fn block_here<T: Thread>(t: &T) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = t;
        crate::asm::ctaid_x()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        t.block_idx()
    }
}

/// Warps per block (`blockDim.x / 32`), read where it is used (`%ntid.x`), for the reason
/// [`thread_here`] gives.
#[inline(always)]
pub fn warps_here<T: Thread>(t: &T) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = t;
        crate::asm::ntid_x() / 32
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        t.block_dim() / 32
    }
}

/// The lane index, read where it is used (`%laneid`), for the reason [`thread_here`] gives.
#[inline(always)]
pub fn lane_here<T: Thread>(t: &T) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = t;
        crate::asm::lane_id()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        t.lane()
    }
}
