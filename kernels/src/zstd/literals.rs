//! The literals section of a compressed block (RFC 8878 §3.1.1.3.1): raw, RLE, Huffman-compressed
//! (1 or 4 streams) and treeless (the previous Huffman table of the frame).
//!
//! The serial decoder does not buffer literals: [`Literals::take`] decodes them straight into the
//! output as the sequences consume them (in order, so the 4 streams one after another). The warp
//! decoder (`parallel`) reads the [`Header`], has lane 0 read the table, and decodes the streams
//! of [`Literals::streams`] into a literal buffer, one lane per stream.
use super::bitstream::Backward;
use super::huffman::{self, Scratch, MAX_LOG};

/// The frame's Huffman table, kept for treeless literals.
pub struct HufTable<'a> {
    /// Decoding table (shared memory).
    pub table: &'a mut [u16; 1 << MAX_LOG],
    /// Its log.
    pub log: u32,
    /// Whether a table was read in this frame.
    pub valid: bool,
}

/// Where a block's literals come from.
#[derive(Clone, Copy)]
pub(super) enum Kind<'a> {
    /// Bytes of the block.
    Raw(&'a [u8]),
    /// One byte repeated.
    Rle(u8),
    /// Huffman streams.
    Huffman,
}

/// A block's literals, handed out in order.
pub struct Literals<'a> {
    pub(super) kind: Kind<'a>,
    pub(super) size: usize,
    done: usize,
    pub(super) streams: [Backward<'a>; 4],
    /// Streams: 1 or 4.
    pub(super) count: usize,
    /// Literals per stream (the last one takes the rest).
    pub(super) segment: usize,
    /// The stream being decoded.
    cur: usize,
    /// libzstd's fast 4-stream decoding applies: streams are not checked for an exact end.
    pub(super) lenient: bool,
    /// Each stream's start and end in the Huffman payload (4 streams).
    pub(super) bounds: [(usize, usize); 4],
}

/// Little-endian value of `b[..n]` (n ≤ 4).
#[inline(always)]
fn le(b: &[u8], n: usize) -> Option<u32> {
    Some(b.get(..n)?.iter().rev().fold(0u32, |v, &x| v << 8 | x as u32))
}

/// A literals section's header (RFC 8878 §3.1.1.3.1.1): what it holds and where.
#[derive(Clone, Copy)]
pub struct Header<'a> {
    /// Block literals type: 0 raw, 1 RLE, 2 Huffman with a table, 3 treeless.
    pub kind: u8,
    /// Literals (regenerated size).
    pub size: usize,
    /// Where the raw bytes, the RLE byte or the Huffman payload start in the block.
    pub start: usize,
    /// The section's length.
    pub len: usize,
    /// Huffman streams: 1 or 4.
    pub streams: usize,
    /// The Huffman payload, whose first bytes describe a new table (type 2).
    pub table: Option<&'a [u8]>,
}

impl<'a> Header<'a> {
    /// The header at the start of `block` (the frame's block maximum `block_max`; `valid`:
    /// the frame has a Huffman table for treeless literals); `None` where libzstd refuses it.
    pub fn parse(block: &'a [u8], block_max: usize, valid: bool) -> Option<Self> {
        if block.len() < 2 {
            return None;
        }
        let b0 = *block.first()?;
        let (kind, format) = (b0 & 3, (b0 >> 2) & 3);
        if kind < 2 {
            let (lh, size) = match format {
                1 => (2, le(block, 2)? >> 4),
                3 => (3, le(block, 3)? >> 4),
                _ => (1, b0 as u32 >> 3),
            };
            let size = size as usize;
            if size > block_max {
                return None;
            }
            let len = lh + if kind == 0 { size } else { 1 };
            block.get(..len)?;
            return Some(Header { kind, size, start: lh, len, streams: 1, table: None });
        }
        if block.len() < 5 || (kind == 3 && !valid) {
            return None;
        }
        let lhc = le(block, 4)?;
        let (lh, size, csize) = match format {
            0 | 1 => (3, (lhc >> 4) & 0x3FF, (lhc >> 14) & 0x3FF),
            2 => (4, (lhc >> 4) & 0x3FFF, lhc >> 18),
            _ => (5, (lhc >> 4) & 0x3FFFF, (lhc >> 22) + ((*block.get(4)? as u32) << 10)),
        };
        let (size, csize) = (size as usize, csize as usize);
        let streams = if format == 0 { 1 } else { 4 };
        if size > block_max || (streams == 4 && size < 6) {
            return None;
        }
        let payload = block.get(lh..lh + csize)?;
        let table = (kind == 2).then_some(payload);
        Some(Header { kind, size, start: lh, len: lh + csize, streams, table })
    }
}

impl<'a> Literals<'a> {
    /// Parses the literals section at the start of the compressed block `block`, with the
    /// frame's block maximum `block_max`; reads (and keeps in `huf`) a new Huffman table, and
    /// replays libzstd's fast 4-stream checks where they apply. Returns the literals and the
    /// section's length. `None` where libzstd refuses the section.
    pub fn parse(block: &'a [u8], block_max: usize, huf: &mut HufTable, s: &mut Scratch) -> Option<(Self, usize)> {
        let h = Header::parse(block, block_max, huf.valid)?;
        let table = match h.table {
            Some(payload) => {
                let (log, used) = huffman::read_table(payload, huf.table, s)?;
                (huf.log, huf.valid) = (log, true);
                used
            }
            None => 0,
        };
        let lit = Self::streams(block, h, huf.log, table)?;
        if lit.lenient {
            lit.fast_loop(huf)?;
        }
        Some((lit, h.len))
    }

    /// The literals of the section `h` of `block`, a new Huffman table (of log `log`) taking
    /// its payload's first `table` bytes; `None` where libzstd refuses them. No table is read
    /// and nothing is decoded.
    pub fn streams(block: &'a [u8], h: Header<'a>, log: u32, table: usize) -> Option<Self> {
        let mut lit = Literals {
            kind: Kind::Rle(0),
            size: h.size,
            done: 0,
            streams: [Backward::empty(), Backward::empty(), Backward::empty(), Backward::empty()],
            count: 1,
            segment: 0,
            cur: 0,
            lenient: false,
            bounds: [(0, 0); 4],
        };
        match h.kind {
            0 => {
                lit.kind = Kind::Raw(block.get(h.start..h.start + h.size)?);
                return Some(lit);
            }
            1 => {
                lit.kind = Kind::Rle(*block.get(h.start)?);
                return Some(lit);
            }
            _ => {}
        }
        let mut payload = block.get(h.start..h.len)?;
        if h.table.is_some() {
            if table >= payload.len() {
                return None;
            }
            payload = payload.get(table..)?;
        }
        lit.kind = Kind::Huffman;
        lit.count = h.streams;
        let size = h.size;
        if lit.count == 1 {
            lit.streams[0] = Backward::new(payload)?;
            lit.segment = size;
        } else {
            if payload.len() < 10 {
                return None;
            }
            let l1 = le(payload, 2)? as usize;
            let l2 = le(payload.get(2..)?, 2)? as usize;
            let l3 = le(payload.get(4..)?, 2)? as usize;
            lit.segment = size.div_ceil(4);
            let l4 = payload.len().checked_sub(6 + l1 + l2 + l3)?;
            // libzstd's fast decoders (x86-64 assembly or C, both in libzstd 1.5.7) take 4
            // streams of 8 bytes or more with a table of log 11 (its decoder rescales smaller
            // ones to 11) and a last segment that is not empty. They check that each stream
            // yields its literals, not that it ends exactly, and a stream that reads past its
            // start reads the bytes before it; on corrupt input this decoder does the same.
            lit.lenient = l1 >= 8 && l2 >= 8 && l3 >= 8 && l4 >= 8 && log <= 11 && 3 * lit.segment < size;
            let mut at = 6usize;
            for (k, len) in [l1, l2, l3, l4].into_iter().enumerate() {
                let end = at + len;
                *lit.streams.get_mut(k)? = if lit.lenient {
                    Backward::with_prefix(payload.get(..end)?, at)?
                } else {
                    Backward::new(payload.get(at..end)?)?
                };
                *lit.bounds.get_mut(k)? = (at, end);
                at = end;
            }
        }
        Some(lit)
    }

    /// Replays libzstd's fast 4-stream loop (libzstd 1.5.7, single-symbol table): passes of
    /// 5 symbols per stream, as many as the output of stream 4 and the input of stream 1 leave
    /// room for, stopping early where a stream's read position passed the next one's; after
    /// it, a stream that read more than 8 bytes past its start makes the literals corrupt.
    fn fast_loop(&self, huf: &HufTable) -> Option<()> {
        let mut s = self.streams;
        // Read positions: the 8 bytes before each stream's end, then after each pass the word
        // holding a stream's next bits.
        let mut ip = self.bounds.map(|(_, end)| end as isize - 8);
        let mut op3 = 3 * self.segment;
        // Each pass decodes at least 5 literals per stream, so at most size / 5 passes.
        loop {
            let oiters = (self.size - op3) / 5;
            let iiters = (ip[0].max(0) / 7) as usize;
            let iters = oiters.min(iiters);
            if iters == 0 || ip[1] < ip[0] || ip[2] < ip[1] || ip[3] < ip[2] {
                break;
            }
            for _ in 0..iters {
                for b in s.iter_mut() {
                    for _ in 0..5 {
                        huffman::decode(b, huf.table, huf.log);
                    }
                }
            }
            op3 += 5 * iters;
            for k in 0..4 {
                ip[k] = (s[k].left() + 7).div_euclid(8) - 8;
            }
        }
        if ip.iter().zip(&self.bounds).any(|(&p, &(start, _))| p < start as isize - 8) {
            return None;
        }
        Some(())
    }

    /// Literals not yet taken.
    #[inline(always)]
    pub fn remaining(&self) -> usize {
        self.size - self.done
    }

    /// Where the stream `k`'s literals end.
    #[inline(always)]
    pub(super) fn stream_end(&self, k: usize) -> usize {
        if k + 1 >= self.count {
            self.size
        } else {
            ((k + 1) * self.segment).min(self.size)
        }
    }

    /// Writes the next `dst.len()` (≤ [`Self::remaining`]) literals to `dst`; `None` if a
    /// Huffman stream is corrupt.
    pub fn take(&mut self, dst: &mut [u8], huf: &HufTable) -> Option<()> {
        match self.kind {
            Kind::Raw(raw) => {
                dst.copy_from_slice(raw.get(self.done..self.done + dst.len())?);
            }
            Kind::Rle(b) => dst.fill(b),
            Kind::Huffman => {
                for d in dst.iter_mut() {
                    *d = self.next_symbol(huf)?;
                }
                return Some(());
            }
        }
        self.done += dst.len();
        Some(())
    }

    /// Decodes and drops the next `n` (≤ [`Self::remaining`]) literals, with [`Self::take`]'s
    /// checks (the size query's counting pass).
    pub fn skip(&mut self, n: usize, huf: &HufTable) -> Option<()> {
        if let Kind::Huffman = self.kind {
            for _ in 0..n {
                self.next_symbol(huf)?;
            }
        } else {
            self.done += n;
        }
        Some(())
    }

    /// The next Huffman-coded literal; `None` if a stream is corrupt.
    #[inline(always)]
    fn next_symbol(&mut self, huf: &HufTable) -> Option<u8> {
        while self.done >= self.stream_end(self.cur) {
            // A stream must end exactly where its literals do.
            if !self.lenient && !self.streams.get(self.cur)?.finished() {
                return None;
            }
            self.cur += 1;
        }
        let bits = self.streams.get_mut(self.cur)?;
        let d = huffman::decode(bits, huf.table, huf.log);
        if bits.overflowed() && !self.lenient {
            return None;
        }
        self.done += 1;
        Some(d)
    }

    /// After the last literal: every stream ended exactly (libzstd's end check).
    pub fn finish(&self) -> Option<()> {
        if self.done != self.size {
            return None;
        }
        if let (Kind::Huffman, false) = (&self.kind, self.lenient) {
            for k in self.cur..self.count {
                if !self.streams.get(k)?.finished() {
                    return None;
                }
            }
        }
        Some(())
    }
}
