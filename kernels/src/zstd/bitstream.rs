//! Bit readers of RFC 8878: forward (FSE table headers, §4.1.1) and backward (Huffman and FSE
//! streams, §4.1, §4.2.2). Both read zeros past the data and report it instead of faulting: a
//! decoder then refuses the stream, as libzstd does once its final exactness check fails.

/// Little-endian `u64` of the 8 bytes at `at` (which may start before 0 or end past `data`);
/// bytes outside `data` read as zero.
#[inline(always)]
fn word_at(data: &[u8], at: isize) -> u64 {
    if at >= 0 {
        if let Some(b) = data.get(at as usize..(at as usize).wrapping_add(8)) {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            return u64::from_le_bytes(w);
        }
    }
    let mut w = 0u64;
    for k in 0..8isize {
        let i = at.wrapping_add(k);
        let byte = if i >= 0 { data.get(i as usize).copied().unwrap_or(0) } else { 0 };
        w |= (byte as u64) << (8 * k);
    }
    w
}

/// The `n` (≤ 32) bits of `data` starting at bit `lo` (bit `i` is bit `i % 8` of byte `i / 8`);
/// bits outside `data` are zero.
#[inline(always)]
fn bits_at(data: &[u8], lo: isize, n: u32) -> u32 {
    let byte = lo.div_euclid(8);
    let shift = lo.rem_euclid(8) as u32;
    ((word_at(data, byte) >> shift) & ((1u64 << n) - 1)) as u32
}

/// A backward bit stream (RFC 8878 §4.1): the last byte's highest set bit marks its end, and
/// fields are read from there towards bit 0 of the first byte.
#[derive(Clone, Copy)]
pub struct Backward<'a> {
    data: &'a [u8],
    /// Bits not yet read; negative once a read went past the stream's start.
    left: isize,
    /// Past the start, read libzstd's way: its bit container then holds the first 8 bytes and
    /// keeps being read at the consumed count modulo 64 (zeros below bit 0).
    wrap: bool,
    /// The 64 bits of `data` from bit `word_at` (zeros outside it): the last word loaded, which
    /// serves the next peeks below it (a word per ~50 bits read instead of one per peek).
    word: u64,
    /// Its first bit (a multiple of 8); [`NO_WORD`] before the first load.
    word_at: isize,
}

/// `Backward::word_at` before the first load: above any bit, so the first peek loads.
const NO_WORD: isize = isize::MAX / 2;

impl<'a> Backward<'a> {
    /// The stream `data`; `None` if it is empty or its last byte is 0 (no end mark).
    #[inline(always)]
    pub fn new(data: &'a [u8]) -> Option<Self> {
        let last = *data.last()?;
        if last == 0 {
            return None;
        }
        let left = (data.len() as isize - 1) * 8 + (7 - last.leading_zeros() as isize);
        Some(Backward { data, left, wrap: false, word: 0, word_at: NO_WORD })
    }

    /// The stream `data[start..]` whose reads may continue into `data[..start]` past its own
    /// start, as libzstd's fast 4-stream Huffman decoders read; `None` as for [`Self::new`].
    #[inline(always)]
    pub fn with_prefix(data: &'a [u8], start: usize) -> Option<Self> {
        if data.len() <= start {
            return None;
        }
        // libzstd's fast decoders take a last byte of 0 as 8 bits of data (no end mark).
        let left = Self::new(data).map_or(data.len() as isize * 8, |b| b.left);
        Some(Backward { data, left, wrap: true, word: 0, word_at: NO_WORD })
    }

    /// Bits not yet read (negative past the start).
    #[inline(always)]
    pub fn left(&self) -> isize {
        self.left
    }

    /// A stream of no bits (a placeholder).
    #[inline(always)]
    pub fn empty() -> Self {
        Backward { data: &[], left: 0, wrap: false, word: 0, word_at: NO_WORD }
    }

    /// The next `n` (≤ 32) bits without consuming them (zeros past the start).
    #[inline(always)]
    pub fn peek(&mut self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        let left = if self.wrap && self.left < 0 { 64 - (self.left.wrapping_neg() & 63) } else { self.left };
        let lo = left - n as isize;
        if lo < self.word_at || left > self.word_at + 64 {
            // The word whose top byte holds bit `left - 1`: later peeks read below it.
            let at = (left + 7).div_euclid(8) - 8;
            self.word = word_at(self.data, at);
            self.word_at = 8 * at;
        }
        // `lo - word_at` is in 0..=64 - n (n <= 32 and the word ends at or above `left`).
        ((self.word >> (lo - self.word_at)) & ((1u64 << n) - 1)) as u32
    }

    /// Consumes `n` bits (after a [`Self::peek`]).
    #[inline(always)]
    pub fn skip(&mut self, n: u32) {
        self.left -= n as isize;
    }

    /// Reads `n` (≤ 32) bits.
    #[inline(always)]
    pub fn read(&mut self, n: u32) -> u32 {
        let v = self.peek(n);
        self.skip(n);
        v
    }

    /// Whether a read went past the start of the stream.
    #[inline(always)]
    pub fn overflowed(&self) -> bool {
        self.left < 0
    }

    /// Whether every bit was read, and no more.
    #[inline(always)]
    pub fn finished(&self) -> bool {
        self.left == 0
    }
}

/// A forward bit stream (FSE table headers, RFC 8878 §4.1.1): fields from bit 0 of the first
/// byte upwards; zeros past the end, which [`Self::bytes_used`] lets the caller refuse.
pub struct Forward<'a> {
    data: &'a [u8],
    pos: isize,
}

impl<'a> Forward<'a> {
    /// The stream `data`, from its first bit.
    #[inline(always)]
    pub fn new(data: &'a [u8]) -> Self {
        Forward { data, pos: 0 }
    }

    /// The next `n` (≤ 32) bits without consuming them.
    #[inline(always)]
    pub fn peek(&self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        bits_at(self.data, self.pos, n)
    }

    /// Consumes `n` bits.
    #[inline(always)]
    pub fn skip(&mut self, n: u32) {
        self.pos += n as isize;
    }

    /// Bytes the bits read so far occupy (the last one partly).
    #[inline(always)]
    pub fn bytes_used(&self) -> usize {
        (self.pos as usize).div_ceil(8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backward_reads_from_the_end_mark_down() {
        // Bits after the mark (bit 4 of 0x1B): 1011, then the first byte 0xA5 from the top.
        let data = [0xA5u8, 0x1B];
        let mut b = Backward::new(&data).unwrap();
        assert_eq!(b.read(4), 0b1011);
        assert_eq!(b.read(3), 0b101);
        assert_eq!(b.peek(8), 0b0010_1000);
        assert_eq!(b.read(5), 0b0_0101);
        assert!(b.finished());
        assert_eq!(b.read(2), 0);
        assert!(b.overflowed());
        assert!(Backward::new(&[1, 0]).is_none());
        assert!(Backward::new(&[]).is_none());
        assert!(Backward::new(&[1]).unwrap().finished());
    }

    #[test]
    fn forward_reads_zeros_past_the_end() {
        let data = [0xF1u8, 0x03];
        let mut f = Forward::new(&data);
        assert_eq!(f.peek(4), 1);
        f.skip(4);
        assert_eq!(f.peek(8), 0x3F);
        f.skip(14);
        assert_eq!(f.peek(20), 0);
        assert_eq!(f.bytes_used(), 3);
    }
}
