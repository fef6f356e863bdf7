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
use super::header::ElementType;
use super::table::BLOCK_SIZE;

/// Bytes of a block's plane bitmap (always 8192 = 65536 bits).
pub const BITMAP_SIZE: usize = BLOCK_SIZE;

/// Transposes an 8×8 bit matrix held in a `u64`: bit `8r + c` moves to bit `8c + r` (byte `r`,
/// bit `c` becomes byte `c`, bit `r`). Its own inverse.
pub fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

/// Applies the signed mapping in place to the elements of `block` (little-endian, `ty.width`
/// bytes each; a partial trailing element is left as it is) when `ty` is signed.
pub fn signed_map(block: &mut [u8], ty: ElementType) {
    if !ty.signed {
        return;
    }
    for e in block.chunks_exact_mut(ty.width) {
        let (top, low) = e.split_last_mut().expect("width >= 1");
        if *top & 0x80 != 0 {
            *top ^= 0x7f;
            low.iter_mut().for_each(|b| *b ^= 0xff);
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
    let (w, bits) = (ty.width, ty.bits());
    let stride = BLOCK_SIZE / w / 8; // bytes per plane = groups of 8 elements
    for g in 0..stride {
        let group = &coded[8 * g * w..8 * (g + 1) * w];
        for b in 0..w {
            let mut x = 0u64;
            for j in 0..8 {
                x |= (group[j * w + b] as u64) << (8 * j);
            }
            let y = transpose8(x);
            for t in 0..8 {
                bitmap[(bits - 1 - (8 * b + t)) * stride + g] = (y >> (8 * t)) as u8;
            }
        }
    }
}

/// The coded block of a plane bitmap (the inverse of [`to_bitmap`]).
pub fn from_bitmap(bitmap: &[u8; BITMAP_SIZE], ty: ElementType, coded: &mut [u8; BLOCK_SIZE]) {
    let (w, bits) = (ty.width, ty.bits());
    let stride = BLOCK_SIZE / w / 8;
    for g in 0..stride {
        let group = &mut coded[8 * g * w..8 * (g + 1) * w];
        for b in 0..w {
            let mut x = 0u64;
            for t in 0..8 {
                x |= (bitmap[(bits - 1 - (8 * b + t)) * stride + g] as u64) << (8 * t);
            }
            let y = transpose8(x);
            for j in 0..8 {
                group[j * w + b] = (y >> (8 * j)) as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types() -> impl Iterator<Item = ElementType> {
        (0..8).map(|c| ElementType::from_code(c).unwrap())
    }

    #[test]
    fn transpose8_is_the_bit_transpose() {
        let mut s = 0x1234_5678_9abc_def1u64;
        for _ in 0..100 {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let y = transpose8(s);
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!((s >> (8 * r + c)) & 1, (y >> (8 * c + r)) & 1);
                }
            }
            assert_eq!(transpose8(y), s);
        }
    }

    /// The definition, bit by bit.
    fn naive(coded: &[u8; BLOCK_SIZE], ty: ElementType) -> Vec<u8> {
        let (w, bits) = (ty.width, ty.bits());
        let nel = BLOCK_SIZE / w;
        let mut bm = vec![0u8; BITMAP_SIZE];
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
        let mut coded = [0u8; BLOCK_SIZE];
        let mut s = 7u64;
        for (i, b) in coded.iter_mut().enumerate() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *b = if i % 3 == 0 { (s >> 33) as u8 } else { 0 };
        }
        for ty in types() {
            let mut bm = [0u8; BITMAP_SIZE];
            to_bitmap(&coded, ty, &mut bm);
            assert_eq!(bm.to_vec(), naive(&coded, ty), "{ty:?}");
            let mut back = [0u8; BLOCK_SIZE];
            from_bitmap(&bm, ty, &mut back);
            assert_eq!(back, coded);
        }
        // BITCOMP.md §2 examples
        let mut one = [0u8; BLOCK_SIZE];
        one[0] = 1;
        let mut bm = [0u8; BITMAP_SIZE];
        to_bitmap(&one, ElementType { width: 4, signed: false }, &mut bm);
        assert_eq!(bm[7936], 1);
        to_bitmap(&one, ElementType { width: 8, signed: false }, &mut bm);
        assert_eq!(bm[64512 / 8], 1);
    }

    #[test]
    fn signed_mapping() {
        let ty = ElementType { width: 4, signed: true };
        let mut v = [(-1i32).to_le_bytes(), (-2i32).to_le_bytes(), 5i32.to_le_bytes()].concat();
        signed_map(&mut v, ty);
        assert_eq!(v, [0x8000_0000u32.to_le_bytes(), 0x8000_0001u32.to_le_bytes(), 5u32.to_le_bytes()].concat());
    }
}
