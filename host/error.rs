//! Errors and nvCOMP's status values.
#![forbid(unsafe_code)]
use gpucomp_kernels::status as raw;

/// nvCOMP's `nvcompStatus_t`: the per-chunk outcome of a batched call, with nvCOMP's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
#[non_exhaustive]
pub enum Status {
    /// `nvcompSuccess`.
    Success = raw::SUCCESS,
    /// `nvcompErrorInvalidValue`: a bad argument (null pointer, bad option).
    InvalidValue = raw::INVALID_VALUE,
    /// `nvcompErrorNotSupported`: an unsupported type or option combination.
    NotSupported = raw::NOT_SUPPORTED,
    /// `nvcompErrorCannotDecompress`: corrupt or invalid data, or an output buffer too small.
    CannotDecompress = raw::CANNOT_DECOMPRESS,
    /// `nvcompErrorBadChecksum`: a stored checksum does not match.
    BadChecksum = raw::BAD_CHECKSUM,
    /// `nvcompErrorCannotVerifyChecksums`: verification asked for, but no checksums stored.
    CannotVerifyChecksums = raw::CANNOT_VERIFY_CHECKSUMS,
    /// `nvcompErrorOutputBufferTooSmall`.
    OutputBufferTooSmall = raw::OUTPUT_BUFFER_TOO_SMALL,
    /// `nvcompErrorWrongHeaderLength`.
    WrongHeaderLength = raw::WRONG_HEADER_LENGTH,
    /// `nvcompErrorAlignment`: a buffer is not aligned as the algorithm requires.
    Alignment = raw::ALIGNMENT,
    /// `nvcompErrorChunkSizeTooLarge`.
    ChunkSizeTooLarge = raw::CHUNK_SIZE_TOO_LARGE,
    /// `nvcompErrorCannotCompress`.
    CannotCompress = raw::CANNOT_COMPRESS,
    /// `nvcompErrorWrongInputLength`.
    WrongInputLength = raw::WRONG_INPUT_LENGTH,
    /// `nvcompErrorBatchSizeTooLarge`.
    BatchSizeTooLarge = raw::BATCH_SIZE_TOO_LARGE,
    /// `nvcompErrorSubChunkCountTooLarge`.
    SubChunkCountTooLarge = raw::SUB_CHUNK_COUNT_TOO_LARGE,
    /// `nvcompErrorSubChunkCountTooSmall`.
    SubChunkCountTooSmall = raw::SUB_CHUNK_COUNT_TOO_SMALL,
    /// `nvcompErrorOutputBufferAlignmentTooSmall`.
    OutputBufferAlignmentTooSmall = raw::OUTPUT_BUFFER_ALIGNMENT_TOO_SMALL,
    /// `nvcompErrorCudaError`.
    CudaError = raw::CUDA_ERROR,
    /// `nvcompErrorInternal`.
    Internal = raw::INTERNAL,
}

impl Status {
    /// The status for a raw `nvcompStatus_t` value; unknown values map to [`Status::Internal`].
    pub fn from_raw(v: i32) -> Status {
        use Status::*;
        [
            Success,
            InvalidValue,
            NotSupported,
            CannotDecompress,
            BadChecksum,
            CannotVerifyChecksums,
            OutputBufferTooSmall,
            WrongHeaderLength,
            Alignment,
            ChunkSizeTooLarge,
            CannotCompress,
            WrongInputLength,
            BatchSizeTooLarge,
            SubChunkCountTooLarge,
            SubChunkCountTooSmall,
            OutputBufferAlignmentTooSmall,
            CudaError,
            Internal,
        ]
        .into_iter()
        .find(|s| *s as i32 == v)
        .unwrap_or(Internal)
    }

    /// `Ok(())` for [`Status::Success`], the status itself otherwise.
    pub fn ok(self) -> Result<(), Status> {
        if self == Status::Success {
            Ok(())
        } else {
            Err(self)
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match self {
            Status::Success => "success",
            Status::InvalidValue => "invalid value",
            Status::NotSupported => "not supported",
            Status::CannotDecompress => "cannot decompress (corrupt data or output buffer too small)",
            Status::BadChecksum => "bad checksum",
            Status::CannotVerifyChecksums => "cannot verify checksums",
            Status::OutputBufferTooSmall => "output buffer too small",
            Status::WrongHeaderLength => "wrong header length",
            Status::Alignment => "misaligned buffer",
            Status::ChunkSizeTooLarge => "chunk size too large",
            Status::CannotCompress => "cannot compress",
            Status::WrongInputLength => "wrong input length",
            Status::BatchSizeTooLarge => "batch size too large",
            Status::SubChunkCountTooLarge => "sub-chunk count too large",
            Status::SubChunkCountTooSmall => "sub-chunk count too small",
            Status::OutputBufferAlignmentTooSmall => "output buffer alignment too small",
            Status::CudaError => "CUDA error",
            Status::Internal => "internal error",
        };
        write!(f, "{text} (nvcompStatus_t {})", *self as i32)
    }
}

impl std::error::Error for Status {}

/// Everything the library can fail with. The library never panics on bad input or a missing GPU.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The CUDA driver library (`libcuda.so`) could not be loaded.
    #[error("no CUDA driver: libcuda.so could not be loaded")]
    NoDriver,
    /// The driver is present but reports no usable device.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// A CUDA driver call failed.
    #[error("CUDA driver error: {0}")]
    Cuda(#[from] cudarc::driver::DriverError),
    /// The bytes are not a stream this library can read (bad magic, truncated header or tables,
    /// inconsistent sizes).
    #[error("invalid stream: {0}")]
    InvalidStream(String),
    /// A chunk failed to compress or decompress, with nvCOMP's status for it.
    #[error("chunk {chunk}: {status}")]
    Chunk {
        /// Index of the first chunk that failed.
        chunk: usize,
        /// Its status.
        status: Status,
    },
    /// Buffer `index` of a batch failed ([`Codec`](crate::Codec)'s `*_device_batch*` calls): the
    /// error of that buffer, e.g. an [`Error::Chunk`] naming its chunk and nvCOMP's status, an
    /// [`Error::InvalidStream`] for its header, or [`Error::OutputTooSmall`] for its output.
    #[error("buffer {index}: {source}")]
    Buffer {
        /// Index of the first buffer that failed, in the batch's order.
        index: usize,
        /// What failed in it.
        source: Box<Error>,
    },
    /// A caller-supplied argument is invalid (nvCOMP: `nvcompErrorInvalidValue` and friends).
    #[error("invalid argument ({status}): {reason}")]
    InvalidArgument {
        /// nvCOMP's status for this misuse.
        status: Status,
        /// What was wrong.
        reason: String,
    },
    /// The algorithm, data type or option combination is not supported.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// A caller-provided output buffer is too small.
    #[error("output buffer too small: need {needed} bytes, have {available}")]
    OutputTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes provided.
        available: usize,
    },
}

impl Error {
    /// An [`Error::InvalidArgument`] with status `InvalidValue`.
    pub(crate) fn invalid(reason: impl Into<String>) -> Error {
        Error::InvalidArgument { status: Status::InvalidValue, reason: reason.into() }
    }

    /// An [`Error::InvalidStream`].
    pub(crate) fn stream(reason: impl Into<String>) -> Error {
        Error::InvalidStream(reason.into())
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
