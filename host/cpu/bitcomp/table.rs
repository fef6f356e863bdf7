//! The block table: one 8-byte entry per 8 KiB block, right after the chunk header.
use super::header::HEADER_SIZE;
use crate::error::Status;

/// Uncompressed bytes per block (every data type; the last block may be shorter).
pub const BLOCK_SIZE: usize = 8192;

/// Bytes per table entry.
pub const ENTRY_SIZE: usize = 8;

/// Words of a raw block's payload (8192 bytes).
pub const RAW_WORDS: u32 = (BLOCK_SIZE / 4) as u32;

/// Bit 31 of the info word: the block is stored raw.
const RAW_FLAG: u32 = 1 << 31;

/// Bits 19..=30 of the info word: the payload length in words.
const WORDS_SHIFT: u32 = 19;
const WORDS_MASK: u32 = 0xfff;

/// Bits 0..=18 of the info word: never set by nvCOMP's writers (host or GPU); meaning unknown.
pub const UNKNOWN_LOW_BITS: u32 = (1 << WORDS_SHIFT) - 1;

/// Number of blocks of a chunk of `uncompressed_bytes`.
pub fn block_count(uncompressed_bytes: usize) -> usize {
    uncompressed_bytes.div_ceil(BLOCK_SIZE)
}

/// Offset of the payload area ("payload base") of a chunk with `blocks` blocks, if it fits a
/// `usize`.
pub fn payload_base(blocks: usize) -> Option<usize> {
    blocks.checked_mul(ENTRY_SIZE)?.checked_add(HEADER_SIZE)
}

/// One block-table entry.
///
/// ```text
/// bytes 0-3  u32 word_offset   payload start, in 4-byte words from the payload base
/// bytes 4-7  u32 info          bit 31 raw; bits 19-30 payload words (<= 2048); bits 0-18 zero
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEntry {
    /// Offset of the payload from the payload base, in words.
    pub word_offset: u32,
    /// Payload length in words (2048 for a raw block, fewer for a coded one).
    pub words: u32,
    /// The block is stored raw (its 8192 input bytes, zero-padded).
    pub raw: bool,
}

impl BlockEntry {
    /// The 8 bytes of the entry (low info bits zero, as nvCOMP writes them).
    pub fn to_bytes(self) -> [u8; ENTRY_SIZE] {
        let info = (self.raw as u32) << 31 | (self.words & WORDS_MASK) << WORDS_SHIFT;
        let mut e = [0u8; ENTRY_SIZE];
        e[..4].copy_from_slice(&self.word_offset.to_le_bytes());
        e[4..].copy_from_slice(&info.to_le_bytes());
        e
    }

    /// Entry `b` of a chunk's table. `CannotDecompress` if it lies outside `chunk` or sets any
    /// of the [`UNKNOWN_LOW_BITS`] (nvCOMP never writes them and its host decoder crashes on
    /// them, so their meaning cannot be honoured: such chunks are refused rather than guessed at).
    pub fn read(chunk: &[u8], b: usize) -> Result<BlockEntry, Status> {
        let at = b.checked_mul(ENTRY_SIZE).and_then(|o| o.checked_add(HEADER_SIZE)).ok_or(Status::CannotDecompress)?;
        let e = chunk
            .get(at..at.checked_add(ENTRY_SIZE).ok_or(Status::CannotDecompress)?)
            .ok_or(Status::CannotDecompress)?;
        let word_offset = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
        let info = u32::from_le_bytes([e[4], e[5], e[6], e[7]]);
        if info & UNKNOWN_LOW_BITS != 0 {
            return Err(Status::CannotDecompress);
        }
        Ok(BlockEntry { word_offset, words: (info & !RAW_FLAG) >> WORDS_SHIFT, raw: info & RAW_FLAG != 0 })
    }

    /// The entry's payload bytes inside `payload` (the chunk from the payload base on), or
    /// `CannotDecompress` when it does not lie inside.
    pub fn payload<'a>(&self, payload: &'a [u8]) -> Result<&'a [u8], Status> {
        let start = (self.word_offset as usize).checked_mul(4).ok_or(Status::CannotDecompress)?;
        let end = start.checked_add(self.words as usize * 4).ok_or(Status::CannotDecompress)?;
        payload.get(start..end).ok_or(Status::CannotDecompress)
    }
}
