//! FLOAT16 / FLOAT8 / FLOAT32 byte split (ANS.md 4): only the exponents are ANS-coded, one byte
//! per symbol; signs and mantissas form the raw section. FLOAT16 and FLOAT32 rotate each value
//! left by one bit (sign to bit 0, the exponent into one byte); FLOAT8 packs two values' 4-bit
//! exponents into one symbol.
//!
//! - FLOAT16: each pair of halves as `w = h0 | h1 << 16`, `r = rotl32(w, 1)`; raw bytes `r0, r2`,
//!   symbols `r1, r3` (so the sign bits cross between the two halves). An odd last half alone:
//!   `r = rotl16(h, 1)`, raw `r0`, symbol `r1`.
//! - FLOAT32: per value `r = rotl32(v, 1)`; symbol `r3`, raw `r0..r2`. The raw bytes of each quad
//!   `q` of 4 values (12 bytes = three u32 words `w0..w2`) are interleaved per tile of 64 quads
//!   (1024 input bytes): word `w` of quad `q` lies at `tile·768 + w·256 + 8·(q mod 32) +
//!   4·(q div 32)`; the tail (`n mod 1024` bytes) is sequential, 3 bytes per value.
//! - FLOAT8 E4M3 (`s eeee mmm`; nvCOMP's samples of 2026-11-21, `tests/data/ans-samples/`): each
//!   pair of values `a, b` (input order) is the symbol `e(a) | e(b) << 4` and the raw byte
//!   `r(a) | r(b) << 4`, with `e(x) = x >> 3 & 15` and `r(x) = (x >> 4 & 8) | x & 7` (sign above
//!   the mantissa); raw bytes in pair order, plain sequential at every size. An odd last value
//!   is not coded: its byte ends the raw section as it is (so `ceil(n / 2)` raw bytes).
use crate::algorithm::ans::AnsMode;

/// Splits a chunk into (raw section, symbols). Byte mode: no raw section, the bytes themselves.
/// The length must suit the mode (FLOAT16 even, FLOAT32 a multiple of 4; checked by the caller).
pub fn split(data: &[u8], mode: AnsMode) -> (Vec<u8>, Vec<u8>) {
    match mode {
        AnsMode::Float16 => split_f16(data),
        AnsMode::Float32 => split_f32(data),
        AnsMode::Float8 => split_f8(data),
        AnsMode::Bytes => (Vec::new(), data.to_vec()),
    }
}

/// FLOAT8: a value's sign and mantissa as a nibble, sign at bit 3.
#[inline]
fn f8_raw(x: u8) -> u8 {
    (x >> 4 & 8) | (x & 7)
}

/// FLOAT8: a value from its raw nibble and its exponent.
#[inline]
fn f8_value(raw: u8, exp: u8) -> u8 {
    (raw & 8) << 4 | (exp & 15) << 3 | (raw & 7)
}

fn split_f8(data: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut raw = Vec::with_capacity(data.len().div_ceil(2));
    let mut pairs = data.chunks_exact(2);
    let sym = pairs
        .by_ref()
        .map(|p| {
            raw.push(f8_raw(p[0]) | f8_raw(p[1]) << 4);
            (p[0] >> 3 & 15) | (p[1] >> 3 & 15) << 4
        })
        .collect();
    raw.extend_from_slice(pairs.remainder());
    (raw, sym)
}

fn split_f16(data: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let halves = data.len() / 2;
    let mut raw = Vec::with_capacity(halves);
    let mut sym = Vec::with_capacity(halves);
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        let r = u32::from_le_bytes([w[0], w[1], w[2], w[3]]).rotate_left(1).to_le_bytes();
        raw.extend_from_slice(&[r[0], r[2]]);
        sym.extend_from_slice(&[r[1], r[3]]);
    }
    if let [a, b] = *words.remainder() {
        let r = u16::from_le_bytes([a, b]).rotate_left(1).to_le_bytes();
        raw.push(r[0]);
        sym.push(r[1]);
    }
    (raw, sym)
}

/// Raw-section offset of word `w` (0..3) of quad `q` (0..64) of a full 1024-byte tile.
#[inline]
fn f32_word_offset(w: usize, q: usize) -> usize {
    w * 256 + 8 * (q % 32) + 4 * (q / 32)
}

fn split_f32(data: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let nv = data.len() / 4;
    let mut raw = vec![0u8; nv * 3];
    let mut sym = Vec::with_capacity(nv);
    let rot: Vec<[u8; 4]> = data
        .chunks_exact(4)
        .map(|v| u32::from_le_bytes([v[0], v[1], v[2], v[3]]).rotate_left(1).to_le_bytes())
        .collect();
    sym.extend(rot.iter().map(|r| r[3]));
    let full = data.len() / 1024;
    for t in 0..full {
        for q in 0..64 {
            let mut pk = [0u8; 12];
            for k in 0..4 {
                pk[3 * k..3 * k + 3].copy_from_slice(&rot[t * 256 + 4 * q + k][..3]);
            }
            for w in 0..3 {
                let o = t * 768 + f32_word_offset(w, q);
                raw[o..o + 4].copy_from_slice(&pk[4 * w..4 * w + 4]);
            }
        }
    }
    for (k, r) in rot[full * 256..].iter().enumerate() {
        let o = full * 768 + 3 * k;
        raw[o..o + 3].copy_from_slice(&r[..3]);
    }
    (raw, sym)
}

/// Merges the raw section and the decoded symbols back into `out` (`n = out.len()` bytes);
/// `raw` and `sym` have the lengths [`split`] gives for `n`.
pub fn merge(raw: &[u8], sym: &[u8], mode: AnsMode, out: &mut [u8]) {
    match mode {
        AnsMode::Float16 => {
            let pairs = out.len() / 4;
            for k in 0..pairs {
                let r = u32::from_le_bytes([raw[2 * k], sym[2 * k], raw[2 * k + 1], sym[2 * k + 1]]);
                out[4 * k..4 * k + 4].copy_from_slice(&r.rotate_right(1).to_le_bytes());
            }
            if out.len() % 4 == 2 {
                let k = pairs;
                let r = u16::from_le_bytes([raw[2 * k], sym[2 * k]]);
                out[4 * k..4 * k + 2].copy_from_slice(&r.rotate_right(1).to_le_bytes());
            }
        }
        AnsMode::Float32 => {
            let nv = out.len() / 4;
            let full = out.len() / 1024;
            let mut put = |i: usize, r: [u8; 3]| {
                let v = u32::from_le_bytes([r[0], r[1], r[2], sym[i]]).rotate_right(1);
                out[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
            };
            for t in 0..full {
                for q in 0..64 {
                    let mut pk = [0u8; 12];
                    for w in 0..3 {
                        let o = t * 768 + f32_word_offset(w, q);
                        pk[4 * w..4 * w + 4].copy_from_slice(&raw[o..o + 4]);
                    }
                    for k in 0..4 {
                        put(t * 256 + 4 * q + k, [pk[3 * k], pk[3 * k + 1], pk[3 * k + 2]]);
                    }
                }
            }
            for i in full * 256..nv {
                let o = full * 768 + 3 * (i - full * 256);
                put(i, [raw[o], raw[o + 1], raw[o + 2]]);
            }
        }
        AnsMode::Float8 => {
            let pairs = out.len() / 2;
            for k in 0..pairs {
                out[2 * k] = f8_value(raw[k], sym[k]);
                out[2 * k + 1] = f8_value(raw[k] >> 4, sym[k] >> 4);
            }
            if out.len() % 2 == 1 {
                out[2 * pairs] = raw[pairs];
            }
        }
        AnsMode::Bytes => out.copy_from_slice(&sym[..out.len()]),
    }
}
