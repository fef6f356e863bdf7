//! Bitcomp kernels: nvCOMP 6's lossless Bitcomp chunks (both algorithms, every integer type),
//! as written by `gpucomp::cpu::bitcomp` (format in its module docs and `shared/nvcomp/BITCOMP.md`).
//!
//! Launch geometry (all 1-D; `blockDim = (threads, 1, 1)`):
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `bitcomp_decompress` | [`BLOCK_THREADS`] (4 warps) | [`decompress_grid_dim`]`(num_chunks, warps_per_chunk, SMs)` | static only ([`SHARED_BYTES`] = 32816 B); pass 0 dynamic bytes |
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
//! statuses, parts, warps_per_chunk)`: nvCOMP's batched decompression contract, then the
//! per-chunk words (`num_chunks` zeroed `u32`, read only when `warps_per_chunk > 1`) and the
//! warps per chunk.
//! `bitcomp_compress(in_ptrs, in_bytes, num_chunks, out_ptrs, out_bytes, statuses, type_code,
//! algorithm)`: `type_code` is the header's element type (0 u8, 1 i8, 2 u16, 3 i16, 4 u32,
//! 5 i32, 6 u64, 7 i64; floats as unsigned of their width), `algorithm` 0 default / 1 sparse;
//! each output has room for `BitcompOptions::max_compressed_chunk_size(in_bytes[i])`;
//! `statuses` may be null. `bitcomp_decompressed_size(in_ptrs, in_bytes, num_chunks,
//! out_sizes)`: one thread per chunk.
//!
//! Decompression: [`warps_per_chunk`] warps per chunk, one per 8 KiB block of the batch's
//! largest chunk (the grid's warps take the (chunk, part) items in turn, stepping over the
//! grid), each with its own 8 KiB plane bitmap in shared memory; the warp of part `p` decodes
//! the chunk's blocks `p, p + warps_per_chunk, …`. The chunk's warps combine their verdicts in
//! a zeroed `u32` per chunk in the decompression temp ([`decompress_temp_bytes`]); no warp waits
//! for another. See [`decompress`] for the design. Launch bounds `maxntid 128`, `minnctapersm 5`
//! on sm_90 (5 blocks = 20 warps per SM) and 4 on sm_80 (an A100's 164 KB of shared memory
//! holds only 4 blocks of 32 KiB anyway). 32816 B static shared memory.
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

/// `gridDim.x` of one thread block per chunk for `num_chunks` chunks, capped at 2^24 (blocks
/// loop over the rest): `bitcomp_compress`'s grid.
pub const fn grid_dim(num_chunks: u64) -> u32 {
    crate::batch::split_grid_dim(num_chunks, 1, 1 << 24)
}

/// Warps per chunk of `bitcomp_decompress` for chunks of up to `max_chunk_bytes` uncompressed
/// bytes: one per 8 KiB block, 1 to 65535; 4 (a thread block's) for an unknown bound, 0. At
/// more than 1 the launch needs [`decompress_temp_bytes`] of zeroed temp memory.
pub const fn warps_per_chunk(max_chunk_bytes: u64) -> u32 {
    let blocks = max_chunk_bytes.div_ceil(decompress::BLOCK_SIZE as u64);
    if max_chunk_bytes == 0 {
        WARPS
    } else if blocks > 65535 {
        65535
    } else {
        blocks as u32
    }
}

/// Thread blocks of `bitcomp_decompress` an SM holds on sm_90 (its `.minnctapersm`; 4 on sm_80).
pub const BLOCKS_PER_SM: u32 = 5;

/// `gridDim.x` of `bitcomp_decompress` for `num_chunks` chunks at `warps_per_chunk` warps each
/// on a GPU of `sms` SMs: a warp for every (chunk, part) item, and for a batch with fewer items
/// than the GPU holds blocks, a block for every item (each on its own SM where it can: the
/// kernel hands items to the blocks' first warps first); at least 1, capped at 2^24 (warps loop
/// over the rest).
pub const fn decompress_grid_dim(num_chunks: u64, warps_per_chunk: u32, sms: u32) -> u32 {
    let items = num_chunks * warps_per_chunk as u64;
    let resident = sms as u64 * BLOCKS_PER_SM as u64;
    let packed = items.div_ceil(WARPS as u64);
    let spread = if items < resident { items } else { resident };
    let blocks = if packed > spread { packed } else { spread };
    if blocks == 0 {
        1
    } else if blocks > 1 << 24 {
        1 << 24
    } else {
        blocks as u32
    }
}

/// Temp bytes `bitcomp_decompress` needs for `num_chunks` chunks of up to `max_chunk_bytes`
/// bytes: one `u32` per chunk (its finished and failed warps) when [`warps_per_chunk`] is more
/// than 1, else 0. Without them a launch runs one warp per chunk.
pub const fn decompress_temp_bytes(num_chunks: u64, max_chunk_bytes: u64) -> u64 {
    if warps_per_chunk(max_chunk_bytes) > 1 {
        4 * num_chunks
    } else {
        0
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
        fn bitcomp_decompress(args: DecompressArgs, parts: *mut u32, warps_per_chunk: u32) [smem: static bitcomp_decompress: super::decompress::Shared] {
            super::decompress::decompress(&Ptx, smem, args, parts, warps_per_chunk)
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
