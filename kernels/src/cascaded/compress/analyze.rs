//! Sizing without building: one pass over a staged block gathers every statistic the
//! candidate pipelines' sizes depend on (extremes, run counts and lengths of the block, its
//! differences and their nonzero subsequence), and the walk that finds those run boundaries,
//! which the writer reuses.
use super::{get, value_mask, Opts};
use crate::Thread;

/// Lane `src`'s `v` (an `N`-byte value), by the whole warp.
#[inline(always)]
fn shfl<T: Thread, const N: usize>(t: &T, v: u64, src: u32) -> u64 {
    let lo = t.shfl_idx(v as u32, src) as u64;
    if N == 8 {
        lo | (t.shfl_idx((v >> 32) as u32, src) as u64) << 32
    } else {
        lo
    }
}

/// Sign bit of the order-preserving keys of signed values.
const BIAS: u64 = 1 << 63;

/// The key under which `v` (`N` bytes) compares as the frame sees it: itself when unsigned;
/// sign-extended with the sign bit flipped when signed.
#[inline(always)]
fn key<const N: usize>(v: u64, signed: bool) -> u64 {
    if !signed {
        return v;
    }
    let s = if N >= 8 { v } else { (((v << (64 - 8 * N)) as i64) >> (64 - 8 * N)) as u64 };
    s ^ BIAS
}

/// Running minimum and maximum of keys.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct MinMax {
    lo: u64,
    hi: u64,
}

impl Default for MinMax {
    fn default() -> Self {
        MinMax { lo: u64::MAX, hi: 0 }
    }
}

impl MinMax {
    #[inline(always)]
    fn add(&mut self, on: bool, k: u64) {
        if on {
            self.lo = self.lo.min(k);
            self.hi = self.hi.max(k);
        }
    }

    /// The frame (reference, bits) of `count` values with these keys (`(0, 0)` when empty), as
    /// `bitpack::frame` computes it.
    #[inline(always)]
    pub(super) fn frame<const N: usize>(self, count: u32, signed: bool) -> (u64, u32) {
        if count == 0 {
            return (0, 0);
        }
        let reference = if signed { (self.lo ^ BIAS) & value_mask::<N>() } else { self.lo };
        (reference, 64 - (self.hi - self.lo).leading_zeros())
    }
}

/// The keys the sizing pass compares: 32-bit ones for values of up to 4 bytes (half the
/// registers and one instruction per comparison), the 64-bit [`key`]s for 8-byte values.
trait Key: Copy + Ord {
    const MIN: Self;
    const MAX: Self;
    /// The key of the `N`-byte value `v`, ordered as the frame sees it.
    fn of<const N: usize>(v: u64, signed: bool) -> Self;
    /// The same value's 64-bit [`key`].
    fn wide(self, signed: bool) -> u64;
    /// The warp's maximum.
    fn warp_max<T: Thread>(self, t: &T) -> Self;
    /// The key with every bit flipped (reverses the order).
    fn flip(self) -> Self;
}

impl Key for u32 {
    const MIN: Self = 0;
    const MAX: Self = u32::MAX;
    #[inline(always)]
    fn of<const N: usize>(v: u64, signed: bool) -> u32 {
        let shift = 32 - 8 * N.min(4) as u32;
        if signed {
            ((((v as u32) << shift) as i32 >> shift) as u32) ^ 1 << 31
        } else {
            v as u32
        }
    }
    #[inline(always)]
    fn wide(self, signed: bool) -> u64 {
        if signed {
            ((self ^ 1 << 31) as i32 as i64 as u64) ^ BIAS
        } else {
            self as u64
        }
    }
    #[inline(always)]
    fn warp_max<T: Thread>(self, t: &T) -> u32 {
        t.reduce_max(self)
    }
    #[inline(always)]
    fn flip(self) -> u32 {
        !self
    }
}

impl Key for u64 {
    const MIN: Self = 0;
    const MAX: Self = u64::MAX;
    #[inline(always)]
    fn of<const N: usize>(v: u64, signed: bool) -> u64 {
        key::<N>(v, signed)
    }
    #[inline(always)]
    fn wide(self, _signed: bool) -> u64 {
        self
    }
    /// `redux.sync` on the high halves, then on the low halves of the lanes that hold the
    /// greatest high half.
    #[inline(always)]
    fn warp_max<T: Thread>(self, t: &T) -> u64 {
        let hi = t.reduce_max((self >> 32) as u32);
        (hi as u64) << 32 | t.reduce_max(if (self >> 32) as u32 == hi { self as u32 } else { 0 }) as u64
    }
    #[inline(always)]
    fn flip(self) -> u64 {
        !self
    }
}

/// One lane's running minimum and maximum of keys `K`.
#[derive(Clone, Copy)]
struct Acc<K: Key> {
    lo: K,
    hi: K,
}

impl<K: Key> Acc<K> {
    #[inline(always)]
    fn new() -> Self {
        Acc { lo: K::MAX, hi: K::MIN }
    }

    #[inline(always)]
    fn add(&mut self, on: bool, k: K) {
        if on {
            self.lo = self.lo.min(k);
            self.hi = self.hi.max(k);
        }
    }

    /// The warp's minimum and maximum, as 64-bit keys (the empty [`MinMax`] when no lane saw
    /// a value).
    #[inline(always)]
    fn reduce<T: Thread>(self, t: &T, signed: bool) -> MinMax {
        let (lo, hi) = (self.lo.flip().warp_max(t).flip(), self.hi.warp_max(t));
        if lo > hi {
            MinMax::default()
        } else {
            MinMax { lo: lo.wide(signed), hi: hi.wide(signed) }
        }
    }
}

/// Runs of one sequence, as the walk has seen them so far.
#[derive(Clone, Copy, Default)]
pub(super) struct Runs {
    /// Runs started.
    pub(super) count: u32,
    /// Position of the last run start.
    pub(super) last: u32,
}

impl Runs {
    /// One step's run starts (`starts`: ballot; `pos`: this lane's position; `pos_of(h)`: lane
    /// `h`'s): whether this lane's run start has a run before it, and that run's length.
    #[inline(always)]
    pub(super) fn step<T: Thread>(&mut self, t: &T, starts: u32, pos: u32, pos_of: impl Fn(u32) -> u32) -> (bool, u32) {
        let below = starts & t.lanemask_lt();
        let prev = if below != 0 { pos_of(31 - below.leading_zeros()) } else { self.last };
        let has_prev = below != 0 || self.count != 0;
        if starts != 0 {
            self.last = pos_of(31 - starts.leading_zeros());
        }
        self.count += starts.count_ones();
        (has_prev, pos.wrapping_sub(prev))
    }
}

/// Sequences a walk tracks beyond `x` and `d` (bits of its `S` parameter, a constant so that
/// each walk keeps only its own state in registers): runs of `d`.
pub(super) const RD: u8 = 1;
/// The nonzero differences and their runs.
pub(super) const E: u8 = 2;
/// Second and third differences.
const DD: u8 = 4;
/// Runs of `x` (every sizing pass; of the writer's walks, those of RLE counts of `x` and of
/// its run values).
pub(super) const RX: u8 = 8;

/// One lane's view of one element `i` of the block (and what starts there).
#[derive(Clone, Copy, Default)]
pub(super) struct Step {
    /// `i < m`, and `x[i]`.
    valid: bool,
    pub(super) x: u64,
    /// `i + 1 < m`, and `d[i] = x[i+1] − x[i]`.
    vd: bool,
    pub(super) d: u64,
    /// A run of `x` starts at `i` (`mx`: the warp's ballot of `bx`); it follows a run
    /// (`rx_prev`) of `rx_len` elements.
    pub(super) bx: bool,
    pub(super) mx: u32,
    rx_prev: bool,
    pub(super) rx_len: u32,
    /// A run of `d` starts at `i` (`md`: the warp's ballot of `bd`); it follows a run of
    /// `rd_len`.
    pub(super) bd: bool,
    pub(super) md: u32,
    pub(super) rd_prev: bool,
    pub(super) rd_len: u32,
    /// `d[i] ≠ 0` (an element of `e`, the nonzero differences).
    pub(super) nz: bool,
    /// A run of `e` starts at `i` (`me`: the warp's ballot of `be`); it follows a run of
    /// `re_len` (counted in `e`'s elements).
    pub(super) be: bool,
    pub(super) me: u32,
    pub(super) re_prev: bool,
    pub(super) re_len: u32,
    /// Second difference `d[i+1] − d[i]` (`i + 2 < m`), third difference (`i + 3 < m`).
    vdd: bool,
    dd: u64,
    vddd: bool,
    ddd: u64,
}

/// A walk over a block's `m` elements of `N` bytes in shared memory, 32 per step, tracking the
/// sequences `S` says.
pub(super) struct Walk<const N: usize, const S: u8> {
    x: *const u8,
    m: u32,
    rx: Runs,
    pub(super) rd: Runs,
    pub(super) re: Runs,
    /// Nonzero differences seen, and the last of them.
    ecount: u32,
    last_nz: u64,
}

impl<const N: usize, const S: u8> Walk<N, S> {
    pub(super) fn new(x: *const u8, m: u32) -> Self {
        Walk { x, m, rx: Runs::default(), rd: Runs::default(), re: Runs::default(), ecount: 0, last_nz: 0 }
    }

    /// Elements `base + lane`.
    #[inline(always)]
    pub(super) unsafe fn step<T: Thread>(&mut self, t: &T, base: u32) -> Step {
        let vm = value_mask::<N>();
        let (lane, m) = (t.lane(), self.m);
        let i = base + lane;
        let mut s = Step { valid: i < m, vd: i + 1 < m, ..Step::default() };
        s.x = if s.valid { get::<N>(self.x, i) } else { 0 };
        let xp = if s.valid && i > 0 { get::<N>(self.x, i - 1) } else { 0 };
        let xn = if s.vd { get::<N>(self.x, i + 1) } else { 0 };
        s.d = xn.wrapping_sub(s.x) & vm;
        let at = |h: u32| base + h;
        if S & RX != 0 {
            s.bx = s.valid && (i == 0 || s.x != xp);
            s.mx = t.ballot(s.bx);
            (s.rx_prev, s.rx_len) = self.rx.step(t, s.mx, i, at);
        }
        if S & RD != 0 {
            let dp = s.x.wrapping_sub(xp) & vm;
            s.bd = s.vd && (i == 0 || s.d != dp);
            s.md = t.ballot(s.bd);
            (s.rd_prev, s.rd_len) = self.rd.step(t, s.md, i, at);
        }
        if S & E != 0 {
            s.nz = s.vd && s.d != 0;
            let nzm = t.ballot(s.nz);
            // The last nonzero difference before `i`: in a lower lane, else from earlier steps.
            let below = nzm & t.lanemask_lt();
            // Every lane shuffles (lane 0's `d` where no lower lane has one).
            let lower = shfl::<T, N>(t, s.d, 31 - (below | 1).leading_zeros());
            let (has, prev) = if below != 0 { (true, lower) } else { (self.ecount != 0, self.last_nz) };
            s.be = s.nz && (!has || prev != s.d);
            let ec = self.ecount;
            let epos = |h: u32| ec + (nzm & ((1u32 << h) - 1)).count_ones();
            s.me = t.ballot(s.be);
            (s.re_prev, s.re_len) = self.re.step(t, s.me, epos(lane), epos);
            if nzm != 0 {
                self.last_nz = shfl::<T, N>(t, s.d, 31 - nzm.leading_zeros());
            }
            self.ecount += nzm.count_ones();
        }
        if S & DD != 0 {
            s.vdd = i + 2 < m;
            s.vddd = i + 3 < m;
            let x2 = if s.vdd { get::<N>(self.x, i + 2) } else { 0 };
            let x3 = if s.vddd { get::<N>(self.x, i + 3) } else { 0 };
            let d1 = x2.wrapping_sub(xn) & vm;
            let d2 = x3.wrapping_sub(x2) & vm;
            s.dd = d1.wrapping_sub(s.d) & vm;
            s.ddd = d2.wrapping_sub(d1).wrapping_sub(s.dd) & vm;
        }
        s
    }

    /// Length of the last run of `x`, `d` and `e` (after the last step; 0 when none).
    pub(super) fn last_lens(&self) -> [u32; 3] {
        let last = |r: &Runs, total: u32| if r.count != 0 { total - r.last } else { 0 };
        [last(&self.rx, self.m), last(&self.rd, self.m.saturating_sub(1)), last(&self.re, self.ecount)]
    }
}

/// Run count and minimum and maximum run length of one sequence.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(super) struct RunStats {
    pub(super) count: u32,
    lo: u32,
    hi: u32,
}

impl RunStats {
    /// The frame of the run counts (unsigned 16-bit values).
    pub(super) fn frame(&self) -> (u64, u32) {
        if self.count == 0 {
            (0, 0)
        } else {
            (self.lo as u64, 32 - (self.hi - self.lo).leading_zeros())
        }
    }
}

/// A block's statistics: everything the candidates' sizes depend on.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(super) struct Stats {
    /// `x` (keys by the type's signedness), `d`, the nonzero `d`, second and third differences
    /// (signed keys).
    pub(super) sx: MinMax,
    pub(super) sd: MinMax,
    pub(super) se: MinMax,
    pub(super) sdd: MinMax,
    pub(super) sddd: MinMax,
    /// Runs of `x`, of `d`, of the nonzero `d`.
    pub(super) rx: RunStats,
    pub(super) rd: RunStats,
    pub(super) re: RunStats,
    /// Number of nonzero differences.
    pub(super) ecount: u32,
}

/// The sizing pass over the block's `m` elements, by one warp (the result is warp-uniform),
/// tracking the sequences the options' candidates use; leaves the ballots of the run starts of
/// `x` in `bx` (word `k` for elements `32k..32k + 32`).
#[inline(always)]
pub(super) unsafe fn analyze<T: Thread, const N: usize>(
    t: &T,
    x: *const u8,
    m: u32,
    opts: Opts,
    bx: *mut u32,
) -> Stats {
    if N <= 4 {
        analyze_keys::<T, N, u32>(t, x, m, opts, bx)
    } else {
        analyze_keys::<T, N, u64>(t, x, m, opts, bx)
    }
}

/// [`analyze`] with keys `K`.
#[inline(always)]
unsafe fn analyze_keys<T: Thread, const N: usize, K: Key>(
    t: &T,
    x: *const u8,
    m: u32,
    opts: Opts,
    bx: *mut u32,
) -> Stats {
    match (opts.tmpl, opts.slots) {
        (0b101, 3..) => analyze_with::<T, N, { RX | RD | E }, K>(t, x, m, opts.signed, bx),
        (0b101, 2) => analyze_with::<T, N, { RX | E }, K>(t, x, m, opts.signed, bx),
        (0, 2..) => analyze_with::<T, N, { RX | DD }, K>(t, x, m, opts.signed, bx),
        _ => analyze_with::<T, N, RX, K>(t, x, m, opts.signed, bx),
    }
}

/// [`analyze`] with the sequences `S` (always [`RX`]: `bx` is written).
#[inline(always)]
unsafe fn analyze_with<T: Thread, const N: usize, const S: u8, K: Key>(
    t: &T,
    x: *const u8,
    m: u32,
    signed: bool,
    bx: *mut u32,
) -> Stats {
    let mut w = Walk::<N, S>::new(x, m);
    let (mut sx, mut sd, mut se, mut sdd, mut sddd) =
        (Acc::<K>::new(), Acc::<K>::new(), Acc::<K>::new(), Acc::<K>::new(), Acc::<K>::new());
    let mut lens = [(u32::MAX, 0u32); 3];
    let mut fold = |k: usize, on: bool, l: u32| {
        if on {
            lens[k] = (lens[k].0.min(l), lens[k].1.max(l));
        }
    };
    let mut base = 0;
    while base < m {
        let s = w.step(t, base);
        if t.lane() == 0 {
            *bx.add(base as usize / 32) = s.mx;
        }
        sx.add(s.valid, K::of::<N>(s.x, signed));
        if S & E != 0 {
            se.add(s.nz, K::of::<N>(s.d, true));
        } else {
            sd.add(s.vd, K::of::<N>(s.d, true));
        }
        sdd.add(s.vdd, K::of::<N>(s.dd, true));
        sddd.add(s.vddd, K::of::<N>(s.ddd, true));
        fold(0, s.bx && s.rx_prev, s.rx_len);
        fold(1, s.bd && s.rd_prev, s.rd_len);
        fold(2, s.be && s.re_prev, s.re_len);
        base += 32;
    }
    let last = w.last_lens();
    let counts = [w.rx.count, w.rd.count, w.re.count];
    for k in 0..3 {
        fold(k, counts[k] != 0, last[k]);
    }
    let runs = |k: usize| RunStats {
        count: counts[k],
        lo: u32::MAX - t.reduce_max(u32::MAX - lens[k].0),
        hi: t.reduce_max(lens[k].1),
    };
    let rx = runs(0);
    let (rd, re) = if S & RD != 0 {
        (runs(1), runs(2))
    } else if S & E != 0 {
        (RunStats::default(), runs(2))
    } else {
        Default::default()
    };
    let (sdd, sddd) = if S & DD != 0 { (sdd.reduce(t, true), sddd.reduce(t, true)) } else { Default::default() };
    let (sd, se) = if S & E != 0 {
        // `d` is `e` plus its zeros: one register set fewer in the walk.
        let se = se.reduce(t, true);
        let mut sd = se;
        sd.add(w.ecount + 1 < m, key::<N>(0, true));
        (sd, se)
    } else {
        (sd.reduce(t, true), MinMax::default())
    };
    Stats { sx: sx.reduce(t, signed), sd, se, sdd, sddd, rx, rd, re, ecount: w.ecount }
}
