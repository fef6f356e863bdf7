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
