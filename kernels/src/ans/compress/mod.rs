//! ANS compression: `ans_compress(in_ptrs, in_bytes, num_chunks, out_ptrs, out_bytes, statuses,
//! data_type, max_sub_chunk_count, states_per_lane, histogram_reduction_log2, max_chunk_bytes,
//! parts, split)`, `ans_compress_float` and `ans_compress_float8` (the same arguments; `parts`
//! and `split`: the blocks per chunk and their per-chunk words, below), writing exactly the bytes
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
//! | `ans_compress`, `ans_compress_float8` | [`COMPRESS_BLOCK_THREADS`] (4 warps) | [`compress_split_grid_dim`]`(num_chunks, split)` ([`compress_grid_dim`]`(num_chunks)` at `split` 1) | static only ([`COMPRESS_SHARED_BYTES`] = 37 856 B); pass 0 dynamic bytes |
//! | `ans_compress_float` | the same | the same | static only ([`FLOAT_COMPRESS_SHARED_BYTES`] = 27 168 B); pass 0 dynamic bytes |
//!
//! Three kernels over one body, each taking its own data types only (the others' are
//! `NOT_SUPPORTED`) with the mode an expression of its own modes, so that the others' code drops
//! out: FLOAT8 has its own because beside the other modes its code cost them registers (FLOAT16
//! 6 % slower; `benches/notes/ans.md`), and FLOAT16 and FLOAT32 sub-chunks of at most
//! [`FLOAT_STAGE_SYMBOLS`] symbols (64 KiB chunks with the default options) take
//! `ans_compress_float`, whose smaller [`FLOAT_STAGE`]-byte buffers leave the spilled registers
//! room in L1 (1.02–1.04× `ans_compress` on FLOAT16). Larger float sub-chunks go to
//! `ans_compress`.
//!
//! Outputs must hold `AnsOptions::max_compressed_chunk_size(in_bytes[i])` bytes (the batch
//! maximum's bound is larger, so nvCOMP's buffers qualify); the kernel uses the space beyond the
//! chunk as scratch and never writes past that bound.
//!
//! # Design
//!
//! `split` thread blocks per chunk (groups of `split` blocks loop over chunks beyond the grid):
//! block `b` of the grid takes part `p = b % split` of chunk `b / split`, its warp `w` the
//! sub-chunks `4p + w, 4p + w + 4·split, …` (at `split` 1: `w, w + 4, …`, every phase below as
//! written). The host picks `split` per launch ([`compress_blocks_per_chunk`]: enough blocks to
//! fill the GPU, at most a chunk's groups of 4 sub-chunks, 1 for batches of many chunks): 128
//! chunks of 256 KiB left an H200 (132 SMs, 6 blocks each) mostly idle at one block per chunk.
//! A chunk takes [`chunk_blocks`] of them (one per group of 4 of its sub-chunks); the others
//! skip it, and a chunk of at most 4 sub-chunks runs on part 0 alone exactly as at `split` 1.
//! When more than one block codes a chunk, every one of them computes the histogram and the
//! table itself (deterministic, so the same; no cross-block wait, no second kernel) and writes
//! the same header, raw section and table bytes; each codes its own sub-chunks into their
//! scratch slots (steps 3 and 4: the sizes of the sub-chunks before its own are not known to
//! it), publishes their sizes in the chunk's size table, and adds its count to the chunk's word
//! of `parts` (a `u32` in the compression temp, zeroed on the stream before the launch): 1,
//! plus `2^16` if a sub-chunk of its outgrew its slot, by one relaxed atomic add between two
//! `fence.acq_rel.gpu` (every thread fences its own stores, then the block's barrier, then
//! thread 0's add and fence), see [`combine`]. The block whose add sees the chunk's other blocks
//! counted reads their sizes back from the size table and finishes the chunk: the placement
//! (step 4, from sub-chunk 1 on; after an overflow the re-encode, whose status is the one
//! `split` 1 gives), the size table, and the chunk's status and size. Only that block (at
//! `split` 1, or for a chunk one block codes, part 0) reports the chunk; statuses decided
//! before the encode (options, sizes) are part 0's. At `split` 1 `parts` is not read.
//!
//! 1. **Histogram** ([`histogram`]): the block reads the chunk in 16-byte groups, extracts the
//!    symbols (bytes, or the exponent byte `(h >> 7) & 0xFF` of each half / `(v >> 23) & 0xFF` of
//!    each float) and counts them with shared-memory atomics into one sub-histogram per warp (a
//!    counter's address is a shift and one `LOP3` that masks the symbol and ORs in the warp's
//!    1 KiB offset; the block's base stays a uniform register of the atomic); whole aligned
//!    groups take one 16-byte load and symbols at constant positions, four groups per thread per
//!    batch, the next batch loaded into a second register set while this one is counted, the
//!    rest (unaligned input, the last groups) a byte-wise path. Sampled histograms
//!    (`histogram_reduction_log2 > 0`, at least 4096 symbols) count only the head of each of
//!    the 8 slices. FLOAT16 and FLOAT8 with the exact histogram, aligned input and an 8-byte
//!    aligned raw section: the histogram also writes the whole groups' raw bytes from the groups
//!    it loaded, so the input is not read a third time.
//! 2. **Table** ([`table`](mod@table), the whole block, after the rest of the float modes' raw section
//!    ([`raw`]): FLOAT16 two raw bytes per pair of halves, one 8-byte store per group, for the
//!    groups the histogram did not write; FLOAT32 the quad's three interleaved words): thread `t`
//!    owns symbols `2t` and `2t + 1`; the quantisation is `FSE_normalizeM2` exactly as
//!    `cpu::ans::normalize` computes it (64-bit integers, every division the same). Its sums over
//!    the symbols are block reductions (warp sums, then the warps' words in shared memory after a
//!    barrier: the present symbols and their total, then the low-probability ones), and the
//!    cumulative frequencies one block scan: `acc` before a symbol is `mid + rStep · B` (`B` the
//!    counts of the distributed symbols before it), so the rounded frequencies telescope and
//!    `cum` is `(acc >> vStepLog)` plus the number of low-probability symbols before it (by the
//!    whole block, not warp 0 alone: that left three warps waiting, 8.5 % of the stall samples
//!    on text). The threads store the frequency table; then the whole block computes, two
//!    symbols per thread and with 32-bit divisions, the encoder's [`Entry`](entries::Entry) per symbol, one
//!    shared table of 4-byte words per field ([`entries`]): a 32-bit reciprocal (`x / f` as a
//!    `mul.hi` and a shift, exact for the states a symbol codes when `f < M/2`, and checked for
//!    larger `f`) and one word packing `M − f` (whose top bits also give the emission test),
//!    `cum` and the shift; the encoder loads these two words (two 4-byte loads have a fifth of
//!    one 16-byte load's bank conflicts) and codes with four instructions besides the quotient:
//!    `M − f` is one shift, `x + ([1] >> 5)` one `LEA.HI` (it adds `cum` and `(M − f) ·
//!    2^(27−pb)`), and `(q − 2^(27−pb)) · (M − f)` an add and a multiply-add that take the
//!    surplus back. A chunk where some symbol has no such entry (a symbol above about 0.7·M, or
//!    one symbol only) takes exact entries (a 43-bit reciprocal, any 32-bit state) and the
//!    general step loop throughout.
//! 3. **Encode** ([`encode`](mod@encode)): warp `w` encodes sub-chunks `w, w + 4, …`, lane `j` holding its
//!    `spl` states in registers and walking the schedule backwards
//!    (`cpu::ans::rans::encode_sub_chunk`): per step a ballot per state of "emits a word"; a
//!    state's word goes to position `W + popc` of the flags of the higher lanes (and of its
//!    lane's higher states), which is the CPU's emission order (lanes descending, states
//!    descending).
//!    * Whole tiles of an aligned sub-chunk with fast entries (every body tile of 32·8 symbols
//!      in byte and FLOAT16 mode, every whole FLOAT32 tile of 32·4) take `tile_fast`: the
//!      lane's 8 or 16 symbol bytes in one load, issued a tile ahead; steps unrolled with
//!      constant symbol positions, no per-symbol validity test and no per-word bounds check;
//!      L2 is asked for the tile two beyond the one loaded (`prefetch.global.L2`). A state's
//!      word store, its shift and the cursor's advance are three instructions predicated in
//!      place on the emission flag (inline PTX: written as a branch, ptxas copied the state
//!      and the cursor through spare registers and computed the emission test twice), and a
//!      FLOAT16 or FLOAT32 symbol's entry offset is a shift and a mask. Tails, partial and
//!      unaligned tiles and exact entries take the general step loop.
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
//! 4. **Place** ([`placement`], only after a spill): sub-chunk `i` from the first spilled one on
//!    moves down from its slot to its final offset: one pass of the whole block over the final
//!    bytes, four 16-byte pieces per thread and round (8 KiB per barrier; byte-wise when the
//!    output is not 16-byte aligned), each thread following which sub-chunk its pieces belong
//!    to. A piece comes from at or above its final offset, so a round's loads never read what
//!    an earlier round stored. A sub-chunk larger than its slot (possible only for adversarial
//!    symbol statistics) makes warp 0 encode the whole chunk again, sub-chunk by sub-chunk at
//!    the final offsets, bounded by the output's size (`OUTPUT_BUFFER_TOO_SMALL` if it does not
//!    fit, as the CPU encoder with that output).
//! 5. **Header** and size table, zero padding between the parts.
//!
//! **L2** (sm_90 builds; the hints need PTX 7.4, the sm_80 build is PTX 7.0): the encode's tile
//! loads (the input's second and last read), the FLOAT16 raw bytes the histogram writes and the
//! sub-chunks written to their final offsets carry an `evict_first` cache policy, so that the
//! input the histogram read stays in L2 for the encode (792 chunks in flight on an H200 are
//! 52 MB of input against its 50 MB L2; DRAM reads −22 %, writes −33 % on text). The input's
//! loads do not allocate in L1 (`L1::no_allocate`), which keeps L1 for the spilled registers,
//! reloaded at each sub-chunk.
//!
//! **FLOAT8 E4M3** follows the same steps with its own symbols and tiles (`cpu::ans::float`,
//! `cpu::ans::rans`): a symbol per pair of values (`e(a) | e(b) << 4`, the exponents), a raw
//! byte per pair (the sign-and-mantissa nibbles) and an odd last value raw as it is; both from a
//! word of two pairs with a shift, a mask and an OR, then a `PRMT` per two words (the histogram
//! counts the symbols like FLOAT16's and, like FLOAT16's, writes the raw bytes of the groups it
//! loads, [`raw::raw_f8`] the rest during the table); body tiles of 32·4 symbols (a lane's 4
//! pairs in one 8-byte load), `pb` 11; a sub-chunk without a tail is *seeded*: each state starts
//! at `f · 2^(16−pb)` of the first symbol it codes (the last step's), read from the input and the
//! entries' `M − f`; a sub-chunk of one byte codes nothing and is stored empty, a chunk of one
//! value has nvCOMP's one zero table entry; the sampled histogram's slices count bytes
//! (`cpu::ans::histogram::sample_slice`).
//!
//! Statuses, as `compress_in_batch`: unknown data type `NOT_SUPPORTED` (and the other kernel's
//! data types); bad option values `INVALID_VALUE`; more than 2^24 bytes `CHUNK_SIZE_TOO_LARGE`;
//! a length that is not a whole number of elements (FLOAT16, FLOAT32) `INVALID_VALUE`;
//! `out_bytes` is 0 for all of them. Empty chunks give the CPU's 32-byte chunk. Inputs and
//! outputs may have any alignment (unaligned ones take byte-wise paths).
//!
//! Launch bounds `.maxntid 128`, `.minnctapersm 6` (24 warps per SM): ptxas (CUDA 13) gives 80
//! registers on sm_80 and sm_90 and spills values kept across the chunk and sub-chunk loops,
//! none in the encode's tile loops (the bytes `scripts/ptx.sh` allows); 37 856 B of static shared
//! memory (six blocks and the driver's 1 KiB each take 233 280 of an H100's or H200's 233 472
//! bytes; an A100 holds four; the float kernel's 27 168 B leave 60 KiB of L1). The block's part,
//! `split` and chunk step live in shared memory (thread 0 writes them before the kernel's first
//! barrier), read where they are used, so that nothing new stays live across the encode loops.
//! Six blocks of 4
//! warps per SM: +12 % on text, +7 % on FLOAT16 against 4 spill-free blocks; 7 blocks measure
//! +2 % on text, −3 % on FLOAT16. Runs, profiles and the variants measured:
//! `benches/notes/ans.md`.
mod encode;
mod entries;
mod histogram;
mod mem;
mod placement;
mod raw;
mod symbols;
mod table;

use core::ptr::read_volatile;
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::batch::CompressArgs;
use crate::thread::thread_here;
use crate::{status, Thread};
use encode::encode;
use histogram::{count, count_bps};
use mem::{fence_gpu, load, store, L2};
use placement::{move_down, sub_chunks_before, write_staged};
use raw::{raw_f16, raw_f32, raw_f8};
use table::{encoder_entries, table};

/// Warps per thread block of `ans_compress`.
pub const COMPRESS_WARPS: usize = 4;
/// `blockDim.x` of `ans_compress`.
pub const COMPRESS_BLOCK_THREADS: u32 = COMPRESS_WARPS as u32 * 32;
/// Static shared memory of `ans_compress` and `ans_compress_float8`, bytes.
pub const COMPRESS_SHARED_BYTES: usize = core::mem::size_of::<GeneralShared>();
/// Static shared memory of `ans_compress_float`, bytes.
pub const FLOAT_COMPRESS_SHARED_BYTES: usize = core::mem::size_of::<FloatShared>();

/// `gridDim.x` of `ans_compress` at one block per chunk, capped at 65535:
/// [`compress_split_grid_dim`]`(num_chunks, 1)`.
pub const fn compress_grid_dim(num_chunks: u64) -> u32 {
    super::grid_dim(num_chunks)
}

/// `gridDim.x` of `ans_compress` at `split` blocks per chunk (`1 ≤ split ≤ 65535`): `split`
/// times the chunks, capped at the largest multiple of `split` up to 65535 (groups of `split`
/// blocks loop over the rest).
pub const fn compress_split_grid_dim(num_chunks: u64, split: u32) -> u32 {
    super::split_grid_dim(num_chunks, split)
}

/// Thread blocks of the compression kernels an SM holds (their `.minnctapersm`).
pub const COMPRESS_BLOCKS_PER_SM: u32 = 6;

/// Thread blocks per chunk (`split`) of the compression kernels for a batch of `num_chunks`
/// chunks of at most `sub_chunks` sub-chunks each (`ceil(max_chunk / AnsOptions::sub_chunk_size
/// (max_chunk))`) on a GPU of `sms` SMs: enough for the batch to fill the GPU
/// ([`COMPRESS_BLOCKS_PER_SM`] blocks per SM), never more than a chunk's groups of
/// [`COMPRESS_WARPS`] sub-chunks, and 1 for a batch that fills the GPU alone. A launch at
/// `split > 1` needs [`compress_split_temp_bytes`] of zeroed temp memory.
pub const fn compress_blocks_per_chunk(num_chunks: u64, sub_chunks: u64, sms: u32) -> u32 {
    // A chunk's "bytes" counted in sub-chunks, a block's group in warps' sub-chunks.
    crate::batch::blocks_per_chunk(num_chunks, sub_chunks, COMPRESS_WARPS as u64, sms, COMPRESS_BLOCKS_PER_SM)
}

/// Temp bytes the compression kernels need for `num_chunks` chunks of at most `sub_chunks`
/// sub-chunks to run at more than one block per chunk: one `u32` per chunk (the chunk's
/// finished blocks), or 0 when no batch of such chunks splits them
/// ([`compress_blocks_per_chunk`]).
pub const fn compress_split_temp_bytes(num_chunks: u64, sub_chunks: u64) -> u64 {
    if sub_chunks.div_ceil(COMPRESS_WARPS as u64) < 2 {
        0
    } else {
        4 * num_chunks
    }
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

/// Shared memory of one thread block, with staging buffers of `PIECES` 16-byte pieces ([`STAGE`]
/// or [`FLOAT_STAGE`] bytes).
#[repr(C, align(16))]
pub struct Shared<const PIECES: usize> {
    /// The warps' staging buffers; until the encode, the first 4 KiB hold one symbol histogram
    /// per warp, then the table's frequencies and cumulative counts. (Pieces, not bytes: with
    /// byte arrays ptxas spilled 36–40 B more in `ans_compress` and `ans_compress_float8`.)
    stage: [[u128; PIECES]; COMPRESS_WARPS],
    /// The encoder's entries, field by field ([`Entry::store`](entries::Entry::store)).
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
    // Last, so that the fields above keep their offsets (shared-address immediates).
    /// The block's part of each of its chunks (`blockIdx.x % split`), the blocks per chunk and
    /// the chunk loop's step (`gridDim.x / split`), written by thread 0 before the kernel's
    /// first barrier (read where used: not kept in registers).
    part: u32,
    split: u32,
    stride: u32,
    /// Whether this block reports the chunk's status and size (thread 0's: part 0, or at
    /// `split > 1` the last of the chunk's blocks to finish).
    report: u32,
}

/// The chunk's coding mode (from the data type).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bytes,
    Float16,
    Float32,
    /// FLOAT8 E4M3: a symbol per pair of values ([`f8_pair_symbols`](symbols::f8_pair_symbols)).
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

/// Kernel body of `kernel` (`ans_compress`, `ans_compress_float` or `ans_compress_float8`; see
/// the module docs), with staging buffers of `PIECES` 16-byte pieces; `F8` is whether `kernel`
/// is [`Kernel::Float8`] (a parameter of its own: the FLOAT8 histogram and raw section are
/// instantiated by it; selected by `kernel` instead, LLVM laid the kernels out anew and ptxas's
/// spills moved, the FLOAT8 kernel's from 220 B to 260 on sm_90).
///
/// `split` blocks per chunk (module docs): block `b` codes part `b % split` of chunk `b / split`
/// (stepping by `gridDim.x / split`), and the chunk's blocks combine in its word of `parts`.
///
/// # Safety
/// Launched with [`COMPRESS_BLOCK_THREADS`] threads per block and a grid of a multiple of
/// `split` blocks (`1 ≤ split ≤ 65535`); with `split > 1`, `parts` holds `num_chunks` zeroed
/// words (not read otherwise); `args` valid, input `i` readable for its size, output `i`
/// writable for `AnsOptions::max_compressed_chunk_size` of it, outputs overlapping nothing;
/// `smem` is this block's.
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
    parts: *mut u32,
    split: u32,
) {
    // The staging buffers hold the histograms (1 KiB per warp), which is more than a page and
    // the final states after 16 bytes (`Words::make_room`).
    const { assert!(16 * PIECES >= 4 * 256) };
    const { assert!(4 * 256 >= 16 + PAGE + 256) };
    debug_assert_eq!(F8, kernel == Kernel::Float8);
    let opts = options(kernel, data_type, max_sub_chunk_count, states_per_lane, histogram_reduction_log2);
    let opts = opts.map(|o| Options { mode: kernel.narrow(o.mode), ..o });
    let split = split.max(1);
    if thread_here(t) == 0 {
        (*smem).part = t.block_idx() % split;
        (*smem).split = split;
        (*smem).stride = t.grid_dim() / split;
    }
    t.sync_threads();
    // A hand-written loop: with `batch::block_chunks`, ptxas spills 16-36 B more here.
    let mut chunk = (t.block_idx() / split) as u64;
    while chunk < args.num_chunks {
        let i = chunk as usize;
        if thread_here(t) == 0 {
            // Part 0 reports unless the chunk's blocks combine (`combine`).
            (*smem).report = (read_volatile(&raw const (*smem).part) == 0) as u32;
        }
        let ((src, n), dst) = (args.input(i), args.output(i));
        let result = match opts {
            Err(e) => Err(e),
            Ok(_) if n > MAX_CHUNK_SIZE as u64 => Err(status::CHUNK_SIZE_TOO_LARGE),
            // FLOAT8 stores an odd last value raw.
            Ok(o) if o.mode != Mode::Float8 && n as usize & (o.mode.bps() - 1) != 0 => Err(status::INVALID_VALUE),
            Ok(o) => {
                compress_chunk::<T, PIECES, F8>(t, smem, &o, src, n as usize, dst, max_chunk_bytes as usize, parts, i)
            }
        };
        if t.thread_idx() == 0 && read_volatile(&raw const (*smem).report) != 0 {
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
        chunk += read_volatile(&raw const (*smem).stride) as u64;
    }
}

/// Compresses this block's part of chunk `i`, of `n` bytes (a whole number of elements, at most
/// 2^24); returns its length if this block reports it (`report`; `parts`: the chunks' words).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn compress_chunk<T: Thread, const PIECES: usize, const F8: bool>(
    t: &T,
    smem: *mut Shared<PIECES>,
    o: &Options,
    src: *const u8,
    n: usize,
    dst: *mut u8,
    max_chunk_bytes: usize,
    parts: *mut u32,
    i: usize,
) -> Result<usize, i32> {
    let tid = thread_here(t) as usize;
    let (warp, lane) = (tid / 32, tid % 32);

    let bps = o.mode.bps();
    let pb = o.mode.pb();
    let nsym = n / bps;
    let sc = sub_chunk_size(o, max_chunk_bytes.max(n));
    let nsub = n.div_ceil(sc);
    if read_volatile(&raw const (*smem).part) >= chunk_blocks(nsub, read_volatile(&raw const (*smem).split)) {
        return Ok(0); // nothing for this block: the chunk has fewer groups of sub-chunks
    }
    let cap = max_compressed(o, n);
    let [sizes_end, raw_start, raw_end, table_start] = layout(o.mode, n, nsub);
    let sampled = o.hrl2 > 0 && nsym >= EXACT_BELOW_SYMBOLS;

    // 1. Histogram (and the raw section).
    let hist = (&raw mut (*smem).stage).cast::<u32>();
    zero_histograms(hist, tid);
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
        count_sampled(tid, hist, warp, src, o.mode, o.hrl2, n, nsym);
    } else if fuse {
        count_bps::<2, true, F8>(tid, hist, warp, src, 0, nsym, dst.add(raw_start));
    } else {
        count(tid, hist, warp, src, o.mode, 0, nsym);
    }
    zero_raw_padding(dst, tid, sizes_end, raw_start, raw_end, table_start);
    t.sync_threads();

    // 2. Table, by the whole block; first the rest of the float modes' raw section.
    raw_rest::<F8>(tid, o.mode, src, n, dst.add(raw_start), raw_done);
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
        write_header(dst, n, sc, (*smem).table[0], entries, pb, o.mode, o.spl);
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
    // Part `p` of `split` encodes sub-chunks `4p + w`, stepping by `4 · split`.
    let mut round = COMPRESS_WARPS * read_volatile(&raw const (*smem).part) as usize;
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
                zero_padding(dst.add(slot), size, lane);
            }
            if lane == 0 {
                record_size(sizes, spilled, s, size, in_stage);
            }
        }
        round += COMPRESS_WARPS * read_volatile(&raw const (*smem).split) as usize;
        t.sync_threads();
        if overflow.load(Relaxed) != 0 {
            break;
        }
        // The round's sizes are known: where each warp's staged sub-chunk goes (with other
        // blocks coding sub-chunks before it: its slot, and the placement moves it).
        let (below, spill) = if shared_chunk(smem, nsub) {
            (0, 0)
        } else {
            sub_chunks_before(t, sizes, spilled, s.min(nsub), round.min(nsub))
        };
        first_spill = spill.min(nsub);
        if let Some(size) = staged {
            // At its final offset nothing reads it again; in its slot the placement does.
            let (to, h) = if s < first_spill { (data + below, L2::EvictFirst) } else { (data + s * full, L2::Normal) };
            write_staged(t, stage, size, dst.add(to), cap - to, h);
        }
    }
    t.sync_threads();
    if shared_chunk(smem, nsub) && !combine(t, smem, dst, nsub, parts, i) {
        return Ok(0); // another of the chunk's blocks finishes it
    }

    // 4. Place.
    let end = if overflow.load(Relaxed) != 0 {
        t.sync_threads(); // every thread has read the flag
        if warp == 0 {
            encode_again::<T, PIECES>(t, smem, o, src, &symbols_of, sc, fast, stage, dst, data, cap, nsub, lane);
        }
        t.sync_threads();
        if overflow.load(Relaxed) != 0 {
            return Err(status::OUTPUT_BUFFER_TOO_SMALL);
        }
        data_end(data, sizes, nsub)
    } else {
        let end = data_end(data, sizes, nsub);
        // Sub-chunk 0's slot is its final place.
        if first_spill.max(1) < nsub {
            move_down(t, dst, data, end, full, sizes, first_spill.max(1)..nsub);
        }
        end
    };

    // 5. Size table.
    write_sizes(dst, sizes, nsub, tid);
    Ok(end)
}

/// Blocks that code a chunk of `nsub` sub-chunks at `split` blocks per chunk: one per group of
/// [`COMPRESS_WARPS`] sub-chunks (an empty chunk one), at most `split` (the others skip the
/// chunk).
#[inline(always)]
fn chunk_blocks(nsub: usize, split: u32) -> u32 {
    (nsub.div_ceil(COMPRESS_WARPS).max(1) as u32).min(split)
}

/// Whether more than one block codes this chunk of `nsub` sub-chunks (then they combine in its
/// word, [`combine`]).
#[inline(always)]
unsafe fn shared_chunk<const PIECES: usize>(smem: *mut Shared<PIECES>, nsub: usize) -> bool {
    nsub > COMPRESS_WARPS && read_volatile(&raw const (*smem).split) > 1
}

/// A block's count in its chunk's word of `parts`: finished blocks in the low 16 bits, blocks
/// whose sub-chunk outgrew its slot in the high 16 (`split ≤ 65535`: neither carries over).
const PART_DONE: u32 = 1;
const PART_OVERFLOW: u32 = 1 << 16;

/// At more than one block per chunk, after a block's encode rounds (its sub-chunks in their
/// slots): the block publishes its sub-chunks' sizes in the chunk's size table (in the output)
/// and adds its count to chunk `i`'s word of `parts`; returns whether it is the last of the
/// chunk's blocks, which then holds every sub-chunk's size in `sizes` and, if any block's
/// sub-chunk outgrew its slot, `overflow` set, and finishes the chunk.
#[inline(always)]
unsafe fn combine<T: Thread, const PIECES: usize>(
    t: &T,
    smem: *mut Shared<PIECES>,
    dst: *mut u8,
    nsub: usize,
    parts: *mut u32,
    i: usize,
) -> bool {
    let tid = thread_here(t) as usize;
    let sizes = (&raw mut (*smem).sizes).cast::<u32>();
    let overflow = AtomicU32::from_ptr(&raw mut (*smem).overflow);
    let split = read_volatile(&raw const (*smem).split).max(1);
    let part = &raw const (*smem).part;
    let own = |s: usize| (s / COMPRESS_WARPS) as u32 % split == read_volatile(part);
    // One sub-chunk per thread (`nsub ≤ 64`). An overflow makes the last block encode the
    // chunk again, and its sizes with it.
    let table = dst.wrapping_add(16 + 4 * tid);
    if tid < nsub && own(tid) && overflow.load(Relaxed) == 0 {
        store(table, *sizes.add(tid) as u64, 4);
    }
    // Release: every thread's stores to the output (slots, sizes) before the block's count.
    fence_gpu();
    t.sync_threads();
    if tid == 0 {
        let word = AtomicU32::from_ptr(parts.add(i));
        let old = word.fetch_add(PART_DONE + PART_OVERFLOW * overflow.load(Relaxed), Relaxed);
        // Acquire: the other blocks' stores before what this block reads next.
        fence_gpu();
        let last = old & 0xFFFF == chunk_blocks(nsub, split) - 1;
        (*smem).report = last as u32;
        if old >= PART_OVERFLOW {
            overflow.store(1, Relaxed);
        }
    }
    t.sync_threads();
    if read_volatile(&raw const (*smem).report) == 0 {
        return false;
    }
    fence_gpu();
    if tid < nsub && !own(tid) && overflow.load(Relaxed) == 0 {
        *sizes.add(tid) = load(table, 4) as u32;
    }
    t.sync_threads();
    true
}

/// The layout of a chunk of `n` bytes in `nsub` sub-chunks (`cpu::ans::header::Layout`): the
/// end of the size table, the start and end of the raw section and the start of the table.
#[inline(always)]
fn layout(mode: Mode, n: usize, nsub: usize) -> [usize; 4] {
    let sizes_end = 16 + 4 * nsub;
    let raw_start = if mode == Mode::Bytes { sizes_end } else { sizes_end.next_multiple_of(8) };
    let raw_end = raw_start + mode.raw_len(n);
    [sizes_end, raw_start, raw_end, raw_end + (raw_end & 1)]
}

/// Zeroes the warps' histograms (thread `tid` of the block).
#[inline(always)]
unsafe fn zero_histograms(hist: *mut u32, tid: usize) {
    let mut k = tid;
    while k < 256 * COMPRESS_WARPS {
        *hist.add(k) = 0;
        k += THREADS;
    }
}

/// Counts the head of each of the [`SAMPLE_SLICES`] slices of the `n` bytes (`nsym` symbols)
/// at `src` into the warps' histograms (`cpu::ans::histogram::sample_slice`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn count_sampled(
    tid: usize,
    hist: *mut u32,
    warp: usize,
    src: *const u8,
    mode: Mode,
    hrl2: u32,
    n: usize,
    nsym: usize,
) {
    // Symbols per slice (FLOAT8 from the bytes).
    let p = if mode == Mode::Float8 {
        n.div_ceil(SAMPLE_SLICES).next_multiple_of(16).max(16) / 2
    } else {
        nsym.div_ceil(SAMPLE_SLICES).next_multiple_of(16).max(16)
    };
    let mut start = 0;
    while start < nsym {
        let keep = (nsym - start).min(p) >> hrl2;
        count(tid, hist, warp, src, mode, start, keep);
        start += p;
    }
}

/// The zero bytes between the size table and the raw section and after an odd raw section
/// (thread `tid` of the block).
#[inline(always)]
unsafe fn zero_raw_padding(
    dst: *mut u8,
    tid: usize,
    sizes_end: usize,
    raw_start: usize,
    raw_end: usize,
    table_start: usize,
) {
    if tid < raw_start - sizes_end {
        *dst.add(sizes_end + tid) = 0;
    }
    if tid == 0 && table_start > raw_end {
        *dst.add(raw_end) = 0;
    }
}

/// The float modes' raw section at `raw` but its first `raw_done` groups of 16 bytes, which
/// the histogram wrote (thread `tid` of the block).
#[inline(always)]
unsafe fn raw_rest<const F8: bool>(tid: usize, mode: Mode, src: *const u8, n: usize, raw: *mut u8, raw_done: usize) {
    match mode {
        Mode::Float16 => raw_f16(tid, THREADS, src, n, raw, raw_done),
        Mode::Float8 => raw_f8::<F8>(tid, THREADS, src, n, raw, raw_done),
        Mode::Float32 => raw_f32(tid, THREADS, src, n, raw),
        Mode::Bytes => {}
    }
}

/// The chunk header at `dst`: `n` bytes in sub-chunks of `sc`, table entries `mn ..` (`entries`
/// of them), `pb` probability bits, the mode and the states per lane.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn write_header(dst: *mut u8, n: usize, sc: usize, mn: u32, entries: usize, pb: u32, mode: Mode, spl: usize) {
    let w = [n as u32, sc as u32, mn | (mn + entries as u32 - 1) << 8 | pb << 16 | mode.code() << 24, spl as u32];
    for (k, &v) in w.iter().enumerate() {
        store(dst.add(4 * k), v as u64, 4);
    }
}

/// A lane's byte of the zero padding from `size` bytes at `sub_chunk` to the next multiple of
/// 16 (to the next sub-chunk, moved along with it).
#[inline(always)]
unsafe fn zero_padding(sub_chunk: *mut u8, size: usize, lane: usize) {
    let pad = size.next_multiple_of(16) - size;
    if lane < pad {
        *sub_chunk.add(size + lane) = 0;
    }
}

/// Sub-chunk `s`'s stored size and whether it spilled.
#[inline(always)]
unsafe fn record_size(sizes: *mut u32, spilled: *mut u8, s: usize, size: usize, in_stage: bool) {
    *sizes.add(s) = size as u32;
    *spilled.add(s) = !in_stage as u8;
}

/// After an overflow, warp 0 encodes the chunk again (sub-chunk `s`: `symbols_of(s)` symbols
/// from `src + s · sc`, staged in `stage`), sub-chunk by sub-chunk at their final offsets from
/// `data`, within the output's `cap` bytes; leaves `overflow` set unless all fit.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn encode_again<T: Thread, const PIECES: usize>(
    t: &T,
    smem: *mut Shared<PIECES>,
    o: &Options,
    src: *const u8,
    symbols_of: &impl Fn(usize) -> usize,
    sc: usize,
    fast: bool,
    stage: *mut u8,
    dst: *mut u8,
    data: usize,
    cap: usize,
    nsub: usize,
    lane: usize,
) {
    let enc = (&raw const (*smem).enc).cast::<u32>();
    let sizes = (&raw mut (*smem).sizes).cast::<u32>();
    let overflow = AtomicU32::from_ptr(&raw mut (*smem).overflow);
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

/// The end of the data section at `data`: the `nsub` sub-chunks' `sizes`, each but the last
/// padded to 16 bytes.
#[inline(always)]
unsafe fn data_end(data: usize, sizes: *const u32, nsub: usize) -> usize {
    let mut end = data;
    for s in 0..nsub {
        end += *sizes.add(s) as usize;
        if s + 1 < nsub {
            end = end.next_multiple_of(16);
        }
    }
    end
}

/// The size table: the `nsub` sub-chunks' `sizes` after the header (thread `tid` of the block).
#[inline(always)]
unsafe fn write_sizes(dst: *mut u8, sizes: *const u32, nsub: usize, tid: usize) {
    let mut k = tid;
    while k < nsub {
        store(dst.add(16 + 4 * k), *sizes.add(k) as u64, 4);
        k += THREADS;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compression blocks per chunk fill an H200 (132 SMs, 6 blocks each) up to a chunk's
    /// groups of 4 sub-chunks, and the temp size covers every split.
    #[test]
    fn compress_blocks_per_chunk_fill_the_gpu() {
        let h200 = |n, subs| compress_blocks_per_chunk(n, subs, 132);
        // 128 chunks of 8 sub-chunks (256 KiB, default options): their 2 groups; of 64: 6 fill it.
        assert_eq!((h200(128, 8), h200(128, 64)), (2, 6));
        // One 64 KiB array (8 sub-chunks): 2; one chunk of 64 sub-chunks: 16.
        assert_eq!((h200(1, 8), h200(1, 64), h200(100, 64)), (2, 16, 7));
        // Batches that fill the GPU alone, chunks of one group, no chunks.
        assert_eq!((h200(792, 64), h200(400, 64), h200(1, 4), h200(1, 1), h200(0, 64)), (1, 1, 1, 1, 1));
        assert_eq!(h200(1, 5), 2);
        for n in [1, 2, 3, 100, 1000, 70000] {
            for subs in [0, 1, 4, 5, 8, 63, 64, 8192] {
                let k = compress_blocks_per_chunk(n, subs, 132);
                assert!((1..=65535).contains(&k), "{n} {subs}");
                assert!(k == 1 || compress_split_temp_bytes(n, subs) == 4 * n, "{n} {subs}");
                let grid = compress_split_grid_dim(n, k);
                assert!(grid.is_multiple_of(k) && grid <= 65535 && grid as u64 <= n * k as u64, "{n} {subs}");
            }
        }
    }

    /// A chunk takes one block per group of 4 sub-chunks, at most `split`.
    #[test]
    fn chunk_blocks_are_its_groups() {
        assert_eq!((chunk_blocks(1, 8), chunk_blocks(4, 8), chunk_blocks(5, 8), chunk_blocks(64, 8)), (1, 1, 2, 8));
        assert_eq!((chunk_blocks(64, 3), chunk_blocks(9, 1), chunk_blocks(0, 2)), (3, 1, 1));
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
                    max_chunk_bytes: u32,
                    parts: *mut u32,
                    split: u32
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
                        parts,
                        split,
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
