//! The encoder's per-symbol entries ([`Entry`]): the reciprocal that turns `x / f` into a
//! multiply, and the packed word that codes a symbol in four instructions.

/// The encoder's entry of a symbol (all zero for an absent symbol), in one of two forms that
/// share `[2] = M − f` and `[3]` (`cum`, see [`Entry::fast`]), so that the state after coding is
/// `x + [3] + q · [2]` (`q · 2^pb + x mod f + cum`) for the state `x` after its emission check
/// and `q = x / f` (or, for `f = 1` in the fast form, `x − 1`). In shared memory each field has
/// its own table of 256 words (a symbol's field is one 4-byte load, whose bank conflicts are far
/// fewer than those of one 16-byte load of the whole entry).
///
/// * Fast (every present symbol has one): `[0]` a 32-bit multiplier `m`, `[1] = (M − f) ·
///   2^(32−pb) | [3] · 32 | sh`; `q = mulhi(x, m) >> sh`, the state emits when `(!x | LOW) <
///   [1]` (`x ≥ f · 2^(32−pb)`, [`FAST_LOW`]), and `[2]`, `[3]` are unpacked from `[1]`, so
///   the encoder loads only `[0]` and `[1]`.
/// * Exact (any `f`): `[0..2]` the 43-bit multiplier `ceil(2^43 / f)`; `q0 = (x · m) >> 43`
///   is `x / f` for every 32-bit `x` (`x · (m·f − 2^43) < 2^32 · f ≤ 2^43`), taken before the
///   emission check: the state emits when `q0 ≥ 2^(32−pb)`, and then `q = q0 >> 16`.
#[derive(Clone, Copy)]
pub(super) struct Entry(pub(super) [u32; 4]);

impl Entry {
    /// The exact entry of frequency `f` (0 for an absent symbol), cumulative frequency `cum`.
    // One division, not div_ceil's division and remainder.
    #[allow(clippy::manual_div_ceil)]
    #[inline(always)]
    pub(super) fn exact(f: u32, cum: u32, pb: u32) -> Entry {
        if f == 0 {
            return Entry([0; 4]);
        }
        let m = ((1u64 << 43) + f as u64 - 1) / f as u64;
        Entry([m as u32, (m >> 32) as u32, (1u32 << pb).wrapping_sub(f), cum])
    }

    /// The fast entry of `f` and `cum`, if its quotient is exact for every state it codes
    /// (`x < f · 2^(32−pb)`): `f = 1` takes `m = 2^32 − 1` (`q = x − 1`, made up for by
    /// `cum + M − 1`), a power of two `m = 2^31`, any other `f` `m = ceil(2^(32+l) / f)`
    /// (`l = floor(log2 f)`), exact when `(f·2^(32−pb) − 1) · (m·f − 2^(32+l)) < 2^(32+l)`,
    /// which holds for every `f < M/2`. `f = M` (a chunk of one symbol) has none.
    #[inline(always)]
    pub(super) fn fast(f: u32, cum: u32, pb: u32) -> Option<Entry> {
        let big = 1u32 << pb;
        if f == 0 {
            return Some(Entry([0; 4]));
        }
        if f >= big {
            return None;
        }
        let l = 31 - f.leading_zeros();
        let (m, sh, bias) = if f == 1 {
            (u32::MAX, 0, cum + big - 1)
        } else if f.is_power_of_two() {
            (1 << 31, l - 1, cum)
        } else {
            let k = 32 + l;
            // ceil(2^k / f) by two 16-bit digits (2^k = 2^(l+16) · 2^16, f < 2^(l+1)): 32-bit
            // divisions, not a 64-bit division call.
            let (hi, r) = ((1u32 << (l + 16)) / f, (1u32 << (l + 16)) % f);
            let (lo, rem) = ((r << 16) / f, (r << 16) % f);
            let m = ((hi as u64) << 16) + lo as u64 + (rem != 0) as u64;
            let err = m * f as u64 - (1u64 << k);
            if ((f as u64) << (32 - pb)).wrapping_sub(1) * err >= 1u64 << k {
                return None;
            }
            (m as u32, l, cum)
        };
        Some(Entry([m, (big - f) << (32 - pb) | bias << 5 | sh, big - f, bias]))
    }

    /// Exact form: `x / f` for the state `x` before its emission check.
    #[inline(always)]
    pub(super) fn quotient(self, x: u32) -> u32 {
        let t = (x as u64 * self.0[0] as u64) >> 32;
        ((x as u64 * self.0[1] as u64 + t) >> 11) as u32
    }

    /// Fast form: whether the state `x` emits a word, `x ≥ f · 2^(32−pb)`: with `x = a ·
    /// 2^(32−pb) + b`, `!x | LOW < [1]` is `x & !LOW > !([1]) = f · 2^(32−pb) − 1 − ([1] & LOW)`.
    #[inline(always)]
    pub(super) fn emits(self, x: u32) -> bool {
        !x | FAST_LOW < self.0[1]
    }

    /// Fast form: the quotient of the state `x` after its emission check.
    #[inline(always)]
    pub(super) fn quotient_fast(self, x: u32) -> u32 {
        shr_wrap(mul_hi(x, self.0[0]), self.0[1])
    }

    /// The state after coding this symbol from `x` (after its emission check) and `q`.
    #[inline(always)]
    pub(super) fn encode(self, x: u32, q: u32) -> u32 {
        x.wrapping_add(self.0[3]).wrapping_add(q.wrapping_mul(self.0[2]))
    }

    /// Fast form: [`Entry::encode`] from `[1]`: `[1] >> 5` is `[3] + [2] · 2^(27−pb)` (the bits
    /// between `[3]` and `[2]` are zero), added to `x` in one instruction (`LEA.HI`), and
    /// `(q − 2^(27−pb)) · [2]` takes the surplus back (mod 2^32), cheaper than masking `[3]` out.
    #[inline(always)]
    pub(super) fn encode_fast(self, x: u32, q: u32, pb: u32) -> u32 {
        let w = self.0[1];
        x.wrapping_add(w >> 5).wrapping_add(q.wrapping_sub(1 << (27 - pb)).wrapping_mul(w >> (32 - pb)))
    }

    /// Stores the entry of symbol `s` in the tables at `enc`.
    #[inline(always)]
    pub(super) unsafe fn store(self, enc: *mut u32, s: usize) {
        for (k, &v) in self.0.iter().enumerate() {
            *enc.add(256 * k + s) = v;
        }
    }

    /// Fast form: `[0]` and `[1]` of symbol `s` from the tables at `enc`. (Not
    /// [`Entry::load_fast_at`]`(enc, 4 · s)`: for a byte symbol LLVM then turns `PRMT` + `LEA`
    /// into a shift, a mask and an add.)
    #[inline(always)]
    pub(super) unsafe fn load_fast(enc: *const u32, s: usize) -> Entry {
        Entry([*enc.add(s), *enc.add(256 + s), 0, 0])
    }

    /// Fast form: `[0]` and `[1]` of the symbol whose entries are `offset` bytes into each table.
    #[inline(always)]
    pub(super) unsafe fn load_fast_at(enc: *const u32, offset: usize) -> Entry {
        let e = enc.byte_add(offset);
        Entry([*e, *e.add(256), 0, 0])
    }

    /// The whole entry of symbol `s` from the tables at `enc`.
    #[inline(always)]
    pub(super) unsafe fn load(enc: *const u32, s: usize) -> Entry {
        Entry([*enc.add(s), *enc.add(256 + s), *enc.add(512 + s), *enc.add(768 + s)])
    }
}

/// The low bits that the fast form's emission test ignores: above the packed `[3] · 32 | sh`
/// (`[3] < 2M ≤ 2^12`), below `2^(32−pb)`.
const FAST_LOW: u32 = (1 << 21) - 1;

/// `a >> (c mod 32)` (one `shf.r.wrap` on the GPU).
#[inline(always)]
fn shr_wrap(a: u32, c: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::asm::shr_wrap(a, c)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        a >> (c & 31)
    }
}

/// The high word of `a · b` (one `mul.hi.u32` on the GPU).
#[inline(always)]
fn mul_hi(a: u32, b: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::asm::mul_hi(a, b)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        ((a as u64 * b as u64) >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::Entry;

    /// States to check for frequency `f`: both ends of every 64th quotient up to `bound`, the
    /// quotients just below it, and pseudo-random ones.
    fn states(f: u32, bound: u64) -> impl Iterator<Item = u32> {
        let qmax = bound / f as u64;
        let mut r = 0x9E37_79B9_7F4A_7C15u64 ^ f as u64;
        let spread = (0..qmax).step_by(64).chain(qmax.saturating_sub(4)..qmax);
        let ends = spread.flat_map(move |q| [q * f as u64, q * f as u64 + f as u64 - 1]);
        let random = (0..64).map(move |_| {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            r % bound
        });
        ends.chain(random).filter(move |&x| x < bound && x >= 1).map(|x| x as u32)
    }

    #[test]
    fn fast_entries_divide_exactly_where_they_exist() {
        for pb in [10u32, 11] {
            let big = 1u32 << pb;
            let mut missing = 0;
            for f in 1..=big {
                if Entry::fast(f, 7, pb).is_none() {
                    missing += 1;
                    assert!(f >= big / 2, "pb {pb}: f {f} below M/2 has no fast entry");
                    continue;
                }
                // The smallest and the largest `cum` of a symbol of frequency `f` (the packed
                // `[3]` of `f = 1` reaches 2M − 2).
                for cum in [7, big - f] {
                    let e = Entry::fast(f, cum, pb).unwrap();
                    // The states a symbol codes after the emission check: below f·2^(32−pb).
                    for x in states(f, (f as u64) << (32 - pb)) {
                        let want = ((x / f) << pb) | (x % f);
                        let got = e.encode_fast(x, e.quotient_fast(x), pb).wrapping_sub(cum);
                        assert_eq!(got, e.encode(x, e.quotient_fast(x)).wrapping_sub(cum), "pb {pb} f {f} x {x}");
                        assert_eq!(got, want, "pb {pb} f {f} cum {cum} x {x}");
                    }
                    // The emission check, at its threshold and across the whole state range.
                    let thr = (f as u64) << (32 - pb);
                    for x in [thr - 1, thr, thr + 1, thr + 31, u32::MAX as u64, 1 << 16]
                        .into_iter()
                        .chain(thr.checked_sub(32))
                    {
                        if x <= u32::MAX as u64 {
                            assert_eq!(e.emits(x as u32), x >= thr, "pb {pb} f {f} cum {cum} x {x}");
                        }
                    }
                }
            }
            assert!(missing < big as usize / 2, "pb {pb}: {missing} frequencies without a fast entry");
            assert!(Entry::fast(big, 0, pb).is_none());
        }
    }

    #[test]
    fn exact_entries_divide_every_state() {
        for pb in [10u32, 11] {
            for f in 1..=(1u32 << pb) {
                let e = Entry::exact(f, 0, pb);
                for x in states(f, 1 << 32) {
                    assert_eq!(e.quotient(x), x / f, "pb {pb} f {f} x {x}");
                }
            }
        }
    }
}
