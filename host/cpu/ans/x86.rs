//! x86-64 fast path of the whole-tile decoder ([`super::rans`]): eight states per AVX2 vector,
//! the slot lookup one gather from [`Table::slot_packed`], the words a step's states take handed
//! out in order by a byte shuffle per "needs a word" mask. It decodes exactly what the portable
//! tile loop decodes, from the same window, valid input or not (`tests/ans_platforms.rs` and the
//! `ans` fuzz target compare them); the caller picks it at run time through a token that only
//! exists when the CPU has the features.
//!
//! The only `unsafe` code of the CPU codecs lives here: the `#[target_feature]` function, its
//! call, and its vector loads, gathers and stores.
//!
//! [`Table::slot_packed`]: super::table::Table::slot_packed
use super::rans::{LANES, WINDOW};
use std::arch::x86_64::*;

/// Proof that the CPU has AVX2 and POPCNT: only [`Avx2::detect`] makes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Avx2(());

impl Avx2 {
    /// The token, if this CPU has the features.
    pub fn detect() -> Option<Avx2> {
        (is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt")).then_some(Avx2(()))
    }

    /// Decodes whole tiles of `32 · B` symbols (`out` holds a number of them) with `S` states
    /// per lane and `pb` probability bits from the word stack `words`, of which `p` are unread,
    /// tile after tile while at least [`WINDOW`] words are left at a tile's start, each from the
    /// window of the [`WINDOW`] words below the cursor, as the portable `run_tile` does it (same
    /// states, symbols and words read). Returns the tiles decoded and the words they read; `None`,
    /// touching nothing, where this path does not apply: a table without packed entries
    /// (`pb > 11`), other `(B, S)` or slice lengths, `p` beyond `words`.
    #[inline]
    pub fn run_tiles<const B: usize, const S: usize>(
        self,
        packed: &[u32],
        pb: u32,
        words: &[u8],
        p: usize,
        states: &mut [u32],
        out: &mut [u8],
    ) -> Option<(usize, usize)> {
        let fits = pb <= 11
            && packed.len() == 1 << pb
            && states.len() == LANES * S
            && out.len().is_multiple_of(LANES * B)
            && p <= words.len() / 2;
        if !fits || !matches!((B, S), (8 | 4 | 2, 1 | 2)) {
            return None;
        }
        // SAFETY: the token exists only when the CPU has AVX2 and POPCNT; `packed` has an entry
        // for every slot `x mod 2^pb`, `states` and `out` the lengths the tiles need, `words` at
        // least `p` words (checked above).
        Some(unsafe { tiles_avx2::<B, S>(packed, pb, words, p, states, out) })
    }
}

/// Per "needs a word" mask of a vector's 8 states: the byte shuffle that moves, from the 8 words
/// just below the cursor (ascending, in both 128-bit halves), into the `c`-th state that needs
/// one (in position order) the `c`-th word downwards, zero-extended; the other states get 0.
static TAKE: [[u8; 32]; 256] = {
    let mut t = [[0x80u8; 32]; 256];
    let mut m = 0;
    while m < 256 {
        let mut c = 0;
        let mut i = 0;
        while i < 8 {
            if m >> i & 1 == 1 {
                let word = 7 - c;
                t[m][4 * i] = 2 * word;
                t[m][4 * i + 1] = 2 * word + 1;
                c += 1;
            }
            i += 1;
        }
        m += 1;
    }
    t
};

/// Per step `k mod 4`, the byte shuffle that moves each 32-bit lane's low byte (the symbol of a
/// packed table entry) to byte `k mod 4` of that lane and zeroes the rest.
static PLACE: [[u8; 32]; 4] = {
    let mut t = [[0x80u8; 32]; 4];
    let mut k = 0;
    while k < 4 {
        let mut d = 0;
        while d < 8 {
            // Byte shuffles index within each 128-bit half.
            t[k][4 * d + k] = (4 * (d % 4)) as u8;
            d += 1;
        }
        k += 1;
    }
    t
};

/// The AVX2 tile decoder: the 32·S states of a step in `4·S` vectors of 8 (decode order, so a
/// vector's lanes take their words in lane order), kept in registers from tile to tile, step
/// after step. Per vector: gather the packed entries, `y = f · (x >> pb) + (slot − cum)`, then
/// the states below `2^16` take the next words from the window: 8 words loaded below the
/// cursor, shuffled by [`TAKE`] of the mask, blended in. Symbols collect per state, step `k` in
/// byte `k mod 4` (steps 4..8 in a second vector), and are transposed to the output order at
/// the end of each tile.
///
/// # Safety
///
/// The CPU has AVX2 and POPCNT; `packed.len() == 2^pb` with `pb ≤ 11`, `states.len() == 32·S`,
/// `out.len()` a multiple of `32·B`, `2·p ≤ words.len()`, `(B, S)` in `{8, 4, 2} × {1, 2}`.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn tiles_avx2<const B: usize, const S: usize>(
    packed: &[u32],
    pb: u32,
    words: &[u8],
    mut p: usize,
    states: &mut [u32],
    out: &mut [u8],
) -> (usize, usize) {
    let groups = LANES * S / 8;
    let start = p;
    let mut tiles = 0;
    // SAFETY: the CPU features are the caller's promise. Pointers: `states` holds `groups`
    // vectors of 8 u32; tile `t`'s final stores write `out[32·B·t ..][.. 32·B]` (the offsets
    // below stay within it for each `(B, S)`), and `t < out.len() / (32·B)`; the gather reads
    // `packed` at `x mod 2^pb < packed.len()`; a tile starts only with `p ≥ WINDOW`, and its
    // window, words `p − WINDOW .. p`, lies inside `words` (`2·p ≤ words.len()`, and `p` only
    // decreases, by the words each tile read, at most its 32·B ≤ 256 symbols); within the tile,
    // `r` is the next word's index in the window: a vector reads at most 8 words and a tile has
    // at most 32 vectors, so before each vector at most 8 · 31 words have been read and
    // `r ≥ 255 − 248 = 7`: the 8 words `r − 7 ..= r` lie inside the window. `TAKE` and `PLACE`
    // rows are read whole.
    unsafe {
        let slot_mask = _mm256_set1_epi32((1 << pb) - 1);
        let shift = _mm_cvtsi32_si128(pb as i32);
        let bias_mask = _mm256_set1_epi32(0x7FF);
        let zero = _mm256_setzero_si256();
        let table = packed.as_ptr() as *const i32;
        let mut xs = [zero; 8];
        for (g, x) in xs.iter_mut().enumerate().take(groups) {
            *x = _mm256_loadu_si256(states.as_ptr().add(8 * g) as *const __m256i);
        }
        while tiles < out.len() / (LANES * B) && p >= WINDOW {
            let win = words.as_ptr().add(2 * (p - WINDOW));
            let mut r = WINDOW - 1;
            let mut acc = [[zero; 8]; 2];
            for step in 0..B / S {
                let place = _mm256_loadu_si256(PLACE[step % 4].as_ptr() as *const __m256i);
                let acc = &mut acc[step / 4];
                for g in 0..groups {
                    let x = xs[g];
                    let e = _mm256_i32gather_epi32::<4>(table, _mm256_and_si256(x, slot_mask));
                    let f = _mm256_srli_epi32::<19>(e);
                    let bias = _mm256_and_si256(_mm256_srli_epi32::<8>(e), bias_mask);
                    let y = _mm256_add_epi32(_mm256_mullo_epi32(f, _mm256_srl_epi32(x, shift)), bias);
                    let need = _mm256_cmpeq_epi32(_mm256_srli_epi32::<16>(y), zero);
                    let m = _mm256_movemask_ps(_mm256_castsi256_ps(need)) as u8;
                    let below = _mm256_broadcastsi128_si256(_mm_loadu_si128(win.add(2 * (r - 7)) as *const __m128i));
                    let take = _mm256_loadu_si256(TAKE[m as usize].as_ptr() as *const __m256i);
                    let pulled = _mm256_or_si256(_mm256_slli_epi32::<16>(y), _mm256_shuffle_epi8(below, take));
                    xs[g] = _mm256_blendv_epi8(y, pulled, need);
                    r = r.wrapping_sub(m.count_ones() as usize);
                    acc[g] = _mm256_or_si256(acc[g], _mm256_shuffle_epi8(e, place));
                }
            }
            p -= (WINDOW - 1).wrapping_sub(r);
            store_symbols::<B, S>(&acc, out.as_mut_ptr().add(LANES * B * tiles));
            tiles += 1;
        }
        for (g, x) in xs.iter().enumerate().take(groups) {
            _mm256_storeu_si256(states.as_mut_ptr().add(8 * g) as *mut __m256i, *x);
        }
    }
    (tiles, start - p)
}

/// Writes a tile's symbols, collected per state in `acc` (step `k` in byte `k mod 4` of
/// `acc[k / 4]`), to `o` in output order: lane `j`'s symbol `b` at `B·j + b`.
///
/// # Safety
///
/// The CPU has AVX2; `o` is valid for `32·B` bytes of writes; `(B, S)` in `{8, 4, 2} × {1, 2}`.
#[inline(always)]
unsafe fn store_symbols<const B: usize, const S: usize>(acc: &[[__m256i; 8]; 2], o: *mut u8) {
    let groups = LANES * S / 8;
    let [first, second] = acc;
    // SAFETY: AVX2 is the caller's promise; vector `g` of the stores below writes bytes
    // `8·B/S · g ..+ 8·B/S` of the `32·B` the caller provides (4·S vectors).
    unsafe {
        match (B, S) {
            // Lanes 4g..4g+4, two states each, steps 0..4 in bytes 0..4: per lane the bytes
            // (step, state) interleaved, 32 output bytes.
            (8, 2) => {
                let order = _mm256_setr_epi8(
                    0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14,
                    11, 15,
                );
                for (g, &v) in first.iter().enumerate().take(groups) {
                    _mm256_storeu_si256(o.add(32 * g) as *mut __m256i, _mm256_shuffle_epi8(v, order));
                }
            }
            // Lanes 8g..8g+8, steps 0..4 and 4..8 in two vectors: per lane one u64, 64 bytes.
            (8, 1) => {
                for (g, (&a, &b)) in first.iter().zip(second).enumerate().take(groups) {
                    let lo = _mm256_unpacklo_epi32(a, b);
                    let hi = _mm256_unpackhi_epi32(a, b);
                    _mm256_storeu_si256(o.add(64 * g) as *mut __m256i, _mm256_permute2x128_si256::<0x20>(lo, hi));
                    _mm256_storeu_si256(o.add(64 * g + 32) as *mut __m256i, _mm256_permute2x128_si256::<0x31>(lo, hi));
                }
            }
            // Lanes 8g..8g+8, steps 0..4: already in output order, 32 bytes.
            (4, 1) => {
                for (g, &v) in first.iter().enumerate().take(groups) {
                    _mm256_storeu_si256(o.add(32 * g) as *mut __m256i, v);
                }
            }
            // Lanes 4g..4g+4, two states, steps 0..2: 4 bytes a lane, 16 bytes.
            (4, 2) => {
                let order = _mm256_setr_epi8(
                    0, 4, 1, 5, 8, 12, 9, 13, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 1, 5, 8, 12, 9, 13, -1, -1, -1, -1,
                    -1, -1, -1, -1,
                );
                for (g, &v) in first.iter().enumerate().take(groups) {
                    let v = _mm256_permute4x64_epi64::<0b1000>(_mm256_shuffle_epi8(v, order));
                    _mm_storeu_si128(o.add(16 * g) as *mut __m128i, _mm256_castsi256_si128(v));
                }
            }
            // Lanes 8g..8g+8, steps 0..2: 2 bytes a lane, 16 bytes.
            (2, 1) => {
                let order = _mm256_setr_epi8(
                    0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1,
                    -1, -1, -1, -1,
                );
                for (g, &v) in first.iter().enumerate().take(groups) {
                    let v = _mm256_permute4x64_epi64::<0b1000>(_mm256_shuffle_epi8(v, order));
                    _mm_storeu_si128(o.add(16 * g) as *mut __m128i, _mm256_castsi256_si128(v));
                }
            }
            // Lanes 4g..4g+4, two states, one step: decode order is output order, 8 bytes.
            _ => {
                let order = _mm256_setr_epi8(
                    0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1,
                    -1, -1, -1, -1, -1, -1,
                );
                let halves = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
                for (g, &v) in first.iter().enumerate().take(groups) {
                    let v = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, order), halves);
                    _mm_storel_epi64(o.add(8 * g) as *mut __m128i, _mm256_castsi256_si128(v));
                }
            }
        }
    }
}
