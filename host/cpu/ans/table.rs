//! The frequency table of a chunk: `f[s]` for symbols `mn..=mx`, their cumulative frequencies
//! `cum[s] = Σ_{t<s} f[t]` (ascending symbol order) and the decoder's slot → symbol lookup.
//!
//! Stored as u16 per symbol `mn + i`; 0xFFFF is FSE's low-probability marker (int16 −1) and
//! means frequency 1; absent symbols inside the range are 0; the frequencies sum to `2^pb`.
use super::Corrupt;

/// The stored value of FSE's low-probability marker (−1 as int16): frequency 1.
pub const LOW_PROBABILITY: u16 = 0xFFFF;

/// A chunk's frequency table, ready for coding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Smallest symbol (`mn`): entry `i` is symbol `mn + i`.
    pub min_symbol: u8,
    /// Probability bits: the frequencies sum to `2^pb`.
    pub probability_bits: u8,
    /// Frequency of entry `i` (0xFFFF already read as 1).
    pub freq: Vec<u32>,
    /// `cum[i]`: sum of the frequencies before entry `i`; `cum[len] = 2^pb`.
    pub cum: Vec<u32>,
    /// Per slot (`2^pb` of them), the symbol of the entry whose range `cum[i]..cum[i+1]` holds
    /// the slot.
    symbols: Vec<u8>,
    /// Per slot, that entry's `[f, slot − cum]`: state `x` moves to `f · (x >> pb) + slot − cum`.
    /// Apart from the symbols so that the decoder's multiply and add can each take their operand
    /// straight from memory (one instruction each on x86, against five to unpack a packed word).
    steps: Vec<[u32; 2]>,
    /// Per slot, `symbol | (slot − cum) << 8 | f << 19` in one `u32`, for the SIMD decoders'
    /// single gather; only for `pb ≤ 11` (empty otherwise), where `slot − cum < f ≤ 2^pb` fit
    /// in 11 and 13 bits.
    packed: Vec<u32>,
}

impl Table {
    /// The table from its stored u16 entries (`bytes` holds `2 · entries`, at most 256 entries);
    /// `Corrupt` unless they sum to exactly `2^pb`.
    pub fn from_stored(min_symbol: u8, probability_bits: u8, bytes: &[u8]) -> Result<Table, Corrupt> {
        let stored: Vec<u16> = bytes.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect();
        Table::from_entries(min_symbol, probability_bits, &stored).ok_or(Corrupt)
    }

    /// The table from stored entries (0xFFFF = 1); `None` unless they sum to `2^pb` and there
    /// are 1 to 256 of them and `pb ≤ 16`.
    pub fn from_entries(min_symbol: u8, probability_bits: u8, stored: &[u16]) -> Option<Table> {
        if stored.is_empty() || stored.len() > 256 || probability_bits > 16 {
            return None;
        }
        if min_symbol as usize + stored.len() > 256 {
            return None;
        }
        let freq: Vec<u32> = stored.iter().map(|&f| if f == LOW_PROBABILITY { 1 } else { f as u32 }).collect();
        let mut cum = Vec::with_capacity(freq.len() + 1);
        let mut acc = 0u32;
        cum.push(0);
        for &f in &freq {
            acc += f; // at most 256 · 65535: no overflow
            cum.push(acc);
        }
        let m = 1u32 << probability_bits;
        if acc != m {
            return None;
        }
        let packs = probability_bits <= PACKED_MAX_BITS;
        let mut symbols = Vec::with_capacity(m as usize);
        let mut steps = Vec::with_capacity(m as usize);
        let mut packed = Vec::with_capacity(if packs { m as usize } else { 0 });
        for (i, &f) in freq.iter().enumerate() {
            let symbol = min_symbol + i as u8;
            symbols.resize(symbols.len() + f as usize, symbol);
            steps.extend((0..f).map(|bias| [f, bias]));
            if packs {
                packed.extend((0..f).map(|bias| symbol as u32 | bias << 8 | f << 19));
            }
        }
        Some(Table { min_symbol, probability_bits, freq, cum, symbols, steps, packed })
    }

    /// The all-zero table of `entries` entries that nvCOMP stores for a chunk without symbols (a
    /// FLOAT8 chunk of one value); it has no slots and must never decode a symbol.
    pub fn without_symbols(min_symbol: u8, probability_bits: u8, entries: usize) -> Table {
        Table {
            min_symbol,
            probability_bits,
            freq: vec![0; entries],
            cum: vec![0; entries + 1],
            symbols: Vec::new(),
            steps: Vec::new(),
            packed: Vec::new(),
        }
    }

    /// Number of entries (`mx − mn + 1`).
    pub fn len(&self) -> usize {
        self.freq.len()
    }

    /// Whether the table has no entries (never true for a parsed table).
    pub fn is_empty(&self) -> bool {
        self.freq.is_empty()
    }

    /// The symbol of each slot (`2^pb` of them; none in a table without symbols): state `x`
    /// decodes `slot_symbols()[x mod 2^pb]`.
    #[inline]
    pub fn slot_symbols(&self) -> &[u8] {
        &self.symbols
    }

    /// The step of each slot, `[f, slot − cum]` of its symbol (as many as
    /// [`Table::slot_symbols`]): state `x` moves to `f · (x >> pb) + slot − cum`, in `[1, 2^32)`.
    #[inline]
    pub fn slot_steps(&self) -> &[[u32; 2]] {
        &self.steps
    }

    /// Symbol and step of each slot packed in one `u32`, `symbol | (slot − cum) << 8 | f << 19`
    /// (as many as [`Table::slot_symbols`]), for `pb ≤ 11`; empty for larger `pb`.
    #[inline]
    pub fn slot_packed(&self) -> &[u32] {
        &self.packed
    }
}

/// The largest `pb` with [`Table::slot_packed`] entries: `f ≤ 2^pb` and `slot − cum < f`, so
/// `f` takes 12 bits and `slot − cum` 11 beside the 8-bit symbol.
pub const PACKED_MAX_BITS: u8 = 11;

/// Stored u16 entries for a normalised table (−1 becomes 0xFFFF).
pub fn stored_entries(norm: &[i32]) -> Vec<u16> {
    norm.iter().map(|&x| x as u16).collect()
}
