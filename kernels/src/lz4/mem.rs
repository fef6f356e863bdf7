//! Global-memory accesses of the LZ4 kernels.
//!
//! Chunk pointers come from device arrays, so LLVM sees generic pointers and would emit generic
//! `ld`/`st`; on the GPU these helpers use `ld.global`/`st.global` explicitly (and the read-only
//! path `ld.global.nc` for chunk inputs, which no kernel writes). On the host they are plain
//! pointer accesses, which the simulator needs.
//!
//! # Safety (all functions)
//! The pointer must be valid for the access: in bounds of a live device (or host) buffer, and
//! 16-byte aligned for [`load16_nc`], 4-byte aligned for [`load4_nc`].

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

/// One byte of global memory that this kernel may have written, zero-extended.
#[inline(always)]
pub unsafe fn load_u8(p: *const u8) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // No `pure`: the load must stay behind the warp barrier that publishes other lanes' stores.
        asm!("ld.global.u8 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p, options(nostack, readonly));
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        p.read() as u32
    }
}

/// One byte of a read-only input buffer, zero-extended.
#[inline(always)]
pub unsafe fn load_u8_nc(p: *const u8) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        asm!("ld.global.nc.u8 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p, options(pure, readonly, nostack));
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        p.read() as u32
    }
}

/// An aligned little-endian word of a read-only input buffer.
#[inline(always)]
pub unsafe fn load4_nc(p: *const u8) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        asm!("ld.global.nc.u32 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p, options(pure, readonly, nostack));
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        u32::from_le(p.cast::<u32>().read())
    }
}

/// 16 aligned bytes of a read-only input buffer, as four little-endian words.
#[inline(always)]
pub unsafe fn load16_nc(p: *const u8) -> [u32; 4] {
    #[cfg(target_arch = "nvptx64")]
    {
        let (a, b, c, d): (u32, u32, u32, u32);
        asm!("ld.global.nc.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
             a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d, p = in(reg64) p,
             options(pure, readonly, nostack));
        [a, b, c, d]
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        p.cast::<[u32; 4]>().read().map(u32::from_le)
    }
}

/// Hints that the line holding `p` will be read soon (no effect in the simulator).
#[inline(always)]
pub unsafe fn prefetch(p: *const u8) {
    #[cfg(target_arch = "nvptx64")]
    asm!("prefetch.global.L1 [{p}];", p = in(reg64) p, options(nostack, readonly, preserves_flags));
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = p;
}

/// Stores the low byte of `v`.
#[inline(always)]
pub unsafe fn store_u8(p: *mut u8, v: u32) {
    #[cfg(target_arch = "nvptx64")]
    asm!("st.global.u8 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack));
    #[cfg(not(target_arch = "nvptx64"))]
    p.write(v as u8);
}
