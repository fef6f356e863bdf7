//! Bitcomp compression: one thread block (2 warps) per chunk; the chunk's 8 KiB blocks are
//! encoded in rounds, one block per warp, each warp-parallel and byte-identical to
//! `gpucomp::cpu::bitcomp::encode_block`.
//!
//! Per block (all steps warp-wide, `__syncwarp` between them):
//!
//! 1. **Planes** ([`to_bitmap`]): lane `g` takes groups of 8 elements `g, g + 32, …`: wide loads
//!    (16-byte when the block is whole and aligned, byte loads with zero fill otherwise), the
//!    signed mapping on whole elements, an 8×8 byte transpose (element bytes → rows) and one
//!    8×8 bit transpose per element byte; each plane byte is stored into the warp's 8 KiB
//!    bitmap, at a constant offset per plane from the group's byte. Consecutive lanes store
//!    consecutive bytes of a plane: no bank conflicts.
//! 2. **Encode**: the bitmap is cut into 64 segments of 128 bytes, stored with a 4-byte gap
//!    after each (so that lanes reading word `k` of different segments hit different banks).
//!    Two passes, one 4-byte word per step:
//!    * *default* (algorithm 0): lane `l` takes segments `l` and `l + 32`. All token decisions
//!      are local (byte-RLE of maximal runs ≥ 3): from the word, the next one and what it
//!      carries from the previous one, [`flags`] derives with 32-bit SWAR byte compares (byte
//!      masks, no bit gathers) which bytes are in a long run, which start a token and which go
//!      to the literal stream. The gap word after each segment holds a copy of the next
//!      segment's first word, so a walk reads 33 consecutive words (and two words before its
//!      segment for the carry). A segment of 128 equal bytes (a constant plane, such as the
//!      high planes of small integers) is one long run and is not walked: it starts a token
//!      iff the byte before differs. So when segments 0..32 are constant, the warp walks only
//!      the second half. Pass 1 counts tokens, literal bytes and long forms (a token's length is
//!      the distance to the next start; a segment's last token ends at the first start of a
//!      later segment: a warp suffix-min), warp scans in segment order turn the counts into
//!      stream offsets, and pass 2 writes literals forward, ops and low bytes backward into
//!      the warp's staging buffer.
//!    * *sparse* (algorithm 1): lane `l` takes one L0 region, segments `2l` and `2l + 1`:
//!      pass 1 gives its L1 word and nonzero byte count, a ballot gives L0, warp scans place
//!      L1/L2/L3, pass 2 writes.
//! 3. **Raw decision** (warp-uniform): a payload of ≥ 8192 bytes (after padding to 4) is
//!    replaced by the block's input bytes, zero-padded to 8192, copied global to global.
//! 4. **Place**: each warp publishes its block's word count in shared memory; after a barrier
//!    the block's word offset is the running sum of the previous rounds' counts plus those of
//!    the lower warps of this round. Lane 0 writes the table entry, the warp copies the staged
//!    payload out with 16-byte stores (4-byte or byte stores when the output is less aligned).
//!    After the last round thread 0 writes the header.
//!
//! The padding of a default block is the coded block's bytes at the same payload offsets (as
//! the CPU writer), of a sparse block zeros. Inputs: any length up to 16 MiB (else
//! `CHUNK_SIZE_TOO_LARGE`, `out_bytes` 0), any alignment (unaligned or tail blocks take byte
//! loads), `type_code` < 8 and `algorithm` < 2 (else `INVALID_VALUE`).
use super::decompress::BLOCK_SIZE;
use crate::bits::transpose8;
use crate::{status, Thread};

/// Largest chunk the kernel compresses (nvCOMP's Bitcomp limit).
pub const MAX_CHUNK_SIZE: u64 = 1 << 24;
/// Bytes of the chunk header.
const HEADER: usize = 32;
/// Bitmap bytes per segment: the default algorithm walks 64 segments, lane `l` segments `l`
/// and `l + 32` (sparse L0 regions are 2 segments, one per lane).
const SEG: usize = 128;
/// Bytes per sparse L0 region.
const REGION: usize = 256;
/// Words per segment in shared memory: 32 data words and a 1-word gap.
const SEG_WORDS: usize = SEG / 4 + 1;

/// Warps per thread block: one chunk per thread block, one 8 KiB block per warp at a time.
const WARPS: usize = super::COMPRESS_WARPS as usize;

/// Shared memory of one thread block: per warp the block's plane bitmap (padded segments) and
/// the staged payload, and the payload words of each warp's block in the current round.
#[repr(C, align(16))]
pub struct Shared {
    bitmap: [[u32; BLOCK_SIZE / SEG * SEG_WORDS]; WARPS],
    staging: [[u32; BLOCK_SIZE / 4]; WARPS],
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

/// Exclusive warp prefix sum of `v` and the warp total.
#[inline(always)]
fn warp_scan<T: Thread>(t: &T, v: u32) -> (u32, u32) {
    let lane = t.lane();
    let mut x = v;
    let mut d = 1;
    while d < 32 {
        let y = t.shfl_up(x, d);
        if lane >= d {
            x += y;
        }
        d <<= 1;
    }
    (x - v, t.shfl_idx(x, 31))
}

/// Minimum of `v` over the lanes above this one (`none` for lane 31).
#[inline(always)]
fn min_after<T: Thread>(t: &T, v: u32, none: u32) -> u32 {
    let lane = t.lane();
    let mut m = v;
    let mut d = 1;
    while d < 32 {
        let y = t.shfl_down(m, d);
        if lane + d < 32 {
            m = m.min(y);
        }
        d <<= 1;
    }
    let next = t.shfl_down(m, 1);
    if lane == 31 {
        none
    } else {
        next
    }
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
    /// The byte is 0x00 or 0xff (a run of it is class 2 / 4, not 6).
    special: u32,
}

/// What [`flags`] carries from one word to the next (byte masks of the previous word).
#[derive(Clone, Copy)]
struct Carry {
    /// A run of 3 equal bytes starts at the byte.
    e3: u32,
    /// The byte lies in a maximal run of ≥ 3 equal bytes (a long run).
    run: u32,
    /// The byte equals the next one.
    eq1: u32,
}

/// The carry before bitmap byte 0: no run before it, and byte 0 starts a token.
const BLOCK_START: Carry = Carry { e3: 0, run: 1 << 31, eq1: 0 };

/// Flags of the word `cur` at bitmap byte `c` (`next`: bytes `c + 4..c + 8`, ignored for the
/// last word, `last`), from the previous word's `carry`, which it updates. Token decisions are
/// local: a byte is in a long run iff a run of 3 equal bytes starts at it or at one of the two
/// bytes before; a long run starts where the byte differs from the previous one; a literal
/// token starts after a long run.
#[inline(always)]
fn flags(cur: u32, next: u32, last: bool, carry: &mut Carry) -> Flags {
    let n1 = cur >> 8 | next << 24; // byte m = B[c + m + 1]
    let n2 = cur >> 16 | next << 16; // byte m = B[c + m + 2]
    let eq1 = zero_bytes32(cur ^ n1);
    let mut e3 = eq1 & zero_bytes32(cur ^ n2);
    if last {
        // A run of 3 must end inside the bitmap (start at 8189 at the latest).
        e3 &= 0x8080;
    }
    let p = *carry;
    let run = e3 | (e3 << 8 | p.e3 >> 24) | (e3 << 16 | p.e3 >> 16);
    let run_before = run << 8 | p.run >> 24;
    let differs = !(eq1 << 8 | p.eq1 >> 24) & HI;
    let lit = !run & HI;
    let special = zero_bytes32(cur) | zero_bytes32(!cur);
    *carry = Carry { e3, run, eq1 };
    Flags { start: (run & differs) | (lit & run_before), keep: lit | (run & differs & !special), special }
}

/// Op byte of a token, its low byte, and whether it takes the low byte (long form).
#[inline(always)]
fn op_byte(class: u32, len: u32) -> (u8, u8, bool) {
    let x = len.wrapping_sub(if class == 0 { 1 } else { 3 });
    if x < 32 {
        ((class << 5 | x) as u8, 0, false)
    } else {
        (((class | 1) << 5 | x >> 8) as u8, x as u8, true)
    }
}

/// What one lane's walk over its segment found.
#[derive(Clone, Copy)]
struct Walk {
    /// Tokens starting in the segment.
    tokens: u32,
    /// Literal-stream bytes of the segment.
    kept: u32,
    /// Long forms among the tokens closed inside the segment (all but the last).
    lows: u32,
    /// Position of the first token start (8192 if none).
    first: u32,
    /// Start and class of the segment's last token.
    open: u32,
    open_class: u32,
}

/// The byte value of a segment whose 128 bytes are all equal, if it is one.
#[inline(always)]
unsafe fn uniform(segp: *const u32) -> Option<u32> {
    let w0 = *segp;
    let mut diff = w0 ^ w0.rotate_left(8);
    for k in 1..SEG / 4 {
        diff |= *segp.add(k) ^ w0;
    }
    if diff == 0 {
        Some(w0 & 0xff)
    } else {
        None
    }
}

/// [`walk`]'s counts for segment `s` (at `segp`) made of 128 bytes `v`: a long run, which
/// starts a token at the segment's first byte unless the byte before is also `v`.
#[inline(always)]
unsafe fn uniform_walk(segp: *const u32, s: u32, v: u32) -> Walk {
    let start = s == 0 || *segp.sub(SEG_WORDS).add(SEG / 4 - 1) >> 24 != v;
    let class = match v {
        0 => 2,
        0xff => 4,
        _ => 6,
    };
    Walk {
        tokens: start as u32,
        kept: (start && class == 6) as u32,
        lows: 0,
        first: if start { SEG as u32 * s } else { BLOCK_SIZE as u32 },
        open: SEG as u32 * s,
        open_class: class,
    }
}

/// Walks the default-algorithm tokens of segment `s` (bitmap bytes `[128s, 128s + 128)`, at
/// `segp`). With `WRITE`, stores
/// the literal bytes forward from `lit`, the op bytes of the closed tokens backward from `op`
/// and their low bytes backward from `low` (offsets into the staging buffer `st`).
#[inline(always)]
unsafe fn walk<const WRITE: bool>(segp: *const u32, s: u32, st: *mut u8, lit: usize, op: usize, low: usize) -> Walk {
    let (mut lit, mut op, mut low) = (lit, op, low);
    let mut w = Walk { tokens: 0, kept: 0, lows: 0, first: BLOCK_SIZE as u32, open: 0, open_class: 0 };
    // The carry into the segment: from the last two words of the previous one (the first for
    // its e3 only).
    let mut carry = BLOCK_START;
    if s > 0 {
        let before = segp.sub(SEG_WORDS);
        let (a, b) = (*before.add(SEG / 4 - 2), *before.add(SEG / 4 - 1));
        flags(a, b, false, &mut carry);
        flags(b, *segp, false, &mut carry);
    }
    let seg = SEG as u32 * s;
    let last_seg = s as usize == BLOCK_SIZE / SEG - 1;
    let mut cur = *segp;
    let mut k = 0u32;
    while k < SEG as u32 / 4 {
        let c = seg + 4 * k;
        // Word 32 is the gap, which holds a copy of the next segment's first word.
        let next = *segp.add(k as usize + 1);
        let f = flags(cur, next, last_seg && k == SEG as u32 / 4 - 1, &mut carry);
        if WRITE {
            for m in 0..4 {
                if (f.keep >> (8 * m + 7)) & 1 != 0 {
                    *st.add(lit) = (cur >> (8 * m)) as u8;
                    lit += 1;
                }
            }
        } else {
            w.kept += f.keep.count_ones();
        }
        let mut s = f.start;
        while s != 0 {
            let m = s.reverse_bits().leading_zeros() >> 3;
            s &= s - 1;
            let p = c + m;
            if w.tokens > 0 {
                let (o, l, long) = op_byte(w.open_class, p - w.open);
                if WRITE {
                    *st.add(op) = o;
                    op = op.wrapping_sub(1);
                    if long {
                        *st.add(low) = l;
                        low = low.wrapping_sub(1);
                    }
                }
                w.lows += long as u32;
            } else {
                w.first = p;
            }
            w.tokens += 1;
            w.open = p;
            // Literal token, or a run of 0x00 (class 2), 0xff (4) or another byte (6).
            let bit = 8 * m + 7;
            w.open_class = if (carry.run >> bit) & 1 == 0 {
                0
            } else if (f.special >> bit) & 1 == 0 {
                6
            } else if (cur >> (8 * m)) & 0xff == 0 {
                2
            } else {
                4
            };
        }
        cur = next;
        k += 1;
    }
    w
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
#[inline(always)]
unsafe fn default_block<T: Thread>(
    t: &T,
    bm: *mut u8,
    st: *mut u8,
    src: *const u8,
    nb: usize,
    width: usize,
    signed: bool,
) -> Option<usize> {
    let lane = t.lane() as usize;
    let segs = BLOCK_SIZE / SEG;
    let (sa, sb) = (lane, lane + 32);
    let pa = (bm as *mut u32).add(SEG_WORDS * sa);
    let pb = (bm as *mut u32).add(SEG_WORDS * sb);
    // The gap after each segment gets a copy of the next segment's first word (zero after the
    // last), so that a walk reads its segment and one word more contiguously.
    *pa.add(SEG / 4) = *pa.add(SEG_WORDS);
    *pb.add(SEG / 4) = if sb + 1 < segs { *pb.add(SEG_WORDS) } else { 0 };
    t.sync_warp();
    // Pass 1: a uniform segment (constant planes: the high planes of small integers) is one
    // long run and needs no walk.
    let (ua, ub) = (uniform(pa), uniform(pb));
    let wa = match ua {
        Some(v) => uniform_walk(pa, sa as u32, v),
        None => walk::<false>(pa, sa as u32, st, 0, 0, 0),
    };
    let wb = match ub {
        Some(v) => uniform_walk(pb, sb as u32, v),
        None => walk::<false>(pb, sb as u32, st, 0, 0, 0),
    };
    // A segment's last token ends where a later segment's first token starts.
    let none = BLOCK_SIZE as u32;
    let end_b = min_after(t, wb.first, none);
    let first_b_all = !t.reduce_max(!wb.first);
    let end_a = min_after(t, wa.first, none).min(first_b_all);
    let (op_a, low_a, long_a) = op_byte(wa.open_class, end_a.wrapping_sub(wa.open));
    let (op_b, low_b, long_b) = op_byte(wb.open_class, end_b.wrapping_sub(wb.open));
    let (long_a, long_b) = (wa.tokens > 0 && long_a, wb.tokens > 0 && long_b);
    // Stream offsets in segment order: segments 0..32 (lanes), then 32..64.
    let (ta, nta) = warp_scan(t, wa.tokens);
    let (tb, ntb) = warp_scan(t, wb.tokens);
    let (ka, nka) = warp_scan(t, wa.kept);
    let (kb, nkb) = warp_scan(t, wb.kept);
    let (la, nla) = warp_scan(t, wa.lows + long_a as u32);
    let (lb, nlb) = warp_scan(t, wb.lows + long_b as u32);
    let (tb, kb, lb) = (tb + nta, kb + nka, lb + nla);
    let (nt, nk, nl) = (nta + ntb, nka + nkb, nla + nlb);
    let body = 2 + (nk + nl + nt) as usize;
    let plen = body.next_multiple_of(4);
    if plen >= BLOCK_SIZE {
        return None;
    }
    // Pass 2: literals forward, ops and lows backward; then each segment's last token.
    let write =
        |p: *const u32, sg: usize, u: Option<u32>, w: &Walk, to: u32, ko: u32, lo: u32, last: (u8, u8, bool)| {
            let op = plen - 1 - to as usize;
            let low = plen - nt as usize - 1 - lo as usize;
            match u {
                Some(v) => {
                    if w.kept != 0 {
                        *st.add(2 + ko as usize) = v as u8;
                    }
                }
                None => {
                    walk::<true>(p, sg as u32, st, 2 + ko as usize, op, low);
                }
            }
            if w.tokens > 0 {
                *st.add(op + 1 - w.tokens as usize) = last.0;
                if last.2 {
                    *st.add(low - w.lows as usize) = last.1;
                }
            }
        };
    write(pa, sa, ua, &wa, ta, ka, la, (op_a, low_a, long_a));
    write(pb, sb, ub, &wb, tb, kb, lb, (op_b, low_b, long_b));
    if lane == 0 {
        *st = (nt >> 8) as u8;
        *st.add(1) = nt as u8;
    }
    let q = 2 + nk as usize + lane;
    if lane < 3 && q < plen - (nl + nt) as usize {
        *st.add(q) = coded_byte(src, nb, width, signed, q);
    }
    Some(plen)
}

/// Algorithm 1: stages the payload of the bitmap; its length, or `None` for a raw block.
#[inline(always)]
unsafe fn sparse_block<T: Thread>(t: &T, bm: *const u8, st: *mut u8) -> Option<usize> {
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
    let (o2, n2) = warp_scan(t, l1.count_ones());
    let (o3, n3) = warp_scan(t, REGION as u32 - zeros);
    let pos2 = 4 + 4 * l0.count_ones() as usize;
    let len = pos2 + (n2 + n3) as usize;
    let plen = len.next_multiple_of(4);
    if plen >= BLOCK_SIZE {
        return None;
    }
    if lane == 0 {
        *(st as *mut u32) = l0;
    }
    if l1 != 0 {
        *(st as *mut u32).add(1 + (l0 & t.lanemask_lt()).count_ones() as usize) = l1;
    }
    let mut p2 = pos2 + o2 as usize;
    let mut p3 = pos2 + n2 as usize + o3 as usize;
    let mut m = 0;
    while m < 32 {
        if (l1 >> m) & 1 != 0 {
            let v = ld(bm, seg + 8 * m) as u64 | (ld(bm, seg + 8 * m + 4) as u64) << 32;
            let nz = !eq_bits(v, 0) & 0xff;
            *st.add(p2) = nz as u8;
            p2 += 1;
            for b in 0..8 {
                if (nz >> b) & 1 != 0 {
                    *st.add(p3) = (v >> (8 * b)) as u8;
                    p3 += 1;
                }
            }
        }
        m += 1;
    }
    if len + lane < plen {
        *st.add(len + lane) = 0;
    }
    Some(plen)
}

/// Swaps the bits `mask << shift` of `a` with the bits `mask` of `b`.
#[inline(always)]
fn swap(a: &mut u64, b: &mut u64, shift: u32, mask: u64) {
    let t = ((*a >> shift) ^ *b) & mask;
    *b ^= t;
    *a ^= t << shift;
}

/// Transposes the 8×8 byte matrix whose row `r` is `yr` (byte `c` of row `r` ↔ byte `r` of
/// row `c`), in three block-swap stages.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn transpose_bytes(
    y0: &mut u64,
    y1: &mut u64,
    y2: &mut u64,
    y3: &mut u64,
    y4: &mut u64,
    y5: &mut u64,
    y6: &mut u64,
    y7: &mut u64,
) {
    const M32: u64 = 0x0000_0000_FFFF_FFFF;
    const M16: u64 = 0x0000_FFFF_0000_FFFF;
    const M8: u64 = 0x00FF_00FF_00FF_00FF;
    swap(y0, y4, 32, M32);
    swap(y1, y5, 32, M32);
    swap(y2, y6, 32, M32);
    swap(y3, y7, 32, M32);
    swap(y0, y2, 16, M16);
    swap(y1, y3, 16, M16);
    swap(y4, y6, 16, M16);
    swap(y5, y7, 16, M16);
    swap(y0, y1, 8, M8);
    swap(y2, y3, 8, M8);
    swap(y4, y5, 8, M8);
    swap(y6, y7, 8, M8);
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

/// Planes of group `g` (8 elements of width `W`: input bytes `8Wg..8W(g + 1)` of the `nb`
/// at `src`; `FAST`: all inside and `src` 16-aligned) into the padded bitmap `bm`.
#[inline(always)]
unsafe fn group<const W: usize, const FAST: bool>(src: *const u8, nb: usize, signed: bool, bm: *mut u8, g: usize) {
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
    if W == 1 {
        // The group's 8 bytes are the row of element byte 0.
        let mut v = if FAST { *(src.add(at) as *const u64) } else { element::<8>(src, at, nb) };
        if signed {
            v ^= ((v >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x7f);
        }
        emit(0, v);
        return;
    }
    // The group as 16-byte words (fast path).
    let q = |i: usize| if FAST && 16 * i < 8 * W { *(src.add(at + 16 * i) as *const u128) } else { 0 };
    let (q0, q1, q2, q3) = (q(0), q(1), q(2), q(3));
    // Row j: element j, signed-mapped; after the byte transpose row b holds byte b of the
    // 8 elements.
    let e = |j: usize| {
        let v = if FAST {
            let bit = bits * j;
            let w = match bit / 128 {
                0 => q0,
                1 => q1,
                2 => q2,
                _ => q3,
            };
            (w >> (bit % 128)) as u64 & mask
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

/// Planes of the `nb` input bytes at `src` (width `W`) into the padded bitmap `bm`: lane `g`
/// takes groups `g, g + 32, …`.
#[inline(always)]
unsafe fn to_bitmap<T: Thread, const W: usize>(t: &T, src: *const u8, nb: usize, signed: bool, bm: *mut u8) {
    let groups = (BLOCK_SIZE / 8 / W) as u32;
    let mut g = t.lane();
    if nb == BLOCK_SIZE && (src as usize).is_multiple_of(16) {
        while g < groups {
            group::<W, true>(src, nb, signed, bm, g as usize);
            g += 32;
        }
    } else {
        while g < groups {
            group::<W, false>(src, nb, signed, bm, g as usize);
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

/// Copies the staged payload (`plen` bytes, a multiple of 4) to `dst`.
#[inline(always)]
unsafe fn copy_out<T: Thread>(t: &T, st: *const u8, plen: usize, dst: *mut u8) {
    let lane = t.lane() as usize;
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
    let aligned = (dst as usize).is_multiple_of(4);
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
/// …`) into `out_ptrs[i]`, its length to `out_bytes[i]` and its status to `statuses[i]` (may be
/// null). `type_code`: the header's element type (0 u8 … 7 i64); `algorithm`: 0 default,
/// 1 sparse.
///
/// # Safety
/// Launched with [`super::COMPRESS_BLOCK_THREADS`] threads per block; the arrays hold
/// `num_chunks` entries; input `i` is valid for `in_bytes[i]` bytes, output `i` for
/// `max_compressed_chunk_size(in_bytes[i])` bytes, and outputs overlap nothing; `smem` is this
/// block's.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn compress<T: Thread>(
    t: &T,
    smem: *mut Shared,
    in_ptrs: *const *const u8,
    in_bytes: *const u64,
    num_chunks: u64,
    out_ptrs: *const *mut u8,
    out_bytes: *mut u64,
    statuses: *mut i32,
    type_code: u32,
    algorithm: u32,
) {
    let warp = t.warp() as usize;
    let bm = (&raw mut (*smem).bitmap).cast::<u8>().add(warp * 4 * (BLOCK_SIZE / SEG) * SEG_WORDS);
    let st = (&raw mut (*smem).staging).cast::<u8>().add(warp * BLOCK_SIZE);
    let sizes = (&raw mut (*smem).words).cast::<u32>();
    let lane = t.lane();
    let width = 1usize << ((type_code >> 1) & 3);
    let signed = type_code & 1 != 0;
    let mut chunk = t.block_idx() as u64;
    while chunk < num_chunks {
        let i = chunk as usize;
        let (src, n, dst) = (*in_ptrs.add(i), *in_bytes.add(i), *out_ptrs.add(i));
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
                    match width {
                        1 => to_bitmap::<T, 1>(t, bsrc, nb, signed, bm),
                        2 => to_bitmap::<T, 2>(t, bsrc, nb, signed, bm),
                        4 => to_bitmap::<T, 4>(t, bsrc, nb, signed, bm),
                        _ => to_bitmap::<T, 8>(t, bsrc, nb, signed, bm),
                    }
                    t.sync_warp();
                    coded = if algorithm == 0 {
                        default_block(t, bm, st, bsrc, nb, width, signed)
                    } else {
                        sparse_block(t, bm, st)
                    };
                    t.sync_warp();
                    if lane == 0 {
                        *sizes.add(warp) = coded.map_or(BLOCK_SIZE / 4, |plen| plen / 4) as u32;
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
                        Some(plen) => {
                            copy_out(t, st, plen, pdst);
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
            Ok(base + 4 * words)
        };
        if t.thread_idx() == 0 {
            let (s, len) = match result {
                Ok(len) => (status::SUCCESS, len as u64),
                Err(e) => (e, 0),
            };
            *out_bytes.add(i) = len;
            if !statuses.is_null() {
                *statuses.add(i) = s;
            }
        }
        chunk += t.grid_dim() as u64;
    }
}

/// Kernel body of `bitcomp_decompressed_size`: the uncompressed size each chunk's header
/// declares, or 0 when `gpucomp::cpu::bitcomp::decompressed_size` would refuse the header
/// (short input, bad magic, type, mode or signed byte, nonzero bytes 6-7, block table outside
/// the input). One thread per chunk, grid-stride.
///
/// # Safety
/// The arrays hold `num_chunks` entries; input `i` is valid for `in_bytes[i]` bytes.
#[inline(always)]
pub unsafe fn decompressed_size<T: Thread>(
    t: &T,
    in_ptrs: *const *const u8,
    in_bytes: *const u64,
    num_chunks: u64,
    out_sizes: *mut u64,
) {
    let stride = t.grid_dim() as u64 * t.block_dim() as u64;
    let mut i = t.block_idx() as u64 * t.block_dim() as u64 + t.thread_idx() as u64;
    while i < num_chunks {
        let (p, len) = (*in_ptrs.add(i as usize), *in_bytes.add(i as usize));
        let mut size = 0;
        if len >= HEADER as u64 {
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
                size = n;
            }
        }
        *out_sizes.add(i as usize) = size;
        i += stride;
    }
}
