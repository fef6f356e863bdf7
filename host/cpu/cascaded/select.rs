//! The encoder's choice of pipeline per block.
//!
//! At compression level 2 and above every template pipeline the flags allow is sized and the
//! smallest block kept: `-`, `R`, `D`, `RR`, `RD`, `DR`, `RDR` (slots RLE 0, DELTA 1, RLE 2);
//! ties go to the shorter pipeline, then to the first in that order. This reproduces nvCOMP's
//! block sizes: nvCOMP's chosen pipeline is a minimum over all pipelines of up to three stages in
//! every golden block, and always a template pipeline. Level 0 and 1 use no stage (nvCOMP's level 1
//! wrote FOR-only blocks only).
use super::block::{Encoded, Pipeline, Stage};
use crate::algorithm::cascaded::CascadedOptions;

/// The pipelines tried, in tie-break order.
pub fn candidates(opts: &CascadedOptions) -> Vec<Pipeline> {
    use Stage::{Delta as D, Rle as R};
    let all: [&[Stage]; 7] = [&[], &[R], &[D], &[R, R], &[R, D], &[D, R], &[R, D, R]];
    if opts.compression_level <= 1 {
        return vec![Pipeline::NONE];
    }
    all.iter()
        .filter(|p| p.iter().all(|s| if *s == R { opts.rle } else { opts.delta }))
        .filter_map(|p| Pipeline::from_template(p))
        .collect()
}

/// The smallest encoding of one block's values among `candidates` (`None` only when no candidate
/// applies: an empty list, or DELTA-only candidates for an empty block).
pub fn best(
    values: &[u64],
    width: usize,
    signed: bool,
    opts: &CascadedOptions,
    candidates: &[Pipeline],
) -> Option<Encoded> {
    let mut best: Option<Encoded> = None;
    for &p in candidates {
        let Some(e) = Encoded::new(values, width, signed, opts.frame_of_reference, p) else {
            continue;
        };
        let better = match &best {
            None => true,
            Some(b) => e.size() < b.size() || (e.size() == b.size() && e.pipeline().len() < b.pipeline().len()),
        };
        if better {
            best = Some(e);
        }
    }
    best
}
