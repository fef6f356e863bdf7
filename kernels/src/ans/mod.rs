//! ANS decompression: nvCOMP 6's rANS chunks (byte, FLOAT16, FLOAT8 E4M3 and FLOAT32 modes, one
//! or two states per lane, any sub-chunk size), nvCOMP's batched contract:
//! `ans_decompress(in_ptrs, in_bytes, num_chunks, out_ptrs, out_capacity, out_actual, statuses)`
//! followed by `(parts, split)` (the blocks per chunk and their per-chunk words, below), and
//! `ans_decompressed_size(in_ptrs, in_bytes, num_chunks, out_sizes)`.
//!
//! The format is documented in the CPU reference (`gpucomp::cpu::ans`, whose `rans` module
//! defines the decode order this kernel reproduces): a 16-byte header, the sub-chunk size table,
//! in float modes the raw (not coded) bytes, a u16 frequency table summing to `M = 2^pb`, then
//! the sub-chunks, each `[16-bit words …][32·spl final u32 states]`, decoded backwards.
//!
//! Launch geometry (1-D):
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `ans_decompress` | [`BLOCK_THREADS`] (4 warps) | [`split_grid_dim`]`(num_chunks, split)` ([`grid_dim`]`(num_chunks)` at `split` 1) | static only ([`SHARED_BYTES`] = 21 120 B); pass 0 dynamic bytes |
//! | `ans_decompressed_size` | [`SIZE_BLOCK_THREADS`] | [`size_grid_dim`]`(num_chunks)` | none |
//!
//! # Design
//!
//! `split` thread blocks per chunk (groups of `split` blocks loop over chunks beyond the grid),
//! one warp per sub-chunk: block `b` of the grid takes part `p = b % split` of chunk `b / split`,
//! its warp `w` the sub-chunks `4p + w, 4p + w + 4·split, …` (at `split` 1: `w, w + 4, …`). The
//! host picks `split` per launch ([`blocks_per_chunk`]: enough blocks to fill the GPU, at most a
//! chunk's groups of 4 sub-chunks of 8 KiB, 1 for batches of many chunks), since sub-chunks
//! decode independently once a block has the chunk's header and table: a batch of 128 chunks of
//! 256 KiB on an H200 (132 SMs, 9 blocks each) runs 1024 blocks rather than 128. Every block of a
//! chunk parses the header, builds the table and walks the size table; each can find the chunk
//! corrupt, so at `split > 1` they combine in the chunk's word of `parts` (a `u32` in the
//! decompression temp, zeroed on the stream before the launch): each block's thread 0 adds 1
//! (finished, low 16 bits) and, if the block found the chunk corrupt, `2^16` (failed, high 16
//! bits) by one relaxed atomic add, and the block whose add sees `split − 1` finished ones
//! stores the chunk's status and size. Nothing else passes between the blocks (each writes only
//! its sub-chunks' output; part 0 writes a FLOAT8 odd last value), so the atomic word needs no
//! fence. At `split` 1 `parts` is not read.
//! [`decompress`] holds the chunk loop and the sub-chunk walk; its modules the parts below:
//! `header`, `table` (the table and the lookup), `ring` (the word pages), `tiles` (the decode)
//! and `output`.
//!
//! * **Header**: thread 0 reads the 16 header bytes and checks them as the reference's
//!   `ChunkHeader::read` and `Chunk::parse` do (size table, raw section and frequency table
//!   inside the input, `n ≤ out_capacity`), and stores the header, its layout and the chunk's
//!   buffers in shared memory (after a barrier: every warp is done with the previous chunk);
//!   after the next barrier every thread reads each field there where it uses it. Modes 0
//!   bytes, 1 FLOAT16, 2 FLOAT8 E4M3 (any `n`, raw section `ceil(n/2)` bytes; thread 0 copies an
//!   odd last value from its end), 3 FLOAT32.
//! * **Table**: every warp reads the frequency table (8 entries per lane, 0xFFFF meaning 1) and
//!   checks by a warp scan that it sums to `2^pb` (or, in a chunk without symbols such as a
//!   one-value FLOAT8 chunk, is all zero, as nvCOMP writes it; no lookup table then); warp 0
//!   stores the cumulative frequencies in shared memory. For `pb ≤ 11` (every table nvCOMP writes) the block then fills a slot lookup
//!   table of `2^pb` u32 (`f·2^(11−pb) | symbol << 12 | b << 21`, `b = slot − cum − ⌊slot·f /
//!   2^pb⌋` signed, 11 bits: `|b| ≤ 2^pb / 4`): thread `k` fills slots `16k .. 16k + 16` with 16-byte stores, finding its
//!   first entry by binary search and the next by walking up. Larger `pb` (valid for the
//!   reference, never written by an encoder) and tables of one symbol (`f = 2^pb`, which the
//!   entry cannot hold) decode by a binary search over the cumulative frequencies instead.
//! * **Sub-chunk walk**: each warp scans the whole size table 32 entries at a time (offsets are a
//!   prefix sum of the sizes rounded up to 16), checking every size as the reference does, keeps
//!   the batch's offsets and sizes (and the batch's first index) in its shared slots and decodes
//!   the sub-chunks of the batch that are its own (a step of `4·split` may skip batches, so every
//!   warp walks them all: every block checks every size, and any failing warp fails the chunk).
//!   A FLOAT8 last sub-chunk of one byte codes no symbol and must be empty.
//! * **Decode**: lane `j` holds its `spl` states in registers. The schedule (the reference's
//!   `rans::tiles`): the first `floor(N / 256·spl) · 256·spl` symbols of a sub-chunk (one pass
//!   of the warp's states: 512 with two states per lane, 256 with one) in body tiles of `32·B`
//!   (`B` = 8 bytes/FLOAT16, 4 FLOAT8), the rest in tiles of 32·2; FLOAT32 32·4 throughout.
//!   Tiles are decoded step by step: in a step each lane decodes its `spl` symbols with one
//!   shared lookup each (`x = f·(x >> pb) + slot − cum`, with the lookup table as
//!   `hi32(x · f·2^(32−pb)) + b`); the states that fell below `2^16` take one word each, handed
//!   out by ballots and popcounts over the "needs a word" flags in (lane, state) order, the
//!   `k`-th reading the word `k + 1` below the cursor. Words come from a per-warp ring of two
//!   512-byte pages in shared memory, each word stored with the one above it as a `u32` (2 KiB
//!   per warp): the page holding the cursor and the one below it; the page after that is loaded
//!   into registers (one 16-byte load per lane) when the cursor enters a new page, and stored
//!   to the ring when the cursor enters the next one, so the loads have a whole page of steps
//!   to arrive (a page's last entry takes the first word of the page above, stored before it; word 0
//!   also goes into the ring's last entry, whose own high half is read no more then). A sub-chunk
//!   that is not 16-byte aligned (only with an unaligned input pointer) reads its words from
//!   global memory byte by byte instead.
//! * **Seeded FLOAT8 sub-chunks** (no tail: `N` a nonzero multiple of `256·spl`; the
//!   reference's `rans::seeded`): nvCOMP starts each state at `f[s] · 2^(16−pb)` of its first
//!   encoded symbol, so the last step of the last tile reads no word and each state must end
//!   there (then counts as `2^16` for the final check). That tile takes the general step loop
//!   with the check in its last step; the other tiles are as usual.
//! * **Hot path** (`body_tiles`, `tile_full`): the whole body tiles of an aligned sub-chunk
//!   with the lookup table (all tiles of nvCOMP's 8 KiB sub-chunks but FLOAT32's and a seeded
//!   one's last) run in a loop of their own whose output alignment is checked once per
//!   sub-chunk; each tile unrolled, step by step with constant symbol positions, and
//!   branch-free: each lane loads one ring entry at its masked position: that of state 1's word
//!   (the flags up to state 0 counted), which holds it and the word above it, state 0's; each
//!   state keeps its half only when it needs a word (`x << 16 | w` by a PRMT with a constant
//!   selector, no SEL); a tile takes at most
//!   `64·B ≤ 512` word bytes, so its reads stay in the two pages the ring holds and the page
//!   hand-over is checked once per tile. The cursor is kept across the tiles as the index `r =
//!   (p − 2) / 2` of the next word (with one state per lane as `4r`, its ring offset) and
//!   checked once at the end: running out of words wraps it below −1, where it stays, turns no
//!   page and fails the sub-chunk (the tiles after it decode garbage inside the ring into the
//!   sub-chunk's output). A step reads at `r − k1` (`k1` the sum of two flag counts: one
//!   IADD3) and takes `r − n0 − n1` (one IADD3); each warp's ring starts at a shared address
//!   that is a multiple of its size (one ring of slack in [`SHARED_BYTES`]), so an entry
//!   address is IMAD.SHL and one LOP3 (`base | 4·(r − k1) mod 2048`, a 32-bit shared address
//!   in inline PTX). The loop is limited by the issue slots and the ALU pipe, so the decode
//!   keeps to the FMA pipe where it can: the next state by IMAD.SHL (the entry times `2^21`,
//!   `f·2^(32−pb)`, which drops the fields above `f`), IMAD.HI and LEA.HI.SX32 (adding the
//!   bias from the entry's top 11 bits), the lanes below a lane as `mask · 2^(32−lane)` (IMAD)
//!   rather than `mask & lt`. The symbols (bits 12 to 19 of the entries) are gathered by pairs
//!   (one PRMT of two entries' bytes 1 and 2, shifted by 4 bits by an IMAD.SHL: the symbols in
//!   bytes 1 and 3) and fours (one PRMT of two pairs), FLOAT16 merging each pair with its raw
//!   bytes directly; the loop runs two tiles per iteration. FLOAT8's tiles of 32·4 go by pairs,
//!   each pair as one tile of 32·8 (its four steps take at most a page of words: one page
//!   check), in a plain loop, an odd last tile left to the general loop (unrolled like the
//!   others, ptxas's choices for the whole kernel cost byte mode and FLOAT16 1–6 %). A tile of
//!   256 symbols takes about 140 SASS instructions in byte mode (counts in
//!   `benches/notes/ans.md`). The other tiles take the general step loop.
//! * **Output**: a lane's symbols of a tile (8, 2 or 4 consecutive positions) collect in a
//!   register and are written when the tile ends: byte mode as one 8-byte store (2 for tails);
//!   FLOAT16 merges 8 symbols with 8 raw bytes into 16 output bytes (`rotr32` per pair of
//!   halves) and FLOAT32 4 symbols with the quad's 3 interleaved raw words, one 16-byte store
//!   each (the hot FLOAT16 tiles prefetch the next tile's raw bytes into L1, so that ptxas
//!   issues the tile's own load before its steps; the FLOAT8 pairs prefetch the pair after the
//!   next: 7 % on an H200); FLOAT8 merges 4 symbols and 4 raw bytes into 8 output bytes (`(r &
//!   8) << 4 | e << 3 | r & 7` per value, one 8-byte store): the exponent nibbles gathered from
//!   the lookup entries into the even values' bytes and the odd values' (four PRMTs), each
//!   merged with the raw nibbles by two shifts and two bit selects (LOP3), the two interleaved by
//!   two PRMTs (14 SASS instructions). Unaligned pointers,
//!   odd sub-chunk sizes and partial tiles take byte-wise paths (a FLOAT16 half needs only its own symbol and raw byte plus bit 0 of its partner's raw byte,
//!   so pairs split across sub-chunks decode too).
//!
//! The decode loop is monomorphised per mode, states per lane and lookup/search (16 variants),
//! so that each loop keeps only its own mode's output invariants live.
//!
//! Launch bounds `.maxntid 128`, `.minnctapersm 9`: ptxas (CUDA 13) gives 56 registers on sm_90
//! and sm_80, no spills, no stack (FLOAT8 variants included), 21 120 B static shared memory (9
//! blocks = 36 warps per SM on an H100/H200; an A100's 164 KiB hold 7). Registers are what
//! limits the blocks per SM, so no state stays live across the decode loops: the chunk's header,
//! layout and buffers live in shared memory, each field read where it is used (volatile loads);
//! thread 0 parses the header straight into shared memory; the block's part, `split` and chunk
//! step are kept there too (written once by thread 0); the lane and warp indices are read
//! (`%tid.x`, inline PTX) where they are used, so that LLVM does not hoist what derives from
//! them to the kernel's start; the sub-chunk walk keeps one counter, hidden from LLVM's loop
//! analysis; a tile's page hand-over comes after its output store. 9 blocks per SM measured +3 %
//! on text against 8; 10 blocks (48 registers) spill and measured 3–5 % slower. Runs, profiles
//! and the variants measured: `benches/notes/ans.md`.
//!
//! # Hostile input
//!
//! Every input read lies within `in_bytes`: header, size table, raw section and frequency table
//! are checked against it before use, every sub-chunk's range before it is decoded, global word
//! reads stay above the sub-chunk's start (a step that would take more words than remain fails
//! the chunk; in the hot path such a step wraps the cursor around, its ring reads stay in the
//! ring, and the tile fails at its end) and page loads below the word region's end (16-byte
//! loads only when the sub-chunk is 16-byte aligned, ending inside its final states). Every write lies within the `n ≤
//! out_capacity` output bytes. Loops are bounded by the input length (size table) or `n`.
//! Any inconsistency gives `CANNOT_DECOMPRESS` and `out_actual = 0`, exactly where the CPU
//! reference's `decompress` fails (output bytes already written stay). No code path panics.
pub mod compress;
pub mod decompress;
mod size;

pub use size::{decompressed_size, size_grid_dim, SIZE_BLOCK_THREADS};

/// Warps per thread block of `ans_decompress` (one sub-chunk each at a time).
pub const WARPS: u32 = 4;
/// `blockDim.x` of `ans_decompress`.
pub const BLOCK_THREADS: u32 = WARPS * 32;
/// Static shared memory of `ans_decompress`, bytes.
pub const SHARED_BYTES: usize = core::mem::size_of::<decompress::Shared>();

/// Thread blocks of `ans_decompress` an SM holds (its `.minnctapersm`).
pub const BLOCKS_PER_SM: u32 = 9;
/// The sub-chunk size [`blocks_per_chunk`] assumes: nvCOMP's default, 8 KiB.
pub const SPLIT_SUB_CHUNK: u64 = 8192;

/// `gridDim.x` of `ans_decompress` for `num_chunks` chunks at one thread block per chunk, capped
/// at 65535 (blocks loop over the rest): [`split_grid_dim`]`(num_chunks, 1)`.
pub const fn grid_dim(num_chunks: u64) -> u32 {
    split_grid_dim(num_chunks, 1)
}

/// `gridDim.x` of `ans_decompress` for `num_chunks` chunks at `split` thread blocks per chunk
/// (`1 ≤ split ≤ 65535`): `split` times the chunks, capped at the largest multiple of `split`
/// up to 65535 (groups of `split` blocks loop over the rest).
pub const fn split_grid_dim(num_chunks: u64, split: u32) -> u32 {
    crate::batch::split_grid_dim(num_chunks, split, 65535)
}

/// Thread blocks per chunk (`split`) for a batch of `num_chunks` chunks of up to
/// `max_chunk_bytes` uncompressed bytes on a GPU of `sms` SMs: enough for the batch to fill the
/// GPU ([`BLOCKS_PER_SM`] blocks per SM), never more than a chunk has groups of [`WARPS`]
/// sub-chunks of [`SPLIT_SUB_CHUNK`] bytes, and 1 for a batch that fills the GPU alone (or an
/// unknown bound, 0). A launch at `split > 1` needs [`split_temp_bytes`] of zeroed temp memory.
pub const fn blocks_per_chunk(num_chunks: u64, max_chunk_bytes: u64, sms: u32) -> u32 {
    crate::batch::blocks_per_chunk(num_chunks, max_chunk_bytes, SPLIT_SUB_CHUNK * WARPS as u64, sms, BLOCKS_PER_SM)
}

/// Temp bytes `ans_decompress` needs for `num_chunks` chunks of up to `max_chunk_bytes` bytes
/// to run at more than one block per chunk: one `u32` per chunk (the chunk's finished and failed
/// blocks), or 0 when no batch of such chunks splits them ([`blocks_per_chunk`]).
pub const fn split_temp_bytes(num_chunks: u64, max_chunk_bytes: u64) -> u64 {
    if max_chunk_bytes.div_ceil(SPLIT_SUB_CHUNK * WARPS as u64) < 2 {
        0
    } else {
        4 * num_chunks
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// ANS decompression of `num_chunks` chunks; see [`super::decompress::decompress`] and
        /// the module docs for the geometry.
        #[link_section = "nvvm:maxntid=128;minctasm=9"]
        fn ans_decompress(args: DecompressArgs, parts: *mut u32, split: u32) [smem: static ans_decompress: super::decompress::Shared] {
            super::decompress::decompress(&Ptx, smem, args, parts, split)
        }
    }

    kernel! {
        /// The uncompressed size of each chunk's header (0 when corrupt); see
        /// [`super::decompressed_size`].
        #[link_section = "nvvm:maxntid=128"]
        fn ans_decompressed_size(args: SizeArgs) [] {
            super::decompressed_size(&Ptx, args)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks per chunk fill an H200 (132 SMs) up to a chunk's groups of 4 sub-chunks, and
    /// the temp size covers every split.
    #[test]
    fn blocks_per_chunk_fill_the_gpu() {
        let h200 = |n, max| blocks_per_chunk(n, max, 132);
        // 128 chunks of 256 KiB: 9 blocks each would fill it, a chunk has 8 groups.
        assert_eq!(h200(128, 256 << 10), 8);
        // 512 chunks of 64 KiB (32 MiB): 2 fill it; one 64 KiB array: its 2 groups.
        assert_eq!((h200(512, 64 << 10), h200(1, 64 << 10)), (2, 2));
        // One 16 MiB chunk: its 512 groups; 100 of them: 11 blocks each.
        assert_eq!((h200(1, 16 << 20), h200(100, 16 << 20)), (512, 11));
        // Batches that fill the GPU alone, chunks of one group, an unknown bound, no chunks.
        assert_eq!(
            (h200(1188, 1 << 20), h200(600, 1 << 20), h200(1, 32 << 10), h200(1, 0), h200(0, 1 << 20)),
            (1, 1, 1, 1, 1)
        );
        assert_eq!(h200(1, 32 << 10 | 1), 2);
        for n in [1, 2, 3, 100, 1000, 70000] {
            for max in [0, 1, 8192, 32768, 32769, 65536, 1 << 20, 1 << 24] {
                let k = blocks_per_chunk(n, max, 132);
                assert!((1..=65535).contains(&k), "{n} {max}");
                assert!(k == 1 || split_temp_bytes(n, max) == 4 * n, "{n} {max}");
                let grid = split_grid_dim(n, k);
                assert!(grid.is_multiple_of(k) && grid <= 65535 && grid as u64 <= n * k as u64, "{n} {max}");
            }
        }
    }

    #[test]
    fn split_grids_are_whole_groups() {
        assert_eq!((split_grid_dim(0, 3), split_grid_dim(5, 8), split_grid_dim(100_000, 1)), (3, 40, 65535));
        assert_eq!((split_grid_dim(100_000, 7), split_grid_dim(1, 65535), grid_dim(70_000)), (65534, 65535, 65535));
    }
}
