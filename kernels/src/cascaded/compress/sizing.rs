//! Sizing each candidate pipeline from the block's statistics alone, for the choice (`choose`,
//! in the parent module): the arrays a pipeline passes through, its stages and final frame.
use super::analyze::{RunStats, Stats};

/// The arrays a pipeline passes through, each a selection of the block's sequences.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Arr {
    /// The block itself.
    X,
    /// Run values of `x`.
    Rx,
    /// Differences of `x`.
    D,
    /// Differences of the run values of `x` = the nonzero differences of `x`.
    E,
    /// Run values of `d`.
    Rd,
    /// Run values of `e`.
    Re,
    /// Second differences.
    Dd,
    /// Third differences.
    Ddd,
}

/// A bit-packed stream the writer produces by a walk.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// The final values: array `Arr`.
    Final(Arr),
    /// Run lengths of `x`, `d` or `e` (0, 1, 2).
    Counts(u8),
}

/// What a stage stores.
#[derive(Clone, Copy)]
pub(super) enum Field {
    /// RLE: the counts stream (`count` values, frame `(reference, bits)`; `src` None when all
    /// counts are 1).
    Counts { count: u32, reference: u64, bits: u32, src: Option<Source> },
    /// DELTA: the first element of the array (`x[0]`, `d[0]` or the first second difference).
    First(u8),
}

/// The stage `rle` applied to array `a`: the next array and the stage's field; `None` where the
/// stage does not apply (DELTA on an empty array) or no option set can reach it.
pub(super) fn stage(a: Arr, rle: bool, st: &Stats, m: u32) -> Option<(Arr, Field)> {
    let counts = |r: &RunStats, src: u8| {
        let (reference, bits) = r.frame();
        Field::Counts { count: r.count, reference, bits, src: Some(Source::Counts(src)) }
    };
    // RLE of run values: every count is 1.
    let ones = |count: u32| Field::Counts { count, reference: (count != 0) as u64, bits: 0, src: None };
    Some(match (a, rle) {
        (Arr::X, true) => (Arr::Rx, counts(&st.rx, 0)),
        (Arr::X, false) => (Arr::D, Field::First(0)),
        (Arr::Rx, true) => (Arr::Rx, ones(st.rx.count)),
        (Arr::Rx, false) => (Arr::E, Field::First(0)),
        (Arr::D, true) => (Arr::Rd, counts(&st.rd, 1)),
        (Arr::D, false) if m >= 2 => (Arr::Dd, Field::First(1)),
        (Arr::Dd, false) if m >= 3 => (Arr::Ddd, Field::First(2)),
        (Arr::E, true) => (Arr::Re, counts(&st.re, 2)),
        (Arr::Rd, true) => (Arr::Rd, ones(st.rd.count)),
        (Arr::Re, true) => (Arr::Re, ones(st.re.count)),
        _ => return None,
    })
}

/// Element count and frame of the final array `a`.
pub(super) fn final_frame<const N: usize>(a: Arr, st: &Stats, m: u32, signed: bool) -> (u32, u64, u32) {
    let (count, mm, signed) = match a {
        Arr::X => (m, st.sx, signed),
        Arr::Rx => (st.rx.count, st.sx, signed),
        Arr::D => (m - 1, st.sd, true),
        Arr::E => (st.ecount, st.se, true),
        Arr::Rd => (st.rd.count, st.sd, true),
        Arr::Re => (st.re.count, st.se, true),
        Arr::Dd => (m - 2, st.sdd, true),
        Arr::Ddd => (m - 3, st.sddd, true),
    };
    let (reference, bits) = mm.frame::<N>(count, signed);
    (count, reference, bits)
}

/// Header bytes of a bit-packed stream of `N`-byte values: 8, or 16 for 8-byte values.
pub(super) const fn header_bytes<const N: usize>() -> u32 {
    if N == 8 {
        16
    } else {
        8
    }
}

/// Bytes of a bit-packed stream.
pub(super) fn stream_bytes(header: u32, count: u32, bits: u32) -> u32 {
    header + 4 * (count * bits).div_ceil(32)
}

/// The chosen pipeline of a block.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(super) struct Plan {
    /// Elements of the block.
    pub(super) m: u32,
    pub(super) mask: u32,
    pub(super) kinds: u32,
    /// Encoded bytes (0: no block).
    pub(super) size: u32,
}

/// Size of the block encoded with pipeline (`mask`, `kinds`), `None` when it does not apply.
pub(super) fn size_of<const N: usize>(st: &Stats, m: u32, mask: u32, kinds: u32, signed: bool) -> Option<u32> {
    let a = N.max(4) as u32;
    let mut size = 8;
    let mut arr = Arr::X;
    let mut rest = mask;
    while rest != 0 {
        let s = rest.trailing_zeros();
        rest &= rest - 1;
        let (next, field) = stage(arr, (kinds >> s) & 1 == 1, st, m)?;
        size += match field {
            Field::Counts { count, bits, .. } => 4 + stream_bytes(8, count, bits),
            Field::First(_) => a,
        };
        arr = next;
    }
    let (count, _, bits) = final_frame::<N>(arr, st, m, signed);
    Some((size.next_multiple_of(a) + stream_bytes(header_bytes::<N>(), count, bits)).next_multiple_of(a))
}
