//! The batch every kernel works on (nvCOMP's batched contract) and the one chunk driver.
//!
//! A compression, decompression or size-query launch receives per-chunk device arrays; the
//! entry points bundle them into [`CompressArgs`], [`DecompressArgs`] or [`SizeArgs`] (plain
//! `Copy` structs of raw pointers), and the kernel bodies read a chunk's buffers and store its
//! result through their accessors. Which threads share a chunk is the kernel's geometry:
//! [`block_chunks`] (a thread block per chunk, grid-stride), [`warp_chunk`] (a warp per chunk,
//! the grid covering the batch) or [`thread_chunks`] (a thread per chunk, grid-stride).
//!
//! Entry points keep scalar parameters (see `ptx::kernel!`) and build these structs inside:
//! rustc's `ptx-kernel` ABI passes an aggregate parameter differently from the scalar list a
//! CUDA launch pushes, so the host launchers stay as they are.
use crate::{status, Thread};

/// One batched compression: chunk `i` is `in_bytes[i]` bytes at `in_ptrs[i]`, compressed into
/// `out_ptrs[i]`; its compressed size goes to `out_bytes[i]` and its status to `statuses[i]`.
#[derive(Clone, Copy)]
pub struct CompressArgs {
    /// Input pointers (`num_chunks` entries).
    pub in_ptrs: *const *const u8,
    /// Input sizes, bytes.
    pub in_bytes: *const u64,
    /// Chunks in the batch.
    pub num_chunks: u64,
    /// Output pointers, each sized by the algorithm's maximum compressed chunk size.
    pub out_ptrs: *const *mut u8,
    /// Compressed sizes (0 for a failed chunk); required, as in nvCOMP.
    pub out_bytes: *mut u64,
    /// Per-chunk [`status`] values; may be null.
    pub statuses: *mut i32,
}

/// One batched decompression: chunk `i` is `in_bytes[i]` bytes at `in_ptrs[i]`, decompressed
/// into the `out_capacity[i]` bytes at `out_ptrs[i]`; its size goes to `out_actual[i]` and its
/// status to `statuses[i]`.
#[derive(Clone, Copy)]
pub struct DecompressArgs {
    /// Input pointers (`num_chunks` entries).
    pub in_ptrs: *const *const u8,
    /// Input sizes, bytes.
    pub in_bytes: *const u64,
    /// Chunks in the batch.
    pub num_chunks: u64,
    /// Output pointers.
    pub out_ptrs: *const *mut u8,
    /// Output capacities, bytes.
    pub out_capacity: *const u64,
    /// Decompressed sizes (0 for a failed chunk); may be null.
    pub out_actual: *mut u64,
    /// Per-chunk [`status`] values; may be null.
    pub statuses: *mut i32,
}

/// One batched size query: chunk `i`'s decompressed size (0 when corrupt) goes to `out_sizes[i]`.
#[derive(Clone, Copy)]
pub struct SizeArgs {
    /// Input pointers (`num_chunks` entries).
    pub in_ptrs: *const *const u8,
    /// Input sizes, bytes.
    pub in_bytes: *const u64,
    /// Chunks in the batch.
    pub num_chunks: u64,
    /// Decompressed sizes.
    pub out_sizes: *mut u64,
}

// SAFETY: the structs only describe device arrays; every thread of a launch reads the same
// value, and the kernels' contracts give each chunk's results to one thread (the simulator runs
// threads on OS threads and needs this to hand the arguments to them).
unsafe impl Send for CompressArgs {}
unsafe impl Sync for CompressArgs {}
unsafe impl Send for DecompressArgs {}
unsafe impl Sync for DecompressArgs {}
unsafe impl Send for SizeArgs {}
unsafe impl Sync for SizeArgs {}

/// Stores `value` at `p[i]` unless `p` is null.
#[inline(always)]
unsafe fn store_opt<V>(p: *mut V, i: usize, value: V) {
    if !p.is_null() {
        *p.add(i) = value;
    }
}

/// A chunk's `(size, status)` for a result: the size and `SUCCESS`, or 0 and the error.
#[inline(always)]
fn split(r: Result<u64, i32>) -> (u64, i32) {
    match r {
        Ok(n) => (n, status::SUCCESS),
        Err(e) => (0, e),
    }
}

impl CompressArgs {
    /// Chunk `i`'s input pointer and size.
    ///
    /// # Safety
    /// `i < num_chunks`; the arrays are valid.
    #[inline(always)]
    pub unsafe fn input(&self, i: usize) -> (*const u8, u64) {
        (*self.in_ptrs.add(i), *self.in_bytes.add(i))
    }

    /// Chunk `i`'s output pointer.
    ///
    /// # Safety
    /// As for [`Self::input`].
    #[inline(always)]
    pub unsafe fn output(&self, i: usize) -> *mut u8 {
        *self.out_ptrs.add(i)
    }

    /// Stores chunk `i`'s result: its compressed size or its error status (size 0).
    ///
    /// # Safety
    /// As for [`Self::input`]; one thread per chunk calls this.
    #[inline(always)]
    pub unsafe fn finish(&self, i: usize, r: Result<u64, i32>) {
        let (n, s) = split(r);
        *self.out_bytes.add(i) = n;
        store_opt(self.statuses, i, s);
    }
}

impl DecompressArgs {
    /// Chunk `i`'s input pointer and size.
    ///
    /// # Safety
    /// `i < num_chunks`; the arrays are valid.
    #[inline(always)]
    pub unsafe fn input(&self, i: usize) -> (*const u8, u64) {
        (*self.in_ptrs.add(i), *self.in_bytes.add(i))
    }

    /// Chunk `i`'s output pointer and capacity.
    ///
    /// # Safety
    /// As for [`Self::input`].
    #[inline(always)]
    pub unsafe fn output(&self, i: usize) -> (*mut u8, u64) {
        (*self.out_ptrs.add(i), *self.out_capacity.add(i))
    }

    /// Stores chunk `i`'s result: its decompressed size or its error status (size 0).
    ///
    /// # Safety
    /// As for [`Self::input`]; one thread per chunk calls this.
    #[inline(always)]
    pub unsafe fn finish(&self, i: usize, r: Result<u64, i32>) {
        let (n, s) = split(r);
        store_opt(self.out_actual, i, n);
        store_opt(self.statuses, i, s);
    }
}

impl SizeArgs {
    /// Chunk `i`'s input pointer and size.
    ///
    /// # Safety
    /// `i < num_chunks`; the arrays are valid.
    #[inline(always)]
    pub unsafe fn input(&self, i: usize) -> (*const u8, u64) {
        (*self.in_ptrs.add(i), *self.in_bytes.add(i))
    }

    /// Stores chunk `i`'s decompressed size.
    ///
    /// # Safety
    /// As for [`Self::input`]; one thread per chunk calls this.
    #[inline(always)]
    pub unsafe fn set_size(&self, i: usize, n: u64) {
        *self.out_sizes.add(i) = n;
    }

    /// Writes `out_sizes[i] = size(input i, its size)` for every chunk of this thread, one
    /// thread per chunk ([`thread_chunks`]).
    ///
    /// # Safety
    /// The arrays hold `num_chunks` entries (`out_sizes` writable); `size` must read only within
    /// the `in_bytes[i]` bytes at `in_ptrs[i]` (which may be null).
    #[inline(always)]
    pub unsafe fn for_each<T: Thread>(&self, t: &T, size: impl Fn(*const u8, u64) -> u64) {
        for i in thread_chunks(t, self.num_chunks) {
            let (p, len) = self.input(i);
            self.set_size(i, size(p, len));
        }
    }
}

/// The chunks of a thread block, one block per chunk: `blockIdx.x`, stepping by `gridDim.x`,
/// below `num_chunks` (every thread of the block walks the same chunks).
#[inline(always)]
pub fn block_chunks<T: Thread>(t: &T, num_chunks: u64) -> Chunks<'_, T, false> {
    Chunks::new(t, t.block_idx() as u64, num_chunks)
}

/// The chunk of a warp, one warp per chunk and `warps` warps per block, the grid covering the
/// batch: `blockIdx.x · warps + warp` if that is below `num_chunks` (the same for every lane).
#[inline(always)]
pub fn warp_chunk<T: Thread>(t: &T, warps: u32, num_chunks: u64) -> Option<usize> {
    let chunk = t.block_idx() as u64 * warps as u64 + t.warp() as u64;
    (chunk < num_chunks).then_some(chunk as usize)
}

/// The chunks of a thread, one thread per chunk: `blockIdx.x · blockDim.x + threadIdx.x`,
/// stepping by the grid's thread count, below `num_chunks`.
#[inline(always)]
pub fn thread_chunks<T: Thread>(t: &T, num_chunks: u64) -> Chunks<'_, T, true> {
    Chunks::new(t, t.block_idx() as u64 * t.block_dim() as u64 + t.thread_idx() as u64, num_chunks)
}

/// A grid-stride walk over chunk indices, by thread block or (`PER_THREAD`) by thread: an
/// iterator, so that the loop body stays in the kernel body (a closure per chunk is not always
/// inlined, and LLVM then outlines the closures inside it too). It steps when asked for the
/// next chunk, so that one index is live across the body, as in a hand-written loop.
pub struct Chunks<'a, T, const PER_THREAD: bool> {
    t: &'a T,
    /// The chunk last returned (before the first, the first minus one stride, wrapping).
    at: u64,
    end: u64,
}

impl<'a, T: Thread, const PER_THREAD: bool> Chunks<'a, T, PER_THREAD> {
    #[inline(always)]
    fn new(t: &'a T, first: u64, end: u64) -> Self {
        let mut c = Chunks { t, at: first, end };
        c.at = first.wrapping_sub(c.stride());
        c
    }

    /// The grid's blocks (or threads), read from the special registers where it is needed.
    #[inline(always)]
    fn stride(&self) -> u64 {
        let blocks = self.t.grid_dim() as u64;
        if PER_THREAD {
            blocks * self.t.block_dim() as u64
        } else {
            blocks
        }
    }
}

impl<T: Thread, const PER_THREAD: bool> Iterator for Chunks<'_, T, PER_THREAD> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        self.at = self.at.wrapping_add(self.stride());
        (self.at < self.end).then_some(self.at as usize)
    }
}

/// `gridDim.x` for `num_chunks` chunks at `split` thread blocks per chunk (`1 ≤ split ≤ cap`):
/// `split` times the chunks, capped at the largest multiple of `split` up to `cap` (groups of
/// `split` blocks loop over the rest); one group for an empty batch.
pub const fn split_grid_dim(num_chunks: u64, split: u32, cap: u32) -> u32 {
    let groups = cap as u64 / split as u64;
    let chunks = if num_chunks == 0 {
        1
    } else if num_chunks > groups {
        groups
    } else {
        num_chunks
    };
    (chunks * split as u64) as u32
}

/// Thread blocks per chunk for a batch of `num_chunks` chunks of up to `max_chunk_bytes`
/// uncompressed bytes, a kernel whose blocks take `group_bytes` of a chunk per round and of which
/// an SM holds `blocks_per_sm`, on a GPU of `sms` SMs: enough blocks for the batch to fill the
/// GPU, never more than a chunk's groups, at most 65535, and 1 for a batch that fills the GPU
/// alone, chunks of one group, an unknown bound (0) or no chunks.
pub const fn blocks_per_chunk(
    num_chunks: u64,
    max_chunk_bytes: u64,
    group_bytes: u64,
    sms: u32,
    blocks_per_sm: u32,
) -> u32 {
    let groups = max_chunk_bytes.div_ceil(group_bytes);
    if num_chunks == 0 || groups < 2 {
        return 1;
    }
    let fill = (sms as u64 * blocks_per_sm as u64) / num_chunks;
    let k = if fill < groups { fill } else { groups };
    if k < 1 {
        1
    } else if k > 65535 {
        65535
    } else {
        k as u32
    }
}

/// A thread block's count in its chunk's word of the split-decompression temp: finished blocks
/// in the low 16 bits, failed ones in the high 16 (`split ≤ 65535`: neither carries over).
const PART_DONE: u32 = 1;
const PART_FAILED: u32 = 1 << 16;

/// [`DecompressArgs::finish`] for one of chunk `i`'s `split` blocks: stores the chunk's result
/// when [`part_result`] says this block is the chunk's last. Not inlined: in the kernels' chunk
/// loops, inlined, it cost `bitcomp_decompress` spills on sm_90 (ptxas).
///
/// # Safety
/// As [`part_result`] and [`DecompressArgs::finish`].
#[inline(never)]
pub unsafe fn finish_part(args: DecompressArgs, parts: *mut u32, i: usize, split: u32, n: u64, status: i32) {
    let r = if status == status::SUCCESS { Ok(n) } else { Err(status) };
    if let Some(r) = part_result(parts, i, split, r) {
        args.finish(i, r);
    }
}

/// Adds one thread block's result `r` for chunk `i` (its share of the chunk decoded: `Ok` with
/// the chunk's size, or an error) to the chunk's word of `parts`: `Some(the chunk's result)` for
/// the last of the chunk's `split` blocks to finish, `None` for the others. The chunk's result is
/// `r` unless an earlier block failed and this one did not: then `CANNOT_DECOMPRESS`. (Header
/// errors, the only ones other than `CANNOT_DECOMPRESS`, are found by every block alike.) With
/// `split = 1`: `Some(r)`, `parts` not read.
///
/// # Safety
/// With `split > 1`, `parts` holds a word for chunk `i`, zeroed before the launch, to which
/// exactly `split` calls (one per block of the chunk) add; called by one thread of the block.
#[inline(always)]
pub unsafe fn part_result(parts: *mut u32, i: usize, split: u32, r: Result<u64, i32>) -> Option<Result<u64, i32>> {
    if split <= 1 {
        return Some(r);
    }
    // Only this word passes between the chunk's blocks (each writes only its own output bytes,
    // and the last one the result), so a relaxed RMW is all the ordering needed: the last add
    // reads the sum of every other block's.
    let word = core::sync::atomic::AtomicU32::from_ptr(parts.add(i));
    let add = if r.is_ok() { PART_DONE } else { PART_DONE | PART_FAILED };
    let old = word.fetch_add(add, core::sync::atomic::Ordering::Relaxed);
    if old & 0xFFFF != split - 1 {
        return None;
    }
    Some(if r.is_ok() && old >> 16 != 0 { Err(status::CANNOT_DECOMPRESS) } else { r })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bitcomp, cascaded};

    /// Cascaded (16 KiB groups, 4 blocks per SM) fills an H200 (132 SMs) up to a chunk's groups;
    /// one block per chunk for batches that fill it alone, chunks of one group, an unknown bound
    /// or no chunks; the temp sizes cover every split. Bitcomp takes a warp per 8 KiB block.
    #[test]
    fn blocks_per_chunk_fill_the_gpu() {
        let c = |n, max| cascaded::blocks_per_chunk(n, max, 132);
        let b = bitcomp::warps_per_chunk;
        // One 64 KiB chunk: its 4 groups; 16 chunks of 256 KiB (a 4 MiB batch): 33 blocks fill
        // it, the chunks have 16 groups.
        assert_eq!((c(1, 64 << 10), c(16, 256 << 10)), (4, 16));
        // 4 chunks of 256 KiB (1 MiB): 132 blocks per chunk would fill it.
        assert_eq!(c(4, 256 << 10), 16);
        // 200 chunks of 64 KiB: 2 per chunk fill it.
        assert_eq!(c(200, 64 << 10), 2);
        // Batches that fill the GPU alone, chunks of one group, an unknown bound, no chunks.
        assert_eq!((c(528, 1 << 20), c(1, 16 << 10), c(1, 0), c(0, 1 << 20)), (1, 1, 1, 1));
        assert_eq!(c(1, (16 << 10) + 1), 2);
        // Bitcomp: a warp per 8 KiB block of any batch's largest chunk; a block's 4 unknown.
        assert_eq!((b(1), b(8192), b(8193), b(64 << 10), b(1 << 20), b(0), b(1 << 32)), (1, 1, 2, 8, 128, 4, 65535));
        for n in [1, 2, 3, 100, 1000, 70000] {
            for max in [0, 1, 4096, 16384, 16385, 32769, 65536, 1 << 20, 1 << 24, 1 << 32] {
                let (kc, kb) = (c(n, max), b(max));
                assert!((1..=65535).contains(&kc) && (1..=65535).contains(&kb), "{n} {max}");
                assert!(kc == 1 || cascaded::split_temp_bytes(n, max) == 4 * n, "{n} {max}");
                assert!(kb == 1 || bitcomp::decompress_temp_bytes(n, max) == 4 * n, "{n} {max}");
                let (gc, gb) = (cascaded::split_grid_dim(n, kc), bitcomp::decompress_grid_dim(n, kb, 132));
                assert!(gc.is_multiple_of(kc) && gc <= 65535 && gc as u64 <= n * kc as u64, "{n} {max}");
                // Every item has a warp, unless the grid is at its cap (warps then loop).
                assert!((1..=1 << 24).contains(&gb) && (gb == 1 << 24 || 4 * gb as u64 >= n * kb as u64), "{n} {max}");
            }
        }
    }

    /// Split grids are whole groups of `split` blocks under the cap; at `split` 1 the grids of one
    /// block per chunk; Bitcomp's decompression grid holds a warp for each (chunk, part) item.
    #[test]
    fn split_grids_are_whole_groups() {
        assert_eq!(
            (split_grid_dim(0, 3, 65535), split_grid_dim(5, 8, 65535), split_grid_dim(100_000, 7, 65535)),
            (3, 40, 65534)
        );
        assert_eq!((cascaded::grid_dim(0), cascaded::grid_dim(70_000), bitcomp::grid_dim(70_000)), (1, 65535, 70_000));
        assert_eq!(bitcomp::grid_dim(1 << 25), 1 << 24);
        // Bitcomp on 1 and 132 SMs: a quarter block per item, or a block per item while the
        // items are fewer than the 5 blocks per SM the GPU holds.
        let g = bitcomp::decompress_grid_dim;
        assert_eq!(
            (g(0, 1, 1), g(1, 1, 1), g(5, 1, 1), g(5, 2, 1), g(3, 8, 1), g(1 << 25, 3, 1)),
            (1, 1, 5, 5, 6, 1 << 24)
        );
        assert_eq!(
            (g(1, 8, 132), g(64, 2, 132), g(659, 1, 132), g(2048, 2, 132), g(4096, 8, 132)),
            (8, 128, 659, 1024, 8192)
        );
        assert_eq!((g(700, 1, 132), g(1000, 1, 132), g(3000, 1, 132)), (660, 660, 750));
    }

    /// The chunk's result comes from its last block: its own unless another failed (then
    /// `CANNOT_DECOMPRESS`); a header error, which every block finds, stays as it is.
    #[test]
    fn part_results_combine_in_the_last_block() {
        let bad = status::CANNOT_DECOMPRESS;
        let small = status::OUTPUT_BUFFER_TOO_SMALL;
        let mut parts = [0u32; 3];
        let p = parts.as_mut_ptr();
        // SAFETY: `parts` holds the words of chunks 0 to 2; each gets `split` adds.
        unsafe {
            assert_eq!(part_result(p, 0, 1, Ok(5)), Some(Ok(5)));
            assert_eq!((part_result(p, 0, 3, Ok(5)), part_result(p, 0, 3, Err(bad))), (None, None));
            assert_eq!(part_result(p, 0, 3, Ok(5)), Some(Err(bad)));
            assert_eq!((part_result(p, 1, 2, Ok(7)), part_result(p, 1, 2, Ok(7))), (None, Some(Ok(7))));
            assert_eq!((part_result(p, 2, 2, Err(small)), part_result(p, 2, 2, Err(small))), (None, Some(Err(small))));
        }
        assert_eq!(parts, [3 | 1 << 16, 2, 2 | 2 << 16]);
    }
}
