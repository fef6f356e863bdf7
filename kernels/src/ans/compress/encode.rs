//! Phase 3: one warp encodes a sub-chunk into its staging buffer, tile by tile (`tile_fast`
//! for whole aligned tiles with fast entries, `tile_general` for the rest).

use super::entries::Entry;
use super::mem::{load, load_tile, prefetch_l2, store, L2};
use super::placement::put_pieces;
use super::symbols::{f8_pair_symbols, symbol_offset, symbols};
use super::{Mode, Options, PAGE, STATE_INITIAL, TILE_PREFETCH};
use crate::thread::lane_here;
use crate::Thread;

/// One warp encodes a sub-chunk of `nsym` symbols from `src` (`cpu::ans::rans::encode_sub_chunk`)
/// with the entries `enc` (fast ones if `fast`) into the warp's staging buffer `stage`
/// ([`STAGE`](super::STAGE) bytes); returns its stored size (`2 · words + 128 · spl`) and whether it is
/// there whole (then nothing was written to `out`). If not (it spilled), its words and final
/// states were written at `out`, but nothing at or past `limit` bytes (a multiple of 16); the
/// size may exceed `limit`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn encode<T: Thread, const PIECES: usize>(
    t: &T,
    o: &Options,
    src: *const u8,
    nsym: usize,
    enc: *const u32,
    fast: bool,
    stage: *mut u8,
    out: *mut u8,
    limit: usize,
) -> (usize, bool) {
    let w = Words { stage, out, limit, base: 0, at: 0 };
    match (o.mode, o.spl) {
        (Mode::Bytes, 1) => encode_spl::<T, 1, 1, 8, false, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Bytes, _) => encode_spl::<T, 1, 2, 8, false, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float16, 1) => encode_spl::<T, 2, 1, 8, false, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float16, _) => encode_spl::<T, 2, 2, 8, false, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float8, 1) => encode_spl::<T, 2, 1, 4, true, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float8, _) => encode_spl::<T, 2, 2, 4, true, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float32, 1) => encode_spl::<T, 4, 1, 4, false, PIECES>(t, src, nsym, enc, fast, w),
        (Mode::Float32, _) => encode_spl::<T, 4, 2, 4, false, PIECES>(t, src, nsym, enc, fast, w),
    }
}

/// Where a sub-chunk's words go: the warp's staging buffer holds output bytes `base .. base +
/// STAGE` (`base` a multiple of 16, 0 until the sub-chunk spills), the cursor is `base + at`.
struct Words {
    stage: *mut u8,
    out: *mut u8,
    limit: usize,
    base: usize,
    at: u32,
}

impl Words {
    /// After a tile (at most `PAGE` bytes of words): when the next tile might not fit, the
    /// sub-chunk spills: its whole 16-byte pieces go to `out` (one 16-byte store per lane and
    /// round), and the partial piece moves down.
    #[inline(always)]
    unsafe fn make_room<T: Thread, const PIECES: usize>(&mut self, t: &T) {
        // Before a tile at most STAGE − PAGE − 16, after it below STAGE − 16: the piece at
        // `whole` lies in the buffer.
        if self.at as usize + PAGE + 16 > 16 * PIECES {
            let whole = self.at as usize & !15;
            t.sync_warp();
            put_pieces(t, self.stage, whole, self.out.add(self.base), self.limit.saturating_sub(self.base), L2::Normal);
            let v = *(self.stage.add(whole) as *const u128);
            t.sync_warp();
            if lane_here(t) == 0 {
                *(self.stage as *mut u128) = v;
            }
            t.sync_warp();
            self.base += whole;
            self.at -= whole as u32;
        }
    }
}

/// [`encode`] for `BPS` input bytes per symbol (FLOAT8 pairs if `F8`), `SPL` states per lane
/// and body tiles of `B` symbols per lane.
///
/// The words are staged in shared memory ([`Words`]): a tile emits at most `32 · B ≤ 256`
/// words, so after a tile the cursor is at most one page further. With fast entries, whole
/// tiles with aligned symbol loads (every body tile of an aligned sub-chunk) take
/// [`tile_fast`], the others [`tile_general`].
#[inline(always)]
unsafe fn encode_spl<
    T: Thread,
    const BPS: usize,
    const SPL: usize,
    const B: usize,
    const F8: bool,
    const PIECES: usize,
>(
    t: &T,
    src: *const u8,
    nsym: usize,
    enc: *const u32,
    fast: bool,
    mut w: Words,
) -> (usize, bool) {
    let lane = lane_here(t) as usize;
    if F8 && nsym == 0 {
        return (0, true); // a FLOAT8 sub-chunk of one byte: stored empty
    }
    // Lanes above this one: their words come first in a step.
    let above = if lane == 31 { 0 } else { u32::MAX << (lane + 1) };
    // Tiles: the body (whole passes of the warp's 32·SPL states over 8 symbols each) in tiles of
    // 32·8 symbols, the rest in tiles of 32·2; FLOAT32 32·4 throughout.
    let (body, tail_block) = if BPS == 4 { (0, 4) } else { (nsym / (256 * SPL) * (256 * SPL), 2) };
    let body_tiles = body / (32 * B);
    let ntiles = body_tiles + (nsym - body).div_ceil(32 * tail_block);
    let full = if BPS == 4 { nsym / (32 * B) } else { body_tiles };
    let stop = if fast && (src as usize).is_multiple_of(B * BPS) { full } else { 0 };
    let mut x = [STATE_INITIAL; SPL];
    if F8 && nsym.is_multiple_of(256 * SPL) {
        // Seeded (`cpu::ans::rans::seeded`): each state codes its first symbol from `f · 2^(16 −
        // pb)`, the symbol's frequency (`M − [2]`), to `2^16 + cum`. Those symbols are the last
        // step's of the last (body) tile.
        let p = src.add(2 * (nsym - 32 * B + lane * B + B - SPL));
        for (s, xs) in x.iter_mut().enumerate() {
            let sym = symbols(load(p.add(2 * s), 2), BPS, 1, true) as usize;
            *xs = ((1u32 << 11) - *enc.add(512 + sym)) << 5;
        }
    }
    let mut tile = ntiles;
    while tile > stop {
        tile -= 1;
        let (start, block) = if tile < body_tiles {
            (tile * 32 * B, B)
        } else {
            (body + (tile - body_tiles) * 32 * tail_block, tail_block)
        };
        let len = (nsym - start).min(32 * block);
        let s = src.add(start * BPS);
        if fast {
            tile_general::<T, BPS, SPL, true, F8>(t, s, len, block, enc, &mut w, above, &mut x);
        } else {
            tile_general::<T, BPS, SPL, false, F8>(t, s, len, block, enc, &mut w, above, &mut x);
        }
        w.make_room::<T, PIECES>(t);
    }
    if stop > 0 {
        // Tile `k`'s symbols are loaded while tile `k + 1` is coded.
        let per = 32 * B * BPS;
        let mut p = src.add((tile - 1) * per + lane * B * BPS);
        let mut next = load_tile::<BPS, B>(p, L2::EvictFirst);
        let mut left = tile as u32;
        while left > 0 {
            left -= 1;
            let v = next;
            if left > 0 {
                p = p.sub(per);
                next = load_tile::<BPS, B>(p, L2::EvictFirst);
            }
            // L2 is asked for the tile TILE_PREFETCH beyond the one loaded (the input's second
            // read: the histogram's may have left L2).
            if left > TILE_PREFETCH {
                prefetch_l2(p.sub(TILE_PREFETCH as usize * per));
            }
            tile_fast::<T, BPS, SPL, B, F8>(t, v, enc, &mut w, above, &mut x);
            w.make_room::<T, PIECES>(t);
        }
    }
    let at = w.at as usize;
    let size = w.base + at + 128 * SPL;
    // Lane j's state s at index (31 − j)·SPL + s, after the words.
    let state_at = |s: usize| at + 4 * ((31 - lane) * SPL + s);
    if w.base == 0 && at + 128 * SPL <= 16 * PIECES {
        // Indexed: the states stay in registers (unrolled over the constant SPL).
        #[allow(clippy::needless_range_loop)]
        for s in 0..SPL {
            store(w.stage.add(state_at(s)), x[s] as u64, 2);
            store(w.stage.add(state_at(s) + 2), (x[s] >> 16) as u64, 2);
        }
        t.sync_warp();
        return (size, true);
    }
    // Spilled: the rest of the words (16-byte pieces; a piece's bytes past the words are
    // covered by the final states written next), then the states.
    t.sync_warp();
    put_pieces(t, w.stage, at, w.out.add(w.base), w.limit.saturating_sub(w.base), L2::Normal);
    t.sync_warp();
    #[allow(clippy::needless_range_loop)]
    for s in 0..SPL {
        let to = w.base + state_at(s);
        if to + 4 <= w.limit {
            store(w.out.add(to), x[s] as u64, 2);
            store(w.out.add(to + 2), (x[s] >> 16) as u64, 2);
        }
    }
    (size, false)
}

/// The entry of symbol `i` of a lane's tile bytes `v` (FLOAT8 pairs if `F8`).
#[inline(always)]
unsafe fn entry_of<const BPS: usize, const F8: bool>(enc: *const u32, v: &[u32; 4], i: usize) -> Entry {
    let (w, shift) = match BPS {
        1 => (v[i / 4], 8 * (i % 4)),
        2 if F8 => (f8_pair_symbols(v[i / 2]), 16 * (i % 2)),
        2 => (v[i / 2], 16 * (i % 2) + 7),
        _ => (v[i], 23),
    };
    if BPS == 1 {
        Entry::load_fast(enc, (w >> shift) as usize & 0xFF)
    } else {
        // The symbol is not byte-aligned: shift and mask to its entry's offset at once.
        Entry::load_fast_at(enc, symbol_offset(w, shift as u32) as usize)
    }
}

/// A whole tile (`B` symbols per lane in `v`) with fast entries: its steps unrolled, so that
/// the symbol positions are constants.
#[inline(always)]
unsafe fn tile_fast<T: Thread, const BPS: usize, const SPL: usize, const B: usize, const F8: bool>(
    t: &T,
    v: [u32; 4],
    enc: *const u32,
    w: &mut Words,
    above: u32,
    x: &mut [u32; SPL],
) {
    let n = B / SPL;
    // The cursor as a shared-memory address: one add per word address.
    let base = shared_address(w.stage);
    let mut at = base.wrapping_add(w.at);
    if n > 7 {
        step_fast::<T, BPS, SPL, F8, 7>(t, &v, enc, w.stage, &mut at, above, x);
        step_fast::<T, BPS, SPL, F8, 6>(t, &v, enc, w.stage, &mut at, above, x);
        step_fast::<T, BPS, SPL, F8, 5>(t, &v, enc, w.stage, &mut at, above, x);
        step_fast::<T, BPS, SPL, F8, 4>(t, &v, enc, w.stage, &mut at, above, x);
    }
    if n > 3 {
        step_fast::<T, BPS, SPL, F8, 3>(t, &v, enc, w.stage, &mut at, above, x);
        step_fast::<T, BPS, SPL, F8, 2>(t, &v, enc, w.stage, &mut at, above, x);
    }
    step_fast::<T, BPS, SPL, F8, 1>(t, &v, enc, w.stage, &mut at, above, x);
    step_fast::<T, BPS, SPL, F8, 0>(t, &v, enc, w.stage, &mut at, above, x);
    w.at = at.wrapping_sub(base);
}

/// Step `S` of [`tile_fast`]: symbols `S · SPL + s` of the lane's tile bytes `v`; `cur` is the
/// cursor's [`shared_address`] in the staging buffer `stage`.
#[inline(always)]
unsafe fn step_fast<T: Thread, const BPS: usize, const SPL: usize, const F8: bool, const S: usize>(
    t: &T,
    v: &[u32; 4],
    enc: *const u32,
    stage: *mut u8,
    cur: &mut u32,
    above: u32,
    x: &mut [u32; SPL],
) {
    let mut e = [Entry([0; 4]); SPL];
    let mut emit = [false; SPL];
    let mut mine = 0;
    let mut all = 0;
    for s in 0..SPL {
        e[s] = entry_of::<BPS, F8>(enc, v, S * SPL + s);
        emit[s] = e[s].emits(x[s]);
        let b = t.ballot(emit[s]);
        mine += (b & above).count_ones();
        all += b.count_ones();
    }
    let mut at = *cur + 2 * mine;
    // This lane's states emit in descending order.
    for s in (0..SPL).rev() {
        emit_word(stage, &mut at, &mut x[s], emit[s], s > 0);
        x[s] = e[s].encode_fast(x[s], e[s].quotient_fast(x[s]), if BPS == 1 || F8 { 11 } else { 10 });
    }
    *cur += 2 * all;
}

/// The address of `p` (in shared memory) in the form [`emit_word`] stores to: on the GPU its
/// 32-bit shared-memory address, on the host 0 (the cursor is an offset into the buffer).
#[inline(always)]
fn shared_address(p: *mut u8) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::asm::shared_address(p)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = p;
        0
    }
}

/// Where `emit`: stores the low 16 bits of the state `x` at the cursor `at` (a
/// [`shared_address`] in the staging buffer `stage`), shifts `x` right by 16 and, if
/// `advance`, moves `at` on by 2. On the GPU three instructions predicated on `emit`,
/// updating `x` and `at` in place (written as a branch, ptxas copied each through a spare
/// register: five).
#[inline(always)]
unsafe fn emit_word(stage: *mut u8, at: &mut u32, x: &mut u32, emit: bool, advance: bool) {
    // SAFETY (both forms): `at` is the shared address of the cursor, inside the warp's staging
    // buffer with room for the step's words (checked per tile by `Words::make_room`).
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = stage;
        crate::asm::emit_u16_shared(at, x, emit, advance);
    }
    #[cfg(not(target_arch = "nvptx64"))]
    if emit {
        *(stage.add(*at as usize) as *mut u16) = *x as u16;
        *x >>= 16;
        if advance {
            *at += 2;
        }
    }
}

/// Any tile: `len` symbols from `src`, `block` per lane (the last lanes may have fewer or none),
/// with fast entries if `FAST`, else exact ones.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn tile_general<T: Thread, const BPS: usize, const SPL: usize, const FAST: bool, const F8: bool>(
    t: &T,
    src: *const u8,
    len: usize,
    block: usize,
    enc: *const u32,
    w: &mut Words,
    above: u32,
    x: &mut [u32; SPL],
) {
    let lane = lane_here(t) as usize;
    let pb = if BPS == 1 || F8 { 11 } else { 10 };
    let top = 1u32 << (32 - pb);
    let mine = len.saturating_sub(lane * block).min(block);
    let syms = if mine > 0 { symbols(load(src.add(lane * block * BPS), mine * BPS), BPS, mine, F8) } else { 0 };
    let mut step = block / SPL;
    while step > 0 {
        step -= 1;
        let mut e = [Entry([0; 4]); SPL];
        let mut q = [0u32; SPL];
        let mut emit = [false; SPL];
        let mut at = w.at;
        let mut all = 0;
        for s in 0..SPL {
            let b = step * SPL + s;
            if b < mine {
                let sym = ((syms >> (8 * b)) & 0xFF) as usize;
                e[s] = if FAST { Entry::load_fast(enc, sym) } else { Entry::load(enc, sym) };
                if FAST {
                    emit[s] = e[s].emits(x[s]);
                } else {
                    q[s] = e[s].quotient(x[s]);
                    emit[s] = q[s] >= top;
                }
            }
            let bal = t.ballot(emit[s]);
            at += 2 * (bal & above).count_ones();
            all += bal.count_ones();
        }
        // This lane's states emit in descending order.
        for s in (0..SPL).rev() {
            if emit[s] {
                *(w.stage.add(at as usize) as *mut u16) = x[s] as u16;
                at += 2;
                x[s] >>= 16;
                q[s] >>= 16;
            }
            if step * SPL + s < mine {
                x[s] =
                    if FAST { e[s].encode_fast(x[s], e[s].quotient_fast(x[s]), pb) } else { e[s].encode(x[s], q[s]) };
            }
        }
        w.at += 2 * all;
    }
}
