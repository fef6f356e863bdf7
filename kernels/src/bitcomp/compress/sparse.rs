//! Algorithm 1 (sparse): the bitmap's nonzero bytes and the L0 / L1 / L2 levels that place them.
use super::{eq_bits, ld, pad, zero_bytes32, BITMAP_WORDS, BLOCK_SIZE, REGION};
use crate::warp::warp_scan;
use crate::Thread;

/// Algorithm 1: stages the payload of the bitmap; its length and the length of its head (L0,
/// L1 and L2, staged at [`sparse_head`]; L3 and the zero padding follow at the bitmap's
/// front), or `None` for a raw block.
///
/// Pass 1: lane `l` takes L0 region `l` (its L1 word and nonzero byte count), a ballot gives
/// L0. Pass 2 walks the nonempty regions in order, lane `l` taking the region's 8-byte group
/// `l`: one warp scan places its nonzero bytes, which move down in place (a byte's L3 index
/// never exceeds its bitmap position, so no load follows a store to its byte; the warp syncs
/// between a region's loads and stores when the stores can reach a byte loaded since the last
/// sync, as in the default walk); the L2 bytes go to the token buffer `tk`, and once the
/// bitmap is read, to the head.
#[inline(always)]
pub(super) unsafe fn sparse_block<T: Thread>(t: &T, bm: *mut u8, tk: *mut u8) -> Option<(usize, usize)> {
    let lane = t.lane() as usize;
    let seg = REGION * lane;
    let mut l1 = 0u32;
    let mut zeros = 0u32;
    for m in 0..32 {
        let (a, b) = (ld(bm, seg + 8 * m), ld(bm, seg + 8 * m + 4));
        l1 |= ((a | b != 0) as u32) << m;
        zeros += zero_bytes32(a).count_ones() + zero_bytes32(b).count_ones();
    }
    let l0 = t.ballot(l1 != 0);
    let (_, n2) = warp_scan(t, l1.count_ones());
    let (_, n3) = warp_scan(t, REGION as u32 - zeros);
    let pos2 = 4 + 4 * l0.count_ones() as usize;
    let head = pos2 + n2 as usize;
    let len = head + n3 as usize;
    let plen = len.next_multiple_of(4);
    if plen >= BLOCK_SIZE {
        return None;
    }
    let (mut k2, mut k3) = (0usize, 0usize);
    // The lowest bitmap address loaded since the last warp sync (pass 1 loaded all of it).
    let mut guard = 0usize;
    for r in 0..32 {
        let l1r = t.shfl_idx(l1, r);
        if l1r == 0 {
            continue;
        }
        let g = REGION * r as usize + 8 * lane;
        let v = ld(bm, g) as u64 | (ld(bm, g + 4) as u64) << 32;
        guard = guard.min(pad(REGION * r as usize));
        let nz = !eq_bits(v, 0) & 0xff;
        let (o, n) = warp_scan(t, nz.count_ones());
        // The stores (bytes `k3..k3 + n`) may overwrite bytes other lanes loaded: shuffles do
        // not order shared memory.
        if k3 + n as usize > guard {
            t.sync_warp();
            guard = usize::MAX;
        }
        if nz != 0 {
            *tk.add(k2 + (l1r & t.lanemask_lt()).count_ones() as usize) = nz as u8;
            let mut q = k3 + o as usize;
            for b in 0..8 {
                if (nz >> b) & 1 != 0 {
                    *bm.add(q) = (v >> (8 * b)) as u8;
                    q += 1;
                }
            }
        }
        k2 += l1r.count_ones() as usize;
        k3 += n as usize;
    }
    // The head goes to the top of the bitmap, above L3 (`len` < 8192): L0, the L1 words from
    // the lanes, the L2 bytes from `tk`.
    t.sync_warp();
    let hd = sparse_head(bm, head);
    if lane == 0 {
        *(hd as *mut u32) = l0;
    }
    if l1 != 0 {
        *(hd as *mut u32).add(1 + (l0 & t.lanemask_lt()).count_ones() as usize) = l1;
    }
    let mut j = lane;
    while j < n2 as usize {
        *hd.add(pos2 + j) = *tk.add(j);
        j += 32;
    }
    if len + lane < plen {
        *bm.add(n3 as usize + lane) = 0;
    }
    Some((plen, head))
}

/// Where a sparse block's head of `head` bytes is staged: 4-aligned, at the top of the bitmap.
#[inline(always)]
pub(super) unsafe fn sparse_head(bm: *mut u8, head: usize) -> *mut u8 {
    bm.add((4 * BITMAP_WORDS - head) & !3)
}
