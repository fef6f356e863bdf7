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
//!
//! `lz4_compress`'s shared memory per warp ([`compress_warp_bytes`]) is its hash table, then, for
//! gpucomp's encoders, a staging buffer ([`compress_stage_bytes`]): the warp copies its chunk
//! (segment) there first and compresses it from shared memory, because a warp's speed is the
//! latency of its window steps, each of which waits for candidate bytes at a data-dependent
//! place (an L2 load of ~200-600 cycles from global memory, ~30 from shared). The buffer costs
//! occupancy: 11 warps per SM on 16 KiB segments instead of 32. nvCOMP's encoder (16384-slot
//! tables, 7 warps per SM already) reads global memory, as do chunks longer than the buffer.
pub mod compress;
pub mod decompress;
mod hash_table;
pub(crate) mod mem;
mod source;
pub mod stitch;

/// gpucomp's encoder compresses a chunk longer than `SEGMENT` bytes as consecutive segments of
/// `SEGMENT` bytes, each encoded as a chunk of its own and stitched into one block (the rule is
/// documented with the CPU reference, `gpucomp::cpu::lz4::compress`): at 16 KiB, four times
/// as many warps work on a batch of 64 KiB chunks as chunks.
pub const SEGMENT: u32 = 16 << 10;

/// gpucomp's encoder: windows without a match, in a row, after which the lanes spread out.
pub const SKIP_AFTER: u32 = 4;
/// gpucomp's encoder: the largest stride between a window's lanes.
pub const SKIP_MAX: u32 = 16;

/// gpucomp's skip rule (normative; documented with the CPU reference `gpucomp::cpu::lz4::compress`,
/// "Skipping"): the distance, in elements, between the positions of consecutive lanes of a window
/// that follows `misses` windows without a match (since the segment's start or its last match):
/// 1 for the first [`SKIP_AFTER`] windows, then one more per window, up to [`SKIP_MAX`].
pub const fn skip_stride(misses: u32) -> u32 {
    if misses < SKIP_AFTER {
        1
    } else if misses - SKIP_AFTER + 2 < SKIP_MAX {
        misses - SKIP_AFTER + 2
    } else {
        SKIP_MAX
    }
}

/// Largest staging buffer per warp of `lz4_compress`, bytes: a [`SEGMENT`] and its slack.
pub const MAX_STAGE_BYTES: u32 = SEGMENT + source::STAGE_SLACK;

/// Staging buffer per warp of `lz4_compress` for gpucomp's encoders (0 and 2) on a batch whose
/// largest chunk (segment, with encoder 2) has `largest_chunk` bytes: `roundup16(largest_chunk) +
/// 16`, so that every chunk of the batch is compressed from shared memory; 0 (none) above
/// [`SEGMENT`] bytes, where chunks stay in global memory. nvCOMP's encoder (1) stages nothing.
pub const fn compress_stage_bytes(largest_chunk: u64) -> u32 {
    if largest_chunk > SEGMENT as u64 {
        0
    } else {
        (largest_chunk as u32).next_multiple_of(16) + source::STAGE_SLACK
    }
}

/// Shared memory per warp of `lz4_compress`, bytes: its hash table of `table_size` slots (2
/// bytes each, padded to 16), then its staging buffer of `stage_bytes`.
pub const fn compress_warp_bytes(table_size: u32, stage_bytes: u32) -> u32 {
    hash_table::warp_bytes(table_size) + stage_bytes
}

/// Warps (chunks) per block of `lz4_compress` for hash tables of `table_size` slots (a power of
/// two, at most 65536; nvCOMP uses `min(next_pow2(max_chunk_bytes), 16384)`) and staging buffers
/// of `stage_bytes` ([`compress_stage_bytes`]) on a device whose opt-in shared memory per block
/// is `max_shared_per_block` bytes (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`:
/// 232448 on H100/H200, 166912 on A100): as many warps as fit, at most 32, in one block per SM.
/// On sm_90: nvCOMP's encoder at 16384 slots, 7 warps (7 blocks of one table each would not fit:
/// 1 KiB is reserved per block); gpucomp's on 16 KiB segments (2048 slots, 16400 staged bytes:
/// 20496 a warp), 11 warps; on chunks of 8 KiB, 18; of 4 KiB, 28; of at most 3 KiB, 32 (all an
/// SM holds at 64 registers).
pub const fn compress_warps_per_block(table_size: u32, stage_bytes: u32, max_shared_per_block: u32) -> u32 {
    let w = max_shared_per_block / compress_warp_bytes(table_size, stage_bytes);
    if w > 32 {
        32
    } else if w < 1 {
        1
    } else {
        w
    }
}

/// Threads per block of `lz4_compress` (see [`compress_warps_per_block`]).
pub const fn compress_block_dim(table_size: u32, stage_bytes: u32, max_shared_per_block: u32) -> u32 {
    compress_warps_per_block(table_size, stage_bytes, max_shared_per_block) * 32
}

/// `gridDim.x` of `lz4_compress` for `num_chunks` chunks (see [`compress_warps_per_block`]).
pub const fn compress_grid_dim(num_chunks: u64, table_size: u32, stage_bytes: u32, max_shared_per_block: u32) -> u32 {
    let warps = compress_warps_per_block(table_size, stage_bytes, max_shared_per_block);
    num_chunks.div_ceil(warps as u64) as u32
}

/// Dynamic shared memory of `lz4_compress`, bytes: [`compress_warp_bytes`] per warp. At 16384
/// slots on sm_90: 7 × 32768 = 229376; gpucomp's segments: 11 × 20496 = 225456. The host raises
/// the function's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to this.
pub const fn compress_shared_bytes(table_size: u32, stage_bytes: u32, max_shared_per_block: u32) -> u32 {
    compress_warps_per_block(table_size, stage_bytes, max_shared_per_block)
        * compress_warp_bytes(table_size, stage_bytes)
}

/// Threads per block of `lz4_decompress` and `lz4_decompressed_size`: 4 warps, one chunk each.
pub const DECOMPRESS_BLOCK: u32 = decompress::WARPS_PER_BLOCK * 32;

/// `gridDim.x` of `lz4_decompress` and `lz4_decompressed_size` for `num_chunks` chunks.
pub const fn decompress_grid_dim(num_chunks: u64) -> u32 {
    num_chunks.div_ceil(decompress::WARPS_PER_BLOCK as u64) as u32
}

#[cfg(test)]
mod tests;
