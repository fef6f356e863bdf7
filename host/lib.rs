//! gpucomp: GPU compression kernels written in Rust, with nvCOMP 6-compatible framing.
//!
//! - [`Codec`] (high level): whole buffers in, nvCOMP containers out, and back, on a GPU or on
//!   the CPU reference codecs, which write the same bytes.
//! - [`batched`] (low level): nvCOMP's batched contract, device arrays of chunk pointers and
//!   sizes, per-chunk [`Status`]es.
//! - [`cpu`]: the reference codecs, chunk by chunk; [`container`]: nvCOMP's three bitstream
//!   kinds, parsed and written.
//!
//! An [`Algorithm`] carries its options, built from their defaults:
//!
//! ```
//! use gpucomp::{Algorithm, AnsOptions, Codec, DataType, Device};
//!
//! # fn main() -> gpucomp::Result<()> {
//! let halves: Vec<u8> = (0..20_000u16).flat_map(|i| (0x3c00 + i % 64).to_le_bytes()).collect();
//! let algorithm = Algorithm::Ans(AnsOptions::for_type(DataType::Float16).with_states_per_lane(1));
//! let codec = Codec::on(algorithm, Device::Cpu).with_chunk_size(16 << 10)?;
//! let stream = codec.compress(&halves)?;
//! assert!(stream.len() < halves.len());
//! assert_eq!(codec.decompress(&stream)?, halves);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod algorithm;
pub mod batched;
pub mod codec;
pub mod container;
pub mod cpu;
pub mod error;
pub mod gpu;
pub mod types;

#[cfg(test)]
mod test_rng;

// The README's Rust examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use algorithm::{
    Algorithm, AnsMode, AnsOptions, BitcompAlgorithm, BitcompOptions, CascadedMode, CascadedOptions, Lz4Encoder,
    Lz4Options, ZstdOptions,
};
pub use codec::{Codec, Device};
pub use container::BitstreamKind;
pub use error::{Error, Result, Status};
pub use types::{BitshuffleMode, DataType, Format};
