//! LZ4 block decompression, one warp per chunk, in batches of up to 32 sequences.
//!
//! Text compresses into many short sequences (TPC-H lineitem at 64 KiB: ~9000 sequences of
//! ~7 output bytes), so the cost per *sequence* decides the speed, not the cost per byte. A warp
//! therefore never works on one sequence with all lanes; each batch goes through three steps:
//!
//! 1. **Find the token positions** (serial, executed by all lanes alike). The compressed input
//!    sits in a per-warp shared-memory window whose refill also precomputes, for every byte
//!    position `q`, where the next token would be if a token started at `q` (`next[q] = q + 3 +
//!    literal nibble`, or [`STOP`] when a nibble is 15, i.e. length bytes follow). Following the
//!    chain costs one shared load per sequence. Sequences with extra length bytes, the final
//!    literal-only sequence, and sequences straddling the window end are parsed by a checked
//!    scalar path ([`parse_one`]) reading global memory.
//! 2. **Decode one sequence per lane** (parallel): token, offset, lengths; an exclusive prefix
//!    sum gives each sequence's output position; lengths, offsets and the output capacity are
//!    validated for all lanes at once.
//! 3. **Copy the batch's output in 32-byte groups** (parallel): lane `i` produces output byte
//!    `g + i`. The sequence of that byte comes from a `redux.or` bitmap of sequence starts in the
//!    group and a popcount; literal bytes are read from the input, match bytes from the output
//!    `offset` bytes back. A match byte whose source lies in the same group (offset < 32) takes
//!    its value from the source lane by pointer jumping over shuffles, so overlapping matches
//!    need no modulo and no extra pass. Groups are aligned to 32 output bytes, so each group
//!    stores one full 32-byte sector.
//!
//! Safety on hostile input: every input read is within `in_bytes` (window bytes outside it are
//! never followed, the scalar path checks every byte), every write within the output capacity
//! (the batch total is checked before copying), every match source within the bytes produced
//! (offset ≥ 1 and ≤ position), and every loop advances the input or output position. Any
//! violation ends the chunk with `CANNOT_DECOMPRESS`; the bytes written so far stay in the
//! output, as with nvCOMP.
use super::mem;
use crate::batch::{self, DecompressArgs, SizeArgs};
use crate::warp::{shfl_idx_u64, warp_inclusive_scan_u64};
use crate::{status, Thread};

/// Warps per block of [`decompress`] and [`decompressed_size`] (one chunk per warp).
pub const WARPS_PER_BLOCK: u32 = 4;
/// Input window per warp, bytes: each of the 32 lanes loads 16 bytes.
const WINDOW: u32 = 512;
/// A batch starts with a refill when the parse position is more than this far into the window,
/// so that a batch of 32 text sequences (~130 input bytes) nearly always fits in the window.
const REFILL_AT: u32 = WINDOW - 192;
/// `next` entry: no token without length bytes can start here (or the byte is outside the input).
const STOP: u16 = 0xFFFF;
/// Token position of a lane whose sequence the scalar path parsed.
const PARSED: u32 = u32::MAX;
/// Largest accepted compressed chunk, so that positions (with window slack) fit in a `u32`.
const MAX_IN: u64 = 0xFFFF_FF00;
/// Output capacities are clamped to this, so that output positions plus a group fit in a `u32`.
const MAX_OUT: u64 = 0xFFFF_FF00;

/// One warp's input window: raw bytes and the `next`-token table (with [`STOP`] sentinels at
/// `WINDOW..`).
#[repr(C, align(16))]
pub struct Window {
    raw: [u8; WINDOW as usize],
    next: [u16; WINDOW as usize + 8],
}

/// Shared memory of one block (static: 6208 bytes).
#[repr(C)]
pub struct DecompressShared {
    warps: [Window; WARPS_PER_BLOCK as usize],
}

/// One sequence as a lane holds it: literals `lit_src..lit_src + lit` of the input, then `ml`
/// bytes copied from `off` bytes back (`ml == 0`: the final, literal-only sequence).
#[derive(Clone, Copy, Default)]
struct Seq {
    lit_src: u32,
    lit: u32,
    off: u32,
    ml: u32,
}

/// Kernel body of `lz4_decompress` (entry point in `ptx.rs`): decompresses chunk
/// `blockIdx.x * 4 + warp` and stores its result.
///
/// # Safety
/// Launched with [`WARPS_PER_BLOCK`] warps per block; `args` valid, every chunk's buffers valid
/// for its input size and output capacity; `smem` is the block's shared memory.
#[inline(always)]
pub unsafe fn decompress<T: Thread>(t: &T, smem: *mut DecompressShared, args: DecompressArgs) {
    let Some((chunk, win)) = chunk_of(t, smem, args.num_chunks) else { return };
    let (inp, in_len) = args.input(chunk);
    let (out, cap) = args.output(chunk);
    let cap = if out.is_null() { 0 } else { cap.min(MAX_OUT) as u32 };
    let r = if in_len > MAX_IN || (inp.is_null() && in_len > 0) {
        None
    } else {
        decode::<T, true>(t, win, inp, in_len as u32, out, cap)
    };
    if t.lane() == 0 {
        args.finish(chunk, r.map(u64::from).ok_or(status::CANNOT_DECOMPRESS));
    }
}

/// Kernel body of `lz4_decompressed_size`: parses and validates chunk `blockIdx.x * 4 + warp`
/// like [`decompress`], without writing output, and stores its decompressed size (0 if the
/// chunk is corrupt).
///
/// # Safety
/// As for [`decompress`].
#[inline(always)]
pub unsafe fn decompressed_size<T: Thread>(t: &T, smem: *mut DecompressShared, args: SizeArgs) {
    let Some((chunk, win)) = chunk_of(t, smem, args.num_chunks) else { return };
    let (inp, in_len) = args.input(chunk);
    let r = if in_len > MAX_IN || (inp.is_null() && in_len > 0) {
        None
    } else {
        decode::<T, false>(t, win, inp, in_len as u32, core::ptr::null_mut(), MAX_OUT as u32)
    };
    if t.lane() == 0 {
        args.set_size(chunk, r.unwrap_or(0) as u64);
    }
}

/// This warp's chunk index and window, or `None` for warps past the last chunk.
#[inline(always)]
unsafe fn chunk_of<T: Thread>(t: &T, smem: *mut DecompressShared, num_chunks: u64) -> Option<(usize, *mut Window)> {
    if t.warp() >= WARPS_PER_BLOCK {
        return None;
    }
    let chunk = batch::warp_chunk(t, WARPS_PER_BLOCK, num_chunks)?;
    // SAFETY: `warp < WARPS_PER_BLOCK`; a place projection, no reference is created.
    Some((chunk, &raw mut (*smem).warps[t.warp() as usize]))
}

/// Decodes one LZ4 block (all lanes of the warp call this together; every branch that is not
/// per-lane data movement is warp-uniform). Returns the decompressed size, or `None` if the
/// block is invalid or does not fit in `cap` bytes. With `WRITE == false` only parses.
#[inline(always)]
unsafe fn decode<T: Thread, const WRITE: bool>(
    t: &T,
    win: *mut Window,
    inp: *const u8,
    in_len: u32,
    out: *mut u8,
    cap: u32,
) -> Option<u32> {
    let lane = t.lane();
    if in_len == 0 {
        // Not an LZ4 block: the shortest one is a lone token (an empty chunk compresses to 0x0C).
        return None;
    }
    let next = (&raw const (*win).next).cast::<u16>();
    let raw = (&raw const (*win).raw).cast::<u8>();
    let (mut ip, mut op) = (0u32, 0u32);
    let (mut wbase, mut lim) = (0u32, 0u32);
    let mut fresh = true;
    loop {
        if fresh || ip.wrapping_sub(wbase) > REFILL_AT {
            (wbase, lim) = refill(t, win, inp, in_len, ip);
            fresh = false;
        }

        // Step 1: token positions of up to 32 sequences.
        let mut n = 0u32;
        let mut tok = PARSED;
        let mut mine = Seq::default();
        let mut last = false;
        loop {
            let mut q = ip.wrapping_sub(wbase);
            while n < 32 {
                // SAFETY: q <= lim <= WINDOW, and `next` has WINDOW + 8 entries.
                let q2 = *next.add(q as usize) as u32;
                if q2 > lim {
                    break;
                }
                if lane == n {
                    tok = wbase.wrapping_add(q);
                }
                q = q2;
                n += 1;
            }
            ip = wbase.wrapping_add(q);
            if n == 32 || ip >= in_len {
                break;
            }
            let (s, is_last) = parse_one(inp, in_len, &mut ip, cap)?;
            if lane == n {
                tok = PARSED;
                mine = s;
            }
            n += 1;
            if is_last {
                last = true;
                break;
            }
            if ip.wrapping_sub(wbase) > lim {
                break;
            }
        }

        // Step 2: one sequence per lane.
        if lane < n && tok != PARSED {
            let q = tok.wrapping_sub(wbase) as usize;
            // SAFETY: the chain only accepted q with next[q] = q + 3 + lit <= lim <= WINDOW.
            let token = *raw.add(q) as u32;
            let lit = token >> 4;
            let off = *raw.add(q + 1 + lit as usize) as u32 | (*raw.add(q + 2 + lit as usize) as u32) << 8;
            mine = Seq { lit_src: tok + 1, lit, off, ml: (token & 15) + 4 };
        } else if lane >= n {
            mine = Seq::default();
        }
        let len = mine.lit as u64 + mine.ml as u64;
        let end = op as u64 + warp_inclusive_scan_u64(t, len);
        let total_end = shfl_idx_u64(t, end, 31);
        let start = end - len;
        let match_start = start + mine.lit as u64;
        let bad_offset = mine.ml > 0 && (mine.off == 0 || mine.off as u64 > match_start);
        if total_end > cap as u64 || t.any(bad_offset) {
            return None;
        }

        // Step 3: copy.
        if WRITE {
            copy_batch(t, inp, in_len, out, op, total_end as u32, n, start as u32, match_start as u32, &mine);
        }
        op = total_end as u32;
        if last {
            return Some(op);
        }
        if ip >= in_len {
            // The block ends after a match: LZ4 requires a final literal-only sequence.
            return None;
        }
    }
}

/// Loads the window starting at the 16-byte aligned address at or below `inp + ip`; returns
/// the window's input offset `wbase` (wrapping: it may lie up to 15 bytes before the chunk)
/// and `lim`, the number of window bytes inside the input.
#[inline(always)]
unsafe fn refill<T: Thread>(t: &T, win: *mut Window, inp: *const u8, in_len: u32, ip: u32) -> (u32, u32) {
    let lane = t.lane();
    let misalign = (inp as usize).wrapping_add(ip as usize) as u32 & 15;
    let wbase = ip.wrapping_sub(misalign);
    let q0 = 16 * lane;
    // Input offset of this lane's first byte; "negative" offsets wrap above MAX_IN.
    let r0 = wbase.wrapping_add(q0);
    let words = if r0 < in_len && in_len - r0 >= 16 {
        // SAFETY: all 16 bytes are inside the chunk, and inp + r0 is 16-byte aligned.
        mem::load16_nc(inp.wrapping_add(r0 as usize))
    } else {
        let mut w = [0u32; 4];
        for i in 0..16u32 {
            let r = r0.wrapping_add(i);
            if r < in_len {
                // SAFETY: r is inside the chunk.
                w[i as usize / 4] |= mem::load_u8_nc(inp.add(r as usize)) << (8 * (i % 4));
            }
        }
        w
    };
    let mut next = [0u32; 8];
    for i in 0..16u32 {
        let b = words[i as usize / 4] >> (8 * (i % 4)) & 0xff;
        let (lit, ml) = (b >> 4, b & 15);
        let fast = r0.wrapping_add(i) < in_len && lit != 15 && ml != 15;
        let v = if fast { q0 + i + 3 + lit } else { STOP as u32 };
        next[i as usize / 2] |= v << (16 * (i % 2));
    }
    t.sync_warp(); // every lane is done with the previous window
                   // SAFETY: q0 + 16 <= WINDOW; both arrays are 16-byte aligned and q0 is a multiple of 16.
    (&raw mut (*win).raw).cast::<[u32; 4]>().add(lane as usize).write(words);
    let next_rows = (&raw mut (*win).next).cast::<[u32; 4]>();
    next_rows.add(2 * lane as usize).write([next[0], next[1], next[2], next[3]]);
    next_rows.add(2 * lane as usize + 1).write([next[4], next[5], next[6], next[7]]);
    if lane == 0 {
        // SAFETY: entries WINDOW..WINDOW + 8 are the sentinel row.
        next_rows.add(2 * 32).write([u32::MAX; 4]);
    }
    t.sync_warp();
    (wbase, WINDOW.min(in_len.wrapping_sub(wbase)))
}

/// Scalar parse of the sequence at `*ip` (warp-uniform, reads global memory, checks every
/// byte). Returns the sequence and whether it is the final literal-only one, or `None` if the
/// input is malformed. Length loops end at the input's end or when a length exceeds what could
/// fit (`in_len` literals, `cap` match bytes).
#[inline(always)]
unsafe fn parse_one(inp: *const u8, in_len: u32, ip: &mut u32, cap: u32) -> Option<(Seq, bool)> {
    let mut p = *ip;
    let token = read_byte(inp, in_len, &mut p)?;
    let lit = (token >> 4) + read_length(inp, in_len, &mut p, token >> 4, in_len)?;
    if lit > in_len - p {
        return None;
    }
    let lit_src = p;
    p += lit;
    if p == in_len {
        *ip = p;
        return Some((Seq { lit_src, lit, off: 0, ml: 0 }, true));
    }
    let off = read_byte(inp, in_len, &mut p)? | read_byte(inp, in_len, &mut p)? << 8;
    let ml = (token & 15) + 4 + read_length(inp, in_len, &mut p, token & 15, cap)?;
    *ip = p;
    Some((Seq { lit_src, lit, off, ml }, false))
}

/// The extra length bytes after a 4-bit length field `nibble` (none unless it is 15), or `None`
/// past the input's end or once the sum exceeds `max`.
#[inline(always)]
unsafe fn read_length(inp: *const u8, in_len: u32, p: &mut u32, nibble: u32, max: u32) -> Option<u32> {
    let mut len = 0;
    if nibble == 15 {
        loop {
            let b = read_byte(inp, in_len, p)?;
            len += b;
            if b != 255 {
                break;
            }
            if len > max {
                return None;
            }
        }
    }
    Some(len)
}

/// Input byte `*p`, advancing `p`, or `None` at the input's end.
#[inline(always)]
unsafe fn read_byte(inp: *const u8, in_len: u32, p: &mut u32) -> Option<u32> {
    if *p >= in_len {
        return None;
    }
    // SAFETY: *p < in_len.
    let b = mem::load_u8_nc(inp.add(*p as usize));
    *p += 1;
    Some(b)
}

/// Writes output bytes `op..end` of the batch: lane `i` of group `g` writes byte `g + i`.
/// `start`/`match_start` are this lane's sequence's output positions.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn copy_batch<T: Thread>(
    t: &T,
    inp: *const u8,
    in_len: u32,
    out: *mut u8,
    op: u32,
    end: u32,
    n: u32,
    start: u32,
    match_start: u32,
    mine: &Seq,
) {
    let lane = t.lane();
    let lanemask_le = t.lanemask_lt() | 1 << lane;
    // Literal byte j of this lane's sequence is input byte j + lit_shift.
    let lit_shift = mine.lit_src.wrapping_sub(start);
    let mut g = op & !31;
    // Index of the sequence that contains byte g - 1 (-1 before the first).
    let mut seq_base = u32::MAX;
    // The wide copy's checks and shuffles run only in batches holding a long literal run: text's
    // short sequences never pay for them.
    let wide = out as usize & 15 == 0 && t.any(mine.lit >= WIDE_STEP);
    while g < end {
        let j = g + lane;
        let rel = start.wrapping_sub(g);
        let starts = t.reduce_or(if lane < n && rel < 32 { 1 << rel } else { 0 });
        let k = seq_base.wrapping_add((starts & lanemask_le).count_ones()) & 31;
        seq_base = seq_base.wrapping_add(starts.count_ones());
        let k_match = t.shfl_idx(match_start, k);
        let k_shift = t.shfl_idx(lit_shift, k);
        let k_off = t.shfl_idx(mine.off, k);
        let valid = j >= op && j < end;
        let src = j.wrapping_sub(k_off);
        // A match byte whose source is in this group: resolved from the source lane below.
        let chained = valid && j >= k_match && src >= g;
        let mut v = 0;
        if j < op {
            // Written by an earlier batch; a chained lane of this group may copy it.
            v = mem::load_u8(out.add(j as usize));
        } else if valid && j < k_match {
            v = mem::load_u8_nc(inp.add(j.wrapping_add(k_shift) as usize));
        } else if valid && !chained {
            v = mem::load_u8(out.add(src as usize));
        }
        if t.any(chained) {
            // Pointer jumping: sources always lie at lower lanes, so 5 doublings reach a root.
            let mut p = if chained { src - g } else { lane };
            for _ in 0..5 {
                p = t.shfl_idx(p, p);
            }
            v = t.shfl_idx(v, p);
        }
        if valid {
            mem::store_u8(out.add(j as usize), v);
        }
        // The next group's match bytes may read these stores.
        t.sync_warp();
        g += 32;
        if wide && seq_base != u32::MAX {
            g = copy_literal_run(t, inp, in_len, out, g, end, seq_base & 31, match_start, lit_shift);
        }
    }
}

/// Bytes a warp copies per step of [`copy_literal_run`]: 16 a lane.
const WIDE_STEP: u32 = 16 * 32;

/// Copies the literals of sequence `k` (which holds byte `g - 1`) from output byte `g` on, in
/// steps of [`WIDE_STEP`] bytes while whole steps remain before its match (or the batch's end)
/// and the step's aligned input words lie inside the input; returns the next byte to write.
/// Incompressible data is one long literal run per block, which the byte-per-lane groups copied
/// with a shuffle-heavy pass per 32 bytes; here each lane stores 16 bytes built from five aligned
/// input words (every lane's source has the same misalignment). `out` must be 16-byte aligned.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn copy_literal_run<T: Thread>(
    t: &T,
    inp: *const u8,
    in_len: u32,
    out: *mut u8,
    mut g: u32,
    end: u32,
    k: u32,
    match_start: u32,
    lit_shift: u32,
) -> u32 {
    let run_end = t.shfl_idx(match_start, k).min(end);
    let shift = t.shfl_idx(lit_shift, k);
    let first = g.wrapping_add(shift);
    let misalign = (inp as usize).wrapping_add(first as usize) as u32 & 3;
    let copied = g;
    // The step's words span input bytes first - misalign .. first - misalign + WIDE_STEP + 4.
    while g + WIDE_STEP <= run_end
        && g.wrapping_add(shift) >= misalign
        && g.wrapping_add(shift) - misalign + WIDE_STEP + 4 <= in_len
    {
        let src = g.wrapping_add(shift) + 16 * t.lane() - misalign;
        let mut w = [0u32; 5];
        for (i, w) in w.iter_mut().enumerate() {
            *w = mem::load4_nc(inp.add(src as usize + 4 * i));
        }
        let bytes = core::array::from_fn(|i| ((u64::from(w[i + 1]) << 32 | u64::from(w[i])) >> (8 * misalign)) as u32);
        mem::store16(out.add((g + 16 * t.lane()) as usize), bytes);
        g += WIDE_STEP;
    }
    if g != copied {
        // Later groups' match bytes may read these stores.
        t.sync_warp();
    }
    g
}
