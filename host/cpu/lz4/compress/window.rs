//! The in-window duplicate search of step 3: which earlier lane of the window has the same key
//! (on the GPU, `__match_any_sync`).

/// Tiny exact set of the keys of one window (up to 32), for in-window duplicates. Entries are
/// stamped with the window number, so no clearing between windows.
pub(super) struct WindowSet {
    stamp: [u32; 64],
    key: [u32; 64],
    lane: [u8; 64],
    gen: u32,
}

impl WindowSet {
    pub(super) fn new() -> Self {
        WindowSet { stamp: [0; 64], key: [0; 64], lane: [0; 64], gen: 0 }
    }

    #[inline(always)]
    pub(super) fn next_window(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.stamp = [0; 64];
            self.gen = 1;
        }
    }

    /// The lane of an earlier key equal to `k` in this window, else records `k` at `lane`.
    #[inline(always)]
    pub(super) fn find_or_insert(&mut self, k: u32, lane: usize) -> Option<usize> {
        let mut i = (k.wrapping_mul(0x9E37_79B1) >> 26) as usize;
        loop {
            if self.stamp[i] != self.gen {
                self.stamp[i] = self.gen;
                self.key[i] = k;
                self.lane[i] = lane as u8;
                return None;
            }
            if self.key[i] == k {
                return Some(self.lane[i] as usize);
            }
            i = (i + 1) & 63;
        }
    }
}
