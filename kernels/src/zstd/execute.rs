//! Sequence execution (RFC 8878 §3.1.1.4): literals, then a match copied from earlier output
//! of the same frame (earlier blocks included), which may overlap the bytes it produces.
//!
//! With `WRITE == false` (the size query) nothing is written: literals are decoded and dropped,
//! matches are checked and counted, so a frame's verdict and size are the decoder's.
use super::literals::{HufTable, Literals};
use super::sequences::Seq;

/// Where a block writes: the output, the start of the current frame's bytes in it (matches
/// reach back at most there, as libzstd's one-pass decoding allows) and the block's limit.
pub struct Out<'a, const WRITE: bool> {
    /// The chunk's output (empty when counting).
    pub buf: &'a mut [u8],
    /// The output's capacity: `buf.len()`, or the counting pass's bound.
    pub cap: usize,
    /// Start of the current frame's output.
    pub frame_start: usize,
    /// Next byte to write.
    pub pos: usize,
    /// End of what the block may write: min(capacity, block start + block maximum).
    pub limit: usize,
}

impl<const WRITE: bool> Out<'_, WRITE> {
    /// Writes `n` literals.
    #[inline(always)]
    fn literals(&mut self, n: usize, lits: &mut Literals, huf: &HufTable) -> Option<()> {
        if n > lits.remaining() || n > self.limit - self.pos {
            return None;
        }
        if WRITE {
            lits.take(self.buf.get_mut(self.pos..self.pos + n)?, huf)?;
        } else {
            lits.skip(n, huf)?;
        }
        self.pos += n;
        Some(())
    }

    /// Executes one sequence; `None` where libzstd refuses it (output past the limit, more
    /// literals than left, an offset before the frame's start).
    pub fn sequence(&mut self, s: Seq, lits: &mut Literals, huf: &HufTable) -> Option<()> {
        let (ll, ml) = (s.ll as usize, s.ml as usize);
        if ll + ml > self.limit - self.pos {
            return None;
        }
        self.literals(ll, lits, huf)?;
        if s.off == 0 || s.off > (self.pos - self.frame_start) as u64 {
            return None;
        }
        let off = s.off as usize;
        let (start, end) = (self.pos, self.pos + ml);
        if WRITE {
            // Byte by byte, so that an overlapping match (off < ml) repeats the bytes it writes.
            let window = self.buf.get_mut(start - off..end)?;
            for i in off..window.len() {
                *window.get_mut(i)? = *window.get(i - off)?;
            }
        }
        self.pos = end;
        Some(())
    }

    /// Copies the literals left after the last sequence and checks the literal streams' ends.
    pub fn last_literals(&mut self, lits: &mut Literals, huf: &HufTable) -> Option<()> {
        self.literals(lits.remaining(), lits, huf)?;
        lits.finish()
    }
}
