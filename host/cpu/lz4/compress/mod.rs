//! LZ4 block encoder: a sequential, exact emulation of the warp-window algorithm of nvCOMP's
//! GPU LZ4 compressor (FORMATS.md C.1, `gpu_lz4_model.py`), with two rule sets:
//! [`Lz4Encoder::Nvcomp`] reproduces nvCOMP 6's bytes exactly, [`Lz4Encoder::Gpucomp`] (the
//! default) keeps the same warp-window structure and gets a better ratio. A GPU warp runs either
//! at about the same cost per byte; gpucomp's LZ4 kernel reproduces these bytes exactly, so every
//! rule below is normative.
//!
//! # The algorithm
//!
//! Notation: the chunk has `n` bytes and element width `w` ∈ {1, 2, 4}; it is read as
//! `E = ⌈n/w⌉` elements (a partial last element is always inside the final literals). All
//! positions, lanes, distances and lengths count **elements**; the LZ4 block written is a
//! standard byte block (literal counts, match lengths and offsets are element counts × `w`).
//!
//! - Constants: lanes per window `L = 32 − ⌊3/w⌋` (29, 31, 32); `LM = ⌈12/w⌉` (no match starts
//!   at a position `p` with `p + LM ≥ E`); `EL = ⌈5/w⌉` (a match ends at most at `E − EL`, so the
//!   last 5 bytes are literals); largest distance `MAXD = ⌊65535/w⌋`.
//! - `key(p)` = the 32-bit little-endian word at byte `p·w`.
//! - Hash table: `T` = [`EncoderParams::table_size`] slots of 16 bits, a power of two set by
//!   [`Lz4Encoder::table_size`] from the batch's largest chunk `M` (for a stream,
//!   `min(chunk size, input size)`): Nvcomp `min(next_pow2(M), 16384)`, as nvCOMP; Gpucomp
//!   `min(next_pow2(M), 2048)`, so that a GPU's shared memory holds a table for every warp it can
//!   run — the GPU encoder is latency-bound — for 8 % of the ratio. The table is
//!   all `0xFFFF` at the start of each chunk. `hash(k)`:
//!   - Nvcomp: `(bitreverse32(k) + (k XOR 0xC375)) mod 2³²`, masked with `T − 1`;
//!   - Gpucomp: `(k · 0x9E3779B1 mod 2³²) >> (32 − log2 T)` (the top bits; 0 when `T = 1`).
//! - Insert position `p`: `table[hash(key(p))] = p mod 65536`.
//! - `lookup(p)`: `s = table[hash(key(p))]`; Nvcomp only: `s = 0xFFFF` means empty (the quirk:
//!   a position ≡ 0xFFFF mod 65536 is never found); Gpucomp treats every value as a candidate.
//!   The candidate `r` is `p` with its low 16 bits replaced by `s`, minus 65536 if that is
//!   `≥ p`; there is none if `r < 0`, `p − r > MAXD` or `key(r) ≠ key(p)`.
//!
//! Sequential state: `idx` (window start) and `tok` (first pending literal), both 0, and for
//! Gpucomp `misses` (windows without a match since the last match), 0. Lane `t` of a window is
//! at position `q(t) = idx + t·d`, where the stride `d` is 1 for Nvcomp and
//! `skip_stride(misses)` for Gpucomp (section "Skipping"). Repeat:
//!
//! 1. If `idx + LM ≥ E`: emit the final sequence, the bytes `[tok·w, n)` as literals with match
//!    nibble 0xC (nvCOMP's token), and stop. (Empty input: the block is the single byte 0x0C.)
//! 2. The window: `V = min(L, ⌈(E − LM − idx) / d⌉)` lanes, lane `t` at position `q(t)`.
//! 3. Each lane's candidate source `cand(t)`: if an earlier lane `s < t` of this window has
//!    `key(q(s)) = key(q(t))`, the smallest such `s` (position `q(s)`); otherwise
//!    `lookup(q(t))` in the table as it was when the window started.
//! 4. `f` = the smallest lane with a candidate. If none: insert lanes `0..V` in lane order (a
//!    later lane overwrites an earlier one in the same slot), `idx += V·d`, `misses += 1`, go
//!    to 1.
//! 5. Choose lane `c`. Nvcomp: `c = f`. Gpucomp (lazy choice among 5 lanes): for each lane
//!    `t ∈ [f, min(f + 4, V − 1)]` with a candidate, `len(t)` = the number of equal leading
//!    elements of `cand(t)` and `q(t)`, capped at `min(16, E − EL − q(t))`, and
//!    `score(t) = len(t) − (t − f)`; `c` is the lane with the largest score, the smallest lane
//!    among equal scores.
//! 6. Insert lanes `0..c` in lane order.
//! 7. `pos = q(c)`, `src = cand(c)`; the match length `ml` = the number of equal leading
//!    elements at `src` and `pos`, at most `E − EL − pos` (the source may run into the match).
//! 8. Gpucomp only, backward extension: while `pos > tok`, `src > 0` and element `pos − 1` equals
//!    element `src − 1`: `pos −= 1`, `src −= 1`, `ml += 1`.
//! 9. Emit the sequence: literals `[tok·w, pos·w)`, offset `(pos − src)·w`, match length `ml·w`.
//! 10. Gpucomp only: insert every position `p ∈ [pos, pos + ml)` in increasing order (later
//!     wins); nvCOMP never inserts positions inside matches.
//! 11. `idx = tok = pos + ml`, `misses = 0`; go to 1.
//!
//! Sequence encoding (standard LZ4): token = `min(literals, 15) << 4 | min(ml − 4, 15)`
//! (0xC for the final sequence), literal length extension bytes (0xFF…, then the rest below 255)
//! when literals ≥ 15, the literals, the offset as u16 LE, match length extension when
//! `ml − 4 ≥ 15`. Each match is at least 4 bytes (the key is equal and the caps leave ≥ 8 bytes).
//!
//! # Skipping (Gpucomp)
//!
//! Like LZ4's acceleration, Gpucomp spreads a window's lanes out over data that does not match:
//! `skip_stride(m)` (`gpucomp_kernels::lz4::skip_stride`, shared with the kernel) is 1 while
//! `m < K` and `min(m − K + 2, D)` from then on, with `K` = `SKIP_AFTER` = 4 windows and `D` =
//! `SKIP_MAX` = 16. Positions between the lanes are neither looked up nor inserted; they become
//! literals, or part of a match through step 8 (backward extension), and a match resets the
//! stride to 1. A 16 KiB segment of random bytes takes 46 windows instead of 565; the ratio of
//! text, logs, JSON and integer columns did not move (4 decimals), data that turns compressible
//! after 12 KiB of random bytes lost 1.1 % (benches/notes/lz4.md, "Skipping").
//!
//! # Segments (Gpucomp)
//!
//! Gpucomp encodes a chunk of more than [`SEGMENT`] = 16384 bytes as consecutive segments of
//! `SEGMENT` bytes (the last one shorter; `SEGMENT` is a multiple of every element width), each
//! by steps 1–11 exactly as a chunk of its own: its own positions, an emptied table of
//! [`EncoderParams::table_size`] slots (2048 for every chunk above 2 KiB, the size for a 16 KiB
//! chunk), the end rules (`E − LM`, `E − EL`, final literals) at the segment's end, matches
//! inside the segment. Its sequences, segment after segment, form the chunk's block, stitched:
//! a segment's final literal-only sequence is not written, its literals are passed on and open
//! the literal run of the next sequence written (the next segment's first sequence, whose run
//! then covers both; a segment without a match passes its whole run on), and the last
//! segment's final sequence ends the block with every literal passed to it. Offsets stay valid
//! (a match's source lies in its own segment). A chunk of at most `SEGMENT` bytes is one
//! segment: the bytes of the rules above. The GPU encoder runs a warp per segment, so a batch
//! of long chunks keeps as many warps busy as one of 16 KiB chunks; the matches lost across
//! segment boundaries cost 4.7 % of lineitem's ratio at 64 KiB chunks (2.005 → 1.910) and 1.5 %
//! on the golden inputs (benches/notes/lz4.md, "Segments").
//!
//! The stitched block, like any block whose matches are at least 4 bytes long, fits
//! [`Lz4Options::max_compressed_chunk_size`]: with `x(L)` the continuation bytes of a length
//! (`0` below 15, else `1 + ⌊(L − 15)/255⌋`), a sequence of `L` literals and an `M`-byte match
//! takes `1 + x(L) + L + 2 + x(M − 4) ≤ L + M + x(L) − 1` bytes (`M ≥ 4`), the final one
//! `1 + x(L) + L`; since `x(L) − 1 ≤ ⌊L/255⌋` and `x(L) ≤ ⌈L/255⌉`, a block of `n` bytes takes
//! at most `n + 1 + ⌈n/255⌉`.
//!
//! On a GPU warp, steps 3–4 are nvCOMP's (one lane per position, `__match_any_sync` for in-window
//! keys, a ballot for the first candidate); step 5 adds one capped 16-element compare per lane
//! (lanes `f..f+4` in parallel) and a 5-lane argmax; step 8 is a ballot over the 32 elements
//! before the match (usually one step); step 10 is `⌈ml/32⌉` warp steps of hash-and-store with
//! nvCOMP's "later lane wins" rule, like the inserts of step 4.
//!
//! Only for element widths 2 and 4 on chunks above 64 KiB does the Nvcomp rule set differ from
//! nvCOMP's (unobserved) behaviour: `MAXD = ⌊65535/w⌋` keeps byte offsets within 16 bits; on
//! chunks of at most 65536 bytes no distance can exceed it, so the bytes are nvCOMP's.
//!
//! # Measurements (how Gpucomp was chosen)
//!
//! TPC-H `lineitem.tbl` text from `tpchgen` 4.0.0 (scale factor 0.1, first 33,554,470 bytes, whole
//! lines), 64 KiB chunks, byte data; ratio = input / NVCOMP_NATIVE stream size (header, tables,
//! 8-byte chunk alignment); CPU MB/s of the first (unspecialised) version of this code on a shared
//! 2-core build machine (noisy, ±30 %; relative use only). nvCOMP itself gives 1.836 on 256 MiB of
//! the same text (`shared/anchors`).
//!
//! | variant (cumulative where marked +) | ratio | CPU MB/s |
//! |---|---|---|
//! | Nvcomp (nvCOMP 6 exact) | 1.857 | 215 |
//! | hash → multiplicative (alone) | 1.887 | 250 |
//! | insert positions inside matches (alone) | 1.946 | 150 |
//! | backward extension (alone) | 1.903 | 205 |
//! | lazy choice, next lane only (alone) | 1.897 | 150 |
//! | insert in matches + multiplicative hash | 1.998 | 187 |
//! | + backward extension | 2.009 | 173 |
//! | + lazy among lanes f..f+1, uncapped | 2.097 | 139 |
//! | + lazy among lanes f..f+2, cap 16 | 2.153 | 120 |
//! | + lazy among lanes f..f+3, cap 8 / 16 / 32 | 2.138 / 2.171 / 2.173 | 103 |
//! | **+ lazy among lanes f..f+4, cap 16 (Gpucomp)** | **2.189** | 94 |
//! | + lazy among lanes f..f+5, cap 16 | 2.181 | 57 |
//! | + lazy among lanes f..f+31 (all later lanes), cap 16 / uncapped | 2.152 / 2.091 | 22 |
//! | Gpucomp with nvCOMP's hash | 2.125 | |
//! | lanes f..f+3, cap 16, with nvCOMP's 0xFFFF quirk | 2.171 (no effect) | |
//! | choose by furthest match end instead of first lane (any cap) | 1.17–1.22 | 65 |
//! | for reference: `lz4_flex` block compressor (sequential, not warp-shaped) | 1.939 | 380 |
//!
//! Inserting only the last 16 or 32 positions of each match gave the same ratio as inserting all
//! (lineitem's matches are short); every 2nd position lost 0.02. The 0xFFFF quirk never matters
//! on 64 KiB chunks (position 65535 is inside the final literals) and was dropped for simplicity.
//!
//! Other data (the 45 golden inputs of at least 4 KiB, 64 KiB chunks, numeric files also
//! bitshuffled both ways; test `measure_golden_inputs`): Gpucomp 2,405,836 B vs Nvcomp
//! 2,945,111 B in all (−18 %); smaller on 24, equal on 13 (random data, literal-only), larger on
//! 8: by 0.2–0.4 % (`hi.u16` ×3, `quantity.i32` bitshuffled ×2, `walk.i32`) and on two tiny,
//! highly repetitive bitshuffled ramps (`ramp.u16` MSB 1358 → 1867 B, `ramp.i32` MSB
//! 5855 → 6328 B), where recent in-match positions displace older sources with longer matches.
//! Inserting no in-match positions avoids those two but costs 0.16 of ratio on lineitem.
//!
//! Table size (same text, 32 MiB, 64 KiB chunks; the rows above use 16384 slots). The GPU
//! encoder is latency-bound and one table per warp fills shared memory, so the table size sets
//! how many chunks an SM works on at once (H100/H200: 7 warps at 16384 slots, 28 at 4096, the
//! full 32 at 2048). Measured on an H200 with 4096 slots: 12.6 GB/s on 4096 chunks of 64 KiB,
//! which take two waves of 3696 chunks, and 21 GB/s on exactly one wave. Gpucomp therefore caps
//! the table at 2048 slots, where every warp an SM can hold (32, register-bound) has its table
//! and 4096 chunks run in one wave on 132 SMs:
//!
//! | slots | 16384 | 8192 | 4096 | **2048** | 1024 |
//! |---|---|---|---|---|---|
//! | Gpucomp | 2.190 | 2.157 | 2.098 | **2.005** | 1.869 |
//! | Nvcomp rules | 1.858 | 1.837 | 1.793 | 1.728 | 1.647 |
//!
//! Speed of the current code (one thread, 4 MiB of the same text in 64 KiB chunks; benches/notes/
//! lz4.md, "CPU encoder and decoder, third round"): Nvcomp about 280 MB/s, Gpucomp about
//! 170 MB/s, decoder about 2.7 GB/s (lz4_flex: 455 MB/s and 3.1 GB/s).
mod encoder;
mod rules;
mod short;
mod sink;
mod window;

use crate::{Lz4Encoder, Lz4Options, Status};
use encoder::Encoder;
use short::{Padded, Short, PAD};
use sink::Sink;

/// Gpucomp: a chunk longer than this many bytes is encoded in segments of this size, each as a
/// chunk of its own, stitched into one block: a segment's final literals start the next
/// segment's first sequence (the rule in full: `host/cpu/lz4/compress/mod.rs`, "Segments").
pub const SEGMENT: usize = gpucomp_kernels::lz4::SEGMENT as usize;

/// What the encoder needs besides the data: which encoder, the element width and the hash-table
/// size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EncoderParams {
    /// Which encoder's rules.
    pub encoder: Lz4Encoder,
    /// Element width in bytes: 1, 2 or 4 (FORMATS C.1 element-unit rules).
    pub element_width: usize,
    /// Hash-table slots: a power of two, at most 65536 (the encoders' own: [`Lz4Encoder::table_size`]).
    pub table_size: usize,
}

impl EncoderParams {
    /// Parameters for `options` when the batch's largest chunk is `max_chunk_bytes`: for a stream,
    /// `min(chunk size, input size)` — so a shorter last chunk still uses the full chunk size's
    /// table, and an input shorter than one chunk a table for its own size (nvCOMP 6, measured on
    /// 100 small inputs and every golden stream); for RAW streams the whole input.
    /// Fails with `NotSupported` for data types LZ4 refuses.
    pub fn new(options: &Lz4Options, max_chunk_bytes: usize) -> Result<EncoderParams, Status> {
        let element_width = options.element_width().map_err(|_| Status::NotSupported)?;
        Ok(EncoderParams {
            encoder: options.encoder,
            element_width,
            table_size: options.encoder.table_size(max_chunk_bytes),
        })
    }

    /// Byte data (element width 1) with `encoder`, for chunks of at most `max_chunk_bytes`.
    pub fn bytes(encoder: Lz4Encoder, max_chunk_bytes: usize) -> EncoderParams {
        EncoderParams { encoder, element_width: 1, table_size: encoder.table_size(max_chunk_bytes) }
    }
}

/// Compresses `input` into one raw LZ4 block in `output` with `params`; returns the block size.
///
/// `output` must hold at least [`Lz4Options::max_compressed_chunk_size`]`(input.len())` bytes,
/// else `OutputBufferTooSmall`; an input above [`Lz4Options::MAX_CHUNK_SIZE`] gives
/// `ChunkSizeTooLarge`, an element width other than 1, 2, 4 `NotSupported`, a table size that is
/// not a power of two up to 65536 `InvalidValue`. Never panics. Bytes of `output` after the
/// block are scratch (short literal runs are copied 16 bytes at a time).
pub fn compress(input: &[u8], output: &mut [u8], params: &EncoderParams) -> Result<usize, Status> {
    let w = params.element_width;
    if !matches!(w, 1 | 2 | 4) {
        return Err(Status::NotSupported);
    }
    let ts = params.table_size;
    if !ts.is_power_of_two() || ts > 1 << 16 {
        return Err(Status::InvalidValue);
    }
    if input.len() > Lz4Options::MAX_CHUNK_SIZE {
        return Err(Status::ChunkSizeTooLarge);
    }
    if output.len() < Lz4Options::max_compressed_chunk_size(input.len()) {
        return Err(Status::OutputBufferTooSmall);
    }
    let mut sink = Sink::new(output, input);
    let mut table = vec![0u16; ts];
    match (params.encoder, w) {
        (Lz4Encoder::Nvcomp, 1) => nvcomp::<1>(input, &mut table, &mut sink)?,
        (Lz4Encoder::Nvcomp, 2) => nvcomp::<2>(input, &mut table, &mut sink)?,
        (Lz4Encoder::Nvcomp, _) => nvcomp::<4>(input, &mut table, &mut sink)?,
        (Lz4Encoder::Gpucomp, 1) => segments::<1>(input, &mut table, &mut sink)?,
        (Lz4Encoder::Gpucomp, 2) => segments::<2>(input, &mut table, &mut sink)?,
        (Lz4Encoder::Gpucomp, _) => segments::<4>(input, &mut table, &mut sink)?,
    }
    Ok(sink.len())
}

/// Longest chunk, in bytes, whose positions all fit a slot and are all in reach (`MAX_DIST + 1`
/// elements, for every element width): [`Short`]'s loop.
const SHORT: usize = 1 << 16;

/// Nvcomp: `input` as one chunk, through a padded copy when it is short.
fn nvcomp<const W: usize>(input: &[u8], table: &mut [u16], sink: &mut Sink) -> Result<(), Status> {
    const BYTES: usize = SHORT + PAD;
    if input.len() > SHORT {
        return Encoder::<W>::new(input, table).run(sink);
    }
    let copy = padded_copy::<BYTES>(input)?;
    let data = Padded::new(&copy, input.len()).ok_or(Status::Internal)?;
    Short::<false, W, BYTES>::new(data, table).run(sink)
}

/// Gpucomp: `input` in segments of [`SEGMENT`] bytes (one when it is not longer), each encoded as
/// a chunk of its own, stitched by `sink`. A segment is read in place where the input has the
/// pad's bytes after it, else from a copy (the chunk's last segment or two).
fn segments<const W: usize>(input: &[u8], table: &mut [u16], sink: &mut Sink) -> Result<(), Status> {
    const BYTES: usize = SEGMENT + PAD;
    let mut copy = [0u8; BYTES];
    let count = input.len().div_ceil(SEGMENT).max(1);
    for i in 0..count {
        let start = i * SEGMENT;
        let segment = input.get(start..input.len().min(start + SEGMENT)).unwrap_or_default();
        if count > 1 {
            sink.segment(start, i + 1 == count);
        }
        let bytes: &[u8; BYTES] = match input.get(start..start + BYTES).and_then(|b| b.try_into().ok()) {
            Some(bytes) => bytes,
            None => {
                copy[..segment.len()].copy_from_slice(segment);
                &copy
            }
        };
        let data = Padded::new(bytes, segment.len()).ok_or(Status::Internal)?;
        Short::<true, W, BYTES>::new(data, table).run(sink)?;
    }
    Ok(())
}

/// `chunk` (at most `BYTES` bytes) followed by zeros, `BYTES` bytes in all, on the heap: each
/// byte written once (zeroing the whole copy first cost Nvcomp 3-7 % on orderkey and partkey).
fn padded_copy<const BYTES: usize>(chunk: &[u8]) -> Result<Box<[u8; BYTES]>, Status> {
    if chunk.len() > BYTES {
        return Err(Status::Internal);
    }
    let mut copy = Vec::with_capacity(BYTES);
    copy.extend_from_slice(chunk);
    copy.resize(BYTES, 0);
    copy.into_boxed_slice().try_into().map_err(|_| Status::Internal)
}

/// [`compress`] into a new vector of the block's size.
pub fn compress_to_vec(input: &[u8], params: &EncoderParams) -> Result<Vec<u8>, Status> {
    let mut out = vec![0u8; Lz4Options::max_compressed_chunk_size(input.len())];
    let n = compress(input, &mut out, params)?;
    out.truncate(n);
    Ok(out)
}
