#![allow(dead_code)]
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

/// The coded block of a plane bitmap (the inverse of [`to_bitmap`]).
pub fn from_bitmap(bitmap: &[u8; BITMAP_SIZE], ty: ElementType, coded: &mut [u8; BLOCK_SIZE]) {
    match ty.width {
        1 => from_bitmap_w::<1>(bitmap, coded),
        2 => from_bitmap_w::<2>(bitmap, coded),
        4 => from_bitmap_w::<4>(bitmap, coded),
        _ => from_bitmap_w::<8>(bitmap, coded),
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

fn from_bitmap_w<const W: usize>(bitmap: &[u8; BITMAP_SIZE], coded: &mut [u8; BLOCK_SIZE]) {
    let bits = 8 * W;
    let stride = BLOCK_SIZE / W / 8;
    for (g, group) in coded.chunks_exact_mut(8 * W).enumerate() {
        for b in 0..W {
            let mut x = 0u64;
            for t in 0..8 {
                x |= (bitmap[(bits - 1 - (8 * b + t)) * stride + g] as u64) << (8 * t);
            }
            let y = transpose8(x);
            for j in 0..8 {
                group[j * W + b] = (y >> (8 * j)) as u8;
            }
        }
    }
}
