//! Kernel body of `ans_decompressed_size`: one thread per chunk reads the 16-byte header.
use super::decompress::read_header;
use crate::Thread;

/// `blockDim.x` of `ans_decompressed_size`.
pub const SIZE_BLOCK_THREADS: u32 = 128;

/// `gridDim.x` of `ans_decompressed_size` for `num_chunks` chunks: one thread per chunk, capped
/// at 65535 blocks (threads loop over the rest).
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

/// Kernel body of `ans_decompressed_size`: `out_sizes[i]` is the uncompressed size chunk `i`'s
/// header states, or 0 when the CPU reference's `decompressed_size` rejects the header.
///
/// # Safety
/// The arrays hold `num_chunks` entries; every input is valid for `in_bytes[i]` bytes (a null
/// pointer counts as corrupt).
#[inline(always)]
pub unsafe fn decompressed_size<T: Thread>(
    t: &T,
    in_ptrs: *const *const u8,
    in_bytes: *const u64,
    num_chunks: u64,
    out_sizes: *mut u64,
) {
    let stride = t.grid_dim() as u64 * t.block_dim() as u64;
    let mut i = t.block_idx() as u64 * t.block_dim() as u64 + t.thread_idx() as u64;
    while i < num_chunks {
        let k = i as usize;
        *out_sizes.add(k) = read_header(*in_ptrs.add(k), *in_bytes.add(k)).map_or(0, |h| h.0 as u64);
        i += stride;
    }
}
