//! Property tests (proptest) of the CPU codecs, issue 22: for every algorithm and every encoder
//! option set (LZ4 data types × bitshuffle × encoder; Cascaded types × modes × levels × stage
//! flags; Bitcomp both algorithms × types; ANS types × sub-chunk counts × states per lane ×
//! histogram reductions; Zstd levels -7 to 22), arbitrary bytes (any length, empty, runs, small ranges, sorted values,
//! cut to lengths that are not a whole number of elements) compress and decompress to
//! themselves, in every container kind, chunk size and checksum setting; and damaged streams
//! (truncated, one byte flipped) decode to an error or, where checksums guard them, to the exact
//! input, never to a panic.
//!
//! Every option set round trips once ([`every_option_set_round_trips`]), then each property
//! runs [`CASES`] random cases (`PROPTEST_CASES` sets another number).
mod common;

use common::{ANS_TYPES, BITCOMP_ALGORITHMS, BITCOMP_TYPES, INTEGER_TYPES, LZ4_TYPES};
use gpucomp::container::{self, BitstreamKind};
use gpucomp::{
    cpu, Algorithm, AnsOptions, BitcompOptions, BitshuffleMode, CascadedMode, CascadedOptions, Codec, Device, Error,
    Lz4Encoder, Lz4Options, Status, ZstdOptions,
};
use proptest::prelude::*;

/// Random cases per property: the whole file took 6.5 s with 4096 (`cargo test --test
/// properties`, test profile, two shared cores), well under CI's minute.
const CASES: u32 = 4096;

/// [`CASES`], or `PROPTEST_CASES` when set (a longer run).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(CASES)
}

const KINDS: [BitstreamKind; 3] = [BitstreamKind::Native, BitstreamKind::Raw, BitstreamKind::WithUncompressedSize];
/// Chunk sizes: many chunks, a few, one.
const CHUNK_SIZES: [usize; 3] = [512, 4096, 65536];
/// How many option sets [`option_sets`] lists: 36 LZ4, 640 Cascaded, 22 Bitcomp, 810 ANS, 30 Zstd.
const SETS: usize = 36 + 640 + 22 + 810 + 30;

/// Every encoder option set of every algorithm ([`SETS`]).
fn option_sets() -> Vec<Algorithm> {
    let mut sets = vec![];
    for t in LZ4_TYPES {
        for b in [BitshuffleMode::None, BitshuffleMode::MsbFirst, BitshuffleMode::LsbFirst] {
            for e in [Lz4Encoder::Gpucomp, Lz4Encoder::Nvcomp] {
                sets.push(Algorithm::Lz4(Lz4Options::default().with_data_type(t).with_bitshuffle(b).with_encoder(e)));
            }
        }
    }
    for t in INTEGER_TYPES {
        for mode in [CascadedMode::Asymmetric, CascadedMode::Symmetric] {
            // Levels above 3 act as 3 (`CascadedOptions::compression_level`); 4 checks that.
            for level in 0..=4 {
                for flags in 0..8 {
                    sets.push(Algorithm::Cascaded(
                        CascadedOptions::default()
                            .with_data_type(t)
                            .with_mode(mode)
                            .with_compression_level(level)
                            .with_delta(flags & 1 != 0)
                            .with_rle(flags & 2 != 0)
                            .with_frame_of_reference(flags & 4 != 0),
                    ));
                }
            }
        }
    }
    for a in BITCOMP_ALGORITHMS {
        for t in BITCOMP_TYPES {
            sets.push(Algorithm::Bitcomp(BitcompOptions::default().with_algorithm(a).with_data_type(t)));
        }
    }
    for t in ANS_TYPES {
        for sub in [0, 4, 8, 16, 32, 64] {
            for spl in 0..3 {
                for h in 0..9 {
                    sets.push(Algorithm::Ans(
                        AnsOptions::for_type(t)
                            .with_max_sub_chunk_count(sub)
                            .with_states_per_lane(spl)
                            .with_histogram_reduction_log2(h),
                    ));
                }
            }
        }
    }
    for level in ZstdOptions::MIN_LEVEL..=ZstdOptions::MAX_LEVEL {
        sets.push(Algorithm::Zstd(ZstdOptions::default().with_level(level)));
    }
    sets
}

/// Whether the encoder refuses these options (`NotSupported`): Cascaded's symmetric mode (not
/// implemented) and Cascaded without frame of reference (nvCOMP 6 refuses it too).
fn refused(a: &Algorithm) -> bool {
    matches!(a, Algorithm::Cascaded(o) if o.mode == CascadedMode::Symmetric || !o.frame_of_reference)
}

/// The status of a library error.
fn status(e: &Error) -> Option<Status> {
    match e {
        Error::InvalidArgument { status, .. } | Error::Chunk { status, .. } => Some(*status),
        Error::Unsupported(_) => Some(Status::NotSupported),
        _ => None,
    }
}

/// Data of every shape: arbitrary bytes, runs, small ranges, sorted 1- to 8-byte values; then
/// cut by up to 7 bytes (lengths that are not a whole number of elements, and empty ones).
fn data() -> impl Strategy<Value = Vec<u8>> {
    let shapes = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..3000),
        prop::collection::vec((any::<u8>(), 1usize..400), 0..30)
            .prop_map(|runs| runs.into_iter().flat_map(|(b, n)| std::iter::repeat_n(b, n)).collect()),
        (1u8..20, prop::collection::vec(any::<u8>(), 0..6000))
            .prop_map(|(k, v)| v.into_iter().map(|b| b % k).collect()),
        (prop::sample::select(vec![1usize, 2, 4, 8]), prop::collection::vec(any::<u64>(), 0..1500)).prop_map(
            |(w, mut v)| {
                let mask = if w == 8 { u64::MAX } else { (1u64 << (8 * w)) - 1 };
                v.iter_mut().for_each(|x| *x = (*x & mask) >> 4);
                v.sort_unstable();
                v.iter().flat_map(|x| x.to_le_bytes()[..w].to_vec()).collect()
            }
        ),
    ];
    (shapes, 0usize..8).prop_map(|(mut v, cut)| {
        v.truncate(v.len().saturating_sub(cut));
        v
    })
}

/// A CPU codec for `algorithm` with this chunk size and checksum setting.
fn codec(algorithm: Algorithm, chunk_size: usize, checksums: bool) -> Codec {
    Codec::on(algorithm, Device::Cpu)
        .with_chunk_size(chunk_size)
        .expect("the chunk sizes suit every type")
        .with_checksums(checksums)
}

/// A stream of `kind` decoded: through `Codec::decompress` where detection recognises the kind,
/// else (RAW and WITH_UNCOMPRESSED_SIZE carry no marker, `container::detect` documents the
/// ambiguity) as its known kind, its one chunk through the CPU decoder.
fn decode(codec: &Codec, kind: BitstreamKind, stream: &[u8]) -> Result<Vec<u8>, String> {
    if container::detect(stream) == kind {
        return codec.decompress(stream).map_err(|e| e.to_string());
    }
    let (declared, chunk) = match kind {
        BitstreamKind::WithUncompressedSize => {
            let (size, chunk) = container::split_with_uncompressed_size(stream).map_err(|e| e.to_string())?;
            (Some(size), chunk)
        }
        _ => (None, stream),
    };
    let algorithm = codec.algorithm();
    let n = cpu::decompressed_chunk_size(algorithm, chunk).map_err(|s| format!("{s:?}"))?;
    if n > 1 << 25 {
        return Err(format!("{n} bytes declared"));
    }
    let mut out = vec![0u8; n];
    let n = cpu::decompress_chunk(algorithm, chunk, &mut out).map_err(|s| format!("{s:?}"))?;
    out.truncate(n);
    match declared {
        Some(size) if size != n as u64 => Err(format!("prefix declares {size} bytes, the chunk holds {n}")),
        _ => Ok(out),
    }
}

/// Compresses `input` as `kind` and decodes it: the stream, or `None` where the codec refuses,
/// as it must and in this order, a length that is not a whole number of elements
/// (`WrongInputLength`), an empty one-chunk stream (`ChunkSizeTooLarge`) or the options (see
/// [`refused`]). Panics on any other
/// refusal or a round trip that differs.
fn round_trip(codec: &Codec, kind: BitstreamKind, input: &[u8]) -> Option<Vec<u8>> {
    let a = *codec.algorithm();
    let what = format!("{a:?}, {kind:?}, chunk {}, {} bytes", codec.chunk_size(), input.len());
    let width = a.element_width().expect("every option set has a width");
    let stream = match codec.compress_as(input, kind) {
        Ok(stream) => stream,
        Err(e) => {
            let expected = if !input.len().is_multiple_of(width) {
                Status::WrongInputLength
            } else if kind != BitstreamKind::Native && input.is_empty() {
                Status::ChunkSizeTooLarge
            } else if refused(&a) {
                Status::NotSupported
            } else {
                panic!("{what}: refused: {e}")
            };
            assert_eq!(status(&e), Some(expected), "{what}: {e}");
            return None;
        }
    };
    // An empty NVCOMP_NATIVE stream has no chunk for the encoder to refuse.
    assert!(
        input.len().is_multiple_of(width) && (!refused(&a) || input.is_empty()),
        "{what}: compressed what it must refuse"
    );
    match decode(codec, kind, &stream) {
        Ok(out) => assert!(out == input, "{what}: round trip differs"),
        Err(e) => panic!("{what}: own stream refused: {e}"),
    }
    Some(stream)
}

/// Structured inputs for the sweep: text-like runs, sorted 4-byte values, noise.
fn sweep_inputs() -> Vec<Vec<u8>> {
    let runs: Vec<u8> = (0..3000u32).map(|i| b"aaaabbbcdddddeff"[(i as usize / 7) % 16]).collect();
    let sorted: Vec<u8> = (0..1200u32).flat_map(|i| (i * 3 + i % 5).to_le_bytes()).collect();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let noise: Vec<u8> = (0..2000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    vec![runs, sorted, noise]
}

/// Every option set round trips at least once (the random cases below pick among them): each
/// with one of the structured inputs, cut to its width, in turn every container kind, chunk
/// size and checksum setting.
#[test]
fn every_option_set_round_trips() {
    let inputs = sweep_inputs();
    let sets = option_sets();
    assert_eq!(sets.len(), SETS);
    let mut trips = 0;
    for (i, a) in sets.into_iter().enumerate() {
        let width = a.element_width().unwrap();
        let input = &inputs[i % 3];
        let input = &input[..input.len() / width * width];
        let codec = codec(a, CHUNK_SIZES[i / 3 % 3], i / 9 % 2 == 1);
        trips += round_trip(&codec, KINDS[i % 3], input).is_some() as usize;
    }
    // Refused: the 8 types × 2 modes × 5 levels × 8 flag sets of Cascaded less the asymmetric
    // ones with frame of reference.
    assert_eq!(trips, SETS - (640 - 8 * 5 * 4));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Arbitrary data, any option set, container kind, chunk size and checksum setting: the
    /// stream decodes to the data (or the codec refuses as it must).
    #[test]
    fn streams_round_trip(
        set in 0..SETS,
        chunk in 0..3usize,
        kind in 0..3usize,
        checksums in any::<bool>(),
        input in data(),
    ) {
        let codec = codec(option_sets()[set], CHUNK_SIZES[chunk], checksums);
        round_trip(&codec, KINDS[kind], &input);
    }

    /// The chunk codecs on their own, where the codec's whole-element rule does not apply: a
    /// chunk of any length either is refused (refused options; lengths that are not a whole
    /// number of elements, with whatever status the codec names) or decodes to itself, size and
    /// bytes: no tail is dropped silently.
    #[test]
    fn chunks_round_trip(set in 0..SETS, input in data()) {
        let a = option_sets()[set];
        let mut chunk = vec![0u8; a.max_compressed_chunk_size(input.len())];
        match cpu::compress_chunk(&a, input.len().max(1), &input, &mut chunk) {
            Ok(n) => {
                let chunk = &chunk[..n];
                prop_assert_eq!(cpu::decompressed_chunk_size(&a, chunk), Ok(input.len()));
                let mut out = vec![0u8; input.len()];
                prop_assert_eq!(cpu::decompress_chunk(&a, chunk, &mut out), Ok(input.len()));
                prop_assert!(out == input, "{:?}: chunk of {} bytes differs", a, input.len());
            }
            Err(s) => prop_assert!(
                refused(&a) || input.len() % a.element_width().unwrap() != 0,
                "{:?}: chunk of {} bytes refused: {:?}", a, input.len(), s
            ),
        }
    }

    /// A stream cut short, or with one byte flipped, never panics; with checksums (NATIVE
    /// streams) it decodes to an error or to the exact input.
    #[test]
    fn damaged_streams_fail_or_decode_exactly(
        set in 0..SETS,
        chunk in 0..3usize,
        kind in 0..3usize,
        checksums in any::<bool>(),
        input in data(),
        at in any::<prop::sample::Index>(),
        bit in 0..8u32,
        cut in any::<bool>(),
    ) {
        let codec = codec(option_sets()[set], CHUNK_SIZES[chunk], checksums);
        let kind = KINDS[kind];
        let Some(mut stream) = round_trip(&codec, kind, &input) else { return Ok(()) };
        if stream.is_empty() {
            return Ok(());
        }
        let at = at.index(stream.len());
        if cut {
            stream.truncate(at);
        } else {
            stream[at] ^= 1 << bit;
        }
        let out = decode(&codec, kind, &stream);
        if checksums && kind == BitstreamKind::Native {
            if let Ok(out) = out {
                prop_assert!(out == input, "{:?}: damaged checksummed stream decoded to other bytes", codec.algorithm());
            }
        }
    }
}
