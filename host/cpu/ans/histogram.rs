//! Symbol histograms: exact (the default) or sampled (`histogram_reduction_log2`, ANS.md 2.2).
//!
//! The table range is `mn..=mx` of the present symbols for an exact histogram, always `0..=255`
//! for a sampled one.
use crate::algorithm::ans::AnsMode;

/// Chunks with fewer symbols than this always use the exact histogram (nvCOMP's documentation;
/// the threshold itself is not sampled).
pub const EXACT_BELOW_SYMBOLS: usize = 4096;

/// Slices a sampled histogram takes its samples from (ANS.md 2.2: a constant 8 in all samples;
/// whether it is `max_sub_chunk_count` is not distinguished by any sample).
pub const SAMPLE_SLICES: usize = 8;

/// Counts of every byte value.
pub fn count(symbols: &[u8]) -> [u64; 256] {
    let mut c = [0u64; 256];
    for &s in symbols {
        c[s as usize] += 1;
    }
    c
}

/// The exact histogram: `(mn, counts of mn..=mx)`; `None` for no symbols.
pub fn exact(symbols: &[u8]) -> Option<(u8, Vec<u64>)> {
    let c = count(symbols);
    let mn = c.iter().position(|&x| x > 0)?;
    let mx = c.iter().rposition(|&x| x > 0)?;
    Some((mn as u8, c[mn..=mx].to_vec()))
}

/// Symbols per slice of a sampled histogram for a chunk of `n` bytes: `roundup16(ceil(n / 8))`
/// (at least 16) bytes' worth, i.e. that many symbols in byte mode and half as many in FLOAT8
/// mode (fitted on nvCOMP's two FLOAT8 samples; the symbol count's own `roundup16(ceil(N / 8))`
/// misses one of them). FLOAT16 / FLOAT32 with sampling are not sampled: they keep the symbol
/// count's rule.
pub fn sample_slice(n: usize, symbols: usize, mode: AnsMode) -> usize {
    match mode {
        AnsMode::Float8 => n.div_ceil(SAMPLE_SLICES).next_multiple_of(16).max(16) / 2,
        _ => symbols.div_ceil(SAMPLE_SLICES).next_multiple_of(16).max(16),
    }
}

/// The sampled histogram of `histogram_reduction_log2 = log2` over `0..=255`: the symbols are cut
/// into slices of `slice` symbols ([`sample_slice`]); from each slice only its first
/// `slice_len >> log2` symbols are counted; every value with count 0 then gets count 1 (which the
/// quantisation turns into the low-probability marker).
pub fn sampled(symbols: &[u8], log2: u8, slice: usize) -> Vec<u64> {
    let mut c = [0u64; 256];
    for part in symbols.chunks(slice.max(1)) {
        let keep = part.len().checked_shr(log2 as u32).unwrap_or(0);
        for &s in &part[..keep] {
            c[s as usize] += 1;
        }
    }
    c.iter().map(|&x| x.max(1)).collect()
}
