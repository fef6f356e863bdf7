//! The rANS coder of one sub-chunk: 32 lanes × `spl` interleaved 32-bit states sharing one stack
//! of 16-bit renormalisation words (ANS.md 3), and the schedule that assigns symbols to states
//! (ANS.md 3.1). A GPU kernel runs one sub-chunk per warp, lane `j` owning states
//! `(31 − j)·spl + s`; [`schedule`] is the exact order it must reproduce.
use super::table::Table;
use super::Corrupt;
use crate::algorithm::ans::AnsMode;
use crate::error::Status;

/// Lanes per sub-chunk (one warp).
pub const LANES: usize = 32;
/// The states' lower bound `L = 2^16`: states live in `[2^16, 2^32)`; every state starts (in the
/// encoder) and ends (in the decoder) at exactly this value.
pub const STATE_INITIAL: u32 = 1 << 16;

/// A tile of a sub-chunk's symbols: `32 · block` positions from `start` (the last tile of a
/// sub-chunk may be shorter: `len`); lane `j` owns positions `start + block·j ..+ block`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    /// First symbol position (within the sub-chunk).
    pub start: usize,
    /// Symbols per lane: 8 or 2 (byte / FLOAT16 modes), 4 (FLOAT32).
    pub block: usize,
    /// Symbols in this tile (`32 · block`, or fewer for the last one).
    pub len: usize,
}

/// The tiles of a sub-chunk of `nsym` symbols, in decode order. Byte and FLOAT16 modes: the first
/// `floor(nsym / 512) · 512` symbols in tiles of 256 (block 8), the remaining `nsym mod 512` in
/// tiles of 64 (block 2), the last possibly partial. FLOAT32: tiles of 128 (block 4).
pub fn tiles(nsym: usize, mode: AnsMode) -> impl DoubleEndedIterator<Item = Tile> + Clone {
    let (body, body_block, tail_block) = match mode {
        AnsMode::Float32 => (0, 4, 4),
        _ => (nsym / 512 * 512, 8, 2),
    };
    let body_tile = LANES * body_block;
    let tail_tile = LANES * tail_block;
    let body_tiles =
        (0..body / body_tile).map(move |t| Tile { start: t * body_tile, block: body_block, len: body_tile });
    let tail_tiles = (0..(nsym - body).div_ceil(tail_tile)).map(move |t| {
        let start = body + t * tail_tile;
        Tile { start, block: tail_block, len: (nsym - start).min(tail_tile) }
    });
    body_tiles.chain(tail_tiles)
}

/// Storage index of lane `lane`'s state `s`: lanes reversed, a lane's states in order.
#[inline]
pub fn state_index(lane: usize, s: usize, spl: usize) -> usize {
    (LANES - 1 - lane) * spl + s
}

/// The decode order inside a tile: `(state index, position in the sub-chunk)`. Step by step
/// (`block / spl` steps), inside a step lanes 0..32 ascending, inside a lane its states
/// `s = 0..spl`; lane `j`'s symbol `b = step·spl + s` is position `start + block·j + b` (skipped
/// when past `len`).
pub fn tile_order(tile: Tile, spl: usize) -> impl DoubleEndedIterator<Item = (usize, usize)> + Clone {
    (0..tile.block / spl).flat_map(move |step| {
        (0..LANES).flat_map(move |lane| {
            (0..spl).filter_map(move |s| {
                let q = lane * tile.block + step * spl + s;
                (q < tile.len).then_some((state_index(lane, s, spl), tile.start + q))
            })
        })
    })
}

/// The whole decode order of a sub-chunk of `nsym` symbols: tile by tile, [`tile_order`] inside.
/// The encoder walks it backwards.
pub fn schedule(nsym: usize, spl: usize, mode: AnsMode) -> impl DoubleEndedIterator<Item = (usize, usize)> + Clone {
    tiles(nsym, mode).flat_map(move |t| tile_order(t, spl))
}

/// Decodes one sub-chunk (`sub`: its words then its `32·spl` final states, exactly its stored
/// size) into `out` (`out.len()` symbols), in the form a warp runs it: tile by tile, step by step;
/// in a step every lane first decodes its `spl` symbols independently (phase 1), then the states
/// that fell below `2^16` take one word each, handed out by an exclusive prefix sum over their
/// "needs a word" flags in (lane ascending, state ascending) order, the `k`-th flagged state
/// reading the word `k + 1` positions below the step's word pointer (phase 2).
///
/// Checks: initial states in `[2^16, 2^32)` (so one word always suffices), the word pointer
/// never below the sub-chunk start, all words consumed, every state back at `2^16`.
pub fn decode_sub_chunk(sub: &[u8], spl: usize, mode: AnsMode, table: &Table, out: &mut [u8]) -> Result<(), Corrupt> {
    let nstates = LANES * spl;
    let words_len = sub.len().checked_sub(4 * nstates).ok_or(Corrupt)?;
    let mut states = [0u32; 2 * LANES];
    for (k, b) in sub[words_len..].chunks_exact(4).enumerate() {
        let x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if x < STATE_INITIAL {
            return Err(Corrupt);
        }
        states[k] = x;
    }
    let pb = table.probability_bits as u32;
    let mask = (1u32 << pb) - 1;
    let mut p = words_len; // words are read backwards from just below the states
    for tile in tiles(out.len(), mode) {
        for step in 0..tile.block / spl {
            // Phase 1: every lane decodes its symbols of this step.
            let mut taken = 0usize;
            for lane in 0..LANES {
                for s in 0..spl {
                    let q = lane * tile.block + step * spl + s;
                    if q >= tile.len {
                        continue;
                    }
                    let m = state_index(lane, s, spl);
                    let x = states[m];
                    let slot = x & mask;
                    let (symbol, f, bias) = table.decode_slot(slot);
                    // f · (x >> pb) + (slot − cum) < f · ((x >> pb) + 1) ≤ 2^32: no overflow;
                    // ≥ 1 since x ≥ 2^16 ≥ 2^pb.
                    let mut x = f * (x >> pb) + bias;
                    out[tile.start + q] = symbol;
                    // Phase 2 (folded in: the flags are visited in prefix-sum order).
                    if x < STATE_INITIAL {
                        taken += 1;
                        let w = p.checked_sub(2 * taken).ok_or(Corrupt)?;
                        x = (x << 16) | u16::from_le_bytes([sub[w], sub[w + 1]]) as u32;
                        if x < STATE_INITIAL {
                            return Err(Corrupt);
                        }
                    }
                    states[m] = x;
                }
            }
            p -= 2 * taken;
        }
    }
    if p != 0 || states[..nstates].iter().any(|&x| x != STATE_INITIAL) {
        return Err(Corrupt);
    }
    Ok(())
}

/// Per byte value: frequency and cumulative frequency (0, 0 for symbols outside the table).
#[derive(Debug, Clone)]
pub struct EncodeTable {
    freq: [u32; 256],
    cum: [u32; 256],
    pb: u32,
}

impl EncodeTable {
    /// The encoder's view of a table.
    pub fn new(table: &Table) -> EncodeTable {
        let mut freq = [0u32; 256];
        let mut cum = [0u32; 256];
        for e in 0..table.len() {
            let s = table.min_symbol as usize + e;
            freq[s] = table.freq[e];
            cum[s] = table.cum[e];
        }
        EncodeTable { freq, cum, pb: table.probability_bits as u32 }
    }
}

/// Encodes one sub-chunk's symbols, appending to `out` the 16-bit words in emission order, then
/// the `32·spl` final states in storage order (u32 LE). Every state starts at `2^16`; the
/// symbols are taken in the reverse of [`schedule`] (tiles, steps, lanes 31..0, states spl−1..0,
/// all descending); per symbol of frequency `f`: `if x ≥ f · 2^(32−pb) { emit x & 0xFFFF;
/// x >>= 16 }` (one word at most, since `f · 2^(32−pb) ≥ 2^16`), then
/// `x = (x / f) · 2^pb + x mod f + cum`. A warp emits a step's words with a prefix sum over the
/// "emits" flags in that descending order. `Internal` if a symbol has frequency 0.
pub fn encode_sub_chunk(
    symbols: &[u8],
    spl: usize,
    mode: AnsMode,
    table: &EncodeTable,
    out: &mut Vec<u8>,
) -> Result<(), Status> {
    let nstates = LANES * spl;
    let mut states = [STATE_INITIAL as u64; 2 * LANES];
    for tile in tiles(symbols.len(), mode).rev() {
        for step in (0..tile.block / spl).rev() {
            for lane in (0..LANES).rev() {
                for s in (0..spl).rev() {
                    let q = lane * tile.block + step * spl + s;
                    if q >= tile.len {
                        continue;
                    }
                    let m = state_index(lane, s, spl);
                    let sym = symbols[tile.start + q] as usize;
                    let f = table.freq[sym] as u64;
                    if f == 0 {
                        return Err(Status::Internal);
                    }
                    let mut x = states[m];
                    if x >= f << (32 - table.pb) {
                        out.extend_from_slice(&(x as u16).to_le_bytes());
                        x >>= 16;
                    }
                    states[m] = ((x / f) << table.pb) + x % f + table.cum[sym] as u64;
                }
            }
        }
    }
    for &x in &states[..nstates] {
        out.extend_from_slice(&(x as u32).to_le_bytes());
    }
    Ok(())
}
