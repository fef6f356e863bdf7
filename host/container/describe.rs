//! A native stream's spec header as data, for inspection (`gpucomp inspect` formats it).
use super::native::{le_u32, le_u64};
use crate::types::Format;

/// The fields of an NVCOMP_NATIVE spec header, decoded where the format's layout is known
/// (FORMATS A.2). Enumerations are kept as the raw words the stream stores, so that unknown
/// values can be shown as they are (`DataType::from_raw`, `BitshuffleMode::from_raw` name them).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum SpecFields {
    /// LZ4: the data type and bitshuffle mode.
    Lz4 {
        /// `nvcompType_t` of the elements.
        data_type: u32,
        /// Bitshuffle mode: 0 none, 1 MSB first, 2 LSB first.
        bitshuffle: u32,
    },
    /// ANS.
    Ans {
        /// The ANS type (0: rANS).
        ans_type: u32,
        /// `nvcompType_t` of the elements.
        data_type: u32,
        /// `max_sub_chunk_count` (0: the default).
        max_sub_chunk_count: u8,
        /// rANS states per lane (0: the default).
        states_per_lane: u8,
        /// `histogram_reduction_log2`.
        histogram_reduction_log2: u8,
    },
    /// Cascaded.
    Cascaded {
        /// `nvcompType_t` of the elements.
        data_type: u32,
        /// 1 asymmetric, 2 symmetric.
        mode: u32,
        /// The terminal stage mask.
        terminal: u64,
        /// The coarse stage mask.
        coarse: u64,
        /// The fine stage mask.
        fine: u64,
        /// The compression level.
        level: u8,
    },
    /// Bitcomp.
    Bitcomp {
        /// 0 default, 1 sparse.
        algorithm: i32,
        /// `nvcompType_t` of the elements.
        data_type: u32,
        /// The lossy mode's delta.
        delta: f64,
        /// 0 lossless, 1 lossy to signed, 2 lossy to unsigned.
        mode: u32,
    },
    /// GDeflate, Deflate and Gzip: the algorithm word.
    Algorithm(i32),
    /// Snappy and Zstd: a spec header without fields.
    NoFields,
    /// A gpucomp private format, derived from `base` (`None`: not a known format id).
    Private {
        /// The nvCOMP format it derives from.
        base: Option<Format>,
    },
}

/// The fields of `spec`, the spec header of a stream of `format`; `None` when it is too short
/// for them.
pub fn spec_fields(format: Format, spec: &[u8]) -> Option<SpecFields> {
    let u32_at = |at| le_u32(spec, at);
    let byte = |at: usize| spec.get(at).copied();
    Some(match format {
        Format::Lz4 => SpecFields::Lz4 { data_type: u32_at(0)?, bitshuffle: u32_at(4)? },
        Format::Ans => SpecFields::Ans {
            ans_type: u32_at(0)?,
            data_type: u32_at(4)?,
            max_sub_chunk_count: byte(8)?,
            states_per_lane: byte(9)?,
            histogram_reduction_log2: byte(10)?,
        },
        Format::Cascaded => SpecFields::Cascaded {
            data_type: u32_at(0)?,
            mode: u32_at(4)?,
            terminal: le_u64(spec, 8)?,
            coarse: le_u64(spec, 16)?,
            fine: le_u64(spec, 24)?,
            level: byte(32)?,
        },
        Format::Bitcomp => SpecFields::Bitcomp {
            algorithm: u32_at(0)? as i32,
            data_type: u32_at(4)?,
            delta: f64::from_bits(le_u64(spec, 8)?),
            mode: u32_at(16)?,
        },
        Format::GDeflate | Format::Deflate | Format::Gzip => SpecFields::Algorithm(u32_at(0)? as i32),
        Format::Snappy | Format::Zstd => SpecFields::NoFields,
        Format::Private(id) => SpecFields::Private { base: Format::from_raw(id.wrapping_sub(0x80)) },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_by_format() {
        let mut spec = [0u8; 40];
        spec[..8].copy_from_slice(&[5, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(spec_fields(Format::Lz4, &spec), Some(SpecFields::Lz4 { data_type: 5, bitshuffle: 1 }));
        assert_eq!(spec_fields(Format::Lz4, &spec[..7]), None);
        spec[32] = 3;
        let Some(SpecFields::Cascaded { data_type: 5, mode: 1, level: 3, .. }) = spec_fields(Format::Cascaded, &spec)
        else {
            panic!("{:?}", spec_fields(Format::Cascaded, &spec))
        };
        assert_eq!(spec_fields(Format::Cascaded, &spec[..32]), None);
        assert_eq!(spec_fields(Format::Zstd, &[]), Some(SpecFields::NoFields));
        assert_eq!(spec_fields(Format::Private(0x80), &[]), Some(SpecFields::Private { base: Some(Format::Lz4) }));
    }
}
