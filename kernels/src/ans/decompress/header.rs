//! The chunk header: read and checked by thread 0 into shared memory ([`Chunk`]), then read
//! field by field where each is used ([`Hd`]).

use super::{HEADER, MAX_CHUNK};

/// What the header says, checked as the CPU reference's `ChunkHeader::read` and `Layout::new`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Header {
    pub(super) n: u32,
    pub(super) sc: u32,
    pub(super) mn: u32,
    pub(super) entries: u32,
    pub(super) pb: u32,
    /// 0 bytes, 1 FLOAT16, 2 FLOAT8 E4M3, 3 FLOAT32.
    pub(super) mode: u32,
    pub(super) spl: u32,
    pub(super) nsub: u32,
    /// Offsets of the raw section, the table and the first sub-chunk (below 2^28).
    pub(super) raw: u32,
    pub(super) table: u32,
    pub(super) data: u32,
}

/// A chunk's header and buffers, kept in shared memory for the sub-chunk walk.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Chunk {
    pub(super) h: Header,
    /// The input and output pointers as addresses (shared memory is `Sync`).
    pub(super) src: usize,
    pub(super) out: usize,
    pub(super) len: u64,
    /// 1 when the header is valid for the chunk's buffers.
    pub(super) ok: u32,
}

/// The block's [`Chunk`] in shared memory, each field read where it is used (volatile loads):
/// kept in registers across the decode loops, these 14 values cost registers that 7 blocks per
/// SM (72 registers) cannot spare.
#[derive(Clone, Copy)]
pub(super) struct Hd(pub(super) *const Chunk);

impl Hd {
    #[inline(always)]
    pub(super) fn src(self) -> *const u8 {
        self.src_at() as *const u8
    }

    #[inline(always)]
    pub(super) fn out(self) -> *mut u8 {
        self.out_at() as *mut u8
    }

    /// The whole header (for the table code, which uses most of it).
    #[inline(always)]
    pub(super) fn get(self) -> Header {
        // SAFETY: as for the fields.
        unsafe { core::ptr::read_volatile(&raw const (*self.0).h) }
    }
}

macro_rules! hd_fields {
    ($($name:ident: $ty:ty = $($path:ident).+;)*) => {
        impl Hd {
            $(
                #[inline(always)]
                pub(super) fn $name(self) -> $ty {
                    // SAFETY: `self.0` is the block's shared `Chunk`, written before the barrier
                    // that precedes every read and not written again before the chunk's last one.
                    unsafe { core::ptr::read_volatile(&raw const (*self.0).$($path).+) }
                }
            )*
        }
    };
}

hd_fields! {
    n: u32 = h.n;
    sc: u32 = h.sc;
    mn: u32 = h.mn;
    entries: u32 = h.entries;
    pb: u32 = h.pb;
    nsub: u32 = h.nsub;
    mode: u32 = h.mode;
    spl: u32 = h.spl;
    ok: u32 = ok;
    raw: u32 = h.raw;
    data: u32 = h.data;
    src_at: usize = src;
    out_at: usize = out;
    len: u64 = len;
}

/// Input bytes per symbol of a mode.
#[inline(always)]
pub(super) fn bytes_per_symbol(mode: u32) -> u32 {
    match mode {
        0 => 1,
        1 | 2 => 2,
        _ => 4,
    }
}

#[inline(always)]
pub(super) unsafe fn rd_u32(p: *const u8) -> u32 {
    u32::from_le_bytes([*p, *p.add(1), *p.add(2), *p.add(3)])
}

/// Reads and checks the fixed header (every check of `ChunkHeader::read`); `None` when corrupt.
///
/// # Safety
/// `src` is valid for `len` bytes.
#[inline(always)]
pub(in crate::ans) unsafe fn read_header(src: *const u8, len: u64) -> Option<(u32, u32, u32, u32, u32, u32, u32)> {
    if len < HEADER || src.is_null() {
        return None;
    }
    let v = header_fields(src);
    if header_ok(v) {
        Some(v)
    } else {
        None
    }
}

/// The fixed header's fields `(n, sc, min, max, pb, mode, spl)` of a header inside the input.
#[inline(always)]
unsafe fn header_fields(src: *const u8) -> (u32, u32, u32, u32, u32, u32, u32) {
    let (n, sc) = (rd_u32(src), rd_u32(src.add(4)));
    let (mn, mx, pb, mode) = (*src.add(8) as u32, *src.add(9) as u32, *src.add(10) as u32, *src.add(11) as u32);
    (n, sc, mn, mx, pb, mode, rd_u32(src.add(12)))
}

/// Every check of `ChunkHeader::read` on the fields of [`header_fields`].
#[inline(always)]
fn header_ok((n, sc, mn, mx, pb, mode, spl): (u32, u32, u32, u32, u32, u32, u32)) -> bool {
    if mode > 3 {
        return false;
    }
    let w = bytes_per_symbol(mode);
    (spl == 1 || spl == 2)
        && pb <= 16
        && mn <= mx
        && n as u64 <= MAX_CHUNK
        && sc > 0
        && sc % w == 0
        && (mode != 1 || n % 2 == 0)
        && (mode != 3 || n % 4 == 0)
}

/// The header and the layout of the parts after it, all inside `len`, with the chunk's buffers,
/// written to `c` when valid (`n ≤ cap`, a null output only for an empty chunk) and `c.ok` set;
/// nothing written otherwise. (Stored where every field is defined: an `Option<Header>` that
/// is `None` on some paths becomes undefined registers that LLVM carries around the chunk loop
/// and ptxas spills.)
#[inline(always)]
pub(super) unsafe fn parse(c: *mut Chunk, src: *const u8, len: u64, out: *mut u8, cap: u64) {
    if len < HEADER || src.is_null() {
        return;
    }
    let v = header_fields(src);
    if !header_ok(v) {
        return;
    }
    let (n, sc, mn, mx, pb, mode, spl) = v;
    let nsub = n.div_ceil(sc);
    let mut off = HEADER + 4 * nsub as u64;
    if off > len || n as u64 > cap || (out.is_null() && n > 0) {
        return;
    }
    let mut raw = off;
    if mode != 0 {
        off = off.next_multiple_of(8);
        raw = off;
        off += match mode {
            1 => n as u64 / 2,
            2 => (n as u64).div_ceil(2),
            _ => n as u64 / 4 * 3,
        };
        off += off & 1;
    }
    let entries = mx - mn + 1;
    let table = off;
    off += 2 * entries as u64;
    if off > len {
        return;
    }
    // Every offset is below 2^28 (n, nsub ≤ 2^25, entries ≤ 256).
    let h = Header {
        n,
        sc,
        mn,
        entries,
        pb,
        mode,
        spl,
        nsub,
        raw: raw as u32,
        table: table as u32,
        data: off.next_multiple_of(16) as u32,
    };
    *c = Chunk { h, src: src as usize, out: out as usize, len, ok: 1 };
}
