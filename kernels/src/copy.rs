//! Batched copy: one block per buffer, many buffers per launch.
//!
//! The high-level API uses it to gather compressed chunks from their staging slots into the
//! container's data region, on the device, in one launch.
use crate::batch::block_chunks;
use crate::Thread;

/// Threads per block of [`batched_copy`].
pub const BLOCK_THREADS: u32 = 256;

/// Grid size for `count` buffers: one block each, capped (blocks loop over the rest).
pub fn grid_dim(count: u64) -> u32 {
    count.clamp(1, 65535) as u32
}

/// Copies `sizes[i]` bytes from `src[i]` to `dst[i]` for every `i < count`; an entry whose
/// source is its destination (a chunk compressed in place) is skipped.
///
/// # Safety
/// `src`, `dst` and `sizes` hold `count` entries; each `src[i]` is readable and each `dst[i]`
/// writable for `sizes[i]` bytes; destinations do not overlap each other or any other entry's
/// source.
#[inline(always)]
pub unsafe fn batched_copy<T: Thread>(
    t: &T,
    src: *const *const u8,
    dst: *const *mut u8,
    sizes: *const u64,
    count: u64,
) {
    for i in block_chunks(t, count) {
        let (s, d) = (*src.add(i), *dst.add(i));
        if !core::ptr::eq(s, d) {
            copy_block(t, s, d, *sizes.add(i) as usize);
        }
    }
}

/// One block copies `n` bytes, in the widest words (16, 8 or 4 bytes) that both ends share an
/// alignment for: chunks of 8-byte-aligned containers sit 8 bytes off their 16-byte staging
/// slots half the time, and a byte copy of those ran at half the bandwidth of the rest.
#[inline(always)]
unsafe fn copy_block<T: Thread>(t: &T, s: *const u8, d: *mut u8, n: usize) {
    let offset = (s as usize).wrapping_sub(d as usize);
    if offset & 15 == 0 {
        copy_words::<T, u128>(t, s, d, n)
    } else if offset & 7 == 0 {
        copy_words::<T, u64>(t, s, d, n)
    } else if offset & 3 == 0 {
        copy_words::<T, u32>(t, s, d, n)
    } else {
        copy_words::<T, u8>(t, s, d, n)
    }
}

/// [`copy_block`] in words of `W`, whose alignment `s` and `d` share: the bytes before `d`
/// reaches it and after the last whole word go one by one.
#[inline(always)]
unsafe fn copy_words<T: Thread, W: Copy>(t: &T, s: *const u8, d: *mut u8, n: usize) {
    let (tid, threads) = (t.thread_idx() as usize, t.block_dim() as usize);
    let size = core::mem::size_of::<W>();
    let head = d.align_offset(size).min(n);
    let words = (n - head) / size;
    let mut k = tid;
    while k < head {
        *d.add(k) = *s.add(k);
        k += threads;
    }
    let (ws, wd) = (s.add(head) as *const W, d.add(head) as *mut W);
    let mut k = tid;
    while k < words {
        *wd.add(k) = *ws.add(k);
        k += threads;
    }
    let mut k = head + words * size + tid;
    while k < n {
        *d.add(k) = *s.add(k);
        k += threads;
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// See [`super::batched_copy`].
        fn batched_copy(src: *const *const u8, dst: *const *mut u8, sizes: *const u64, count: u64) [] {
            super::batched_copy(&Ptx, src, dst, sizes, count)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{launch, SendPtr};
    use std::{vec, vec::Vec};

    #[test]
    fn copies_every_buffer_at_any_alignment() {
        // Every size class against source and destination offsets from 16-byte-aligned bases:
        // 16-, 8-, 4-byte and byte words all run, with heads and tails.
        let sizes = [0u64, 1, 15, 16, 17, 100, 1000, 4099];
        let offsets = [(0, 0), (0, 8), (8, 0), (4, 12), (3, 7), (1, 0), (0, 2), (12, 12)];
        let mut cases = Vec::new();
        for &n in &sizes {
            for &(so, dof) in &offsets {
                cases.push((n as usize, so, dof));
            }
        }
        // 16-byte-aligned backing (u128), each buffer 16 bytes longer than its size.
        let mut src: Vec<Vec<u128>> = cases.iter().map(|&(n, _, _)| vec![0u128; n / 16 + 3]).collect();
        let mut dst: Vec<Vec<u128>> = cases.iter().map(|&(n, _, _)| vec![0u128; n / 16 + 3]).collect();
        let bytes = |v: &mut Vec<u128>| v.as_mut_ptr() as *mut u8;
        for (i, (v, &(n, so, _))) in src.iter_mut().zip(&cases).enumerate() {
            let p = bytes(v);
            for b in 0..n {
                unsafe { *p.add(so + b) = (b as u8) ^ (i as u8).wrapping_mul(37) };
            }
        }
        for v in &mut dst {
            let len = 16 * v.len();
            let p = bytes(v);
            for b in 0..len {
                unsafe { *p.add(b) = 0xA5 };
            }
        }
        let sp: Vec<*const u8> =
            src.iter_mut().zip(&cases).map(|(v, c)| unsafe { bytes(v).add(c.1) as *const u8 }).collect();
        let dp: Vec<*mut u8> = dst.iter_mut().zip(&cases).map(|(v, c)| unsafe { bytes(v).add(c.2) }).collect();
        let lens: Vec<u64> = cases.iter().map(|c| c.0 as u64).collect();
        let (s, d, n) = (
            SendPtr(sp.as_ptr() as *mut *const u8),
            SendPtr(dp.as_ptr() as *mut *mut u8),
            SendPtr(lens.as_ptr() as *mut u64),
        );
        launch::<(), _>(3, 64, |t, _| unsafe { batched_copy(t, s.get(), d.get(), n.get(), lens.len() as u64) });
        for (i, &(n, so, dof)) in cases.iter().enumerate() {
            let src = unsafe { core::slice::from_raw_parts(bytes(&mut src[i]).add(so), n) };
            let all = unsafe { core::slice::from_raw_parts(bytes(&mut dst[i]), 16 * dst[i].len()) };
            assert_eq!(&all[dof..dof + n], src, "case {i}: {n} bytes, offsets {so}/{dof}");
            assert!(all[..dof].iter().chain(&all[dof + n..]).all(|&b| b == 0xA5), "case {i}: wrote outside");
        }
    }
}
