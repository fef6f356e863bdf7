//! LZ4 kernels: nvCOMP-compatible raw LZ4 blocks, one chunk per warp (gpucomp's encoder: one
//! 16 KiB segment per warp, stitched, [`stitch`]).
//!
//! Launch geometry, for the host (all kernels are 1-D; `blockDim = (BLOCK, 1, 1)`):
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `lz4_compress` | [`compress_block_dim`] | [`compress_grid_dim`] | dynamic: [`compress_shared_bytes`] (raise `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to it) |
//! | `lz4_decompress`, `lz4_decompressed_size` | [`DECOMPRESS_BLOCK`] | [`decompress_grid_dim`] | static only (6208 B); pass 0 dynamic bytes |
//! | `lz4_segments` | [`stitch::SPLIT_BLOCK`] | [`stitch::split_grid_dim`] | none |
//! | `lz4_stitch` | [`stitch::STITCH_BLOCK`] | [`stitch::stitch_grid_dim`] | none |
//!
//! The grid functions return `gridDim.x` for a batch; chunks beyond `num_chunks` exit at once.
pub mod compress;
pub mod decompress;
mod hash_table;
mod mem;
pub mod stitch;

/// gpucomp's encoder compresses a chunk longer than `SEGMENT` bytes as consecutive segments of
/// `SEGMENT` bytes, each encoded as a chunk of its own and stitched into one block (the rule is
/// documented with the CPU reference, `gpucomp::cpu::lz4::compress`): at 16 KiB, four times
/// as many warps work on a batch of 64 KiB chunks as chunks.
pub const SEGMENT: u32 = 16 << 10;

/// Warps (chunks) per block of `lz4_compress` for hash tables of `table_size` slots (a power of
/// two, at most 65536; nvCOMP uses `min(next_pow2(max_chunk_bytes), 16384)`) on a device whose
/// opt-in shared memory per block is `max_shared_per_block` bytes
/// (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`: 232448 on H100/H200, 166912 on
/// A100): as many tables as fit, at most 32. One block per SM on sm_90 at 16384 slots (7 warps;
/// 7 blocks of one table each would not fit: 1 KiB is reserved per block); at 2048 slots
/// (gpucomp's largest table) one block of 32 warps, all an SM holds at 64 registers.
pub const fn compress_warps_per_block(table_size: u32, max_shared_per_block: u32) -> u32 {
    let w = max_shared_per_block / hash_table::warp_bytes(table_size);
    if w > 32 {
        32
    } else if w < 1 {
        1
    } else {
        w
    }
}

/// Threads per block of `lz4_compress` (see [`compress_warps_per_block`]).
pub const fn compress_block_dim(table_size: u32, max_shared_per_block: u32) -> u32 {
    compress_warps_per_block(table_size, max_shared_per_block) * 32
}

/// `gridDim.x` of `lz4_compress` for `num_chunks` chunks (see [`compress_warps_per_block`]).
pub const fn compress_grid_dim(num_chunks: u64, table_size: u32, max_shared_per_block: u32) -> u32 {
    num_chunks.div_ceil(compress_warps_per_block(table_size, max_shared_per_block) as u64) as u32
}

/// Dynamic shared memory of `lz4_compress`, bytes: per warp, the table (2 bytes per slot,
/// padded to 16) and a 256-byte bitmap. At 16384 slots on sm_90: 7 × 33024 = 231168; the host
/// raises the function's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to this.
pub const fn compress_shared_bytes(table_size: u32, max_shared_per_block: u32) -> u32 {
    compress_warps_per_block(table_size, max_shared_per_block) * hash_table::warp_bytes(table_size)
}

/// Threads per block of `lz4_decompress` and `lz4_decompressed_size`: 4 warps, one chunk each.
pub const DECOMPRESS_BLOCK: u32 = decompress::WARPS_PER_BLOCK * 32;

/// `gridDim.x` of `lz4_decompress` and `lz4_decompressed_size` for `num_chunks` chunks.
pub const fn decompress_grid_dim(num_chunks: u64) -> u32 {
    num_chunks.div_ceil(decompress::WARPS_PER_BLOCK as u64) as u32
}

#[cfg(test)]
mod tests;
