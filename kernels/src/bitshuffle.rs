//! LZ4's bitshuffle pre-pass (nvCOMP 6's `bitshuffle_mode`), forward and inverse, in place or not.
//!
//! A chunk is cut into sub-chunks of [`SUB_CHUNK_BYTES`]; in a sub-chunk of `n` `w`-byte
//! elements the first `m = 8·⌊n/8⌋` become `8·w` bit planes of `m/8` bytes (element `j` is bit
//! `j & 7` of byte `j >> 3`), most significant plane first (MSB_FIRST) or last (LSB_FIRST); the
//! remaining elements and tail bytes are copied. One block per chunk: it stages each sub-chunk in
//! shared memory before writing, which makes running in place (`out == in`) safe.
use crate::batch::block_chunks;
use crate::bits::transpose8;
use crate::Thread;

/// Bytes per independently transposed sub-chunk.
pub const SUB_CHUNK_BYTES: usize = 8192;

/// Threads per block of `lz4_bitshuffle`.
pub const BLOCK_THREADS: u32 = 256;

/// `gridDim.x` of `lz4_bitshuffle`: one block per chunk (blocks loop beyond 65535 chunks).
pub fn grid_dim(num_chunks: u64) -> u32 {
    num_chunks.clamp(1, 65535) as u32
}

/// Shared memory of one block: the staged sub-chunk.
#[repr(C, align(16))]
pub struct Shared {
    stage: [u8; SUB_CHUNK_BYTES],
}

/// Shuffles (or, with `inverse`, unshuffles) `sizes[i]` bytes from `in_ptrs[i]` to `out_ptrs[i]`.
/// `element_width` is 1, 2 or 4 (anything else copies); `msb_first` picks the plane order.
///
/// # Safety
/// The arrays hold `num_chunks` entries; `in_ptrs[i]` is readable and `out_ptrs[i]` writable for
/// `sizes[i]` bytes; an output either is its input or overlaps nothing; `smem` is this block's.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn bitshuffle<T: Thread>(
    t: &T,
    smem: *mut Shared,
    in_ptrs: *const *const u8,
    sizes: *const u64,
    num_chunks: u64,
    out_ptrs: *const *mut u8,
    element_width: u32,
    msb_first: bool,
    inverse: bool,
) {
    let stage = (&raw mut (*smem).stage).cast::<u8>();
    let (tid, threads) = (t.thread_idx() as usize, t.block_dim() as usize);
    let w = if matches!(element_width, 1 | 2 | 4) { element_width as usize } else { 0 };
    for chunk in block_chunks(t, num_chunks) {
        let (src, dst, len) = (*in_ptrs.add(chunk), *out_ptrs.add(chunk), *sizes.add(chunk) as usize);
        let mut start = 0;
        while start < len {
            let n = (len - start).min(SUB_CHUNK_BYTES);
            let mut k = tid;
            while k < n {
                *stage.add(k) = *src.add(start + k);
                k += threads;
            }
            t.sync_threads();
            let out = dst.add(start);
            // m elements form the planes; w == 0 (not a shuffle width) copies everything.
            let m = n.checked_div(w).unwrap_or(0) & !7;
            let plane_bytes = m / 8;
            let planes = 8 * w;
            let slot = |bit: usize| if msb_first { planes - 1 - bit } else { bit };
            // One work item = (group g of 8 elements, byte k of the element): 8 plane bytes.
            let mut item = tid;
            while item < plane_bytes * w {
                let (g, k) = (item / w.max(1), item % w.max(1));
                if inverse {
                    let mut x = 0u64;
                    for b in 0..8 {
                        x |= (*stage.add(slot(8 * k + b) * plane_bytes + g) as u64) << (8 * b);
                    }
                    let x = transpose8(x);
                    for j in 0..8 {
                        *out.add((8 * g + j) * w + k) = (x >> (8 * j)) as u8;
                    }
                } else {
                    let mut x = 0u64;
                    for j in 0..8 {
                        x |= (*stage.add((8 * g + j) * w + k) as u64) << (8 * j);
                    }
                    let x = transpose8(x);
                    for b in 0..8 {
                        *out.add(slot(8 * k + b) * plane_bytes + g) = (x >> (8 * b)) as u8;
                    }
                }
                item += threads;
            }
            let mut k = m * w + tid;
            while k < n {
                *out.add(k) = *stage.add(k);
                k += threads;
            }
            // The next sub-chunk reuses the stage.
            t.sync_threads();
            start += n;
        }
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// See [`super::bitshuffle`].
        fn lz4_bitshuffle(
            in_ptrs: *const *const u8,
            sizes: *const u64,
            num_chunks: u64,
            out_ptrs: *const *mut u8,
            element_width: u32,
            msb_first: u32,
            inverse: u32,
        ) [smem: static bitshuffle: super::Shared] {
            super::bitshuffle(
                &Ptx,
                smem,
                in_ptrs,
                sizes,
                num_chunks,
                out_ptrs,
                element_width,
                msb_first != 0,
                inverse != 0,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{launch, SendPtr};
    use crate::test_rng::xorshift;
    use std::{vec, vec::Vec};

    /// The definition, bit by bit: plane slot of bit `b` of element `e` holds it at bit `e & 7`
    /// of byte `e >> 3`.
    fn reference(input: &[u8], w: usize, msb_first: bool) -> Vec<u8> {
        let mut out = input.to_vec();
        for (s, sub) in input.chunks(SUB_CHUNK_BYTES).enumerate() {
            let m = (sub.len() / w) & !7;
            let planes = 8 * w;
            let o = &mut out[s * SUB_CHUNK_BYTES..];
            o[..m * w].fill(0);
            for e in 0..m {
                for b in 0..planes {
                    let bit = (sub[e * w + b / 8] >> (b % 8)) & 1;
                    let slot = if msb_first { planes - 1 - b } else { b };
                    o[slot * (m / 8) + e / 8] |= bit << (e % 8);
                }
            }
        }
        out
    }

    /// Runs the kernel in the simulator from `ins[i]` to `outs[i]` (the same buffers: in place).
    fn run(ins: &[*const u8], outs: &[*mut u8], sizes: &[u64], w: u32, msb: bool, inverse: bool) {
        let (i, o, s) = (
            SendPtr(ins.as_ptr() as *mut *const u8),
            SendPtr(outs.as_ptr() as *mut *mut u8),
            SendPtr(sizes.as_ptr() as *mut u64),
        );
        launch::<Shared, _>(2, 64, |t, smem| unsafe {
            bitshuffle(t, smem, i.get(), s.get(), sizes.len() as u64, o.get(), w, msb, inverse)
        });
    }

    #[test]
    fn matches_the_definition_and_inverts_in_place() {
        let mut next = xorshift(0x1234_5678_9abc_def1);
        let mut byte = || next() as u8;
        for w in [1u32, 2, 4] {
            for msb in [false, true] {
                let chunks: Vec<Vec<u8>> = [0usize, 3, 8 * w as usize, 8192, 8192 + 101, 20000]
                    .iter()
                    .map(|&n| (0..n).map(|_| byte()).collect())
                    .collect();
                let mut outs: Vec<Vec<u8>> = chunks.iter().map(|c| vec![0; c.len()]).collect();
                let sizes: Vec<u64> = chunks.iter().map(|c| c.len() as u64).collect();
                let ins: Vec<*const u8> = chunks.iter().map(|c| c.as_ptr()).collect();
                run(&ins, &outs.iter_mut().map(|c| c.as_mut_ptr()).collect::<Vec<_>>(), &sizes, w, msb, false);
                for (c, o) in chunks.iter().zip(&outs) {
                    assert_eq!(*o, reference(c, w as usize, msb), "w {w}, msb {msb}, {} bytes", c.len());
                }
                // Inverse in place: the shuffled buffers are both input and output.
                let mut back = outs;
                let ptrs: Vec<*mut u8> = back.iter_mut().map(|c| c.as_mut_ptr()).collect();
                run(&ptrs.iter().map(|&p| p as *const u8).collect::<Vec<_>>(), &ptrs, &sizes, w, msb, true);
                assert_eq!(back, chunks, "w {w}, msb {msb}: inverse in place");
            }
        }
    }
}
