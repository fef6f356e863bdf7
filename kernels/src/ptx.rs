//! GPU side: the zero-sized [`Ptx`] thread and the `extern "ptx-kernel"` entry points.
use crate::{lz4, Thread};
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
    #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
    fn shfl_sync_down(mask: u32, v: u32, delta: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
    fn shfl_sync_bfly(mask: u32, v: u32, m: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn vote_ballot_sync(mask: u32, p: bool) -> u32;
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn bar_warp_sync(mask: u32);
    #[link_name = "llvm.nvvm.match.any.sync.i32"]
    fn match_any_sync(mask: u32, v: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.or"]
    fn redux_sync_or(v: u32, mask: u32) -> u32;
    #[link_name = "llvm.nvvm.redux.sync.umax"]
    fn redux_sync_umax(v: u32, mask: u32) -> u32;
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
    // `bar.sync 0`, which is aligned: every thread of a warp must reach the same instruction.
    // LLVM may copy a region with barriers along a thread-dependent branch (`if tid == 0`);
    // `scripts/ptx.sh check` counts each kernel's barriers to catch that.
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
    fn shfl_down(&self, v: u32, delta: u32) -> u32 {
        unsafe { shfl_sync_down(!0, v, delta, 0x1f) }
    }
    #[inline(always)]
    fn shfl_xor(&self, v: u32, lane_mask: u32) -> u32 {
        unsafe { shfl_sync_bfly(!0, v, lane_mask, 0x1f) }
    }
    #[inline(always)]
    fn ballot(&self, pred: bool) -> u32 {
        unsafe { vote_ballot_sync(!0, pred) }
    }
    #[inline(always)]
    fn match_any(&self, v: u32) -> u32 {
        unsafe { match_any_sync(!0, v) }
    }
    #[inline(always)]
    fn reduce_or(&self, v: u32) -> u32 {
        unsafe { redux_sync_or(v, !0) }
    }
    #[inline(always)]
    fn reduce_max(&self, v: u32) -> u32 {
        unsafe { redux_sync_umax(v, !0) }
    }
}

/// The block's static shared memory `__smem_<name>` as a `*mut $t`.
macro_rules! shared {
    ($name:ident: $t:ty) => {{
        unsafe extern "C" {
            #[link_name = concat!("__smem_", stringify!($name))]
            static mut SMEM: $t;
        }
        // Only the address is taken; linkwrap.sh turns the symbol into a `.shared` variable.
        &raw mut SMEM
    }};
}
pub(crate) use shared;

unsafe extern "C" {
    /// Start of the block's dynamic shared memory, 16-byte aligned (defined by linkwrap.sh).
    pub(crate) fn __dsmem_base() -> *mut u8;
}

/// Declares a kernel entry point: `#[no_mangle] pub unsafe extern "ptx-kernel" fn NAME(...)`
/// with the batch's scalar parameters, in nvCOMP's order, bundled into the named args struct
/// (`crate::batch`), then the kernel's own scalar parameters; then its shared memory, bound to a
/// name, and the body, which runs with both in scope. Shared memory is `[]` (none),
/// `[smem: static SYMBOL: Type]` (static `.shared` variable `__smem_SYMBOL`) or
/// `[smem: dynamic Type]` (the dynamic shared memory, which the launch sizes). Launch bounds go
/// in a `#[link_section = "nvvm:maxntid=..;minctasm=.."]` attribute (linkwrap.sh).
macro_rules! kernel {
    (@smem) => {};
    (@smem $s:ident: static $sym:ident: $t:ty) => {
        let $s = $crate::ptx::shared!($sym: $t);
    };
    (@smem $s:ident: dynamic $t:ty) => {
        let $s = $crate::ptx::__dsmem_base().cast::<$t>();
    };
    (@emit $(#[$m:meta])* $name:ident ($($param:ident: $pt:ty),*) [$($smem:tt)*] [$($build:tt)*] $body:block) => {
        $(#[$m])*
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name($($param: $pt),*) {
            $($build)*
            $crate::ptx::kernel!(@smem $($smem)*);
            $body
        }
    };
    ($(#[$m:meta])* fn $name:ident($a:ident: CompressArgs $(, $p:ident: $t:ty)*) [$($smem:tt)*] $body:block) => {
        $crate::ptx::kernel!(@emit $(#[$m])* $name (
            in_ptrs: *const *const u8, in_bytes: *const u64, num_chunks: u64, out_ptrs: *const *mut u8,
            out_bytes: *mut u64, statuses: *mut i32 $(, $p: $t)*
        ) [$($smem)*]
        [let $a = $crate::batch::CompressArgs { in_ptrs, in_bytes, num_chunks, out_ptrs, out_bytes, statuses };]
        $body);
    };
    ($(#[$m:meta])* fn $name:ident($a:ident: DecompressArgs $(, $p:ident: $t:ty)*) [$($smem:tt)*] $body:block) => {
        $crate::ptx::kernel!(@emit $(#[$m])* $name (
            in_ptrs: *const *const u8, in_bytes: *const u64, num_chunks: u64, out_ptrs: *const *mut u8,
            out_capacity: *const u64, out_actual: *mut u64, statuses: *mut i32 $(, $p: $t)*
        ) [$($smem)*]
        [let $a = $crate::batch::DecompressArgs {
            in_ptrs, in_bytes, num_chunks, out_ptrs, out_capacity, out_actual, statuses
        };]
        $body);
    };
    ($(#[$m:meta])* fn $name:ident($a:ident: SizeArgs) [$($smem:tt)*] $body:block) => {
        $crate::ptx::kernel!(@emit $(#[$m])* $name (
            in_ptrs: *const *const u8, in_bytes: *const u64, num_chunks: u64, out_sizes: *mut u64
        ) [$($smem)*]
        [let $a = $crate::batch::SizeArgs { in_ptrs, in_bytes, num_chunks, out_sizes };]
        $body);
    };
    // Kernels outside the codec contract (copy, bitshuffle) list their parameters.
    ($(#[$m:meta])* fn $name:ident($($p:ident: $t:ty),* $(,)?) [$($smem:tt)*] $body:block) => {
        $crate::ptx::kernel!(@emit $(#[$m])* $name ($($p: $t),*) [$($smem)*] [] $body);
    };
}
pub(crate) use kernel;

kernel! {
    /// LZ4 compression of `num_chunks` chunks (`encoder`: 0 = gpucomp, 1 = nvcomp-exact, 2 =
    /// gpucomp on segments; `stage_bytes`: each warp's staging buffer); geometry and dynamic
    /// shared memory in [`crate::lz4`].
    #[link_section = "nvvm:maxntid=1024;minctasm=1"]
    fn lz4_compress(args: CompressArgs, table_size: u32, element_width: u32, encoder: u32, stage_bytes: u32) [smem: dynamic u8] {
        lz4::compress::compress(&Ptx, smem, args, table_size, element_width, encoder, stage_bytes)
    }
}

kernel! {
    /// LZ4 decompression of `num_chunks` chunks; geometry in [`crate::lz4`].
    #[link_section = "nvvm:maxntid=128;minctasm=8"]
    fn lz4_decompress(args: DecompressArgs) [smem: static lz4_decompress: lz4::decompress::DecompressShared] {
        lz4::decompress::decompress(&Ptx, smem, args)
    }
}

kernel! {
    /// Decompressed sizes of `num_chunks` LZ4 chunks (0 for a corrupt chunk); geometry in
    /// [`crate::lz4`].
    #[link_section = "nvvm:maxntid=128;minctasm=8"]
    fn lz4_decompressed_size(args: SizeArgs) [smem: static lz4_decompress: lz4::decompress::DecompressShared] {
        lz4::decompress::decompressed_size(&Ptx, smem, args)
    }
}
