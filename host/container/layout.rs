//! Writing NVCOMP_NATIVE streams exactly as nvCOMP 6's GPU writer does (`FORMATS.md` A.1–A.5).
//!
//! A [`NativeLayout`] is computed from the header fields and the compressed chunk sizes; it knows
//! where everything goes, so a GPU path that compressed its chunks into device memory can build
//! the header on the host ([`NativeLayout::header_bytes`]), copy each chunk to
//! [`NativeLayout::chunk_range`] and zero [`NativeLayout::padding_ranges`], while a CPU path calls
//! [`NativeLayout::assemble`] or [`write_native`].
//!
//! The GPU writer's rules: version 6.0, every pad byte zero, tables at `roundup8(56 + spec size)`
//! (offsets, sizes, then — with checksums — the compressed and uncompressed `u32` checksum
//! tables), data at `comp_data_offset = roundup(tables end, A)` with `A =`
//! [`Format::chunk_alignment`] (16 for ANS, else 8), chunks in order at
//! `offset[0] = 0, offset[i] = roundup(offset[i-1] + size[i-1], A)`, zero padding between chunks,
//! `comp_data_size = offset[n-1] + size[n-1]` (no trailing pad), file length
//! `comp_data_offset + comp_data_size`.
use super::checksum::{self, ChecksumTables, HEADER_CHECKSUM_OFFSET};
use super::native::{
    round_up, table_entry_size, tables_offset, COMMON_HEADER_SIZE, NATIVE_MAGIC, NATIVE_MAJOR_VERSION,
    NATIVE_MINOR_VERSION,
};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result};
use crate::types::Format;
use std::ops::Range;

/// Where every part of an NVCOMP_NATIVE stream goes, for given header fields and chunk sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeLayout {
    format: Format,
    spec_header: Vec<u8>,
    uncomp_chunk_size: u64,
    decomp_data_size: u64,
    checksums: bool,
    offsets: Vec<usize>,
    sizes: Vec<usize>,
    tables_offset: usize,
    comp_data_offset: usize,
    comp_data_size: usize,
}

/// Offset of the compressed-data region for `num_chunks` chunks of `format`, with or without
/// checksum tables (known before the chunk sizes are: a GPU path can allocate with it).
pub fn native_data_offset(format: Format, num_chunks: usize, checksums: bool) -> Result<usize> {
    let end = num_chunks
        .checked_mul(table_entry_size(checksums))
        .and_then(|t| t.checked_add(tables_offset(format)))
        .and_then(|e| round_up(e, format.chunk_alignment()))
        .filter(|&d| u32::try_from(d).is_ok())
        .ok_or_else(|| Error::invalid(format!("{num_chunks} chunks: the tables do not fit a u32 data offset")))?;
    Ok(end)
}

/// The header fields that do not depend on the compressed chunk sizes.
struct FixedFields<'a> {
    format: Format,
    spec_header: &'a [u8],
    uncomp_chunk_size: u64,
    decomp_data_size: u64,
    num_chunks: usize,
    comp_data_offset: usize,
    checksums: bool,
}

impl FixedFields<'_> {
    /// Writes them into `h` (zeroed, at least up to the end of the spec header).
    fn write(&self, h: &mut [u8]) {
        let put = |h: &mut [u8], at: usize, v: &[u8]| h[at..at + v.len()].copy_from_slice(v);
        put(h, 0x00, &NATIVE_MAGIC.to_le_bytes());
        h[0x04] = NATIVE_MAJOR_VERSION;
        h[0x05] = NATIVE_MINOR_VERSION;
        h[0x06] = self.format.to_raw();
        put(h, 0x10, &self.decomp_data_size.to_le_bytes());
        put(h, 0x18, &(self.num_chunks as u64).to_le_bytes());
        put(h, 0x20, &self.uncomp_chunk_size.to_le_bytes());
        put(h, 0x28, &(self.comp_data_offset as u32).to_le_bytes());
        h[0x34] = 1;
        h[0x35] = self.checksums as u8;
        h[0x36] = self.checksums as u8;
        put(h, COMMON_HEADER_SIZE, self.spec_header);
    }
}

/// The first [`tables_offset`] bytes of the NVCOMP_NATIVE stream, without checksums, of
/// `algorithm` for `decomp_data_size` bytes in chunks of `uncomp_chunk_size` (> 0): every field
/// but the compressed-data size (0 at 0x08), which together with the chunk tables is what a
/// device assembly writes once the chunks are compressed ([`NativeLayout::write_header`] writes
/// the same bytes). Returns them and the offset of the compressed-data region.
pub fn native_header_prefix(
    algorithm: &Algorithm,
    uncomp_chunk_size: u64,
    decomp_data_size: u64,
) -> Result<(Vec<u8>, usize)> {
    if uncomp_chunk_size == 0 {
        return Err(Error::invalid("uncompressed chunk size is 0"));
    }
    let format = algorithm.format();
    let num_chunks = usize::try_from(decomp_data_size.div_ceil(uncomp_chunk_size))
        .map_err(|_| Error::invalid(format!("{decomp_data_size} bytes: too many chunks")))?;
    let comp_data_offset = native_data_offset(format, num_chunks, false)?;
    let spec_header = algorithm.spec_header();
    let mut h = vec![0u8; tables_offset(format)];
    let fixed = FixedFields {
        format,
        spec_header: &spec_header,
        uncomp_chunk_size,
        decomp_data_size,
        num_chunks,
        comp_data_offset,
        checksums: false,
    };
    fixed.write(&mut h);
    Ok((h, comp_data_offset))
}

impl NativeLayout {
    /// The layout for `format` with `spec_header` (exactly [`Format::spec_header_size`] bytes),
    /// `decomp_data_size` bytes cut into chunks of `uncomp_chunk_size` (> 0), compressed to
    /// `comp_chunk_sizes` (one per chunk: `ceil(decomp_data_size / uncomp_chunk_size)` of them),
    /// with or without checksum tables. Errors (`InvalidArgument`) on inconsistent arguments or
    /// sizes that overflow.
    pub fn new(
        format: Format,
        spec_header: &[u8],
        uncomp_chunk_size: u64,
        decomp_data_size: u64,
        comp_chunk_sizes: &[usize],
        checksums: bool,
    ) -> Result<NativeLayout> {
        if spec_header.len() != format.spec_header_size() {
            return Err(Error::invalid(format!(
                "{} spec header must be {} bytes, got {}",
                format.name(),
                format.spec_header_size(),
                spec_header.len()
            )));
        }
        if uncomp_chunk_size == 0 {
            return Err(Error::invalid("uncompressed chunk size is 0"));
        }
        let n = decomp_data_size.div_ceil(uncomp_chunk_size);
        if n != comp_chunk_sizes.len() as u64 {
            return Err(Error::invalid(format!(
                "{decomp_data_size} bytes in chunks of {uncomp_chunk_size} make {n} chunks, got {} compressed sizes",
                comp_chunk_sizes.len()
            )));
        }
        let comp_data_offset = native_data_offset(format, comp_chunk_sizes.len(), checksums)?;
        let align = format.chunk_alignment();
        let overflow = || Error::invalid("compressed chunk sizes overflow the stream size");
        let mut offsets = Vec::with_capacity(comp_chunk_sizes.len());
        let mut end = 0usize;
        for &s in comp_chunk_sizes {
            let off = round_up(end, align).ok_or_else(overflow)?;
            offsets.push(off);
            end = off.checked_add(s).ok_or_else(overflow)?;
        }
        comp_data_offset.checked_add(end).ok_or_else(overflow)?;
        Ok(NativeLayout {
            format,
            spec_header: spec_header.to_vec(),
            uncomp_chunk_size,
            decomp_data_size,
            checksums,
            offsets,
            sizes: comp_chunk_sizes.to_vec(),
            tables_offset: tables_offset(format),
            comp_data_offset,
            comp_data_size: end,
        })
    }

    /// [`new`](Self::new) with the format and spec header of `algorithm`.
    pub fn for_algorithm(
        algorithm: &Algorithm,
        uncomp_chunk_size: u64,
        decomp_data_size: u64,
        comp_chunk_sizes: &[usize],
        checksums: bool,
    ) -> Result<NativeLayout> {
        Self::new(
            algorithm.format(),
            &algorithm.spec_header(),
            uncomp_chunk_size,
            decomp_data_size,
            comp_chunk_sizes,
            checksums,
        )
    }

    /// The format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The spec header bytes.
    pub fn spec_header(&self) -> &[u8] {
        &self.spec_header
    }

    /// Number of chunks.
    pub fn num_chunks(&self) -> usize {
        self.sizes.len()
    }

    /// Uncompressed bytes per chunk.
    pub fn uncomp_chunk_size(&self) -> u64 {
        self.uncomp_chunk_size
    }

    /// Total uncompressed bytes.
    pub fn decomp_data_size(&self) -> u64 {
        self.decomp_data_size
    }

    /// Whether the stream carries checksum tables.
    pub fn has_checksums(&self) -> bool {
        self.checksums
    }

    /// Offset of the chunk tables.
    pub fn tables_offset(&self) -> usize {
        self.tables_offset
    }

    /// Offset of the compressed-data region (= length of [`header_bytes`](Self::header_bytes)).
    pub fn comp_data_offset(&self) -> usize {
        self.comp_data_offset
    }

    /// Size of the compressed-data region (ends at the last chunk's last byte).
    pub fn comp_data_size(&self) -> usize {
        self.comp_data_size
    }

    /// Length of the whole stream.
    pub fn total_size(&self) -> usize {
        self.comp_data_offset + self.comp_data_size
    }

    /// Offset of chunk `i` relative to the data region (the value stored in the table).
    pub fn chunk_offset(&self, i: usize) -> Option<usize> {
        self.offsets.get(i).copied()
    }

    /// Compressed size of chunk `i`.
    pub fn chunk_size(&self, i: usize) -> Option<usize> {
        self.sizes.get(i).copied()
    }

    /// Absolute position of chunk `i` in the stream (`comp_data_offset + chunk_offset(i)`).
    pub fn chunk_position(&self, i: usize) -> Option<usize> {
        Some(self.comp_data_offset + self.chunk_offset(i)?)
    }

    /// Absolute byte range chunk `i` occupies in the stream.
    pub fn chunk_range(&self, i: usize) -> Option<Range<usize>> {
        let start = self.comp_data_offset + self.chunk_offset(i)?;
        Some(start..start + self.chunk_size(i)?)
    }

    /// The absolute range of the zero padding after chunk `i`, up to the next chunk (empty after
    /// the last chunk and where the next one follows at once).
    pub fn padding_after(&self, i: usize) -> Option<Range<usize>> {
        let end = self.chunk_range(i)?.end;
        Some(end..self.chunk_range(i + 1).map_or(end, |next| next.start))
    }

    /// The absolute ranges of the zero padding between chunks (the header's pads are written by
    /// [`write_header`](Self::write_header)).
    pub fn padding_ranges(&self) -> Vec<Range<usize>> {
        (0..self.num_chunks()).filter_map(|i| self.padding_after(i)).filter(|r| !r.is_empty()).collect()
    }

    fn check_tables(&self, tables: Option<&ChecksumTables>) -> Result<()> {
        match (self.checksums, tables) {
            (false, None) => Ok(()),
            (false, Some(_)) => Err(Error::invalid("checksum tables given for a layout without checksums")),
            (true, None) => Err(Error::invalid("the layout has checksums but no tables were given")),
            (true, Some(t)) if t.compressed.len() != self.num_chunks() || t.uncompressed.len() != self.num_chunks() => {
                Err(Error::invalid(format!(
                    "checksum tables have {}/{} entries, expected {}",
                    t.compressed.len(),
                    t.uncompressed.len(),
                    self.num_chunks()
                )))
            }
            (true, Some(_)) => Ok(()),
        }
    }

    /// Write the header, spec header, tables and their zero pads into `out[..comp_data_offset]`
    /// (`out` may be just that long). With checksums, `tables` must hold one entry per chunk in
    /// each table, and the header word at 0x30 is computed from the written bytes.
    pub fn write_header(&self, out: &mut [u8], tables: Option<&ChecksumTables>) -> Result<()> {
        self.check_tables(tables)?;
        let d = self.comp_data_offset;
        let Some(h) = out.get_mut(..d) else {
            return Err(Error::OutputTooSmall { needed: d, available: out.len() });
        };
        h.fill(0);
        let fixed = FixedFields {
            format: self.format,
            spec_header: &self.spec_header,
            uncomp_chunk_size: self.uncomp_chunk_size,
            decomp_data_size: self.decomp_data_size,
            num_chunks: self.num_chunks(),
            comp_data_offset: d,
            checksums: self.checksums,
        };
        fixed.write(h);
        let put = |h: &mut [u8], at: usize, v: &[u8]| h[at..at + v.len()].copy_from_slice(v);
        put(h, 0x08, &(self.comp_data_size as u64).to_le_bytes());
        let n = self.num_chunks();
        let t = self.tables_offset;
        for i in 0..n {
            put(h, t + 8 * i, &(self.offsets[i] as u64).to_le_bytes());
            put(h, t + 8 * (n + i), &(self.sizes[i] as u64).to_le_bytes());
        }
        if let Some(tables) = tables {
            for i in 0..n {
                put(h, t + 16 * n + 4 * i, &tables.compressed[i].to_le_bytes());
                put(h, t + 20 * n + 4 * i, &tables.uncompressed[i].to_le_bytes());
            }
            let word = checksum::header_checksum(h);
            put(h, HEADER_CHECKSUM_OFFSET, &word.to_le_bytes());
        }
        Ok(())
    }

    /// The header, spec header and tables: the stream's first `comp_data_offset` bytes.
    pub fn header_bytes(&self, tables: Option<&ChecksumTables>) -> Result<Vec<u8>> {
        let mut h = vec![0u8; self.comp_data_offset];
        self.write_header(&mut h, tables)?;
        Ok(h)
    }

    /// Copy chunk `i`'s payload (exactly its size) to its place in `out` (a buffer of at least
    /// [`total_size`](Self::total_size) bytes) and zero the padding that follows it.
    pub fn write_chunk(&self, out: &mut [u8], i: usize, payload: &[u8]) -> Result<()> {
        let (Some(range), Some(padding), Some(size)) = (self.chunk_range(i), self.padding_after(i), self.chunk_size(i))
        else {
            return Err(Error::invalid(format!("chunk {i} of {}", self.num_chunks())));
        };
        if payload.len() != size {
            return Err(Error::invalid(format!(
                "chunk {i}: payload is {} bytes, the layout says {size}",
                payload.len()
            )));
        }
        let pad_end = padding.end;
        let available = out.len();
        let Some(dst) = out.get_mut(range.start..pad_end) else {
            return Err(Error::OutputTooSmall { needed: pad_end, available });
        };
        let (data, pad) = dst.split_at_mut(size);
        data.copy_from_slice(payload);
        pad.fill(0);
        Ok(())
    }

    /// The compressed-chunk checksums of the chunks as placed in `stream` (each at its absolute
    /// position; `stream` at least [`total_size`](Self::total_size) bytes).
    pub fn compressed_checksums(&self, stream: &[u8]) -> Result<Vec<u32>> {
        (0..self.num_chunks())
            .map(|i| {
                let r = self.chunk_range(i).unwrap_or(0..0);
                let data =
                    stream.get(r.clone()).ok_or(Error::OutputTooSmall { needed: r.end, available: stream.len() })?;
                Ok(checksum::chunk_checksum(data, r.start as u64))
            })
            .collect()
    }

    /// The whole stream from the chunk payloads (one per chunk, of the layout's sizes). With
    /// checksums, `uncompressed_checksums` (one per chunk) is required; the compressed-chunk
    /// checksums and the header word are computed.
    pub fn assemble(&self, payloads: &[&[u8]], uncompressed_checksums: Option<&[u32]>) -> Result<Vec<u8>> {
        if payloads.len() != self.num_chunks() {
            return Err(Error::invalid(format!("{} payloads for {} chunks", payloads.len(), self.num_chunks())));
        }
        let mut out = vec![0u8; self.total_size()];
        for (i, p) in payloads.iter().enumerate() {
            self.write_chunk(&mut out, i, p)?;
        }
        let tables = match (self.checksums, uncompressed_checksums) {
            (true, Some(u)) => {
                Some(ChecksumTables { compressed: self.compressed_checksums(&out)?, uncompressed: u.to_vec() })
            }
            (true, None) => {
                return Err(Error::invalid("the layout has checksums: uncompressed checksums are required"))
            }
            (false, Some(_)) => {
                return Err(Error::invalid("uncompressed checksums given for a layout without checksums"))
            }
            (false, None) => None,
        };
        self.write_header(&mut out, tables.as_ref())?;
        Ok(out)
    }
}

/// Whether and how [`write_native`] writes checksums.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteChecksums<'a> {
    /// No checksum tables, header word 0.
    #[default]
    None,
    /// Checksums computed from the chunk payloads and from this uncompressed input (which must be
    /// `decomp_data_size` bytes long).
    FromInput(&'a [u8]),
    /// Checksums computed from the chunk payloads; the uncompressed-chunk checksums are these
    /// (one per chunk; e.g. computed on a GPU).
    Uncompressed(&'a [u32]),
}

/// Write an NVCOMP_NATIVE stream, byte for byte as nvCOMP 6's GPU writer, from the format, spec
/// header, chunking and the compressed chunk payloads (in chunk order).
pub fn write_native(
    format: Format,
    spec_header: &[u8],
    uncomp_chunk_size: u64,
    decomp_data_size: u64,
    payloads: &[&[u8]],
    checksums: WriteChecksums<'_>,
) -> Result<Vec<u8>> {
    let sizes: Vec<usize> = payloads.iter().map(|p| p.len()).collect();
    let with = !matches!(checksums, WriteChecksums::None);
    let layout = NativeLayout::new(format, spec_header, uncomp_chunk_size, decomp_data_size, &sizes, with)?;
    match checksums {
        WriteChecksums::None => layout.assemble(payloads, None),
        WriteChecksums::Uncompressed(u) => layout.assemble(payloads, Some(u)),
        WriteChecksums::FromInput(input) => {
            if input.len() as u64 != decomp_data_size {
                return Err(Error::invalid(format!(
                    "input is {} bytes, decomp_data_size is {decomp_data_size}",
                    input.len()
                )));
            }
            let cs = usize::try_from(uncomp_chunk_size).unwrap_or(usize::MAX);
            layout.assemble(payloads, Some(&ChecksumTables::uncompressed_of(input, cs)))
        }
    }
}

/// [`write_native`] for an [`Algorithm`] and the whole uncompressed `input`: its format and spec
/// header, `decomp_data_size = input.len()`, and with `checksums` the checksum tables computed
/// from `input` and the payloads.
pub fn write_native_from_input(
    algorithm: &Algorithm,
    uncomp_chunk_size: u64,
    input: &[u8],
    payloads: &[&[u8]],
    checksums: bool,
) -> Result<Vec<u8>> {
    let ck = if checksums { WriteChecksums::FromInput(input) } else { WriteChecksums::None };
    write_native(algorithm.format(), &algorithm.spec_header(), uncomp_chunk_size, input.len() as u64, payloads, ck)
}
