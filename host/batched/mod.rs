//! The low-level batched API, with nvCOMP's contract (`nvcompBatched*`).
//!
//! A batch is described by device arrays: `in_ptrs[i]` / `in_bytes[i]` for the chunks to read,
//! `out_ptrs[i]` for where to write them, and a per-chunk `statuses[i]` with nvCOMP's values
//! ([`crate::Status`]). Pointer arrays hold raw device addresses (`u64`), exactly as nvCOMP takes
//! `void* const*`, so buffers from any allocator work; that is also why the launching functions
//! are `unsafe`: the library cannot check addresses it has not allocated.
//!
//! Every `*_async` function only queues work on [`Gpu::stream`](crate::gpu::Gpu::stream) and
//! returns; results are valid once the stream reaches them. Size queries are host functions.
//! Temp space is sized by query and is as small as the options allow (often zero).
//!
//! One module per algorithm: [`lz4`].
pub mod lz4;

/// Alignment (bytes) an algorithm requires of chunk pointers: `nvcompAlignmentRequirements_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alignments {
    /// Every input chunk pointer.
    pub input: usize,
    /// Every output chunk pointer.
    pub output: usize,
    /// The temp buffer.
    pub temp: usize,
}

use cudarc::driver::{CudaSlice, DevicePtr};

use crate::error::{Error, Result, Status};
use crate::gpu::Gpu;

/// The device address of a buffer, and a check that it holds at least `count` elements.
fn address<T>(gpu: &Gpu, buf: &CudaSlice<T>, count: usize, what: &str) -> Result<u64> {
    if buf.len() < count {
        return Err(Error::InvalidArgument {
            status: Status::InvalidValue,
            reason: format!("{what} holds {} entries, the batch needs {count}", buf.len()),
        });
    }
    Ok(buf.device_ptr(gpu.stream()).0)
}

/// As [`address`], for an optional buffer: 0 (a null pointer) when absent.
fn optional_address<T>(gpu: &Gpu, buf: Option<&CudaSlice<T>>, count: usize, what: &str) -> Result<u64> {
    buf.map_or(Ok(0), |b| address(gpu, b, count, what))
}

/// The device arrays of one batched compression call (`nvcompBatched*CompressAsync`).
pub struct CompressBatch<'a> {
    /// Device addresses of the uncompressed chunks.
    pub in_ptrs: &'a CudaSlice<u64>,
    /// Their sizes in bytes.
    pub in_bytes: &'a CudaSlice<u64>,
    /// Chunks in the batch (the arrays may be longer).
    pub num_chunks: usize,
    /// Upper bound of `in_bytes` (nvCOMP's `max_uncompressed_chunk_bytes`; encoders size their
    /// tables by it: pass the largest chunk, as nvCOMP's high-level API does).
    pub max_uncompressed_chunk_bytes: usize,
    /// Temp space of at least the queried size (`None` when that size is 0).
    pub temp: Option<&'a mut CudaSlice<u8>>,
    /// Device addresses of the output chunks, each with room for the queried maximum size.
    pub out_ptrs: &'a CudaSlice<u64>,
    /// Receives each chunk's compressed size.
    pub out_bytes: &'a mut CudaSlice<u64>,
    /// Receives each chunk's status (optional, as in nvCOMP).
    pub statuses: Option<&'a mut CudaSlice<i32>>,
}

/// The device arrays of one batched decompression call (`nvcompBatched*DecompressAsync`).
pub struct DecompressBatch<'a> {
    /// Device addresses of the compressed chunks.
    pub in_ptrs: &'a CudaSlice<u64>,
    /// Their exact compressed sizes.
    pub in_bytes: &'a CudaSlice<u64>,
    /// Chunks in the batch (the arrays may be longer).
    pub num_chunks: usize,
    /// Upper bound of the uncompressed chunk sizes, as given to the temp-size query.
    pub max_uncompressed_chunk_bytes: usize,
    /// Temp space of at least the queried size (`None` when that size is 0).
    pub temp: Option<&'a mut CudaSlice<u8>>,
    /// Device addresses of the output chunks.
    pub out_ptrs: &'a CudaSlice<u64>,
    /// Room at each output address; a chunk that needs more fails with `CannotDecompress`.
    pub out_capacity: &'a CudaSlice<u64>,
    /// Receives each chunk's decompressed size (optional).
    pub out_actual: Option<&'a mut CudaSlice<u64>>,
    /// Receives each chunk's status (optional).
    pub statuses: Option<&'a mut CudaSlice<i32>>,
}
