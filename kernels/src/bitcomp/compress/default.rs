//! Algorithm 0 (default): the byte run-length coder of a block's plane bitmap, warp-parallel
//! and byte-identical to the CPU reference: the class pass, the general steps over pairs of
//! windows, and the tokens laid out backward from the payload's end.
use super::{zero_bytes32, BLOCK_SIZE, LOW_SLOTS, NEAR_OPS, SEG, SEG_WORDS};
use crate::warp::warp_scan;
use crate::Thread;

/// Bit 7 of every byte: the flag bits of the byte masks below.
const HI: u32 = 0x8080_8080;

/// Token flags of the 4 bitmap bytes `c..c + 4`, as byte masks (bit 7 of byte `m` for byte
/// `c + m`).
struct Flags {
    /// The byte starts a token (a long run, or a literal segment).
    start: u32,
    /// The byte goes to the literal stream (a literal, or the byte of a class-6 run).
    keep: u32,
    /// The byte lies in a maximal run of ≥ 3 equal bytes (a long run).
    run: u32,
}

/// Byte masks of the word `cur` at bitmap byte `c` (`next`: bytes `c + 4..c + 8`): which byte
/// equals the next one (`eq1`) and which starts a run of 3 equal bytes (`e3`). A run of 3 must
/// end inside the bitmap, so in the block's `last` word only bytes 0 and 1 can start one.
#[inline(always)]
fn runs3(cur: u32, next: u32, last: bool) -> (u32, u32) {
    let n1 = cur >> 8 | next << 24; // byte m = B[c + m + 1]
    let n2 = cur >> 16 | next << 16; // byte m = B[c + m + 2]
    let eq1 = zero_bytes32(cur ^ n1);
    let e3 = eq1 & zero_bytes32(cur ^ n2);
    (eq1, if last { e3 & 0x8080 } else { e3 })
}

/// What a word passes to the next one in one register: its `e3` bytes 1-3 (bits 15, 23, 31;
/// the runs that reach into the next word) and its `eq1` byte 3 (as bit 7).
#[inline(always)]
fn carry(eq1: u32, e3: u32) -> u32 {
    (e3 & 0x8080_8000) | (eq1 >> 24 & 0x80)
}

/// The carry before bitmap byte 0: byte 0 starts a token (as after a run of 3 ending at
/// byte −1, which differs from byte 0).
const BLOCK_START: u32 = 0x8000;

/// Flags of the word `cur` with masks `eq1`, `e3` ([`runs3`]) after a word that passed `carry`.
/// Token decisions are local: a byte is in a long run iff a run of 3 equal bytes starts at it
/// or at one of the two bytes before; a long run starts where the byte differs from the
/// previous one; a literal token starts after a long run.
#[inline(always)]
fn flags(cur: u32, eq1: u32, e3: u32, carry: u32) -> Flags {
    let pe3 = carry & 0x8080_8000;
    let run = e3 | (e3 << 8 | pe3 >> 24) | (e3 << 16 | pe3 >> 16);
    // Whether the previous word's byte 3 is in a long run.
    let before = (pe3 | pe3 << 8 | pe3 << 16) >> 24;
    let run_before = run << 8 | before;
    let differs = !(eq1 << 8 | carry & 0x80) & HI;
    let lit = !run & HI;
    let special = zero_bytes32(cur) | zero_bytes32(!cur);
    Flags { start: (run & differs) | (lit & run_before), keep: lit | (run & differs & !special), run }
}

/// Op byte of a token, its low byte, and whether it takes the low byte (long form).
#[inline(always)]
fn op_byte(class: u32, len: u32) -> (u8, u8, bool) {
    let x = len.wrapping_sub(if class == 0 { 1 } else { 3 });
    // Arithmetic, not a branch: the loop closing tokens stays one path.
    let long = x >= 32;
    (((class | long as u32) << 5 | x >> (8 * long as u32)) as u8, x as u8, long)
}

/// Token classes of the 4 bytes of `cur` (bits 1-2 of each byte: 0 literal, 2 run of 0x00,
/// 4 run of 0xff, 6 run of another byte), from the byte mask `run` (bytes in a long run).
#[inline(always)]
fn classes(cur: u32, run: u32) -> u32 {
    let (z, o) = (zero_bytes32(cur), zero_bytes32(!cur));
    // bit 1: a run of a byte other than 0xff; bit 2: a run of a byte other than 0x00.
    (run & !o) >> 6 | (run & !z) >> 5
}

/// Byte `q` of the coded block (zero-padded to 8192 bytes, signed-mapped) of the `nb` input
/// bytes at `src`.
#[inline(always)]
unsafe fn coded_byte(src: *const u8, nb: usize, width: usize, signed: bool, q: usize) -> u8 {
    let v = if q < nb { *src.add(q) } else { 0 };
    let top = q | (width - 1);
    if signed && top < nb && *src.add(top) & 0x80 != 0 {
        v ^ if q == top { 0x7f } else { 0xff }
    } else {
        v
    }
}

/// Algorithm 0: stages the payload of the bitmap; its length, or `None` for a raw block.
///
/// Where a block's token ops go: the low slots (16 bits each, the last token's last), the near
/// ops in the token buffer (`near[0]`: the scratch byte) and the output's scratch space.
struct Ops {
    slots: *mut u16,
    near: *mut u8,
    scratch: *mut u8,
}

impl Ops {
    /// Op `k - 1` goes to `near[k]` (`near[0]`: the scratch byte; k ≤ [`NEAR_OPS`]) or to the
    /// scratch space.
    #[inline(always)]
    unsafe fn put(&self, k: usize, op: u8) {
        if k <= NEAR_OPS {
            *self.near.add(k) = op;
        } else {
            *self.scratch.add(k - 1) = op;
        }
    }
}

/// The walk's running state: literal bytes and tokens so far, the open token
/// ((start + 1) << 3 | class, 0 before the first) and the lowest bitmap address loaded since
/// the last warp sync (`u32::MAX`: none), all warp-uniform, and the long forms among the tokens
/// this lane closed.
struct Walk {
    kept: u32,
    tokens: u32,
    open: u32,
    guard: u32,
    lows: u32,
}

impl Walk {
    /// Called by all lanes between a step's loads and its literal stores, which end at bitmap
    /// address `end` (exclusive): syncs the warp iff a store can reach a byte that a lane
    /// loaded since the last sync (shuffles and ballots do not order shared memory), so that
    /// no lane overwrites a byte before another lane's load of it.
    #[inline(always)]
    fn fence<T: Thread>(&mut self, t: &T, end: u32) {
        if end > self.guard {
            t.sync_warp();
            self.guard = u32::MAX;
        }
    }
}

/// The warp walks the bitmap in 64 windows of 128 bytes (one 4-byte word per lane; a
/// window is a padded segment), two per step, after a class pass (module docs): flat pairs are
/// skipped, literal pairs copied to the literal stream. Otherwise each lane derives its words'
/// [`flags`] (the carry from the word before: a lower lane's, window a's last word's, or the
/// class pass's; the next word from the segment's gap, which holds a copy of the next
/// segment's first word), one packed warp scan gives the literal and token offsets, and
/// literals are stored forward at once (consecutive lanes, consecutive bytes) in place: payload
/// byte `2 + j` of literal `j` at bitmap byte `P ≥ j` is below the padded address of every later
/// byte (`pad(x) ≥ x + 4` from the second segment on), so no load follows a store to its byte.
/// The stores do overwrite bytes that other lanes loaded (in the class pass, an earlier step or
/// this one), so a step syncs the warp between its loads and stores when they can reach a byte
/// loaded since the last sync ([`Walk::fence`]): each step while the stream keeps up with the
/// walk (near-literal data), rarely otherwise (the stream falls behind the loads by 8 bytes of
/// padding per pair and by each byte a token codes). Token starts close the token before them
/// (a ballot finds the open token of a lower lane, else of an earlier window); the closed
/// token's op byte goes to `tk` at its token index (the first [`NEAR_OPS`]; the rest, up to
/// [`OPS`](super::OPS), to `scratch`: the block's 8 KiB of the output), a long form's low byte
/// to the slot of its end. After the walk the ops are laid out backward from the payload's end,
/// the low bytes below them.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn default_block<T: Thread>(
    t: &T,
    bm: *mut u8,
    tk: *mut u8,
    scratch: *mut u8,
    src: *const u8,
    nb: usize,
    width: usize,
    signed: bool,
) -> Option<usize> {
    let lane = t.lane();
    let segs = BLOCK_SIZE / SEG;
    let bw = bm as *mut u32;
    // The gap after each segment gets a copy of the next segment's first word (zero after the
    // last): lane 31's next word.
    for s in [lane as usize, lane as usize + 32] {
        *bw.add(SEG_WORDS * s + SEG / 4) = if s + 1 < segs { *bw.add(SEG_WORDS * (s + 1)) } else { 0 };
    }
    // The token buffer: the low slots, a scratch byte (the "token before the first": the first
    // start closes it without a test), the near ops; op `k - 1` goes to `near[k]` (`near[0]`:
    // the scratch byte; k ≤ NEAR_OPS) or to the scratch space. The walk's slots (ends below
    // the block's end) start empty; the last slot is the last token's, written after the walk.
    let slots = tk as *mut u16;
    let near = tk.add(2 * LOW_SLOTS);
    let ops = Ops { slots, near, scratch };
    let mut z = lane as usize;
    while z < (LOW_SLOTS - 1) / 2 {
        *(slots as *mut u32).add(z) = 0;
        z += 32;
    }
    t.sync_warp();
    // Classes of the 64 windows, lane `l` taking windows 2l and 2l + 1 (a pair, one step of
    // the walk below), each a sequential pass over its 32 words (independent loads, no warp
    // traffic): `flat`, every byte equals the byte before; `literal`, no run of 3 starts from
    // 3 bytes before the window to its end; and the carry out of its last word.
    let (flat_a, lit_a, carry_even) = classify(bw, 2 * lane as usize);
    let (flat_b, lit_b, carry_out) = classify(bw, 2 * lane as usize + 1);
    let (flat_a_windows, flat_b_windows) = (t.ballot(flat_a), t.ballot(flat_b));
    let flat_pairs = flat_a_windows & flat_b_windows;
    let literal_pairs = t.ballot(lit_a && lit_b);
    // Warp-uniform running state ([`Walk`]); the class pass loaded the bitmap from address 0
    // on since the last sync.
    let mut st = Walk { kept: 0, tokens: 0, open: 0, guard: 0, lows: 0 };
    // The pairs to visit: all but those inside one long run (pair 0 opens the first token).
    let mut todo = !flat_pairs | 1;
    while todo != 0 {
        let pair = todo.trailing_zeros();
        todo &= todo - 1;
        // Two windows per step (independent chains): `a` = window w, `b` = window w + 1.
        let w = 2 * pair as usize;
        let at = bw.add(SEG_WORDS * w + lane as usize);
        let (ca, cb) = (*at, *at.add(SEG_WORDS));
        // This step loads from the pair's first word on.
        st.guard = st.guard.min((4 * SEG_WORDS * w) as u32);
        // Every byte a literal of the open literal token (mantissa planes, mostly): the 256
        // bytes go to the literal stream as they are, one aligned word per lane and window.
        if literal_pairs >> pair & 1 != 0 {
            literal_pair(t, bm, &mut st, ca, cb);
            st.kept += 2 * SEG as u32;
            continue;
        }
        if flat_b_windows >> pair & 1 != 0 {
            general_step::<T, false>(
                t,
                bm,
                &ops,
                &mut st,
                w,
                at,
                ca,
                cb,
                t.shfl_idx(carry_out, pair.wrapping_sub(1) & 31),
            )
        } else if flat_a_windows >> pair & 1 != 0 {
            // Window b alone, after the flat window a (whose carry it takes).
            general_step::<T, false>(
                t,
                bm,
                &ops,
                &mut st,
                w + 1,
                at.add(SEG_WORDS),
                cb,
                cb,
                t.shfl_idx(carry_even, pair),
            )
        } else {
            general_step::<T, true>(
                t,
                bm,
                &ops,
                &mut st,
                w,
                at,
                ca,
                cb,
                t.shfl_idx(carry_out, pair.wrapping_sub(1) & 31),
            )
        }
    }
    // The last token ends at the block's end.
    let (op_l, low_l, long_l) = op_byte(st.open & 7, BLOCK_SIZE as u32 + 1 - (st.open >> 3));
    if lane == 0 {
        ops.put(st.tokens as usize, op_l);
        *slots.add(LOW_SLOTS - 1) = if long_l { low_l as u16 | 0x100 } else { 0 };
    }
    let (_, nl) = warp_scan(t, st.lows);
    let (nt, nk, nl) = (st.tokens, st.kept, nl + long_l as u32);
    let body = 2 + (nk + nl + nt) as usize;
    let plen = body.next_multiple_of(4);
    if plen >= BLOCK_SIZE {
        return None;
    }
    t.sync_warp();
    // Ops backward from the end, low bytes (slot order is token order) backward below them.
    let out = bm;
    let mut i = lane as usize;
    while i < nt as usize {
        *out.add(plen - 1 - i) = if i < NEAR_OPS { *near.add(1 + i) } else { *scratch.add(i) };
        i += 32;
    }
    let mut base = 0u32;
    let mut i = lane as usize;
    while i < LOW_SLOTS.next_multiple_of(32) {
        let e = if i < LOW_SLOTS { *slots.add(i) } else { 0 };
        let longs = t.ballot(e != 0);
        if e != 0 {
            let j = base + (longs & t.lanemask_lt()).count_ones();
            *out.add(plen - nt as usize - 1 - j as usize) = e as u8;
        }
        base += longs.count_ones();
        i += 32;
    }
    if lane == 0 {
        *out = (nt >> 8) as u8;
        *out.add(1) = nt as u8;
    }
    let q = 2 + nk as usize + lane as usize;
    if lane < 3 && q < plen - (nl + nt) as usize {
        *out.add(q) = coded_byte(src, nb, width, signed, q);
    }
    Some(plen)
}

/// Class of window `x` of the padded bitmap `bw`, by one lane on its own (a sequential pass
/// over its 32 words: independent loads, no warp traffic): `flat`, every byte equals the byte
/// before; `literal`, no run of 3 starts from 3 bytes before the window to its end; and the
/// carry out of its last word.
#[inline(always)]
unsafe fn classify(bw: *const u32, x: usize) -> (bool, bool, u32) {
    let words = bw.add(SEG_WORDS * x);
    let before = if x > 0 { *words.sub(SEG_WORDS - SEG / 4 + 1) } else { 0 };
    let fill = (before >> 24).wrapping_mul(0x0101_0101);
    // `differ`: some byte differs from `fill`; `no_run`: bit 7 of a byte clear iff a run of
    // 3 starts there (`!zero_bytes32` of `(B ^ B+1) | (B ^ B+2)`, ANDed over the words).
    const L: u32 = 0x7f7f_7f7f;
    let no_run3 = |cur: u32, next: u32| {
        let d = (cur ^ (cur >> 8 | next << 24)) | (cur ^ (cur >> 16 | next << 16));
        ((d & L).wrapping_add(L)) | d
    };
    let mut cur = *words;
    let (mut differ, mut no_run) = (0u32, no_run3(before, cur) | 0x80);
    for k in 0..SEG / 4 {
        let next = *words.add(k + 1);
        differ |= cur ^ fill;
        no_run &= no_run3(cur, next);
        cur = next;
    }
    let (eq1, e3) = runs3(*words.add(SEG / 4 - 1), cur, false);
    (x > 0 && differ == 0, x > 0 && no_run | L == u32::MAX, carry(eq1, e3))
}

/// A literal pair (every byte a literal of the open literal token: mantissa planes, mostly):
/// its 256 bytes, words `ca` (window a) and `cb` (window b) of each lane, go to the literal
/// stream as they are, from payload byte `2 + st.kept`, one aligned word per lane and window
/// (the partial words at either end byte by byte: each byte is stored once, by one lane).
#[inline(always)]
unsafe fn literal_pair<T: Thread>(t: &T, bm: *mut u8, st: &mut Walk, ca: u32, cb: u32) {
    let lane = t.lane();
    let q = 2 + st.kept as usize;
    let (r, sh) = (q % 4, 8 * (q % 4) as u32);
    let dst = bm.add(q - r) as *mut u32;
    // The word before each lane's: the lower lane's, for lane 0 of window b window a's last.
    let (wa, wb) = (t.shfl_up(ca, 1), t.shfl_up(cb, 1));
    let last_a = t.shfl_idx(ca, 31);
    let prev_b = if lane == 0 { last_a } else { wb };
    let merge = |lo: u32, hi: u32| ((lo as u64 | (hi as u64) << 32) >> (32 - sh)) as u32;
    st.fence(t, (q + 2 * SEG) as u32);
    if lane == 0 {
        // Bytes `q..` of the first word: the ones before `q` are earlier literals.
        let v = ca << sh;
        for k in 0..4 {
            if k >= r {
                *dst.cast::<u8>().add(k) = (v >> (8 * k)) as u8;
            }
        }
    } else {
        *dst.add(lane as usize) = merge(wa, ca);
    }
    *dst.add(32 + lane as usize) = merge(prev_b, cb);
    if lane == 31 {
        // The last `r` bytes, the top of `cb`.
        let v = merge(cb, 0);
        for k in 0..4 {
            if k < r {
                *dst.add(64).cast::<u8>().add(k) = (v >> (8 * k)) as u8;
            }
        }
    }
}

/// The general step of window `w` (words `ca`, at `at`) and, with `TWO`, window `w + 1`
/// (words `cb`): a flat window adds no token or literal, so the other window alone is the
/// cheaper step. `carry_in` is the carry of the window before `w`, for lane 0. All lanes call
/// this together.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn general_step<T: Thread, const TWO: bool>(
    t: &T,
    bm: *mut u8,
    ops: &Ops,
    st: &mut Walk,
    w: usize,
    at: *mut u32,
    ca: u32,
    cb: u32,
    carry_in: u32,
) {
    let lane = t.lane();
    let segs = BLOCK_SIZE / SEG;
    let (na, nb) = (*at.add(1), if TWO { *at.add(SEG_WORDS + 1) } else { 0 });
    let (eq1a, e3a) = runs3(ca, na, w + 1 == segs && lane == 31);
    let (eq1b, e3b) = runs3(cb, nb, w + 2 == segs && lane == 31);
    let (ka, kb) = (carry(eq1a, e3a), carry(eq1b, e3b));
    let upa = t.shfl_up(ka, 1);
    let upb = if TWO { t.shfl_up(kb, 1) } else { 0 };
    // Lane 0's carries: window w − 1's (from the classes), window a's last word.
    let carry_a = if TWO { t.shfl_idx(ka, 31) } else { 0 };
    let pa = if lane != 0 {
        upa
    } else if w == 0 {
        BLOCK_START
    } else {
        carry_in
    };
    let pb = if lane == 0 { carry_a } else { upb };
    let fa = flags(ca, eq1a, e3a, pa);
    let fb = if TWO { flags(cb, eq1b, e3b, pb) } else { Flags { start: 0, keep: 0, run: 0 } };
    // Kept bytes and token starts of both windows (at most 128 each): one scan.
    let x =
        fa.keep.count_ones() | fa.start.count_ones() << 8 | fb.keep.count_ones() << 16 | fb.start.count_ones() << 24;
    let (excl, total) = warp_scan(t, x);
    let (kept_a, toks_a) = (total & 0xff, (total >> 8) & 0xff);
    let kept = kept_a + ((total >> 16) & 0xff);
    st.fence(t, 2 + st.kept + kept);
    let mut qa = 2 + (st.kept + (excl & 0xff)) as usize;
    let mut qb = 2 + (st.kept + kept_a + ((excl >> 16) & 0xff)) as usize;
    for m in 0..4 {
        if (fa.keep >> (8 * m + 7)) & 1 != 0 {
            *bm.add(qa) = (ca >> (8 * m)) as u8;
            qa += 1;
        }
        if (fb.keep >> (8 * m + 7)) & 1 != 0 {
            *bm.add(qb) = (cb >> (8 * m)) as u8;
            qb += 1;
        }
    }
    if t.ballot(fa.start | fb.start != 0) != 0 {
        let (clsa, clsb) = (classes(ca, fa.run), classes(cb, fb.run));
        let c = (SEG * w) as u32 + 4 * lane;
        // This lane's last start in each window, packed as `st.open`.
        let last_start = |start: u32, cls: u32, c: u32| {
            // Branch-free: the value for no start is selected away.
            let m = 31u32.wrapping_sub(start.leading_zeros()) >> 3;
            let h = (c.wrapping_add(m) + 1) << 3 | cls.wrapping_shr(8 * m) & 7;
            if start == 0 {
                0
            } else {
                h
            }
        };
        let (ha, hb) = (last_start(fa.start, clsa, c), last_start(fb.start, clsb, c + SEG as u32));
        // The st.open token before each lane's starts: the last start of the nearest lower lane
        // with one (starts grow with the lane), else of an earlier window.
        let ma = t.ballot(ha != 0);
        let mb = if TWO { t.ballot(hb != 0) } else { 0 };
        let highest = |m: u32| 31 - m.leading_zeros().min(31);
        let (below_a, below_b) = (ma & t.lanemask_lt(), mb & t.lanemask_lt());
        let near_a = t.shfl_idx(ha, highest(below_a));
        let near_b = if TWO { t.shfl_idx(hb, highest(below_b)) } else { 0 };
        let top_a = if ma != 0 { t.shfl_idx(ha, highest(ma)) } else { st.open };
        let oa = if below_a != 0 { near_a } else { st.open };
        let ob = if below_b != 0 { near_b } else { top_a };
        let ka = st.tokens + ((excl >> 8) & 0xff);
        let kb = st.tokens + toks_a + (excl >> 24);
        for (start, cls, c, mut o, mut k) in [(fa.start, clsa, c, oa, ka), (fb.start, clsb, c + SEG as u32, ob, kb)] {
            let mut s = start;
            while s != 0 {
                let m = s.trailing_zeros() >> 3;
                s &= s - 1;
                let p = c + m;
                // The block's first start (byte 0, `o` = 0) closes a one-byte "token" whose
                // op goes to the scratch byte.
                let (op, low, long) = op_byte(o & 7, (p + 1).wrapping_sub(o >> 3));
                ops.put(k as usize, op);
                // Only a long form has a low byte (a predicated store: one slot per long token).
                if long {
                    *ops.slots.add((p >> 5) as usize) = low as u16 | 0x100;
                }
                st.lows += long as u32;
                o = (p + 1) << 3 | (cls >> (8 * m)) & 7;
                k += 1;
            }
        }
        st.open = if mb != 0 { t.shfl_idx(hb, highest(mb)) } else { top_a };
    }
    st.kept += kept;
    st.tokens += toks_a + (total >> 24);
}
