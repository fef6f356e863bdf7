//! One warp decodes a sub-chunk: the decoder state ([`Dec`]), the general tile loop and the hot
//! loop of whole body tiles, and the page turns of the ring.

use super::header::{bytes_per_symbol, rd_u32, Hd};
use super::output::{merge_f16_pairs, merge_f8_entries, put};
use super::ring::{load_page, ring_entry, ring_word, shared_addr, store_page};
use super::table::{decode, lut_step};
use super::{opaque, Shared, L, PAGE, RING_BYTES};
use crate::bits::prmt;
use crate::thread::thread_here;
use crate::Thread;

/// Decodes sub-chunk `k` (at chunk offset `off`, `size` bytes, inside the input) by one warp.
/// Warp-uniform result: false when corrupt.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn sub_chunk<T: Thread, const MODE: u32, const SPL: u32, const LUT: bool>(
    t: &T,
    smem: *mut Shared,
    off: u64,
    size: u32,
    h: Hd,
    k: u32,
) -> bool {
    let w = bytes_per_symbol(MODE);
    let sc = h.sc();
    let first = k * (sc / w);
    let nsym = (h.n() - k * sc).min(sc) / w;
    if nsym == 0 {
        // An empty FLOAT8 sub-chunk (its size checked to be 0).
        return true;
    }
    let tid = thread_here(t);
    let lane = tid % 32;
    let sub = h.src().add(off as usize);
    let wend = size - 128 * SPL;
    // Lane j's state s is stored at index (31 − j)·spl + s.
    let sp = sub.add((wend + 4 * (31 - lane) * SPL) as usize);
    let mut x = [rd_u32(sp), if SPL == 2 { rd_u32(sp.add(4)) } else { L }];
    if t.any(x[0] < L || x[1] < L) {
        return false;
    }
    let area = (&raw mut (*smem).ring).cast::<u8>();
    let sa = shared_addr(area);
    // The first multiple of RING_BYTES in the area, then this warp's ring.
    let at = (sa.wrapping_neg() & (RING_BYTES - 1)) + tid / 32 * RING_BYTES;
    let (ring, ring_sa) = (area.add(at as usize), sa.wrapping_add(at));
    // Words go through the ring when the sub-chunk is 16-byte aligned (always in nvCOMP's
    // streams); otherwise they are read from global memory byte by byte.
    let aligned = (sub as usize) % 16 == 0;
    // Pages `cur` (holding byte p − 1) and `cur − 1` are in the ring, `cur − 2` in `next`.
    let mut cur = 0u32;
    let mut next = 0u128;
    if wend > 0 && aligned {
        cur = (wend - 1) / PAGE;
        store_page(t, ring, cur, lane, load_page(sub, wend, cur, lane));
        if cur >= 1 {
            // Lane 31 reads page cur's first word.
            t.sync_warp();
            store_page(t, ring, cur - 1, lane, load_page(sub, wend, cur - 1, lane));
        }
        if cur >= 2 {
            next = load_page(sub, wend, cur - 2, lane);
        }
        t.sync_warp();
    }
    // Hidden from LLVM, which would turn the multiplications by it into shifts.
    let upto = opaque(1 << (31 - lane));
    let mut d = Dec { p: wend, cur, next, x, ring, ring_sa, sub, wend, aligned, pb: h.pb(), lane, upto };
    // The schedule (the reference's `rans::tiles`): a body of whole units of 256·spl symbols
    // (what one pass of the warp's 32·spl states codes) in tiles of 32·B, the rest in tiles of
    // 64; FLOAT32 tiles of 128 throughout.
    let unit = 256 * SPL;
    let (body, body_block, tail_block) = match MODE {
        3 => (0, 4, 4),
        2 => (nsym / unit * unit, 4, 2),
        _ => (nsym / unit * unit, 8, 2),
    };
    // FLOAT8 sub-chunks without a tail are seeded (the reference's `rans::seeded`).
    let seeded = MODE == 2 && nsym % unit == 0;
    let mut start = 0;
    if LUT && aligned && MODE != 3 {
        // The body's whole tiles (a seeded sub-chunk's last tile excepted: nsym ≥ unit > tile).
        let hot = if seeded { body - 32 * body_block } else { body };
        let Some(done) = body_tiles::<T, MODE, SPL>(t, smem, h, &mut d, first, hot) else {
            return false;
        };
        start = done;
    }
    while start < nsym {
        let (block, tlen) = if start < body {
            (body_block, 32 * body_block)
        } else {
            (tail_block, (nsym - start).min(32 * tail_block))
        };
        let seed = seeded && start + tlen == nsym;
        let full = LUT && aligned && tlen == 32 * block && !seed;
        let r = match block {
            8 if full => tile_full::<T, SPL, 8>(t, smem, &mut d),
            4 if full => tile_full::<T, SPL, 4>(t, smem, &mut d),
            _ => tile::<T, SPL, LUT>(t, smem, h, &mut d, block, tlen, seed),
        };
        let Some(acc) = r else { return false };
        let q = block * lane;
        if q < tlen {
            put::<MODE>(h, first + start + q, acc, (tlen - q).min(block));
        }
        if full && block != 2 {
            // After a `tile_full` (the general tile turns its pages itself).
            turn_page(t, &mut d);
        }
        start += tlen;
    }
    x = d.x;
    !t.any(d.p != 0 || x[0] != L || x[1] != L)
}

/// The hot loop of [`sub_chunk`]: the first `hot` symbols (whole body tiles of `32·B`, `B` = 8,
/// FLOAT8 4) of a 16-byte aligned sub-chunk with the lookup table, decoded by [`tile_full`] and
/// stored whole, when the sub-chunk's output (and raw section) is aligned for the wide stores of
/// its mode; the alignment holds for every tile once it holds for the first (tiles start at
/// multiples of 128 symbols). Returns the symbols done (0 when unaligned; FLOAT8 whole pairs of
/// tiles, an odd last one left), `None` when corrupt.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn body_tiles<T: Thread, const MODE: u32, const SPL: u32>(
    t: &T,
    smem: *mut Shared,
    h: Hd,
    d: &mut Dec,
    first: u32,
    hot: u32,
) -> Option<u32> {
    let lane = d.lane;
    let out = h.out();
    let raw = h.src().add(h.raw() as usize);
    // The cursor as the steps keep it (see `tile_steps`), checked once at the end: words that
    // ran out wrap it around below −1 (as i32), where it stays (a tile takes at most 256 words),
    // turning no page; the tiles after that decode garbage inside the ring into the sub-chunk's
    // output, and the sub-chunk fails.
    let mut r = cursor_of::<SPL>(d.p);
    let done = match MODE {
        0 => {
            let dst = out.add((first + 8 * lane) as usize);
            if (out.add(first as usize) as usize) % 8 != 0 {
                return Some(0);
            }
            by_twos(hot, 256, |start| {
                let acc = tile_steps::<T, SPL, 8>(t, smem, d, &mut r);
                *(dst.add(start as usize) as *mut u64) = acc.bytes();
                hot_turn::<T, SPL>(t, d, r);
            })
        }
        1 => {
            let g = first + 8 * lane;
            let (rp, dst) = (raw.add(g as usize), out.add(2 * g as usize));
            if first % 2 != 0
                || (raw.add(first as usize) as usize) % 8 != 0
                || (out.add(2 * first as usize) as usize) % 16 != 0
            {
                return Some(0);
            }
            by_twos(hot, 256, |start| {
                // The next tile's raw bytes prefetched (ptxas then issues this tile's load before
                // the steps too; alone, it waits until their end).
                prefetch_l1(rp.add((start + 256).min(hot - 256) as usize));
                let raw8 = *(rp.add(start as usize) as *const u64);
                let acc = tile_steps::<T, SPL, 8>(t, smem, d, &mut r);
                *(dst.add(2 * start as usize) as *mut u128) = merge_f16_pairs(raw8, &acc.pairs);
                hot_turn::<T, SPL>(t, d, r);
            })
        }
        _ => {
            let g = first + 4 * lane;
            let (rp, dst) = (raw.add(g as usize), out.add(2 * g as usize));
            if (raw.add(first as usize) as usize) % 4 != 0 || (out.add(2 * first as usize) as usize) % 8 != 0 {
                return Some(0);
            }
            // Two tiles of 32·4 at a time: their four steps take at most a page of words, as one
            // tile of 32·8 (one page check, the addresses shared). A plain loop, and an odd last
            // tile left to the general one: unrolled further, the kernel's other hot loops lost
            // 1–6 % (ptxas's choices for the whole kernel).
            let pairs = hot / 256 * 256;
            let mut start = 0;
            while start < pairs {
                let p = rp.add(start as usize);
                // The raw bytes (two lines) of the pair after the next, where there is one: a
                // pair ahead measured 0.7 % slower, clamped addresses (10 SASS instructions) 0.8 %,
                // none 7 % (H200).
                if start + 512 < pairs {
                    prefetch_l1(p.add(512));
                    prefetch_l1(p.add(640));
                }
                let raw4 = [*(p as *const u32), *(p.add(128) as *const u32)];
                let acc = tile_steps::<T, SPL, 8>(t, smem, d, &mut r);
                let to = dst.add(2 * start as usize);
                *(to as *mut u64) = merge_f8_entries(raw4[0], &acc.ent[..4]);
                *(to.add(256) as *mut u64) = merge_f8_entries(raw4[1], &acc.ent[4..]);
                hot_turn::<T, SPL>(t, d, r);
                start += 256;
            }
            pairs
        }
    };
    d.p = p_of::<SPL>(r);
    if d.p > d.wend {
        return None;
    }
    Some(done)
}

/// Runs `tile(start)` for `start = 0, step, …` below `hot` (a multiple of `step`), two tiles
/// per loop iteration (the loop's count, compare and branch once per two tiles); returns `hot`.
#[inline(always)]
fn by_twos(hot: u32, step: u32, mut tile: impl FnMut(u32)) -> u32 {
    let mut start = 0;
    while start + step < hot {
        tile(start);
        tile(start + step);
        start += 2 * step;
    }
    if start < hot {
        tile(start);
        start += step;
    }
    start
}

/// Bits the steps' cursor is shifted by: it counts words (the word index `r = (p − 2) / 2`)
/// with two states per lane, where a step's reads are at `r` less the sum of two counts (one
/// IADD3); ring bytes (`4r`) with one, where they are at `4r` less four times one count (one
/// IMAD).
#[inline(always)]
const fn cursor_shift(spl: u32) -> u32 {
    if spl == 2 {
        0
    } else {
        2
    }
}

/// The steps' cursor for word cursor `p` (even): `r = (p − 2) / 2` (signed: `p = 0` is −1),
/// shifted by [`cursor_shift`].
#[inline(always)]
fn cursor_of<const SPL: u32>(p: u32) -> u32 {
    ((p.wrapping_sub(2) as i32 >> 1) << cursor_shift(SPL)) as u32
}

/// The word cursor `p` of the steps' cursor `c`.
#[inline(always)]
fn p_of<const SPL: u32>(c: u32) -> u32 {
    (((c as i32) >> cursor_shift(SPL)) << 1).wrapping_add(2) as u32
}

/// [`turn_page`] in [`body_tiles`], from the steps' cursor `c`.
#[inline(always)]
unsafe fn hot_turn<T: Thread, const SPL: u32>(t: &T, d: &mut Dec, c: u32) {
    // 0 < p ≤ cur · PAGE: 0 ≤ r < cur · PAGE / 2, unsigned (r < 0 is above it).
    if c < (d.cur * (PAGE / 2)) << cursor_shift(SPL) {
        next_page(t, d);
    }
}

/// Prefetches the line of `p` (inside the input) into L1.
#[inline(always)]
unsafe fn prefetch_l1<T>(p: *const T) {
    #[cfg(target_arch = "nvptx64")]
    {
        // SAFETY: a prefetch of an address inside the input.
        crate::asm::prefetch_l1(p as *const u8);
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = p;
    }
}

/// A warp's decoder state for one sub-chunk.
struct Dec {
    /// Word cursor: bytes of the word region not yet consumed.
    p: u32,
    /// Page holding byte `p − 1`.
    cur: u32,
    /// This lane's part of page `cur − 2`, loaded ahead.
    next: u128,
    /// This lane's states.
    x: [u32; 2],
    /// This warp's ring and its shared address (a multiple of `RING`).
    ring: *mut u8,
    ring_sa: u32,
    sub: *const u8,
    wend: u32,
    aligned: bool,
    /// Probability bits.
    pb: u32,
    /// The lane, and `2^(31 − lane)`: `m · upto` keeps the bits of a lane mask `m` up to the
    /// lane (at the top), `m · 2·upto` those below it, the products on the FMA pipe rather than
    /// an AND on the ALU pipe, which limits the decode loops.
    lane: u32,
    upto: u32,
}

/// One tile of `32 · b` symbols (`tlen` of them present): lane `j` decodes positions
/// `b·j .. b·j + b` step by step; returns its symbols (byte `i` = position `b·j + i`), or `None`
/// when the words run out. `seed`: the last tile of a seeded sub-chunk (whole), whose last step
/// reads no word and must leave each state at `f · 2^(16−pb)` of its symbol (then taken as
/// `2^16` for the final check), as the reference's `decode_sub_chunk`.
#[inline(always)]
unsafe fn tile<T: Thread, const SPL: u32, const LUT: bool>(
    t: &T,
    smem: *mut Shared,
    h: Hd,
    d: &mut Dec,
    b: u32,
    tlen: u32,
    seed: bool,
) -> Option<u64> {
    let (lane, below) = (d.lane, opaque(d.upto.wrapping_add(d.upto)));
    let mut acc = 0u64;
    let q0 = b * lane;
    for step in 0..b / SPL {
        let last = seed && step + 1 == b / SPL;
        let mut need = [false; 2];
        let mut off_seed = false;
        for s in 0..SPL as usize {
            let i = step * SPL + s as u32;
            if q0 + i < tlen {
                let (sym, x, seed_x) = decode::<LUT>(smem, h, d.pb, d.x[s]);
                acc |= (sym as u64) << (8 * i);
                if last {
                    off_seed |= x != seed_x;
                    d.x[s] = L;
                } else {
                    d.x[s] = x;
                    need[s] = x < L;
                }
            }
        }
        if last && t.any(off_seed) {
            return None;
        }
        // Words go to the flagged states in (lane, state) order, the k-th reading p − 2 − 2k.
        let b0 = t.ballot(need[0]);
        let b1 = if SPL == 2 { t.ballot(need[1]) } else { 0 };
        let total = 2 * (b0.count_ones() + b1.count_ones());
        if total > d.p {
            return None;
        }
        let r0 = b0.wrapping_mul(below).count_ones() + b1.wrapping_mul(below).count_ones();
        let ranks = [r0, r0 + need[0] as u32];
        for s in 0..SPL as usize {
            if need[s] {
                let wpos = d.p - 2 - 2 * ranks[s];
                let word = if d.aligned {
                    ring_word(d.ring, d.ring_sa, wpos)
                } else {
                    *d.sub.add(wpos as usize) as u32 | (*d.sub.add(wpos as usize + 1) as u32) << 8
                };
                d.x[s] = d.x[s] << 16 | word;
            }
        }
        d.p -= total;
        if d.aligned {
            turn_page(t, d);
        }
    }
    Some(acc)
}

/// [`tile`] for a whole tile of `32 · B` symbols of a 16-byte aligned sub-chunk with the slot
/// lookup table (the hot path): unrolled ([`step_full`]) and branch-free. A tile takes at most
/// `32 · B` words (`B · 64 ≤ PAGE` bytes), so all its reads lie in the pages `cur` and `cur − 1`
/// that the ring holds, and the page hand-over (at most one) waits until the tile's end. A step
/// that takes more words than remain wraps the cursor around (it cannot come back below the
/// word region's end within a tile): the tile then fails at its end.
#[inline(always)]
unsafe fn tile_full<T: Thread, const SPL: u32, const B: u32>(t: &T, smem: *mut Shared, d: &mut Dec) -> Option<u64> {
    let mut r = cursor_of::<SPL>(d.p);
    let acc = tile_steps::<T, SPL, B>(t, smem, d, &mut r);
    d.p = p_of::<SPL>(r);
    if d.p > d.wend {
        return None;
    }
    Some(acc.bytes())
}

/// The steps of a [`tile_full`], with their cursor `r` ([`cursor_of`]: the index of the next
/// word, or four times it). Words that run out wrap it around (below −1 as i32).
#[inline(always)]
unsafe fn tile_steps<T: Thread, const SPL: u32, const B: u32>(
    t: &T,
    smem: *mut Shared,
    d: &mut Dec,
    r: &mut u32,
) -> Syms {
    let f = Fast {
        lut: (&raw const (*smem).lut).cast::<u32>(),
        ring: d.ring,
        ring_sa: d.ring_sa,
        upto: d.upto,
        // Hidden from LLVM (see `Dec::upto`).
        below: opaque(d.upto.wrapping_add(d.upto)),
        mask: (1u32 << d.pb) - 1,
    };
    let mut acc = Syms { ent: [0; 8], pairs: [0; 4], words: [0; 2] };
    step_full::<T, SPL, 0>(t, &f, &mut d.x, r, &mut acc);
    step_full::<T, SPL, 1>(t, &f, &mut d.x, r, &mut acc);
    if B / SPL > 2 {
        step_full::<T, SPL, 2>(t, &f, &mut d.x, r, &mut acc);
        step_full::<T, SPL, 3>(t, &f, &mut d.x, r, &mut acc);
    }
    if B / SPL > 4 {
        step_full::<T, SPL, 4>(t, &f, &mut d.x, r, &mut acc);
        step_full::<T, SPL, 5>(t, &f, &mut d.x, r, &mut acc);
        step_full::<T, SPL, 6>(t, &f, &mut d.x, r, &mut acc);
        step_full::<T, SPL, 7>(t, &f, &mut d.x, r, &mut acc);
    }
    // The last step's renormalisation stays here, as predicated PRMTs: LLVM would sink its
    // selects past the page turn, where ptxas makes them PRMTs and SELs.
    d.x = [opaque(d.x[0]), opaque(d.x[1])];
    acc
}

/// A [`tile_full`]'s symbols as its steps collect them (constant indices: registers): the
/// lookup entries, their symbols by pairs (two entries' bytes 1 and 2 by one PRMT, shifted by 4
/// bits on the FMA pipe: the symbols in bytes 1 and 3), and by fours (bytes 1 and 3 of two
/// pairs by one PRMT): three instructions per four symbols more than a PRMT per symbol, where
/// the entry layout that puts the symbol there saves one per symbol in [`lut_step`]. FLOAT16
/// merges the pairs with the raw bytes instead ([`merge_f16_pairs`]).
struct Syms {
    ent: [u32; 8],
    pairs: [u32; 4],
    words: [u32; 2],
}

impl Syms {
    /// Entry `i` of the tile's lane (symbol `i`), its pair and its word once complete.
    #[inline(always)]
    fn put(&mut self, i: usize, v: u32) {
        self.ent[i] = v;
        if i % 2 == 1 {
            self.pairs[i / 2] = prmt(self.ent[i - 1], v, 0x6521).wrapping_mul(opaque(16));
        }
        if i % 4 == 3 {
            self.words[i / 4] = prmt(self.pairs[i / 2 - 1], self.pairs[i / 2], 0x7531);
        }
    }

    /// The symbols as bytes (byte `i` = symbol `i`).
    #[inline(always)]
    fn bytes(&self) -> u64 {
        self.words[0] as u64 | (self.words[1] as u64) << 32
    }
}

/// The page hand-over of an aligned sub-chunk: after every step of a [`tile`], after a
/// [`tile_full`] once its symbols are stored (they do not stay live across the page loads).
#[inline(always)]
unsafe fn turn_page<T: Thread>(t: &T, d: &mut Dec) {
    if d.p > 0 && d.p <= d.cur * PAGE {
        next_page(t, d);
    }
}

/// Byte p − 1 left page `cur`: the reads of page cur + 1's slot are done, page cur − 1 takes
/// it, and page cur − 2 is loaded.
#[inline(always)]
unsafe fn next_page<T: Thread>(t: &T, d: &mut Dec) {
    let lane = d.lane;
    d.cur -= 1;
    t.sync_warp();
    if d.cur >= 1 {
        store_page(t, d.ring, d.cur - 1, lane, d.next);
    }
    t.sync_warp();
    if d.cur >= 2 {
        d.next = load_page(d.sub, d.wend, d.cur - 2, lane);
    }
}

/// What [`step_full`] needs besides the decoder state.
struct Fast {
    lut: *const u32,
    ring: *const u8,
    ring_sa: u32,
    upto: u32,
    below: u32,
    mask: u32,
}

/// Step `S` of [`tile_full`]: every state decodes a symbol (byte `S·SPL + s` of the lane's
/// symbols), then reads a word (the ring index is masked, so the read stays inside the warp's
/// ring) and keeps it only when it needs one. `r`: the cursor ([`cursor_of`]).
#[inline(always)]
unsafe fn step_full<T: Thread, const SPL: u32, const S: u32>(
    t: &T,
    f: &Fast,
    xs: &mut [u32; 2],
    r: &mut u32,
    acc: &mut Syms,
) {
    let mut need = [false; 2];
    for s in 0..SPL as usize {
        let x = xs[s];
        let v = *f.lut.add((x & f.mask) as usize);
        acc.put((S * SPL) as usize + s, v);
        let x = lut_step(v, x);
        xs[s] = x;
        need[s] = x < L;
    }
    let b0 = t.ballot(need[0]);
    let b1 = if SPL == 2 { t.ballot(need[1]) } else { 0 };
    // The k-th flagged state reads the word at p − 2 − 2k, index r − k. State 0 of
    // this lane is the k-th (k: the flags before it), state 1 the (k + need0)-th: the entry at
    // the latter (the flags up to state 0) holds both, state 1's word low and state 0's high.
    // `x << 16 | w` by a PRMT.
    let k1 = b0.wrapping_mul(f.upto).count_ones() + b1.wrapping_mul(f.below).count_ones();
    let cs = cursor_shift(SPL);
    let w = ring_entry(f.ring, f.ring_sa, r.wrapping_sub(k1 << cs) << (2 - cs));
    if need[0] {
        xs[0] = prmt(w, xs[0], 0x5432);
    }
    if SPL == 2 && need[1] {
        xs[1] = prmt(w, xs[1], 0x5410);
    }
    *r = r.wrapping_sub((b0.count_ones() + b1.count_ones()) << cs);
}
