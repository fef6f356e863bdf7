//! Bitcomp decompression: `warps_per_chunk` warps per chunk (one per 8 KiB block of the
//! batch's largest chunk), each on its own: no warp waits for another.
//!
//! The grid's warps take the batch's (chunk, part) items in turn. Each checks the 32-byte chunk
//! header (the same bytes for all the chunk's warps, from L1): magic, type, mode byte, sizes; the
//! block table must lie inside `in_bytes` and the declared size inside the output capacity. The
//! warp of part `p` then decodes blocks `p, p + warps_per_chunk, …` of the chunk (every block by
//! exactly one warp, which checks its table entry), each in three steps:
//!
//! 1. **Table entry**: word offset, word count, raw flag, checked against the input length (and
//!    the low 19 info bits, which must be zero, as the CPU reference requires).
//! 2. **Bitmap** (8192 bytes in the warp's shared memory):
//!    * *sparse* (algorithm 1): lane `j` reads L1 word `j` (its position is a popcount of L0);
//!      an exclusive warp scan of the L1 popcounts places the L2 bytes of each 256-byte region;
//!      then region by region, lane `m` takes 8-byte group `m`: its L2 byte, a warp scan of the
//!      L2 popcounts places its L3 bytes, and it stores the group as one 8-byte word — every
//!      bitmap byte is written exactly once (zeros included).
//!    * *default* (algorithm 0, byte run-length code): ops are read backward in batches of 32,
//!      one per lane; a ballot over the long forms places the low bytes, warp scans of the token
//!      lengths and literal counts place outputs and literals. The batch is validated as a whole
//!      (literal and low streams may not cross, the bitmap may not overflow; since both cursors
//!      move monotonically this equals the reference's op-by-op checks), then tokens of up to 16
//!      bytes and runs of up to 256 are written by their lane, longer ones by the whole warp: runs with 16-byte stores, literal
//!      runs (most of a low-ratio block: one token of thousands of bytes) with 16-byte stores
//!      assembled by funnel shifts from 5 aligned 4-byte loads when the chunk is 4-byte aligned
//!      (all its payload words then lie inside `in_bytes`), byte by byte otherwise. Copied a byte
//!      at a time, a 4.8 KB literal run cost 150 dependent global loads per lane, most of the
//!      block's time (partkey: 209 → 681 GB/s with the wide copy).
//!    * *raw*: the payload is copied to the output (16-byte words when both ends are aligned).
//! 3. **Planes → values**: lane-parallel over groups of 8 elements: for each element byte, 8
//!    plane bytes are gathered from the bitmap (consecutive lanes read consecutive bytes: no bank
//!    conflicts) and transposed as an 8×8 bit matrix; the bytes are interleaved into 64-bit words,
//!    signed types are unmapped on the words, and each lane stores 16..64 contiguous bytes with
//!    16-byte stores (byte stores at an unaligned output or the chunk's tail).
//!
//! Each warp adds its verdict to the chunk's word in the temp, and the last of the chunk's
//! warps stores the chunk's status and `out_actual` (0 on failure) ([`batch::part_result`]:
//! header errors, which every warp finds, keep their status; a failed block gives
//! `CANNOT_DECOMPRESS`); at one warp per chunk it stores them itself. So no warp idles beside a
//! small chunk or waits at a barrier for its chunk's slowest block. Hostile input: every read lies inside `in_bytes`, every write
//! inside the declared size (≤ the capacity), every loop is bounded by the input or by 8192
//! bitmap bytes.
use super::WARPS;
use crate::batch::{self, DecompressArgs};
use crate::bits::{transpose8, transpose_bytes};
use crate::warp::warp_scan;
use crate::{status, Thread};
use core::ptr::read_volatile;

/// Uncompressed bytes per block, and bytes of a block's plane bitmap.
pub const BLOCK_SIZE: usize = 8192;
/// Bytes of the chunk header.
const HEADER: u64 = 32;
/// Payload words of a raw block.
const RAW_WORDS: u32 = 2048;
/// Tokens up to this length are written by their own lane.
const SHORT: u32 = 16;
/// Runs (tokens of one repeated byte) up to this length are written by their own lane too, in
/// aligned words; longer runs and literal tokens longer than [`SHORT`] by the whole warp. (Sparse
/// data has several runs of tens of bytes per batch of 32 tokens: one warp-wide pass each cost
/// more than the lanes' own stores.)
const LANE_RUN: u32 = 256;

/// Shared memory of one block: a plane bitmap per warp, and each warp's item and parts per
/// chunk (written by its lane 0, read where used: kept out of the decode loops' registers).
#[repr(C, align(16))]
pub struct Shared {
    bitmap: [[u8; BLOCK_SIZE]; WARPS as usize],
    item: [u64; WARPS as usize],
    per_chunk: [u32; WARPS as usize],
}

#[inline(always)]
unsafe fn rd_u16_be(p: *const u8, i: usize) -> u32 {
    (*p.add(i) as u32) << 8 | *p.add(i + 1) as u32
}

#[inline(always)]
unsafe fn rd_u32(p: *const u8, i: usize) -> u32 {
    u32::from_le_bytes([*p.add(i), *p.add(i + 1), *p.add(i + 2), *p.add(i + 3)])
}

#[inline(always)]
unsafe fn rd_u64(p: *const u8, i: usize) -> u64 {
    rd_u32(p, i) as u64 | (rd_u32(p, i + 4) as u64) << 32
}

/// What a chunk's header says, once checked.
struct Chunk {
    width: u32,
    signed: bool,
    sparse: bool,
    n: u64,
    blocks: u64,
}

/// Checks a chunk's header against its input length and output capacity.
#[inline(always)]
unsafe fn read_header(src: *const u8, len: u64, cap: u64) -> Result<Chunk, i32> {
    let bad = status::CANNOT_DECOMPRESS;
    if len < HEADER {
        return Err(bad);
    }
    let w0 = rd_u32(src, 0);
    let w1 = rd_u32(src, 4);
    let code = w0 >> 24;
    let mode = w1 & 0xff;
    let signed = (w1 >> 8) & 0xff;
    if w0 & 0x00ff_ffff != 0x005a_564e
        || code >= 8
        || (mode != 0 && mode != 0x10)
        || signed != (code & 1)
        || w1 >> 16 != 0
    {
        return Err(bad);
    }
    let n = rd_u64(src, 16);
    let blocks = n.div_ceil(BLOCK_SIZE as u64);
    // blocks < 2^51: no overflow.
    if HEADER + 8 * blocks > len {
        return Err(bad);
    }
    if n > cap {
        return Err(status::OUTPUT_BUFFER_TOO_SMALL);
    }
    Ok(Chunk { width: 1 << (code >> 1), signed: code & 1 == 1, sparse: mode == 0x10, n, blocks })
}

/// Kernel body of `bitcomp_decompress`: `warps_per_chunk` warps per chunk, the grid's warps
/// taking the batch's (chunk, part) items in turn; the warp of part `p` of chunk `i` decodes the
/// chunk's blocks `p, p + warps_per_chunk, …` and adds its verdict to the chunk's word of
/// `parts`, the last of the chunk's warps storing the chunk's result ([`batch::finish_part`]).
/// No warp waits for another.
///
/// # Safety
/// Launched with [`super::BLOCK_THREADS`] threads per block, `1 ≤ warps_per_chunk ≤ 65535`;
/// with `warps_per_chunk > 1`, `parts` holds `num_chunks` zeroed words (not read otherwise);
/// `args` valid, every chunk's buffers valid for its input size and output capacity, outputs
/// overlapping nothing; `smem` is this block's.
#[inline(always)]
pub unsafe fn decompress<T: Thread>(
    t: &T,
    smem: *mut Shared,
    args: DecompressArgs,
    parts: *mut u32,
    warps_per_chunk: u32,
) {
    let warp = t.warp() as usize;
    let bitmap = (&raw mut (*smem).bitmap).cast::<u8>().add(warp * BLOCK_SIZE);
    let item = &raw mut (*smem).item[warp];
    let per_chunk = &raw mut (*smem).per_chunk[warp];
    if t.lane() == 0 {
        // Warp-major: a grid with more blocks than a quarter of the items (a small batch)
        // spreads them over the blocks' first warps, so over more SMs.
        *item = warp as u64 * t.grid_dim() as u64 + t.block_idx() as u64;
        *per_chunk = warps_per_chunk.max(1);
    }
    t.sync_warp();
    loop {
        // At least 1 (as stored): no division by zero.
        let k = read_volatile(per_chunk).max(1);
        let at = read_volatile(item);
        let i = at / k as u64;
        if i >= args.num_chunks {
            break;
        }
        let ((src, len), (dst, cap)) = (args.input(i as usize), args.output(i as usize));
        let (n, s) = match read_header(src, len, cap) {
            Err(e) => (0, e),
            Ok(h) => {
                let mut b = at - i * k as u64;
                let mut ok = true;
                while ok && b < h.blocks {
                    ok = decode_block(t, bitmap, src, len, &h, b, dst);
                    b += read_volatile(per_chunk) as u64;
                }
                if ok {
                    (h.n, status::SUCCESS)
                } else {
                    (0, status::CANNOT_DECOMPRESS)
                }
            }
        };
        // Every lane has read the item before lane 0 moves it on. Item and chunk are read again
        // rather than kept through the decode.
        t.sync_warp();
        if t.lane() == 0 {
            let (k, at) = (read_volatile(per_chunk).max(1), read_volatile(item));
            batch::finish_part(args, parts, (at / k as u64) as usize, k, n, s);
            *item = at + t.grid_dim() as u64 * WARPS as u64;
        }
        t.sync_warp();
    }
}

/// One warp decodes block `b` of chunk `src` into `dst`; false when the block is corrupt.
/// Warp-uniform: every lane returns the same value.
#[inline(always)]
unsafe fn decode_block<T: Thread>(
    t: &T,
    bitmap: *mut u8,
    src: *const u8,
    len: u64,
    h: &Chunk,
    b: u64,
    dst: *mut u8,
) -> bool {
    let at = (HEADER + 8 * b) as usize;
    let off = rd_u32(src, at);
    let info = rd_u32(src, at + 4);
    let raw = info >> 31 != 0;
    let words = (info >> 19) & 0xfff;
    if info & 0x7ffff != 0 || (raw && words > RAW_WORDS) {
        return false;
    }
    let start = HEADER + 8 * h.blocks + 4 * off as u64;
    let plen = 4 * words as usize;
    if start + plen as u64 > len {
        return false;
    }
    let p = src.add(start as usize);
    let base = b as usize * BLOCK_SIZE;
    let nb = ((h.n - base as u64) as usize).min(BLOCK_SIZE);
    let out = dst.add(base);
    if raw {
        if plen < nb {
            return false;
        }
        copy_raw(t, p, out, nb);
        return true;
    }
    let ok = if h.sparse { sparse(t, bitmap, p, plen) } else { default(t, bitmap, p, plen) };
    if !ok {
        return false;
    }
    t.sync_warp();
    match h.width {
        1 => planes::<T, 1>(t, bitmap, out, nb, h.signed),
        2 => planes::<T, 2>(t, bitmap, out, nb, h.signed),
        4 => planes::<T, 4>(t, bitmap, out, nb, h.signed),
        _ => planes::<T, 8>(t, bitmap, out, nb, h.signed),
    }
    // The next block reuses the bitmap.
    t.sync_warp();
    true
}

/// A raw block: its first `nb` payload bytes.
#[inline(always)]
unsafe fn copy_raw<T: Thread>(t: &T, p: *const u8, out: *mut u8, nb: usize) {
    let lane = t.lane() as usize;
    let wide = if (p as usize | out as usize).is_multiple_of(16) { nb / 16 } else { 0 };
    let (src, dst) = (p as *const u128, out as *mut u128);
    let mut k = lane;
    // Four loads in flight before their stores: a block's 16 words a lane in 4 round trips.
    while k + 96 < wide {
        let v: [u128; 4] = core::array::from_fn(|j| *src.add(k + 32 * j));
        for (j, v) in v.into_iter().enumerate() {
            *dst.add(k + 32 * j) = v;
        }
        k += 128;
    }
    while k < wide {
        *dst.add(k) = *src.add(k);
        k += 32;
    }
    let mut k = wide * 16 + lane;
    while k < nb {
        *out.add(k) = *p.add(k);
        k += 32;
    }
}

/// Algorithm 1: the 3-level bitmap of nonzero bytes.
#[inline(always)]
unsafe fn sparse<T: Thread>(t: &T, bitmap: *mut u8, p: *const u8, plen: usize) -> bool {
    let lane = t.lane();
    if plen < 4 {
        return false;
    }
    let l0 = rd_u32(p, 0);
    let pos = 4 + 4 * l0.count_ones() as usize;
    if pos > plen {
        return false;
    }
    let has = (l0 >> lane) & 1 != 0;
    let l1 = if has { rd_u32(p, 4 + 4 * (l0 & t.lanemask_lt()).count_ones() as usize) } else { 0 };
    let (off2, n2) = warp_scan(t, l1.count_ones());
    let l3_base = pos + n2 as usize;
    if l3_base > plen {
        return false;
    }
    let mut o3 = 0usize;
    for j in 0..32u32 {
        let group = bitmap.add(256 * j as usize + 8 * lane as usize) as *mut u64;
        if (l0 >> j) & 1 == 0 {
            *group = 0;
            continue;
        }
        let w = t.shfl_idx(l1, j);
        let o2 = t.shfl_idx(off2, j) as usize;
        let set = (w >> lane) & 1 != 0;
        let l2 = if set { *p.add(pos + o2 + (w & t.lanemask_lt()).count_ones() as usize) as u32 } else { 0 };
        let (ex, tot) = warp_scan(t, l2.count_ones());
        let at = l3_base + o3;
        if at + tot as usize > plen {
            return false;
        }
        let mut v = 0u64;
        let mut q = at + ex as usize;
        for bit in 0..8 {
            if (l2 >> bit) & 1 != 0 {
                v |= (*p.add(q) as u64) << (8 * bit);
                q += 1;
            }
        }
        *group = v;
        o3 += tot as usize;
    }
    true
}

/// Algorithm 0: the byte run-length code, 32 ops per batch.
#[inline(always)]
unsafe fn default<T: Thread>(t: &T, bitmap: *mut u8, p: *const u8, plen: usize) -> bool {
    let lane = t.lane();
    if plen < 2 {
        return false;
    }
    let nops = rd_u16_be(p, 0) as usize;
    if plen < nops + 2 {
        return false;
    }
    // Op k is byte `ops_end - k`.
    let ops_end = plen - 1;
    // Cursors: literal stream (forward), low stream (backward), bitmap bytes produced.
    let (mut lit, mut low, mut out) = (2usize, plen - nops, 0usize);
    let mut k0 = 0usize;
    while k0 < nops {
        let k = k0 + lane as usize;
        let valid = k < nops;
        let op = if valid { *p.add(ops_end - k) as u32 } else { 0 };
        let class = op >> 5;
        let long = valid && class & 1 != 0;
        let longs = t.ballot(long);
        let nlong = longs.count_ones() as usize;
        // The low bytes of this batch lie in [low - nlong, low); the literal stream starts at 2.
        if low < nlong + 2 {
            return false;
        }
        let mut x = op & 31;
        if long {
            x = x << 8 | *p.add(low - 1 - (longs & t.lanemask_lt()).count_ones() as usize) as u32;
        }
        let kind = class >> 1;
        let len = if !valid {
            0
        } else if kind == 0 {
            x + 1
        } else {
            x + 3
        };
        let cons = if kind == 0 {
            len
        } else if kind == 3 && valid {
            1
        } else {
            0
        };
        let (o_ex, o_tot) = warp_scan(t, len);
        let (l_ex, l_tot) = warp_scan(t, cons);
        let (lit_end, low_end, out_end) = (lit + l_tot as usize, low - nlong, out + o_tot as usize);
        if lit_end > low_end || out_end > BLOCK_SIZE {
            return false;
        }
        // Every token of the batch is valid: write it.
        let o = out + o_ex as usize;
        let s = lit + l_ex as usize;
        let fill = match kind {
            1 => 0u8,
            2 => 0xff,
            3 if valid => *p.add(s),
            _ => 0,
        };
        if len <= SHORT {
            for q in 0..len as usize {
                *bitmap.add(o + q) = if kind == 0 { *p.add(s + q) } else { fill };
            }
        } else if kind != 0 && len <= LANE_RUN {
            lane_run(bitmap, o, len as usize, fill);
        }
        let mut big = t.ballot(len > SHORT && (kind == 0 || len > LANE_RUN));
        while big != 0 {
            let l = big.trailing_zeros();
            big &= big - 1;
            let bo = t.shfl_idx(o as u32, l) as usize;
            let blen = t.shfl_idx(len, l) as usize;
            let bs = t.shfl_idx(s as u32, l) as usize;
            let bk = t.shfl_idx(kind, l);
            let bf = t.shfl_idx(fill as u32, l) as u8;
            if bk == 0 {
                copy_literals(t, bitmap, p, plen, bo, bs, blen);
            } else {
                // Runs: bytes up to 16-byte alignment, 16-byte stores, bytes after.
                let head = ((16 - bo % 16) % 16).min(blen);
                let wide = (blen - head) / 16;
                let v = u128::from_ne_bytes([bf; 16]);
                if (lane as usize) < head {
                    *bitmap.add(bo + lane as usize) = bf;
                }
                let mut q = lane as usize;
                while q < wide {
                    *(bitmap.add(bo + head + 16 * q) as *mut u128) = v;
                    q += 32;
                }
                let mut q = head + 16 * wide + lane as usize;
                while q < blen {
                    *bitmap.add(bo + q) = bf;
                    q += 32;
                }
            }
        }
        lit = lit_end;
        low = low_end;
        out = out_end;
        k0 += 32;
    }
    out == BLOCK_SIZE
}

/// A run of `n` bytes `b` at bitmap offset `o`, by one lane: bytes up to a 4-byte boundary,
/// a word up to an 8-byte one, 8-byte words, then a word and bytes.
#[inline(always)]
unsafe fn lane_run(bitmap: *mut u8, o: usize, n: usize, b: u8) {
    let (end, w4, w8) = (o + n, u32::from_ne_bytes([b; 4]), u64::from_ne_bytes([b; 8]));
    let mut q = o;
    while q < end && !q.is_multiple_of(4) {
        *bitmap.add(q) = b;
        q += 1;
    }
    if q + 4 <= end && !q.is_multiple_of(8) {
        *(bitmap.add(q) as *mut u32) = w4;
        q += 4;
    }
    while q + 8 <= end {
        *(bitmap.add(q) as *mut u64) = w8;
        q += 8;
    }
    while q + 4 <= end {
        *(bitmap.add(q) as *mut u32) = w4;
        q += 4;
    }
    while q < end {
        *bitmap.add(q) = b;
        q += 1;
    }
}

/// A long literal token: `n` payload bytes from offset `s` to bitmap offset `o`, by the whole
/// warp. With a 4-byte-aligned payload (whole words, all inside the input), each 16-byte-aligned
/// bitmap word is assembled from 5 aligned payload words by funnel shifts and stored at once (a
/// byte at a time, the copy waited on one global load per 32 bytes); the bytes before and after
/// go one by one.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn copy_literals<T: Thread>(t: &T, bitmap: *mut u8, p: *const u8, plen: usize, o: usize, s: usize, n: usize) {
    let lane = t.lane() as usize;
    let (head, wide) = if (p as usize).is_multiple_of(4) {
        let head = ((16 - o % 16) % 16).min(n);
        (head, (n - head) / 16)
    } else {
        (n, 0)
    };
    let mut q = lane;
    while q < head {
        *bitmap.add(o + q) = *p.add(s + q);
        q += 32;
    }
    let words = p as *const u32;
    let last = plen / 4 - 1;
    let mut q = lane;
    while q < wide {
        let d = head + 16 * q;
        let (w, sh) = ((s + d) / 4, 8 * ((s + d) % 4) as u32);
        // SAFETY: bytes s + d .. s + d + 16 lie inside the payload (the batch was checked), so
        // words w..=w + 3 do; word w + 4 is only needed when sh > 0 and is clamped to the last.
        let x = [*words.add(w), *words.add(w + 1), *words.add(w + 2), *words.add(w + 3), *words.add((w + 4).min(last))];
        let f = |j: usize| ((x[j + 1] as u64) << 32 | x[j] as u64) >> sh;
        let v = f(0) as u32 as u128
            | (f(1) as u32 as u128) << 32
            | (f(2) as u32 as u128) << 64
            | (f(3) as u32 as u128) << 96;
        *(bitmap.add(o + d) as *mut u128) = v;
        q += 32;
    }
    let mut q = head + 16 * wide + lane;
    while q < n {
        *bitmap.add(o + q) = *p.add(s + q);
        q += 32;
    }
}

/// Byte `b` of the 8 elements of group `g`: the group's bitmap bytes of the planes `8b..8b + 8`,
/// transposed (byte `j` of the result is byte `b` of element `j`).
#[inline(always)]
unsafe fn gather<const W: usize>(bitmap: *const u8, b: usize, g: usize) -> u64 {
    let (bits, stride) = (8 * W, BLOCK_SIZE / W / 8);
    let mut x = 0u64;
    for t in 0..8 {
        x |= (*bitmap.add((bits - 1 - (8 * b + t)) * stride + g) as u64) << (8 * t);
    }
    transpose8(x)
}

/// Writes the 16 bytes `lo | hi << 64` at `out + at` (the part below `nb`), signed-unmapped.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store<const W: usize>(out: *mut u8, at: usize, nb: usize, aligned: bool, signed: bool, lo: u64, hi: u64) {
    // Per-u64 constants of the signed map: the lowest bit of every element, and 2^(bits-1) - 1.
    let (lsb, low): (u64, u64) = match W {
        1 => (0x0101_0101_0101_0101, 0x7f),
        2 => (0x0001_0001_0001_0001, 0x7fff),
        4 => (0x0000_0001_0000_0001, 0x7fff_ffff),
        _ => (1, 0x7fff_ffff_ffff_ffff),
    };
    let (mut lo, mut hi) = (lo, hi);
    if signed {
        lo ^= ((lo >> (8 * W - 1)) & lsb).wrapping_mul(low);
        hi ^= ((hi >> (8 * W - 1)) & lsb).wrapping_mul(low);
    }
    let v = lo as u128 | (hi as u128) << 64;
    if aligned && at + 16 <= nb {
        *(out.add(at) as *mut u128) = v;
    } else {
        for o in 0..16 {
            if at + o < nb {
                *out.add(at + o) = (v >> (8 * o)) as u8;
            }
        }
    }
}

/// Bitmap → values for element width `W`: lane-parallel over units of `max(16, 8W)` output bytes
/// (two groups of 8 elements for `W = 1`, one group otherwise).
#[inline(always)]
unsafe fn planes<T: Thread, const W: usize>(t: &T, bitmap: *const u8, out: *mut u8, nb: usize, signed: bool) {
    let ub = if W == 1 { 16 } else { 8 * W };
    let aligned = (out as usize).is_multiple_of(16);
    let mut u = t.lane() as usize;
    while u * ub < nb {
        let at = u * ub;
        if W == 1 {
            let (a, b) = (gather::<1>(bitmap, 0, 2 * u), gather::<1>(bitmap, 0, 2 * u + 1));
            store::<1>(out, at, nb, aligned, signed, a, b);
        } else {
            // Rows: element bytes 0..W of the group's 8 elements (missing rows zero); after the
            // byte transpose, y_j holds element j in its low W bytes.
            let g = u;
            let row = |b: usize| if b < W { gather::<W>(bitmap, b, g) } else { 0 };
            let (mut y0, mut y1, mut y2, mut y3) = (row(0), row(1), row(2), row(3));
            let (mut y4, mut y5, mut y6, mut y7) = (row(4), row(5), row(6), row(7));
            transpose_bytes(&mut y0, &mut y1, &mut y2, &mut y3, &mut y4, &mut y5, &mut y6, &mut y7);
            match W {
                2 => {
                    let lo = y0 | y1 << 16 | y2 << 32 | y3 << 48;
                    let hi = y4 | y5 << 16 | y6 << 32 | y7 << 48;
                    store::<W>(out, at, nb, aligned, signed, lo, hi);
                }
                4 => {
                    store::<W>(out, at, nb, aligned, signed, y0 | y1 << 32, y2 | y3 << 32);
                    store::<W>(out, at + 16, nb, aligned, signed, y4 | y5 << 32, y6 | y7 << 32);
                }
                _ => {
                    store::<W>(out, at, nb, aligned, signed, y0, y1);
                    store::<W>(out, at + 16, nb, aligned, signed, y2, y3);
                    store::<W>(out, at + 32, nb, aligned, signed, y4, y5);
                    store::<W>(out, at + 48, nb, aligned, signed, y6, y7);
                }
            }
        }
        u += 32;
    }
}
