//! The one harness of the kernel simulator tests (`tests/sim_*.rs`): it builds device-like
//! batches from host chunks (each placed at a chosen offset from a 16-byte boundary, outputs
//! poisoned with guard bytes), hands the kernel body its `CompressArgs` / `DecompressArgs` /
//! `SizeArgs` to launch in `gpucomp_kernels::sim`, checks what every kernel owes (nothing
//! written past an output's bound, sizes within it), and compares the results with the CPU
//! oracle ([`Decoder`], [`check_decompress`]). Each algorithm's test file holds only its cases.
#![allow(dead_code)] // Each test binary uses the parts its algorithm needs.

use gpucomp_kernels::batch::{CompressArgs, DecompressArgs, SizeArgs};
use gpucomp_kernels::status;

/// Guard bytes after each output's capacity, which must keep the poison.
const SLACK: usize = 64;
/// The poison byte outputs are filled with.
const POISON: u8 = 0xA5;

/// One chunk's result: status, size (`out_bytes` / `out_actual`), and the output's bytes up to
/// that size (at most its capacity).
pub type Out = (i32, u64, Vec<u8>);

/// `data` copied `shift` bytes past a 16-byte boundary of a buffer of its own (with 20 bytes of
/// room), and the chunk's address in it.
struct Placed {
    _buf: Vec<u128>,
    ptr: *const u8,
}

fn place(data: &[u8], shift: usize) -> Placed {
    let mut buf = vec![0u128; (data.len() + shift + 20).div_ceil(16)];
    // SAFETY: the buffer holds `buf.len() * 16` initialised bytes, more than `shift + len`.
    let ptr = unsafe {
        let p = (buf.as_mut_ptr() as *mut u8).add(shift);
        std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len());
        p as *const u8
    };
    Placed { _buf: buf, ptr }
}

/// Poisoned output buffers of capacities `caps`, output `i` starting `shift(i)` bytes past a
/// 16-byte boundary.
struct Outputs {
    bufs: Vec<Vec<u128>>,
    ptrs: Vec<*mut u8>,
    caps: Vec<usize>,
    shifts: Vec<usize>,
}

impl Outputs {
    fn new(caps: &[usize], shift: impl Fn(usize) -> usize) -> Self {
        let shifts: Vec<usize> = (0..caps.len()).map(shift).collect();
        let mut bufs: Vec<Vec<u128>> = caps
            .iter()
            .zip(&shifts)
            .map(|(&c, &s)| vec![u128::from_ne_bytes([POISON; 16]); (c + s + SLACK).div_ceil(16) + 1])
            .collect();
        // SAFETY: each buffer has room for its shift.
        let ptrs = bufs.iter_mut().zip(&shifts).map(|(o, &s)| unsafe { (o.as_mut_ptr() as *mut u8).add(s) }).collect();
        Outputs { bufs, ptrs, caps: caps.to_vec(), shifts }
    }

    /// The results, after checking that nothing was written past any capacity.
    fn results(&self, statuses: &[i32], sizes: &[u64]) -> Vec<Out> {
        (0..self.bufs.len())
            .map(|i| {
                let o = &self.bufs[i];
                // SAFETY: the buffer holds `o.len() * 16` initialised bytes.
                let bytes = unsafe { std::slice::from_raw_parts(o.as_ptr() as *const u8, o.len() * 16) };
                let (bytes, c) = (&bytes[self.shifts[i]..], self.caps[i]);
                assert!(bytes[c..].iter().all(|&x| x == POISON), "chunk {i}: wrote past the output capacity {c}");
                (statuses[i], sizes[i], bytes[..(sizes[i] as usize).min(c)].to_vec())
            })
            .collect()
    }
}

/// Runs a batched compression kernel (`launch`, given the batch) on `inputs`, told lengths
/// `lens` (usually the inputs' own), with output capacities `caps`; input `i` lies `shift(i).0`
/// bytes and its output `shift(i).1` bytes past a 16-byte boundary. Returns (status,
/// out_bytes, the output up to out_bytes) per chunk, after checking that nothing was written
/// past a capacity.
pub fn compress(
    inputs: &[&[u8]],
    lens: &[u64],
    caps: &[usize],
    shift: impl Fn(usize) -> (usize, usize),
    launch: impl FnOnce(CompressArgs),
) -> Vec<Out> {
    let ins: Vec<Placed> = inputs.iter().enumerate().map(|(i, c)| place(c, shift(i).0)).collect();
    let in_ptrs: Vec<*const u8> = ins.iter().map(|p| p.ptr).collect();
    let outs = Outputs::new(caps, |i| shift(i).1);
    let (mut out_bytes, mut statuses) = (vec![u64::MAX; inputs.len()], vec![-1i32; inputs.len()]);
    launch(CompressArgs {
        in_ptrs: in_ptrs.as_ptr(),
        in_bytes: lens.as_ptr(),
        num_chunks: inputs.len() as u64,
        out_ptrs: outs.ptrs.as_ptr(),
        out_bytes: out_bytes.as_mut_ptr(),
        statuses: statuses.as_mut_ptr(),
    });
    outs.results(&statuses, &out_bytes)
}

/// The lengths of `chunks`, as a kernel is told them.
pub fn lens(chunks: &[&[u8]]) -> Vec<u64> {
    chunks.iter().map(|c| c.len() as u64).collect()
}

/// Runs a batched decompression kernel (`launch`, given the batch) on `chunks` with output
/// capacities `caps`; chunk `i` lies `shift(i).0` bytes and its output `shift(i).1` bytes past a
/// 16-byte boundary. Returns (status, out_actual, the first out_actual output bytes) per chunk,
/// after checking that nothing was written past the capacity and that out_actual fits in it.
pub fn decompress(
    chunks: &[&[u8]],
    caps: &[usize],
    shift: impl Fn(usize) -> (usize, usize),
    launch: impl FnOnce(DecompressArgs),
) -> Vec<Out> {
    let ins: Vec<Placed> = chunks.iter().enumerate().map(|(i, c)| place(c, shift(i).0)).collect();
    let in_ptrs: Vec<*const u8> = ins.iter().map(|p| p.ptr).collect();
    let in_bytes = lens(chunks);
    let outs = Outputs::new(caps, |i| shift(i).1);
    let out_cap: Vec<u64> = caps.iter().map(|&c| c as u64).collect();
    let (mut actual, mut statuses) = (vec![u64::MAX; chunks.len()], vec![-1i32; chunks.len()]);
    launch(DecompressArgs {
        in_ptrs: in_ptrs.as_ptr(),
        in_bytes: in_bytes.as_ptr(),
        num_chunks: chunks.len() as u64,
        out_ptrs: outs.ptrs.as_ptr(),
        out_capacity: out_cap.as_ptr(),
        out_actual: actual.as_mut_ptr(),
        statuses: statuses.as_mut_ptr(),
    });
    for (i, (&a, &c)) in actual.iter().zip(caps).enumerate() {
        assert!(a <= c as u64, "chunk {i}: out_actual {a} > capacity {c}");
    }
    outs.results(&statuses, &actual)
}

/// Runs a size-query kernel (`launch`, given the batch) on `chunks` (`None`: a null pointer),
/// told lengths `lens`; the sizes.
pub fn sizes(chunks: &[Option<&[u8]>], lens: &[u64], launch: impl FnOnce(SizeArgs)) -> Vec<u64> {
    let in_ptrs: Vec<*const u8> = chunks.iter().map(|c| c.map_or(std::ptr::null(), |c| c.as_ptr())).collect();
    let mut sizes = vec![u64::MAX; chunks.len()];
    launch(SizeArgs {
        in_ptrs: in_ptrs.as_ptr(),
        in_bytes: lens.as_ptr(),
        num_chunks: chunks.len() as u64,
        out_sizes: sizes.as_mut_ptr(),
    });
    sizes
}

/// An algorithm's decompression kernel in the simulator and its CPU oracle.
pub trait Decoder {
    /// Launches the decompression kernel body on `args` (a grid smaller than the batch where
    /// the kernel loops over chunks, so that the loop runs).
    fn launch(args: DecompressArgs);
    /// The CPU decoder's verdict on `chunk` with `cap` output bytes: status and bytes.
    fn reference(chunk: &[u8], cap: usize) -> (i32, Vec<u8>);
}

/// Decodes `chunks` with capacities `caps` (placed as `shift` says) on the simulated GPU and
/// checks every chunk against the reference: status; out_actual and bytes of a decoded chunk;
/// out_actual 0 for a failed one. Returns the results and how many chunks decoded.
pub fn check_decompress<D: Decoder>(
    what: &str,
    chunks: &[&[u8]],
    caps: &[usize],
    shift: impl Fn(usize) -> (usize, usize),
) -> (Vec<Out>, usize) {
    let got = decompress(chunks, caps, shift, D::launch);
    let mut ok = 0;
    for (i, (c, (st, actual, out))) in chunks.iter().zip(&got).enumerate() {
        let (want_st, want) = D::reference(c, caps[i]);
        assert_eq!(*st, want_st, "{what}: chunk {i} of {} bytes, capacity {}: status", c.len(), caps[i]);
        if want_st == status::SUCCESS {
            assert_eq!(*actual as usize, want.len(), "{what}: chunk {i}: out_actual");
            assert!(*out == want, "{what}: chunk {i}: output differs from the reference");
            ok += 1;
        } else {
            assert_eq!(*actual, 0, "{what}: chunk {i}: out_actual of a failed chunk");
        }
    }
    (got, ok)
}

/// `out_actual` and `statuses` may each be null (the other is still written), and a null output
/// pointer with a nonzero size is a corrupt chunk: decodes `chunk` (of `input`) twice in one
/// batch, the second time into a null output, once without statuses and once without sizes.
pub fn check_null_result_arrays<D: Decoder>(chunk: &[u8], input: &[u8]) {
    let in_ptrs = [chunk.as_ptr(), chunk.as_ptr()];
    let in_bytes = [chunk.len() as u64; 2];
    let mut out = vec![0u8; input.len()];
    let out_ptrs = [out.as_mut_ptr(), std::ptr::null_mut()];
    let caps = [input.len() as u64; 2];
    let (mut actual, mut statuses) = ([u64::MAX; 2], [-1i32; 2]);
    for (out_actual, st) in [(actual.as_mut_ptr(), std::ptr::null_mut()), (std::ptr::null_mut(), statuses.as_mut_ptr())]
    {
        D::launch(DecompressArgs {
            in_ptrs: in_ptrs.as_ptr(),
            in_bytes: in_bytes.as_ptr(),
            num_chunks: 2,
            out_ptrs: out_ptrs.as_ptr(),
            out_capacity: caps.as_ptr(),
            out_actual,
            statuses: st,
        });
    }
    assert_eq!(actual, [input.len() as u64, 0]);
    assert_eq!(statuses, [status::SUCCESS, status::CANNOT_DECOMPRESS]);
    assert!(out == input);
}

/// The CPU decoder's verdict as [`Decoder::reference`] returns it, from a decode into `cap`
/// bytes (`Ok(n)`: the first `n` bytes) and the status an error maps to.
pub fn verdict<E>(
    cap: usize,
    decode: impl FnOnce(&mut [u8]) -> Result<usize, E>,
    status_of: impl FnOnce(E) -> i32,
) -> (i32, Vec<u8>) {
    let mut out = vec![0u8; cap];
    match decode(&mut out) {
        Ok(n) => (status::SUCCESS, out[..n].to_vec()),
        Err(e) => (status_of(e), Vec::new()),
    }
}
