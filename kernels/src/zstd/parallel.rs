//! The warp decoder of `zstd_decompress`: every lane of the chunk's warp walks the chunk's
//! frames and blocks (headers are parsed by all lanes alike, so control flow is warp-uniform),
//! and the work is spread where it can be:
//!
//! - raw and RLE blocks: copied or filled by all lanes;
//! - literals: Huffman tables are built by lane 0, then the streams are decoded into the chunk's
//!   literal buffer (global memory) by 4 lanes at once (4-stream literals) or by lane 0
//!   (1 stream); raw and RLE literals are read in place;
//! - sequences: lane 0 decodes them (the FSE bitstream is sequential) in batches of 32 into
//!   shared memory, checking each against the output limit, the literals left and the frame's
//!   start before anything is written; the warp then writes the batch's output 32 bytes at a time,
//!   lane `i` byte `g + i`, literal bytes from the literal source, match bytes from `off` bytes
//!   back (a source in the same 32-byte group is taken from its lane by pointer jumping, so
//!   overlapping matches are exact);
//! - the content checksum: lane 0.
//!
//! A block whose Huffman literals do not fit the literal buffer (none given, or smaller than the
//! block's literals) is decoded by lane 0 alone with the serial decoder of `frame`, which decodes
//! literals as the sequences consume them. Verdicts are the serial decoder's: the checks are the
//! same, only the order in which a corrupt block's bytes are written differs.
use super::execute::Out;
use super::frame::{self, FRAME_MAGIC, MAX_BLOCK, MAX_WINDOW, SKIPPABLE_MAGIC};
use super::huffman::{self, Scratch};
use super::literals::{Header, HufTable, Kind, Literals};
use super::sequences::{self, SeqDecoder, SeqTables};
use super::xxh64::xxh64;
use super::Workspace;
use crate::lz4::mem;
use crate::warp::{shfl_idx_u64, warp_scan};
use crate::{status, Thread};

const BAD: i32 = status::CANNOT_DECOMPRESS;
/// Sequences per batch: one per lane.
pub const BATCH: usize = 32;

/// One chunk's buffers, the same on every lane.
pub struct Chunk {
    /// The output (null only with `cap` 0).
    pub out: *mut u8,
    /// Its capacity.
    pub cap: usize,
    /// The chunk's literal buffer (null only with `lit_cap` 0).
    pub lits: *mut u8,
    /// Its size.
    pub lit_cap: usize,
    /// The warp's workspace (shared memory).
    pub ws: *mut Workspace,
}

/// The state a frame keeps across its blocks. `huf_log` and `huf_valid` are the same on every
/// lane; the rest is lane 0's.
struct FrameState {
    huf_log: u32,
    huf_valid: bool,
    seq_logs: [u32; 3],
    seq_valid: bool,
    reps: [u64; 3],
}

/// Lane 0's `v`, on every lane.
#[inline(always)]
fn bcast<T: Thread>(t: &T, v: u32) -> u32 {
    t.shfl_idx(v, 0)
}

/// Lane 0's `v`, on every lane.
#[inline(always)]
fn bcast_usize<T: Thread>(t: &T, v: usize) -> usize {
    shfl_idx_u64(t, v as u64, 0) as usize
}

/// Decodes every frame of `input` into the front of the chunk's output, in order (all lanes of
/// the warp call this together); returns the bytes written, or the chunk's status, on every lane.
///
/// # Safety
/// `c` describes valid buffers: the output writable for `cap` bytes and the literal buffer for
/// `lit_cap`, both this warp's alone; `ws` this warp's workspace.
#[inline(always)]
pub unsafe fn decode_chunk<T: Thread>(t: &T, input: &[u8], c: &Chunk) -> Result<usize, i32> {
    if input.is_empty() {
        return Err(BAD);
    }
    let (mut at, mut written) = (0usize, 0usize);
    // Each frame takes at least 8 bytes, so this loop ends.
    while at < input.len() {
        let rest = input.get(at..).ok_or(BAD)?;
        let magic = frame::uint_at(rest, 0, 4).ok_or(BAD)? as u32;
        if magic & !0xF == SKIPPABLE_MAGIC {
            let payload = frame::uint_at(rest, 4, 4).ok_or(BAD)? as usize;
            if payload > rest.len() - 8 {
                return Err(BAD);
            }
            at += 8 + payload;
        } else if magic == FRAME_MAGIC {
            let (used, produced) = decode_frame(t, rest, c, written)?;
            at += used;
            written += produced;
        } else {
            return Err(BAD);
        }
    }
    Ok(written)
}

/// Decodes the frame at the start of `f` into the output from `start`; returns (frame bytes,
/// bytes written).
#[inline(always)]
unsafe fn decode_frame<T: Thread>(t: &T, f: &[u8], c: &Chunk, start: usize) -> Result<(usize, usize), i32> {
    let h = frame::parse_header(f).ok_or(BAD)?;
    if h.dict_id != 0 || (!h.single_segment && h.window > MAX_WINDOW) {
        return Err(status::NOT_SUPPORTED);
    }
    let block_max = h.window.min(MAX_BLOCK) as usize;
    let mut st = FrameState { huf_log: 0, huf_valid: false, seq_logs: [0; 3], seq_valid: false, reps: [1, 4, 8] };
    let mut pos = start;
    let mut fp = h.len;
    // Each block takes at least 3 bytes of the frame, so this loop ends.
    loop {
        let bh = frame::uint_at(f, fp, 3).ok_or(BAD)? as usize;
        let (last, kind, size) = (bh & 1 == 1, (bh >> 1) & 3, bh >> 3);
        if kind == 3 || size > block_max {
            return Err(BAD);
        }
        fp += 3;
        let csize = if kind == 1 { 1 } else { size };
        let body = f.get(fp..fp + csize).ok_or(BAD)?;
        fp += csize;
        let room = c.cap - pos;
        match kind {
            0 | 1 => {
                if size > room {
                    return Err(BAD);
                }
                let rle = if kind == 1 { Some(*body.first().ok_or(BAD)?) } else { None };
                let lane = t.lane() as usize;
                for i in (lane..size).step_by(32) {
                    // SAFETY: `pos + size <= cap`; raw blocks hold `size` bytes.
                    let v = rle.map_or_else(|| mem::load_u8_nc(body.as_ptr().add(i)), u32::from);
                    mem::store_u8(c.out.add(pos + i), v);
                }
                pos += size;
            }
            _ => {
                let limit = pos + room.min(block_max);
                pos = compressed_block(t, body, block_max, c, start, pos, limit, &mut st).ok_or(BAD)?;
            }
        }
        // Later blocks read what this one wrote.
        t.sync_warp();
        if last {
            break;
        }
    }
    let produced = pos - start;
    if h.content_size.is_some_and(|n| n != produced as u64) {
        return Err(BAD);
    }
    if h.checksum {
        let want = frame::uint_at(f, fp, 4).ok_or(BAD)? as u32;
        let mut ok = 1;
        if t.lane() == 0 {
            // SAFETY: the frame's bytes were written (and the warp synchronised) above; a null
            // output has capacity 0.
            let bytes = if produced == 0 { &[][..] } else { core::slice::from_raw_parts(c.out.add(start), produced) };
            ok = (xxh64(bytes) as u32 == want) as u32;
        }
        if bcast(t, ok) == 0 {
            return Err(BAD);
        }
        fp += 4;
    }
    Ok((fp, produced))
}

/// Decodes one compressed block (RFC 8878 §3.1.1.3) into the output at `pos` (the frame starts
/// at `frame_start`, the block may write up to `limit`); returns the new output position, on
/// every lane, or `None` where the serial decoder refuses the block.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn compressed_block<T: Thread>(
    t: &T,
    block: &[u8],
    block_max: usize,
    c: &Chunk,
    frame_start: usize,
    pos: usize,
    limit: usize,
    st: &mut FrameState,
) -> Option<usize> {
    let lane = t.lane();
    let ws = c.ws;
    let h = Header::parse(block, block_max, st.huf_valid)?;
    if h.kind >= 2 && h.size > c.lit_cap {
        return serial_block(t, block, block_max, c, frame_start, pos, limit, st);
    }
    // A new Huffman table: lane 0 builds it.
    let mut table = 0usize;
    if let Some(payload) = h.table {
        let mut r = 0u32;
        if lane == 0 {
            let mut s = scratch(ws);
            if let Some((log, used)) = huffman::read_table(payload, &mut (*ws).huf, &mut s) {
                // `used` < 2^18 (a payload's length), `log` <= 12.
                r = 1 | log << 1 | (used as u32) << 5;
            }
        }
        let r = bcast(t, r);
        if r & 1 == 0 {
            return None;
        }
        (st.huf_log, st.huf_valid) = ((r >> 1) & 15, true);
        table = (r >> 5) as usize;
        t.sync_warp();
    }
    let lits = Literals::streams(block, h, st.huf_log, table)?;
    // Every literal is written within the block's limit, whatever the sequences.
    if h.size > limit - pos {
        return None;
    }
    let src = match lits.kind {
        Kind::Raw(raw) => LitSrc { ptr: raw.as_ptr(), written: false, rle: None },
        Kind::Rle(b) => LitSrc { ptr: core::ptr::null(), written: false, rle: Some(b) },
        Kind::Huffman => {
            if !decode_huffman(t, &lits, st.huf_log, ws, c.lits) {
                return None;
            }
            LitSrc { ptr: c.lits, written: true, rle: None }
        }
    };
    let rest = block.get(h.len..)?;

    // Sequences header and tables: lane 0.
    let mut r = (0usize, 0usize, false);
    if lane == 0 {
        let mut tables = seq_tables(ws, st);
        if let Some((count, used)) = sequences::parse_header(rest, &mut tables, &mut (*ws).norm, &mut (*ws).next) {
            r = (count, used, true);
        }
        st.seq_logs = tables.logs;
    }
    if bcast(t, r.2 as u32) == 0 {
        return None;
    }
    let count = bcast(t, r.0 as u32) as usize;
    let used = bcast(t, r.1 as u32) as usize;
    let (mut pos, mut lit_at) = (pos, 0usize);
    if count > 0 {
        st.seq_valid = true;
        let stream = rest.get(used..)?;
        let mut dec = None;
        let mut reps = st.reps;
        if lane == 0 {
            dec = SeqDecoder::new(stream, &seq_tables(ws, st));
        }
        if bcast(t, dec.is_some() as u32) == 0 {
            return None;
        }
        let mut done = 0usize;
        // Each pass takes up to BATCH sequences, at least one.
        while done < count {
            let n = (count - done).min(BATCH);
            let mut ok = 1u32;
            // The warp is done with the previous batch's entries.
            t.sync_warp();
            if let (0, Some(d)) = (lane, dec.as_mut()) {
                let tables = seq_tables(ws, st);
                let (mut p, mut la) = (pos, lit_at);
                for j in 0..n {
                    let Some(s) = d.next(&tables, &mut reps, done + j + 1 == count) else {
                        ok = 0;
                        break;
                    };
                    // The serial decoder's checks (`Out::sequence`), before anything is written.
                    let (ll, ml) = (s.ll as usize, s.ml as usize);
                    let m = p + ll;
                    if ll + ml > limit - p || ll > h.size - la || s.off == 0 || s.off > (m - frame_start) as u64 {
                        ok = 0;
                        break;
                    }
                    (*ws).seq[j & (BATCH - 1)] = [s.ll, s.ml, s.off as u32];
                    (p, la) = (m + ml, la + ll);
                }
                if ok == 1 && done + n == count && !d.finished() {
                    ok = 0;
                }
            }
            if bcast(t, ok) == 0 {
                return None;
            }
            t.sync_warp();
            let [ll, ml, off] = if (lane as usize) < n { (*ws).seq[lane as usize & (BATCH - 1)] } else { [0; 3] };
            // Within a block: the batch's output and literals are below 2^17 + 2^17 bytes.
            let (start, total) = warp_scan(t, ll + ml);
            let (lit, lit_total) = warp_scan(t, ll);
            let mine = Run { start, ll, off, lit };
            execute(t, c.out, pos, pos + total as usize, n as u32, mine, &src, lit_at);
            pos += total as usize;
            lit_at += lit_total as usize;
            done += n;
        }
        st.reps = reps;
    }
    // The literals after the last sequence.
    let left = h.size - lit_at;
    if left > limit - pos {
        return None;
    }
    if left > 0 {
        let mine = Run { start: 0, ll: left as u32, off: 0, lit: 0 };
        execute(t, c.out, pos, pos + left, 1, mine, &src, lit_at);
        pos += left;
    }
    Some(pos)
}

/// The block decoded by lane 0 alone with the serial decoder (literals decoded as the sequences
/// consume them); the same contract as [`compressed_block`].
#[allow(clippy::too_many_arguments)]
#[inline(never)]
unsafe fn serial_block<T: Thread>(
    t: &T,
    block: &[u8],
    block_max: usize,
    c: &Chunk,
    frame_start: usize,
    pos: usize,
    limit: usize,
    st: &mut FrameState,
) -> Option<usize> {
    let mut r = (0usize, 0u32);
    // The output before `pos` was written by every lane.
    t.sync_warp();
    if t.lane() == 0 {
        let ws = c.ws;
        // SAFETY: only lane 0 touches the output and the workspace until the warp synchronises
        // below; a null output has capacity 0.
        let buf = if c.cap == 0 { &mut [][..] } else { core::slice::from_raw_parts_mut(c.out, c.cap) };
        let mut out = Out::<true> { buf, cap: c.cap, frame_start, pos, limit };
        let mut huf = HufTable { table: &mut (*ws).huf, log: st.huf_log, valid: st.huf_valid };
        let mut tables = seq_tables(ws, st);
        let mut s = scratch(ws);
        let ok = frame::compressed_block(block, block_max, &mut out, &mut huf, &mut tables, &mut st.reps, &mut s);
        (st.seq_logs, st.seq_valid) = (tables.logs, tables.valid);
        r = (out.pos, ok.is_some() as u32 | huf.log << 1 | (huf.valid as u32) << 5);
    }
    t.sync_warp();
    let flags = bcast(t, r.1);
    (st.huf_log, st.huf_valid) = ((flags >> 1) & 15, flags & 32 != 0);
    let pos = bcast_usize(t, r.0);
    (flags & 1 == 1).then_some(pos)
}

/// The sequence tables of the workspace with the frame's logs (lane 0).
#[inline(always)]
unsafe fn seq_tables<'a>(ws: *mut Workspace, st: &FrameState) -> SeqTables<'a> {
    SeqTables { ll: &mut (*ws).ll, of: &mut (*ws).of, ml: &mut (*ws).ml, logs: st.seq_logs, valid: st.seq_valid }
}

/// The table-build scratch of the workspace (lane 0).
#[inline(always)]
unsafe fn scratch<'a>(ws: *mut Workspace) -> Scratch<'a> {
    Scratch { norm: &mut (*ws).norm, next: &mut (*ws).next, fse: &mut (*ws).weights_fse, weights: &mut (*ws).weights }
}

/// Decodes the Huffman literals `lits` into `dst` (room for all of them): stream `k` by lane `k`;
/// returns whether libzstd accepts the streams, on every lane. With libzstd's fast 4-stream
/// decoding (`lits.lenient`), the 4 lanes replay its loop together: passes of 5 symbols per
/// stream as long as its bounds allow, which it checks between passes from all 4 streams' read
/// positions, then the rest of each segment without checks; otherwise each stream must end
/// exactly after its literals.
#[inline(always)]
unsafe fn decode_huffman<T: Thread>(t: &T, lits: &Literals, log: u32, ws: *mut Workspace, dst: *mut u8) -> bool {
    let lane = t.lane() as usize;
    // SAFETY: the table was built and the warp synchronised; nothing writes it until the next block.
    let table = &(*ws).huf;
    let mine = lane < lits.count;
    let (lo, hi) = if mine { (lane * lits.segment, lits.stream_end(lane)) } else { (0, 0) };
    // `lane & 3` is `lane` for the stream lanes (at most 4), and spares a bounds check.
    let mut b = lits.streams[lane & 3];
    let mut k = lo;
    let mut ok = true;
    if lits.lenient {
        let mut ip = if mine { lits.bounds[lane & 3].1 as i32 - 8 } else { 0 };
        let mut op3 = 3 * lits.segment;
        // Each pass decodes at least 5 literals per stream, so at most size / 5 passes.
        loop {
            let ips = [0, 1, 2, 3].map(|s| t.shfl_idx(ip as u32, s) as i32);
            let iters = ((lits.size - op3) / 5).min(ips[0].max(0) as usize / 7);
            if iters == 0 || ips[1] < ips[0] || ips[2] < ips[1] || ips[3] < ips[2] {
                break;
            }
            if mine {
                for _ in 0..5 * iters {
                    let v = huffman::decode(&mut b, table, log);
                    if k < hi {
                        mem::store_u8(dst.add(k), v as u32);
                    }
                    k += 1;
                }
                ip = ((b.left() + 7).div_euclid(8) - 8) as i32;
            }
            op3 += 5 * iters;
        }
        ok = !mine || ip as isize >= lits.bounds[lane & 3].0 as isize - 8;
    }
    while k < hi {
        mem::store_u8(dst.add(k), huffman::decode(&mut b, table, log) as u32);
        k += 1;
    }
    if !lits.lenient && mine && !b.finished() {
        ok = false;
    }
    // The literals are read by every lane after this.
    t.sync_warp();
    !t.any(!ok)
}

/// Where a batch's literals come from.
struct LitSrc {
    /// Raw literals (in the input) or the decoded ones (in the literal buffer).
    ptr: *const u8,
    /// The bytes were written by this kernel (the literal buffer): not read through the
    /// read-only path.
    written: bool,
    /// RLE literals: this byte.
    rle: Option<u8>,
}

impl LitSrc {
    /// Literal `i`.
    ///
    /// # Safety
    /// `i` is below the block's literal count.
    #[inline(always)]
    unsafe fn get(&self, i: usize) -> u32 {
        match self.rle {
            Some(b) => b as u32,
            None if self.written => mem::load_u8(self.ptr.add(i)),
            None => mem::load_u8_nc(self.ptr.add(i)),
        }
    }
}

/// A lane's sequence of a batch: output from `start` (relative to the batch's first byte), `ll`
/// literals from `lit` (relative to the batch's first literal), then match bytes from `off` back
/// up to the next sequence's start.
#[derive(Clone, Copy)]
struct Run {
    start: u32,
    ll: u32,
    off: u32,
    lit: u32,
}

/// Writes output bytes `op..end` of a batch of `n` sequences (lane `i < n` holding sequence `i`,
/// all checked): lane `i` of each 32-byte group `g` writes byte `g + i`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn execute<T: Thread>(
    t: &T,
    out: *mut u8,
    op: usize,
    end: usize,
    n: u32,
    mine: Run,
    src: &LitSrc,
    lit_at: usize,
) {
    let lane = t.lane();
    let lanemask_le = t.lanemask_lt() | 1 << lane;
    // Positions relative to the group-aligned base below `op`.
    let base = op & !31;
    let first = (op - base) as u32;
    let last = (end - base) as u32;
    let start = first + mine.start;
    let match_start = start + mine.ll;
    // Literal byte at position j of this lane's sequence is literal lit_at + j + lit_shift.
    let lit_shift = mine.lit.wrapping_sub(start);
    let mut g = 0u32;
    // Index of the sequence that contains byte g - 1 (-1 before the first).
    let mut seq_base = u32::MAX;
    while g < last {
        let j = g + lane;
        let rel = start.wrapping_sub(g);
        let starts = t.reduce_or(if lane < n && rel < 32 { 1 << rel } else { 0 });
        let k = seq_base.wrapping_add((starts & lanemask_le).count_ones()) & 31;
        seq_base = seq_base.wrapping_add(starts.count_ones());
        let k_match = t.shfl_idx(match_start, k);
        let k_shift = t.shfl_idx(lit_shift, k);
        let k_off = t.shfl_idx(mine.off, k);
        let valid = j >= first && j < last;
        // A match byte whose source is in this group (`off <= lane`): taken from that lane.
        let chained = valid && j >= k_match && k_off <= lane;
        let mut v = 0;
        if j < first {
            // Written before this batch; a chained lane of this group may copy it.
            v = mem::load_u8(out.add(base + j as usize));
        } else if valid && j < k_match {
            v = src.get(lit_at + j.wrapping_add(k_shift) as usize);
        } else if valid && !chained {
            v = mem::load_u8(out.add(base + j as usize - k_off as usize));
        }
        if t.any(chained) {
            // Pointer jumping: sources always lie at lower lanes, so 5 doublings reach a root.
            let mut p = if chained { lane - k_off } else { lane };
            for _ in 0..5 {
                p = t.shfl_idx(p, p);
            }
            v = t.shfl_idx(v, p);
        }
        if valid {
            mem::store_u8(out.add(base + j as usize), v);
        }
        // The next group's match bytes may read these stores.
        t.sync_warp();
        g += 32;
    }
}
