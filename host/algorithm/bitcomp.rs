//! Bitcomp's options: nvCOMP's `nvcompBatchedBitcompCompressOpts_t` in lossless mode
//! (FORMATS.md A.2, D.2, D.3, D.5; the chunk format is documented in [`crate::cpu::bitcomp`]).
use crate::error::{Error, Result};
use crate::types::DataType;

/// Bitcomp's two lossless coders (`algorithm` in nvCOMP's options, 0 or 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u32)]
pub enum BitcompAlgorithm {
    /// Algorithm 0 ("default"): a byte run-length code of each block's bit planes.
    #[default]
    Default = 0,
    /// Algorithm 1 ("sparse"): a 3-level hierarchical bitmap of each block's nonzero plane bytes,
    /// fast on data with many zeros.
    Sparse = 1,
}

impl BitcompAlgorithm {
    /// The algorithm with this wire value (0 or 1), if any.
    pub fn from_raw(v: u32) -> Option<BitcompAlgorithm> {
        match v {
            0 => Some(BitcompAlgorithm::Default),
            1 => Some(BitcompAlgorithm::Sparse),
            _ => None,
        }
    }
}

/// The element type a chunk records (`bitcompDataType_t`, header byte 3): width and signedness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ElementType {
    /// Bytes per element: 1, 2, 4 or 8 (any other value is treated as 8 everywhere).
    pub width: usize,
    /// Signed integers get the sign-magnitude-like mapping of the format docs before coding.
    pub signed: bool,
}

impl ElementType {
    /// The chunk's type code: 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 u64, 7 i64.
    pub fn code(self) -> u8 {
        let w = match self.width {
            1 => 0,
            2 => 2,
            4 => 4,
            _ => 6,
        };
        w | self.signed as u8
    }

    /// The type of a chunk's type code (0..=7).
    pub fn from_code(code: u8) -> Option<ElementType> {
        (code < 8).then(|| ElementType { width: 1 << (code >> 1), signed: code & 1 == 1 })
    }

    /// The type nvCOMP records for an `nvcompType_t` in lossless mode (floats as unsigned
    /// integers of their width); `None` for FP8 and `Bits`, which Bitcomp refuses.
    pub fn from_data_type(t: DataType) -> Option<ElementType> {
        let (width, signed) = match t {
            DataType::Char => (1, true),
            DataType::Uchar => (1, false),
            DataType::Short => (2, true),
            DataType::Ushort | DataType::Float16 => (2, false),
            DataType::Int => (4, true),
            DataType::Uint | DataType::Float32 => (4, false),
            DataType::LongLong => (8, true),
            DataType::ULongLong | DataType::Float64 => (8, false),
            DataType::Float8E4M3 | DataType::Bits => return None,
        };
        Some(ElementType { width, signed })
    }

    /// Bits per element.
    pub fn bits(self) -> usize {
        8 * self.width
    }
}

/// Bitcomp options (`nvcompBatchedBitcompCompressOpts_t`, lossless mode only).
///
/// Defaults as nvCOMP's: algorithm 0, `Uchar`. Every integer type is accepted; `Float16`,
/// `Float32` and `Float64` are compressed losslessly as unsigned integers of the same width (the
/// chunk records `ushort` / `uint` / `ulonglong`, as nvCOMP's chunks do). `Float8E4M3` and `Bits`
/// are refused (`Unsupported`), as nvCOMP refuses FP8. nvCOMP's lossy mode (`delta`, `mode`) is
/// not implemented.
///
/// ```
/// use gpucomp::{BitcompAlgorithm, BitcompOptions, DataType};
///
/// let options = BitcompOptions::default().with_algorithm(BitcompAlgorithm::Sparse).with_data_type(DataType::Int);
/// assert_eq!(options.element_width().unwrap(), 4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct BitcompOptions {
    /// Which coder writes the blocks.
    pub algorithm: BitcompAlgorithm,
    /// Element type (`Uchar` by default): the width of the integers whose bit planes are coded,
    /// and whether they are signed.
    pub data_type: DataType,
}

builders!(BitcompOptions {
    with_algorithm => algorithm: BitcompAlgorithm,
    with_data_type => data_type: DataType,
});

impl Default for BitcompOptions {
    fn default() -> Self {
        BitcompOptions { algorithm: BitcompAlgorithm::Default, data_type: DataType::Uchar }
    }
}

impl BitcompOptions {
    /// Largest uncompressed chunk nvCOMP's Bitcomp compressor accepts (16 MiB).
    pub const MAX_CHUNK_SIZE: usize = 1 << 24;

    /// Largest chunk nvCOMP's Bitcomp decompressor accepts (32 MiB).
    pub const MAX_DECOMPRESS_CHUNK_SIZE: usize = 1 << 25;

    /// Size of the NVCOMP_NATIVE spec header.
    pub const SPEC_HEADER_SIZE: usize = 24;

    /// Element width in bytes (1, 2, 4 or 8), or an error for types Bitcomp refuses.
    pub fn element_width(&self) -> Result<usize> {
        match self.data_type {
            DataType::Float8E4M3 | DataType::Bits => {
                Err(Error::Unsupported(format!("Bitcomp does not accept data type {}", self.data_type.name())))
            }
            t => Ok(t.size()),
        }
    }

    /// The element type the chunks record, or an error for types Bitcomp refuses.
    pub fn element_type(&self) -> Result<ElementType> {
        ElementType::from_data_type(self.data_type)
            .ok_or_else(|| Error::Unsupported(format!("Bitcomp does not accept data type {}", self.data_type.name())))
    }

    /// Largest compressed size of a chunk of `chunk_bytes`: the 32-byte chunk header plus, per
    /// 8 KiB block, an 8-byte table entry and an 8192-byte raw payload (nvCOMP's
    /// `bitcompMaxBuflen`; FORMATS.md D.5: 1 → 8232, 65536 → 65632, 2^24 → 16 793 632).
    /// Saturates instead of overflowing.
    pub fn max_compressed_chunk_size(chunk_bytes: usize) -> usize {
        chunk_bytes.div_ceil(8192).saturating_mul(8200).saturating_add(32)
    }

    /// The 24-byte NVCOMP_NATIVE spec header, as nvCOMP writes it: `i32 algorithm`,
    /// `u32 data_type`, `f64 delta = 0.0`, `u32 mode = 0` (lossless), 4 reserved zero bytes.
    pub fn spec_header(&self) -> [u8; 24] {
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&(self.algorithm as u32).to_le_bytes());
        h[4..8].copy_from_slice(&(self.data_type as u32).to_le_bytes());
        h
    }

    /// Options from a spec header (at least 20 bytes: algorithm, data type, delta, mode). The
    /// algorithm must be 0 or 1, the data type one Bitcomp accepts, and the mode 0 (lossless:
    /// other modes are `Unsupported`); `delta` is ignored, as in lossless mode nvCOMP ignores it.
    pub fn from_spec_header(h: &[u8]) -> Result<BitcompOptions> {
        let word = |i: usize| h.get(i..i + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let (Some(a), Some(t), Some(m)) = (word(0), word(4), word(16)) else {
            return Err(Error::stream("Bitcomp spec header shorter than 20 bytes"));
        };
        let algorithm = BitcompAlgorithm::from_raw(a)
            .ok_or_else(|| Error::stream(format!("Bitcomp spec header: unknown algorithm {a}")))?;
        let data_type = DataType::from_raw(t)
            .ok_or_else(|| Error::stream(format!("Bitcomp spec header: unknown data type {t}")))?;
        if m != 0 {
            return Err(Error::Unsupported(format!("Bitcomp mode {m} (lossy) is not supported")));
        }
        let opts = BitcompOptions { algorithm, data_type };
        opts.element_width()?;
        Ok(opts)
    }
}
