//! `cascaded_decompressed_size(in_ptrs, in_bytes, num_chunks, out_sizes)`: nvCOMP's
//! `nvcompBatchedCascadedGetDecompressSizeAsync`. Each chunk's uncompressed size is the `u32` in
//! its 8-byte header; a chunk whose header the CPU reference (`gpucomp::cpu::cascaded::
//! decompressed_size`) rejects gets 0: shorter than 8 bytes (or a null pointer), bytes 0 or 1
//! nonzero, a mode byte other than 0 and 1, a type byte other than `0x80`–`0x87`. Only the header
//! is read, as in nvCOMP: the body is checked by decompression.
//!
//! Launch geometry (1-D): one thread per chunk, [`SIZE_BLOCK_THREADS`] threads per block,
//! [`size_grid_dim`] blocks (threads loop over chunks beyond the grid); no shared memory.
use crate::batch::SizeArgs;
use crate::Thread;

pub use crate::size_query::{size_grid_dim, SIZE_BLOCK_THREADS};

/// Kernel body of `cascaded_decompressed_size`: stores chunk `i`'s uncompressed size, or 0 for an
/// invalid header, one thread per chunk.
///
/// # Safety
/// `args` valid; every chunk pointer is valid for its input size (a null pointer reads as an
/// invalid chunk).
#[inline(always)]
pub unsafe fn decompressed_size<T: Thread>(t: &T, args: SizeArgs) {
    args.for_each(t, |inp, len| {
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
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// Uncompressed sizes of `num_chunks` Cascaded chunks (0 for an invalid header); see
        /// [`super::decompressed_size`] and the module docs for the geometry.
        #[link_section = "nvvm:maxntid=128"]
        fn cascaded_decompressed_size(args: SizeArgs) [] {
            super::decompressed_size(&Ptx, args)
        }
    }
}
