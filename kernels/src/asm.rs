//! The crate's inline PTX, one instruction per function: what LLVM's intrinsics do not express
//! (cache hints, predicated stores, 32-bit shared addresses, special registers read where they
//! are used). Device builds only; each caller keeps its own host form, which the simulator runs.
//!
//! Every function is `#[inline(always)]` and emits exactly its instruction, so a call compiles to
//! the same PTX as the `asm!` written in place. The `options` are part of each contract: `pure`
//! lets LLVM merge or drop a call whose result is unused, `readonly` / `nomem` say what memory it
//! may touch; a load without `pure` stays where it is written (behind a barrier).
//!
//! # Safety (all `unsafe` functions)
//! The pointers must be valid for the access: in bounds of a live buffer in the named state space
//! (global or shared) and aligned for its width; a prefetch needs only an address in a buffer.
use core::arch::asm;

/// `%tid.x`, read afresh at each use (not `pure`: LLVM must not hoist it; see
/// [`crate::thread::thread_here`]).
#[inline(always)]
pub fn tid_x() -> u32 {
    let i: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {i}, %tid.x;", i = out(reg32) i, options(nomem, nostack)) };
    i
}

/// `%ntid.x`, read afresh at each use (as [`tid_x`]).
#[inline(always)]
pub fn ntid_x() -> u32 {
    let n: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {n}, %ntid.x;", n = out(reg32) n, options(nomem, nostack)) };
    n
}

/// `%laneid`, read afresh at each use (as [`tid_x`]).
#[inline(always)]
pub fn lane_id() -> u32 {
    let l: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {l}, %laneid;", l = out(reg32) l, options(nomem, nostack)) };
    l
}

/// `%ctaid.x`, read afresh at each use (as [`tid_x`]).
#[inline(always)]
pub fn ctaid_x() -> u32 {
    let b: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {b}, %ctaid.x;", b = out(reg32) b, options(nomem, nostack)) };
    b
}

/// `fence.acq_rel.gpu`: this thread's memory accesses before it are ordered before those after
/// it for every thread of the GPU (LLVM's `fence` is system-wide). No `nomem`: a compiler
/// barrier too.
#[inline(always)]
pub fn fence_acq_rel_gpu() {
    // SAFETY: a fence.
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack)) };
}

/// `v` through a register move that LLVM cannot see through (hides a counter from its loop
/// analysis).
#[inline(always)]
pub fn opaque(v: u32) -> u32 {
    let r: u32;
    // SAFETY: a register move.
    unsafe { asm!("mov.u32 {r}, {v};", r = out(reg32) r, v = in(reg32) v, options(pure, nomem, nostack)) };
    r
}

/// `a >> (c mod 32)`: one `shf.r.wrap`.
#[inline(always)]
pub fn shr_wrap(a: u32, c: u32) -> u32 {
    let d: u32;
    // SAFETY: a register-only funnel shift.
    unsafe {
        asm!("shf.r.wrap.b32 {d}, {a}, {z}, {c};", d = out(reg32) d, a = in(reg32) a,
            z = in(reg32) 0u32, c = in(reg32) c, options(pure, nomem, nostack));
    }
    d
}

/// The high word of `a · b`: one `mul.hi.u32` (from the 64-bit product ptxas makes a wide
/// multiply and a move).
#[inline(always)]
pub fn mul_hi(a: u32, b: u32) -> u32 {
    let d: u32;
    // SAFETY: a register-only multiply.
    unsafe {
        asm!("mul.hi.u32 {d}, {a}, {b};", d = out(reg32) d, a = in(reg32) a, b = in(reg32) b,
            options(pure, nomem, nostack));
    }
    d
}

/// The 32-bit shared-window address of `p`, a pointer into shared memory.
#[inline(always)]
pub fn shared_address(p: *const u8) -> u32 {
    let a: u64;
    // SAFETY: an address conversion, register-only.
    unsafe {
        asm!("cvta.to.shared.u64 {a}, {p};", a = out(reg64) a, p = in(reg64) p as u64,
            options(pure, nomem, nostack, preserves_flags));
    }
    a as u32
}

/// The `u32` at shared address `a`.
#[inline(always)]
pub unsafe fn ld_shared_u32(a: u32) -> u32 {
    let w: u32;
    // SAFETY: the caller passes the address of a word in this block's shared memory.
    unsafe {
        asm!("ld.shared.u32 {w}, [{a}];", w = out(reg32) w, a = in(reg32) a,
            options(pure, readonly, nostack, preserves_flags));
    }
    w
}

/// Where `emit`: stores the low 16 bits of `x` at shared address `at`, shifts `x` right by 16
/// and, if `advance`, moves `at` on by 2: three instructions predicated in place (written as a
/// branch, ptxas copied `x` and `at` through spare registers).
#[inline(always)]
pub unsafe fn emit_u16_shared(at: &mut u32, x: &mut u32, emit: bool, advance: bool) {
    // SAFETY: the caller passes a shared address with room for a `u16`.
    unsafe {
        if advance {
            asm!("{{ .reg .pred p; setp.ne.u32 p, {e}, 0; @p st.shared.u16 [{at}], {x}; \
                @p shr.u32 {x}, {x}, 16; @p add.u32 {at}, {at}, 2; }}",
                e = in(reg32) emit as u32, at = inout(reg32) *at, x = inout(reg32) *x, options(nostack));
        } else {
            asm!("{{ .reg .pred p; setp.ne.u32 p, {e}, 0; @p st.shared.u16 [{at}], {x}; \
                @p shr.u32 {x}, {x}, 16; }}",
                e = in(reg32) emit as u32, at = in(reg32) *at, x = inout(reg32) *x, options(nostack));
        }
    }
}

/// Asks L1 for the line holding `p`.
#[inline(always)]
pub unsafe fn prefetch_l1(p: *const u8) {
    // SAFETY: a hint; it reads nothing into the kernel and never faults.
    unsafe { asm!("prefetch.global.L1 [{p}];", p = in(reg64) p, options(nostack, readonly, preserves_flags)) };
}

/// Asks L2 for the line holding `p`.
#[inline(always)]
pub unsafe fn prefetch_l2(p: *const u8) {
    // SAFETY: a hint; it reads nothing into the kernel and never faults.
    unsafe { asm!("prefetch.global.L2 [{p}];", p = in(reg64) p, options(nostack, readonly, preserves_flags)) };
}

/// [`prefetch_l2`] that LLVM treats as a memory write (not `readonly`), so that no load or store
/// moves across it: the encode's tile loop keeps its layout around its prefetch.
#[inline(always)]
pub unsafe fn prefetch_l2_in_order(p: *const u8) {
    // SAFETY: a hint; it reads nothing into the kernel and never faults.
    unsafe { asm!("prefetch.global.L2 [{p}];", p = in(reg64) p, options(nostack, preserves_flags)) };
}

/// One byte of global memory, zero-extended; not `pure`, so that the load stays behind the
/// barrier that publishes other threads' stores.
#[inline(always)]
pub unsafe fn ld_global_u8(p: *const u8) -> u32 {
    let r: u32;
    // SAFETY: the caller passes a readable global address.
    unsafe { asm!("ld.global.u8 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p, options(nostack, readonly)) };
    r
}

/// One byte of a read-only global buffer (the non-coherent path), zero-extended.
#[inline(always)]
pub unsafe fn ld_global_nc_u8(p: *const u8) -> u32 {
    let r: u32;
    // SAFETY: the caller passes a readable global address that no thread of the launch writes.
    unsafe { asm!("ld.global.nc.u8 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p, options(pure, readonly, nostack)) };
    r
}

/// An aligned `u32` of a read-only global buffer.
#[inline(always)]
pub unsafe fn ld_global_nc_u32(p: *const u8) -> u32 {
    let r: u32;
    // SAFETY: as [`ld_global_nc_u8`], 4-byte aligned.
    unsafe {
        asm!("ld.global.nc.u32 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p, options(pure, readonly, nostack))
    };
    r
}

/// 8 aligned bytes of a read-only global buffer into the caller's two `u32` locals
/// (`ld_global_nc_v2!(p => a, b)`), in an `unsafe` context; as [`ld_global_nc_v4!`], 8-byte
/// aligned.
#[cfg(not(target_feature = "sm_90"))]
macro_rules! ld_global_nc_v2 {
    ($p:expr => $a:ident, $b:ident) => {
        core::arch::asm!("ld.global.nc.v2.u32 {{{a}, {b}}}, [{p}];",
            a = out(reg32) $a, b = out(reg32) $b, p = in(reg64) $p, options(pure, readonly, nostack))
    };
}
#[cfg(not(target_feature = "sm_90"))]
pub(crate) use ld_global_nc_v2;

/// 16 aligned bytes of a read-only global buffer into the caller's four `u32` locals
/// (`ld_global_nc_v4!(p => a, b, c, d)`), in an `unsafe` context; `p` as for
/// [`ld_global_nc_u8`], 16-byte aligned. A macro, as are the other 16-byte loads: returned from a
/// function, the loads changed how the histogram loop's registers are numbered in the PTX.
macro_rules! ld_global_nc_v4 {
    ($p:expr => $a:ident, $b:ident, $c:ident, $d:ident) => {
        core::arch::asm!("ld.global.nc.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
            a = out(reg32) $a, b = out(reg32) $b, c = out(reg32) $c, d = out(reg32) $d, p = in(reg64) $p,
            options(pure, readonly, nostack))
    };
}
pub(crate) use ld_global_nc_v4;

/// Stores the low byte of `v` to global memory.
#[inline(always)]
pub unsafe fn st_global_u8(p: *mut u8, v: u32) {
    // SAFETY: the caller passes a writable global address.
    unsafe { asm!("st.global.u8 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack)) };
}

/// Stores four `u32` to 16 aligned bytes of global memory.
#[inline(always)]
pub unsafe fn st_global_v4_u32(p: *mut u8, v: [u32; 4]) {
    // SAFETY: the caller passes a writable, 16-byte aligned global address.
    unsafe {
        asm!("st.global.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};", p = in(reg64) p,
            a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3], options(nostack))
    };
}

/// Cache hints of sm_90 builds (`createpolicy` and `.L2::cache_hint` need PTX 7.4; the sm_80
/// build is PTX 7.0).
#[cfg(target_feature = "sm_90")]
pub mod sm90 {
    use core::arch::asm;

    /// The L2 `evict_first` cache policy (a constant descriptor after ptxas).
    #[inline(always)]
    pub fn evict_first() -> u64 {
        let p: u64;
        // SAFETY: register-only.
        unsafe {
            asm!("createpolicy.fractional.L2::evict_first.b64 {p}, 1.0;", p = out(reg64) p,
                options(pure, nomem, nostack));
        }
        p
    }

    /// Stores 16 aligned bytes to global memory, L2 `evict_first`.
    #[inline(always)]
    pub unsafe fn st_global_v4_evict_first(p: *mut u8, v: u128) {
        // SAFETY: the caller passes a writable, 16-byte aligned global address.
        unsafe {
            asm!("st.global.L2::cache_hint.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}}, {h};",
                p = in(reg64) p, a = in(reg32) v as u32, b = in(reg32) (v >> 32) as u32,
                c = in(reg32) (v >> 64) as u32, d = in(reg32) (v >> 96) as u32, h = in(reg64) evict_first(),
                options(nostack));
        }
    }

    /// Stores 8 aligned bytes (little-endian) to global memory, L2 `evict_first`.
    #[inline(always)]
    pub unsafe fn st_global_v2_evict_first(p: *mut u8, v: u64) {
        // SAFETY: the caller passes a writable, 8-byte aligned global address.
        unsafe {
            asm!("st.global.L2::cache_hint.v2.u32 [{p}], {{{a}, {b}}}, {h};",
                p = in(reg64) p, a = in(reg32) v as u32, b = in(reg32) (v >> 32) as u32, h = in(reg64) evict_first(),
                options(nostack));
        }
    }

    /// [`ld_global_nc_v2!`](super::ld_global_nc_v2), not allocated in L1, L2 `evict_first`.
    macro_rules! ld_global_nc_na_v2_evict_first {
        ($p:expr => $a:ident, $b:ident) => {
            core::arch::asm!("ld.global.nc.L1::no_allocate.L2::cache_hint.v2.u32 {{{a}, {b}}}, [{p}], {h};",
                a = out(reg32) $a, b = out(reg32) $b, p = in(reg64) $p, h = in(reg64) $crate::asm::sm90::evict_first(),
                options(pure, readonly, nostack))
        };
    }
    pub(crate) use ld_global_nc_na_v2_evict_first;

    /// [`ld_global_nc_v2!`](super::ld_global_nc_v2), not allocated in L1.
    macro_rules! ld_global_nc_na_v2 {
        ($p:expr => $a:ident, $b:ident) => {
            core::arch::asm!("ld.global.nc.L1::no_allocate.v2.u32 {{{a}, {b}}}, [{p}];",
                a = out(reg32) $a, b = out(reg32) $b, p = in(reg64) $p, options(pure, readonly, nostack))
        };
    }
    pub(crate) use ld_global_nc_na_v2;

    /// [`ld_global_nc_v4!`](super::ld_global_nc_v4), not allocated in L1, L2 `evict_first`.
    macro_rules! ld_global_nc_na_v4_evict_first {
        ($p:expr => $a:ident, $b:ident, $c:ident, $d:ident) => {
            core::arch::asm!("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}], {h};",
                a = out(reg32) $a, b = out(reg32) $b, c = out(reg32) $c, d = out(reg32) $d, p = in(reg64) $p,
                h = in(reg64) $crate::asm::sm90::evict_first(), options(pure, readonly, nostack))
        };
    }
    pub(crate) use ld_global_nc_na_v4_evict_first;

    /// [`ld_global_nc_v4!`](super::ld_global_nc_v4), not allocated in L1.
    macro_rules! ld_global_nc_na_v4 {
        ($p:expr => $a:ident, $b:ident, $c:ident, $d:ident) => {
            core::arch::asm!("ld.global.nc.L1::no_allocate.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
                a = out(reg32) $a, b = out(reg32) $b, c = out(reg32) $c, d = out(reg32) $d, p = in(reg64) $p,
                options(pure, readonly, nostack))
        };
    }
    pub(crate) use ld_global_nc_na_v4;
}
