//! The in-window duplicate search of step 3: which earlier lane of the window has the same key
//! (on the GPU, `__match_any_sync`).

/// Lanes of a warp.
const LANES: usize = 32;

/// Exact in-window duplicate search indexed by the main table's hash: equal keys share a slot, so
/// the first lane of the window in a key's slot bounds the search for its smallest equal lane
/// from below. Slots are stamped with the window number, so no clearing between windows. Sharing
/// the main hash replaced a 64-entry probed set (one hash and a mispredicted probe loop per lane).
pub(super) struct WindowSet {
    /// Per hash slot: `window << 5 | lane`, the first lane of window `window` with that slot.
    first: Vec<u32>,
    /// The keys of this window's lanes so far.
    keys: [u32; LANES],
    /// `window << 5` of the current window (windows count from 1; a chunk has at most 2^24).
    stamp: u32,
}

impl WindowSet {
    /// A set for hash values below `slots`.
    pub(super) fn new(slots: usize) -> Self {
        WindowSet { first: vec![0; slots], keys: [0; LANES], stamp: 0 }
    }

    #[inline(always)]
    pub(super) fn next_window(&mut self) {
        self.stamp = self.stamp.wrapping_add(LANES as u32);
        if self.stamp == 0 {
            // Unreachable for chunks up to 2^24 elements; kept exact for any length.
            self.first.fill(0);
            self.stamp = LANES as u32;
        }
    }

    /// The smallest earlier lane of this window whose key equals `k` (hash slot `h`), recording
    /// `k` at `lane`. Lanes of a window are passed in order 0, 1, 2, ….
    #[inline(always)]
    pub(super) fn find_or_insert(&mut self, k: u32, h: usize, lane: usize) -> Option<usize> {
        let lane = lane % LANES;
        self.keys[lane] = k;
        let e = &mut self.first[h];
        if *e & !(LANES as u32 - 1) != self.stamp {
            *e = self.stamp | lane as u32;
            return None;
        }
        let s0 = (*e as usize % LANES).min(lane);
        self.keys[s0..lane].iter().position(|&x| x == k).map(|i| s0 + i)
    }
}
