//! The batched decompression harness of the kernel simulator tests: chunks placed at chosen
//! offsets from 16-byte boundaries, poisoned outputs with guard bytes, and the checks every
//! decompression kernel owes (nothing written past the capacity, sizes within it).
use gpucomp_kernels::sim::SendPtr;

/// Guard bytes after each output's capacity, which must keep the poison.
const SLACK: usize = 64;
/// The poison byte outputs are filled with.
const POISON: u8 = 0xA5;

/// The device arrays of one batched decompression, as a kernel takes them.
#[derive(Clone, Copy)]
pub struct Batch {
    pub in_ptrs: SendPtr<*const u8>,
    pub in_bytes: SendPtr<u64>,
    pub num_chunks: u64,
    pub out_ptrs: SendPtr<*mut u8>,
    pub out_capacity: SendPtr<u64>,
    pub out_actual: SendPtr<u64>,
    pub statuses: SendPtr<i32>,
}

/// Runs a batched decompression kernel (`launch`, given the arrays) on `chunks` with output
/// capacities `caps`; chunk `i` lies `shift(i).0` bytes and its output `shift(i).1` bytes past a
/// 16-byte boundary. Returns (status, out_actual, the first out_actual output bytes) per chunk,
/// after checking that nothing was written past the capacity and that out_actual fits in it.
pub fn decompress(
    chunks: &[&[u8]],
    caps: &[usize],
    shift: impl Fn(usize) -> (usize, usize),
    launch: impl FnOnce(Batch),
) -> Vec<(i32, u64, Vec<u8>)> {
    let mut ins: Vec<Vec<u128>> = chunks.iter().map(|c| vec![0u128; (c.len() + 20).div_ceil(16)]).collect();
    for (i, (b, c)) in ins.iter_mut().zip(chunks).enumerate() {
        // SAFETY: the buffer holds `b.len() * 16` initialised bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr() as *mut u8, b.len() * 16) };
        bytes[shift(i).0..shift(i).0 + c.len()].copy_from_slice(c);
    }
    // SAFETY: `shift(i).0 + len` lies inside each input buffer (20 bytes of room).
    let in_ptrs: Vec<*const u8> =
        ins.iter().enumerate().map(|(i, b)| unsafe { (b.as_ptr() as *const u8).add(shift(i).0) }).collect();
    let in_bytes: Vec<u64> = chunks.iter().map(|c| c.len() as u64).collect();
    let mut outs: Vec<Vec<u128>> =
        caps.iter().map(|&c| vec![u128::from_ne_bytes([POISON; 16]); (c + SLACK).div_ceil(16) + 1]).collect();
    // SAFETY: each output buffer has 16 bytes of room for the shift.
    let out_ptrs: Vec<*mut u8> =
        outs.iter_mut().enumerate().map(|(i, o)| unsafe { (o.as_mut_ptr() as *mut u8).add(shift(i).1) }).collect();
    let out_cap: Vec<u64> = caps.iter().map(|&c| c as u64).collect();
    let (mut actual, mut statuses) = (vec![u64::MAX; chunks.len()], vec![-1i32; chunks.len()]);
    launch(Batch {
        in_ptrs: SendPtr(in_ptrs.as_ptr() as *mut *const u8),
        in_bytes: SendPtr(in_bytes.as_ptr() as *mut u64),
        num_chunks: chunks.len() as u64,
        out_ptrs: SendPtr(out_ptrs.as_ptr() as *mut *mut u8),
        out_capacity: SendPtr(out_cap.as_ptr() as *mut u64),
        out_actual: SendPtr(actual.as_mut_ptr()),
        statuses: SendPtr(statuses.as_mut_ptr()),
    });
    outs.iter()
        .zip(caps)
        .enumerate()
        .map(|(i, (o, &c))| {
            // SAFETY: the buffer holds `o.len() * 16` initialised bytes.
            let bytes = unsafe { std::slice::from_raw_parts(o.as_ptr() as *const u8, o.len() * 16) };
            let bytes = &bytes[shift(i).1..];
            assert!(bytes[c..].iter().all(|&x| x == POISON), "chunk {i}: wrote past the output capacity");
            assert!(actual[i] <= c as u64, "chunk {i}: out_actual {} > capacity {c}", actual[i]);
            (statuses[i], actual[i], bytes[..actual[i] as usize].to_vec())
        })
        .collect()
}
