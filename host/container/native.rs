//! Reading NVCOMP_NATIVE streams (`shared/nvcomp/FORMATS.md` A.1–A.5).
use super::checksum::{self, CheckOutcome, ChecksumPolicy, ChecksumTables, HEADER_CHECKSUM_ESTABLISHED_BELOW};
use crate::algorithm::Algorithm;
use crate::error::{Error, Result, Status};
use crate::types::Format;
use std::ops::Range;

/// The magic number at offset 0 of an NVCOMP_NATIVE stream (bytes `27 13 91 52`).
pub const NATIVE_MAGIC: u32 = 0x5291_1327;

/// Size of the common header; the format's spec header follows at this offset.
pub const COMMON_HEADER_SIZE: usize = 56;

/// Major version nvCOMP 6 writes.
pub const NATIVE_MAJOR_VERSION: u8 = 6;

/// Minor version nvCOMP 6.0 writes.
pub const NATIVE_MINOR_VERSION: u8 = 0;

/// Largest uncompressed chunk size a stream may declare: nvCOMP's largest decompressible chunk
/// (LZ4, 2^32 − 1 bytes; FORMATS D.3). Larger values are rejected as invalid.
pub const MAX_UNCOMP_CHUNK_SIZE: u64 = u32::MAX as u64;

pub(crate) fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

pub(crate) fn le_u64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at.checked_add(8)?)?.try_into().ok()?))
}

/// `x` rounded up to a multiple of `a` (a power of two or any a > 0), `None` on overflow.
pub(crate) fn round_up(x: usize, a: usize) -> Option<usize> {
    if a == 0 {
        return Some(x);
    }
    x.checked_add(a - 1).map(|v| v / a * a)
}

/// Offset of the chunk tables for a format: `roundup8(56 + spec header size)`.
pub fn tables_offset(format: Format) -> usize {
    (COMMON_HEADER_SIZE + format.spec_header_size()).next_multiple_of(8)
}

/// Bytes of table per chunk: two `u64` (offset, size), plus two `u32` checksums when present.
pub fn table_entry_size(checksums: bool) -> usize {
    if checksums {
        24
    } else {
        16
    }
}

/// The 56-byte common header, field by field (FORMATS A.1), as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeHeader {
    /// 0x04: major version (nvCOMP 6 writes 6; not checked).
    pub major_version: u8,
    /// 0x05: minor version (0; not checked).
    pub minor_version: u8,
    /// 0x06: `nvcompFormatType_t` byte.
    pub format_id: u8,
    /// 0x07: pad byte (GPU writer 0, CPU writer unwritten).
    pub pad_07: u8,
    /// 0x08: bytes of the compressed-data region (GPU: end of the last chunk; CPU: rounded up to 8).
    pub comp_data_size: u64,
    /// 0x10: total uncompressed bytes.
    pub decomp_data_size: u64,
    /// 0x18: number of chunks, `ceil(decomp_data_size / uncomp_chunk_size)`.
    pub num_chunks: u64,
    /// 0x20: uncompressed bytes per chunk (the last chunk may be shorter).
    pub uncomp_chunk_size: u64,
    /// 0x28: offset of the compressed-data region from the start of the stream.
    pub comp_data_offset: u32,
    /// 0x2c: second checksum slot, always 0 in nvCOMP 6 streams.
    pub checksum_slot_2c: u32,
    /// 0x30: header checksum (0 unless checksums were computed).
    pub header_checksum: u32,
    /// 0x34: `include_chunk_starts` (always 1).
    pub include_chunk_starts: u8,
    /// 0x35: per-chunk compressed checksums present.
    pub include_comp_checksums: u8,
    /// 0x36: per-chunk uncompressed checksums present.
    pub include_decomp_checksums: u8,
    /// 0x37: pad byte.
    pub pad_37: u8,
}

impl NativeHeader {
    /// Read the common header from the first 56 bytes, checking only length and magic.
    pub fn read(bytes: &[u8]) -> Result<NativeHeader> {
        let Some(h) = bytes.get(..COMMON_HEADER_SIZE) else {
            return Err(Error::stream(format!(
                "truncated NVCOMP_NATIVE header: {} bytes, the common header needs {COMMON_HEADER_SIZE}",
                bytes.len()
            )));
        };
        let magic = le_u32(h, 0).unwrap_or(0);
        if magic != NATIVE_MAGIC {
            return Err(Error::stream(format!(
                "bad magic {magic:#010x} at offset 0 (NVCOMP_NATIVE streams start with {NATIVE_MAGIC:#010x}, bytes 27 13 91 52)"
            )));
        }
        let u64_at = |at| le_u64(h, at).unwrap_or(0);
        let u32_at = |at| le_u32(h, at).unwrap_or(0);
        Ok(NativeHeader {
            major_version: h[4],
            minor_version: h[5],
            format_id: h[6],
            pad_07: h[7],
            comp_data_size: u64_at(0x08),
            decomp_data_size: u64_at(0x10),
            num_chunks: u64_at(0x18),
            uncomp_chunk_size: u64_at(0x20),
            comp_data_offset: u32_at(0x28),
            checksum_slot_2c: u32_at(0x2c),
            header_checksum: u32_at(0x30),
            include_chunk_starts: h[0x34],
            include_comp_checksums: h[0x35],
            include_decomp_checksums: h[0x36],
            pad_37: h[0x37],
        })
    }

    /// The format, if the id is one nvCOMP (or gpucomp, as a private id) defines.
    pub fn format(&self) -> Option<Format> {
        Format::from_raw(self.format_id)
    }

    /// Whether both checksum tables are present (both flags 1).
    pub fn has_checksums(&self) -> bool {
        self.include_comp_checksums == 1 && self.include_decomp_checksums == 1
    }
}

/// One chunk of a parsed stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkInfo<'a> {
    /// Chunk index.
    pub index: usize,
    /// Offset relative to the compressed-data region (the stored `chunk_offset`).
    pub offset: usize,
    /// Absolute position in the stream (`comp_data_offset + offset`).
    pub position: usize,
    /// The compressed payload (exactly the stored size).
    pub data: &'a [u8],
    /// Uncompressed bytes this chunk decodes to.
    pub uncompressed_size: u64,
    /// Stored compressed-chunk checksum, when the stream has checksums.
    pub comp_checksum: Option<u32>,
    /// Stored uncompressed-chunk checksum, when the stream has checksums.
    pub decomp_checksum: Option<u32>,
}

/// A validated NVCOMP_NATIVE stream borrowed from a byte buffer.
///
/// [`parse`](Self::parse) checks, against the buffer and with overflow-safe arithmetic:
/// - length ≥ 56 and the magic `0x52911327`;
/// - a known format id ([`Format::from_raw`]: nvCOMP's 0..=8 or gpucomp's private 0x80..=0x88;
///   the spec header size follows from it) — the spec header itself is not interpreted here, see
///   [`algorithm`](Self::algorithm);
/// - `include_chunk_starts == 1`; the checksum flags 0x35/0x36 are each 0 or 1 and equal;
/// - `0 < uncomp_chunk_size ≤ 2^32 − 1` and `num_chunks == ceil(decomp_data_size / uncomp_chunk_size)`;
/// - the spec header and tables lie inside the buffer;
/// - `comp_data_offset == roundup(tables end, format.chunk_alignment())` (both nvCOMP writers);
/// - `comp_data_offset + comp_data_size ≤ buffer length`;
/// - every chunk offset is a multiple of the chunk alignment and `offset + size ≤ comp_data_size`.
///
/// Not checked, so that both nvCOMP writers (FORMATS A.4) are accepted: the version bytes, the
/// pad bytes (0x07, 0x37, after the spec header, between tables and data, between chunks — the
/// CPU writer leaves them unwritten), the slot at 0x2c, chunk order and packing, and whether
/// `comp_data_size` ends exactly at the last chunk (the CPU writer rounds it up to 8). Bytes after
/// `comp_data_offset + comp_data_size` are ignored ([`trailing`](Self::trailing)).
#[derive(Debug, Clone)]
pub struct NativeStream<'a> {
    bytes: &'a [u8],
    header: NativeHeader,
    format: Format,
    tables_offset: usize,
    tables_end: usize,
    comp_data_offset: usize,
    comp_data_size: usize,
    offsets: Vec<usize>,
    sizes: Vec<usize>,
    checksums: Option<ChecksumTables>,
}

/// What [`NativeStream::parse`] validates of a stream's header and spec header: every field
/// but the tables' entries. [`read`](Self::read) takes the stream's first
/// [`NATIVE_HEADER_PREFIX`] bytes (or all of a shorter stream), so that streams in device memory
/// are planned from their headers alone and their tables read on the device.
#[derive(Debug, Clone)]
pub(crate) struct CheckedHeader {
    pub(crate) header: NativeHeader,
    pub(crate) format: Format,
    /// Chunks: `header.num_chunks`, checked to fit the stream.
    pub(crate) num_chunks: usize,
    /// Where the offset table starts; the size table follows it, then the checksum tables.
    pub(crate) tables_offset: usize,
    pub(crate) tables_end: usize,
    pub(crate) comp_data_offset: usize,
    pub(crate) comp_data_size: usize,
    pub(crate) has_checksums: bool,
}

/// Bytes of a stream's start that [`CheckedHeader::read`] needs for any format: the common
/// header and the largest spec header (Cascaded's 40 bytes).
pub(crate) const NATIVE_HEADER_PREFIX: usize = COMMON_HEADER_SIZE + 40;

impl CheckedHeader {
    /// Validates the header of a stream of `len` bytes whose first bytes are `bytes`, as
    /// [`NativeStream::parse`] documents, except the tables' entries.
    pub(crate) fn read(bytes: &[u8], len: usize) -> Result<CheckedHeader> {
        let header = NativeHeader::read(bytes)?;
        let format = header
            .format()
            .ok_or_else(|| Error::stream(format!("unknown format id {:#04x} at offset 0x06", header.format_id)))?;
        let spec_end = COMMON_HEADER_SIZE + format.spec_header_size();
        if spec_end > len {
            return Err(Error::stream(format!(
                "truncated: {len} bytes, the {} spec header ends at {spec_end}",
                format.name()
            )));
        }
        if bytes.len() < spec_end {
            return Err(Error::stream(format!("{} bytes read of a header that ends at {spec_end}", bytes.len())));
        }
        if header.include_chunk_starts != 1 {
            return Err(Error::stream(format!(
                "include_chunk_starts (0x34) is {}, not 1: streams without a chunk offset table are not supported",
                header.include_chunk_starts
            )));
        }
        let (c, d) = (header.include_comp_checksums, header.include_decomp_checksums);
        if c > 1 || d > 1 || c != d {
            return Err(Error::stream(format!("checksum flags 0x35/0x36 are {c}/{d}: expected both 0 or both 1")));
        }
        let has_checksums = c == 1;
        let cs = header.uncomp_chunk_size;
        if cs == 0 {
            return Err(Error::stream("uncomp_chunk_size (0x20) is 0"));
        }
        if cs > MAX_UNCOMP_CHUNK_SIZE {
            return Err(Error::stream(format!(
                "uncomp_chunk_size (0x20) is {cs}, above the largest decompressible chunk ({MAX_UNCOMP_CHUNK_SIZE})"
            )));
        }
        let expected_chunks = header.decomp_data_size.div_ceil(cs);
        if header.num_chunks != expected_chunks {
            return Err(Error::stream(format!(
                "num_chunks (0x18) is {} but decomp_data_size {} in chunks of {cs} needs {expected_chunks}",
                header.num_chunks, header.decomp_data_size
            )));
        }
        let tables_offset = tables_offset(format);
        let entry = table_entry_size(has_checksums);
        let table_room = len.saturating_sub(tables_offset) / entry;
        let num_chunks = match usize::try_from(header.num_chunks) {
            Ok(n) if n <= table_room => n,
            _ => {
                return Err(Error::stream(format!(
                    "chunk tables do not fit: {} chunks need {entry} bytes each from offset {tables_offset}, stream has {len} bytes",
                    header.num_chunks
                )))
            }
        };
        // num_chunks <= (len - tables_offset) / entry, so none of these overflow.
        let tables_end = tables_offset + num_chunks * entry;
        let align = format.chunk_alignment();
        let expected_offset = round_up(tables_end, align).ok_or_else(|| Error::stream("tables end overflows"))?;
        let comp_data_offset = header.comp_data_offset as usize;
        if comp_data_offset != expected_offset {
            return Err(Error::stream(format!(
                "comp_data_offset (0x28) is {comp_data_offset}, expected {expected_offset} (tables end at {tables_end}, aligned to {align})"
            )));
        }
        let comp_data_size = usize::try_from(header.comp_data_size)
            .ok()
            .filter(|s| comp_data_offset.checked_add(*s).is_some_and(|end| end <= len))
            .ok_or_else(|| {
                Error::stream(format!(
                    "compressed data region [{comp_data_offset}, +{}) runs past the end of the stream ({len} bytes)",
                    header.comp_data_size
                ))
            })?;
        Ok(CheckedHeader {
            header,
            format,
            num_chunks,
            tables_offset,
            tables_end,
            comp_data_offset,
            comp_data_size,
            has_checksums,
        })
    }

    /// The algorithm the format id and spec header describe (see [`NativeStream::algorithm`]);
    /// `bytes` as given to [`read`](Self::read).
    pub(crate) fn algorithm(&self, bytes: &[u8]) -> Result<Algorithm> {
        Algorithm::from_spec_header(self.format, self.spec_header(bytes))
    }

    /// Checks chunk `i`'s table entry (`offset` into the compressed-data region, `size`): inside
    /// the region, at an aligned offset.
    pub(crate) fn check_entry(&self, i: usize, offset: u64, size: u64) -> Result<()> {
        let region = self.comp_data_size as u64;
        if offset.checked_add(size).is_none_or(|e| e > region) {
            return Err(Error::stream(format!(
                "chunk {i}: offset {offset} + size {size} lies outside the compressed data region ({region} bytes)"
            )));
        }
        let align = self.format.chunk_alignment() as u64;
        if !offset.is_multiple_of(align) {
            return Err(Error::stream(format!("chunk {i}: offset {offset} is not a multiple of {align}")));
        }
        Ok(())
    }

    /// The spec header's bytes; `bytes` as given to [`read`](Self::read).
    pub(crate) fn spec_header<'b>(&self, bytes: &'b [u8]) -> &'b [u8] {
        &bytes[COMMON_HEADER_SIZE..COMMON_HEADER_SIZE + self.format.spec_header_size()]
    }
}

/// What [`NativeStream::parse`] validates and reads: header, spec header and tables, without the
/// chunks.
#[derive(Debug, Clone)]
struct NativeIndex {
    layout: CheckedHeader,
    offsets: Vec<usize>,
    sizes: Vec<usize>,
    checksums: Option<ChecksumTables>,
}

impl NativeIndex {
    /// Validates a whole stream, as [`NativeStream::parse`] documents.
    fn read(bytes: &[u8]) -> Result<NativeIndex> {
        let layout = CheckedHeader::read(bytes, bytes.len())?;
        let (n, tables_offset) = (layout.num_chunks, layout.tables_offset);
        let word = |at: usize| le_u64(bytes, at).unwrap_or(0);
        let mut offsets = Vec::with_capacity(n);
        let mut sizes = Vec::with_capacity(n);
        for i in 0..n {
            let (o, s) = (word(tables_offset + 8 * i), word(tables_offset + 8 * (n + i)));
            layout.check_entry(i, o, s)?;
            // Both fit: o + s <= comp_data_size, a usize.
            offsets.push(o as usize);
            sizes.push(s as usize);
        }
        let checksums = layout.has_checksums.then(|| {
            let base = tables_offset + 16 * n;
            let words = |from: usize| (0..n).map(|i| le_u32(bytes, from + 4 * i).unwrap_or(0)).collect();
            ChecksumTables { compressed: words(base), uncompressed: words(base + 4 * n) }
        });
        Ok(NativeIndex { layout, offsets, sizes, checksums })
    }
}

impl<'a> NativeStream<'a> {
    /// Parse and validate a stream (see the type's documentation for what is checked).
    /// Every failure is [`Error::InvalidStream`] with the reason.
    ///
    /// ```
    /// use gpucomp::container::NativeStream;
    /// use gpucomp::{Algorithm, Codec, Device, Format};
    ///
    /// # fn main() -> gpucomp::Result<()> {
    /// let codec = Codec::on(Algorithm::default(), Device::Cpu).with_chunk_size(4096)?;
    /// let stream = codec.compress(&[42u8; 10_000])?;
    /// let parsed = NativeStream::parse(&stream)?;
    /// assert_eq!(parsed.format(), Format::Lz4);
    /// assert_eq!((parsed.num_chunks(), parsed.uncompressed_size()), (3, 10_000));
    /// assert!(parsed.chunk(2).is_some() && parsed.chunk(3).is_none());
    /// assert!(NativeStream::parse(&stream[..40]).is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub fn parse(bytes: &'a [u8]) -> Result<NativeStream<'a>> {
        let p = NativeIndex::read(bytes)?;
        let l = p.layout;
        Ok(NativeStream {
            bytes,
            header: l.header,
            format: l.format,
            tables_offset: l.tables_offset,
            tables_end: l.tables_end,
            comp_data_offset: l.comp_data_offset,
            comp_data_size: l.comp_data_size,
            offsets: p.offsets,
            sizes: p.sizes,
            checksums: p.checksums,
        })
    }

    /// The common header as stored.
    pub fn header(&self) -> &NativeHeader {
        &self.header
    }

    /// The stream's bytes, `[0, comp_data_offset + comp_data_size)`.
    pub fn bytes(&self) -> &'a [u8] {
        &self.bytes[..self.stream_len()]
    }

    /// Length of the stream: `comp_data_offset + comp_data_size`.
    pub fn stream_len(&self) -> usize {
        self.comp_data_offset + self.comp_data_size
    }

    /// Bytes of the buffer after the end of the stream (ignored).
    pub fn trailing(&self) -> &'a [u8] {
        &self.bytes[self.stream_len()..]
    }

    /// The format named by the header.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The spec header bytes (at offset 56, [`Format::spec_header_size`] bytes).
    pub fn spec_header(&self) -> &'a [u8] {
        &self.bytes[COMMON_HEADER_SIZE..COMMON_HEADER_SIZE + self.format.spec_header_size()]
    }

    /// The algorithm and options the format id and spec header describe
    /// ([`Algorithm::from_spec_header`]: `Unsupported` for formats not implemented yet, invalid
    /// spec fields as `InvalidStream`). [`format`](Self::format) and
    /// [`spec_header`](Self::spec_header) remain available either way.
    pub fn algorithm(&self) -> Result<Algorithm> {
        Algorithm::from_spec_header(self.format, self.spec_header())
    }

    /// Number of chunks.
    pub fn num_chunks(&self) -> usize {
        self.offsets.len()
    }

    /// Total uncompressed bytes (`decomp_data_size`).
    pub fn uncompressed_size(&self) -> u64 {
        self.header.decomp_data_size
    }

    /// Uncompressed bytes per chunk (`uncomp_chunk_size`; the last chunk may be shorter).
    pub fn uncomp_chunk_size(&self) -> u64 {
        self.header.uncomp_chunk_size
    }

    /// Offset of the chunk tables (`roundup8(56 + spec size)`).
    pub fn tables_offset(&self) -> usize {
        self.tables_offset
    }

    /// End of the chunk tables (checksum tables included).
    pub fn tables_end(&self) -> usize {
        self.tables_end
    }

    /// Offset of the compressed-data region.
    pub fn comp_data_offset(&self) -> usize {
        self.comp_data_offset
    }

    /// Size of the compressed-data region (`comp_data_size`).
    pub fn comp_data_size(&self) -> usize {
        self.comp_data_size
    }

    /// The compressed-data region.
    pub fn data_region(&self) -> &'a [u8] {
        &self.bytes[self.comp_data_offset..self.stream_len()]
    }

    /// The payload of chunk `i` (`None` if `i >= num_chunks`).
    pub fn chunk(&self, i: usize) -> Option<&'a [u8]> {
        let r = self.chunk_range(i)?;
        self.bytes.get(r)
    }

    /// Absolute position of chunk `i` in the stream (`comp_data_offset + chunk_offset(i)`).
    pub fn chunk_position(&self, i: usize) -> Option<usize> {
        Some(self.comp_data_offset + *self.offsets.get(i)?)
    }

    /// Absolute byte range of chunk `i` in the stream.
    pub fn chunk_range(&self, i: usize) -> Option<Range<usize>> {
        let start = self.comp_data_offset + *self.offsets.get(i)?;
        Some(start..start + *self.sizes.get(i)?)
    }

    /// Stored offset of chunk `i`, relative to the compressed-data region.
    pub fn chunk_offset(&self, i: usize) -> Option<usize> {
        self.offsets.get(i).copied()
    }

    /// Compressed size of chunk `i`.
    pub fn chunk_size(&self, i: usize) -> Option<usize> {
        self.sizes.get(i).copied()
    }

    /// The compressed chunk sizes, in chunk order.
    pub fn chunk_sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// The stored chunk offsets (relative to the data region), in chunk order.
    pub fn chunk_offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// Byte range of the uncompressed output chunk `i` decodes to.
    pub fn chunk_uncompressed_range(&self, i: usize) -> Option<Range<u64>> {
        if i >= self.num_chunks() {
            return None;
        }
        // i < num_chunks = ceil(decomp / cs), so i * cs < decomp: no overflow.
        let start = i as u64 * self.header.uncomp_chunk_size;
        let end = start.saturating_add(self.header.uncomp_chunk_size).min(self.header.decomp_data_size);
        Some(start..end)
    }

    /// Uncompressed size of chunk `i` (`uncomp_chunk_size`, less for the last chunk).
    pub fn chunk_uncompressed_size(&self, i: usize) -> Option<u64> {
        self.chunk_uncompressed_range(i).map(|r| r.end - r.start)
    }

    /// Everything about chunk `i`.
    pub fn chunk_info(&self, i: usize) -> Option<ChunkInfo<'a>> {
        let range = self.chunk_range(i)?;
        Some(ChunkInfo {
            index: i,
            offset: *self.offsets.get(i)?,
            position: range.start,
            data: self.bytes.get(range)?,
            uncompressed_size: self.chunk_uncompressed_size(i)?,
            comp_checksum: self.checksums.as_ref().and_then(|t| t.compressed.get(i).copied()),
            decomp_checksum: self.checksums.as_ref().and_then(|t| t.uncompressed.get(i).copied()),
        })
    }

    /// All chunks, in order.
    pub fn chunks(&self) -> impl Iterator<Item = ChunkInfo<'a>> + '_ {
        (0..self.num_chunks()).filter_map(|i| self.chunk_info(i))
    }

    /// Whether the stream carries checksum tables.
    pub fn has_checksums(&self) -> bool {
        self.checksums.is_some()
    }

    /// The stored checksum tables, when present.
    pub fn checksum_tables(&self) -> Option<&ChecksumTables> {
        self.checksums.as_ref()
    }

    /// The stored header checksum (0x30; 0 = not computed).
    pub fn stored_header_checksum(&self) -> u32 {
        self.header.header_checksum
    }

    /// Check the header word at 0x30 against [`checksum::header_checksum`] of
    /// `[0, comp_data_offset)`. `NotStored` when it is 0; `Unverified` when
    /// `comp_data_offset >= 1024`, where the rule is not established.
    pub fn check_header_checksum(&self) -> CheckOutcome {
        let stored = self.header.header_checksum;
        if stored == 0 {
            CheckOutcome::NotStored
        } else if self.comp_data_offset >= HEADER_CHECKSUM_ESTABLISHED_BELOW {
            CheckOutcome::Unverified(stored)
        } else {
            CheckOutcome::compare(stored, checksum::header_checksum(&self.bytes[..self.comp_data_offset]))
        }
    }

    /// Check the stored checksum of compressed chunk `i` (`None` without checksums or for a bad index).
    pub fn check_chunk_checksum(&self, i: usize) -> Option<CheckOutcome> {
        let stored = *self.checksums.as_ref()?.compressed.get(i)?;
        let range = self.chunk_range(i)?;
        let data = self.bytes.get(range.clone())?;
        Some(CheckOutcome::compare(stored, checksum::chunk_checksum(data, range.start as u64)))
    }

    /// Check the stored checksum of uncompressed chunk `i` against its decompressed bytes `data`
    /// (computed as if `data` lay at `i · uncomp_chunk_size`). `None` without checksums or for a
    /// bad index.
    pub fn check_uncompressed_checksum(&self, i: usize, data: &[u8]) -> Option<CheckOutcome> {
        let stored = *self.checksums.as_ref()?.uncompressed.get(i)?;
        let addr = self.chunk_uncompressed_range(i)?.start;
        Some(CheckOutcome::compare(stored, checksum::chunk_checksum(data, addr)))
    }

    /// Verify what can be verified without decompressing: the header word (see
    /// [`check_header_checksum`](Self::check_header_checksum)) and every compressed chunk's
    /// checksum. Stored zeros are skipped.
    ///
    /// With a policy that does not verify this returns `Ok` at once. A stream without checksums is
    /// `Ok` unless the policy [`requires`](ChecksumPolicy::requires) them:
    /// `Error::InvalidArgument { status: CannotVerifyChecksums }`. A chunk mismatch is
    /// `Error::Chunk { chunk, status: BadChecksum }` (first bad chunk); a header-word mismatch is
    /// `Error::InvalidArgument { status: BadChecksum }` (it covers the tables, not one chunk).
    pub fn verify_compressed(&self, policy: ChecksumPolicy) -> Result<()> {
        if !policy.verifies() {
            return Ok(());
        }
        if !self.has_checksums() {
            return if policy.requires() {
                Err(Error::InvalidArgument {
                    status: Status::CannotVerifyChecksums,
                    reason: "checksum verification required but the stream stores no checksums".into(),
                })
            } else {
                Ok(())
            };
        }
        if let CheckOutcome::Mismatch { stored, computed } = self.check_header_checksum() {
            return Err(Error::InvalidArgument {
                status: Status::BadChecksum,
                reason: format!("header checksum (0x30) is {stored:08x}, computed {computed:08x}"),
            });
        }
        for i in 0..self.num_chunks() {
            if self.check_chunk_checksum(i).is_some_and(CheckOutcome::is_mismatch) {
                return Err(Error::Chunk { chunk: i, status: Status::BadChecksum });
            }
        }
        Ok(())
    }

    /// Verify the decompressed bytes of chunk `i` against its stored uncompressed checksum:
    /// `Error::Chunk { chunk: i, status: BadChecksum }` on a mismatch; `Ok` when the stream has no
    /// checksums or stores 0 for this chunk.
    pub fn verify_uncompressed_chunk(&self, i: usize, data: &[u8]) -> Result<()> {
        match self.check_uncompressed_checksum(i, data) {
            Some(CheckOutcome::Mismatch { .. }) => Err(Error::Chunk { chunk: i, status: Status::BadChecksum }),
            _ => Ok(()),
        }
    }

    /// Verify a whole decompressed output (`decomp_data_size` bytes, else `InvalidArgument`)
    /// chunk by chunk; see [`verify_uncompressed_chunk`](Self::verify_uncompressed_chunk).
    pub fn verify_uncompressed(&self, output: &[u8]) -> Result<()> {
        if output.len() as u64 != self.header.decomp_data_size {
            return Err(Error::invalid(format!(
                "output is {} bytes, the stream decompresses to {}",
                output.len(),
                self.header.decomp_data_size
            )));
        }
        for i in 0..self.num_chunks() {
            let Some(r) = self.chunk_uncompressed_range(i) else { continue };
            let data = output.get(r.start as usize..r.end as usize).unwrap_or(&[]);
            self.verify_uncompressed_chunk(i, data)?;
        }
        Ok(())
    }

    /// Differences from what nvCOMP's GPU writer would write for the same header fields and chunk
    /// sizes (empty for a GPU-written stream): nonzero pad bytes, version, slot 0x2c, chunks not
    /// packed in order, `comp_data_size` not ending at the last chunk, trailing bytes. The CPU
    /// writer (`LZ4CPUManager`) shows up here through its pads and rounded `comp_data_size`.
    pub fn gpu_layout_deviations(&self) -> Vec<String> {
        let mut out = Vec::new();
        let h = &self.header;
        if (h.major_version, h.minor_version) != (NATIVE_MAJOR_VERSION, NATIVE_MINOR_VERSION) {
            out.push(format!("version {}.{} (nvCOMP 6.0 writes 6.0)", h.major_version, h.minor_version));
        }
        if h.pad_07 != 0 || h.pad_37 != 0 {
            out.push(format!("header pad bytes 0x07/0x37 are {:#04x}/{:#04x}", h.pad_07, h.pad_37));
        }
        if h.checksum_slot_2c != 0 {
            out.push(format!("slot 0x2c is {:#010x}", h.checksum_slot_2c));
        }
        let spec_end = COMMON_HEADER_SIZE + self.format.spec_header_size();
        if self.bytes[spec_end..self.tables_offset].iter().any(|&b| b != 0) {
            out.push("pad after the spec header is not zero".into());
        }
        if self.bytes[self.tables_end..self.comp_data_offset].iter().any(|&b| b != 0) {
            out.push("pad between tables and data is not zero".into());
        }
        let align = self.format.chunk_alignment();
        let mut expect = 0usize;
        let mut packed = true;
        let mut pads_zero = true;
        for i in 0..self.num_chunks() {
            if self.offsets[i] != expect {
                packed = false;
                break;
            }
            let end = expect + self.sizes[i];
            if i + 1 < self.num_chunks() {
                let next = round_up(end, align).unwrap_or(usize::MAX);
                let pad = self.data_region().get(end..next.min(self.comp_data_size)).unwrap_or(&[]);
                pads_zero &= pad.iter().all(|&b| b == 0);
                expect = next;
            } else {
                expect = end;
            }
        }
        if !packed {
            out.push("chunks are not packed in order at aligned offsets".into());
        } else {
            if !pads_zero {
                out.push("padding between chunks is not zero".into());
            }
            if expect != self.comp_data_size {
                out.push(format!("comp_data_size is {}, the last chunk ends at {expect}", self.comp_data_size));
            }
        }
        if !self.trailing().is_empty() {
            out.push(format!("{} bytes after the end of the stream", self.trailing().len()));
        }
        out
    }
}
