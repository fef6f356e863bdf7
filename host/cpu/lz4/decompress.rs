//! Safe decoder for raw LZ4 blocks (the LZ4 block format, no frame), treating its input as hostile.
//!
//! A block is a series of sequences: a token (literal count in the high nibble, match length − 4
//! in the low nibble, 15 meaning "more length bytes follow": 0xFF continuation bytes, then a
//! final byte below 255), the literals, then a 16-bit little-endian match offset and the match
//! length's extra bytes. The last sequence has literals only: the block ends right after them
//! (its token's low nibble is ignored; nvCOMP writes 0xC there).
//!
//! Guarantees on any input bytes: no panic, no out-of-bounds access, no unbounded loop (every
//! step consumes input or writes output, so work is O(input + output)). Rejected: an empty block,
//! a block ending inside a sequence or right after a match, an offset of zero, an offset reaching
//! before the start of the output, lengths that overflow, and output that does not fit. The
//! end-of-block conventions that encoders follow (last 5 bytes literals, no match starting in the
//! last 12 bytes) are not enforced, as in most decoders.
use crate::Status;

/// Why a block cannot be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecompressError {
    /// The block is empty (a valid block has at least one token).
    #[error("empty LZ4 block")]
    Empty,
    /// The block ends inside a sequence (length bytes, literals or offset), or after a match
    /// (the last sequence must be literals only).
    #[error("LZ4 block truncated at input byte {at}")]
    Truncated {
        /// Input position where more bytes were needed.
        at: usize,
    },
    /// A match offset of zero.
    #[error("LZ4 match offset 0 at input byte {at}")]
    ZeroOffset {
        /// Input position of the offset.
        at: usize,
    },
    /// A match offset reaching before the start of the output.
    #[error("LZ4 match offset {offset} reaches before the start of the output (output position {position})")]
    OffsetBeforeStart {
        /// The offset.
        offset: usize,
        /// Output bytes written when the match starts.
        position: usize,
    },
    /// A literal or match length, or the total size, does not fit in `usize`.
    #[error("LZ4 length overflows at input byte {at}")]
    LengthOverflow {
        /// Input position of the length field.
        at: usize,
    },
    /// The decoded data does not fit in the output buffer.
    #[error("LZ4 output does not fit: at least {needed} bytes needed, {capacity} available")]
    OutputTooSmall {
        /// Bytes the block decodes to, as far as it was decoded (a lower bound).
        needed: usize,
        /// Size of the output buffer.
        capacity: usize,
    },
}

impl From<DecompressError> for Status {
    fn from(_: DecompressError) -> Status {
        Status::CannotDecompress
    }
}

/// Reads a length continuation (after a nibble of 15) starting at `*ip`, adds it to `base`.
#[inline(always)]
fn read_extra_length(input: &[u8], ip: &mut usize, base: usize) -> Result<usize, DecompressError> {
    let start = *ip;
    let mut len = base;
    loop {
        let Some(&b) = input.get(*ip) else {
            return Err(DecompressError::Truncated { at: *ip });
        };
        *ip += 1;
        len = len.checked_add(b as usize).ok_or(DecompressError::LengthOverflow { at: start })?;
        if b != 255 {
            return Ok(len);
        }
    }
}

/// One parsed sequence: literals `input[lit_start..lit_start + lit_len]`, then (unless this is
/// the last sequence) a match of `match_len` bytes at distance `offset`.
struct Sequence {
    lit_start: usize,
    lit_len: usize,
    /// `None` for the last sequence.
    matched: Option<(usize, usize)>,
}

/// Parses the sequence starting at `*ip`, advancing `*ip`.
#[inline(always)]
fn next_sequence(input: &[u8], ip: &mut usize) -> Result<Sequence, DecompressError> {
    let Some(&token) = input.get(*ip) else {
        return Err(DecompressError::Truncated { at: *ip });
    };
    *ip += 1;
    let mut lit_len = (token >> 4) as usize;
    if lit_len == 15 {
        lit_len = read_extra_length(input, ip, 15)?;
    }
    let lit_start = *ip;
    if lit_len > input.len() - lit_start {
        return Err(DecompressError::Truncated { at: input.len() });
    }
    *ip = lit_start + lit_len;
    if *ip == input.len() {
        return Ok(Sequence { lit_start, lit_len, matched: None });
    }
    let Some(off) = input.get(*ip..*ip + 2) else {
        return Err(DecompressError::Truncated { at: input.len() });
    };
    let offset = u16::from_le_bytes([off[0], off[1]]) as usize;
    if offset == 0 {
        return Err(DecompressError::ZeroOffset { at: *ip });
    }
    *ip += 2;
    let mut match_len = (token & 15) as usize + 4;
    if match_len == 19 {
        match_len = read_extra_length(input, ip, 19)?;
    }
    if *ip == input.len() {
        // A block must end with a literal-only sequence.
        return Err(DecompressError::Truncated { at: *ip });
    }
    Ok(Sequence { lit_start, lit_len, matched: Some((offset, match_len)) })
}

/// Decodes the raw LZ4 block `input` into the front of `output`; returns the number of bytes
/// written. `output` may be larger than needed; its bytes after the decoded data are scratch
/// (copies run in whole 8- and 16-byte blocks where `output` has room for them).
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, DecompressError> {
    if input.is_empty() {
        return Err(DecompressError::Empty);
    }
    let len_in = input.len();
    let capacity = output.len();
    // Fast path limits: 16 literal bytes and an offset readable; 16 + 24 bytes writable.
    let safe_in = len_in.saturating_sub(16 + 2);
    let safe_out = capacity.saturating_sub(16 + 24);
    let mut ip = 0usize;
    let mut op = 0usize;
    loop {
        let Some(&token) = input.get(ip) else {
            return Err(DecompressError::Truncated { at: ip });
        };
        // Fast path: both lengths in the token (< 15 literals, match < 19), far from both ends.
        // The sequence cannot be the last one (more than its literals remain), so it has a match.
        if token < 0xF0 && token & 15 != 15 && ip < safe_in && op < safe_out {
            let lit = (token >> 4) as usize;
            output[op..op + 16].copy_from_slice(&input[ip + 1..ip + 17]);
            ip += 1 + lit;
            op += lit;
            let offset = u16::from_le_bytes([input[ip], input[ip + 1]]) as usize;
            if offset == 0 {
                return Err(DecompressError::ZeroOffset { at: ip });
            }
            if offset > op {
                return Err(DecompressError::OffsetBeforeStart { offset, position: op });
            }
            ip += 2;
            let len = (token & 15) as usize + 4;
            let src = op - offset;
            // Offsets of at least 8: three 8-byte blocks whatever the offset (each reads only
            // bytes written before it), no branch on the offset to mispredict. Shorter offsets
            // (rare) go byte by byte, which repeats the period, without a call.
            if offset >= 8 {
                for i in [0, 8, 16] {
                    output.copy_within(src + i..src + i + 8, op + i);
                }
            } else {
                for i in 0..len {
                    output[op + i] = output[src + i];
                }
            }
            op += len;
            continue;
        }
        ip += 1;
        let mut lit_len = (token >> 4) as usize;
        if lit_len == 15 {
            lit_len = read_extra_length(input, &mut ip, 15)?;
        }
        let lit_start = ip;
        if lit_len > len_in - lit_start {
            return Err(DecompressError::Truncated { at: len_in });
        }
        ip = lit_start + lit_len;
        // No overflow: `op <= capacity` and `lit_len <= len_in`, both lengths of slices.
        let lit_end = op + lit_len;
        if ip == len_in {
            // The last sequence: literals only.
            let Some(dst) = output.get_mut(op..lit_end) else {
                return Err(DecompressError::OutputTooSmall { needed: lit_end, capacity });
            };
            dst.copy_from_slice(&input[lit_start..ip]);
            return Ok(lit_end);
        }
        let Some(off) = input.get(ip..ip + 2) else {
            return Err(DecompressError::Truncated { at: len_in });
        };
        let offset = u16::from_le_bytes([off[0], off[1]]) as usize;
        if offset == 0 {
            return Err(DecompressError::ZeroOffset { at: ip });
        }
        ip += 2;
        let mut match_len = (token & 15) as usize + 4;
        if match_len == 19 {
            match_len = read_extra_length(input, &mut ip, 19)?;
        }
        if ip == len_in {
            // A block must end with a literal-only sequence.
            return Err(DecompressError::Truncated { at: ip });
        }
        if lit_end > capacity {
            return Err(DecompressError::OutputTooSmall { needed: lit_end, capacity });
        }
        copy_literals(input, lit_start, output, op, lit_len);
        op = lit_end;
        if offset > op {
            return Err(DecompressError::OffsetBeforeStart { offset, position: op });
        }
        let end = op.checked_add(match_len).ok_or(DecompressError::LengthOverflow { at: ip })?;
        if end > capacity {
            return Err(DecompressError::OutputTooSmall { needed: end, capacity });
        }
        copy_match_wide(output, op, offset, match_len);
        op = end;
    }
}

/// Copies `len` literals from `input[src..]` to `out[dst..]`. Caller guarantees both ranges fit.
/// Short runs go in whole 16-byte blocks where both sides have room (the bytes past `len` are
/// overwritten later or are scratch); long runs go through one `copy_from_slice`.
#[inline(always)]
fn copy_literals(input: &[u8], src: usize, out: &mut [u8], dst: usize, len: usize) {
    if len <= 32 && src + 32 <= input.len() && dst + 32 <= out.len() {
        out[dst..dst + 16].copy_from_slice(&input[src..src + 16]);
        if len > 16 {
            out[dst + 16..dst + 32].copy_from_slice(&input[src + 16..src + 32]);
        }
    } else {
        out[dst..dst + len].copy_from_slice(&input[src..src + len]);
    }
}

/// [`copy_match`] in whole 16-byte (offset >= 16) or 8-byte (offset >= 8) blocks where `out` has
/// room for the rounded-up length; each block then reads only bytes written before it.
#[inline(always)]
fn copy_match_wide(out: &mut [u8], dst: usize, offset: usize, len: usize) {
    let src = dst - offset;
    if len <= 64 && offset >= 8 && dst + 64 <= out.len() {
        if offset >= 16 {
            let mut i = 0;
            while i < len {
                out.copy_within(src + i..src + i + 16, dst + i);
                i += 16;
            }
        } else {
            let mut i = 0;
            while i < len {
                out.copy_within(src + i..src + i + 8, dst + i);
                i += 8;
            }
        }
        return;
    }
    copy_match(out, dst, offset, len);
}

/// Copies an LZ77 match of `len` bytes from `dst - offset` to `dst` (forward, so an overlapping
/// match repeats its pattern). Caller guarantees `1 <= offset <= dst` and `dst + len <= out.len()`.
#[inline(always)]
fn copy_match(out: &mut [u8], dst: usize, offset: usize, len: usize) {
    let src = dst - offset;
    if offset >= len {
        out.copy_within(src..src + len, dst);
        return;
    }
    if offset == 1 {
        let b = out[src];
        out[dst..dst + len].fill(b);
        return;
    }
    // Overlapping: the output from `src` on is periodic with period `offset`. Copy whole
    // periods from `src`, each step at most the distance already available, which doubles;
    // `copied` stays a multiple of `offset` until the last (partial) step.
    let mut copied = 0;
    while copied < len {
        let k = (len - copied).min(dst + copied - src);
        out.copy_within(src..src + k, dst + copied);
        copied += k;
    }
}

/// The number of bytes the raw LZ4 block `input` decodes to, parsing the whole block (and
/// checking it exactly as [`decompress`] does, except for the output size) without writing.
pub fn decompressed_size(input: &[u8]) -> Result<usize, DecompressError> {
    if input.is_empty() {
        return Err(DecompressError::Empty);
    }
    let mut ip = 0usize;
    let mut op = 0usize;
    loop {
        let seq = next_sequence(input, &mut ip)?;
        op = op.checked_add(seq.lit_len).ok_or(DecompressError::LengthOverflow { at: seq.lit_start })?;
        let Some((offset, len)) = seq.matched else {
            return Ok(op);
        };
        if offset > op {
            return Err(DecompressError::OffsetBeforeStart { offset, position: op });
        }
        op = op.checked_add(len).ok_or(DecompressError::LengthOverflow { at: ip })?;
    }
}
