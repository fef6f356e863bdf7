//! Symbol histograms: exact (the default) or sampled (`histogram_reduction_log2`, ANS.md 2.2).
//!
//! The table range is `mn..=mx` of the present symbols for an exact histogram, always `0..=255`
//! for a sampled one.

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

/// The sampled histogram of `histogram_reduction_log2 = log2` over `0..=255`: the symbols are cut
/// into slices of `P = roundup16(ceil(len / 8))`; from each slice only its first
/// `slice_len >> log2` symbols are counted; every value with count 0 then gets count 1 (which the
/// quantisation turns into the low-probability marker).
pub fn sampled(symbols: &[u8], log2: u8) -> Vec<u64> {
    let p = symbols.len().div_ceil(SAMPLE_SLICES).next_multiple_of(16).max(16);
    let mut c = [0u64; 256];
    for slice in symbols.chunks(p) {
        let keep = slice.len().checked_shr(log2 as u32).unwrap_or(0);
        for &s in &slice[..keep] {
            c[s as usize] += 1;
        }
    }
    c.iter().map(|&x| x.max(1)).collect()
}
