//! Cascaded's options: nvCOMP's `nvcompBatchedCascadedCompressOpts_t` (FORMATS D.2) and the
//! 40-byte NVCOMP_NATIVE spec header (FORMATS A.2), with the limits nvCOMP's API sets (D.3, D.5).
use crate::error::{Error, Result, Status};
use crate::types::DataType;

/// `nvcompCascadedMode_t`: which chunk format the compressor writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u32)]
pub enum CascadedMode {
    /// `ASYMMETRIC` (1, the default): 4 KiB blocks, each with its own RLE/DELTA pipeline and
    /// FOR + bit-packing (FORMATS C.2). An `UNSPECIFIED` (0) spec header reads as this mode.
    #[default]
    Asymmetric = 1,
    /// `SYMMETRIC` (2): 8 KiB blocks of 256-element bit-plane sub-blocks (FORMATS C.2.2). Decoded;
    /// the CPU encoder refuses it (`Status::NotSupported`).
    Symmetric = 2,
}

/// Cascaded options (`nvcompBatchedCascadedCompressOpts_t`). The terminal codec is always
/// bit-packing and the coarse-grained flags always `NONE`, the only values nvCOMP 6 defines.
///
/// ```
/// use gpucomp::{CascadedMode, CascadedOptions, DataType};
///
/// let options = CascadedOptions::default().with_data_type(DataType::LongLong).with_compression_level(1);
/// assert_eq!(options.mode, CascadedMode::Asymmetric);
/// assert_eq!(options.element_width().unwrap(), 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct CascadedOptions {
    /// Element type: 1-, 2-, 4- or 8-byte integers, signed or unsigned (`Uint` by default).
    /// The signedness decides the FOR minimum and bit width; float types are refused.
    pub data_type: DataType,
    /// Chunk format ([`CascadedMode::Asymmetric`] by default).
    pub mode: CascadedMode,
    /// How many stage slots a block's pipeline may use: `min(level, 3)` (0: FOR + bit-packing
    /// only; 1: one slot, RLE by default; 2: RLE, DELTA; 3 and above, the default 3: RLE, DELTA,
    /// RLE). Measured on nvCOMP 6: levels 3 to 255 write identical chunks.
    pub compression_level: u8,
    /// `fine_grained_encoding_flags` bit 0 (`DELTA`, 1): DELTA stages allowed.
    pub delta: bool,
    /// `fine_grained_encoding_flags` bit 1 (`RLE`, 2): RLE stages allowed.
    pub rle: bool,
    /// `fine_grained_encoding_flags` bit 2 (`FOR`, 4): frame of reference. nvCOMP 6 refuses to
    /// compress without it (status 11, measured), and so does gpucomp (`NotSupported`).
    pub frame_of_reference: bool,
}

builders!(CascadedOptions {
    with_data_type => data_type: DataType,
    with_mode => mode: CascadedMode,
    with_compression_level => compression_level: u8,
    with_delta => delta: bool,
    with_rle => rle: bool,
    with_frame_of_reference => frame_of_reference: bool,
});

impl Default for CascadedOptions {
    fn default() -> Self {
        CascadedOptions {
            data_type: DataType::Uint,
            mode: CascadedMode::Asymmetric,
            compression_level: 3,
            delta: true,
            rle: true,
            frame_of_reference: true,
        }
    }
}

impl CascadedOptions {
    /// Largest uncompressed chunk nvCOMP's Cascaded compressor accepts (16 MiB).
    pub const MAX_CHUNK_SIZE: usize = 1 << 24;

    /// Size of the NVCOMP_NATIVE spec header.
    pub const SPEC_HEADER_SIZE: usize = 40;

    /// `fine_grained_encoding_flags` value `DELTA`.
    pub const FLAG_DELTA: u64 = 1;
    /// `fine_grained_encoding_flags` value `RLE`.
    pub const FLAG_RLE: u64 = 2;
    /// `fine_grained_encoding_flags` value `FOR`.
    pub const FLAG_FOR: u64 = 4;

    /// Largest compressed size of a chunk of `chunk_bytes`: the raw fallback, 8 + roundup4(n)
    /// (nvCOMP's bound, FORMATS D.5). Saturates instead of overflowing.
    pub fn max_compressed_chunk_size(chunk_bytes: usize) -> usize {
        chunk_bytes.saturating_add(3).saturating_add(8) & !3
    }

    /// Element width in bytes (1, 2, 4 or 8) of a data type, or `NotSupported` for the float
    /// types and `Bits`, which nvCOMP's Cascaded refuses (status 11).
    pub fn width_of(data_type: DataType) -> std::result::Result<usize, Status> {
        match data_type {
            DataType::Char | DataType::Uchar => Ok(1),
            DataType::Short | DataType::Ushort => Ok(2),
            DataType::Int | DataType::Uint => Ok(4),
            DataType::LongLong | DataType::ULongLong => Ok(8),
            _ => Err(Status::NotSupported),
        }
    }

    /// Whether the FOR minimum and bit width of a type are computed on signed values.
    pub fn is_signed(data_type: DataType) -> bool {
        matches!(data_type, DataType::Char | DataType::Short | DataType::Int | DataType::LongLong)
    }

    /// Element width in bytes (1, 2, 4 or 8), or an error for the types Cascaded refuses.
    pub fn element_width(&self) -> Result<usize> {
        Self::width_of(self.data_type)
            .map_err(|_| Error::Unsupported(format!("Cascaded does not accept data type {}", self.data_type.name())))
    }

    /// `fine_grained_encoding_flags` as stored (DELTA 1 | RLE 2 | FOR 4).
    pub fn fine_grained_flags(&self) -> u64 {
        let flag = |on: bool, bit: u64| if on { bit } else { 0 };
        flag(self.delta, Self::FLAG_DELTA)
            | flag(self.rle, Self::FLAG_RLE)
            | flag(self.frame_of_reference, Self::FLAG_FOR)
    }

    /// The 40-byte spec header as nvCOMP writes it: u32 data type, u32 mode, u64 terminal codec
    /// flags (1 = bit-packing), u64 coarse-grained flags (0), u64 fine-grained flags, u8
    /// compression level, 7 zero bytes. nvCOMP's default options give `5, 1, 1, 0, 7, 3`.
    pub fn spec_header(&self) -> [u8; 40] {
        let mut h = [0u8; 40];
        h[0..4].copy_from_slice(&(self.data_type as u32).to_le_bytes());
        h[4..8].copy_from_slice(&(self.mode as u32).to_le_bytes());
        h[8..16].copy_from_slice(&1u64.to_le_bytes());
        h[24..32].copy_from_slice(&self.fine_grained_flags().to_le_bytes());
        h[32] = self.compression_level;
        h
    }

    /// Options from a spec header. Accepted: a known integer data type, mode 0 (unspecified,
    /// read as asymmetric), 1 or 2, terminal codec flags 0 or 1, coarse-grained flags 0,
    /// fine-grained flags within 7; the reserved bytes are not checked.
    pub fn from_spec_header(h: &[u8]) -> Result<CascadedOptions> {
        if h.len() < Self::SPEC_HEADER_SIZE {
            return Err(Error::stream(format!("Cascaded spec header is {} bytes, not 40", h.len())));
        }
        let u32_at = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        let u64_at = |i: usize| u64::from(u32_at(i)) | (u64::from(u32_at(i + 4)) << 32);
        let t = u32_at(0);
        let data_type = DataType::from_raw(t)
            .ok_or_else(|| Error::stream(format!("Cascaded spec header: unknown data type {t}")))?;
        let mode = match u32_at(4) {
            0 | 1 => CascadedMode::Asymmetric,
            2 => CascadedMode::Symmetric,
            m => return Err(Error::stream(format!("Cascaded spec header: unknown mode {m}"))),
        };
        let (terminal, coarse, fine) = (u64_at(8), u64_at(16), u64_at(24));
        if terminal > 1 || coarse != 0 || fine > 7 {
            return Err(Error::Unsupported(format!(
                "Cascaded spec header: terminal codec flags {terminal}, coarse-grained flags {coarse}, fine-grained flags {fine}"
            )));
        }
        let opts = CascadedOptions {
            data_type,
            mode,
            compression_level: h[32],
            delta: fine & Self::FLAG_DELTA != 0,
            rle: fine & Self::FLAG_RLE != 0,
            frame_of_reference: fine & Self::FLAG_FOR != 0,
        };
        opts.element_width()?;
        Ok(opts)
    }
}
