//! The two transform stages of an asymmetric block, forward (encoder) and inverse (decoder).
//!
//! - **RLE**: the array becomes its run values (each maximal run of equal elements gives one
//!   value); the run lengths (1 to 4096) are stored as a bit-packed stream of u16 counts.
//! - **DELTA**: the first element is stored; the array becomes `x[i+1] − x[i]` (wrapping in the
//!   element width), one element shorter. It needs at least one element.
//!
//! The inverses are bounded by the block's element count: an RLE whose counts add up to more than
//! the block holds, or a zero count, is rejected.
use crate::Status;

/// Splits `values` into run values and run lengths (both cleared first).
pub fn rle(values: &[u64], runs: &mut Vec<u64>, counts: &mut Vec<u64>) {
    runs.clear();
    counts.clear();
    for &v in values {
        match (runs.last(), counts.last_mut()) {
            (Some(&last), Some(c)) if last == v => *c += 1,
            _ => {
                runs.push(v);
                counts.push(1);
            }
        }
    }
}

/// The differences of `values` (cleared first) and the first element; `None` for an empty array.
pub fn delta(values: &[u64], mask: u64, out: &mut Vec<u64>) -> Option<u64> {
    out.clear();
    let first = *values.first()?;
    out.extend(values.windows(2).map(|w| w[1].wrapping_sub(w[0]) & mask));
    Some(first)
}

/// Expands run values and counts (equal lengths) into `out` (cleared first), at most `limit`
/// elements.
pub fn undo_rle(runs: &[u64], counts: &[u64], limit: usize, out: &mut Vec<u64>) -> Result<(), Status> {
    out.clear();
    if runs.len() != counts.len() {
        return Err(Status::CannotDecompress);
    }
    // Counts of at least 1 whose sum is within `limit` keep every prefix within it too; checked
    // first, the output is sized once and filled run by run, a short run as 8 stores into the
    // slack after it (the next run overwrites them).
    let mut total = 0usize;
    for &c in counts {
        if c == 0 {
            return Err(Status::CannotDecompress);
        }
        total = total.saturating_add(usize::try_from(c).unwrap_or(usize::MAX));
    }
    if total > limit {
        return Err(Status::CannotDecompress);
    }
    out.resize(total + 8, 0);
    let mut at = 0;
    for (&v, &c) in runs.iter().zip(counts) {
        let c = c as usize;
        out[at..at + c.max(8)].fill(v);
        at += c;
    }
    out.truncate(total);
    Ok(())
}

/// Prefix sums from `first` (`out` cleared first): `deltas.len() + 1` elements.
pub fn undo_delta(first: u64, deltas: &[u64], mask: u64, out: &mut Vec<u64>) {
    out.clear();
    out.push(first & mask);
    let mut x = first & mask;
    for &d in deltas {
        x = x.wrapping_add(d) & mask;
        out.push(x);
    }
}
