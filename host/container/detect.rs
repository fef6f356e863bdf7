//! Telling the three bitstream kinds apart.
use super::native::{le_u64, NATIVE_MAGIC};
use super::raw::USIZE_PREFIX_LEN;

/// Largest uncompressed size [`detect`] believes in a WITH_UNCOMPRESSED_SIZE prefix (1 TiB).
pub const USIZE_DETECT_MAX: u64 = 1 << 40;

/// nvCOMP's `BitstreamKind`: the container a stream is written in, as
/// [`Codec::compress_as`](crate::Codec::compress_as) writes it and [`detect`] classifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BitstreamKind {
    /// `NVCOMP_NATIVE` (wire value 0, the default): header, chunk tables and chunks.
    #[default]
    Native,
    /// `RAW` (1): one bare chunk holding the whole input (up to the algorithm's maximum chunk
    /// size, 16 MiB); a reader must know the algorithm.
    Raw,
    /// `WITH_UNCOMPRESSED_SIZE` (2): a `u64` uncompressed size and 8 zero bytes, then the RAW
    /// chunk.
    WithUncompressedSize,
}

impl BitstreamKind {
    /// nvCOMP's `BitstreamKind` value.
    pub fn to_raw(self) -> u32 {
        match self {
            BitstreamKind::Native => 0,
            BitstreamKind::Raw => 1,
            BitstreamKind::WithUncompressedSize => 2,
        }
    }

    /// nvCOMP's name (`NVCOMP_NATIVE`, `RAW`, `WITH_UNCOMPRESSED_SIZE`).
    pub fn name(self) -> &'static str {
        match self {
            BitstreamKind::Native => "NVCOMP_NATIVE",
            BitstreamKind::Raw => "RAW",
            BitstreamKind::WithUncompressedSize => "WITH_UNCOMPRESSED_SIZE",
        }
    }
}

impl std::fmt::Display for BitstreamKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Classify a buffer. The rule, in order:
///
/// 1. **Native** if it starts with the magic bytes `27 13 91 52` (whatever follows: a truncated
///    or corrupt native stream is still reported as native, so that parsing gives the reason);
/// 2. **WithUncompressedSize** if it is at least 17 bytes long, bytes 8..16 are zero, and the
///    `u64` at 0 is between 1 and [`USIZE_DETECT_MAX`] (1 TiB);
/// 3. **Raw** otherwise — including empty buffers.
///
/// RAW streams carry no marker, so the rule can misjudge a RAW chunk whose first bytes happen to
/// look like a magic or a size prefix (an LZ4 block would need eight zero literals at bytes 8..16
/// and a small little-endian number in its first eight bytes). A caller that knows the kind should
/// not detect it.
///
/// ```
/// use gpucomp::container::{detect, write_with_uncompressed_size};
/// use gpucomp::BitstreamKind;
///
/// assert_eq!(detect(&[0x27, 0x13, 0x91, 0x52, 6, 0]), BitstreamKind::Native);
/// assert_eq!(detect(&write_with_uncompressed_size(3, &[1, 2, 3])), BitstreamKind::WithUncompressedSize);
/// assert_eq!(detect(b"no marker at all"), BitstreamKind::Raw);
/// ```
pub fn detect(bytes: &[u8]) -> BitstreamKind {
    if bytes.get(..4) == Some(&NATIVE_MAGIC.to_le_bytes()[..]) {
        return BitstreamKind::Native;
    }
    if bytes.len() > USIZE_PREFIX_LEN
        && bytes[8..USIZE_PREFIX_LEN].iter().all(|&b| b == 0)
        && le_u64(bytes, 0).is_some_and(|s| (1..=USIZE_DETECT_MAX).contains(&s))
    {
        return BitstreamKind::WithUncompressedSize;
    }
    BitstreamKind::Raw
}
