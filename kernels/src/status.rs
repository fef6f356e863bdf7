//! nvCOMP's per-chunk status values (`nvcompStatus_t`), as kernels write them.
//!
//! The host library wraps these in its `Status` enum; kernels store the raw `i32` so that a
//! device status array has exactly nvCOMP's layout.

/// `nvcompSuccess`.
pub const SUCCESS: i32 = 0;
/// `nvcompErrorInvalidValue`: a bad argument (null pointer, bad option).
pub const INVALID_VALUE: i32 = 10;
/// `nvcompErrorNotSupported`: an unsupported type or option combination.
pub const NOT_SUPPORTED: i32 = 11;
/// `nvcompErrorCannotDecompress`: corrupt or invalid data, or an output buffer too small.
pub const CANNOT_DECOMPRESS: i32 = 12;
/// `nvcompErrorBadChecksum`.
pub const BAD_CHECKSUM: i32 = 13;
/// `nvcompErrorCannotVerifyChecksums`.
pub const CANNOT_VERIFY_CHECKSUMS: i32 = 14;
/// `nvcompErrorOutputBufferTooSmall`.
pub const OUTPUT_BUFFER_TOO_SMALL: i32 = 15;
/// `nvcompErrorWrongHeaderLength`.
pub const WRONG_HEADER_LENGTH: i32 = 16;
/// `nvcompErrorAlignment`.
pub const ALIGNMENT: i32 = 17;
/// `nvcompErrorChunkSizeTooLarge`.
pub const CHUNK_SIZE_TOO_LARGE: i32 = 18;
/// `nvcompErrorCannotCompress`.
pub const CANNOT_COMPRESS: i32 = 19;
/// `nvcompErrorWrongInputLength`.
pub const WRONG_INPUT_LENGTH: i32 = 20;
/// `nvcompErrorBatchSizeTooLarge`.
pub const BATCH_SIZE_TOO_LARGE: i32 = 21;
/// `nvcompErrorSubChunkCountTooLarge`.
pub const SUB_CHUNK_COUNT_TOO_LARGE: i32 = 22;
/// `nvcompErrorSubChunkCountTooSmall`.
pub const SUB_CHUNK_COUNT_TOO_SMALL: i32 = 23;
/// `nvcompErrorOutputBufferAlignmentTooSmall`.
pub const OUTPUT_BUFFER_ALIGNMENT_TOO_SMALL: i32 = 24;
/// `nvcompErrorCudaError`.
pub const CUDA_ERROR: i32 = 1000;
/// `nvcompErrorInternal`.
pub const INTERNAL: i32 = 10000;
