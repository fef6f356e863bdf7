//! Phase 4: staged sub-chunks written to their final offsets, and after a spill the move of
//! the spilled ones from their scratch slots.

use super::mem::{load, store16, L2};
use super::{warp_sum, THREADS};
use crate::thread::{lane_here, thread_here};
use crate::Thread;

/// A warp writes its staged sub-chunk (`size` bytes at `stage`, zero-padded to 16) to `to`,
/// nothing past `room` bytes (a multiple of 16), one 16-byte store per lane and round, with L2
/// priority `h`.
#[inline(always)]
pub(super) unsafe fn write_staged<T: Thread>(t: &T, stage: *mut u8, size: usize, to: *mut u8, room: usize, h: L2) {
    let lane = lane_here(t) as usize;
    if lane < size.next_multiple_of(16) - size {
        *stage.add(size + lane) = 0;
    }
    t.sync_warp();
    put_pieces(t, stage, size, to, room, h);
    // The warp's next sub-chunk reuses the buffer.
    t.sync_warp();
}

/// A warp copies the 16-byte pieces of `len` staged bytes at `stage` to `to` ([`put16`]: none
/// past `room` bytes), one piece per lane and round.
#[inline(always)]
pub(super) unsafe fn put_pieces<T: Thread>(t: &T, stage: *const u8, len: usize, to: *mut u8, room: usize, h: L2) {
    let mut k = 16 * lane_here(t) as usize;
    if (to as usize).is_multiple_of(16) && len.next_multiple_of(16) <= room {
        // The usual case, every piece whole and aligned: a load and a store each (32-bit
        // offsets: `len` < 2^24).
        let (mut k, len) = (k as u32, len as u32);
        while k < len {
            store16(to.add(k as usize), *(stage.add(k as usize) as *const u128), h);
            k += 32 * 16;
        }
        return;
    }
    while k < len {
        put16(stage.add(k), to.add(k), room.saturating_sub(k), h);
        k += 32 * 16;
    }
}

/// For a warp: the stored bytes (each padded to 16) of sub-chunks `0 .. s` and the first of
/// `0 .. done` that spilled (`usize::MAX` if none); `s ≤ done ≤ MAX_SUB_CHUNKS`.
#[inline(always)]
pub(super) unsafe fn sub_chunks_before<T: Thread>(
    t: &T,
    sizes: *const u32,
    spilled: *const u8,
    s: usize,
    done: usize,
) -> (usize, usize) {
    let lane = lane_here(t) as usize;
    let mut below = 0;
    for j in [lane, lane + 32] {
        if j < s {
            below += (*sizes.add(j)).next_multiple_of(16);
        }
    }
    let lo = t.ballot(lane < done && *spilled.add(lane) != 0);
    let hi = t.ballot(lane + 32 < done && *spilled.add(lane + 32) != 0);
    let first = if lo != 0 {
        lo.trailing_zeros() as usize
    } else if hi != 0 {
        32 + hi.trailing_zeros() as usize
    } else {
        usize::MAX
    };
    (warp_sum(t, below) as usize, first)
}

/// Copies 16 bytes from the staging buffer to `dst` (one store when aligned, with L2 priority
/// `h`), none past `room` bytes.
#[inline(always)]
unsafe fn put16(from: *const u8, dst: *mut u8, room: usize, h: L2) {
    if room < 16 {
        return;
    }
    let v = *(from as *const u128);
    if (dst as usize).is_multiple_of(16) {
        store16(dst, v, h);
    } else {
        for b in 0..16 {
            *dst.add(b) = (v >> (8 * b)) as u8;
        }
    }
}

/// The block moves sub-chunks `subs` (`first .. nsub`, `first ≥ 1`; stored sizes `sizes`) down from
/// their slots (`full` bytes each from `data`) to their final offsets (each after the one
/// before, padded to 16 bytes), in one pass over the final bytes up to `end`: four 16-byte
/// pieces per thread and round, the loads and stores of a round separated by a barrier. Every
/// piece comes from at or above its final offset, so a round's loads read nothing an earlier
/// round stored.
#[inline(always)]
pub(super) unsafe fn move_down<T: Thread>(
    t: &T,
    dst: *mut u8,
    data: usize,
    end: usize,
    full: usize,
    sizes: *const u32,
    subs: core::ops::Range<usize>,
) {
    let (first, nsub) = (subs.start, subs.end);
    // Offsets in 32 bits (an output is below 2^25 bytes).
    let (data, end, full) = (data as u32, end as u32, full as u32);
    let tid = thread_here(t);
    let wide = (dst as usize).is_multiple_of(16);
    let padded = |s: usize| (*sizes.add(s)).next_multiple_of(16);
    // This thread's sub-chunk `s`: its pieces come from `shift` bytes above their final offset,
    // and the next sub-chunk starts at `bound` (or the last one ends there).
    let mut s = first;
    let mut base = data;
    for j in 0..first {
        base += padded(j);
    }
    let mut shift = data + first as u32 * full - base;
    let mut bound = base + padded(first);
    // The piece at final offset `at` (below `end`; a thread's pieces ascend). Whole pieces when
    // wide: a slot's bytes are a multiple of 16.
    let mut get = |at: u32| {
        if at >= end {
            return 0;
        }
        while at >= bound && s + 1 < nsub {
            shift += full - padded(s);
            s += 1;
            bound += padded(s);
        }
        let from = dst.add((at + shift) as usize);
        if wide {
            *(from as *const u128)
        } else {
            load(from, (end - at).min(16) as usize)
        }
    };
    let put = |at: u32, v: u128| {
        if at >= end {
            return;
        }
        let to = dst.add(at as usize);
        if wide && at + 16 <= end {
            *(to as *mut u128) = v;
        } else {
            for b in 0..(end - at).min(16) {
                *to.add(b as usize) = (v >> (8 * b)) as u8;
            }
        }
    };
    let step = 16 * THREADS as u32;
    while base < end {
        let at = base + 16 * tid;
        let v = [get(at), get(at + step), get(at + 2 * step), get(at + 3 * step)];
        t.sync_threads();
        put(at, v[0]);
        put(at + step, v[1]);
        put(at + 2 * step, v[2]);
        put(at + 3 * step, v[3]);
        base += 4 * step;
    }
}
