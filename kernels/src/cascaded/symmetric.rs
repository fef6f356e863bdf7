//! Symmetric Cascaded chunks (chunk header mode 1; 4- and 8-byte types), decoded exactly as the
//! CPU reference `gpucomp::cpu::cascaded::symmetric` decodes them (its docs give the format):
//! 8 KiB blocks listed by a table of `u16` sizes, each split into 256-element sub-blocks whose
//! 32-bit words are stored as sub-streams (bit planes, byte groups or whole words, then FOR,
//! DELTA or zigzag DELTA, optionally as runs marked in a bit map).
//!
//! # Design
//!
//! The chunk's `split` thread blocks take it, as for asymmetric chunks, and reuse their shared
//! memory ([`super::Shared`]):
//!
//! * **Block walk**: thread 0 of every part sums the block sizes of the table, [`W`] blocks at
//!   a time, checking each block against the chunk end, and publishes their offsets; walk `j`
//!   (blocks `4j` to `4j + 3`) is part `j mod split`'s, each of whose warps then decodes one
//!   8 KiB block (at `split` 1 every walk is the block's).
//! * **Block** (one warp): the sub-stream offset table is read one entry per lane and checked
//!   (entry count, order, block end) with one vote; the sub-blocks follow one by one: their
//!   sub-streams (one for 4-byte types; low and high words, or one joined sub-stream for a
//!   partial last sub-block, for 8-byte types) are decoded into a 2 KiB staging area of the
//!   warp's first buffer, which then goes to the output with the widest stores both ends allow.
//! * **Sub-stream** (one warp, `c ≤ 510` words): every lane parses the header (uniform loads) and
//!   checks the exact length `header + run map + popcount(mask)·ceil(s/8)` before reading any
//!   bits. Lane `p` builds the 8 values `8p..8p+8` (a second round when `s > 256`): byte `p` of
//!   each bit plane holds one bit of each, bytes `r·L + p` of a byte group (or words `r·L + p` of
//!   whole words) hold value `8p + r`. FOR adds the reference; DELTA is an in-lane sum of the 8
//!   differences plus a warp scan, with a carry between rounds. Values go straight to their
//!   staging slot, or for the RLE form to a value table in the warp's first buffer, from which
//!   output word `i` takes run `popcount(map bits ≤ i) − 1` (map words held by the lanes, their
//!   exclusive popcount scan shuffled to every lane).
//!
//! The decoder is a separate, not inlined function, so the asymmetric path keeps its registers.
//!
//! # Hostile input
//!
//! Reads: the size table lies within the chunk (`2·nblocks ≤ len`, checked first), every block
//! within the chunk (walk), every sub-stream within its block (sorted offsets ending at the block
//! size, the first not past it), every field and bit within its sub-stream (exact length check).
//! Writes: sub-block `s` of block `b` writes bytes `8192·b + 256·s·width` onwards, at most the
//! block's element count, so nothing past `n ≤ capacity`; staging and value-table indices are
//! below 512 words (`c ≤ 510`, run ranks in `1..=s`). Loops are bounded by the block count and
//! the constants 8, 32 and 2. Whatever the reference rejects gives `CANNOT_DECOMPRESS`.
use super::{part_here, scan32, valid_header, Shared, W};
use crate::{status, Thread};

/// Output bytes per symmetric block.
const BLOCK_BYTES: u64 = 8192;
/// Elements per sub-block.
const SUB_ELEMENTS: u32 = 256;
/// Byte offset of the value table (RLE run values) in a warp's area; the staging area is at 0.
const VALS: usize = 2048;

/// Little-endian `u16` at `p`, any alignment.
#[inline(always)]
unsafe fn ld16(p: *const u8) -> u32 {
    u16::from_le_bytes([*p, *p.add(1)]) as u32
}

/// Little-endian `u32` at `p`, any alignment.
#[inline(always)]
unsafe fn ld32(p: *const u8) -> u32 {
    u32::from_le_bytes([*p, *p.add(1), *p.add(2), *p.add(3)])
}

/// Whether the chunk at `inp` (`len` bytes) has a valid header with mode 1 (symmetric).
///
/// # Safety
/// `inp` is null or readable for `len` bytes.
#[inline(always)]
pub(super) unsafe fn is_symmetric(inp: *const u8, len: u64) -> bool {
    if len < 8 || inp.is_null() {
        return false;
    }
    let h: [u8; 8] = core::array::from_fn(|k| *inp.add(k));
    valid_header(&h) && h[2] == 1
}

/// Decompresses the symmetric chunk at `inp` (`len` bytes, [`is_symmetric`]) into `out`
/// (`cap` bytes), by the whole thread block: its size, or `CANNOT_DECOMPRESS`. The result is
/// meaningful in thread 0.
///
/// # Safety
/// `inp` is readable for `len` bytes, `out` null or writable for `cap` bytes, `smem` is the
/// block's shared memory; called by every thread of the block.
#[inline(always)]
pub(super) unsafe fn decompress_chunk<T: Thread>(
    t: &T,
    smem: *mut Shared,
    inp: *const u8,
    len: u64,
    out: *mut u8,
    cap: u64,
) -> Result<u64, i32> {
    let n = u32::from_le_bytes([*inp.add(4), *inp.add(5), *inp.add(6), *inp.add(7)]) as u64;
    // Symmetric mode exists for 4- and 8-byte types only.
    let wlog = (*inp.add(3) & 0x7f) >> 1;
    if n > cap || (out.is_null() && n > 0) || wlog < 2 || n % (1 << wlog) != 0 {
        return Err(status::CANNOT_DECOMPRESS);
    }
    if chunk(t, smem, inp.add(8), len - 8, out, n, wlog == 3) {
        Ok(n)
    } else {
        Err(status::CANNOT_DECOMPRESS)
    }
}

/// Decodes the symmetric chunk body `body` (`len` bytes after the 8-byte header) into the `n`
/// bytes at `out`, elements of 8 bytes when `wide`, else 4, by the whole thread block. The
/// result is meaningful in thread 0.
///
/// # Safety
/// `body` is readable for `len` bytes, `out` writable for `n` bytes (`n` a multiple of the
/// width), `smem` is the block's shared memory; called by every thread of the block.
#[inline(always)]
unsafe fn chunk<T: Thread>(
    t: &T,
    smem: *mut Shared,
    body: *const u8,
    len: u64,
    out: *mut u8,
    n: u64,
    wide: bool,
) -> bool {
    let nblocks = n.div_ceil(BLOCK_BYTES);
    if 2 * nblocks > len {
        return false;
    }
    let (tid, warp, lane) = (t.thread_idx(), t.warp() as usize, t.lane());
    let width = if wide { 8 } else { 4 };
    // The walker's (thread 0's) position in the body.
    let mut pos = 2 * nblocks;
    let mut first = 0u64;
    while first < nblocks {
        if tid == 0 {
            let mut bad = 0;
            for k in 0..W {
                let b = first + k as u64;
                let mut off = u64::MAX;
                if b < nblocks && bad == 0 {
                    let size = ld16(body.add(2 * b as usize)) as u64;
                    if size > len - pos {
                        bad = 1;
                    } else {
                        off = pos;
                        pos += size;
                    }
                }
                (*smem).offsets[k] = off;
            }
            (*smem).walk_failed = bad;
        }
        t.sync_threads();
        if (*smem).walk_failed != 0 {
            return false;
        }
        // Walk `first / W` is part `first / W mod split`'s (`nblocks` ≤ 2^19: u32; `split ≥ 1`,
        // the `max` only keeps a division-by-zero panic path out of the PTX).
        let (part, split) = part_here(smem);
        let b = first + warp as u64;
        let mut failed = 0;
        if b < nblocks && (first as u32 / W as u32) % split.max(1) == part {
            let off = (*smem).offsets[warp] as usize;
            let size = ld16(body.add(2 * b as usize));
            let nel = ((n - b * BLOCK_BYTES).min(BLOCK_BYTES) / width) as u32;
            let area = (&raw mut (*smem).warps[warp]).cast::<u8>();
            let dst = out.add((b * BLOCK_BYTES) as usize);
            failed = !block(t, body.add(off), size, nel, wide, area, dst) as u32;
        }
        if lane == 0 {
            (*smem).failed[warp] = failed;
        }
        t.sync_threads();
        let mut any = 0;
        for k in 0..W {
            any |= (*smem).failed[k];
        }
        if any != 0 {
            return false;
        }
        first += W as u64;
    }
    pos == len
}

/// Where a sub-stream's words go in the staging area: word `i < half` to `stride·i + base`,
/// word `i ≥ half` (the high words of a joined sub-stream) to `stride·(i − half) + 1`.
#[derive(Clone, Copy)]
struct Place {
    stride: u32,
    base: u32,
    half: u32,
}

impl Place {
    #[inline(always)]
    fn slot(self, i: u32) -> usize {
        (if i < self.half { self.stride * i + self.base } else { self.stride * (i - self.half) + 1 }) as usize
    }
}

/// Decodes one block (`size` bytes at `blk`, inside the chunk) of `nel` elements into `dst`, by
/// one warp with its shared area `area`. Warp-uniform result: whether the block is valid.
#[inline(always)]
unsafe fn block<T: Thread>(
    t: &T,
    blk: *const u8,
    size: u32,
    nel: u32,
    wide: bool,
    area: *mut u8,
    dst: *mut u8,
) -> bool {
    let lane = t.lane();
    if size < 2 {
        return false;
    }
    // The table: `k` sub-stream offsets from the block start, entry 0 being 2k (read whole as
    // `v`; an odd `v` still counts `v / 2` entries and puts the first sub-stream at `v`).
    let v = ld16(blk);
    let k = v / 2;
    let nsub = nel.div_ceil(SUB_ELEMENTS);
    let parts = if wide { 2 } else { 1 };
    let joined = wide && k + 1 == 2 * nsub && nel % SUB_ELEMENTS != 0;
    if (k != parts * nsub && !joined) || v > size {
        return false;
    }
    // Lane j ≤ k holds offset j (the block size for j = k); k ≤ 8. Entries lie below v ≤ size.
    let my = if lane < k { ld16(blk.add(2 * lane as usize)) } else { size };
    let next = t.shfl_down(my, 1);
    if t.any(lane < k && my > next) {
        return false;
    }
    let stage = area as *mut u32;
    let vals = area.add(VALS) as *mut u32;
    let width = if wide { 8 } else { 4 };
    // Sub-stream j: sub-block j (4-byte types), or the low (j even) or high (j odd) words of
    // sub-block j / 2, the last one joined when `joined`. One call site keeps the code small.
    let mut j = 0;
    while j < k {
        let s = if wide { j / 2 } else { j };
        let c = (nel - s * SUB_ELEMENTS).min(SUB_ELEMENTS);
        let hi = wide && j % 2 == 1;
        let join = joined && s == nsub - 1;
        let place = Place { stride: parts, base: hi as u32, half: c };
        let (o0, o1) = (t.shfl_idx(my, j), t.shfl_idx(my, j + 1));
        if !substream(t, blk.add(o0 as usize), o1 - o0, if join { 2 * c } else { c }, place, stage, vals) {
            return false;
        }
        if !wide || hi || join {
            // The sub-block is complete.
            t.sync_warp();
            let d = dst.add((s * SUB_ELEMENTS * width) as usize);
            let words = c * width / 4;
            let mut w = lane;
            if (d as usize) % 4 == 0 {
                while w < words {
                    *(d as *mut u32).add(w as usize) = *stage.add(w as usize);
                    w += 32;
                }
            } else {
                while w < 4 * words {
                    *d.add(w as usize) = *(stage as *const u8).add(w as usize);
                    w += 32;
                }
            }
            // The next sub-block rewrites the staging area.
            t.sync_warp();
        }
        j += 1;
    }
    true
}

/// Decodes one sub-stream (`len` bytes at `sub`, inside its block) of `c ≤ 510` words into the
/// staging area `stage` at `place`, with `vals` (512 words) for RLE run values. Warp-uniform
/// result: whether the sub-stream is valid.
#[inline(always)]
unsafe fn substream<T: Thread>(
    t: &T,
    sub: *const u8,
    len: u32,
    c: u32,
    place: Place,
    stage: *mut u32,
    vals: *mut u32,
) -> bool {
    let lane = t.lane();
    if len < 6 {
        return false;
    }
    let (flags, mode, mask) = (*sub as u32, *sub.add(1) as u32, ld32(sub.add(2)));
    let (rle, kind) = (mode & 0x40 != 0, mode & 0x3f);
    if mode & 0x80 != 0 || kind > 4 {
        return false;
    }
    // Kinds 0, 1: FOR; 2: DELTA; 3: zigzag DELTA; 4: DELTA + FOR.
    let (has_first, has_for) = (kind >= 2, kind < 2 || kind == 4);
    let hdr = 6 + 4 * (has_first as u32 + has_for as u32 + rle as u32);
    // The flags byte is the header length minus one.
    if flags + 1 != hdr || len < hdr {
        return false;
    }
    let first = if has_first { ld32(sub.add(6)) } else { 0 };
    let reference = if has_for { ld32(sub.add(6 + 4 * has_first as usize)) } else { 0 };
    // The stored values: all c words, or the s run values of the RLE form.
    let mut s = c;
    let mut map_words = 0;
    if rle {
        let s4 = ld32(sub.add(hdr as usize - 4));
        s = s4 / 4;
        if s4 % 4 != 0 || s == 0 || s > c {
            return false;
        }
        map_words = c.div_ceil(32);
    }
    // Every stored form takes ceil(s/8) bytes per mask bit (a plane: one byte per 8 values; a
    // byte group or whole words: 8 or 32 bits of each value, in 8 or 32 such rows).
    let l = s.div_ceil(8);
    if hdr + 4 * map_words + mask.count_ones() * l != len {
        return false;
    }
    let mut m = 0;
    if rle {
        // Lane w < map_words holds map word w: bit 0 of word 0 set, s bits in all, none past c.
        if lane < map_words {
            m = ld32(sub.add((hdr + 4 * lane) as usize));
        }
        let past = lane < map_words && 32 * lane + 32 > c && (m >> (c - 32 * lane)) != 0;
        let ones = t.shfl_idx(scan32(t, m.count_ones()), 31);
        if t.any(past) || t.shfl_idx(m, 0) & 1 == 0 || ones != s {
            return false;
        }
    }
    // The stored values (before FOR / DELTA) go to `vals`, 8 per lane and round.
    let data = sub.add((hdr + 4 * map_words) as usize);
    let mut u = lane;
    while u < 2 * l {
        gather(data, mask, l, u, vals.add(4 * u as usize));
        u += 32;
    }
    t.sync_warp();
    // Entry i = stored + reference; with DELTA, value 0 is `first` (entry 0 ignored) and value i
    // adds entry i (unzigzagged for kind 3) to value i - 1: a warp scan per 32 values.
    let mut carry = first;
    let mut base = 0;
    while base < s {
        let i = base + lane;
        let e = if i < s { (*vals.add(i as usize)).wrapping_add(reference) } else { 0 };
        let x = if has_first {
            let d = if i == 0 || i >= s {
                0
            } else if kind == 3 {
                (e >> 1) ^ (e & 1).wrapping_neg()
            } else {
                e
            };
            let incl = scan32(t, d);
            let x = carry.wrapping_add(incl);
            carry = carry.wrapping_add(t.shfl_idx(incl, 31));
            x
        } else {
            e
        };
        if i < s {
            // In place for the run values: each lane rewrites only the entry it read.
            *(if rle { vals.add(i as usize) } else { stage.add(place.slot(i)) }) = x;
        }
        base += 32;
    }
    if rle {
        t.sync_warp();
        // Word i repeats run popcount(map bits 0..=i) - 1; ranks lie in 1..=s.
        let pc = m.count_ones();
        let before = scan32(t, pc).wrapping_sub(pc);
        let upto = ((2u64 << lane) - 1) as u32;
        let mut w = 0;
        while w < map_words {
            let (mw, pre) = (t.shfl_idx(m, w), t.shfl_idx(before, w));
            let i = 32 * w + lane;
            if i < c {
                let rank = pre + (mw & upto).count_ones();
                *stage.add(place.slot(i)) = *vals.add(rank as usize - 1);
            }
            w += 1;
        }
        // The next sub-stream rewrites the run values.
        t.sync_warp();
    }
    true
}

/// Stores the stored bits of the 4 values `4u..4u+4` (`u < 2l`) at `dst` (16-byte aligned):
/// `data` holds one row of `l` bytes per bit of `mask` (checked to lie within the sub-stream),
/// from bit 0 up. Value `8p + r` lies in byte `p` of a plane (bit `r`), byte `r·l + p` of a byte
/// group, word `r·l + p` of whole words.
#[inline(always)]
unsafe fn gather(data: *const u8, mask: u32, l: u32, u: u32, dst: *mut u32) {
    let (l, p, r0) = (l as usize, (u / 2) as usize, 4 * (u % 2) as usize);
    let mut v = [0u32; 4];
    if mask == u32::MAX {
        for (r, x) in v.iter_mut().enumerate() {
            *x = ld32(data.add(4 * ((r0 + r) * l + p)));
        }
    } else {
        let mut q = data;
        let mut b = 0;
        while b < 32 {
            let rest = mask >> b;
            if rest == 0 {
                break;
            }
            if rest & 1 == 0 {
                // Clear bits store nothing; a byte group starts at a set bit.
                b += rest.trailing_zeros();
                continue;
            }
            if b % 8 == 0 && rest & 0xff == 0xff {
                // A byte group: bits b..b+8.
                for (r, x) in v.iter_mut().enumerate() {
                    *x |= (*q.add((r0 + r) * l + p) as u32) << b;
                }
                q = q.add(8 * l);
                b += 8;
            } else {
                // A plane: bit b.
                let y = (*q.add(p) as u32) >> r0;
                for (r, x) in v.iter_mut().enumerate() {
                    *x |= ((y >> r) & 1) << b;
                }
                q = q.add(l);
                b += 1;
            }
        }
    }
    // One 16-byte store: no bank conflicts between the lanes' 4-word strides.
    *(dst as *mut [u32; 4]) = v;
}
