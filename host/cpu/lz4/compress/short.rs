//! The warp-window loop (steps 1–11 of the module documentation) on a chunk of at most
//! `MAX_DIST + 1` elements: every Gpucomp segment, and every Nvcomp chunk of up to 64 KiB.
//!
//! In such a chunk a slot holds a position exactly and every position is in reach, so a window
//! inserts its lanes as it scans them: a slot then holds a lane of this window (`≥ idx`) or its
//! value at the window start, and `prev` keeps, per inserted lane, the value it overwrote. The
//! lanes before the first candidate have distinct keys (a repeat would have been one), so a
//! lane's in-window candidate among them is the one lane of its slot's chain with its key, and
//! the chain's end is the window-start lookup; Gpucomp's lazy lanes also compare the keys of the
//! lanes from the first candidate on, which are not inserted yet. Inserting lanes `0..f` while
//! scanning and `f..c` after the choice leaves the table as steps 4 and 6 do.
//!
//! The chunk is read through an array of a fixed size ([`Padded`]): the chunk at its start, then
//! whatever follows it (the input after the chunk, or the rest of a copy), [`PAD`] bytes more
//! than the longest chunk, a power of two. Masking a byte offset with that span changes no offset
//! inside the chunk and proves every read in bounds, without a check. Reads past the chunk's end
//! (or wrapped by the mask) only feed compares whose result is capped inside the chunk.
use super::rules::{Hasher, EMPTY, END_LITERALS, LANES, LAST_MATCH, LAZY_CAP, LAZY_LANES};
use super::sink::Sink;
use crate::Status;
use gpucomp_kernels::lz4::skip_stride;

/// Bytes past the span that a read may touch: the longest read, a 16-byte block of a compare.
pub(super) const PAD: usize = 16;

/// A chunk at the start of `BYTES` readable bytes, of at most [`Self::SPAN`] bytes.
pub(super) struct Padded<'a, const BYTES: usize> {
    bytes: &'a [u8; BYTES],
    len: usize,
}

impl<'a, const BYTES: usize> Padded<'a, BYTES> {
    /// The longest chunk: the readable bytes less the pad, a power of two.
    pub(super) const SPAN: usize = BYTES - PAD;

    /// The chunk of `len ≤ SPAN` bytes at the start of `bytes`; `None` if it is longer.
    pub(super) fn new(bytes: &'a [u8; BYTES], len: usize) -> Option<Self> {
        (Self::SPAN.is_power_of_two() && len <= Self::SPAN).then_some(Padded { bytes, len })
    }

    /// `N ≤ PAD` bytes at byte offset `i`, masked to the span (no change for `i < SPAN`).
    #[inline(always)]
    fn read<const N: usize>(&self, i: usize) -> [u8; N] {
        let i = i & (Self::SPAN - 1);
        let mut out = [0; N];
        // In bounds (the check folds away): `i < SPAN`, `N ≤ PAD`.
        if let Some(b) = self.bytes.get(i..i + N) {
            out.copy_from_slice(b);
        }
        out
    }
}

/// The state of one chunk's encoding; `G` selects the Gpucomp rules, `W` is the element width.
pub(super) struct Short<'a, 't, const G: bool, const W: usize, const BYTES: usize> {
    data: Padded<'a, BYTES>,
    /// Elements.
    tl: usize,
    table: &'t mut [u16],
    hash: Hasher<G>,
}

/// The first lane of a window with a candidate: the lane, its candidate and slot.
struct Hit {
    lane: usize,
    src: usize,
    slot: usize,
}

/// A window's chosen match: where it starts (a position), its source, and the length the lazy
/// choice measured (Gpucomp; 0 for Nvcomp).
struct Choice {
    pos: usize,
    src: usize,
    lazy_len: usize,
}

impl<'a, 't, const G: bool, const W: usize, const BYTES: usize> Short<'a, 't, G, W, BYTES> {
    const LAST_MATCH: usize = LAST_MATCH.div_ceil(W);
    const END_LITERALS: usize = END_LITERALS.div_ceil(W);
    const LANES: usize = LANES - 3 / W;

    /// Encodes `data` with `table` (a power of two of slots up to 65536), which is emptied first.
    pub(super) fn new(data: Padded<'a, BYTES>, table: &'t mut [u16]) -> Self {
        table.fill(EMPTY);
        let hash = Hasher::new(table.len());
        Short { tl: data.len.div_ceil(W), data, table, hash }
    }

    /// The 32-bit key at element `p` (inside the chunk where it is called).
    #[inline(always)]
    fn key(&self, p: usize) -> u32 {
        u32::from_le_bytes(self.data.read::<4>(p * W))
    }

    /// Equal leading elements at `a < b`, at most `max` (`b + max` inside the chunk): 8 bytes a
    /// step, each read starting inside the chunk.
    #[inline(always)]
    fn common(&self, a: usize, b: usize, max: usize) -> usize {
        let (a, b, max) = (a * W, b * W, max * W);
        let mut i = 0;
        while i < max {
            let d = u64::from_le_bytes(self.data.read::<8>(a + i)) ^ u64::from_le_bytes(self.data.read::<8>(b + i));
            if d != 0 {
                return (i + (d.trailing_zeros() / 8) as usize).min(max) / W;
            }
            i += 8;
        }
        max / W
    }

    /// [`Self::common`] with `max ≤ LAZY_CAP`: `LAZY_CAP` elements compared 16 bytes at a time
    /// (branch-free for bytes), capped to `max`.
    #[inline(always)]
    fn common_lazy(&self, a: usize, b: usize, max: usize) -> usize {
        let (a, b) = (a * W, b * W);
        let mut equal = 0;
        for i in (0..LAZY_CAP * W).step_by(16) {
            let d = u128::from_le_bytes(self.data.read::<16>(a + i)) ^ u128::from_le_bytes(self.data.read::<16>(b + i));
            equal += d.trailing_zeros() as usize / 8;
            if d != 0 {
                break;
            }
        }
        (equal / W).min(max)
    }

    /// Equal elements just before `a < b`, at most `max`: the 8 bytes before both compared at
    /// once (one step, no data-dependent branch, for nearly every match), element by element
    /// where `a` is less than 8 bytes into the chunk.
    #[inline(always)]
    fn common_back(&self, a: usize, b: usize, max: usize) -> usize {
        let (mut a, mut b) = (a * W, b * W);
        let mut back = 0;
        while a >= 8 {
            let d = u64::from_le_bytes(self.data.read::<8>(a - 8)) ^ u64::from_le_bytes(self.data.read::<8>(b - 8));
            back += (d.leading_zeros() / 8) as usize / W;
            if d != 0 || back >= max {
                return back.min(max);
            }
            (a, b) = (a - 8, b - 8);
        }
        while back < max && a >= W && self.data.read::<W>(a - W) == self.data.read::<W>(b - W) {
            back += 1;
            (a, b) = (a - W, b - W);
        }
        back
    }

    /// Follows the chain of slot value `s` through this window's inserted lanes (positions
    /// `idx + lane · stride`; `prev` holds what each overwrote): `Ok` the lane whose key is `k`,
    /// else `Err` the slot's value at the window start.
    #[inline(always)]
    fn chain(&self, mut s: u16, idx: usize, stride: usize, k: u32, prev: &[u16; LANES]) -> Result<usize, u16> {
        // EMPTY is above every position of such a chunk, and no lane sits at 0xFFFF.
        while s != EMPTY && s as usize >= idx {
            if self.key(s as usize) == k {
                return Ok(s as usize);
            }
            s = prev[(s as usize - idx) / stride % LANES];
        }
        Err(s)
    }

    /// The window-start candidate `s` of a lane with key `k`, key-checked: positions are exact
    /// and all in reach, so only emptiness and the key remain (for Gpucomp, a slot value of
    /// 0xFFFF is never below the lane either).
    #[inline(always)]
    fn start_candidate(&self, s: u16, k: u32) -> Option<usize> {
        (s != EMPTY && self.key(s as usize) == k).then_some(s as usize)
    }

    /// A lane's candidate (key `k`) when its slot's value `s ≥ idx` is a lane of this window
    /// with another key: the slot's chain, then the window-start value; `keys`: for a lazy
    /// lane, the keys of the lanes from the first candidate (at `pf`) on, which come between.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn chain_candidate(
        &self,
        s: u16,
        idx: usize,
        stride: usize,
        k: u32,
        prev: &[u16; LANES],
        keys: &[u32],
        pf: usize,
    ) -> Option<usize> {
        match self.chain(s, idx, stride, k, prev) {
            Ok(c) => Some(c),
            Err(s) => match keys.iter().position(|&x| x == k) {
                Some(u) => Some(pf + u * stride),
                None => self.start_candidate(s, k),
            },
        }
    }

    /// Steps 3–4 on the window of `nvalid` lanes `stride` apart from `idx` (`S1`: the stride is
    /// 1): the first lane with a candidate, inserting the lanes before it as they are scanned
    /// (`prev`: what each overwrote); `None` when no lane has one, all of them then inserted.
    #[inline(always)]
    fn scan<const S1: bool>(
        &mut self,
        idx: usize,
        nvalid: usize,
        stride: usize,
        prev: &mut [u16; LANES],
    ) -> Option<Hit> {
        let stride = if S1 { 1 } else { stride };
        for t in 0..nvalid {
            let p = idx + t * stride;
            let k = self.key(p);
            let h = self.hash.slot(k);
            let s = self.table[h];
            // A slot value with the key is the lane's candidate, whether it is a lane of this
            // window (the only one with this key) or the window-start value (then no lane of
            // this window has the key: it would have taken the slot).
            if s != EMPTY && self.key(s as usize) == k {
                return Some(Hit { lane: t, src: s as usize, slot: h });
            }
            if s != EMPTY && s as usize >= idx {
                if let Some(src) = self.chain_candidate(s, idx, stride, k, prev, &[], 0) {
                    return Some(Hit { lane: t, src, slot: h });
                }
            }
            prev[t % LANES] = s;
            self.table[h] = p as u16;
        }
        None
    }

    /// Step 5 (Gpucomp) and step 6's lanes from the first candidate on, for the window of
    /// `nvalid` lanes `stride` apart from `idx` whose first candidate is `hit`: lanes
    /// `first + 1..=first + LAZY_LANES` are looked up while their capped length could beat the
    /// first lane's.
    #[inline(always)]
    fn lazy<const S1: bool>(
        &mut self,
        idx: usize,
        nvalid: usize,
        stride: usize,
        hit: Hit,
        prev: &[u16; LANES],
        match_end: usize,
    ) -> Choice {
        let stride = if S1 { 1 } else { stride };
        let pf = idx + hit.lane * stride;
        // `best` is the best score so far: the length less the lanes after `first`.
        let mut best = self.common_lazy(hit.src, pf, (match_end - pf).min(LAZY_CAP));
        let (mut chosen, mut src) = (0, hit.src);
        let mut slots = [hit.slot; LAZY_LANES + 1];
        // The keys of the lanes from `first` on (past the window: unused values), and whether
        // two are equal (rare: a period of at most four elements), which alone makes one lane a
        // later one's candidate.
        let keys: [u32; LAZY_LANES + 1] = core::array::from_fn(|j| self.key(pf + j * stride));
        let repeats = (1..=LAZY_LANES).any(|j| keys[..j].contains(&keys[j]));
        // Every lane is evaluated and the choice is made by selects: lanes that cannot win
        // (capped length at most the score to beat) lose the comparison anyway, and the only
        // branches left are rarely taken, where data-dependent exits mispredicted often.
        let first_len = best;
        for j in 1..(nvalid - hit.lane).min(LAZY_LANES + 1) {
            let p = pf + j * stride;
            let cap = (match_end - p).min(LAZY_CAP);
            // Exact shortcut: this lane and the later ones cannot beat the first lane (a test
            // against the first lane's length rarely changes its outcome within a window).
            if cap <= first_len + j {
                break;
            }
            let k = keys[j];
            let h = self.hash.slot(k);
            slots[j] = h;
            let s = self.table[h];
            let (c, found) = if s != EMPTY && s as usize >= idx {
                // Rare: the slot holds a lane of this window, before `first`.
                match self.chain_candidate(s, idx, stride, k, prev, &keys[..j], pf) {
                    Some(c) => (c, true),
                    None => (0, false),
                }
            } else {
                // A lane from `first` on with the key, else the window-start value.
                let equal = if repeats { equal_keys(&keys, j, k) } else { 0 };
                let start = (s != EMPTY) & (self.key(s as usize) == k);
                let c = if equal != 0 { pf + equal.trailing_zeros() as usize * stride } else { s as usize };
                (c, (equal != 0) | start)
            };
            // Without a candidate `c` is any position: the length is computed and ignored.
            let len = self.common_lazy(c, p, cap);
            let better = found & (len > best + j);
            best = if better { len - j } else { best };
            chosen = if better { j } else { chosen };
            src = if better { c } else { src };
        }
        // 6. insert the lanes from the first candidate to the chosen one
        for (j, &h) in slots[..chosen].iter().enumerate() {
            self.table[h] = (pf + j * stride) as u16;
        }
        Choice { pos: pf + chosen * stride, src, lazy_len: best + chosen }
    }

    /// Steps 7–10: extends the chosen match forward (by the lazy choice's length where that is
    /// below its cap, Gpucomp) and backward (Gpucomp), emits the sequence from `tok`, and
    /// inserts the positions inside the match (Gpucomp); returns the match's end.
    #[inline(always)]
    fn emit_match(&mut self, sink: &mut Sink, tok: usize, choice: Choice, match_end: usize) -> Result<usize, Status> {
        let Choice { mut pos, mut src, lazy_len } = choice;
        // 7. extend forward (Gpucomp: a lazy length below its cap is already the whole match)
        let mut ml = if G && lazy_len < (match_end - pos).min(LAZY_CAP) {
            lazy_len
        } else {
            self.common(src, pos, match_end - pos)
        };
        // 8. extend backward (Gpucomp)
        if G {
            let back = self.common_back(src, pos, (pos - tok).min(src));
            pos -= back;
            src -= back;
            ml += back;
        }
        // 9. emit
        sink.sequence(tok * W, pos * W, ml * W, (pos - src) * W)?;
        let end = pos + ml;
        // 10. insert the positions inside the match (Gpucomp); `end ≤ tl − END_LITERALS` keeps
        // every key inside the chunk.
        if G {
            for p in pos..end {
                let h = self.hash.slot(self.key(p));
                self.table[h] = p as u16;
            }
        }
        Ok(end)
    }

    /// Encodes the whole chunk into `sink`.
    pub(super) fn run(mut self, sink: &mut Sink) -> Result<(), Status> {
        let tl = self.tl;
        let match_end = tl.saturating_sub(Self::END_LITERALS);
        let mut prev = [EMPTY; LANES];
        let mut idx = 0usize;
        let mut tok = 0usize;
        // Gpucomp: windows without a match since the last match (the skip rule).
        let mut misses = 0u32;
        loop {
            // 1. final literals
            if idx + Self::LAST_MATCH >= tl {
                return sink.sequence(tok * W, self.data.len, 0, 0);
            }
            // 2.–4. the window and its first lane with a candidate, inserting the lanes before
            // it. At stride 1 (every window outside skipping) the positions fold and the lane
            // count needs no division.
            let stride = if G { skip_stride(misses) as usize } else { 1 };
            let left = tl - idx - Self::LAST_MATCH;
            let nvalid = Self::LANES.min(if stride == 1 { left } else { left.div_ceil(stride) });
            let hit = if stride == 1 {
                self.scan::<true>(idx, nvalid, 1, &mut prev)
            } else {
                self.scan::<false>(idx, nvalid, stride, &mut prev)
            };
            let Some(hit) = hit else {
                idx += nvalid * stride;
                misses += 1;
                continue;
            };
            // 5.–6. the lazy choice (Gpucomp)
            let choice = match (G, stride == 1) {
                (false, _) => Choice { pos: idx + hit.lane, src: hit.src, lazy_len: 0 },
                (true, true) => self.lazy::<true>(idx, nvalid, 1, hit, &prev, match_end),
                (true, false) => self.lazy::<false>(idx, nvalid, stride, hit, &prev, match_end),
            };
            // 7.–10. extend, emit, insert the match's positions; 11. continue after it
            idx = self.emit_match(sink, tok, choice, match_end)?;
            tok = idx;
            misses = 0;
        }
    }
}

/// Bit `u` set for each of `keys[..j]` (`j ≤ LAZY_LANES`) equal to `k`: all compared at once,
/// no loop exit to mispredict.
#[inline(always)]
fn equal_keys(keys: &[u32; LAZY_LANES + 1], j: usize, k: u32) -> u32 {
    let equal = keys[..LAZY_LANES].iter().enumerate().fold(0u32, |m, (u, &x)| m | u32::from(x == k) << u);
    equal & ((1 << j) - 1)
}
