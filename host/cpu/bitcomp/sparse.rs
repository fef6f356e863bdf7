//! Algorithm 1 ("sparse"): a 3-level hierarchical bitmap of the nonzero bytes of the plane
//! bitmap.
//!
//! Payload of a coded block (little-endian):
//!
//! ```text
//! u32 L0                    bit j set <=> bitmap bytes [256j, 256j + 256) not all zero
//! u32 L1[popcount(L0)]      per set j ascending: bit m set <=> bytes [256j + 8m, +8) not all zero
//! u8  L2[popcount(all L1)]  per set (j, m) ascending: bit t set <=> byte 256j + 8m + t != 0
//! u8  L3[popcount(all L2)]  the nonzero bitmap bytes, ascending byte index
//! zero bytes up to a multiple of 4
//! ```
//!
//! An all-zero block is the single word `0`. Parallel units: L0 bit `j` ↔ a 256-byte region
//! (one warp of 32 lanes, one lane per 8-byte group); L1 bit `m` ↔ an 8-byte group. The
//! positions of L1 words, L2 bytes and L3 bytes are exclusive prefix sums of the popcounts.
//! nvCOMP's host writer pads with zeros, its GPU writer with scratch bytes (ignored on reading).
use super::planes::BITMAP_SIZE;
use crate::error::Status;

/// Appends the sparse payload of `bitmap` to `out` (padded with zeros to 4 bytes).
///
/// The 8-byte groups `k = 32j + m` are visited in increasing `k`, which is the (j, m) order of
/// the L2 and L3 levels.
pub fn encode(bitmap: &[u8; BITMAP_SIZE], out: &mut Vec<u8>) {
    let start = out.len();
    let mut groups = [0u64; BITMAP_SIZE / 8];
    for (g, c) in groups.iter_mut().zip(bitmap.chunks_exact(8)) {
        *g = u64::from_le_bytes(c.try_into().expect("8 bytes"));
    }
    let mut l1 = [0u32; 32];
    for (k, &g) in groups.iter().enumerate() {
        l1[k / 32] |= ((g != 0) as u32) << (k % 32);
    }
    let l0 = l1.iter().enumerate().fold(0u32, |l0, (j, &w)| l0 | ((w != 0) as u32) << j);
    out.extend_from_slice(&l0.to_le_bytes());
    for &w in l1.iter().filter(|&&w| w != 0) {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for &g in groups.iter().filter(|&&g| g != 0) {
        out.push((0..8).fold(0u8, |l2, t| l2 | (((g >> (8 * t)) as u8 != 0) as u8) << t));
    }
    for &g in groups.iter().filter(|&&g| g != 0) {
        out.extend(g.to_le_bytes().into_iter().filter(|&b| b != 0));
    }
    let len = out.len() - start;
    out.resize(start + len.next_multiple_of(4), 0);
}

/// Decodes a sparse payload into `bitmap`; returns the bytes used (the rest of the payload is
/// padding). `CannotDecompress` when the payload ends before its levels do. Zero bytes listed
/// in L3 are accepted (decoded as zeros).
pub fn decode(payload: &[u8], bitmap: &mut [u8; BITMAP_SIZE]) -> Result<usize, Status> {
    bitmap.fill(0);
    let word = |i: usize| -> Result<u32, Status> {
        let b = payload.get(i..i + 4).ok_or(Status::CannotDecompress)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let l0 = word(0)?;
    let mut l1 = [0u32; 32];
    let mut pos = 4;
    for (j, w) in l1.iter_mut().enumerate() {
        if l0 >> j & 1 == 1 {
            *w = word(pos)?;
            pos += 4;
        }
    }
    let n2: usize = l1.iter().map(|w| w.count_ones() as usize).sum();
    let l2 = payload.get(pos..pos + n2).ok_or(Status::CannotDecompress)?;
    let n3: usize = l2.iter().map(|b| b.count_ones() as usize).sum();
    let l3 = payload.get(pos + n2..pos + n2 + n3).ok_or(Status::CannotDecompress)?;
    // Set bits are visited lowest first (ascending (j, m) and t), skipping the zero ones: the
    // filtered 0..32 and 0..8 scans made this the slowest step of a sparse block.
    let (mut i2, mut i3) = (0, 0);
    for (region, &w) in bitmap.chunks_exact_mut(256).zip(&l1) {
        let mut w = w;
        while w != 0 {
            let m = w.trailing_zeros() as usize;
            w &= w - 1;
            let group = &mut region[8 * m..8 * m + 8];
            let mut b2 = l2[i2];
            i2 += 1;
            if b2 == 0xff {
                group.copy_from_slice(&l3[i3..i3 + 8]);
                i3 += 8;
                continue;
            }
            while b2 != 0 {
                group[b2.trailing_zeros() as usize] = l3[i3];
                i3 += 1;
                b2 &= b2 - 1;
            }
        }
    }
    Ok(pos + n2 + n3)
}
