//! The compressor's per-warp hash table in shared memory: `size` slots of 16 bits, each holding
//! the low 16 bits of the last element position whose key hashed there, [`EMPTY`] when none.
use crate::Thread;

/// An empty slot. A position whose low 16 bits are 0xFFFF reads back as empty, as in nvCOMP.
pub const EMPTY: u32 = 0xFFFF;
/// Largest table, in slots (128 KiB of shared memory).
pub const MAX_SLOTS: u32 = 1 << 16;
/// Shared memory of one warp's table of `size` slots, padded to 16 bytes (sizes the kernel
/// rejects, 0 or above [`MAX_SLOTS`], count as the nearest valid one).
pub const fn warp_bytes(size: u32) -> u32 {
    let size = if size > MAX_SLOTS { MAX_SLOTS } else { size };
    let bytes = (2 * size).next_multiple_of(16);
    if bytes < 16 {
        16
    } else {
        bytes
    }
}

/// A warp's table: `size` (a power of two) `u16` slots.
pub struct HashTable {
    slots: *mut u16,
    mask: u32,
    /// `32 - log2(size)`, for the multiplicative hash.
    shift: u32,
}

impl HashTable {
    /// The table of `size` slots (a power of two) at `base`.
    ///
    /// # Safety
    /// `base` is 16-byte aligned and points to [`warp_bytes`]`(size)` bytes of this warp's
    /// shared memory.
    #[inline(always)]
    pub unsafe fn new(base: *mut u8, size: u32) -> Self {
        HashTable { slots: base.cast(), mask: size - 1, shift: 32 - size.trailing_zeros() }
    }

    /// The slot of a 4-byte key: nvCOMP's hash `(bitreverse(k) + (k ^ 0xC375)) mod size`, or
    /// with `G` (gpucomp) the top bits of `k · 0x9E3779B1` (slot 0 for a one-slot table).
    #[inline(always)]
    pub fn slot<const G: bool>(&self, key: u32) -> u32 {
        if G {
            key.wrapping_mul(0x9E37_79B1).checked_shr(self.shift).unwrap_or(0)
        } else {
            key.reverse_bits().wrapping_add(key ^ 0xC375) & self.mask
        }
    }

    /// Marks every slot empty (all lanes together; followed by a warp barrier).
    #[inline(always)]
    pub fn clear<T: Thread>(&self, t: &T) {
        let size = self.mask + 1;
        // SAFETY (both branches): every index is below `size`; rows are 16-byte aligned.
        if size >= 8 {
            let rows = self.slots.cast::<[u32; 4]>();
            let mut i = t.lane();
            while i < size / 8 {
                unsafe { rows.add(i as usize).write([u32::MAX; 4]) };
                i += 32;
            }
        } else if t.lane() < size {
            unsafe { self.slots.add(t.lane() as usize).write(EMPTY as u16) };
        }
        t.sync_warp();
    }

    /// The slot's content.
    #[inline(always)]
    pub fn get(&self, slot: u32) -> u32 {
        // SAFETY: `slot` comes from `Self::slot`, so it is below the table size.
        unsafe { self.slots.add(slot as usize).read() as u32 }
    }

    /// Stores `pos` (its low 16 bits) in `slot`, where no other lane stores to `slot` at once.
    #[inline(always)]
    pub fn set(&self, slot: u32, pos: u32) {
        // SAFETY: as in `get`.
        unsafe { self.slots.add(slot as usize).write(pos as u16) };
    }

    /// Stores the positions of one window (all lanes together; `pos` grows with the lane):
    /// every lane with `store` set offers `pos` (its low 16 bits) for `slot`, and of the lanes
    /// offering one slot only the highest stores (the latest position, nvCOMP's sequential
    /// rule), so no two lanes store to one slot at once. Follows a warp barrier after the
    /// window's lookups; the next lookups of the table need one after it.
    #[inline(always)]
    pub fn set_window<T: Thread>(&self, t: &T, slot: u32, pos: u32, store: bool) {
        // Lanes that do not store offer no slot (slots are below 2^16).
        let group = t.match_any(if store { slot } else { u32::MAX });
        if store & (group >> t.lane() == 1) {
            self.set(slot, pos);
        }
    }
}
