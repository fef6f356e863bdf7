//! ANS's options: nvCOMP's `nvcompBatchedANSCompressOpts_t` (FORMATS.md D.2), its 16-byte spec
//! header (A.2), limits (D.3) and maximum compressed chunk sizes (D.5).
//!
//! The chunk format itself is documented in [`crate::cpu::ans`].
use crate::error::{Error, Result, Status};
use crate::types::DataType;

/// How an ANS chunk codes its bytes: the `mode` byte of the chunk header (ANS.md 1, 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AnsMode {
    /// Mode 0: every byte is a symbol (`CHAR` / `UCHAR`), 11 probability bits.
    Bytes = 0,
    /// Mode 1: FLOAT16, only the exponent byte of each rotated half is a symbol, 10 bits.
    Float16 = 1,
    /// Mode 2: FLOAT8 E4M3: each pair of bytes is one symbol, their two 4-bit exponents; signs
    /// and mantissas go to the raw section (`crate::cpu::ans::float`), 11 bits.
    Float8 = 2,
    /// Mode 3: FLOAT32, only the exponent byte of each rotated float is a symbol, 10 bits.
    Float32 = 3,
}

impl AnsMode {
    /// The mode for a chunk header byte, if known.
    pub fn from_raw(v: u8) -> Option<AnsMode> {
        match v {
            0 => Some(AnsMode::Bytes),
            1 => Some(AnsMode::Float16),
            2 => Some(AnsMode::Float8),
            3 => Some(AnsMode::Float32),
            _ => None,
        }
    }

    /// Element width in bytes: chunk sizes must be multiples of it.
    pub fn element_width(self) -> usize {
        match self {
            AnsMode::Bytes | AnsMode::Float8 => 1,
            AnsMode::Float16 => 2,
            AnsMode::Float32 => 4,
        }
    }

    /// Input bytes per ANS symbol: 1 for bytes, 2 for FLOAT16 and FLOAT8 (a pair of values), 4
    /// for FLOAT32. The sub-chunk size floor is `2048` symbols of this many bytes (ANS.md 1.1).
    pub fn bytes_per_symbol(self) -> usize {
        match self {
            AnsMode::Bytes => 1,
            AnsMode::Float16 | AnsMode::Float8 => 2,
            AnsMode::Float32 => 4,
        }
    }

    /// Probability bits `pb` the encoder uses: frequencies sum to `2^pb`.
    pub fn probability_bits(self) -> u8 {
        match self {
            AnsMode::Bytes | AnsMode::Float8 => 11,
            AnsMode::Float16 | AnsMode::Float32 => 10,
        }
    }

    /// Bytes of the raw (not ANS-coded) section for a chunk of `n` bytes: one per half
    /// (FLOAT16), three per float (FLOAT32), one per pair of FLOAT8 values plus an odd last value
    /// whole (`ceil(n / 2)`).
    pub fn raw_section_len(self, n: usize) -> usize {
        match self {
            AnsMode::Bytes => 0,
            AnsMode::Float16 => n / 2,
            AnsMode::Float8 => n.div_ceil(2),
            AnsMode::Float32 => n / 4 * 3,
        }
    }
}

/// ANS options (`nvcompBatchedANSCompressOpts_t`; the ANS type is always rANS). The fields keep
/// nvCOMP's raw values, `0` meaning "default", so that [`spec_header`](Self::spec_header)
/// writes exactly what nvCOMP writes.
///
/// ```
/// use gpucomp::{AnsMode, AnsOptions, DataType};
///
/// let options = AnsOptions::for_type(DataType::Float16).with_states_per_lane(1);
/// assert_eq!(options.mode(), Ok(AnsMode::Float16));
/// assert_eq!(options.spec_header()[9], 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub struct AnsOptions {
    /// `CHAR` / `UCHAR` (bytes, the default), `FLOAT16`, `FLOAT8_E4M3` or `FLOAT32`. Other
    /// types: `NotSupported`.
    pub data_type: DataType,
    /// Upper bound on the sub-chunks of the largest chunk of a batch: 0 (default, 8) or a power
    /// of two in 4..=64. It only changes the sub-chunk size (see [`AnsOptions::sub_chunk_size`]).
    pub max_sub_chunk_count: u8,
    /// rANS states per lane: 0 (auto, 2), 1 or 2.
    pub states_per_lane: u8,
    /// Histogram sampling: 0 (exact histogram, the default) to 8; chunks under 4096 symbols
    /// always use the exact histogram.
    pub histogram_reduction_log2: u8,
}

builders!(AnsOptions {
    with_data_type => data_type: DataType,
    with_max_sub_chunk_count => max_sub_chunk_count: u8,
    with_states_per_lane => states_per_lane: u8,
    with_histogram_reduction_log2 => histogram_reduction_log2: u8,
});

impl AnsOptions {
    /// Largest uncompressed chunk nvCOMP's ANS compressor accepts (16 MiB).
    pub const MAX_CHUNK_SIZE: usize = 1 << 24;
    /// Largest uncompressed chunk nvCOMP's ANS decompressor accepts (32 MiB).
    pub const MAX_DECOMPRESSED_CHUNK_SIZE: usize = 1 << 25;
    /// Alignment nvCOMP requires of ANS input, output and chunk starts (D.4).
    pub const ALIGNMENT: usize = 16;
    /// Default `max_sub_chunk_count`.
    pub const DEFAULT_MAX_SUB_CHUNK_COUNT: usize = 8;

    /// Options for a data type, everything else default.
    pub fn for_type(data_type: DataType) -> AnsOptions {
        AnsOptions { data_type, ..AnsOptions::default() }
    }

    /// The chunk mode the data type selects; other types: `NotSupported` (nvCOMP's status 11).
    pub fn mode(&self) -> std::result::Result<AnsMode, Status> {
        match self.data_type {
            DataType::Char | DataType::Uchar => Ok(AnsMode::Bytes),
            DataType::Float16 => Ok(AnsMode::Float16),
            DataType::Float8E4M3 => Ok(AnsMode::Float8),
            DataType::Float32 => Ok(AnsMode::Float32),
            _ => Err(Status::NotSupported),
        }
    }

    /// Checks the options as nvCOMP does: unsupported data types give `NotSupported`, option
    /// values out of range `InvalidValue`.
    pub fn validate(&self) -> std::result::Result<(), Status> {
        self.mode()?;
        let msc = self.max_sub_chunk_count;
        if msc != 0 && !(msc.is_power_of_two() && (4..=64).contains(&msc)) {
            return Err(Status::InvalidValue);
        }
        if self.states_per_lane > 2 || self.histogram_reduction_log2 > 8 {
            return Err(Status::InvalidValue);
        }
        Ok(())
    }

    /// `max_sub_chunk_count` with the default applied.
    pub fn effective_max_sub_chunk_count(&self) -> usize {
        match self.max_sub_chunk_count {
            0 => Self::DEFAULT_MAX_SUB_CHUNK_COUNT,
            m => m as usize,
        }
    }

    /// `states_per_lane` with auto (0) resolved to 2: the value chunk headers record.
    pub fn effective_states_per_lane(&self) -> usize {
        match self.states_per_lane {
            1 => 1,
            _ => 2,
        }
    }

    /// Element width in bytes (1, 2 or 4); chunk sizes must be multiples of it.
    pub fn element_width(&self) -> Result<usize> {
        self.mode()
            .map(AnsMode::element_width)
            .map_err(|_| Error::Unsupported(format!("ANS does not accept data type {}", self.data_type.name())))
    }

    /// The sub-chunk size (bytes of uncompressed data) of every chunk of a batch whose largest
    /// chunk has `max_chunk_bytes` (ANS.md 1.1):
    /// `max(2048 · bytes_per_symbol, next_pow2(ceil(max_chunk_bytes / max_sub_chunk_count)))`
    /// (FLOAT8: 4096, from nvCOMP's FLOAT8 samples).
    pub fn sub_chunk_size(&self, max_chunk_bytes: usize) -> usize {
        let width = self.mode().map_or(1, AnsMode::bytes_per_symbol);
        let per = max_chunk_bytes.div_ceil(self.effective_max_sub_chunk_count()).max(1);
        per.checked_next_power_of_two().unwrap_or(usize::MAX).max(2048 * width)
    }

    /// Largest compressed size of a chunk of `chunk_bytes` with these options; nvCOMP's values
    /// for the default options (FORMATS.md D.5: 65536 → 92720 bytes, FLOAT16 76336, FLOAT32
    /// 72240, FLOAT8 80432; 1 → 3616; 2^24 → 23071280). With `sc` the sub-chunk size for
    /// `chunk_bytes`, `nsub = ceil(chunk_bytes / sc)`, `S = sc / bytes_per_symbol`:
    /// `roundup16(roundup8(16 + 4·nsub) + raw + 512) + nsub · (128·spl + pb·S/8)` — header, size
    /// table, raw section, a 256-entry table, then per sub-chunk its states and `pb` bits per
    /// symbol (the most a symbol adds). Equal to nvCOMP's values for FLOAT8 at every size of
    /// its samples (1 to 262144 bytes, odd ones included, `max_sub_chunk_count` 4 and 64, one
    /// state per lane). Unsupported data types count as bytes.
    pub fn max_compressed_chunk_size(&self, chunk_bytes: usize) -> usize {
        let mode = self.mode().unwrap_or(AnsMode::Bytes);
        let sc = self.sub_chunk_size(chunk_bytes);
        let nsub = chunk_bytes.div_ceil(sc).max(1);
        let raw = mode.raw_section_len(chunk_bytes);
        let head = ((16 + 4 * nsub).next_multiple_of(8) + raw + (raw & 1) + 512).next_multiple_of(16);
        let symbols = sc / mode.bytes_per_symbol();
        let per_sub = 128 * self.effective_states_per_lane() + (mode.probability_bits() as usize * symbols).div_ceil(8);
        head.saturating_add(nsub.saturating_mul(per_sub.next_multiple_of(16)))
    }

    /// The 16-byte NVCOMP_NATIVE spec header, as nvCOMP writes it (the first 16 bytes of the
    /// options struct): `u32 type` (0 = rANS), `u32 data_type`, `u8 max_sub_chunk_count`,
    /// `u8 states_per_lane`, `u8 histogram_reduction_log2`, 5 reserved zero bytes. Defaults stay
    /// 0, so a default stream's spec header is all zero except a float data type.
    pub fn spec_header(&self) -> [u8; 16] {
        let mut h = [0u8; 16];
        h[4..8].copy_from_slice(&(self.data_type as u32).to_le_bytes());
        h[8] = self.max_sub_chunk_count;
        h[9] = self.states_per_lane;
        h[10] = self.histogram_reduction_log2;
        h
    }

    /// Options from a spec header; the type must be rANS (0) and the options valid.
    pub fn from_spec_header(h: &[u8]) -> Result<AnsOptions> {
        let Some(h) = h.get(..16) else {
            return Err(Error::stream("ANS spec header shorter than 16 bytes"));
        };
        let word = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        if word(0) != 0 {
            return Err(Error::stream(format!("ANS spec header: unknown ANS type {}", word(0))));
        }
        let t = word(4);
        let data_type =
            DataType::from_raw(t).ok_or_else(|| Error::stream(format!("ANS spec header: unknown data type {t}")))?;
        let opts =
            AnsOptions { data_type, max_sub_chunk_count: h[8], states_per_lane: h[9], histogram_reduction_log2: h[10] };
        match opts.validate() {
            Ok(()) => Ok(opts),
            Err(Status::NotSupported) => {
                Err(Error::Unsupported(format!("ANS does not accept data type {}", data_type.name())))
            }
            Err(_) => Err(Error::stream(format!(
                "ANS spec header: invalid options (max_sub_chunk_count {}, states_per_lane {}, \
                 histogram_reduction_log2 {})",
                h[8], h[9], h[10]
            ))),
        }
    }
}
