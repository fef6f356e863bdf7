//! Frames (RFC 8878 §3.1): the chunk walk (zstd frames decoded in order, skippable frames
//! skipped, nothing else allowed), frame headers, blocks, content size and XXH64 checks.
//!
//! The rules are the CPU codec's (`gpucomp::cpu::zstd`, libzstd behind gpucomp's frame walk):
//! dictionaries and windows above [`MAX_WINDOW`] are `NOT_SUPPORTED`; every other refusal is
//! `CANNOT_DECOMPRESS`. Known divergences, on corrupt input only: a compressed block that
//! decodes to more than the block maximum is refused here (RFC 8878), where libzstd may accept up
//! to 32 bytes more depending on its literal buffer's placement; and 4-stream literals follow
//! libzstd's fast single-symbol decoder (see `literals`), not its double-symbol one, whose
//! leniency on corrupt streams differs slightly (bit flips of frames without a checksum: about
//! 1 in 100000 verdicts differ).
use super::execute::Out;
use super::huffman::Scratch;
use super::literals::{HufTable, Literals};
use super::sequences::{self, SeqDecoder, SeqTables};
use super::xxh64::xxh64;
use super::Workspace;
use crate::status;

/// A zstd frame's magic number.
pub(super) const FRAME_MAGIC: u32 = 0xFD2F_B528;
/// Skippable frames' magic numbers: `0x184D2A50..=0x184D2A5F`.
pub(super) const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;
/// Largest window of a frame with a window descriptor (the CPU codec's limit: 2^27 bytes).
pub const MAX_WINDOW: u64 = 1 << 27;
/// Largest block content.
pub(super) const MAX_BLOCK: u64 = 128 << 10;
/// The most bytes a chunk decodes to per byte of its length (the CPU codec's `MAX_EXPANSION`):
/// a block decodes to at most 128 KiB and takes at least 4 bytes.
pub const MAX_EXPANSION: u64 = 1 << 15;

/// Little-endian unsigned integer of `b[at..at + n]` (n ≤ 8).
#[inline(always)]
pub(super) fn uint_at(b: &[u8], at: usize, n: usize) -> Option<u64> {
    Some(b.get(at..at.checked_add(n)?)?.iter().rev().fold(0u64, |v, &x| v << 8 | x as u64))
}

/// Decodes every frame of `input` into the front of `output`, in order; returns the bytes
/// written, or the chunk's status.
pub fn decode_chunk(input: &[u8], output: &mut [u8], ws: &mut Workspace) -> Result<usize, i32> {
    let cap = output.len();
    walk::<true>(input, output, cap, ws)
}

/// The bytes `input` decodes to, as the CPU codec's `decompressed_size` counts them: the frames'
/// content sizes (their blocks' headers walked, not decoded); a frame without one is decoded
/// without writing to count its bytes. Refused (`Err`) where the CPU codec refuses, and past
/// [`MAX_EXPANSION`] times the chunk's length. Divergence, on corrupt input only: the counting
/// pass cannot verify a checksum (it has no bytes), which libzstd's counting pass does.
pub fn chunk_size(input: &[u8], ws: &mut Workspace) -> Result<u64, i32> {
    let limit = (input.len() as u64).saturating_mul(MAX_EXPANSION);
    // `walk` counts against the limit (bytes of counted frames included) as the CPU codec does.
    walk::<false>(input, &mut [], limit.min(usize::MAX as u64) as usize, ws).map(|n| n as u64)
}

/// The chunk walk of [`decode_chunk`] (`WRITE`) and [`chunk_size`] (`!WRITE`, `cap` the limit).
fn walk<const WRITE: bool>(input: &[u8], output: &mut [u8], cap: usize, ws: &mut Workspace) -> Result<usize, i32> {
    if input.is_empty() {
        return Err(status::CANNOT_DECOMPRESS);
    }
    let (mut at, mut written) = (0usize, 0usize);
    // Each frame takes at least 8 bytes, so this loop ends.
    while at < input.len() {
        let rest = input.get(at..).ok_or(status::CANNOT_DECOMPRESS)?;
        let magic = uint_at(rest, 0, 4).ok_or(status::CANNOT_DECOMPRESS)? as u32;
        if magic & !0xF == SKIPPABLE_MAGIC {
            let payload = uint_at(rest, 4, 4).ok_or(status::CANNOT_DECOMPRESS)? as usize;
            if payload > rest.len() - 8 {
                return Err(status::CANNOT_DECOMPRESS);
            }
            at += 8 + payload;
        } else if magic == FRAME_MAGIC {
            let (used, produced) = decode_frame::<WRITE>(rest, output, cap, written, ws)?;
            at += used;
            written += produced;
        } else {
            return Err(status::CANNOT_DECOMPRESS);
        }
    }
    Ok(written)
}

/// A frame header's fields (RFC 8878 §3.1.1.1).
pub(super) struct Header {
    pub(super) len: usize,
    pub(super) window: u64,
    pub(super) single_segment: bool,
    pub(super) content_size: Option<u64>,
    pub(super) checksum: bool,
    pub(super) dict_id: u64,
}

pub(super) fn parse_header(f: &[u8]) -> Option<Header> {
    let fhd = *f.get(4)?;
    if fhd & 0x08 != 0 {
        return None;
    }
    let single_segment = fhd & 0x20 != 0;
    let fcs_len = match fhd >> 6 {
        0 if single_segment => 1,
        0 => 0,
        flag => 1 << flag,
    };
    let mut pos = 5;
    let descriptor = if single_segment {
        None
    } else {
        pos += 1;
        Some(*f.get(5)?)
    };
    let dict_len = [0, 1, 2, 4][(fhd & 3) as usize];
    let dict_id = uint_at(f, pos, dict_len)?;
    pos += dict_len;
    let content_size = match fcs_len {
        0 => None,
        2 => Some(uint_at(f, pos, 2)? + 256),
        n => Some(uint_at(f, pos, n)?),
    };
    pos += fcs_len;
    let window = match descriptor {
        Some(w) => {
            let base = 1u64 << (10 + (w >> 3) as u32);
            base + (base / 8) * (w & 7) as u64
        }
        None => content_size.unwrap_or(0),
    };
    Some(Header { len: pos, window, single_segment, content_size, checksum: fhd & 0x04 != 0, dict_id })
}

/// Decodes the frame at the start of `f` into `output[start..cap]`; returns (frame bytes, bytes
/// written). Without `WRITE`, writes nothing (`output` may be empty): a frame with a content size
/// has its block headers walked and counts as that size (a bound the caller checks against
/// `cap`), a frame without one is decoded to count its bytes.
fn decode_frame<const WRITE: bool>(
    f: &[u8],
    output: &mut [u8],
    cap: usize,
    start: usize,
    ws: &mut Workspace,
) -> Result<(usize, usize), i32> {
    const BAD: i32 = status::CANNOT_DECOMPRESS;
    let h = parse_header(f).ok_or(BAD)?;
    if h.dict_id != 0 || (!h.single_segment && h.window > MAX_WINDOW) {
        return Err(status::NOT_SUPPORTED);
    }
    let block_max = h.window.min(MAX_BLOCK) as usize;
    if let (false, Some(size)) = (WRITE, h.content_size) {
        let used = walk_blocks(f, h.len, block_max, h.checksum).ok_or(BAD)?;
        if size > (cap - start) as u64 {
            return Err(BAD);
        }
        return Ok((used, size as usize));
    }
    let Workspace { huf, ll, of, ml, weights_fse, norm, next, weights, .. } = ws;
    let mut huf = HufTable { table: huf, log: 0, valid: false };
    let mut tables = SeqTables { ll, of, ml, logs: [0; 3], valid: false };
    let mut reps = [1u64, 4, 8];
    let mut out = Out::<WRITE> { buf: output, cap, frame_start: start, pos: start, limit: start };
    let mut pos = h.len;
    // Each block takes at least 3 bytes of the frame, so this loop ends.
    loop {
        let bh = uint_at(f, pos, 3).ok_or(BAD)? as usize;
        let (last, kind, size) = (bh & 1 == 1, (bh >> 1) & 3, bh >> 3);
        if kind == 3 || size > block_max {
            return Err(BAD);
        }
        pos += 3;
        let csize = if kind == 1 { 1 } else { size };
        let body = f.get(pos..pos + csize).ok_or(BAD)?;
        pos += csize;
        let room = out.cap - out.pos;
        match kind {
            0 => {
                if size > room {
                    return Err(BAD);
                }
                if WRITE {
                    out.buf.get_mut(out.pos..out.pos + size).ok_or(BAD)?.copy_from_slice(body);
                }
                out.pos += size;
            }
            1 => {
                if size > room {
                    return Err(BAD);
                }
                let byte = *body.first().ok_or(BAD)?;
                if WRITE {
                    out.buf.get_mut(out.pos..out.pos + size).ok_or(BAD)?.fill(byte);
                }
                out.pos += size;
            }
            _ => {
                out.limit = out.pos + room.min(block_max);
                let mut scratch = Scratch { norm, next, fse: weights_fse, weights };
                compressed_block(body, block_max, &mut out, &mut huf, &mut tables, &mut reps, &mut scratch)
                    .ok_or(BAD)?;
            }
        }
        if last {
            break;
        }
    }
    let produced = out.pos - start;
    if h.content_size.is_some_and(|c| c != produced as u64) {
        return Err(BAD);
    }
    if h.checksum {
        let want = uint_at(f, pos, 4).ok_or(BAD)? as u32;
        if WRITE && xxh64(out.buf.get(start..out.pos).ok_or(BAD)?) as u32 != want {
            return Err(BAD);
        }
        pos += 4;
    }
    Ok((pos, produced))
}

/// Walks the block headers of a frame whose header is `header_len` bytes (the CPU codec's frame
/// walk: reserved block type, blocks above `block_max`, truncation); returns the frame's length.
fn walk_blocks(f: &[u8], header_len: usize, block_max: usize, checksum: bool) -> Option<usize> {
    let mut pos = header_len;
    // Each block takes at least 3 bytes of the frame, so this loop ends.
    loop {
        let bh = uint_at(f, pos, 3)? as usize;
        let (last, kind, size) = (bh & 1 == 1, (bh >> 1) & 3, bh >> 3);
        if kind == 3 || size > block_max {
            return None;
        }
        pos += 3 + if kind == 1 { 1 } else { size };
        if pos > f.len() {
            return None;
        }
        if last {
            break;
        }
    }
    let end = pos + if checksum { 4 } else { 0 };
    (end <= f.len()).then_some(end)
}

/// Decodes one compressed block (RFC 8878 §3.1.1.3) into `out`.
pub(super) fn compressed_block<const WRITE: bool>(
    block: &[u8],
    block_max: usize,
    out: &mut Out<WRITE>,
    huf: &mut HufTable,
    tables: &mut SeqTables,
    reps: &mut [u64; 3],
    s: &mut Scratch,
) -> Option<()> {
    let (mut lits, used) = Literals::parse(block, block_max, huf, s)?;
    let rest = block.get(used..)?;
    let (count, used) = sequences::parse_header(rest, tables, s.norm, s.next)?;
    if count > 0 {
        tables.valid = true;
        let mut dec = SeqDecoder::new(rest.get(used..)?, tables)?;
        let mut r = *reps;
        for i in 0..count {
            let seq = dec.next(tables, &mut r, i + 1 == count)?;
            out.sequence(seq, &mut lits, huf)?;
        }
        if !dec.finished() {
            return None;
        }
        *reps = r;
    }
    out.last_literals(&mut lits, huf)
}
