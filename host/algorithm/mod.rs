//! Algorithms and their options: what a stream's format id and spec header say, and the limits
//! nvCOMP's API sets for each (chunk sizes, alignments, maximum compressed sizes).
use crate::error::{Error, Result};
use crate::types::Format;

mod lz4;

pub use lz4::{Lz4Encoder, Lz4Options};

/// An algorithm with its options. ANS, Cascaded and Bitcomp join as further variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Algorithm {
    /// LZ4: raw LZ4 blocks, one per chunk.
    Lz4(Lz4Options),
}

impl Default for Algorithm {
    fn default() -> Self {
        Algorithm::Lz4(Lz4Options::default())
    }
}

impl Algorithm {
    /// The format id written into NVCOMP_NATIVE headers.
    pub fn format(&self) -> Format {
        match self {
            Algorithm::Lz4(_) => Format::Lz4,
        }
    }

    /// The spec header bytes of an NVCOMP_NATIVE stream.
    pub fn spec_header(&self) -> Vec<u8> {
        match self {
            Algorithm::Lz4(o) => o.spec_header().to_vec(),
        }
    }

    /// The algorithm a stream's format id and spec header describe.
    pub fn from_spec_header(format: Format, spec: &[u8]) -> Result<Algorithm> {
        match format {
            Format::Lz4 => Ok(Algorithm::Lz4(Lz4Options::from_spec_header(spec)?)),
            f => Err(Error::Unsupported(format!("{} streams are not supported yet", f.name()))),
        }
    }

    /// Largest uncompressed chunk the compressor accepts.
    pub fn max_chunk_size(&self) -> usize {
        match self {
            Algorithm::Lz4(_) => Lz4Options::MAX_CHUNK_SIZE,
        }
    }

    /// Largest compressed size of one chunk of `chunk_bytes`.
    pub fn max_compressed_chunk_size(&self, chunk_bytes: usize) -> usize {
        match self {
            Algorithm::Lz4(_) => Lz4Options::max_compressed_chunk_size(chunk_bytes),
        }
    }

    /// Element width the chunk size must be a multiple of.
    pub fn element_width(&self) -> Result<usize> {
        match self {
            Algorithm::Lz4(o) => o.element_width(),
        }
    }
}
