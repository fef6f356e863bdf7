//! TEMPORARY (removed before the final commit): the decoder as of 99a8bb5, for the old-vs-new
//! differential test in `super::differential`.
#![allow(dead_code)]
use super::rans::{seeded, state_index, tiles, LANES, STATE_INITIAL};
use super::table::Table;
use super::Corrupt;
use crate::algorithm::ans::AnsMode;

fn packed(t: &Table) -> Vec<u64> {
    let mut slots = Vec::new();
    for (i, w) in t.cum.windows(2).enumerate() {
        let symbol = (t.min_symbol as u64 + i as u64) << 56;
        slots.extend((0..w[1] - w[0]).map(|bias| t.freq[i] as u64 | (bias as u64) << 32 | symbol));
    }
    slots
}
fn entry_freq(e: u64) -> u32 {
    e as u32
}
fn entry_bias(e: u64) -> u32 {
    (e >> 32) as u16 as u32
}
fn entry_symbol(e: u64) -> u8 {
    (e >> 56) as u8
}

/// Decodes one sub-chunk (`sub`: its words then its `32·spl` final states, exactly its stored
/// size) into `out` (`out.len()` symbols), in the order a warp runs it: tile by tile, step by
/// step; in a step every lane decodes its `spl` symbols, and the states that fell below `2^16`
/// take one word each in (lane ascending, state ascending) order, the `k`-th reading the word
/// `k + 1` positions below the step's word pointer (a warp's prefix sum over "needs a word"
/// flags), i.e. one cursor walking the words downwards.
///
/// Checks: initial states in `[2^16, 2^32)` (so one word always suffices), the word pointer
/// never below the sub-chunk start, all words consumed, every state back at `2^16` (or, in a
/// [`seeded`] sub-chunk, at `f · 2^(16−pb)` of its last symbol, with no word read for it). A
/// sub-chunk without symbols is empty (FLOAT8 chunks of one value).
pub(crate) fn decode_sub_chunk_old(
    sub: &[u8],
    spl: usize,
    mode: AnsMode,
    table: &Table,
    out: &mut [u8],
) -> Result<(), Corrupt> {
    if out.is_empty() {
        return if sub.is_empty() { Ok(()) } else { Err(Corrupt) };
    }
    let nstates = LANES * spl;
    let words_len = sub.len().checked_sub(4 * nstates).ok_or(Corrupt)?;
    // An odd word region can never be consumed exactly.
    if words_len % 2 != 0 {
        return Err(Corrupt);
    }
    let words = &sub[..words_len];
    // States in decode order (lane ascending, then state), not storage order.
    let mut states = [0u32; 2 * LANES];
    for (k, b) in sub[words_len..].chunks_exact(4).enumerate() {
        let x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if x < STATE_INITIAL {
            return Err(Corrupt);
        }
        states[state_index(k / spl, k % spl, spl)] = x;
    }
    let states = &mut states[..nstates];
    let mut dec = Decoder { words, p: words_len / 2, slots: &packed(table), pb: table.probability_bits as u32 };
    let seeded = seeded(out.len(), spl, mode);
    let ntiles = tiles(out.len(), spl, mode).count();
    for (t, tile) in tiles(out.len(), spl, mode).enumerate() {
        let dst = &mut out[tile.start..tile.start + tile.len];
        let seed_tile = seeded && t + 1 == ntiles;
        // Whole tiles without the seeded step, at the probability bits nvCOMP writes (11 bytes
        // and FLOAT8, 10 FLOAT16 and FLOAT32), take the unrolled loops.
        let whole = tile.len == LANES * tile.block && !seed_tile;
        match (whole, tile.block, spl, dec.pb) {
            (true, 8, 2, 11) => dec.tile::<8, 2, 11>(states, dst)?,
            (true, 8, 1, 11) => dec.tile::<8, 1, 11>(states, dst)?,
            (true, 4, 2, 11) => dec.tile::<4, 2, 11>(states, dst)?,
            (true, 4, 1, 11) => dec.tile::<4, 1, 11>(states, dst)?,
            (true, 2, 2, 11) => dec.tile::<2, 2, 11>(states, dst)?,
            (true, 2, 1, 11) => dec.tile::<2, 1, 11>(states, dst)?,
            (true, 8, 2, 10) => dec.tile::<8, 2, 10>(states, dst)?,
            (true, 8, 1, 10) => dec.tile::<8, 1, 10>(states, dst)?,
            (true, 4, 2, 10) => dec.tile::<4, 2, 10>(states, dst)?,
            (true, 4, 1, 10) => dec.tile::<4, 1, 10>(states, dst)?,
            (true, 2, 2, 10) => dec.tile::<2, 2, 10>(states, dst)?,
            (true, 2, 1, 10) => dec.tile::<2, 1, 10>(states, dst)?,
            _ => {
                for step in 0..tile.block / spl {
                    let seed_step = seed_tile && step + 1 == tile.block / spl;
                    dec.general_step(states, dst, tile.block, spl, step, seed_step)?;
                }
            }
        }
    }
    if dec.p != 0 || states.iter().any(|&x| x != STATE_INITIAL) {
        return Err(Corrupt);
    }
    Ok(())
}

/// Word `i` of a word region (little-endian byte pairs).
#[inline(always)]
fn word(words: &[u8], i: usize) -> u32 {
    u16::from_le_bytes([words[2 * i], words[2 * i + 1]]) as u32
}

/// A sub-chunk's word stack and table while it is decoded.
struct Decoder<'a> {
    /// The 16-bit words (little endian), read downwards.
    words: &'a [u8],
    /// Words not yet read: the next one is `words[p − 1]`.
    p: usize,
    /// The table's packed steps, `2^pb` of them.
    slots: &'a [u64],
    pb: u32,
}

impl Decoder<'_> {
    /// One decode step of state `x` (in `[2^16, 2^32)`): its symbol and next state before
    /// renormalisation, `f · (x >> pb) + (slot − cum)`, which lies in `[1, 2^32)`.
    #[inline(always)]
    fn step(&self, x: u32) -> (u8, u32) {
        let e = self.slots[(x & ((1 << self.pb) - 1)) as usize];
        (entry_symbol(e), entry_freq(e) * (x >> self.pb) + entry_bias(e))
    }

    /// Renormalises `x` (in `[1, 2^32)`): below `2^16` it takes the next word, `Corrupt` if
    /// none is left.
    #[inline(always)]
    fn renorm(&mut self, x: u32) -> Result<u32, Corrupt> {
        if x >= STATE_INITIAL {
            return Ok(x);
        }
        self.p = self.p.checked_sub(1).ok_or(Corrupt)?;
        Ok(x << 16 | word(self.words, self.p))
    }

    /// A whole tile of `32 · B` symbols (`B` per lane) with `S` states per lane, no seeded step,
    /// `pb = PB`. A step whose words may run out (fewer than `32 · S` left) goes to
    /// [`Decoder::general_step`]; the others read from a window of `32 · S` words by a
    /// wrapping index (in bounds by construction), without a branch on the data: the word is
    /// loaded either way and merged by arithmetic, since whether a state needs one is close
    /// to random and a branch there measured slower.
    #[inline(always)]
    fn tile<const B: usize, const S: usize, const PB: u32>(
        &mut self,
        states: &mut [u32],
        out: &mut [u8],
    ) -> Result<(), Corrupt> {
        let slots = &self.slots[..1 << PB];
        let window = LANES * S;
        for step in 0..B / S {
            let Some(base) = self.p.checked_sub(window) else {
                self.general_step(states, out, B, S, step, false)?;
                continue;
            };
            let win = &self.words[2 * base..2 * self.p];
            // Index of the next word in the window, wrapping: the window holds one word more than
            // the symbols left in the step, so it never wraps before the step ends.
            let mut r = window - 1;
            for (lane_out, xs) in out.chunks_exact_mut(B).zip(states.chunks_exact_mut(S)) {
                for s in 0..S {
                    let (o, x) = (&mut lane_out[step * S + s], &mut xs[s]);
                    let e = slots[(*x & ((1 << PB) - 1)) as usize];
                    *o = entry_symbol(e);
                    let y = entry_freq(e) * (*x >> PB) + entry_bias(e);
                    let need = (y < STATE_INITIAL) as u32;
                    let w = word(win, r & (window - 1));
                    r = r.wrapping_sub(need as usize);
                    // Arithmetic, not a select: LLVM turns a select on a loaded word into a branch.
                    *x = y << (16 * need) | (w & 0u32.wrapping_sub(need));
                }
            }
            self.p = base + r.wrapping_add(1);
        }
        Ok(())
    }

    /// One step of any tile: symbols past `out.len()` (a partial tile) skipped, every word read
    /// checked; `seed_step`: the last step of a [`seeded`] sub-chunk, which reads no word and
    /// must end each state at `f · 2^(16−pb)`, the encoder's start value, before setting it to
    /// `2^16`.
    fn general_step(
        &mut self,
        states: &mut [u32],
        out: &mut [u8],
        block: usize,
        spl: usize,
        step: usize,
        seed_step: bool,
    ) -> Result<(), Corrupt> {
        for lane in 0..LANES {
            for s in 0..spl {
                let q = lane * block + step * spl + s;
                let Some(o) = out.get_mut(q) else { continue };
                let x = &mut states[lane * spl + s];
                let (symbol, y) = self.step(*x);
                *o = symbol;
                *x = if seed_step {
                    let f = entry_freq(self.slots[(*x & ((1 << self.pb) - 1)) as usize]);
                    if y != f << (16 - self.pb) {
                        return Err(Corrupt);
                    }
                    STATE_INITIAL
                } else {
                    self.renorm(y)?
                };
            }
        }
        Ok(())
    }
}
