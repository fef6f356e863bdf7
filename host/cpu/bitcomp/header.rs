//! The 32-byte chunk header and the element types of Bitcomp chunks.
use crate::algorithm::bitcomp::{BitcompAlgorithm, ElementType};
use crate::error::Status;

/// Bytes of the chunk header.
pub const HEADER_SIZE: usize = 32;

/// The chunk magic, `"NVZ"`.
pub const MAGIC: [u8; 3] = *b"NVZ";

/// The fields of a chunk header.
///
/// ```text
/// off size field
///  0   3   magic "NVZ"
///  3   1   element type code (ElementType::code)
///  4   1   0x00 = algorithm 0, 0x10 = algorithm 1 (other bits: lossy modes, refused)
///  5   1   1 for signed types, else 0 (must agree with byte 3)
///  6   2   zero
///  8   8   payload_words: u64, 4-byte words of block payload (sum of the table's counts)
/// 16   8   uncompressed_bytes: u64, exact input length (need not be a multiple of the width)
/// 24   8   zero (ignored when reading)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkHeader {
    /// Element type.
    pub element: ElementType,
    /// Coder of the non-raw blocks.
    pub algorithm: BitcompAlgorithm,
    /// Words of payload after the block table (informational: the decoder follows the table).
    pub payload_words: u64,
    /// Uncompressed bytes of the chunk.
    pub uncompressed_bytes: u64,
}

impl ChunkHeader {
    /// Writes the 32 header bytes.
    pub fn write(&self, out: &mut [u8; HEADER_SIZE]) {
        *out = [0; HEADER_SIZE];
        out[..3].copy_from_slice(&MAGIC);
        out[3] = self.element.code();
        out[4] = match self.algorithm {
            BitcompAlgorithm::Default => 0x00,
            BitcompAlgorithm::Sparse => 0x10,
        };
        out[5] = self.element.signed as u8;
        out[8..16].copy_from_slice(&self.payload_words.to_le_bytes());
        out[16..24].copy_from_slice(&self.uncompressed_bytes.to_le_bytes());
    }

    /// Reads a header: `CannotDecompress` for a short input, a bad magic, an unknown type code,
    /// a mode byte other than 0x00 / 0x10 (nvCOMP's lossy modes and unknown algorithms), a
    /// signed byte that disagrees with the type, or nonzero bytes 6-7 (nvCOMP's host decoder
    /// rejects the last two as well).
    pub fn read(input: &[u8]) -> Result<ChunkHeader, Status> {
        let h = input.get(..HEADER_SIZE).ok_or(Status::CannotDecompress)?;
        if h[..3] != MAGIC || h[6] != 0 || h[7] != 0 {
            return Err(Status::CannotDecompress);
        }
        let element = ElementType::from_code(h[3]).ok_or(Status::CannotDecompress)?;
        let algorithm = match h[4] {
            0x00 => BitcompAlgorithm::Default,
            0x10 => BitcompAlgorithm::Sparse,
            _ => return Err(Status::CannotDecompress),
        };
        if h[5] != element.signed as u8 {
            return Err(Status::CannotDecompress);
        }
        let u64_at =
            |i: usize| u64::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3], h[i + 4], h[i + 5], h[i + 6], h[i + 7]]);
        Ok(ChunkHeader { element, algorithm, payload_words: u64_at(8), uncompressed_bytes: u64_at(16) })
    }
}
