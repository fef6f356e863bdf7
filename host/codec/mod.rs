//! The high-level API: whole buffers in, nvCOMP containers out, and back.
//!
//! A [`Codec`] compresses a host or device buffer into an NVCOMP_NATIVE stream (or RAW /
//! WITH_UNCOMPRESSED_SIZE) with a chosen chunk size, and decompresses any supported stream,
//! detecting its container from the header and, for NVCOMP_NATIVE, its algorithm too. It runs on
//! the GPU when one is given (or found, with [`Codec::new`]) and on the CPU reference codecs
//! otherwise; both write the same bytes. Every algorithm decompresses on the GPU; one without a
//! GPU compressor yet (see [`Algorithm::has_gpu_compression`]) compresses on the CPU codec
//! whatever the device.
//!
//! These calls return host values (sizes, `Vec`s), so they wait for the GPU work they queue:
//! unlike the [`batched`](crate::batched) API they are synchronous.
use cudarc::driver::CudaSlice;

use crate::algorithm::Algorithm;
use crate::container::{self, BitstreamKind, ChecksumPolicy, NativeStream};
use crate::error::{Error, Result, Status};
use crate::gpu::Gpu;

mod cpu;
mod gpu;

/// Where a [`Codec`] runs.
#[derive(Debug, Clone)]
pub enum Device {
    /// The CPU reference codecs, on all cores.
    Cpu,
    /// A GPU.
    Gpu(Gpu),
}

/// Compresses and decompresses whole buffers with one algorithm and chunk size.
///
/// ```
/// use gpucomp::{Algorithm, BitstreamKind, Codec, Device, Lz4Options};
///
/// # fn main() -> gpucomp::Result<()> {
/// let text = b"to be or not to be, that is the question; ".repeat(2000);
/// let codec = Codec::on(Algorithm::Lz4(Lz4Options::default()), Device::Cpu)
///     .with_chunk_size(32 << 10)?
///     .with_checksums(true);
/// let native = codec.compress(&text)?;
/// assert_eq!(codec.decompressed_size(&native)?, text.len() as u64);
/// assert_eq!(codec.decompress(&native)?, text);
/// // RAW: one bare chunk, up to the algorithm's maximum chunk size.
/// let raw = codec.compress_as(&text, BitstreamKind::Raw)?;
/// assert_eq!(codec.decompress(&raw)?, text);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Codec {
    algorithm: Algorithm,
    chunk_size: usize,
    checksums: bool,
    device: Device,
}

/// nvCOMP's default chunk size, 64 KiB.
pub const DEFAULT_CHUNK_SIZE: usize = 1 << 16;

impl Codec {
    /// A codec on GPU 0 if one can be opened, else on the CPU.
    pub fn new(algorithm: Algorithm) -> Codec {
        let device = Gpu::new(0).map_or(Device::Cpu, Device::Gpu);
        Codec::on(algorithm, device)
    }

    /// A codec on the given device.
    pub fn on(algorithm: Algorithm, device: Device) -> Codec {
        Codec { algorithm, chunk_size: DEFAULT_CHUNK_SIZE, checksums: false, device }
    }

    /// Sets the chunk size (bytes, a multiple of the data type's width, at most the
    /// algorithm's maximum).
    pub fn with_chunk_size(mut self, chunk_size: usize) -> Result<Codec> {
        let width = self.algorithm.element_width()?;
        if chunk_size == 0 || chunk_size % width != 0 || chunk_size > self.algorithm.max_chunk_size() {
            return Err(Error::InvalidArgument {
                status: Status::ChunkSizeTooLarge,
                reason: format!(
                    "chunk size {chunk_size}: must be a non-zero multiple of {width} up to {}",
                    self.algorithm.max_chunk_size()
                ),
            });
        }
        self.chunk_size = chunk_size;
        Ok(self)
    }

    /// Writes nvCOMP's per-chunk and header checksums into NVCOMP_NATIVE streams.
    pub fn with_checksums(mut self, on: bool) -> Codec {
        self.checksums = on;
        self
    }

    /// The algorithm and its options.
    pub fn algorithm(&self) -> &Algorithm {
        &self.algorithm
    }

    /// The chunk size of written streams.
    pub fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// Where this codec runs.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Compresses `input` into an NVCOMP_NATIVE stream.
    pub fn compress(&self, input: &[u8]) -> Result<Vec<u8>> {
        self.compress_as(input, BitstreamKind::Native)
    }

    /// Compresses `input` into a stream of the given kind.
    pub fn compress_as(&self, input: &[u8], kind: BitstreamKind) -> Result<Vec<u8>> {
        self.check_input_length(input.len())?;
        match (kind, self.gpu_for_compression()) {
            (BitstreamKind::Native, None) => {
                let chunks: Vec<&[u8]> = input.chunks(self.chunk_size).collect();
                // nvCOMP's max_uncompressed_chunk_bytes is the batch's largest chunk: the chunk
                // size, or the whole input when shorter (LZ4's table and ANS's sub-chunks follow it).
                let largest = self.chunk_size.min(input.len()).max(1);
                let compressed = cpu::compress_chunks(&self.algorithm, &chunks, largest)?;
                let payloads: Vec<&[u8]> = compressed.iter().map(Vec::as_slice).collect();
                container::write_native_from_input(
                    &self.algorithm,
                    self.chunk_size as u64,
                    input,
                    &payloads,
                    self.checksums,
                )
            }
            (BitstreamKind::Native, Some(g)) => {
                let on_device = g.stream().clone_htod(input)?;
                let stream =
                    g.stream().clone_dtoh(&gpu::compress_native(g, &self.algorithm, &on_device, self.chunk_size)?)?;
                if self.checksums {
                    with_checksums(&stream, input)
                } else {
                    Ok(stream)
                }
            }
            (BitstreamKind::Raw | BitstreamKind::WithUncompressedSize, _) => {
                self.check_single_chunk(input.len())?;
                let chunk = match self.gpu_for_compression() {
                    None => cpu::compress_chunks(&self.algorithm, &[input], input.len())?.remove(0),
                    Some(g) => gpu::compress_single(g, &self.algorithm, &g.stream().clone_htod(input)?)?,
                };
                Ok(match kind {
                    BitstreamKind::Raw => chunk,
                    _ => container::write_with_uncompressed_size(input.len() as u64, &chunk),
                })
            }
        }
    }

    /// Compresses a device buffer into an NVCOMP_NATIVE stream in device memory, without a
    /// round trip through the host (GPU codecs only; checksums are not computed on this path).
    pub fn compress_device(&self, input: &CudaSlice<u8>) -> Result<CudaSlice<u8>> {
        let Some(g) = self.gpu_for_compression() else {
            return Err(Error::Unsupported(format!(
                "compress_device needs a GPU codec and GPU kernels for {}",
                self.algorithm.format().name()
            )));
        };
        if self.checksums {
            return Err(Error::Unsupported("checksums are computed on the host path (Codec::compress) only".into()));
        }
        self.check_input_length(input.len())?;
        gpu::compress_native(g, &self.algorithm, input, self.chunk_size)
    }

    /// The uncompressed size of a stream, from its header (NVCOMP_NATIVE and
    /// WITH_UNCOMPRESSED_SIZE) or, for RAW, by parsing the chunk with this codec's algorithm.
    pub fn decompressed_size(&self, stream: &[u8]) -> Result<u64> {
        match container::detect(stream) {
            BitstreamKind::Native => Ok(NativeStream::parse(stream)?.uncompressed_size()),
            BitstreamKind::WithUncompressedSize => Ok(container::split_with_uncompressed_size(stream)?.0),
            BitstreamKind::Raw => cpu::raw_size(&self.algorithm, stream),
        }
    }

    /// Decompresses a stream, detecting its container: NVCOMP_NATIVE streams carry their
    /// algorithm; RAW and WITH_UNCOMPRESSED_SIZE streams are read with this codec's algorithm.
    /// With checksums on, stored nvCOMP checksums are verified (`BadChecksum` on a mismatch).
    pub fn decompress(&self, stream: &[u8]) -> Result<Vec<u8>> {
        // The parsed NVCOMP_NATIVE stream, kept for the checksum verification below.
        let mut native = None;
        let (algorithm, chunk_size, ranges, total) = match container::detect(stream) {
            BitstreamKind::Native => {
                let s = native.insert(NativeStream::parse(stream)?);
                let ranges = (0..s.num_chunks()).filter_map(|i| s.chunk_range(i)).collect::<Vec<_>>();
                (s.algorithm()?, s.uncomp_chunk_size() as usize, ranges, s.uncompressed_size())
            }
            BitstreamKind::WithUncompressedSize => {
                let (size, raw) = container::split_with_uncompressed_size(stream)?;
                let start = stream.len() - raw.len();
                (self.algorithm, (size as usize).max(1), std::iter::once(start..stream.len()).collect(), size)
            }
            BitstreamKind::Raw => {
                let size = cpu::raw_size(&self.algorithm, stream)?;
                (self.algorithm, (size as usize).max(1), std::iter::once(0..stream.len()).collect(), size)
            }
        };
        let mut out = output_buffer(total, stream.len())?;
        if total == 0 {
            return Ok(out);
        }
        match self.gpu() {
            None => {
                let chunks: Vec<&[u8]> = ranges.iter().map(|r| &stream[r.clone()]).collect();
                cpu::decompress_into(&algorithm, &chunks, chunk_size, &mut out)?;
            }
            Some(g) => {
                let compressed = g.stream().clone_htod(stream)?;
                let mut on_device = g.stream().alloc_zeros::<u8>(out.len())?;
                gpu::decompress_into(g, &algorithm, &compressed, &ranges, chunk_size, &mut on_device)?;
                g.stream().memcpy_dtoh(&on_device, &mut out)?;
            }
        }
        if let Some(s) = native.filter(|_| self.checksums) {
            s.verify_compressed(ChecksumPolicy::NoComputeAndVerifyIfPresent)?;
            s.verify_uncompressed(&out)?;
        }
        Ok(out)
    }

    /// The codec's GPU, if it runs on one.
    fn gpu(&self) -> Option<&Gpu> {
        match &self.device {
            Device::Gpu(g) => Some(g),
            Device::Cpu => None,
        }
    }

    /// The GPU to compress on: the codec's, if it has one and a GPU compressor exists for the
    /// algorithm; otherwise the CPU codec compresses (the same bytes).
    fn gpu_for_compression(&self) -> Option<&Gpu> {
        self.gpu().filter(|_| self.algorithm.has_gpu_compression())
    }

    fn check_input_length(&self, len: usize) -> Result<()> {
        let width = self.algorithm.element_width()?;
        if len % width != 0 {
            return Err(Error::InvalidArgument {
                status: Status::WrongInputLength,
                reason: format!("{len} bytes is not a whole number of {width}-byte elements"),
            });
        }
        Ok(())
    }

    fn check_single_chunk(&self, len: usize) -> Result<()> {
        if len == 0 || len > self.algorithm.max_chunk_size() {
            return Err(Error::InvalidArgument {
                status: Status::ChunkSizeTooLarge,
                reason: format!(
                    "a RAW stream is one chunk of 1 to {} bytes, not {len}",
                    self.algorithm.max_chunk_size()
                ),
            });
        }
        Ok(())
    }
}

/// No chunk format reaches this ratio: the densest chunks, Bitcomp's all-zero 8 KiB blocks, take
/// 12 bytes each (ratio < 700); LZ4 stays under 256, Cascaded under 512.
const MAX_RATIO: u64 = 1024;

/// The zeroed buffer a stream of `stream_len` bytes decodes into, `total` bytes. A header that
/// declares more than any valid stream of that length can hold is an invalid stream, and an
/// allocation that fails is an error: a hostile header never aborts the process.
fn output_buffer(total: u64, stream_len: usize) -> Result<Vec<u8>> {
    if total > (stream_len as u64).saturating_mul(MAX_RATIO) {
        return Err(Error::stream(format!(
            "the header declares {total} uncompressed bytes, more than {stream_len} compressed bytes can hold"
        )));
    }
    let total = usize::try_from(total).map_err(|_| Error::stream(format!("{total} bytes do not fit in memory")))?;
    let mut out = Vec::new();
    out.try_reserve_exact(total).map_err(|_| Error::stream(format!("cannot allocate {total} bytes for the output")))?;
    out.resize(total, 0);
    Ok(out)
}

/// Rewrites a checksum-less NVCOMP_NATIVE stream with nvCOMP's checksums (computed on the host).
fn with_checksums(stream: &[u8], input: &[u8]) -> Result<Vec<u8>> {
    let s = NativeStream::parse(stream)?;
    let payloads: Vec<&[u8]> = (0..s.num_chunks()).filter_map(|i| s.chunk(i)).collect();
    container::write_native_from_input(&s.algorithm()?, s.uncomp_chunk_size(), input, &payloads, true)
}
