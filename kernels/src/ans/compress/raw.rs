//! The float modes' raw section: the bytes of each value that are stored as they are (FLOAT16
//! and FLOAT32 sign and mantissa, FLOAT8 sign-and-mantissa nibbles).

use super::mem::{load, load_tile, store, tile_u128, L2};
use super::HIST_LOADS;
use crate::bits::prmt;

/// [`pack_f16`] of a whole group of 8 halves (`v` as [`load_tile`] gives it): a rotate per pair
/// and one `PRMT` per two pairs.
#[inline(always)]
pub(super) fn pack_f16_group(v: [u32; 4]) -> u64 {
    let r = v.map(|w| w.rotate_left(1));
    (prmt(r[2], r[3], 0x6420) as u64) << 32 | prmt(r[0], r[1], 0x6420) as u64
}

/// FLOAT8: the raw bytes of the two pairs in `w` (bytes 0 and 2; `r(a) | r(b) << 4`, `r(x) =
/// (x >> 4 & 8) | x & 7`, the sign above the mantissa).
#[inline(always)]
fn f8_pair_raw(w: u32) -> u32 {
    let r = (w >> 4) & 0x0808_0808 | w & 0x0707_0707;
    r | r >> 4
}

/// FLOAT8: the raw bytes of a whole group of 8 pairs ([`f8_pair_raw`] per word, a `PRMT` per
/// two words).
#[inline(always)]
pub(super) fn pack_f8_group(v: [u32; 4]) -> u64 {
    let r = v.map(f8_pair_raw);
    (prmt(r[2], r[3], 0x6420) as u64) << 32 | prmt(r[0], r[1], 0x6420) as u64
}

/// FLOAT8 raw section: a byte per pair of values, in order, then an odd last value as it is;
/// whole aligned 16-byte groups as one 8-byte store each ([`pack_f8_group`]), from group
/// `from` on in the FLOAT8 kernel (`F8`: the histogram wrote those before it; the other kernel,
/// where this is never reached, from 0, which keeps its code as it was), the rest byte-wise;
/// thread `tid` of `threads`.
#[inline(always)]
pub(super) unsafe fn raw_f8<const F8: bool>(
    tid: usize,
    threads: usize,
    src: *const u8,
    n: usize,
    raw: *mut u8,
    from: usize,
) {
    let whole = if (src as usize).is_multiple_of(16) { n / 16 } else { 0 };
    let mut g = if F8 { from } else { 0 } + tid;
    while g < whole {
        store(raw.add(8 * g), pack_f8_group(load_tile::<1, 16>(src.add(16 * g), L2::Normal)), 8);
        g += threads;
    }
    let mut p = 8 * whole + tid;
    while 2 * p + 1 < n {
        *raw.add(p) = f8_pair_raw(load(src.add(2 * p), 2) as u32) as u8;
        p += threads;
    }
    if n % 2 == 1 && tid == 0 {
        *raw.add(n / 2) = *src.add(n - 1);
    }
}

/// FLOAT16 raw bytes of `k` input bytes `v` (an even `k ≤ 16`): per pair of halves `w`, bytes
/// 0 and 2 of `rotl32(w, 1)`; an odd last half `h`: byte 0 of `rotl16(h, 1)`.
#[inline(always)]
fn pack_f16(v: u128, k: usize) -> u64 {
    let mut r = 0u64;
    for p in 0..k / 4 {
        let w = ((v >> (32 * p)) as u32).rotate_left(1);
        r |= ((w & 0xFF) as u64 | ((w >> 8) & 0xFF00) as u64) << (16 * p);
    }
    if k % 4 == 2 {
        let h = ((v >> (8 * (k - 2))) as u16).rotate_left(1);
        r |= ((h & 0xFF) as u64) << (8 * (k / 2 - 1));
    }
    r
}

/// FLOAT16 raw section ([`pack_f16`]) from the 16-byte group `from` on (the histogram wrote
/// those before it); thread `tid` of `threads`.
#[inline(always)]
pub(super) unsafe fn raw_f16(tid: usize, threads: usize, src: *const u8, n: usize, raw: *mut u8, from: usize) {
    // Whole aligned groups HIST_LOADS at a time (their loads in flight together), then the rest.
    let whole = if (src as usize).is_multiple_of(16) { n / 16 } else { 0 };
    let mut g = from + tid;
    while g + (HIST_LOADS - 1) * threads < whole {
        let mut v = [[0u32; 4]; HIST_LOADS];
        for (u, vu) in v.iter_mut().enumerate() {
            *vu = load_tile::<1, 16>(src.add(16 * (g + u * threads)), L2::Normal);
        }
        for (u, &vu) in v.iter().enumerate() {
            store(raw.add(8 * (g + u * threads)), pack_f16_group(vu), 8);
        }
        g += HIST_LOADS * threads;
    }
    while g * 16 < n {
        let k = (n - g * 16).min(16);
        store(raw.add(8 * g), pack_f16(load(src.add(16 * g), k), k), k / 2);
        g += threads;
    }
}

/// FLOAT32 raw section: bytes 0..3 of each `rotl32(v, 1)`; in whole 1024-byte tiles the quad
/// `q`'s 12 bytes as three words, word `w` at `tile · 768 + 256w + 8(q mod 32) + 4(q div 32)`;
/// the tail sequential; thread `tid` of `threads`.
#[inline(always)]
pub(super) unsafe fn raw_f32(tid: usize, threads: usize, src: *const u8, n: usize, raw: *mut u8) {
    let full = n / 1024 * 1024;
    let put = |g: usize, v: u128| {
        let r = |i: usize| ((v >> (32 * i)) as u32).rotate_left(1) & 0xFF_FFFF;
        let words = [r(0) | r(1) << 24, r(1) >> 8 | r(2) << 16, r(2) >> 16 | r(3) << 8];
        let (tile, q) = (g / 64, g % 64);
        for (w, &x) in words.iter().enumerate() {
            store(raw.add(tile * 768 + 256 * w + 8 * (q % 32) + 4 * (q / 32)), x as u64, 4);
        }
    };
    // Aligned input: HIST_LOADS groups at a time (loads in flight together).
    let whole = if (src as usize).is_multiple_of(16) { full / 16 } else { 0 };
    let mut g = tid;
    while g + (HIST_LOADS - 1) * threads < whole {
        let mut v = [0u128; HIST_LOADS];
        for (u, vu) in v.iter_mut().enumerate() {
            *vu = tile_u128(load_tile::<1, 16>(src.add(16 * (g + u * threads)), L2::Normal));
        }
        for (u, &vu) in v.iter().enumerate() {
            put(g + u * threads, vu);
        }
        g += HIST_LOADS * threads;
    }
    while g * 16 < full {
        put(g, load(src.add(16 * g), 16));
        g += threads;
    }
    let mut e = full / 4 + tid;
    while e < n / 4 {
        let r = (load(src.add(4 * e), 4) as u32).rotate_left(1);
        for b in 0..3 {
            *raw.add(3 * e + b) = (r >> (8 * b)) as u8;
        }
        e += threads;
    }
}

#[cfg(test)]
mod tests {
    use super::super::mem::tile_u128;
    use super::super::symbols::f8_pair_symbols;
    use super::{f8_pair_raw, pack_f16, pack_f16_group};

    #[test]
    fn float8_pairs_of_a_word_are_each_pair_alone() {
        let mut r = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..10_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let w = r as u32;
            for k in 0..2 {
                let (a, b) = ((w >> (16 * k)) as u8, (w >> (16 * k + 8)) as u8);
                let nibble = |x: u8| (x >> 4 & 8) | (x & 7);
                assert_eq!((f8_pair_symbols(w) >> (16 * k)) as u8, (a >> 3 & 15) | (b >> 3 & 15) << 4, "{w:08x}");
                assert_eq!((f8_pair_raw(w) >> (16 * k)) as u8, nibble(a) | nibble(b) << 4, "{w:08x}");
            }
        }
    }

    #[test]
    fn pack_f16_group_is_pack_f16_of_a_whole_group() {
        let mut r = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..10_000 {
            let mut v = [0u32; 4];
            for w in &mut v {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                *w = r as u32;
            }
            assert_eq!(pack_f16_group(v), pack_f16(tile_u128(v), 16), "{v:08x?}");
        }
    }
}
