//! What a Cascaded chunk holds, as data for `gpucomp inspect --chunk` (which formats it): its
//! header fields and, per block, the stages, the final stream's bit width and reference, and the
//! RLE run counts.
//!
//! [`chunk`] parses without decoding any value: asymmetric blocks through [`super::blocks`] and
//! `super::bitpack::parse` (the decoder's own parsers, so what is shown is what the decoder
//! reads); symmetric chunks (`super::symmetric`, which exposes no parser) down to their 8 KiB
//! blocks, the sub-stream table of each and every sub-stream's form byte. Hostile input gives
//! `CannotDecompress`, never a panic; work and memory are linear in the chunk's length. A chunk
//! that parses can still fail to decode (e.g. RLE counts that do not add up): callers that need
//! to know decode it.
use super::block::{Stage, BLOCK_BYTES};
use super::symmetric::{BLOCK_BYTES as SYMMETRIC_BLOCK_BYTES, SUB_ELEMENTS};
use super::{bitpack, chunk::HEADER_BYTES, ChunkHeader};
use crate::algorithm::cascaded::{CascadedMode, CascadedOptions};
use crate::types::DataType;
use crate::Status;

/// A parsed chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkView {
    /// The element type (header byte 3).
    pub data_type: DataType,
    /// Asymmetric or symmetric blocks (header byte 2).
    pub mode: CascadedMode,
    /// Uncompressed bytes (header bytes 4..8).
    pub uncompressed_bytes: usize,
    /// Whether the chunk is the raw fallback (told by its length).
    pub raw: bool,
    /// Compressed bytes of the chunk.
    pub bytes: usize,
    /// What follows the header.
    pub body: Body,
}

/// The part of a chunk after its header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// The raw fallback: the input bytes, zero-padded to a multiple of 4.
    Raw,
    /// Asymmetric 4 KiB blocks.
    Blocks(Vec<BlockView>),
    /// Symmetric 8 KiB blocks.
    Symmetric(Vec<SymmetricBlock>),
}

/// One asymmetric block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockView {
    /// Offset of the block in the chunk.
    pub offset: usize,
    /// Bytes of the block (its `w0` size).
    pub size: usize,
    /// Elements it decodes to.
    pub elements: usize,
    /// The stages in slot order.
    pub stages: Vec<StageView>,
    /// The terminal FOR + bit-packed stream.
    pub last: FinalStream,
}

/// One stage of a block, with what it stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageView {
    /// Run-length encoding in `slot`: `runs` run values continue, their counts are packed in
    /// `count_bits` bits each.
    Rle {
        /// The slot (0 to 7).
        slot: usize,
        /// Number of runs.
        runs: usize,
        /// Bits per packed run count.
        count_bits: u32,
    },
    /// Differences in `slot`, after the stored first value.
    Delta {
        /// The slot (0 to 7).
        slot: usize,
        /// The first value, as the type reads it (sign-extended for signed types).
        first: i128,
    },
}

/// The kind of a block stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StageKind {
    /// Run-length encoding.
    Rle,
    /// Differences.
    Delta,
}

/// A block's pipeline: its stages' slots and kinds, in slot order (empty: FOR + bit-packing
/// only).
pub type Pipeline = Vec<(usize, StageKind)>;

impl StageView {
    /// The slot the stage occupies.
    pub fn slot(&self) -> usize {
        match *self {
            StageView::Rle { slot, .. } | StageView::Delta { slot, .. } => slot,
        }
    }

    /// What the stage does.
    pub fn kind(&self) -> StageKind {
        match self {
            StageView::Rle { .. } => StageKind::Rle,
            StageView::Delta { .. } => StageKind::Delta,
        }
    }
}

/// The terminal stream of a block: `count` values packed in `bits` bits above `reference`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinalStream {
    /// Values in the stream (the block's elements after its stages).
    pub count: usize,
    /// Bits per value.
    pub bits: u32,
    /// The frame of reference, read as the encoder computes it: signed for signed types and
    /// after a DELTA stage (differences), unsigned otherwise.
    pub reference: i128,
}

impl BlockView {
    /// The block's pipeline: its stages' slots and kinds.
    pub fn pipeline(&self) -> Pipeline {
        self.stages.iter().map(|s| (s.slot(), s.kind())).collect()
    }

    /// The run counts of the RLE stages, in slot order.
    pub fn runs(&self) -> Vec<usize> {
        self.stages
            .iter()
            .filter_map(|s| match *s {
                StageView::Rle { runs, .. } => Some(runs),
                StageView::Delta { .. } => None,
            })
            .collect()
    }
}

impl ChunkView {
    /// Each pipeline with the number of blocks using it, most used first (ties in the order of
    /// the block's slot mask, then kinds mask); empty unless the chunk has asymmetric blocks.
    pub fn pipeline_counts(&self) -> Vec<(Pipeline, usize)> {
        let Body::Blocks(blocks) = &self.body else { return vec![] };
        let mut counts: Vec<(Pipeline, usize)> = vec![];
        for p in blocks.iter().map(BlockView::pipeline) {
            match counts.iter_mut().find(|(q, _)| *q == p) {
                Some((_, c)) => *c += 1,
                None => counts.push((p, 1)),
            }
        }
        // The masks of the `w0` word: bit `slot` set for each stage, and for each RLE stage.
        let masks = |p: &Pipeline| {
            let bits = |rle_only: bool| {
                p.iter().filter(|(_, k)| !rle_only || *k == StageKind::Rle).fold(0u8, |m, (s, _)| m | 1 << s)
            };
            (bits(false), bits(true))
        };
        counts.sort_by_key(|(p, c)| (std::cmp::Reverse(*c), masks(p)));
        counts
    }
}

/// One symmetric block: its place in the chunk and its sub-streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymmetricBlock {
    /// Offset of the block in the chunk.
    pub offset: usize,
    /// Bytes of the block (from the chunk's block size table).
    pub size: usize,
    /// Elements it decodes to.
    pub elements: usize,
    /// Its sub-streams in order (one per 256-element sub-block for 4-byte types; two, low and
    /// high words, for 8-byte types, or one joined stream for a partial last sub-block).
    pub sub_streams: Vec<SubStream>,
}

/// One sub-stream of a symmetric block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubStream {
    /// Offset in the chunk.
    pub offset: usize,
    /// Bytes.
    pub size: usize,
    /// The form byte (sub-stream byte 1).
    pub form: Form,
}

/// A symmetric sub-stream's form byte: bit 6 the RLE form, bits 0–5 the transform
/// (0, 1 FOR; 2 DELTA; 3 zigzag DELTA; 4 DELTA + FOR; others unknown to the decoder).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Form(pub u8);

/// The transform a symmetric sub-stream applies before bit-packing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transform {
    /// Frame of reference.
    For,
    /// Differences.
    Delta,
    /// Zigzag-coded differences.
    ZigzagDelta,
    /// Differences, then frame of reference.
    DeltaFor,
}

impl Form {
    /// Whether the sub-stream is run-length coded (bit 6).
    pub fn rle(self) -> bool {
        self.0 & 0x40 != 0
    }

    /// The transform, or `None` for a form byte the decoder does not know.
    pub fn transform(self) -> Option<Transform> {
        match self.0 & 0xbf {
            0 | 1 => Some(Transform::For),
            2 => Some(Transform::Delta),
            3 => Some(Transform::ZigzagDelta),
            4 => Some(Transform::DeltaFor),
            _ => None,
        }
    }
}

impl SymmetricBlock {
    /// Each form with the number of sub-streams using it, in form-byte order.
    pub fn form_counts(&self) -> Vec<(Form, usize)> {
        let mut counts: Vec<(Form, usize)> = vec![];
        for s in &self.sub_streams {
            match counts.iter_mut().find(|(f, _)| *f == s.form) {
                Some((_, c)) => *c += 1,
                None => counts.push((s.form, 1)),
            }
        }
        counts.sort();
        counts
    }
}

/// `x` of `width` bytes read as the type reads it: sign-extended when `signed`.
fn typed(x: u64, width: usize, signed: bool) -> i128 {
    let shift = 64 - 8 * width as u32;
    if signed {
        i128::from(((x << shift) as i64) >> shift)
    } else {
        i128::from(x)
    }
}

fn u16_at(b: &[u8], at: usize) -> Result<usize, Status> {
    let s = b.get(at..at.checked_add(2).ok_or(Status::CannotDecompress)?).ok_or(Status::CannotDecompress)?;
    Ok(u16::from_le_bytes([s[0], s[1]]) as usize)
}

/// Parses a chunk (see the module docs): `CannotDecompress` when its header or any block does not
/// parse.
pub fn chunk(input: &[u8]) -> Result<ChunkView, Status> {
    let header = ChunkHeader::parse(input)?;
    let body = if header.raw {
        Body::Raw
    } else if header.mode == CascadedMode::Symmetric {
        Body::Symmetric(symmetric_blocks(input, &header)?)
    } else {
        Body::Blocks(asymmetric_blocks(input, &header)?)
    };
    let ChunkHeader { data_type, mode, uncompressed_bytes, raw } = header;
    Ok(ChunkView { data_type, mode, uncompressed_bytes, raw, bytes: input.len(), body })
}

fn asymmetric_blocks(input: &[u8], h: &ChunkHeader) -> Result<Vec<BlockView>, Status> {
    let width = h.data_type.size();
    let signed = CascadedOptions::is_signed(h.data_type);
    let bad = Status::CannotDecompress;
    let mut views = vec![];
    // `blocks` checked every field against the chunk; the slices below are taken with `get`
    // all the same, so that a parser change can never turn into a panic here.
    for (i, (offset, layout)) in super::blocks(input)?.into_iter().enumerate() {
        let block = input.get(offset..offset + layout.size).ok_or(bad)?;
        let elements = (h.uncompressed_bytes - i * BLOCK_BYTES).min(BLOCK_BYTES) / width;
        let mut stages = Vec::with_capacity(layout.stages.len());
        for (field, (slot, _)) in layout.stages.iter().zip(layout.pipeline.stages()) {
            let data = block.get(field.offset..field.offset + field.len).ok_or(bad)?;
            stages.push(match field.stage {
                Stage::Rle => {
                    let counts = bitpack::parse(data.get(4..).ok_or(bad)?, 2, elements)?;
                    StageView::Rle { slot, runs: counts.count, count_bits: counts.bits }
                }
                Stage::Delta => {
                    let mut b = [0u8; 8];
                    b[..width].copy_from_slice(data.get(..width).ok_or(bad)?);
                    StageView::Delta { slot, first: typed(u64::from_le_bytes(b), width, signed) }
                }
            });
        }
        let fin = bitpack::parse(block.get(layout.final_offset..).ok_or(bad)?, width, elements)?;
        // After a DELTA stage the values are differences, framed as signed (see `block`).
        let signed_final = signed || stages.iter().any(|s| matches!(s, StageView::Delta { .. }));
        views.push(BlockView {
            offset,
            size: layout.size,
            elements,
            stages,
            last: FinalStream {
                count: fin.count,
                bits: fin.bits,
                reference: typed(fin.reference, width, signed_final),
            },
        });
    }
    Ok(views)
}

fn symmetric_blocks(input: &[u8], h: &ChunkHeader) -> Result<Vec<SymmetricBlock>, Status> {
    let width = h.data_type.size();
    let n = h.uncompressed_bytes;
    if (width != 4 && width != 8) || !n.is_multiple_of(width) {
        return Err(Status::CannotDecompress);
    }
    let body = input.get(HEADER_BYTES..).ok_or(Status::CannotDecompress)?;
    let nblocks = n.div_ceil(SYMMETRIC_BLOCK_BYTES);
    // The size table must fit before anything proportional to the block count is allocated.
    let mut p = nblocks.checked_mul(2).filter(|&t| t <= body.len()).ok_or(Status::CannotDecompress)?;
    let mut blocks = Vec::with_capacity(nblocks);
    for b in 0..nblocks {
        let size = u16_at(body, 2 * b)?;
        let block = body.get(p..p + size).ok_or(Status::CannotDecompress)?;
        let k = u16_at(block, 0)? / 2;
        let mut offs = Vec::with_capacity(k + 1);
        for j in 0..k {
            offs.push(u16_at(block, 2 * j)?);
        }
        offs.push(size);
        let mut sub_streams = Vec::with_capacity(k);
        for w in offs.windows(2) {
            let sub = block.get(w[0]..w[1]).ok_or(Status::CannotDecompress)?;
            let form = Form(*sub.get(1).ok_or(Status::CannotDecompress)?);
            sub_streams.push(SubStream { offset: HEADER_BYTES + p + w[0], size: sub.len(), form });
        }
        let elements = (n - b * SYMMETRIC_BLOCK_BYTES).min(SYMMETRIC_BLOCK_BYTES) / width;
        // The decoder's count: one sub-stream per sub-block and 32-bit part (a partial last
        // sub-block of an 8-byte type may be one joined sub-stream).
        let expected = elements.div_ceil(SUB_ELEMENTS) * (width / 4);
        let joined = width == 8 && !elements.is_multiple_of(SUB_ELEMENTS) && k + 1 == expected;
        if k != expected && !joined {
            return Err(Status::CannotDecompress);
        }
        blocks.push(SymmetricBlock { offset: HEADER_BYTES + p, size, elements, sub_streams });
        p += size;
    }
    if p != body.len() {
        return Err(Status::CannotDecompress);
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DataType;

    fn opts(data_type: DataType) -> CascadedOptions {
        CascadedOptions { data_type, ..CascadedOptions::default() }
    }

    /// A generator seeded from the clock (the seed is printed for replay).
    fn rng() -> impl FnMut() -> u64 {
        let seed =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
        println!("seed {seed}");
        let mut x = seed | 1;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    #[test]
    fn blocks_show_the_encoders_pipelines() {
        // Block 0: long runs (RLE), block 1: a ramp (DELTA), block 2: noise in 0..32 (5 bits).
        let mut next = rng();
        let mut values: Vec<i32> = (0..1024).map(|i| i / 100).collect();
        values.extend((0..1024).map(|i| -5000 + 3 * i));
        values.extend((0..1024).map(|_| (next() % 32) as i32));
        let input: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let c = super::super::compress_to_vec(&input, &opts(DataType::Int)).unwrap();
        let v = chunk(&c).unwrap();
        assert_eq!((v.uncompressed_bytes, v.bytes), (input.len(), c.len()));
        let Body::Blocks(blocks) = &v.body else { panic!("{v:?}") };
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0].offset, 8);
        assert_eq!(blocks.iter().map(|b| b.size).sum::<usize>() + 8, c.len());
        assert!(blocks.iter().all(|b| b.elements == 1024));
        assert_eq!(blocks[0].runs(), vec![11], "{:?}", blocks[0]);
        assert!(blocks[1].stages.iter().any(|s| matches!(s, StageView::Delta { first: -5000, .. })), "{:?}", blocks[1]);
        assert_eq!(blocks[2].pipeline(), Pipeline::new());
        assert!(blocks[2].last.bits <= 5 && blocks[2].last.reference >= 0, "{:?}", blocks[2]);
        assert_eq!(blocks[0].pipeline().first(), Some(&(0, StageKind::Rle)), "{:?}", blocks[0]);
        let counts = v.pipeline_counts();
        assert_eq!(counts.iter().map(|c| c.1).sum::<usize>(), 3);
    }

    #[test]
    fn raw_fallback() {
        let mut next = rng();
        let input: Vec<u8> = (0..1000).map(|_| next() as u8).collect();
        let c = super::super::compress_to_vec(&input, &opts(DataType::Uchar)).unwrap();
        let v = chunk(&c).unwrap();
        assert!(v.raw && v.body == Body::Raw, "{v:?}");
    }

    #[test]
    fn forms_are_decoded() {
        assert_eq!((Form(0x00).rle(), Form(0x00).transform()), (false, Some(Transform::For)));
        assert_eq!((Form(0x43).rle(), Form(0x43).transform()), (true, Some(Transform::ZigzagDelta)));
        assert_eq!((Form(0x44).rle(), Form(0x44).transform()), (true, Some(Transform::DeltaFor)));
        assert_eq!(Form(0x05).transform(), None);
    }

    /// Truncated, bit-flipped and random chunks give an error or a view, never a panic.
    #[test]
    fn hostile_chunks_never_panic() {
        let mut next = rng();
        let mut values: Vec<u8> = vec![];
        for i in 0..3000u32 {
            values.extend_from_slice(&(i / 7 + (next() % 3) as u32).to_le_bytes());
        }
        let good = super::super::compress_to_vec(&values, &opts(DataType::Uint)).unwrap();
        assert!(matches!(chunk(&good).unwrap().body, Body::Blocks(_)));
        for cut in 0..good.len().min(200) {
            assert!(chunk(&good[..cut]).is_err(), "truncated to {cut}");
        }
        for _ in 0..2000 {
            let mut bad = good.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % bad.len();
                bad[at] ^= 1 << (next() % 8);
            }
            let _ = chunk(&bad);
        }
        // Symmetric-looking garbage: header of a u32 / u64 symmetric chunk, random body.
        for _ in 0..2000 {
            let len = 8 + (next() % 600) as usize;
            let mut bad: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            bad[..4].copy_from_slice(&[0, 0, 1, 0x80 | [4u8, 5, 6, 7][(next() % 4) as usize]]);
            bad[4..8].copy_from_slice(&((next() % 40_000) as u32).to_le_bytes());
            let _ = chunk(&bad);
        }
        assert!(chunk(&[0, 0, 1, 0x84, 0xff, 0xff, 0xff, 0xff]).is_err(), "huge n, no size table");
    }
}
