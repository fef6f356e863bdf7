//! The chunk header and the layout of an ANS chunk: where the size table, the raw section, the
//! frequency table and each sub-chunk lie (ANS.md 1, 4.1). Parsing validates everything against
//! the buffer, so the decoder never indexes out of bounds.
use super::{Corrupt, Table};
use crate::algorithm::ans::{AnsMode, AnsOptions};
use std::ops::Range;

/// Size of the fixed chunk header.
pub const HEADER_SIZE: usize = 16;

/// The 16-byte chunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkHeader {
    /// `n`: uncompressed bytes of the chunk (offset 0, u32).
    pub uncompressed_size: u32,
    /// `sc`: sub-chunk size in bytes of uncompressed data (offset 4, u32).
    pub sub_chunk_size: u32,
    /// `mn`: smallest symbol of the frequency table (offset 8).
    pub min_symbol: u8,
    /// `mx`: largest symbol of the frequency table (offset 9).
    pub max_symbol: u8,
    /// `pb`: probability bits; the frequencies sum to `2^pb` (offset 10).
    pub probability_bits: u8,
    /// `mode` (offset 11).
    pub mode: AnsMode,
    /// States per lane, 1 or 2 (offset 12, u32).
    pub states_per_lane: u32,
}

impl ChunkHeader {
    /// Reads and checks the fixed header: known mode, `spl` 1 or 2, `pb ≤ 16`, `mn ≤ mx`,
    /// `n ≤ 2^25`, `sc > 0` and a multiple of the mode's symbol width, `n` a multiple of the
    /// symbol width's half for FLOAT16 (odd half counts exist) and of 4 for FLOAT32 (FLOAT8:
    /// any `n`, an odd last value is stored raw).
    pub fn read(chunk: &[u8]) -> Result<ChunkHeader, Corrupt> {
        let h = chunk.get(..HEADER_SIZE).ok_or(Corrupt)?;
        let u32_at = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        let header = ChunkHeader {
            uncompressed_size: u32_at(0),
            sub_chunk_size: u32_at(4),
            min_symbol: h[8],
            max_symbol: h[9],
            probability_bits: h[10],
            mode: AnsMode::from_raw(h[11]).ok_or(Corrupt)?,
            states_per_lane: u32_at(12),
        };
        let n = header.uncompressed_size as usize;
        let sc = header.sub_chunk_size as usize;
        let width = header.mode.bytes_per_symbol();
        let ok = matches!(header.states_per_lane, 1 | 2)
            && header.probability_bits <= 16
            && header.min_symbol <= header.max_symbol
            && n <= AnsOptions::MAX_DECOMPRESSED_CHUNK_SIZE
            && sc > 0
            && sc.is_multiple_of(width)
            && match header.mode {
                AnsMode::Bytes | AnsMode::Float8 => true,
                AnsMode::Float16 => n.is_multiple_of(2),
                AnsMode::Float32 => n.is_multiple_of(4),
            };
        if ok {
            Ok(header)
        } else {
            Err(Corrupt)
        }
    }

    /// The 16 header bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_SIZE] {
        let mut h = [0u8; HEADER_SIZE];
        h[0..4].copy_from_slice(&self.uncompressed_size.to_le_bytes());
        h[4..8].copy_from_slice(&self.sub_chunk_size.to_le_bytes());
        h[8] = self.min_symbol;
        h[9] = self.max_symbol;
        h[10] = self.probability_bits;
        h[11] = self.mode as u8;
        h[12..16].copy_from_slice(&self.states_per_lane.to_le_bytes());
        h
    }

    /// Number of sub-chunks, `ceil(n / sc)`.
    pub fn sub_chunk_count(&self) -> usize {
        (self.uncompressed_size as usize).div_ceil((self.sub_chunk_size as usize).max(1))
    }

    /// Symbols coded by sub-chunk `i`: `sc / width`, the last one fewer.
    pub fn sub_chunk_symbols(&self, i: usize) -> usize {
        let n = self.uncompressed_size as usize;
        let sc = self.sub_chunk_size as usize;
        let start = (i * sc).min(n);
        (n - start).min(sc) / self.mode.bytes_per_symbol()
    }

    /// Symbols of the whole chunk (FLOAT16: halves; FLOAT32: floats).
    pub fn symbol_count(&self) -> usize {
        self.uncompressed_size as usize / self.mode.bytes_per_symbol()
    }
}

/// Byte offsets, from the chunk start, of the parts after the fixed header (ANS.md 1):
/// size table at 16; float modes: raw section at `roundup8(16 + 4·nsub)`, one zero byte if it has
/// odd length; the u16 frequency table; sub-chunk 0 at `roundup16(table end)`; sub-chunk `i + 1`
/// at `roundup16(end of sub-chunk i)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The raw section (empty in byte mode).
    pub raw: Range<usize>,
    /// The frequency table, `2 · (mx − mn + 1)` bytes.
    pub table: Range<usize>,
    /// Where sub-chunk 0 starts.
    pub data: usize,
}

impl Layout {
    /// The layout for a header, before any bounds check.
    pub fn new(h: &ChunkHeader) -> Layout {
        let n = h.uncompressed_size as usize;
        let mut off = HEADER_SIZE + 4 * h.sub_chunk_count();
        let mut raw = off..off;
        if h.mode != AnsMode::Bytes {
            off = off.next_multiple_of(8);
            let len = h.mode.raw_section_len(n);
            raw = off..off + len;
            off += len;
            off += off & 1;
        }
        let entries = h.max_symbol as usize - h.min_symbol as usize + 1;
        let table = off..off + 2 * entries;
        Layout { raw, data: table.end.next_multiple_of(16), table }
    }
}

/// A parsed, bounds-checked chunk: header, layout, frequency table and sub-chunk ranges.
#[derive(Debug, Clone)]
pub struct Chunk<'a> {
    /// The fixed header.
    pub header: ChunkHeader,
    /// Where the parts lie.
    pub layout: Layout,
    /// The raw section's bytes.
    pub raw: &'a [u8],
    /// The frequency table with cumulative frequencies.
    pub table: Table,
    /// Each sub-chunk's bytes (words, then the `32 · spl` final states).
    pub sub_chunks: Vec<&'a [u8]>,
}

impl<'a> Chunk<'a> {
    /// Parses `chunk` (trailing bytes after the last sub-chunk are ignored). Checks: the header
    /// ([`ChunkHeader::read`]); size table, raw section and frequency table inside the buffer;
    /// the table sums to exactly `2^pb` (0xFFFF counting 1), or, in a chunk without symbols (a
    /// FLOAT8 chunk of one value), is all zero as nvCOMP writes it; every sub-chunk with symbols
    /// at least `128 · spl` with an even word region, every one without symbols empty, and every
    /// sub-chunk inside the buffer.
    pub fn parse(chunk: &'a [u8]) -> Result<Chunk<'a>, Corrupt> {
        let header = ChunkHeader::read(chunk)?;
        let nsub = header.sub_chunk_count();
        // The size table must fit before anything proportional to nsub is allocated.
        let sizes_end = HEADER_SIZE.checked_add(nsub.checked_mul(4).ok_or(Corrupt)?).ok_or(Corrupt)?;
        if sizes_end > chunk.len() {
            return Err(Corrupt);
        }
        let layout = Layout::new(&header);
        let raw = chunk.get(layout.raw.clone()).ok_or(Corrupt)?;
        let table_bytes = chunk.get(layout.table.clone()).ok_or(Corrupt)?;
        let table = if header.symbol_count() == 0 && table_bytes.iter().all(|&b| b == 0) {
            Table::without_symbols(header.min_symbol, header.probability_bits, table_bytes.len() / 2)
        } else {
            Table::from_stored(header.min_symbol, header.probability_bits, table_bytes)?
        };
        let states_bytes = 128 * header.states_per_lane as usize;
        let mut sub_chunks = Vec::with_capacity(nsub);
        let mut off = layout.data;
        for i in 0..nsub {
            let p = HEADER_SIZE + 4 * i;
            let size = u32::from_le_bytes([chunk[p], chunk[p + 1], chunk[p + 2], chunk[p + 3]]) as usize;
            let fits = match header.sub_chunk_symbols(i) {
                0 => size == 0,
                _ => size >= states_bytes && (size - states_bytes).is_multiple_of(2),
            };
            if !fits {
                return Err(Corrupt);
            }
            let end = off.checked_add(size).ok_or(Corrupt)?;
            sub_chunks.push(chunk.get(off..end).ok_or(Corrupt)?);
            off = end.next_multiple_of(16);
        }
        Ok(Chunk { header, layout, raw, table, sub_chunks })
    }
}
