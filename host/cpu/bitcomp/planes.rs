//! The common transform of both algorithms: a block as a 65536-bit bitmap of bit planes.
//!
//! A block is always handled at full size, 8192 bytes: the missing bytes of a short last block
//! (and of a trailing partial element) are zero. With `w` the element width, `bits = 8w` and
//! `nel = 8192 / w` elements:
//!
//! 1. **Signed mapping** ([`signed_map`], signed types only): an element `v` with its top bit
//!    set becomes `v XOR (2^(bits-1) - 1)` (sign kept, other bits flipped: -1 → 0x80…00,
//!    -2 → 0x80…01); non-negative values are unchanged. The map is its own inverse.
//! 2. **Planes** ([`to_bitmap`]): bit `p` of element `k` is bitmap bit
//!    `i = (bits - 1 - p) · nel + k`, bit `i mod 8` (LSB first) of byte `i / 8`. Plane `bits - 1`
//!    (the most significant) comes first; each plane is `nel / 8` bytes, element 0 first.
//!
//! The natural parallel unit is a group of 8 consecutive elements: it gives exactly one bitmap
//! byte in each of the `bits` planes, at byte `(bits - 1 - p) · nel/8 + g` for group `g`, and
//! is one 8×8 bit transpose ([`transpose8`]) per element byte.
use super::table::BLOCK_SIZE;
use crate::algorithm::bitcomp::ElementType;

/// Bytes of a block's plane bitmap (always 8192 = 65536 bits).
pub const BITMAP_SIZE: usize = BLOCK_SIZE;

use crate::cpu::bits::transpose8;

/// Applies the signed mapping in place to the elements of `block` (little-endian, `ty.width`
/// bytes each; a partial trailing element is left as it is) when `ty` is signed.
pub fn signed_map(block: &mut [u8], ty: ElementType) {
    /// `v XOR (2^(bits-1) - 1)` when the sign bit of `v` is set, branch-free.
    macro_rules! map {
        ($t:ty) => {{
            const W: usize = std::mem::size_of::<$t>();
            const LOW: $t = <$t>::MAX >> 1;
            for e in block.chunks_exact_mut(W) {
                let v = <$t>::from_le_bytes(e.try_into().expect("W bytes"));
                let flip = (v >> (8 * W - 1)).wrapping_neg() & LOW;
                e.copy_from_slice(&(v ^ flip).to_le_bytes());
            }
        }};
    }
    if ty.signed {
        match ty.width {
            1 => map!(u8),
            2 => map!(u16),
            4 => map!(u32),
            _ => map!(u64),
        }
    }
}

/// The coded block: `block` (at most 8192 bytes) zero-padded to 8192 bytes, signed-mapped.
/// Its bytes are also what nvCOMP's host writer leaves in the padding of a default-algorithm
/// block.
pub fn code_block(block: &[u8], ty: ElementType, coded: &mut [u8; BLOCK_SIZE]) {
    let n = block.len().min(BLOCK_SIZE);
    coded[..n].copy_from_slice(&block[..n]);
    coded[n..].fill(0);
    signed_map(coded, ty);
}

/// The plane bitmap of a coded block.
pub fn to_bitmap(coded: &[u8; BLOCK_SIZE], ty: ElementType, bitmap: &mut [u8; BITMAP_SIZE]) {
    match ty.width {
        1 => to_bitmap_w::<1>(coded, bitmap),
        2 => to_bitmap_w::<2>(coded, bitmap),
        4 => to_bitmap_w::<4>(coded, bitmap),
        _ => to_bitmap_w::<8>(coded, bitmap),
    }
}

/// The block bytes of a plane bitmap: the inverse of [`to_bitmap`] and of the signed mapping,
/// so that `from_bitmap(to_bitmap(code_block(x)))` is `x` zero-padded to 8192 bytes.
pub fn from_bitmap(bitmap: &[u8; BITMAP_SIZE], ty: ElementType, block: &mut [u8; BLOCK_SIZE]) {
    match (ty.width, ty.signed) {
        (1, false) => from_bitmap_w::<1, false>(bitmap, block),
        (1, true) => from_bitmap_w::<1, true>(bitmap, block),
        (2, false) => from_bitmap_w::<2, false>(bitmap, block),
        (2, true) => from_bitmap_w::<2, true>(bitmap, block),
        (4, false) => from_bitmap_w::<4, false>(bitmap, block),
        (4, true) => from_bitmap_w::<4, true>(bitmap, block),
        (_, false) => from_bitmap_w::<8, false>(bitmap, block),
        (_, true) => from_bitmap_w::<8, true>(bitmap, block),
    }
}

/// [`to_bitmap`] for width `W`: group `g` (elements `8g..8g+8`), element byte `b` → one
/// transpose → bitmap byte `(bits − 1 − (8b + t)) · stride + g` for each bit `t`.
fn to_bitmap_w<const W: usize>(coded: &[u8; BLOCK_SIZE], bitmap: &mut [u8; BITMAP_SIZE]) {
    let bits = 8 * W;
    let stride = BLOCK_SIZE / W / 8; // bytes per plane = groups of 8 elements
    for (g, group) in coded.chunks_exact(8 * W).enumerate() {
        for b in 0..W {
            let mut x = 0u64;
            for j in 0..8 {
                x |= (group[j * W + b] as u64) << (8 * j);
            }
            let y = transpose8(x);
            for t in 0..8 {
                bitmap[(bits - 1 - (8 * b + t)) * stride + g] = (y >> (8 * t)) as u8;
            }
        }
    }
}

/// [`from_bitmap`] for width `W`, 64 elements at a time: word `r` of a 64-word matrix is 64
/// elements' bit `r` (one u64 of plane `r`), and one transpose of each `8W × 8W` bit block
/// ([`transpose_blocks`]) turns it into the elements, which are unmapped as they are stored.
/// Gathering bytes for 8×8 transposes instead ran at 0.45 GB/s, bit by bit at 0.3 GB/s.
fn from_bitmap_w<const W: usize, const SIGNED: bool>(bitmap: &[u8; BITMAP_SIZE], block: &mut [u8; BLOCK_SIZE]) {
    let bits = 8 * W;
    let stride = BLOCK_SIZE / bits; // bytes per plane
    let mask = u64::MAX >> (64 - bits);
    for (q, out) in block.chunks_exact_mut(64 * W).enumerate() {
        let mut a = [0u64; 64];
        for (r, word) in a[..bits].iter_mut().enumerate() {
            let at = (bits - 1 - r) * stride + 8 * q;
            *word = u64::from_le_bytes(bitmap[at..at + 8].try_into().expect("8 bytes"));
        }
        transpose_blocks(&mut a[..bits]);
        // word r, bits [h·bits, (h+1)·bits): element h·bits + r
        for (h, elements) in out.chunks_exact_mut(bits * W).enumerate() {
            for (e, &word) in elements.chunks_exact_mut(W).zip(&a[..bits]) {
                let v = word >> (h * bits) & mask;
                let v = if SIGNED { v ^ ((v >> (bits - 1)).wrapping_neg() & mask >> 1) } else { v };
                e.copy_from_slice(&v.to_le_bytes()[..W]);
            }
        }
    }
}

/// Transposes each `k × k` bit block of the `k` words of `a` (`k` = `a.len()`, a power of two
/// up to 64; block `h`: bits `h·k .. h·k + k` of every word): bit `h·k + c` of word `r` moves
/// to bit `h·k + r` of word `c`. Recursive swaps of off-diagonal `s × s` sub-blocks, `s` from
/// `k/2` down to 1 (Hacker's Delight 7-3), all blocks of a word at once.
#[inline(always)]
fn transpose_blocks(a: &mut [u64]) {
    let mut s = a.len() / 2;
    while s > 0 {
        // bits c with c & s == 0
        let m = match s {
            32 => 0x0000_0000_FFFF_FFFF,
            16 => 0x0000_FFFF_0000_FFFF,
            8 => 0x00FF_00FF_00FF_00FF,
            4 => 0x0F0F_0F0F_0F0F_0F0F,
            2 => 0x3333_3333_3333_3333,
            _ => 0x5555_5555_5555_5555u64,
        };
        for pair in a.chunks_exact_mut(2 * s) {
            let (lo, hi) = pair.split_at_mut(s);
            for (x, y) in lo.iter_mut().zip(hi) {
                let t = ((*x >> s) ^ *y) & m;
                *y ^= t;
                *x ^= t << s;
            }
        }
        s /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// The plane bitmap by its definition (BITCOMP.md §2), bit by bit.
    fn naive_bitmap(coded: &[u8; 8192], ty: ElementType) -> Vec<u8> {
        let (w, bits) = (ty.width, ty.bits());
        let nel = 8192 / w;
        let mut bm = vec![0u8; 8192];
        for k in 0..nel {
            for p in 0..bits {
                if coded[k * w + p / 8] >> (p % 8) & 1 == 1 {
                    let i = (bits - 1 - p) * nel + k;
                    bm[i / 8] |= 1 << (i % 8);
                }
            }
        }
        bm
    }

    #[test]
    fn bitmap_matches_definition_and_inverts() {
        let mut r = Rng::here();
        for dense in [false, true] {
            let mut coded = [0u8; 8192];
            for (i, b) in coded.iter_mut().enumerate() {
                *b = if dense || i % 3 == 0 { r.next() as u8 } else { 0 };
            }
            for code in 0..8 {
                let ty = ElementType::from_code(code).unwrap();
                assert_eq!(ty.code(), code);
                let mut bm = [0u8; 8192];
                to_bitmap(&coded, ty, &mut bm);
                assert!(bm.to_vec() == naive_bitmap(&coded, ty), "{ty:?}");
                // from_bitmap also undoes the signed mapping
                let mut back = [0u8; 8192];
                from_bitmap(&bm, ty, &mut back);
                signed_map(&mut back, ty);
                assert!(back == coded, "{ty:?}");
            }
        }
        // BITCOMP.md §2 examples: u32 element 0 = 1 → byte 7936; u64 → bit 63·1024
        let mut one = [0u8; 8192];
        one[0] = 1;
        let mut bm = [0u8; 8192];
        to_bitmap(&one, ElementType { width: 4, signed: false }, &mut bm);
        assert_eq!(bm[7936], 1);
        to_bitmap(&one, ElementType { width: 8, signed: false }, &mut bm);
        assert_eq!(bm[64512 / 8], 1);
    }

    #[test]
    fn signed_mapping() {
        let ty = ElementType { width: 4, signed: true };
        let mut v = [(-1i32).to_le_bytes(), (-2i32).to_le_bytes(), 5i32.to_le_bytes()].concat();
        v.push(0xff); // a partial element is left alone
        signed_map(&mut v, ty);
        let want = [0x8000_0000u32.to_le_bytes(), 0x8000_0001u32.to_le_bytes(), 5u32.to_le_bytes()].concat();
        assert_eq!(&v[..12], &want[..]);
        assert_eq!(v[12], 0xff);
        for w in [1usize, 2, 8] {
            let mut m = vec![0xffu8; w];
            signed_map(&mut m, ElementType { width: w, signed: true });
            let mut e = vec![0u8; w];
            e[w - 1] = 0x80;
            assert_eq!(m, e);
        }
    }
}
