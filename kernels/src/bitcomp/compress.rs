//! Bitcomp compression: one thread block (8 warps) per chunk; the chunk's 8 KiB blocks are
//! encoded in rounds, one block per warp, each warp-parallel and byte-identical to
//! `gpucomp::cpu::bitcomp::encode_block`.
//!
//! Per block (all steps warp-wide, `__syncwarp` between them):
//!
//! 1. **Planes** ([`to_bitmap`]): lane `g` takes groups of 8 elements `g, g + 32, …`: wide loads
//!    (16-byte when the block is whole and aligned, issued in batches before the batch's stores;
//!    byte loads with zero fill otherwise), the signed mapping on whole elements (monomorphised
//!    away for unsigned types and floats), then the bit transpose. After wide loads of 4- or
//!    8-byte elements the group's 8 words (per 4 bytes of width) are transposed in place as
//!    four 8×8 bit blocks ([`transpose_blocks8`](crate::bits::transpose_blocks8): byte `b` of word `c` is then the plane of bit
//!    `8b + c`, no byte gather); otherwise the element bytes are gathered into rows (4 byte
//!    permutes, `prmt`, for a group of halves; an 8×8 byte transpose after byte loads; a group
//!    of bytes is one row) and each row takes one 8×8 bit transpose. Each plane byte is stored
//!    into the warp's 8 KiB bitmap, at a constant offset per plane from the group's byte.
//!    Consecutive lanes store consecutive bytes of a plane: no bank conflicts.
//! 2. **Encode**: the bitmap is cut into 64 segments of 128 bytes, stored with a 4-byte gap
//!    after each, which holds a copy of the next segment's first word.
//!    * *default* (algorithm 0, [`default_block`]): first a class pass, lane `l` walking
//!      segments `2l` and `2l + 1` (a *pair*) word by word on its own (independent loads, no
//!      warp traffic): a segment is *flat* if all its bytes equal the byte before it (inside one
//!      long run, as the high planes of small integers), *literal* if no run of 3 equal bytes
//!      starts from 3 bytes before it to its end (every byte a literal of the open literal
//!      token, as mantissa planes); two ballots give the flat and literal pairs. Then one pass
//!      over the pairs in order, skipping flat pairs altogether; a literal pair's 256 bytes go
//!      to the literal stream as they are (one funnel-shifted aligned word per lane and
//!      segment). Any other pair takes the general step, its two segments (*windows*) as two
//!      independent chains, lane `l` taking word `l` of each (consecutive words, no bank
//!      conflicts); a pair with one flat window takes the general step of the other window
//!      alone (a flat window adds no token or literal). All token decisions are local (byte-RLE of maximal runs ≥ 3): from the
//!      word, the next one and the carry of the one before (a lower lane's, by a shuffle, or
//!      the previous segment's, from the class pass), `default::flags` derives with 32-bit SWAR byte
//!      compares (byte masks) which bytes are in a long run, which start a token and which go
//!      to the literal stream. One packed warp scan (four 8-bit counts) places both windows'
//!      literal bytes, which are stored at once (consecutive lanes, consecutive bytes) in place
//!      at the bitmap's front: literal `j` goes to payload byte `2 + j`, at most 2 past its own
//!      bitmap byte, below the padded addresses of every byte still to be read (a warp sync
//!      first when they can reach a byte some lane loaded since the last one). Tokens are
//!      numbered by the same scan; a token start closes the token before it (the nearest
//!      lower lane's last start, found by a ballot, or an earlier window's), whose op byte goes
//!      to the warp's token buffer at its token index (the first 600; a block with more, which
//!      is rare and close to raw, puts the rest in its 8 KiB of the output, which no payload
//!      reaches before the round's blocks are placed) and, for a long form, its low byte to
//!      slot `end / 32` (the slots of the long tokens, which span ≥ 33 bytes, are distinct and
//!      in token order). At the end the op bytes are laid out backward from the payload's end
//!      and the low bytes below them, 32 per step.
//!    * *sparse* (algorithm 1, [`sparse_block`]): pass 1, lane `l` takes one L0 region
//!      (segments `2l` and `2l + 1`): its L1 word and nonzero byte count; a ballot gives L0,
//!      warp scans the L2/L3 sizes. Pass 2 walks the nonempty regions in order, one 8-byte
//!      group per lane: L2 bytes go to the token buffer, the nonzero bytes (placed by a warp
//!      scan) move down in place at the bitmap's front. Then L0, L1 and L2 (the head) are
//!      staged at the top of the bitmap, above L3.
//! 3. **Raw decision** (warp-uniform): a payload of ≥ 8192 bytes (after padding to 4) is
//!    replaced by the block's input bytes, zero-padded to 8192, copied global to global.
//! 4. **Place**: each warp publishes its block's word count in shared memory; after a barrier
//!    the block's word offset is the running sum of the previous rounds' counts plus those of
//!    the lower warps of this round. Lane 0 writes the table entry, the warp copies the staged
//!    payload out with 16-byte stores (4-byte or byte stores when the output is less aligned;
//!    a sparse payload's head from the top of the bitmap, then its L3 bytes with 4-byte stores
//!    of funnel-shifted words). After the last round thread 0 writes the header.
//!
//! Shared memory per warp: the padded bitmap (8448 bytes), which also stages the payload, and
//! the token buffer (default: 257 low slots of 16 bits, a scratch byte and 600
//! op bytes; sparse: up to 1024 L2 bytes), 9568 bytes, so that three blocks of 8 warps fit an
//! SM of an H100 or H200; geometry and registers in [`crate::bitcomp`]. The output beyond the chunk, up
//! to `max_compressed_chunk_size`, is scratch space (a block's ops beyond 600).
//!
//! The padding of a default block is the coded block's bytes at the same payload offsets (as
//! the CPU writer), of a sparse block zeros. Inputs: any length up to 16 MiB (else
//! `CHUNK_SIZE_TOO_LARGE`, `out_bytes` 0), any alignment (unaligned or tail blocks take byte
//! loads), `type_code` < 8 and `algorithm` < 2 (else `INVALID_VALUE`).
use super::decompress::BLOCK_SIZE;
use crate::batch::{self, CompressArgs, SizeArgs};
use crate::thread::warps_here;
use crate::{status, Thread};
use default::default_block;
use planes::to_bitmap;
use sparse::{sparse_block, sparse_head};

mod default;
mod planes;
mod sparse;

/// Largest chunk the kernel compresses (nvCOMP's Bitcomp limit).
pub const MAX_CHUNK_SIZE: u64 = 1 << 24;
/// Bytes of the chunk header.
const HEADER: usize = 32;
/// Bitmap bytes per segment: the default algorithm's window, one word per lane (sparse L0
/// regions are 2 segments, one per lane).
const SEG: usize = 128;
/// Bytes per sparse L0 region.
const REGION: usize = 256;
/// Words per segment in shared memory: 32 data words and a 1-word gap.
const SEG_WORDS: usize = SEG / 4 + 1;

/// Words of a warp's padded bitmap (64 segments of 32 data words and a gap word).
const BITMAP_WORDS: usize = BLOCK_SIZE / SEG * SEG_WORDS;

/// Warps per thread block: one chunk per thread block, one 8 KiB block per warp at a time.
const MAX_WARPS: usize = super::COMPRESS_WARPS as usize;

/// Op bytes of a block's tokens, at most: tokens cover the 8192 bitmap bytes, runs take at
/// least 3 and no two literal tokens are adjacent.
const OPS: usize = BLOCK_SIZE / 2;
/// Ops kept in shared memory; the rest (blocks of more tokens: rare, and near raw) go to the
/// output's scratch space, op `i` to byte `i` of the block's 8 KiB of it. 600 lets three
/// thread blocks share an H100's or H200's 228 KB (with 1 KB reserved each).
const NEAR_OPS: usize = 600;
const _: () = assert!(OPS <= BLOCK_SIZE);
/// Low-byte slots of a block: a long token's low byte goes to slot `end / 32` of its end
/// (exclusive, up to 8192); a long token spans at least 33 bytes, so two never share a slot.
const LOW_SLOTS: usize = BLOCK_SIZE / 32 + 1;
/// Sparse L2 bytes of a block, at most: one per nonempty 8-byte group.
const L2_BYTES: usize = BLOCK_SIZE / 8;
/// Words of a warp's token buffer: for a default block the low slots (16 bits each), a scratch
/// byte and the first [`NEAR_OPS`] ops; for a sparse one the L2 bytes.
const TOKEN_WORDS: usize = {
    let default = 2 * LOW_SLOTS + 1 + NEAR_OPS;
    if default > L2_BYTES {
        default
    } else {
        L2_BYTES
    }
}
.div_ceil(4);

/// Shared memory of one warp: its block's plane bitmap (padded segments), which also stages the
/// payload, and its token buffer.
#[repr(C, align(16))]
pub struct WarpShared {
    bitmap: [u32; BITMAP_WORDS],
    tokens: [u32; TOKEN_WORDS],
}

/// Shared memory of a thread block of [`super::COMPRESS_WARPS`] warps: the payload words of each
/// warp's block in the current round, then each warp's [`WarpShared`]. A block of fewer warps
/// uses (and is launched with) the first `warps` of them: [`super::compress_shared_bytes`].
#[repr(C, align(16))]
pub struct Shared {
    words: [u32; MAX_WARPS],
    warps: [WarpShared; MAX_WARPS],
}

/// Bytes of [`Shared`] a block of `warps` warps uses.
pub(super) const fn shared_bytes(warps: usize) -> usize {
    core::mem::offset_of!(Shared, warps) + warps * core::mem::size_of::<WarpShared>()
}

/// Address of bitmap byte `x` in the padded layout.
#[inline(always)]
const fn pad(x: usize) -> usize {
    x + ((x >> 7) << 2)
}

/// Bitmap word at byte `c` (a multiple of 4, below 8192).
#[inline(always)]
unsafe fn ld(bm: *const u8, c: usize) -> u32 {
    *(bm.add(pad(c)) as *const u32)
}

/// 0x80 in every zero byte of `d`, 0 elsewhere (exact: no borrows between bytes).
#[inline(always)]
fn zero_bytes64(d: u64) -> u64 {
    const L: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((d & L).wrapping_add(L)) | d | L)
}

/// As [`zero_bytes64`] for 4 bytes.
#[inline(always)]
fn zero_bytes32(d: u32) -> u32 {
    const L: u32 = 0x7f7f_7f7f;
    !(((d & L).wrapping_add(L)) | d | L)
}

/// Bit `k` set iff byte `k` of `a` equals byte `k` of `b`.
#[inline(always)]
fn eq_bits(a: u64, b: u64) -> u32 {
    // Bit 8k -> bit 56 + k; the cross products land on distinct bits below 56 or above 63.
    ((zero_bytes64(a ^ b) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// Stores `v` at `p` (4 bytes, little-endian; `p` 4-aligned when `aligned`).
#[inline(always)]
unsafe fn st32(p: *mut u8, v: u32, aligned: bool) {
    if aligned {
        *(p as *mut u32) = v;
    } else {
        for k in 0..4 {
            *p.add(k) = (v >> (8 * k)) as u8;
        }
    }
}

/// Copies the staged payload (`plen` bytes, a multiple of 4) to `dst`: `head` bytes at `hd`
/// (4-aligned), the rest at `st`.
#[inline(always)]
unsafe fn copy_out<T: Thread>(t: &T, hd: *const u8, head: usize, st: *const u8, plen: usize, dst: *mut u8) {
    let lane = t.lane() as usize;
    let aligned = (dst as usize).is_multiple_of(4);
    if head > 0 {
        let mut w = lane;
        while w < plen / 4 {
            let q = 4 * w;
            let v = if q + 4 <= head {
                *(hd as *const u32).add(w)
            } else if q >= head {
                // 4 bytes from `st + s`: two aligned words, funnel-shifted.
                let s = q - head;
                let (a, b) = (*(st as *const u32).add(s / 4), *(st as *const u32).add(s / 4 + 1));
                ((a as u64 | (b as u64) << 32) >> (8 * (s % 4))) as u32
            } else {
                let mut v = 0u32;
                for k in 0..4 {
                    let x = if q + k < head { *hd.add(q + k) } else { *st.add(q + k - head) };
                    v |= (x as u32) << (8 * k);
                }
                v
            };
            st32(dst.add(q), v, aligned);
            w += 32;
        }
        return;
    }
    let mut w = if (dst as usize).is_multiple_of(16) {
        let mut q = lane;
        while q < plen / 16 {
            *(dst as *mut u128).add(q) = *(st as *const u128).add(q);
            q += 32;
        }
        plen / 16 * 4 + lane
    } else {
        lane
    };
    while w < plen / 4 {
        st32(dst.add(4 * w), *(st as *const u32).add(w), aligned);
        w += 32;
    }
}

/// Stores a raw block: the `nb` bytes at `src`, zero-padded to 8192 bytes, at `dst`.
#[inline(always)]
unsafe fn copy_raw<T: Thread>(t: &T, src: *const u8, nb: usize, dst: *mut u8) {
    let lane = t.lane() as usize;
    if nb == BLOCK_SIZE && (src as usize | dst as usize).is_multiple_of(16) {
        let mut q = lane;
        while q < BLOCK_SIZE / 16 {
            *(dst as *mut u128).add(q) = *(src as *const u128).add(q);
            q += 32;
        }
        return;
    }
    let aligned = (dst as usize).is_multiple_of(4);
    let mut w = lane;
    while w < BLOCK_SIZE / 4 {
        let mut v = 0u32;
        for k in 0..4 {
            if 4 * w + k < nb {
                v |= (*src.add(4 * w + k) as u32) << (8 * k);
            }
        }
        st32(dst.add(4 * w), v, aligned);
        w += 32;
    }
}

/// Kernel body of `bitcomp_compress`: compresses chunk `i` (for `i = blockIdx.x, +gridDim.x,
/// …`) and stores its result. `type_code`: the header's element type (0 u8 … 7 i64);
/// `algorithm`: 0 default, 1 sparse.
///
/// # Safety
/// Launched with 1 to [`super::COMPRESS_WARPS`] whole warps per block
/// ([`super::compress_warps`]) and [`super::compress_shared_bytes`] of them at `smem`; `args`
/// valid, input `i` valid for its size, output `i` for `max_compressed_chunk_size` of it,
/// outputs overlapping nothing; `smem` is this block's.
#[inline(always)]
pub unsafe fn compress<T: Thread>(t: &T, smem: *mut Shared, args: CompressArgs, type_code: u32, algorithm: u32) {
    let warp = t.warp() as usize;
    let mine = (&raw mut (*smem).warps).cast::<WarpShared>().add(warp);
    let bm = (&raw mut (*mine).bitmap).cast::<u8>();
    let tk = (&raw mut (*mine).tokens).cast::<u8>();
    let sizes = (&raw mut (*smem).words).cast::<u32>();
    let lane = t.lane();
    let width = 1usize << ((type_code >> 1) & 3);
    let signed = type_code & 1 != 0;
    for i in batch::block_chunks(t, args.num_chunks) {
        let ((src, n), dst) = (args.input(i), args.output(i));
        let result = if type_code >= 8 || algorithm >= 2 {
            Err(status::INVALID_VALUE)
        } else if n > MAX_CHUNK_SIZE {
            Err(status::CHUNK_SIZE_TOO_LARGE)
        } else {
            let n = n as usize;
            let blocks = n.div_ceil(BLOCK_SIZE);
            let base = HEADER + 8 * blocks;
            let aligned = (dst as usize).is_multiple_of(4);
            // Payload words of the blocks before this round's.
            let mut words = 0usize;
            let mut round = 0;
            while round < blocks {
                // Warp w encodes block round + w (if there is one).
                let b = round + warp;
                let bsrc = src.add(b * BLOCK_SIZE);
                let nb = n.saturating_sub(b * BLOCK_SIZE).min(BLOCK_SIZE);
                let mut coded = None;
                if b < blocks {
                    // The block's 8 KiB of the output, which no payload reaches before this
                    // round's are placed: scratch space for its ops.
                    let scratch = dst.add(base + b * BLOCK_SIZE);
                    // Monomorphised on the signed mapping too: floats (unsigned) skip it.
                    match (width, signed) {
                        (1, false) => to_bitmap::<T, 1, false>(t, bsrc, nb, bm),
                        (1, true) => to_bitmap::<T, 1, true>(t, bsrc, nb, bm),
                        (2, false) => to_bitmap::<T, 2, false>(t, bsrc, nb, bm),
                        (2, true) => to_bitmap::<T, 2, true>(t, bsrc, nb, bm),
                        (4, false) => to_bitmap::<T, 4, false>(t, bsrc, nb, bm),
                        (4, true) => to_bitmap::<T, 4, true>(t, bsrc, nb, bm),
                        (_, false) => to_bitmap::<T, 8, false>(t, bsrc, nb, bm),
                        (_, true) => to_bitmap::<T, 8, true>(t, bsrc, nb, bm),
                    }
                    t.sync_warp();
                    coded = if algorithm == 0 {
                        default_block(t, bm, tk, scratch, bsrc, nb, width, signed).map(|plen| (plen, 0))
                    } else {
                        sparse_block(t, bm, tk)
                    };
                    t.sync_warp();
                    if lane == 0 {
                        *sizes.add(warp) = coded.map_or(BLOCK_SIZE / 4, |(plen, _)| plen / 4) as u32;
                    }
                } else if lane == 0 {
                    *sizes.add(warp) = 0;
                }
                t.sync_threads();
                // This block's offset: the words of the previous rounds and warps.
                let mut at = words;
                let mut round_words = 0;
                for w in 0..warps_here(t) as usize {
                    let v = *sizes.add(w) as usize;
                    if w < warp {
                        at += v;
                    }
                    round_words += v;
                }
                if b < blocks {
                    let pdst = dst.add(base + 4 * at);
                    let (bwords, raw) = match coded {
                        Some((plen, head)) => {
                            copy_out(t, sparse_head(bm, head), head, bm, plen, pdst);
                            (plen / 4, false)
                        }
                        None => {
                            copy_raw(t, bsrc, nb, pdst);
                            (BLOCK_SIZE / 4, true)
                        }
                    };
                    if lane == 0 {
                        let e = dst.add(HEADER + 8 * b);
                        st32(e, at as u32, aligned);
                        st32(e.add(4), (raw as u32) << 31 | (bwords as u32) << 19, aligned);
                    }
                }
                words += round_words;
                round += warps_here(t) as usize;
                // The next round reuses the bitmaps, staging buffers and sizes.
                t.sync_threads();
            }
            if t.thread_idx() == 0 {
                let mode = if algorithm == 1 { 0x10 } else { 0 };
                let w32 = |k: usize, v: u32| st32(dst.add(4 * k), v, aligned);
                w32(0, 0x005a_564e | type_code << 24);
                w32(1, mode | (signed as u32) << 8);
                w32(2, words as u32);
                w32(3, (words >> 32) as u32);
                w32(4, n as u32);
                w32(5, (n >> 32) as u32);
                w32(6, 0);
                w32(7, 0);
            }
            Ok((base + 4 * words) as u64)
        };
        if t.thread_idx() == 0 {
            args.finish(i, result);
        }
    }
}

/// Kernel body of `bitcomp_decompressed_size`: the uncompressed size each chunk's header
/// declares, or 0 when `gpucomp::cpu::bitcomp::decompressed_size` would refuse the header
/// (short input, bad magic, type, mode or signed byte, nonzero bytes 6-7, block table outside
/// the input). One thread per chunk, grid-stride.
///
/// # Safety
/// `args` valid; every input is valid for its size.
#[inline(always)]
pub unsafe fn decompressed_size<T: Thread>(t: &T, args: SizeArgs) {
    args.for_each(t, |p, len| {
        if len < HEADER as u64 {
            return 0;
        }
        let h = |k: usize| *p.add(k);
        let code = h(3);
        let ok = h(0) == b'N'
            && h(1) == b'V'
            && h(2) == b'Z'
            && code < 8
            && (h(4) == 0 || h(4) == 0x10)
            && h(5) == code & 1
            && h(6) == 0
            && h(7) == 0;
        let mut n = 0u64;
        for k in 0..8 {
            n |= (h(16 + k) as u64) << (8 * k);
        }
        // blocks <= 2^51: no overflow.
        let table_end = HEADER as u64 + 8 * n.div_ceil(BLOCK_SIZE as u64);
        if ok && table_end <= len {
            n
        } else {
            0
        }
    })
}
