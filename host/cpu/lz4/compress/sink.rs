//! Writes LZ4 sequences into the caller's output buffer, with bounds checks (an error, never a
//! panic, if the buffer were too small; [`super::compress`] checks the bound first).
use crate::Status;

/// The output buffer and the bytes written so far.
pub(super) struct Sink<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> Sink<'a> {
    pub(super) fn new(buf: &'a mut [u8]) -> Self {
        Sink { buf, pos: 0 }
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

    /// One sequence: the literals `data[lit_start..lit_end]`, then a match of `match_len` bytes
    /// at `offset` bytes back, or, when `match_len` is 0, the final literal-only sequence (match
    /// nibble 0xC, nvCOMP's token).
    #[inline(always)]
    pub(super) fn sequence(
        &mut self,
        data: &[u8],
        lit_start: usize,
        lit_end: usize,
        match_len: usize,
        offset: usize,
    ) -> Result<(), Status> {
        let lit = lit_end - lit_start;
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
