//! Zstd CPU codec: one standard zstd frame (RFC 8878) per chunk, through libzstd (the `zstd`
//! crate; libzstd is the reference implementation and is not rewritten here).
//!
//! - [`compress()`]: one frame per chunk with its content size and without a checksum, as nvCOMP
//!   writes them (any zstd decoder reads them).
//! - [`decompress()`]: a decoder for chunks from any source, hostile input included. gpucomp walks
//!   the chunk's framing first ([`frames`]): skippable frames are skipped, every zstd frame is
//!   decoded in order (nvCOMP keeps only the first of several: gpucomp decodes them all), bytes
//!   after the last frame, an unknown magic number, a dictionary id (no dictionaries are
//!   supported), a window above [`ZstdOptions::MAX_WINDOW_SIZE`] (frames with a window
//!   descriptor) or a block above the block maximum are refused before libzstd sees the frame.
//!   libzstd then decodes each frame in one pass straight into the caller's output, which bounds
//!   it (no window buffer, no allocation beyond its context), and verifies content checksums.
//! - [`decompressed_size()`]: the sum of the frames' content sizes; a frame without one is decoded
//!   (streaming, window at most 128 MiB) to count its bytes, up to [`MAX_EXPANSION`] times the
//!   chunk's length.
use std::cell::RefCell;

use ::zstd::zstd_safe::{self, CCtx, CParameter, DCtx, DParameter, InBuffer, OutBuffer, ResetDirective};

use crate::algorithm::ZstdOptions;
use crate::Status;

mod frame;

use frame::Walk;
pub use frame::{frames, starts_with_magic, Block, BlockKind, Frame, FrameHeader, MAX_BLOCK_SIZE};

/// The most bytes a valid chunk decodes to per byte of its length: a block decodes to at most
/// 128 KiB ([`MAX_BLOCK_SIZE`], checked by the walk) and takes at least 4 bytes (an RLE block:
/// 3-byte header and its byte), so no chunk reaches 2^15 times its length.
pub const MAX_EXPANSION: u64 = 1 << 15;

/// Why a chunk cannot be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecompressError {
    /// The chunk is empty (nvCOMP writes no empty chunk; a valid one holds at least one frame).
    #[error("empty Zstd chunk")]
    Empty,
    /// Bytes at `at` are neither a zstd frame nor a skippable frame (trailing bytes included).
    #[error("Zstd chunk: no frame magic number at byte {at}")]
    BadMagic {
        /// Offset in the chunk.
        at: usize,
    },
    /// The chunk ends inside a frame.
    #[error("Zstd frame truncated at byte {at}")]
    Truncated {
        /// Where more bytes were needed.
        at: usize,
    },
    /// A frame header's reserved bit is set.
    #[error("Zstd frame header at byte {at}: reserved bit set")]
    ReservedBit {
        /// Offset of the frame header descriptor.
        at: usize,
    },
    /// A block of the reserved type 3.
    #[error("Zstd block at byte {at}: reserved block type")]
    ReservedBlockType {
        /// Offset of the block header.
        at: usize,
    },
    /// A block larger than the frame's block maximum (min(window, 128 KiB)).
    #[error("Zstd block at byte {at}: {size} bytes, above the block maximum of {max}")]
    BlockTooLarge {
        /// Offset of the block header.
        at: usize,
        /// The block's size field.
        size: u64,
        /// The frame's block maximum.
        max: u64,
    },
    /// A frame that needs a dictionary: gpucomp supports none.
    #[error("Zstd frame needs dictionary {id}: dictionaries are not supported")]
    Dictionary {
        /// The frame's dictionary id.
        id: u32,
    },
    /// A frame whose window exceeds [`ZstdOptions::MAX_WINDOW_SIZE`].
    #[error("Zstd frame window of {window} bytes, above the limit of {} bytes", ZstdOptions::MAX_WINDOW_SIZE)]
    WindowTooLarge {
        /// The declared window size.
        window: u64,
    },
    /// The decoded data does not fit in the output (or, for [`decompressed_size`], exceeds
    /// [`MAX_EXPANSION`] times the chunk).
    #[error("Zstd output does not fit: at least {needed} bytes needed, {capacity} available")]
    OutputTooSmall {
        /// Bytes needed, as far as known (a lower bound).
        needed: u64,
        /// Bytes available.
        capacity: u64,
    },
    /// libzstd refused the frame at `at` (corrupt data, a wrong content size or checksum).
    #[error("Zstd frame at byte {at}: {reason}")]
    Corrupt {
        /// Offset of the frame in the chunk.
        at: usize,
        /// libzstd's error name.
        reason: &'static str,
    },
    /// libzstd could not allocate its context.
    #[error("Zstd: cannot allocate a libzstd context")]
    NoContext,
}

impl From<DecompressError> for Status {
    /// Frames gpucomp refuses by policy (dictionaries, large windows) are `NotSupported`; a
    /// missing context `Internal`; everything else, as for the other decoders, `CannotDecompress`.
    fn from(e: DecompressError) -> Status {
        match e {
            DecompressError::Dictionary { .. } | DecompressError::WindowTooLarge { .. } => Status::NotSupported,
            DecompressError::NoContext => Status::Internal,
            _ => Status::CannotDecompress,
        }
    }
}

thread_local! {
    // One context per thread: creating one costs more than decoding a small chunk.
    static DCTX: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
    static CCTX: RefCell<Option<CCtx<'static>>> = const { RefCell::new(None) };
}

/// Largest frame [`compress()`] writes for `n` input bytes: the output buffer it needs.
pub fn max_compressed_size(n: usize) -> usize {
    ZstdOptions::max_compressed_chunk_size(n)
}

/// Compresses `input` into one zstd frame in `output` (content size in the header, no checksum);
/// returns the frame's length. `CannotCompress` if `output` is too small (see
/// [`max_compressed_size`]), `NotSupported` for a level out of range.
pub fn compress(input: &[u8], output: &mut [u8], options: &ZstdOptions) -> Result<usize, Status> {
    options.check().map_err(|_| Status::NotSupported)?;
    CCTX.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.is_none() {
            *cell = CCtx::try_create();
        }
        let c = cell.as_mut().ok_or(Status::Internal)?;
        let setup = c
            .reset(ResetDirective::SessionAndParameters)
            .and_then(|_| c.set_parameter(CParameter::CompressionLevel(options.level)))
            .and_then(|_| c.set_parameter(CParameter::ContentSizeFlag(true)))
            .and_then(|_| c.set_parameter(CParameter::ChecksumFlag(false)));
        setup.map_err(|_| Status::Internal)?;
        c.compress2(output, input).map_err(|_| Status::CannotCompress)
    })
}

/// [`compress()`] into a new `Vec`.
pub fn compress_to_vec(input: &[u8], options: &ZstdOptions) -> Result<Vec<u8>, Status> {
    let mut out = vec![0u8; max_compressed_size(input.len())];
    let n = compress(input, &mut out, options)?;
    out.truncate(n);
    Ok(out)
}

/// Decodes every frame of the chunk `input` into the front of `output`, in order; returns the
/// bytes written. Bytes of `output` past them may be overwritten (libzstd copies in whole words
/// where the output has room).
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, DecompressError> {
    DCTX.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.is_none() {
            *cell = DCtx::try_create();
        }
        let d = cell.as_mut().ok_or(DecompressError::NoContext)?;
        let mut written = 0usize;
        let capacity = output.len() as u64;
        for f in Walk::new(input, false) {
            let Frame::Zstd { offset, len, header, .. } = f? else { continue };
            let (done, room) = (written as u64, (output.len() - written) as u64);
            let too_small =
                |needed: u64| DecompressError::OutputTooSmall { needed: done.saturating_add(needed), capacity };
            if let Some(size) = header.content_size.filter(|&s| s > room) {
                return Err(too_small(size));
            }
            let n = d.decompress(&mut output[written..], &input[offset..offset + len]).map_err(|code| {
                let reason = zstd_safe::get_error_name(code);
                if header.content_size.is_none() && reason.contains("too small") {
                    too_small(room + 1)
                } else {
                    DecompressError::Corrupt { at: offset, reason }
                }
            })?;
            written += n;
        }
        Ok(written)
    })
}

/// [`decompress()`] into a new `Vec` of [`decompressed_size()`] bytes.
pub fn decompress_to_vec(input: &[u8]) -> Result<Vec<u8>, DecompressError> {
    let mut out = vec![0u8; decompressed_size(input)?];
    let n = decompress(input, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// The bytes the chunk `input` decodes to: its frames' content sizes, frames without one
/// decoded to count them (refused past [`MAX_EXPANSION`] times the chunk's length).
pub fn decompressed_size(input: &[u8]) -> Result<usize, DecompressError> {
    let limit = (input.len() as u64).saturating_mul(MAX_EXPANSION);
    let mut total = 0u64;
    // Made at the first frame without a content size, then reused.
    let mut counter = None;
    for f in Walk::new(input, false) {
        let Frame::Zstd { offset, len, header, .. } = f? else { continue };
        total = total.saturating_add(match header.content_size {
            Some(size) => size,
            None => {
                let counter = match &mut counter {
                    Some(c) => c,
                    None => counter.insert(Counter::new()?),
                };
                counter.size(&input[offset..offset + len], offset, limit - total.min(limit))?
            }
        });
        if total > limit {
            return Err(DecompressError::OutputTooSmall { needed: total, capacity: limit });
        }
    }
    usize::try_from(total).map_err(|_| DecompressError::OutputTooSmall { needed: total, capacity: usize::MAX as u64 })
}

/// Counts the bytes of frames without a content size: a streaming context (window at most
/// 2^27 bytes) and a 128 KiB scratch buffer the frames decode through.
struct Counter {
    d: DCtx<'static>,
    scratch: Vec<u8>,
}

impl Counter {
    fn new() -> Result<Counter, DecompressError> {
        let mut d = DCtx::try_create().ok_or(DecompressError::NoContext)?;
        let log = ZstdOptions::MAX_WINDOW_SIZE.trailing_zeros();
        d.set_parameter(DParameter::WindowLogMax(log)).map_err(|_| DecompressError::NoContext)?;
        Ok(Counter { d, scratch: vec![0u8; MAX_BLOCK_SIZE as usize] })
    }

    /// The bytes `frame` (at `at` in its chunk) decodes to; an error past `limit`.
    fn size(&mut self, frame: &[u8], at: usize, limit: u64) -> Result<u64, DecompressError> {
        let corrupt = |code| DecompressError::Corrupt { at, reason: zstd_safe::get_error_name(code) };
        // A failed frame may leave the context mid-frame: start each one afresh.
        self.d.reset(ResetDirective::SessionOnly).map_err(corrupt)?;
        let mut input = InBuffer::around(frame);
        let mut total = 0u64;
        loop {
            let mut out = OutBuffer::around(&mut self.scratch[..]);
            let hint = self.d.decompress_stream(&mut out, &mut input).map_err(corrupt)?;
            let produced = out.pos();
            total += produced as u64;
            if total > limit {
                return Err(DecompressError::OutputTooSmall { needed: total, capacity: limit });
            }
            if hint == 0 {
                return Ok(total);
            }
            // Output room left with all input consumed: the frame ends early.
            if input.pos() == frame.len() && produced < MAX_BLOCK_SIZE as usize {
                return Err(DecompressError::Truncated { at: at + frame.len() });
            }
        }
    }
}
