//! The shape every decompressed-size kernel shares (nvCOMP's `nvcompBatched*GetDecompressSizeAsync`):
//! one thread per chunk reads the chunk's header, [`SIZE_BLOCK_THREADS`] threads per block,
//! [`size_grid_dim`] blocks, threads looping over chunks beyond the grid; no shared memory.
use crate::Thread;

/// `blockDim.x` of the size kernels.
pub const SIZE_BLOCK_THREADS: u32 = 128;

/// `gridDim.x` of the size kernels for `num_chunks` chunks: one thread per chunk, capped at
/// 65535 blocks (threads loop over the rest).
pub const fn size_grid_dim(num_chunks: u64) -> u32 {
    let blocks = num_chunks.div_ceil(SIZE_BLOCK_THREADS as u64);
    if blocks == 0 {
        1
    } else if blocks > 65535 {
        65535
    } else {
        blocks as u32
    }
}

/// Writes `out_sizes[i] = size(in_ptrs[i], in_bytes[i])` for every chunk `i` of this thread
/// (`blockIdx.x · blockDim.x + threadIdx.x`, stepping by the grid's thread count).
///
/// # Safety
/// The arrays hold `num_chunks` entries (`out_sizes` writable); `size` must read only within
/// the `in_bytes[i]` bytes at `in_ptrs[i]` (which may be null).
#[inline(always)]
pub unsafe fn for_each_chunk<T: Thread>(
    t: &T,
    in_ptrs: *const *const u8,
    in_bytes: *const u64,
    num_chunks: u64,
    out_sizes: *mut u64,
    size: impl Fn(*const u8, u64) -> u64,
) {
    let stride = t.grid_dim() as u64 * t.block_dim() as u64;
    let mut i = t.block_idx() as u64 * t.block_dim() as u64 + t.thread_idx() as u64;
    while i < num_chunks {
        let k = i as usize;
        *out_sizes.add(k) = size(*in_ptrs.add(k), *in_bytes.add(k));
        i += stride;
    }
}
