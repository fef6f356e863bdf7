//! The high-level API's GPU path: whole buffers through the batched kernels.
use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig};
use gpucomp_kernels::copy as copy_geometry;

use crate::algorithm::Algorithm;
use crate::batched::{self, CompressBatch, DecompressBatch};
use crate::container::NativeLayout;
use crate::error::{Error, Result, Status};
use crate::gpu::kernels::CopyArgs;
use crate::gpu::Gpu;

/// A contiguous buffer cut at `chunk_size`: device arrays of the chunks' addresses and sizes,
/// and the sizes on the host.
fn chunk_arrays(
    gpu: &Gpu,
    base: u64,
    len: usize,
    chunk_size: usize,
) -> Result<(CudaSlice<u64>, CudaSlice<u64>, Vec<u64>)> {
    let n = len.div_ceil(chunk_size);
    let ptrs: Vec<u64> = (0..n).map(|i| base + (i * chunk_size) as u64).collect();
    let sizes: Vec<u64> = (0..n).map(|i| (len - i * chunk_size).min(chunk_size) as u64).collect();
    Ok((gpu.stream().clone_htod(&ptrs)?, gpu.stream().clone_htod(&sizes)?, sizes))
}

/// The first failed chunk of a status array, as an error.
fn check_statuses(statuses: &[i32]) -> Result<()> {
    match statuses.iter().position(|&s| s != 0) {
        None => Ok(()),
        Some(chunk) => Err(Error::Chunk { chunk, status: Status::from_raw(statuses[chunk]) }),
    }
}

/// Compresses `input` (on the device) in chunks of `chunk_size` into a complete NVCOMP_NATIVE
/// stream on the device: chunks are compressed into staging slots, their sizes read back, the
/// header and tables written, and the chunks gathered into place by one batched copy.
pub(crate) fn compress_native(
    gpu: &Gpu,
    algorithm: &Algorithm,
    input: &CudaSlice<u8>,
    chunk_size: usize,
) -> Result<CudaSlice<u8>> {
    let stream = gpu.stream();
    let n = input.len().div_ceil(chunk_size);
    let (sizes, staging) = compress_to_staging(gpu, algorithm, input, chunk_size)?;
    let sizes_usize: Vec<usize> = sizes.iter().map(|&s| s as usize).collect();
    let layout = NativeLayout::for_algorithm(algorithm, chunk_size as u64, input.len() as u64, &sizes_usize, false)?;
    let mut out = stream.alloc_zeros::<u8>(layout.total_size())?;
    let header = layout.header_bytes(None)?;
    stream.memcpy_htod(&header, &mut out.slice_mut(..header.len()))?;
    let base = out.device_ptr(stream).0;
    let stride = staging.stride as u64;
    let src: Vec<u64> = (0..n as u64).map(|i| staging.base + i * stride).collect();
    let dst: Vec<u64> = (0..n).filter_map(|i| layout.chunk_position(i)).map(|p| base + p as u64).collect();
    batched_copy(gpu, &src, &dst, &sizes)?;
    // Dropping `staging` frees it stream-ordered, after the copy.
    Ok(out)
}

/// Compresses one chunk holding all of `input` (RAW streams), returning its bytes.
pub(crate) fn compress_single(gpu: &Gpu, algorithm: &Algorithm, input: &CudaSlice<u8>) -> Result<Vec<u8>> {
    let (sizes, staging) = compress_to_staging(gpu, algorithm, input, input.len())?;
    let mut chunk = gpu.stream().clone_dtoh(&staging.buf.slice(..sizes[0] as usize))?;
    chunk.truncate(sizes[0] as usize);
    Ok(chunk)
}

struct Staging {
    buf: CudaSlice<u8>,
    base: u64,
    stride: usize,
}

/// Runs the batched compressor into fixed-stride staging slots; returns the compressed sizes.
fn compress_to_staging(
    gpu: &Gpu,
    algorithm: &Algorithm,
    input: &CudaSlice<u8>,
    chunk_size: usize,
) -> Result<(Vec<u64>, Staging)> {
    let stream = gpu.stream();
    let n = input.len().div_ceil(chunk_size);
    let (in_ptrs, in_bytes, _) = chunk_arrays(gpu, input.device_ptr(stream).0, input.len(), chunk_size)?;
    let codec = batched::for_algorithm(algorithm)?;
    let stride = codec.max_compressed_chunk_size(chunk_size)?.next_multiple_of(16);
    let buf = stream.alloc_zeros::<u8>((n * stride).max(1))?;
    let base = buf.device_ptr(stream).0;
    let out_ptrs = stream.clone_htod(&(0..n as u64).map(|i| base + i * stride as u64).collect::<Vec<_>>())?;
    let mut out_bytes = stream.alloc_zeros::<u64>(n.max(1))?;
    let mut statuses = stream.alloc_zeros::<i32>(n.max(1))?;
    let mut temp = stream.alloc_zeros::<u8>(codec.compress_temp_size(n, chunk_size)?.max(1))?;
    // SAFETY: the pointer arrays address `input` (chunks of at most chunk_size bytes) and
    // disjoint staging slots of the maximum compressed size; all live until the sync below.
    unsafe {
        codec.compress_async(
            gpu,
            CompressBatch {
                in_ptrs: &in_ptrs,
                in_bytes: &in_bytes,
                num_chunks: n,
                // The batch's largest chunk, as nvCOMP's high-level API passes it.
                max_uncompressed_chunk_bytes: chunk_size.min(input.len()).max(1),
                temp: Some(&mut temp),
                out_ptrs: &out_ptrs,
                out_bytes: &mut out_bytes,
                statuses: Some(&mut statuses),
            },
        )?
    };
    let statuses = stream.clone_dtoh(&statuses)?;
    check_statuses(&statuses[..n])?;
    let mut sizes = stream.clone_dtoh(&out_bytes)?;
    sizes.truncate(n);
    Ok((sizes, Staging { buf, base, stride }))
}

/// Decompresses the chunks at `ranges` of `compressed` (on the device) into `out` (on the
/// device), chunk `i` at `i * chunk_size`, each exactly filling its part of `out`.
pub(crate) fn decompress_into(
    gpu: &Gpu,
    algorithm: &Algorithm,
    compressed: &CudaSlice<u8>,
    ranges: &[std::ops::Range<usize>],
    chunk_size: usize,
    out: &mut CudaSlice<u8>,
) -> Result<()> {
    let stream = gpu.stream();
    let n = ranges.len();
    if n != out.len().div_ceil(chunk_size) {
        return Err(Error::stream(format!("{n} chunks for {} bytes in chunks of {chunk_size}", out.len())));
    }
    if n == 0 {
        return Ok(());
    }
    let cbase = compressed.device_ptr(stream).0;
    let in_ptrs = stream.clone_htod(&ranges.iter().map(|r| cbase + r.start as u64).collect::<Vec<_>>())?;
    let in_bytes = stream.clone_htod(&ranges.iter().map(|r| r.len() as u64).collect::<Vec<_>>())?;
    let (out_ptrs, out_capacity, expected) = chunk_arrays(gpu, out.device_ptr(stream).0, out.len(), chunk_size)?;
    let mut out_actual = stream.alloc_zeros::<u64>(n)?;
    let mut statuses = stream.alloc_zeros::<i32>(n)?;
    let codec = batched::for_algorithm(algorithm)?;
    let mut temp = stream.alloc_zeros::<u8>(codec.decompress_temp_size(n, chunk_size)?.max(1))?;
    // SAFETY: inputs are ranges of `compressed`, outputs disjoint parts of `out` with their exact
    // sizes as capacities; everything lives until the reads below synchronise the stream.
    unsafe {
        codec.decompress_async(
            gpu,
            DecompressBatch {
                in_ptrs: &in_ptrs,
                in_bytes: &in_bytes,
                num_chunks: n,
                max_uncompressed_chunk_bytes: chunk_size,
                temp: Some(&mut temp),
                out_ptrs: &out_ptrs,
                out_capacity: &out_capacity,
                out_actual: Some(&mut out_actual),
                statuses: Some(&mut statuses),
            },
        )?
    };
    check_statuses(&stream.clone_dtoh(&statuses)?)?;
    let actual = stream.clone_dtoh(&out_actual)?;
    match actual.iter().zip(&expected).position(|(a, e)| a != e) {
        // A chunk that decodes to fewer bytes than its place in the stream is corrupt too.
        Some(chunk) => Err(Error::Chunk { chunk, status: Status::CannotDecompress }),
        None => Ok(()),
    }
}

/// Copies `sizes[i]` bytes from device address `src[i]` to `dst[i]`, in one launch.
fn batched_copy(gpu: &Gpu, src: &[u64], dst: &[u64], sizes: &[u64]) -> Result<()> {
    let stream = gpu.stream();
    let (s, d, z) = (stream.clone_htod(src)?, stream.clone_htod(dst)?, stream.clone_htod(sizes)?);
    let count = src.len() as u64;
    let cfg = LaunchConfig {
        grid_dim: (copy_geometry::grid_dim(count), 1, 1),
        block_dim: (copy_geometry::BLOCK_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let args =
        CopyArgs { src: s.device_ptr(stream).0, dst: d.device_ptr(stream).0, sizes: z.device_ptr(stream).0, count };
    // SAFETY: the arrays hold `count` entries and the caller guarantees the ranges are valid and
    // disjoint.
    unsafe { gpu.kernels().batched_copy.launch(stream, cfg, &args)? };
    // The arrays are freed on drop, stream-ordered after the launch.
    Ok(())
}
