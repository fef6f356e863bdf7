//! gpucomp's LZ4 encoder on chunks longer than [`SEGMENT`]: the chunks are cut into segments
//! ([`split`], kernel `lz4_segments`), `lz4_compress` encodes each segment as a chunk of its own
//! into a slot of temp memory (encoder 2: it also records the segment's final literal count), and
//! [`stitch`] (kernel `lz4_stitch`) joins each chunk's segment blocks into the chunk's block, as
//! the CPU reference `gpucomp::cpu::lz4::compress` defines it (section "Segments").
//!
//! Segment `j` of chunk `i` is entry `i · per_chunk + j` of the segment arrays, `per_chunk =
//! ⌈max_chunk / SEGMENT⌉`: a fixed place, so the split needs no scan and the host no chunk sizes
//! (they are on the device); a chunk with fewer segments leaves empty ones, which the compressor
//! finishes at once and the stitch ignores.
use super::compress::length_bytes;
use super::mem;
use super::SEGMENT;
use crate::batch::{self, CompressArgs};
use crate::{status, Thread};

/// Threads per block of `lz4_segments`.
pub const SPLIT_BLOCK: u32 = 256;
/// Threads per block of `lz4_stitch`: 4 warps, one chunk each.
pub const STITCH_BLOCK: u32 = 128;

/// `gridDim.x` of `lz4_segments` for `segments` segments (a thread each; capped, the threads
/// step over the rest).
pub const fn split_grid_dim(segments: u64) -> u32 {
    let g = segments.div_ceil(SPLIT_BLOCK as u64);
    if g > 65535 {
        65535
    } else if g < 1 {
        1
    } else {
        g as u32
    }
}

/// `gridDim.x` of `lz4_stitch` for `num_chunks` chunks.
pub const fn stitch_grid_dim(num_chunks: u64) -> u32 {
    num_chunks.div_ceil((STITCH_BLOCK / 32) as u64) as u32
}

/// Bytes of a segment's slot in temp memory: the largest block of a [`SEGMENT`]-byte chunk,
/// rounded up to 16.
pub const SLOT_BYTES: u64 = ((SEGMENT + 1 + SEGMENT.div_ceil(255)) as u64).next_multiple_of(16);

/// Segments per chunk for a batch whose chunks have at most `max_chunk` bytes (at least 1).
pub const fn segments_per_chunk(max_chunk: u64) -> u64 {
    let s = max_chunk.div_ceil(SEGMENT as u64);
    if s < 1 {
        1
    } else {
        s
    }
}

/// The segments of a batch: where their blocks are and what `lz4_compress` reported of them.
#[derive(Clone, Copy)]
pub struct Segments {
    /// Segments per chunk ([`segments_per_chunk`]).
    pub per_chunk: u64,
    /// Segment `k`'s block is at `blocks + k · SLOT_BYTES`.
    pub blocks: *const u8,
    /// Per segment: its block size in the low 32 bits, its final literal count in the high 32.
    pub sizes: *const u64,
    /// Per segment: its compression status.
    pub statuses: *const i32,
}

// SAFETY: plain addresses, read by the kernel's threads (as `batch::CompressArgs`).
unsafe impl Send for Segments {}
unsafe impl Sync for Segments {}

/// Kernel body of `lz4_segments`: writes the address, size and block slot of every segment of
/// the `num_chunks` chunks (`per_chunk` each, see the module documentation) into `seg_in_ptrs`,
/// `seg_in_bytes` and `seg_out_ptrs`. Bytes of a chunk past `per_chunk · SEGMENT` are in no
/// segment (the stitch refuses such a chunk).
///
/// # Safety
/// The chunk arrays hold `num_chunks` entries, the segment arrays `num_chunks · per_chunk`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn split<T: Thread>(
    t: &T,
    in_ptrs: *const u64,
    in_bytes: *const u64,
    num_chunks: u64,
    per_chunk: u64,
    blocks: u64,
    seg_in_ptrs: *mut u64,
    seg_in_bytes: *mut u64,
    seg_out_ptrs: *mut u64,
) {
    if per_chunk == 0 {
        return;
    }
    for k in batch::thread_chunks(t, num_chunks.saturating_mul(per_chunk)) {
        let (i, j) = (k / per_chunk as usize, k as u64 % per_chunk);
        let n = *in_bytes.add(i);
        let start = (j * SEGMENT as u64).min(n);
        *seg_in_ptrs.add(k) = (*in_ptrs.add(i)).wrapping_add(start);
        *seg_in_bytes.add(k) = (n - start).min(SEGMENT as u64);
        *seg_out_ptrs.add(k) = blocks.wrapping_add(k as u64 * SLOT_BYTES);
    }
}

/// Kernel body of `lz4_stitch`: one warp per chunk of `args` (the chunks `lz4_segments` split;
/// after a bitshuffle, the shuffled copies) writes the chunk's block from its segments' blocks
/// and stores its size and status; a chunk with a failed segment gets that segment's status.
/// The block never exceeds `roundup8(n + 1 + ceil(n / 255))` bytes (the bound argued in
/// `gpucomp::cpu::lz4::compress`, and checked before every write).
///
/// # Safety
/// Launched with whole warps; `args` valid, every chunk's buffers valid for the sizes above;
/// `seg` describes this batch's segments, compressed by `lz4_compress` with encoder 2.
#[inline(always)]
pub unsafe fn stitch<T: Thread>(t: &T, args: CompressArgs, seg: Segments) {
    let Some(chunk) = batch::warp_chunk(t, t.block_dim() / 32, args.num_chunks) else { return };
    let ((inp, n), out) = (args.input(chunk), args.output(chunk));
    let r = if n > seg.per_chunk.saturating_mul(SEGMENT as u64) || n > super::compress::MAX_CHUNK_BYTES {
        Err(status::CHUNK_SIZE_TOO_LARGE)
    } else if out.is_null() || (inp.is_null() && n > 0) {
        Err(status::INVALID_VALUE)
    } else {
        stitch_chunk(t, &seg, chunk as u64 * seg.per_chunk, inp, n as u32, out).map(u64::from)
    };
    if t.lane() == 0 {
        args.finish(chunk, r);
    }
}

/// LZ4 length continuation bytes of a run of `len`.
#[inline(always)]
pub(super) fn continuation(len: u32) -> u32 {
    if len >= 15 {
        1 + (len - 15) / 255
    } else {
        0
    }
}

/// The block of the `n`-byte chunk at `inp` into `out` from its segments `first..` (see
/// [`stitch`]); the block size, or the status of a failed segment. All lanes call this together.
#[inline(always)]
unsafe fn stitch_chunk<T: Thread>(
    t: &T,
    seg: &Segments,
    first: u64,
    inp: *const u8,
    n: u32,
    out: *mut u8,
) -> Result<u32, i32> {
    let bound = (n + 1 + n.div_ceil(255)).next_multiple_of(8);
    let count = n.div_ceil(SEGMENT).max(1);
    // `op`: bytes written; `run`: the chunk byte where the literal run passed on starts.
    let (mut op, mut run) = (0u32, 0u32);
    let mut j = 0;
    while j < count {
        let k = (first + j as u64) as usize;
        let st = *seg.statuses.add(k);
        if st != status::SUCCESS {
            return Err(st);
        }
        let record = *seg.sizes.add(k);
        let (size, final_lit) = (record as u32, (record >> 32) as u32);
        let start = j * SEGMENT;
        let len = (n - start).min(SEGMENT);
        // The segment's final sequence: token, continuation bytes, `final_lit` literals.
        let tail = 1 + continuation(final_lit) + final_lit;
        if final_lit > len || size as u64 > SLOT_BYTES || tail > size {
            return Err(status::INTERNAL);
        }
        let body = size - tail;
        let block = seg.blocks.add(k * SLOT_BYTES as usize);
        if body > 0 {
            // The first sequence: its token and literal count, then its match and the rest of
            // the segment's sequences, written after the literal run passed on.
            let token = mem::load_u8_nc(block);
            let (head, lit) = literal_count(t, block, token >> 4, body);
            // At least the 2 offset bytes follow the literals.
            if head + lit + 2 > body || lit > len {
                return Err(status::INTERNAL);
            }
            let lit_end = start + lit;
            let rest = body - head - lit;
            op = literals(t, inp, out, op, bound, run, lit_end - run, token & 0xF, rest)?;
            copy(t, out.add(op as usize), block.add((head + lit) as usize), rest);
            op += rest;
            run = start + len - final_lit;
        } else if final_lit != len {
            return Err(status::INTERNAL);
        }
        j += 1;
    }
    literals(t, inp, out, op, bound, run, n - run, 0xC, 0)
}

/// The literal count of a sequence whose token's high nibble is `nibble`, read from the block at
/// `block` (of which the first `body` bytes may be read): (bytes of token and continuation,
/// literals). A continuation running past `body` gives more than `body` bytes of head, which
/// the caller's check refuses.
#[inline(always)]
unsafe fn literal_count<T: Thread>(t: &T, block: *const u8, nibble: u32, body: u32) -> (u32, u32) {
    let (mut head, mut lit) = (1, nibble);
    if nibble == 15 {
        loop {
            let i = head + t.lane();
            // Bytes past `body` are not read; they count as a last continuation byte.
            let b = if i < body { mem::load_u8_nc(block.add(i as usize)) } else { 0 };
            let stops = t.ballot(b != 255);
            if stops != 0 {
                let f = stops.reverse_bits().leading_zeros();
                return (head + f + 1, lit + 255 * f + t.shfl_idx(b, f));
            }
            head += 32;
            lit += 255 * 32;
        }
    }
    (head, lit)
}

/// Writes at `out + op` a token with literal count `lit` and match nibble `nibble`, its
/// continuation bytes and the literals `inp[from..from + lit]`; `after` more bytes will follow.
/// Fails with `INTERNAL` if that would pass `bound`. Returns the new output position.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn literals<T: Thread>(
    t: &T,
    inp: *const u8,
    out: *mut u8,
    op: u32,
    bound: u32,
    from: u32,
    lit: u32,
    nibble: u32,
    after: u32,
) -> Result<u32, i32> {
    let end = op as u64 + 1 + continuation(lit) as u64 + lit as u64 + after as u64;
    if end > bound as u64 {
        return Err(status::INTERNAL);
    }
    if t.lane() == 0 {
        mem::store_u8(out.add(op as usize), lit.min(15) << 4 | nibble);
    }
    let mut op = op + 1;
    if lit >= 15 {
        op = length_bytes(t, out, op, lit - 15);
    }
    copy(t, out.add(op as usize), inp.add(from as usize), lit);
    Ok(op + lit)
}

/// Copies `len` bytes from `src` to `dst` (not overlapping), all lanes together: four
/// independent loads per lane before its stores, so that a lane has four loads in flight.
#[inline(always)]
unsafe fn copy<T: Thread>(t: &T, dst: *mut u8, src: *const u8, len: u32) {
    let mut i = t.lane();
    while i + 96 < len {
        // Named loads, not an array: an array indexed in a loop went to local memory.
        let (s, d) = (src.add(i as usize), dst.add(i as usize));
        let (b0, b1) = (mem::load_u8_nc(s), mem::load_u8_nc(s.add(32)));
        let (b2, b3) = (mem::load_u8_nc(s.add(64)), mem::load_u8_nc(s.add(96)));
        mem::store_u8(d, b0);
        mem::store_u8(d.add(32), b1);
        mem::store_u8(d.add(64), b2);
        mem::store_u8(d.add(96), b3);
        i += 128;
    }
    while i < len {
        mem::store_u8(dst.add(i as usize), mem::load_u8_nc(src.add(i as usize)));
        i += 32;
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use super::Segments;
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// See [`super::split`]; geometry: [`super::SPLIT_BLOCK`], [`super::split_grid_dim`].
        #[link_section = "nvvm:maxntid=256;minctasm=1"]
        fn lz4_segments(
            in_ptrs: *const u64,
            in_bytes: *const u64,
            num_chunks: u64,
            per_chunk: u64,
            blocks: u64,
            seg_in_ptrs: *mut u64,
            seg_in_bytes: *mut u64,
            seg_out_ptrs: *mut u64,
        ) [] {
            super::split(&Ptx, in_ptrs, in_bytes, num_chunks, per_chunk, blocks, seg_in_ptrs, seg_in_bytes, seg_out_ptrs)
        }
    }

    kernel! {
        /// See [`super::stitch`]; geometry: [`super::STITCH_BLOCK`], [`super::stitch_grid_dim`].
        #[link_section = "nvvm:maxntid=128;minctasm=1"]
        fn lz4_stitch(
            args: CompressArgs,
            per_chunk: u64,
            blocks: *const u8,
            sizes: *const u64,
            statuses: *const i32
        ) [] {
            super::stitch(&Ptx, args, Segments { per_chunk, blocks, sizes, statuses })
        }
    }
}
