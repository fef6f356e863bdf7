//! Finite State Entropy (RFC 8878 §4.1): the normalized-count header, the decoding table, and
//! the predefined distributions of the sequence codes (§3.1.1.3.2.2).
//!
//! A decoding table entry is a `u32`: symbol (bits 0-7), bits to read (8-15), baseline of the
//! next state (16-31). Table builds are bounded by the table size whatever the counts.
use super::bitstream::Forward;

/// Largest accuracy log of any FSE table header (libzstd refuses larger ones outright).
const ABSOLUTE_MAX_LOG: u32 = 15;

/// Literal-length codes' predefined distribution (accuracy log 6).
pub const LL_DEFAULT: [i16; 36] =
    [4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1];
/// Match-length codes' predefined distribution (accuracy log 6).
pub const ML_DEFAULT: [i16; 53] = [
    1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1,
];
/// Offset codes' predefined distribution (accuracy log 5).
pub const OF_DEFAULT: [i16; 29] =
    [1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1];

/// An entry's symbol.
#[inline(always)]
pub fn symbol(e: u32) -> u32 {
    e & 0xFF
}

/// An entry's bit count.
#[inline(always)]
pub fn nb_bits(e: u32) -> u32 {
    (e >> 8) & 0xFF
}

/// An entry's next-state baseline.
#[inline(always)]
pub fn baseline(e: u32) -> u32 {
    e >> 16
}

/// Reads a normalized-count header (RFC 8878 §4.1.1) at the start of `src` into `norm` for
/// symbols `0..=max_symbol` (`norm.len() > max_symbol`); the accuracy log must be at most
/// `max_log`. Returns (accuracy log, symbols present, header bytes), or `None` if the header is
/// invalid or runs past `src` (libzstd's rules: counts must add up exactly; reading past the
/// end sees zeros, and is refused if the header then ends past `src`).
pub fn read_ncount(src: &[u8], max_symbol: usize, max_log: u32, norm: &mut [i16]) -> Option<(u32, usize, usize)> {
    let norm = norm.get_mut(..max_symbol + 1)?;
    norm.fill(0);
    let mut f = Forward::new(src);
    let log = (f.peek(4) & 0xF) + 5;
    f.skip(4);
    if log > ABSOLUTE_MAX_LOG || log > max_log {
        return None;
    }
    let mut remaining: i32 = (1 << log) + 1;
    let mut threshold: i32 = 1 << log;
    let mut nb_bits = log + 1;
    let mut n = 0usize;
    let mut previous0 = false;
    // Each pass adds at least one symbol, so at most max_symbol + 1 passes.
    loop {
        if previous0 {
            // Repeat flags: 2 bits each, 3 meaning "3 more zeros and another flag".
            let mut guard = 0;
            loop {
                let r = f.peek(2);
                f.skip(2);
                n += r as usize;
                guard += 1;
                if r != 3 || n > max_symbol || guard > 128 {
                    break;
                }
            }
            if n > max_symbol {
                break;
            }
        }
        let max = 2 * threshold - 1 - remaining;
        let low = f.peek(nb_bits - 1) as i32;
        let mut count;
        if low < max {
            count = low;
            f.skip(nb_bits - 1);
        } else {
            count = f.peek(nb_bits) as i32;
            if count >= threshold {
                count -= max;
            }
            f.skip(nb_bits);
        }
        count -= 1;
        remaining -= count.abs();
        *norm.get_mut(n)? = count as i16;
        n += 1;
        previous0 = count == 0;
        if remaining < threshold {
            if remaining <= 1 {
                break;
            }
            nb_bits = 32 - (remaining as u32).leading_zeros();
            threshold = 1 << (nb_bits - 1);
        }
        if n > max_symbol {
            break;
        }
    }
    if remaining != 1 || n > max_symbol + 1 {
        return None;
    }
    let used = f.bytes_used();
    (used <= src.len()).then_some((log, n, used))
}

/// Builds the decoding table of accuracy log `log` for the counts `norm` (which add up to
/// `1 << log`, as [`read_ncount`] checks): `table[..1 << log]`; `next` is scratch of at least
/// `norm.len()` entries. `None` if the counts do not fit the table.
pub fn build(norm: &[i16], log: u32, table: &mut [u32], next: &mut [u16]) -> Option<()> {
    let size = 1usize << log;
    let table = table.get_mut(..size)?;
    let next = next.get_mut(..norm.len())?;
    // Symbols of probability "less than 1" take the top cells.
    let mut high = size;
    for (s, (&c, nx)) in norm.iter().zip(next.iter_mut()).enumerate() {
        if c == -1 {
            high = high.checked_sub(1)?;
            *table.get_mut(high)? = s as u32;
            *nx = 1;
        } else {
            *nx = c.max(0) as u16;
        }
    }
    let mask = size - 1;
    let step = (size >> 1) + (size >> 3) + 3;
    let mut pos = 0usize;
    for (s, &c) in norm.iter().enumerate() {
        for _ in 0..c.max(0) {
            if pos >= high {
                return None;
            }
            *table.get_mut(pos)? = s as u32;
            // `step` is odd and the table a power of two: every cell comes up within `size` steps.
            let mut guard = 0;
            loop {
                pos = (pos + step) & mask;
                guard += 1;
                if pos < high || guard > size {
                    break;
                }
            }
        }
    }
    for cell in table.iter_mut() {
        let s = (*cell & 0xFF) as usize;
        let x = next.get_mut(s)?;
        let state = *x as u32;
        *x = x.wrapping_add(1);
        if state == 0 {
            return None;
        }
        let nb = log - (31 - state.leading_zeros());
        let base = (state << nb) - size as u32;
        *cell = s as u32 | nb << 8 | base << 16;
    }
    Some(())
}

/// The one-cell table of RLE mode: `symbol` every time, no bits read.
#[inline(always)]
pub fn rle(symbol: u8, table: &mut [u32]) -> Option<()> {
    *table.get_mut(0)? = symbol as u32;
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_tables_match_the_rfc() {
        let mut table = [0u32; 64];
        let mut next = [0u16; 64];
        build(&LL_DEFAULT, 6, &mut table, &mut next).unwrap();
        // RFC 8878 Appendix A, literal-length table: state 0 (code 0, 4 bits, base 0),
        // state 1 (code 0, 4 bits, base 16), state 63 (code 32: the "less than 1" codes fill the top
        // down, 32 first), state 60 (code 35).
        assert_eq!((symbol(table[0]), nb_bits(table[0]), baseline(table[0])), (0, 4, 0));
        assert_eq!((symbol(table[1]), nb_bits(table[1]), baseline(table[1])), (0, 4, 16));
        assert_eq!((symbol(table[63]), nb_bits(table[63]), baseline(table[63])), (32, 6, 0));
        assert_eq!(symbol(table[60]), 35);
        build(&OF_DEFAULT, 5, &mut table, &mut next).unwrap();
        // Offset table: state 0 (code 0, 5 bits), state 31 (code 24, 5 bits, base 0).
        assert_eq!((symbol(table[0]), nb_bits(table[0]), baseline(table[0])), (0, 5, 0));
        assert_eq!((symbol(table[31]), nb_bits(table[31])), (24, 5));
        build(&ML_DEFAULT, 6, &mut table, &mut next).unwrap();
        // Match-length table: state 0 (code 0, 6 bits), state 1 (code 1, 4 bits, base 0).
        assert_eq!((symbol(table[0]), nb_bits(table[0])), (0, 6));
        assert_eq!((symbol(table[1]), nb_bits(table[1]), baseline(table[1])), (1, 4, 0));
    }

    #[test]
    fn ncount_of_two_equiprobable_symbols() {
        let mut norm = [0i16; 64];
        assert!(read_ncount(&[], 35, 9, &mut norm).is_none());
        // Two equiprobable symbols at accuracy log 5 (nibble 0): count 16 is value 17, 5 bits
        // (17 < max 30); then remaining 17, 5 bits, max 14: 17 needs the long form 17 + 14.
        let bits: u64 = 17 << 4 | 31 << 9;
        let src = bits.to_le_bytes();
        let (log, n, used) = read_ncount(&src[..2], 35, 9, &mut norm).unwrap();
        assert_eq!((log, n, used), (5, 2, 2));
        assert_eq!(&norm[..2], &[16, 16]);
        let mut table = [0u32; 32];
        let mut next = [0u16; 2];
        build(&norm[..2], 5, &mut table, &mut next).unwrap();
        assert!(table.iter().all(|&e| nb_bits(e) == 1));
    }
}
