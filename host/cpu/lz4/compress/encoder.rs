//! The general warp-window loop (steps 1–11 of the module documentation, run sequentially):
//! Nvcomp's rules on chunks of more than `MAX_DIST + 1` elements, where a slot holds a position
//! modulo 65536 and a candidate's distance is checked. Gpucomp's segments and Nvcomp's shorter
//! chunks take [`super::short`]. `W` is the element width.
use super::rules::{Hasher, EMPTY, END_LITERALS, LANES, LAST_MATCH};
use super::sink::Sink;
use super::window::WindowSet;
use crate::Status;

/// One chunk's encoder state.
pub(super) struct Encoder<'a, 't, const W: usize> {
    data: &'a [u8],
    /// Elements.
    tl: usize,
    table: &'t mut [u16],
    hash: Hasher<false>,
}

impl<'a, 't, const W: usize> Encoder<'a, 't, W> {
    const LAST_MATCH: usize = LAST_MATCH.div_ceil(W);
    const END_LITERALS: usize = END_LITERALS.div_ceil(W);
    const LANES: usize = LANES - 3 / W;
    const MAX_DIST: usize = 0xFFFF / W;

    /// Encodes `data` with `table` (a power of two of slots up to 65536), which is emptied first.
    pub(super) fn new(data: &'a [u8], table: &'t mut [u16]) -> Self {
        table.fill(EMPTY);
        let hash = Hasher::new(table.len());
        Encoder { data, tl: data.len().div_ceil(W), table, hash }
    }

    /// The 32-bit key at element `p` (always within the data where it is called).
    #[inline(always)]
    fn key(&self, p: usize) -> u32 {
        match self.data.get(p * W..p * W + 4) {
            Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            None => 0,
        }
    }

    #[inline(always)]
    fn insert(&mut self, h: usize, p: usize) {
        if let Some(slot) = self.table.get_mut(h) {
            *slot = p as u16;
        }
    }

    /// The candidate position `p` (key `k`, slot `h`) finds in the table, key-checked, with
    /// Nvcomp's rule (an empty slot holds none).
    #[inline(always)]
    fn lookup(&self, p: usize, k: u32, h: usize) -> Option<usize> {
        let slot = *self.table.get(h)?;
        if slot == EMPTY {
            return None;
        }
        let mut real = (p & !0xFFFF) | slot as usize;
        if real >= p {
            real = real.checked_sub(0x10000)?;
        }
        if p - real > Self::MAX_DIST || self.key(real) != k {
            return None;
        }
        Some(real)
    }

    /// Equal leading elements at `a < b`, at most `max` (both ranges inside the data).
    #[inline(always)]
    fn common(&self, a: usize, b: usize, max: usize) -> usize {
        let (a, b, max) = (a * W, b * W, max * W);
        let (Some(x), Some(y)) = (self.data.get(a..a + max), self.data.get(b..b + max)) else {
            return 0;
        };
        let mut i = 0;
        while i + 8 <= max {
            let d = u64::from_le_bytes(x[i..i + 8].try_into().unwrap())
                ^ u64::from_le_bytes(y[i..i + 8].try_into().unwrap());
            if d != 0 {
                return (i + (d.trailing_zeros() / 8) as usize) / W;
            }
            i += 8;
        }
        while i < max && x[i] == y[i] {
            i += 1;
        }
        i / W
    }

    /// Encodes the whole chunk into `sink`.
    pub(super) fn run(mut self, sink: &mut Sink) -> Result<(), Status> {
        let data = self.data;
        let tl = self.tl;
        let mut set = WindowSet::new(self.table.len());
        let mut hs = [0usize; LANES];
        let mut idx = 0usize;
        let mut tok = 0usize;
        loop {
            // 1. final literals
            if idx + Self::LAST_MATCH >= tl {
                return sink.sequence(tok * W, data.len(), 0, 0);
            }
            // 2.–4. the window and its first lane with a candidate
            let nvalid = Self::LANES.min(tl - idx - Self::LAST_MATCH);
            let match_end = tl - Self::END_LITERALS;
            set.next_window();
            let mut hit: Option<(usize, usize)> = None;
            // The lanes' keys: `idx + nvalid + LAST_MATCH ≤ tl` keeps every key inside the data,
            // and one slice of them drops a bounds check per lane.
            let keys = data.get(idx * W..(idx + nvalid - 1) * W + 4).unwrap_or_default();
            let lanes = hs.iter_mut().zip(keys.windows(4).step_by(W)).enumerate();
            for (t, (slot, kb)) in lanes {
                let p = idx + t;
                let k = u32::from_le_bytes([kb[0], kb[1], kb[2], kb[3]]);
                let h = self.hash.slot(k);
                *slot = h;
                if let Some(s) = set.find_or_insert(k, h, t) {
                    hit = Some((t, idx + s));
                    break;
                }
                if let Some(c) = self.lookup(p, k, h) {
                    hit = Some((t, c));
                    break;
                }
            }
            let Some((first, src)) = hit else {
                for (i, &h) in hs[..nvalid].iter().enumerate() {
                    self.insert(h, idx + i);
                }
                idx += nvalid;
                continue;
            };
            // 5. Nvcomp: the first lane; 6. insert the lanes before it
            for (i, &h) in hs[..first].iter().enumerate() {
                self.insert(h, idx + i);
            }
            // 7. extend forward; 9. emit; 11. continue after the match
            let pos = idx + first;
            let ml = self.common(src, pos, match_end - pos);
            sink.sequence(tok * W, pos * W, ml * W, (pos - src) * W)?;
            idx = pos + ml;
            tok = idx;
        }
    }
}
