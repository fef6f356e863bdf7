//! nvCOMP 6's LZ4 bitshuffle pre-pass (FORMATS.md C.1), forward and inverse.
//!
//! A chunk is cut into sub-chunks of [`SUB_CHUNK_BYTES`] bytes (the last may be shorter), each
//! transposed on its own and written in place (sizes unchanged). In a sub-chunk of `n` elements
//! (`w`-byte little-endian values, `w` = 1, 2 or 4) the first `m = 8·⌊n/8⌋` elements become `8·w`
//! bit planes of `m/8` bytes each; in a plane, element `j` is bit `j & 7` of byte `j >> 3`.
//! [`BitshuffleMode::MsbFirst`] writes the plane of bit `8w−1` first and bit 0 last,
//! [`BitshuffleMode::LsbFirst`] bit 0 first. The remaining `n − m` elements, and any tail bytes
//! that do not form a whole element, are copied unchanged after the planes.
//! [`BitshuffleMode::None`] copies.
use crate::algorithm::BITSHUFFLE_SUB_CHUNK_BYTES as SUB_CHUNK_BYTES;
use crate::cpu::bits::transpose8;
use crate::{BitshuffleMode, Status};

/// Output slot of bit plane `bit` among `planes` planes.
#[inline(always)]
fn plane_slot(bit: usize, planes: usize, msb_first: bool) -> usize {
    if msb_first {
        planes - 1 - bit
    } else {
        bit
    }
}

fn check(input: &[u8], output: &[u8], w: usize) -> Result<(), Status> {
    if !matches!(w, 1 | 2 | 4) {
        return Err(Status::NotSupported);
    }
    if input.len() != output.len() {
        return Err(Status::InvalidValue);
    }
    Ok(())
}

/// Forward transpose of one sub-chunk (`blk.len() == out.len() <= SUB_CHUNK_BYTES`).
fn forward_sub(blk: &[u8], out: &mut [u8], w: usize, msb_first: bool) {
    let m = (blk.len() / w) & !7;
    let plane_bytes = m / 8;
    let planes = 8 * w;
    for (g, group) in blk[..m * w].chunks_exact(8 * w).enumerate() {
        for k in 0..w {
            let mut x = 0u64;
            for j in 0..8 {
                x |= (group[j * w + k] as u64) << (8 * j);
            }
            let t = transpose8(x).to_le_bytes();
            for (b, &byte) in t.iter().enumerate() {
                out[plane_slot(8 * k + b, planes, msb_first) * plane_bytes + g] = byte;
            }
        }
    }
    out[m * w..].copy_from_slice(&blk[m * w..]);
}

/// Inverse transpose of one sub-chunk.
fn inverse_sub(blk: &[u8], out: &mut [u8], w: usize, msb_first: bool) {
    let m = (blk.len() / w) & !7;
    let plane_bytes = m / 8;
    let planes = 8 * w;
    for (g, group) in out[..m * w].chunks_exact_mut(8 * w).enumerate() {
        for k in 0..w {
            let mut t = [0u8; 8];
            for (b, byte) in t.iter_mut().enumerate() {
                *byte = blk[plane_slot(8 * k + b, planes, msb_first) * plane_bytes + g];
            }
            let x = transpose8(u64::from_le_bytes(t));
            for j in 0..8 {
                group[j * w + k] = (x >> (8 * j)) as u8;
            }
        }
    }
    out[m * w..].copy_from_slice(&blk[m * w..]);
}

/// Applies the bitshuffle pre-pass to `input` (one chunk), writing `output` (same length).
/// Errors: `NotSupported` for an element width other than 1, 2 or 4, `InvalidValue` when the
/// lengths differ.
pub fn shuffle(input: &[u8], output: &mut [u8], element_width: usize, mode: BitshuffleMode) -> Result<(), Status> {
    per_sub_chunk(input, output, element_width, mode, forward_sub)
}

/// Undoes [`shuffle`]: `output` receives the chunk whose shuffled form is `input`.
/// Errors as for [`shuffle`].
pub fn unshuffle(input: &[u8], output: &mut [u8], element_width: usize, mode: BitshuffleMode) -> Result<(), Status> {
    per_sub_chunk(input, output, element_width, mode, inverse_sub)
}

/// Runs `sub(block, out, w, msb_first)` on every sub-chunk (`BitshuffleMode::None` copies).
fn per_sub_chunk(
    input: &[u8],
    output: &mut [u8],
    w: usize,
    mode: BitshuffleMode,
    sub: fn(&[u8], &mut [u8], usize, bool),
) -> Result<(), Status> {
    check(input, output, w)?;
    let msb_first = match mode {
        BitshuffleMode::None => {
            output.copy_from_slice(input);
            return Ok(());
        }
        BitshuffleMode::MsbFirst => true,
        BitshuffleMode::LsbFirst => false,
    };
    for (blk, out) in input.chunks(SUB_CHUNK_BYTES).zip(output.chunks_mut(SUB_CHUNK_BYTES)) {
        sub(blk, out, w, msb_first);
    }
    Ok(())
}

/// [`shuffle`] into a new vector.
pub fn shuffle_to_vec(input: &[u8], element_width: usize, mode: BitshuffleMode) -> Result<Vec<u8>, Status> {
    let mut out = vec![0u8; input.len()];
    shuffle(input, &mut out, element_width, mode)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// Straightforward transcription of FORMATS.md C.1 (the model's forward pass).
    fn naive_shuffle(data: &[u8], w: usize, msb_first: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(data.len());
        for blk in data.chunks(8192) {
            let n = blk.len() / w;
            let m = n - n % 8;
            let e: Vec<u32> = (0..m).map(|i| (0..w).map(|j| (blk[i * w + j] as u32) << (8 * j)).sum()).collect();
            let planes: Vec<usize> = if msb_first { (0..8 * w).rev().collect() } else { (0..8 * w).collect() };
            for p in planes {
                for b in (0..m).step_by(8) {
                    out.push((0..8).map(|j| (((e[b + j] >> p) & 1) << j) as u8).sum());
                }
            }
            out.extend_from_slice(&blk[m * w..]);
        }
        out
    }

    fn unshuffle_to_vec(input: &[u8], w: usize, mode: BitshuffleMode) -> Vec<u8> {
        let mut out = vec![0u8; input.len()];
        unshuffle(input, &mut out, w, mode).unwrap();
        out
    }

    #[test]
    fn bitshuffle_matches_the_reference_and_inverts() {
        let mut rng = Rng::here();
        let mut lens: Vec<usize> = (0..70).collect();
        lens.extend([127, 128, 129, 8190, 8191, 8192, 8193, 8199, 16384, 20_001, 65536, 65537]);
        for n in lens {
            let data = rng.bytes(n);
            for w in [1, 2, 4] {
                for (mode, msb) in [(BitshuffleMode::MsbFirst, true), (BitshuffleMode::LsbFirst, false)] {
                    let s = shuffle_to_vec(&data, w, mode).unwrap();
                    assert!(s == naive_shuffle(&data, w, msb), "n={n} w={w} {mode:?}");
                    assert!(unshuffle_to_vec(&s, w, mode) == data, "n={n} w={w} {mode:?}");
                }
                assert_eq!(shuffle_to_vec(&data, w, BitshuffleMode::None).unwrap(), data);
            }
        }
        // A known value: 8 bytes 0x01,0,0,0,0,0,0,0x80: LSB_FIRST plane 0 = element 0 → byte 0x01.
        let s = shuffle_to_vec(&[1, 0, 0, 0, 0, 0, 0, 0x80], 1, BitshuffleMode::LsbFirst).unwrap();
        assert_eq!(s, [0x01, 0, 0, 0, 0, 0, 0, 0x80]);
        let s = shuffle_to_vec(&[1, 0, 0, 0, 0, 0, 0, 0x80], 1, BitshuffleMode::MsbFirst).unwrap();
        assert_eq!(s, [0x80, 0, 0, 0, 0, 0, 0, 0x01]);
        let mut out = [0u8; 3];
        assert_eq!(shuffle(&[0; 4], &mut out, 1, BitshuffleMode::LsbFirst), Err(Status::InvalidValue));
        assert_eq!(shuffle(&[0; 3], &mut out, 3, BitshuffleMode::LsbFirst), Err(Status::NotSupported));
        assert_eq!(unshuffle(&[0; 3], &mut out, 8, BitshuffleMode::MsbFirst), Err(Status::NotSupported));
    }
}
