//! The encoder's choice of pipeline per block, as nvCOMP makes it.
//!
//! The stage slots come from the options ([`template`]): with both DELTA and RLE allowed the
//! slot kinds are RLE, DELTA, RLE; with DELTA only DELTA, DELTA, DELTA; with RLE only RLE, RLE, RLE;
//! and the compression level sets how many of them exist: `min(level, 3)` (level 0: none, every
//! level from 3 up the same). Every subset of the slots is a candidate pipeline (stages in slot
//! order); a stage sequence reachable from several subsets uses the lowest slots (a lone RLE in
//! slot 0). The smallest block wins, ties to the shorter pipeline, then to the lower slot mask.
//!
//! Settled on nvCOMP 6.0.0.12's GPU encoder: all 1054 blocks of the golden streams (levels 1, 3, 7,
//! all flags) and chunks written for gpucomp's questions — every fine-grained flag set and levels
//! 0 to 8 and 255 on orderkey, ramp, walk, runs, negative i16, linenumber and sawtooth inputs, and
//! quadratic / cubic ramps that need two or three DELTA stages (`D0D1`, `D0D1D2` with DELTA-only
//! flags) — have exactly our sizes and pipelines. nvCOMP refuses flags without FOR (status 11).
use super::block::{Encoded, Pipeline, Stage};
use crate::algorithm::cascaded::CascadedOptions;

/// The stage kind of each slot the options allow (0 to 3 slots).
pub fn template(opts: &CascadedOptions) -> Vec<Stage> {
    let slots = usize::from(opts.compression_level).min(3);
    let kinds: &[Stage] = match (opts.rle, opts.delta) {
        (true, true) => &[Stage::Rle, Stage::Delta, Stage::Rle],
        (false, true) => &[Stage::Delta; 3],
        (true, false) => &[Stage::Rle; 3],
        (false, false) => &[],
    };
    kinds.iter().copied().take(slots).collect()
}

/// The pipelines tried, in tie-break order after the size and the stage count: ascending slot
/// mask, each stage sequence once (at its lowest slots).
pub fn candidates(opts: &CascadedOptions) -> Vec<Pipeline> {
    let t = template(opts);
    let mut seen: Vec<Vec<Stage>> = Vec::new();
    let mut out = Vec::new();
    for mask in 0..1u8 << t.len() {
        let mut p = Pipeline::NONE;
        let mut stages = Vec::new();
        for (slot, &kind) in t.iter().enumerate() {
            if mask >> slot & 1 == 1 {
                p.mask |= 1 << slot;
                p.kinds |= u8::from(kind == Stage::Rle) << slot;
                stages.push(kind);
            }
        }
        if !seen.contains(&stages) {
            seen.push(stages);
            out.push(p);
        }
    }
    out
}

/// The smallest encoding of one block's values among `candidates` (`None` only when no candidate
/// applies: an empty list, or DELTA-only candidates for an empty block).
pub fn best(values: &[u64], width: usize, signed: bool, candidates: &[Pipeline]) -> Option<Encoded> {
    let mut best: Option<Encoded> = None;
    for &p in candidates {
        let Some(e) = Encoded::new(values, width, signed, p) else {
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
