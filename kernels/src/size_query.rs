//! The shape every decompressed-size kernel shares (nvCOMP's `nvcompBatched*GetDecompressSizeAsync`):
//! one thread per chunk reads the chunk's header, [`SIZE_BLOCK_THREADS`] threads per block,
//! [`size_grid_dim`] blocks, threads looping over chunks beyond the grid ([`crate::batch::SizeArgs::for_each`]);
//! no shared memory.
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
