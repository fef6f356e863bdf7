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
//! A sub-stream holds `c` 32-bit words (any `c` from 1 to 512). Its header:
//!
//! | offset | content |
//! |---|---|
//! | 0 | `u8` header length − 1: 9, 13 or 17 (checked) |
//! | 1 | `u8` mode: bit 6 = RLE form; bits 0–5 = `t` (0, 1: FOR; 2: DELTA; 3: zigzag DELTA; 4: DELTA + FOR); other values are not known and rejected |
//! | 2 | `u32` plane mask |
//! | 6 | `u32` first word (t = 2, 3, 4) |
//! | then | `u32` reference (t = 0, 1, 4) |
//! | then | RLE form: `u32 4·s`, then a run-start bit map of `ceil(c / 32)` u32 words (bit `i` set: word `i` starts a run, else it repeats word `i−1`; `s` bits set, bit 0 among them, none past `c`) |
//! | then | the stored bits of the `s` values (`s = c` without RLE), from mask bit 0 up: a byte-aligned group of 8 set bits is `roundup8(s)` bytes (byte `j` holds bits `8g..8g+8` of value `(j mod L)·8 + j div L`, `L = roundup8(s)/8`; values from `s` on are filler); any other set bit `b` is a plane of `ceil(s/8)` bytes, value `i`'s bit at byte `i/8`, bit `i mod 8`. Exception: mask `0xffffffff` stores `roundup8(s)` whole u32 words, word `j` being value `(j mod L)·8 + j div L` (not four byte groups) |
//!
//! Entry `i` = stored `i` + reference (0 when absent). FOR (t = 0, 1): value `i` = entry `i`.
//! DELTA (t = 2, 4): value 0 = first, value `i` = value `i−1` + entry `i` (entry 0 ignored);
//! t = 3 adds unzigzag(entry `i`) = (e >> 1) XOR −(e AND 1) instead. In the RLE form these are the
//! run values, expanded by the bit map. The sub-stream must end right after its stored bits.
//! Headers seen: `09 00`, `09 01`, `09 02`, `0d 04`, `0d 40`, `0d 43`, `11 44`.
//!
//! Established with nvCOMP 6.0.0.12's GPU encoder on inputs chosen for it (4-byte chunks with
//! last sub-blocks of 1 to 255 elements; 8-byte chunks with constant, stepping and walking high
//! words and such tails, random 24-, 31- and 32-bit words: all 46 decode exactly) besides the golden streams. Anything else (other
//! modes, 1- and 2-byte types) is rejected with `CannotDecompress`, never guessed.
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
    if mask == u32::MAX {
        // All 32 bits: whole little-endian words, in the byte groups' lane order.
        let bytes = data.get(..4 * c8).ok_or(Status::CannotDecompress)?;
        for (j, w) in bytes.chunks_exact(4).enumerate() {
            vals[(j % lanes) * 8 + j / lanes] = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        }
        return Ok(4 * c8);
    }
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
/// `roundup8(c)` words); `stored` is scratch for the run values of the RLE form.
fn substream(sub: &[u8], c: usize, words: &mut [u32], stored: &mut Vec<u32>) -> Result<(), Status> {
    let flags = *sub.first().ok_or(Status::CannotDecompress)?;
    let mode = *sub.get(1).ok_or(Status::CannotDecompress)?;
    let mask = u32_at(sub, 2)?;
    if c == 0 || words.len() < c.next_multiple_of(8) || mode & 0x80 != 0 {
        return Err(Status::CannotDecompress);
    }
    let rle = mode & 0x40 != 0;
    let t = mode & 0x3f;
    let (has_first, has_for) = match t {
        0 | 1 => (false, true),
        2 | 3 => (true, false),
        4 => (true, true),
        _ => return Err(Status::CannotDecompress),
    };
    let mut q = 6;
    let mut field = || -> Result<u32, Status> {
        let v = u32_at(sub, q)?;
        q += 4;
        Ok(v)
    };
    let first = if has_first { field()? } else { 0 };
    let base = if has_for { field()? } else { 0 };
    let runs = if rle { Some(field()? as usize) } else { None };
    // The flags byte is the header length minus one (9, 13 or 17).
    if usize::from(flags) + 1 != q {
        return Err(Status::CannotDecompress);
    }
    // The stored values: all c words, or the s run values of the RLE form.
    let (s, map) = match runs {
        Some(s4) => {
            let s = s4 / 4;
            if s4 % 4 != 0 || s == 0 || s > c {
                return Err(Status::CannotDecompress);
            }
            let map = sub.get(q..q + 4 * c.div_ceil(32)).ok_or(Status::CannotDecompress)?;
            q += map.len();
            let ones: u32 = map.iter().map(|b| b.count_ones()).sum();
            // Bit 0 starts the first run; bits past c are zero.
            if map[0] & 1 == 0 || ones as usize != s || (c..8 * map.len()).any(|i| map[i / 8] >> (i % 8) & 1 == 1) {
                return Err(Status::CannotDecompress);
            }
            (s, Some(map))
        }
        None => (c, None),
    };
    let vals: &mut [u32] = if map.is_some() {
        stored.clear();
        stored.resize(s.next_multiple_of(8), 0);
        stored
    } else {
        words.fill(0);
        words
    };
    q += read_bits(sub.get(q..).ok_or(Status::CannotDecompress)?, mask, s, vals)?;
    if q != sub.len() {
        return Err(Status::CannotDecompress);
    }
    // Entries are stored + reference; with DELTA (t = 2, 3, 4) value 0 is `first` and value i is
    // value i-1 plus entry i (unzigzagged for t = 3).
    let mut x = first;
    for (i, v) in vals[..s].iter_mut().enumerate() {
        let e = v.wrapping_add(base);
        *v = match t {
            0 | 1 => e,
            _ if i == 0 => first,
            3 => {
                x = x.wrapping_add((e >> 1) ^ (e & 1).wrapping_neg());
                x
            }
            _ => {
                x = x.wrapping_add(e);
                x
            }
        };
    }
    if let Some(map) = map {
        let mut j = 0;
        let mut cur = 0;
        for (i, w) in words[..c].iter_mut().enumerate() {
            if map[i / 8] >> (i % 8) & 1 == 1 {
                cur = stored[j];
                j += 1;
            }
            *w = cur;
        }
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
        let joined_tail = parts == 2 && k + 1 == 2 * nsub && !nel.is_multiple_of(SUB_ELEMENTS);
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
