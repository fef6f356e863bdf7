//! Where the compressor reads its chunk: global memory ([`Global`], read-only path), or a copy
//! of the chunk that the warp staged in its shared memory ([`Shared`], see [`stage`]).
//!
//! The encoder is generic over the [`Source`], so each path is compiled on its own: the global
//! path's code is the same as before staging existed, and neither hot loop tests which memory it
//! reads.
//!
//! # Safety (all `Source` functions)
//! The pointer must be valid for the access in the source's memory (a chunk byte, or an aligned
//! word of the 4-byte aligned words that overlap the chunk).
use super::mem;
use crate::Thread;

/// The memory a chunk is read from.
pub trait Source {
    /// One byte, zero-extended.
    unsafe fn byte(p: *const u8) -> u32;
    /// An aligned little-endian word.
    unsafe fn word(p: *const u8) -> u32;
    /// Hints that the line holding `p` will be read soon.
    unsafe fn prefetch(p: *const u8);
}

/// The chunk in global memory, read through the read-only path.
pub enum Global {}

impl Source for Global {
    #[inline(always)]
    unsafe fn byte(p: *const u8) -> u32 {
        mem::load_u8_nc(p)
    }
    #[inline(always)]
    unsafe fn word(p: *const u8) -> u32 {
        mem::load4_nc(p)
    }
    #[inline(always)]
    unsafe fn prefetch(p: *const u8) {
        mem::prefetch(p)
    }
}

/// The chunk staged in this warp's shared memory ([`stage`]). Plain loads: the pointers derive
/// from the dynamic shared memory's base, so LLVM emits `ld.shared` for them.
pub enum Shared {}

impl Source for Shared {
    #[inline(always)]
    unsafe fn byte(p: *const u8) -> u32 {
        p.read() as u32
    }
    #[inline(always)]
    unsafe fn word(p: *const u8) -> u32 {
        u32::from_le(p.cast::<u32>().read())
    }
    /// Nothing to prefetch: shared memory has no cache.
    #[inline(always)]
    unsafe fn prefetch(_: *const u8) {}
}

/// Slack of a staging buffer beyond the chunk, bytes: the staged chunk keeps its address's
/// offset within 16 bytes (so that aligned words and 16-byte blocks correspond), and the last
/// word overlapping it may reach 3 bytes past its end.
pub const STAGE_SLACK: u32 = 16;

/// Copies the `n`-byte chunk at `inp` (global memory, `n > 0`) into the warp's staging buffer
/// `buf` and returns the staged chunk's address, `buf + inp mod 16`: every 4-byte aligned word
/// that overlaps the chunk is copied to the same offset mod 16, as 16-byte blocks where a whole
/// aligned block lies among those words and as words at both ends (at most 3 and 4). All lanes
/// call this together; it ends with a warp barrier, after which the staged chunk may be read.
///
/// # Safety
/// `buf` is 16-byte aligned and holds `n.next_multiple_of(16) + STAGE_SLACK` bytes of this
/// warp's shared memory; the chunk is readable (and never written during the launch). The
/// copy reads the aligned words that overlap the chunk up to its last byte (the last word byte
/// by byte), hence never leaves its allocation.
#[inline(always)]
pub unsafe fn stage<T: Thread>(t: &T, buf: *mut u8, inp: *const u8, n: u32) -> *const u8 {
    let lane = t.lane() as usize;
    let a = inp as usize;
    // Global address of `buf[0]`; the words overlapping the chunk, `lo..hi`; the whole aligned
    // 16-byte blocks among them, `b0..b1` (empty when there are none).
    let base = a & !15;
    let end = a + n as usize;
    // `hi_full`: the end of the words that lie before the chunk's end; a last word past it
    // holds the chunk's final bytes and bytes that may lie past its allocation.
    let (lo, hi, hi_full) = (a & !3, (end + 3) & !3, end & !3);
    let b0 = lo.next_multiple_of(16).min(hi_full.max(lo));
    let b1 = (hi_full & !15).max(b0);
    // Global address `g` as a pointer derived from `inp`, and its place in `buf`.
    let from = |g: usize| inp.wrapping_add(g).wrapping_sub(a);
    let to = |g: usize| buf.add(g - base);
    // The edge words: lanes 0..3 those before `b0`, lanes 4..7 those from `b1`; a word that
    // runs past the chunk's end is read byte by byte up to it, zero beyond.
    let edge = if lane < 4 { lo + 4 * lane } else { b1 + 4 * (lane - 4) };
    if lane < 8 && edge < if lane < 4 { b0 } else { hi } {
        let word = if edge + 4 <= end { mem::load4_nc(from(edge)) } else { head_word(from(edge), end - edge) };
        to(edge).cast::<u32>().write(u32::to_le(word));
    }
    let blocks = (b1 - b0) / 16;
    let block = |i: usize| b0 + 16 * i;
    let mut i = lane;
    // Stores of a 16-byte aligned type: one `st.shared.v4` each (LLVM cannot tell that `buf`
    // and the offsets are aligned).
    let put = |g: usize, v: [u32; 4]| to(g).cast::<Block>().write(Block(v.map(u32::to_le)));
    // Four independent loads per lane before its stores, so that four are in flight.
    while i + 96 < blocks {
        let (v0, v1) = (mem::load16_nc(from(block(i))), mem::load16_nc(from(block(i + 32))));
        let (v2, v3) = (mem::load16_nc(from(block(i + 64))), mem::load16_nc(from(block(i + 96))));
        put(block(i), v0);
        put(block(i + 32), v1);
        put(block(i + 64), v2);
        put(block(i + 96), v3);
        i += 128;
    }
    while i < blocks {
        put(block(i), mem::load16_nc(from(block(i))));
        i += 32;
    }
    t.sync_warp(); // the staged chunk is read by every lane
    buf.add(a & 15)
}

/// The little-endian word of the `len < 4` bytes at `p`, zero above them.
#[inline(always)]
unsafe fn head_word(p: *const u8, len: usize) -> u32 {
    let mut word = 0;
    for k in 0..len {
        word |= mem::load_u8_nc(p.add(k)) << (8 * k);
    }
    word
}

/// 16 bytes at a 16-byte aligned address.
#[repr(C, align(16))]
struct Block([u32; 4]);
