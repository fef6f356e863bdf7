//! Zstd on the CPU: nvCOMP 6.0.0.12's Zstd streams and frames of the `zstd` tool
//! (tests/data/zstd/, written on an H200), our streams in the three containers, and hostile chunks.
use std::path::{Path, PathBuf};

use gpucomp::container::{detect, NativeStream};
use gpucomp::cpu::zstd::{self, DecompressError, Frame};
use gpucomp::{batched, cpu, Algorithm, BitstreamKind, Codec, Device, Error, Format, Status, ZstdOptions};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn input(name: &str) -> Vec<u8> {
    std::fs::read(data_dir().join("golden/inputs").join(name)).expect("golden input")
}

fn zstd_algorithm() -> Algorithm {
    Algorithm::Zstd(ZstdOptions::default())
}

fn cpu_codec() -> Codec {
    Codec::on(zstd_algorithm(), Device::Cpu)
}

/// Every file of `tests/data/zstd/<dir>`, by name.
fn files(dir: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(data_dir().join("zstd").join(dir))
        .expect("tests/data/zstd")
        .map(|e| {
            let e = e.expect("dir entry");
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).expect("file"))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn nvcomp_streams_decode_to_their_inputs() {
    let streams = files("streams");
    assert_eq!(streams.len(), 46, "nvCOMP's Zstd streams");
    for (name, stream) in &streams {
        let (source, rest) = name.split_once(".zstd.").expect("<input>.zstd.<kind>...");
        let kind = rest.split('.').next().unwrap();
        let expected = input(source);
        let want = match kind {
            "native" => BitstreamKind::Native,
            "raw" => BitstreamKind::Raw,
            "usize" => BitstreamKind::WithUncompressedSize,
            k => panic!("{name}: kind {k}"),
        };
        assert_eq!(detect(stream), want, "{name}");
        // Checksums verified where stored (the checksum-policy streams).
        let codec = cpu_codec().with_checksums(true);
        assert_eq!(codec.decompressed_size(stream).unwrap(), expected.len() as u64, "{name}");
        assert_eq!(codec.decompress(stream).unwrap(), expected, "{name}");
        if want == BitstreamKind::Native {
            let s = NativeStream::parse(stream).unwrap();
            assert_eq!(s.format(), Format::Zstd, "{name}");
            assert_eq!(s.spec_header(), [0u8; 4], "{name}");
            assert_eq!(s.algorithm().unwrap(), zstd_algorithm(), "{name}");
            // The codec reads the algorithm from the stream, whatever its own.
            assert_eq!(Codec::on(Algorithm::default(), Device::Cpu).decompress(stream).unwrap(), expected);
            for i in 0..s.num_chunks() {
                let chunk = s.chunk(i).unwrap();
                let frames = zstd::frames(chunk).unwrap();
                let [Frame::Zstd { header, .. }] = frames.as_slice() else { panic!("{name}: {frames:?}") };
                // nvCOMP's frames: content size present, no checksum, no dictionary.
                assert!(header.content_size.is_some() && !header.checksum && header.dict_id == 0, "{name}");
            }
        }
    }
}

/// What `zstd -d` gives for each frame of tests/data/zstd/foreign.
fn foreign_expected(name: &str) -> Vec<u8> {
    match name {
        "two-frames.zst" => [input("text.tbl"), input("orderkey.i64")].concat(),
        "skippable-then-frame.zst" => input("text.tbl"),
        "text4k.nosize.zst" => input("text4k.txt"),
        n if n.starts_with("text.tbl.") => input("text.tbl"),
        n => input(&n[..n.find(".l").expect("<input>.l<level>.zst")]),
    }
}

#[test]
fn zstd_tool_frames_decode_as_raw_streams() {
    let frames = files("foreign");
    assert_eq!(frames.len(), 13);
    for (name, frame) in &frames {
        let expected = foreign_expected(name);
        assert_eq!(zstd::decompress_to_vec(frame).unwrap(), expected, "{name}");
        assert_eq!(zstd::decompressed_size(frame).unwrap(), expected.len(), "{name}");
        assert_eq!(cpu_codec().decompress(frame).unwrap(), expected, "{name}");
        // Exactly the decoded size is enough room, one byte less is not.
        let mut out = vec![0u8; expected.len()];
        assert_eq!(zstd::decompress(frame, &mut out), Ok(expected.len()), "{name}");
        if !expected.is_empty() {
            let mut short = vec![0u8; expected.len() - 1];
            assert!(
                matches!(zstd::decompress(frame, &mut short), Err(DecompressError::OutputTooSmall { .. })),
                "{name}"
            );
        }
    }
    // Both frames of two-frames.zst are decoded (nvCOMP returns only the first).
    let two = zstd::frames(&std::fs::read(data_dir().join("zstd/foreign/two-frames.zst")).unwrap()).unwrap();
    assert_eq!(two.iter().filter(|f| matches!(f, Frame::Zstd { .. })).count(), 2);
}

const INPUTS: [&str; 13] = [
    "one.bin",
    "tiny32.bin",
    "text4k.txt",
    "text.tbl",
    "orderkey.i64",
    "quantity.i32",
    "discount.u8",
    "f32walk.f32",
    "w.f16",
    "one65536.u8",
    "two65536.u8",
    "mixed.u8",
    "runs.u16",
];

#[test]
fn our_streams_round_trip_and_raw_chunks_are_standard_frames() {
    for name in INPUTS {
        let data = input(name);
        for chunk_size in [4096, 65536, 1 << 20] {
            let codec = cpu_codec().with_chunk_size(chunk_size).unwrap();
            for kind in [BitstreamKind::Native, BitstreamKind::Raw, BitstreamKind::WithUncompressedSize] {
                let stream = codec.compress_as(&data, kind).unwrap();
                assert_eq!(codec.decompress(&stream).unwrap(), data, "{name} {kind} {chunk_size}");
                if kind == BitstreamKind::Native {
                    // nvCOMP's format id (6) and spec header, as in nvCOMP's streams: nvCOMP 6
                    // decodes these streams (benches/nvcomp/interop.py on a GPU).
                    let theirs = std::fs::read(data_dir().join("zstd/streams/text.tbl.zstd.native.nvc")).unwrap();
                    assert_eq!((stream[6], &stream[0x38..0x3c]), (theirs[6], &theirs[0x38..0x3c]), "{name}");
                }
                if kind == BitstreamKind::Raw {
                    // libzstd alone decodes it; its header is nvCOMP's: content size, no checksum.
                    assert_eq!(::zstd::bulk::decompress(&stream, data.len()).unwrap(), data, "{name}");
                    let frames = zstd::frames(&stream).unwrap();
                    let [Frame::Zstd { header, .. }] = frames.as_slice() else { panic!("{frames:?}") };
                    assert_eq!(header.content_size, Some(data.len() as u64));
                    assert!(!header.checksum && header.dict_id == 0);
                }
            }
            let checked = codec.clone().with_checksums(true).compress(&data).unwrap();
            assert_eq!(codec.clone().with_checksums(true).decompress(&checked).unwrap(), data);
        }
    }
}

#[test]
fn every_level_round_trips_and_bad_levels_are_refused() {
    let data = input("text.tbl");
    for level in ZstdOptions::MIN_LEVEL..=ZstdOptions::MAX_LEVEL {
        let codec = Codec::on(Algorithm::Zstd(ZstdOptions::default().with_level(level)), Device::Cpu);
        let stream = codec.compress(&data[..20_000]).unwrap();
        assert_eq!(cpu_codec().decompress(&stream).unwrap(), &data[..20_000], "level {level}");
    }
    for level in [ZstdOptions::MIN_LEVEL - 1, ZstdOptions::MAX_LEVEL + 1] {
        let codec = Codec::on(Algorithm::Zstd(ZstdOptions::default().with_level(level)), Device::Cpu);
        assert!(matches!(codec.compress(&data), Err(Error::Unsupported(_))), "level {level}");
        let mut out = vec![0u8; 1 << 20];
        assert_eq!(
            zstd::compress(&data, &mut out, &ZstdOptions::default().with_level(level)),
            Err(Status::NotSupported)
        );
    }
}

/// The default level's ratio on 64 KiB chunks of text is at least nvCOMP's (issue 24's bar).
#[test]
fn default_level_ratio_at_least_nvcomps_on_text() {
    let data = input("text.tbl");
    let ours = cpu_codec().compress(&data).unwrap();
    let nvcomp = std::fs::read(data_dir().join("zstd/streams/text.tbl.zstd.native.nvc")).unwrap();
    assert!(ours.len() <= nvcomp.len(), "ours {} bytes, nvCOMP's {}", ours.len(), nvcomp.len());
}

/// Zstd decompresses on the GPU (the batched codec exists; its temp space is a literal buffer per
/// chunk of at most a block, 128 KiB); its compression stays on the CPU codec (the launch itself
/// is refused in tests/gpu.rs).
#[test]
fn gpu_decompression_cpu_compression() {
    let codec = batched::for_algorithm(&zstd_algorithm()).unwrap();
    assert_eq!(codec.decompress_temp_size(1000, 1 << 24).unwrap(), 1000 << 17);
    assert_eq!(codec.decompress_temp_size(3, 5000).unwrap(), 15000);
    assert!(!zstd_algorithm().has_gpu_compression() && zstd_algorithm().has_gpu_decompression());
}

/// A RAW stream of frames of one content size (a plain zstd file as `--kind zst` writes it)
/// decodes frame by frame (one chunk each, see `Codec::decompress`); other frame sequences as one
/// chunk; a frame that decodes to less than its content size fails either way.
#[test]
fn raw_streams_of_frames_decode_frame_by_frame() {
    let text: Vec<u8> = (0..5000u32).flat_map(|i| format!("{} ", i % 97).into_bytes()).take(5000).collect();
    let frame = |r: std::ops::Range<usize>| zstd::compress_to_vec(&text[r], &ZstdOptions::default()).unwrap();
    let uniform = [frame(0..2000), frame(2000..4000), frame(4000..5000)].concat();
    let mixed = [frame(0..1000), frame(1000..4000), frame(4000..5000)].concat();
    for stream in [&uniform, &mixed] {
        assert_eq!(cpu_codec().decompress(stream).unwrap(), text);
    }
    // A single-segment frame claiming 2000 bytes (2-byte content size: 2000 - 256) whose one
    // raw block holds 1999.
    let mut short = vec![0x28, 0xB5, 0x2F, 0xFD, 0x60, 0xD0, 0x06];
    short.extend(((1999u32 << 3) | 1).to_le_bytes()[..3].iter());
    short.extend(&text[2000..3999]);
    let forged = [frame(0..2000), short, frame(4000..5000)].concat();
    assert!(cpu_codec().decompress(&forged).is_err());
}

// ---- hostile chunks ----

/// A frame of `data` written by libzstd with a content checksum (so corruption is caught).
fn checked_frame(data: &[u8]) -> Vec<u8> {
    let mut c = ::zstd::bulk::Compressor::new(3).unwrap();
    c.set_parameter(::zstd::zstd_safe::CParameter::ChecksumFlag(true)).unwrap();
    c.compress(data).unwrap()
}

/// Decodes `chunk` into `capacity` bytes and asks its size: never a panic; `Ok` only with
/// sizes that agree.
fn decode(chunk: &[u8], capacity: usize) -> Result<Vec<u8>, DecompressError> {
    let mut out = vec![0u8; capacity];
    let n = zstd::decompress(chunk, &mut out)?;
    out.truncate(n);
    if let Ok(size) = zstd::decompressed_size(chunk) {
        assert_eq!(size, n, "size query and decode disagree");
    }
    Ok(out)
}

#[test]
fn hostile_truncations_and_bit_flips() {
    let data = input("text4k.txt");
    let samples = [
        checked_frame(&data),
        zstd::compress_to_vec(&data, &ZstdOptions::default()).unwrap(),
        zstd::compress_to_vec(&input("runs.u16")[..8192], &ZstdOptions::default()).unwrap(),
    ];
    for frame in &samples {
        for cut in 0..frame.len() {
            assert!(decode(&frame[..cut], 1 << 16).is_err(), "a frame cut at {cut} of {}", frame.len());
        }
        for at in 0..frame.len() {
            for bit in [0, 3, 7] {
                let mut bad = frame.clone();
                bad[at] ^= 1 << bit;
                let _ = decode(&bad, 1 << 16);
            }
        }
    }
    // With a content checksum, a flip anywhere is an error or the exact input.
    for at in 0..samples[0].len() {
        let mut bad = samples[0].clone();
        bad[at] ^= 0x10;
        if let Ok(out) = decode(&bad, 1 << 16) {
            assert_eq!(out, data, "flip at {at} decoded to other bytes");
        }
    }
}

/// A frame header: FHD, then the window descriptor, dictionary id and content size fields.
fn frame_with_header(fhd: u8, fields: &[u8], body: &[u8]) -> Vec<u8> {
    [&0xFD2F_B528u32.to_le_bytes()[..], &[fhd], fields, body].concat()
}

/// One last raw block holding `bytes`.
fn raw_block(bytes: &[u8]) -> Vec<u8> {
    let h = ((bytes.len() as u32) << 3) | 1;
    [&h.to_le_bytes()[..3], bytes].concat()
}

#[test]
fn hostile_crafted_frames() {
    let block = raw_block(b"hello");
    // A valid hand-written frame: window descriptor 0 (1 KiB), no content size.
    let plain = frame_with_header(0x00, &[0x00], &block);
    assert_eq!(decode(&plain, 64).unwrap(), b"hello");

    // Content size of 2^60 (8-byte field): refused before anything is allocated or decoded.
    let forged = frame_with_header(0xC0, &[&[0x00][..], &(1u64 << 60).to_le_bytes()].concat(), &block);
    assert!(matches!(decode(&forged, 64), Err(DecompressError::OutputTooSmall { needed, .. }) if needed == 1 << 60));
    assert!(zstd::decompressed_size(&forged).is_err());
    assert!(cpu_codec().decompress(&forged).is_err());
    // A size prefix claiming 2^39 bytes (below detection's 1 TiB): above 2^15 times the stream.
    let forged_usize = gpucomp::container::write_with_uncompressed_size(1 << 39, &plain);
    assert!(matches!(cpu_codec().decompress(&forged_usize), Err(Error::InvalidStream(_))));

    // Window descriptors above 2^27 (0x88), up to exponent 31 (3.75 TiB): refused, NotSupported.
    for w in [0x89u8, 0x90, 0xF8, 0xFF] {
        let big = frame_with_header(0x00, &[w], &block);
        let e = decode(&big, 64).unwrap_err();
        assert!(matches!(e, DecompressError::WindowTooLarge { .. }), "{w:#x}: {e}");
        assert_eq!(Status::from(e), Status::NotSupported);
        assert!(e.to_string().contains("window"));
    }
    // 2^27 exactly is accepted.
    assert_eq!(decode(&frame_with_header(0x00, &[0x88], &block), 64).unwrap(), b"hello");

    // Dictionary ids of 1, 2 and 4 bytes: refused with a clear error.
    for (flag, id) in [(1u8, vec![7u8]), (2, vec![1, 2]), (3, vec![1, 2, 3, 4])] {
        let dict = frame_with_header(flag, &[&[0x00][..], &id].concat(), &block);
        let e = decode(&dict, 64).unwrap_err();
        assert!(matches!(e, DecompressError::Dictionary { .. }), "{e}");
        assert!(e.to_string().contains("dictionar"), "{e}");
        assert_eq!(Status::from(e), Status::NotSupported);
    }

    // Reserved bit, reserved block type, a block above the window, trailing bytes, empty chunk.
    assert!(matches!(decode(&frame_with_header(0x08, &[0], &block), 64), Err(DecompressError::ReservedBit { .. })));
    let reserved_type = frame_with_header(0x00, &[0], &[0x07, 0, 0]);
    assert!(matches!(decode(&reserved_type, 64), Err(DecompressError::ReservedBlockType { .. })));
    let over = [&((2000u32 << 3) | 1).to_le_bytes()[..3], &[0u8; 2000][..]].concat();
    assert!(matches!(
        decode(&frame_with_header(0x00, &[0], &over), 1 << 16),
        Err(DecompressError::BlockTooLarge { max: 1024, .. })
    ));
    let rle_over = [&((200_000u32 << 3) | 3).to_le_bytes()[..3], &[0u8][..]].concat();
    assert!(matches!(
        decode(&frame_with_header(0x00, &[0x50], &rle_over), 1 << 20),
        Err(DecompressError::BlockTooLarge { max: 131072, .. })
    ));
    for tail in [&[0u8][..], &[1, 2, 3], &[0x28, 0xB5, 0x2F, 0xFD], &[0x50, 0x2A, 0x4D, 0x18, 9, 0, 0, 0]] {
        let e = decode(&[&plain[..], tail].concat(), 64).unwrap_err();
        assert!(matches!(e, DecompressError::BadMagic { .. } | DecompressError::Truncated { .. }), "{e}");
    }
    assert_eq!(decode(&[], 64), Err(DecompressError::Empty));

    // Skippable frames anywhere are skipped; several frames all decode.
    let skip = [&0x184D_2A5Fu32.to_le_bytes()[..], &3u32.to_le_bytes(), b"xyz"].concat();
    let chunk = [&skip[..], &plain, &skip, &plain, &skip].concat();
    assert_eq!(decode(&chunk, 64).unwrap(), b"hellohello");
    assert_eq!(decode(&skip, 64).unwrap(), b"");

    // A frame without a content size whose output does not fit.
    assert!(matches!(decode(&plain, 4), Err(DecompressError::OutputTooSmall { .. })));
    // A wrong content size or checksum.
    let wrong_size = frame_with_header(0x20, &[6], &block);
    assert!(matches!(decode(&wrong_size, 64), Err(DecompressError::Corrupt { .. })));
    let mut bad_sum = checked_frame(b"some bytes to check, some bytes to check");
    let last = bad_sum.len() - 1;
    bad_sum[last] ^= 1;
    assert!(matches!(decode(&bad_sum, 64), Err(DecompressError::Corrupt { .. })));
}

/// RLE blocks of 128 KiB expand 2^15-fold: the densest chunk, and the bound the codec checks.
#[test]
fn densest_chunk_is_within_max_expansion() {
    let rle = [&(((128u32 << 10) << 3) | 2).to_le_bytes()[..3], &[7u8][..]].concat();
    let last = [&(((128u32 << 10) << 3) | 3).to_le_bytes()[..3], &[7u8][..]].concat();
    let body = [rle.repeat(7), last].concat();
    let frame = frame_with_header(0x00, &[0x58], &body); // 256 KiB window
    let size = zstd::decompressed_size(&frame).unwrap();
    assert_eq!(size, 8 << 17);
    assert!(size as u64 <= frame.len() as u64 * gpucomp::codec::max_expansion(&zstd_algorithm()));
    assert_eq!(cpu_codec().decompress(&frame).unwrap(), vec![7u8; size]);
    // Zero input at the largest chunk size: within the bound too.
    let zeros = vec![0u8; 1 << 24];
    let stream = cpu_codec().with_chunk_size(1 << 24).unwrap().compress_as(&zeros, BitstreamKind::Raw).unwrap();
    assert!((1u64 << 24) <= stream.len() as u64 * cpu::zstd::MAX_EXPANSION);
}

/// Many tiny frames without a content size, and many skippable frames, in one chunk: sized and
/// decoded in one pass each (one counting context for all frames), quickly.
#[test]
fn many_small_frames_in_one_chunk() {
    let plain = frame_with_header(0x00, &[0x00], &raw_block(b"hello"));
    let skip = [&0x184D_2A50u32.to_le_bytes()[..], &0u32.to_le_bytes()].concat();
    let chunk = [plain, skip].concat().repeat(50_000);
    let start = std::time::Instant::now();
    assert_eq!(zstd::decompressed_size(&chunk), Ok(250_000));
    let out = decode(&chunk, 250_000).unwrap();
    assert_eq!(out, b"hello".repeat(50_000));
    assert!(start.elapsed() < std::time::Duration::from_secs(5), "{:?}", start.elapsed());
}
