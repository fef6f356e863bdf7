//! Global-memory accesses of the LZ4 kernels.
//!
//! Chunk pointers come from device arrays, so LLVM sees generic pointers and would emit generic
//! `ld`/`st`; on the GPU these helpers use `ld.global`/`st.global` explicitly (and the read-only
//! path `ld.global.nc` for chunk inputs, which no kernel writes). On the host they are plain
//! pointer accesses, which the simulator needs.
//!
//! # Safety (all functions)
//! The pointer must be valid for the access: in bounds of a live device (or host) buffer, and
//! 16-byte aligned for [`load16_nc`] and [`store16`], 4-byte aligned for [`load4_nc`].

#[cfg(target_arch = "nvptx64")]
use crate::asm;

/// One byte of global memory that this kernel may have written, zero-extended.
#[inline(always)]
pub unsafe fn load_u8(p: *const u8) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        // Not `pure`: the load must stay behind the warp barrier that publishes other lanes' stores.
        asm::ld_global_u8(p)
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
        asm::ld_global_nc_u8(p)
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
        asm::ld_global_nc_u32(p)
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
        asm::ld_global_nc_v4!(p => a, b, c, d);
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
    asm::prefetch_l1(p);
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = p;
}

/// Stores the low byte of `v`.
#[inline(always)]
pub unsafe fn store_u8(p: *mut u8, v: u32) {
    #[cfg(target_arch = "nvptx64")]
    asm::st_global_u8(p, v);
    #[cfg(not(target_arch = "nvptx64"))]
    p.write(v as u8);
}

/// Stores 16 aligned bytes, four little-endian words.
#[inline(always)]
pub unsafe fn store16(p: *mut u8, v: [u32; 4]) {
    #[cfg(target_arch = "nvptx64")]
    asm::st_global_v4_u32(p, v);
    #[cfg(not(target_arch = "nvptx64"))]
    p.cast::<[u32; 4]>().write(v.map(u32::to_le));
}
