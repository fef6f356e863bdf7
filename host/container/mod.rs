//! nvCOMP 6's containers ("bitstream kinds"), byte-compatible with what nvCOMP 6.0 writes
//! (`shared/nvcomp/FORMATS.md` A):
//!
//! - **NVCOMP_NATIVE** — the HLIF container: a 56-byte common header (magic `0x52911327`,
//!   version 6.0, format id, sizes, chunk count, data offset, checksum word, flags), the format's
//!   spec header, `u64` chunk offset and size tables (plus two `u32` checksum tables when
//!   checksums are on), then the chunks in order, each aligned to 8 bytes (16 for ANS).
//!   Read with [`NativeStream::parse`]; write with [`NativeLayout`] / [`write_native`].
//! - **RAW** — one bare chunk holding the whole input ([`RawStream`], [`write_raw`]).
//! - **WITH_UNCOMPRESSED_SIZE** — `u64` size + 8 zero bytes + the RAW chunk
//!   ([`WithUncompressedSize`], [`write_with_uncompressed_size`]).
//!
//! [`detect`] tells the kinds apart, [`checksum`] implements nvCOMP's HLIF checksums, and
//! [`spec_fields`] decodes a spec header for inspection (the CLI formats what these types hold).
//!
//! Invalid input is always an [`Error`](crate::Error) (`InvalidStream` with the reason; checksum
//! mismatches carry `Status::BadChecksum`), never a panic.
#![forbid(unsafe_code)]
pub mod checksum;
mod describe;
mod detect;
mod layout;
mod native;
mod raw;

pub use checksum::{CheckOutcome, ChecksumPolicy, ChecksumTables};
pub use describe::{spec_fields, SpecFields};
pub use detect::{detect, BitstreamKind, USIZE_DETECT_MAX};
pub use layout::{
    native_data_offset, native_header_prefix, write_native, write_native_from_input, NativeLayout, WriteChecksums,
};
pub use native::{
    table_entry_size, tables_offset, ChunkInfo, NativeHeader, NativeStream, COMMON_HEADER_SIZE, MAX_UNCOMP_CHUNK_SIZE,
    NATIVE_MAGIC, NATIVE_MAJOR_VERSION, NATIVE_MINOR_VERSION,
};
pub(crate) use native::{CheckedHeader, NATIVE_HEADER_PREFIX};
pub use raw::{
    split_with_uncompressed_size, write_raw, write_with_uncompressed_size, RawStream, WithUncompressedSize,
    USIZE_PREFIX_LEN,
};
