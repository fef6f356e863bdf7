//! Helpers of the GPU tests: the device, batched calls on host-built chunks, and the corrupt
//! chunks every decoder is checked on.
use super::Rng;
use cudarc::driver::{CudaSlice, DevicePtr};
use gpucomp::batched::{BatchedCodec, CompressBatch, DecompressBatch};
use gpucomp::gpu::Gpu;
use gpucomp::Status;

/// GPU 0; the tests that call this are `#[ignore]`d without a device.
pub fn gpu() -> Gpu {
    Gpu::new(0).expect("this test needs a CUDA device")
}

/// One chunk's outcome of a batched decompression: status, reported size, output bytes (the
/// whole capacity, poisoned with 0xA5 before the call).
pub type Outcome = (Status, u64, Vec<u8>);

/// One batched call's chunks by device address, as host arrays: chunk `i` is `in_bytes[i]` bytes
/// at `in_ptrs[i]` and goes to `out_ptrs[i]` (room: `out_capacity[i]`, decompression only);
/// `max` is the batch's largest uncompressed chunk.
pub struct Addressed<'a> {
    pub in_ptrs: &'a [u64],
    pub in_bytes: &'a [u64],
    pub out_ptrs: &'a [u64],
    pub out_capacity: &'a [u64],
    pub max: usize,
}

/// The device arrays of one batched call: `a`'s three address arrays, and sizes and statuses
/// poisoned (`u64::MAX`, -1) so that a kernel that writes none is seen.
struct Uploaded {
    in_ptrs: CudaSlice<u64>,
    in_bytes: CudaSlice<u64>,
    out_ptrs: CudaSlice<u64>,
    sizes: CudaSlice<u64>,
    statuses: CudaSlice<i32>,
}

impl Addressed<'_> {
    fn upload(&self, g: &Gpu) -> Uploaded {
        let (s, n) = (g.stream(), self.in_ptrs.len().max(1));
        Uploaded {
            in_ptrs: s.clone_htod(self.in_ptrs).unwrap(),
            in_bytes: s.clone_htod(self.in_bytes).unwrap(),
            out_ptrs: s.clone_htod(self.out_ptrs).unwrap(),
            sizes: s.clone_htod(&vec![u64::MAX; n]).unwrap(),
            statuses: s.clone_htod(&vec![-1i32; n]).unwrap(),
        }
    }
}

/// Temp space of `bytes` (at least 1) filled with a non-zero pattern: the batched API, like
/// nvCOMP's, takes temp memory of any contents, so the codecs must zero what they need.
fn garbage_temp(g: &Gpu, bytes: usize) -> CudaSlice<u8> {
    g.stream().clone_htod(&vec![0xA5u8; bytes.max(1)]).unwrap()
}

/// Compresses the chunks of `a` in one batched call: each chunk's compressed size and status.
///
/// # Safety
/// Every address must be live device memory of the stated size, outputs of
/// `max_compressed_chunk_size(a.max)` bytes each and disjoint, until the call returns.
pub unsafe fn compress_at(g: &Gpu, codec: &dyn BatchedCodec, a: &Addressed) -> (Vec<u64>, Vec<Status>) {
    let s = g.stream();
    let n = a.in_ptrs.len();
    let Uploaded { in_ptrs, in_bytes, out_ptrs, mut sizes, mut statuses } = a.upload(g);
    let mut temp = garbage_temp(g, codec.compress_temp_size(n, a.max).unwrap());
    let batch = CompressBatch {
        in_ptrs: &in_ptrs,
        in_bytes: &in_bytes,
        num_chunks: n,
        max_uncompressed_chunk_bytes: a.max,
        temp: Some(&mut temp),
        out_ptrs: &out_ptrs,
        out_bytes: &mut sizes,
        statuses: Some(&mut statuses),
    };
    // SAFETY: the caller's contract; the arrays hold `n` entries, all alive until the reads below.
    unsafe { codec.compress_async(g, batch).unwrap() };
    let sizes = s.clone_dtoh(&sizes).unwrap()[..n].to_vec();
    (sizes, s.clone_dtoh(&statuses).unwrap()[..n].iter().map(|&st| Status::from_raw(st)).collect())
}

/// Decompresses the chunks of `a` in one batched call: each chunk's reported size (`u64::MAX`
/// where the kernel wrote none) and status (`None` without a status array, which the kernels
/// must cope with).
///
/// # Safety
/// Every address must be live device memory of the stated size, outputs disjoint, until the
/// call returns.
pub unsafe fn decompress_at(
    g: &Gpu,
    codec: &dyn BatchedCodec,
    a: &Addressed,
    with_statuses: bool,
) -> (Vec<u64>, Option<Vec<Status>>) {
    let s = g.stream();
    let n = a.in_ptrs.len();
    let Uploaded { in_ptrs, in_bytes, out_ptrs, sizes: mut out_actual, mut statuses } = a.upload(g);
    let out_capacity = s.clone_htod(a.out_capacity).unwrap();
    let mut temp = garbage_temp(g, codec.decompress_temp_size(n, a.max).unwrap());
    let batch = DecompressBatch {
        in_ptrs: &in_ptrs,
        in_bytes: &in_bytes,
        num_chunks: n,
        max_uncompressed_chunk_bytes: a.max,
        temp: Some(&mut temp),
        out_ptrs: &out_ptrs,
        out_capacity: &out_capacity,
        out_actual: Some(&mut out_actual),
        statuses: with_statuses.then_some(&mut statuses),
    };
    // SAFETY: the caller's contract; the arrays hold `n` entries, all alive until the reads below.
    unsafe { codec.decompress_async(g, batch).unwrap() };
    let actual = s.clone_dtoh(&out_actual).unwrap()[..n].to_vec();
    let statuses =
        with_statuses.then(|| s.clone_dtoh(&statuses).unwrap()[..n].iter().map(|&st| Status::from_raw(st)).collect());
    (actual, statuses)
}

/// Decompresses `chunks` in one batched call, chunk `i` into a buffer of `capacities[i]` bytes;
/// `with_statuses: false` passes no status array (the kernel must cope; the outcomes then say
/// success).
pub fn batched_decompress(
    g: &Gpu,
    codec: &dyn BatchedCodec,
    chunks: &[Vec<u8>],
    capacities: &[usize],
    with_statuses: bool,
) -> Vec<Outcome> {
    let s = g.stream();
    let ins: Vec<CudaSlice<u8>> =
        chunks.iter().map(|c| s.clone_htod(if c.is_empty() { &[0u8][..] } else { c }).unwrap()).collect();
    let outs: Vec<CudaSlice<u8>> = capacities.iter().map(|&c| s.clone_htod(&vec![0xA5u8; c.max(1)]).unwrap()).collect();
    let addr = |b: &CudaSlice<u8>| b.device_ptr(s).0;
    let a = Addressed {
        in_ptrs: &ins.iter().map(addr).collect::<Vec<_>>(),
        in_bytes: &chunks.iter().map(|c| c.len() as u64).collect::<Vec<_>>(),
        out_ptrs: &outs.iter().map(addr).collect::<Vec<_>>(),
        out_capacity: &capacities.iter().map(|&c| c as u64).collect::<Vec<_>>(),
        max: capacities.iter().copied().max().unwrap_or(0),
    };
    // SAFETY: every address is a live buffer of the stated size until the reads below.
    let (actual, statuses) = unsafe { decompress_at(g, codec, &a, with_statuses) };
    let statuses = statuses.unwrap_or_else(|| vec![Status::Success; chunks.len()]);
    (0..chunks.len()).map(|i| (statuses[i], actual[i], s.clone_dtoh(&outs[i]).unwrap())).collect()
}

/// Corrupt variants of valid chunks: for each, a truncation, a few flipped bits and random
/// garbage of similar size; plus an all-zero chunk and an empty one.
pub fn corruptions(rng: &mut Rng, valid: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut chunks = Vec::new();
    for c in valid.iter().filter(|c| !c.is_empty()) {
        chunks.push(c[..rng.index(c.len())].to_vec());
        let mut flipped = c.clone();
        for _ in 0..1 + rng.below(8) {
            let at = rng.index(c.len());
            flipped[at] ^= 1 << rng.below(8);
        }
        chunks.push(flipped);
        let n = rng.index(c.len() + 64);
        chunks.push(rng.bytes(n));
    }
    chunks.push(vec![0u8; 64]);
    chunks.push(Vec::new());
    chunks
}

/// Asserts that the GPU's outcome for every chunk equals the CPU decoder's: success with the same
/// size and bytes, or the same status with size 0. `cpu` decodes one chunk into a buffer of the
/// capacity.
pub fn assert_outcomes_match_cpu(
    what: &str,
    chunks: &[Vec<u8>],
    capacity: usize,
    outcomes: &[Outcome],
    cpu: impl Fn(&[u8], &mut [u8]) -> Result<usize, Status>,
) {
    for (i, (status, size, out)) in outcomes.iter().enumerate() {
        let mut cpu_out = vec![0xA5u8; capacity];
        match cpu(&chunks[i], &mut cpu_out) {
            Ok(n) => {
                assert_eq!(*status, Status::Success, "{what}, chunk {i}: the CPU decodes it, the GPU says {status}");
                assert_eq!(*size as usize, n, "{what}, chunk {i}: size");
                assert!(out[..n] == cpu_out[..n], "{what}, chunk {i}: bytes differ");
            }
            Err(e) => {
                assert_eq!(*status, e, "{what}, chunk {i}: the CPU says {e}, the GPU {status}");
                assert_eq!(*size, 0, "{what}, chunk {i}: a failed chunk reports size 0");
            }
        }
    }
}

/// Each chunk's decompressed size by the batched size query.
pub fn batched_sizes(g: &Gpu, codec: &dyn BatchedCodec, chunks: &[Vec<u8>]) -> Vec<u64> {
    let s = g.stream();
    let ins: Vec<CudaSlice<u8>> =
        chunks.iter().map(|c| s.clone_htod(if c.is_empty() { &[0u8][..] } else { c }).unwrap()).collect();
    let in_ptrs = s.clone_htod(&ins.iter().map(|b| b.device_ptr(s).0).collect::<Vec<_>>()).unwrap();
    let in_bytes = s.clone_htod(&chunks.iter().map(|c| c.len() as u64).collect::<Vec<_>>()).unwrap();
    let mut sizes = s.alloc_zeros::<u64>(chunks.len().max(1)).unwrap();
    // SAFETY: every pointer addresses a live buffer of the stated size until the read below.
    unsafe { codec.decompressed_size_async(g, &in_ptrs, &in_bytes, chunks.len(), &mut sizes).unwrap() };
    let mut sizes = s.clone_dtoh(&sizes).unwrap();
    sizes.truncate(chunks.len());
    sizes
}

/// Asserts that the size query gives the CPU's size for every chunk, and 0 where the CPU rejects
/// the chunk's header.
pub fn assert_sizes_match_cpu<E>(
    what: &str,
    chunks: &[Vec<u8>],
    sizes: &[u64],
    cpu: impl Fn(&[u8]) -> Result<usize, E>,
) {
    for (i, (c, &size)) in chunks.iter().zip(sizes).enumerate() {
        let expected = cpu(c).map_or(0, |n| n as u64);
        assert_eq!(size, expected, "{what}, chunk {i}: size query");
    }
}
