//! ANS CPU reference codec: nvCOMP 6's rANS chunk format (FORMATS.md C.3, ANS.md), decoder and a
//! byte-exact encoder.
//!
//! - [`decompress`] decodes any chunk nvCOMP writes (byte, FLOAT16, FLOAT8 E4M3 and FLOAT32
//!   modes, one or two states per lane, any sub-chunk size, sampled histograms) and rejects
//!   hostile input with `CannotDecompress`, without panics, unbounded allocations or loops.
//! - [`compress`] writes exactly nvCOMP's bytes for the same options and batch geometry (every
//!   golden chunk and every chunk of nvCOMP's FLOAT8 / one-state samples is re-created byte for
//!   byte).
//!
//! The code follows the format's parallel units so that a GPU kernel can mirror it and be tested
//! against it: **chunk** ([`header`]: layout, [`table`]: frequency table shared by the chunk) →
//! **sub-chunks** (independent: own states, own word stack; one warp each) → **32 lanes** of one
//! or two states ([`rans`]: [`rans::tiles`], [`rans::tile_order`], [`rans::decode_sub_chunk`],
//! [`rans::encode_sub_chunk`]); [`float`] is the FLOAT16/FLOAT32 byte split, [`histogram`] and
//! [`normalize`] build the table.
//!
//! The decoder's whole tiles run on a [`rans::Platform`] picked at run time: the portable loop,
//! or on x86-64 CPUs with AVX2 a SIMD one (eight states a vector, one gather per symbol; module
//! `x86`, the only `unsafe` code of the CPU codecs), about twice as fast. Both give the same
//! status and output bytes on every input (`tests/ans_platforms.rs`, the `ans` fuzz target).
//!
//! # Chunk format
//!
//! Little-endian; offsets from the chunk start. One chunk per NVCOMP_NATIVE chunk (data region
//! and chunk starts 16-aligned), or the whole RAW stream (WITH_UNCOMPRESSED_SIZE: after its
//! 16-byte prefix).
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | u32 | `n`: uncompressed bytes |
//! | 4 | u32 | `sc`: sub-chunk size in uncompressed bytes |
//! | 8 | u8 | `mn`: smallest symbol of the table |
//! | 9 | u8 | `mx`: largest symbol; the table has `mx − mn + 1` entries |
//! | 10 | u8 | `pb`: probability bits, `M = 2^pb` (11 bytes and FLOAT8, 10 FLOAT16/FLOAT32) |
//! | 11 | u8 | mode: 0 bytes, 1 FLOAT16, 2 FLOAT8 E4M3, 3 FLOAT32 |
//! | 12 | u32 | `spl`: states per lane, 1 or 2 |
//! | 16 | u32 × nsub | stored size of each sub-chunk (no padding), `nsub = ceil(n / sc)` |
//! | | | float modes: zeros to a multiple of 8, the raw section ([`float`]; `n/2`, `ceil(n/2)` or `3n/4` bytes), one zero byte if its length is odd |
//! | | u16 × (mx−mn+1) | frequency of `mn + i`; 0xFFFF means 1; sum `M` |
//! | | | zeros to a multiple of 16 |
//! | | | sub-chunk 0, zeros to a multiple of 16, sub-chunk 1, …; the last one unpadded |
//!
//! **Sub-chunk size** ([`AnsOptions::sub_chunk_size`]): `sc = max(2048 · width,
//! next_pow2(ceil(M_batch / max_sub_chunk_count)))` with `width` the bytes per symbol, 1/2/2/4
//! (bytes, FLOAT16, FLOAT8, FLOAT32), and `M_batch` the largest chunk of the batch (RAW: the
//! input size). So `sc` depends on the batch, not on the chunk: [`compress_in_batch`] takes
//! `M_batch`. Sub-chunk `i` codes `sc / width` symbols (the last fewer; a FLOAT8 sub-chunk of
//! one byte codes none and is stored empty, as is a one-value FLOAT8 chunk's, whose table is
//! one zero entry).
//!
//! **Table** ([`normalize`]): zstd's `FSE_normalizeM2` of the chunk's symbol counts over `mn..=mx`,
//! `tableLog = pb`, symbols with `count ≤ T >> pb` stored as 0xFFFF (frequency 1); a single symbol
//! gets `M`. With `histogram_reduction_log2 > 0` and at least 4096 symbols: sampled counts over
//! `0..=255` ([`histogram::sampled`], slices of [`histogram::sample_slice`]).
//! `cum[s] = Σ_{t<s} f[t]`, ascending.
//!
//! **Sub-chunk** = `[16-bit words …][32·spl final states, u32]`. Lane `j`'s state `s` is stored
//! at index `(31 − j)·spl + s`. The encoder starts every state at `L = 2^16` and walks the
//! schedule backwards: `while x ≥ f·2^(32−pb) { emit x & 0xFFFF; x >>= 16 }`,
//! `x = (x / f)·M + x mod f + cum[s]`, words appended in emission order. The decoder reads words
//! backwards from just below the states: `slot = x & (M−1)`, `s` with
//! `cum[s] ≤ slot < cum[s+1]`, `x = f[s]·(x >> pb) + slot − cum[s]`, then
//! `if x < 2^16 { x = x << 16 | next word }` (never more than one word per symbol for a valid
//! state). A valid sub-chunk consumes all its words and ends with every state at `2^16`, except
//! a *seeded* FLOAT8 sub-chunk ([`rans::seeded`]: no tail), whose states nvCOMP starts at
//! `f·2^(16−pb)` of their first symbol, so they end there, without a word for the last step.
//!
//! **Schedule** ([`rans::schedule`]): the sub-chunk's symbols are cut into tiles of `32·B`;
//! lane `j` owns tile positions `B·j .. B·j + B`, its symbol `b` belongs to state `b mod spl`
//! and is decoded at step `b div spl`. Byte/FLOAT16: the first `floor(N/U)·U` symbols, with
//! `U = 256·spl` (512 with two states per lane, 256 with one), in tiles of 256 (`B = 8`), the
//! rest in tiles of 64 (`B = 2`), the last partial; FLOAT8: the same with body tiles of 128
//! (`B = 4`); FLOAT32: tiles of 128 (`B = 4`) throughout. Decode order: tile, step, lane 0..31, state 0..spl. A GPU decoder runs the 32
//! lanes of one step together and hands out words with a prefix sum over "needs a word" flags in
//! that lane/state order (the encoder: the same in reverse, emitting in reverse lane order).
//!
//! # Batches
//!
//! `sc` is a property of the batch: every chunk of an NVCOMP_NATIVE stream uses the `sc` of
//! `M_batch = min(uncomp_chunk_size, input size)` (the short last chunk included), so callers
//! pass the largest chunk of the batch to [`compress_in_batch`]; RAW and WITH_UNCOMPRESSED_SIZE
//! streams are one chunk ([`compress`]). nvCOMP's bound for a chunk's own length
//! ([`AnsOptions::max_compressed_chunk_size`]) also holds inside a batch of larger chunks.
//!
//! # Confidence and open points
//!
//! Byte, FLOAT16 and FLOAT32 modes, both `spl`, every `max_sub_chunk_count`: verified on every
//! golden chunk (decode and byte-exact re-encode). FLOAT8 E4M3 and one state per lane: verified
//! on 180 chunks nvCOMP 6.0.0.12 wrote on an H200 for chosen inputs (2026-11-21,
//! `benches/nvcomp/ans_samples.cu`; 81 FLOAT8 chunks of 1 to 262144 bytes with both `spl`,
//! `max_sub_chunk_count` 4 and 64 and `histogram_reduction_log2` 2; 55 one-state chunks of
//! bytes, FLOAT16, FLOAT32 and FLOAT8 with tails of every kind; a selection is
//! `tests/data/ans-samples/`): every one decodes and is re-created byte for byte. They settled
//! that the body unit is `256·spl` (gpucomp's earlier 512 for `spl = 1` mis-coded sub-chunks
//! with `N mod 512 ≥ 256`, which is why nvCOMP rejected its native one-state streams), the FLOAT8
//! split, its 4096-byte sub-chunk floor, the seeded sub-chunks and the sampled-histogram slice.
//! Guesses: a FLOAT8 sub-chunk of one byte after full ones (stored empty, like the one-value
//! chunk's), whether seeding applies to one-state sub-chunks of `256 mod 512` symbols (the rule
//! `N mod 256·spl = 0` fits all samples), FLOAT16 / FLOAT32 tails with one state per lane
//! beyond the samples, and the sampled histogram beyond its samples (byte mode and FLOAT8 with
//! `histogram_reduction_log2 = 2`; other values, float modes, the 4096-symbol exactness
//! threshold and the constant 8 slices are nvCOMP's documented behaviour plus a guess). Empty
//! chunks are a gpucomp extension (nvCOMP refuses empty input).
//!
//! [`AnsOptions::sub_chunk_size`]: crate::algorithm::ans::AnsOptions::sub_chunk_size
//! [`AnsOptions::max_compressed_chunk_size`]: crate::algorithm::ans::AnsOptions::max_compressed_chunk_size
#[forbid(unsafe_code)]
pub mod describe;
// Public only for the simulator tests (`tests/*_sim.rs`), which check the kernels phase by
// phase against these; not part of the API.
#[doc(hidden)]
#[forbid(unsafe_code)]
pub mod float;
#[doc(hidden)]
#[forbid(unsafe_code)]
pub mod header;
#[doc(hidden)]
#[forbid(unsafe_code)]
pub mod histogram;
#[doc(hidden)]
#[forbid(unsafe_code)]
pub mod normalize;
#[doc(hidden)]
#[forbid(unsafe_code)]
pub mod rans;
#[doc(hidden)]
#[forbid(unsafe_code)]
pub mod table;
// The SIMD tile decoders: the one module of the CPU codecs allowed `unsafe` code.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86;

use crate::algorithm::ans::{AnsMode, AnsOptions};
use crate::error::Status;
#[doc(hidden)]
pub use header::{Chunk, ChunkHeader, Layout};
#[doc(hidden)]
pub use table::Table;

/// A chunk is corrupt or inconsistent (nvCOMP: `CannotDecompress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct Corrupt;

impl From<Corrupt> for Status {
    fn from(_: Corrupt) -> Status {
        Status::CannotDecompress
    }
}

/// The uncompressed size a chunk's header states (checked as [`ChunkHeader::read`] does).
pub fn decompressed_size(input: &[u8]) -> Result<usize, Status> {
    Ok(ChunkHeader::read(input)?.uncompressed_size as usize)
}

/// Decodes one chunk into `output` (at least the chunk's uncompressed size; more is left
/// untouched); returns the bytes written. Corrupt input or a short output: `CannotDecompress`.
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, Status> {
    decompress_on(rans::Platform::detect(), input, output)
}

/// [`decompress`] on a given platform (tests, fuzzing and benchmarks compare them): the same
/// result, status and output on every platform, for any input.
#[doc(hidden)]
pub fn decompress_on(platform: rans::Platform, input: &[u8], output: &mut [u8]) -> Result<usize, Status> {
    let chunk = Chunk::parse(input)?;
    let h = chunk.header;
    let n = h.uncompressed_size as usize;
    let out = output.get_mut(..n).ok_or(Status::CannotDecompress)?;
    let spl = h.states_per_lane as usize;
    let per_sub = h.sub_chunk_size as usize / h.mode.bytes_per_symbol();
    let decode = |symbols: &mut [u8]| -> Result<(), Corrupt> {
        for (i, sub) in chunk.sub_chunks.iter().enumerate() {
            let start = i * per_sub;
            let dst = symbols.get_mut(start..start + h.sub_chunk_symbols(i)).ok_or(Corrupt)?;
            rans::decode_sub_chunk_on(platform, sub, spl, h.mode, &chunk.table, dst)?;
        }
        Ok(())
    };
    if h.mode == AnsMode::Bytes {
        decode(out)?;
    } else {
        let mut symbols = vec![0u8; h.symbol_count()];
        decode(&mut symbols)?;
        float::merge(chunk.raw, &symbols, h.mode, out);
    }
    Ok(n)
}

/// Decodes one chunk into a new vector.
pub fn decompress_to_vec(input: &[u8]) -> Result<Vec<u8>, Status> {
    let n = decompressed_size(input)?;
    let mut out = vec![0u8; n];
    decompress(input, &mut out)?;
    Ok(out)
}

/// Largest chunk [`compress`] writes for `n` input bytes with `options` (nvCOMP's bound,
/// [`AnsOptions::max_compressed_chunk_size`]).
pub fn max_compressed_size(options: &AnsOptions, n: usize) -> usize {
    options.max_compressed_chunk_size(n)
}

/// Compresses `input` as one chunk that is the largest of its batch (a RAW stream, or a
/// single-chunk batch); see [`compress_in_batch`].
pub fn compress(input: &[u8], output: &mut [u8], options: &AnsOptions) -> Result<usize, Status> {
    compress_in_batch(input, output, options, input.len())
}

/// Compresses one chunk of a batch whose largest chunk has `max_chunk_bytes` (nvCOMP's HLIF:
/// `min(uncomp_chunk_size, input size)`), writing exactly nvCOMP's bytes; returns the chunk's
/// length. `output` should hold [`max_compressed_size`]; a shorter one that does not fit gives
/// `OutputBufferTooSmall`. Statuses: invalid options as [`AnsOptions::validate`]; more than 2^24
/// bytes `ChunkSizeTooLarge`; a length that is not a whole number of elements (FLOAT16 odd,
/// FLOAT32 not a multiple of 4) `InvalidValue`.
///
/// An empty input (nvCOMP refuses those) gives a 32-byte chunk with `n = 0` and the one-entry
/// table `[2^pb]`, which [`decompress`] accepts.
pub fn compress_in_batch(
    input: &[u8],
    output: &mut [u8],
    options: &AnsOptions,
    max_chunk_bytes: usize,
) -> Result<usize, Status> {
    let chunk = compress_to_vec_in_batch(input, options, max_chunk_bytes)?;
    output.get_mut(..chunk.len()).ok_or(Status::OutputBufferTooSmall)?.copy_from_slice(&chunk);
    Ok(chunk.len())
}

/// [`compress`] into a new vector.
pub fn compress_to_vec(input: &[u8], options: &AnsOptions) -> Result<Vec<u8>, Status> {
    compress_to_vec_in_batch(input, options, input.len())
}

/// [`compress_in_batch`] into a new vector.
pub fn compress_to_vec_in_batch(input: &[u8], options: &AnsOptions, max_chunk_bytes: usize) -> Result<Vec<u8>, Status> {
    options.validate()?;
    let mode = options.mode()?;
    let n = input.len();
    if n > AnsOptions::MAX_CHUNK_SIZE {
        return Err(Status::ChunkSizeTooLarge);
    }
    let whole = match mode {
        AnsMode::Float16 => n.is_multiple_of(2),
        AnsMode::Float32 => n.is_multiple_of(4),
        _ => true,
    };
    if !whole {
        return Err(Status::InvalidValue);
    }
    let sc = options.sub_chunk_size(max_chunk_bytes.max(n));
    let spl = options.effective_states_per_lane();
    let pb = mode.probability_bits();
    let (raw, symbols) = float::split(input, mode);

    // Frequency table. No symbols: nvCOMP's one zero entry for a FLOAT8 chunk of one value, a
    // full single entry for the empty chunk (gpucomp's extension).
    let (mn, norm) = if symbols.is_empty() && n > 0 {
        (0u8, vec![0])
    } else if options.histogram_reduction_log2 > 0 && symbols.len() >= histogram::EXACT_BELOW_SYMBOLS {
        let slice = histogram::sample_slice(n, symbols.len(), mode);
        let counts = histogram::sampled(&symbols, options.histogram_reduction_log2, slice);
        (0u8, normalize::normalize_m2(&counts, pb).ok_or(Status::Internal)?)
    } else {
        match histogram::exact(&symbols) {
            None => (0u8, vec![1i32 << pb]),
            Some((mn, counts)) if counts.len() == 1 => (mn, vec![1i32 << pb]),
            Some((mn, counts)) => (mn, normalize::normalize_m2(&counts, pb).ok_or(Status::Internal)?),
        }
    };
    let stored = table::stored_entries(&norm);
    let table = if symbols.is_empty() {
        Table::without_symbols(mn, pb, stored.len())
    } else {
        Table::from_entries(mn, pb, &stored).ok_or(Status::Internal)?
    };
    let enc = rans::EncodeTable::new(&table);

    // Sub-chunks, each padded to 16 except the last.
    let header = ChunkHeader {
        uncompressed_size: n as u32,
        sub_chunk_size: u32::try_from(sc).map_err(|_| Status::ChunkSizeTooLarge)?,
        min_symbol: mn,
        max_symbol: mn + (table.len() - 1) as u8,
        probability_bits: pb,
        mode,
        states_per_lane: spl as u32,
    };
    let nsub = header.sub_chunk_count();
    let per_sub = sc / mode.bytes_per_symbol();
    let mut body = Vec::with_capacity(n + nsub * 256);
    let mut sizes = Vec::with_capacity(nsub);
    for i in 0..nsub {
        let start = body.len();
        let first = i * per_sub;
        rans::encode_sub_chunk(&symbols[first..first + header.sub_chunk_symbols(i)], spl, mode, &enc, &mut body)?;
        sizes.push(u32::try_from(body.len() - start).map_err(|_| Status::Internal)?);
        if i + 1 < nsub {
            body.resize(body.len().next_multiple_of(16), 0);
        }
    }

    // Header, size table, raw section, frequency table, then the sub-chunks.
    let layout = Layout::new(&header);
    let mut out = Vec::with_capacity(layout.data + body.len());
    out.extend_from_slice(&header.to_bytes());
    for s in &sizes {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out.resize(layout.raw.start, 0);
    out.extend_from_slice(&raw);
    out.resize(layout.table.start, 0);
    for f in &stored {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out.resize(layout.data, 0);
    out.extend_from_slice(&body);
    Ok(out)
}
