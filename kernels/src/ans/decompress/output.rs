//! A lane's decoded symbols of a tile written out: bytes, and the float modes' symbols merged
//! with their raw bytes.

use super::header::Hd;
use crate::bits::prmt;

/// Writes a lane's `cnt` decoded symbols, the chunk's symbols `g .. g + cnt`, as output bytes.
#[inline(always)]
pub(super) unsafe fn put<const MODE: u32>(h: Hd, g: u32, acc: u64, cnt: u32) {
    let out = h.out();
    let raw = h.src().add(h.raw() as usize);
    match MODE {
        0 => put_bytes(out.add(g as usize), acc, cnt),
        1 => put_f16(out, raw, h.n() / 2, g, acc, cnt),
        2 => put_f8(out, raw, g, acc, cnt),
        _ => put_f32(out, raw, h.n() / 4, g, acc, cnt),
    }
}

/// Byte mode: the symbols are the bytes.
#[inline(always)]
unsafe fn put_bytes(dst: *mut u8, acc: u64, cnt: u32) {
    let a = dst as usize;
    if cnt == 8 && a % 8 == 0 {
        *(dst as *mut u64) = acc;
    } else if cnt == 2 && a % 2 == 0 {
        *(dst as *mut u16) = acc as u16;
    } else if cnt == 4 && a % 4 == 0 {
        *(dst as *mut u32) = acc as u32;
    } else {
        for i in 0..cnt {
            *dst.add(i as usize) = (acc >> (8 * i)) as u8;
        }
    }
}

/// FLOAT8 E4M3: symbol `g + i` (a pair of values) gives output bytes `2(g + i)` and
/// `2(g + i) + 1`, each `(r & 8) << 4 | (e & 15) << 3 | (r & 7)` from the raw nibble `r` and the
/// symbol nibble `e` (low nibbles first), as the reference's `float::merge`.
#[inline(always)]
unsafe fn put_f8(out: *mut u8, raw: *const u8, g: u32, acc: u64, cnt: u32) {
    let dst = out.add(2 * g as usize);
    let rp = raw.add(g as usize);
    if cnt == 4 && (rp as usize) % 4 == 0 && (dst as usize) % 8 == 0 {
        *(dst as *mut u64) = merge_f8(*(rp as *const u32), acc as u32);
    } else {
        for i in 0..cnt as usize {
            let (r, e) = (*rp.add(i), (acc >> (8 * i)) as u8);
            *dst.add(2 * i) = (r & 8) << 4 | (e & 15) << 3 | (r & 7);
            *dst.add(2 * i + 1) = (r >> 4 & 8) << 4 | (e >> 4) << 3 | (r >> 4 & 7);
        }
    }
}

/// FLOAT8: 4 raw bytes and 4 symbols (pairs of values) as 8 output bytes (see [`put_f8`]).
#[inline(always)]
fn merge_f8(raw: u32, sym: u32) -> u64 {
    // Each symbol's exponent nibbles to bits 3..6 of its even and odd value's bytes.
    merge_f8_exponents(raw, sym << 3, sym >> 1)
}

/// [`merge_f8`] of 4 raw bytes and the lookup entries of 4 symbols (symbol bits 12..19) as a
/// hot tile's steps leave them: the exponent nibbles gathered straight into the even and the odd
/// values' bytes (two PRMTs of entry pairs, two of those), 14 SASS instructions in all where the
/// symbol bytes and [`merge_f8`] take 17.
#[inline(always)]
pub(super) fn merge_f8_entries(raw: u32, ent: &[u32]) -> u64 {
    // Bytes e0.b1, e0.b2, e1.b1, e1.b2 (and e2, e3): each symbol's low nibble at bits 4..7 of
    // its first byte, the high one at bits 0..3 of its second.
    let (p01, p23) = (prmt(ent[0], ent[1], 0x6521), prmt(ent[2], ent[3], 0x6521));
    let (lo, hi) = (prmt(p01, p23, 0x6420), prmt(p01, p23, 0x7531));
    merge_f8_exponents(raw, lo >> 1, hi << 3)
}

/// FLOAT8's 8 output bytes from 4 raw bytes and the exponents of the even values (`even_e`) and
/// of the odd ones (`odd_e`), each at bits 3..6 of byte `i` for pair `i`: a word of 4 output bytes
/// per half by two shifts and two bit selects (LOP3), interleaved by two PRMTs (about 12 SASS
/// instructions with the shifts that place the exponents; spreading the nibbles over 64 bits
/// took 35).
#[inline(always)]
fn merge_f8_exponents(raw: u32, even_e: u32, odd_e: u32) -> u64 {
    // Per byte, no carries: the sign (raw bit 3, or 7) to bit 7, the exponent to bits 3..6, the
    // mantissa (raw bits 0..2, or 4..6) to bits 0..2.
    let even = select(select(raw, raw << 4, 0x0707_0707), even_e, 0x8787_8787);
    let odd = select(select(raw >> 4, raw, 0x0707_0707), odd_e, 0x8787_8787);
    prmt(even, odd, 0x5140) as u64 | (prmt(even, odd, 0x7362) as u64) << 32
}

/// The bits of `a` where `mask` is set, those of `b` elsewhere (one LOP3 with a constant mask).
#[inline(always)]
fn select(a: u32, b: u32, mask: u32) -> u32 {
    (a & mask) | (b & !mask)
}

/// FLOAT16: 8 raw bytes and 8 symbols as 8 halves (an even number of them from an even one, see
/// [`put_f16`]): per pair, bytes `raw, sym, raw, sym` (one PRMT) rotated right by one bit.
#[inline(always)]
fn merge_f16(raw: u64, sym: u64) -> u128 {
    let (r, a) = ([raw as u32, (raw >> 32) as u32], [sym as u32, (sym >> 32) as u32]);
    let mut v = 0u128;
    for i in 0..4 {
        let w = prmt(r[i / 2], a[i / 2], if i % 2 == 0 { 0x5140 } else { 0x7362 });
        v |= (w.rotate_right(1) as u128) << (32 * i);
    }
    v
}

/// [`merge_f16`] of 8 raw bytes and a tile's symbols by `Syms` pairs (pair `i`: symbols
/// `2i`, `2i + 1` in bytes 1 and 3), one PRMT per pair of halves.
#[inline(always)]
pub(super) fn merge_f16_pairs(raw: u64, pairs: &[u32; 4]) -> u128 {
    let r = [raw as u32, (raw >> 32) as u32];
    let mut v = 0u128;
    for i in 0..4 {
        let w = prmt(r[i / 2], pairs[i], if i % 2 == 0 { 0x7150 } else { 0x7352 });
        v |= (w.rotate_right(1) as u128) << (32 * i);
    }
    v
}

/// FLOAT16: half `h` is `rotr16(raw[h] | sym[h] << 8, 1)` with bit 15 taken from bit 0 of
/// `raw[h ^ 1]` (`raw[h]` for a last odd half): the CPU reference's pairwise `rotr32`, per half.
#[inline(always)]
unsafe fn put_f16(out: *mut u8, raw: *const u8, halves: u32, g: u32, acc: u64, cnt: u32) {
    let dst = out.add(2 * g as usize);
    let rp = raw.add(g as usize);
    if cnt == 8 && g % 2 == 0 && (rp as usize) % 8 == 0 && (dst as usize) % 16 == 0 {
        *(dst as *mut u128) = merge_f16(*(rp as *const u64), acc);
    } else {
        for i in 0..cnt {
            let hh = g + i;
            let nb = if hh ^ 1 < halves { hh ^ 1 } else { hh };
            let r = *raw.add(hh as usize) as u32 | ((acc >> (8 * i)) as u8 as u32) << 8;
            let o = r >> 1 | (*raw.add(nb as usize) as u32 & 1) << 15;
            *dst.add(2 * i as usize) = o as u8;
            *dst.add(2 * i as usize + 1) = (o >> 8) as u8;
        }
    }
}

/// Offset in the FLOAT32 raw section of byte `i` (0..3) of value `v` (`full` tiles of 256
/// values interleaved by quads, then 3 bytes per value).
#[inline(always)]
fn f32_raw_at(v: u32, i: u32, full: u32) -> usize {
    if v < 256 * full {
        let (tl, u) = (v / 256, v % 256);
        let (q, b) = (u / 4, 3 * (u % 4) + i);
        (tl * 768 + (b / 4) * 256 + 8 * (q % 32) + 4 * (q / 32) + b % 4) as usize
    } else {
        (768 * full + 3 * (v - 256 * full) + i) as usize
    }
}

/// FLOAT32: value `v` is `rotr32(raw bytes | sym << 24, 1)`.
#[inline(always)]
unsafe fn put_f32(out: *mut u8, raw: *const u8, values: u32, g: u32, acc: u64, cnt: u32) {
    let full = values / 256;
    let dst = out.add(4 * g as usize);
    let s = |k: u32| ((acc >> (8 * k)) as u8 as u32) << 24;
    if cnt == 4 && g % 4 == 0 && g + 4 <= 256 * full && (raw as usize) % 4 == 0 && (dst as usize) % 16 == 0 {
        let at = f32_raw_at(g, 0, full);
        let w0 = *(raw.add(at) as *const u32);
        let w1 = *(raw.add(at + 256) as *const u32);
        let w2 = *(raw.add(at + 512) as *const u32);
        let v0 = (w0 & 0xff_ffff | s(0)).rotate_right(1);
        let v1 = (w0 >> 24 | (w1 & 0xffff) << 8 | s(1)).rotate_right(1);
        let v2 = (w1 >> 16 | (w2 & 0xff) << 16 | s(2)).rotate_right(1);
        let v3 = (w2 >> 8 | s(3)).rotate_right(1);
        *(dst as *mut u128) = v0 as u128 | (v1 as u128) << 32 | (v2 as u128) << 64 | (v3 as u128) << 96;
    } else {
        for k in 0..cnt {
            let v = g + k;
            let b = |i: u32| *raw.add(f32_raw_at(v, i, full)) as u32;
            let x = (b(0) | b(1) << 8 | b(2) << 16 | s(k)).rotate_right(1);
            for (i, byte) in x.to_le_bytes().into_iter().enumerate() {
                *dst.add(4 * k as usize + i) = byte;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::lut_symbol;
    use super::*;
    use crate::test_rng::xorshift;

    #[test]
    fn merge_f8_entries_is_merge_f8_of_the_symbols() {
        // Lookup entries with their other fields random (xorshift), symbols at bits 12..19.
        let mut z = xorshift(0x9E37_79B9);
        let mut next = || (z() >> 32) as u32;
        for _ in 0..100_000 {
            let raw = next();
            let ent = [next(), next(), next(), next()];
            let sym = (0..4).fold(0, |w, i| w | lut_symbol(ent[i]) << (8 * i));
            assert_eq!(merge_f8_entries(raw, &ent), merge_f8(raw, sym), "raw {raw:#x} entries {ent:x?}");
        }
    }

    #[test]
    fn merge_f8_is_the_bytewise_merge() {
        // Every raw byte against every symbol byte, in each of the four positions.
        for r in 0..=255u32 {
            for e in 0..=255u32 {
                for k in 0..4 {
                    let (raw, sym) =
                        (r << (8 * k) | 0x5A << (8 * ((k + 1) % 4)), e << (8 * k) | 0xC3 << (8 * ((k + 2) % 4)));
                    let got = merge_f8(raw, sym);
                    for i in 0..4 {
                        let (r, e) = ((raw >> (8 * i)) as u8, (sym >> (8 * i)) as u8);
                        let lo = (r & 8) << 4 | (e & 15) << 3 | (r & 7);
                        let hi = (r >> 4 & 8) << 4 | (e >> 4) << 3 | (r >> 4 & 7);
                        assert_eq!(
                            [(got >> (16 * i)) as u8, (got >> (16 * i + 8)) as u8],
                            [lo, hi],
                            "raw {raw:#x} sym {sym:#x}"
                        );
                    }
                }
            }
        }
    }
}
