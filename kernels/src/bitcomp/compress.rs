//! Bitcomp compression: one thread block (8 warps) per chunk; the chunk's 8 KiB blocks are
//! encoded in rounds, one block per warp, each warp-parallel and byte-identical to
//! `gpucomp::cpu::bitcomp::encode_block`.
//!
//! Per block (all steps warp-wide, `__syncwarp` between them):
//!
//! 1. **Planes** ([`to_bitmap`]): lane `g` takes groups of 8 elements `g, g + 32, …`: wide loads
//!    (16-byte when the block is whole and aligned, issued in batches before the batch's stores;
//!    byte loads with zero fill otherwise), the signed mapping on whole elements (monomorphised
//!    away for unsigned types and floats), then the bit transpose. After wide loads of 4- or
//!    8-byte elements the group's 8 words (per 4 bytes of width) are transposed in place as
//!    four 8×8 bit blocks ([`transpose_blocks8`]: byte `b` of word `c` is then the plane of bit
//!    `8b + c`, no byte gather); otherwise the element bytes are gathered into rows (4 byte
//!    permutes, `prmt`, for a group of halves; an 8×8 byte transpose after byte loads; a group
//!    of bytes is one row) and each row takes one 8×8 bit transpose. Each plane byte is stored
//!    into the warp's 8 KiB bitmap, at a constant offset per plane from the group's byte.
//!    Consecutive lanes store consecutive bytes of a plane: no bank conflicts.
//! 2. **Encode**: the bitmap is cut into 64 segments of 128 bytes, stored with a 4-byte gap
//!    after each, which holds a copy of the next segment's first word.
//!    * *default* (algorithm 0, [`default_block`]): first a class pass, lane `l` walking
//!      segments `2l` and `2l + 1` (a *pair*) word by word on its own (independent loads, no
//!      warp traffic): a segment is *flat* if all its bytes equal the byte before it (inside one
//!      long run, as the high planes of small integers), *literal* if no run of 3 equal bytes
//!      starts from 3 bytes before it to its end (every byte a literal of the open literal
//!      token, as mantissa planes); two ballots give the flat and literal pairs. Then one pass
//!      over the pairs in order, skipping flat pairs altogether; a literal pair's 256 bytes go
//!      to the literal stream as they are (one funnel-shifted aligned word per lane and
//!      segment). Any other pair takes the general step, its two segments (*windows*) as two
//!      independent chains, lane `l` taking word `l` of each (consecutive words, no bank
//!      conflicts); a pair with one flat window takes the general step of the other window
//!      alone (a flat window adds no token or literal). All token decisions are local (byte-RLE of maximal runs ≥ 3): from the
//!      word, the next one and the carry of the one before (a lower lane's, by a shuffle, or
//!      the previous segment's, from the class pass), [`flags`] derives with 32-bit SWAR byte
//!      compares (byte masks) which bytes are in a long run, which start a token and which go
//!      to the literal stream. One packed warp scan (four 8-bit counts) places both windows'
//!      literal bytes, which are stored at once (consecutive lanes, consecutive bytes) in place
//!      at the bitmap's front: literal `j` goes to payload byte `2 + j`, at most 2 past its own
//!      bitmap byte, below the padded addresses of every byte still to be read. Tokens are
//!      numbered by the same scan; a token start closes the token before it (the nearest
//!      lower lane's last start, found by a ballot, or an earlier window's), whose op byte goes
//!      to the warp's token buffer at its token index (the first 600; a block with more, which
//!      is rare and close to raw, puts the rest in its 8 KiB of the output, which no payload
//!      reaches before the round's blocks are placed) and, for a long form, its low byte to
//!      slot `end / 32` (the slots of the long tokens, which span ≥ 33 bytes, are distinct and
//!      in token order). At the end the op bytes are laid out backward from the payload's end
//!      and the low bytes below them, 32 per step.
//!    * *sparse* (algorithm 1, [`sparse_block`]): pass 1, lane `l` takes one L0 region
//!      (segments `2l` and `2l + 1`): its L1 word and nonzero byte count; a ballot gives L0,
//!      warp scans the L2/L3 sizes. Pass 2 walks the nonempty regions in order, one 8-byte
//!      group per lane: L2 bytes go to the token buffer, the nonzero bytes (placed by a warp
//!      scan) move down in place at the bitmap's front. Then L0, L1 and L2 (the head) are
//!      staged at the top of the bitmap, above L3.
//! 3. **Raw decision** (warp-uniform): a payload of ≥ 8192 bytes (after padding to 4) is
//!    replaced by the block's input bytes, zero-padded to 8192, copied global to global.
//! 4. **Place**: each warp publishes its block's word count in shared memory; after a barrier
//!    the block's word offset is the running sum of the previous rounds' counts plus those of
//!    the lower warps of this round. Lane 0 writes the table entry, the warp copies the staged
//!    payload out with 16-byte stores (4-byte or byte stores when the output is less aligned;
//!    a sparse payload's head from the top of the bitmap, then its L3 bytes with 4-byte stores
//!    of funnel-shifted words). After the last round thread 0 writes the header.
//!
//! Shared memory per warp: the padded bitmap (8448 bytes), which also stages the payload, and
//! the token buffer (default: 257 low slots of 16 bits, a spare slot, a scratch byte and 600
//! op bytes; sparse: up to 1024 L2 bytes), 9568 bytes, so that three blocks of 8 warps fit an
//! SM of an H100 or H200; geometry and registers in [`crate::bitcomp`]. The output beyond the chunk, up
//! to `max_compressed_chunk_size`, is scratch space (a block's ops beyond 600).
//!
//! The padding of a default block is the coded block's bytes at the same payload offsets (as
//! the CPU writer), of a sparse block zeros. Inputs: any length up to 16 MiB (else
//! `CHUNK_SIZE_TOO_LARGE`, `out_bytes` 0), any alignment (unaligned or tail blocks take byte
//! loads), `type_code` < 8 and `algorithm` < 2 (else `INVALID_VALUE`).
use super::decompress::BLOCK_SIZE;
use crate::batch::{self, CompressArgs, SizeArgs};
use crate::bits::{prmt, transpose8, transpose_blocks8, transpose_bytes};
use crate::warp::warp_scan;
use crate::{status, Thread};

/// Largest chunk the kernel compresses (nvCOMP's Bitcomp limit).
pub const MAX_CHUNK_SIZE: u64 = 1 << 24;
/// Bytes of the chunk header.
const HEADER: usize = 32;
/// Bitmap bytes per segment: the default algorithm's window, one word per lane (sparse L0
/// regions are 2 segments, one per lane).
const SEG: usize = 128;
/// Bytes per sparse L0 region.
const REGION: usize = 256;
/// Words per segment in shared memory: 32 data words and a 1-word gap.
const SEG_WORDS: usize = SEG / 4 + 1;

/// Words of a warp's padded bitmap (64 segments of 32 data words and a gap word).
const BITMAP_WORDS: usize = BLOCK_SIZE / SEG * SEG_WORDS;

/// Warps per thread block: one chunk per thread block, one 8 KiB block per warp at a time.
const WARPS: usize = super::COMPRESS_WARPS as usize;

/// Op bytes of a block's tokens, at most: tokens cover the 8192 bitmap bytes, runs take at
/// least 3 and no two literal tokens are adjacent.
const OPS: usize = BLOCK_SIZE / 2;
/// Ops kept in shared memory; the rest (blocks of more tokens: rare, and near raw) go to the
/// output's scratch space, op `i` to byte `i` of the block's 8 KiB of it. 600 lets three
/// thread blocks share an H100's or H200's 228 KB (with 1 KB reserved each).
const NEAR_OPS: usize = 600;
const _: () = assert!(OPS <= BLOCK_SIZE);
/// Low-byte slots of a block: a long token's low byte goes to slot `end / 32` of its end
/// (exclusive, up to 8192); a long token spans at least 33 bytes, so two never share a slot.
const LOW_SLOTS: usize = BLOCK_SIZE / 32 + 1;
/// Sparse L2 bytes of a block, at most: one per nonempty 8-byte group.
const L2_BYTES: usize = BLOCK_SIZE / 8;
/// Words of a warp's token buffer: for a default block the low slots (16 bits each), a spare
/// slot, a scratch byte and the first [`NEAR_OPS`] ops; for a sparse one the L2 bytes.
const TOKEN_WORDS: usize = {
    let default = 2 * (LOW_SLOTS + 1) + 1 + NEAR_OPS;
    if default > L2_BYTES {
        default
    } else {
        L2_BYTES
    }
}
.div_ceil(4);

/// Shared memory of one thread block: per warp the block's plane bitmap (padded segments),
/// which also stages the payload, and its token buffer; the payload words of each warp's block
/// in the current round.
#[repr(C, align(16))]
pub struct Shared {
    bitmap: [[u32; BITMAP_WORDS]; WARPS],
    tokens: [[u32; TOKEN_WORDS]; WARPS],
    words: [u32; WARPS],
}

/// Address of bitmap byte `x` in the padded layout.
#[inline(always)]
const fn pad(x: usize) -> usize {
    x + ((x >> 7) << 2)
}

/// Bitmap word at byte `c` (a multiple of 4, below 8192).
#[inline(always)]
unsafe fn ld(bm: *const u8, c: usize) -> u32 {
    *(bm.add(pad(c)) as *const u32)
}

/// 0x80 in every zero byte of `d`, 0 elsewhere (exact: no borrows between bytes).
#[inline(always)]
fn zero_bytes64(d: u64) -> u64 {
    const L: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((d & L).wrapping_add(L)) | d | L)
}

/// As [`zero_bytes64`] for 4 bytes.
#[inline(always)]
fn zero_bytes32(d: u32) -> u32 {
    const L: u32 = 0x7f7f_7f7f;
    !(((d & L).wrapping_add(L)) | d | L)
}

/// Bit `k` set iff byte `k` of `a` equals byte `k` of `b`.
#[inline(always)]
fn eq_bits(a: u64, b: u64) -> u32 {
    // Bit 8k -> bit 56 + k; the cross products land on distinct bits below 56 or above 63.
    ((zero_bytes64(a ^ b) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

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
/// The warp walks the bitmap in 64 windows of 128 bytes (one 4-byte word per lane; a
/// window is a padded segment), two per step, after a class pass (module docs): flat pairs are
/// skipped, literal pairs copied to the literal stream. Otherwise each lane derives its words'
/// [`flags`] (the carry from the word before: a lower lane's, window a's last word's, or the
/// class pass's; the next word from the segment's gap, which holds a copy of the next
/// segment's first word), one packed warp scan gives the literal and token offsets, and
/// literals are stored forward at once (consecutive lanes, consecutive bytes) in place: payload
/// byte `2 + j` of literal `j` at bitmap byte `P ≥ j` is below the padded address of every later
/// byte (`pad(x) ≥ x + 4` from the second segment on; a literal pair's word stores end at most
/// 3 bytes further), and the bytes of this step were loaded before the scan (or the shuffles)
/// that all lanes pass before storing. Token starts close the token before them (a ballot finds
/// the open token of a lower lane, else of an earlier window); the closed token's op byte goes
/// to `tk` at its token index (the first [`NEAR_OPS`]; the rest, up to [`OPS`], to `scratch`:
/// the block's 8 KiB of the output), a long form's low byte to the slot of its end.
/// After the walk the ops are laid out backward from the payload's end, the low bytes below
/// them.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn default_block<T: Thread>(
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
    // The token buffer: the low slots, a spare slot (short forms' low bytes: never read), a
    // scratch byte (the "token before the first": the first start closes it without a test), the
    // near ops; op `k - 1` goes to `near[k]` (`near[0]`: the scratch byte; k ≤ NEAR_OPS) or to
    // the scratch space.
    let slots = tk as *mut u16;
    let near = tk.add(2 * (LOW_SLOTS + 1));
    let put_op = |k: usize, op: u8| {
        if k <= NEAR_OPS {
            *near.add(k) = op;
        } else {
            *scratch.add(k - 1) = op;
        }
    };
    let mut z = lane as usize;
    while z < LOW_SLOTS.div_ceil(2) {
        *(slots as *mut u32).add(z) = 0;
        z += 32;
    }
    t.sync_warp();
    // Classes of the 64 windows, lane `l` taking windows 2l and 2l + 1 (a pair, one step of
    // the walk below), each a sequential pass over its 32 words (independent loads, no warp
    // traffic): `flat`, every byte equals the byte before; `literal`, no run of 3 starts from
    // 3 bytes before the window to its end; and the carry out of its last word.
    let classify = |x: usize| {
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
    };
    let (flat_a, lit_a, carry_even) = classify(2 * lane as usize);
    let (flat_b, lit_b, carry_out) = classify(2 * lane as usize + 1);
    let (flat_a_windows, flat_b_windows) = (t.ballot(flat_a), t.ballot(flat_b));
    let flat_pairs = flat_a_windows & flat_b_windows;
    let literal_pairs = t.ballot(lit_a && lit_b);
    // Warp-uniform running state: literal bytes and tokens so far, the open token
    // ((start + 1) << 3 | class, 0 before the first).
    let (mut kept, mut tokens, mut open) = (0u32, 0u32, 0u32);
    // Long forms among the tokens this lane closed.
    let mut lows = 0u32;
    // The pairs to visit: all but those inside one long run (pair 0 opens the first token).
    let mut todo = !flat_pairs | 1;
    while todo != 0 {
        let pair = todo.trailing_zeros();
        todo &= todo - 1;
        // Two windows per step (independent chains): `a` = window w, `b` = window w + 1.
        let w = 2 * pair as usize;
        let at = bw.add(SEG_WORDS * w + lane as usize);
        let (ca, cb) = (*at, *at.add(SEG_WORDS));
        // Every byte a literal of the open literal token (mantissa planes, mostly): the 256
        // bytes go to the literal stream as they are, one aligned word per lane and window.
        if literal_pairs >> pair & 1 != 0 {
            let q = 2 + kept as usize;
            let sh = 8 * (q % 4) as u32;
            let dst = bm.add(q - q % 4) as *mut u32;
            // The word before each lane's: the lower lane's, for lane 0 of window b window a's
            // last; the bytes before `q` (lane 0 of window a) stay.
            let (wa, wb) = (t.shfl_up(ca, 1), t.shfl_up(cb, 1));
            let last_a = t.shfl_idx(ca, 31);
            let prev_b = if lane == 0 { last_a } else { wb };
            let merge = |lo: u32, hi: u32| ((lo as u64 | (hi as u64) << 32) >> (32 - sh)) as u32;
            *dst.add(lane as usize) =
                if lane == 0 { ca << sh | *dst & ((1u64 << sh) - 1) as u32 } else { merge(wa, ca) };
            *dst.add(32 + lane as usize) = merge(prev_b, cb);
            if lane == 31 && sh != 0 {
                *dst.add(64) = merge(cb, 0);
            }
            kept += 2 * SEG as u32;
            continue;
        }
        // The general step of window a and, with `$two`, window b (a flat window adds no token
        // or literal: the other window alone is the cheaper step); `carry_in` is the carry of
        // the window before a, for lane 0.
        macro_rules! general {
            ($two:expr, $w:expr, $at:expr, $ca:expr, $carry_in:expr) => {{
                let (w, at, ca, carry_in): (usize, *mut u32, u32, u32) = ($w, $at, $ca, $carry_in);
                let (na, nb) = (*at.add(1), if $two { *at.add(SEG_WORDS + 1) } else { 0 });
                let (eq1a, e3a) = runs3(ca, na, w + 1 == segs && lane == 31);
                let (eq1b, e3b) = runs3(cb, nb, w + 2 == segs && lane == 31);
                let (ka, kb) = (carry(eq1a, e3a), carry(eq1b, e3b));
                let upa = t.shfl_up(ka, 1);
                let upb = if $two { t.shfl_up(kb, 1) } else { 0 };
                // Lane 0's carries: window w − 1's (from the classes), window a's last word.
                let carry_a = if $two { t.shfl_idx(ka, 31) } else { 0 };
                let pa = if lane != 0 {
                    upa
                } else if w == 0 {
                    BLOCK_START
                } else {
                    carry_in
                };
                let pb = if lane == 0 { carry_a } else { upb };
                let fa = flags(ca, eq1a, e3a, pa);
                let fb = if $two { flags(cb, eq1b, e3b, pb) } else { Flags { start: 0, keep: 0, run: 0 } };
                // Kept bytes and token starts of both windows (at most 128 each): one scan.
                let x = fa.keep.count_ones()
                    | fa.start.count_ones() << 8
                    | fb.keep.count_ones() << 16
                    | fb.start.count_ones() << 24;
                let (excl, total) = warp_scan(t, x);
                let (kept_a, toks_a) = (total & 0xff, (total >> 8) & 0xff);
                let mut qa = 2 + (kept + (excl & 0xff)) as usize;
                let mut qb = 2 + (kept + kept_a + ((excl >> 16) & 0xff)) as usize;
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
                    // This lane's last start in each window, packed as `open`.
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
                    // The open token before each lane's starts: the last start of the nearest lower lane
                    // with one (starts grow with the lane), else of an earlier window.
                    let ma = t.ballot(ha != 0);
                    let mb = if $two { t.ballot(hb != 0) } else { 0 };
                    let highest = |m: u32| 31 - m.leading_zeros().min(31);
                    let (below_a, below_b) = (ma & t.lanemask_lt(), mb & t.lanemask_lt());
                    let near_a = t.shfl_idx(ha, highest(below_a));
                    let near_b = if $two { t.shfl_idx(hb, highest(below_b)) } else { 0 };
                    let top_a = if ma != 0 { t.shfl_idx(ha, highest(ma)) } else { open };
                    let oa = if below_a != 0 { near_a } else { open };
                    let ob = if below_b != 0 { near_b } else { top_a };
                    let ka = tokens + ((excl >> 8) & 0xff);
                    let kb = tokens + toks_a + (excl >> 24);
                    for (start, cls, c, mut o, mut k) in
                        [(fa.start, clsa, c, oa, ka), (fb.start, clsb, c + SEG as u32, ob, kb)]
                    {
                        let mut s = start;
                        while s != 0 {
                            let m = s.trailing_zeros() >> 3;
                            s &= s - 1;
                            let p = c + m;
                            // The block's first start (byte 0, `o` = 0) closes a one-byte "token" whose
                            // op goes to the scratch byte.
                            let (op, low, long) = op_byte(o & 7, (p + 1).wrapping_sub(o >> 3));
                            put_op(k as usize, op);
                            // A short form writes the spare slot, which nothing reads: no branch.
                            *slots.add(if long { (p >> 5) as usize } else { LOW_SLOTS }) = low as u16 | 0x100;
                            lows += long as u32;
                            o = (p + 1) << 3 | (cls >> (8 * m)) & 7;
                            k += 1;
                        }
                    }
                    open = if mb != 0 { t.shfl_idx(hb, highest(mb)) } else { top_a };
                }
                kept += kept_a + ((total >> 16) & 0xff);
                tokens += toks_a + (total >> 24);
            }};
        }
        if flat_b_windows >> pair & 1 != 0 {
            general!(false, w, at, ca, t.shfl_idx(carry_out, pair.wrapping_sub(1) & 31))
        } else if flat_a_windows >> pair & 1 != 0 {
            // Window b alone, after the flat window a (whose carry it takes).
            general!(false, w + 1, at.add(SEG_WORDS), cb, t.shfl_idx(carry_even, pair))
        } else {
            general!(true, w, at, ca, t.shfl_idx(carry_out, pair.wrapping_sub(1) & 31))
        }
    }
    // The last token ends at the block's end.
    let (op_l, low_l, long_l) = op_byte(open & 7, BLOCK_SIZE as u32 + 1 - (open >> 3));
    if lane == 0 {
        put_op(tokens as usize, op_l);
        if long_l {
            *slots.add(LOW_SLOTS - 1) = low_l as u16 | 0x100;
        }
    }
    let (_, nl) = warp_scan(t, lows);
    let (nt, nk, nl) = (tokens, kept, nl + long_l as u32);
    let body = 2 + (nk + nl + nt) as usize;
    let plen = body.next_multiple_of(4);
    if plen >= BLOCK_SIZE {
        return None;
    }
    t.sync_warp();
    // Ops backward from the end, low bytes (slot order is token order) backward below them.
    let st = bm;
    let mut i = lane as usize;
    while i < nt as usize {
        *st.add(plen - 1 - i) = if i < NEAR_OPS { *near.add(1 + i) } else { *scratch.add(i) };
        i += 32;
    }
    let mut base = 0u32;
    let mut i = lane as usize;
    while i < LOW_SLOTS.next_multiple_of(32) {
        let e = if i < LOW_SLOTS { *slots.add(i) } else { 0 };
        let longs = t.ballot(e != 0);
        if e != 0 {
            let j = base + (longs & t.lanemask_lt()).count_ones();
            *st.add(plen - nt as usize - 1 - j as usize) = e as u8;
        }
        base += longs.count_ones();
        i += 32;
    }
    if lane == 0 {
        *st = (nt >> 8) as u8;
        *st.add(1) = nt as u8;
    }
    let q = 2 + nk as usize + lane as usize;
    if lane < 3 && q < plen - (nl + nt) as usize {
        *st.add(q) = coded_byte(src, nb, width, signed, q);
    }
    Some(plen)
}

/// Algorithm 1: stages the payload of the bitmap; its length and the length of its head (L0,
/// L1 and L2, staged at [`sparse_head`]; L3 and the zero padding follow at the bitmap's
/// front), or `None` for a raw block.
///
/// Pass 1: lane `l` takes L0 region `l` (its L1 word and nonzero byte count), a ballot gives
/// L0. Pass 2 walks the nonempty regions in order, lane `l` taking the region's 8-byte group
/// `l`: one warp scan places its nonzero bytes, which move down in place (a byte's L3 index
/// never exceeds its bitmap position, and the lanes' loads feed the scan before any store);
/// the L2 bytes go to the token buffer `tk`, and once the bitmap is read, to the head.
#[inline(always)]
unsafe fn sparse_block<T: Thread>(t: &T, bm: *mut u8, tk: *mut u8) -> Option<(usize, usize)> {
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
    for r in 0..32 {
        let l1r = t.shfl_idx(l1, r);
        if l1r == 0 {
            continue;
        }
        let g = REGION * r as usize + 8 * lane;
        let v = ld(bm, g) as u64 | (ld(bm, g + 4) as u64) << 32;
        let nz = !eq_bits(v, 0) & 0xff;
        let (o, n) = warp_scan(t, nz.count_ones());
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
unsafe fn sparse_head(bm: *mut u8, head: usize) -> *mut u8 {
    bm.add((4 * BITMAP_WORDS - head) & !3)
}

/// The `W`-byte little-endian element at `p + o` (bytes at and beyond `nb` read as zero).
#[inline(always)]
unsafe fn element<const W: usize>(p: *const u8, o: usize, nb: usize) -> u64 {
    let mut v = 0u64;
    for k in 0..W {
        if o + k < nb {
            v |= (*p.add(o + k) as u64) << (8 * k);
        }
    }
    v
}

/// Planes of group `g` (8 elements of width `W`: input bytes `8Wg..8W(g + 1)` of the `nb` at
/// `src`; with `FAST` they are `words`, the group's `W / 2` 16-byte words, for `W = 1` the
/// low half of one) into the padded bitmap `bm`.
#[inline(always)]
unsafe fn group<const W: usize, const FAST: bool>(
    words: [u128; 4],
    src: *const u8,
    nb: usize,
    signed: bool,
    bm: *mut u8,
    g: usize,
) {
    let groups = BLOCK_SIZE / 8 / W;
    let bits = 8 * W;
    let mask = u64::MAX >> (64 - bits);
    let at = 8 * W * g;
    // Plane p's byte g is at pad(p · groups) + pad(g): planes start on segment boundaries.
    let dst = bm.add(pad(g));
    // Plane bytes of element byte `b`: one bit transpose, most significant plane first.
    let emit = |b: usize, row: u64| {
        let y = transpose8(row);
        for k in 0..8 {
            let plane = bits - 1 - (8 * b + k);
            *dst.add(pad(plane * groups)) = (y >> (8 * k)) as u8;
        }
    };
    // Planes of element bits `low..low + 32` from 8 words after `transpose_blocks8`: byte `b` of
    // word `c` is the plane of bit `low + 8b + c`.
    let planes32 = |low: usize, w: &[u32; 8]| {
        for (c, &x) in w.iter().enumerate() {
            for b in 0..4 {
                *dst.add(pad((bits - 1 - (low + 8 * b + c)) * groups)) = (x >> (8 * b)) as u8;
            }
        }
    };
    if W == 1 {
        // The group's 8 bytes are the row of element byte 0.
        let mut v = if FAST { words[0] as u64 } else { element::<8>(src, at, nb) };
        if signed {
            v ^= ((v >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x7f);
        }
        emit(0, v);
        return;
    }
    if FAST {
        // Byte rows by byte permutes of the group's 32-bit words.
        let u = |i: usize| (words[i / 4] >> (32 * (i % 4))) as u32;
        match W {
            2 => {
                let mut w = [u(0), u(1), u(2), u(3)];
                if signed {
                    for x in &mut w {
                        *x ^= ((*x >> 15) & 0x0001_0001).wrapping_mul(0x7fff);
                    }
                }
                let row = |sel: u32| prmt(w[0], w[1], sel) as u64 | (prmt(w[2], w[3], sel) as u64) << 32;
                emit(0, row(0x6420));
                emit(1, row(0x7531));
            }
            4 => {
                let mut e: [u32; 8] = core::array::from_fn(u);
                if signed {
                    for x in &mut e {
                        *x ^= ((*x as i32 >> 31) as u32) >> 1;
                    }
                }
                transpose_blocks8(&mut e);
                planes32(0, &e);
            }
            _ => {
                let (mut lo, mut hi): ([u32; 8], [u32; 8]) =
                    (core::array::from_fn(|j| u(2 * j)), core::array::from_fn(|j| u(2 * j + 1)));
                if signed {
                    for j in 0..8 {
                        let s = (hi[j] as i32 >> 31) as u32;
                        lo[j] ^= s;
                        hi[j] ^= s >> 1;
                    }
                }
                transpose_blocks8(&mut lo);
                transpose_blocks8(&mut hi);
                planes32(0, &lo);
                planes32(32, &hi);
            }
        }
        return;
    }
    // Row j: element j, signed-mapped; after the byte transpose row b holds byte b of the
    // 8 elements.
    let e = |j: usize| {
        let v = if FAST {
            let bit = bits * j;
            (words[bit / 128] >> (bit % 128)) as u64 & mask
        } else {
            element::<W>(src, at + W * j, nb)
        };
        if signed {
            v ^ ((v >> (bits - 1)) & 1).wrapping_mul(mask >> 1)
        } else {
            v
        }
    };
    let (mut y0, mut y1, mut y2, mut y3) = (e(0), e(1), e(2), e(3));
    let (mut y4, mut y5, mut y6, mut y7) = (e(4), e(5), e(6), e(7));
    transpose_bytes(&mut y0, &mut y1, &mut y2, &mut y3, &mut y4, &mut y5, &mut y6, &mut y7);
    emit(0, y0);
    emit(1, y1);
    if W > 2 {
        emit(2, y2);
        emit(3, y3);
    }
    if W > 4 {
        emit(4, y4);
        emit(5, y5);
        emit(6, y6);
        emit(7, y7);
    }
}

/// Planes of the `nb` input bytes at `src` (width `W`, signed-mapped if `SIGNED`) into the
/// padded bitmap `bm`: lane `g`
/// takes groups `g, g + 32, …`. A whole aligned block is read in batches of eight loads per
/// lane, all issued before the batch's planes are stored, so that a batch waits for memory once
/// (the stores to shared memory would otherwise keep the next group's loads behind them).
#[inline(always)]
unsafe fn to_bitmap<T: Thread, const W: usize, const SIGNED: bool>(t: &T, src: *const u8, nb: usize, bm: *mut u8) {
    let groups = BLOCK_SIZE / 8 / W;
    let lane = t.lane() as usize;
    if nb == BLOCK_SIZE && (src as usize).is_multiple_of(16) {
        let mut g = lane;
        while g < groups {
            // Loads in flight per lane: 4 of 16 bytes (W / 2 per group), or for W = 1 8 groups of
            // 8 bytes (4, 8 and 16 measured alike; 8 wide loads spill on sm_80). Constant indices
            // only, so `q` stays in registers.
            let half = (W / 2).max(1);
            let loads = if W == 1 { 8 } else { 4 };
            let per = loads / half;
            let ld = |i: usize| {
                let at = src.add(8 * W * (g + 32 * (i / half)));
                if i >= loads {
                    0
                } else if W == 1 {
                    *(at as *const u64) as u128
                } else {
                    *(at as *const u128).add(i % half)
                }
            };
            let q: [u128; 8] = [ld(0), ld(1), ld(2), ld(3), ld(4), ld(5), ld(6), ld(7)];
            let put = |k: usize| {
                if k < per {
                    let word = |i: usize| if i < half { q[k * half + i] } else { 0 };
                    group::<W, true>([word(0), word(1), word(2), word(3)], src, nb, SIGNED, bm, g + 32 * k);
                }
            };
            put(0);
            put(1);
            put(2);
            put(3);
            put(4);
            put(5);
            put(6);
            put(7);
            g += 32 * per;
        }
    } else {
        let mut g = lane;
        while g < groups {
            group::<W, false>([0; 4], src, nb, SIGNED, bm, g);
            g += 32;
        }
    }
}

/// Stores `v` at `p` (4 bytes, little-endian; `p` 4-aligned when `aligned`).
#[inline(always)]
unsafe fn st32(p: *mut u8, v: u32, aligned: bool) {
    if aligned {
        *(p as *mut u32) = v;
    } else {
        for k in 0..4 {
            *p.add(k) = (v >> (8 * k)) as u8;
        }
    }
}

/// Copies the staged payload (`plen` bytes, a multiple of 4) to `dst`: `head` bytes at `hd`
/// (4-aligned), the rest at `st`.
#[inline(always)]
unsafe fn copy_out<T: Thread>(t: &T, hd: *const u8, head: usize, st: *const u8, plen: usize, dst: *mut u8) {
    let lane = t.lane() as usize;
    let aligned = (dst as usize).is_multiple_of(4);
    if head > 0 {
        let mut w = lane;
        while w < plen / 4 {
            let q = 4 * w;
            let v = if q + 4 <= head {
                *(hd as *const u32).add(w)
            } else if q >= head {
                // 4 bytes from `st + s`: two aligned words, funnel-shifted.
                let s = q - head;
                let (a, b) = (*(st as *const u32).add(s / 4), *(st as *const u32).add(s / 4 + 1));
                ((a as u64 | (b as u64) << 32) >> (8 * (s % 4))) as u32
            } else {
                let mut v = 0u32;
                for k in 0..4 {
                    let x = if q + k < head { *hd.add(q + k) } else { *st.add(q + k - head) };
                    v |= (x as u32) << (8 * k);
                }
                v
            };
            st32(dst.add(q), v, aligned);
            w += 32;
        }
        return;
    }
    let mut w = if (dst as usize).is_multiple_of(16) {
        let mut q = lane;
        while q < plen / 16 {
            *(dst as *mut u128).add(q) = *(st as *const u128).add(q);
            q += 32;
        }
        plen / 16 * 4 + lane
    } else {
        lane
    };
    while w < plen / 4 {
        st32(dst.add(4 * w), *(st as *const u32).add(w), aligned);
        w += 32;
    }
}

/// Stores a raw block: the `nb` bytes at `src`, zero-padded to 8192 bytes, at `dst`.
#[inline(always)]
unsafe fn copy_raw<T: Thread>(t: &T, src: *const u8, nb: usize, dst: *mut u8) {
    let lane = t.lane() as usize;
    if nb == BLOCK_SIZE && (src as usize | dst as usize).is_multiple_of(16) {
        let mut q = lane;
        while q < BLOCK_SIZE / 16 {
            *(dst as *mut u128).add(q) = *(src as *const u128).add(q);
            q += 32;
        }
        return;
    }
    let aligned = (dst as usize).is_multiple_of(4);
    let mut w = lane;
    while w < BLOCK_SIZE / 4 {
        let mut v = 0u32;
        for k in 0..4 {
            if 4 * w + k < nb {
                v |= (*src.add(4 * w + k) as u32) << (8 * k);
            }
        }
        st32(dst.add(4 * w), v, aligned);
        w += 32;
    }
}

/// Kernel body of `bitcomp_compress`: compresses chunk `i` (for `i = blockIdx.x, +gridDim.x,
/// …`) and stores its result. `type_code`: the header's element type (0 u8 … 7 i64);
/// `algorithm`: 0 default, 1 sparse.
///
/// # Safety
/// Launched with [`super::COMPRESS_BLOCK_THREADS`] threads per block; `args` valid, input `i`
/// valid for its size, output `i` for `max_compressed_chunk_size` of it, outputs overlapping
/// nothing; `smem` is this block's.
#[inline(always)]
pub unsafe fn compress<T: Thread>(t: &T, smem: *mut Shared, args: CompressArgs, type_code: u32, algorithm: u32) {
    let warp = t.warp() as usize;
    let bm = (&raw mut (*smem).bitmap).cast::<u8>().add(warp * 4 * BITMAP_WORDS);
    let tk = (&raw mut (*smem).tokens).cast::<u8>().add(warp * 4 * TOKEN_WORDS);
    let sizes = (&raw mut (*smem).words).cast::<u32>();
    let lane = t.lane();
    let width = 1usize << ((type_code >> 1) & 3);
    let signed = type_code & 1 != 0;
    for i in batch::block_chunks(t, args.num_chunks) {
        let ((src, n), dst) = (args.input(i), args.output(i));
        let result = if type_code >= 8 || algorithm >= 2 {
            Err(status::INVALID_VALUE)
        } else if n > MAX_CHUNK_SIZE {
            Err(status::CHUNK_SIZE_TOO_LARGE)
        } else {
            let n = n as usize;
            let blocks = n.div_ceil(BLOCK_SIZE);
            let base = HEADER + 8 * blocks;
            let aligned = (dst as usize).is_multiple_of(4);
            // Payload words of the blocks before this round's.
            let mut words = 0usize;
            let mut round = 0;
            while round < blocks {
                // Warp w encodes block round + w (if there is one).
                let b = round + warp;
                let bsrc = src.add(b * BLOCK_SIZE);
                let nb = n.saturating_sub(b * BLOCK_SIZE).min(BLOCK_SIZE);
                let mut coded = None;
                if b < blocks {
                    // The block's 8 KiB of the output, which no payload reaches before this
                    // round's are placed: scratch space for its ops.
                    let scratch = dst.add(base + b * BLOCK_SIZE);
                    // Monomorphised on the signed mapping too: floats (unsigned) skip it.
                    match (width, signed) {
                        (1, false) => to_bitmap::<T, 1, false>(t, bsrc, nb, bm),
                        (1, true) => to_bitmap::<T, 1, true>(t, bsrc, nb, bm),
                        (2, false) => to_bitmap::<T, 2, false>(t, bsrc, nb, bm),
                        (2, true) => to_bitmap::<T, 2, true>(t, bsrc, nb, bm),
                        (4, false) => to_bitmap::<T, 4, false>(t, bsrc, nb, bm),
                        (4, true) => to_bitmap::<T, 4, true>(t, bsrc, nb, bm),
                        (_, false) => to_bitmap::<T, 8, false>(t, bsrc, nb, bm),
                        (_, true) => to_bitmap::<T, 8, true>(t, bsrc, nb, bm),
                    }
                    t.sync_warp();
                    coded = if algorithm == 0 {
                        default_block(t, bm, tk, scratch, bsrc, nb, width, signed).map(|plen| (plen, 0))
                    } else {
                        sparse_block(t, bm, tk)
                    };
                    t.sync_warp();
                    if lane == 0 {
                        *sizes.add(warp) = coded.map_or(BLOCK_SIZE / 4, |(plen, _)| plen / 4) as u32;
                    }
                } else if lane == 0 {
                    *sizes.add(warp) = 0;
                }
                t.sync_threads();
                // This block's offset: the words of the previous rounds and warps.
                let mut at = words;
                let mut round_words = 0;
                for w in 0..WARPS {
                    let v = *sizes.add(w) as usize;
                    if w < warp {
                        at += v;
                    }
                    round_words += v;
                }
                if b < blocks {
                    let pdst = dst.add(base + 4 * at);
                    let (bwords, raw) = match coded {
                        Some((plen, head)) => {
                            copy_out(t, sparse_head(bm, head), head, bm, plen, pdst);
                            (plen / 4, false)
                        }
                        None => {
                            copy_raw(t, bsrc, nb, pdst);
                            (BLOCK_SIZE / 4, true)
                        }
                    };
                    if lane == 0 {
                        let e = dst.add(HEADER + 8 * b);
                        st32(e, at as u32, aligned);
                        st32(e.add(4), (raw as u32) << 31 | (bwords as u32) << 19, aligned);
                    }
                }
                words += round_words;
                round += WARPS;
                // The next round reuses the bitmaps, staging buffers and sizes.
                t.sync_threads();
            }
            if t.thread_idx() == 0 {
                let mode = if algorithm == 1 { 0x10 } else { 0 };
                let w32 = |k: usize, v: u32| st32(dst.add(4 * k), v, aligned);
                w32(0, 0x005a_564e | type_code << 24);
                w32(1, mode | (signed as u32) << 8);
                w32(2, words as u32);
                w32(3, (words >> 32) as u32);
                w32(4, n as u32);
                w32(5, (n >> 32) as u32);
                w32(6, 0);
                w32(7, 0);
            }
            Ok((base + 4 * words) as u64)
        };
        if t.thread_idx() == 0 {
            args.finish(i, result);
        }
    }
}

/// Kernel body of `bitcomp_decompressed_size`: the uncompressed size each chunk's header
/// declares, or 0 when `gpucomp::cpu::bitcomp::decompressed_size` would refuse the header
/// (short input, bad magic, type, mode or signed byte, nonzero bytes 6-7, block table outside
/// the input). One thread per chunk, grid-stride.
///
/// # Safety
/// `args` valid; every input is valid for its size.
#[inline(always)]
pub unsafe fn decompressed_size<T: Thread>(t: &T, args: SizeArgs) {
    args.for_each(t, |p, len| {
        if len < HEADER as u64 {
            return 0;
        }
        let h = |k: usize| *p.add(k);
        let code = h(3);
        let ok = h(0) == b'N'
            && h(1) == b'V'
            && h(2) == b'Z'
            && code < 8
            && (h(4) == 0 || h(4) == 0x10)
            && h(5) == code & 1
            && h(6) == 0
            && h(7) == 0;
        let mut n = 0u64;
        for k in 0..8 {
            n |= (h(16 + k) as u64) << (8 * k);
        }
        // blocks <= 2^51: no overflow.
        let table_end = HEADER as u64 + 8 * n.div_ceil(BLOCK_SIZE as u64);
        if ok && table_end <= len {
            n
        } else {
            0
        }
    })
}
