//! RAW and WITH_UNCOMPRESSED_SIZE streams (`shared/nvcomp/FORMATS.md` A.7).
//!
//! - **RAW**: no header at all; the whole input is compressed as one LLIF chunk, so the stream
//!   *is* that chunk. Nothing identifies the algorithm or the uncompressed size: the caller must
//!   know the algorithm (and, for LZ4, the chunk must be parsed to learn the size).
//! - **WITH_UNCOMPRESSED_SIZE**: a 16-byte prefix — `u64` uncompressed size, then 8 zero bytes —
//!   followed by exactly the RAW stream.
//!
//! Neither kind carries checksums.
use super::native::le_u64;
use crate::error::{Error, Result};

/// Length of the WITH_UNCOMPRESSED_SIZE prefix.
pub const USIZE_PREFIX_LEN: usize = 16;

/// A RAW stream: one bare LLIF chunk holding the whole input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawStream<'a> {
    payload: &'a [u8],
}

impl<'a> RawStream<'a> {
    /// Wrap a RAW stream (any bytes are a RAW stream; the chunk decoder validates them).
    pub fn new(bytes: &'a [u8]) -> RawStream<'a> {
        RawStream { payload: bytes }
    }

    /// The one compressed chunk.
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }
}

/// Write a RAW stream: the chunk itself.
pub fn write_raw(chunk: &[u8]) -> Vec<u8> {
    chunk.to_vec()
}

/// A WITH_UNCOMPRESSED_SIZE stream: uncompressed size plus the RAW chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WithUncompressedSize<'a> {
    uncompressed_size: u64,
    payload: &'a [u8],
}

impl<'a> WithUncompressedSize<'a> {
    /// Parse the 16-byte prefix. `InvalidStream` if the buffer is shorter than 16 bytes, if bytes
    /// 8..16 are not zero, or if a nonzero size comes with an empty payload.
    pub fn parse(bytes: &'a [u8]) -> Result<WithUncompressedSize<'a>> {
        let Some(prefix) = bytes.get(..USIZE_PREFIX_LEN) else {
            return Err(Error::stream(format!(
                "truncated WITH_UNCOMPRESSED_SIZE stream: {} bytes, the prefix needs {USIZE_PREFIX_LEN}",
                bytes.len()
            )));
        };
        if prefix[8..].iter().any(|&b| b != 0) {
            return Err(Error::stream("WITH_UNCOMPRESSED_SIZE prefix: bytes 8..16 are not zero"));
        }
        let uncompressed_size = le_u64(prefix, 0).unwrap_or(0);
        let payload = &bytes[USIZE_PREFIX_LEN..];
        if uncompressed_size > 0 && payload.is_empty() {
            return Err(Error::stream(format!(
                "WITH_UNCOMPRESSED_SIZE stream declares {uncompressed_size} bytes but holds no compressed data"
            )));
        }
        Ok(WithUncompressedSize { uncompressed_size, payload })
    }

    /// The uncompressed size from the prefix.
    pub fn uncompressed_size(&self) -> u64 {
        self.uncompressed_size
    }

    /// The compressed chunk (the RAW stream after the prefix).
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }

    /// The RAW stream after the prefix.
    pub fn raw(&self) -> RawStream<'a> {
        RawStream::new(self.payload)
    }
}

/// Split a WITH_UNCOMPRESSED_SIZE stream into its uncompressed size and RAW chunk
/// ([`WithUncompressedSize::parse`]).
pub fn split_with_uncompressed_size(bytes: &[u8]) -> Result<(u64, &[u8])> {
    let s = WithUncompressedSize::parse(bytes)?;
    Ok((s.uncompressed_size(), s.payload()))
}

/// Write a WITH_UNCOMPRESSED_SIZE stream: `u64` size, 8 zero bytes, the chunk.
pub fn write_with_uncompressed_size(uncompressed_size: u64, chunk: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(USIZE_PREFIX_LEN + chunk.len());
    out.extend_from_slice(&uncompressed_size.to_le_bytes());
    out.extend_from_slice(&[0u8; 8]);
    out.extend_from_slice(chunk);
    out
}
