//! `cascaded_decompressed_size(in_ptrs, in_bytes, num_chunks, out_sizes)`: nvCOMP's
//! `nvcompBatchedCascadedGetDecompressSizeAsync`. Each chunk's uncompressed size is the `u32` in
//! its 8-byte header; a chunk whose header the CPU reference (`gpucomp::cpu::cascaded::
//! decompressed_size`) rejects gets 0: shorter than 8 bytes (or a null pointer), bytes 0 or 1
//! nonzero, a mode byte other than 0 and 1, a type byte other than `0x80`–`0x87`. Only the header
//! is read, as in nvCOMP: the body is checked by decompression.
//!
//! Launch geometry (1-D): one thread per chunk, [`SIZE_BLOCK_THREADS`] threads per block,
//! [`size_grid_dim`] blocks (threads loop over chunks beyond the grid); no shared memory.
use crate::Thread;

pub use crate::size_query::{size_grid_dim, SIZE_BLOCK_THREADS};

/// Kernel body of `cascaded_decompressed_size`: writes chunk `i`'s uncompressed size, or 0 for an
/// invalid header, to `out_sizes[i]`, for `i = blockIdx.x · blockDim.x + threadIdx.x` stepping by
/// the grid's thread count.
///
/// # Safety
/// The arrays hold `num_chunks` entries (`out_sizes` writable), every chunk pointer is valid for
/// `in_bytes[i]` bytes (a null pointer reads as an invalid chunk).
#[inline(always)]
pub unsafe fn decompressed_size<T: Thread>(
    t: &T,
    in_ptrs: *const *const u8,
    in_bytes: *const u64,
    num_chunks: u64,
    out_sizes: *mut u64,
) {
    crate::size_query::for_each_chunk(t, in_ptrs, in_bytes, num_chunks, out_sizes, |inp, len| {
        if len < 8 || inp.is_null() {
            return 0;
        }
        // The chunk may start at any byte.
        let h: [u8; 8] = core::array::from_fn(|k| *inp.add(k));
        if super::valid_header(&h) {
            u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as u64
        } else {
            0
        }
    })
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::Ptx;

    /// Uncompressed sizes of `num_chunks` Cascaded chunks (0 for an invalid header); see
    /// [`super::decompressed_size`] and the module docs for the geometry.
    #[no_mangle]
    #[link_section = "nvvm:maxntid=128"]
    pub unsafe extern "ptx-kernel" fn cascaded_decompressed_size(
        in_ptrs: *const *const u8,
        in_bytes: *const u64,
        num_chunks: u64,
        out_sizes: *mut u64,
    ) {
        super::decompressed_size(&Ptx, in_ptrs, in_bytes, num_chunks, out_sizes)
    }
}
