//! LZ4's options: nvCOMP's `nvcompBatchedLZ4CompressOpts_t` plus the choice of encoder.
use crate::error::{Error, Result};
use crate::types::{BitshuffleMode, DataType};

/// Bytes per independently transposed bitshuffle sub-chunk (FORMATS.md C.1), for the CPU codec
/// and the GPU layer alike.
pub(crate) const BITSHUFFLE_SUB_CHUNK_BYTES: usize = 8192;
const _: () = assert!(BITSHUFFLE_SUB_CHUNK_BYTES == gpucomp_kernels::bitshuffle::SUB_CHUNK_BYTES);

/// Which LZ4 encoder writes the chunks. Both write standard raw LZ4 blocks that any LZ4 decoder,
/// nvCOMP included, reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lz4Encoder {
    /// gpucomp's encoder (the default): nvCOMP's warp-window match search with the improvements
    /// documented in `cpu::lz4`, for a better ratio at the same speed.
    #[default]
    Gpucomp,
    /// Reproduces nvCOMP 6's GPU LZ4 encoder byte for byte, for exact cross-checks of streams.
    Nvcomp,
}

impl Lz4Encoder {
    /// Hash-table slots (a power of two, at least 1) the encoder uses when a batch's largest chunk
    /// is `max_chunk_bytes`: `min(next_pow2(max_chunk_bytes), 16384)` for Nvcomp (nvCOMP's rule);
    /// the same capped at 2048 for Gpucomp, 4 KiB of shared memory per warp. The CPU encoder and
    /// the GPU launch both size their tables by it.
    pub fn table_size(self, max_chunk_bytes: usize) -> usize {
        let cap = match self {
            Lz4Encoder::Nvcomp => 1 << 14,
            Lz4Encoder::Gpucomp => 1 << 11,
        };
        max_chunk_bytes.checked_next_power_of_two().unwrap_or(usize::MAX).min(cap)
    }
}

/// LZ4 options (`nvcompBatchedLZ4CompressOpts_t` plus the choice of encoder).
///
/// ```
/// use gpucomp::{BitshuffleMode, DataType, Lz4Options};
///
/// let options = Lz4Options::default().with_data_type(DataType::Short).with_bitshuffle(BitshuffleMode::MsbFirst);
/// assert_eq!(options.element_width().unwrap(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct Lz4Options {
    /// Element type: 1-, 2- or 4-byte integers (`Char` by default). The encoder works in
    /// elements of this width; chunk sizes should be multiples of it.
    pub data_type: DataType,
    /// Optional bit-transpose pre-pass (8 KiB sub-chunks), undone after decompression.
    pub bitshuffle: BitshuffleMode,
    /// Which encoder writes the chunks (not recorded in the stream).
    pub encoder: Lz4Encoder,
}

builders!(Lz4Options {
    with_data_type => data_type: DataType,
    with_bitshuffle => bitshuffle: BitshuffleMode,
    with_encoder => encoder: Lz4Encoder,
});

impl Lz4Options {
    /// Largest uncompressed chunk nvCOMP's LZ4 compressor accepts (16 MiB).
    pub const MAX_CHUNK_SIZE: usize = 1 << 24;

    /// Element width in bytes (1, 2 or 4), or an error for types LZ4 refuses.
    pub fn element_width(&self) -> Result<usize> {
        match self.data_type {
            DataType::Char | DataType::Uchar => Ok(1),
            DataType::Short | DataType::Ushort => Ok(2),
            DataType::Int | DataType::Uint => Ok(4),
            t => Err(Error::Unsupported(format!("LZ4 does not accept data type {}", t.name()))),
        }
    }

    /// Largest compressed size of a chunk of `chunk_bytes` (nvCOMP's bound, 8-aligned).
    pub fn max_compressed_chunk_size(chunk_bytes: usize) -> usize {
        (chunk_bytes + 1 + chunk_bytes.div_ceil(255)).next_multiple_of(8)
    }

    /// The 12-byte NVCOMP_NATIVE spec header: data type, bitshuffle mode, 4 reserved zero bytes.
    pub fn spec_header(&self) -> [u8; 12] {
        let mut h = [0u8; 12];
        h[0..4].copy_from_slice(&(self.data_type as u32).to_le_bytes());
        h[4..8].copy_from_slice(&(self.bitshuffle as u32).to_le_bytes());
        h
    }

    /// Options from a spec header (the encoder is not recorded: [`Lz4Encoder::Gpucomp`]).
    pub fn from_spec_header(h: &[u8]) -> Result<Lz4Options> {
        let word = |i: usize| h.get(i..i + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()));
        let (Some(t), Some(m)) = (word(0), word(4)) else {
            return Err(Error::stream("LZ4 spec header shorter than 8 bytes"));
        };
        let data_type =
            DataType::from_raw(t).ok_or_else(|| Error::stream(format!("LZ4 spec header: unknown data type {t}")))?;
        let bitshuffle = BitshuffleMode::from_raw(m)
            .ok_or_else(|| Error::stream(format!("LZ4 spec header: unknown bitshuffle mode {m}")))?;
        let opts = Lz4Options { data_type, bitshuffle, encoder: Lz4Encoder::Gpucomp };
        opts.element_width()?;
        Ok(opts)
    }
}
