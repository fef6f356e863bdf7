//! gpucomp: GPU compression kernels written in Rust, with nvCOMP 6-compatible framing.
#![deny(missing_docs)]

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

pub use algorithm::{
    Algorithm, AnsMode, AnsOptions, BitcompAlgorithm, BitcompOptions, CascadedMode, CascadedOptions, Lz4Encoder,
    Lz4Options,
};
pub use codec::{Codec, Device};
pub use container::BitstreamKind;
pub use error::{Error, Result, Status};
pub use types::{BitshuffleMode, DataType, Format};
