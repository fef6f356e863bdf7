//! A warp's ring of word pages in shared memory: pages loaded from the sub-chunk's word region
//! and stored as word pairs, and the loads of a word or a pair.

use super::{PAGE, RING_BYTES};
use crate::bits::prmt;
use crate::Thread;

/// Loads lane `lane`'s 16 bytes of word page `page` (zeros past the word region's end `wend`) of
/// a 16-byte aligned sub-chunk.
#[inline(always)]
pub(super) unsafe fn load_page(sub: *const u8, wend: u32, page: u32, lane: u32) -> u128 {
    let b = page * PAGE + 16 * lane;
    if b < wend {
        // The 16-byte block ends at most 14 bytes past `wend`, inside the final states.
        *(sub.add(b as usize) as *const u128)
    } else {
        0
    }
}

/// Stores a lane's 16 bytes (8 words) of word page `page` into the warp's ring, each word
/// with the one above it (by the whole warp). The page's last word takes the first of page
/// `page + 1` from the ring (stored before it; above the top page, none is read).
#[inline(always)]
pub(super) unsafe fn store_page<T: Thread>(t: &T, ring: *mut u8, page: u32, lane: u32, v: u128) {
    let a = [v as u32, (v >> 32) as u32, (v >> 64) as u32, (v >> 96) as u32];
    // The next lane's first word, in the low half.
    let up = t.shfl_down(a[0], 1);
    let above = if lane == 31 { *(ring.add((((page + 1) & 1) * PAGE * 2) as usize) as *const u16) as u32 } else { up };
    // Entry i: word i | word i + 1 << 16.
    let e0 = [a[0], prmt(a[0], a[1], 0x5432), a[1], prmt(a[1], a[2], 0x5432)];
    let e1 = [a[2], prmt(a[2], a[3], 0x5432), a[3], prmt(a[3], above, 0x5432)];
    let at = ring.add(((page & 1) * PAGE * 2 + 32 * lane) as usize);
    let wide = |e: [u32; 4]| e[0] as u128 | (e[1] as u128) << 32 | (e[2] as u128) << 64 | (e[3] as u128) << 96;
    *(at as *mut u128) = wide(e0);
    *(at.add(16) as *mut u128) = wide(e1);
    if page == 0 && lane == 0 {
        // Word 0 also in the high half of the entry below it (the ring's last, page 1's top
        // entry, whose own high half is read no more): state 0 reads it there when it takes
        // the last word.
        *(ring.add(RING_BYTES as usize - 2) as *mut u16) = a[0] as u16;
    }
}

/// The shared-window address of a pointer into shared memory (on the CPU: its low 32 bits, which
/// have the same alignment).
#[inline(always)]
pub(super) fn shared_addr(p: *const u8) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::asm::shared_address(p)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        p as usize as u32
    }
}

/// The word at (even) byte `pos` of the word region (`pos mod RING` in the warp's ring).
#[inline(always)]
pub(super) unsafe fn ring_word(ring: *const u8, ring_sa: u32, pos: u32) -> u32 {
    ring_pair(ring, ring_sa, pos) & 0xffff
}

/// The words at (even) bytes `pos` and `pos + 2` of the word region, as `word(pos) |
/// word(pos + 2) << 16`, from the warp's ring.
#[inline(always)]
unsafe fn ring_pair(ring: *const u8, ring_sa: u32, pos: u32) -> u32 {
    ring_entry(ring, ring_sa, pos << 1)
}

/// The ring entry at byte `at mod RING_BYTES` (`at` = twice a word's position) of a warp's ring
/// (`ring`, at shared address `ring_sa`, a multiple of `RING_BYTES`): on the GPU one LOP3 and
/// one LDS with a 32-bit shared address.
#[inline(always)]
pub(super) unsafe fn ring_entry(ring: *const u8, ring_sa: u32, at: u32) -> u32 {
    let at = at & (RING_BYTES - 4);
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = ring;
        // SAFETY: `ring_sa | at` lies inside the warp's ring.
        crate::asm::ld_shared_u32(at | ring_sa)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = ring_sa;
        *(ring.add(at as usize) as *const u32)
    }
}
