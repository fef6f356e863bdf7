//! Kernel body of `ans_decompressed_size`: one thread per chunk reads the 16-byte header.
use super::decompress::read_header;
use crate::batch::SizeArgs;
use crate::Thread;

pub use crate::size_query::{size_grid_dim, SIZE_BLOCK_THREADS};

/// Kernel body of `ans_decompressed_size`: stores the uncompressed size chunk `i`'s header
/// states, or 0 when the CPU reference's `decompressed_size` rejects the header.
///
/// # Safety
/// `args` valid; every input is valid for its size (a null pointer counts as corrupt).
#[inline(always)]
pub unsafe fn decompressed_size<T: Thread>(t: &T, args: SizeArgs) {
    args.for_each(t, |p, len| read_header(p, len).map_or(0, |h| h.0 as u64))
}
