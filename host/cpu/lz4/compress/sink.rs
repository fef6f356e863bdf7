//! Writes LZ4 sequences into the caller's output buffer, with bounds checks (an error, never a
//! panic, if the buffer were too small; [`super::compress`] checks the bound first), and stitches
//! the blocks of a chunk's segments into one block (the segment rule of the module documentation).
use crate::Status;

/// The output buffer, the bytes written so far, and the segment being encoded.
pub(super) struct Sink<'a> {
    buf: &'a mut [u8],
    pos: usize,
    /// The whole chunk: literals are copied from it.
    input: &'a [u8],
    /// Where the segment being encoded starts in the chunk (its positions are relative to it).
    base: usize,
    /// Whether that segment is the chunk's last: its final literal-only sequence ends the block.
    last: bool,
    /// Start, in the chunk, of the literal run earlier segments' final sequences passed on.
    carry: Option<usize>,
}

impl<'a> Sink<'a> {
    /// A sink for the block of `input` (encoded whole until [`Self::segment`] says otherwise).
    pub(super) fn new(buf: &'a mut [u8], input: &'a [u8]) -> Self {
        Sink { buf, pos: 0, input, base: 0, last: true, carry: None }
    }

    /// The sequences that follow are those of the segment at byte `base` of the chunk, encoded
    /// as a chunk of its own; `last`: it is the chunk's last segment.
    pub(super) fn segment(&mut self, base: usize, last: bool) {
        self.base = base;
        self.last = last;
    }

    /// Bytes written.
    pub(super) fn len(&self) -> usize {
        self.pos
    }

    #[inline(always)]
    fn byte(&mut self, b: u8) -> Result<(), Status> {
        *self.buf.get_mut(self.pos).ok_or(Status::Internal)? = b;
        self.pos += 1;
        Ok(())
    }

    /// LZ4 length continuation for `n` (the part above the nibble's 15): `n / 255` bytes 0xFF,
    /// then `n % 255`.
    #[inline(always)]
    fn length(&mut self, n: usize) -> Result<(), Status> {
        let ff = n / 255;
        self.buf.get_mut(self.pos..self.pos + ff).ok_or(Status::Internal)?.fill(0xFF);
        self.pos += ff;
        self.byte((n % 255) as u8)
    }

    /// One sequence of the segment: its literals `lit_start..lit_end` (segment bytes), then a
    /// match of `match_len` bytes at `offset` bytes back, or, when `match_len` is 0, the
    /// segment's final literal-only sequence (match nibble 0xC, nvCOMP's token). The literal run
    /// starts where earlier segments' final literals start, if they passed one on; a final
    /// sequence of any segment but the last is not written but passed on.
    #[inline(always)]
    pub(super) fn sequence(
        &mut self,
        lit_start: usize,
        lit_end: usize,
        match_len: usize,
        offset: usize,
    ) -> Result<(), Status> {
        let lit_start = match self.carry {
            Some(start) => {
                self.carry = None;
                start
            }
            None => self.base + lit_start,
        };
        let lit_end = self.base + lit_end;
        if match_len == 0 && !self.last {
            self.carry = Some(lit_start);
            return Ok(());
        }
        let data = self.input;
        let lit = lit_end - lit_start;
        // Most sequences: both lengths in the token, the literals copied as a fixed 16 bytes.
        if lit < 15 && (4..19).contains(&match_len) {
            if let (Some(src), Some(dst)) =
                (data.get(lit_start..lit_start + 16), self.buf.get_mut(self.pos..self.pos + 19))
            {
                dst[0] = (lit << 4) as u8 | (match_len - 4) as u8;
                dst[1..17].copy_from_slice(src);
                dst[1 + lit..3 + lit].copy_from_slice(&(offset as u16).to_le_bytes());
                self.pos += 3 + lit;
                return Ok(());
            }
        }
        let lh = lit.min(15) as u8;
        let mh = if match_len == 0 { 0xC } else { (match_len - 4).min(15) as u8 };
        self.byte((lh << 4) | mh)?;
        if lit >= 15 {
            self.length(lit - 15)?;
        }
        // Short literal runs: copy a fixed 16 bytes when both buffers have them (the bytes past
        // the run are overwritten by what follows or lie beyond the block's end).
        match (data.get(lit_start..lit_start + 16), self.buf.get_mut(self.pos..self.pos + 16)) {
            (Some(src), Some(dst)) if lit <= 16 => dst.copy_from_slice(src),
            _ => self
                .buf
                .get_mut(self.pos..self.pos + lit)
                .ok_or(Status::Internal)?
                .copy_from_slice(&data[lit_start..lit_end]),
        }
        self.pos += lit;
        if match_len > 0 {
            let dst = self.buf.get_mut(self.pos..self.pos + 2).ok_or(Status::Internal)?;
            dst.copy_from_slice(&(offset as u16).to_le_bytes());
            self.pos += 2;
            if match_len >= 19 {
                self.length(match_len - 19)?;
            }
        }
        Ok(())
    }
}
