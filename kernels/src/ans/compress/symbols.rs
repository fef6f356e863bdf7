//! The symbols of each mode: bytes, the exponent byte of a FLOAT16 or FLOAT32 value, the two
//! exponents of a pair of FLOAT8 E4M3 values.

/// The symbols of the `k` elements in `v` (element `i` at bits `i · 8 · bps`; FLOAT8 pairs if
/// `f8`), packed one byte each: the byte itself, the rotated value's exponent byte, or a pair's
/// two exponents.
#[inline(always)]
pub(super) fn symbols(v: u128, bps: usize, k: usize, f8: bool) -> u64 {
    match bps {
        1 => v as u64,
        2 if f8 => {
            let mut s = 0u64;
            for i in 0..k {
                s |= ((f8_pair_symbols((v >> (16 * i)) as u32) & 0xFF) as u64) << (8 * i);
            }
            s
        }
        2 => {
            let mut s = 0u64;
            for i in 0..k {
                s |= (((v >> (16 * i + 7)) as u64) & 0xFF) << (8 * i);
            }
            s
        }
        _ => {
            let mut s = 0u64;
            for i in 0..k {
                s |= (((v >> (32 * i + 23)) as u64) & 0xFF) << (8 * i);
            }
            s
        }
    }
}

/// Byte offset `4 · ((w >> shift) & 0xFF)` of the counter or entry of the symbol at bit `shift`
/// of `w`: a shift and a mask (`LOP3`, which can also OR in a warp's histogram offset).
#[inline(always)]
pub(super) fn symbol_offset(w: u32, shift: u32) -> u32 {
    (if shift >= 2 { w >> (shift - 2) } else { w << (2 - shift) }) & 0x3FC
}

/// FLOAT8 E4M3 (`s eeee mmm`, `cpu::ans::float`): the symbols of the two pairs of values in
/// `w` (bytes 0 and 2; each pair `a, b` gives `e(a) | e(b) << 4`, `e(x) = x >> 3 & 15`).
#[inline(always)]
pub(super) fn f8_pair_symbols(w: u32) -> u32 {
    let e = (w >> 3) & 0x0F0F_0F0F;
    e | e >> 4
}
