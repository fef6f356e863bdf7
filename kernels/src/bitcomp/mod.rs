//! Bitcomp kernels: nvCOMP 6's lossless Bitcomp chunks (both algorithms, every integer type),
//! as written by `gpucomp::cpu::bitcomp` (format in its module docs and `shared/nvcomp/BITCOMP.md`).
//!
//! Launch geometry (all 1-D; `blockDim = (threads, 1, 1)`):
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `bitcomp_decompress` | [`BLOCK_THREADS`] (4 warps) | [`split_grid_dim`]`(num_chunks, split)` ([`grid_dim`]`(num_chunks)` at `split` 1) | static only ([`SHARED_BYTES`] = 32784 B); pass 0 dynamic bytes |
//! | `bitcomp_compress` | 32 × [`compress_warps`]`(largest chunk)` (1 to 8 warps) | [`compress_grid_dim`]`(num_chunks)` | dynamic: [`compress_shared_bytes`]`(warps)`, 9568 B a warp + 32 (raise `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to [`COMPRESS_SHARED_BYTES`]) |
//! | `bitcomp_decompressed_size` | [`SIZE_BLOCK_THREADS`] | [`size_grid_dim`]`(num_chunks)` | none |
//!
//! Compression: one thread block per chunk (blocks loop over chunks beyond the grid); its
//! warps, one per 8 KiB block of the batch's largest chunk up to 8, encode the chunk's 8 KiB
//! blocks in rounds, one block each (a 64 KiB chunk in one round), and place them by a running
//! sum. See [`compress`] for the design. Shared memory per
//! warp: the padded 8448-byte plane bitmap, which also stages the payload, and a 1120-byte token
//! buffer (9568 B); a block's ops beyond the 600 that buffer holds go to the output's scratch
//! space. Launch bounds `maxntid 256` and `minnctapersm 3` on sm_90 (80 registers, 28 bytes of
//! chunk-loop invariants spilled outside the inner loops: 24 warps per SM on an H100/H200, which
//! 228 KB of shared memory just hold, in 3 blocks of 8 warps or more blocks of fewer),
//! `minnctapersm 2` on sm_80 (128 registers, no spills; 16 warps on an A100). The kernel is latency-bound, so 24 warps per SM
//! rather than 16 (a token buffer for all 4096 possible ops) measured 5–15 % faster on eight of
//! the nine anchor columns on an H200 (`benches/notes/bitcomp.md`).
//!
//! `bitcomp_decompress(in_ptrs, in_bytes, num_chunks, out_ptrs, out_capacity, out_actual,
//! statuses, parts, split)`: nvCOMP's batched decompression contract, then the per-chunk words
//! (`num_chunks` zeroed `u32`, read only when `split > 1`) and the blocks per chunk.
//! `bitcomp_compress(in_ptrs, in_bytes, num_chunks, out_ptrs, out_bytes, statuses, type_code,
//! algorithm)`: `type_code` is the header's element type (0 u8, 1 i8, 2 u16, 3 i16, 4 u32,
//! 5 i32, 6 u64, 7 i64; floats as unsigned of their width), `algorithm` 0 default / 1 sparse;
//! each output has room for `BitcompOptions::max_compressed_chunk_size(in_bytes[i])`;
//! `statuses` may be null. `bitcomp_decompressed_size(in_ptrs, in_bytes, num_chunks,
//! out_sizes)`: one thread per chunk.
//!
//! Decompression: `split` thread blocks per chunk (groups of `split` blocks loop over chunks
//! beyond the grid); the chunk's 8 KiB blocks are spread over the blocks' warps, one warp per
//! 8 KiB block at a time, each with its own 8 KiB plane bitmap in shared memory: warp `w` of
//! part `p` takes blocks `4p + w`, stepping by `4·split`. The host picks `split` per launch
//! ([`blocks_per_chunk`]: enough blocks to fill the GPU, at most a chunk's groups of 4 blocks,
//! 1 for batches of many chunks; one 64 KiB chunk took 2 rounds of its block's 4 warps, 61.8 µs
//! on an H200), with a zeroed `u32` per chunk in the decompression temp ([`split_temp_bytes`])
//! where the chunk's blocks combine their verdicts. See [`decompress`] for the design.
//! Launch bounds `maxntid 128`, `minnctapersm 5` on sm_90 (92 registers, no spills, as before the
//! blocks per chunk: 5 blocks = 20 warps per SM) and 4 on sm_80 (121 registers, no spills; at 5 ptxas spilled 24 bytes, and an
//! A100's 164 KB of shared memory holds only 4 blocks of 32 KiB anyway). 32784 B static shared
//! memory.
//!
//! Measurements and the variants tried: `benches/notes/bitcomp.md`.
pub mod compress;
pub mod decompress;

/// Warps per thread block of `bitcomp_decompress`.
pub const WARPS: u32 = 4;

/// Threads per block of `bitcomp_decompress`.
pub const BLOCK_THREADS: u32 = WARPS * 32;

/// Static shared memory of `bitcomp_decompress`, bytes (one 8 KiB bitmap per warp + a flag).
pub const SHARED_BYTES: u32 = core::mem::size_of::<decompress::Shared>() as u32;

/// `gridDim.x` of `bitcomp_decompress` for `num_chunks` chunks at one block per chunk, capped at
/// 2^24 (blocks loop over the rest): [`split_grid_dim`]`(num_chunks, 1)`.
pub const fn grid_dim(num_chunks: u64) -> u32 {
    split_grid_dim(num_chunks, 1)
}

/// `gridDim.x` of `bitcomp_decompress` for `num_chunks` chunks at `split` thread blocks per
/// chunk (`1 ≤ split ≤ 65535`): `split` times the chunks, capped at the largest multiple of
/// `split` up to 2^24 (groups of `split` blocks loop over the rest).
pub const fn split_grid_dim(num_chunks: u64, split: u32) -> u32 {
    crate::batch::split_grid_dim(num_chunks, split, 1 << 24)
}

/// Thread blocks of `bitcomp_decompress` an SM holds on sm_90 (its `.minnctapersm` there; 4 on
/// sm_80, where [`blocks_per_chunk`] then asks for at most a quarter more blocks than fill it).
pub const BLOCKS_PER_SM: u32 = 5;
/// Uncompressed bytes a thread block decodes per round: its warps' 8 KiB blocks.
pub const SPLIT_GROUP_BYTES: u64 = WARPS as u64 * decompress::BLOCK_SIZE as u64;

/// Thread blocks per chunk (`split`) for a batch of `num_chunks` chunks of up to
/// `max_chunk_bytes` uncompressed bytes on a GPU of `sms` SMs: enough for the batch to fill the
/// GPU ([`BLOCKS_PER_SM`] blocks per SM), never more than a chunk has groups of
/// [`SPLIT_GROUP_BYTES`], and 1 for a batch that fills the GPU alone (or an unknown bound, 0).
/// A launch at `split > 1` needs [`split_temp_bytes`] of zeroed temp memory.
pub const fn blocks_per_chunk(num_chunks: u64, max_chunk_bytes: u64, sms: u32) -> u32 {
    crate::batch::blocks_per_chunk(num_chunks, max_chunk_bytes, SPLIT_GROUP_BYTES, sms, BLOCKS_PER_SM)
}

/// Temp bytes `bitcomp_decompress` needs for `num_chunks` chunks of up to `max_chunk_bytes`
/// bytes to run at more than one block per chunk: one `u32` per chunk (the chunk's finished and
/// failed blocks), or 0 when no batch of such chunks splits them ([`blocks_per_chunk`]).
pub const fn split_temp_bytes(num_chunks: u64, max_chunk_bytes: u64) -> u64 {
    if max_chunk_bytes.div_ceil(SPLIT_GROUP_BYTES) < 2 {
        0
    } else {
        4 * num_chunks
    }
}

/// Most warps per block of `bitcomp_compress` (each encodes one 8 KiB block of the chunk at a
/// time: a 64 KiB chunk in one round).
pub const COMPRESS_WARPS: u32 = 8;

/// Warps per block of `bitcomp_compress` for a batch whose largest chunk has `largest_chunk`
/// bytes: one per 8 KiB block of it, 1 to [`COMPRESS_WARPS`]. Warps past a chunk's blocks would
/// idle while holding their share of the SM's shared memory (a 16 KiB chunk keeps 2 of 8 busy).
pub const fn compress_warps(largest_chunk: u64) -> u32 {
    let blocks = largest_chunk.div_ceil(decompress::BLOCK_SIZE as u64);
    if blocks == 0 {
        1
    } else if blocks > COMPRESS_WARPS as u64 {
        COMPRESS_WARPS
    } else {
        blocks as u32
    }
}

/// Dynamic shared memory of a `bitcomp_compress` block of `warps` warps, bytes (the round's
/// payload words, then per warp the padded plane bitmap, which stages the payload, and the token
/// buffer).
pub const fn compress_shared_bytes(warps: u32) -> u32 {
    compress::shared_bytes(warps as usize) as u32
}

/// Dynamic shared memory of the largest `bitcomp_compress` block ([`COMPRESS_WARPS`] warps).
/// Above the 48 KiB a kernel may declare statically, so it is dynamic: raise the function's
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to this, then launch with
/// [`compress_shared_bytes`] of the block's warps.
pub const COMPRESS_SHARED_BYTES: u32 = compress_shared_bytes(COMPRESS_WARPS);
const _: () = assert!(COMPRESS_SHARED_BYTES as usize == core::mem::size_of::<compress::Shared>());

/// `gridDim.x` of `bitcomp_compress` for `num_chunks` chunks: one block per chunk,
/// capped (blocks loop over the rest).
pub const fn compress_grid_dim(num_chunks: u64) -> u32 {
    grid_dim(num_chunks)
}

pub use crate::size_query::{size_grid_dim, SIZE_BLOCK_THREADS};

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// Bitcomp decompression of `num_chunks` chunks (nvCOMP's batched contract); geometry in
        /// [`crate::bitcomp`], body in [`super::decompress::decompress`].
        #[cfg_attr(target_feature = "sm_90", link_section = "nvvm:maxntid=128;minctasm=5")]
        #[cfg_attr(not(target_feature = "sm_90"), link_section = "nvvm:maxntid=128;minctasm=4")]
        fn bitcomp_decompress(args: DecompressArgs, parts: *mut u32, split: u32) [smem: static bitcomp_decompress: super::decompress::Shared] {
            super::decompress::decompress(&Ptx, smem, args, parts, split)
        }
    }

    kernel! {
        /// Bitcomp compression of `num_chunks` chunks (nvCOMP's batched contract); geometry in
        /// [`crate::bitcomp`], body in [`super::compress::compress`]. The launch passes
        /// `COMPRESS_SHARED_BYTES` of dynamic shared memory.
        #[cfg_attr(target_feature = "sm_90", link_section = "nvvm:maxntid=256;minctasm=3")]
        #[cfg_attr(not(target_feature = "sm_90"), link_section = "nvvm:maxntid=256;minctasm=2")]
        fn bitcomp_compress(args: CompressArgs, type_code: u32, algorithm: u32) [smem: dynamic super::compress::Shared] {
            super::compress::compress(&Ptx, smem, args, type_code, algorithm)
        }
    }

    kernel! {
        /// Uncompressed sizes of `num_chunks` Bitcomp chunks (0 for a header the CPU reference
        /// refuses); geometry in [`crate::bitcomp`].
        #[link_section = "nvvm:maxntid=128"]
        fn bitcomp_decompressed_size(args: SizeArgs) [] {
            super::compress::decompressed_size(&Ptx, args)
        }
    }
}
