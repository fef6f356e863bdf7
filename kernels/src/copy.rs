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

/// One block copies `n` bytes: 16 bytes per thread and step where both ends allow it.
#[inline(always)]
unsafe fn copy_block<T: Thread>(t: &T, s: *const u8, d: *mut u8, n: usize) {
    let (tid, threads) = (t.thread_idx() as usize, t.block_dim() as usize);
    // Bytes before `d` reaches 16-byte alignment go one by one; the rest moves in 16-byte words
    // when the source has the same alignment, else in bytes.
    let head = (d.align_offset(16)).min(n);
    let wide = if (s as usize + head).is_multiple_of(16) { (n - head) / 16 } else { 0 };
    let mut k = tid;
    while k < head {
        *d.add(k) = *s.add(k);
        k += threads;
    }
    let (ws, wd) = (s.add(head) as *const u128, d.add(head) as *mut u128);
    let mut k = tid;
    while k < wide {
        *wd.add(k) = *ws.add(k);
        k += threads;
    }
    let mut k = head + wide * 16 + tid;
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
        let sizes: Vec<u64> = vec![0, 1, 15, 16, 17, 100, 1000, 4099];
        let src: Vec<Vec<u8>> = sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| (0..n).map(|b| (b as u8) ^ (i as u8).wrapping_mul(37)).collect())
            .collect();
        let mut dst: Vec<Vec<u8>> = sizes.iter().map(|&n| vec![0xA5; n as usize + 3]).collect();
        // Offset destinations by i % 3 so both the wide and the byte paths run.
        let sp: Vec<*const u8> = src.iter().map(|v| v.as_ptr()).collect();
        let dp: Vec<*mut u8> = dst.iter_mut().enumerate().map(|(i, v)| unsafe { v.as_mut_ptr().add(i % 3) }).collect();
        let (s, d, n) = (
            SendPtr(sp.as_ptr() as *mut *const u8),
            SendPtr(dp.as_ptr() as *mut *mut u8),
            SendPtr(sizes.as_ptr() as *mut u64),
        );
        launch::<(), _>(3, 64, |t, _| unsafe { batched_copy(t, s.get(), d.get(), n.get(), sizes.len() as u64) });
        for (i, (src, dst)) in src.iter().zip(&dst).enumerate() {
            let o = i % 3;
            assert_eq!(&dst[o..o + src.len()], &src[..], "buffer {i}");
            assert!(dst[..o].iter().chain(&dst[o + src.len()..]).all(|&b| b == 0xA5), "buffer {i}: wrote outside");
        }
    }
}
