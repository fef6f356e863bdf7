//! Bitcomp kernels: nvCOMP 6's lossless Bitcomp chunks (both algorithms, every integer type),
//! as written by `gpucomp::cpu::bitcomp` (format in its module docs and `shared/nvcomp/BITCOMP.md`).
//!
//! Launch geometry of `bitcomp_decompress` (1-D; `blockDim = (BLOCK_THREADS, 1, 1)`):
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `bitcomp_decompress` | [`BLOCK_THREADS`] (4 warps) | [`grid_dim`]`(num_chunks)` | static only ([`SHARED_BYTES`] = 32784 B); pass 0 dynamic bytes |
//!
//! One thread block per chunk (blocks loop over chunks beyond the grid); the chunk's 8 KiB
//! blocks are spread over the block's warps, one warp per 8 KiB block at a time, each with its
//! own 8 KiB plane bitmap in shared memory. See [`decompress`] for the design.
//!
//! Launch bounds `maxntid 128, minnctapersm 4` (4 blocks = 16 warps per SM at most; with 5,
//! sm_80 spilled 16 bytes). 32784 B static shared memory. The throughput below was measured
//! with `minnctapersm 5` (88 registers) and is to be measured again. Measured once on an H200 (standalone
//! cudarc harness, 2048 chunks of 64 KiB, output 16-byte aligned; GB/s of uncompressed output):
//! u32 ramp+noise 540 (default) / 790 (sparse), u64 small ints 930 / 1200, i32 12-bit random 570,
//! u16 98 % zeros sparse 600, random u8 (raw blocks) 2700; every output checked.
pub mod decompress;

/// Warps per thread block of `bitcomp_decompress`.
pub const WARPS: u32 = 4;

/// Threads per block of `bitcomp_decompress`.
pub const BLOCK_THREADS: u32 = WARPS * 32;

/// Static shared memory of `bitcomp_decompress`, bytes (one 8 KiB bitmap per warp + a flag).
pub const SHARED_BYTES: u32 = core::mem::size_of::<decompress::Shared>() as u32;

/// `gridDim.x` of `bitcomp_decompress` for `num_chunks` chunks: one block per chunk, capped
/// (blocks loop over the rest).
pub const fn grid_dim(num_chunks: u64) -> u32 {
    if num_chunks == 0 {
        1
    } else if num_chunks > 1 << 24 {
        1 << 24
    } else {
        num_chunks as u32
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::Ptx;

    unsafe extern "C" {
        /// Becomes this kernel's `.shared` memory at link time (kernels/linkwrap.sh).
        static mut __smem_bitcomp_decompress: super::decompress::Shared;
    }

    /// Bitcomp decompression of `num_chunks` chunks (nvCOMP's batched contract); geometry in
    /// [`crate::bitcomp`], body in [`super::decompress::decompress`].
    #[no_mangle]
    #[link_section = "nvvm:maxntid=128;minctasm=4"]
    pub unsafe extern "ptx-kernel" fn bitcomp_decompress(
        in_ptrs: *const *const u8,
        in_bytes: *const u64,
        num_chunks: u64,
        out_ptrs: *const *mut u8,
        out_capacity: *const u64,
        out_actual: *mut u64,
        statuses: *mut i32,
    ) {
        super::decompress::decompress(
            &Ptx,
            &raw mut __smem_bitcomp_decompress,
            in_ptrs,
            in_bytes,
            num_chunks,
            out_ptrs,
            out_capacity,
            out_actual,
            statuses,
        )
    }
}
