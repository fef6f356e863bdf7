//! Kernel body of `ans_decompressed_size`: one thread per chunk reads the 16-byte header.
use super::decompress::read_header;
use crate::Thread;

pub use crate::size_query::{size_grid_dim, SIZE_BLOCK_THREADS};

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
    crate::size_query::for_each_chunk(t, in_ptrs, in_bytes, num_chunks, out_sizes, |p, len| {
        read_header(p, len).map_or(0, |h| h.0 as u64)
    })
}
