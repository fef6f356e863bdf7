//! Decoder for symmetric-mode chunks (chunk byte 2 = 1; FORMATS C.2.2), 4- and 8-byte types.
//!
//! After the 8-byte chunk header: a `u16` compressed size per block (`ceil(n / 8192)` of them),
//! then the blocks back to back, unaligned. A block holds 8192 input bytes (the last one fewer),
//! split into sub-blocks of 256 elements (the last one fewer). It starts with a `u16` table of
//! sub-stream offsets from the block start (entry 0 = 2 × entries), one sub-stream per sub-block
//! for 4-byte types, two for 8-byte types (low words, then high words). Sub-streams hold 32-bit
//! words, `c` of them (`c` a multiple of 8):
//!
//! | offset | content |
//! |---|---|
//! | 0 | `u8` flags, bit 2 (0x04) = DELTA |
//! | 1 | `u8` (not needed to decode) |
//! | 2 | `u32` plane mask |
//! | 6 | with DELTA: `u32` first word |
//! | 6 / 10 | `u32` reference, added modulo 2^32 |
//! | then | the mask's bits from bit 0 up: a byte-aligned group of 8 set bits is `c` bytes (byte `j` holds bits `8g..8g+8` of word `(j mod c/8)·8 + j div (c/8)`); any other set bit `b` is a plane of `ceil(c/8)` bytes, word `i`'s bit at byte `i/8`, bit `i mod 8` |
//!
//! Without DELTA word `i` = entry `i` + reference; with DELTA word 0 = first and word `i` =
//! word `i−1` + entry `i` + reference (entry 0 ignored). A sub-stream must end exactly where the
//! next begins.
//!
//! The final partial sub-block of an 8-byte chunk has a single sub-stream of another form, read
//! by the rule fitted to nvCOMP's two samples (FORMATS C.2.2, marked \[G\] there): `u8` flags, `u8 0x40 | t` (t = 0
//! words as stored, t = 3 zigzag deltas from the `u32` first word at offset 6), `u32` plane mask,
//! header fields not understood, then — at the end of the block — the stored bits of `c = m + 8`
//! words (FOR 0): the `m` low words, the high word shared by all `m` elements, 7 fillers. Other
//! forms (1- and 2-byte types, sub-blocks not a multiple of 8 words, other `t`) are not known and
//! give `CannotDecompress`.
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

/// Bytes the stored bits of `c` words take under `mask`.
fn bits_bytes(mask: u32, c: usize) -> usize {
    let groups = (0..4).filter(|g| (mask >> (8 * g)) & 0xff == 0xff).count();
    let planes = mask.count_ones() as usize - 8 * groups;
    c.next_multiple_of(8) * groups + c.div_ceil(8) * planes
}

/// Decodes a regular sub-stream (exactly `sub`) of `c` words into `words[..c]` (`words` has room
/// for `roundup8(c)`).
fn substream(sub: &[u8], c: usize, words: &mut [u32]) -> Result<(), Status> {
    let flags = *sub.first().ok_or(Status::CannotDecompress)?;
    let mask = u32_at(sub, 2)?;
    let mut q = 6;
    let first = if flags & 4 != 0 {
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

/// Decodes the final partial sub-block of an 8-byte chunk (`m` elements) from `sub` into `out`
/// (`8·m` bytes).
fn tail64(sub: &[u8], m: usize, out: &mut [u8]) -> Result<(), Status> {
    let b1 = *sub.get(1).ok_or(Status::CannotDecompress)?;
    let mask = u32_at(sub, 2)?;
    let t = b1 & 0x3f;
    if b1 & 0xc0 != 0x40 || (t != 0 && t != 3) || m % 8 != 0 {
        return Err(Status::CannotDecompress);
    }
    let c = m + 8;
    let len = bits_bytes(mask, c);
    let start = sub.len().checked_sub(len).filter(|&s| s >= 10).ok_or(Status::CannotDecompress)?;
    let mut vals = vec![0u32; c];
    read_bits(&sub[start..], mask, c, &mut vals)?;
    if t == 3 {
        let mut x = u32_at(sub, 6)?;
        vals[0] = x;
        for v in vals.iter_mut().skip(1) {
            let z = *v;
            x = x.wrapping_add((z >> 1) ^ (z & 1).wrapping_neg());
            *v = x;
        }
    }
    let hi = vals[m];
    for (d, &lo) in out.chunks_exact_mut(8).zip(&vals[..m]) {
        d[..4].copy_from_slice(&lo.to_le_bytes());
        d[4..].copy_from_slice(&hi.to_le_bytes());
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
    let mut lo = vec![0u32; SUB_ELEMENTS];
    let mut hi = vec![0u32; SUB_ELEMENTS];
    for (bi, dst) in out.chunks_mut(BLOCK_BYTES).enumerate() {
        let size = u16_at(body, 2 * bi)?;
        let block = body.get(p..p + size).ok_or(Status::CannotDecompress)?;
        let nel = dst.len() / width;
        let nsub = nel.div_ceil(SUB_ELEMENTS);
        let tail = width == 8 && nel % SUB_ELEMENTS != 0;
        let k = parts * nsub - tail as usize;
        if u16_at(block, 0)? != 2 * k {
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
            if tail && s == nsub - 1 {
                tail64(&block[offs[parts * s]..size], c, d)?;
                continue;
            }
            substream(&block[offs[parts * s]..offs[parts * s + 1]], c, &mut lo)?;
            if parts == 1 {
                for (e, w) in d.chunks_exact_mut(4).zip(&lo[..c]) {
                    e.copy_from_slice(&w.to_le_bytes());
                }
            } else {
                substream(&block[offs[2 * s + 1]..offs[2 * s + 2]], c, &mut hi)?;
                for ((e, l), h) in d.chunks_exact_mut(8).zip(&lo[..c]).zip(&hi[..c]) {
                    e[..4].copy_from_slice(&l.to_le_bytes());
                    e[4..].copy_from_slice(&h.to_le_bytes());
                }
            }
        }
        p += size;
    }
    if p != body.len() {
        return Err(Status::CannotDecompress);
    }
    Ok(())
}
