//! LZ4 block compression, one warp per chunk: nvCOMP's warp-window encoder (FORMATS.md C.1)
//! and gpucomp's variant of it, byte for byte as the CPU reference `gpucomp::cpu::lz4::compress`
//! (whose documentation states the rules).
//!
//! A warp looks at a window of up to 29/31/32 element positions (element width 1/2/4), one per
//! lane, and takes the first lane with a match source: an earlier lane of the window with the
//! same key (shuffles), or a valid candidate from the hash table in shared memory (distance and
//! key checked). Window positions before the match (all of them without one) go into the
//! table, the latest position winning a contested slot; the match is extended, and the sequence
//! is written by the whole warp. See [`encode`] for what makes it fast.
use super::hash_table::{warp_bytes, HashTable, EMPTY, MAX_SLOTS};
use super::mem;
use super::source::{stage, Global, Shared, Source, STAGE_SLACK};
use super::stitch::continuation;
use super::{skip_stride, MAX_STAGE_BYTES};
use crate::batch::{self, CompressArgs};
use crate::{status, Thread};

/// Largest chunk nvCOMP's LZ4 compressor accepts (16 MiB).
pub const MAX_CHUNK_BYTES: u64 = 1 << 24;
/// No match may start in the last 12 bytes of a chunk.
const LAST_MATCH: u32 = 12;
/// The last 5 bytes of a chunk are always literals.
const END_LITERALS: u32 = 5;

/// Kernel body of `lz4_compress` (entry point in `ptx.rs`): compresses chunk `blockIdx.x *
/// warps + warp` (`warps = blockDim.x / 32`) into its output, which holds `roundup8(n + 1 +
/// ceil(n / 255))` bytes (never exceeded), and stores its result.
/// `encoder`: 0 = gpucomp, 1 = nvcomp-exact (rules in `gpucomp::cpu::lz4::compress`), 2 = gpucomp
/// on the segments of [`super::stitch`]: `out_bytes` then also holds the block's final literal
/// count, in its high 32 bits, and the block's final sequence is counted in its size but not
/// written (the stitch writes it from the input).
/// `stage_bytes`: each warp's staging buffer (a multiple of 16, at most
/// [`super::MAX_STAGE_BYTES`]; 0 for encoder 1, whose 16384-slot tables leave no room): the
/// gpucomp encoders copy a chunk of `1..=stage_bytes - 16` bytes into it and compress it from
/// there (bytes unchanged), longer chunks from global memory ([`super::compress_stage_bytes`]).
///
/// # Safety
/// Launched with whole warps and `smem` pointing to 16-byte aligned shared memory of
/// `warp_bytes(table_size) + stage_bytes` per warp (`crate::lz4::compress_shared_bytes`);
/// `args` valid, every chunk's buffers valid for the sizes above.
#[inline(always)]
pub unsafe fn compress<T: Thread>(
    t: &T,
    smem: *mut u8,
    args: CompressArgs,
    table_size: u32,
    element_width: u32,
    encoder: u32,
    stage_bytes: u32,
) {
    let Some(chunk) = batch::warp_chunk(t, t.block_dim() / 32, args.num_chunks) else { return };
    let ((inp, n), out) = (args.input(chunk), args.output(chunk));
    let stage_ok =
        stage_bytes.is_multiple_of(16) && stage_bytes <= MAX_STAGE_BYTES && (encoder != 1 || stage_bytes == 0);
    let r = if !matches!(element_width, 1 | 2 | 4) {
        Err(status::NOT_SUPPORTED)
    } else if !table_size.is_power_of_two() || table_size > MAX_SLOTS || encoder > 2 || !stage_ok {
        Err(status::INVALID_VALUE)
    } else if n > MAX_CHUNK_BYTES {
        Err(status::CHUNK_SIZE_TOO_LARGE)
    } else if out.is_null() || (inp.is_null() && n > 0) {
        Err(status::INVALID_VALUE)
    } else {
        // SAFETY: the caller sized `smem` for a table of `table_size` slots and a staging
        // buffer of `stage_bytes` per warp (at most 32 · (2^17 + 2^14 + 16) bytes: no overflow).
        let at = smem.add((t.warp() * (warp_bytes(table_size) + stage_bytes)) as usize);
        let table = HashTable::new(at, table_size);
        let n = n as u32;
        let staged = n > 0 && n + STAGE_SLACK <= stage_bytes;
        let segment = encoder == 2;
        let (size, final_literals) = match (encoder, element_width, staged) {
            (1, 1, _) => encode::<T, Global, 1, false>(t, &table, inp, n, out, segment),
            (1, 2, _) => encode::<T, Global, 2, false>(t, &table, inp, n, out, segment),
            (1, _, _) => encode::<T, Global, 4, false>(t, &table, inp, n, out, segment),
            (_, w, true) => {
                // SAFETY: the buffer follows the table (16-byte aligned: `warp_bytes` is a
                // multiple of 16) and holds `stage_bytes >= n + 16` bytes, hence
                // `roundup16(n) + 16`.
                let inp = stage(t, at.add(warp_bytes(table_size) as usize), inp, n);
                match w {
                    1 => encode::<T, Shared, 1, true>(t, &table, inp, n, out, segment),
                    2 => encode::<T, Shared, 2, true>(t, &table, inp, n, out, segment),
                    _ => encode::<T, Shared, 4, true>(t, &table, inp, n, out, segment),
                }
            }
            (_, 1, false) => encode::<T, Global, 1, true>(t, &table, inp, n, out, segment),
            (_, 2, false) => encode::<T, Global, 2, true>(t, &table, inp, n, out, segment),
            (_, _, false) => encode::<T, Global, 4, true>(t, &table, inp, n, out, segment),
        };
        Ok(if encoder == 2 { u64::from(final_literals) << 32 | u64::from(size) } else { u64::from(size) })
    };
    if t.lane() == 0 {
        args.finish(chunk, r);
    }
}

/// Compresses `n` bytes at `inp` of `W`-byte elements into one LZ4 block at `out` with
/// nvCOMP's rules (`G = false`) or gpucomp's (`G = true`: multiplicative hash, lazy choice among
/// the 5 lanes from the first match, backward extension, positions inside matches inserted, lanes
/// spread out after windows without a match ([`skip_stride`]); the rules are those of
/// `gpucomp::cpu::lz4::compress`); returns the block size and the literal
/// count of its final sequence. All lanes call this together. With `segment` (encoder 2) the
/// final sequence's bytes are not written, only counted: the stitch writes that sequence from the
/// input (a segment of incompressible data is one such sequence of 16 KiB).
///
/// Each window starts where the previous match ended, and a table per warp fills shared memory
/// (7 warps per SM at 16384 slots): the latency of one window step of one warp decides the
/// speed (measured: one warp per SM takes as long per chunk as seven). The step is arranged
/// around its one unavoidable chain, window bytes → hash → table slot → candidate bytes (an L2
/// load from global memory, `S = Global`; a shared-memory load from the staged chunk, `S =
/// Shared`, see [`super::source`]) → first hit → next window, and spends as few instructions as
/// possible elsewhere:
/// - in-window duplicates only matter before the first table hit (lane 0 in ~70% of lineitem
///   windows): the shuffles compare only the lanes below it (and the lazy lanes);
/// - only the positions before the match go into the table (none when it is at lane 0), and
///   the grouping of same-slot lanes (only the latest of each stores) runs only when two or
///   more lanes store;
/// - every lane loads 16 bytes at its position and its candidate at once, which settles ~95%
///   of match lengths on text;
/// - the previous window's sequence is written while the candidate bytes travel.
///
/// Control flow is warp-uniform and the code before each collective branch-free (ptxas emulates
/// collectives in divergent regions, an order of magnitude slower).
#[inline(always)]
unsafe fn encode<T: Thread, S: Source, const W: u32, const G: bool>(
    t: &T,
    table: &HashTable,
    inp: *const u8,
    n: u32,
    out: *mut u8,
    segment: bool,
) -> (u32, u32) {
    let lane = t.lane();
    if n == 0 {
        // A lone final token (the CPU reference's choice, which also decodes everywhere).
        return (emit::<_, S>(t, inp, out, 0, 0, 0, 0, 0), 0);
    }
    table.clear(t);
    // All positions, lengths and limits below count elements.
    let tl = n.div_ceil(W);
    let last_match = LAST_MATCH.div_ceil(W);
    let match_end = tl - END_LITERALS.div_ceil(W).min(tl);
    let lanes = 32 - 3 / W;
    let max_dist = 0xFFFF / W;
    let (mut idx, mut tok, mut op) = (0u32, 0u32, 0u32);
    // Gpucomp's skip rule: windows without a match since the last one set the lanes' stride.
    let mut misses = 0u32;
    let mut window = Window::load::<S, W>(inp, n, idx, 1, lanes.min(tl.saturating_sub(last_match)), lane);
    // The previous window's sequence, written while this window's candidate bytes travel.
    let mut pending: Option<Sequence> = None;
    loop {
        if idx + last_match >= tl {
            if let Some(q) = pending {
                op = q.write::<_, S>(t, inp, out, op);
            }
            let lit = n - tok * W;
            if segment {
                return (op + 1 + continuation(lit) + lit, lit);
            }
            return (emit::<_, S>(t, inp, out, op, tok * W, lit, 0, 0), lit);
        }
        let nvalid = window.nvalid;
        let stride = window.stride;
        let valid = lane < nvalid;
        let p = window.p;
        let own = window.bytes.get();
        let key = own[0];

        // Table candidate of every lane.
        let slot = table.slot::<G>(key);
        let s = table.get(slot);
        let real = (p & !0xFFFF) | s;
        let real = if real >= p { real.wrapping_sub(0x10000) } else { real };
        let in_range = valid & (G | (s != EMPTY)) & (real < p) & (p.wrapping_sub(real) <= max_dist);
        let cand = if in_range { real } else { p };
        let cand_bytes = Bytes16::load::<S>(inp, n, cand * W, window.tail);
        S::prefetch(inp.add(((idx + 1024 / W) * W).min(n - 1) as usize));
        if let Some(q) = pending.take() {
            op = q.write::<_, S>(t, inp, out, op);
        }
        let cand_words = cand_bytes.get();
        let hit = in_range & (cand_words[0] == key);
        let hits = t.ballot(hit);
        let first_hit = if hits != 0 { first_lane(hits) } else { nvalid };

        // In-window duplicates of the lanes that can matter: up to the first hit (whose own
        // duplicate beats its table candidate) and, for the lazy choice, the 4 lanes after it.
        // `src_lane`: the earliest lane with this lane's key.
        let dup_end = (first_hit + 1 + if G { LAZY_LANES } else { 0 }).min(nvalid);
        let (dup, src_lane, dups) = window_dups(t, lane, key, dup_end);
        let first = if hits | dups != 0 { first_lane(hits | dups) } else { nvalid };

        // Each lane's candidate: the duplicate source, else the table's; `len16`: matching
        // bytes among the first 16.
        let mut src_pos = cand;
        let mut len16 = 4 + common_prefix12([cand_words[1], cand_words[2], cand_words[3]], [own[1], own[2], own[3]]);
        if dups != 0 {
            let dup_words = [t.shfl_idx(own[1], src_lane), t.shfl_idx(own[2], src_lane), t.shfl_idx(own[3], src_lane)];
            if dup {
                src_pos = idx + src_lane * stride;
                len16 = 4 + common_prefix12(dup_words, [own[1], own[2], own[3]]);
            }
        }
        // The match lane `m` (`nvalid`: none) and its bytes known to match (`known`; all of
        // them unless it is 16).
        let (m, known) = if first == nvalid {
            (nvalid, 0)
        } else if !G {
            (first, t.shfl_idx(len16, first))
        } else {
            // Lazy choice: the largest `len - (lane - first)` among lanes first..=first + 4 with
            // a candidate (`len` in elements, capped at 16 and at the match end), the smallest
            // lane on ties.
            let lazy = (dup | hit) & (lane >= first) & (lane <= first + LAZY_LANES) & valid;
            let cap = LAZY_CAP.min(match_end.saturating_sub(p));
            let len = if W == 1 {
                len16.min(cap)
            } else if lazy {
                common_bytes_lane::<S>(inp, src_pos * W, p * W, cap * W) / W
            } else {
                0
            };
            let score = if lazy { (len + LAZY_LANES - (lane - first)) << 5 | (31 - lane) } else { 0 };
            let m = 31 - (t.reduce_max(score) & 31);
            let m_len = t.shfl_idx(len, m);
            // Lengths below the cap are exact; at the cap the forward extension goes on.
            (m, if m_len < LAZY_CAP.min(match_end - (idx + m * stride)) { m_len * W } else { 16.min(m_len * W) })
        };
        if m > 0 {
            t.sync_warp(); // all lookups of this window precede its inserts
            if m > 1 {
                table.set_window(t, slot, p, lane < m);
            } else if lane == 0 {
                table.set(slot, p);
            }
        }
        if m == nvalid {
            idx += nvalid * stride;
            let stride = if G {
                misses += 1;
                skip_stride(misses)
            } else {
                1
            };
            let nvalid = lanes.min(tl.saturating_sub(idx + last_match).div_ceil(stride));
            window = Window::load::<S, W>(inp, n, idx, stride, nvalid, lane);
        } else {
            misses = 0;
            let mut pos = idx + m * stride;
            let mut src = t.shfl_idx(src_pos, m);
            let limit = (match_end - pos) * W;
            let mut ml = if known < 16 {
                known.min(limit)
            } else {
                common_bytes::<_, S>(t, inp.add((src * W) as usize), inp.add((pos * W) as usize), 16, limit)
            } / W;
            if G {
                // Backward extension over whole elements, not into earlier sequences.
                let back = common_suffix::<_, S>(
                    t,
                    inp.add((src * W) as usize),
                    inp.add((pos * W) as usize),
                    (pos - tok).min(src) * W,
                ) / W;
                pos -= back;
                src -= back;
                ml += back;
            }
            let lit = (pos - tok) * W;
            // Literal bytes for the short-sequence path: lane b holds literal b - 1.
            let lit_byte =
                S::byte(inp.add((tok * W + if (lane >= 1) & (lane <= lit) { lane - 1 } else { 0 }) as usize));
            pending = Some(Sequence { lit_start: tok * W, lit, ml: ml * W, off: (pos - src) * W, lit_byte });
            idx = pos + ml;
            tok = idx;
            window = Window::load::<S, W>(inp, n, idx, 1, lanes.min(tl.saturating_sub(idx + last_match)), lane);
            if G {
                insert_match::<T, S, W>(t, table, inp, pos, ml);
            }
        }
        t.sync_warp(); // the next window's lookups see this window's inserts
    }
}

/// In-window duplicates among lanes `..dup_end`: whether this lane's key occurs at a lower
/// lane (`dup`), the earliest lane with its key (`src_lane`, itself when none) and the ballot
/// of `dup` (0 when `dup_end` ≤ 1).
#[inline(always)]
fn window_dups<T: Thread>(t: &T, lane: u32, key: u32, dup_end: u32) -> (bool, u32, u32) {
    let mut equal_below = 0u32; // bit d: lane - d has this lane's key
    let mut d = 1;
    while d < dup_end {
        if t.shfl_up(key, d) == key {
            equal_below |= 1 << d;
        }
        d += 1;
    }
    let earlier = equal_below & lanes_below(lane + 1);
    let dup = (lane < dup_end) & (earlier != 0);
    let src_lane = if dup { lane + earlier.leading_zeros() - 31 } else { lane };
    let dups = if dup_end > 1 { t.ballot(dup) } else { 0 };
    (dup, src_lane, dups)
}

/// Gpucomp: the positions `pos..pos + ml` inside a match go into the table, 32 per step, the
/// latest winning a contested slot. All lanes call this together.
#[inline(always)]
unsafe fn insert_match<T: Thread, S: Source, const W: u32>(
    t: &T,
    table: &HashTable,
    inp: *const u8,
    pos: u32,
    ml: u32,
) {
    let lane = t.lane();
    let mut base = pos;
    while base < pos + ml {
        let q = (base + lane).min(pos + ml - 1);
        let k = key_bytes::<S>(inp, q * W);
        let k_slot = table.slot::<true>(k);
        let store = base + lane < pos + ml;
        t.sync_warp(); // earlier inserts precede these (the latest wins)
        table.set_window(t, k_slot, q, store);
        base += 32;
    }
}

/// The 4-byte little-endian key at byte `b` of the chunk, read bytewise (positions inside a
/// match end 5 bytes before the chunk's end, too close for [`Bytes16`]).
#[inline(always)]
unsafe fn key_bytes<S: Source>(inp: *const u8, b: u32) -> u32 {
    let p = inp.add(b as usize);
    S::byte(p) | S::byte(p.add(1)) << 8 | S::byte(p.add(2)) << 16 | S::byte(p.add(3)) << 24
}

/// Gpucomp: lanes after the first match lane that the lazy choice considers.
const LAZY_LANES: u32 = 4;
/// Gpucomp: cap, in elements, of the match lengths the lazy choice compares.
const LAZY_CAP: u32 = 16;

/// This lane's common prefix of `inp[a..]` and `inp[b..]`, at most `max` bytes (bytewise;
/// used for the lazy choice with 2- and 4-byte elements, whose cap exceeds 16 bytes).
#[inline(always)]
unsafe fn common_bytes_lane<S: Source>(inp: *const u8, a: u32, b: u32, max: u32) -> u32 {
    let mut i = 0;
    while i < max && S::byte(inp.add((a + i) as usize)) == S::byte(inp.add((b + i) as usize)) {
        i += 1;
    }
    i
}

/// Length of the common suffix of the `max` bytes before `a` and before `b`; 32 bytes per step.
#[inline(always)]
unsafe fn common_suffix<T: Thread, S: Source>(t: &T, a: *const u8, b: *const u8, max: u32) -> u32 {
    let mut len = 0;
    while len < max {
        let i = len + t.lane();
        // Lanes past `max` compare the first byte again (in bounds) and count as a stop.
        let j = if i < max { i } else { len } as usize + 1;
        let stop = (i >= max) | (S::byte(a.sub(j)) != S::byte(b.sub(j)));
        let stops = t.ballot(stop);
        if stops != 0 {
            return len + first_lane(stops);
        }
        len += 32;
    }
    max
}

/// A window's positions as the lanes hold them: `nvalid` lanes `stride` elements apart, this
/// lane's position `p` (lanes past the window use position `idx`: a valid address, results
/// unused), and its 16 bytes (loaded, combined only when used so that the loads overlap other
/// work).
#[derive(Clone, Copy)]
struct Window {
    nvalid: u32,
    stride: u32,
    p: u32,
    bytes: Bytes16,
    /// Some lane's 16 bytes plus slack may reach past the chunk's end (see [`Bytes16::load`]).
    tail: bool,
}

impl Window {
    /// Starts loading the window of `nvalid` positions `stride` elements apart from element
    /// `idx` of the `n`-byte chunk (`nvalid == 0`: none).
    #[inline(always)]
    unsafe fn load<S: Source, const W: u32>(
        inp: *const u8,
        n: u32,
        idx: u32,
        stride: u32,
        nvalid: u32,
        lane: u32,
    ) -> Window {
        let p = if lane < nvalid { idx + lane * stride } else { idx };
        // The last lane's position is below `idx + 31 · stride + 1`.
        let tail = (idx + 31 * stride + 1) * W + 20 > n;
        let bytes = if nvalid > 0 { Bytes16::load::<S>(inp, n, p * W, tail) } else { Bytes16 { w: [0; 5], shift: 0 } };
        Window { nvalid, stride, p, bytes, tail }
    }
}

/// Bytes `b..b + 16` of a chunk, as the five aligned words that hold them.
#[derive(Clone, Copy)]
struct Bytes16 {
    w: [u32; 5],
    shift: u32,
}

impl Bytes16 {
    /// Loads the words holding bytes `b..b + 16` of the chunk at `inp`. With `tail` (the window
    /// is within 32 bytes of the chunk's end `n`), words that would reach past `n` are replaced
    /// by the first word: their bytes lie beyond `n - 4`, past every byte a match may compare
    /// (the last 5 bytes are literals).
    ///
    /// # Safety
    /// `b + 12 <= n` (callers stay 12 bytes before the end), and `b + 20 <= n` unless `tail`.
    /// The aligned words may start up to 3 bytes before `inp + b`, so they may cover bytes just
    /// before the chunk, but never leave the 4-byte aligned words that overlap it, hence never
    /// its allocation.
    #[inline(always)]
    unsafe fn load<S: Source>(inp: *const u8, n: u32, b: u32, tail: bool) -> Bytes16 {
        let a = inp.wrapping_add(b as usize);
        let misalign = a as usize & 3;
        let w = a.wrapping_sub(misalign);
        let shift = 8 * misalign as u32;
        if !tail {
            return Bytes16 { w: [0, 4, 8, 12, 16].map(|o| S::word(w.add(o))), shift };
        }
        // Word k covers chunk bytes up to b - misalign + 4k + 4.
        let word = |k: u32| S::word(if b + 4 * k + 4 - misalign as u32 <= n { w.add(4 * k as usize) } else { w });
        Bytes16 { w: [word(0), word(1), word(2), word(3), word(4)], shift }
    }

    /// The four little-endian words of bytes `b..b + 4`, ..., `b + 12..b + 16`.
    #[inline(always)]
    fn get(&self) -> [u32; 4] {
        let f = |k: usize| (((self.w[k + 1] as u64) << 32 | self.w[k] as u64) >> self.shift) as u32;
        [f(0), f(1), f(2), f(3)]
    }
}

/// Number of equal leading bytes (little-endian order) of two 12-byte strings: 0..=12
/// (branch-free).
#[inline(always)]
fn common_prefix12(a: [u32; 3], b: [u32; 3]) -> u32 {
    let d = [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2]];
    let (x, base) = if d[0] != 0 {
        (d[0], 0)
    } else if d[1] != 0 {
        (d[1], 4)
    } else {
        (d[2], 8)
    };
    base + x.reverse_bits().leading_zeros() / 8
}

/// The lowest set lane of a non-zero mask (`trailing_zeros` would add a zero test and branch).
#[inline(always)]
fn first_lane(mask: u32) -> u32 {
    mask.reverse_bits().leading_zeros()
}

/// Mask of lanes `0..m` (`m <= 32`).
#[inline(always)]
fn lanes_below(m: u32) -> u32 {
    ((1u64 << m) - 1) as u32
}

/// A sequence to write: `lit` literal bytes from `lit_start`, then `ml` match bytes at `off`
/// bytes back; `lit_byte` is this lane's literal `lane - 1` (for [`emit_short`]).
#[derive(Clone, Copy)]
struct Sequence {
    lit_start: u32,
    lit: u32,
    ml: u32,
    off: u32,
    lit_byte: u32,
}

impl Sequence {
    /// Writes the sequence at `out + op`; returns the new output position.
    #[inline(always)]
    unsafe fn write<T: Thread, S: Source>(&self, t: &T, inp: *const u8, out: *mut u8, op: u32) -> u32 {
        if self.lit < 15 && self.ml < 19 {
            emit_short(t, out, op, self.lit_byte, self.lit, self.ml, self.off)
        } else {
            emit::<_, S>(t, inp, out, op, self.lit_start, self.lit, self.ml, self.off)
        }
    }
}

/// Length of the common prefix of `a[..max]` and `b[..max]`, known to be at least `from`
/// (`from <= max`); 32 bytes per step.
#[inline(always)]
unsafe fn common_bytes<T: Thread, S: Source>(t: &T, a: *const u8, b: *const u8, from: u32, max: u32) -> u32 {
    let mut len = from;
    while len < max {
        let i = len + t.lane();
        // Lanes past `max` compare byte `len` again (in bounds) and count as a stop.
        let j = if i < max { i } else { len } as usize;
        let stop = (i >= max) | (S::byte(a.add(j)) != S::byte(b.add(j)));
        let stops = t.ballot(stop);
        if stops != 0 {
            return len + first_lane(stops);
        }
        len += 32;
    }
    max
}

/// Writes one sequence at `out + op` and returns the new output position: `lit` literal bytes
/// from `inp + lit_start`, then a match of `ml` bytes at `off` bytes back, or, with `ml == 0`,
/// the final literal-only sequence (match nibble 0xC, as nvCOMP writes it).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn emit<T: Thread, S: Source>(
    t: &T,
    inp: *const u8,
    out: *mut u8,
    mut op: u32,
    lit_start: u32,
    lit: u32,
    ml: u32,
    off: u32,
) -> u32 {
    let lane = t.lane();
    let match_nibble = if ml == 0 { 0xC } else { (ml - 4).min(15) };
    if lane == 0 {
        mem::store_u8(out.add(op as usize), lit.min(15) << 4 | match_nibble);
    }
    op += 1;
    if lit >= 15 {
        op = length_bytes(t, out, op, lit - 15);
    }
    let mut i = lane;
    while i < lit {
        mem::store_u8(out.add((op + i) as usize), S::byte(inp.add((lit_start + i) as usize)));
        i += 32;
    }
    op += lit;
    if ml > 0 {
        if lane == 0 {
            mem::store_u8(out.add(op as usize), off);
            mem::store_u8(out.add(op as usize + 1), off >> 8);
        }
        op += 2;
        if ml >= 19 {
            op = length_bytes(t, out, op, ml - 19);
        }
    }
    op
}

/// [`emit`] for a sequence with fewer than 15 literal bytes and a match of 4..=18 bytes: one
/// store per lane (token, literals, offset), `lit_byte` being literal `lane - 1`.
#[inline(always)]
unsafe fn emit_short<T: Thread>(t: &T, out: *mut u8, op: u32, lit_byte: u32, lit: u32, ml: u32, off: u32) -> u32 {
    let lane = t.lane();
    let v = if lane == 0 {
        lit << 4 | (ml - 4)
    } else if lane <= lit {
        lit_byte
    } else if lane == lit + 1 {
        off
    } else {
        off >> 8
    };
    if lane < lit + 3 {
        mem::store_u8(out.add((op + lane) as usize), v);
    }
    op + lit + 3
}

/// Writes the LZ4 length continuation for `v` (0xFF bytes, then the remainder) at `out + op`.
#[inline(always)]
pub(super) unsafe fn length_bytes<T: Thread>(t: &T, out: *mut u8, op: u32, v: u32) -> u32 {
    let ff = v / 255;
    let mut i = t.lane();
    while i < ff {
        mem::store_u8(out.add((op + i) as usize), 0xFF);
        i += 32;
    }
    if t.lane() == 0 {
        mem::store_u8(out.add((op + ff) as usize), v % 255);
    }
    op + ff + 1
}
