//! The differential target: one chunk decoded by the kernel decoders, run on the CPU by the
//! kernel crate's simulator (`gpucomp_kernels::sim`, the same bodies the PTX is built from), and
//! by the CPU decoder (`gpucomp::cpu::decompress_chunk`); their verdicts must agree.
//!
//! What must agree, for every algorithm (LZ4 with every data type and bitshuffle mode, Cascaded
//! asymmetric and symmetric, Bitcomp both algorithms, ANS every mode):
//! * the size-query kernel's size and `cpu::decompressed_chunk_size` (0 where the CPU refuses);
//! * the decompression kernel's status and the CPU decoder's, with one class mapping: the LZ4
//!   and Cascaded kernels report every decode failure as `nvcompErrorCannotDecompress`, as
//!   nvCOMP's do, where the CPU decoders name some (`OutputBufferTooSmall`, `NotSupported`,
//!   `ChunkSizeTooLarge`), so for those two any CPU error is that one status; the ANS and Bitcomp
//!   kernels name the same errors as their CPU decoders (their simulator tests assert it), so
//!   those statuses must be equal;
//! * `out_actual` and the bytes of a decoded chunk, and `out_actual` 0 for a failed one;
//! * nothing written past the output capacity (guard bytes).
use gpucomp::{cpu, Algorithm, AnsOptions, BitcompOptions, BitshuffleMode, CascadedOptions, Status};
use gpucomp_kernels::batch::{DecompressArgs, SizeArgs};
use gpucomp_kernels::sim::{launch, SendPtr};
use gpucomp_kernels::{ans, bitcomp, bitshuffle, cascaded, lz4, status};

use super::{lz4_options, split};

/// Largest output capacity (plus the small offsets below): the simulator runs one OS thread per
/// GPU thread, so every execution stays cheap.
const MAX_OUTPUT: usize = 64 << 10;
/// Guard bytes after the output capacity, which must keep [`POISON`].
pub(crate) const SLACK: usize = 64;
pub(crate) const POISON: u8 = 0xA5;

/// One chunk, both decoders: byte 0 the algorithm (`% 4`: LZ4, Cascaded, Bitcomp, ANS; for LZ4
/// `/ 4` its data type and bitshuffle mode, as [`crate::lz4`]), byte 1 the output capacity
/// (bits 6-7: the declared size, that less or more bits 0-5, or bits 0-5 KiB), byte 2 the
/// input's and output's offsets from a 16-byte boundary (bits 0-3, 4-7; rounded down to the
/// alignment the batched API guarantees), the rest the chunk.
pub fn differential(data: &[u8]) {
    compare(&Simulator, data)
}

/// Where the kernel decoders run: the simulator on the CPU, or a GPU ([`crate::differential_gpu`]).
pub(crate) trait Kernels {
    /// The size-query kernel on `chunk`, and the decompression kernel (and for LZ4 with
    /// bitshuffle the inverse shuffle) on it with `cap` output bytes, placed at offsets `shift`:
    /// (size, status, out_actual, the output up to out_actual). Asserts that nothing was written
    /// past the capacity and that out_actual fits in it.
    fn run(&self, kernel: Kernel, algorithm: &Algorithm, chunk: &[u8], cap: usize, shift: (usize, usize)) -> Verdict;
}

/// What the kernels said of one chunk: size query, status, out_actual, decoded bytes.
pub(crate) type Verdict = (u64, i32, u64, Vec<u8>);

/// The kernel bodies in the simulator.
struct Simulator;

impl Kernels for Simulator {
    fn run(&self, kernel: Kernel, _: &Algorithm, chunk: &[u8], cap: usize, shift: (usize, usize)) -> Verdict {
        let size = sim_size(kernel, chunk);
        let (st, actual, got) = sim_decompress(kernel, chunk, cap, shift);
        (size, st, actual, got)
    }
}

/// One chunk through `kernels` and the CPU decoder (input layout: [`differential`]).
pub(crate) fn compare(kernels: &impl Kernels, data: &[u8]) {
    let (head, chunk) = split::<3>(data);
    let (algorithm, kernel) = match head[0] % 4 {
        0 => {
            let o = lz4_options([head[0] / 4, 0]);
            let width = o.element_width().expect("the target's LZ4 types have a width") as u32;
            let shuffle = match o.bitshuffle {
                BitshuffleMode::MsbFirst => Some(true),
                BitshuffleMode::LsbFirst => Some(false),
                _ => None,
            };
            (Algorithm::Lz4(o), Kernel::Lz4 { width, shuffle })
        }
        1 => (Algorithm::Cascaded(CascadedOptions::default()), Kernel::Cascaded),
        2 => (Algorithm::Bitcomp(BitcompOptions::default()), Kernel::Bitcomp),
        _ => (Algorithm::Ans(AnsOptions::default()), Kernel::Ans),
    };
    let declared = cpu::decompressed_chunk_size(&algorithm, chunk);

    let low = (head[1] & 63) as usize;
    let cap = match (declared.ok().filter(|&n| n <= MAX_OUTPUT), head[1] >> 6) {
        (Some(n), 0) => n,
        (Some(n), 1) => n.saturating_sub(low),
        (Some(n), 2) => n + low,
        _ => low << 10,
    };
    let (in_align, out_align) = kernel.alignments();
    let shift = ((head[2] & 15) as usize / in_align * in_align, (head[2] >> 4) as usize / out_align * out_align);

    let mut want = vec![0u8; cap];
    let want = cpu::decompress_chunk(&algorithm, chunk, &mut want).map(|n| {
        want.truncate(n);
        want
    });
    let (size, st, actual, got) = kernels.run(kernel, &algorithm, chunk, cap, shift);
    assert_eq!(size, declared.map_or(0, |n| n as u64), "{algorithm:?}: size query");
    let what = format!("{algorithm:?}, {} bytes, capacity {cap}, offsets {shift:?}", chunk.len());
    match want {
        Ok(want) => {
            assert_eq!(st, status::SUCCESS, "{what}: status (CPU decoded {} bytes)", want.len());
            assert_eq!(actual, want.len() as u64, "{what}: out_actual");
            assert!(got == want, "{what}: decoded bytes differ");
        }
        Err(e) => {
            assert_eq!(st, kernel.status(e), "{what}: status (CPU: {e:?})");
            assert_eq!(actual, 0, "{what}: out_actual of a failed chunk");
        }
    }
}

/// The kernels of one algorithm (LZ4: with the element width and the bitshuffle order it undoes,
/// `Some(true)` for MSB_FIRST).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kernel {
    Lz4 { width: u32, shuffle: Option<bool> },
    Cascaded,
    Bitcomp,
    Ans,
}

impl Kernel {
    /// The status the kernel writes where the CPU decoder fails with `e` (module docs).
    fn status(self, e: Status) -> i32 {
        match self {
            Kernel::Lz4 { .. } | Kernel::Cascaded => status::CANNOT_DECOMPRESS,
            Kernel::Ans | Kernel::Bitcomp => e as i32,
        }
    }

    /// The (input, output) alignments of a decompression that the batched API guarantees
    /// (`host/batched/*.rs`); for LZ4 the output's is the element width.
    pub(crate) fn alignments(self) -> (usize, usize) {
        match self {
            Kernel::Lz4 { width, .. } => (1, width as usize),
            Kernel::Cascaded => (4, 8),
            Kernel::Bitcomp => (8, 8),
            Kernel::Ans => (16, 16),
        }
    }
}

/// A buffer of 16-byte words holding `len` bytes starting `shift` bytes past its start, plus
/// `extra` bytes, every byte `fill`.
fn buffer(shift: usize, len: usize, extra: usize, fill: u8) -> Vec<u128> {
    vec![u128::from_ne_bytes([fill; 16]); (shift + len + extra).div_ceil(16)]
}

/// The bytes of `buf`.
fn bytes(buf: &[u128]) -> &[u8] {
    // SAFETY: the words are initialised and have no padding; u8 has alignment 1.
    unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), buf.len() * 16) }
}

/// The bytes of `buf`, writable.
fn bytes_mut(buf: &mut [u128]) -> &mut [u8] {
    // SAFETY: as in `bytes`; any byte pattern is a valid u128.
    unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<u8>(), buf.len() * 16) }
}

/// The chunk copied `shift` bytes past a 16-byte boundary (with zeros after it, as the batched
/// tests place chunks) and the buffer that holds it.
fn place(chunk: &[u8], shift: usize) -> (Vec<u128>, *const u8) {
    let mut buf = buffer(shift, chunk.len(), 20, 0);
    bytes_mut(&mut buf)[shift..shift + chunk.len()].copy_from_slice(chunk);
    let ptr = bytes(&buf)[shift..].as_ptr();
    (buf, ptr)
}

/// The algorithm's size-query kernel on `chunk` in the simulator.
fn sim_size(kernel: Kernel, chunk: &[u8]) -> u64 {
    let (_buf, ptr) = place(chunk, 0);
    let (in_ptrs, in_bytes, mut size) = ([ptr], [chunk.len() as u64], u64::MAX);
    let args =
        SizeArgs { in_ptrs: in_ptrs.as_ptr(), in_bytes: in_bytes.as_ptr(), num_chunks: 1, out_sizes: &raw mut size };
    // SAFETY (each launch): the arrays hold one entry each, the chunk is readable for its length
    // and `size` writable. One warp: the size kernels take a thread (LZ4: a warp) per chunk.
    match kernel {
        Kernel::Lz4 { .. } => launch::<lz4::decompress::DecompressShared, _>(1, 32, |t, s| unsafe {
            lz4::decompress::decompressed_size(t, s, args)
        }),
        Kernel::Cascaded => launch::<(), _>(1, 32, |t, _| unsafe { cascaded::decompressed_size(t, args) }),
        Kernel::Bitcomp => launch::<(), _>(1, 32, |t, _| unsafe { bitcomp::compress::decompressed_size(t, args) }),
        Kernel::Ans => launch::<(), _>(1, 32, |t, _| unsafe { ans::decompressed_size(t, args) }),
    }
    size
}

/// The algorithm's decompression kernel (and for LZ4 with bitshuffle the inverse shuffle, in
/// place over the decoded sizes, as `host/batched/lz4.rs` queues it) on `chunk` with `cap`
/// output bytes, placed at offsets `shift`: (status, out_actual, the output up to out_actual).
/// Asserts that nothing was written past the capacity and that out_actual fits in it.
fn sim_decompress(kernel: Kernel, chunk: &[u8], cap: usize, shift: (usize, usize)) -> (i32, u64, Vec<u8>) {
    let (_in_buf, in_ptr) = place(chunk, shift.0);
    let mut out = buffer(shift.1, cap, SLACK, POISON);
    let out_ptr = bytes_mut(&mut out)[shift.1..].as_mut_ptr();
    let (in_ptrs, in_bytes, out_ptrs, caps) = ([in_ptr], [chunk.len() as u64], [out_ptr], [cap as u64]);
    let (mut actual, mut st) = (u64::MAX, -1i32);
    let args = DecompressArgs {
        in_ptrs: in_ptrs.as_ptr(),
        in_bytes: in_bytes.as_ptr(),
        num_chunks: 1,
        out_ptrs: out_ptrs.as_ptr(),
        out_capacity: caps.as_ptr(),
        out_actual: &raw mut actual,
        statuses: &raw mut st,
    };
    // SAFETY (each launch): one chunk, readable for its length; its output writable for `cap`
    // bytes and overlapping nothing; each kernel launched with its block size and shared memory
    // type, except LZ4's with one warp: it decodes a chunk per warp without block barriers, so
    // on a batch of one chunk the block's other three warps only exit (and threads are what the
    // simulator spends its time on).
    match kernel {
        Kernel::Lz4 { width, shuffle } => {
            launch::<lz4::decompress::DecompressShared, _>(1, 32, |t, s| unsafe {
                lz4::decompress::decompress(t, s, args)
            });
            if let Some(msb_first) = shuffle {
                let (mut src, mut sizes) = ([out_ptr.cast_const()], [actual]);
                let (src, sizes) = (SendPtr(src.as_mut_ptr()), SendPtr(sizes.as_mut_ptr()));
                let dst = SendPtr(out_ptrs.as_ptr().cast_mut());
                // SAFETY: the decoded bytes, `actual` ≤ cap (0 for a failed chunk), unshuffled
                // in place, which the kernel allows.
                launch::<bitshuffle::Shared, _>(1, bitshuffle::BLOCK_THREADS, |t, s| unsafe {
                    bitshuffle::bitshuffle(t, s, src.get(), sizes.get(), 1, dst.get(), width, msb_first, true)
                });
            }
        }
        Kernel::Cascaded => launch::<cascaded::Shared, _>(1, cascaded::BLOCK_THREADS, |t, s| unsafe {
            cascaded::decompress(t, s, args, core::ptr::null_mut(), 1)
        }),
        Kernel::Bitcomp => launch::<bitcomp::decompress::Shared, _>(1, bitcomp::BLOCK_THREADS, |t, s| unsafe {
            bitcomp::decompress::decompress(t, s, args, core::ptr::null_mut(), 1)
        }),
        Kernel::Ans => launch::<ans::decompress::Shared, _>(1, ans::BLOCK_THREADS, |t, s| unsafe {
            ans::decompress::decompress(t, s, args, core::ptr::null_mut(), 1)
        }),
    }
    assert!(actual <= cap as u64, "{kernel:?}: out_actual {actual} > capacity {cap}");
    let out = &bytes(&out)[shift.1..];
    assert!(out[cap..].iter().all(|&b| b == POISON), "{kernel:?}: wrote past the output capacity {cap}");
    (st, actual, out[..actual as usize].to_vec())
}
