//! gpucomp's device code.
//!
//! Kernel bodies are written once, generic over [`Thread`] (thread and block indices, barriers,
//! warp shuffles and votes). Built for `nvptx64-nvidia-cuda` they become the PTX the host library
//! embeds (`ptx.rs` implements [`Thread`] with intrinsics at zero cost); built for the host, the
//! simulator in [`sim`] runs the very same bodies on OS threads, so `cargo test` exercises the
//! kernels with real barriers and warp exchange on a machine without a GPU.
#![no_std]
// The kernels' module docs describe their design and name the private functions that carry it
// out (read them with `cargo doc --document-private-items`).
#![allow(rustdoc::private_intra_doc_links)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, link_llvm_intrinsics, asm_experimental_arch),
    allow(internal_features)
)]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

pub mod ans;
#[cfg(target_arch = "nvptx64")]
pub(crate) mod asm;
pub mod assemble;
pub mod batch;
pub mod bitcomp;
pub mod bits;
pub mod bitshuffle;
pub mod cascaded;
pub mod chunk_tables;
pub mod copy;
pub mod lz4;
pub mod size_query;
pub mod status;
pub mod thread;
pub mod warp;
pub mod zstd;
pub use thread::Thread;

#[cfg(target_arch = "nvptx64")]
pub(crate) mod ptx;
#[cfg(not(target_arch = "nvptx64"))]
pub mod sim;
#[cfg(test)]
mod test_rng;
