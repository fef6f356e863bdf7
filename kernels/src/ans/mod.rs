//! ANS decompression: nvCOMP 6's rANS chunks (byte, FLOAT16, FLOAT8 E4M3 and FLOAT32 modes, one
//! or two states per lane, any sub-chunk size), nvCOMP's batched contract:
//! `ans_decompress(in_ptrs, in_bytes, num_chunks, out_ptrs, out_capacity, out_actual, statuses)`,
//! and `ans_decompressed_size(in_ptrs, in_bytes, num_chunks, out_sizes)`.
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
//! | `ans_decompress` | [`BLOCK_THREADS`] (4 warps) | [`grid_dim`]`(num_chunks)` | static only ([`SHARED_BYTES`] = 21 088 B); pass 0 dynamic bytes |
//! | `ans_decompressed_size` | [`SIZE_BLOCK_THREADS`] | [`size_grid_dim`]`(num_chunks)` | none |
//!
//! # Design
//!
//! One thread block per chunk (blocks loop over chunks beyond the grid), one warp per sub-chunk
//! (warp `w` takes sub-chunks `w, w + 4, …`).
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
//! * **Sub-chunk walk**: each warp scans the size table 32 entries at a time (offsets are a
//!   prefix sum of the sizes rounded up to 16), checking every size as the reference does, keeps
//!   the batch's offsets and sizes in its shared slots and decodes the sub-chunks of the batch
//!   that are its own (every batch is checked, by warp 0 at least: any failing warp fails the
//!   chunk). A FLOAT8 last sub-chunk of one byte codes no symbol and must be empty.
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
//!   others, ptxas's choices for the whole kernel cost byte mode and FLOAT16 1–6 %). Per tile
//!   of 256 symbols (two states per lane), without the page turns: 138.5 SASS instructions in
//!   byte mode, 150 FLOAT16, FLOAT8 174 per pair of tiles of 128 (228 before the pairs and the
//!   bit-select merge; 93b36f7: 154, 169, 258; one state per lane 168 and 180.5, 93b36f7 178
//!   and 194). Counted with the page turn's, before the ring pairs were
//!   stored upwards: 158 in byte mode, 75 of them on the ALU pipe (the kernel before: 189 and
//!   117; 217 before that). The other tiles take the general step loop.
//! * **Output**: a lane's symbols of a tile (8, 2 or 4 consecutive positions) collect in a
//!   register and are written when the tile ends: byte mode as one 8-byte store (2 for tails);
//!   FLOAT16 merges 8 symbols with 8 raw bytes into 16 output bytes (`rotr32` per pair of
//!   halves) and FLOAT32 4 symbols with the quad's 3 interleaved raw words, one 16-byte store
//!   each (the hot FLOAT16 tiles prefetch the next tile's raw bytes into L1; ptxas then issues
//!   the tile's own load before its steps, where it otherwise left it after them, waiting for
//!   it; the FLOAT8 pairs prefetch the pair after the next: 7 % on an H200); FLOAT8 merges 4
//!   symbols and 4 raw bytes into 8 output bytes (`(r & 8) << 4 | e << 3 | r & 7` per value,
//!   one 8-byte store): the exponent nibbles gathered from the lookup entries into the even
//!   values' bytes and the odd values' (four PRMTs), each merged with the raw nibbles by two
//!   shifts and two bit selects (LOP3), the two interleaved by two PRMTs: 14 SASS instructions
//!   (spreading the nibbles over 64 bits took 35, and the symbols' gathering 5). Unaligned pointers,
//!   odd sub-chunk sizes and partial tiles take byte-wise paths (a FLOAT16 half needs only its own symbol and raw byte plus bit 0 of its partner's raw byte,
//!   so pairs split across sub-chunks decode too).
//!
//! The decode loop is monomorphised per mode, states per lane and lookup/search (16 variants),
//! so that each loop keeps only its own mode's output invariants live.
//!
//! Launch bounds `.maxntid 128`, `.minnctapersm 9`: ptxas (CUDA 13) gives 56 registers on sm_90
//! and sm_80, no spills, no stack (FLOAT8 variants included), 21 088 B static shared memory (9
//! blocks = 36 warps per SM on an H100/H200; an A100's 164 KiB hold 7). Registers are what limits the blocks per SM, and the hot loops need few: what
//! took them was state live across every decode loop, now kept out of registers:
//!
//! * the chunk's header, layout and buffers (14 values) live in shared memory, each field read
//!   where it is used (volatile loads), the probability bits and the lane masks per sub-chunk in
//!   the decoder state;
//! * the header is parsed by thread 0 straight into shared memory: an `Option<Header>` that is
//!   `None` on some paths left its fields undefined there, and LLVM carried those undefined
//!   registers around the chunk loop (ptxas spilled them);
//! * the lane and warp indices are read (`%tid.x`, inline PTX) where they are used: LLVM hoisted
//!   everything derived from them (table and page addresses, lane masks, the scans' lane tests)
//!   out of the chunk loop, to the kernel's start;
//! * the sub-chunk walk keeps one counter: the batch's offsets and sizes go to the warp's shared
//!   slots, the next batch's base is derived from the last slot, and the counter is hidden from
//!   LLVM's loop analysis (which gave it induction variables of their own);
//! * a whole tile's page hand-over comes after its output store, so that the tile's symbols are
//!   not live across the page loads (before, 8 blocks per SM spilled 24 B).
//!
//! At 8 blocks per SM the same code takes 64 registers on sm_90 and 62 on sm_80, at 4 blocks 64
//! too (d1174e2's: 86); d1174e2's spilled 8 B on sm_80 at 9. At 10 blocks (48 registers) ptxas
//! spills 84 B on sm_90, and it is slower (H200, one run side by side with this kernel, a69d1a9:
//! 979 / 1003 / 1294 GB/s against 1032 / 1032 / 1364).
//!
//! Throughput (H200, 64 KiB chunks, `benches/kernels/ans_decompress.py`, GB/s of output, every
//! byte checked; nvCOMP 6: 1046 / 1071 / 1388), this kernel's steps, one run side by side (the
//! kernel before, d1174e2, twice):
//!
//! | kernel | lineitem.tbl | lineitem_comment.txt | weights.f16 FLOAT16 |
//! | --- | --- | --- | --- |
//! | d1174e2 (60 registers, ring of words, `f`/bias unpacked on the ALU pipe) | 918 / 925 | 921 / 920 | 1121 / 1122 (0.81×) |
//! | ring of word pairs, cursor checked per sub-chunk, raw bytes prefetched (c0864e0) | 908 | 910 | 1283 |
//! | + entries for `hi32(x · f·2^(32−pb)) + b`, lane masks by IMAD (11e7a22) | 935 / 936 (0.89×) | 938 / 935 (0.87×) | 1318 / 1321 (0.95×) |
//!
//! A later run, side by side: d1174e2 927 / 917 / 1129 (again: 915 / 918 / 1132); 11e7a22 935 /
//! 935 / 1331; + the page link read back whole (965e76c) 988 / 983 / 1348 (again: 984 / 979 /
//! 1330); **the same at 9 blocks per SM (this kernel, 56 registers) 1016 (0.97×) / 1013 (0.95×)
//! / 1354 (0.98×)**. Nsight Compute of 965e76c (lineitem.tbl): long scoreboard 0.50 stalls per
//! issue (11e7a22: 1.60), ALU pipe 59 %, FMA-heavy 56 %.
//!
//! One more run, side by side: 645f3de (state 1 picking by state 0's flag) 1019 / 1015 / 1338
//! (again: 1019 / 1021 / 1349); **word pairs stored upwards, state 0 reading the high half of
//! state 1's entry (this kernel) 1040 (0.99×) / 1035 (0.97×) / 1347 (0.97×)** (again: 1040 /
//! 1036 / 1350); 56 registers on sm_80 and sm_90, no spills.
//!
//! Two runs side by side with 93b36f7 (the kernel before, at 9 blocks per SM like this one): the
//! bias on top of the entries, the word-count cursor, the symbols by pairs and the FLOAT16 pair
//! merge, with the lookup table repeated to 2048 entries for every `pb` (a constant index mask)
//! 1055 / 1047 / 1324 (again: 1056 / 1047 / 1331; 93b36f7: 1017 / 1026 / 1347, again 1032 /
//! 1027 / 1331). Then 93b36f7 1025 / 1027 / 1290 (again: 1039 / 1028 / 1297); the repeated
//! table 1057 / 1051 / 1279 (weights' `pb` 10: four warps fill 2048 entries where two filled
//! 1024, and it lost); not repeated 1065 / 1058 / 1302 (again: 1066 / 1057 / 1295); **two tiles
//! per loop iteration (this kernel) 1078 (1.03×) / 1074 (1.00×) / 1324 (0.95×)** (again: 1064
//! / 1068 / 1310): +3.8 %, +4.2 % and +1.8 % on 93b36f7's mean. 56 registers on sm_80 and
//! sm_90, no spills; the kernel's SASS is a quarter larger (the hot loops twice).
//!
//! FLOAT8 (2026-11-27; `e4m3_8`, 8 Mi N(0, 1) values as E4M3 in 2048 chunks; nvCOMP 1354 in
//! the full run), each run side by side: 1453c24's kernel 947 / 1041 / 988 / 1031 (four runs);
//! the merge by bit selects (be570b3) 1020 / 1167 / 1104 / 1163 (+11 %). Then, means of three:
//! be570b3 1165; pairs of tiles, two pairs per iteration (`by_twos`) and the odd tile unrolled
//! too, 1224, but byte mode 4–6 % and FLOAT16 1–3 % slower (ptxas's choices for the whole
//! kernel; their loops grew by 3–7 instructions); pairs in a plain loop, the odd tile in the
//! general one, the other loops' SASS unchanged: with clamped prefetches 1237, without 1158, a
//! predicated one a pair ahead 1239, **two pairs ahead (this kernel) 1247 (0.92×)**. Full runs
//! (bench `run`, 2^27 values): 1094 → 1302 GB/s, 0.81× → 0.96× nvCOMP.
//!
//! An earlier run: d1174e2 922 / 916 / 1129; the ring of word pairs alone (f75a202) 817 / 824 /
//! 1041 (its page stores were 8 scalar STS per lane, 8-way bank conflicts each); + the cursor
//! checked once per sub-chunk and two STS.128: the FLOAT16 raw load left after the steps
//! 907 / 912 / 1229, that tile's raw bytes prefetched 906 / 908 / 1224, the next tile's
//! prefetched (c0864e0) 903 / 909 / 1286. Nsight Compute (lineitem.tbl): d1174e2 227.2 M warp
//! instructions, 3.19 per SM and cycle, ALU pipe 78% of its peak, FMA-heavy pipe 44%, stalls per
//! issue 1.97 wait, 1.48 short scoreboard, 1.39 math-pipe throttle, 0.43 long scoreboard;
//! 11e7a22 200.6 M (−12%), 2.91 per cycle, ALU 57%, FMA-heavy 53%, math-pipe throttle 0.91 but
//! long scoreboard 1.60: each page turn waited for the page it loaded (LLVM extracted the last
//! lane's u16 for the ring's page link right after the load; 965e76c reads the whole entry
//! back instead). weights.f16: long scoreboard 4.08 -> 2.09 per issue.
//!
//! The kernel before (d1174e2) and its history, one run side by side:
//!
//! | kernel | lineitem.tbl | lineitem_comment.txt | weights.f16 FLOAT16 |
//! | --- | --- | --- | --- |
//! | previous kernel (128 registers, 4 blocks per SM) | 692 (0.66×) | 673 (0.63×) | 720 (0.52×) |
//! | chunk state in shared memory, 6 blocks per SM (80 registers) | 828 | 825 | 878 |
//! | + batch in shared memory, 6 blocks per SM (78 registers) | 871 | 858 | 876 |
//! | + batch in shared memory, 7 blocks per SM (72 registers) | 905 (0.87×) | 906 (0.85×) | 897 (0.65×) |
//! | same at 8 blocks per SM (64 registers, 24 B spilled) | 915 | 905 | 1086 |
//!
//! A second run, side by side: the previous kernel 692 / 680 / 718; 7 blocks per SM 914 / 906 /
//! 899; with the page turned after a tile's output store, 8 blocks per SM (d1174e2, 60
//! registers) **923 (0.88×) / 917 (0.86×) / 1127 (0.81×)**; the same at 9 blocks per SM (56
//! registers) 929 / 923 / 1139.
//!
//! An earlier run: the previous kernel 692 / 677 / 718; the chunk state in shared memory with
//! launch bounds of 4 and 5 blocks per SM (96 registers either way, so 5 blocks) 778 / 773 / 734
//! and 784 / 773 / 728, at 6 (80 registers) 832 / 823 / 873, at 7 (72 registers, 152 B spilled)
//! 867 / 859 / 851. Nsight Compute (lineitem.tbl, d1174e2's
//! kernel): 25.9 warps per SM (was 15), issue slots 76% busy (58%), no eligible warp 21% of the
//! cycles (40%), 3.16 instructions per SM and cycle, 226.6 M warp instructions (230.2 M with the
//! chunk state alone).
//!
//! Before, one run side by side (the previous kernel's history):
//!
//! | kernel | lineitem.tbl | lineitem_comment.txt | weights.f16 FLOAT16 |
//! | --- | --- | --- | --- |
//! | before (hot steps in the general tile loop) | 553 | 544 | 668 |
//! | hot loop + PRMT symbols + cursor `p − 2` | 697 | 685 | 730 |
//! | + ring word address by LOP3 | 696 | 682 | 728 |
//! | + state 1 picks from two words (the previous kernel) | 694 (0.66×) | 681 (0.64×) | 722 (0.52×) |
//! | same at 5 blocks per SM (spilling) | 735 | 722 | 695 |
//! | same at 6 blocks per SM (spilling) | 786 | 775 | 779 |
//!
//! (The kernel before measured 613 / 603 / 686 in an earlier run; its first version, the general
//! step loop only, 312 / 310 / 454.) Nsight Compute (lineitem.tbl, clocks locked at 1.5 GHz):
//! 0.85 warp instructions per output byte (1.09 before), but still 0.60 issued per scheduler
//! and cycle with 3.8 warps each (issue slots 58% busy, no eligible warp 40% of the cycles,
//! 6.4 cycles between a warp's instructions): no longer issue-bound; shared loads take 2.2
//! wavefronts each (bank conflicts of the random lookups; 9 per step), L1 49%. More warps help
//! (rows above), more independent work per warp did not (below).
//!
//! A second run confirmed the previous kernel (691 / 678 / 709) and measured two sub-chunks per warp,
//! their tiles' steps interleaved (byte mode, 2 states per lane; two rings per warp), not kept:
//!
//! | kernel | lineitem.tbl | lineitem_comment.txt | weights.f16 FLOAT16 |
//! | --- | --- | --- | --- |
//! | previous kernel | 691 | 678 | 709 |
//! | previous kernel at 3 blocks per SM (156 registers) | 577 | 566 | 521 |
//! | pairs, 3 blocks per SM (168 registers, no spills) | 560 | 557 | 691 |
//! | pairs, 4 blocks per SM (56 B spilled) | 612 | 609 | 838 |
//! | pairs also for FLOAT16, 4 blocks per SM (496 B spilled) | 585 | 582 | 827 |
//!
//! The pairs' steps do interleave in the SASS (one divergence check per tile, the two chains'
//! lookups and ballots scheduled together), yet a warp still issues only every 5.8 cycles
//! (Nsight Compute, pairs at 3 blocks per SM: stalls per issue 1.8 fixed-latency waits, 1.0
//! shared-load results, 0.9 page loads from global memory, 0.2 ALU throttle): more independent
//! work per warp did not hide more latency, and the pairs need registers that cost occupancy or
//! spill elsewhere (splitting `sub_chunk` into open / decode functions alone made ptxas spill
//! 0.8–1.6 KB). FLOAT16 gained 18% in the 4-block pair builds although its own code path was
//! unchanged there: its throughput depends on how ptxas lays out and allocates the whole kernel.
//! The next step: fewer dependent instructions per step (the ballot, popcount and word-address
//! chain). FLOAT8 is not measured yet.
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

/// `gridDim.x` of `ans_decompress` for `num_chunks` chunks: one thread block per chunk, capped
/// at 65535 (blocks loop over the rest).
pub const fn grid_dim(num_chunks: u64) -> u32 {
    if num_chunks == 0 {
        1
    } else if num_chunks > 65535 {
        65535
    } else {
        num_chunks as u32
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// ANS decompression of `num_chunks` chunks; see [`super::decompress::decompress`] and
        /// the module docs for the geometry.
        #[link_section = "nvvm:maxntid=128;minctasm=9"]
        fn ans_decompress(args: DecompressArgs) [smem: static ans_decompress: super::decompress::Shared] {
            super::decompress::decompress(&Ptx, smem, args)
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
