//! The framing of a zstd chunk (RFC 8878 §3.1), walked by gpucomp itself before libzstd decodes
//! anything: frame and skippable-frame boundaries, frame headers, block headers. The walk refuses
//! what the decoder must not see (dictionaries, windows above the limit, blocks above the block
//! maximum, trailing bytes), so every frame handed to libzstd is bounded by the checks here.
use super::DecompressError;
use crate::algorithm::ZstdOptions;

/// A zstd frame's magic number (little-endian on the wire).
pub(crate) const FRAME_MAGIC: u32 = 0xFD2F_B528;
/// Skippable frames' magic numbers: `0x184D2A50..=0x184D2A5F`.
const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;
/// Whether `bytes` start with a zstd frame's or a skippable frame's magic number, as a plain `.zst`
/// file (or an nvCOMP RAW Zstd stream) does.
pub fn starts_with_magic(bytes: &[u8]) -> bool {
    bytes
        .get(..4)
        .map(|m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]))
        .is_some_and(|m| m == FRAME_MAGIC || m & !0xF == SKIPPABLE_MAGIC)
}

/// Largest block content (Block_Maximum_Size is at most this, and at most the window).
pub const MAX_BLOCK_SIZE: u64 = 128 << 10;

/// A zstd frame's header fields (RFC 8878 §3.1.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    /// Bytes of the header, magic number included.
    pub header_len: usize,
    /// The frame's window size in bytes (its content size for single-segment frames).
    pub window_size: u64,
    /// Whether the window is the content size (no window descriptor).
    pub single_segment: bool,
    /// The declared content size, if the header has one.
    pub content_size: Option<u64>,
    /// Whether a 4-byte XXH64 content checksum ends the frame.
    pub checksum: bool,
    /// The dictionary id (0: none).
    pub dict_id: u32,
}

/// A block's kind (RFC 8878 §3.1.1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// Stored bytes.
    Raw,
    /// One byte repeated.
    Rle,
    /// Literals and sequences.
    Compressed,
}

/// One block of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// Offset of its 3-byte header in the chunk.
    pub offset: usize,
    /// Its kind.
    pub kind: BlockKind,
    /// Bytes it takes after its header (1 for RLE).
    pub compressed_len: usize,
    /// Bytes it decodes to, for raw and RLE blocks (compressed blocks say it only when decoded).
    pub decoded_len: Option<usize>,
}

/// One frame of a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A zstd frame: `chunk[offset..offset + len]`.
    Zstd {
        /// Offset of its magic number in the chunk.
        offset: usize,
        /// Its length, checksum included.
        len: usize,
        /// Its header.
        header: FrameHeader,
        /// Its blocks.
        blocks: Vec<Block>,
    },
    /// A skippable frame (its magic number's low nibble and its payload length).
    Skippable {
        /// Offset of its magic number in the chunk.
        offset: usize,
        /// The magic number's low nibble (0-15).
        variant: u8,
        /// Its payload length (the frame is 8 bytes longer).
        payload_len: usize,
    },
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Little-endian unsigned integer of `n` (≤ 8) bytes at `at`.
fn uint_at(b: &[u8], at: usize, n: usize) -> Option<u64> {
    let bytes = b.get(at..at + n)?;
    Some(bytes.iter().rev().fold(0u64, |v, &x| (v << 8) | x as u64))
}

/// Parses the frame header at the start of `frame` (which starts with [`FRAME_MAGIC`]).
/// `at` is the frame's offset in the chunk, for error positions.
pub(crate) fn parse_header(frame: &[u8], at: usize) -> Result<FrameHeader, DecompressError> {
    let truncated = DecompressError::Truncated { at: at + frame.len() };
    let fhd = *frame.get(4).ok_or(truncated)?;
    if fhd & 0x08 != 0 {
        return Err(DecompressError::ReservedBit { at: at + 4 });
    }
    let fcs_flag = fhd >> 6;
    let single_segment = fhd & 0x20 != 0;
    let checksum = fhd & 0x04 != 0;
    let dict_len = [0, 1, 2, 4][(fhd & 3) as usize];
    let fcs_len = match fcs_flag {
        0 if single_segment => 1,
        0 => 0,
        f => 1 << f,
    };
    let mut pos = 5;
    let window_descriptor = if single_segment {
        None
    } else {
        pos += 1;
        Some(*frame.get(5).ok_or(truncated)?)
    };
    let dict_id = uint_at(frame, pos, dict_len).ok_or(truncated)? as u32;
    pos += dict_len;
    let content_size = match fcs_len {
        0 => None,
        2 => Some(uint_at(frame, pos, 2).ok_or(truncated)? + 256),
        n => Some(uint_at(frame, pos, n).ok_or(truncated)?),
    };
    pos += fcs_len;
    // Single-segment frames (no descriptor) always have a content size: it is the window.
    let window_size = window_descriptor.map_or(content_size.unwrap_or(0), |w| {
        let base = 1u64 << (10 + (w >> 3) as u32);
        base + (base / 8) * (w & 7) as u64
    });
    Ok(FrameHeader { header_len: pos, window_size, single_segment, content_size, checksum, dict_id })
}

/// Walks the frame at the start of `frame` (header checked against the limits, then every block
/// header); returns its header and length, and pushes its blocks (offsets in the chunk, `at`
/// being the frame's) to `blocks` if given.
fn walk_frame(
    frame: &[u8],
    at: usize,
    mut blocks: Option<&mut Vec<Block>>,
) -> Result<(FrameHeader, usize), DecompressError> {
    let header = parse_header(frame, at)?;
    if header.dict_id != 0 {
        return Err(DecompressError::Dictionary { id: header.dict_id });
    }
    if !header.single_segment && header.window_size > ZstdOptions::MAX_WINDOW_SIZE {
        return Err(DecompressError::WindowTooLarge { window: header.window_size });
    }
    let block_max = header.window_size.min(MAX_BLOCK_SIZE);
    let mut pos = header.header_len;
    loop {
        let h = uint_at(frame, pos, 3).ok_or(DecompressError::Truncated { at: at + frame.len() })?;
        let size = h >> 3;
        let kind = match (h >> 1) & 3 {
            0 => BlockKind::Raw,
            1 => BlockKind::Rle,
            2 => BlockKind::Compressed,
            _ => return Err(DecompressError::ReservedBlockType { at: at + pos }),
        };
        if size > block_max {
            return Err(DecompressError::BlockTooLarge { at: at + pos, size, max: block_max });
        }
        // `size` < 2^21: no overflow.
        let (compressed_len, decoded_len) = match kind {
            BlockKind::Raw => (size as usize, Some(size as usize)),
            BlockKind::Rle => (1, Some(size as usize)),
            BlockKind::Compressed => (size as usize, None),
        };
        if let Some(b) = blocks.as_mut() {
            b.push(Block { offset: at + pos, kind, compressed_len, decoded_len });
        }
        pos += 3 + compressed_len;
        if pos > frame.len() {
            return Err(DecompressError::Truncated { at: at + frame.len() });
        }
        if h & 1 == 1 {
            break;
        }
    }
    if header.checksum {
        pos += 4;
        if pos > frame.len() {
            return Err(DecompressError::Truncated { at: at + frame.len() });
        }
    }
    Ok((header, pos))
}

/// Every frame of a chunk, in order: zstd frames and skippable frames, nothing else (an empty
/// chunk, an unknown magic number or bytes after the last frame are errors).
pub fn frames(chunk: &[u8]) -> Result<Vec<Frame>, DecompressError> {
    Walk::new(chunk, true).collect()
}

/// The frames of a chunk one at a time, each checked as [`frames`] checks it; after an error,
/// nothing more. The decoders walk without keeping blocks, so their memory does not grow with
/// the number of frames or blocks.
pub(crate) struct Walk<'a> {
    chunk: &'a [u8],
    at: usize,
    keep_blocks: bool,
    done: bool,
}

impl<'a> Walk<'a> {
    /// A walk over `chunk`; `keep_blocks` fills [`Frame::Zstd`]'s `blocks` (else left empty).
    pub(crate) fn new(chunk: &'a [u8], keep_blocks: bool) -> Walk<'a> {
        Walk { chunk, at: 0, keep_blocks, done: false }
    }

    fn step(&mut self) -> Result<Frame, DecompressError> {
        let (chunk, at) = (self.chunk, self.at);
        if chunk.is_empty() {
            return Err(DecompressError::Empty);
        }
        let rest = &chunk[at..];
        let magic = u32_at(rest, 0).ok_or(DecompressError::BadMagic { at })?;
        if magic & !0xF == SKIPPABLE_MAGIC {
            let payload = u32_at(rest, 4).ok_or(DecompressError::Truncated { at: chunk.len() })? as usize;
            if payload > rest.len() - 8 {
                return Err(DecompressError::Truncated { at: chunk.len() });
            }
            self.at += 8 + payload;
            Ok(Frame::Skippable { offset: at, variant: (magic & 0xF) as u8, payload_len: payload })
        } else if magic == FRAME_MAGIC {
            let mut blocks = Vec::new();
            let (header, len) = walk_frame(rest, at, self.keep_blocks.then_some(&mut blocks))?;
            self.at += len;
            Ok(Frame::Zstd { offset: at, len, header, blocks })
        } else {
            Err(DecompressError::BadMagic { at })
        }
    }
}

impl Iterator for Walk<'_> {
    type Item = Result<Frame, DecompressError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || (self.at >= self.chunk.len() && !self.chunk.is_empty()) {
            return None;
        }
        let frame = self.step();
        self.done = frame.is_err();
        Some(frame)
    }
}
