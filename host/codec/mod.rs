//! The high-level API: whole buffers in, nvCOMP containers out, and back.
//!
//! A [`Codec`] compresses a host or device buffer into an NVCOMP_NATIVE stream (or RAW /
//! WITH_UNCOMPRESSED_SIZE) with a chosen chunk size, and decompresses any supported stream,
//! detecting its container from the header and, for NVCOMP_NATIVE, its algorithm too. It runs on
//! the GPU when one is given (or found, with [`Codec::new`]) and on the CPU reference codecs
//! otherwise; both write the same bytes. An algorithm without a GPU compressor (see
//! [`Algorithm::has_gpu_compression`]: Zstd, whose compression is libzstd's) compresses on the CPU
//! codec whatever the device, and `compress_device_batch*`, which works on device memory, answers
//! `Unsupported` for it instead; every algorithm decompresses on the GPU.
//!
//! These calls return host values (sizes, `Vec`s), so they wait for the GPU work they queue:
//! unlike the [`batched`](crate::batched) API they are synchronous.
//!
//! The `*_device_batch*` calls take lists of [`DeviceRange`]s, device memory the caller owns
//! (e.g. CuPy or PyTorch arrays, by address), and run every chunk of every buffer in one launch
//! per algorithm. Compression uploads one description and header per buffer; the device cuts
//! the buffers into chunks, compresses them, lays out every stream (header, chunk tables,
//! padding) and copies the chunks into place, and the host reads back each stream's length and
//! the statuses (one wait; the final copy stays queued);
//! decompression reads the headers back (one read, a second only for chunk tables longer than
//! each stream's share of the first: 4 KiB for up to 64 streams, down to 512 bytes) and waits for
//! the statuses. Every device buffer they allocate comes from the library's memory pool, which
//! keeps its memory between calls (see [`Gpu`]). Their work is ordered on the codec's
//! [`Gpu::stream`](crate::gpu::Gpu::stream) (see [`Gpu::with_borrowed_stream`] and
//! [`Gpu::wait_for_stream`] to order it after a producer's stream), and the outputs are ready
//! once that stream reaches them.
use cudarc::driver::{CudaSlice, DevicePtr};

use crate::algorithm::Algorithm;
use crate::container::{self, BitstreamKind, CheckedHeader, ChecksumPolicy, NativeStream};
use crate::error::{Error, Result, Status};
use crate::gpu::Gpu;
use crate::types::Format;

mod cpu;
mod device_buffers;
mod gpu;

pub use device_buffers::{DeviceBuffers, BUFFER_ALIGNMENT};

/// `len` bytes of device memory at device address `address` (a `CUdeviceptr` of the codec's
/// device, in its primary context), owned by the caller: the buffers of the `*_device_batch*`
/// calls of [`Codec`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DeviceRange {
    /// Device address of the first byte.
    pub address: u64,
    /// Length in bytes.
    pub len: usize,
}

impl DeviceRange {
    /// The range a device buffer covers (borrowed: the buffer must outlive its use).
    pub fn of(buffer: &CudaSlice<u8>) -> DeviceRange {
        DeviceRange { address: buffer.device_ptr(buffer.stream()).0, len: buffer.len() }
    }
}

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
    max_decompressed_size: u64,
    native_only: bool,
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
        Codec {
            algorithm,
            chunk_size: DEFAULT_CHUNK_SIZE,
            checksums: false,
            max_decompressed_size: u64::MAX,
            native_only: false,
            device,
        }
    }

    /// Caps the uncompressed size a stream may declare: decompressing (or asking
    /// [`decompressed_size`](Self::decompressed_size) of) a stream whose header or chunk claims
    /// more than `bytes` is [`Error::InvalidArgument`] with [`Status::OutputBufferTooSmall`],
    /// naming the claim and the limit, before anything is allocated for the output.
    ///
    /// The default, `u64::MAX`, leaves only the format bound: every stream is also refused,
    /// as [`Error::InvalidStream`], when it claims more than its algorithm's maximum expansion
    /// of its own length ([`max_expansion`]), so a forged size never allocates more than that
    /// multiple of the stream.
    pub fn with_max_decompressed_size(mut self, bytes: u64) -> Codec {
        self.max_decompressed_size = bytes;
        self
    }

    /// The cap set by [`with_max_decompressed_size`](Self::with_max_decompressed_size).
    pub fn max_decompressed_size(&self) -> u64 {
        self.max_decompressed_size
    }

    /// Decodes only NVCOMP_NATIVE streams, which name their algorithm: a RAW or
    /// WITH_UNCOMPRESSED_SIZE stream, whose algorithm only its writer knows, is refused
    /// ([`Error::InvalidArgument`]) instead of being read with this codec's algorithm. For
    /// callers that decode whatever streams they are given without knowing their algorithm.
    ///
    /// ```
    /// use gpucomp::{Algorithm, BitstreamKind, Codec, Device, Error};
    ///
    /// let codec = Codec::on(Algorithm::default(), Device::Cpu);
    /// let raw = codec.compress_as(b"some bytes, some bytes", BitstreamKind::Raw).unwrap();
    /// let native = codec.compress(b"some bytes, some bytes").unwrap();
    /// let any_native = codec.clone().with_native_streams_only();
    /// assert!(matches!(any_native.decompress(&raw), Err(Error::InvalidArgument { .. })));
    /// assert_eq!(any_native.decompress(&native).unwrap(), b"some bytes, some bytes");
    /// ```
    pub fn with_native_streams_only(mut self) -> Codec {
        self.native_only = true;
        self
    }

    /// Sets the chunk size (bytes, a multiple of the data type's width, at most the
    /// algorithm's maximum).
    pub fn with_chunk_size(mut self, chunk_size: usize) -> Result<Codec> {
        let width = self.algorithm.element_width()?;
        if chunk_size == 0 || !chunk_size.is_multiple_of(width) || chunk_size > self.algorithm.max_chunk_size() {
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
                let stream = self.compress_on_gpu(g, input, kind)?;
                if self.checksums {
                    with_checksums(&stream, input)
                } else {
                    Ok(stream)
                }
            }
            (BitstreamKind::Raw | BitstreamKind::WithUncompressedSize, None) => {
                self.check_single_chunk(input.len())?;
                let chunk = cpu::compress_chunks(&self.algorithm, &[input], input.len())?.remove(0);
                Ok(match kind {
                    BitstreamKind::Raw => chunk,
                    _ => container::write_with_uncompressed_size(input.len() as u64, &chunk),
                })
            }
            (BitstreamKind::Raw | BitstreamKind::WithUncompressedSize, Some(g)) => {
                self.check_single_chunk(input.len())?;
                self.compress_on_gpu(g, input, kind)
            }
        }
    }

    /// Compresses a host buffer on `gpu`: uploaded, compressed as a batch of one, read back.
    fn compress_on_gpu(&self, gpu: &Gpu, input: &[u8], kind: BitstreamKind) -> Result<Vec<u8>> {
        // SAFETY: written at once.
        let mut on_device = unsafe { gpu.alloc::<u8>(input.len())? };
        if !input.is_empty() {
            gpu.stream().memcpy_htod(input, &mut on_device)?;
        }
        let source = self.source(DeviceRange::of(&on_device), kind);
        // SAFETY: `on_device` is ours, alive until the read-back below waits for the stream.
        let out = unsafe { gpu::compress_batch_new(gpu, &self.algorithm, kind, &[source]) }.map_err(unwrap_single)?;
        out.to_host(0)
    }

    /// How a buffer is cut for a stream of `kind`: in chunks of the chunk size for
    /// NVCOMP_NATIVE, one chunk otherwise.
    fn source(&self, range: DeviceRange, kind: BitstreamKind) -> gpu::Source {
        let chunk_size = match kind {
            BitstreamKind::Native => self.chunk_size,
            BitstreamKind::Raw | BitstreamKind::WithUncompressedSize => range.len.max(1),
        };
        gpu::Source { range, chunk_size }
    }

    /// Compresses a device buffer into an NVCOMP_NATIVE stream in device memory, without a
    /// round trip through the host (GPU codecs only; checksums are not computed on this path).
    /// The slice is as long as the stream; its allocation has room for the worst case.
    pub fn compress_device(&self, input: &CudaSlice<u8>) -> Result<CudaSlice<u8>> {
        let Some(g) = self.gpu_for_compression() else {
            return Err(Error::Unsupported(format!(
                "compress_device needs a GPU codec and GPU kernels for {}",
                self.algorithm.name()
            )));
        };
        if self.checksums {
            return Err(Error::Unsupported("checksums are computed on the host path (Codec::compress) only".into()));
        }
        self.check_input_length(input.len())?;
        let source = self.source(DeviceRange::of(input), BitstreamKind::Native);
        // SAFETY: `input` is borrowed for the call; the queued copy into the output follows the
        // compression on the stream, which finishes reading `input` before the call returns.
        let out = unsafe { gpu::compress_batch_new(g, &self.algorithm, BitstreamKind::Native, &[source]) }
            .map_err(unwrap_single)?;
        Ok(out.into_first())
    }

    /// The largest stream [`compress_as`](Self::compress_as) (or a device-batch compression)
    /// writes for `len` input bytes in a stream of `kind`: the size to allocate for an output.
    /// A host computation, for CPU codecs too.
    pub fn max_compressed_size(&self, len: usize, kind: BitstreamKind) -> Result<usize> {
        self.check_input_length(len)?;
        let overflow = || Error::invalid(format!("{len} bytes: the stream size overflows"));
        match kind {
            BitstreamKind::Native => {
                let n = len.div_ceil(self.chunk_size);
                let largest = self.chunk_size.min(len).max(1);
                let align = self.algorithm.format().chunk_alignment();
                // Every chunk at most the bound of the largest (the encoders' parameters follow it).
                let slot = self.algorithm.max_compressed_chunk_size(largest).next_multiple_of(align);
                let data = n.checked_mul(slot).ok_or_else(overflow)?;
                let offset = container::native_data_offset(self.algorithm.format(), n, self.checksums)?;
                offset.checked_add(data).ok_or_else(overflow)
            }
            BitstreamKind::Raw | BitstreamKind::WithUncompressedSize => {
                self.check_single_chunk(len)?;
                let prefix = if kind == BitstreamKind::Raw { 0 } else { container::USIZE_PREFIX_LEN };
                Ok(prefix + self.algorithm.max_compressed_chunk_size(len))
            }
        }
    }

    /// Compresses each device buffer of `inputs` into its own stream of `kind` (NVCOMP_NATIVE in
    /// chunks of this codec's chunk size, or one chunk for RAW and WITH_UNCOMPRESSED_SIZE), in new
    /// device buffers ([`DeviceBuffers`]: one allocation, each buffer with room for its stream's
    /// worst case, as the lengths are only known on the device), with the bytes
    /// [`compress_as`](Self::compress_as) writes for the same data. Every chunk of every input
    /// goes into one launch (see the [module documentation](self)); the call returns once the
    /// streams' lengths are known, with the copies into the outputs queued on the codec's stream.
    ///
    /// GPU codecs with a GPU compressor for the algorithm only, without checksums
    /// (`Unsupported` otherwise). A failure in one input is [`Error::Buffer`] with its index.
    ///
    /// # Safety
    /// Every input must be readable device memory of the codec's device until the codec's stream
    /// has run the work, and must not be written meanwhile; work that produced the inputs on
    /// other streams must be ordered before it ([`Gpu::wait_for_stream`]).
    ///
    /// ```no_run
    /// use gpucomp::codec::DeviceRange;
    /// use gpucomp::gpu::Gpu;
    /// use gpucomp::{Algorithm, BitstreamKind, Codec, Device, Lz4Options};
    ///
    /// # fn main() -> gpucomp::Result<()> {
    /// let gpu = Gpu::new(0)?;
    /// let codec = Codec::on(Algorithm::Lz4(Lz4Options::default()), Device::Gpu(gpu.clone()));
    /// let a = gpu.stream().clone_htod(&vec![1u8; 1 << 20])?;
    /// let b = gpu.stream().clone_htod(&b"some text, some text".repeat(100))?;
    /// let inputs = [DeviceRange::of(&a), DeviceRange::of(&b)];
    /// // SAFETY: `a` and `b` live on the codec's stream and outlive the call's work.
    /// let streams = unsafe { codec.compress_device_batch(&inputs, BitstreamKind::Native)? };
    /// // SAFETY: the streams are ours, alive until the call returns.
    /// let restored = unsafe { codec.decompress_device_batch(&streams.ranges())? };
    /// assert_eq!(restored.to_host(1)?, b"some text, some text".repeat(100));
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn compress_device_batch(&self, inputs: &[DeviceRange], kind: BitstreamKind) -> Result<DeviceBuffers> {
        let (g, sources) = self.batch_sources(inputs, kind)?;
        // SAFETY: this function's contract.
        unsafe { gpu::compress_batch_new(g, &self.algorithm, kind, &sources) }
    }

    /// [`compress_device_batch`](Self::compress_device_batch) into caller buffers: stream `i`
    /// goes to the start of `outputs[i]`; returns the streams' lengths. An output shorter than
    /// its stream is [`Error::Buffer`] wrapping [`Error::OutputTooSmall`], and nothing of that
    /// stream is written (the streams' lengths are known only on the device, so the outputs that
    /// had room may have been written); [`max_compressed_size`](Self::max_compressed_size) is
    /// always enough.
    ///
    /// # Safety
    /// As [`compress_device_batch`](Self::compress_device_batch); besides, every output must be
    /// writable device memory, disjoint from the inputs and the other outputs, and not used
    /// otherwise until the codec's stream has run the work.
    pub unsafe fn compress_device_batch_into(
        &self,
        inputs: &[DeviceRange],
        kind: BitstreamKind,
        outputs: &[DeviceRange],
    ) -> Result<Vec<usize>> {
        check_counts(inputs.len(), outputs.len())?;
        let (g, sources) = self.batch_sources(inputs, kind)?;
        // SAFETY: this function's contract.
        unsafe { gpu::compress_batch_into(g, &self.algorithm, kind, &sources, outputs) }
    }

    /// The uncompressed size of each stream in device memory, from its header (NVCOMP_NATIVE,
    /// WITH_UNCOMPRESSED_SIZE) or, for RAW, by the algorithm's size query on the device, as
    /// [`decompressed_size`](Self::decompressed_size) gives it (a size above the format bound or
    /// the codec's cap is [`Error::Buffer`] with the stream's index). Waits for the reads.
    ///
    /// # Safety
    /// Every stream must be readable device memory of the codec's device, its contents final
    /// (work that wrote it on other streams ordered before: [`Gpu::wait_for_stream`]).
    pub unsafe fn decompressed_sizes_device(&self, streams: &[DeviceRange]) -> Result<Vec<u64>> {
        let g = self.device_gpu("decompressed_sizes_device")?;
        // SAFETY: this function's contract.
        let plans = unsafe { self.plans(g, streams, true)? };
        plans
            .iter()
            .zip(streams)
            .enumerate()
            .map(|(i, (p, s))| {
                let total = p.total.unwrap_or(0);
                self.check_claim(&p.algorithm, total, s.len).map(|()| total).map_err(|e| gpu::in_buffer(i, e))
            })
            .collect()
    }

    /// Decompresses each stream in device memory into a new device buffer of its uncompressed
    /// size ([`DeviceBuffers`]: one allocation), detecting its container as [`decompress`](Self::decompress) does (NVCOMP_NATIVE
    /// streams carry their algorithm and may mix algorithms: one launch per algorithm present).
    /// Returns once the statuses are read: the outputs are complete.
    ///
    /// A failure in one stream (header, chunk, or a declared size above [`max_expansion`] times
    /// its length or the codec's [cap](Self::with_max_decompressed_size)) is [`Error::Buffer`]
    /// with its index. GPU codecs without
    /// checksums only (`Unsupported` otherwise: stored checksums are not verified on the device).
    ///
    /// # Safety
    /// Every stream must be readable device memory of the codec's device, its contents final
    /// (work that wrote it on other streams ordered before: [`Gpu::wait_for_stream`]).
    pub unsafe fn decompress_device_batch(&self, streams: &[DeviceRange]) -> Result<DeviceBuffers> {
        // SAFETY: this function's contract.
        let (outputs, queued) = unsafe { self.decompress_device_batch_queued(streams)? };
        queued.wait()?;
        Ok(outputs)
    }

    /// [`decompress_device_batch`](Self::decompress_device_batch) in two steps: this one plans
    /// the batch (the streams' headers are read back), allocates the outputs and queues the
    /// decompression on the codec's stream; [`QueuedDecompression::wait`] then waits for it and
    /// checks every chunk. The host can prepare what uses the outputs while the device
    /// decompresses. The outputs hold the decoded bytes once `wait` returned `Ok` (and for work
    /// queued on the codec's stream after this call); after an error, their contents are
    /// unspecified.
    ///
    /// # Safety
    /// As [`decompress_device_batch`](Self::decompress_device_batch); the streams must stay
    /// readable until `wait` returned or the codec's stream has run the work.
    pub unsafe fn decompress_device_batch_queued(
        &self,
        streams: &[DeviceRange],
    ) -> Result<(DeviceBuffers, QueuedDecompression<'_>)> {
        let g = self.device_gpu("decompress_device_batch")?;
        // SAFETY: this function's contract.
        let plans = unsafe { self.plans(g, streams, true)? };
        let mut totals = Vec::with_capacity(plans.len());
        for (i, (p, s)) in plans.iter().zip(streams).enumerate() {
            let total = p.total.unwrap_or(0);
            self.check_claim(&p.algorithm, total, s.len).map_err(|e| gpu::in_buffer(i, e))?;
            totals.push(total as usize);
        }
        // SAFETY: a successful decompression writes every byte (each chunk fills its part).
        let outputs = unsafe { DeviceBuffers::alloc(g, &totals)? };
        // SAFETY: the streams per this function's contract; the outputs are ours, and freed in
        // the stream's order after the work.
        let queued = unsafe { gpu::queue_decompression(g, &plans, &outputs.ranges())? };
        Ok((outputs, QueuedDecompression(queued)))
    }

    /// [`decompress_device_batch`](Self::decompress_device_batch) into caller buffers: stream
    /// `i` decodes to the start of `outputs[i]`; returns the decoded sizes. An output shorter
    /// than its stream's uncompressed size is [`Error::Buffer`] wrapping
    /// [`Error::OutputTooSmall`] (RAW streams, whose size only decoding tells, fail with
    /// `Error::Chunk` and `CannotDecompress` instead), and nothing is decoded.
    ///
    /// # Safety
    /// As [`decompress_device_batch`](Self::decompress_device_batch); besides, every output must
    /// be writable device memory, disjoint from the streams and the other outputs, and not used
    /// otherwise until the call returns.
    pub unsafe fn decompress_device_batch_into(
        &self,
        streams: &[DeviceRange],
        outputs: &[DeviceRange],
    ) -> Result<Vec<usize>> {
        check_counts(streams.len(), outputs.len())?;
        let g = self.device_gpu("decompress_device_batch_into")?;
        // SAFETY: this function's contract.
        let plans = unsafe { self.plans(g, streams, false)? };
        for (i, (p, o)) in plans.iter().zip(outputs).enumerate() {
            if let Some(t) = p.total.filter(|&t| t > o.len as u64) {
                let needed = usize::try_from(t).unwrap_or(usize::MAX);
                return Err(gpu::in_buffer(i, Error::OutputTooSmall { needed, available: o.len }));
            }
        }
        // SAFETY: this function's contract.
        unsafe { gpu::decompress_planned(g, &plans, outputs) }
    }

    /// The GPU of a device-batch call: a GPU codec without checksums.
    fn device_gpu(&self, what: &str) -> Result<&Gpu> {
        let Some(g) = self.gpu() else {
            return Err(Error::Unsupported(format!("{what} needs a GPU codec")));
        };
        if self.checksums {
            return Err(Error::Unsupported(format!("{what}: checksums are handled on the host paths only")));
        }
        Ok(g)
    }

    /// The GPU and the cut buffers of a device-batch compression, each input checked.
    fn batch_sources(&self, inputs: &[DeviceRange], kind: BitstreamKind) -> Result<(&Gpu, Vec<gpu::Source>)> {
        let g = self.device_gpu("compress_device_batch")?;
        if !self.algorithm.has_gpu_compression() {
            return Err(Error::Unsupported(format!("no GPU compressor for {}", self.algorithm.name())));
        }
        let sources = inputs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                self.check_input_length(r.len)
                    .and_then(|()| match kind {
                        BitstreamKind::Native => Ok(()),
                        _ => self.check_single_chunk(r.len),
                    })
                    .map(|()| self.source(*r, kind))
                    .map_err(|e| gpu::in_buffer(i, e))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((g, sources))
    }

    /// Reads the streams' headers back and plans their decompression. With `raw_sizes`, RAW
    /// streams' sizes are queried on the device; otherwise they stay unknown (bounded by the
    /// output).
    ///
    /// # Safety
    /// Every stream must be readable device memory.
    unsafe fn plans(&self, g: &Gpu, streams: &[DeviceRange], raw_sizes: bool) -> Result<Vec<gpu::Plan>> {
        // SAFETY: this function's contract.
        let headers = unsafe { gpu::read_headers(g, streams)? };
        let mut plans = Vec::with_capacity(streams.len());
        let mut algorithms = SpecHeaders::default();
        for (i, s) in streams.iter().enumerate() {
            plans.push(self.plan(headers.get(i), *s, &mut algorithms).map_err(|e| gpu::in_buffer(i, e))?);
        }
        // RAW streams, whose sizes only their chunks tell.
        let raw: Vec<usize> = (0..plans.len()).filter(|&i| plans[i].total.is_none()).collect();
        if raw_sizes && !raw.is_empty() {
            let ranges: Vec<DeviceRange> = raw.iter().map(|&i| streams[i]).collect();
            // SAFETY: this function's contract.
            let sizes = unsafe { gpu::raw_sizes(g, &self.algorithm, &ranges)? };
            for (&i, &size) in raw.iter().zip(&sizes) {
                if size == 0 {
                    return Err(gpu::in_buffer(i, Error::Chunk { chunk: 0, status: Status::CannotDecompress }));
                }
                plans[i].total = Some(size);
                plans[i].chunk_size = size as usize;
            }
        }
        Ok(plans)
    }

    /// The plan of one stream in device memory at `s`, from its first bytes `header` (see
    /// [`gpu::read_headers`]): NVCOMP_NATIVE streams carry their algorithm (parsed once for a
    /// run of streams that share it) and their tables, which the device reads; a RAW stream's
    /// size is left unknown.
    pub(crate) fn plan(&self, header: &[u8], s: DeviceRange, algorithms: &mut SpecHeaders) -> Result<gpu::Plan> {
        Ok(match self.detect(header)? {
            BitstreamKind::Native => {
                let l = CheckedHeader::read(header, s.len)?;
                let data = s.address + l.comp_data_offset as u64;
                let entry =
                    |at: usize| header.get(at..at + 8).map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default()));
                let chunks = match l.num_chunks {
                    0 => gpu::Chunks::None,
                    // One chunk whose entry came with the header: checked here, and no table for
                    // the device to read (a small batch of such streams needs no expansion launch).
                    1 if header.len() >= l.tables_offset + 16 => {
                        let (offset, size) = (entry(l.tables_offset), entry(l.tables_offset + 8));
                        let (offset, size) = (offset.unwrap_or(0), size.unwrap_or(0));
                        l.check_entry(0, offset, size)?;
                        gpu::Chunks::One { address: data + offset, len: size }
                    }
                    count => gpu::Chunks::Tables {
                        tables: s.address + l.tables_offset as u64,
                        count,
                        data,
                        data_len: l.comp_data_size as u64,
                        align: l.format.chunk_alignment() as u64,
                    },
                };
                gpu::Plan {
                    algorithm: algorithms.parse(&l, header)?,
                    chunk_size: l.header.uncomp_chunk_size as usize,
                    chunks,
                    total: Some(l.header.decomp_data_size),
                }
            }
            BitstreamKind::WithUncompressedSize => {
                let (size, _) = container::split_with_uncompressed_size(header)?;
                let start = container::USIZE_PREFIX_LEN;
                gpu::Plan {
                    algorithm: self.algorithm,
                    chunk_size: (size as usize).max(1),
                    chunks: match size {
                        0 => gpu::Chunks::None,
                        _ => gpu::Chunks::One { address: s.address + start as u64, len: (s.len - start) as u64 },
                    },
                    total: Some(size),
                }
            }
            BitstreamKind::Raw if s.len == 0 => return Err(Error::stream("an empty RAW stream holds no chunk")),
            BitstreamKind::Raw => gpu::Plan {
                algorithm: self.algorithm,
                chunk_size: 1,
                chunks: gpu::Chunks::One { address: s.address, len: s.len as u64 },
                total: None,
            },
        })
    }

    /// The uncompressed size of a stream, from its header (NVCOMP_NATIVE and
    /// WITH_UNCOMPRESSED_SIZE) or, for RAW, by parsing the chunk with this codec's algorithm.
    /// A size above the format bound or the codec's cap is refused as
    /// [`decompress`](Self::decompress) refuses it.
    pub fn decompressed_size(&self, stream: &[u8]) -> Result<u64> {
        let (algorithm, total) = match self.detect(stream)? {
            BitstreamKind::Native => {
                let s = NativeStream::parse(stream)?;
                (s.algorithm()?, s.uncompressed_size())
            }
            BitstreamKind::WithUncompressedSize => (self.algorithm, container::split_with_uncompressed_size(stream)?.0),
            BitstreamKind::Raw => (self.algorithm, cpu::raw_size(&self.algorithm, stream)?),
        };
        self.check_claim(&algorithm, total, stream.len())?;
        Ok(total)
    }

    /// Decompresses a stream, detecting its container: NVCOMP_NATIVE streams carry their
    /// algorithm; RAW and WITH_UNCOMPRESSED_SIZE streams are read with this codec's algorithm.
    /// With checksums on, stored nvCOMP checksums are verified (`BadChecksum` on a mismatch).
    /// A GPU codec decodes on the GPU (every algorithm has GPU decompression, see
    /// [`Algorithm::has_gpu_decompression`]), a CPU codec on the CPU codecs.
    pub fn decompress(&self, stream: &[u8]) -> Result<Vec<u8>> {
        // The parsed NVCOMP_NATIVE stream, kept for the checksum verification below.
        let mut native = None;
        let (algorithm, chunk_size, ranges, total) = match self.detect(stream)? {
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
                let (chunk_size, ranges) = raw_chunks(&self.algorithm, stream, size);
                (self.algorithm, chunk_size, ranges, size)
            }
        };
        self.check_claim(&algorithm, total, stream.len())?;
        let mut out = output_buffer(total)?;
        if total == 0 {
            return Ok(out);
        }
        match self.gpu().filter(|_| algorithm.has_gpu_decompression()) {
            None => {
                let chunks: Vec<&[u8]> = ranges.iter().map(|r| &stream[r.clone()]).collect();
                cpu::decompress_into(&algorithm, &chunks, chunk_size, &mut out)?;
            }
            Some(g) => {
                // The stream, then its chunk tables (offsets from its start, then sizes), as
                // the device reads NVCOMP_NATIVE tables.
                let n = ranges.len();
                let mut tables: Vec<u64> = ranges.iter().map(|r| r.start as u64).collect();
                tables.extend(ranges.iter().map(|r| r.len() as u64));
                let tables_at = stream.len().next_multiple_of(8);
                // SAFETY: both parts are written at once; the padding between them is never read.
                let mut compressed = unsafe { g.alloc::<u8>(tables_at + 16 * n)? };
                g.stream().memcpy_htod(stream, &mut compressed.slice_mut(..stream.len()))?;
                g.stream().memcpy_htod(bytemuck::cast_slice(&tables), &mut compressed.slice_mut(tables_at..))?;
                let base = DeviceRange::of(&compressed).address;
                // SAFETY: a successful decompression writes every byte (each chunk fills its part).
                let on_device = unsafe { g.alloc::<u8>(out.len())? };
                let plan = gpu::Plan {
                    algorithm,
                    chunk_size,
                    chunks: gpu::Chunks::Tables {
                        tables: base + tables_at as u64,
                        count: n,
                        data: base,
                        data_len: stream.len() as u64,
                        align: 1,
                    },
                    total: Some(total),
                };
                // SAFETY: the chunks and tables are in `compressed`, the output is ours; both
                // live until the call has waited for the stream.
                unsafe { gpu::decompress_planned(g, &[plan], &[DeviceRange::of(&on_device)]) }
                    .map_err(unwrap_single)?;
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

    /// Refuses a claimed uncompressed size above the format bound for a stream of `stream_len`
    /// bytes ([`Error::InvalidStream`]) or above the codec's cap ([`Error::InvalidArgument`]).
    /// The container of `stream` (its first bytes), refused unless NVCOMP_NATIVE when the codec
    /// reads native streams only.
    fn detect(&self, stream: &[u8]) -> Result<BitstreamKind> {
        match container::detect(stream) {
            BitstreamKind::Native => Ok(BitstreamKind::Native),
            _ if self.native_only => Err(Error::InvalidArgument {
                status: Status::InvalidValue,
                reason: "a RAW or WITH_UNCOMPRESSED_SIZE stream needs the codec's algorithm; only NVCOMP_NATIVE \
                         streams name theirs"
                    .into(),
            }),
            kind => Ok(kind),
        }
    }

    fn check_claim(&self, algorithm: &Algorithm, total: u64, stream_len: usize) -> Result<()> {
        let bound = (stream_len as u64).saturating_mul(max_expansion(algorithm));
        if total > bound {
            return Err(Error::stream(format!(
                "the stream declares {total} uncompressed bytes, more than {stream_len} bytes of {} can hold \
                 (at most {} x its length, {bound} bytes)",
                algorithm.name(),
                max_expansion(algorithm)
            )));
        }
        if total > self.max_decompressed_size {
            return Err(Error::InvalidArgument {
                status: Status::OutputBufferTooSmall,
                reason: format!(
                    "the stream declares {total} uncompressed bytes, above the limit of {} bytes \
                     (Codec::with_max_decompressed_size)",
                    self.max_decompressed_size
                ),
            });
        }
        Ok(())
    }

    fn check_input_length(&self, len: usize) -> Result<()> {
        let width = self.algorithm.element_width()?;
        if !len.is_multiple_of(width) {
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

/// The error of a batch of one, without the [`Error::Buffer`] wrapper.
fn unwrap_single(e: Error) -> Error {
    match e {
        Error::Buffer { index: 0, source } => *source,
        e => e,
    }
}

/// One output per input.
fn check_counts(inputs: usize, outputs: usize) -> Result<()> {
    if inputs != outputs {
        return Err(Error::invalid(format!("{inputs} buffers but {outputs} outputs")));
    }
    Ok(())
}

/// The most uncompressed bytes per compressed byte any valid stream of `algorithm` holds (a
/// stream's header and tables only lower its ratio), the bound a declared size is checked against.
///
/// - LZ4: a sequence of `3 + k` bytes (token, offset, `k` length bytes of at most 255) yields
///   at most `4 + 15 + 255 k` match bytes, under 255 per byte; literals are 1 per byte: 255.
/// - ANS: a chunk declares at most 2^25 bytes (`AnsOptions::MAX_DECOMPRESSED_CHUNK_SIZE`) and
///   holds at least its 16-byte header and, per sub-chunk, a 4-byte size word and 128 bytes of
///   states: over 144 bytes, so under 2^18 per byte (all-zero input reaches 7,598 with 16 MiB
///   chunks; the bound of 1024 used before refused such valid streams).
/// - Bitcomp and Cascaded keep 1024, the bound both decode paths enforced before per-algorithm
///   bounds: the densest chunks their encoders write (all-zero input, 8 KiB Bitcomp blocks of 12
///   bytes) stay under 700 and 256; tests/hostile_sizes.rs checks all-zero input against every
///   bound.
/// - Zstd: 2^15 ([`cpu::zstd::MAX_EXPANSION`](crate::cpu::zstd::MAX_EXPANSION)): a block decodes
///   to at most 128 KiB and takes at least 4 bytes.
pub fn max_expansion(algorithm: &Algorithm) -> u64 {
    match algorithm {
        Algorithm::Lz4(_) => 255,
        Algorithm::Ans(_) => 1 << 18,
        Algorithm::Bitcomp(_) | Algorithm::Cascaded(_) => 1024,
        Algorithm::Zstd(_) => crate::cpu::zstd::MAX_EXPANSION,
    }
}

/// A batch decompression queued on a codec's stream
/// ([`Codec::decompress_device_batch_queued`]).
#[must_use = "the outputs are decoded only once `wait` returned Ok"]
pub struct QueuedDecompression<'c>(gpu::QueuedDecompression<'c>);

impl QueuedDecompression<'_> {
    /// Waits for the decompression and checks every chunk, as
    /// [`Codec::decompress_device_batch`] does; returns the decoded sizes.
    pub fn wait(self) -> Result<Vec<usize>> {
        self.0.wait()
    }
}

/// The algorithms of a batch's NVCOMP_NATIVE streams, each spec header parsed once for a run of
/// streams that share it (a batch written by one codec).
#[derive(Default)]
pub(crate) struct SpecHeaders {
    last: Option<(Format, Vec<u8>, Algorithm)>,
}

impl SpecHeaders {
    /// The algorithm of the stream whose header `l` read from `header`.
    fn parse(&mut self, l: &CheckedHeader, header: &[u8]) -> Result<Algorithm> {
        let spec = l.spec_header(header);
        match &self.last {
            Some((format, known, algorithm)) if *format == l.format && known[..] == *spec => Ok(*algorithm),
            _ => {
                let algorithm = l.algorithm(header)?;
                self.last = Some((l.format, spec.to_vec(), algorithm));
                Ok(algorithm)
            }
        }
    }
}

/// The chunks of a RAW stream of `size` uncompressed bytes, as (uncompressed bytes per chunk,
/// byte ranges): the whole stream, or for Zstd its frames where they are zstd frames of one
/// content size (the last may be smaller), as `gpucomp compress --kind zst` writes a plain zstd
/// file: the GPU decoder gives a chunk one lane, so a file of many frames decodes frame-parallel.
/// Each frame must then decode to its content size, which a one-chunk decode checks as well.
fn raw_chunks(algorithm: &Algorithm, stream: &[u8], size: u64) -> (usize, Vec<std::ops::Range<usize>>) {
    let whole = ((size as usize).max(1), std::iter::once(0..stream.len()).collect());
    let Algorithm::Zstd(_) = algorithm else { return whole };
    let Ok(frames) = crate::cpu::zstd::frames(stream) else { return whole };
    let mut parts = Vec::with_capacity(frames.len());
    for f in &frames {
        match f {
            crate::cpu::zstd::Frame::Zstd { offset, len, header, .. } => match header.content_size {
                Some(n) => parts.push((*offset..offset + len, n)),
                None => return whole,
            },
            _ => return whole,
        }
    }
    let Some(&(_, first)) = parts.first() else { return whole };
    let uniform =
        parts.iter().rev().skip(1).all(|&(_, n)| n == first) && parts.last().is_some_and(|&(_, n)| n <= first);
    if parts.len() < 2 || first == 0 || !uniform {
        return whole;
    }
    (first as usize, parts.into_iter().map(|(r, _)| r).collect())
}

/// The zeroed buffer of `total` bytes a checked stream decodes into; an allocation that fails is
/// an error: a hostile header never aborts the process. Zeroed by the allocator (fresh pages for
/// large sizes), so the bytes a failing decode never writes are never touched either.
fn output_buffer(total: u64) -> Result<Vec<u8>> {
    let cannot = || Error::stream(format!("cannot allocate {total} bytes for the output"));
    let n = usize::try_from(total).map_err(|_| cannot())?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(n).map_err(|_| cannot())?;
    // SAFETY: `layout` has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return Err(cannot());
    }
    // SAFETY: `p` comes from the global allocator with the layout of `n` bytes (align 1, as a
    // `Vec<u8>` of capacity `n` has), and all `n` bytes are initialized (zero).
    Ok(unsafe { Vec::from_raw_parts(p, n, n) })
}

/// Rewrites a checksum-less NVCOMP_NATIVE stream with nvCOMP's checksums (computed on the host).
fn with_checksums(stream: &[u8], input: &[u8]) -> Result<Vec<u8>> {
    let s = NativeStream::parse(stream)?;
    let payloads: Vec<&[u8]> = (0..s.num_chunks()).filter_map(|i| s.chunk(i)).collect();
    container::write_native_from_input(&s.algorithm()?, s.uncomp_chunk_size(), input, &payloads, true)
}
