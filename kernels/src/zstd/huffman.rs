//! Huffman literals (RFC 8878 §4.2): the tree description (weights, FSE-compressed or direct),
//! the decoding table, and symbol decoding from a backward stream.
//!
//! The decoding table has `1 << log` `u16` entries (symbol in bits 0-7, code length in 8-15):
//! a stream's next `log` bits index it. libzstd accepts tables up to log 12 (RFC 8878 says
//! 11), so this decoder does too: 8 KiB per warp.
use super::bitstream::Backward;
use super::fse;

/// Largest Huffman table log libzstd decodes.
pub const MAX_LOG: u32 = 12;
/// Largest accuracy log of the FSE table that compresses the weights.
const WEIGHTS_MAX_LOG: u32 = 6;
/// Most weights an FSE-compressed description may decode to (the last one is implied).
const MAX_FSE_WEIGHTS: usize = 255;

/// Scratch of a table build (shared memory, with the decoder's other tables).
pub struct Scratch<'a> {
    /// Normalized counts of an FSE header.
    pub norm: &'a mut [i16; 256],
    /// Next-state counters of an FSE table build.
    pub next: &'a mut [u16; 256],
    /// The FSE table of the weights (accuracy log at most 6).
    pub fse: &'a mut [u32; 64],
    /// The weights, one per symbol.
    pub weights: &'a mut [u8; 256],
}

/// Decodes the FSE-compressed weights in `src` into `weights`; returns how many. libzstd's
/// rules: two interleaved states, and decoding stops when a state update reads past the
/// stream's start, after one more symbol from the other state; more than 255 is an error.
fn fse_weights(src: &[u8], s: &mut Scratch) -> Option<usize> {
    let (log, n, used) = fse::read_ncount(src, 255, WEIGHTS_MAX_LOG, &mut s.norm[..])?;
    fse::build(&s.norm[..n], log, &mut s.fse[..], &mut s.next[..])?;
    let mut bits = Backward::new(src.get(used..)?)?;
    let mut states = [bits.read(log), bits.read(log)];
    if bits.overflowed() {
        return None;
    }
    let mut out = 0usize;
    // At most MAX_FSE_WEIGHTS passes: each stores a weight or returns.
    loop {
        for k in 0..2 {
            if out > MAX_FSE_WEIGHTS - 2 {
                return None;
            }
            let e = *s.fse.get(states[k] as usize)?;
            *s.weights.get_mut(out)? = fse::symbol(e) as u8;
            out += 1;
            states[k] = fse::baseline(e) + bits.read(fse::nb_bits(e));
            if bits.overflowed() {
                let other = *s.fse.get(states[1 - k] as usize)?;
                *s.weights.get_mut(out)? = fse::symbol(other) as u8;
                return Some(out + 1);
            }
        }
    }
}

/// Reads the Huffman tree description at the start of `src` and builds the decoding table into
/// `table`; returns (table log, description bytes). `None` for an invalid description (libzstd's
/// checks: weights at most 12, a total that the implied last weight completes to a power of
/// two, an even number ≥ 2 of weight-1 symbols).
pub fn read_table(src: &[u8], table: &mut [u16; 1 << MAX_LOG], s: &mut Scratch) -> Option<(u32, usize)> {
    let h = *src.first()? as usize;
    let (n, used) = if h >= 128 {
        let n = h - 127;
        let bytes = n.div_ceil(2);
        let packed = src.get(1..1 + bytes)?;
        for i in 0..n {
            let b = *packed.get(i / 2)?;
            *s.weights.get_mut(i)? = if i % 2 == 0 { b >> 4 } else { b & 15 };
        }
        (n, 1 + bytes)
    } else {
        (fse_weights(src.get(1..1 + h)?, s)?, 1 + h)
    };
    let mut rank = [0u32; MAX_LOG as usize + 2];
    let mut total = 0u32;
    for &w in s.weights.get(..n)? {
        if w as u32 > MAX_LOG {
            return None;
        }
        *rank.get_mut(w as usize)? += 1;
        total += (1 << w) >> 1;
    }
    if total == 0 {
        return None;
    }
    let log = 32 - total.leading_zeros();
    if log > MAX_LOG {
        return None;
    }
    let rest = (1u32 << log) - total;
    if !rest.is_power_of_two() {
        return None;
    }
    let last = rest.trailing_zeros() + 1;
    *s.weights.get_mut(n)? = last as u8;
    *rank.get_mut(last as usize)? += 1;
    if rank[1] < 2 || rank[1] & 1 == 1 {
        return None;
    }
    // Cells of each weight, lowest weight (longest code) first, symbols in order within one.
    let mut start = [0u32; MAX_LOG as usize + 2];
    let mut next = 0u32;
    for w in 1..=log as usize {
        *start.get_mut(w)? = next;
        next += *rank.get(w)? << (w - 1);
    }
    for sym in 0..=n {
        let w = *s.weights.get(sym)? as usize;
        if w == 0 {
            continue;
        }
        let len = 1u32 << (w - 1);
        let at = *start.get(w)?;
        let entry = sym as u16 | ((log + 1 - w as u32) as u16) << 8;
        table.get_mut(at as usize..(at + len) as usize)?.fill(entry);
        *start.get_mut(w)? = at + len;
    }
    // Weights past this description must not linger for the next one.
    s.weights.get_mut(n + 1..)?.fill(0);
    Some((log, used))
}

/// Decodes one symbol of `bits` with the table of log `log`.
#[inline(always)]
pub fn decode(bits: &mut Backward, table: &[u16; 1 << MAX_LOG], log: u32) -> u8 {
    let e = table[(bits.peek(log) & ((1 << MAX_LOG) - 1)) as usize];
    bits.skip((e >> 8) as u32);
    e as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    fn scratch<'a>(
        norm: &'a mut [i16; 256],
        next: &'a mut [u16; 256],
        fse: &'a mut [u32; 64],
        weights: &'a mut [u8; 256],
    ) -> Scratch<'a> {
        Scratch { norm, next, fse, weights }
    }

    #[test]
    fn direct_weights_build_a_canonical_table() {
        // Symbols 0..3 with weights 1, 1, 2 and the implied last (symbol 3): total 1+1+2 = 4,
        // log 3, rest 4 -> weight 3. Codes: symbol 3 takes half the table.
        let src = [128 + 2, 0x11, 0x20];
        let (mut a, mut b, mut c, mut d) = ([0i16; 256], [0u16; 256], [0u32; 64], [0u8; 256]);
        let mut s = scratch(&mut a, &mut b, &mut c, &mut d);
        let mut table = [0u16; 1 << MAX_LOG];
        let (log, used) = read_table(&src, &mut table, &mut s).unwrap();
        assert_eq!((log, used), (3, 3));
        let sym: Vec<u8> = table[..8].iter().map(|&e| e as u8).collect();
        let len: Vec<u16> = table[..8].iter().map(|&e| e >> 8).collect();
        assert_eq!(sym, [0, 1, 2, 2, 3, 3, 3, 3]);
        assert_eq!(len, [3, 3, 2, 2, 1, 1, 1, 1]);
        // Weights 2 and the implied 2: no weight-1 symbols, not a tree libzstd accepts.
        let mut s = scratch(&mut a, &mut b, &mut c, &mut d);
        assert!(read_table(&[128, 0x20], &mut table, &mut s).is_none());
    }
}
