//! Zstd's options: nvCOMP's Python API takes none for Zstd (its spec header is 4 reserved zero
//! bytes, FORMATS.md A.2/A.3); gpucomp adds the compression level of its CPU encoder.
use crate::error::{Error, Result};

/// Zstd options: the compression level of the encoder (not recorded in the stream).
///
/// Each chunk is one standard zstd frame (RFC 8878) with its content size and without a
/// checksum, as nvCOMP writes them; any zstd decoder reads them.
///
/// ```
/// use gpucomp::ZstdOptions;
///
/// assert_eq!(ZstdOptions::default().level, 3);
/// assert!(ZstdOptions::default().with_level(19).check().is_ok());
/// assert!(ZstdOptions::default().with_level(23).check().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ZstdOptions {
    /// libzstd's compression level, 1 to 22 (negative levels, libzstd's fast modes, down to
    /// -7). The default, 3 (libzstd's own), writes 64 KiB chunks of text at a better ratio than
    /// nvCOMP (3.06 against nvCOMP's 2.95 on tests/data/golden/inputs/text.tbl, where level 1
    /// gives 2.94: benches/notes/zstd.md).
    pub level: i32,
}

impl Default for ZstdOptions {
    fn default() -> Self {
        ZstdOptions { level: Self::DEFAULT_LEVEL }
    }
}

builders!(ZstdOptions {
    with_level => level: i32,
});

impl ZstdOptions {
    /// The default compression level.
    pub const DEFAULT_LEVEL: i32 = 3;
    /// The lowest level accepted (libzstd's fast modes start below 1).
    pub const MIN_LEVEL: i32 = -7;
    /// The highest level accepted (libzstd's maximum).
    pub const MAX_LEVEL: i32 = 22;
    /// Largest uncompressed chunk (16 MiB, nvCOMP's `nvcompZstdCompressionMaxAllowedChunkSize`).
    pub const MAX_CHUNK_SIZE: usize = 1 << 24;
    /// Largest window a frame may declare to be decoded (2^27 bytes, 128 MiB: libzstd's default
    /// limit, and the largest `zstd --long` window nvCOMP was checked to decode).
    pub const MAX_WINDOW_SIZE: u64 = 1 << 27;

    /// `Unsupported` for a level outside [`MIN_LEVEL`](Self::MIN_LEVEL)..=[`MAX_LEVEL`](Self::MAX_LEVEL).
    pub fn check(&self) -> Result<()> {
        if !(Self::MIN_LEVEL..=Self::MAX_LEVEL).contains(&self.level) {
            return Err(Error::Unsupported(format!(
                "Zstd level {}: must be {} to {}",
                self.level,
                Self::MIN_LEVEL,
                Self::MAX_LEVEL
            )));
        }
        Ok(())
    }

    /// Largest compressed size of a chunk of `chunk_bytes`: libzstd's `ZSTD_compressBound`,
    /// 8-aligned.
    pub fn max_compressed_chunk_size(chunk_bytes: usize) -> usize {
        ::zstd::zstd_safe::compress_bound(chunk_bytes).next_multiple_of(8)
    }

    /// The 4-byte NVCOMP_NATIVE spec header: reserved, zero.
    pub fn spec_header(&self) -> [u8; 4] {
        [0; 4]
    }

    /// Options from a spec header: at least 4 bytes (their values are reserved and ignored, as
    /// nvCOMP ignores them); the level is not recorded, so it is the default.
    pub fn from_spec_header(h: &[u8]) -> Result<ZstdOptions> {
        if h.len() < 4 {
            return Err(Error::stream("Zstd spec header shorter than 4 bytes"));
        }
        Ok(ZstdOptions::default())
    }
}
