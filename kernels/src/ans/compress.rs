//! ANS compression: `ans_compress(in_ptrs, in_bytes, num_chunks, out_ptrs, out_bytes, statuses,
//! data_type, max_sub_chunk_count, states_per_lane, histogram_reduction_log2, max_chunk_bytes)`,
//! `ans_compress_float` and `ans_compress_float8` (the same arguments), writing exactly the bytes
//! of the CPU encoder (`gpucomp::cpu::ans::compress_in_batch`, whose module docs define the
//! format): byte, FLOAT16 and FLOAT32 modes (`ans_compress`), FLOAT16 and FLOAT32 with smaller
//! staging buffers (`ans_compress_float`) and FLOAT8 E4M3 (`ans_compress_float8`), one or two
//! states per lane, every `max_sub_chunk_count`, exact and sampled histograms. The options are
//! nvCOMP's raw values (`data_type` as `nvcompType_t`, 0 meaning "default" for the three
//! counts); `max_chunk_bytes` is the batch's largest chunk, which sets the sub-chunk size.
//! [`Kernel::for_batch`] says which kernel the host launches.
//!
//! Launch geometry (1-D), the same for all three but their shared memory:
//!
//! | kernel | block (threads) | grid | shared memory |
//! | --- | --- | --- | --- |
//! | `ans_compress`, `ans_compress_float8` | [`COMPRESS_BLOCK_THREADS`] (4 warps) | [`compress_grid_dim`]`(num_chunks)` | static only ([`COMPRESS_SHARED_BYTES`] = 37 840 B); pass 0 dynamic bytes |
//! | `ans_compress_float` | the same | the same | static only ([`FLOAT_COMPRESS_SHARED_BYTES`] = 27 152 B); pass 0 dynamic bytes |
//!
//! FLOAT8 has a kernel of its own because, inlined beside the other modes, its code cost them
//! registers: with it, ptxas reloaded 412 bytes of spilled values (208 without) and FLOAT16
//! compression ran 6 % slower, text 2.4 % (H200, side by side; the two kernels measure as the
//! one before within 1 %). FLOAT16 and FLOAT32 have one too, for sub-chunks of at most
//! [`FLOAT_STAGE_SYMBOLS`] symbols (64 KiB chunks with the default options): without the byte
//! mode's code ptxas spills 136 B rather than 172, and its [`FLOAT_STAGE`]-byte staging buffers
//! (a sub-chunk's words at nvCOMP's bound of 10 bits a symbol) leave six blocks' spilled
//! registers 60 KiB of L1 rather than 28: 1.02–1.04× `ans_compress` on FLOAT16 (twenty-seventh
//! and twenty-eighth runs below). Larger float sub-chunks, which would outgrow its buffers, go
//! to `ans_compress`. Each kernel takes its own data types only (the others' are
//! `NOT_SUPPORTED`), and the mode is an expression of its own modes only (a constant in the
//! FLOAT8 kernel), so that the others' code drops out.
//!
//! Outputs must hold `AnsOptions::max_compressed_chunk_size(in_bytes[i])` bytes (the batch
//! maximum's bound is larger, so nvCOMP's buffers qualify); the kernel uses the space beyond the
//! chunk as scratch and never writes past that bound.
//!
//! # Design
//!
//! One thread block per chunk (blocks loop over chunks beyond the grid).
//!
//! 1. **Histogram**: the block reads the chunk in 16-byte groups, extracts the symbols (bytes,
//!    or the exponent byte `(h >> 7) & 0xFF` of each half / `(v >> 23) & 0xFF` of each float)
//!    and counts them with shared-memory atomics into one sub-histogram per warp (a counter's
//!    address is a shift and one `LOP3` that masks the symbol and ORs in the warp's 1 KiB
//!    offset; the block's base stays a uniform register of the atomic); whole aligned groups
//!    take one 16-byte load and symbols at constant positions, four groups per thread per
//!    batch, the next batch loaded into a second register set while this one is counted, the
//!    rest (unaligned input, the last groups) a byte-wise path. Sampled histograms
//!    (`histogram_reduction_log2 > 0`, at least 4096 symbols) count only the head of each of
//!    the 8 slices. FLOAT16 with the exact histogram, aligned input and an 8-byte aligned raw
//!    section: the histogram also writes the whole groups' raw bytes from the groups it loaded
//!    (a rotate per pair of halves, one `PRMT` per two pairs, one 8-byte store per group: 34
//!    SASS instructions per group in all), so the input is not read a third time.
//! 2. **Table** (the whole block, after the rest of the float modes' raw section: FLOAT16 two
//!    raw bytes per pair of halves, one 8-byte store per group, for the groups the histogram did
//!    not write; FLOAT32 the quad's three interleaved words): thread `t` owns symbols `2t` and
//!    `2t + 1`; the quantisation is `FSE_normalizeM2` exactly as `cpu::ans::normalize` computes
//!    it (64-bit integers, every division the same). Its sums over the symbols are block
//!    reductions (warp sums, then the warps' words in shared memory after a barrier: the present
//!    symbols and their total, then the low-probability ones), and the cumulative frequencies
//!    one block scan: `acc` before a symbol is `mid + rStep · B` (`B` the counts of the
//!    distributed symbols before it), so the rounded frequencies telescope and `cum` is
//!    `(acc >> vStepLog)` plus the number of low-probability symbols before it. (Warp 0 alone
//!    took about 900 instructions per chunk for it while the other three warps waited at the
//!    barrier: 8.5 % of all stall samples on text.) The threads store the frequency table; then
//!    the whole block computes, two symbols per thread and with 32-bit divisions, the
//!    encoder's [`Entry`] per symbol, one shared table of 4-byte words per field: a 32-bit
//!    reciprocal (`x / f` as a `mul.hi` and a shift, exact for the states a symbol codes when
//!    `f < M/2`, and checked for larger `f`) and one word packing `M − f` (whose top bits also
//!    give the emission test), `cum` and the shift; the encoder loads these two words (two
//!    4-byte loads: 1.4 bank-conflict wavefronts each on text against 7.9 for one 16-byte load
//!    of a 16-byte entry) and codes with four instructions besides the quotient: `M − f` is
//!    one shift, `x + ([1] >> 5)` one `LEA.HI` (it adds `cum` and `(M − f) · 2^(27−pb)`), and
//!    `(q − 2^(27−pb)) · (M − f)` an add and a multiply-add that take the surplus back
//!    (unpacking `cum` with a shift and an `SGXT` and adding it took five). A chunk where
//!    some symbol has no such entry (a symbol above about 0.7·M, or one symbol only) takes exact
//!    entries (a 43-bit reciprocal, any 32-bit state) and the general step loop throughout.
//! 3. **Encode**: warp `w` encodes sub-chunks `w, w + 4, …`, lane `j` holding its `spl` states
//!    in registers and walking the schedule backwards (`cpu::ans::rans::encode_sub_chunk`): per
//!    step a ballot per state of "emits a word"; a state's word goes to position `W + popc` of
//!    the flags of the higher lanes (and of its lane's higher states), which is the CPU's
//!    emission order (lanes descending, states descending).
//!    * Whole tiles of an aligned sub-chunk with fast entries (every body tile of 32·8 symbols
//!      in byte and FLOAT16 mode, every whole FLOAT32 tile of 32·4) take `tile_fast`: the
//!      lane's 8 or 16 symbol bytes in one load, issued a tile ahead; steps unrolled with
//!      constant symbol positions, no per-symbol validity test and no per-word bounds check;
//!      L2 is asked for the tile two beyond the one loaded (`prefetch.global.L2`). A state's
//!      word store, its shift and the cursor's advance are three instructions predicated in
//!      place on the emission flag (inline PTX: written as a branch, ptxas copied the state
//!      and the cursor through spare registers and computed the emission test twice), and a
//!      FLOAT16 or FLOAT32 symbol's entry offset is a shift and a mask. Executed per tile (4
//!      steps of 64 symbols, two states per lane, page hand-over and next tile included; ncu
//!      of q below): 184 SASS instructions in byte mode, 193 in FLOAT16 mode (m: 205 and 214);
//!      the prefetch adds 3. Tails, partial and unaligned tiles and exact entries take the
//!      general step loop.
//!    * A sub-chunk is staged whole in its warp's buffer in shared memory ([`STAGE`] = 8 320 B:
//!      8192 byte symbols at a ratio down to about 1.06, with their 256 bytes of final states;
//!      [`FLOAT_STAGE`] = 5 648 B in `ans_compress_float`: 4096 symbols at 10 bits; the
//!      histograms' memory at first). Sub-chunks go in rounds of four (one per warp); after
//!      a round's barrier the sizes of all sub-chunks before a warp's are known, and it writes
//!      its sub-chunk straight to its final offset `data + Σ roundup16(size)` (one 16-byte store
//!      per lane and round, zero padding included; byte-wise when the output is not 16-byte
//!      aligned). A sub-chunk that outgrows the buffer (a tile emits at most `32·8` words, so
//!      this is checked per tile) spills: its words so far go to its scratch slot in the output,
//!      `roundup16(128·spl + ⌈pb·S/8⌉)` bytes for `S` symbols (the most nvCOMP's bound allows
//!      it), laid out from the chunk's data offset, and so do the rest and its final states.
//!      Staged sub-chunks after a spilled one go to their slots too.
//! 4. **Place** (only after a spill): sub-chunk `i` from the first spilled one on moves down
//!    from its slot to its final offset: one pass of the whole block over the final bytes, four
//!    16-byte pieces per thread and round (8 KiB per barrier; byte-wise when the output is not
//!    16-byte aligned), each thread following which sub-chunk its pieces belong to. A piece
//!    comes from at or above its final offset, so a round's loads never read what an earlier
//!    round stored. A sub-chunk larger than its slot (possible only for
//!    adversarial symbol statistics) makes warp 0 encode the whole chunk again, sub-chunk by
//!    sub-chunk at the final offsets, bounded by the output's size
//!    (`OUTPUT_BUFFER_TOO_SMALL` if it does not fit, as the CPU encoder with that output).
//! 5. **Header** and size table, zero padding between the parts.
//!
//! **L2** (sm_90 builds; the hints need PTX 7.4, the sm_80 build is PTX 7.0): the encode's tile
//! loads (the input's second and last read), the FLOAT16 raw bytes the histogram writes and the
//! sub-chunks written to their final offsets carry an `evict_first` cache policy, so that the
//! input the histogram read stays in L2 for the encode (792 chunks in flight on an H200 are
//! 52 MB of input against its 50 MB L2). Nsight Compute on j (before staging), comment batch:
//! DRAM reads 614 → 480 MB, writes 291 → 194 MB, L2 hits 40 → 60 % with the hints (and a
//! `discard` of the scratch slots that staging made unnecessary). Loading the histogram's
//! groups `evict_last` changed no DRAM bytes and cost 1 % on text. The input's loads do not
//! allocate in L1 (`L1::no_allocate`: the spilled registers, reloaded at each sub-chunk, stay
//! there; FLOAT16 +2.5 %).
//!
//! **FLOAT8 E4M3** follows the same steps with its own symbols and tiles (`cpu::ans::float`,
//! `cpu::ans::rans`): a symbol per pair of values (`e(a) | e(b) << 4`, the exponents), a raw
//! byte per pair (the sign-and-mantissa nibbles) and an odd last value raw as it is; both from a
//! word of two pairs with a shift, a mask and an OR, then a `PRMT` per two words (the histogram
//! counts the symbols like FLOAT16's and, like FLOAT16's, writes the raw bytes of the groups it
//! loads, [`raw_f8`] the rest during the table); body
//! tiles of 32·4 symbols (a lane's 4 pairs in one 8-byte load), `pb` 11; a sub-chunk without a
//! tail is *seeded*: each state starts at `f · 2^(16−pb)` of the first symbol it codes (the last
//! step's), read from the input and the entries' `M − f`; a sub-chunk of one byte codes nothing
//! and is stored empty, a chunk of one value has nvCOMP's one zero table entry; the sampled
//! histogram's slices count bytes (`cpu::ans::histogram::sample_slice`). Full runs (1453c24,
//! 2^27 normal values as E4M3, 64 KiB chunks, ratio 1.190 as nvCOMP's): 809.9 GB/s against
//! nvCOMP's 809.6 on an H200, 718.0 against 721.9 on an H100 (alternating, 1.005× on both);
//! before the histogram wrote the raw bytes (a third read of the input) 0.77×.
//!
//! Statuses, as `compress_in_batch`: unknown data type `NOT_SUPPORTED` (and the other kernel's
//! data types); bad option values `INVALID_VALUE`; more than 2^24 bytes `CHUNK_SIZE_TOO_LARGE`;
//! a length that is not a whole number of elements (FLOAT16, FLOAT32) `INVALID_VALUE`;
//! `out_bytes` is 0 for all of them. Empty chunks give the CPU's 32-byte chunk. Inputs and outputs may have any alignment
//! (unaligned ones take byte-wise paths).
//!
//! Launch bounds `.maxntid 128`, `.minnctapersm 6` (24 warps per SM): ptxas (CUDA 13) gives 80
//! registers on sm_80 and sm_90, 220 B (sm_80) and 172 B (sm_90) of spill stores (values kept
//! across the chunk and sub-chunk loops; the encode's tile loops have none; the FLOAT8 kernel
//! 196 B and 220 B, the float kernel 148 B and 136 B), 37 840 B static
//! shared memory (six blocks and the driver's 1 KiB each take 233 184 of an H100's or H200's
//! 233 472 bytes; an A100 holds four; the float kernel's 27 152 B leave 60 KiB of L1: 169 056 B fit the 196 KiB carveout). At
//! 5 blocks (96 registers) it spills 20 B on sm_90. Before the whole sub-chunks were staged (8 464 B of shared memory) it spilled 132 B
//! (sm_80) and 128 B (sm_90), at 5 blocks nothing on sm_90 and 8 B on sm_80; at 7 blocks (72 registers) 276 B and at 8 blocks (64
//! registers) 468 B on sm_90. Before the fused FLOAT16 raw bytes the 5-block build spilled 44 B
//! on sm_90. 7 blocks measure +2 % on text and −3 % on FLOAT16 (H200, a69d1a9, side by side:
//! 595 / 622 / 659 GB/s against 584 / 607 / 676 at 6 blocks).
//!
//! Measured (H200, 2026-11-21, `benches/kernels/ans_compress.py`: the first 8 MiB of each anchor
//! replicated to 256 MiB (weights: 4 Mi halves to 128 MiB), 64 KiB chunks, default options, every
//! chunk equal to the CPU encoder's; CUDA events, median of 15; cubins of each build side by
//! side; rows up to the first d from earlier runs, the rows from "d, again" on from one later
//! run, in which d came out 1–3 % below its first figures), GB/s:
//!
//! | build | lineitem.tbl | lineitem_comment.txt | weights.f16 (FLOAT16) |
//! | --- | --- | --- | --- |
//! | before (the kernel of 428a54c) | 155.3 | 156.1 | 166.1 |
//! | a: words staged in shared memory, 16-byte page stores, exact entries only (run 1) | 327.0 | 329.3 | 249.9 |
//! | b: a + fast entries, unrolled `tile_fast` (run 1) | 328.0 | 337.0 | 251.4 |
//! | b at 8 blocks per SM (64 registers, 544 B spilled; run 1) | 387.1 | 407.0 | 312.6 |
//! | c: b + cursor as a shared pointer (= run 1's b within 1 %) | 333.1 | 343.3 | 253.3 |
//! | d: c + histogram by whole 16-byte groups, alignment tests by mask, sub-histograms summed by the block (b3bfa8c) | 393.8 | 408.0 | 387.0 |
//! | d + table divisions by 16-bit digits (no 64-bit division calls) | 386.9 | 401.8 | 379.9 |
//! | the same at 6 blocks per SM (80 registers, 292 B spilled) | 397.8 | 424.6 | 384.4 |
//! | d, again (later run) | 383.1 | 404.2 | 384.1 |
//! | e: d + four histogram loads in flight per thread | 433.3 | 447.8 | 429.5 |
//! | f: e + placement in one pass, four pieces per thread and round | 436.6 | 467.9 | 432.8 |
//! | g: f + entries as per-field 4-byte tables (two loads per symbol, `M − f` and `cum` unpacked), `mul.hi` | 464.8 | 486.2 | 440.3 |
//! | f + three tables (`cum` loaded, not unpacked) | 461.5 | 488.3 | 441.0 |
//! | the three-table build at 5 blocks per SM (96 registers, 120 B spilled) | 495.2 | 525.7 | 417.2 |
//! | the three-table build at 6 blocks per SM (80 registers, 300 B spilled) | 476.7 | 516.9 | 449.3 |
//! | *a third run:* d | 389.5 | 403.1 | 379.1 |
//! | g | 461.3 | 481.1 | 437.0 |
//! | h: g + raw section by warps 1–3 during the table, entries by the whole block with 32-bit divisions | 504.2 | 525.0 | 615.8 |
//! | h + each histogram batch loaded while the one before is counted, 32-bit placement offsets | 512.3 | 535.8 | 629.4 |
//! | the same at 5 blocks per SM (96 registers, 24 B spilled) | 545.8 | 569.8 | 594.8 |
//! | *a fourth run (anscomp5's run 3):* the kernel of d1174e2 (= the row above at 4 blocks) | 518.1 | 538.3 | 638.7 |
//! | i: FLOAT16 raw bytes written by the histogram, 5 blocks per SM (96 registers, no spills) | 563.5 | 585.6 | 681.2 |
//! | i at 8 blocks per SM (64 registers, 468 B spilled) | 568.1 | 586.5 | 648.6 |
//! | i at 6 blocks per SM (80 registers, 128 B spilled; 848f049) | 579.0 | 602.2 | 686.0 |
//! | *a fifth run (anscomp6):* the kernel of 848f049 (i at 6 blocks) | 578.9 | 602.4 | 682.9 |
//! | the same, again in that run | 579.7 | 602.0 | 686.4 |
//! | j: i + the state update through `LEA.HI` (one instruction less per symbol) | 585.7 | 609.6 | 691.1 |
//! | j + the cursor as a word count (one add less per step at two states per lane) | 584.4 | 609.9 | 691.3 |
//! | *a sixth run (lead, 2026-11-21):* j (93b36f7) | 586.0 | 610.5 | 697.2 |
//! | j, again in that run | 584.2 | 611.8 | 686.7 |
//! | k: j + whole sub-chunks staged in shared memory and written once to their final offsets (no placement pass) | 636.5 | 660.6 | 756.1 |
//! | k, again in that run | 638.2 | 659.2 | 756.5 |
//! | k at 5 blocks per SM (96 registers, 20 B spilled) | 640.4 | 664.0 | 759.4 |
//! | *a seventh run:* k | 637.6 | 659.3 | 748.7 |
//! | k + the whole chunk prefetched into L2 at its start (`prefetch.global.L2`, 4 per thread) | 619.1 | 652.1 | 743.3 |
//! | the same with `L2::evict_last` | 614.1 | 647.5 | 732.2 |
//! | *an eighth run:* k | 632.7 | 649.4 | 745.5 |
//! | l: k + the table by the whole block | 622.2 | 671.0 | 766.9 |
//! | **this one**: m, l + L2 `evict_first` hints | **647.0** | **678.6** | **761.4** |
//! | m at 5 blocks per SM (96 registers, 20 B spilled) | 642.3 | 666.5 | 762.6 |
//! | k, again in that run | 630.8 | 649.3 | 736.0 |
//! | l, again | 645.3 | 674.2 | 779.6 |
//! | m, again | 655.2 | 671.9 | 771.6 |
//! | m at 5 blocks, again | 642.4 | 672.2 | 750.9 |
//! | *a ninth run:* m | 662.2 | 689.5 | 793.8 |
//! | m + tiles loaded two ahead (80 registers, 176 B spilled) | 651.5 | 673.2 | 774.3 |
//! | m with 6 KiB staging buffers at 7 blocks per SM (72 registers, 308 B spilled) | 654.3 | 675.2 | 747.4 |
//! | both | 645.0 | 666.5 | 718.8 |
//! | m, again (and the others within 1 % of their first figures) | 662.7 | 686.6 | 789.9 |
//! | *a tenth run:* m | 654.2 | 678.8 | 779.6 |
//! | m + the histogram's loads by `cp.async` into a ring of three batches per thread in the staging buffers | 651.9 | 688.6 | 780.2 |
//! | m, again | 656.5 | 681.3 | 777.0 |
//! | the `cp.async` ring, again | 650.6 | 689.8 | 781.2 |
//! | *an eleventh run:* m (ce8cf70) | 653.9 | 683.5 | 784.9 |
//! | m + the next tile loaded without a branch (tile 0's again after the last; 2 SASS less per tile) | 660.3 | 684.2 | 777.2 |
//! | the same + two tiles per loop iteration (5 SASS less per tile) | 661.7 | 685.6 | 771.9 |
//! | m, again | 656.5 | 682.3 | 781.4 |
//! | no branch, again | 659.8 | 684.8 | 778.6 |
//! | two tiles, again | 662.7 | 683.3 | 776.7 |
//! | *a twelfth run (lead, 2026-11-22):* m (628053d) | 656.0 | 682.7 | 779.0 |
//! | n: m + counters by shift and `LOP3`, FLOAT16 raw bytes by `PRMT`, two batch register sets; FLOAT16 entry offsets by shift and mask | 672.7 | 704.3 | 803.8 |
//! | o: n + emission predicated in place (inline PTX) | 689.7 | 722.2 | 814.9 |
//! | m, n, o again (each within 1 % of the above) | 657.8 / 673.9 / 689.9 | 682.1 / 703.9 / 723.5 | 784.3 / 806.6 / 810.5 |
//! | o + three histogram batches in turn (48 registers of loads; 412 B spilled; another run, o there 686.5 / 718.9 / 767.5) | 651.9 | 678.4 | 725.2 |
//! | *a thirteenth run:* o | 686.9 | 719.8 | 806.9 |
//! | p: o + input loads `L1::no_allocate` | 686.6 | 718.7 | 827.6 |
//! | o + FLOAT16 entry address by OR into the 1 KiB aligned tables (one add less per symbol) | 685.2 | 721.2 | 803.4 |
//! | *a fourteenth run:* p | 685.8 | 722.7 | 830.9 |
//! | q: p + staged pieces written without per-piece bounds checks when aligned with room (6a60f36) | 688.3 | 724.9 | 841.4 |
//! | q at 5 blocks per SM (96 registers, 12 B spilled) | 662.7 | 700.5 | 822.4 |
//! | q + the histogram's batches asked of L2 two / three / five batches ahead (another run) | ±1 % | ±1 % | −1 to −3 % |
//! | *a fifteenth run:* q | 676.2 | 726.6 | 833.4 |
//! | **this one**: r, q + the tile two beyond the loaded one asked of L2 | **692.5** | **736.0** | **852.7** |
//! | the same one / four tiles beyond | 691.6 / 694.2 | 736.1 / 735.6 | 849.9 / 848.4 |
//! | q, r again | 686.9 / 695.2 | 725.0 / 736.4 | 840.4 / 852.3 |
//! | r + each sub-chunk's last 2 KiB asked of L2 a sub-chunk ahead (another run, r there 693.8 / 736.0 / 845.5) | 691.5 | 733.3 | 815.9 |
//! | r with the FLOAT16 raw bytes written by the encode from its tiles, not by the histogram (336 B spilled; r there 693.6 / 730.5 / 799.1) | 650.2 | 681.2 | 781.6 |
//! | probe: r without the FLOAT16 raw stores (wrong output; r there 808.9 / 817.1) | | | 906.9 / 916.0 |
//! | r with two groups' raw bytes per 16-byte store (lanes paired by shuffles; another run, r there 851.1 / 852.0) | | | 832.7 / 829.1 |
//! | *a sixteenth run (2026-11-22):* r (39c7795) at 6 / 5 / 4 / 3 / 2 blocks per SM (dynamic shared memory as padding) | 691.6 / 663.8 / 615.6 / 535.4 / 412.7 | 730.0 / 700.4 / 649.5 / 555.4 / 418.6 | 846.1 / 803.5 / 777.4 / 650.3 / 546.0 |
//! | r + the histogram reading the encode's rounds last one first (r there 674.6 / 733.3 / 851.5, again 690.2 / 732.4 / 835.2) | 690.7 / 689.7 | 721.3 / 723.0 | 814.1 / 803.5 |
//! | r + FLOAT16 symbols copied by the histogram (a byte each, `evict_last`, at the end of the output's space) and encoded from the copy; 200 B spilled, one reload in the histogram loop (r there 692.1 / 735.0 / 859.5) | 681.7 | 725.2 | 796.0 |
//! | the copy by plain stores, without the reload or a runtime check (196 B spilled; another machine, r there 689.9 / 700.7 / 800.9) | 660.9 | 698.1 | 758.7 |
//! | r + each sub-chunk's last 1 KiB asked of L2 before its encode (round 0 during the table) / round 0 only (r there 694.8 / 733.9 / 861.3) | 697.9 / 692.8 | 737.9 / 732.6 | 846.1 / 849.6 |
//! | r with two / three histogram groups per thread and batch (means of three; r 850.5 on FLOAT16) | ±0.5 % | −1 to −0.5 % | 844.3 / 850.7 |
//! | r with the histogram's loads `evict_first` / the raw stores without a hint (means of four / three; r 841.3) | ±1 % | ±1 % | 846.0 / 832.2 |
//! | **s**: r with 8 320-byte staging buffers (7 168 before; six blocks per SM still fit): weights as bytes (ratio 1.055, every sub-chunk spilled before) 595.5 against r's 523.1 (means of three; nvCOMP 594.3), the rest the same (r there 692.2 / – / 847.0) | 695.9 | | 848.1 |
//! | *a seventeenth run:* s + the FLOAT16 symbols of the second round's sub-chunks kept by the histogram at the end of the staging buffers (a byte each, 4 KiB per warp) and encoded from shared memory (240 B spilled; means of three, s there 682.4 / – / 823.9) | 665.7 | | 802.0 |
//! | probe: s with every encode tile load from one address (L2 hits, wrong output; means of three, s there 690.8 / – / 846.0) | 706.9 | | 908.2 |
//! | *an eighteenth run (2026-11-27):* s (1453c24's kernel), means of three | 682.1 | 735.2 | 852.1 |
//! | s with 8 warps per chunk (256 threads, one encode round of 8 sub-chunks), 3 blocks per SM (80 registers, 71 248 B of dynamic shared memory, 280 B spilled), means of three | 607.1 | 646.6 | 761.9 |
//! | s, four times the batch (16 384 / 8 192 chunks), means of two | 745.3 | 813.9 | 1056.4 |
//! | the 8-warp build, four times the batch | 651.4 | 699.0 | 904.2 |
//! | s with the first wave's odd slots (block `b < 6 · %nsmid`, `(b / %nsmid)` odd) started 5 / 10 / 20 µs late (`nanosleep`), means of two (s there 678.4 / 723.9 / 832.7) | 669.8 / 672.2 / 668.2 | 718.3 / 719.3 / 716.2 | 831.3 / 832.7 / 826.3 |
//! | *a nineteenth run (2026-11-27; a memset of the temp space and the launch from Python in each timed call):* s (5848f9f's kernel) | 673.9 | 738.3 | 840.9 |
//! | tail split: blocks take work items by ticket (an atomic counter in temp space); the last K = 0 / 264 / 792 chunks each as two items, the second (histogram and table again, stored nowhere) encoding the second half of the rounds and placing them after the first's signal (144 B of local memory against 88) | 647.2 / 640.6 / 625.2 | 693.3 / 695.9 / 666.0 | 780.8 / 763.3 / 709.8 |
//! | *a twentieth run (launches by `cuLaunchKernelEx` from Python's ctypes):* s | 667.4 | 713.6 | 778.6 |
//! | s on the first N − K chunks, then the 8-warp build on the last K = 132 / 264 / 528 (programmatic dependent launch: its blocks take the SMs as s's retire) | 668.8 / 665.6 / 653.4 | 709.5 / 708.4 / 699.2 | 770.9 / 730.8 / 689.4 |
//! | the 8-warp build on every chunk | 590.2 | 632.9 | 698.8 |
//! | *a twenty-first run:* s, in turn with the next row (two orders) | 688.6 / 688.9 | 739.5 / 735.6 | 810.7 / 819.4 |
//! | s + FLOAT16 sub-chunks by pairs: warp `w` codes sub-chunks `w` and `w + 4` at once, their tile steps interleaved, each in half the staging buffer (316 B spilled against 172) | 681.7 / 680.0 | 719.2 / 719.9 | 744.6 / 767.1 |
//! | *a twenty-second run:* s, first and last of two orders | 669.8 / 686.2 | 738.9 / 736.6 | 850.4 / 841.6 |
//! | s + the last 132 / 264 / 528 chunks' whole input asked of L2 at their start (`prefetch.global.L2`, 4 lines per thread; their histogram and encode then read L2), first order | 689.1 / 690.6 / 690.8 | 731.4 / 730.1 / 730.2 | 851.5 / 846.8 / 837.9 |
//! | the same, second order | 677.4 / 676.2 / 690.6 | 730.1 / 725.5 / 730.1 | 842.9 / 837.9 / 841.2 |
//! | *a twenty-third run (2026-11-27):* s with 0 / 19.7 / 39.3 MB of L2 set aside for persisting lines (`cudaLimitPersistingL2CacheSize`; 39.3 of the H200's 62.9 MB the most) | 675.2 / 676.0 / 525.5 | 737.0 / 710.9 / 559.8 | 794.4 / 681.9 / 406.6 |
//! | s + the histogram's loads `L2::evict_last` (persisting), the same set-asides | 686.1 / 681.5 / 618.6 | 730.6 / 720.9 / 653.6 | 796.2 / 792.4 / 489.9 |
//! | *a twenty-fourth run:* s, two orders | 685.7 / 691.4 | 732.1 / 739.7 | 854.1 / 847.7 |
//! | s with `Mode`'s properties and the data type's mode as arithmetic (LLVM made the `match`es lookup tables in global memory, loaded at each chunk's start; 188 B spilled) | 682.6 / 693.3 | 721.8 / 729.9 | 852.5 / 847.2 |
//! | *a twenty-fifth run:* s, two orders | 693.7 / 694.1 | 742.1 / 742.7 | 837.2 / 816.8 |
//! | s + each sub-chunk's first tile copied ahead into the last page of its warp's staging buffer by `cp.async` (round 0's during the table, the next round's before the round's barrier; 164 B spilled) | 689.1 / 687.0 | 727.6 / 726.4 | 841.2 / 816.6 |
//! | *a twenty-sixth run:* s, two orders | 664.9 / 690.4 | 736.6 / 737.0 | 844.3 / 839.5 |
//! | s with 6 912-byte staging buffers (six blocks' 199 392 B of shared memory fit the 196 KiB carveout, which leaves L1 60 KiB rather than 28 for the spilled registers) | 694.5 / 692.1 | 739.4 / 739.1 | 848.4 / 857.2 |
//! | nvCOMP 6 | 675.2 | 696.0 | 900.6 |
//!
//! The eighteenth run measured how much of the time the launch's first and last waves take:
//! the same kernel compresses four times the batch (the anchors' 2048 FLOAT16 chunks, 2.6 waves
//! of the 792 blocks an H200 holds, against 8192) 1.24× faster on FLOAT16 (1.09× on text, 1.22× on
//! FLOAT8). Fitted as `time = waves · T + D`, a wave takes T = 45 µs and the launch D = 41 µs more,
//! about a chunk's lifetime: the last wave drains with ever fewer blocks per SM (and the first
//! wave's blocks all read their chunks at once, then all encode; but starting half of them late,
//! so that their phases overlap, measured the same or slower). Eight warps per chunk
//! halve a chunk's lifetime, but at 3 blocks per SM they measured 10–15 % slower at either batch
//! size (fewer blocks in different phases per SM, two idle table warps, half as many histogram
//! batches per thread to pipeline): not kept.
//!
//! The nineteenth and twentieth runs asked what D is. Time against the number of FLOAT16 chunks
//! (s, one launch each, Python's launch included) is a line beyond one wave, 50 µs + 0.0567 µs
//! per chunk (45 µs per 792), not a staircase: 132 chunks (one block per SM) take 40 µs, 792 77
//! µs, 2048 163 µs, 8192 515 µs. Per-phase `%globaltimer` stamps of a build that recorded them
//! (2048 FLOAT16 chunks, 148–158 µs from the first block's start to the last one's end): the
//! first wave's 792 blocks take 19–22 µs for the histogram (8.5–9.5 µs in the later waves: all
//! of them read 52 MB and write 26 MB of raw bytes at once, about 4 TB/s), 4–6 µs for the
//! table, 30–33 µs for the encode (28–30 later), 55–60 µs in all (42–47 later); the last 464
//! blocks start between 101 and 113 µs and live 34–38 µs, so that from 115 µs on fewer and
//! fewer blocks run (82, 67, 59, 57, 39, 16 % of 792 in 5 µs steps). Two ways of finishing the
//! last chunks sooner measured the same or slower (rows above): splitting each of the last K
//! chunks in two items (the second part's histogram, table and wait cost more than the shorter
//! tail saves, and the ticket loop alone cost 4–7 % through ptxas's spills), and an 8-warp
//! kernel for the last K chunks launched dependent on s's (the same at K = 132, slower beyond).
//! nvCOMP pays the same kind of cost: alternately with it (`scripts/gpu/batch-sizes.sh`, H200,
//! 5f61097), it compresses twice and four times the weights batch at 978.0 and 1038.7 GB/s
//! against 883.4 (ours 980.3 and 1063.5 against 873.1), so its fit is T = 122 µs per 2048 chunks
//! and D = 30 µs, ours T = 117 µs and D = 37 µs; one chunk alone takes it 24.3 µs a call, us
//! 29.4 µs (decompression 18.2 against 25.0). What is left at the anchors' batch is a chunk's
//! latency: the encode's dependency chains (each warp codes two sub-chunks in turn, 64 steps
//! each). Coding a warp's two sub-chunks at once, their steps interleaved for twice the
//! independent work per warp, measured 6–8 % slower on FLOAT16 and 1–3 % on text (twenty-first
//! run; ptxas spilled 316 B against 172, every chunk equal to the CPU encoder's): not kept. Nor
//! does asking L2 for the last chunks' whole input at their start shorten the drain (the same
//! within 1.5 % on FLOAT16, twenty-second run).
//!
//! The twenty-third to twenty-sixth runs looked at L2 and a chunk's latency. Whether L2 keeps the
//! histogram's reads for the encode when they persist: the set-aside costs the other lines more
//! than the persisting ones gain (FLOAT16 794 → 682 → 407 GB/s with 0 / 19.7 / 39.3 MB set aside;
//! with `evict_last` histogram loads 796 → 792 → 490), and with none `evict_last` acts as
//! `evict_normal`. Where one chunk's time goes when it runs alone (`%globaltimer` stamps of a build
//! that records them, FLOAT16, one block, 28.7 µs): histogram 4.3 µs, table 2.6, header 1.1,
//! entries 1.3, encode 18.7 (two rounds of 64 steps per warp, about 270 cycles a step: one warp per
//! scheduler waits out each dependency), size table 0.7. Nsight Compute on 132 chunks (a block per
//! SM) finds a third of the stall samples waiting for instructions (the kernel is 535 KiB of SASS,
//! and each SM runs the FLOAT16 path once, cold) and a third in the code run once per chunk; at the
//! anchors' 2048 chunks 6 % and 17 %, the tile loop 45 %, the histogram loop 20 %. The largest
//! single waits there, each sub-chunk's first tile (3.7 % of the samples) and spill reloads from L2
//! (about 4 %: six blocks' 88-byte stack frames are 68 KB against the 28 KB of L1 beside the shared
//! memory), are hidden by the other warps: copying the first tiles ahead measured 1–2 % slower at
//! every batch size from 1 to 8192 chunks, and the chunk start without lookup tables the same or up
//! to 1.5 % slower (its 16 B more spilled). Smaller staging buffers, so that the spilled
//! registers fit L1 (twenty-sixth run), measured 0.5–2 % faster on FLOAT16 (157.4 against 158.3
//! µs a launch of 2048 chunks, 504.6 against 510.7 of 8192) and the same on text; not kept, as
//! they would spill every sub-chunk of bytes near a ratio of 1.06 again (0.88× as run s showed).
//!
//! The twenty-seventh and twenty-eighth runs (H200, 2026-11-27) gave FLOAT16 and FLOAT32 a kernel
//! of their own. Time per launch of 1 / 132 / 792 / 2048 / 8192 FLOAT16 chunks (the builds
//! interleaved per count, medians of three rounds of 25 launches, µs; the twenty-eighth run's
//! rows in both orders):
//!
//! | build | 1 | 132 | 792 | 2048 | 8192 |
//! | --- | ---: | ---: | ---: | ---: | ---: |
//! | s (`ans_compress`) | 36.5 | 40.2 | 77.2 | 163.5 | 520.1 |
//! | s with 5 648-byte staging buffers | 35.9 | 38.9 | 78.0 | 162.8 | 511.5 |
//! | **t**: s's body for FLOAT16 and FLOAT32 alone, 5 648-byte buffers (`ans_compress_float`, 136 B spilled) | **33.9** | **37.9** | 77.4 | **160.0** | **502.3** |
//! | t at 7 blocks per SM (72 registers, 256 B spilled) | 36.0 | 39.5 | 79.4 | 165.3 | 511.6 |
//! | t for FLOAT16 alone (224 B spilled) | 34.6 | 38.5 | 77.7 | 162.3 | 510.9 |
//! | *the twenty-eighth run:* s | 38.8 / 38.6 | 41.4 / 41.6 | 77.6 / 78.1 | 164.6 / 167.6 | 525.4 / 528.4 |
//! | t | 36.2 / 35.1 | 39.5 / 38.6 | 78.4 / 78.6 | 161.8 / 164.0 | 507.6 / 510.9 |
//! | t's body with 8 320-byte buffers | 36.8 / 35.9 | 41.0 / 40.0 | 77.1 / 78.2 | 162.6 / 164.7 | 499.3 / 515.5 |
//!
//! Both halves count: dropping the byte mode's code (172 → 136 B spilled) and smaller buffers
//! (the spilled registers' room in L1, 28 → 60 KiB). In the full runs at 51bbbc8 (side by side
//! with nvCOMP, 2048 chunks), t compresses the FLOAT16 weights at 901.0 GB/s against nvCOMP's
//! 892.2 on an H200 (1.01×; alternately, medians of five rounds, 894.3 against 880.0, 1.016×)
//! and 771.1 against 737.3 on an H100 (1.05×; 1.060× alternately), where s had measured
//! 0.97–1.00× and 1.04×. One chunk alone now takes 25.4 µs a call (nvCOMP 22.6; s 29.4).
//!
//! The seventeenth run's probe bounds what the encode's second read of the input (from DRAM: it
//! has left L2) costs FLOAT16: 7 %; keeping half of that read in shared memory cost more than it
//! saved (its stores in the histogram loop, and ptxas's spills for the pointers).
//!
//! The sixteenth run asked what bounds FLOAT16 (Nsight Compute on the weights batch, 134 MB of
//! input): not DRAM bandwidth. r moves 260 MB in and 104 MB out of DRAM (42 % of its peak): the
//! encode's second read of the input misses L2 almost wholly, with 3 blocks per SM still 225 MB.
//! The copy read by the encode instead took DRAM reads to 147 MB (L2 kept the copy) and writes to
//! 141 MB, 22 % less traffic, and ran 6–7 % slower: its stores lengthened the histogram's load
//! waits (long-scoreboard stalls in its loop 14 % of the samples against 9 %) by more than the
//! byte-mode tile loop and the sub-chunks' first tiles, now L2 hits, saved (2 % and 3 % of the
//! samples). Nor do the histogram's loads in flight bound it: two, three or four groups per
//! thread measure the same. No pipe is above 60 % (ALU 57 %, L1 58 %, LSU 31 %; issue slots 57 %
//! busy, no eligible warp 40 % of the cycles); the time is latency, the encode's dependency
//! chains and memory under load, over the 24 warps per SM that 80 registers allow, and every
//! request added (stores, prefetches) lengthens it. What is left for FLOAT16 is structural:
//! overlapping one chunk's histogram with another's encode within a block (warp-specialised),
//! or more warps per SM at equal registers.
//!
//! The fifteenth run's r is 1.05× m on text and 1.09× on FLOAT16 (runs vary by up to 5 % on
//! FLOAT16 between machines, hence the side-by-side rows): 1.03–1.06× nvCOMP's figures on text,
//! 0.95× on FLOAT16. The probe says where FLOAT16's remaining time goes: without the 32 KiB of
//! raw bytes per chunk (which every design must store) it runs 12 % faster; writing them from
//! the encode instead is slower still, and the histogram's loads do not wait less when L2 is
//! asked for them ahead (they wait for a memory system busy with the writes and the second
//! read). d was 2.5× the kernel before it, 0.58× nvCOMP on text and 0.43× on FLOAT16; g was 1.20× d,
//! and h with the batched histogram 1.32× d on text and 1.66× on FLOAT16 in the third run
//! (the FLOAT16 raw section no longer a pass of its own, and warp 0's 64-bit divisions for the
//! entries gone from the block's critical path). i is 1.12× that on text and 1.07× on
//! FLOAT16 in the fourth run; j is 1.01× i in the fifth (HEAD twice within 0.5 %): 0.87–0.88×
//! nvCOMP on text, 0.77× on FLOAT16. Staging whole sub-chunks (k) took 1.08–1.09× j on all three
//! in the sixth run: 0.94–0.95× nvCOMP on text, 0.84× on FLOAT16 (Nsight Compute of j had shown
//! the input read twice from DRAM: 613 MB read for 268 MB of text, the output's 154 MB written
//! as 290 MB, L2 hits 40 %; the placement's global write and read of every sub-chunk are gone).
//! The block-wide table and the L2 hints (m) took another 1.02–1.04× on text and 1.03–1.04× on
//! FLOAT16 in the eighth run (means of two): 0.96–0.97× nvCOMP on text, 0.85× on FLOAT16. Nsight
//! Compute of m (comment batch): IPC 3.10, issue slots 75 % busy, the tile loop 74 % of the
//! instructions and 62 % of the stall samples (no barrier or table wait left of note); on the
//! weights the histogram's loop takes 29 % of the samples (waiting for its loads) and 17 % of the
//! instructions, the tile loop 33 % and 60 %. A deeper histogram pipeline (`cp.async`, three
//! batches of loads in flight per thread without holding registers) measured the same on
//! FLOAT16 (+0.2 %), so its loads wait for memory, not for issue. What is left: fewer
//! instructions per encode step (text), and for FLOAT16 the histogram's and the encode's two
//! reads of each chunk. (The two loop variants of the eleventh run gain 1 % on lineitem.tbl, lose
//! up to 1 % on FLOAT16: not taken.) The word-count cursor cut another instruction per step
//! and measured the same, so it is not kept. More warps per SM
//! had paid on text but cost FLOAT16 5–6 % (the third input read of the raw section, each
//! chunk's input less often still in L2 with more chunks in flight; at 4 blocks the fused raw
//! bytes alone measure −1 % to +1 % on FLOAT16 and, through ptxas's choices at 128 registers,
//! −4 % on text); without that read 5 and 6 blocks pay on all three. What the rows say: the
//! word staging alone doubled text and took FLOAT16 from 166 to 250; the cheaper division then changed nothing by itself (b ≈ a): about half of the
//! remaining instructions were outside the encode step. The old kernel's profile showed where:
//! the alignment test `p % k` of `load` with a variable `k` was a 64-bit remainder subroutine
//! call (~70 instructions, 11.7 % of all its instructions; once per histogram group and per
//! tile) and the histogram's per-symbol loop was not unrolled (9.6 %). d's profile then showed
//! latency, not instructions: 15 % of its stall samples waited for the histogram's one load
//! per group (e: +11–13 %), the placement's 2 KiB rounds another 10 % (f: up to +4.5 %), and
//! the 16-byte entry loads took 7.9 bank-conflict wavefronts each (the shared pipe at 57 % of
//! its peak, three quarters of it these loads); per-field tables cut that to 1.5 (+2–6 %). Two
//! or three tables measure the same (the third load against the unpacking). Two histograms per
//! warp (even and odd lanes, banks skewed; anscomp5's run 1) measured 1 % slower on all three,
//! four per warp 3 % slower: hot-symbol atomics are not what the histogram waits for.
//!
//! ncu (h with the batched histogram, 4 blocks per SM: comment batch, 0.94 M cycles, IPC
//! 2.52, issue slots 61 % busy, no eligible warp 37 % of the cycles; g, below, d's figures in
//! parentheses). g, one launch on the comment
//! batch, 1.5 GHz: 1.05 M
//! cycles (1.23 M), 76 000 warp instructions per 64 KiB chunk (71 000: the unpacking), IPC 2.32
//! (1.82), issue slots busy 57 % (45 %), 0.94 eligible warps per scheduler (0.65) of 3.84,
//! 11 800 shared-memory wavefronts per chunk (22 100). By source, instructions / stall samples:
//! encode 75 % / 59 % (about 28 instructions per symbol and lane: two predicated moves, the
//! emission test computed twice, four `popc` per step), histogram 10 % / 13 %, placement 8 % /
//! 11 %, table 3 % / 3 % plus 9.5 % of the samples at its barrier (three warps waiting for warp
//! 0, whose nine 64-bit divisions are a quarter of its time; h moved that work). The placement
//! pass is gone since k (staging); what is left: fewer instructions per encode step.
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::batch::CompressArgs;
use crate::bits::prmt;
use crate::thread::{lane_here, thread_here};
use crate::warp::warp_scan;
use crate::{status, Thread};

/// Warps per thread block of `ans_compress`.
pub const COMPRESS_WARPS: usize = 4;
/// `blockDim.x` of `ans_compress`.
pub const COMPRESS_BLOCK_THREADS: u32 = COMPRESS_WARPS as u32 * 32;
/// Static shared memory of `ans_compress` and `ans_compress_float8`, bytes.
pub const COMPRESS_SHARED_BYTES: usize = core::mem::size_of::<GeneralShared>();
/// Static shared memory of `ans_compress_float`, bytes.
pub const FLOAT_COMPRESS_SHARED_BYTES: usize = core::mem::size_of::<FloatShared>();

/// `gridDim.x` of `ans_compress`: one block per chunk, capped at 65535.
pub const fn compress_grid_dim(num_chunks: u64) -> u32 {
    super::grid_dim(num_chunks)
}

/// Largest chunk nvCOMP's ANS compressor accepts.
const MAX_CHUNK_SIZE: usize = 1 << 24;
/// Most sub-chunks a chunk can have (`n ≤ max_chunk_bytes`, `max_sub_chunk_count ≤ 64`).
const MAX_SUB_CHUNKS: usize = 64;
/// Chunks with fewer symbols always use the exact histogram.
const EXACT_BELOW_SYMBOLS: usize = 4096;
/// Slices of a sampled histogram.
const SAMPLE_SLICES: usize = 8;
/// The states' lower bound, every state's initial value.
const STATE_INITIAL: u32 = 1 << 16;
/// 16-byte groups each thread of the histogram loads before counting them.
const HIST_LOADS: usize = 4;
/// How many tiles ahead of its loads the encode asks L2 for a tile.
const TILE_PREFETCH: u32 = 2;
/// Threads of a block.
const THREADS: usize = COMPRESS_BLOCK_THREADS as usize;

/// Shared memory of one thread block, with staging buffers of `PIECES` 16-byte pieces ([`STAGE`]
/// or [`FLOAT_STAGE`] bytes).
#[repr(C, align(16))]
pub struct Shared<const PIECES: usize> {
    /// The warps' staging buffers; until the encode, the first 4 KiB hold one symbol histogram
    /// per warp, then the table's frequencies and cumulative counts. (Pieces, not bytes: with
    /// byte arrays ptxas spilled 36–40 B more in `ans_compress` and `ans_compress_float8`.)
    stage: [[u128; PIECES]; COMPRESS_WARPS],
    /// The encoder's entries, field by field ([`Entry::store`]).
    enc: [[u32; 256]; 4],
    /// Stored size of each sub-chunk.
    sizes: [u32; MAX_SUB_CHUNKS],
    /// Whether a sub-chunk's words went to its scratch slot as they were coded (1) rather than
    /// staying in its warp's staging buffer.
    spilled: [u8; MAX_SUB_CHUNKS],
    /// Whether a sub-chunk outgrew its scratch slot.
    overflow: u32,
    /// The warps' partial sums of the table's rounds, two sets used in turn (a round's set is
    /// written only after the barrier of the round before, which every read of it precedes).
    partial: [[u32; 4 * COMPRESS_WARPS]; 2],
    /// `mn`, the number of table entries, and whether `enc` holds fast entries.
    table: [u32; 3],
}

/// The chunk's coding mode (from the data type).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bytes,
    Float16,
    Float32,
    /// FLOAT8 E4M3: a symbol per pair of values ([`f8_pair_symbols`]).
    Float8,
}

impl Mode {
    /// Input bytes per symbol (the element width, but a pair of FLOAT8 values).
    #[inline(always)]
    fn bps(self) -> usize {
        match self {
            Mode::Bytes => 1,
            Mode::Float16 | Mode::Float8 => 2,
            Mode::Float32 => 4,
        }
    }

    /// Probability bits.
    #[inline(always)]
    fn pb(self) -> u32 {
        match self {
            Mode::Bytes | Mode::Float8 => 11,
            Mode::Float16 | Mode::Float32 => 10,
        }
    }

    /// The chunk header's mode byte.
    #[inline(always)]
    fn code(self) -> u32 {
        match self {
            Mode::Bytes => 0,
            Mode::Float16 => 1,
            Mode::Float8 => 2,
            Mode::Float32 => 3,
        }
    }

    /// Raw section bytes for `n` input bytes (FLOAT8: an odd last value is stored whole).
    #[inline(always)]
    fn raw_len(self, n: usize) -> usize {
        match self {
            Mode::Bytes => 0,
            Mode::Float16 => n / 2,
            Mode::Float8 => n.div_ceil(2),
            Mode::Float32 => n / 4 * 3,
        }
    }
}

/// Shared memory of `ans_compress` and `ans_compress_float8`.
pub type GeneralShared = Shared<{ STAGE / 16 }>;
/// Shared memory of `ans_compress_float`.
pub type FloatShared = Shared<{ FLOAT_STAGE / 16 }>;
const _: () = assert!(STAGE.is_multiple_of(16) && FLOAT_STAGE.is_multiple_of(16));

/// A compression kernel: the data types it codes (the other valid ones are `NOT_SUPPORTED`
/// there) and its staging buffers (module docs).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// `ans_compress`: bytes, FLOAT16 and FLOAT32; [`STAGE`]-byte buffers.
    General,
    /// `ans_compress_float`: FLOAT16 and FLOAT32; [`FLOAT_STAGE`]-byte buffers.
    Float,
    /// `ans_compress_float8`: FLOAT8 E4M3; [`STAGE`]-byte buffers.
    Float8,
}

impl Kernel {
    /// The kernel the host launches for chunks of `data_type` (`nvcompType_t`) in sub-chunks of
    /// `sub_chunk_bytes` (`AnsOptions::sub_chunk_size` of the batch's largest chunk): FLOAT8 its
    /// own; FLOAT16 and FLOAT32 `ans_compress_float` when its buffers hold their sub-chunks whole
    /// (at most [`FLOAT_STAGE_SYMBOLS`] symbols), else `ans_compress`, as everything else
    /// (which refuses what it does not code).
    pub fn for_batch(data_type: u32, sub_chunk_bytes: usize) -> Kernel {
        match data_type {
            9 => Kernel::Float8,
            10 if sub_chunk_bytes / 2 <= FLOAT_STAGE_SYMBOLS => Kernel::Float,
            11 if sub_chunk_bytes / 4 <= FLOAT_STAGE_SYMBOLS => Kernel::Float,
            _ => Kernel::General,
        }
    }

    /// The mode `m` (one this kernel codes) as an expression of this kernel's modes only, so
    /// that the others' code drops out of it (the kernel is a constant in each entry point).
    #[inline(always)]
    fn narrow(self, m: Mode) -> Mode {
        match self {
            Kernel::General => m,
            Kernel::Float if m == Mode::Float32 => Mode::Float32,
            Kernel::Float => Mode::Float16,
            Kernel::Float8 => Mode::Float8,
        }
    }
}

/// The options of a launch, checked.
#[derive(Clone, Copy)]
struct Options {
    mode: Mode,
    msc: usize,
    spl: usize,
    hrl2: u32,
}

/// `AnsOptions::validate` and `mode`: the options or the status every chunk gets.
#[inline(always)]
fn options(kernel: Kernel, data_type: u32, msc: u32, spl: u32, hrl2: u32) -> Result<Options, i32> {
    // Each kernel codes its own data types (module docs); the other kernels' are valid options,
    // but not supported here.
    let mode = match kernel {
        Kernel::General => match data_type {
            0 | 1 => Some(Mode::Bytes),
            10 => Some(Mode::Float16),
            11 => Some(Mode::Float32),
            9 => None,
            _ => return Err(status::NOT_SUPPORTED),
        },
        Kernel::Float => match data_type {
            10 => Some(Mode::Float16),
            11 => Some(Mode::Float32),
            0 | 1 | 9 => None,
            _ => return Err(status::NOT_SUPPORTED),
        },
        Kernel::Float8 => match data_type {
            9 => Some(Mode::Float8),
            0 | 1 | 10 | 11 => None,
            _ => return Err(status::NOT_SUPPORTED),
        },
    };
    if msc != 0 && !(msc.is_power_of_two() && (4..=64).contains(&msc)) {
        return Err(status::INVALID_VALUE);
    }
    if spl > 2 || hrl2 > 8 {
        return Err(status::INVALID_VALUE);
    }
    let Some(mode) = mode else { return Err(status::NOT_SUPPORTED) };
    let msc = if msc == 0 { 8 } else { msc as usize };
    Ok(Options { mode, msc, spl: if spl == 1 { 1 } else { 2 }, hrl2 })
}

/// `AnsOptions::sub_chunk_size` for a batch whose largest chunk has `m` bytes.
#[inline(always)]
fn sub_chunk_size(o: &Options, m: usize) -> usize {
    let per = m.div_ceil(o.msc).max(1);
    per.next_power_of_two().max(2048 * o.mode.bps())
}

/// Scratch slot of a sub-chunk of `s` symbols: the most nvCOMP's bound allows it.
#[inline(always)]
fn slot_bytes(o: &Options, s: usize) -> usize {
    (128 * o.spl + (o.mode.pb() as usize * s).div_ceil(8)).next_multiple_of(16)
}

/// `AnsOptions::max_compressed_chunk_size(n)`: the output bytes the kernel may use.
#[inline(always)]
fn max_compressed(o: &Options, n: usize) -> usize {
    let sc = sub_chunk_size(o, n);
    let nsub = n.div_ceil(sc).max(1);
    let raw = o.mode.raw_len(n);
    let head = ((16 + 4 * nsub).next_multiple_of(8) + raw + (raw & 1) + 512).next_multiple_of(16);
    head + nsub * slot_bytes(o, sc / o.mode.bps())
}

/// The encoder's entry of a symbol (all zero for an absent symbol), in one of two forms that
/// share `[2] = M − f` and `[3]` (`cum`, see [`Entry::fast`]), so that the state after coding is
/// `x + [3] + q · [2]` (`q · 2^pb + x mod f + cum`) for the state `x` after its emission check
/// and `q = x / f` (or, for `f = 1` in the fast form, `x − 1`). In shared memory each field has
/// its own table of 256 words (a symbol's field is one 4-byte load, whose bank conflicts are far
/// fewer than those of one 16-byte load of the whole entry).
///
/// * Fast (every present symbol has one): `[0]` a 32-bit multiplier `m`, `[1] = (M − f) ·
///   2^(32−pb) | [3] · 32 | sh`; `q = mulhi(x, m) >> sh`, the state emits when `(!x | LOW) <
///   [1]` (`x ≥ f · 2^(32−pb)`, [`FAST_LOW`]), and `[2]`, `[3]` are unpacked from `[1]`, so
///   the encoder loads only `[0]` and `[1]`.
/// * Exact (any `f`): `[0..2]` the 43-bit multiplier `ceil(2^43 / f)`; `q0 = (x · m) >> 43`
///   is `x / f` for every 32-bit `x` (`x · (m·f − 2^43) < 2^32 · f ≤ 2^43`), taken before the
///   emission check: the state emits when `q0 ≥ 2^(32−pb)`, and then `q = q0 >> 16`.
#[derive(Clone, Copy)]
pub struct Entry([u32; 4]);

/// The low bits that the fast form's emission test ignores: above the packed `[3] · 32 | sh`
/// (`[3] < 2M ≤ 2^12`), below `2^(32−pb)`.
const FAST_LOW: u32 = (1 << 21) - 1;

impl Entry {
    /// The exact entry of frequency `f` (0 for an absent symbol), cumulative frequency `cum`.
    // One division, not div_ceil's division and remainder.
    #[allow(clippy::manual_div_ceil)]
    #[inline(always)]
    fn exact(f: u32, cum: u32, pb: u32) -> Entry {
        if f == 0 {
            return Entry([0; 4]);
        }
        let m = ((1u64 << 43) + f as u64 - 1) / f as u64;
        Entry([m as u32, (m >> 32) as u32, (1u32 << pb).wrapping_sub(f), cum])
    }

    /// The fast entry of `f` and `cum`, if its quotient is exact for every state it codes
    /// (`x < f · 2^(32−pb)`): `f = 1` takes `m = 2^32 − 1` (`q = x − 1`, made up for by
    /// `cum + M − 1`), a power of two `m = 2^31`, any other `f` `m = ceil(2^(32+l) / f)`
    /// (`l = floor(log2 f)`), exact when `(f·2^(32−pb) − 1) · (m·f − 2^(32+l)) < 2^(32+l)`,
    /// which holds for every `f < M/2`. `f = M` (a chunk of one symbol) has none.
    #[inline(always)]
    fn fast(f: u32, cum: u32, pb: u32) -> Option<Entry> {
        let big = 1u32 << pb;
        if f == 0 {
            return Some(Entry([0; 4]));
        }
        if f >= big {
            return None;
        }
        let l = 31 - f.leading_zeros();
        let (m, sh, bias) = if f == 1 {
            (u32::MAX, 0, cum + big - 1)
        } else if f.is_power_of_two() {
            (1 << 31, l - 1, cum)
        } else {
            let k = 32 + l;
            // ceil(2^k / f) by two 16-bit digits (2^k = 2^(l+16) · 2^16, f < 2^(l+1)): 32-bit
            // divisions, not a 64-bit division call.
            let (hi, r) = ((1u32 << (l + 16)) / f, (1u32 << (l + 16)) % f);
            let (lo, rem) = ((r << 16) / f, (r << 16) % f);
            let m = ((hi as u64) << 16) + lo as u64 + (rem != 0) as u64;
            let err = m * f as u64 - (1u64 << k);
            if ((f as u64) << (32 - pb)).wrapping_sub(1) * err >= 1u64 << k {
                return None;
            }
            (m as u32, l, cum)
        };
        Some(Entry([m, (big - f) << (32 - pb) | bias << 5 | sh, big - f, bias]))
    }

    /// Exact form: `x / f` for the state `x` before its emission check.
    #[inline(always)]
    fn quotient(self, x: u32) -> u32 {
        let t = (x as u64 * self.0[0] as u64) >> 32;
        ((x as u64 * self.0[1] as u64 + t) >> 11) as u32
    }

    /// Fast form: whether the state `x` emits a word, `x ≥ f · 2^(32−pb)`: with `x = a ·
    /// 2^(32−pb) + b`, `!x | LOW < [1]` is `x & !LOW > !([1]) = f · 2^(32−pb) − 1 − ([1] & LOW)`.
    #[inline(always)]
    fn emits(self, x: u32) -> bool {
        !x | FAST_LOW < self.0[1]
    }

    /// Fast form: the quotient of the state `x` after its emission check.
    #[inline(always)]
    fn quotient_fast(self, x: u32) -> u32 {
        shr_wrap(mul_hi(x, self.0[0]), self.0[1])
    }

    /// The state after coding this symbol from `x` (after its emission check) and `q`.
    #[inline(always)]
    fn encode(self, x: u32, q: u32) -> u32 {
        x.wrapping_add(self.0[3]).wrapping_add(q.wrapping_mul(self.0[2]))
    }

    /// Fast form: [`Entry::encode`] from `[1]`: `[1] >> 5` is `[3] + [2] · 2^(27−pb)` (the bits
    /// between `[3]` and `[2]` are zero), added to `x` in one instruction (`LEA.HI`), and
    /// `(q − 2^(27−pb)) · [2]` takes the surplus back (mod 2^32), cheaper than masking `[3]` out.
    #[inline(always)]
    fn encode_fast(self, x: u32, q: u32, pb: u32) -> u32 {
        let w = self.0[1];
        x.wrapping_add(w >> 5).wrapping_add(q.wrapping_sub(1 << (27 - pb)).wrapping_mul(w >> (32 - pb)))
    }

    /// Stores the entry of symbol `s` in the tables at `enc`.
    #[inline(always)]
    unsafe fn store(self, enc: *mut u32, s: usize) {
        for (k, &v) in self.0.iter().enumerate() {
            *enc.add(256 * k + s) = v;
        }
    }

    /// Fast form: `[0]` and `[1]` of symbol `s` from the tables at `enc`. (Not
    /// [`Entry::load_fast_at`]`(enc, 4 · s)`: for a byte symbol LLVM then turns `PRMT` + `LEA`
    /// into a shift, a mask and an add.)
    #[inline(always)]
    unsafe fn load_fast(enc: *const u32, s: usize) -> Entry {
        Entry([*enc.add(s), *enc.add(256 + s), 0, 0])
    }

    /// Fast form: `[0]` and `[1]` of the symbol whose entries are `offset` bytes into each table.
    #[inline(always)]
    unsafe fn load_fast_at(enc: *const u32, offset: usize) -> Entry {
        let e = enc.byte_add(offset);
        Entry([*e, *e.add(256), 0, 0])
    }

    /// The whole entry of symbol `s` from the tables at `enc`.
    #[inline(always)]
    unsafe fn load(enc: *const u32, s: usize) -> Entry {
        Entry([*enc.add(s), *enc.add(256 + s), *enc.add(512 + s), *enc.add(768 + s)])
    }
}

/// `a >> (c mod 32)` (one `shf.r.wrap` on the GPU).
#[inline(always)]
fn shr_wrap(a: u32, c: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let d: u32;
        // SAFETY: a register-only funnel shift.
        unsafe {
            core::arch::asm!("shf.r.wrap.b32 {d}, {a}, {z}, {c};", d = out(reg32) d, a = in(reg32) a,
                z = in(reg32) 0u32, c = in(reg32) c, options(pure, nomem, nostack));
        }
        d
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        a >> (c & 31)
    }
}

/// The high word of `a · b` (one `mul.hi.u32`; from the 64-bit product ptxas makes a wide
/// multiply and a move).
#[inline(always)]
fn mul_hi(a: u32, b: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let d: u32;
        // SAFETY: a register-only multiply.
        unsafe {
            core::arch::asm!("mul.hi.u32 {d}, {a}, {b};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b,
                options(pure, nomem, nostack));
        }
        d
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        ((a as u64 * b as u64) >> 32) as u32
    }
}

/// Warp sum of `v`.
#[inline(always)]
fn warp_sum<T: Thread>(t: &T, v: u32) -> u32 {
    let mut x = v;
    let mut d = 16;
    while d > 0 {
        x += t.shfl_xor(x, d);
        d >>= 1;
    }
    x
}

/// The `k`-bytes little-endian value at `p` (`k ≤ 16`), one load when `p` is `k`-aligned and
/// `k` a power of two.
#[inline(always)]
unsafe fn load(p: *const u8, k: usize) -> u128 {
    // A mask, not `%`: `k` is not a constant here, and a 64-bit remainder is a ~70-instruction call.
    if k.is_power_of_two() && (p as usize) & (k - 1) == 0 {
        match k {
            16 => return u128::from_le(*(p as *const u128)),
            8 => return u64::from_le(*(p as *const u64)) as u128,
            4 => return u32::from_le(*(p as *const u32)) as u128,
            2 => return u16::from_le(*(p as *const u16)) as u128,
            _ => {}
        }
    }
    let mut v = 0u128;
    for i in 0..k {
        v |= (*p.add(i) as u128) << (8 * i);
    }
    v
}

/// Stores the low `k` bytes of `v` at `p` (one store when `p` is `k`-aligned, `k` 2, 4 or 8).
#[inline(always)]
unsafe fn store(p: *mut u8, v: u64, k: usize) {
    if k.is_power_of_two() && (p as usize) & (k - 1) == 0 {
        match k {
            8 => return *(p as *mut u64) = v.to_le(),
            4 => return *(p as *mut u32) = (v as u32).to_le(),
            2 => return *(p as *mut u16) = (v as u16).to_le(),
            _ => {}
        }
    }
    for i in 0..k {
        *p.add(i) = (v >> (8 * i)) as u8;
    }
}

/// The symbols of the `k` elements in `v` (element `i` at bits `i · 8 · bps`; FLOAT8 pairs if
/// `f8`), packed one byte each: the byte itself, the rotated value's exponent byte, or a pair's
/// two exponents.
#[inline(always)]
fn symbols(v: u128, bps: usize, k: usize, f8: bool) -> u64 {
    match bps {
        1 => v as u64,
        2 if f8 => {
            let mut s = 0u64;
            for i in 0..k {
                s |= ((f8_pair_symbols((v >> (16 * i)) as u32) & 0xFF) as u64) << (8 * i);
            }
            s
        }
        2 => {
            let mut s = 0u64;
            for i in 0..k {
                s |= (((v >> (16 * i + 7)) as u64) & 0xFF) << (8 * i);
            }
            s
        }
        _ => {
            let mut s = 0u64;
            for i in 0..k {
                s |= (((v >> (32 * i + 23)) as u64) & 0xFF) << (8 * i);
            }
            s
        }
    }
}

/// Kernel body of `kernel` (`ans_compress`, `ans_compress_float` or `ans_compress_float8`; see
/// the module docs), with staging buffers of `PIECES` 16-byte pieces; `F8` is whether `kernel`
/// is [`Kernel::Float8`] (a parameter of its own: the FLOAT8 histogram and raw section are
/// instantiated by it; selected by `kernel` instead, LLVM laid the kernels out anew and ptxas's
/// spills moved, the FLOAT8 kernel's from 220 B to 260 on sm_90).
///
/// # Safety
/// Launched with [`COMPRESS_BLOCK_THREADS`] threads per block; `args` valid, input `i` readable
/// for its size, output `i` writable for `AnsOptions::max_compressed_chunk_size` of it, outputs
/// overlapping nothing; `smem` is this block's.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn compress<T: Thread, const PIECES: usize, const F8: bool>(
    t: &T,
    smem: *mut Shared<PIECES>,
    kernel: Kernel,
    args: CompressArgs,
    data_type: u32,
    max_sub_chunk_count: u32,
    states_per_lane: u32,
    histogram_reduction_log2: u32,
    max_chunk_bytes: u32,
) {
    // The staging buffers hold the histograms (1 KiB per warp), which is more than a page and
    // the final states after 16 bytes (`Words::make_room`).
    const { assert!(16 * PIECES >= 4 * 256) };
    const { assert!(4 * 256 >= 16 + PAGE + 256) };
    debug_assert_eq!(F8, kernel == Kernel::Float8);
    let opts = options(kernel, data_type, max_sub_chunk_count, states_per_lane, histogram_reduction_log2);
    let opts = opts.map(|o| Options { mode: kernel.narrow(o.mode), ..o });
    // A hand-written loop: with `batch::block_chunks`, ptxas spills 16-36 B more here.
    let mut chunk = t.block_idx() as u64;
    while chunk < args.num_chunks {
        let i = chunk as usize;
        let ((src, n), dst) = (args.input(i), args.output(i));
        let result = match opts {
            Err(e) => Err(e),
            Ok(_) if n > MAX_CHUNK_SIZE as u64 => Err(status::CHUNK_SIZE_TOO_LARGE),
            // FLOAT8 stores an odd last value raw.
            Ok(o) if o.mode != Mode::Float8 && n as usize & (o.mode.bps() - 1) != 0 => Err(status::INVALID_VALUE),
            Ok(o) => compress_chunk::<T, PIECES, F8>(t, smem, &o, src, n as usize, dst, max_chunk_bytes as usize),
        };
        if t.thread_idx() == 0 {
            let (s, len) = match result {
                Ok(len) => (status::SUCCESS, len as u64),
                Err(e) => (e, 0),
            };
            *args.out_bytes.add(i) = len;
            if !args.statuses.is_null() {
                *args.statuses.add(i) = s;
            }
        }
        // The next chunk reuses the shared memory.
        t.sync_threads();
        chunk += t.grid_dim() as u64;
    }
}

/// Compresses one chunk of `n` bytes (a whole number of elements, at most 2^24); returns its
/// length.
#[inline(always)]
unsafe fn compress_chunk<T: Thread, const PIECES: usize, const F8: bool>(
    t: &T,
    smem: *mut Shared<PIECES>,
    o: &Options,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    max_chunk_bytes: usize,
) -> Result<usize, i32> {
    let tid = thread_here(t) as usize;
    let (warp, lane) = (tid / 32, tid % 32);

    let bps = o.mode.bps();
    let pb = o.mode.pb();
    let nsym = n / bps;
    let sc = sub_chunk_size(o, max_chunk_bytes.max(n));
    let nsub = n.div_ceil(sc);
    let cap = max_compressed(o, n);
    // Layout (cpu::ans::header::Layout).
    let sizes_end = 16 + 4 * nsub;
    let raw_start = if o.mode == Mode::Bytes { sizes_end } else { sizes_end.next_multiple_of(8) };
    let raw_end = raw_start + o.mode.raw_len(n);
    let table_start = raw_end + (raw_end & 1);
    let sampled = o.hrl2 > 0 && nsym >= EXACT_BELOW_SYMBOLS;

    // 1. Histogram (and the raw section).
    let hist = (&raw mut (*smem).stage).cast::<u32>();
    let mut k = tid;
    while k < 256 * COMPRESS_WARPS {
        *hist.add(k) = 0;
        k += THREADS;
    }
    t.sync_threads();
    // FLOAT16 and FLOAT8 (its kernel, `F8`) with the exact histogram: the whole aligned groups'
    // raw bytes are written by the histogram from the groups it loads (not read again);
    // `raw_done` groups of 16 bytes.
    let fuse = (o.mode == Mode::Float16 || F8)
        && !sampled
        && (src as usize).is_multiple_of(16)
        && (dst.add(raw_start) as usize).is_multiple_of(8);
    let raw_done = if fuse { n / 16 } else { 0 };
    if sampled {
        // Symbols per slice (`cpu::ans::histogram::sample_slice`; FLOAT8 from the bytes).
        let p = if o.mode == Mode::Float8 {
            n.div_ceil(SAMPLE_SLICES).next_multiple_of(16).max(16) / 2
        } else {
            nsym.div_ceil(SAMPLE_SLICES).next_multiple_of(16).max(16)
        };
        let mut start = 0;
        while start < nsym {
            let keep = (nsym - start).min(p) >> o.hrl2;
            count(tid, hist, warp, src, o.mode, start, keep);
            start += p;
        }
    } else if fuse {
        count_bps::<2, true, F8>(tid, hist, warp, src, 0, nsym, dst.add(raw_start));
    } else {
        count(tid, hist, warp, src, o.mode, 0, nsym);
    }
    if tid < raw_start - sizes_end {
        *dst.add(sizes_end + tid) = 0;
    }
    if tid == 0 && table_start > raw_end {
        *dst.add(raw_end) = 0;
    }
    t.sync_threads();

    // 2. Table, by the whole block; first the rest of the float modes' raw section.
    match o.mode {
        Mode::Float16 => raw_f16(tid, THREADS, src, n, dst.add(raw_start), raw_done),
        Mode::Float8 => raw_f8::<F8>(tid, THREADS, src, n, dst.add(raw_start), raw_done),
        Mode::Float32 => raw_f32(tid, THREADS, src, n, dst.add(raw_start)),
        Mode::Bytes => {}
    }
    let enc = (&raw const (*smem).enc).cast::<u32>();
    if table(t, smem, pb, sampled, dst.add(table_start)).is_err() && tid == 0 {
        (*smem).table = [0, 0, 0];
    }
    if o.mode == Mode::Float8 && nsym == 0 && n > 0 && tid == 0 {
        // A FLOAT8 chunk of one value: nvCOMP's table of one zero entry (nothing is coded).
        store(dst.add(table_start), 0, 2);
    }
    t.sync_threads();
    let entries = (*smem).table[1] as usize;
    if entries == 0 {
        return Err(status::INTERNAL);
    }
    let data = (table_start + 2 * entries).next_multiple_of(16);
    if tid == 0 {
        let mn = (*smem).table[0];
        let w =
            [n as u32, sc as u32, mn | (mn + entries as u32 - 1) << 8 | pb << 16 | o.mode.code() << 24, o.spl as u32];
        for (k, &v) in w.iter().enumerate() {
            store(dst.add(4 * k), v as u64, 4);
        }
    }
    let mut k = table_start + 2 * entries + tid;
    while k < data {
        *dst.add(k) = 0;
        k += THREADS;
    }

    // 3. Encode, a round of COMPRESS_WARPS sub-chunks at a time. A sub-chunk whose words and
    // states fit its warp's staging buffer (every one of text-like data in 64 KiB chunks) stays
    // there until the round ends; then, the sizes of those before it known, it goes straight to
    // its final offset (to its scratch slot if one before it spilled). A larger one spills: its
    // words go to its scratch slot as they are coded, and the placement moves it.
    if tid == 0 {
        (*smem).overflow = 0;
    }
    encoder_entries(t, smem, pb);
    // bps is a power of two (a shift, not a 64-bit division per sub-chunk).
    let symbols_of = |s: usize| (n - s * sc).min(sc) >> bps.trailing_zeros();
    // Every sub-chunk but the last has `sc` bytes, so slot `s` starts `s` full slots in.
    let full = slot_bytes(o, sc >> bps.trailing_zeros());
    let stage = (&raw mut (*smem).stage).cast::<u8>().add(16 * PIECES * warp);
    let fast = (*smem).table[2] != 0;
    let sizes = (&raw mut (*smem).sizes).cast::<u32>();
    let spilled = (&raw mut (*smem).spilled).cast::<u8>();
    let overflow = AtomicU32::from_ptr(&raw mut (*smem).overflow);
    let mut first_spill = nsub;
    let mut round = 0;
    while round < nsub {
        let s = round + warp;
        let mut staged = None;
        if s < nsub {
            let slot = data + s * full;
            let limit = cap.saturating_sub(slot).min(slot_bytes(o, symbols_of(s)));
            let (size, in_stage) =
                encode::<T, PIECES>(t, o, src.add(s * sc), symbols_of(s), enc, fast, stage, dst.add(slot), limit);
            if size > limit {
                if lane == 0 {
                    overflow.store(1, Relaxed);
                }
            } else if in_stage {
                staged = Some(size);
            } else if s + 1 < nsub {
                // Zero padding to the next sub-chunk, moved along with it.
                let pad = size.next_multiple_of(16) - size;
                if lane < pad {
                    *dst.add(slot + size + lane) = 0;
                }
            }
            if lane == 0 {
                *sizes.add(s) = size as u32;
                *spilled.add(s) = !in_stage as u8;
            }
        }
        round += COMPRESS_WARPS;
        t.sync_threads();
        if overflow.load(Relaxed) != 0 {
            break;
        }
        // The round's sizes are known: where each warp's staged sub-chunk goes.
        let (below, spill) = sub_chunks_before(t, sizes, spilled, s.min(nsub), round.min(nsub));
        first_spill = spill.min(nsub);
        if let Some(size) = staged {
            // At its final offset nothing reads it again; in its slot the placement does.
            let (to, h) = if s < first_spill { (data + below, L2::EvictFirst) } else { (data + s * full, L2::Normal) };
            write_staged(t, stage, size, dst.add(to), cap - to, h);
        }
    }
    t.sync_threads();

    // 4. Place.
    let end = if overflow.load(Relaxed) != 0 {
        t.sync_threads(); // every thread has read the flag
        if warp == 0 {
            let mut off = data;
            let mut s = 0;
            while s < nsub {
                let room = cap.saturating_sub(off);
                let (size, in_stage) =
                    encode::<T, PIECES>(t, o, src.add(s * sc), symbols_of(s), enc, fast, stage, dst.add(off), room);
                if size > room {
                    break;
                }
                if in_stage {
                    write_staged(t, stage, size, dst.add(off), room, L2::EvictFirst);
                }
                if lane == 0 {
                    *sizes.add(s) = size as u32;
                    overflow.store((s + 1 == nsub) as u32 ^ 1, Relaxed);
                }
                off += size;
                if s + 1 < nsub {
                    let padded = off.next_multiple_of(16).min(cap);
                    if off + lane < padded {
                        *dst.add(off + lane) = 0;
                    }
                    off = padded;
                }
                s += 1;
            }
            t.sync_warp();
        }
        t.sync_threads();
        if overflow.load(Relaxed) != 0 {
            return Err(status::OUTPUT_BUFFER_TOO_SMALL);
        }
        let mut off = data;
        for s in 0..nsub {
            off += *sizes.add(s) as usize;
            if s + 1 < nsub {
                off = off.next_multiple_of(16);
            }
        }
        off
    } else {
        let mut end = data;
        for s in 0..nsub {
            end += *sizes.add(s) as usize;
            if s + 1 < nsub {
                end = end.next_multiple_of(16);
            }
        }
        // Sub-chunk 0's slot is its final place.
        if first_spill.max(1) < nsub {
            move_down(t, dst, data, end, full, sizes, first_spill.max(1)..nsub);
        }
        end
    };

    // 5. Size table.
    let mut k = tid;
    while k < nsub {
        store(dst.add(16 + 4 * k), *sizes.add(k) as u64, 4);
        k += THREADS;
    }
    Ok(end)
}

/// Adds the symbols `start .. start + len` (`start` a multiple of 16) to warp `warp`'s
/// histogram of the block's `hist`, the block's threads taking 16-byte groups in turn.
#[inline(always)]
unsafe fn count(tid: usize, hist: *mut u32, warp: usize, src: *const u8, mode: Mode, start: usize, len: usize) {
    let null = core::ptr::null_mut();
    match mode {
        Mode::Bytes => count_bps::<1, false, false>(tid, hist, warp, src, start, len, null),
        Mode::Float16 => count_bps::<2, false, false>(tid, hist, warp, src, start, len, null),
        Mode::Float8 => count_bps::<2, false, true>(tid, hist, warp, src, start, len, null),
        Mode::Float32 => count_bps::<4, false, false>(tid, hist, warp, src, start, len, null),
    }
}

/// Byte offset `4 · ((w >> shift) & 0xFF)` of the counter or entry of the symbol at bit `shift`
/// of `w`: a shift and a mask (`LOP3`, which can also OR in a warp's histogram offset).
#[inline(always)]
fn symbol_offset(w: u32, shift: u32) -> u32 {
    (if shift >= 2 { w >> (shift - 2) } else { w << (2 - shift) }) & 0x3FC
}

/// [`count`] for `BPS` bytes per symbol (FLOAT8 pairs if `F8`): whole 16-byte aligned groups
/// with one load each and the symbols at constant positions, the rest (unaligned input, the
/// last group) byte-wise.
/// With `RAW` (FLOAT16, or FLOAT8 if `F8`; `start` 0, `src` 16-byte and `raw` 8-byte aligned),
/// also the whole groups' raw bytes at `raw` (the rest is [`raw_f16`]'s or [`raw_f8`]'s).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn count_bps<const BPS: usize, const RAW: bool, const F8: bool>(
    tid: usize,
    hist: *mut u32,
    warp: usize,
    src: *const u8,
    start: usize,
    len: usize,
    raw: *mut u8,
) {
    let per = 16 / BPS;
    let base = src.add(start * BPS);
    let whole = if (base as usize) & 15 == 0 { len / per } else { 0 };
    // The warp's histogram as an offset ORed into each counter's (the histograms are 1 KiB
    // each, so the block's base stays one uniform register and an address is two
    // instructions).
    let warp_offset = (1024 * warp) as u32;
    let counter = |offset: u32| AtomicU32::from_ptr(hist.byte_add((offset | warp_offset) as usize));
    let add = |v: [u32; 4]| {
        for i in 0..per {
            let (w, shift) = match BPS {
                1 => (v[i / 4], 8 * (i % 4)),
                2 if F8 => (f8_pair_symbols(v[i / 2]), 16 * (i % 2)),
                2 => (v[i / 2], 16 * (i % 2) + 7),
                _ => (v[i], 23),
            };
            counter(symbol_offset(w, shift as u32)).fetch_add(1, Relaxed);
        }
    };
    // Batches of HIST_LOADS groups per thread, each batch loaded while the one before is
    // counted; two batches per iteration, so that a batch is loaded into the registers of the
    // one counted before it (no copies).
    let batch = HIST_LOADS * THREADS;
    let batches = whole / batch;
    let load_batch = |b: usize| {
        let p = base.add(16 * (b * batch + tid));
        let mut v = [[0u32; 4]; HIST_LOADS];
        for (u, vu) in v.iter_mut().enumerate() {
            *vu = load_tile::<1, 16>(p.add(16 * u * THREADS), L2::Normal);
        }
        v
    };
    let count_batch = |v: [[u32; 4]; HIST_LOADS], b: usize| {
        if RAW {
            let r = raw.add(8 * (b * batch + tid));
            for (u, &vu) in v.iter().enumerate() {
                if F8 {
                    st8_last(r.add(8 * u * THREADS), pack_f8_group(vu));
                } else {
                    st8_last(r.add(8 * u * THREADS), pack_f16_group(vu));
                }
            }
        }
        for vu in v {
            add(vu);
        }
    };
    let mut b = 0;
    let mut v = if batches > 0 { load_batch(0) } else { [[0u32; 4]; HIST_LOADS] };
    while b + 1 < batches {
        let next = load_batch(b + 1);
        count_batch(v, b);
        if b + 2 < batches {
            v = load_batch(b + 2);
        }
        count_batch(next, b + 1);
        b += 2;
    }
    if b < batches {
        count_batch(v, b);
    }
    let mut g = batches * batch + tid;
    while g < whole {
        let v = load_tile::<1, 16>(base.add(16 * g), L2::Normal);
        if RAW {
            if F8 {
                st8_last(raw.add(8 * g), pack_f8_group(v));
            } else {
                st8_last(raw.add(8 * g), pack_f16_group(v));
            }
        }
        add(v);
        g += THREADS;
    }
    let mut g = whole + tid;
    while g * per < len {
        let k = (len - g * per).min(per);
        let v = load(base.add(g * per * BPS), k * BPS);
        let mut s = symbols(v, BPS, k.min(8), F8);
        for j in 0..k {
            if j == 8 {
                s = (v >> 64) as u64; // bytes 8..16 of a byte-mode group
            }
            counter(4 * (s as u32 & 0xFF)).fetch_add(1, Relaxed);
            s >>= 8;
        }
        g += THREADS;
    }
}

/// [`pack_f16`] of a whole group of 8 halves (`v` as [`load_tile`] gives it): a rotate per pair
/// and one `PRMT` per two pairs.
#[inline(always)]
fn pack_f16_group(v: [u32; 4]) -> u64 {
    let r = v.map(|w| w.rotate_left(1));
    (prmt(r[2], r[3], 0x6420) as u64) << 32 | prmt(r[0], r[1], 0x6420) as u64
}

/// FLOAT8 E4M3 (`s eeee mmm`, `cpu::ans::float`): the symbols of the two pairs of values in
/// `w` (bytes 0 and 2; each pair `a, b` gives `e(a) | e(b) << 4`, `e(x) = x >> 3 & 15`).
#[inline(always)]
fn f8_pair_symbols(w: u32) -> u32 {
    let e = (w >> 3) & 0x0F0F_0F0F;
    e | e >> 4
}

/// FLOAT8: the raw bytes of the two pairs in `w` (bytes 0 and 2; `r(a) | r(b) << 4`, `r(x) =
/// (x >> 4 & 8) | x & 7`, the sign above the mantissa).
#[inline(always)]
fn f8_pair_raw(w: u32) -> u32 {
    let r = (w >> 4) & 0x0808_0808 | w & 0x0707_0707;
    r | r >> 4
}

/// FLOAT8: the raw bytes of a whole group of 8 pairs ([`f8_pair_raw`] per word, a `PRMT` per
/// two words).
#[inline(always)]
fn pack_f8_group(v: [u32; 4]) -> u64 {
    let r = v.map(f8_pair_raw);
    (prmt(r[2], r[3], 0x6420) as u64) << 32 | prmt(r[0], r[1], 0x6420) as u64
}

/// FLOAT8 raw section: a byte per pair of values, in order, then an odd last value as it is;
/// whole aligned 16-byte groups as one 8-byte store each ([`pack_f8_group`]), from group
/// `from` on in the FLOAT8 kernel (`F8`: the histogram wrote those before it; the other kernel,
/// where this is never reached, from 0, which keeps its code as it was), the rest byte-wise;
/// thread `tid` of `threads`.
#[inline(always)]
unsafe fn raw_f8<const F8: bool>(tid: usize, threads: usize, src: *const u8, n: usize, raw: *mut u8, from: usize) {
    let whole = if (src as usize).is_multiple_of(16) { n / 16 } else { 0 };
    let mut g = if F8 { from } else { 0 } + tid;
    while g < whole {
        store(raw.add(8 * g), pack_f8_group(load_tile::<1, 16>(src.add(16 * g), L2::Normal)), 8);
        g += threads;
    }
    let mut p = 8 * whole + tid;
    while 2 * p + 1 < n {
        *raw.add(p) = f8_pair_raw(load(src.add(2 * p), 2) as u32) as u8;
        p += threads;
    }
    if n % 2 == 1 && tid == 0 {
        *raw.add(n / 2) = *src.add(n - 1);
    }
}

/// FLOAT16 raw bytes of `k` input bytes `v` (an even `k ≤ 16`): per pair of halves `w`, bytes
/// 0 and 2 of `rotl32(w, 1)`; an odd last half `h`: byte 0 of `rotl16(h, 1)`.
#[inline(always)]
fn pack_f16(v: u128, k: usize) -> u64 {
    let mut r = 0u64;
    for p in 0..k / 4 {
        let w = ((v >> (32 * p)) as u32).rotate_left(1);
        r |= ((w & 0xFF) as u64 | ((w >> 8) & 0xFF00) as u64) << (16 * p);
    }
    if k % 4 == 2 {
        let h = ((v >> (8 * (k - 2))) as u16).rotate_left(1);
        r |= ((h & 0xFF) as u64) << (8 * (k / 2 - 1));
    }
    r
}

/// FLOAT16 raw section ([`pack_f16`]) from the 16-byte group `from` on (the histogram wrote
/// those before it); thread `tid` of `threads`.
#[inline(always)]
unsafe fn raw_f16(tid: usize, threads: usize, src: *const u8, n: usize, raw: *mut u8, from: usize) {
    // Whole aligned groups HIST_LOADS at a time (their loads in flight together), then the rest.
    let whole = if (src as usize).is_multiple_of(16) { n / 16 } else { 0 };
    let mut g = from + tid;
    while g + (HIST_LOADS - 1) * threads < whole {
        let mut v = [[0u32; 4]; HIST_LOADS];
        for (u, vu) in v.iter_mut().enumerate() {
            *vu = load_tile::<1, 16>(src.add(16 * (g + u * threads)), L2::Normal);
        }
        for (u, &vu) in v.iter().enumerate() {
            store(raw.add(8 * (g + u * threads)), pack_f16_group(vu), 8);
        }
        g += HIST_LOADS * threads;
    }
    while g * 16 < n {
        let k = (n - g * 16).min(16);
        store(raw.add(8 * g), pack_f16(load(src.add(16 * g), k), k), k / 2);
        g += threads;
    }
}

/// Asks L2 for the line holding `p` (the input; no register, no wait).
#[inline(always)]
unsafe fn prefetch_l2(p: *const u8) {
    // SAFETY: a hint that reads nothing into the kernel; callers pass addresses inside the input.
    #[cfg(target_arch = "nvptx64")]
    core::arch::asm!("prefetch.global.L2 [{p}];", p = in(reg64) p, options(nostack, preserves_flags));
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = p;
}

/// The 16 bytes of [`load_tile`]'s words as one little-endian value.
#[inline(always)]
fn tile_u128(v: [u32; 4]) -> u128 {
    v.iter().rev().fold(0u128, |a, &w| a << 32 | w as u128)
}

/// FLOAT32 raw section: bytes 0..3 of each `rotl32(v, 1)`; in whole 1024-byte tiles the quad
/// `q`'s 12 bytes as three words, word `w` at `tile · 768 + 256w + 8(q mod 32) + 4(q div 32)`;
/// the tail sequential; thread `tid` of `threads`.
#[inline(always)]
unsafe fn raw_f32(tid: usize, threads: usize, src: *const u8, n: usize, raw: *mut u8) {
    let full = n / 1024 * 1024;
    let put = |g: usize, v: u128| {
        let r = |i: usize| ((v >> (32 * i)) as u32).rotate_left(1) & 0xFF_FFFF;
        let words = [r(0) | r(1) << 24, r(1) >> 8 | r(2) << 16, r(2) >> 16 | r(3) << 8];
        let (tile, q) = (g / 64, g % 64);
        for (w, &x) in words.iter().enumerate() {
            store(raw.add(tile * 768 + 256 * w + 8 * (q % 32) + 4 * (q / 32)), x as u64, 4);
        }
    };
    // Aligned input: HIST_LOADS groups at a time (loads in flight together).
    let whole = if (src as usize).is_multiple_of(16) { full / 16 } else { 0 };
    let mut g = tid;
    while g + (HIST_LOADS - 1) * threads < whole {
        let mut v = [0u128; HIST_LOADS];
        for (u, vu) in v.iter_mut().enumerate() {
            *vu = tile_u128(load_tile::<1, 16>(src.add(16 * (g + u * threads)), L2::Normal));
        }
        for (u, &vu) in v.iter().enumerate() {
            put(g + u * threads, vu);
        }
        g += HIST_LOADS * threads;
    }
    while g * 16 < full {
        put(g, load(src.add(16 * g), 16));
        g += threads;
    }
    let mut e = full / 4 + tid;
    while e < n / 4 {
        let r = (load(src.add(4 * e), 4) as u32).rotate_left(1);
        for b in 0..3 {
            *raw.add(3 * e + b) = (r >> (8 * b)) as u8;
        }
        e += threads;
    }
}

/// The chunk's frequency table (`cpu::ans::normalize`, `FSE_normalizeM2`), by the whole block:
/// thread `t` owns symbols `2t` and `2t + 1` and sums their counts over the warps'
/// histograms. Sums over the symbols are block reductions ([`publish`], a barrier each: the
/// present symbols and the total, the low-probability symbols, a second pass of them if
/// needed), and the cumulative frequencies one block scan: `acc` before a symbol is `mid +
/// rStep · B` (`B` the counts of the distributed symbols before it), so `f = F(B + c) − F(B)`
/// with `F(B) = acc >> vStepLog` telescopes, and `cum` is `F(B)` plus the number of
/// low-probability symbols before it (`F(0) = 0`). Stores the frequency table at `out`, each
/// symbol's frequency and `cum` in the first two histograms (for [`encoder_entries`]) and
/// `table`; `Err` (the same in every thread) where the reference has no table (unreachable
/// for `pb ≥ 10`).
#[inline(always)]
unsafe fn table<T: Thread, const PIECES: usize>(
    t: &T,
    smem: *mut Shared<PIECES>,
    pb: u32,
    sampled: bool,
    out: *mut u8,
) -> Result<(), ()> {
    let tid = thread_here(t) as usize;
    let warp = tid / 32;
    let hist = (&raw mut (*smem).stage).cast::<u32>();
    let partial = (&raw mut (*smem).partial).cast::<u32>();
    let mut round = 0;
    let mut c = [0u32; 2];
    for (k, ck) in c.iter_mut().enumerate() {
        for w in 0..COMPRESS_WARPS {
            *ck += *hist.add(256 * w + 2 * tid + k);
        }
        if sampled {
            *ck = (*ck).max(1);
        }
    }
    // Round 1: which symbols are present (each warp's 64 as two ballots: even and odd symbols)
    // and the total count.
    let even = t.ballot(c[0] > 0);
    let odd = t.ballot(c[1] > 0);
    let words = publish(t, [warp_sum(t, c[0] + c[1]), even, odd, 0], partial, &mut round);
    let total0 = sum_of(words, 0, COMPRESS_WARPS);
    let mut distinct = 0;
    let (mut mn, mut mx) = (u32::MAX, 0);
    for w in 0..COMPRESS_WARPS {
        let (e, o) = (*words.add(4 * w + 1), *words.add(4 * w + 2));
        distinct += e.count_ones() + o.count_ones();
        if e | o != 0 {
            let lo = if e.trailing_zeros() <= o.trailing_zeros() {
                2 * e.trailing_zeros()
            } else {
                2 * o.trailing_zeros() + 1
            };
            let hi = if 31 - e.leading_zeros() as i32 > 31 - o.leading_zeros() as i32 {
                2 * (31 - e.leading_zeros())
            } else {
                2 * (31 - o.leading_zeros()) + 1
            };
            mn = mn.min(64 * w as u32 + lo);
            mx = 64 * w as u32 + hi;
        }
    }
    let m = 1u32 << pb;
    // Per symbol: 0 absent, 1 low probability (−1), 2 one, 3 distributed.
    let mut class = [0u8; 2];
    let mut f = [0u32; 2];
    let mut cum = [0u32; 2];
    if distinct <= 1 {
        // Empty chunk or a single symbol: the one-entry table [M].
        let mn = if distinct == 0 { 0 } else { mn };
        for k in 0..2 {
            let s = (2 * tid + k) as u32;
            if s == mn {
                f[k] = m;
                class[k] = 2;
            }
            cum[k] = if s > mn { m } else { 0 };
        }
    } else {
        let total0 = total0 as u64;
        let low_threshold = total0 >> pb;
        let low_one = (3 * total0) >> (pb + 1);
        // Taken symbols and their counts in one word: a low symbol's count is at most
        // 3 · 2^24 / 2^11, so 256 of them stay below 2^23.
        let mut taken = 0u32;
        for k in 0..2 {
            let x = c[k] as u64;
            class[k] = if x == 0 {
                0
            } else if x <= low_threshold {
                1
            } else if x <= low_one {
                2
            } else {
                3
            };
            if class[k] == 1 || class[k] == 2 {
                taken += 1 << 23 | c[k];
            }
        }
        let words = publish(t, [warp_sum(t, taken), 0, 0, 0], partial, &mut round);
        let both = sum_of(words, 0, COMPRESS_WARPS);
        let mut distributed = (both >> 23) as u64;
        let mut total = total0 - (both & ((1 << 23) - 1)) as u64;
        if distributed > m as u64 {
            return Err(());
        }
        let mut to_distribute = m as u64 - distributed;
        if to_distribute == 0 {
            return Err(()); // unassigned symbols remain (the reference: None)
        }
        // 32-bit divisions: total < 2^25, to_distribute ≤ M.
        if (total as u32 / to_distribute as u32) as u64 > low_one {
            let low_one = ((total as u32 * 3) / (to_distribute as u32 * 2)) as u64;
            // Counts up to `total` now: two sums.
            let (mut taken, mut removed) = (0u32, 0u32);
            for k in 0..2 {
                if class[k] == 3 && c[k] as u64 <= low_one {
                    class[k] = 2;
                    taken += 1;
                    removed += c[k];
                }
            }
            let words = publish(t, [warp_sum(t, taken), warp_sum(t, removed), 0, 0], partial, &mut round);
            distributed += sum_of(words, 0, COMPRESS_WARPS) as u64;
            total -= sum_of(words, 1, COMPRESS_WARPS) as u64;
            if distributed > m as u64 {
                return Err(());
            }
            to_distribute = m as u64 - distributed;
        }
        // Every present symbol is low, one or distributed.
        if distinct as u64 == distributed || total == 0 {
            return Err(());
        }
        let v_step_log = 62 - pb;
        let mid = (1u64 << (v_step_log - 1)) - 1;
        let r_step = ((1u64 << v_step_log) * to_distribute + mid) / total;
        // The block scan of the distributed symbols' counts and the number of low ones.
        let dist = |k: usize| if class[k] == 3 { c[k] } else { 0 };
        let low = |k: usize| (class[k] == 1 || class[k] == 2) as u32;
        let (b_warp, b_total) = warp_scan(t, dist(0) + dist(1));
        let (l_warp, l_total) = warp_scan(t, low(0) + low(1));
        let words = publish(t, [b_total, l_total, 0, 0], partial, &mut round);
        let (mut b, mut l) = (b_warp + sum_of(words, 0, warp), l_warp + sum_of(words, 1, warp));
        let big_f = |b: u32| ((mid + r_step * b as u64) >> v_step_log) as u32;
        for k in 0..2 {
            cum[k] = l + big_f(b);
            f[k] = match class[k] {
                1 | 2 => 1,
                3 => big_f(b + c[k]) - big_f(b),
                _ => 0,
            };
            b += dist(k);
            l += low(k);
        }
    }
    let (mn, mx) = if sampled {
        (0, 255)
    } else if distinct == 0 {
        (0, 0)
    } else {
        (mn, mx)
    };
    for k in 0..2 {
        let s = 2 * tid + k;
        // For the entries (`encoder_entries`): the frequency and `cum` in the first two
        // histograms (this thread alone read these symbols' counts).
        *hist.add(s) = f[k];
        *hist.add(256 + s) = cum[k];
        if s as u32 >= mn && s as u32 <= mx {
            // A low-probability symbol is stored as 0xFFFF.
            store(out.add(2 * (s - mn as usize)), if class[k] == 1 { 0xFFFF } else { f[k] as u64 }, 2);
        }
    }
    if tid == 0 {
        (*smem).table = [mn, mx - mn + 1, 1];
    }
    Ok(())
}

/// Each warp's four (warp-uniform) words `v` to shared memory, in the next set of `partial`
/// (`round` counts the calls), then a barrier; returns the set: warp `w`'s words at `4w`.
#[inline(always)]
unsafe fn publish<T: Thread>(t: &T, v: [u32; 4], partial: *mut u32, round: &mut usize) -> *const u32 {
    let tid = thread_here(t) as usize;
    let words = partial.add(4 * COMPRESS_WARPS * (*round & 1));
    *round += 1;
    if lane_here(t) == 0 {
        for (i, &x) in v.iter().enumerate() {
            *words.add(4 * (tid / 32) + i) = x;
        }
    }
    t.sync_threads();
    words
}

/// Word `i` of the warps before `warps` in a set [`publish`] returned, summed.
#[inline(always)]
unsafe fn sum_of(words: *const u32, i: usize, warps: usize) -> u32 {
    (0..warps).map(|w| *words.add(4 * w + i)).sum()
}

/// The block's encoder entries from the frequencies and cumulative frequencies [`table`] left
/// in the first two histograms, two symbols per thread: fast ones if every symbol has one (the
/// threads clear `table[2]` where one has none), else exact ones (rare: a symbol above about
/// 0.7·M). Ends with a barrier.
#[inline(always)]
unsafe fn encoder_entries<T: Thread, const PIECES: usize>(t: &T, smem: *mut Shared<PIECES>, pb: u32) {
    let tid = thread_here(t) as usize;
    let hist = (&raw const (*smem).stage).cast::<u32>();
    let enc = (&raw mut (*smem).enc).cast::<u32>();
    for s in [tid, tid + THREADS] {
        match Entry::fast(*hist.add(s), *hist.add(256 + s), pb) {
            Some(e) => e.store(enc, s),
            None => (*smem).table[2] = 0,
        }
    }
    t.sync_threads();
    if (*smem).table[2] == 0 {
        for s in [tid, tid + THREADS] {
            Entry::exact(*hist.add(s), *hist.add(256 + s), pb).store(enc, s);
        }
        t.sync_threads();
    }
}

/// One warp encodes a sub-chunk of `nsym` symbols from `src` (`cpu::ans::rans::encode_sub_chunk`)
/// with the entries `enc` (fast ones if `fast`) into the warp's staging buffer `stage`
/// ([`STAGE`] bytes); returns its stored size (`2 · words + 128 · spl`) and whether it is
/// there whole (then nothing was written to `out`). If not (it spilled), its words and final
/// states were written at `out`, but nothing at or past `limit` bytes (a multiple of 16); the
/// size may exceed `limit`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn encode<T: Thread, const PIECES: usize>(
    t: &T,
    o: &Options,
    src: *const u8,
    nsym: usize,
    enc: *const u32,
    fast: bool,
    stage: *mut u8,
    out: *mut u8,
    limit: usize,
) -> (usize, bool) {
    let w = Words { stage, out, limit, base: 0, at: 0 };
    match (o.mode, o.spl) {
        (Mode::Bytes, 1) => encode_spl::<T, 1, 1, 8, false, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Bytes, _) => encode_spl::<T, 1, 2, 8, false, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float16, 1) => encode_spl::<T, 2, 1, 8, false, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float16, _) => encode_spl::<T, 2, 2, 8, false, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float8, 1) => encode_spl::<T, 2, 1, 4, true, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float8, _) => encode_spl::<T, 2, 2, 4, true, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float32, 1) => encode_spl::<T, 4, 1, 4, false, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float32, _) => encode_spl::<T, 4, 2, 4, false, PIECES>(t, src, nsym, enc, fast, w),
    }
}

/// Bytes of a staging page: the most words (`32 · 8` states' steps) one tile emits.
const PAGE: usize = 512;
/// Bytes of a warp's staging buffer: a whole sub-chunk of 8192 byte symbols down to a ratio of
/// about 1.06 (its words and 256 bytes of final states), the most that leaves six blocks per SM
/// on an H100 or H200 (7 KiB spilled every sub-chunk of nearly incompressible bytes, such as
/// float16 weights as bytes at 1.055: 0.88× nvCOMP, now 1.00×).
pub const STAGE: usize = 8320;
/// Sub-chunk symbols of the FLOAT16 and FLOAT32 sub-chunks that `ans_compress_float`'s buffers
/// hold whole: those of 64 KiB chunks with the default options (4096 and 2048), at nvCOMP's
/// bound of 10 bits per symbol.
pub const FLOAT_STAGE_SYMBOLS: usize = 4096;
/// Bytes of a warp's staging buffer in `ans_compress_float`: [`FLOAT_STAGE_SYMBOLS`] symbols'
/// words at 10 bits each, with room for the page of a tile after 16 bytes (the final states
/// fit in that room). The 10 KiB less per block leave the registers that ptxas spills room in
/// L1 beside six blocks' shared memory (module docs).
pub const FLOAT_STAGE: usize = FLOAT_STAGE_SYMBOLS * 10 / 8 + PAGE + 16;

/// Where a sub-chunk's words go: the warp's staging buffer holds output bytes `base .. base +
/// STAGE` (`base` a multiple of 16, 0 until the sub-chunk spills), the cursor is `base + at`.
struct Words {
    stage: *mut u8,
    out: *mut u8,
    limit: usize,
    base: usize,
    at: u32,
}

impl Words {
    /// After a tile (at most `PAGE` bytes of words): when the next tile might not fit, the
    /// sub-chunk spills: its whole 16-byte pieces go to `out` (one 16-byte store per lane and
    /// round), and the partial piece moves down.
    #[inline(always)]
    unsafe fn make_room<T: Thread, const PIECES: usize>(&mut self, t: &T) {
        // Before a tile at most STAGE − PAGE − 16, after it below STAGE − 16: the piece at
        // `whole` lies in the buffer.
        if self.at as usize + PAGE + 16 > 16 * PIECES {
            let whole = self.at as usize & !15;
            t.sync_warp();
            put_pieces(t, self.stage, whole, self.out.add(self.base), self.limit.saturating_sub(self.base), L2::Normal);
            let v = *(self.stage.add(whole) as *const u128);
            t.sync_warp();
            if lane_here(t) == 0 {
                *(self.stage as *mut u128) = v;
            }
            t.sync_warp();
            self.base += whole;
            self.at -= whole as u32;
        }
    }
}

/// [`encode`] for `BPS` input bytes per symbol (FLOAT8 pairs if `F8`), `SPL` states per lane
/// and body tiles of `B` symbols per lane.
///
/// The words are staged in shared memory ([`Words`]): a tile emits at most `32 · B ≤ 256`
/// words, so after a tile the cursor is at most one page further. With fast entries, whole
/// tiles with aligned symbol loads (every body tile of an aligned sub-chunk) take
/// [`tile_fast`], the others [`tile_general`].
#[inline(always)]
unsafe fn encode_spl<
    T: Thread,
    const BPS: usize,
    const SPL: usize,
    const B: usize,
    const F8: bool,
    const PIECES: usize,
>(
    t: &T,
    src: *const u8,
    nsym: usize,
    enc: *const u32,
    fast: bool,
    mut w: Words,
) -> (usize, bool) {
    let lane = lane_here(t) as usize;
    if F8 && nsym == 0 {
        return (0, true); // a FLOAT8 sub-chunk of one byte: stored empty
    }
    // Lanes above this one: their words come first in a step.
    let above = if lane == 31 { 0 } else { u32::MAX << (lane + 1) };
    // Tiles: the body (whole passes of the warp's 32·SPL states over 8 symbols each) in tiles of
    // 32·8 symbols, the rest in tiles of 32·2; FLOAT32 32·4 throughout.
    let (body, tail_block) = if BPS == 4 { (0, 4) } else { (nsym / (256 * SPL) * (256 * SPL), 2) };
    let body_tiles = body / (32 * B);
    let ntiles = body_tiles + (nsym - body).div_ceil(32 * tail_block);
    let full = if BPS == 4 { nsym / (32 * B) } else { body_tiles };
    let stop = if fast && (src as usize).is_multiple_of(B * BPS) { full } else { 0 };
    let mut x = [STATE_INITIAL; SPL];
    if F8 && nsym.is_multiple_of(256 * SPL) {
        // Seeded (`cpu::ans::rans::seeded`): each state codes its first symbol from `f · 2^(16 −
        // pb)`, the symbol's frequency (`M − [2]`), to `2^16 + cum`. Those symbols are the last
        // step's of the last (body) tile.
        let p = src.add(2 * (nsym - 32 * B + lane * B + B - SPL));
        for (s, xs) in x.iter_mut().enumerate() {
            let sym = symbols(load(p.add(2 * s), 2), BPS, 1, true) as usize;
            *xs = ((1u32 << 11) - *enc.add(512 + sym)) << 5;
        }
    }
    let mut tile = ntiles;
    while tile > stop {
        tile -= 1;
        let (start, block) = if tile < body_tiles {
            (tile * 32 * B, B)
        } else {
            (body + (tile - body_tiles) * 32 * tail_block, tail_block)
        };
        let len = (nsym - start).min(32 * block);
        let s = src.add(start * BPS);
        if fast {
            tile_general::<T, BPS, SPL, true, F8>(t, s, len, block, enc, &mut w, above, &mut x);
        } else {
            tile_general::<T, BPS, SPL, false, F8>(t, s, len, block, enc, &mut w, above, &mut x);
        }
        w.make_room::<T, PIECES>(t);
    }
    if stop > 0 {
        // Tile `k`'s symbols are loaded while tile `k + 1` is coded.
        let per = 32 * B * BPS;
        let mut p = src.add((tile - 1) * per + lane * B * BPS);
        let mut next = load_tile::<BPS, B>(p, L2::EvictFirst);
        let mut left = tile as u32;
        while left > 0 {
            left -= 1;
            let v = next;
            if left > 0 {
                p = p.sub(per);
                next = load_tile::<BPS, B>(p, L2::EvictFirst);
            }
            // L2 is asked for the tile TILE_PREFETCH beyond the one loaded (the input's second
            // read: the histogram's may have left L2).
            if left > TILE_PREFETCH {
                prefetch_l2(p.sub(TILE_PREFETCH as usize * per));
            }
            tile_fast::<T, BPS, SPL, B, F8>(t, v, enc, &mut w, above, &mut x);
            w.make_room::<T, PIECES>(t);
        }
    }
    let at = w.at as usize;
    let size = w.base + at + 128 * SPL;
    // Lane j's state s at index (31 − j)·SPL + s, after the words.
    let state_at = |s: usize| at + 4 * ((31 - lane) * SPL + s);
    if w.base == 0 && at + 128 * SPL <= 16 * PIECES {
        // Indexed: the states stay in registers (unrolled over the constant SPL).
        #[allow(clippy::needless_range_loop)]
        for s in 0..SPL {
            store(w.stage.add(state_at(s)), x[s] as u64, 2);
            store(w.stage.add(state_at(s) + 2), (x[s] >> 16) as u64, 2);
        }
        t.sync_warp();
        return (size, true);
    }
    // Spilled: the rest of the words (16-byte pieces; a piece's bytes past the words are
    // covered by the final states written next), then the states.
    t.sync_warp();
    put_pieces(t, w.stage, at, w.out.add(w.base), w.limit.saturating_sub(w.base), L2::Normal);
    t.sync_warp();
    #[allow(clippy::needless_range_loop)]
    for s in 0..SPL {
        let to = w.base + state_at(s);
        if to + 4 <= w.limit {
            store(w.out.add(to), x[s] as u64, 2);
            store(w.out.add(to + 2), (x[s] >> 16) as u64, 2);
        }
    }
    (size, false)
}

/// A warp writes its staged sub-chunk (`size` bytes at `stage`, zero-padded to 16) to `to`,
/// nothing past `room` bytes (a multiple of 16), one 16-byte store per lane and round, with L2
/// priority `h`.
#[inline(always)]
unsafe fn write_staged<T: Thread>(t: &T, stage: *mut u8, size: usize, to: *mut u8, room: usize, h: L2) {
    let lane = lane_here(t) as usize;
    if lane < size.next_multiple_of(16) - size {
        *stage.add(size + lane) = 0;
    }
    t.sync_warp();
    put_pieces(t, stage, size, to, room, h);
    // The warp's next sub-chunk reuses the buffer.
    t.sync_warp();
}

/// A warp copies the 16-byte pieces of `len` staged bytes at `stage` to `to` ([`put16`]: none
/// past `room` bytes), one piece per lane and round.
#[inline(always)]
unsafe fn put_pieces<T: Thread>(t: &T, stage: *const u8, len: usize, to: *mut u8, room: usize, h: L2) {
    let mut k = 16 * lane_here(t) as usize;
    if (to as usize).is_multiple_of(16) && len.next_multiple_of(16) <= room {
        // The usual case, every piece whole and aligned: a load and a store each (32-bit
        // offsets: `len` < 2^24).
        let (mut k, len) = (k as u32, len as u32);
        while k < len {
            store16(to.add(k as usize), *(stage.add(k as usize) as *const u128), h);
            k += 32 * 16;
        }
        return;
    }
    while k < len {
        put16(stage.add(k), to.add(k), room.saturating_sub(k), h);
        k += 32 * 16;
    }
}

/// For a warp: the stored bytes (each padded to 16) of sub-chunks `0 .. s` and the first of
/// `0 .. done` that spilled (`usize::MAX` if none); `s ≤ done ≤ MAX_SUB_CHUNKS`.
#[inline(always)]
unsafe fn sub_chunks_before<T: Thread>(
    t: &T,
    sizes: *const u32,
    spilled: *const u8,
    s: usize,
    done: usize,
) -> (usize, usize) {
    let lane = lane_here(t) as usize;
    let mut below = 0;
    for j in [lane, lane + 32] {
        if j < s {
            below += (*sizes.add(j)).next_multiple_of(16);
        }
    }
    let lo = t.ballot(lane < done && *spilled.add(lane) != 0);
    let hi = t.ballot(lane + 32 < done && *spilled.add(lane + 32) != 0);
    let first = if lo != 0 {
        lo.trailing_zeros() as usize
    } else if hi != 0 {
        32 + hi.trailing_zeros() as usize
    } else {
        usize::MAX
    };
    (warp_sum(t, below) as usize, first)
}

/// Copies 16 bytes from the staging buffer to `dst` (one store when aligned, with L2 priority
/// `h`), none past `room` bytes.
#[inline(always)]
unsafe fn put16(from: *const u8, dst: *mut u8, room: usize, h: L2) {
    if room < 16 {
        return;
    }
    let v = *(from as *const u128);
    if (dst as usize).is_multiple_of(16) {
        store16(dst, v, h);
    } else {
        for b in 0..16 {
            *dst.add(b) = (v >> (8 * b)) as u8;
        }
    }
}

/// Stores `v` at `dst` (16-byte aligned) with L2 priority `h`.
#[inline(always)]
unsafe fn store16(dst: *mut u8, v: u128, h: L2) {
    if h == L2::EvictFirst {
        st16_last(dst, v);
    } else {
        *(dst as *mut u128) = v;
    }
}

/// L2 eviction priority of a global access: `EvictFirst` for data the kernel does not read
/// again (the input's second read, the output), so that the input read once by the histogram
/// stays in L2 for the encode. The hints need PTX 7.4 (`createpolicy`, `.L2::cache_hint`): the
/// sm_80 build (PTX 7.0) makes plain accesses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum L2 {
    Normal,
    EvictFirst,
}

/// The L2 `evict_first` cache policy (a constant descriptor after ptxas).
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
#[inline(always)]
fn evict_first() -> u64 {
    let p: u64;
    // SAFETY: register-only.
    unsafe {
        core::arch::asm!("createpolicy.fractional.L2::evict_first.b64 {p}, 1.0;", p = out(reg64) p,
            options(pure, nomem, nostack));
    }
    p
}

/// Stores `v` at `p` (16-byte aligned), bytes the kernel does not read again: L2 evict_first.
#[inline(always)]
unsafe fn st16_last(p: *mut u8, v: u128) {
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
    core::arch::asm!("st.global.L2::cache_hint.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}}, {h};",
        p = in(reg64) p, a = in(reg32) v as u32, b = in(reg32) (v >> 32) as u32,
        c = in(reg32) (v >> 64) as u32, d = in(reg32) (v >> 96) as u32, h = in(reg64) evict_first(),
        options(nostack));
    #[cfg(not(all(target_arch = "nvptx64", target_feature = "sm_90")))]
    {
        *(p as *mut u128) = v;
    }
}

/// Stores `v` at `p` (8-byte aligned, little-endian), bytes the kernel does not read again: L2
/// evict_first.
#[inline(always)]
unsafe fn st8_last(p: *mut u8, v: u64) {
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
    core::arch::asm!("st.global.L2::cache_hint.v2.u32 [{p}], {{{a}, {b}}}, {h};",
        p = in(reg64) p, a = in(reg32) v as u32, b = in(reg32) (v >> 32) as u32, h = in(reg64) evict_first(),
        options(nostack));
    #[cfg(not(all(target_arch = "nvptx64", target_feature = "sm_90")))]
    {
        *(p as *mut u64) = v.to_le();
    }
}

/// `B · BPS` (8 or 16) aligned input bytes: a lane's symbol bytes of a whole tile, or a
/// histogram group (one load through the read-only path: no kernel writes the input). On sm_90
/// the loads do not allocate in L1: the input is read once from there, and what L1 keeps
/// beside the shared memory is the spilled registers (FLOAT16 +2.5 %).
#[inline(always)]
unsafe fn load_tile<const BPS: usize, const B: usize>(p: *const u8, h: L2) -> [u32; 4] {
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
    {
        let (a, b, c, d): (u32, u32, u32, u32);
        match (B * BPS == 8, h) {
            (true, L2::EvictFirst) => {
                core::arch::asm!("ld.global.nc.L1::no_allocate.L2::cache_hint.v2.u32 {{{a}, {b}}}, [{p}], {h};",
                    a = out(reg32) a, b = out(reg32) b, p = in(reg64) p, h = in(reg64) evict_first(),
                    options(pure, readonly, nostack));
                (c, d) = (0, 0);
            }
            (true, L2::Normal) => {
                core::arch::asm!("ld.global.nc.L1::no_allocate.v2.u32 {{{a}, {b}}}, [{p}];",
                    a = out(reg32) a, b = out(reg32) b, p = in(reg64) p, options(pure, readonly, nostack));
                (c, d) = (0, 0);
            }
            (false, L2::EvictFirst) => {
                core::arch::asm!("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}], {h};",
                    a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d, p = in(reg64) p,
                    h = in(reg64) evict_first(), options(pure, readonly, nostack));
            }
            (false, L2::Normal) => {
                core::arch::asm!("ld.global.nc.L1::no_allocate.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
                    a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d, p = in(reg64) p,
                    options(pure, readonly, nostack));
            }
        }
        [a, b, c, d]
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let (a, b, c, d): (u32, u32, u32, u32);
        let _ = h;
        if B * BPS == 8 {
            core::arch::asm!("ld.global.nc.v2.u32 {{{a}, {b}}}, [{p}];",
                a = out(reg32) a, b = out(reg32) b, p = in(reg64) p, options(pure, readonly, nostack));
            (c, d) = (0, 0);
        } else {
            core::arch::asm!("ld.global.nc.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
                a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d, p = in(reg64) p,
                options(pure, readonly, nostack));
        }
        [a, b, c, d]
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = h;
        let mut v = [0u32; 4];
        for (k, w) in v.iter_mut().take(B * BPS / 4).enumerate() {
            *w = u32::from_le(*(p as *const u32).add(k));
        }
        v
    }
}

/// The entry of symbol `i` of a lane's tile bytes `v` (FLOAT8 pairs if `F8`).
#[inline(always)]
unsafe fn entry_of<const BPS: usize, const F8: bool>(enc: *const u32, v: &[u32; 4], i: usize) -> Entry {
    let (w, shift) = match BPS {
        1 => (v[i / 4], 8 * (i % 4)),
        2 if F8 => (f8_pair_symbols(v[i / 2]), 16 * (i % 2)),
        2 => (v[i / 2], 16 * (i % 2) + 7),
        _ => (v[i], 23),
    };
    if BPS == 1 {
        Entry::load_fast(enc, (w >> shift) as usize & 0xFF)
    } else {
        // The symbol is not byte-aligned: shift and mask to its entry's offset at once.
        Entry::load_fast_at(enc, symbol_offset(w, shift as u32) as usize)
    }
}

/// A whole tile (`B` symbols per lane in `v`) with fast entries: its steps unrolled, so that
/// the symbol positions are constants.
#[inline(always)]
unsafe fn tile_fast<T: Thread, const BPS: usize, const SPL: usize, const B: usize, const F8: bool>(
    t: &T,
    v: [u32; 4],
    enc: *const u32,
    w: &mut Words,
    above: u32,
    x: &mut [u32; SPL],
) {
    let n = B / SPL;
    // The cursor as a shared-memory address: one add per word address.
    let base = shared_address(w.stage);
    let mut at = base.wrapping_add(w.at);
    if n > 7 {
        step_fast::<T, BPS, SPL, F8, 7>(t, &v, enc, w.stage, &mut at, above, x);
        step_fast::<T, BPS, SPL, F8, 6>(t, &v, enc, w.stage, &mut at, above, x);
        step_fast::<T, BPS, SPL, F8, 5>(t, &v, enc, w.stage, &mut at, above, x);
        step_fast::<T, BPS, SPL, F8, 4>(t, &v, enc, w.stage, &mut at, above, x);
    }
    if n > 3 {
        step_fast::<T, BPS, SPL, F8, 3>(t, &v, enc, w.stage, &mut at, above, x);
        step_fast::<T, BPS, SPL, F8, 2>(t, &v, enc, w.stage, &mut at, above, x);
    }
    step_fast::<T, BPS, SPL, F8, 1>(t, &v, enc, w.stage, &mut at, above, x);
    step_fast::<T, BPS, SPL, F8, 0>(t, &v, enc, w.stage, &mut at, above, x);
    w.at = at.wrapping_sub(base);
}

/// Step `S` of [`tile_fast`]: symbols `S · SPL + s` of the lane's tile bytes `v`; `cur` is the
/// cursor's [`shared_address`] in the staging buffer `stage`.
#[inline(always)]
unsafe fn step_fast<T: Thread, const BPS: usize, const SPL: usize, const F8: bool, const S: usize>(
    t: &T,
    v: &[u32; 4],
    enc: *const u32,
    stage: *mut u8,
    cur: &mut u32,
    above: u32,
    x: &mut [u32; SPL],
) {
    let mut e = [Entry([0; 4]); SPL];
    let mut emit = [false; SPL];
    let mut mine = 0;
    let mut all = 0;
    for s in 0..SPL {
        e[s] = entry_of::<BPS, F8>(enc, v, S * SPL + s);
        emit[s] = e[s].emits(x[s]);
        let b = t.ballot(emit[s]);
        mine += (b & above).count_ones();
        all += b.count_ones();
    }
    let mut at = *cur + 2 * mine;
    // This lane's states emit in descending order.
    for s in (0..SPL).rev() {
        emit_word(stage, &mut at, &mut x[s], emit[s], s > 0);
        x[s] = e[s].encode_fast(x[s], e[s].quotient_fast(x[s]), if BPS == 1 || F8 { 11 } else { 10 });
    }
    *cur += 2 * all;
}

/// The address of `p` (in shared memory) in the form [`emit_word`] stores to: on the GPU its
/// 32-bit shared-memory address, on the host 0 (the cursor is an offset into the buffer).
#[inline(always)]
fn shared_address(p: *mut u8) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let a: u64;
        // SAFETY: an address conversion; `p` points into shared memory.
        unsafe {
            core::arch::asm!("cvta.to.shared.u64 {a}, {p};", a = out(reg64) a, p = in(reg64) p,
                options(pure, nomem, nostack));
        }
        a as u32
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = p;
        0
    }
}

/// Where `emit`: stores the low 16 bits of the state `x` at the cursor `at` (a
/// [`shared_address`] in the staging buffer `stage`), shifts `x` right by 16 and, if
/// `advance`, moves `at` on by 2. On the GPU three instructions predicated on `emit`,
/// updating `x` and `at` in place (written as a branch, ptxas copied each through a spare
/// register: five).
#[inline(always)]
unsafe fn emit_word(stage: *mut u8, at: &mut u32, x: &mut u32, emit: bool, advance: bool) {
    // SAFETY (both forms): `at` is the shared address of the cursor, inside the warp's staging
    // buffer with room for the step's words (checked per tile by `Words::make_room`).
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = stage;
        if advance {
            core::arch::asm!("{{ .reg .pred p; setp.ne.u32 p, {e}, 0; @p st.shared.u16 [{at}], {x}; \
                @p shr.u32 {x}, {x}, 16; @p add.u32 {at}, {at}, 2; }}",
                e = in(reg32) emit as u32, at = inout(reg32) *at, x = inout(reg32) *x, options(nostack));
        } else {
            core::arch::asm!("{{ .reg .pred p; setp.ne.u32 p, {e}, 0; @p st.shared.u16 [{at}], {x}; \
                @p shr.u32 {x}, {x}, 16; }}",
                e = in(reg32) emit as u32, at = in(reg32) *at, x = inout(reg32) *x, options(nostack));
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    if emit {
        *(stage.add(*at as usize) as *mut u16) = *x as u16;
        *x >>= 16;
        if advance {
            *at += 2;
        }
    }
}

/// Any tile: `len` symbols from `src`, `block` per lane (the last lanes may have fewer or none),
/// with fast entries if `FAST`, else exact ones.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn tile_general<T: Thread, const BPS: usize, const SPL: usize, const FAST: bool, const F8: bool>(
    t: &T,
    src: *const u8,
    len: usize,
    block: usize,
    enc: *const u32,
    w: &mut Words,
    above: u32,
    x: &mut [u32; SPL],
) {
    let lane = lane_here(t) as usize;
    let pb = if BPS == 1 || F8 { 11 } else { 10 };
    let top = 1u32 << (32 - pb);
    let mine = len.saturating_sub(lane * block).min(block);
    let syms = if mine > 0 { symbols(load(src.add(lane * block * BPS), mine * BPS), BPS, mine, F8) } else { 0 };
    let mut step = block / SPL;
    while step > 0 {
        step -= 1;
        let mut e = [Entry([0; 4]); SPL];
        let mut q = [0u32; SPL];
        let mut emit = [false; SPL];
        let mut at = w.at;
        let mut all = 0;
        for s in 0..SPL {
            let b = step * SPL + s;
            if b < mine {
                let sym = ((syms >> (8 * b)) & 0xFF) as usize;
                e[s] = if FAST { Entry::load_fast(enc, sym) } else { Entry::load(enc, sym) };
                if FAST {
                    emit[s] = e[s].emits(x[s]);
                } else {
                    q[s] = e[s].quotient(x[s]);
                    emit[s] = q[s] >= top;
                }
            }
            let bal = t.ballot(emit[s]);
            at += 2 * (bal & above).count_ones();
            all += bal.count_ones();
        }
        // This lane's states emit in descending order.
        for s in (0..SPL).rev() {
            if emit[s] {
                *(w.stage.add(at as usize) as *mut u16) = x[s] as u16;
                at += 2;
                x[s] >>= 16;
                q[s] >>= 16;
            }
            if step * SPL + s < mine {
                x[s] =
                    if FAST { e[s].encode_fast(x[s], e[s].quotient_fast(x[s]), pb) } else { e[s].encode(x[s], q[s]) };
            }
        }
        w.at += 2 * all;
    }
}

/// The block moves sub-chunks `subs` (`first .. nsub`, `first ≥ 1`; stored sizes `sizes`) down from
/// their slots (`full` bytes each from `data`) to their final offsets (each after the one
/// before, padded to 16 bytes), in one pass over the final bytes up to `end`: four 16-byte
/// pieces per thread and round, the loads and stores of a round separated by a barrier. Every
/// piece comes from at or above its final offset, so a round's loads read nothing an earlier
/// round stored.
#[inline(always)]
unsafe fn move_down<T: Thread>(
    t: &T,
    dst: *mut u8,
    data: usize,
    end: usize,
    full: usize,
    sizes: *const u32,
    subs: core::ops::Range<usize>,
) {
    let (first, nsub) = (subs.start, subs.end);
    // Offsets in 32 bits (an output is below 2^25 bytes).
    let (data, end, full) = (data as u32, end as u32, full as u32);
    let tid = thread_here(t);
    let wide = (dst as usize).is_multiple_of(16);
    let padded = |s: usize| (*sizes.add(s)).next_multiple_of(16);
    // This thread's sub-chunk `s`: its pieces come from `shift` bytes above their final offset,
    // and the next sub-chunk starts at `bound` (or the last one ends there).
    let mut s = first;
    let mut base = data;
    for j in 0..first {
        base += padded(j);
    }
    let mut shift = data + first as u32 * full - base;
    let mut bound = base + padded(first);
    // The piece at final offset `at` (below `end`; a thread's pieces ascend). Whole pieces when
    // wide: a slot's bytes are a multiple of 16.
    let mut get = |at: u32| {
        if at >= end {
            return 0;
        }
        while at >= bound && s + 1 < nsub {
            shift += full - padded(s);
            s += 1;
            bound += padded(s);
        }
        let from = dst.add((at + shift) as usize);
        if wide {
            *(from as *const u128)
        } else {
            load(from, (end - at).min(16) as usize)
        }
    };
    let put = |at: u32, v: u128| {
        if at >= end {
            return;
        }
        let to = dst.add(at as usize);
        if wide && at + 16 <= end {
            *(to as *mut u128) = v;
        } else {
            for b in 0..(end - at).min(16) {
                *to.add(b as usize) = (v >> (8 * b)) as u8;
            }
        }
    };
    let step = 16 * THREADS as u32;
    while base < end {
        let at = base + 16 * tid;
        let v = [get(at), get(at + step), get(at + 2 * step), get(at + 3 * step)];
        t.sync_threads();
        put(at, v[0]);
        put(at + step, v[1]);
        put(at + 2 * step, v[2]);
        put(at + 3 * step, v[3]);
        base += 4 * step;
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use super::{FloatShared, GeneralShared, Kernel};
    use crate::ptx::{kernel, Ptx};

    /// The three kernels' entry points, `$kernel` choosing the data types and the staging
    /// buffers (module docs).
    macro_rules! ans_kernel {
        ($(#[$doc:meta])* $name:ident, $shared:ty, $kernel:expr) => {
            kernel! {
                $(#[$doc])*
                // 6 blocks (24 warps) per SM: 80 registers, spills outside the encode loops.
                #[link_section = "nvvm:maxntid=128;minctasm=6"]
                fn $name(
                    args: CompressArgs,
                    data_type: u32,
                    max_sub_chunk_count: u32,
                    states_per_lane: u32,
                    histogram_reduction_log2: u32,
                    max_chunk_bytes: u32
                ) [smem: static $name: $shared] {
                    super::compress::<_, _, { matches!($kernel, Kernel::Float8) }>(
                        &Ptx,
                        smem,
                        $kernel,
                        args,
                        data_type,
                        max_sub_chunk_count,
                        states_per_lane,
                        histogram_reduction_log2,
                        max_chunk_bytes,
                    )
                }
            }
        };
    }

    ans_kernel!(
        /// ANS compression of `num_chunks` chunks of bytes, FLOAT16 or FLOAT32 (nvCOMP's batched
        /// contract plus the options; FLOAT8 `NOT_SUPPORTED`); see [`super::compress`] and the
        /// module docs for the geometry.
        ans_compress,
        GeneralShared,
        Kernel::General
    );
    ans_kernel!(
        /// [`ans_compress`] for FLOAT16 and FLOAT32 with smaller staging buffers, for sub-chunks
        /// of at most [`super::FLOAT_STAGE_SYMBOLS`] symbols (larger ones spill; bytes and FLOAT8
        /// `NOT_SUPPORTED`).
        ans_compress_float,
        FloatShared,
        Kernel::Float
    );
    ans_kernel!(
        /// [`ans_compress`] for FLOAT8 E4M3 (every other data type `NOT_SUPPORTED`).
        ans_compress_float8,
        GeneralShared,
        Kernel::Float8
    );
}

#[cfg(test)]
mod tests {
    use super::{f8_pair_raw, f8_pair_symbols, pack_f16, pack_f16_group, tile_u128, Entry};

    #[test]
    fn float8_pairs_of_a_word_are_each_pair_alone() {
        let mut r = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..10_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let w = r as u32;
            for k in 0..2 {
                let (a, b) = ((w >> (16 * k)) as u8, (w >> (16 * k + 8)) as u8);
                let nibble = |x: u8| (x >> 4 & 8) | (x & 7);
                assert_eq!((f8_pair_symbols(w) >> (16 * k)) as u8, (a >> 3 & 15) | (b >> 3 & 15) << 4, "{w:08x}");
                assert_eq!((f8_pair_raw(w) >> (16 * k)) as u8, nibble(a) | nibble(b) << 4, "{w:08x}");
            }
        }
    }

    #[test]
    fn pack_f16_group_is_pack_f16_of_a_whole_group() {
        let mut r = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..10_000 {
            let mut v = [0u32; 4];
            for w in &mut v {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                *w = r as u32;
            }
            assert_eq!(pack_f16_group(v), pack_f16(tile_u128(v), 16), "{v:08x?}");
        }
    }

    /// States to check for frequency `f`: both ends of every 64th quotient up to `bound`, the
    /// quotients just below it, and pseudo-random ones.
    fn states(f: u32, bound: u64) -> impl Iterator<Item = u32> {
        let qmax = bound / f as u64;
        let mut r = 0x9E37_79B9_7F4A_7C15u64 ^ f as u64;
        let spread = (0..qmax).step_by(64).chain(qmax.saturating_sub(4)..qmax);
        let ends = spread.flat_map(move |q| [q * f as u64, q * f as u64 + f as u64 - 1]);
        let random = (0..64).map(move |_| {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            r % bound
        });
        ends.chain(random).filter(move |&x| x < bound && x >= 1).map(|x| x as u32)
    }

    #[test]
    fn fast_entries_divide_exactly_where_they_exist() {
        for pb in [10u32, 11] {
            let big = 1u32 << pb;
            let mut missing = 0;
            for f in 1..=big {
                if Entry::fast(f, 7, pb).is_none() {
                    missing += 1;
                    assert!(f >= big / 2, "pb {pb}: f {f} below M/2 has no fast entry");
                    continue;
                }
                // The smallest and the largest `cum` of a symbol of frequency `f` (the packed
                // `[3]` of `f = 1` reaches 2M − 2).
                for cum in [7, big - f] {
                    let e = Entry::fast(f, cum, pb).unwrap();
                    // The states a symbol codes after the emission check: below f·2^(32−pb).
                    for x in states(f, (f as u64) << (32 - pb)) {
                        let want = ((x / f) << pb) | (x % f);
                        let got = e.encode_fast(x, e.quotient_fast(x), pb).wrapping_sub(cum);
                        assert_eq!(got, e.encode(x, e.quotient_fast(x)).wrapping_sub(cum), "pb {pb} f {f} x {x}");
                        assert_eq!(got, want, "pb {pb} f {f} cum {cum} x {x}");
                    }
                    // The emission check, at its threshold and across the whole state range.
                    let thr = (f as u64) << (32 - pb);
                    for x in [thr - 1, thr, thr + 1, thr + 31, u32::MAX as u64, 1 << 16]
                        .into_iter()
                        .chain(thr.checked_sub(32))
                    {
                        if x <= u32::MAX as u64 {
                            assert_eq!(e.emits(x as u32), x >= thr, "pb {pb} f {f} cum {cum} x {x}");
                        }
                    }
                }
            }
            assert!(missing < big as usize / 2, "pb {pb}: {missing} frequencies without a fast entry");
            assert!(Entry::fast(big, 0, pb).is_none());
        }
    }

    #[test]
    fn exact_entries_divide_every_state() {
        for pb in [10u32, 11] {
            for f in 1..=(1u32 << pb) {
                let e = Entry::exact(f, 0, pb);
                for x in states(f, 1 << 32) {
                    assert_eq!(e.quotient(x), x / f, "pb {pb} f {f} x {x}");
                }
            }
        }
    }
}
