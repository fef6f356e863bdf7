//! The warp-window encoder loop (steps 1–11 of the module documentation), run sequentially.
//! `G` selects the Gpucomp rules, `W` is the element width.
use super::sink::Sink;
use super::window::WindowSet;
use crate::Status;
use gpucomp_kernels::lz4::skip_stride;

/// Lanes of a warp.
const LANES: usize = 32;
/// No match starts within the last 12 bytes.
const LAST_MATCH: usize = 12;
/// The last 5 bytes are literals.
const END_LITERALS: usize = 5;
/// nvCOMP's "empty" slot value (and every slot's initial value).
const EMPTY: u16 = 0xFFFF;
/// Gpucomp: lanes after the first candidate lane that the lazy choice considers (step 5).
const LAZY_LANES: usize = 4;
/// Gpucomp: cap, in elements, of the match lengths compared by the lazy choice (step 5).
const LAZY_CAP: usize = 16;

/// Each byte with its bits reversed.
const REVERSED: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).reverse_bits();
        i += 1;
    }
    t
};

/// One chunk's encoder state.
pub(super) struct Encoder<'a, const G: bool, const W: usize> {
    data: &'a [u8],
    /// Elements.
    tl: usize,
    table: Vec<u16>,
    mask: usize,
    shift: u32,
}

/// A window's chosen match: where it starts (`lane`, a position), its source, and the length
/// the lazy choice measured from the first candidate's lane on (Gpucomp; 0 for Nvcomp).
struct Choice {
    lane: usize,
    src: usize,
    lazy_len: usize,
}

impl<'a, const G: bool, const W: usize> Encoder<'a, G, W> {
    const LAST_MATCH: usize = LAST_MATCH.div_ceil(W);
    const END_LITERALS: usize = END_LITERALS.div_ceil(W);
    const LANES: usize = LANES - 3 / W;
    const MAX_DIST: usize = 0xFFFF / W;

    /// `table_size` is a power of two up to 65536 (checked by the caller).
    pub(super) fn new(data: &'a [u8], table_size: usize) -> Self {
        Encoder {
            data,
            tl: data.len().div_ceil(W),
            table: vec![EMPTY; table_size],
            mask: table_size - 1,
            shift: 32 - table_size.trailing_zeros(),
        }
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
    fn hash(&self, k: u32) -> usize {
        if G {
            // `shift` is 16..=32; a u64 shift by 32 gives 0 without a branch.
            (u64::from(k.wrapping_mul(0x9E37_79B1)) >> self.shift) as usize
        } else {
            // The mask keeps at most 16 bits, and a sum's low 16 bits need only its operands'
            // low 16 bits: those of `reverse_bits(k)` are the top two bytes reversed, two table
            // loads instead of a full bit reversal (about 16 instructions on x86-64).
            let rev_low = (REVERSED[(k >> 24) as usize] as u32) | (REVERSED[(k >> 16) as usize & 0xFF] as u32) << 8;
            (rev_low.wrapping_add(k ^ 0xC375) as usize) & self.mask
        }
    }

    #[inline(always)]
    fn insert(&mut self, h: usize, p: usize) {
        self.table[h & self.mask] = p as u16;
    }

    /// The candidate position `p` (key `k`, slot `h`) finds in the table, key-checked: the
    /// general loop's, so Nvcomp's rule (an empty slot holds none).
    #[inline(always)]
    fn lookup(&self, p: usize, k: u32, h: usize) -> Option<usize> {
        let slot = self.table[h & self.mask];
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

    /// [`Self::common`] with `max ≤ LAZY_CAP`: 16-byte words (branch-free for bytes) when both
    /// ranges have `LAZY_CAP` elements of data; the lazy choice's mispredicted 8-byte loop exits
    /// cost more than all its other work.
    #[inline(always)]
    fn common_lazy(&self, a: usize, b: usize, max: usize) -> usize {
        let n = LAZY_CAP * W;
        let (Some(x), Some(y)) = (self.data.get(a * W..a * W + n), self.data.get(b * W..b * W + n)) else {
            return self.common(a, b, max);
        };
        let mut equal = 0;
        for (x, y) in x.chunks_exact(16).zip(y.chunks_exact(16)) {
            let d = u128::from_le_bytes(x.try_into().unwrap()) ^ u128::from_le_bytes(y.try_into().unwrap());
            equal += d.trailing_zeros() as usize / 8;
            if d != 0 {
                break;
            }
        }
        (equal / W).min(max)
    }

    /// Encodes the whole chunk into `sink`: [`Self::run_short`] where it applies (every Gpucomp
    /// segment), else the general loop (Nvcomp's rules only).
    pub(super) fn run(mut self, sink: &mut Sink) -> Result<(), Status> {
        let data = self.data;
        let tl = self.tl;
        if tl == 0 {
            return sink.sequence(0, 0, 0, 0);
        }
        if tl <= Self::MAX_DIST + 1 {
            return self.run_short(sink);
        }
        // Gpucomp encodes segments of at most SEGMENT bytes, all short: the general loop below is
        // the Nvcomp rules' only.
        debug_assert!(!G, "a Gpucomp segment of {tl} elements");
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
                let h = self.hash(k);
                *slot = h;
                if let Some(s) = set.find_or_insert(k, h & self.mask, t) {
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
            // 7.–10. extend, emit; 11. continue after the match
            let end = self.emit_match(sink, tok, Choice { lane: idx + first, src, lazy_len: 0 }, match_end)?;
            idx = end;
            tok = end;
        }
    }

    /// Steps 7–10 of a window whose match starts at position `choice.lane` from `choice.src`:
    /// extends it forward (by the lazy choice's length where that is below its cap, Gpucomp)
    /// and backward (Gpucomp), emits the sequence from `tok`, and inserts the positions inside
    /// the match (Gpucomp); returns the match's end.
    #[inline(always)]
    fn emit_match(&mut self, sink: &mut Sink, tok: usize, choice: Choice, match_end: usize) -> Result<usize, Status> {
        let data = self.data;
        let Choice { lane: mut pos, mut src, lazy_len } = choice;
        // 7. extend forward (Gpucomp: a lazy length below its cap is already the whole match)
        let mut ml = if G && lazy_len < (match_end - pos).min(LAZY_CAP) {
            lazy_len
        } else {
            self.common(src, pos, match_end - pos)
        };
        // 8. extend backward (Gpucomp)
        if G {
            while pos > tok && src > 0 && data.get((pos - 1) * W..pos * W) == data.get((src - 1) * W..src * W) {
                pos -= 1;
                src -= 1;
                ml += 1;
            }
        }
        // 9. emit
        sink.sequence(tok * W, pos * W, ml * W, (pos - src) * W)?;
        let end = pos + ml;
        // 10. insert the positions inside the match (Gpucomp)
        if G {
            // `end ≤ tl − END_LITERALS` keeps every key inside the data.
            let keys = data.get(pos * W..end * W + 3).unwrap_or_default();
            for (p, kb) in (pos..).zip(keys.windows(4).step_by(W)) {
                let h = self.hash(u32::from_le_bytes([kb[0], kb[1], kb[2], kb[3]]));
                self.insert(h, p);
            }
        }
        Ok(end)
    }

    /// Follows the chain of slot value `s` through this window's inserted lanes (positions
    /// `idx + lane · stride`; `prev` holds what each overwrote): `Ok` the lane whose key is `k`, else `Err`
    /// the slot's value at the window start. Only where positions are stored exactly
    /// ([`Self::run_short`]).
    #[inline(always)]
    fn chain(&self, mut s: u16, idx: usize, stride: usize, k: u32, prev: &[u16; LANES]) -> Result<usize, u16> {
        // EMPTY is above every position of such a chunk, and no lane sits at 0xFFFF.
        while s != EMPTY && s as usize >= idx {
            if self.key(s as usize) == k {
                return Ok(s as usize);
            }
            // Stride 1 (every window but those skipping) needs no division.
            let lane = if stride == 1 { s as usize - idx } else { (s as usize - idx) / stride };
            s = prev[lane % LANES];
        }
        Err(s)
    }

    /// The window-start candidate `s` of a lane with key `k` in a short chunk, key-checked:
    /// positions are exact and all in reach, so only emptiness and the key remain of
    /// [`Self::lookup`] (for Gpucomp, a slot value of 0xFFFF is never below the lane either).
    #[inline(always)]
    fn start_candidate(&self, s: u16, k: u32) -> Option<usize> {
        (s != EMPTY && self.key(s as usize) == k).then_some(s as usize)
    }

    /// Steps 3–4 of [`Self::run_short`] on the window of `nvalid` lanes `stride` apart from
    /// `idx`: the first lane with a candidate and the candidate (its slot and key kept in
    /// `lanes`), inserting the lanes before it as they are scanned; `None` when no lane has one,
    /// all of them then inserted.
    #[inline(always)]
    fn scan(&mut self, idx: usize, nvalid: usize, stride: usize, lanes: &mut Lanes) -> Option<(usize, usize)> {
        let Lanes { prev, hs, ks } = lanes;
        let data = self.data;
        let keys = data.get(idx * W..(idx + (nvalid - 1) * stride) * W + 4).unwrap_or_default();
        for (t, kb) in keys.windows(4).step_by(W * stride).enumerate() {
            let k = u32::from_le_bytes([kb[0], kb[1], kb[2], kb[3]]);
            let h = self.hash(k) & self.mask;
            let start = self.table[h];
            let found = match self.chain(start, idx, stride, k, prev) {
                Ok(s) => Some(s),
                Err(s) => self.start_candidate(s, k),
            };
            if let Some(s) = found {
                hs[t % LANES] = h;
                ks[t % LANES] = k;
                return Some((t, s));
            }
            prev[t % LANES] = start;
            self.table[h] = (idx + t * stride) as u16;
        }
        None
    }

    /// Both rule sets on a chunk of at most `MAX_DIST + 1` elements (every 64 KiB chunk), where a
    /// slot holds a position exactly and every position is in reach, so a window inserts its
    /// lanes as it scans them: a slot then holds a lane of this window (`≥ idx`) or its value
    /// at the window start, and `prev` keeps, per inserted lane, the value it overwrote. The
    /// lanes before the first candidate have distinct keys (a repeat would have been one), so
    /// a lane's in-window candidate among them is the one lane of its slot's chain with its
    /// key, and the chain's end is the window-start lookup; Gpucomp's lazy lanes also compare
    /// the keys of the lanes from the first candidate on, which are not inserted yet. Inserting
    /// lanes `0..f` while scanning and `f..c` after the choice leaves the table as steps 4 and
    /// 6 do. For Nvcomp, the bytes of [`Self::run`]'s general loop, without its window set (64
    /// KiB of stamps for 16384 slots) and second pass of inserts.
    fn run_short(mut self, sink: &mut Sink) -> Result<(), Status> {
        let tl = self.tl;
        let mut lanes = Lanes { prev: [EMPTY; LANES], hs: [0; LANES], ks: [0; LANES] };
        let mut idx = 0usize;
        let mut tok = 0usize;
        // Gpucomp: windows without a match since the last match (the skip rule).
        let mut misses = 0u32;
        loop {
            // 1. final literals
            if idx + Self::LAST_MATCH >= tl {
                return sink.sequence(tok * W, self.data.len(), 0, 0);
            }
            let stride = if G { skip_stride(misses) as usize } else { 1 };
            // A constant stride of 1 outside skipping: the window's positions fold (measured: 7 %
            // of the instructions on text with the stride a variable).
            let (next, matched) = if stride == 1 {
                self.window(sink, idx, tok, 1, &mut lanes)?
            } else {
                self.window(sink, idx, tok, stride, &mut lanes)?
            };
            idx = next;
            if matched {
                tok = next;
                misses = 0;
            } else {
                misses += 1;
            }
        }
    }

    /// Steps 2–11 of [`Self::run_short`]'s window at `idx` (literals pending from `tok`), lanes
    /// `stride` apart: the next window's start, and whether the window emitted a match.
    #[inline(always)]
    fn window(
        &mut self,
        sink: &mut Sink,
        idx: usize,
        tok: usize,
        stride: usize,
        lanes: &mut Lanes,
    ) -> Result<(usize, bool), Status> {
        let tl = self.tl;
        // 2.–4. the window and its first lane with a candidate, inserting the lanes before it
        let nvalid = Self::LANES.min((tl - idx - Self::LAST_MATCH).div_ceil(stride));
        let match_end = tl - Self::END_LITERALS;
        let Some((first, mut src)) = self.scan(idx, nvalid, stride, lanes) else {
            return Ok((idx + nvalid * stride, false));
        };
        let Lanes { prev, hs, ks } = lanes;
        // 5. lazy choice (Gpucomp)
        let mut lane = first;
        let mut best = 0;
        if G {
            let p = idx + first * stride;
            best = self.common_lazy(src, p, (match_end - p).min(LAZY_CAP));
            for t in first + 1..nvalid.min(first + 1 + LAZY_LANES) {
                let p = idx + t * stride;
                // Exact shortcut, as in `run`.
                if (match_end - p).min(LAZY_CAP) <= best + (t - first) {
                    break;
                }
                let k = self.key(p);
                let h = self.hash(k) & self.mask;
                hs[t % LANES] = h;
                ks[t % LANES] = k;
                let found = match self.chain(self.table[h], idx, stride, k, prev) {
                    Ok(s) => Some(s),
                    Err(s) => match (first..t).find(|&u| ks[u % LANES] == k) {
                        Some(u) => Some(idx + u * stride),
                        None => self.start_candidate(s, k),
                    },
                };
                let Some(c) = found else { continue };
                let len = self.common_lazy(c, p, (match_end - p).min(LAZY_CAP));
                if len > best + (t - first) {
                    best = len - (t - first);
                    lane = t;
                    src = c;
                }
            }
            // 6. insert the lanes from the first candidate to the chosen one
            for t in first..lane {
                self.table[hs[t % LANES]] = (idx + t * stride) as u16;
            }
        }
        // 7.–10. extend, emit, insert the match's positions; 11. continue after it
        let end = self.emit_match(
            sink,
            tok,
            Choice { lane: idx + lane * stride, src, lazy_len: best + (lane - first) },
            match_end,
        )?;
        Ok((end, true))
    }
}

/// [`Encoder::run_short`]'s lanes of a window: per lane, the slot value its insert overwrote
/// (`prev`), and from the first candidate on its slot (`hs`) and key (`ks`, Gpucomp).
struct Lanes {
    prev: [u16; LANES],
    hs: [usize; LANES],
    ks: [u32; LANES],
}
