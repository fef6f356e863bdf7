//! What an ANS chunk holds, as data for `gpucomp inspect --chunk` (which formats it): the
//! header fields, where the parts
//! lie, a summary of the frequency table, and per sub-chunk its place, size, renormalisation
//! words and the 32 lanes' final states.
//!
//! [`chunk`] is built on [`Chunk::parse`], the decoder's own bounds-checked parser, and decodes
//! no symbol: hostile input gives `CannotDecompress`, never a panic. A chunk that parses can still
//! fail to decode (states or words that do not lead back to `2^16`): callers that need to know
//! decode it.
use super::header::Chunk;
use super::rans::{state_index, LANES};
use crate::algorithm::ans::AnsMode;
use crate::Status;
use std::ops::Range;

/// Symbols listed in [`TableSummary::top`].
pub const TOP_SYMBOLS: usize = 8;

/// A parsed chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkView {
    /// The 16-byte header's fields.
    pub header: Header,
    /// Where the raw section, the frequency table and the sub-chunk data lie.
    pub layout: Layout,
    /// Compressed bytes of the chunk.
    pub bytes: usize,
    /// The frequency table.
    pub table: TableSummary,
    /// The sub-chunks in order.
    pub sub_chunks: Vec<SubChunkView>,
}

/// The fields of a chunk's 16-byte header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// What the symbols are: bytes, or parts of FLOAT16 / FLOAT8 / FLOAT32 values.
    pub mode: AnsMode,
    /// Uncompressed bytes of the chunk.
    pub uncompressed_size: u32,
    /// Uncompressed bytes per sub-chunk (the last one may have fewer).
    pub sub_chunk_size: u32,
    /// rANS states per lane, 1 or 2.
    pub states_per_lane: u32,
    /// The frequency table's smallest symbol.
    pub min_symbol: u8,
    /// The frequency table's largest symbol.
    pub max_symbol: u8,
}

/// Where a chunk's parts lie, as byte offsets in the chunk (after the header and the sub-chunk
/// size table at 16).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The raw section: the bytes of float values stored as they are (empty in byte mode).
    pub raw: Range<usize>,
    /// The frequency table, 2 bytes per entry.
    pub table: Range<usize>,
    /// Where sub-chunk 0 starts.
    pub data: usize,
}

/// A compact view of the frequency table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSummary {
    /// Entries stored (`mx − mn + 1`).
    pub entries: usize,
    /// Entries with a nonzero frequency.
    pub symbols: usize,
    /// Entries stored as FSE's low-probability marker (frequency 1).
    pub rare: usize,
    /// Probability bits: the frequencies sum to `2^pb` (the table log).
    pub probability_bits: u8,
    /// The most frequent symbols with their frequencies (at most [`TOP_SYMBOLS`], most frequent
    /// first, ties to the smaller symbol).
    pub top: Vec<(u8, u32)>,
    /// The table's entropy in bits per symbol: what a symbol costs when the data follows it.
    pub entropy_bits: f64,
}

/// One sub-chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubChunkView {
    /// Offset in the chunk.
    pub offset: usize,
    /// Stored bytes (its entry in the size table): words, then the final states.
    pub bytes: usize,
    /// Symbols it codes.
    pub symbols: usize,
    /// 16-bit renormalisation words.
    pub words: usize,
    /// The final states in lane order (lane 0's states, then lane 1's, …; `states_per_lane`
    /// each), as the decoder starts from them.
    pub states: Vec<u32>,
}

impl SubChunkView {
    /// The smallest and largest final state.
    pub fn state_range(&self) -> (u32, u32) {
        let min = self.states.iter().copied().min().unwrap_or(0);
        let max = self.states.iter().copied().max().unwrap_or(0);
        (min, max)
    }

    /// Compressed bits per coded symbol (words and states), or 0 without symbols.
    pub fn bits_per_symbol(&self) -> f64 {
        if self.symbols == 0 {
            0.0
        } else {
            8.0 * self.bytes as f64 / self.symbols as f64
        }
    }
}

/// Parses a chunk: `CannotDecompress` when [`Chunk::parse`] rejects it.
pub fn chunk(input: &[u8]) -> Result<ChunkView, Status> {
    let c = Chunk::parse(input)?;
    let h = c.header;
    let spl = h.states_per_lane as usize;
    let freq = &c.table.freq;
    let mut top: Vec<(u8, u32)> = freq
        .iter()
        .enumerate()
        .filter(|&(_, &f)| f > 0)
        .map(|(i, &f)| (h.min_symbol.wrapping_add(i as u8), f))
        .collect();
    top.sort_by_key(|&(s, f)| (std::cmp::Reverse(f), s));
    let symbols = top.len();
    top.truncate(TOP_SYMBOLS);
    let m = f64::from(1u32 << h.probability_bits);
    let entropy_bits = freq.iter().filter(|&&f| f > 0).map(|&f| f64::from(f) / m * (m / f64::from(f)).log2()).sum();
    let low = super::table::LOW_PROBABILITY.to_le_bytes();
    let rare = input.get(c.layout.table.clone()).map_or(0, |t| t.chunks_exact(2).filter(|e| *e == low).count());
    let base = input.as_ptr() as usize;
    let sub_chunks = c
        .sub_chunks
        .iter()
        .enumerate()
        .map(|(i, sub)| {
            // `parse` checked that every sub-chunk with symbols holds its 32·spl states after an
            // even word region; one without symbols is empty (no words, states shown as 0).
            let words_end = sub.len().saturating_sub(4 * LANES * spl);
            let stored: Vec<u32> =
                sub[words_end..].chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            let states = (0..LANES)
                .flat_map(|lane| (0..spl).map(move |s| (lane, s)))
                .map(|(lane, s)| stored.get(state_index(lane, s, spl)).copied().unwrap_or(0));
            SubChunkView {
                // Slices of `input`: their distance from its start is their offset.
                offset: sub.as_ptr() as usize - base,
                bytes: sub.len(),
                symbols: h.sub_chunk_symbols(i),
                words: words_end / 2,
                states: states.collect(),
            }
        })
        .collect();
    Ok(ChunkView {
        header: Header {
            mode: h.mode,
            uncompressed_size: h.uncompressed_size,
            sub_chunk_size: h.sub_chunk_size,
            states_per_lane: h.states_per_lane,
            min_symbol: h.min_symbol,
            max_symbol: h.max_symbol,
        },
        layout: Layout { raw: c.layout.raw, table: c.layout.table, data: c.layout.data },
        bytes: input.len(),
        table: TableSummary {
            entries: freq.len(),
            symbols,
            rare,
            probability_bits: h.probability_bits,
            top,
            entropy_bits,
        },
        sub_chunks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithm::ans::AnsOptions;
    use crate::types::DataType;

    /// A generator seeded from the clock (the seed is printed for replay).
    fn rng() -> impl FnMut() -> u64 {
        let seed =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
        println!("seed {seed}");
        let mut x = seed | 1;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    /// Text-like bytes: mostly a few letters, 'e' the most frequent.
    fn skewed(n: usize, next: &mut impl FnMut() -> u64) -> Vec<u8> {
        (0..n)
            .map(|_| match next() % 16 {
                0..=5 => b'e',
                6..=9 => b't',
                10..=12 => b'a',
                13 | 14 => b' ',
                _ => b'a' + (next() % 26) as u8,
            })
            .collect()
    }

    #[test]
    fn table_sub_chunks_and_states() {
        let mut next = rng();
        let input = skewed(100_000, &mut next);
        let options = AnsOptions::for_type(DataType::Uchar);
        let c = super::super::compress_to_vec(&input, &options).unwrap();
        let v = chunk(&c).unwrap();
        let h = v.header;
        assert_eq!((h.uncompressed_size as usize, v.bytes), (input.len(), c.len()));
        assert_eq!(h.mode, AnsMode::Bytes);
        assert_eq!(v.table.probability_bits, 11);
        assert_eq!(v.table.top[0].0, b'e');
        assert!(v.table.top.len() <= TOP_SYMBOLS && v.table.symbols >= 4 && v.table.symbols <= 29, "{:?}", v.table);
        assert_eq!(v.table.entries, (h.max_symbol - h.min_symbol) as usize + 1);
        assert!(v.table.entropy_bits > 1.5 && v.table.entropy_bits < 3.0, "{}", v.table.entropy_bits);
        assert_eq!(v.sub_chunks.len(), input.len().div_ceil(h.sub_chunk_size as usize));
        assert_eq!(v.sub_chunks.iter().map(|s| s.symbols).sum::<usize>(), input.len());
        assert_eq!(v.sub_chunks[0].offset, v.layout.data);
        assert_eq!(v.sub_chunks.last().map(|s| s.offset + s.bytes), Some(c.len()));
        let spl = h.states_per_lane as usize;
        for s in &v.sub_chunks {
            assert_eq!(s.states.len(), 32 * spl);
            assert_eq!(s.bytes, 2 * s.words + 128 * spl);
            let (lo, hi) = s.state_range();
            assert!(lo >= 1 << 16 && lo <= hi, "{lo:#x} {hi:#x}");
            // The 32·spl final states cost 0.25 bits per symbol or less from 8192 symbols on.
            let bits = s.bits_per_symbol();
            assert!(
                s.symbols < 8192 || (bits > v.table.entropy_bits - 0.1 && bits < v.table.entropy_bits + 0.5),
                "{bits}"
            );
        }
        // Lanes are stored reversed: lane 0's state 0 is stored state 31·spl.
        let s0 = &v.sub_chunks[0];
        let at = s0.offset + s0.bytes - 128 * spl + 4 * 31 * spl;
        assert_eq!(s0.states[0], u32::from_le_bytes(c[at..at + 4].try_into().unwrap()));
    }

    #[test]
    fn float_modes() {
        let mut next = rng();
        let input: Vec<u8> = (0..5000).flat_map(|_| ((next() % 1000) as f32 * 0.25).to_le_bytes()).collect();
        let c = super::super::compress_to_vec(&input, &AnsOptions::for_type(DataType::Float32)).unwrap();
        let v = chunk(&c).unwrap();
        assert_eq!(v.header.mode, AnsMode::Float32);
        assert_eq!(v.table.probability_bits, 10);
        assert_eq!(v.layout.raw.len(), input.len() / 4 * 3);
        assert_eq!(v.sub_chunks.iter().map(|s| s.symbols).sum::<usize>(), 5000);
    }

    /// Truncated, bit-flipped and random chunks give an error or a view, never a panic.
    #[test]
    fn hostile_chunks_never_panic() {
        let mut next = rng();
        let input = skewed(40_000, &mut next);
        let good = super::super::compress_to_vec(&input, &AnsOptions::for_type(DataType::Char)).unwrap();
        assert!(chunk(&good).is_ok());
        for cut in 0..good.len().min(400) {
            assert!(chunk(&good[..cut]).is_err(), "truncated to {cut}");
        }
        for _ in 0..2000 {
            let mut bad = good.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % bad.len().min(200);
                bad[at] ^= 1 << (next() % 8);
            }
            let _ = chunk(&bad);
        }
        for _ in 0..2000 {
            let bad: Vec<u8> = (0..next() % 600).map(|_| next() as u8).collect();
            let _ = chunk(&bad);
        }
    }
}
