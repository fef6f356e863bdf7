//! The terminal codec: frame of reference (FOR) + bit-packing, used for a block's final values and
//! for its RLE run counts.
//!
//! A bit-packed stream of `count` elements of `width` bytes, starting at a multiple of
//! `A = max(4, width)` from its block's start:
//!
//! | offset | content |
//! |---|---|
//! | 0 | the reference (FOR value) in `width` bytes, little-endian; zero up to 4 bytes for `width < 4` |
//! | `roundup4(width)` | `u32 (bits << 16) \| count` |
//! | `roundup(width + 4, A)` (8; 16 for 8-byte values) | `ceil(count · bits / 32)` u32 words |
//!
//! Element `i` is `(reference + field_i) mod 2^(8·width)`, where `field_i` is the `bits`-bit field
//! starting at bit `i · bits` of the word array, read LSB first across word boundaries. `bits = 0`
//! means every element equals the reference. The stream ends right after the last word (no
//! padding of its own). Counts are at most 4096 (one block), `bits` at most `8 · width`.
//!
//! The encoder's reference is the minimum and `bits` the width of `max − min`, both computed on
//! values read as signed for the signed types and unsigned otherwise ([`frame`]); the decoder does
//! not need to know the signedness.
use crate::Status;

/// Bytes before the packed words: 8, or 16 for 8-byte values.
pub fn header_bytes(width: usize) -> usize {
    (width + 4).next_multiple_of(width.max(4))
}

/// Bytes of a bit-packed stream of `count` values of `bits` bits.
pub fn stream_bytes(width: usize, count: usize, bits: u32) -> usize {
    header_bytes(width) + 4 * (count * bits as usize).div_ceil(32)
}

/// `x` sign-extended from `width` bytes.
fn sign_extend(x: u64, width: usize) -> i64 {
    let shift = 64 - 8 * width as u32;
    ((x << shift) as i64) >> shift
}

/// Mask of the low `width` bytes.
pub fn value_mask(width: usize) -> u64 {
    if width >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * width)) - 1
    }
}

/// The reference and bit width the encoder uses for `values` (each within `width` bytes): the
/// minimum and the width of `max − min`, on values read as signed or unsigned. An empty array
/// gives `(0, 0)`.
pub fn frame(values: &[u64], width: usize, signed: bool) -> (u64, u32) {
    let Some(&first) = values.first() else {
        return (0, 0);
    };
    if signed {
        let (mut lo, mut hi) = (sign_extend(first, width), sign_extend(first, width));
        for &v in values {
            let s = sign_extend(v, width);
            lo = lo.min(s);
            hi = hi.max(s);
        }
        let range = (hi as u64).wrapping_sub(lo as u64);
        (lo as u64 & value_mask(width), 64 - range.leading_zeros())
    } else {
        let (mut lo, mut hi) = (first, first);
        for &v in values {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        (lo, 64 - (hi - lo).leading_zeros())
    }
}

/// Appends the bit-packed stream of `values` with this reference and bit width (from [`frame`])
/// to `out`; padding bytes are zero.
pub fn write(out: &mut Vec<u8>, values: &[u64], width: usize, reference: u64, bits: u32) {
    let start = out.len();
    out.extend_from_slice(&reference.to_le_bytes()[..width]);
    out.resize(start + width.next_multiple_of(4), 0);
    out.extend_from_slice(&((bits << 16) | values.len() as u32).to_le_bytes());
    out.resize(start + header_bytes(width), 0);
    let mask = value_mask(width);
    let (mut acc, mut held) = (0u128, 0u32);
    if bits > 0 {
        for &v in values {
            acc |= u128::from(v.wrapping_sub(reference) & mask) << held;
            held += bits;
            while held >= 32 {
                out.extend_from_slice(&(acc as u32).to_le_bytes());
                acc >>= 32;
                held -= 32;
            }
        }
    }
    if held > 0 {
        out.extend_from_slice(&(acc as u32).to_le_bytes());
    }
}

/// A parsed bit-packed stream header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packed<'a> {
    /// The reference (FOR value).
    pub reference: u64,
    /// Bits per value (0 to `8 · width`).
    pub bits: u32,
    /// Number of values.
    pub count: usize,
    /// The packed words (exactly `ceil(count · bits / 32)` of them).
    pub words: &'a [u8],
    /// Bytes of the whole stream.
    pub len: usize,
}

/// Parses the bit-packed stream at the start of `input`: `CannotDecompress` when it is truncated,
/// its bit width exceeds `8 · width` or its count exceeds `max_count`.
pub fn parse(input: &[u8], width: usize, max_count: usize) -> Result<Packed<'_>, Status> {
    let hb = header_bytes(width);
    let head = input.get(..hb).ok_or(Status::CannotDecompress)?;
    let mut r = [0u8; 8];
    r[..width].copy_from_slice(&head[..width]);
    let reference = u64::from_le_bytes(r);
    let at = width.next_multiple_of(4);
    let w = u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    let (bits, count) = (w >> 16, (w & 0xffff) as usize);
    if bits as usize > 8 * width || count > max_count {
        return Err(Status::CannotDecompress);
    }
    let len = stream_bytes(width, count, bits);
    let words = input.get(hb..len).ok_or(Status::CannotDecompress)?;
    Ok(Packed { reference, bits, count, words, len })
}

impl Packed<'_> {
    /// Appends all values to `out` (field `i` starts at bit `i · bits`; reading each through a
    /// 3-word u128 ran the decoder at 0.3-0.5 GB/s).
    pub fn unpack_into(&self, width: usize, out: &mut Vec<u64>) {
        let vmask = value_mask(width);
        let (bits, reference) = (self.bits, self.reference);
        if bits == 0 {
            out.extend(std::iter::repeat_n(reference & vmask, self.count));
            return;
        }
        let fmask = u64::MAX >> (64 - bits);
        if bits <= 57 {
            // Field i lies in the 8 bytes from byte i·bits/8 (shift < 8, 7 + 57 bits): one
            // unaligned load per value, no carried state; the last few values, whose 8 bytes pass
            // the stream's end, read a zero-padded copy of its tail.
            let bits = bits as usize;
            let len = self.words.len();
            let direct = if len < 8 { 0 } else { ((len - 8) * 8 / bits + 1).min(self.count) };
            let field = |bytes: &[u8], bit: usize| {
                let at = bit / 8;
                let w = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
                reference.wrapping_add(w >> (bit % 8) & fmask) & vmask
            };
            out.extend((0..direct).map(|i| field(self.words, i * bits)));
            let tail_start = direct * bits / 8;
            let mut tail = [0u8; 24];
            tail[..len - tail_start].copy_from_slice(&self.words[tail_start..]);
            out.extend((direct..self.count).map(|i| field(&tail, i * bits - 8 * tail_start)));
            return;
        }
        // 58 to 64 bits: a sequential bit buffer
        let mut words = self.words.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        let (mut acc, mut held) = (0u128, 0u32);
        out.extend((0..self.count).map(|_| {
            while held < bits {
                acc |= u128::from(words.next().unwrap_or(0)) << held;
                held += 32;
            }
            let field = acc as u64 & fmask;
            acc >>= bits;
            held -= bits;
            reference.wrapping_add(field) & vmask
        }));
    }
}
