//! The bodies of gpucomp's fuzz targets: arbitrary bytes in, never a panic, a hang or an
//! unbounded allocation (errors are fine). `fuzz_targets/*.rs` hand libFuzzer's input to these,
//! and `tests/fuzz_regressions.rs` runs stored inputs through the same functions under `cargo test`.
//!
//! Options come from the first bytes of the input (see [`algorithm`]), the rest is the stream,
//! chunk or data, so every option set is reachable from the same corpus.
mod cli;
mod differential;
// Built by cargo-fuzz only (which sets `fuzzing`): tests/fuzz_regressions.rs compiles this file
// too, on machines without a GPU.
#[cfg(fuzzing)]
mod differential_gpu;
pub use cli::cli;
pub use differential::differential;
#[cfg(fuzzing)]
pub use differential_gpu::{differential_gpu, open_gpu};

use gpucomp::container::{self, BitstreamKind, NativeHeader, NativeStream, RawStream, WithUncompressedSize};
use gpucomp::cpu::ans::rans::Platform;
use gpucomp::{
    cpu, Algorithm, AnsOptions, BitcompAlgorithm, BitcompOptions, BitshuffleMode, CascadedMode, CascadedOptions, Codec,
    DataType, Device, Format, Lz4Encoder, Lz4Options, ZstdOptions,
};

/// Largest output a target allocates for one chunk: nvCOMP's largest decompressed chunk (32 MiB),
/// so a chunk header that claims more is decoded only into the small buffer.
const MAX_CHUNK_OUTPUT: usize = 1 << 25;

const LZ4_TYPES: [DataType; 6] =
    [DataType::Char, DataType::Uchar, DataType::Short, DataType::Ushort, DataType::Int, DataType::Uint];
const ANS_TYPES: [DataType; 5] =
    [DataType::Char, DataType::Uchar, DataType::Float16, DataType::Float8E4M3, DataType::Float32];
const INT_TYPES: [DataType; 8] = [
    DataType::Char,
    DataType::Uchar,
    DataType::Short,
    DataType::Ushort,
    DataType::Int,
    DataType::Uint,
    DataType::LongLong,
    DataType::ULongLong,
];
const BITCOMP_TYPES: [DataType; 11] = [
    DataType::Char,
    DataType::Uchar,
    DataType::Short,
    DataType::Ushort,
    DataType::Int,
    DataType::Uint,
    DataType::LongLong,
    DataType::ULongLong,
    DataType::Float16,
    DataType::Float32,
    DataType::Float64,
];

/// The first `N` bytes (zeros where the input is shorter) and the rest.
pub(crate) fn split<const N: usize>(data: &[u8]) -> ([u8; N], &[u8]) {
    let mut head = [0u8; N];
    let n = data.len().min(N);
    head[..n].copy_from_slice(&data[..n]);
    (head, &data[n..])
}

/// LZ4 options from two bytes: data type, bitshuffle mode, encoder.
pub fn lz4_options(b: [u8; 2]) -> Lz4Options {
    let bitshuffle = [BitshuffleMode::None, BitshuffleMode::MsbFirst, BitshuffleMode::LsbFirst][b[0] as usize / 6 % 3];
    let encoder = if b[1] & 1 == 0 { Lz4Encoder::Gpucomp } else { Lz4Encoder::Nvcomp };
    Lz4Options::default().with_data_type(LZ4_TYPES[b[0] as usize % 6]).with_bitshuffle(bitshuffle).with_encoder(encoder)
}

/// ANS options from two bytes: data type, histogram reduction, sub-chunk count, states per lane
/// (in range, so that the compressor accepts them).
pub fn ans_options(b: [u8; 2]) -> AnsOptions {
    AnsOptions::for_type(ANS_TYPES[b[0] as usize % 5])
        .with_histogram_reduction_log2(b[0] / 5 % 9)
        .with_max_sub_chunk_count([0, 4, 8, 16, 32, 64][b[1] as usize % 6])
        .with_states_per_lane(b[1] / 6 % 3)
}

/// Bitcomp options from one byte: algorithm and data type.
pub fn bitcomp_options(b: u8) -> BitcompOptions {
    let algorithm = if b & 1 == 0 { BitcompAlgorithm::Default } else { BitcompAlgorithm::Sparse };
    BitcompOptions::default().with_algorithm(algorithm).with_data_type(BITCOMP_TYPES[(b >> 1) as usize % 11])
}

/// Cascaded options from two bytes: data type, mode, level and the three stage flags.
pub fn cascaded_options(b: [u8; 2]) -> CascadedOptions {
    let mode = if b[0] & 0x80 == 0 { CascadedMode::Asymmetric } else { CascadedMode::Symmetric };
    CascadedOptions::default()
        .with_data_type(INT_TYPES[b[0] as usize % 8])
        .with_mode(mode)
        .with_compression_level(b[1] & 7)
        .with_delta(b[1] & 0x08 == 0)
        .with_rle(b[1] & 0x10 == 0)
        .with_frame_of_reference(b[1] & 0x20 == 0)
}

/// Zstd options from one byte: the level, -7 to 22.
pub fn zstd_options(b: u8) -> ZstdOptions {
    ZstdOptions::default().with_level((b % 30) as i32 - 7)
}

/// An algorithm with its options from three bytes: the first picks the algorithm (`% 5`: LZ4,
/// Cascaded, Bitcomp, ANS, Zstd), the other two its options.
pub fn algorithm(b: [u8; 3]) -> Algorithm {
    let o = [b[1], b[2]];
    match b[0] % 5 {
        0 => Algorithm::Lz4(lz4_options(o)),
        1 => Algorithm::Cascaded(cascaded_options(o)),
        2 => Algorithm::Bitcomp(bitcomp_options(b[1])),
        3 => Algorithm::Ans(ans_options(o)),
        _ => Algorithm::Zstd(zstd_options(b[1])),
    }
}

/// Container detection, NVCOMP_NATIVE parsing and every inspection view the CLI's `inspect`
/// shows: spec header fields, the chunk table, and the CPU codecs' chunk views.
pub fn container(data: &[u8]) {
    let _ = container::detect(data);
    let _ = NativeHeader::read(data);
    let _ = RawStream::new(data).payload();
    if let Ok(w) = WithUncompressedSize::parse(data) {
        let _ = (w.uncompressed_size(), w.raw().payload());
    }
    let Ok(stream) = NativeStream::parse(data) else { return };
    let format = stream.format();
    let _ = container::spec_fields(format, stream.spec_header());
    let _ = (stream.trailing(), stream.data_region(), stream.chunk_sizes(), stream.chunk_offsets());
    let algorithm = stream.algorithm();
    for i in 0..stream.num_chunks() {
        let info = stream.chunk_info(i).expect("a parsed stream has every chunk it counts");
        assert_eq!(stream.chunk(i), Some(info.data));
        let _ = stream.chunk_uncompressed_range(i);
        if algorithm.is_ok() {
            chunk_views(format, info.data);
        }
    }
}

/// The CPU codecs' inspection views of one chunk of `format`.
fn chunk_views(format: Format, chunk: &[u8]) {
    match format {
        Format::Ans => {
            let _ = cpu::ans::describe::chunk(chunk);
        }
        Format::Bitcomp => {
            let _ = cpu::bitcomp::describe::chunk(chunk);
            let _ = cpu::bitcomp::blocks(chunk);
            let _ = cpu::bitcomp::padding_ranges(chunk);
        }
        Format::Cascaded => {
            let _ = cpu::cascaded::describe::chunk(chunk);
            let _ = cpu::cascaded::blocks(chunk);
            let _ = cpu::cascaded::padding(chunk);
        }
        Format::Zstd => {
            let _ = cpu::zstd::frames(chunk);
        }
        _ => {}
    }
}

/// `Codec::decompress` on the CPU with container auto-detection: the first three bytes pick the
/// codec's algorithm (used for RAW and WITH_UNCOMPRESSED_SIZE streams), the fourth turns
/// checksum verification on, the rest is the stream. A decoded stream has the size it declares.
pub fn decompress(data: &[u8]) {
    let (head, stream) = split::<4>(data);
    let codec = Codec::on(algorithm([head[0], head[1], head[2]]), Device::Cpu).with_checksums(head[3] & 1 == 1);
    let size = codec.decompressed_size(stream);
    if let Ok(out) = codec.decompress(stream) {
        if container::detect(stream) != BitstreamKind::Raw {
            assert_eq!(size.ok(), Some(out.len() as u64), "decoded size differs from the declared size");
        }
    }
}

/// One chunk through the CPU decoder of `algorithm`: its declared size, a decode into a buffer
/// of that size (when at most [`MAX_CHUNK_OUTPUT`]) and one into a buffer of `small` bytes, which
/// must fail cleanly or fit. Also the chunk's inspection views.
fn chunk(algorithm: &Algorithm, data: &[u8], small: usize) {
    chunk_views(algorithm.format(), data);
    let declared = cpu::decompressed_chunk_size(algorithm, data);
    if let Ok(n) = declared {
        if n <= MAX_CHUNK_OUTPUT {
            let mut out = vec![0u8; n];
            if let Ok(written) = cpu::decompress_chunk(algorithm, data, &mut out) {
                assert_eq!(written, n, "decoded size differs from the declared size");
            }
        }
    }
    let mut out = vec![0u8; small];
    if let Ok(written) = cpu::decompress_chunk(algorithm, data, &mut out) {
        assert!(written <= small);
    }
}

/// An LZ4 chunk (bitshuffle modes included): byte 0 options, byte 1 the small buffer's size.
pub fn lz4(data: &[u8]) {
    let (head, rest) = split::<2>(data);
    chunk(&Algorithm::Lz4(lz4_options([head[0], 0])), rest, head[1] as usize * 64);
}

/// A Cascaded chunk (asymmetric and symmetric): byte 0 the small buffer's size.
pub fn cascaded(data: &[u8]) {
    let (head, rest) = split::<1>(data);
    chunk(&Algorithm::Cascaded(CascadedOptions::default()), rest, head[0] as usize * 64);
}

/// A Bitcomp chunk (both algorithms; the chunk header names it): byte 0 the small buffer's size.
pub fn bitcomp(data: &[u8]) {
    let (head, rest) = split::<1>(data);
    chunk(&Algorithm::Bitcomp(BitcompOptions::default()), rest, head[0] as usize * 64);
}

/// An ANS chunk (every mode; the chunk header names it): byte 0 the small buffer's size. Also
/// decoded on every platform this CPU runs (the portable and the SIMD tile decoders), which
/// must agree with the portable one on status and output bytes, valid chunk or not.
pub fn ans(data: &[u8]) {
    let (head, rest) = split::<1>(data);
    chunk(&Algorithm::Ans(AnsOptions::default()), rest, head[0] as usize * 64);
    // Chunks that state more than 1 MiB are left to `chunk` (the platforms differ only inside
    // the sub-chunks, and buffers of 32 MiB per platform would slow the fuzzer down).
    let Some(n) = cpu::ans::decompressed_size(rest).ok().filter(|&n| n <= 1 << 20) else { return };
    let decode = |p: Platform| {
        let mut out = vec![0xA5u8; n];
        let status = cpu::ans::decompress_on(p, rest, &mut out);
        (status, out)
    };
    let reference = decode(Platform::portable());
    for p in Platform::all() {
        assert!(decode(p) == reference, "ANS decoder on {} differs from the portable one", p.name());
    }
}

/// A Zstd chunk (any frames: zstd, skippable, several, with or without content size):
/// byte 0 the small buffer's size.
pub fn zstd(data: &[u8]) {
    let (head, rest) = split::<1>(data);
    chunk(&Algorithm::Zstd(ZstdOptions::default()), rest, head[0] as usize * 64);
}

/// Compress with the CPU codec, decompress, compare, for every algorithm and option set: bytes
/// 0..3 the algorithm, byte 3 the chunk size, container kind and checksums, the rest the data.
/// The compressor may refuse options or data (an error); what it writes must decode to the input.
/// RAW and WITH_UNCOMPRESSED_SIZE streams carry no marker, so `container::detect` may misjudge
/// them (documented there); those that it misjudges are decoded as their known kind instead.
pub fn round_trip(data: &[u8]) {
    let (head, input) = split::<4>(data);
    let algorithm = algorithm([head[0], head[1], head[2]]);
    let chunk_size = [512, 4096, 8192, 65536][head[3] as usize & 3];
    let kind =
        [BitstreamKind::Native, BitstreamKind::Raw, BitstreamKind::WithUncompressedSize][(head[3] >> 2) as usize % 3];
    let Ok(codec) = Codec::on(algorithm, Device::Cpu).with_chunk_size(chunk_size) else { return };
    let codec = codec.with_checksums(head[3] & 0x40 != 0);
    let Ok(stream) = codec.compress_as(input, kind) else { return };
    let what = format!("{algorithm:?} {kind:?} chunk {chunk_size}");
    let out = if container::detect(&stream) == kind {
        codec.decompress(&stream).map_err(|e| e.to_string())
    } else {
        decode_as(&algorithm, kind, &stream)
    };
    match out {
        Ok(out) => assert!(out == input, "{what}: round trip differs"),
        Err(e) => panic!("{what}: own stream refused: {e}"),
    }
}

/// A RAW or WITH_UNCOMPRESSED_SIZE stream of `kind` decoded without detection: its one chunk
/// through the CPU decoder (and, for WITH_UNCOMPRESSED_SIZE, the size its prefix declares).
fn decode_as(algorithm: &Algorithm, kind: BitstreamKind, stream: &[u8]) -> Result<Vec<u8>, String> {
    let (declared, chunk) = match kind {
        BitstreamKind::WithUncompressedSize => {
            let (size, chunk) = container::split_with_uncompressed_size(stream).map_err(|e| e.to_string())?;
            (Some(size), chunk)
        }
        _ => (None, stream),
    };
    let mut out = vec![0u8; cpu::decompressed_chunk_size(algorithm, chunk).map_err(|s| format!("{s:?}"))?];
    let n = cpu::decompress_chunk(algorithm, chunk, &mut out).map_err(|s| format!("{s:?}"))?;
    out.truncate(n);
    match declared {
        Some(size) if size != n as u64 => Err(format!("prefix declares {size} bytes, the chunk holds {n}")),
        _ => Ok(out),
    }
}
