//! Global-memory access of the compression kernels: loads and stores of any width and
//! alignment, and the L2 eviction priorities of the input's second read and of the output.

#[cfg(target_arch = "nvptx64")]
use crate::asm;

/// The `k`-bytes little-endian value at `p` (`k ≤ 16`), one load when `p` is `k`-aligned and
/// `k` a power of two.
#[inline(always)]
pub(super) unsafe fn load(p: *const u8, k: usize) -> u128 {
    // A mask, not `%`: `k` is not a constant here, and a 64-bit remainder is a ~70-instruction call.
    if k.is_power_of_two() && (p as usize) & (k - 1) == 0 {
        match k {
            16 => return u128::from_le(*(p as *const u128)),
            8 => return u64::from_le(*(p as *const u64)) as u128,
            4 => return u32::from_le(*(p as *const u32)) as u128,
            2 => return u16::from_le(*(p as *const u16)) as u128,
            _ => {}
        }
    }
    let mut v = 0u128;
    for i in 0..k {
        v |= (*p.add(i) as u128) << (8 * i);
    }
    v
}

/// Stores the low `k` bytes of `v` at `p` (one store when `p` is `k`-aligned, `k` 2, 4 or 8).
#[inline(always)]
pub(super) unsafe fn store(p: *mut u8, v: u64, k: usize) {
    if k.is_power_of_two() && (p as usize) & (k - 1) == 0 {
        match k {
            8 => return *(p as *mut u64) = v.to_le(),
            4 => return *(p as *mut u32) = (v as u32).to_le(),
            2 => return *(p as *mut u16) = (v as u16).to_le(),
            _ => {}
        }
    }
    for i in 0..k {
        *p.add(i) = (v >> (8 * i)) as u8;
    }
}

/// Orders this thread's memory accesses before the call before those after it for every
/// thread of the GPU (`fence.acq_rel.gpu`): the release before a block's count in its chunk's
/// word and the acquire after it.
#[inline(always)]
pub(super) fn fence_gpu() {
    #[cfg(target_arch = "nvptx64")]
    asm::fence_acq_rel_gpu();
    #[cfg(not(target_arch = "nvptx64"))]
    core::sync::atomic::fence(core::sync::atomic::Ordering::AcqRel);
}

/// Stores `v` at `dst` (16-byte aligned) with L2 priority `h`.
#[inline(always)]
pub(super) unsafe fn store16(dst: *mut u8, v: u128, h: L2) {
    if h == L2::EvictFirst {
        st16_last(dst, v);
    } else {
        *(dst as *mut u128) = v;
    }
}

/// L2 eviction priority of a global access: `EvictFirst` for data the kernel does not read
/// again (the input's second read, the output), so that the input read once by the histogram
/// stays in L2 for the encode. The hints need PTX 7.4 (`createpolicy`, `.L2::cache_hint`): the
/// sm_80 build (PTX 7.0) makes plain accesses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum L2 {
    Normal,
    EvictFirst,
}

/// Stores `v` at `p` (16-byte aligned), bytes the kernel does not read again: L2 evict_first.
#[inline(always)]
unsafe fn st16_last(p: *mut u8, v: u128) {
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
    asm::sm90::st_global_v4_evict_first(p, v);
    #[cfg(not(all(target_arch = "nvptx64", target_feature = "sm_90")))]
    {
        *(p as *mut u128) = v;
    }
}

/// Stores `v` at `p` (8-byte aligned, little-endian), bytes the kernel does not read again: L2
/// evict_first.
#[inline(always)]
pub(super) unsafe fn st8_last(p: *mut u8, v: u64) {
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
    asm::sm90::st_global_v2_evict_first(p, v);
    #[cfg(not(all(target_arch = "nvptx64", target_feature = "sm_90")))]
    {
        *(p as *mut u64) = v.to_le();
    }
}

/// `B · BPS` (8 or 16) aligned input bytes: a lane's symbol bytes of a whole tile, or a
/// histogram group (one load through the read-only path: no kernel writes the input). On sm_90
/// the loads do not allocate in L1: the input is read once from there, and what L1 keeps
/// beside the shared memory is the spilled registers (FLOAT16 +2.5 %).
#[inline(always)]
pub(super) unsafe fn load_tile<const BPS: usize, const B: usize>(p: *const u8, h: L2) -> [u32; 4] {
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
    {
        use asm::sm90::*;
        let (a, b, c, d): (u32, u32, u32, u32);
        match (B * BPS == 8, h) {
            (true, L2::EvictFirst) => {
                ld_global_nc_na_v2_evict_first!(p => a, b);
                (c, d) = (0, 0);
            }
            (true, L2::Normal) => {
                ld_global_nc_na_v2!(p => a, b);
                (c, d) = (0, 0);
            }
            (false, L2::EvictFirst) => ld_global_nc_na_v4_evict_first!(p => a, b, c, d),
            (false, L2::Normal) => ld_global_nc_na_v4!(p => a, b, c, d),
        }
        [a, b, c, d]
    }
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90")))]
    {
        let (a, b, c, d): (u32, u32, u32, u32);
        let _ = h;
        if B * BPS == 8 {
            asm::ld_global_nc_v2!(p => a, b);
            (c, d) = (0, 0);
        } else {
            asm::ld_global_nc_v4!(p => a, b, c, d);
        }
        [a, b, c, d]
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = h;
        let mut v = [0u32; 4];
        for (k, w) in v.iter_mut().take(B * BPS / 4).enumerate() {
            *w = u32::from_le(*(p as *const u32).add(k));
        }
        v
    }
}

/// Asks L2 for the line holding `p` (the input; no register, no wait).
#[inline(always)]
pub(super) unsafe fn prefetch_l2(p: *const u8) {
    #[cfg(target_arch = "nvptx64")]
    asm::prefetch_l2_in_order(p);
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = p;
}

/// The 16 bytes of [`load_tile`]'s words as one little-endian value.
#[inline(always)]
pub(super) fn tile_u128(v: [u32; 4]) -> u128 {
    v.iter().rev().fold(0u128, |a, &w| a << 32 | w as u128)
}
