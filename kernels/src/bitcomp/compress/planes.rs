//! Planes: a block's elements turned into its 8 KiB plane bitmap (wide loads, the signed
//! mapping, bit transposes), by one warp.
use super::{pad, BLOCK_SIZE};
use crate::bits::{prmt, transpose8, transpose_blocks8, transpose_bytes};
use crate::Thread;

/// The `W`-byte little-endian element at `p + o` (bytes at and beyond `nb` read as zero).
#[inline(always)]
unsafe fn element<const W: usize>(p: *const u8, o: usize, nb: usize) -> u64 {
    let mut v = 0u64;
    for k in 0..W {
        if o + k < nb {
            v |= (*p.add(o + k) as u64) << (8 * k);
        }
    }
    v
}

/// Planes of group `g` (8 elements of width `W`: input bytes `8Wg..8W(g + 1)` of the `nb` at
/// `src`; with `FAST` they are `words`, the group's `W / 2` 16-byte words, for `W = 1` the
/// low half of one) into the padded bitmap `bm`.
#[inline(always)]
unsafe fn group<const W: usize, const FAST: bool>(
    words: [u128; 4],
    src: *const u8,
    nb: usize,
    signed: bool,
    bm: *mut u8,
    g: usize,
) {
    let groups = BLOCK_SIZE / 8 / W;
    let bits = 8 * W;
    let mask = u64::MAX >> (64 - bits);
    let at = 8 * W * g;
    // Plane p's byte g is at pad(p · groups) + pad(g): planes start on segment boundaries.
    let dst = bm.add(pad(g));
    // Plane bytes of element byte `b`: one bit transpose, most significant plane first.
    let emit = |b: usize, row: u64| {
        let y = transpose8(row);
        for k in 0..8 {
            let plane = bits - 1 - (8 * b + k);
            *dst.add(pad(plane * groups)) = (y >> (8 * k)) as u8;
        }
    };
    // Planes of element bits `low..low + 32` from 8 words after `transpose_blocks8`: byte `b` of
    // word `c` is the plane of bit `low + 8b + c`.
    let planes32 = |low: usize, w: &[u32; 8]| {
        for (c, &x) in w.iter().enumerate() {
            for b in 0..4 {
                *dst.add(pad((bits - 1 - (low + 8 * b + c)) * groups)) = (x >> (8 * b)) as u8;
            }
        }
    };
    if W == 1 {
        // The group's 8 bytes are the row of element byte 0.
        let mut v = if FAST { words[0] as u64 } else { element::<8>(src, at, nb) };
        if signed {
            v ^= ((v >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x7f);
        }
        emit(0, v);
        return;
    }
    if FAST {
        // Byte rows by byte permutes of the group's 32-bit words.
        let u = |i: usize| (words[i / 4] >> (32 * (i % 4))) as u32;
        match W {
            2 => {
                let mut w = [u(0), u(1), u(2), u(3)];
                if signed {
                    for x in &mut w {
                        *x ^= ((*x >> 15) & 0x0001_0001).wrapping_mul(0x7fff);
                    }
                }
                let row = |sel: u32| prmt(w[0], w[1], sel) as u64 | (prmt(w[2], w[3], sel) as u64) << 32;
                emit(0, row(0x6420));
                emit(1, row(0x7531));
            }
            4 => {
                let mut e: [u32; 8] = core::array::from_fn(u);
                if signed {
                    for x in &mut e {
                        *x ^= ((*x as i32 >> 31) as u32) >> 1;
                    }
                }
                transpose_blocks8(&mut e);
                planes32(0, &e);
            }
            _ => {
                let (mut lo, mut hi): ([u32; 8], [u32; 8]) =
                    (core::array::from_fn(|j| u(2 * j)), core::array::from_fn(|j| u(2 * j + 1)));
                if signed {
                    for j in 0..8 {
                        let s = (hi[j] as i32 >> 31) as u32;
                        lo[j] ^= s;
                        hi[j] ^= s >> 1;
                    }
                }
                transpose_blocks8(&mut lo);
                transpose_blocks8(&mut hi);
                planes32(0, &lo);
                planes32(32, &hi);
            }
        }
        return;
    }
    // Row j: element j, signed-mapped; after the byte transpose row b holds byte b of the
    // 8 elements.
    let e = |j: usize| {
        let v = if FAST {
            let bit = bits * j;
            (words[bit / 128] >> (bit % 128)) as u64 & mask
        } else {
            element::<W>(src, at + W * j, nb)
        };
        if signed {
            v ^ ((v >> (bits - 1)) & 1).wrapping_mul(mask >> 1)
        } else {
            v
        }
    };
    let (mut y0, mut y1, mut y2, mut y3) = (e(0), e(1), e(2), e(3));
    let (mut y4, mut y5, mut y6, mut y7) = (e(4), e(5), e(6), e(7));
    transpose_bytes(&mut y0, &mut y1, &mut y2, &mut y3, &mut y4, &mut y5, &mut y6, &mut y7);
    emit(0, y0);
    emit(1, y1);
    if W > 2 {
        emit(2, y2);
        emit(3, y3);
    }
    if W > 4 {
        emit(4, y4);
        emit(5, y5);
        emit(6, y6);
        emit(7, y7);
    }
}

/// Planes of the `nb` input bytes at `src` (width `W`, signed-mapped if `SIGNED`) into the
/// padded bitmap `bm`: lane `g`
/// takes groups `g, g + 32, …`. A whole aligned block is read in batches of eight loads per
/// lane, all issued before the batch's planes are stored, so that a batch waits for memory once
/// (the stores to shared memory would otherwise keep the next group's loads behind them).
#[inline(always)]
pub(super) unsafe fn to_bitmap<T: Thread, const W: usize, const SIGNED: bool>(
    t: &T,
    src: *const u8,
    nb: usize,
    bm: *mut u8,
) {
    let groups = BLOCK_SIZE / 8 / W;
    let lane = t.lane() as usize;
    if nb == BLOCK_SIZE && (src as usize).is_multiple_of(16) {
        let mut g = lane;
        while g < groups {
            // Loads in flight per lane: 4 of 16 bytes (W / 2 per group), or for W = 1 8 groups of
            // 8 bytes (4, 8 and 16 measured alike; 8 wide loads spill on sm_80). Constant indices
            // only, so `q` stays in registers.
            let half = (W / 2).max(1);
            let loads = if W == 1 { 8 } else { 4 };
            let per = loads / half;
            let ld = |i: usize| {
                let at = src.add(8 * W * (g + 32 * (i / half)));
                if i >= loads {
                    0
                } else if W == 1 {
                    *(at as *const u64) as u128
                } else {
                    *(at as *const u128).add(i % half)
                }
            };
            let q: [u128; 8] = [ld(0), ld(1), ld(2), ld(3), ld(4), ld(5), ld(6), ld(7)];
            let put = |k: usize| {
                if k < per {
                    let word = |i: usize| if i < half { q[k * half + i] } else { 0 };
                    group::<W, true>([word(0), word(1), word(2), word(3)], src, nb, SIGNED, bm, g + 32 * k);
                }
            };
            put(0);
            put(1);
            put(2);
            put(3);
            put(4);
            put(5);
            put(6);
            put(7);
            g += 32 * per;
        }
    } else {
        let mut g = lane;
        while g < groups {
            group::<W, false>([0; 4], src, nb, SIGNED, bm, g);
            g += 32;
        }
    }
}
