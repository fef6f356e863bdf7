#![allow(dead_code)]
//! Algorithm 0 ("default"): a byte run-length code of the plane bitmap.
//!
//! The 8192-byte bitmap is cut into tokens; each token has one **op byte**, for the long forms
//! one **low byte**, and for literals and general runs bytes in the **literal stream**:
//!
//! ```text
//! offset 0          u16 BIG-endian nops
//! offset 2          literal stream, read forward
//!                   padding, 0..3 bytes: the block is a whole number of 4-byte words
//!                   low-byte stream, read backward (first low byte just before the ops)
//! end - nops .. end op stream, read backward (first op = last byte of the block)
//! ```
//!
//! Op byte = `class << 5 | x`; odd classes take the next low byte, `x' = x << 8 | low`:
//!
//! | class | token | literal bytes |
//! |---|---|---|
//! | 0 / 1 | `x + 1` / `x' + 1` literal bytes | that many |
//! | 2 / 3 | `x + 3` / `x' + 3` zero bytes | 0 |
//! | 4 / 5 | `x + 3` / `x' + 3` bytes 0xff | 0 |
//! | 6 / 7 | `x + 3` / `x' + 3` copies of byte `B` | 1 (`B`) |
//!
//! The tokens produce exactly 8192 bytes.
//!
//! **Writer (nvCOMP's rule, reproduced byte for byte):** greedy from the left; every maximal
//! run of ≥ 3 equal bytes is a run token (0x00 → class 2/3, 0xff → 4/5, else 6/7; short form
//! when the length ≤ 34), the bytes between runs are one literal token (short form when ≤ 32
//! bytes). Neither kind ever needs splitting (13-bit lengths cover 8192 bytes). The padding
//! holds the coded block's bytes at the same offsets (nvCOMP's host writer; its GPU writer
//! leaves scratch there, and the decoder ignores it).
//!
//! For a kernel, token boundaries are local: byte `i` starts a run token iff it begins a
//! maximal run of ≥ 3 equal bytes, and a literal token starts after a run token or at 0; op,
//! low and literal positions are prefix sums over tokens.
use super::planes::BITMAP_SIZE;
use crate::error::Status;

/// The token stream of one bitmap (ops in decoding order, low bytes in decoding order, literal
/// stream), built by [`tokenize`].
#[derive(Debug, Default, Clone)]
pub struct Tokens {
    /// Op bytes, first op first.
    pub ops: Vec<u8>,
    /// Low bytes of the long forms, first first.
    pub lows: Vec<u8>,
    /// The literal stream.
    pub lits: Vec<u8>,
}

impl Tokens {
    /// Payload bytes before padding: 2 + literals + lows + ops.
    pub fn body_len(&self) -> usize {
        2 + self.lits.len() + self.lows.len() + self.ops.len()
    }

    /// Payload bytes with padding (a multiple of 4).
    pub fn payload_len(&self) -> usize {
        self.body_len().next_multiple_of(4)
    }

    fn push(&mut self, class: u8, x: usize) {
        if x < 32 {
            self.ops.push(class << 5 | x as u8);
        } else {
            self.ops.push((class | 1) << 5 | (x >> 8) as u8);
            self.lows.push(x as u8);
        }
    }
}

/// nvCOMP's greedy tokenization of `bitmap` into `tok` (cleared first).
pub fn tokenize(bitmap: &[u8; BITMAP_SIZE], tok: &mut Tokens) {
    tok.ops.clear();
    tok.lows.clear();
    tok.lits.clear();
    let n = bitmap.len();
    let mut lit_start = 0;
    let mut i = 0;
    while i < n {
        let b = bitmap[i];
        let mut j = i + 1;
        let word = u64::from_ne_bytes([b; 8]);
        while j + 8 <= n && u64::from_ne_bytes(bitmap[j..j + 8].try_into().expect("8 bytes")) == word {
            j += 8;
        }
        while j < n && bitmap[j] == b {
            j += 1;
        }
        if j - i >= 3 {
            if lit_start < i {
                tok.lits.extend_from_slice(&bitmap[lit_start..i]);
                tok.push(0, i - lit_start - 1);
            }
            let class = match b {
                0 => 2,
                0xff => 4,
                _ => {
                    tok.lits.push(b);
                    6
                }
            };
            tok.push(class, j - i - 3);
            lit_start = j;
        }
        i = j;
    }
    if lit_start < n {
        tok.lits.extend_from_slice(&bitmap[lit_start..n]);
        tok.push(0, n - lit_start - 1);
    }
}

/// Appends the payload of `tok` to `out`; the padding bytes are `pad_source[q]` for payload
/// offset `q` (the coded block, as nvCOMP's host writer does; zero past its end).
pub fn write(tok: &Tokens, pad_source: &[u8], out: &mut Vec<u8>) {
    let nops = tok.ops.len() as u16;
    out.extend_from_slice(&nops.to_be_bytes());
    out.extend_from_slice(&tok.lits);
    let pad = 2 + tok.lits.len()..tok.payload_len() - tok.lows.len() - tok.ops.len();
    out.extend(pad.map(|q| pad_source.get(q).copied().unwrap_or(0)));
    out.extend(tok.lows.iter().rev());
    out.extend(tok.ops.iter().rev());
}

/// Decodes a default-algorithm payload into `bitmap`; returns the padding range (the bytes
/// between the literal stream's end and the low stream's start). `CannotDecompress` when the
/// op count does not fit, a stream runs past its end or into the other, or the tokens do not
/// produce exactly 8192 bytes. Any tokenization is accepted (long forms for short lengths,
/// split runs, class 6 with byte 0x00 or 0xff), as nvCOMP's decoder accepts them.
pub fn decode(payload: &[u8], bitmap: &mut [u8; BITMAP_SIZE]) -> Result<std::ops::Range<usize>, Status> {
    let bad = Status::CannotDecompress;
    if payload.len() < 2 {
        return Err(bad);
    }
    let nops = u16::from_be_bytes([payload[0], payload[1]]) as usize;
    let ops_start = payload.len().checked_sub(nops).filter(|&s| s >= 2).ok_or(bad)?;
    // literal stream: [2, lit); low stream: [low, ops_start), consumed downwards.
    let (mut lit, mut low) = (2usize, ops_start);
    let mut out = 0usize;
    for k in (ops_start..payload.len()).rev() {
        let op = payload[k];
        let class = op >> 5;
        let mut x = (op & 31) as usize;
        if class & 1 == 1 {
            if low <= lit {
                return Err(bad);
            }
            low -= 1;
            x = x << 8 | payload[low] as usize;
        }
        let (len, fill) = match class >> 1 {
            0 => (x + 1, None),
            1 => (x + 3, Some(0)),
            2 => (x + 3, Some(0xff)),
            _ => {
                if lit >= low {
                    return Err(bad);
                }
                lit += 1;
                (x + 3, Some(payload[lit - 1]))
            }
        };
        let dst = bitmap.get_mut(out..out + len).ok_or(bad)?;
        match fill {
            Some(b) => dst.fill(b),
            None => {
                if lit + len > low {
                    return Err(bad);
                }
                dst.copy_from_slice(&payload[lit..lit + len]);
                lit += len;
            }
        }
        out += len;
    }
    if out != BITMAP_SIZE {
        return Err(bad);
    }
    Ok(lit..low)
}
