//! The chunk: its 8-byte header, the raw fallback, and the asymmetric block sequence.
use super::block::{self, Layout, BLOCK_BYTES};
use super::{select, symmetric};
use crate::algorithm::cascaded::{CascadedMode, CascadedOptions};
use crate::types::DataType;
use crate::Status;
use std::ops::Range;

/// Bytes of the chunk header.
pub const HEADER_BYTES: usize = 8;

/// A parsed chunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkHeader {
    /// The element type (byte 3 minus 0x80): one of the 8 integer types.
    pub data_type: DataType,
    /// Byte 2: 0 asymmetric, 1 symmetric.
    pub mode: CascadedMode,
    /// Uncompressed bytes of the chunk.
    pub uncompressed_bytes: usize,
    /// Whether the chunk is stored raw: an asymmetric chunk at least `8 + roundup4(n)` long.
    pub raw: bool,
}

impl ChunkHeader {
    /// Parses and checks the header of `chunk` (the whole compressed chunk: its length decides
    /// the raw fallback).
    pub fn parse(chunk: &[u8]) -> Result<ChunkHeader, Status> {
        let h = chunk.get(..HEADER_BYTES).ok_or(Status::CannotDecompress)?;
        if h[0] != 0 || h[1] != 0 || h[3] & 0x80 == 0 || h[3] & 0x7f > 7 {
            return Err(Status::CannotDecompress);
        }
        let mode = match h[2] {
            0 => CascadedMode::Asymmetric,
            1 => CascadedMode::Symmetric,
            _ => return Err(Status::CannotDecompress),
        };
        let data_type = DataType::from_raw(u32::from(h[3] & 0x7f)).ok_or(Status::CannotDecompress)?;
        let uncompressed_bytes = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        // Symmetric chunks may be longer than the raw fallback (nvCOMP wrote 26 bytes for one
        // 8-byte element), so the length rule applies to asymmetric chunks only.
        let raw = mode == CascadedMode::Asymmetric
            && chunk.len() >= CascadedOptions::max_compressed_chunk_size(uncompressed_bytes);
        Ok(ChunkHeader { data_type, mode, uncompressed_bytes, raw })
    }

    /// The 8 header bytes.
    pub fn bytes(data_type: DataType, mode: CascadedMode, n: usize) -> [u8; 8] {
        let mut h = [0u8; 8];
        h[2] = (mode == CascadedMode::Symmetric) as u8;
        h[3] = 0x80 | data_type as u8;
        h[4..8].copy_from_slice(&(n as u32).to_le_bytes());
        h
    }
}

fn read_elem(b: &[u8], width: usize) -> u64 {
    let mut w = [0u8; 8];
    w[..width].copy_from_slice(&b[..width]);
    u64::from_le_bytes(w)
}

/// Writes the raw fallback of `input`: header, the bytes, zeros up to a multiple of 4.
fn write_raw(input: &[u8], data_type: DataType, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&ChunkHeader::bytes(data_type, CascadedMode::Asymmetric, input.len()));
    out.extend_from_slice(input);
    out.resize(CascadedOptions::max_compressed_chunk_size(input.len()), 0);
}

/// Compresses one chunk into a new vector (see [`super::compress`]).
pub fn compress_to_vec(input: &[u8], opts: &CascadedOptions) -> Result<Vec<u8>, Status> {
    let width = CascadedOptions::width_of(opts.data_type)?;
    // nvCOMP refuses fine-grained flags without FOR (status 11), and symmetric mode is not written.
    if opts.mode != CascadedMode::Asymmetric || !opts.frame_of_reference {
        return Err(Status::NotSupported);
    }
    if input.len() > CascadedOptions::MAX_CHUNK_SIZE {
        return Err(Status::ChunkSizeTooLarge);
    }
    let n = input.len();
    let raw_size = CascadedOptions::max_compressed_chunk_size(n);
    let mut out = Vec::with_capacity(raw_size);
    if !n.is_multiple_of(width) {
        write_raw(input, opts.data_type, &mut out);
        return Ok(out);
    }
    out.extend_from_slice(&ChunkHeader::bytes(opts.data_type, CascadedMode::Asymmetric, n));
    let signed = CascadedOptions::is_signed(opts.data_type);
    let candidates = select::candidates(opts);
    let mut values = Vec::with_capacity(BLOCK_BYTES);
    for blk in input.chunks(BLOCK_BYTES) {
        values.clear();
        values.extend(blk.chunks_exact(width).map(|e| read_elem(e, width)));
        match select::best(&values, width, signed, &candidates) {
            Some(e) if out.len() + e.size() < raw_size => e.write(&mut out, width),
            _ => {
                write_raw(input, opts.data_type, &mut out);
                return Ok(out);
            }
        }
    }
    if out.len() >= raw_size {
        write_raw(input, opts.data_type, &mut out);
    }
    Ok(out)
}

/// Elements of block `i` of a chunk of `n` bytes (`n` a multiple of `width`).
fn block_elements(n: usize, i: usize, width: usize) -> usize {
    (n - i * BLOCK_BYTES).min(BLOCK_BYTES) / width
}

/// Decompresses one chunk (see [`super::decompress`]).
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, Status> {
    let h = ChunkHeader::parse(input)?;
    let n = h.uncompressed_bytes;
    let out = output.get_mut(..n).ok_or(Status::CannotDecompress)?;
    if h.raw {
        out.copy_from_slice(&input[HEADER_BYTES..HEADER_BYTES + n]);
        return Ok(n);
    }
    let width = h.data_type.size();
    if n % width != 0 {
        return Err(Status::CannotDecompress);
    }
    if h.mode == CascadedMode::Symmetric {
        symmetric::decode(&input[HEADER_BYTES..], width, out)?;
        return Ok(n);
    }
    let mut p = HEADER_BYTES;
    let mut scratch = block::Scratch::default();
    for (i, dst) in out.chunks_mut(BLOCK_BYTES).enumerate() {
        p += block::decode_into(&input[p..], width, block_elements(n, i, width), &mut scratch)?;
        match width {
            1 => store::<1>(&scratch.values, dst),
            2 => store::<2>(&scratch.values, dst),
            4 => store::<4>(&scratch.values, dst),
            _ => store::<8>(&scratch.values, dst),
        }
    }
    if p != input.len() {
        return Err(Status::CannotDecompress);
    }
    Ok(n)
}

/// Writes `values` as `W`-byte little-endian elements (a fixed width, so that each element is
/// one store rather than a copy of run-time length).
fn store<const W: usize>(values: &[u64], dst: &mut [u8]) {
    for (d, v) in dst.chunks_exact_mut(W).zip(values) {
        d.copy_from_slice(&v.to_le_bytes()[..W]);
    }
}

/// The blocks of an asymmetric, non-raw chunk: each block's offset in the chunk and its parsed
/// layout (no value is decoded). For tests and for kernels that assign blocks to thread groups.
pub fn blocks(input: &[u8]) -> Result<Vec<(usize, Layout)>, Status> {
    let h = ChunkHeader::parse(input)?;
    let width = h.data_type.size();
    if h.raw || h.mode != CascadedMode::Asymmetric || h.uncompressed_bytes % width != 0 {
        return Err(Status::CannotDecompress);
    }
    let mut p = HEADER_BYTES;
    let mut v = Vec::new();
    for i in 0..h.uncompressed_bytes.div_ceil(BLOCK_BYTES) {
        let layout = block::parse(&input[p..], width, block_elements(h.uncompressed_bytes, i, width))?;
        let size = layout.size;
        v.push((p, layout));
        p += size;
    }
    if p != input.len() {
        return Err(Status::CannotDecompress);
    }
    Ok(v)
}

/// Byte ranges of a chunk that no decoder reads (see [`Layout::padding`]; for a raw chunk, the
/// bytes after the data). Zero in gpucomp's chunks; stale data in nvCOMP's.
pub fn padding(input: &[u8]) -> Result<Vec<Range<usize>>, Status> {
    let h = ChunkHeader::parse(input)?;
    if h.raw {
        #[allow(clippy::single_range_in_vec_init)]
        return Ok(vec![HEADER_BYTES + h.uncompressed_bytes..input.len()]);
    }
    let width = h.data_type.size();
    Ok(blocks(input)?
        .into_iter()
        .flat_map(|(at, l)| l.padding(width).into_iter().map(move |r| at + r.start..at + r.end))
        .collect())
}
