//! Bitcomp CPU reference codec: nvCOMP 6's lossless Bitcomp chunks, both algorithms, every
//! integer type (floats as unsigned integers of their width). The format was established by
//! black-box study (`shared/nvcomp/BITCOMP.md`); this codec decodes every golden GPU-written
//! chunk and writes chunks byte-identical to nvCOMP's host compressor, which equal nvCOMP's GPU
//! chunks in every byte but padding.
//!
//! API: [`compress`], [`decompress`], [`decompressed_size`] (the chunk is self-describing: type,
//! algorithm and size are in its header), [`max_compressed_size`]; per block, for kernels and
//! their tests: `encode_block`, `decode_block`, [`blocks`] (each block's entry, payload and
//! padding); [`padding_ranges`] lists the bytes of a chunk that carry no information (where GPU
//! and host writers differ); [`mod@describe`] is a chunk's
//! block by block view for `inspect --chunk`.
//!
//! # Chunk format
//!
//! Little-endian except the op count of a default-algorithm block. Every length is a multiple
//! of 4.
//!
//! ```text
//! 0                     header, 32 bytes          (header::ChunkHeader)
//! 32                    block table, 8 B/block    (table::BlockEntry), blocks = ceil(n / 8192)
//! 32 + 8·blocks         block payloads, 4-byte words, in block order, contiguous
//! 32 + 8·blocks + 4·payload_words = chunk length
//! ```
//!
//! - **Header** ([`header`]): `"NVZ"`, type code (0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32,
//!   6 u64, 7 i64), `0x00` / `0x10` for algorithm 0 / 1, signed flag, 2 zero bytes,
//!   `u64 payload_words`, `u64 uncompressed_bytes`, 8 zero bytes. An empty input is the bare
//!   32-byte header.
//! - **Blocks** (`table`): the input is cut into blocks of 8192 bytes for every type (the
//!   last may be shorter and need not hold whole elements). Entry: `u32 word_offset` (from the
//!   payload base, in words: the running sum of the previous blocks' word counts), `u32 info` =
//!   `raw << 31 | words << 19`, low 19 bits zero.
//! - **Block coding** (`planes`): the block, zero-padded to 8192 bytes, signed-mapped
//!   (signed types), is viewed as a 65536-bit bitmap of bit planes, most significant plane
//!   first. No delta, no predictor: values are coded as they are.
//! - **Algorithm 0** (`default`): a byte run-length code of the bitmap (runs of 0x00, 0xff,
//!   other bytes; literal runs), ops and low bytes stored backward from the block's end.
//! - **Algorithm 1** (`sparse`): a 3-level bitmap of the bitmap's nonzero bytes.
//! - **Raw blocks**: when the coded payload (padded to 4 bytes) would take ≥ 8192 bytes, the
//!   block is stored as its input bytes (no signed mapping) zero-padded to 8192 bytes, with
//!   `info = 0x80000000 | 2048 << 19`.
//!
//! # Parallel structure (for the GPU kernels)
//!
//! chunk → 8 KiB blocks → bit planes (groups of 8 elements) / bitmap bytes. Every block is
//! independent; the CPU code is organised so that a kernel mirrors it block by block and its
//! output can be compared with `encode_block` / `decode_block`:
//!
//! 1. **Encode a block** (one CTA or warp per block): `planes::code_block` (zero-pad, signed
//!    map), `planes::to_bitmap` (one 8×8 bit transpose per group of 8 elements and element
//!    byte: lane-parallel), then `sparse::encode` (L0/L1 from `any()` over 256-byte regions
//!    and 8-byte groups, positions by prefix sums of popcounts) or `default::tokenize` +
//!    `default::write` (token starts are local decisions, positions by prefix sums).
//! 2. **Raw decision**: a coded payload of ≥ 8192 bytes (after padding to 4) is replaced by the
//!    block's input bytes, zero-padded to 8192 (2048 words, raw flag).
//! 3. **Place the blocks**: `word_offset` of block `b` = the exclusive prefix sum of the word
//!    counts of blocks `0..b`; `payload_words` = the total; the chunk length is
//!    `32 + 8·blocks + 4·payload_words`.
//! 4. **Padding**: a kernel should write the padding this codec writes (zeros after a sparse
//!    block; the coded block's byte at the same payload offset inside a default block), so
//!    that GPU and CPU chunks are byte-identical; nvCOMP's own GPU writer leaves scratch there,
//!    which [`padding_ranges`] lets tests mask.
//!
//! Decoding mirrors it: per block, `table::BlockEntry::read`, then `sparse::decode` or
//! `default::decode` into the bitmap, `planes::from_bitmap` (which also undoes the signed
//! mapping), and the first `min(8192, n − 8192·b)` bytes go to the output.
//!
//! # Decoder
//!
//! The decoder follows the block table (payloads in any order decode), ignores `payload_words`
//! (as nvCOMP does) and the header's last 8 bytes, and never reads outside the chunk given;
//! the input slice bounds the chunk (nvCOMP's decoder ignores the compressed size and trusts the
//! table). Corrupt input gives `CannotDecompress`, a short output buffer
//! `OutputBufferTooSmall` (nvCOMP's status for Bitcomp). Rules beyond nvCOMP's behaviour:
//!
//! - **Unknown low 19 bits of an info word**: nvCOMP writes them as zero and its host decoder
//!   crashes when any is set, so their meaning cannot be known; this decoder refuses such a
//!   chunk (`CannotDecompress`) rather than guess.
//! - Default-algorithm blocks must produce exactly 8192 bitmap bytes (nvCOMP accepted 8191 in
//!   one probe; nothing writes that), and literal and low streams must not overlap.
//! - The payload of a sparse block must hold all its levels within the table's word count
//!   (nvCOMP parses forward and tolerates a too-small count).
//! - A raw payload may be shorter than 8192 bytes (as nvCOMP accepts) but must cover the
//!   block's output bytes, and may not be longer than 2048 words.
//! - Header byte 4 must be 0x00 or 0x10 (nvCOMP's lossy modes and other bits are refused),
//!   byte 5 must match the type's signedness, bytes 6-7 must be zero.
//!
//! Work per chunk is linear in the chunk's declared size, which the table bounds: the table
//! must fit in the input, so a chunk of `c` bytes declares at most `c · 1024` output bytes.
//! [`decompress`] allocates nothing from header fields; [`blocks`] allocates one entry per
//! table entry (bounded by the input length) and [`decompress_to_vec`] the declared size, at
//! most nvCOMP's 32 MiB decompression limit.
mod default;
pub mod describe;
// Public only for the simulator tests (`tests/*_sim.rs`), which check the kernels phase by
// phase against these; not part of the API.
#[doc(hidden)]
pub mod header;
mod planes;
mod sparse;
mod table;

use crate::algorithm::bitcomp::ElementType;
use crate::algorithm::bitcomp::{BitcompAlgorithm, BitcompOptions};
use crate::error::Status;
use header::{ChunkHeader, HEADER_SIZE};
use planes::BITMAP_SIZE;
use std::ops::Range;
use table::{BlockEntry, BLOCK_SIZE, ENTRY_SIZE, RAW_WORDS};

/// Largest chunk [`compress`] writes for `n` input bytes (nvCOMP's `bitcompMaxBuflen`): the
/// output buffer it needs.
pub fn max_compressed_size(n: usize) -> usize {
    BitcompOptions::max_compressed_chunk_size(n)
}

/// Reusable per-block buffers of the encoder and decoder.
#[derive(Debug, Clone)]
pub(crate) struct BlockScratch {
    coded: Box<[u8; BLOCK_SIZE]>,
    bitmap: Box<[u8; BITMAP_SIZE]>,
    tokens: default::Tokens,
    payload: Vec<u8>,
}

impl Default for BlockScratch {
    fn default() -> Self {
        BlockScratch {
            coded: Box::new([0; BLOCK_SIZE]),
            bitmap: Box::new([0; BITMAP_SIZE]),
            tokens: default::Tokens::default(),
            payload: Vec::with_capacity(3 * BLOCK_SIZE),
        }
    }
}

/// Encodes one block (at most 8192 input bytes) as nvCOMP's host writer does; returns its
/// payload (in `scratch`, a multiple of 4 bytes) and whether it is raw.
pub(crate) fn encode_block<'a>(
    block: &[u8],
    element: ElementType,
    algorithm: BitcompAlgorithm,
    scratch: &'a mut BlockScratch,
) -> (&'a [u8], bool) {
    let block = &block[..block.len().min(BLOCK_SIZE)];
    let s = scratch;
    planes::code_block(block, element, &mut s.coded);
    planes::to_bitmap(&s.coded, element, &mut s.bitmap);
    s.payload.clear();
    let coded_len = match algorithm {
        BitcompAlgorithm::Sparse => {
            sparse::encode(&s.bitmap, &mut s.payload);
            s.payload.len()
        }
        BitcompAlgorithm::Default => {
            default::tokenize(&s.bitmap, &mut s.tokens);
            let len = s.tokens.payload_len();
            if len < BLOCK_SIZE {
                default::write(&s.tokens, &s.coded[..], &mut s.payload);
            }
            len
        }
    };
    if coded_len >= BLOCK_SIZE {
        s.payload.clear();
        s.payload.extend_from_slice(block);
        s.payload.resize(BLOCK_SIZE, 0);
        return (&s.payload, true);
    }
    (&s.payload, false)
}

/// Decodes one block payload into `out` (the block's uncompressed bytes: 8192, or fewer for
/// the last block). `CannotDecompress` on corrupt input.
pub(crate) fn decode_block(
    payload: &[u8],
    raw: bool,
    element: ElementType,
    algorithm: BitcompAlgorithm,
    scratch: &mut BlockScratch,
    out: &mut [u8],
) -> Result<(), Status> {
    let n = out.len();
    if n > BLOCK_SIZE {
        return Err(Status::InvalidValue);
    }
    if raw {
        out.copy_from_slice(payload.get(..n).ok_or(Status::CannotDecompress)?);
        return Ok(());
    }
    match algorithm {
        BitcompAlgorithm::Sparse => sparse::decode(payload, &mut scratch.bitmap).map(drop)?,
        BitcompAlgorithm::Default => default::decode(payload, &mut scratch.bitmap).map(drop)?,
    }
    match <&mut [u8; BLOCK_SIZE]>::try_from(&mut *out) {
        Ok(full) => planes::from_bitmap(&scratch.bitmap, element, full),
        Err(_) => {
            planes::from_bitmap(&scratch.bitmap, element, &mut scratch.coded);
            out.copy_from_slice(&scratch.coded[..n]);
        }
    }
    Ok(())
}

/// Compresses `input` (one chunk) into `output`; returns the chunk length. `NotSupported` for
/// types Bitcomp refuses (FP8), `ChunkSizeTooLarge` above [`BitcompOptions::MAX_CHUNK_SIZE`],
/// `OutputBufferTooSmall` when the chunk does not fit (always fits in
/// [`max_compressed_size`]). The chunk is byte-identical to nvCOMP's host compressor's.
pub fn compress(input: &[u8], output: &mut [u8], opts: &BitcompOptions) -> Result<usize, Status> {
    let element = ElementType::from_data_type(opts.data_type).ok_or(Status::NotSupported)?;
    if input.len() > BitcompOptions::MAX_CHUNK_SIZE {
        return Err(Status::ChunkSizeTooLarge);
    }
    let blocks = table::block_count(input.len());
    let base = table::payload_base(blocks).ok_or(Status::OutputBufferTooSmall)?;
    if output.len() < base {
        return Err(Status::OutputBufferTooSmall);
    }
    let mut scratch = BlockScratch::default();
    let mut end = base;
    for (b, block) in input.chunks(BLOCK_SIZE).enumerate() {
        let (payload, raw) = encode_block(block, element, opts.algorithm, &mut scratch);
        let dst = output.get_mut(end..end + payload.len()).ok_or(Status::OutputBufferTooSmall)?;
        dst.copy_from_slice(payload);
        let entry = BlockEntry { word_offset: ((end - base) / 4) as u32, words: (payload.len() / 4) as u32, raw };
        let at = HEADER_SIZE + b * ENTRY_SIZE;
        output[at..at + ENTRY_SIZE].copy_from_slice(&entry.to_bytes());
        end += payload.len();
    }
    let header = ChunkHeader {
        element,
        algorithm: opts.algorithm,
        payload_words: ((end - base) / 4) as u64,
        uncompressed_bytes: input.len() as u64,
    };
    let mut h = [0u8; HEADER_SIZE];
    header.write(&mut h);
    output[..HEADER_SIZE].copy_from_slice(&h);
    Ok(end)
}

/// [`compress`] into a new vector.
pub fn compress_to_vec(input: &[u8], opts: &BitcompOptions) -> Result<Vec<u8>, Status> {
    let mut out = vec![0u8; max_compressed_size(input.len())];
    let n = compress(input, &mut out, opts)?;
    out.truncate(n);
    Ok(out)
}

/// A chunk's header, checked: the block table must lie inside `input`.
fn checked_header(input: &[u8]) -> Result<(ChunkHeader, usize, usize), Status> {
    let h = ChunkHeader::read(input)?;
    let n = usize::try_from(h.uncompressed_bytes).map_err(|_| Status::CannotDecompress)?;
    let base = table::payload_base(table::block_count(n)).ok_or(Status::CannotDecompress)?;
    if base > input.len() {
        return Err(Status::CannotDecompress);
    }
    Ok((h, n, base))
}

/// The uncompressed size a chunk declares (after checking its header and that its block table
/// lies inside `input`).
pub fn decompressed_size(input: &[u8]) -> Result<usize, Status> {
    checked_header(input).map(|(_, n, _)| n)
}

/// Decompresses one chunk into `output`; returns the bytes written. `CannotDecompress` for
/// corrupt input, `OutputBufferTooSmall` when `output` is shorter than the declared size.
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, Status> {
    let (h, n, base) = checked_header(input)?;
    let out = output.get_mut(..n).ok_or(Status::OutputBufferTooSmall)?;
    let payload = &input[base..];
    let mut scratch = BlockScratch::default();
    for (b, dst) in out.chunks_mut(BLOCK_SIZE).enumerate() {
        let e = BlockEntry::read(input, b)?;
        if e.raw && e.words > RAW_WORDS {
            return Err(Status::CannotDecompress);
        }
        decode_block(e.payload(payload)?, e.raw, h.element, h.algorithm, &mut scratch, dst)?;
    }
    Ok(n)
}

/// [`decompress`] into a new vector. Chunks declaring more than
/// [`BitcompOptions::MAX_DECOMPRESS_CHUNK_SIZE`] (nvCOMP's limit) are refused with
/// `CannotDecompress` before anything is allocated.
pub fn decompress_to_vec(input: &[u8]) -> Result<Vec<u8>, Status> {
    let n = decompressed_size(input)?;
    if n > BitcompOptions::MAX_DECOMPRESS_CHUNK_SIZE {
        return Err(Status::CannotDecompress);
    }
    let mut out = vec![0u8; n];
    decompress(input, &mut out)?;
    Ok(out)
}

/// One block of a chunk, as its table entry and payload describe it (byte ranges are offsets
/// in the chunk / in the uncompressed chunk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockView {
    /// The table entry.
    pub entry: BlockEntry,
    /// The payload's bytes in the chunk.
    pub payload: Range<usize>,
    /// The payload's padding (no information; empty for raw blocks).
    pub padding: Range<usize>,
    /// The bytes of the uncompressed chunk the block holds.
    pub uncompressed: Range<usize>,
}

/// Every block of a chunk, each parsed (not converted to data) to find its padding: a GPU test
/// can compare chunks block by block and mask the padding. Errors as [`decompress`].
pub fn blocks(input: &[u8]) -> Result<Vec<BlockView>, Status> {
    let (h, n, base) = checked_header(input)?;
    let mut scratch = BlockScratch::default();
    let mut views = Vec::with_capacity(table::block_count(n));
    for b in 0..table::block_count(n) {
        let entry = BlockEntry::read(input, b)?;
        let p = entry.payload(&input[base..])?;
        let start = base + 4 * entry.word_offset as usize;
        let pad = if entry.raw {
            if entry.words > RAW_WORDS || p.len() < (n - b * BLOCK_SIZE).min(BLOCK_SIZE) {
                return Err(Status::CannotDecompress);
            }
            p.len()..p.len()
        } else {
            match h.algorithm {
                BitcompAlgorithm::Sparse => sparse::decode(p, &mut scratch.bitmap)?..p.len(),
                BitcompAlgorithm::Default => default::decode(p, &mut scratch.bitmap)?,
            }
        };
        views.push(BlockView {
            entry,
            payload: start..start + p.len(),
            padding: start + pad.start..start + pad.end,
            uncompressed: b * BLOCK_SIZE..((b + 1) * BLOCK_SIZE).min(n),
        });
    }
    Ok(views)
}

/// The byte ranges of a valid chunk that carry no information: the padding of every coded
/// block (nvCOMP's host writer fills it with coded input bytes or zeros, its GPU writer with
/// scratch). Two chunks of the same data are equivalent when they are equal outside these
/// ranges. Errors as [`decompress`].
pub fn padding_ranges(input: &[u8]) -> Result<Vec<Range<usize>>, Status> {
    Ok(blocks(input)?.into_iter().map(|v| v.padding).filter(|r| !r.is_empty()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// Random op streams inside well-formed default-algorithm blocks, and random sparse levels:
    /// every decode either succeeds or fails cleanly; exact 8192-byte token sums decode.
    #[test]
    fn random_block_payloads() {
        let mut r = Rng::here();
        let mut bm = [0u8; 8192];
        let (mut ok, mut err) = (0, 0);
        for _ in 0..20000 {
            // default: a random token sequence, right or wrong in total length
            let mut tok = default::Tokens::default();
            let mut total = 0usize;
            let target = if r.index(2) == 0 { 8192 } else { 8000 + r.index(400) };
            while total < target {
                let class = r.index(8) as u8;
                let shift = (8 + r.index(6)).min(13);
                let x = if class & 1 == 1 { r.index(1 << shift) } else { r.index(32) };
                let len = if class < 2 { x + 1 } else { x + 3 };
                let len = len.min(target - total + r.index(2));
                if len == 0 || (class >= 2 && len < 3) {
                    continue;
                }
                let x = if class < 2 { len - 1 } else { len - 3 };
                if class & 1 == 0 && x >= 32 {
                    continue;
                }
                if class & 1 == 1 {
                    tok.ops.push(class << 5 | (x >> 8) as u8);
                    tok.lows.push(x as u8);
                } else {
                    tok.ops.push(class << 5 | x as u8);
                }
                match class >> 1 {
                    0 => tok.lits.extend((0..len).map(|_| r.next() as u8)),
                    3 => tok.lits.push(r.next() as u8),
                    _ => {}
                }
                total += len;
            }
            let mut p = Vec::new();
            default::write(&tok, &[], &mut p);
            let mutated = r.index(4) == 0;
            if mutated {
                let i = r.index(p.len());
                p[i] = r.next() as u8;
            }
            let res = default::decode(&p, &mut bm);
            assert!(mutated || (total == 8192) == res.is_ok(), "token sum {total}: {res:?}");
            match res {
                Ok(_) => ok += 1,
                Err(e) => {
                    assert_eq!(e, Status::CannotDecompress);
                    err += 1
                }
            }
            // sparse: random levels, random length
            let n = r.index(600);
            let mut q = r.bytes(n);
            if n >= 4 && r.index(2) == 0 {
                q[..4].copy_from_slice(&(1u32 << r.index(32)).to_le_bytes());
            }
            match sparse::decode(&q, &mut bm) {
                Ok(used) => {
                    assert!(used <= q.len());
                    ok += 1
                }
                Err(_) => err += 1,
            }
        }
        println!("random block payloads: {ok} decoded, {err} refused");
        assert!(ok > 1000 && err > 1000);
    }
}
