//! Decoder for symmetric-mode chunks (chunk byte 2 = 1; FORMATS C.2.2), 4- and 8-byte types.
//!
//! After the 8-byte chunk header: a `u16` compressed size per block (`ceil(n / 8192)` of them),
//! then the blocks back to back, unaligned. A block holds 8192 input bytes (the last one fewer),
//! split into sub-blocks of 256 elements (the last one fewer). It starts with a `u16` table of
//! sub-stream offsets from the block start (entry 0 = 2 × entries), then the sub-streams; a
//! sub-stream ends where the next begins (the last at the block end). 4-byte types: one
//! sub-stream per sub-block. 8-byte types: two per sub-block, the low words then the high words,
//! except that a partial last sub-block of `m` elements may be **one** sub-stream of `2m` words
//! (the `m` low words, then the `m` high words) — the table's entry count says which (nvCOMP
//! joined them for m ≤ 100 and split them for m = 255 in the samples).
//!
//! A sub-stream holds `c` 32-bit words (any `c` from 1 to 512):
//!
//! | offset | content |
//! |---|---|
//! | 0 | `u8` flags, `u8` mode: `09 00` or `09 01` (FOR), `0d 04` (DELTA), `xx 40` / `xx 43` (RLE form, below) |
//! | 2 | `u32` plane mask |
//! | 6 | DELTA only: `u32` first word |
//! | 6 / 10 | `u32` reference, added modulo 2^32 |
//! | then | the mask's bits from bit 0 up: a byte-aligned group of 8 set bits is `roundup8(c)` bytes (byte `j` holds bits `8g..8g+8` of word `(j mod L)·8 + j div L`, `L = roundup8(c)/8`; words from `c` on are filler); any other set bit `b` is a plane of `ceil(c/8)` bytes, word `i`'s bit at byte `i/8`, bit `i mod 8` |
//!
//! FOR: word `i` = entry `i` + reference. DELTA: word 0 = first, word `i` = word `i−1` plus entry
//! `i` plus the reference (entry 0 ignored).
//!
//! RLE form (mode `0x40 | t`, seen with t = 0 and t = 3 in the final sub-blocks of 8-byte
//! chunks): `u32` plane mask at 2; at 6 a `u32` that is the reference for t = 0 and the first
//! value for t = 3; at 10 `u32 4·s`; at 14 a run-start bit map of `ceil(c / 32)` u32 words (bit `i`
//! set: word `i` starts a run, else it repeats word `i−1`; `s` bits set, bit 0 among them); then
//! the stored bits of the `s` run values, laid out as above for `s` words. t = 0: run value =
//! stored + reference; t = 3: run value 0 = first, run value `i` = run value `i−1` +
//! unzigzag(stored `i`), unzigzag(z) = (z >> 1) XOR −(z AND 1).
//!
//! Established with nvCOMP 6.0.0.12's GPU encoder on inputs chosen for it (4-byte chunks with
//! last sub-blocks of 1, 3, 8, 13, 100, 255 elements; 8-byte chunks with constant high words and
//! such tails: all decode exactly) besides the golden streams. **Not understood yet**, and
//! rejected with `CannotDecompress` (never decoded wrongly): the modes `09 02` and `11 44` nvCOMP
//! writes for high words that change every few elements or walk (8-byte chunks with varying high
//! words), and any other flags/mode pair; 1- and 2-byte types.
use crate::Status;

/// Input bytes per symmetric block.
pub const BLOCK_BYTES: usize = 8192;
/// Elements per sub-block.
pub const SUB_ELEMENTS: usize = 256;

fn u16_at(b: &[u8], at: usize) -> Result<usize, Status> {
    let s = b.get(at..at + 2).ok_or(Status::CannotDecompress)?;
    Ok(u16::from_le_bytes([s[0], s[1]]) as usize)
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, Status> {
    let s = b.get(at..at + 4).ok_or(Status::CannotDecompress)?;
    Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Reads the stored bits of `c` words (mask `mask`) from `data` into `vals` (zeroed, length at
/// least `roundup8(c)`; entries from `c` on are filler); returns the bytes read. A byte group holds
/// `roundup8(c)` bytes, a bit plane `ceil(c / 8)`.
fn read_bits(data: &[u8], mask: u32, c: usize, vals: &mut [u32]) -> Result<usize, Status> {
    let c8 = c.next_multiple_of(8);
    if vals.len() < c8 {
        return Err(Status::CannotDecompress);
    }
    let lanes = c8 / 8;
    let plane = c.div_ceil(8);
    let mut q = 0;
    let mut b = 0;
    while b < 32 {
        if b % 8 == 0 && (mask >> b) & 0xff == 0xff {
            let bytes = data.get(q..q + c8).ok_or(Status::CannotDecompress)?;
            for (j, &x) in bytes.iter().enumerate() {
                vals[(j % lanes) * 8 + j / lanes] |= u32::from(x) << b;
            }
            q += c8;
            b += 8;
            continue;
        }
        if (mask >> b) & 1 == 1 {
            let bytes = data.get(q..q + plane).ok_or(Status::CannotDecompress)?;
            for (i, v) in vals[..c].iter_mut().enumerate() {
                *v |= u32::from(bytes[i / 8] >> (i % 8) & 1) << b;
            }
            q += plane;
        }
        b += 1;
    }
    Ok(q)
}

/// Decodes one sub-stream (exactly `sub`) of `c` words into `words[..c]` (`words` has room for
/// `roundup8(c)` words); `scratch` is reused for the stored words of the RLE form.
fn substream(sub: &[u8], c: usize, words: &mut [u32], scratch: &mut Vec<u32>) -> Result<(), Status> {
    let flags = *sub.first().ok_or(Status::CannotDecompress)?;
    let b1 = *sub.get(1).ok_or(Status::CannotDecompress)?;
    let mask = u32_at(sub, 2)?;
    if c == 0 || words.len() < c.next_multiple_of(8) {
        return Err(Status::CannotDecompress);
    }
    if b1 & 0xc0 == 0x40 {
        return rle_substream(sub, b1 & 0x3f, mask, c, words, scratch);
    }
    let delta = match (flags, b1) {
        (0x09, 0x00 | 0x01) => false,
        (0x0d, 0x04) => true,
        _ => return Err(Status::CannotDecompress),
    };
    let mut q = 6;
    let first = if delta {
        q += 4;
        Some(u32_at(sub, 6)?)
    } else {
        None
    };
    let base = u32_at(sub, q)?;
    q += 4;
    words.fill(0);
    q += read_bits(sub.get(q..).ok_or(Status::CannotDecompress)?, mask, c, words)?;
    if q != sub.len() {
        return Err(Status::CannotDecompress);
    }
    let words = &mut words[..c];
    for w in words.iter_mut() {
        *w = w.wrapping_add(base);
    }
    if let Some(first) = first {
        let mut x = first;
        words[0] = first;
        for w in words.iter_mut().skip(1) {
            x = x.wrapping_add(*w);
            *w = x;
        }
    }
    Ok(())
}

/// Decodes a sub-stream in the RLE form (see the module documentation).
fn rle_substream(
    sub: &[u8],
    t: u8,
    mask: u32,
    c: usize,
    words: &mut [u32],
    stored: &mut Vec<u32>,
) -> Result<(), Status> {
    if t != 0 && t != 3 {
        return Err(Status::CannotDecompress);
    }
    // Offset 6: the reference (t = 0) or the first value (t = 3, no reference).
    let v = u32_at(sub, 6)?;
    let (first, base) = if t == 3 { (v, 0) } else { (0, v) };
    let s4 = u32_at(sub, 10)? as usize;
    let mut q = 14;
    let s = s4 / 4;
    if s4 % 4 != 0 || s == 0 || s > c {
        return Err(Status::CannotDecompress);
    }
    let map = sub.get(q..q + 4 * c.div_ceil(32)).ok_or(Status::CannotDecompress)?;
    q += map.len();
    let starts = |i: usize| map[i / 8] >> (i % 8) & 1 == 1;
    if !starts(0) || (0..c).filter(|&i| starts(i)).count() != s {
        return Err(Status::CannotDecompress);
    }
    stored.clear();
    stored.resize(s.next_multiple_of(8), 0);
    q += read_bits(sub.get(q..).ok_or(Status::CannotDecompress)?, mask, s, stored)?;
    if q != sub.len() {
        return Err(Status::CannotDecompress);
    }
    let mut x = first;
    for (i, v) in stored[..s].iter_mut().enumerate() {
        let e = v.wrapping_add(base);
        *v = if t == 3 {
            if i > 0 {
                x = x.wrapping_add((e >> 1) ^ (e & 1).wrapping_neg());
            }
            x
        } else {
            e
        };
    }
    let mut j = 0;
    let mut cur = 0;
    for (i, w) in words[..c].iter_mut().enumerate() {
        if starts(i) {
            cur = stored[j];
            j += 1;
        }
        *w = cur;
    }
    Ok(())
}

/// Decodes the symmetric chunk body `body` (after the 8-byte header) into `out`, whose length is
/// the chunk's uncompressed size (a multiple of `width`).
pub fn decode(body: &[u8], width: usize, out: &mut [u8]) -> Result<(), Status> {
    if width != 4 && width != 8 {
        return Err(Status::CannotDecompress);
    }
    let n = out.len();
    let nblocks = n.div_ceil(BLOCK_BYTES);
    let mut p = 2 * nblocks;
    if p > body.len() {
        return Err(Status::CannotDecompress);
    }
    let parts = width / 4;
    let mut lo = vec![0u32; 2 * SUB_ELEMENTS];
    let mut hi = vec![0u32; SUB_ELEMENTS];
    let mut scratch = Vec::with_capacity(2 * SUB_ELEMENTS);
    for (bi, dst) in out.chunks_mut(BLOCK_BYTES).enumerate() {
        let size = u16_at(body, 2 * bi)?;
        let block = body.get(p..p + size).ok_or(Status::CannotDecompress)?;
        let nel = dst.len() / width;
        let nsub = nel.div_ceil(SUB_ELEMENTS);
        // 8-byte types: two sub-streams per sub-block, or one (low then high words) for a
        // partial last sub-block; the table says which.
        let k = u16_at(block, 0)? / 2;
        let joined_tail = parts == 2 && k + 1 == 2 * nsub && nel % SUB_ELEMENTS != 0;
        if k != parts * nsub && !joined_tail {
            return Err(Status::CannotDecompress);
        }
        let mut offs = Vec::with_capacity(k + 1);
        for j in 0..k {
            offs.push(u16_at(block, 2 * j)?);
        }
        offs.push(size);
        if offs.windows(2).any(|w| w[0] > w[1]) {
            return Err(Status::CannotDecompress);
        }
        for s in 0..nsub {
            let c = (nel - s * SUB_ELEMENTS).min(SUB_ELEMENTS);
            let d = &mut dst[s * SUB_ELEMENTS * width..(s * SUB_ELEMENTS + c) * width];
            if parts == 1 {
                substream(&block[offs[s]..offs[s + 1]], c, &mut lo, &mut scratch)?;
                for (e, w) in d.chunks_exact_mut(4).zip(&lo[..c]) {
                    e.copy_from_slice(&w.to_le_bytes());
                }
                continue;
            }
            let (l, h): (&[u32], &[u32]) = if joined_tail && s == nsub - 1 {
                substream(&block[offs[2 * s]..offs[2 * s + 1]], 2 * c, &mut lo, &mut scratch)?;
                (&lo[..c], &lo[c..2 * c])
            } else {
                substream(&block[offs[2 * s]..offs[2 * s + 1]], c, &mut lo, &mut scratch)?;
                substream(&block[offs[2 * s + 1]..offs[2 * s + 2]], c, &mut hi, &mut scratch)?;
                (&lo[..c], &hi[..c])
            };
            for ((e, a), b) in d.chunks_exact_mut(8).zip(l).zip(h) {
                e[..4].copy_from_slice(&a.to_le_bytes());
                e[4..].copy_from_slice(&b.to_le_bytes());
            }
        }
        p += size;
    }
    if p != body.len() {
        return Err(Status::CannotDecompress);
    }
    Ok(())
}
