//! The high-level API's GPU path: batches of whole buffers through the batched kernels.
//!
//! Every chunk of every buffer goes into one kernel launch (one per algorithm, and per encoder
//! parameter where nvCOMP's bytes depend on the batch's largest chunk), with all pointer and size
//! arrays uploaded by one copy and all statuses and sizes read back by one. Single buffers are
//! batches of one.
use std::collections::BTreeMap;
use std::ops::Range;

use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig};
use gpucomp_kernels::copy as copy_geometry;

use super::{DeviceBuffers, DeviceRange};
use crate::algorithm::Algorithm;
use crate::batched::{self, CompressBatchAt, DecompressBatchAt};
use crate::container::{self, BitstreamKind, NativeIndex, NativeLayout};
use crate::error::{Error, Result, Status};
use crate::gpu::kernels::CopyArgs;
use crate::gpu::Gpu;

/// Bytes of the first read of a batch's stream headers, shared by its streams (see
/// [`prefix_bytes`]): 256 streams read 1 KiB each, 256 KiB in all instead of 1 MiB at 4 KiB each.
const PREFIX_BUDGET: usize = 256 << 10;

/// Bytes of each stream read back first when decompressing `streams` streams from device memory:
/// [`PREFIX_BUDGET`] shared, from 512 bytes (headers and chunk tables of streams of about 25
/// chunks) to 4 KiB (250 chunks; 64 KiB chunks: 16 MiB); longer tables take a second read.
fn prefix_bytes(streams: usize) -> usize {
    (PREFIX_BUDGET / streams.max(1)).clamp(512, 4096)
}

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
        let mut buf = unsafe { gpu.alloc::<u64>(self.host.len() + extra)? };
        if !self.host.is_empty() {
            stream.memcpy_htod(&self.host, &mut buf.slice_mut(..self.host.len()))?;
        }
        let base = buf.device_ptr(stream).0;
        Ok((buf, base))
    }
}

/// Bytes of `n` `u64` words followed by `n` `i32` statuses, in words.
fn results_words(n: usize) -> usize {
    n + n.div_ceil(2)
}

/// Splits read-back results into `n` `u64` values and `n` statuses.
fn split_results(words: &[u64], n: usize) -> (&[u64], &[i32]) {
    let (values, statuses) = words.split_at(n);
    (values, &bytemuck::cast_slice::<u64, i32>(statuses)[..n])
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

/// Temp space of `bytes` (zeroed, as the batched codecs receive it), none when 0: most option
/// sets need none, and skipping the allocation and its memset saves a launch per call.
fn temp_buffer(gpu: &Gpu, bytes: usize) -> Result<Option<CudaSlice<u8>>> {
    Ok(if bytes == 0 { None } else { Some(gpu.alloc_zeros::<u8>(bytes)?) })
}

/// Chunks compressed into staging slots. Chunks are numbered in launch order (launch by launch,
/// each launch's buffers in input order); each buffer's chunks are consecutive.
pub(crate) struct Compressed {
    /// Keeps the slots alive until the copies out of them are queued.
    _staging: CudaSlice<u8>,
    /// Per chunk: its slot's address.
    slots: Vec<u64>,
    /// Per chunk: its compressed size.
    sizes: Vec<u64>,
    /// Per buffer: its chunks.
    chunks: Vec<Range<usize>>,
}

impl Compressed {
    /// Buffer `i`'s compressed chunk sizes.
    fn sizes(&self, i: usize) -> &[u64] {
        &self.sizes[self.chunks[i].clone()]
    }
}

/// Which launch a buffer joins: nvCOMP's LZ4 sizes its hash table, and ANS its sub-chunks, by the
/// batch's largest chunk, so buffers whose largest chunks give other parameters get a launch of
/// their own (the same bytes as compressing each alone); Bitcomp and Cascaded ignore it.
fn launch_key(algorithm: &Algorithm, largest_chunk: usize) -> usize {
    match algorithm {
        Algorithm::Lz4(o) => o.encoder.table_size(largest_chunk),
        Algorithm::Ans(_) => largest_chunk,
        Algorithm::Bitcomp(_) | Algorithm::Cascaded(_) => 0,
    }
}

/// Compresses every chunk of `sources` into staging slots: one launch per [`launch_key`], one
/// upload of the arrays, one read-back of sizes and statuses (which waits for the stream).
///
/// # Safety
/// Every source range must be readable device memory until the stream has run the work.
pub(crate) unsafe fn compress_chunks(gpu: &Gpu, algorithm: &Algorithm, sources: &[Source]) -> Result<Compressed> {
    let stream = gpu.stream();
    let codec = batched::for_algorithm(algorithm)?;
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, s) in sources.iter().enumerate() {
        groups.entry(launch_key(algorithm, s.largest_chunk())).or_default().push(i);
    }
    // Per group: members, largest chunk, slot stride, first global chunk, chunk count.
    struct Group {
        members: Vec<usize>,
        largest: usize,
        stride: usize,
        first: usize,
        count: usize,
        staging_offset: usize,
    }
    let (mut plan, mut total, mut staging_bytes) = (Vec::new(), 0usize, 0usize);
    for members in groups.into_values() {
        let largest = members.iter().map(|&i| sources[i].largest_chunk()).max().unwrap_or(1);
        let count: usize = members.iter().map(|&i| sources[i].num_chunks()).sum();
        let stride = codec.max_compressed_chunk_size(largest)?.next_multiple_of(16);
        plan.push(Group { members, largest, stride, first: total, count, staging_offset: staging_bytes });
        total += count;
        staging_bytes += count * stride;
    }
    // SAFETY: the kernels write each slot before the copies read its compressed size from it.
    let staging = unsafe { gpu.alloc::<u8>(staging_bytes)? };
    let staging_base = staging.device_ptr(stream).0;
    let mut slots = Vec::with_capacity(total);
    let mut chunks = vec![0..0; sources.len()];
    let mut packed = Packed::with_capacity(3 * total);
    let mut arrays = Vec::with_capacity(plan.len());
    for g in &plan {
        let base = staging_base + g.staging_offset as u64;
        slots.extend((0..g.count).map(|k| base + (k * g.stride) as u64));
        let mut k = g.first;
        for &i in &g.members {
            chunks[i] = k..k + sources[i].num_chunks();
            k = chunks[i].end;
        }
        // Every chunk of the group's buffers, in order: (buffer, chunk index).
        let members = || g.members.iter().flat_map(|&i| (0..sources[i].num_chunks()).map(move |c| (&sources[i], c)));
        let ptrs = packed.push(members().map(|(s, c)| s.range.address + (c * s.chunk_size) as u64));
        let bytes = packed.push(members().map(|(s, c)| (s.range.len - c * s.chunk_size).min(s.chunk_size) as u64));
        let outs = packed.push(slots[g.first..g.first + g.count].iter().copied());
        arrays.push((ptrs, bytes, outs));
    }
    let results = packed.host.len();
    let (dev, base) = packed.upload(gpu, results_words(total))?;
    let word = |offset: usize| base + 8 * offset as u64;
    let temp_size =
        plan.iter().map(|g| codec.compress_temp_size(g.count, g.largest)).try_fold(0, |m, t| t.map(|t| m.max(t)))?;
    let mut temp = temp_buffer(gpu, temp_size)?;
    for (g, &(ptrs, bytes, outs)) in plan.iter().zip(&arrays) {
        // SAFETY: the arrays hold `g.count` entries: chunks of the sources (readable per this
        // function's contract, each at most `g.largest` bytes) and disjoint staging slots of the
        // maximum compressed size; everything lives until the read-back below waits for it.
        unsafe {
            codec.compress_async_at(
                gpu,
                CompressBatchAt {
                    in_ptrs: word(ptrs),
                    in_bytes: word(bytes),
                    num_chunks: g.count,
                    max_uncompressed_chunk_bytes: g.largest,
                    temp: temp.as_mut(),
                    out_ptrs: word(outs),
                    out_bytes: word(results + g.first),
                    statuses: word(results + total) + 4 * g.first as u64,
                },
            )?
        };
    }
    let mut sizes = read_back(gpu, &dev, results, results_words(total))?;
    let (_, statuses) = split_results(&sizes, total);
    // The first failed buffer in input order.
    for (i, r) in chunks.iter().enumerate() {
        if let Some(c) = statuses[r.clone()].iter().position(|&s| s != 0) {
            let status = Status::from_raw(statuses[r.start + c]);
            return Err(in_buffer(i, Error::Chunk { chunk: c, status }));
        }
    }
    sizes.truncate(total);
    Ok(Compressed { _staging: staging, slots, sizes, chunks })
}

/// Where a compressed buffer's parts go in its stream: the header at 0, each chunk at its
/// position, zeros in the padding between chunks.
pub(crate) enum Placement {
    /// An NVCOMP_NATIVE stream, as its layout places header and chunks.
    Native(NativeLayout),
    /// A RAW or WITH_UNCOMPRESSED_SIZE stream: `header` (nothing, or the size prefix), then the
    /// one chunk of `size` bytes.
    Single { header: Vec<u8>, size: usize },
}

impl Placement {
    /// The stream's length.
    pub(crate) fn total(&self) -> usize {
        match self {
            Placement::Native(layout) => layout.total_size(),
            Placement::Single { header, size } => header.len() + size,
        }
    }

    /// The header's length: the first chunk's position or after.
    fn header_len(&self) -> usize {
        match self {
            Placement::Native(layout) => layout.comp_data_offset(),
            Placement::Single { header, .. } => header.len(),
        }
    }

    /// Writes the header into `out` ([`header_len`](Self::header_len) bytes).
    fn write_header(&self, out: &mut [u8]) -> Result<()> {
        match self {
            Placement::Native(layout) => layout.write_header(out, None),
            Placement::Single { header, .. } => {
                out.copy_from_slice(header);
                Ok(())
            }
        }
    }

    /// Chunk `i`'s byte range in the stream, and the padding after it (up to the next chunk).
    fn chunk(&self, i: usize) -> Option<(Range<usize>, Range<usize>)> {
        match self {
            Placement::Native(layout) => Some((layout.chunk_range(i)?, layout.padding_after(i)?)),
            Placement::Single { header, size } => {
                (i == 0).then(|| (header.len()..header.len() + size, header.len() + size..header.len() + size))
            }
        }
    }
}

/// The placement of buffer `i`'s compressed chunks in a stream of `kind` (NVCOMP_NATIVE without
/// checksums, or one chunk for RAW and WITH_UNCOMPRESSED_SIZE).
pub(crate) fn place(algorithm: &Algorithm, kind: BitstreamKind, source: &Source, sizes: &[u64]) -> Result<Placement> {
    match kind {
        BitstreamKind::Native => {
            let sizes: Vec<usize> = sizes.iter().map(|&s| s as usize).collect();
            let layout = NativeLayout::for_algorithm(
                algorithm,
                source.chunk_size as u64,
                source.range.len as u64,
                &sizes,
                false,
            )?;
            Ok(Placement::Native(layout))
        }
        BitstreamKind::Raw | BitstreamKind::WithUncompressedSize => {
            let header = match kind {
                BitstreamKind::Raw => Vec::new(),
                _ => container::write_with_uncompressed_size(source.range.len as u64, &[]),
            };
            Ok(Placement::Single { header, size: sizes.first().map_or(0, |&s| s as usize) })
        }
    }
}

/// Zero bytes the padding copies read from: chunk alignments are at most 16.
const ZEROS: usize = 16;

/// Writes each placed stream into `outputs[i]` (at least `placements[i].total()` bytes) with one
/// upload of headers and copy descriptors and one batched copy. Asynchronous.
///
/// # Safety
/// Every output range must be writable device memory, disjoint from the others and from the
/// staging slots, until the stream has run the copy.
pub(crate) unsafe fn assemble(
    gpu: &Gpu,
    compressed: &Compressed,
    placements: &[Placement],
    outputs: &[u64],
) -> Result<()> {
    // Descriptors: each header, then each chunk and the padding after it.
    let capacity = placements.len() + 2 * compressed.slots.len();
    let (mut src, mut dst, mut len) =
        (Vec::with_capacity(capacity), Vec::with_capacity(capacity), Vec::with_capacity(capacity));
    // Sources inside the upload are offsets from its base until the base is known.
    let mut inside = Vec::with_capacity(capacity);
    let mut blob = vec![0u8; ZEROS];
    for (i, p) in placements.iter().enumerate() {
        let out = outputs[i];
        let header_len = p.header_len();
        if header_len > 0 {
            inside.push(src.len());
            src.push(blob.len() as u64);
            dst.push(out);
            len.push(header_len as u64);
            let at = blob.len();
            blob.resize(at + header_len, 0);
            p.write_header(&mut blob[at..])?;
        }
        let chunks = compressed.chunks[i].clone();
        for (c, (&slot, &size)) in compressed.slots[chunks.clone()].iter().zip(&compressed.sizes[chunks]).enumerate() {
            let Some((at, padding)) = p.chunk(c) else { break };
            src.push(slot);
            dst.push(out + at.start as u64);
            len.push(size);
            if !padding.is_empty() {
                inside.push(src.len());
                src.push(0);
                dst.push(out + padding.start as u64);
                len.push(padding.len() as u64);
            }
        }
    }
    let count = src.len();
    if count == 0 {
        return Ok(());
    }
    // One upload: the three descriptor arrays, then the zeros and headers.
    let words = 3 * count;
    let stream = gpu.stream();
    // SAFETY: every byte is written by the copy below before the kernel reads it.
    let mut upload = unsafe { gpu.alloc::<u8>(8 * words + blob.len())? };
    let base = upload.device_ptr(stream).0;
    let blob_base = base + 8 * words as u64;
    for &k in &inside {
        src[k] += blob_base;
    }
    let mut host: Vec<u8> = Vec::with_capacity(8 * words + blob.len());
    for a in [&src, &dst, &len] {
        host.extend_from_slice(bytemuck::cast_slice(a));
    }
    host.extend_from_slice(&blob);
    stream.memcpy_htod(&host, &mut upload)?;
    // SAFETY: the descriptors address the staging slots (alive in `compressed`), the upload and
    // the outputs (writable per this function's contract); ranges are disjoint.
    unsafe { batched_copy(gpu, base, base + 8 * count as u64, base + 16 * count as u64, count) }
    // `upload` is freed on drop, stream-ordered after the copy.
}

/// Compresses `sources` into chunks and places each buffer's chunks in its stream of `kind`.
///
/// # Safety
/// As [`compress_chunks`].
unsafe fn compress_placed(
    gpu: &Gpu,
    algorithm: &Algorithm,
    kind: BitstreamKind,
    sources: &[Source],
) -> Result<(Compressed, Vec<Placement>)> {
    // SAFETY: this function's contract.
    let compressed = unsafe { compress_chunks(gpu, algorithm, sources)? };
    let placements = sources
        .iter()
        .enumerate()
        .map(|(i, s)| place(algorithm, kind, s, compressed.sizes(i)).map_err(|e| in_buffer(i, e)))
        .collect::<Result<Vec<_>>>()?;
    Ok((compressed, placements))
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
    let (compressed, placements) = unsafe { compress_placed(gpu, algorithm, kind, sources)? };
    let totals: Vec<usize> = placements.iter().map(Placement::total).collect();
    for (i, (o, &t)) in outputs.iter().zip(&totals).enumerate() {
        if o.len < t {
            return Err(in_buffer(i, Error::OutputTooSmall { needed: t, available: o.len }));
        }
    }
    let addresses: Vec<u64> = outputs.iter().map(|o| o.address).collect();
    // SAFETY: writable per this function's contract.
    unsafe { assemble(gpu, &compressed, &placements, &addresses)? };
    Ok(totals)
}

/// Compresses `sources` into streams of `kind` in new buffers of their exact lengths, one
/// allocation for all. The final copy is queued, not waited for.
///
/// # Safety
/// Every source must be readable until the stream has run the work.
pub(crate) unsafe fn compress_batch_new(
    gpu: &Gpu,
    algorithm: &Algorithm,
    kind: BitstreamKind,
    sources: &[Source],
) -> Result<DeviceBuffers> {
    // SAFETY: this function's contract.
    let (compressed, placements) = unsafe { compress_placed(gpu, algorithm, kind, sources)? };
    let totals: Vec<usize> = placements.iter().map(Placement::total).collect();
    // SAFETY: the copy writes every byte of each stream: header, chunks and padding.
    let buffers = unsafe { DeviceBuffers::alloc(gpu, &totals)? };
    let addresses: Vec<u64> = buffers.ranges().iter().map(|r| r.address).collect();
    // SAFETY: the buffers are ours and disjoint.
    unsafe { assemble(gpu, &compressed, &placements, &addresses)? };
    Ok(buffers)
}

/// One stream to decompress, as its header describes it.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The algorithm its chunks are decoded with.
    pub(crate) algorithm: Algorithm,
    /// Uncompressed bytes per chunk (the last may be shorter).
    pub(crate) chunk_size: usize,
    /// Device address and size of each compressed chunk.
    pub(crate) chunks: Vec<(u64, u64)>,
    /// Uncompressed size, `None` for a RAW stream whose size is not known (its output's capacity
    /// bounds it, and the decoded size is the result).
    pub(crate) total: Option<u64>,
}

/// Decompresses every planned stream into `outputs[i]` (capacity `outputs[i].len`, at least the
/// stream's total when known): one launch per algorithm present, one upload of the arrays, one
/// read-back of sizes and statuses (which waits for the stream). Returns the decoded sizes.
/// Chunks must decode to exactly their share of a known total.
///
/// # Safety
/// Every chunk must be readable and every output writable, disjoint from the others and the
/// inputs, until the stream has run the work.
pub(crate) unsafe fn decompress_planned(gpu: &Gpu, plans: &[Plan], outputs: &[DeviceRange]) -> Result<Vec<usize>> {
    let mut groups: Vec<(Algorithm, Vec<usize>)> = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        match groups.iter_mut().find(|(a, _)| *a == p.algorithm) {
            Some((_, members)) => members.push(i),
            None => groups.push((p.algorithm, vec![i])),
        }
    }
    let total: usize = plans.iter().map(|p| p.chunks.len()).sum();
    let mut packed = Packed::with_capacity(4 * total);
    let mut launches = Vec::new();
    // Per stream: first global chunk and the expected size of each chunk (None: unknown).
    let mut first = vec![0usize; plans.len()];
    let mut expected: Vec<Option<u64>> = Vec::with_capacity(total);
    for (algorithm, members) in &groups {
        let count: usize = members.iter().map(|&i| plans[i].chunks.len()).sum();
        // The group's four arrays, filled in place: pointers, sizes, outputs, capacities.
        let at = packed.host.len();
        packed.host.resize(at + 4 * count, 0);
        let (in_ptrs, rest) = packed.host[at..].split_at_mut(count);
        let (in_bytes, rest) = rest.split_at_mut(count);
        let (out_ptrs, capacity) = rest.split_at_mut(count);
        // The largest chunk and its stream, which a chunk-size limit error names.
        let (mut largest, mut owner) = (1, members[0]);
        let start = expected.len();
        for &i in members {
            let p = &plans[i];
            first[i] = expected.len();
            let out = outputs[i];
            for (c, &(addr, size)) in p.chunks.iter().enumerate() {
                let at = c * p.chunk_size;
                let room = match p.total {
                    Some(t) => (t as usize - at).min(p.chunk_size),
                    None => out.len.min(algorithm.max_chunk_size()),
                };
                let k = expected.len() - start;
                in_ptrs[k] = addr;
                in_bytes[k] = size;
                out_ptrs[k] = out.address + at as u64;
                capacity[k] = room as u64;
                expected.push(p.total.map(|_| room as u64));
                if room > largest {
                    (largest, owner) = (room, i);
                }
            }
        }
        launches.push((start, count, largest, owner, (at, at + count, at + 2 * count, at + 3 * count)));
    }
    if total == 0 {
        return Ok(plans.iter().map(|p| p.total.unwrap_or(0) as usize).collect());
    }
    let results = packed.host.len();
    let (dev, base) = packed.upload(gpu, results_words(total))?;
    let word = |offset: usize| base + 8 * offset as u64;
    let codecs = groups
        .iter()
        .map(|(a, members)| batched::for_algorithm(a).map_err(|e| in_buffer(members[0], e)))
        .collect::<Result<Vec<_>>>()?;
    let mut temp_size = 0;
    for (codec, &(_, count, largest, owner, _)) in codecs.iter().zip(&launches) {
        temp_size = temp_size.max(codec.decompress_temp_size(count, largest).map_err(|e| in_buffer(owner, e))?);
    }
    let mut temp = temp_buffer(gpu, temp_size)?;
    for (codec, &(start, count, largest, _, (ptrs, bytes, outs, caps))) in codecs.iter().zip(&launches) {
        // SAFETY: the arrays hold `count` entries: chunks readable and outputs writable for their
        // capacities, per this function's contract; everything lives until the read-back below.
        unsafe {
            codec.decompress_async_at(
                gpu,
                DecompressBatchAt {
                    in_ptrs: word(ptrs),
                    in_bytes: word(bytes),
                    num_chunks: count,
                    max_uncompressed_chunk_bytes: largest,
                    temp: temp.as_mut(),
                    out_ptrs: word(outs),
                    out_capacity: word(caps),
                    out_actual: word(results + start),
                    statuses: word(results + total) + 4 * start as u64,
                },
            )?
        };
    }
    let words = read_back(gpu, &dev, results, results_words(total))?;
    let (actual, statuses) = split_results(&words, total);
    plans
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let k = first[i];
            for c in 0..p.chunks.len() {
                let status = Status::from_raw(statuses[k + c]);
                if status != Status::Success {
                    return Err(in_buffer(i, Error::Chunk { chunk: c, status }));
                }
                // A chunk that decodes to fewer bytes than its place in the stream is corrupt too.
                if expected[k + c].is_some_and(|e| e != actual[k + c]) {
                    return Err(in_buffer(i, Error::Chunk { chunk: c, status: Status::CannotDecompress }));
                }
            }
            Ok(match p.total {
                Some(t) => t as usize,
                None => actual[k..k + p.chunks.len()].iter().sum::<u64>() as usize,
            })
        })
        .collect()
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

/// The first bytes of each stream of a batch, on the host (see [`read_prefixes`]).
pub(crate) struct Prefixes {
    bytes: Vec<u8>,
    /// Per stream: where its prefix is in `bytes`.
    spans: Vec<Range<usize>>,
}

impl Prefixes {
    /// Stream `i`'s prefix.
    pub(crate) fn get(&self, i: usize) -> &[u8] {
        &self.bytes[self.spans[i].clone()]
    }
}

/// The first bytes of each stream: [`prefix_bytes`] (or the whole stream), then, for native
/// streams whose header and tables run further, up to the tables' end. One or two reads.
///
/// # Safety
/// Every stream must be readable device memory.
pub(crate) unsafe fn read_prefixes(gpu: &Gpu, streams: &[DeviceRange]) -> Result<Prefixes> {
    let first = prefix_bytes(streams.len());
    let spans: Vec<(u64, usize)> = streams.iter().map(|s| (s.address, s.len.min(first))).collect();
    let mut bytes = Vec::new();
    // SAFETY: within each stream (this function's contract).
    unsafe { read_spans(gpu, &spans, &mut bytes)? };
    let mut at = 0;
    let mut ranges: Vec<Range<usize>> = spans
        .iter()
        .map(|s| {
            at += s.1;
            at - s.1..at
        })
        .collect();
    let longer: Vec<(usize, usize)> = ranges
        .iter()
        .map(|r| &bytes[r.clone()])
        .enumerate()
        .filter(|(_, p)| container::detect(p) == BitstreamKind::Native)
        // Tables that cannot fit the stream fail in `NativeIndex::read` without a second read.
        .filter_map(|(i, p)| NativeIndex::prefix_len(p).map(|n| (i, n)))
        .filter(|&(i, n)| n > ranges[i].len() && n <= streams[i].len)
        .collect();
    if !longer.is_empty() {
        let spans: Vec<(u64, usize)> = longer.iter().map(|&(i, n)| (streams[i].address, n)).collect();
        let mut at = bytes.len();
        // SAFETY: within each stream (this function's contract).
        unsafe { read_spans(gpu, &spans, &mut bytes)? };
        for &(i, n) in &longer {
            ranges[i] = at..at + n;
            at += n;
        }
    }
    Ok(Prefixes { bytes, spans: ranges })
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

    #[test]
    fn results_pack_sizes_then_statuses() {
        let n = 3;
        let mut words = vec![10u64, 20, 30, 0, 0];
        let statuses: &mut [i32] = bytemuck::cast_slice_mut(&mut words[n..]);
        statuses[..3].copy_from_slice(&[0, 3, -1]);
        assert_eq!(results_words(n), 5);
        let (sizes, st) = split_results(&words, n);
        assert_eq!((sizes, st), (&[10u64, 20, 30][..], &[0i32, 3, -1][..]));
    }

    /// The first read shares its budget and holds the tables of 25-chunk streams at the least.
    #[test]
    fn prefixes_share_the_budget() {
        assert_eq!([1, 64, 256, 1024, 100_000].map(prefix_bytes), [4096, 4096, 1024, 512, 512]);
        let algorithms = [
            Algorithm::Lz4(Lz4Options::default()),
            Algorithm::Ans(AnsOptions::default()),
            Algorithm::Bitcomp(BitcompOptions::default()),
            Algorithm::Cascaded(crate::algorithm::CascadedOptions::default()),
        ];
        for a in algorithms {
            let end = container::native_data_offset(a.format(), 25, false).unwrap();
            assert!(end <= prefix_bytes(usize::MAX), "{a:?}: {end}");
        }
    }

    #[test]
    fn sources_cut_as_compress_as_does() {
        let s = Source { range: DeviceRange { address: 0, len: 100 }, chunk_size: 64 };
        assert_eq!((s.num_chunks(), s.largest_chunk()), (2, 64));
        let empty = Source { range: DeviceRange { address: 0, len: 0 }, chunk_size: 64 };
        assert_eq!((empty.num_chunks(), empty.largest_chunk()), (0, 1));
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

    #[test]
    fn placements_match_the_host_writers() {
        let lz4 = Algorithm::Lz4(Lz4Options::default());
        let s = Source { range: DeviceRange { address: 0, len: 100 }, chunk_size: 64 };
        let p = place(&lz4, BitstreamKind::Native, &s, &[13, 7]).unwrap();
        let layout = NativeLayout::for_algorithm(&lz4, 64, 100, &[13, 7], false).unwrap();
        let mut header = vec![0u8; p.header_len()];
        p.write_header(&mut header).unwrap();
        assert_eq!(header, layout.header_bytes(None).unwrap());
        let (first, second) = (layout.chunk_range(0).unwrap(), layout.chunk_range(1).unwrap());
        assert_eq!(p.chunk(0), Some((first.clone(), first.end..second.start)));
        assert_eq!(layout.padding_after(0), Some(first.end..second.start));
        assert_eq!(p.chunk(1), Some((second.clone(), second.end..second.end)));
        assert_eq!(p.chunk(2), None);
        assert_eq!(layout.padding_ranges(), vec![first.end..second.start]);
        assert_eq!(p.total(), layout.total_size());
        let one = Source { range: DeviceRange { address: 0, len: 100 }, chunk_size: 100 };
        let raw = place(&lz4, BitstreamKind::Raw, &one, &[40]).unwrap();
        assert_eq!((raw.header_len(), raw.chunk(0), raw.total()), (0, Some((0..40, 40..40)), 40));
        let wus = place(&lz4, BitstreamKind::WithUncompressedSize, &one, &[40]).unwrap();
        let mut header = vec![0u8; wus.header_len()];
        wus.write_header(&mut header).unwrap();
        assert_eq!(header, container::write_with_uncompressed_size(100, &[]));
        assert_eq!((wus.chunk(0), wus.total()), (Some((16..56, 56..56)), 56));
    }
}
