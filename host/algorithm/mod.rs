//! Algorithms and their options: what a stream's format id and spec header say, and the limits
//! nvCOMP's API sets for each (chunk sizes, alignments, maximum compressed sizes).
#![forbid(unsafe_code)]
use crate::error::{Error, Result};
use crate::types::Format;

/// Writes a `with_<field>(self, value) -> Self` builder method for each listed field of an
/// options struct (the structs are `#[non_exhaustive]`, so callers outside the crate build them
/// from `Default` with these).
macro_rules! builders {
    ($ty:ty { $($with:ident => $field:ident: $fty:ty),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!("These options with [`", stringify!($field), "`](Self::", stringify!($field), ") set to `value`.")]
                #[must_use]
                pub fn $with(mut self, value: $fty) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}

pub mod ans;
pub mod bitcomp;
pub mod cascaded;
mod lz4;
mod zstd;

pub use ans::{AnsMode, AnsOptions};
pub use bitcomp::{BitcompAlgorithm, BitcompOptions};
pub use cascaded::{CascadedMode, CascadedOptions};
pub(crate) use lz4::BITSHUFFLE_SUB_CHUNK_BYTES;
pub use lz4::{Lz4Encoder, Lz4Options};
pub use zstd::ZstdOptions;

/// An algorithm with its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Algorithm {
    /// LZ4: raw LZ4 blocks, one per chunk.
    Lz4(Lz4Options),
    /// ANS: 32-lane rANS with per-chunk frequency tables (byte, FLOAT16, FLOAT32 modes).
    Ans(AnsOptions),
    /// Bitcomp: bit-plane coding of 8 KiB blocks (lossless), algorithm 0 or 1 (sparse).
    Bitcomp(BitcompOptions),
    /// Cascaded: RLE / DELTA stages and bit-packing with a frame of reference, per 4 KiB block.
    Cascaded(CascadedOptions),
    /// Zstd: one standard zstd frame (RFC 8878) per chunk. Decompressed on the GPU, compressed on
    /// the CPU codec (libzstd).
    Zstd(ZstdOptions),
}

impl Default for Algorithm {
    fn default() -> Self {
        Algorithm::Lz4(Lz4Options::default())
    }
}

impl Algorithm {
    /// The format id written into NVCOMP_NATIVE headers (nvCOMP's: nvCOMP 6 decodes every
    /// algorithm's streams, Zstd's included; `benches/nvcomp/interop.py` checks it on a GPU).
    pub fn format(&self) -> Format {
        match self {
            Algorithm::Lz4(_) => Format::Lz4,
            Algorithm::Ans(_) => Format::Ans,
            Algorithm::Bitcomp(_) => Format::Bitcomp,
            Algorithm::Cascaded(_) => Format::Cascaded,
            Algorithm::Zstd(_) => Format::Zstd,
        }
    }

    /// The algorithm's name, as nvCOMP names it (whatever [`format`](Self::format) id its
    /// streams carry).
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Lz4(_) => Format::Lz4.name(),
            Algorithm::Ans(_) => Format::Ans.name(),
            Algorithm::Bitcomp(_) => Format::Bitcomp.name(),
            Algorithm::Cascaded(_) => Format::Cascaded.name(),
            Algorithm::Zstd(_) => Format::Zstd.name(),
        }
    }

    /// The spec header bytes of an NVCOMP_NATIVE stream.
    pub fn spec_header(&self) -> Vec<u8> {
        match self {
            Algorithm::Lz4(o) => o.spec_header().to_vec(),
            Algorithm::Ans(o) => o.spec_header().to_vec(),
            Algorithm::Bitcomp(o) => o.spec_header().to_vec(),
            Algorithm::Cascaded(o) => o.spec_header().to_vec(),
            Algorithm::Zstd(o) => o.spec_header().to_vec(),
        }
    }

    /// The algorithm a stream's format id and spec header describe.
    pub fn from_spec_header(format: Format, spec: &[u8]) -> Result<Algorithm> {
        match format {
            Format::Lz4 => Ok(Algorithm::Lz4(Lz4Options::from_spec_header(spec)?)),
            Format::Ans => Ok(Algorithm::Ans(AnsOptions::from_spec_header(spec)?)),
            Format::Bitcomp => Ok(Algorithm::Bitcomp(BitcompOptions::from_spec_header(spec)?)),
            Format::Cascaded => Ok(Algorithm::Cascaded(CascadedOptions::from_spec_header(spec)?)),
            Format::Zstd => Ok(Algorithm::Zstd(ZstdOptions::from_spec_header(spec)?)),
            f => Err(Error::Unsupported(format!("{} streams are not supported yet", f.name()))),
        }
    }

    /// Largest uncompressed chunk the compressor accepts.
    pub fn max_chunk_size(&self) -> usize {
        match self {
            Algorithm::Lz4(_) => Lz4Options::MAX_CHUNK_SIZE,
            Algorithm::Ans(_) => AnsOptions::MAX_CHUNK_SIZE,
            Algorithm::Bitcomp(_) => BitcompOptions::MAX_CHUNK_SIZE,
            Algorithm::Cascaded(_) => CascadedOptions::MAX_CHUNK_SIZE,
            Algorithm::Zstd(_) => ZstdOptions::MAX_CHUNK_SIZE,
        }
    }

    /// Largest compressed size of one chunk of `chunk_bytes`.
    pub fn max_compressed_chunk_size(&self, chunk_bytes: usize) -> usize {
        match self {
            Algorithm::Lz4(_) => Lz4Options::max_compressed_chunk_size(chunk_bytes),
            Algorithm::Ans(o) => o.max_compressed_chunk_size(chunk_bytes),
            Algorithm::Bitcomp(_) => BitcompOptions::max_compressed_chunk_size(chunk_bytes),
            Algorithm::Cascaded(_) => CascadedOptions::max_compressed_chunk_size(chunk_bytes),
            Algorithm::Zstd(_) => ZstdOptions::max_compressed_chunk_size(chunk_bytes),
        }
    }

    /// Element width the chunk size must be a multiple of.
    pub fn element_width(&self) -> Result<usize> {
        match self {
            Algorithm::Lz4(o) => o.element_width(),
            Algorithm::Ans(o) => o.element_width(),
            Algorithm::Bitcomp(o) => o.element_width(),
            Algorithm::Cascaded(o) => o.element_width(),
            // Bytes; an invalid level is refused wherever the width is asked.
            Algorithm::Zstd(o) => o.check().map(|()| 1),
        }
    }

    /// Whether gpucomp compresses this algorithm on the GPU (else on the CPU codec, which writes
    /// the same bytes).
    pub fn has_gpu_compression(&self) -> bool {
        match self {
            Algorithm::Lz4(_) | Algorithm::Bitcomp(_) => true,
            Algorithm::Cascaded(o) => o.mode == CascadedMode::Asymmetric,
            Algorithm::Ans(o) => o.mode().is_ok(),
            Algorithm::Zstd(_) => false,
        }
    }

    /// Whether gpucomp decompresses this algorithm on the GPU: every algorithm (Zstd too, one
    /// warp per chunk; its compression stays on the CPU codec, see
    /// [`has_gpu_compression`](Self::has_gpu_compression)).
    pub fn has_gpu_decompression(&self) -> bool {
        true
    }
}
