//! Bitcomp kernels: nvCOMP 6's lossless Bitcomp chunks (both algorithms, every integer type),
//! as written by `gpucomp::cpu::bitcomp` (format in its module docs and `shared/nvcomp/BITCOMP.md`).
//!
//! Launch geometry (all 1-D; `blockDim = (threads, 1, 1)`):
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `bitcomp_decompress` | [`BLOCK_THREADS`] (4 warps) | [`grid_dim`]`(num_chunks)` | static only ([`SHARED_BYTES`] = 32784 B); pass 0 dynamic bytes |
//! | `bitcomp_compress` | [`COMPRESS_BLOCK_THREADS`] (8 warps) | [`compress_grid_dim`]`(num_chunks)` | dynamic: [`COMPRESS_SHARED_BYTES`] = 76576 B (raise `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to it) |
//! | `bitcomp_decompressed_size` | [`SIZE_BLOCK_THREADS`] | [`size_grid_dim`]`(num_chunks)` | none |
//!
//! Compression: one thread block per chunk (blocks loop over chunks beyond the grid); its
//! 8 warps encode the chunk's 8 KiB blocks in rounds, one block each (a 64 KiB chunk in one
//! round), and place them by a running sum. See [`compress`] for the design. Shared memory per
//! warp: the padded 8448-byte plane bitmap, which also stages the payload, and a 1120-byte token
//! buffer (9568 B); a block's ops beyond the 600 that buffer holds go to the output's scratch
//! space. Launch bounds `maxntid 256` and `minnctapersm 3` on sm_90 (80 registers, 28 bytes of
//! chunk-loop invariants spilled outside the inner loops: 3 blocks = 24 warps per SM on an
//! H100/H200, which 228 KB of shared memory just hold), `minnctapersm 2` on sm_80 (128
//! registers, no spills; 16 warps on an A100).
//!
//! 24 warps per SM instead of 16 (the token buffer held all 4096 possible ops, 13 060 B per
//! warp): measured on an H200 (`bitcomp_compress.py`, one run, every chunk equal), algorithm 0,
//! GB/s: orderkey 624 → 707, extendedprice 762 → 849, partkey 623 → 713, quantity 763 → 877,
//! shipdate 633 → 707, discount 351 → 341, linenumber 358 → 376, sensor.f32 568 → 605,
//! weights.f16 766 → 850. Nsight Compute on the 16-warp kernel had shown it latency-bound (IPC
//! 2.3, issue slots ~50 % busy, no eligible warp 43 % of the cycles; stalls mostly on
//! fixed-latency dependencies, 8 % at the round's barrier). A second run confirmed it (orderkey
//! 621 → 716, sensor 566 → 600, discount 351 → 378). Not kept: all ops in the scratch space (no
//! shared op buffer), 2–4 % slower on orderkey and sensor; runs of literal pairs copied in one
//! loop (one sync per pair instead of three shuffles), within noise (sensor 600 → 605, weights
//! 838 → 862, orderkey 716 → 701); 16-byte stores for the payload copy to 4-aligned places
//! (most blocks), no change (sensor 600 / 600, orderkey 683–715 either way). Nsight Compute at
//! 24 warps (sensor.f32): IPC 2.55, issue slots 59 % busy, no eligible warp 36 % of the
//! cycles; 9.5 % of the stall samples wait at the round's barrier (the 8 blocks of a chunk take
//! unequal times), the general steps take ~45 % of the instructions, the planes ~19 %.
//!
//! Planes of 4- and 8-byte elements by an in-register block transpose of the element words
//! (`bits::transpose_blocks8` instead of 16 byte permutes and four 8×8 transposes per 4 bytes
//! of width; SASS of the batch loops on sm_90: 4-byte elements 368 → 255 instructions per two
//! groups, 8-byte 359 → 246 per group; registers and spills unchanged), measured on an H200
//! (`bitcomp_compress.py`, one run, the previous build twice, its mean first, every chunk
//! equal), GB/s, algorithm 0 / 1: orderkey 705 / 917 → 750 / 961, extendedprice 858 / 822 →
//! 901 / 867, partkey 682 / 613 → 726 / 646, quantity 870 / 877 → 915 / 931, shipdate 691 /
//! 752 → 737 / 792, sensor.f32 582 / 578 → 607 / 597 (nvCOMP 657: 0.92×), weights.f16 (not
//! touched) 822 / 1041 → 820 / 1041; the u8 columns (not touched) move by 10 % run to run
//! (discount 326–364). Not kept, same run or the one before: adjacent groups per lane for
//! 4-byte elements, their plane bytes paired into 16-bit stores (loop 255 → 203 per two
//! groups; sensor 610–614, within noise, partkey 687–695); the same for 8-byte elements (8
//! wide loads per lane: 140 bytes spilled, some inside the general steps' loop; every column
//! slower, orderkey 688, sensor 592); placement without the round's barriers (block `s`
//! waits in shared memory for block `s − 1`'s published end; warps go on to their next
//! block): with one chunk per thread block there is nothing to overlap, and it cost 160 bytes
//! of spills and the fences (sensor 597 → 549 with `.cta` fences, 418 with the `.sys` fences
//! of Rust's `Release`/`Acquire`); at 3 thread blocks per SM looping over the chunks (grid
//! 396) sensor 506, and the barrier build itself 542 at that grid (a static share of the
//! chunks loses to the hardware's scheduling).
//!
//! Token closing without branches (`op_byte` by arithmetic; a short form writes a spare low
//! slot, which nothing reads, instead of skipping the store; each lane's last start selected,
//! not branched to): the loop over a lane's starts is one path (38 SASS instructions per
//! start on sm_90, HEAD 33 short / 37 long, both when a warp mixes them, plus the branch and
//! reconvergence), the two-window token section 195 → 167 instructions and the pair loop
//! 820 → 761; the token buffer grows by the spare slot (9568 B per warp, 76 576 B per thread
//! block: three still fit). Measured on an H200 (`bitcomp_compress.py`, one run, HEAD and this
//! build twice each, interleaved, algorithm 0, every chunk equal), GB/s: orderkey 751 / 757 →
//! 769 / 767, extendedprice 899 / 910 → 927 / 921, partkey 742 / 740 → 753 / 752, quantity
//! 931 / 940 → 934 / 952, shipdate 751 / 752 → 756 / 759, discount 381 / 392 → 395 / 399,
//! linenumber 383 / 381 → 397 / 395, sensor.f32 623 / 625 → 649 / 645 (nvCOMP 657: 0.98×),
//! weights.f16 839 / 841 → 845 / 846. Not kept (SASS only): the two starts a word can have
//! as two fixed steps instead of the loop (a long run spans ≥ 3 bytes and a literal token
//! starts only after one), ~35 instructions a step whether or not a lane has a start, more
//! than the loop's average on sensor (a CPU count on its planes: of the windows of pairs
//! that take a general step, flat halves included, 28 % have no start in any lane, 35 % at
//! most one per lane, 37 % two).
//!
//! The steps before, at 16 warps per SM, measured on an H200 on 2026-11-21 (`python3
//! benches/kernels/bitcomp_compress.py /tmp/c before.ptx this.ptx`: the anchor files from `throughput corpus /tmp/c 2 256`, 64 KiB chunks,
//! CUDA events, median of 15, every chunk equal to the reference build's and decoded back), GB/s
//! of input, algorithm 0 (default) / 1 (sparse), against nvCOMP 6's algorithm-0 anchors:
//!
//! | column (ratio) | 16 warps per SM | one-window steps not split off | before | nvCOMP | × nvCOMP |
//! | --- | --- | --- | --- | --- | --- |
//! | orderkey i64 (13.6) | 635 | 608 / 820 | 540 / 787 | 706 | 0.90 |
//! | extendedprice i64 (2.70) | 770 | 771 / 745 | 586 / 717 | 677 | 1.14 |
//! | partkey i32 (1.68) | 645 | 608 / 599 | 457 / 551 | 586 | 1.10 |
//! | quantity i32 (5.26) | 786 | 770 / 806 | 614 / 750 | 721 | 1.09 |
//! | shipdate i32 (2.71) | 646 | 628 / 692 | 508 / 647 | 658 | 0.98 |
//! | discount u8 (1.99) | 355 | 349 / 383 | 306 / 371 | 358 | 0.99 |
//! | linenumber u8 (2.65) | 361 | 355 / 404 | 314 / 377 | 375 | 0.96 |
//! | sensor.f32 (1.69) | 562 | 549 / 591 | 403 / 533 | 657 | 0.86 |
//! | weights.f16 (1.06) | 767 | 768 / 1116 | 415 / 749 | 591 | 1.30 |
//!
//! (Algorithm 0 only in the first column, from the last of those runs; the × is of that column.
//! Run to run the figures move by up to ~3 %: discount and linenumber measured 356–394 for the
//! middle build, shipdate 623–654.)
//!
//! What "before" lacked, each measured in steps: the class pass with its flat skip and literal copy
//! (weights 415 → 700, sensor 400 → 519), the byte rows by PRMT and no signed mapping for unsigned
//! types (weights → 769, sensor → 542), batched loads and the branch-free token close (orderkey 590
//! → 609), the one-window general steps (orderkey 608 → 635, partkey 608 → 645). Nsight Compute
//! (sensor.f32): 1.16 → 0.98 warp instructions per input byte at ~55 % of issue slots busy, 1.0–1.1
//! eligible warps per scheduler. Where the rest goes (SASS of this build): a *general* step of two
//! windows costs ~300 instructions plus ~28 per token start, the planes 0.17–0.21 per byte, the
//! class pass 0.07; sensor's and orderkey's blocks still take ~10 general steps of 32 (a third of
//! them of one window). Not kept: pairing general windows across flat ones (fewer general steps,
//! but sensor 548 → 517), and an earlier block-cooperative encoder (2.35× the instructions).
//!
//! `bitcomp_compress(in_ptrs, in_bytes, num_chunks, out_ptrs, out_bytes, statuses, type_code,
//! algorithm)`: `type_code` is the header's element type (0 u8, 1 i8, 2 u16, 3 i16, 4 u32,
//! 5 i32, 6 u64, 7 i64; floats as unsigned of their width), `algorithm` 0 default / 1 sparse;
//! each output has room for `BitcompOptions::max_compressed_chunk_size(in_bytes[i])`;
//! `statuses` may be null. `bitcomp_decompressed_size(in_ptrs, in_bytes, num_chunks,
//! out_sizes)`: one thread per chunk.
//!
//! One thread block per chunk (blocks loop over chunks beyond the grid); the chunk's 8 KiB
//! blocks are spread over the block's warps, one warp per 8 KiB block at a time, each with its
//! own 8 KiB plane bitmap in shared memory. See [`decompress`] for the design.
//!
//! Launch bounds `maxntid 128`, `minnctapersm 5` on sm_90 (92 registers, no spills: 5 blocks =
//! 20 warps per SM) and 4 on sm_80 (121 registers, no spills; at 5 ptxas spilled 24 bytes, and an
//! A100's 164 KB of shared memory holds only 4 blocks of 32 KiB anyway). 32784 B static shared
//! memory.
//!
//! Measured on an H200 (`benches/kernels/bitcomp_decompress.py`: CuPy, the anchor files, 64 KiB
//! chunks compressed by `bitcomp_compress`, CUDA events, median of 15 after 2 warm-ups, every
//! chunk checked), GB/s of uncompressed output, algorithm 0 (default) / 1 (sparse), against nvCOMP
//! 6's algorithm-0 anchors measured the same way; "before": byte-wise literal copy, `minnctapersm 4`:
//!
//! | column (ratio) | this version | before | nvCOMP | × nvCOMP |
//! | --- | --- | --- | --- | --- |
//! | orderkey i64 (13.6) | 677 / 740 | 603 / 724 | 652 | 1.04 |
//! | extendedprice i64 (2.70) | 805 / 646 | 393 / 639 | 488 | 1.65 |
//! | partkey i32 (1.68) | 681 / 378 | 209 / 374 | 344 | 1.98 |
//! | quantity i32 (5.26) | 864 / 709 | 466 / 708 | 602 | 1.44 |
//! | shipdate i32 (2.71) | 498 / 506 | 282 / 498 | 436 | 1.14 |
//! | discount u8 (1.99) | 432 / 296 | 188 / 291 | 119 | 3.62 |
//! | linenumber u8 (2.65) | 321 / 338 | 222 / 341 | 131 | 2.46 |
//! | sensor.f32 (1.69) | 449 / 338 | 227 / 335 | 403 | 1.12 |
//! | weights.f16 (1.06) | 809 / 1245 | 209 / 1242 | 368 | 2.20 |
//!
//! Nsight Compute, partkey, before: latency-bound (0.17 warps issued per scheduler and cycle,
//! 83 % of cycles with no eligible warp, 18.7 % achieved occupancy, 250 µs). Seen in the same
//! run, not adopted: at `minnctapersm 6` (24 warps per SM, but 24 bytes spilled) the old sparse
//! algorithm ran 1.2-1.5× faster (partkey 563, quantity 910), so occupancy is its lever; planes
//! transposed in registers (8×8 / 16×16 bit blocks of 16-bit or 32-bit plane pieces) gave +4-8 %
//! on u8, f16, i64 and f32 but −7 % on partkey and quantity.
pub mod compress;
pub mod decompress;

/// Warps per thread block of `bitcomp_decompress`.
pub const WARPS: u32 = 4;

/// Threads per block of `bitcomp_decompress`.
pub const BLOCK_THREADS: u32 = WARPS * 32;

/// Static shared memory of `bitcomp_decompress`, bytes (one 8 KiB bitmap per warp + a flag).
pub const SHARED_BYTES: u32 = core::mem::size_of::<decompress::Shared>() as u32;

/// `gridDim.x` of `bitcomp_decompress` for `num_chunks` chunks: one block per chunk, capped
/// (blocks loop over the rest).
pub const fn grid_dim(num_chunks: u64) -> u32 {
    if num_chunks == 0 {
        1
    } else if num_chunks > 1 << 24 {
        1 << 24
    } else {
        num_chunks as u32
    }
}

/// Warps per block of `bitcomp_compress` (each encodes one 8 KiB block of the chunk at a time).
pub const COMPRESS_WARPS: u32 = 8;

/// Threads per block of `bitcomp_compress`: one chunk per block at a time.
pub const COMPRESS_BLOCK_THREADS: u32 = COMPRESS_WARPS * 32;

/// Dynamic shared memory of `bitcomp_compress`, bytes (per warp the padded plane bitmap, which
/// stages the payload, and the token buffer). Above the 48 KiB a kernel may declare statically,
/// so it is dynamic: launch with this many bytes after raising the function's
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` to it.
pub const COMPRESS_SHARED_BYTES: u32 = core::mem::size_of::<compress::Shared>() as u32;

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
        fn bitcomp_decompress(args: DecompressArgs) [smem: static bitcomp_decompress: super::decompress::Shared] {
            super::decompress::decompress(&Ptx, smem, args)
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
