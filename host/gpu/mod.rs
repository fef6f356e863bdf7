//! The CUDA runtime: a thin safe layer over cudarc (driver API, loaded at run time).
//!
//! [`Gpu`] opens a device, checks that a driver and a device exist (typed errors, never a
//! panic), loads the embedded PTX for its architecture and owns the stream every launch goes to.
//! Buffers are cudarc's [`CudaSlice`](cudarc::driver::CudaSlice): owned device memory, freed on drop;
//! the library allocates them from its own memory pool per device ([`Gpu::alloc`]).
mod device;
pub(crate) mod kernels;
mod read_back;
mod upload;

pub use device::{driver_present, DeviceInfo, Gpu};
