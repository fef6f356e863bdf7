//! Writing the chosen pipeline: the header, stage fields and stream headers, then each
//! bit-packed stream, packed from the shared block or compacted through the warp's ring.
use super::analyze::{Runs, Stats, Walk, E, RD, RX};
use super::sizing::{final_frame, header_bytes, stage, stream_bytes, Arr, Field, Plan, Source};
use super::{get, st32, value_mask, Opts, WarpArea, RING};
use crate::Thread;

/// Writes the block (plan `plan` of the `m` elements at `x`) at `dst`, by one warp.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn write_block<T: Thread, const N: usize>(
    t: &T,
    x: *const u8,
    m: u32,
    st: &Stats,
    plan: &Plan,
    opts: Opts,
    dst: *mut u8,
    aligned: bool,
    area: *mut WarpArea,
) {
    let ring = (&raw mut (*area).ring).cast::<u64>();
    let a = N.max(4) as u32;
    let vm = value_mask::<N>();
    let lead = t.lane() == 0;
    let mut off = 8u32;
    let mut arr = Arr::X;
    let mut rest = plan.mask;
    while rest != 0 {
        let s = rest.trailing_zeros();
        rest &= rest - 1;
        // `choose` sized this pipeline, so every stage applies.
        let Some((next, field)) = stage(arr, (plan.kinds >> s) & 1 == 1, st, m) else {
            return;
        };
        match field {
            Field::Counts { count, reference, bits, src } => {
                let len = stream_bytes(8, count, bits);
                if lead {
                    st32(dst.add(off as usize), len, aligned);
                    st32(dst.add(off as usize + 4), reference as u32, aligned);
                    st32(dst.add(off as usize + 8), bits << 16 | count, aligned);
                }
                // Runs whose values are the final array (no DELTA stage follows, so later stages
                // are RLEs of the run values, all counts 1): both streams are written in one walk
                // below; the counts' frame waits in shared memory, not in registers across this
                // loop.
                if let Some(Source::Counts(k)) = src {
                    if rest & !plan.kinds != 0 {
                        let cdst = dst.add(off as usize + 12);
                        emit_counts::<T, N>(t, x, m, k, reference, bits, cdst, aligned, area)
                    } else if lead {
                        let r = &raw mut (*area).runs;
                        ((*r).cref, (*r).cbits, (*r).coff) = (reference as u32, bits, off + 12);
                    }
                }
                off += 4 + len;
            }
            Field::First(k) => {
                if lead {
                    let v = |i: u32| if i < m { get::<N>(x, i) } else { 0 };
                    let (x0, x1, x2) = (v(0), v(1), v(2));
                    let first = match k {
                        0 => x0,
                        1 => x1.wrapping_sub(x0),
                        _ => x2.wrapping_sub(x1).wrapping_sub(x1.wrapping_sub(x0)),
                    } & vm;
                    st32(dst.add(off as usize), first as u32, aligned);
                    if N == 8 {
                        st32(dst.add(off as usize + 4), (first >> 32) as u32, aligned);
                    }
                }
                off += a;
            }
        }
        arr = next;
    }
    if off % a != 0 {
        if lead {
            st32(dst.add(off as usize), 0, aligned);
        }
        off += 4;
    }
    let (count, reference, bits) = final_frame::<N>(arr, st, m, opts.signed);
    if lead {
        let p = dst.add(off as usize);
        st32(p, reference as u32, aligned);
        if N == 8 {
            st32(p.add(4), (reference >> 32) as u32, aligned);
            st32(p.add(8), bits << 16 | count, aligned);
            st32(p.add(12), 0, aligned);
        } else {
            st32(p.add(4), bits << 16 | count, aligned);
        }
        let w0 = plan.size | plan.mask << 16 | plan.kinds << 24;
        st32(dst, w0, aligned);
        st32(dst.add(4), stream_bytes(header_bytes::<N>(), count, bits), aligned);
    }
    let hb = header_bytes::<N>();
    let end = off + stream_bytes(hb, count, bits);
    if end % a != 0 && lead {
        st32(dst.add(end as usize), 0, aligned);
    }
    let voff = off + hb;
    let runs_of = match arr {
        Arr::Rx => Some(0),
        Arr::Rd => Some(1),
        Arr::Re => Some(2),
        _ => None,
    };
    if let Some(k) = runs_of {
        // The run values and counts of `x`, `d` or `e` (see the stage loop).
        if lead {
            let r = &raw mut (*area).runs;
            ((*r).vref, (*r).vbits, (*r).voff) = (reference, bits, voff);
        }
        t.sync_warp();
        let f = (*area).runs;
        if f.vbits != 0 && f.cbits != 0 {
            match k {
                0 => emit_runs::<T, N, RX>(t, x, m, dst, aligned, area),
                1 => emit_runs::<T, N, RD>(t, x, m, dst, aligned, area),
                _ => emit_runs::<T, N, E>(t, x, m, dst, aligned, area),
            }
            return;
        }
        let cdst = dst.add(f.coff as usize);
        emit_counts::<T, N>(t, x, m, k, f.cref as u64, f.cbits, cdst, aligned, area);
    }
    emit::<T, N>(t, x, m, Source::Final(arr), reference, bits, dst.add(voff as usize), aligned, ring);
}

/// Bit-packs the run lengths of `x`, `d` or `e` (`k` = 0, 1, 2; frame `reference`, `bits`) into
/// the words at `dst`, by one warp. Those of `x` need no walk over the values: the sizing pass
/// left the ballots of its run starts in the warp's `bx`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn emit_counts<T: Thread, const N: usize>(
    t: &T,
    x: *const u8,
    m: u32,
    k: u8,
    reference: u64,
    bits: u32,
    dst: *mut u8,
    aligned: bool,
    area: *mut WarpArea,
) {
    let ring = (&raw mut (*area).ring).cast::<u64>();
    if k != 0 {
        emit::<T, N>(t, x, m, Source::Counts(k), reference, bits, dst, aligned, ring);
        return;
    }
    if bits == 0 {
        return;
    }
    let bx = (&raw const (*area).bx).cast::<u32>();
    let mut p = Packer { ring, dst, aligned, bits, pushed: 0, flushed: 0 };
    let mut runs = Runs::default();
    let lane = t.lane();
    let mut base = 0;
    while base < m {
        let starts = *bx.add(base as usize / 32);
        let (prev, len) = runs.step(t, starts, base + lane, |h| base + h);
        p.push(t, (starts >> lane) & 1 != 0 && prev, (len as u64).wrapping_sub(reference) & 0xffff);
        base += 32;
    }
    // The last run ends with the block.
    let len = m.wrapping_sub(runs.last) as u64;
    p.push(t, lane == 0 && runs.count != 0, len.wrapping_sub(reference) & 0xffff);
    p.finish(t);
}

/// Bit-packs the stream `src` of the block (frame `reference`, `bits`) into the words at `dst`,
/// by one warp: a walk that selects the stream's elements, compacted through `ring`. Never the
/// run lengths of `x` ([`emit_counts`] packs those from the sizing pass's ballots).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn emit<T: Thread, const N: usize>(
    t: &T,
    x: *const u8,
    m: u32,
    src: Source,
    reference: u64,
    bits: u32,
    dst: *mut u8,
    aligned: bool,
    ring: *mut u64,
) {
    if bits == 0 {
        return;
    }
    match src {
        Source::Final(a @ (Arr::X | Arr::D | Arr::Dd | Arr::Ddd)) => {
            emit_dense::<T, N>(t, x, m, a, reference, bits, dst, aligned)
        }
        Source::Final(Arr::Rd) | Source::Counts(1) => {
            emit_with::<T, N, RD>(t, x, m, src, reference, bits, dst, aligned, ring)
        }
        Source::Final(Arr::E | Arr::Re) | Source::Counts(_) => {
            emit_with::<T, N, E>(t, x, m, src, reference, bits, dst, aligned, ring)
        }
        _ => emit_with::<T, N, RX>(t, x, m, src, reference, bits, dst, aligned, ring),
    }
}

/// [`emit`] by a walk over the sequences `S`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn emit_with<T: Thread, const N: usize, const S: u8>(
    t: &T,
    x: *const u8,
    m: u32,
    src: Source,
    reference: u64,
    bits: u32,
    dst: *mut u8,
    aligned: bool,
    ring: *mut u64,
) {
    let fmask = if matches!(src, Source::Counts(_)) { 0xffff } else { value_mask::<N>() };
    let mut p = Packer { ring, dst, aligned, bits, pushed: 0, flushed: 0 };
    let mut w = Walk::<N, S>::new(x, m);
    let mut base = 0;
    while base < m {
        let s = w.step(t, base);
        let (on, v) = match src {
            Source::Final(Arr::E) => (s.nz, s.d),
            Source::Final(Arr::Rd) => (s.bd, s.d),
            Source::Final(Arr::Re) => (s.be, s.d),
            Source::Counts(1) => (s.bd && s.rd_prev, s.rd_len as u64),
            Source::Counts(_) => (s.be && s.re_prev, s.re_len as u64),
            // Run values of `x`: `emit_dense` writes every other final array.
            Source::Final(_) => (s.bx, s.x),
        };
        p.push(t, on, v.wrapping_sub(reference) & fmask);
        base += 32;
    }
    if let Source::Counts(k) = src {
        // The last run ends with the block.
        let [_, ld, le] = w.last_lens();
        let (runs, len) = if k == 1 { (w.rd.count, ld) } else { (w.re.count, le) };
        let len = len as u64;
        p.push(t, t.lane() == 0 && runs != 0, len.wrapping_sub(reference) & fmask);
    }
    p.finish(t);
}

/// A last RLE stage of the runs of `x`, `d` or `e` (`S` = [`RX`], [`RD`] or [`E`]): bit-packs
/// the run values (the final array) and the run lengths (the stage's counts) into `dst` in one
/// walk, frames and offsets as in the warp's `runs`. Run `r`'s length is known where run
/// `r + 1` starts, and both streams have one field per run, so a run start ranked `r` by the
/// ballot stores its value in `ring[r]` and the previous run's length in `lens[r − 1]`: one
/// ballot serves both streams.
/// Fields `[f, f + 32)` are flushed (both streams) once run `f + 32` has started, which
/// completes `lens[f + 31]`; the last run's length is known at the end of the block.
#[inline(always)]
unsafe fn emit_runs<T: Thread, const N: usize, const S: u8>(
    t: &T,
    x: *const u8,
    m: u32,
    dst: *mut u8,
    aligned: bool,
    area: *mut WarpArea,
) {
    let (ring, lens) = ((&raw mut (*area).ring).cast::<u64>(), (&raw mut (*area).lens).cast::<u16>());
    let mut w = Walk::<N, S>::new(x, m);
    let (mut pushed, mut flushed) = (0u32, 0u32);
    // Fields `[flushed, flushed + count)` of both streams; `pushed − flushed` stays at most 64.
    let flush = |flushed: u32, count: u32| {
        t.sync_warp();
        let f = (*area).runs;
        let (vm, vdst, cdst) = (value_mask::<N>(), dst.add(f.voff as usize), dst.add(f.coff as usize));
        pack(t, vdst, f.vbits, flushed, count, aligned, |j| (*ring.add(j as usize % RING)).wrapping_sub(f.vref) & vm);
        pack(t, cdst, f.cbits, flushed, count, aligned, |j| {
            (*lens.add(j as usize % RING)).wrapping_sub(f.cref as u16) as u64
        });
        // The rings' slots are rewritten by the next pushes.
        t.sync_warp();
    };
    let mut base = 0;
    while base < m {
        let s = w.step(t, base);
        // This lane's run start, the warp's, its value and the length of the run before it.
        let (start, starts, v, len) = match S {
            RX => (s.bx, s.mx, s.x, s.rx_len),
            RD => (s.bd, s.md, s.d, s.rd_len),
            _ => (s.be, s.me, s.d, s.re_len),
        };
        if start {
            let at = pushed + (starts & t.lanemask_lt()).count_ones();
            *ring.add(at as usize % RING) = v;
            if at != 0 {
                *lens.add((at - 1) as usize % RING) = len as u16;
            }
        }
        pushed += starts.count_ones();
        if pushed - flushed > 32 {
            flush(flushed, 32);
            flushed += 32;
        }
        base += 32;
    }
    if pushed > flushed {
        // The last run ends with the block.
        let [lx, ld, le] = w.last_lens();
        let last = match S {
            RX => lx,
            RD => ld,
            _ => le,
        };
        if t.lane() == 0 {
            *lens.add((pushed - 1) as usize % RING) = last as u16;
        }
        flush(flushed, pushed - flushed);
    }
}

/// Packs fields `[from, from + count)` (`count` ≤ 32, `from` a multiple of 32 unless it is the
/// stream's end) of `bits` each, `field(j)` for field `j`, into their words of the stream at
/// `dst`, by one warp: 32 fields of `bits` bits are exactly `bits` words, and lane `q` assembles
/// words `q` and `q + 32` from the fields that overlap them (at most `32 / bits + 2`).
#[inline(always)]
unsafe fn pack<T: Thread>(
    t: &T,
    dst: *mut u8,
    bits: u32,
    from: u32,
    count: u32,
    aligned: bool,
    field: impl Fn(u32) -> u64,
) {
    if bits == 0 {
        // No words (and no division by zero below).
        return;
    }
    let dst = dst.add(4 * (from / 32 * bits) as usize);
    let nwords = (count * bits).div_ceil(32);
    let mut q = t.lane();
    while q < nwords {
        let w = 32 * q;
        let mut word = 0u32;
        let mut j = w / bits;
        while j < count && j * bits < w + 32 {
            let f = field(from + j);
            let s = j * bits;
            word |= if s >= w { (f << (s - w)) as u32 } else { (f >> (w - s)) as u32 };
            j += 1;
        }
        st32(dst.add(4 * q as usize), word, aligned);
        q += 32;
    }
}

/// [`emit`] of a final array that keeps every position (`x` or its differences): field `j` is a
/// function of `x[j..j + 4]`, so lane `q` assembles output words `q`, `q + 32`, ... straight
/// from the fields that overlap them (at most `32 / bits + 2`), read from shared memory; no
/// walk, no compaction, no barrier.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn emit_dense<T: Thread, const N: usize>(
    t: &T,
    x: *const u8,
    m: u32,
    a: Arr,
    reference: u64,
    bits: u32,
    dst: *mut u8,
    aligned: bool,
) {
    let vm = value_mask::<N>();
    let order = match a {
        Arr::X => 0,
        Arr::D => 1,
        Arr::Dd => 2,
        _ => 3,
    };
    let count = m - order;
    // The `order`-th difference at `j` (`j + order < m`).
    let field = |j: u32| {
        let x0 = get::<N>(x, j);
        let v = if order == 0 {
            x0
        } else {
            let x1 = get::<N>(x, j + 1);
            let d0 = x1.wrapping_sub(x0);
            if order == 1 {
                d0
            } else {
                let x2 = get::<N>(x, j + 2);
                let d1 = x2.wrapping_sub(x1);
                if order == 2 {
                    d1.wrapping_sub(d0)
                } else {
                    let d2 = get::<N>(x, j + 3).wrapping_sub(x2);
                    d2.wrapping_sub(d1).wrapping_sub(d1.wrapping_sub(d0))
                }
            }
        };
        v.wrapping_sub(reference) & vm
    };
    // At most 4096 fields of 64 bits: bit offsets fit in 32 bits.
    let nwords = (count * bits).div_ceil(32);
    let mut q = t.lane();
    while q < nwords {
        let w = 32 * q;
        let mut word = 0u32;
        let mut j = w / bits;
        while j < count && j * bits < w + 32 {
            let f = field(j);
            let s = j * bits;
            word |= if s >= w { (f << (s - w)) as u32 } else { (f >> (w - s)) as u32 };
            j += 1;
        }
        st32(dst.add(4 * q as usize), word, aligned);
        q += 32;
    }
}

/// Bit-packs a stream of fields pushed 32 lanes at a time, in order.
struct Packer {
    ring: *mut u64,
    dst: *mut u8,
    aligned: bool,
    bits: u32,
    /// Fields pushed and fields written (a multiple of 32 until `finish`).
    pushed: u32,
    flushed: u32,
}

impl Packer {
    /// Appends the fields of the lanes where `on`, in lane order.
    #[inline(always)]
    unsafe fn push<T: Thread>(&mut self, t: &T, on: bool, field: u64) {
        let ballot = t.ballot(on);
        if on {
            let at = self.pushed + (ballot & t.lanemask_lt()).count_ones();
            *self.ring.add(at as usize % RING) = field;
        }
        self.pushed += ballot.count_ones();
        if self.pushed - self.flushed >= 32 {
            self.flush(t, 32);
        }
    }

    /// Writes the pending fields.
    #[inline(always)]
    unsafe fn finish<T: Thread>(&mut self, t: &T) {
        if self.pushed > self.flushed {
            self.flush(t, self.pushed - self.flushed);
        }
    }

    /// Packs the next `count` (≤ 32) fields into `ceil(count · bits / 32)` words.
    #[inline(always)]
    unsafe fn flush<T: Thread>(&mut self, t: &T, count: u32) {
        t.sync_warp();
        let ring = self.ring;
        pack(t, self.dst, self.bits, self.flushed, count, self.aligned, |j| *ring.add(j as usize % RING));
        self.flushed += count;
        // The ring's slots are rewritten by the next pushes.
        t.sync_warp();
    }
}
