//! The sequences section of a compressed block (RFC 8878 §3.1.1.3.2): its header (sequence
//! count, the three tables' modes: predefined, RLE, FSE-compressed, repeat) and the decoding of
//! (literal length, match length, offset) triples with the repeat-offset rules (§3.1.1.5).
use super::bitstream::Backward;
use super::fse;

/// Literal-length codes' extra bits (RFC 8878 §3.1.1.3.2.1.1); baselines follow from them.
const LL_BITS: [u8; 36] =
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
/// Match-length codes' extra bits.
const ML_BITS: [u8; 53] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2,
    3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
];

/// Baselines of codes with `bits` extra bits, starting at `first`: each code's baseline is the
/// previous one's plus the range of its extra bits.
const fn baselines<const N: usize>(bits: [u8; N], first: u32) -> [u32; N] {
    let mut b = [0u32; N];
    b[0] = first;
    let mut i = 1;
    while i < N {
        b[i] = b[i - 1] + (1 << bits[i - 1]);
        i += 1;
    }
    b
}
const LL_BASE: [u32; 36] = baselines(LL_BITS, 0);
const ML_BASE: [u32; 53] = baselines(ML_BITS, 3);

/// Largest code of each table, and largest accuracy log of an FSE-compressed one.
const LL_MAX: usize = 35;
const ML_MAX: usize = 52;
const OF_MAX: usize = 31;
const LL_MAX_LOG: u32 = 9;
const ML_MAX_LOG: u32 = 9;
const OF_MAX_LOG: u32 = 8;

/// The three decoding tables of a frame (shared memory) and their logs, kept for repeat mode.
pub struct SeqTables<'a> {
    /// Literal-length table.
    pub ll: &'a mut [u32; 512],
    /// Offset table.
    pub of: &'a mut [u32; 256],
    /// Match-length table.
    pub ml: &'a mut [u32; 512],
    /// Their accuracy logs.
    pub logs: [u32; 3],
    /// Whether a block of this frame had sequences (repeat mode needs one).
    pub valid: bool,
}

/// Builds one table for `mode` from `src` (where an RLE byte or FSE header starts); returns
/// the bytes read.
#[allow(clippy::too_many_arguments)]
fn table(
    mode: u8,
    src: &[u8],
    max: usize,
    max_log: u32,
    default: &[i16],
    default_log: u32,
    repeat_ok: bool,
    table: &mut [u32],
    log: &mut u32,
    norm: &mut [i16; 256],
    next: &mut [u16; 256],
) -> Option<usize> {
    match mode {
        0 => {
            fse::build(default, default_log, table, &mut next[..])?;
            *log = default_log;
            Some(0)
        }
        1 => {
            let b = *src.first()?;
            if b as usize > max {
                return None;
            }
            fse::rle(b, table)?;
            *log = 0;
            Some(1)
        }
        2 => {
            let (l, n, used) = fse::read_ncount(src, max, max_log, &mut norm[..])?;
            fse::build(norm.get(..n)?, l, table, &mut next[..])?;
            *log = l;
            Some(used)
        }
        _ => repeat_ok.then_some(0),
    }
}

/// Parses the sequences section header at the start of `src` and builds its tables into `t`;
/// returns (sequence count, header bytes). libzstd's checks: a section with no sequences has no
/// more bytes; the modes byte's reserved bits are 0; RLE symbols and FSE headers in range;
/// repeat mode only after a block with sequences.
pub fn parse_header(
    src: &[u8],
    t: &mut SeqTables,
    norm: &mut [i16; 256],
    next: &mut [u16; 256],
) -> Option<(usize, usize)> {
    let b0 = *src.first()? as usize;
    let (count, mut pos) = if b0 < 128 {
        (b0, 1)
    } else if b0 < 255 {
        (((b0 - 128) << 8) + *src.get(1)? as usize, 2)
    } else {
        let lo = *src.get(1)? as usize;
        let hi = *src.get(2)? as usize;
        (lo + (hi << 8) + 0x7F00, 3)
    };
    if count == 0 {
        return (pos == src.len()).then_some((0, pos));
    }
    let modes = *src.get(pos)?;
    if modes & 3 != 0 {
        return None;
    }
    pos += 1;
    let valid = t.valid;
    let rest = src.get(pos..)?;
    let used = table(
        modes >> 6,
        rest,
        LL_MAX,
        LL_MAX_LOG,
        &fse::LL_DEFAULT,
        6,
        valid,
        &mut t.ll[..],
        &mut t.logs[0],
        norm,
        next,
    )?;
    pos += used;
    let rest = src.get(pos..)?;
    let used = table(
        (modes >> 4) & 3,
        rest,
        OF_MAX,
        OF_MAX_LOG,
        &fse::OF_DEFAULT,
        5,
        valid,
        &mut t.of[..],
        &mut t.logs[1],
        norm,
        next,
    )?;
    pos += used;
    let rest = src.get(pos..)?;
    let used = table(
        (modes >> 2) & 3,
        rest,
        ML_MAX,
        ML_MAX_LOG,
        &fse::ML_DEFAULT,
        6,
        valid,
        &mut t.ml[..],
        &mut t.logs[2],
        norm,
        next,
    )?;
    pos += used;
    Some((count, pos))
}

/// One decoded sequence.
#[derive(Clone, Copy)]
pub struct Seq {
    /// Literal length.
    pub ll: u32,
    /// Match length.
    pub ml: u32,
    /// Offset (never 0: a repeat offset that would be 0 makes the block corrupt).
    pub off: u64,
}

/// The sequences' bitstream with its three states and the frame's repeat offsets.
pub struct SeqDecoder<'a> {
    bits: Backward<'a>,
    states: [u32; 3],
}

impl<'a> SeqDecoder<'a> {
    /// The bitstream `src` (the rest of the block): its initial states, literal length first,
    /// then offset, then match length.
    pub fn new(src: &'a [u8], t: &SeqTables) -> Option<Self> {
        let mut bits = Backward::new(src)?;
        let ll = bits.read(t.logs[0]);
        let of = bits.read(t.logs[1]);
        let ml = bits.read(t.logs[2]);
        Some(SeqDecoder { bits, states: [ll, of, ml] })
    }

    /// Decodes the next sequence (`last`: no state update after it), updating `reps`. `None`
    /// if the stream ran out or a repeat offset is 0.
    pub fn next(&mut self, t: &SeqTables, reps: &mut [u64; 3], last: bool) -> Option<Seq> {
        let lle = *t.ll.get(self.states[0] as usize)?;
        let ofe = *t.of.get(self.states[1] as usize)?;
        let mle = *t.ml.get(self.states[2] as usize)?;
        let (llc, ofc, mlc) = (fse::symbol(lle) as usize, fse::symbol(ofe), fse::symbol(mle) as usize);
        // libzstd's order: offset bits, match-length bits, literal-length bits.
        let off = if ofc > 1 {
            let off = (1u64 << ofc) - 3 + self.bits.read(ofc) as u64;
            *reps = [off, reps[0], reps[1]];
            off
        } else {
            let ll0 = (*LL_BASE.get(llc)? == 0) as usize;
            if ofc == 0 {
                let off = reps[ll0];
                reps[1] = reps[1 - ll0];
                reps[0] = off;
                off
            } else {
                let idx = 1 + ll0 + self.bits.read(1) as usize;
                let off = if idx == 3 { reps[0].wrapping_sub(1) } else { *reps.get(idx)? };
                if off == 0 {
                    return None;
                }
                if idx != 1 {
                    reps[2] = reps[1];
                }
                reps[1] = reps[0];
                reps[0] = off;
                off
            }
        };
        let ml = *ML_BASE.get(mlc)? + self.bits.read(*ML_BITS.get(mlc)? as u32);
        let ll = *LL_BASE.get(llc)? + self.bits.read(*LL_BITS.get(llc)? as u32);
        if !last {
            self.states[0] = fse::baseline(lle) + self.bits.read(fse::nb_bits(lle));
            self.states[2] = fse::baseline(mle) + self.bits.read(fse::nb_bits(mle));
            self.states[1] = fse::baseline(ofe) + self.bits.read(fse::nb_bits(ofe));
        }
        if self.bits.overflowed() {
            return None;
        }
        Some(Seq { ll, ml, off })
    }

    /// Whether the bitstream was consumed exactly (libzstd's end check).
    pub fn finished(&self) -> bool {
        self.bits.finished()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baselines_match_the_rfc() {
        assert_eq!(
            &LL_BASE[15..],
            &[15, 16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
        );
        assert_eq!(
            &ML_BASE[31..],
            &[
                34, 35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771,
                65539
            ]
        );
    }
}
