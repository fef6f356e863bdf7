//! One asymmetric block: 4096 input bytes (the chunk's last block shorter), encoded and decoded on
//! its own — the unit a GPU kernel gives one thread group.
//!
//! Layout (offsets from the block start; `A = max(4, width)`; every field little-endian):
//!
//! | offset | content |
//! |---|---|
//! | 0 | `u32 w0`: bits 0–15 block bytes (a multiple of `A`, including `w0` and the tail padding); bits 16–23 slot mask (bit `s`: slot `s` holds a stage); bits 24–31 slot kinds (bit `s`: 1 = RLE, 0 = DELTA) |
//! | 4 | `u32` bytes of the final bit-packed stream |
//! | 8 | per used slot, ascending: RLE → `u32 len`, then the run counts as a bit-packed stream of `len` bytes (width 2, unsigned); DELTA → the first value in `width` bytes, in a slot of `A` bytes |
//! | `roundup(·, A)` | the final values as a bit-packed stream (`super::bitpack`, width `width`) |
//! | end | zero padding up to the block bytes, a multiple of `A` |
//!
//! Stages run in slot order on the block's element array; the decoder undoes them in reverse
//! order. Encoders use slots 0 to 2 only, with kinds fixed by the options (`super::select`):
//! RLE, DELTA, RLE by default (nvCOMP's masks 0x00, 0x01, 0x02, 0x03, 0x06, 0x07 with kinds 0x05
//! bits), DELTA ×3 or RLE ×3 when only one kind is allowed. The decoder takes any mask and
//! kinds, up to 8 stages.
use super::bitpack;
use super::stages;
use crate::Status;
use std::ops::Range;

/// Input bytes per block.
pub const BLOCK_BYTES: usize = 4096;

/// Alignment of block fields and block sizes: `max(4, width)`.
pub fn align(width: usize) -> usize {
    width.max(4)
}

/// A stage kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Run-length encoding: run values continue, run counts are stored.
    Rle,
    /// Differences: the first value is stored, `x[i+1] − x[i]` continue.
    Delta,
}

/// A block's stage pipeline: exactly the slot mask and kinds bytes of `w0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pipeline {
    /// Bit `s`: slot `s` holds a stage.
    pub mask: u8,
    /// Bit `s`: the stage in slot `s` is RLE (1) or DELTA (0).
    pub kinds: u8,
}

impl Pipeline {
    /// No stage: FOR + bit-packing only.
    pub const NONE: Pipeline = Pipeline { mask: 0, kinds: 0 };

    /// The stages in slot order, with their slots.
    pub fn stages(self) -> impl Iterator<Item = (usize, Stage)> {
        (0..8)
            .filter(move |s| self.mask >> s & 1 == 1)
            .map(move |s| (s, if self.kinds >> s & 1 == 1 { Stage::Rle } else { Stage::Delta }))
    }

    /// Number of stages.
    pub fn len(self) -> usize {
        self.mask.count_ones() as usize
    }

    /// Whether there is no stage.
    pub fn is_empty(self) -> bool {
        self.mask == 0
    }

    /// `R`/`D` letters in slot order, `-` for no stage.
    pub fn name(self) -> String {
        if self.is_empty() {
            return "-".into();
        }
        self.stages().map(|(_, s)| if s == Stage::Rle { 'R' } else { 'D' }).collect()
    }
}

/// What a stage stores in the block.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stored {
    Rle(Vec<u64>),
    Delta(u64),
}

/// A block with its pipeline applied: what the encoder writes.
#[derive(Debug, Clone)]
pub struct Encoded {
    pipeline: Pipeline,
    stored: Vec<Stored>,
    values: Vec<u64>,
    reference: u64,
    bits: u32,
    size: usize,
}

impl Encoded {
    /// Applies `pipeline` to `values` (elements of `width` bytes, `signed` as the type) and sizes
    /// the result; `None` when a DELTA stage meets an empty array. The final stream's reference and
    /// bit width are computed on signed values when the type is signed or the pipeline has a DELTA
    /// stage, on unsigned values otherwise.
    pub fn new(values: &[u64], width: usize, signed: bool, pipeline: Pipeline) -> Option<Encoded> {
        let a = align(width);
        let mask = bitpack::value_mask(width);
        let mut cur = values.to_vec();
        let mut next = Vec::with_capacity(cur.len());
        let mut stored = Vec::with_capacity(pipeline.len());
        let mut size = 8;
        for (_, stage) in pipeline.stages() {
            match stage {
                Stage::Rle => {
                    let mut counts = Vec::new();
                    stages::rle(&cur, &mut next, &mut counts);
                    let (_, cbits) = bitpack::frame(&counts, 2, false);
                    size += 4 + bitpack::stream_bytes(2, counts.len(), cbits);
                    stored.push(Stored::Rle(counts));
                }
                Stage::Delta => {
                    stored.push(Stored::Delta(stages::delta(&cur, mask, &mut next)?));
                    size += a;
                }
            }
            std::mem::swap(&mut cur, &mut next);
        }
        // Values that went through a DELTA stage are differences: their minimum and bit width are
        // taken as signed, whatever the type (nvCOMP does the same).
        let signed = signed || pipeline.stages().any(|(_, s)| s == Stage::Delta);
        let (reference, bits) = bitpack::frame(&cur, width, signed);
        size = size.next_multiple_of(a) + bitpack::stream_bytes(width, cur.len(), bits);
        Some(Encoded { pipeline, stored, values: cur, reference, bits, size: size.next_multiple_of(a) })
    }

    /// Bytes of the encoded block.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The pipeline.
    pub fn pipeline(&self) -> Pipeline {
        self.pipeline
    }

    /// Appends the block to `out` (padding zero).
    pub fn write(&self, out: &mut Vec<u8>, width: usize) {
        let a = align(width);
        let start = out.len();
        let w0 = self.size as u32 | u32::from(self.pipeline.mask) << 16 | u32::from(self.pipeline.kinds) << 24;
        let final_bytes = bitpack::stream_bytes(width, self.values.len(), self.bits) as u32;
        out.extend_from_slice(&w0.to_le_bytes());
        out.extend_from_slice(&final_bytes.to_le_bytes());
        for s in &self.stored {
            match s {
                Stored::Rle(counts) => {
                    let (r, b) = bitpack::frame(counts, 2, false);
                    out.extend_from_slice(&(bitpack::stream_bytes(2, counts.len(), b) as u32).to_le_bytes());
                    bitpack::write(out, counts, 2, r, b);
                }
                Stored::Delta(first) => {
                    let at = out.len();
                    out.extend_from_slice(&first.to_le_bytes()[..width]);
                    out.resize(at + a, 0);
                }
            }
        }
        out.resize(start + (out.len() - start).next_multiple_of(a), 0);
        bitpack::write(out, &self.values, width, self.reference, self.bits);
        out.resize(start + self.size, 0);
    }
}

/// Where a stage's data lies in a parsed block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageField {
    /// The stage.
    pub stage: Stage,
    /// Offset of its data from the block start: the `u32 len` of an RLE, the first value of a DELTA.
    pub offset: usize,
    /// Bytes it takes (RLE: 4 + len; DELTA: `A`).
    pub len: usize,
}

/// A parsed block: the field positions, checked against the input, before any value is decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Block bytes (`w0` bits 0–15).
    pub size: usize,
    /// The pipeline.
    pub pipeline: Pipeline,
    /// The stages' fields, in slot order.
    pub stages: Vec<StageField>,
    /// Offset of the final stream.
    pub final_offset: usize,
    /// Bytes of the final stream.
    pub final_len: usize,
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, Status> {
    let s = b.get(at..at.checked_add(4).ok_or(Status::CannotDecompress)?).ok_or(Status::CannotDecompress)?;
    Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Parses the block at the start of `input` (elements of `width` bytes, at most `elements`
/// values): every field must lie inside the block, the final stream must end where the block
/// size (rounded to `A`) says.
pub fn parse(input: &[u8], width: usize, elements: usize) -> Result<Layout, Status> {
    let a = align(width);
    let w0 = u32_at(input, 0)?;
    let size = (w0 & 0xffff) as usize;
    let pipeline = Pipeline { mask: (w0 >> 16) as u8, kinds: (w0 >> 24) as u8 };
    if size < 8 || !size.is_multiple_of(a) || size > input.len() {
        return Err(Status::CannotDecompress);
    }
    let block = &input[..size];
    let final_len = u32_at(block, 4)? as usize;
    let mut p = 8;
    let mut fields = Vec::with_capacity(pipeline.len());
    for (_, stage) in pipeline.stages() {
        let len = match stage {
            Stage::Rle => {
                let len = u32_at(block, p)? as usize;
                let counts = bitpack::parse(block.get(p + 4..).ok_or(Status::CannotDecompress)?, 2, elements)?;
                if counts.len != len {
                    return Err(Status::CannotDecompress);
                }
                4 + len
            }
            Stage::Delta => a,
        };
        if p + len > size {
            return Err(Status::CannotDecompress);
        }
        fields.push(StageField { stage, offset: p, len });
        p += len;
    }
    let final_offset = p.next_multiple_of(a);
    let fin = bitpack::parse(block.get(final_offset..).ok_or(Status::CannotDecompress)?, width, elements)?;
    if fin.len != final_len || (final_offset + final_len).next_multiple_of(a) != size {
        return Err(Status::CannotDecompress);
    }
    Ok(Layout { size, pipeline, stages: fields, final_offset, final_len })
}

impl Layout {
    /// Byte ranges (from the block start) no decoder reads: slack after narrow FOR and DELTA
    /// values, alignment padding, the block tail. gpucomp writes zeros there, nvCOMP stale bytes.
    pub fn padding(&self, width: usize) -> Vec<Range<usize>> {
        let a = align(width);
        let mut pads = Vec::new();
        let mut push = |r: Range<usize>| {
            if r.start < r.end {
                pads.push(r);
            }
        };
        let mut end = 8;
        for f in &self.stages {
            match f.stage {
                Stage::Rle => push(f.offset + 6..f.offset + 8),
                Stage::Delta => push(f.offset + width..f.offset + a),
            }
            end = f.offset + f.len;
        }
        push(end..self.final_offset);
        push(self.final_offset + width..self.final_offset + width.next_multiple_of(4));
        push(self.final_offset + width.next_multiple_of(4) + 4..self.final_offset + bitpack::header_bytes(width));
        push(self.final_offset + self.final_len..self.size);
        pads
    }
}

/// Reusable buffers of the block decoder (allocated once per chunk, not per block).
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// The decoded values of the last block.
    pub values: Vec<u64>,
    next: Vec<u64>,
    counts: Vec<u64>,
}

/// Decodes the block at the start of `input` into exactly `elements` values (appended to `out`);
/// returns the block's bytes.
pub fn decode(input: &[u8], width: usize, elements: usize, out: &mut Vec<u64>) -> Result<usize, Status> {
    let mut s = Scratch::default();
    let size = decode_into(input, width, elements, &mut s)?;
    out.extend_from_slice(&s.values);
    Ok(size)
}

/// [`decode`] into `s.values` (replaced).
pub(crate) fn decode_into(input: &[u8], width: usize, elements: usize, s: &mut Scratch) -> Result<usize, Status> {
    let layout = parse(input, width, elements)?;
    let mask = bitpack::value_mask(width);
    let fin = bitpack::parse(&input[layout.final_offset..layout.size], width, elements)?;
    let (cur, next, counts) = (&mut s.values, &mut s.next, &mut s.counts);
    cur.clear();
    fin.unpack_into(width, cur);
    for f in layout.stages.iter().rev() {
        match f.stage {
            Stage::Rle => {
                let c = bitpack::parse(&input[f.offset + 4..f.offset + f.len], 2, elements)?;
                counts.clear();
                c.unpack_into(2, counts);
                stages::undo_rle(cur, counts, elements, next)?;
            }
            Stage::Delta => {
                if cur.len() >= elements {
                    return Err(Status::CannotDecompress);
                }
                let mut b = [0u8; 8];
                b[..width].copy_from_slice(&input[f.offset..f.offset + width]);
                stages::undo_delta(u64::from_le_bytes(b), cur, mask, next);
            }
        }
        std::mem::swap(cur, next);
    }
    if cur.len() != elements {
        return Err(Status::CannotDecompress);
    }
    Ok(layout.size)
}
