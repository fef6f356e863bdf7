//! The rANS coder of one sub-chunk: 32 lanes × `spl` interleaved 32-bit states sharing one stack
//! of 16-bit renormalisation words (ANS.md 3), and the schedule that assigns symbols to states
//! (ANS.md 3.1). A GPU kernel runs one sub-chunk per warp, lane `j` owning states
//! `(31 − j)·spl + s`; [`schedule`] is the exact order it must reproduce, [`seeded`] the one
//! FLOAT8 exception to "every state starts and ends at `2^16`".
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

/// The tiles of a sub-chunk of `nsym` symbols, in decode order: a body of
/// `floor(nsym / (256·spl)) · 256·spl` symbols in tiles of block 8 (bytes, FLOAT16) or 4
/// (FLOAT8), the rest in tiles of 64 (block 2), the last possibly partial; FLOAT32: tiles of 128
/// (block 4) throughout. The body unit `256·spl` (512 with two states per lane, 256 with one) is
/// what one pass of a warp's `32·spl` states codes, 8 symbols each.
pub fn tiles(nsym: usize, spl: usize, mode: AnsMode) -> impl DoubleEndedIterator<Item = Tile> + Clone {
    let unit = 256 * spl;
    let (body, body_block, tail_block) = match mode {
        AnsMode::Float32 => (0, 4, 4),
        AnsMode::Float8 => (nsym / unit * unit, 4, 2),
        AnsMode::Bytes | AnsMode::Float16 => (nsym / unit * unit, 8, 2),
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

/// Whether a sub-chunk's states are *seeded*: FLOAT8 sub-chunks without a tail (`nsym` a
/// nonzero multiple of `256·spl`). There nvCOMP's encoder codes each state's first symbol `s`
/// as `x = 2^16 + cum[s]`, i.e. from the start value `f[s] · 2^(16−pb)` instead of `2^16`, so
/// the decoder ends each state at `f[s] · 2^(16−pb)` after its last symbol (which lies in the
/// last step of the last tile) and reads no word for it. Seen in every such sub-chunk of
/// nvCOMP's FLOAT8 samples (2048 to 16384 symbols, both `spl`), and in no sub-chunk with a tail
/// nor in any other mode.
pub fn seeded(nsym: usize, spl: usize, mode: AnsMode) -> bool {
    mode == AnsMode::Float8 && nsym > 0 && nsym.is_multiple_of(256 * spl)
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
    tiles(nsym, spl, mode).flat_map(move |t| tile_order(t, spl))
}

/// Where a sub-chunk's whole tiles decode: the portable loop (`run_tile`) or an x86-64 SIMD
/// path (`x86`: AVX2), picked at run time like BLAKE3's `Platform`. Every platform gives the
/// same results, status and output bytes, valid input or not; one can only be made on a CPU
/// that runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform(Isa);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Isa {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2(super::x86::Avx2),
}

impl Platform {
    /// The portable decoder, on every CPU: the reference the others are tested against.
    pub fn portable() -> Platform {
        Platform(Isa::Portable)
    }

    /// The fastest platform this CPU runs (the feature test is cached by `std`).
    pub fn detect() -> Platform {
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = super::x86::Avx2::detect() {
            return Platform(Isa::Avx2(avx2));
        }
        Platform::portable()
    }

    /// Every platform this CPU runs, portable first, fastest last (for tests and benchmarks).
    pub fn all() -> Vec<Platform> {
        let mut all = vec![Platform::portable()];
        if Platform::detect() != Platform::portable() {
            all.push(Platform::detect());
        }
        all
    }

    /// A short name: `portable`, `avx2`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Isa::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2(_) => "avx2",
        }
    }
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
pub fn decode_sub_chunk(sub: &[u8], spl: usize, mode: AnsMode, table: &Table, out: &mut [u8]) -> Result<(), Corrupt> {
    decode_sub_chunk_on(Platform::detect(), sub, spl, mode, table, out)
}

/// [`decode_sub_chunk`] with its whole tiles decoded on `platform`: the same result, status and
/// output (also of a failing sub-chunk) on every platform.
pub fn decode_sub_chunk_on(
    platform: Platform,
    sub: &[u8],
    spl: usize,
    mode: AnsMode,
    table: &Table,
    out: &mut [u8],
) -> Result<(), Corrupt> {
    if !matches!(spl, 1 | 2) {
        return Err(Corrupt);
    }
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
    // States in decode order (lane ascending, then state), not storage order: stored lanes
    // descending ([`state_index`]), so lane groups reversed, a lane's states in order.
    let mut states = [0u32; 2 * LANES];
    let states = &mut states[..nstates];
    for (lane, stored) in states.chunks_exact_mut(spl).rev().zip(sub[words_len..].chunks_exact(4 * spl)) {
        for (x, b) in lane.iter_mut().zip(stored.chunks_exact(4)) {
            *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
    }
    if states.iter().any(|&x| x < STATE_INITIAL) {
        return Err(Corrupt);
    }
    let mut dec = Decoder {
        words,
        p: words_len / 2,
        symbols: table.slot_symbols(),
        steps: table.slot_steps(),
        #[cfg(target_arch = "x86_64")]
        packed: table.slot_packed(),
        platform,
        low: [0; 2 * WINDOW],
        pb: table.probability_bits as u32,
    };
    let seeded = seeded(out.len(), spl, mode);
    // Tiles before `plain` have no seeded step.
    let plain = tiles(out.len(), spl, mode).count() - seeded as usize;
    let whole = |t: usize, tile: &Tile| t < plain && tile.len == LANES * tile.block;
    let mut order = tiles(out.len(), spl, mode).enumerate();
    while let Some((t, tile)) = order.next() {
        // Whole tiles without the seeded step, at the probability bits nvCOMP writes (11 bytes
        // and FLOAT8, 10 FLOAT16 and FLOAT32), take the unrolled loops, in runs of consecutive
        // whole tiles of one block.
        if whole(t, &tile) && matches!(dec.pb, 10 | 11) {
            let run = 1 + order.clone().take_while(|(u, next)| whole(*u, next) && next.block == tile.block).count();
            let mut left = &mut out[tile.start..tile.start + run * tile.len];
            while !left.is_empty() {
                let done = match (tile.block, spl, dec.pb) {
                    (8, 2, 11) => dec.tiles::<8, 2, 11>(states, left)?,
                    (8, 1, 11) => dec.tiles::<8, 1, 11>(states, left)?,
                    (4, 2, 11) => dec.tiles::<4, 2, 11>(states, left)?,
                    (4, 1, 11) => dec.tiles::<4, 1, 11>(states, left)?,
                    (2, 2, 11) => dec.tiles::<2, 2, 11>(states, left)?,
                    (2, 1, 11) => dec.tiles::<2, 1, 11>(states, left)?,
                    (8, 2, _) => dec.tiles::<8, 2, 10>(states, left)?,
                    (8, 1, _) => dec.tiles::<8, 1, 10>(states, left)?,
                    (4, 2, _) => dec.tiles::<4, 2, 10>(states, left)?,
                    (4, 1, _) => dec.tiles::<4, 1, 10>(states, left)?,
                    (2, 2, _) => dec.tiles::<2, 2, 10>(states, left)?,
                    _ => dec.tiles::<2, 1, 10>(states, left)?,
                };
                left = &mut left[done * tile.len..];
            }
            if run > 1 {
                order.nth(run - 2);
            }
            continue;
        }
        let dst = &mut out[tile.start..tile.start + tile.len];
        for step in 0..tile.block / spl {
            let seed_step = t >= plain && step + 1 == tile.block / spl;
            dec.general_step(states, dst, tile.block, spl, step, seed_step)?;
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
    /// The table's symbol per slot, `2^pb` of them.
    symbols: &'a [u8],
    /// The table's `[f, slot − cum]` per slot.
    steps: &'a [[u32; 2]],
    /// The table's packed entries ([`Table::slot_packed`]), for the SIMD tile decoders.
    #[cfg(target_arch = "x86_64")]
    packed: &'a [u32],
    /// Where whole tiles decode.
    platform: Platform,
    /// The window of a tile that starts with fewer than [`WINDOW`] words left: those words at
    /// its top; what lies below them is never used (reading it fails the tile).
    low: [u8; 2 * WINDOW],
    pb: u32,
}

impl Decoder<'_> {
    /// One decode step of state `x` (in `[2^16, 2^32)`): its symbol and next state before
    /// renormalisation, `f · (x >> pb) + (slot − cum)`, which lies in `[1, 2^32)`.
    #[inline(always)]
    fn step(&self, x: u32) -> (u8, u32) {
        let slot = (x & ((1 << self.pb) - 1)) as usize;
        let [f, bias] = self.steps[slot];
        (self.symbols[slot], f * (x >> self.pb) + bias)
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

    /// The first of the whole tiles in `out` (at least one, each `32 · B` symbols, `B` per lane)
    /// with `S` states per lane, no seeded step, `pb = PB`, or, on a SIMD platform, as many as
    /// start with at least [`WINDOW`] words left (each reads its window in place) and then one
    /// more; returns how many it decoded. A tile reads its words from a window of the
    /// [`WINDOW`] words below the cursor (the most a tile can read; [`Decoder::low`] when fewer
    /// are left) and fails afterwards if it read more than were left: a tile that runs out is
    /// `Corrupt` either way, its output the same on every platform.
    #[inline(always)]
    fn tiles<const B: usize, const S: usize, const PB: u32>(
        &mut self,
        states: &mut [u32],
        out: &mut [u8],
    ) -> Result<usize, Corrupt> {
        let tile = LANES * B;
        let in_place = match self.platform.0 {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2(avx2) => avx2.run_tiles::<B, S>(self.packed, PB, self.words, self.p, states, out),
            Isa::Portable => None,
        };
        let done = match in_place {
            Some((tiles, read)) => {
                self.p = self.p.checked_sub(read).ok_or(Corrupt)?;
                tiles
            }
            None => 0,
        };
        if done * tile == out.len() {
            return Ok(done);
        }
        let out = &mut out[done * tile..(done + 1) * tile];
        let win: &[u8; 2 * WINDOW] = match self.p.checked_sub(WINDOW) {
            Some(base) => self.words[2 * base..].first_chunk().ok_or(Corrupt)?,
            None => {
                self.low[2 * (WINDOW - self.p)..].copy_from_slice(&self.words[..2 * self.p]);
                &self.low
            }
        };
        let read = match self.platform.0 {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2(avx2) => avx2.run_tiles::<B, S>(self.packed, PB, win, WINDOW, states, out).map(|(_, read)| read),
            Isa::Portable => None,
        };
        let read = match read {
            Some(read) => read,
            None => run_tile::<B, S, PB>(&self.symbols[..1 << PB], &self.steps[..1 << PB], win, states, out),
        };
        self.p = self.p.checked_sub(read).ok_or(Corrupt)?;
        Ok(done + 1)
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
                    let [f, _] = self.steps[(*x & ((1 << self.pb) - 1)) as usize];
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

/// Words a tile's window holds: the most a tile reads (one per symbol, `32 · 8`), and a byte's
/// range, so that the window index is the cursor's low byte.
pub(super) const WINDOW: usize = 256;

/// Decodes a whole tile (see [`Decoder::tile`]) reading words downwards from the top of `win`;
/// returns the number of words read (at most `32 · B`). Straight-line and branchless per
/// symbol: whether a state takes a word is close to random (a branch there measured 3× slower in
/// the first round), so the word is loaded either way and the new state picked by a select that
/// compiles to a conditional move (objdump: about 20 x86 instructions a symbol).
#[inline(always)]
fn run_tile<const B: usize, const S: usize, const PB: u32>(
    symbols: &[u8],
    steps: &[[u32; 2]],
    win: &[u8; 2 * WINDOW],
    states: &mut [u32],
    out: &mut [u8],
) -> usize {
    // Index of the next word; one below 0 (wrapped) once all WINDOW words are read.
    let mut r = WINDOW - 1;
    for step in 0..B / S {
        // Four lanes per iteration: a constant inner loop LLVM unrolls, so states and symbols
        // sit at constant offsets and the loop overhead is shared by 4·S symbols.
        for (group_out, group_xs) in out.chunks_exact_mut(4 * B).zip(states.chunks_exact_mut(4 * S)) {
            for l in 0..4 {
                for s in 0..S {
                    let x = group_xs[l * S + s] as usize;
                    let slot = x & ((1 << PB) - 1);
                    group_out[l * B + step * S + s] = symbols[slot];
                    let [f, bias] = steps[slot];
                    let y = f * (x >> PB) as u32 + bias;
                    let need = y < STATE_INITIAL;
                    let pulled = y << 16 | word(win, r as u8 as usize);
                    r = r.wrapping_sub(need as usize);
                    group_xs[l * S + s] = if need { pulled } else { y };
                }
            }
        }
    }
    (WINDOW - 1).wrapping_sub(r)
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
/// "emits" flags in that descending order. In a [`seeded`] sub-chunk each state starts at
/// `f · 2^(16−pb)` of its first symbol instead (so that symbol gives `2^16 + cum`). No symbols:
/// nothing at all (not even states). `Internal` if a symbol has frequency 0.
pub fn encode_sub_chunk(
    symbols: &[u8],
    spl: usize,
    mode: AnsMode,
    table: &EncodeTable,
    out: &mut Vec<u8>,
) -> Result<(), Status> {
    if symbols.is_empty() {
        return Ok(());
    }
    let nstates = LANES * spl;
    // 0 marks a seeded state that has not coded its first symbol yet (states are never 0).
    let start = if seeded(symbols.len(), spl, mode) { 0 } else { STATE_INITIAL as u64 };
    let mut states = [start; 2 * LANES];
    for tile in tiles(symbols.len(), spl, mode).rev() {
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
                    if x == 0 {
                        x = f << (16 - table.pb);
                    }
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
