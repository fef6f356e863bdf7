//! The high-level API's GPU path: batches of whole buffers through the batched kernels.
//!
//! Every chunk of every buffer goes into one kernel launch (one per algorithm, and per encoder
//! parameter where nvCOMP's bytes depend on the batch's largest chunk), with all pointer and size
//! arrays uploaded by one copy and all statuses and sizes read back by one. Single buffers are
//! batches of one.
use std::collections::BTreeMap;

use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig};
use gpucomp_kernels::assemble::{self as assemble_geometry, StreamDesc};
use gpucomp_kernels::chunk_tables::{self, TableTile};
use gpucomp_kernels::copy as copy_geometry;

use super::{DeviceBuffers, DeviceRange};
use crate::algorithm::Algorithm;
use crate::batched::{self, CompressBatchAt, DecompressBatchAt};
use crate::container::{self, BitstreamKind, NATIVE_HEADER_PREFIX};
use crate::error::{Error, Result, Status};
use crate::gpu::kernels::{AssembleArgs, CopyArgs, ExpandArgs, ExpandTablesArgs};
use crate::gpu::Gpu;

/// Batches of at most this many chunks get their chunk arrays from the host, in the upload that
/// carries the stream descriptions, rather than from a launch of `expand_chunks`: for a few chunks
/// the words cost less than a launch.
const HOST_EXPANDED_CHUNKS: usize = 64;

/// `e` as the error of buffer `index` of a batch.
pub(crate) fn in_buffer(index: usize, e: Error) -> Error {
    Error::Buffer { index, source: Box::new(e) }
}

/// One buffer to compress: where it is and the size of its chunks (its length for RAW streams).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Source {
    pub(crate) range: DeviceRange,
    pub(crate) chunk_size: usize,
}

impl Source {
    fn num_chunks(&self) -> usize {
        self.range.len.div_ceil(self.chunk_size)
    }

    /// The buffer's largest chunk: nvCOMP's high-level API passes it as the batch's
    /// `max_uncompressed_chunk_bytes`.
    fn largest_chunk(&self) -> usize {
        self.chunk_size.min(self.range.len).max(1)
    }
}

/// A packed `u64` upload: host arrays laid end to end, then room for results, in one device
/// allocation written by one copy.
struct Packed {
    host: Vec<u64>,
}

impl Packed {
    fn new() -> Packed {
        Packed { host: Vec::new() }
    }

    /// Room for `words` words without growing.
    fn with_capacity(words: usize) -> Packed {
        Packed { host: Vec::with_capacity(words) }
    }

    /// Appends `values`; returns their offset in words.
    fn push(&mut self, values: impl IntoIterator<Item = u64>) -> usize {
        let at = self.host.len();
        self.host.extend(values);
        at
    }

    /// Uploads the arrays into an allocation with `extra` more words (left unwritten, for
    /// results); returns it and its base address.
    fn upload(&self, gpu: &Gpu, extra: usize) -> Result<(CudaSlice<u64>, u64)> {
        let stream = gpu.stream();
        // SAFETY: the first `host.len()` words are written below, the rest only by kernels before
        // they are read back.
        let buf = unsafe { gpu.alloc::<u64>(self.host.len() + extra)? };
        let base = buf.device_ptr(stream).0;
        // SAFETY: the first `host.len()` words of `buf`, ours until the stream has run the copy.
        unsafe { gpu.upload(base, &self.host)? };
        Ok((buf, base))
    }
}

/// Reads `words` `u64` at `offset` of `buf` back to the host (waits for the stream).
fn read_back(gpu: &Gpu, buf: &CudaSlice<u64>, offset: usize, words: usize) -> Result<Vec<u64>> {
    let view = buf.slice(offset..offset + words);
    let address = view.device_ptr(gpu.stream()).0;
    // SAFETY: `words` words of `buf`, a live buffer of this device.
    unsafe {
        gpu.read_back(address, 8 * words, |bytes| {
            bytes.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default())).collect()
        })
    }
}

/// Temp space of `bytes`, none when 0 (most option sets need none). Not zeroed: the batched
/// codecs, like nvCOMP's, take temp of any contents and zero what they need (the GPU tests give
/// them a non-zero pattern); a memset is a launch of its own and, for a Zstd batch's literal
/// buffers, up to 128 KiB a chunk.
fn temp_buffer(gpu: &Gpu, bytes: usize) -> Result<Option<CudaSlice<u8>>> {
    // SAFETY: the codecs write temp before they read it (above).
    Ok(if bytes == 0 { None } else { Some(unsafe { gpu.alloc::<u8>(bytes)? }) })
}

/// Where a buffer's stream header went in the batch's header bytes: `len` bytes at `at` (up to
/// the chunk tables for NVCOMP_NATIVE, which the device writes, or the whole header), where the
/// stream's first chunk goes, and whether it is NVCOMP_NATIVE (without checksums; RAW and
/// WITH_UNCOMPRESSED_SIZE streams hold one chunk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Placed {
    at: usize,
    len: usize,
    data_offset: usize,
    native: bool,
}

impl Placed {
    /// Appends the host's part of `source`'s stream header to `blob`.
    fn header(algorithm: &Algorithm, kind: BitstreamKind, source: &Source, blob: &mut Vec<u8>) -> Result<Placed> {
        let (at, len) = (blob.len(), source.range.len as u64);
        let (data_offset, native) = match kind {
            BitstreamKind::Native => {
                let (bytes, data_offset) = container::native_header_prefix(algorithm, source.chunk_size as u64, len)?;
                blob.extend_from_slice(&bytes);
                (data_offset, true)
            }
            BitstreamKind::Raw => (0, false),
            BitstreamKind::WithUncompressedSize => {
                blob.extend_from_slice(&container::write_with_uncompressed_size(len, &[]));
                (blob.len() - at, false)
            }
        };
        Ok(Placed { at, len: blob.len() - at, data_offset, native })
    }
}

/// The buffers of one launch: nvCOMP's LZ4 sizes its hash table, and ANS its sub-chunks, by the
/// batch's largest chunk, so buffers whose largest chunks give other parameters get a launch of
/// their own (the same bytes as compressing each alone); Bitcomp, Cascaded and Zstd ignore it.
struct Launch {
    /// The buffers, in input order.
    members: Vec<usize>,
    /// Their largest chunk.
    largest: usize,
    /// Bytes from one staging slot to the next: the largest chunk's bound, 16-byte aligned.
    stride: usize,
    /// Its first chunk in the batch's chunk arrays.
    first: usize,
    /// Its chunks.
    count: usize,
    /// Its slots' offset in the staging buffer.
    staging_offset: usize,
}

/// Which [`Launch`] a buffer with chunks of at most `largest_chunk` bytes joins.
fn launch_key(algorithm: &Algorithm, largest_chunk: usize) -> usize {
    match algorithm {
        Algorithm::Lz4(o) => o.encoder.table_size(largest_chunk),
        Algorithm::Ans(_) => largest_chunk,
        // Zstd never gets here (no GPU compressor: `has_gpu_compression` sends it to the CPU).
        Algorithm::Bitcomp(_) | Algorithm::Cascaded(_) | Algorithm::Zstd(_) => 0,
    }
}

/// The launches of `sources` by [`launch_key`], chunks numbered launch by launch (each buffer's
/// chunks consecutive); returns them, each buffer's first chunk and the chunk and staging totals.
fn plan_launches(algorithm: &Algorithm, sources: &[Source]) -> Result<(Vec<Launch>, Vec<usize>, usize, usize)> {
    let codec = batched::for_algorithm(algorithm)?;
    let mut keys: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, s) in sources.iter().enumerate() {
        keys.entry(launch_key(algorithm, s.largest_chunk())).or_default().push(i);
    }
    let (mut launches, mut first_chunk) = (Vec::with_capacity(keys.len()), vec![0; sources.len()]);
    let (mut chunks, mut staging) = (0usize, 0usize);
    for members in keys.into_values() {
        let largest = members.iter().map(|&i| sources[i].largest_chunk()).max().unwrap_or(1);
        let stride = codec.max_compressed_chunk_size(largest)?.next_multiple_of(16);
        let first = chunks;
        for &i in &members {
            first_chunk[i] = chunks;
            chunks += sources[i].num_chunks();
        }
        let count = chunks - first;
        launches.push(Launch { members, largest, stride, first, count, staging_offset: staging });
        staging = count
            .checked_mul(stride)
            .and_then(|b| b.checked_add(staging))
            .ok_or_else(|| Error::invalid("the batch's staging size overflows"))?;
    }
    Ok((launches, first_chunk, chunks, staging))
}

/// Word offsets of a compression's arrays in its work buffer: the stream descriptions and the
/// headers the host uploads, then the per-chunk arrays and results the kernels write.
struct WorkLayout {
    headers: usize,
    upload: usize,
    in_ptrs: usize,
    in_bytes: usize,
    slots: usize,
    sizes: usize,
    copy_dst: usize,
    copy_len: usize,
    /// The stream lengths, then the chunk statuses (`i32`): one read-back.
    totals: usize,
    statuses: usize,
    words: usize,
}

const DESC_WORDS: usize = std::mem::size_of::<StreamDesc>() / 8;

impl WorkLayout {
    fn new(streams: usize, chunks: usize, header_bytes: usize) -> WorkLayout {
        let headers = DESC_WORDS * streams;
        let upload = headers + header_bytes.div_ceil(8);
        let at = |k: usize| upload + k * chunks;
        let totals = at(6);
        let statuses = totals + streams;
        WorkLayout {
            headers,
            upload,
            in_ptrs: at(0),
            in_bytes: at(1),
            slots: at(2),
            sizes: at(3),
            copy_dst: at(4),
            copy_len: at(5),
            totals,
            statuses,
            words: statuses + chunks.div_ceil(2),
        }
    }
}

/// Compresses every buffer of `sources` into its stream of `kind`, all on the device: the chunk
/// arrays expanded from one description per buffer (by the host for a few chunks), one
/// compression launch per [`Launch`], the streams laid out ([`gpucomp_kernels::assemble`]) and
/// their chunks copied out of the staging slots (a one-chunk stream whose output has room for its
/// worst case is compressed in place). `outputs` receives each stream's worst-case length and returns where the streams go;
/// returns each stream's length. An output shorter than its stream is `OutputTooSmall` for that
/// buffer, and nothing of that stream is written. Waits for the lengths; the copies are queued,
/// not waited for.
///
/// # Safety
/// Every source must be readable until the stream has run the work; every output range
/// `outputs` returns writable and disjoint from the others and from the sources until then.
unsafe fn compress_streams(
    gpu: &Gpu,
    algorithm: &Algorithm,
    kind: BitstreamKind,
    sources: &[Source],
    outputs: impl FnOnce(&[usize]) -> Result<Vec<DeviceRange>>,
) -> Result<Vec<usize>> {
    let stream = gpu.stream();
    let codec = batched::for_algorithm(algorithm)?;
    let (launches, first_chunk, chunks, staging_bytes) = plan_launches(algorithm, sources)?;
    // Per buffer: its launch's slot stride and its first slot's offset in the staging buffer.
    let (mut stride, mut slot) = (vec![0; sources.len()], vec![0; sources.len()]);
    for l in &launches {
        for &i in &l.members {
            stride[i] = l.stride;
            slot[i] = l.staging_offset + (first_chunk[i] - l.first) * l.stride;
        }
    }
    // Headers, written once for each run of buffers that share one (a batch of equal buffers).
    let mut blob = Vec::new();
    let mut headers: Vec<Placed> = Vec::with_capacity(sources.len());
    let mut worst = Vec::with_capacity(sources.len());
    let mut last: Option<(usize, usize, Placed)> = None;
    for (i, s) in sources.iter().enumerate() {
        let h = match last {
            Some((len, size, h)) if (len, size) == (s.range.len, s.chunk_size) => h,
            _ => Placed::header(algorithm, kind, s, &mut blob).map_err(|e| in_buffer(i, e))?,
        };
        last = Some((s.range.len, s.chunk_size, h));
        headers.push(h);
        worst.push(
            s.num_chunks()
                .checked_mul(stride[i])
                .and_then(|d| d.checked_add(h.data_offset))
                .ok_or_else(|| in_buffer(i, Error::invalid("the stream's worst-case size overflows")))?,
        );
    }
    let outputs = outputs(&worst)?;
    // A one-chunk stream whose output holds its worst case is compressed in place, at its data
    // offset: no staging slot, nothing to copy (the copy kernel skips it). A 64 KiB array is one.
    let out_alignment = codec.compress_alignments().output as u64;
    let in_place: Vec<bool> = (0..sources.len())
        .map(|i| {
            let at = outputs[i].address + headers[i].data_offset as u64;
            sources[i].num_chunks() == 1 && outputs[i].len >= worst[i] && at.is_multiple_of(out_alignment)
        })
        .collect();
    let layout = WorkLayout::new(sources.len(), chunks, blob.len());
    // SAFETY: the upload below writes the first `layout.upload` words; the kernels write every
    // other word before it is read (each array covers every chunk or stream).
    let work = unsafe { gpu.alloc::<u64>(layout.words)? };
    // SAFETY: written by the compression before the copies read it.
    let staging = unsafe { gpu.alloc::<u8>(staging_bytes)? };
    let (base, staging_base) = (work.device_ptr(stream).0, staging.device_ptr(stream).0);
    let word = |offset: usize| base + 8 * offset as u64;
    let headers_base = word(layout.headers);
    let expand_on_host = chunks <= HOST_EXPANDED_CHUNKS;
    let mut host: Vec<u64> = Vec::with_capacity(if expand_on_host { layout.sizes } else { layout.upload });
    let mut descs = Vec::with_capacity(sources.len());
    for (i, s) in sources.iter().enumerate() {
        let h = headers[i];
        let slot = if in_place[i] { outputs[i].address + h.data_offset as u64 } else { staging_base + slot[i] as u64 };
        let desc = StreamDesc {
            input: s.range.address,
            input_len: s.range.len as u64,
            chunk_size: s.chunk_size as u64,
            first_chunk: first_chunk[i] as u64,
            num_chunks: s.num_chunks() as u64,
            slot,
            slot_stride: stride[i] as u64,
            out: outputs[i].address,
            capacity: outputs[i].len as u64,
            header: headers_base + h.at as u64,
            header_len: h.len as u64,
            data_offset: h.data_offset as u64,
            tables: h.native as u64,
        };
        host.extend_from_slice(&desc.words());
        descs.push(desc);
    }
    blob.resize(blob.len().next_multiple_of(8), 0);
    host.extend(blob.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default())));
    if expand_on_host {
        // `expand_chunks`'s three arrays, as it writes them, right after the upload's words.
        let at = host.len();
        host.resize(at + 3 * chunks, 0);
        let (in_ptrs, rest) = host[at..].split_at_mut(chunks);
        let (in_bytes, slots) = rest.split_at_mut(chunks);
        for d in &descs {
            for c in 0..d.num_chunks {
                let k = (d.first_chunk + c) as usize;
                (in_ptrs[k], in_bytes[k], slots[k]) = d.chunk(c);
            }
        }
    }
    // SAFETY: the first `host.len()` words of `work` (`layout.upload` or `layout.sizes`).
    unsafe { gpu.upload(base, &host)? };
    let count = sources.len() as u64;
    let geometry = |n: u64| LaunchConfig {
        grid_dim: (assemble_geometry::grid_dim(n), 1, 1),
        block_dim: (assemble_geometry::BLOCK_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let kernels = gpu.kernels();
    if chunks > 0 && !expand_on_host {
        let args = ExpandArgs {
            streams: base,
            count,
            in_ptrs: word(layout.in_ptrs),
            in_bytes: word(layout.in_bytes),
            out_ptrs: word(layout.slots),
        };
        // SAFETY: the descriptions' chunk ranges lie inside the three arrays (one entry per chunk).
        unsafe { kernels.expand_chunks.launch(stream, geometry(count), &args)? };
    }
    let temp_size = launches
        .iter()
        .map(|l| codec.compress_temp_size(l.count, l.largest))
        .try_fold(0, |m, t| t.map(|t| m.max(t)))?;
    let mut temp = temp_buffer(gpu, temp_size)?;
    for l in &launches {
        // SAFETY: the arrays hold `l.count` entries from `l.first`: chunks of the sources
        // (readable per this function's contract, each at most `l.largest` bytes) and disjoint
        // staging slots of the maximum compressed size; everything lives until the work ran.
        unsafe {
            codec.compress_async_at(
                gpu,
                CompressBatchAt {
                    in_ptrs: word(layout.in_ptrs + l.first),
                    in_bytes: word(layout.in_bytes + l.first),
                    num_chunks: l.count,
                    max_uncompressed_chunk_bytes: l.largest,
                    temp: temp.as_mut(),
                    out_ptrs: word(layout.slots + l.first),
                    out_bytes: word(layout.sizes + l.first),
                    statuses: word(layout.statuses) + 4 * l.first as u64,
                },
            )?
        };
    }
    let args = AssembleArgs {
        streams: base,
        count,
        sizes: word(layout.sizes),
        statuses: word(layout.statuses),
        align: algorithm.format().chunk_alignment() as u64,
        copy_dst: word(layout.copy_dst),
        copy_len: word(layout.copy_len),
        totals: word(layout.totals),
    };
    // SAFETY: the descriptions address the outputs (writable, disjoint: this function's
    // contract) and the uploaded headers; the arrays hold an entry per chunk or stream.
    unsafe { kernels.assemble_streams.launch(stream, geometry(count), &args)? };
    let copy = || {
        if in_place.iter().zip(sources).all(|(&here, s)| here || s.num_chunks() == 0) {
            return Ok(());
        }
        // SAFETY: from the staging slots (alive until the copy ran: freed in stream order) into
        // the outputs, as the assembly described; a stream without room copies nothing.
        unsafe { batched_copy(gpu, word(layout.slots), word(layout.copy_dst), word(layout.copy_len), chunks) }
    };
    let results_len = 8 * sources.len() + 4 * chunks;
    // SAFETY: the stream lengths and statuses, written by the kernels queued above.
    let (totals, statuses) = unsafe {
        gpu.read_back_then(word(layout.totals), results_len, copy, |bytes| {
            let (totals, statuses) = bytes.split_at(8 * sources.len());
            let totals: Vec<u64> =
                totals.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default())).collect();
            let statuses: Vec<i32> =
                statuses.chunks_exact(4).map(|w| i32::from_le_bytes(w.try_into().unwrap_or_default())).collect();
            (totals, statuses)
        })?
    };
    // The first failed buffer in input order.
    for (i, s) in sources.iter().enumerate() {
        let mine = &statuses[first_chunk[i]..first_chunk[i] + s.num_chunks()];
        if let Some(c) = mine.iter().position(|&st| st != 0) {
            return Err(in_buffer(i, Error::Chunk { chunk: c, status: Status::from_raw(mine[c]) }));
        }
    }
    let mut lens = Vec::with_capacity(sources.len());
    for (i, (&total, out)) in totals.iter().zip(&outputs).enumerate() {
        let total = usize::try_from(total).map_err(|_| in_buffer(i, Error::invalid("stream length overflows")))?;
        if total > out.len {
            return Err(in_buffer(i, Error::OutputTooSmall { needed: total, available: out.len }));
        }
        lens.push(total);
    }
    Ok(lens)
}

/// Compresses `sources` into streams of `kind` in `outputs` (each checked to be large enough:
/// `OutputTooSmall` for that buffer). Returns the streams' lengths; the final copy is queued,
/// not waited for.
///
/// # Safety
/// Every source must be readable, and every output writable and disjoint from the others, until
/// the stream has run the work.
pub(crate) unsafe fn compress_batch_into(
    gpu: &Gpu,
    algorithm: &Algorithm,
    kind: BitstreamKind,
    sources: &[Source],
    outputs: &[DeviceRange],
) -> Result<Vec<usize>> {
    // SAFETY: this function's contract.
    unsafe { compress_streams(gpu, algorithm, kind, sources, |_| Ok(outputs.to_vec())) }
}

/// Compresses `sources` into streams of `kind` in new buffers, one allocation for all, with
/// room for each stream's worst case (the streams' lengths are known only once they are
/// written). The final copy is queued, not waited for.
///
/// # Safety
/// Every source must be readable until the stream has run the work.
pub(crate) unsafe fn compress_batch_new(
    gpu: &Gpu,
    algorithm: &Algorithm,
    kind: BitstreamKind,
    sources: &[Source],
) -> Result<DeviceBuffers> {
    let mut buffers = None;
    // SAFETY: this function's contract; the buffers are ours and disjoint, and the assembly
    // writes every byte of each stream (header, tables, chunks, padding) before it is read.
    let lens = unsafe {
        compress_streams(gpu, algorithm, kind, sources, |worst| {
            let b = DeviceBuffers::alloc(gpu, worst)?;
            let ranges = b.ranges();
            buffers = Some(b);
            Ok(ranges)
        })?
    };
    let mut buffers = buffers.ok_or_else(|| Error::invalid("no output buffers"))?;
    buffers.truncate_each(&lens);
    Ok(buffers)
}

/// Where a stream's compressed chunks are, as the device finds them.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Chunks {
    /// None: an empty stream.
    None,
    /// One chunk of `len` bytes at `address`.
    One { address: u64, len: u64 },
    /// `count` chunks, their offsets (from `data`, each a multiple of `align`) and sizes in the
    /// `u64` tables at device address `tables` (NVCOMP_NATIVE's layout: the offsets, then the
    /// sizes), read and checked against the `data_len` bytes at `data` by the device.
    Tables { tables: u64, count: usize, data: u64, data_len: u64, align: u64 },
}

impl Chunks {
    fn count(&self) -> usize {
        match *self {
            Chunks::None => 0,
            Chunks::One { .. } => 1,
            Chunks::Tables { count, .. } => count,
        }
    }
}

/// One stream to decompress, as its header describes it.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The algorithm its chunks are decoded with.
    pub(crate) algorithm: Algorithm,
    /// Uncompressed bytes per chunk (the last may be shorter).
    pub(crate) chunk_size: usize,
    /// Its compressed chunks.
    pub(crate) chunks: Chunks,
    /// Uncompressed size, `None` for a RAW stream whose size is not known (its output's capacity
    /// bounds it, and the decoded size is the result).
    pub(crate) total: Option<u64>,
}

/// Word offsets of a decompression's arrays in its work buffer: the tiles the host uploads,
/// then the chunk arrays `expand_chunk_tables` writes, then the results, read back in one copy.
#[derive(Clone, Copy)]
struct DecompressLayout {
    in_ptrs: usize,
    in_bytes: usize,
    out_ptrs: usize,
    capacities: usize,
    /// Decoded size of every chunk, then each tile's error word, then the chunk statuses (`i32`).
    actual: usize,
    errors: usize,
    statuses: usize,
    words: usize,
}

impl DecompressLayout {
    fn new(tiles: usize, chunks: usize) -> DecompressLayout {
        let at = |k: usize| TILE_WORDS * tiles + k * chunks;
        let errors = at(5);
        DecompressLayout {
            in_ptrs: at(0),
            in_bytes: at(1),
            out_ptrs: at(2),
            capacities: at(3),
            actual: at(4),
            errors,
            statuses: errors + tiles,
            words: errors + tiles + chunks.div_ceil(2),
        }
    }
}

const TILE_WORDS: usize = std::mem::size_of::<TableTile>() / 8;

/// A decompression queued on the codec's stream by [`queue_decompression`]: its work buffers,
/// and what [`wait`](Self::wait) checks the results against.
pub(crate) struct QueuedDecompression<'g> {
    gpu: &'g Gpu,
    work: CudaSlice<u64>,
    _temp: Option<CudaSlice<u8>>,
    layout: DecompressLayout,
    /// Per stream: its chunk size, chunk count, known total, first chunk in the batch's arrays,
    /// first tile and tile count, and its chunks (for error messages).
    streams: Vec<QueuedStream>,
    chunks: usize,
    tiles: usize,
}

struct QueuedStream {
    chunk_size: usize,
    total: Option<u64>,
    first_chunk: usize,
    first_tile: usize,
    tiles: usize,
    chunks: Chunks,
}

impl QueuedDecompression<'_> {
    /// Waits for the decompression and checks every chunk: a bad table entry, a failed status
    /// or a chunk that decodes to other than its share of a known total is [`Error::Buffer`]
    /// for the first stream with one. Returns the decoded sizes.
    pub(crate) fn wait(self) -> Result<Vec<usize>> {
        let l = &self.layout;
        let (n, tiles) = (self.chunks, self.tiles);
        if n == 0 {
            return Ok(self.streams.iter().map(|s| s.total.unwrap_or(0) as usize).collect());
        }
        let words = read_back(self.gpu, &self.work, l.actual, l.words - l.actual)?;
        let (actual, rest) = words.split_at(n);
        let (errors, statuses) = rest.split_at(tiles);
        let statuses = &bytemuck::cast_slice::<u64, i32>(statuses)[..n];
        check_results(&self.streams, actual, errors, statuses)
    }
}

/// The decoded sizes of a batch's streams from its results (per chunk: decoded size and status;
/// per tile: error word), or the error of the first stream with a bad table entry, a failed
/// chunk or a chunk that decoded to other than its share of a known total.
fn check_results(streams: &[QueuedStream], actual: &[u64], errors: &[u64], statuses: &[i32]) -> Result<Vec<usize>> {
    streams
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let bad_entry = errors[s.first_tile..s.first_tile + s.tiles].iter().find(|&&e| e != 0);
            if let (Some(&word), Chunks::Tables { data_len, align, .. }) = (bad_entry, s.chunks) {
                let (c, reason) = chunk_tables::decode_error(word);
                return Err(in_buffer(i, match reason {
                    chunk_tables::MISALIGNED => Error::stream(format!(
                        "chunk {c}: its offset in the chunk tables is not a multiple of {align}"
                    )),
                    _ => Error::stream(format!(
                        "chunk {c}: its offset and size in the chunk tables lie outside the compressed data region ({data_len} bytes)"
                    )),
                }));
            }
            let k = s.first_chunk;
            let count = s.chunks.count();
            for c in 0..count {
                let status = Status::from_raw(statuses[k + c]);
                if status != Status::Success {
                    return Err(in_buffer(i, Error::Chunk { chunk: c, status }));
                }
                // A chunk that decodes to fewer bytes than its place in the stream is corrupt too.
                let expected = s.total.map(|t| (t - (c * s.chunk_size) as u64).min(s.chunk_size as u64));
                if expected.is_some_and(|e| e != actual[k + c]) {
                    return Err(in_buffer(i, Error::Chunk { chunk: c, status: Status::CannotDecompress }));
                }
            }
            Ok(match s.total {
                Some(t) => t as usize,
                None => actual[k..k + count].iter().sum::<u64>() as usize,
            })
        })
        .collect()
}

/// A batch's decompression cut into tiles: one launch per algorithm present (its chunks
/// consecutive in the batch's arrays), each stream's chunks in tiles of at most
/// [`chunk_tables::TILE_CHUNKS`].
struct Tiling {
    tiles: Vec<TableTile>,
    streams: Vec<QueuedStream>,
    /// Per algorithm: the algorithm, its first chunk, chunks, largest chunk and the stream it is in.
    launches: Vec<(Algorithm, usize, usize, usize, usize)>,
    chunks: usize,
}

impl Tiling {
    fn new(plans: &[Plan], outputs: &[DeviceRange]) -> Tiling {
        let mut groups: Vec<(Algorithm, Vec<usize>)> = Vec::new();
        for (i, p) in plans.iter().enumerate() {
            match groups.iter_mut().find(|(a, _)| *a == p.algorithm) {
                Some((_, members)) => members.push(i),
                None => groups.push((p.algorithm, vec![i])),
            }
        }
        // One tile a stream, mostly.
        let mut tiles: Vec<TableTile> = Vec::with_capacity(plans.len());
        let mut streams: Vec<Option<QueuedStream>> = (0..plans.len()).map(|_| None).collect();
        // Per group: first chunk, chunks, largest chunk and the stream it is in.
        let mut launches = Vec::with_capacity(groups.len());
        let mut chunks = 0usize;
        for (algorithm, members) in &groups {
            let start = chunks;
            let (mut largest, mut owner) = (1, members[0]);
            for &i in members {
                let (p, out) = (&plans[i], outputs[i]);
                // RAW streams of unknown size decode into the output's room, one chunk.
                let (chunk_size, out_len) = match p.total {
                    Some(t) => (p.chunk_size as u64, t),
                    None => {
                        let room = out.len.min(algorithm.max_chunk_size()) as u64;
                        (room, room)
                    }
                };
                let (first_tile, count) = (tiles.len(), p.chunks.count());
                let (data, data_len, table, align) = match p.chunks {
                    Chunks::None => (0, 0, 0, 1),
                    Chunks::One { address, len } => (address, len, 0, 1),
                    Chunks::Tables { tables, data, data_len, align, .. } => (data, data_len, tables, align),
                };
                let mut first = 0;
                while first < count {
                    let n = (count - first).min(chunk_tables::TILE_CHUNKS as usize);
                    let tile = TableTile {
                        data,
                        data_len,
                        tables: table,
                        stream_chunks: count as u64,
                        first: first as u64,
                        count: n as u64,
                        slot: (chunks + first) as u64,
                        align,
                        out: out.address,
                        chunk_size,
                        out_len,
                    };
                    tiles.push(tile);
                    first += n;
                }
                let room = (chunk_size.min(out_len) as usize).max(1);
                if count > 0 && room > largest {
                    (largest, owner) = (room, i);
                }
                streams[i] = Some(QueuedStream {
                    chunk_size: chunk_size as usize,
                    total: p.total,
                    first_chunk: chunks,
                    first_tile,
                    tiles: tiles.len() - first_tile,
                    chunks: p.chunks,
                });
                chunks += count;
            }
            launches.push((*algorithm, start, chunks - start, largest, owner));
        }
        let streams = streams.into_iter().flatten().collect();
        Tiling { tiles, streams, launches, chunks }
    }

    fn tile_count(&self) -> usize {
        self.tiles.len()
    }

    /// The four chunk arrays, written on the host, for a batch of at most
    /// [`HOST_EXPANDED_CHUNKS`] chunks whose streams hold one chunk or none: no table to read,
    /// so no `expand_chunk_tables` launch (each tile is one chunk, as the kernel would expand it).
    fn host_arrays(&self) -> Option<Vec<u64>> {
        let n = self.chunks;
        if n > HOST_EXPANDED_CHUNKS || self.tiles.iter().any(|t| t.tables != 0) {
            return None;
        }
        let mut words = vec![0u64; 4 * n];
        for t in &self.tiles {
            let k = t.slot as usize;
            words[k] = t.data;
            words[n + k] = t.data_len;
            words[2 * n + k] = t.out;
            words[3 * n + k] = t.chunk_size.min(t.out_len);
        }
        Some(words)
    }
}

/// Queues the decompression of every planned stream into `outputs[i]` (capacity
/// `outputs[i].len`, at least the stream's total when known): one upload of the streams' tiles
/// and one launch of `expand_chunk_tables` (the chunk arrays from the streams' own tables; for a
/// small batch of one-chunk streams, the arrays themselves: [`Tiling::host_arrays`]), then one
/// launch per algorithm present. [`QueuedDecompression::wait`] reads the results back. Chunks
/// must decode to exactly their share of a known total.
///
/// # Safety
/// Every chunk and table must be readable and every output writable, disjoint from the others
/// and the inputs, until the stream has run the work.
pub(crate) unsafe fn queue_decompression<'g>(
    gpu: &'g Gpu,
    plans: &[Plan],
    outputs: &[DeviceRange],
) -> Result<QueuedDecompression<'g>> {
    let mut tiling = Tiling::new(plans, outputs);
    let host_arrays = tiling.host_arrays();
    if host_arrays.is_some() {
        // No tiles go to the device: no error words to read.
        tiling.tiles.clear();
        tiling.streams.iter_mut().for_each(|s| (s.first_tile, s.tiles) = (0, 0));
    }
    let tile_count = tiling.tile_count();
    let Tiling { tiles, streams, launches, chunks } = tiling;
    let layout = DecompressLayout::new(tile_count, chunks);
    let queued =
        |work, temp| QueuedDecompression { gpu, work, _temp: temp, layout, streams, chunks, tiles: tile_count };
    // SAFETY: the upload writes the tiles; `expand_chunk_tables` and the decompressions write
    // every other word before it is read back (each array covers every chunk or tile).
    let work = unsafe { gpu.alloc::<u64>(layout.words)? };
    if chunks == 0 {
        return Ok(queued(work, None));
    }
    let stream = gpu.stream();
    let base = work.device_ptr(stream).0;
    let word = |offset: usize| base + 8 * offset as u64;
    if let Some(arrays) = host_arrays {
        // SAFETY: the four chunk arrays, at the start of `work` (no tiles).
        unsafe { gpu.upload(word(layout.in_ptrs), &arrays)? };
    } else {
        let words: Vec<u64> = tiles.iter().flat_map(TableTile::words).collect();
        // SAFETY: the tiles' words at the start of `work`.
        unsafe { gpu.upload(base, &words)? };
        let args = ExpandTablesArgs {
            tiles: base,
            count: tile_count as u64,
            in_ptrs: word(layout.in_ptrs),
            in_bytes: word(layout.in_bytes),
            out_ptrs: word(layout.out_ptrs),
            capacities: word(layout.capacities),
            errors: word(layout.errors),
        };
        let geometry = LaunchConfig {
            grid_dim: (chunk_tables::grid_dim(tile_count as u64), 1, 1),
            block_dim: (chunk_tables::BLOCK_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the tiles' slots lie inside the four arrays (one entry per chunk), the error
        // words one per tile; their tables are readable (this function's contract).
        unsafe { gpu.kernels().expand_chunk_tables.launch(stream, geometry, &args)? };
    }
    let codecs = launches
        .iter()
        .map(|(a, _, _, _, owner)| batched::for_algorithm(a).map_err(|e| in_buffer(*owner, e)))
        .collect::<Result<Vec<_>>>()?;
    let mut temp_size = 0;
    for (codec, &(_, _, count, largest, owner)) in codecs.iter().zip(&launches) {
        temp_size = temp_size.max(codec.decompress_temp_size(count, largest).map_err(|e| in_buffer(owner, e))?);
    }
    let mut temp = temp_buffer(gpu, temp_size)?;
    for (codec, &(_, start, count, largest, _)) in codecs.iter().zip(&launches) {
        if count == 0 {
            continue;
        }
        // SAFETY: the arrays hold `count` entries from `start`, written by `expand_chunk_tables`:
        // chunks inside their streams (readable per this function's contract) or empty, outputs
        // writable for their capacities; everything lives until the read-back.
        unsafe {
            codec.decompress_async_at(
                gpu,
                DecompressBatchAt {
                    in_ptrs: word(layout.in_ptrs + start),
                    in_bytes: word(layout.in_bytes + start),
                    num_chunks: count,
                    max_uncompressed_chunk_bytes: largest,
                    temp: temp.as_mut(),
                    out_ptrs: word(layout.out_ptrs + start),
                    out_capacity: word(layout.capacities + start),
                    out_actual: word(layout.actual + start),
                    statuses: word(layout.statuses) + 4 * start as u64,
                },
            )?
        };
    }
    Ok(queued(work, temp))
}

/// [`queue_decompression`], then [`QueuedDecompression::wait`].
///
/// # Safety
/// As [`queue_decompression`].
pub(crate) unsafe fn decompress_planned(gpu: &Gpu, plans: &[Plan], outputs: &[DeviceRange]) -> Result<Vec<usize>> {
    // SAFETY: this function's contract.
    unsafe { queue_decompression(gpu, plans, outputs)? }.wait()
}

/// Appends the first `len` bytes of each `(address, len)` span to `host`: one direct read for a
/// single span, else one batched copy into staging and one read (either waits for the stream).
///
/// # Safety
/// Every span must be readable device memory.
unsafe fn read_spans(gpu: &Gpu, spans: &[(u64, usize)], host: &mut Vec<u8>) -> Result<()> {
    let stream = gpu.stream();
    let total: usize = spans.iter().map(|s| s.1).sum();
    let at = host.len();
    host.resize(at + total, 0);
    let out = &mut host[at..];
    if total == 0 {
        return Ok(());
    }
    if let [(address, _)] = spans {
        // SAFETY: the span is readable (this function's contract).
        return unsafe { gpu.read_back(*address, total, |bytes| out.copy_from_slice(bytes)) };
    }
    // SAFETY: the copy writes every byte before it is read back.
    let staging = unsafe { gpu.alloc::<u8>(total)? };
    let staging_base = staging.device_ptr(stream).0;
    let mut packed = Packed::with_capacity(3 * spans.len());
    let mut offset = 0u64;
    let src = packed.push(spans.iter().map(|s| s.0));
    let dst = packed.push(spans.iter().map(|s| {
        let at = staging_base + offset;
        offset += s.1 as u64;
        at
    }));
    let len = packed.push(spans.iter().map(|s| s.1 as u64));
    let (_arrays, base) = packed.upload(gpu, 0)?;
    let word = |o: usize| base + 8 * o as u64;
    // SAFETY: spans are readable per this function's contract; staging slots are disjoint.
    unsafe { batched_copy(gpu, word(src), word(dst), word(len), spans.len())? };
    // SAFETY: the staging buffer holds `total` bytes, written by the copy before the read.
    unsafe { gpu.read_back(staging_base, total, |bytes| out.copy_from_slice(bytes)) }
}

/// The first bytes of each stream of a batch, on the host (see [`read_headers`]).
pub(crate) struct Headers {
    bytes: Vec<u8>,
    /// Per stream: where its bytes start in `bytes` (one more entry: the end).
    starts: Vec<usize>,
}

impl Headers {
    /// Stream `i`'s first bytes.
    pub(crate) fn get(&self, i: usize) -> &[u8] {
        &self.bytes[self.starts[i]..self.starts[i + 1]]
    }
}

/// Bytes of each stream's start read back: every format's common and spec headers
/// ([`NATIVE_HEADER_PREFIX`]) and a first table entry (offset and size), so that a one-chunk
/// stream's table is read with its header.
const HEADER_READ_BYTES: usize = NATIVE_HEADER_PREFIX + 16;

/// The first [`HEADER_READ_BYTES`] bytes of each stream (all of a shorter one): enough to plan
/// any stream's decompression, whose chunk tables the device reads. One read.
///
/// # Safety
/// Every stream must be readable device memory.
pub(crate) unsafe fn read_headers(gpu: &Gpu, streams: &[DeviceRange]) -> Result<Headers> {
    let spans: Vec<(u64, usize)> = streams.iter().map(|s| (s.address, s.len.min(HEADER_READ_BYTES))).collect();
    let mut starts = Vec::with_capacity(spans.len() + 1);
    starts.push(0);
    starts.extend(spans.iter().scan(0, |end, s| {
        *end += s.1;
        Some(*end)
    }));
    let mut bytes = Vec::with_capacity(starts[spans.len()]);
    // SAFETY: within each stream (this function's contract).
    unsafe { read_spans(gpu, &spans, &mut bytes)? };
    Ok(Headers { bytes, starts })
}

/// The uncompressed sizes of RAW streams (one chunk each) by the algorithm's size query: one
/// upload, one launch, one read (waits for the stream). 0 for a chunk that is not valid.
///
/// # Safety
/// Every stream must be readable device memory.
pub(crate) unsafe fn raw_sizes(gpu: &Gpu, algorithm: &Algorithm, streams: &[DeviceRange]) -> Result<Vec<u64>> {
    if streams.is_empty() {
        return Ok(Vec::new());
    }
    let codec = batched::for_algorithm(algorithm)?;
    let mut packed = Packed::new();
    let ptrs = packed.push(streams.iter().map(|s| s.address));
    let bytes = packed.push(streams.iter().map(|s| s.len as u64));
    let results = packed.host.len();
    let (dev, base) = packed.upload(gpu, streams.len())?;
    let word = |o: usize| base + 8 * o as u64;
    // SAFETY: the arrays hold one entry per stream, each readable (this function's contract).
    unsafe { codec.decompressed_size_async_at(gpu, word(ptrs), word(bytes), streams.len(), word(results))? };
    read_back(gpu, &dev, results, streams.len())
}

/// Copies `sizes[i]` bytes from device address `src[i]` to `dst[i]`, in one launch; the arrays
/// are device arrays of `count` `u64` at the given addresses.
///
/// # Safety
/// The arrays must hold `count` entries and the ranges they describe must be valid and disjoint
/// until the stream has run the copy.
unsafe fn batched_copy(gpu: &Gpu, src: u64, dst: u64, sizes: u64, count: usize) -> Result<()> {
    let count = count as u64;
    let cfg = LaunchConfig {
        grid_dim: (copy_geometry::grid_dim(count), 1, 1),
        block_dim: (copy_geometry::BLOCK_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let args = CopyArgs { src, dst, sizes, count };
    // SAFETY: this function's contract.
    unsafe { gpu.kernels().batched_copy.launch(gpu.stream(), cfg, &args) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithm::{AnsOptions, BitcompOptions, Lz4Options};

    /// The arrays and results of a decompression follow each other without overlap, and the
    /// results (sizes, error words, statuses) are one read.
    #[test]
    fn decompression_words_do_not_overlap() {
        for (tiles, chunks) in [(1, 1), (3, 70), (256, 4096), (5, 7)] {
            let l = DecompressLayout::new(tiles, chunks);
            let starts = [l.in_ptrs, l.in_bytes, l.out_ptrs, l.capacities, l.actual, l.errors, l.statuses];
            assert_eq!(starts[0], TILE_WORDS * tiles);
            for w in starts.windows(2) {
                assert!(w[1] - w[0] >= chunks.min(tiles), "{tiles} tiles, {chunks} chunks: {starts:?}");
            }
            assert_eq!((l.errors - l.actual, l.statuses - l.errors), (chunks, tiles));
            assert_eq!(l.words, l.statuses + chunks.div_ceil(2));
        }
    }

    /// The header read holds every format's common and spec headers.
    #[test]
    fn headers_read_hold_every_spec_header() {
        let algorithms = [
            Algorithm::Lz4(Lz4Options::default()),
            Algorithm::Ans(AnsOptions::default()),
            Algorithm::Bitcomp(BitcompOptions::default()),
            Algorithm::Cascaded(crate::algorithm::CascadedOptions::default()),
            Algorithm::Zstd(crate::algorithm::ZstdOptions::default()),
        ];
        for a in algorithms {
            let end = container::native_data_offset(a.format(), 0, false).unwrap();
            assert!(end <= NATIVE_HEADER_PREFIX, "{a:?}: {end}");
            // A one-chunk stream's entry comes with it.
            assert!(container::tables_offset(a.format()) + 16 <= HEADER_READ_BYTES, "{a:?}");
        }
    }

    /// Real NVCOMP_NATIVE streams planned from their first bytes, their tables expanded by
    /// `expand_chunk_tables` (in the simulator, over host memory): every chunk is where the host's
    /// reader finds it, with its share of the output; the results' checks name the first stream
    /// with a bad table entry or a failed chunk.
    #[test]
    fn planned_streams_expand_to_their_chunks() {
        use crate::codec::{Codec, Device, SpecHeaders};
        use crate::container::NativeStream;
        use gpucomp_kernels::sim::{launch, SendPtr};
        let lz4 = Codec::on(Algorithm::Lz4(Lz4Options::default()), Device::Cpu).with_chunk_size(512).unwrap();
        let ans = Codec::on(Algorithm::Ans(AnsOptions::default()), Device::Cpu).with_chunk_size(4096).unwrap();
        let data: Vec<u8> = (0..600_000u32).map(|i| ((i * 7 / 13) ^ (i >> 9)) as u8).collect();
        // 1172 chunks (two tiles), two algorithms, an empty stream and a one-byte one.
        let streams = [
            lz4.compress(&data).unwrap(),
            ans.compress(&data[..10_000]).unwrap(),
            lz4.compress(&[]).unwrap(),
            lz4.compress(&data[..1]).unwrap(),
            ans.compress(&data[..5000]).unwrap(),
            ans.compress(&data[..3000]).unwrap(),
        ];
        let mut algorithms = SpecHeaders::default();
        let plans: Vec<Plan> = streams
            .iter()
            .map(|s| {
                let range = DeviceRange { address: s.as_ptr() as u64, len: s.len() };
                lz4.plan(&s[..s.len().min(HEADER_READ_BYTES)], range, &mut algorithms).unwrap()
            })
            .collect();
        let outputs: Vec<DeviceRange> = (0..streams.len())
            .map(|i| DeviceRange { address: (i as u64 + 1) << 40, len: plans[i].total.unwrap() as usize })
            .collect();
        let tiling = Tiling::new(&plans, &outputs);
        assert_eq!((tiling.tile_count(), tiling.launches.len()), (2 + 1 + 1 + 1 + 1, 2));
        assert!(tiling.host_arrays().is_none(), "tables to read");
        let n = tiling.chunks;
        let mut arrays = [vec![0u64; n], vec![0u64; n], vec![0u64; n], vec![0u64; n]];
        let mut errors = vec![9u64; tiling.tile_count()];
        let ptrs = arrays.each_mut().map(|a| SendPtr(a.as_mut_ptr()));
        let (tiles, e) = (SendPtr(tiling.tiles.as_ptr() as *mut TableTile), SendPtr(errors.as_mut_ptr()));
        let count = tiling.tile_count() as u64;
        launch::<(), _>(2, chunk_tables::BLOCK_THREADS, |t, _| unsafe {
            chunk_tables::expand_chunk_tables(t, tiles.get(), count, ptrs.map(SendPtr::get), e.get())
        });
        assert!(errors.iter().all(|&e| e == 0), "{errors:?}");
        let [in_ptrs, in_bytes, out_ptrs, capacities] = &arrays;
        for (i, s) in streams.iter().enumerate() {
            let parsed = NativeStream::parse(s).unwrap();
            let q = &tiling.streams[i];
            let total = parsed.uncompressed_size() as usize;
            for c in 0..parsed.num_chunks() {
                let (k, range) = (q.first_chunk + c, parsed.chunk_range(c).unwrap());
                let start = c * q.chunk_size;
                assert_eq!((in_ptrs[k], in_bytes[k]), (s.as_ptr() as u64 + range.start as u64, range.len() as u64));
                assert_eq!(out_ptrs[k], outputs[i].address + start as u64, "stream {i} chunk {c}");
                assert_eq!(capacities[k], (total - start).min(q.chunk_size) as u64, "stream {i} chunk {c}");
            }
        }
        // One-chunk streams (their entries read with the header): the host writes the arrays
        // as the kernel does.
        let ones = [3, 5];
        let small = Tiling::new(&ones.map(|i| plans[i].clone()), &ones.map(|i| outputs[i]));
        let host = small.host_arrays().expect("one-chunk streams");
        for (j, &i) in ones.iter().enumerate() {
            let (k, q) = (tiling.streams[i].first_chunk, small.streams[j].first_chunk);
            for (a, array) in arrays.iter().enumerate() {
                assert_eq!(host[a * small.chunks + q], array[k], "stream {i}, array {a}");
            }
        }
        // All decoded: each stream's total.
        let mut statuses = vec![0i32; n];
        let totals: Vec<usize> = plans.iter().map(|p| p.total.unwrap() as usize).collect();
        assert_eq!(check_results(&tiling.streams, capacities, &errors, &statuses).unwrap(), totals);
        // A short chunk, a failed one, a bad table entry: the first stream with one is named.
        let k = tiling.streams[4].first_chunk + 1;
        let mut short = capacities.clone();
        short[k] -= 1;
        let e = check_results(&tiling.streams, &short, &errors, &statuses).unwrap_err();
        assert!(
            matches!(e, Error::Buffer { index: 4, ref source } if matches!(**source, Error::Chunk { chunk: 1, .. }))
        );
        statuses[tiling.streams[1].first_chunk + 2] = Status::CannotDecompress as i32;
        let e = check_results(&tiling.streams, capacities, &errors, &statuses).unwrap_err();
        assert!(
            matches!(e, Error::Buffer { index: 1, ref source } if matches!(**source, Error::Chunk { chunk: 2, .. }))
        );
        errors[1] = chunk_tables::error_word(1100, chunk_tables::MISALIGNED);
        let e = check_results(&tiling.streams, capacities, &errors, &statuses).unwrap_err();
        assert!(e.to_string().contains("chunk 1100"), "{e}");
        assert!(matches!(e, Error::Buffer { index: 0, .. }), "{e}");
    }

    #[test]
    fn sources_cut_as_compress_as_does() {
        let s = Source { range: DeviceRange { address: 0, len: 100 }, chunk_size: 64 };
        assert_eq!((s.num_chunks(), s.largest_chunk()), (2, 64));
        let empty = Source { range: DeviceRange { address: 0, len: 0 }, chunk_size: 64 };
        assert_eq!((empty.num_chunks(), empty.largest_chunk()), (0, 1));
    }

    /// The host's part of each kind's header: NVCOMP_NATIVE's fixed fields, nothing for RAW,
    /// the size prefix for WITH_UNCOMPRESSED_SIZE; appended where the blob ends.
    #[test]
    fn headers_are_the_container_writers_prefixes() {
        let lz4 = Algorithm::Lz4(Lz4Options::default());
        let s = Source { range: DeviceRange { address: 0, len: 100 }, chunk_size: 64 };
        let mut blob = vec![7u8; 3];
        let native = Placed::header(&lz4, BitstreamKind::Native, &s, &mut blob).unwrap();
        let (prefix, data_offset) = container::native_header_prefix(&lz4, 64, 100).unwrap();
        assert_eq!(native, Placed { at: 3, len: prefix.len(), data_offset, native: true });
        assert_eq!(blob[3..], prefix[..]);
        let one = Source { range: DeviceRange { address: 0, len: 100 }, chunk_size: 100 };
        let raw = Placed::header(&lz4, BitstreamKind::Raw, &one, &mut blob).unwrap();
        assert_eq!(raw, Placed { at: blob.len(), len: 0, data_offset: 0, native: false });
        let at = blob.len();
        let wus = Placed::header(&lz4, BitstreamKind::WithUncompressedSize, &one, &mut blob).unwrap();
        let size_prefix = container::write_with_uncompressed_size(100, &[]);
        assert_eq!(wus, Placed { at, len: size_prefix.len(), data_offset: size_prefix.len(), native: false });
        assert_eq!(blob[at..], size_prefix[..]);
    }

    #[test]
    fn launches_split_only_where_bytes_depend_on_the_largest_chunk() {
        let lz4 = Algorithm::Lz4(Lz4Options::default());
        assert_eq!(launch_key(&lz4, 65536), launch_key(&lz4, 65536));
        let ans = Algorithm::Ans(AnsOptions::default());
        assert_ne!(launch_key(&ans, 65536), launch_key(&ans, 1000));
        let bitcomp = Algorithm::Bitcomp(BitcompOptions::default());
        assert_eq!(launch_key(&bitcomp, 65536), launch_key(&bitcomp, 1));
    }
}
