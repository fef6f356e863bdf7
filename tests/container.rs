//! Container tests: nvCOMP 6 NVCOMP_NATIVE / RAW / WITH_UNCOMPRESSED_SIZE against the LZ4 golden
//! streams in `tests/data/golden/` (never `../shared`), checksums, and hostile input.
mod common;

use common::Rng;
use gpucomp::container::{
    self, checksum, detect, write_native, write_raw, write_with_uncompressed_size, BitstreamKind, CheckOutcome,
    ChecksumPolicy, ChecksumTables, NativeLayout, NativeStream, RawStream, WithUncompressedSize, WriteChecksums,
};
use gpucomp::{Algorithm, BitshuffleMode, DataType, Error, Format, Status};
use std::path::PathBuf;

fn golden() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

struct Row {
    stream: String,
    input: String,
    kind: String,
    options: String,
    input_bytes: u64,
    stream_bytes: usize,
}

impl Row {
    fn bytes(&self) -> Vec<u8> {
        std::fs::read(golden().join(&self.stream)).unwrap()
    }
    fn input_data(&self) -> Vec<u8> {
        std::fs::read(golden().join(&self.input)).unwrap()
    }
    fn option(&self, key: &str) -> Option<&str> {
        self.options.split(';').find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
    }
    fn chunk_size(&self) -> u64 {
        self.option("uncomp_chunk_size").map_or(65536, |v| v.parse().unwrap())
    }
    fn checksummed(&self) -> bool {
        self.option("checksum_policy").is_some()
    }
    fn data_type(&self) -> DataType {
        match self.option("data_type").map(|t| t.trim_start_matches(['<', '|'])) {
            None => DataType::Char,
            Some("u1") => DataType::Uchar,
            Some("i2") => DataType::Short,
            Some("u2") => DataType::Ushort,
            Some("i4") => DataType::Int,
            Some("u4") => DataType::Uint,
            Some(t) => panic!("unexpected data type {t}"),
        }
    }
    fn bitshuffle(&self) -> BitshuffleMode {
        match self.option("bitshuffle_mode") {
            None => BitshuffleMode::None,
            Some("NVCOMP_BITSHUFFLE_MSB_FIRST") => BitshuffleMode::MsbFirst,
            Some("NVCOMP_BITSHUFFLE_LSB_FIRST") => BitshuffleMode::LsbFirst,
            Some(m) => panic!("unexpected bitshuffle {m}"),
        }
    }
}

fn manifest() -> Vec<Row> {
    let text = std::fs::read_to_string(golden().join("MANIFEST.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("stream,input,algorithm,bitstream_kind,options,input_bytes,stream_bytes,sha256"));
    let rows: Vec<Row> = lines
        .map(|l| l.split(',').collect::<Vec<&str>>())
        .inspect(|f| assert_eq!(f.len(), 8, "{f:?}"))
        .filter(|f| f[2] == "LZ4")
        .map(|f| Row {
            stream: f[0].into(),
            input: f[1].into(),
            kind: f[3].into(),
            options: f[4].into(),
            input_bytes: f[5].parse().unwrap(),
            stream_bytes: f[6].parse().unwrap(),
        })
        .collect();
    assert_eq!(rows.len(), 154);
    rows
}

fn native_rows() -> Vec<Row> {
    manifest().into_iter().filter(|r| r.kind == "NVCOMP_NATIVE").collect()
}

fn round8(x: usize) -> usize {
    x.next_multiple_of(8)
}

/// Everything a parsed stream offers must work without panicking and stay inside the buffer.
fn exercise(s: &NativeStream<'_>, buf: &[u8]) {
    assert!(s.stream_len() <= buf.len());
    assert!(s.tables_end() <= s.comp_data_offset());
    let mut n = 0;
    for c in s.chunks() {
        assert!(c.position + c.data.len() <= s.stream_len());
        assert!(c.uncompressed_size <= s.uncomp_chunk_size());
        n += 1;
    }
    assert_eq!(n, s.num_chunks());
    assert!(s.chunk(s.num_chunks()).is_none());
    let _ = s.algorithm();
    let _ = s.verify_compressed(ChecksumPolicy::ComputeAndVerify);
    let _ = s.gpu_layout_deviations();
    assert!(container::spec_fields(s.format(), s.spec_header()).is_some());
}

#[test]
fn native_goldens_parse_and_follow_the_layout_rules() {
    let rows = native_rows();
    assert_eq!(rows.len(), 142);
    for r in &rows {
        let b = r.bytes();
        assert_eq!(b.len(), r.stream_bytes);
        assert_eq!(detect(&b), BitstreamKind::Native, "{}", r.stream);
        let s = NativeStream::parse(&b).unwrap_or_else(|e| panic!("{}: {e}", r.stream));
        let h = s.header();
        assert_eq!((h.major_version, h.minor_version, h.format_id, h.pad_07, h.pad_37), (6, 0, 0, 0, 0));
        assert_eq!((h.checksum_slot_2c, h.include_chunk_starts), (0, 1));
        assert_eq!(s.format(), Format::Lz4);
        let Algorithm::Lz4(o) = s.algorithm().unwrap() else { panic!() };
        assert_eq!((o.data_type, o.bitshuffle), (r.data_type(), r.bitshuffle()), "{}", r.stream);
        assert_eq!(s.uncompressed_size(), r.input_bytes);
        assert_eq!(s.uncomp_chunk_size(), r.chunk_size());
        let n = s.num_chunks();
        assert_eq!(n as u64, r.input_bytes.div_ceil(r.chunk_size()));
        assert_eq!(s.has_checksums(), r.checksummed(), "{}", r.stream);
        assert_eq!(s.stored_header_checksum() != 0, r.checksummed());
        // Tables right after the 56 + 12 byte header, data right after the tables.
        assert_eq!(s.tables_offset(), 0x48);
        let entry = if r.checksummed() { 24 } else { 16 };
        assert_eq!(s.comp_data_offset(), round8(0x48 + entry * n));
        // Chunks in order, 8-aligned, packed, zero padding; comp_data_size ends at the last chunk.
        let mut expect = 0;
        let mut total_uncompressed = 0;
        for (i, c) in s.chunks().enumerate() {
            assert_eq!(c.offset, expect, "{} chunk {i}", r.stream);
            assert_eq!(c.offset % 8, 0);
            assert_eq!(c.position, s.comp_data_offset() + c.offset);
            let end = c.offset + c.data.len();
            expect = if i + 1 < n { round8(end) } else { end };
            assert!(s.data_region()[end..expect].iter().all(|&x| x == 0));
            total_uncompressed += c.uncompressed_size;
        }
        assert_eq!(total_uncompressed, r.input_bytes);
        assert_eq!(s.comp_data_size(), expect);
        assert_eq!(s.stream_len(), b.len());
        assert!(s.trailing().is_empty());
        let padded: usize = s.chunk_sizes().iter().map(|&x| round8(x)).sum();
        assert_eq!(s.comp_data_offset() + padded - (round8(s.chunk_sizes()[n - 1]) - s.chunk_sizes()[n - 1]), b.len());
        assert!(s.gpu_layout_deviations().is_empty(), "{}: {:?}", r.stream, s.gpu_layout_deviations());
    }
}

#[test]
fn native_golden_chunks_decode_to_the_input() {
    let mut decoded = 0;
    for r in native_rows().iter().filter(|r| r.bitshuffle() == BitshuffleMode::None) {
        let b = r.bytes();
        let input = r.input_data();
        let s = NativeStream::parse(&b).unwrap();
        for c in s.chunks() {
            let range = s.chunk_uncompressed_range(c.index).unwrap();
            let out = lz4_flex::block::decompress(c.data, c.uncompressed_size as usize)
                .unwrap_or_else(|e| panic!("{} chunk {}: {e}", r.stream, c.index));
            assert_eq!(out, input[range.start as usize..range.end as usize], "{} chunk {}", r.stream, c.index);
            decoded += 1;
        }
    }
    assert!(decoded > 200, "{decoded}");
}

#[test]
fn every_algorithms_native_goldens_reframe_byte_for_byte() {
    // The container does not depend on the payload format: every native stream nvCOMP wrote
    // (LZ4, Cascaded, ANS, Bitcomp) parses, and its own chunks framed again give the same bytes.
    let text = std::fs::read_to_string(golden().join("MANIFEST.csv")).unwrap();
    let mut formats = std::collections::BTreeMap::new();
    for f in text.lines().skip(1).map(|l| l.split(',').collect::<Vec<_>>()).filter(|f| f[3] == "NVCOMP_NATIVE") {
        let b = std::fs::read(golden().join(f[0])).unwrap();
        let s = NativeStream::parse(&b).unwrap_or_else(|e| panic!("{}: {e}", f[0]));
        let payloads: Vec<&[u8]> = s.chunks().map(|c| c.data).collect();
        let ck = match s.checksum_tables() {
            Some(t) => WriteChecksums::Uncompressed(&t.uncompressed),
            None => WriteChecksums::None,
        };
        let out =
            write_native(s.format(), s.spec_header(), s.uncomp_chunk_size(), s.uncompressed_size(), &payloads, ck);
        assert!(out.unwrap() == b, "{}: reframed stream differs", f[0]);
        *formats.entry(f[2].to_string()).or_insert(0) += 1;
    }
    assert_eq!(formats.len(), 4, "{formats:?}");
}

#[test]
fn rewriting_native_goldens_reproduces_them_byte_for_byte() {
    let mut with_checksums = 0;
    let mut from_input_equal = 0;
    for r in &native_rows() {
        let b = r.bytes();
        let s = NativeStream::parse(&b).unwrap();
        let payloads: Vec<&[u8]> = s.chunks().map(|c| c.data).collect();
        let stored = s.checksum_tables().map(|t| t.uncompressed.clone());
        let ck = match &stored {
            Some(u) => WriteChecksums::Uncompressed(u),
            None => WriteChecksums::None,
        };
        let out =
            write_native(s.format(), s.spec_header(), s.uncomp_chunk_size(), s.uncompressed_size(), &payloads, ck)
                .unwrap();
        assert!(out == b, "{}: rewritten stream differs", r.stream);

        // The same through the layout, as a GPU path would: header on the host, chunks placed.
        let layout = NativeLayout::for_algorithm(
            &s.algorithm().unwrap(),
            s.uncomp_chunk_size(),
            s.uncompressed_size(),
            s.chunk_sizes(),
            s.has_checksums(),
        )
        .unwrap();
        assert_eq!(layout.total_size(), b.len());
        assert_eq!(layout.comp_data_offset(), s.comp_data_offset());
        let mut buf = vec![0xabu8; layout.total_size()];
        for (i, p) in payloads.iter().enumerate() {
            layout.write_chunk(&mut buf, i, p).unwrap();
            assert_eq!(layout.chunk_position(i), s.chunk_position(i));
            assert_eq!(layout.chunk_range(i), s.chunk_range(i));
        }
        for pad in layout.padding_ranges() {
            assert!(buf[pad].iter().all(|&x| x == 0));
        }
        let tables = stored.as_ref().map(|u| ChecksumTables {
            compressed: layout.compressed_checksums(&buf).unwrap(),
            uncompressed: u.clone(),
        });
        let header = layout.header_bytes(tables.as_ref()).unwrap();
        buf[..header.len()].copy_from_slice(&header);
        assert!(buf == b, "{}: layout-assembled stream differs", r.stream);

        if s.has_checksums() {
            with_checksums += 1;
            // Uncompressed checksums computed from the input: equal except where nvCOMP stored 0.
            let input = r.input_data();
            let from_input = write_native(
                s.format(),
                s.spec_header(),
                s.uncomp_chunk_size(),
                s.uncompressed_size(),
                &payloads,
                WriteChecksums::FromInput(&input),
            )
            .unwrap();
            let via_algorithm = container::write_native_from_input(
                &s.algorithm().unwrap(),
                s.uncomp_chunk_size(),
                &input,
                &payloads,
                true,
            )
            .unwrap();
            assert!(via_algorithm == from_input);
            if from_input == b {
                from_input_equal += 1;
            } else {
                assert!(stored.as_ref().unwrap().contains(&0), "{}", r.stream);
                let again = NativeStream::parse(&from_input).unwrap();
                again.verify_compressed(ChecksumPolicy::ComputeAndVerify).unwrap();
                again.verify_uncompressed(&input).unwrap();
            }
        }
    }
    assert_eq!(with_checksums, 113);
    assert_eq!(from_input_equal, 112);
}

#[test]
fn checksums_verify_on_every_checksummed_golden() {
    let (mut header, mut comp, mut decomp, mut decomp_zero, mut streams) = (0, 0, 0, 0, 0);
    for r in native_rows().iter().filter(|r| r.checksummed()) {
        let b = r.bytes();
        let input = r.input_data();
        let s = NativeStream::parse(&b).unwrap();
        streams += 1;
        assert!(s.comp_data_offset() < checksum::HEADER_CHECKSUM_ESTABLISHED_BELOW);
        assert!(matches!(s.check_header_checksum(), CheckOutcome::Match(_)), "{}", r.stream);
        header += 1;
        for i in 0..s.num_chunks() {
            assert!(matches!(s.check_chunk_checksum(i), Some(CheckOutcome::Match(_))), "{} chunk {i}", r.stream);
            comp += 1;
            let range = s.chunk_uncompressed_range(i).unwrap();
            match s.check_uncompressed_checksum(i, &input[range.start as usize..range.end as usize]).unwrap() {
                CheckOutcome::Match(_) => decomp += 1,
                CheckOutcome::NotStored => {
                    decomp_zero += 1;
                    assert!(r.stream.starts_with("streams/ck65536."), "{}", r.stream);
                }
                o => panic!("{} chunk {i}: {o}", r.stream),
            }
        }
        s.verify_compressed(ChecksumPolicy::ComputeAndVerify).unwrap();
        s.verify_uncompressed(&input).unwrap();
    }
    assert_eq!((streams, header, comp, decomp, decomp_zero), (113, 113, 114, 113, 1));
}

#[test]
fn checksum_test_vectors_from_formats_md() {
    let input = |name: &str| std::fs::read(golden().join("inputs").join(name)).unwrap();
    let ck064 = input("ck064.bin");
    assert_eq!(checksum::chunk_checksum(&ck064, 0), 0xee63_2212);
    assert_eq!(checksum::chunk_checksum(&ck064, 0), checksum::crc32(&ck064[..32]) ^ checksum::crc32(&ck064[32..]));
    assert_eq!(checksum::chunk_checksum(&input("ck081.bin"), 0), 0x970a_7bcb);
    let discount = input("discount.u8");
    assert_eq!(checksum::chunk_checksum(&discount[..65536], 0), 0xef04_0292);
    assert_eq!(checksum::chunk_checksum(&discount[65536..], 65536), 0x9feb_3e28);
}

#[test]
fn corruption_is_bad_checksum() {
    let mut rng = Rng::here();
    let mut flips = 0;
    for r in native_rows().iter().filter(|r| r.checksummed()) {
        let b = r.bytes();
        let input = r.input_data();
        let s = NativeStream::parse(&b).unwrap();
        for i in 0..s.num_chunks() {
            let range = s.chunk_range(i).unwrap();
            for pos in [range.start, range.end - 1, range.start + rng.index(range.len())] {
                let mut bad = b.clone();
                bad[pos] ^= 1 << rng.index(8);
                let t = NativeStream::parse(&bad).unwrap();
                match t.verify_compressed(ChecksumPolicy::ComputeAndVerifyIfPresent) {
                    Err(Error::Chunk { chunk, status: Status::BadChecksum }) => assert_eq!(chunk, i),
                    other => panic!("{} chunk {i} byte {pos}: {other:?}", r.stream),
                }
                // A policy that does not verify does not look.
                t.verify_compressed(ChecksumPolicy::ComputeAndNoVerify).unwrap();
                flips += 1;
            }
            // A flipped output byte fails its uncompressed checksum (where one is stored).
            let ur = s.chunk_uncompressed_range(i).unwrap();
            let mut out = input.clone();
            let pos = ur.start as usize + rng.index((ur.end - ur.start) as usize);
            out[pos] ^= 0x80;
            let stored = s.checksum_tables().unwrap().uncompressed[i];
            match s.verify_uncompressed(&out) {
                Err(Error::Chunk { chunk, status: Status::BadChecksum }) => assert_eq!(chunk, i),
                Ok(()) => assert_eq!(stored, 0, "{}", r.stream),
                other => panic!("{other:?}"),
            }
        }
        // A changed stored checksum (still parseable) breaks the header word.
        let mut bad = b.clone();
        let at = s.tables_offset() + 16 * s.num_chunks();
        bad[at] ^= 0x01;
        match NativeStream::parse(&bad).unwrap().verify_compressed(ChecksumPolicy::ComputeAndVerify) {
            Err(Error::InvalidArgument { status: Status::BadChecksum, .. }) => {}
            other => panic!("{}: {other:?}", r.stream),
        }
    }
    assert!(flips >= 300, "{flips}");
    // Verification required on a stream without checksums.
    let b = std::fs::read(golden().join("streams/text.tbl.lz4.native.nvc")).unwrap();
    let s = NativeStream::parse(&b).unwrap();
    s.verify_compressed(ChecksumPolicy::ComputeAndVerifyIfPresent).unwrap();
    match s.verify_compressed(ChecksumPolicy::ComputeAndVerify) {
        Err(Error::InvalidArgument { status: Status::CannotVerifyChecksums, .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_single_bit_flip_in_a_checksummed_header_is_caught() {
    // With checksums, the header word covers [0, comp_data_offset): every flip there is either
    // rejected by the parser or fails verification.
    let mut n = 0;
    for name in [
        "streams/discount.u8.lz4.native.checksum=COMPUTE_AND_NO_VERIFY.nvc",
        "streams/text4k.txt.lz4.native.checksum_policy=COMPUTE_AND_VERIFY.nvc",
        "streams/ck08192.bin.lz4.native.checksum_policy=COMPUTE_AND_VERIFY.nvc",
    ] {
        let b = std::fs::read(golden().join(name)).unwrap();
        let d = NativeStream::parse(&b).unwrap().comp_data_offset();
        for bit in 0..d * 8 {
            let mut bad = b.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            if let Ok(s) = NativeStream::parse(&bad) {
                exercise(&s, &bad);
                assert!(s.verify_compressed(ChecksumPolicy::ComputeAndVerify).is_err(), "{name}: bit {bit} not caught");
            }
            n += 1;
        }
    }
    assert_eq!(n, (120 + 96 + 96) * 8);
}

#[test]
fn raw_and_with_uncompressed_size_goldens() {
    let rows = manifest();
    let (mut raw, mut usize_) = (0, 0);
    for r in &rows {
        let b = r.bytes();
        let input = r.input_data();
        match r.kind.as_str() {
            "RAW" => {
                raw += 1;
                assert_eq!(detect(&b), BitstreamKind::Raw, "{}", r.stream);
                let s = RawStream::new(&b);
                assert_eq!(s.payload(), &b[..]);
                assert_eq!(write_raw(s.payload()), b);
                let out = lz4_flex::block::decompress(s.payload(), input.len()).unwrap();
                assert_eq!(out, input);
            }
            "WITH_UNCOMPRESSED_SIZE" => {
                usize_ += 1;
                assert_eq!(detect(&b), BitstreamKind::WithUncompressedSize, "{}", r.stream);
                let s = WithUncompressedSize::parse(&b).unwrap();
                assert_eq!(s.uncompressed_size(), r.input_bytes);
                let raw_file = std::fs::read(golden().join(r.stream.replace(".usize.", ".raw."))).unwrap();
                assert_eq!(s.payload(), &raw_file[..]);
                assert_eq!(s.raw().payload(), &raw_file[..]);
                assert_eq!(container::split_with_uncompressed_size(&b).unwrap(), (r.input_bytes, &raw_file[..]));
                assert_eq!(write_with_uncompressed_size(s.uncompressed_size(), s.payload()), b);
                let out = lz4_flex::block::decompress(s.payload(), s.uncompressed_size() as usize).unwrap();
                assert_eq!(out, input);
                assert_eq!(detect(&b), BitstreamKind::WithUncompressedSize);
            }
            _ => {}
        }
    }
    assert_eq!((raw, usize_), (6, 6));
}

#[test]
fn with_uncompressed_size_rejects_bad_prefixes() {
    assert!(WithUncompressedSize::parse(&[]).is_err());
    assert!(WithUncompressedSize::parse(&[1; 15]).is_err());
    let mut b = write_with_uncompressed_size(5, &[0x50, 1, 2, 3, 4, 5]);
    assert!(WithUncompressedSize::parse(&b).is_ok());
    b[12] = 1;
    assert!(WithUncompressedSize::parse(&b).is_err());
    assert!(WithUncompressedSize::parse(&write_with_uncompressed_size(5, &[])).is_err());
    assert_eq!(WithUncompressedSize::parse(&write_with_uncompressed_size(0, &[])).unwrap().uncompressed_size(), 0);
    // Detection rule edges.
    assert_eq!(detect(&[]), BitstreamKind::Raw);
    assert_eq!(detect(&[0x27, 0x13, 0x91]), BitstreamKind::Raw);
    assert_eq!(detect(&[0x27, 0x13, 0x91, 0x52]), BitstreamKind::Native);
    assert_eq!(detect(&write_with_uncompressed_size(5, &[])), BitstreamKind::Raw); // no payload
    assert_eq!(detect(&write_with_uncompressed_size(0, &[1])), BitstreamKind::Raw); // size 0
    assert_eq!(detect(&write_with_uncompressed_size(1 << 40, &[1])), BitstreamKind::WithUncompressedSize);
    assert_eq!(detect(&write_with_uncompressed_size((1 << 40) + 1, &[1])), BitstreamKind::Raw);
    assert_eq!(
        (BitstreamKind::Native.to_raw(), BitstreamKind::Raw.to_raw(), BitstreamKind::WithUncompressedSize.to_raw()),
        (0, 1, 2)
    );
}

#[test]
fn cpu_writer_stream_is_accepted() {
    // LZ4CPUManager's 1-byte stream (FORMATS B): unwritten pads (0xab), comp_data_size rounded to 8.
    let mut b = vec![0xabu8; 96];
    b[0..4].copy_from_slice(&[0x27, 0x13, 0x91, 0x52]);
    b[4..7].copy_from_slice(&[6, 0, 0]);
    b[8..16].copy_from_slice(&8u64.to_le_bytes());
    b[16..24].copy_from_slice(&1u64.to_le_bytes());
    b[24..32].copy_from_slice(&1u64.to_le_bytes());
    b[32..40].copy_from_slice(&65536u64.to_le_bytes());
    b[40..44].copy_from_slice(&88u32.to_le_bytes());
    b[44..52].fill(0);
    b[52..55].copy_from_slice(&[1, 0, 0]);
    b[56..68].fill(0);
    b[72..80].copy_from_slice(&0u64.to_le_bytes());
    b[80..88].copy_from_slice(&2u64.to_le_bytes());
    b[88..90].copy_from_slice(&[0x10, 0x41]);
    let s = NativeStream::parse(&b).unwrap();
    assert_eq!(s.chunk(0), Some(&[0x10u8, 0x41][..]));
    assert_eq!(lz4_flex::block::decompress(s.chunk(0).unwrap(), 1).unwrap(), b"A");
    let dev = s.gpu_layout_deviations();
    assert!(dev.iter().any(|d| d.contains("pad")), "{dev:?}");
    assert!(dev.iter().any(|d| d.contains("comp_data_size is 8")), "{dev:?}");
    // The GPU writer writes 90 bytes for the same chunk.
    let gpu = write_native(Format::Lz4, &[0; 12], 65536, 1, &[&[0x10, 0x41]], WriteChecksums::None).unwrap();
    assert_eq!(gpu.len(), 90);
    assert_eq!(&gpu[88..], &[0x10, 0x41]);
    assert!(NativeStream::parse(&gpu).unwrap().gpu_layout_deviations().is_empty());
}

#[test]
fn truncations_at_every_length_are_errors() {
    let mut n = 0;
    for name in [
        "streams/one.bin.lz4.native.nvc",
        "streams/tiny32.bin.lz4.native.checksum_policy=COMPUTE_AND_VERIFY.nvc",
        "streams/text4k.txt.lz4.native.checksum_policy=COMPUTE_AND_VERIFY.nvc",
        "streams/discount.u8.lz4.native.uncomp_chunk_size=4096.nvc",
    ] {
        let b = std::fs::read(golden().join(name)).unwrap();
        for k in 0..b.len() {
            assert!(NativeStream::parse(&b[..k]).is_err(), "{name} cut at {k}");
            let _ = detect(&b[..k]);
            n += 1;
        }
        assert!(NativeStream::parse(&b).is_ok());
        // Extra bytes after the stream are ignored (and reported).
        let mut longer = b.clone();
        longer.extend_from_slice(&[1, 2, 3]);
        let s = NativeStream::parse(&longer).unwrap();
        assert_eq!(s.bytes(), &b[..]);
        assert_eq!(s.trailing(), &[1, 2, 3]);
    }
    assert!(n > 5000);
}

#[test]
fn random_bit_flips_in_header_and_tables_never_panic() {
    let mut rng = Rng::here();
    let rows = native_rows();
    let mut accepted = 0;
    let mut rejected = 0;
    for r in rows.iter().step_by(5) {
        let b = r.bytes();
        let d = NativeStream::parse(&b).unwrap().comp_data_offset();
        for _ in 0..300 {
            let mut bad = b.clone();
            for _ in 0..1 + rng.index(3) {
                let pos = rng.index(d);
                bad[pos] ^= 1 << rng.index(8);
            }
            match NativeStream::parse(&bad) {
                Ok(s) => {
                    exercise(&s, &bad);
                    accepted += 1;
                }
                Err(Error::InvalidStream(_)) => rejected += 1,
                Err(e) => panic!("unexpected error kind: {e}"),
            }
        }
    }
    assert!(rejected > 1000 && accepted > 100, "{rejected} {accepted}");
}

fn put64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn expect_invalid(b: &[u8], what: &str, reason_contains: &str) {
    match NativeStream::parse(b) {
        Err(Error::InvalidStream(reason)) => {
            assert!(reason.contains(reason_contains), "{what}: reason {reason:?} lacks {reason_contains:?}")
        }
        Err(e) => panic!("{what}: unexpected error {e}"),
        Ok(_) => panic!("{what}: accepted"),
    }
}

#[test]
fn absurd_header_values_are_rejected() {
    let b = std::fs::read(golden().join("streams/discount.u8.lz4.native.uncomp_chunk_size=4096.nvc")).unwrap();
    let s = NativeStream::parse(&b).unwrap();
    let n = s.num_chunks();
    let t = s.tables_offset();
    let edit = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut x = b.clone();
        f(&mut x);
        x
    };
    for v in [u64::MAX, 1 << 61, 1 << 32, n as u64 + 1, n as u64 - 1, 0] {
        expect_invalid(&edit(&|x| put64(x, 0x18, v)), &format!("num_chunks {v}"), "num_chunks");
    }
    // num_chunks consistent with an absurd decompressed size: the tables do not fit.
    expect_invalid(
        &edit(&|x| {
            put64(x, 0x10, u64::MAX);
            put64(x, 0x18, u64::MAX.div_ceil(4096));
        }),
        "huge decomp",
        "do not fit",
    );
    expect_invalid(
        &edit(&|x| {
            put64(x, 0x10, u64::MAX);
            put64(x, 0x20, u32::MAX as u64);
            put64(x, 0x18, u64::MAX.div_ceil(u32::MAX as u64));
        }),
        "huge decomp, big chunks",
        "do not fit",
    );
    expect_invalid(&edit(&|x| put64(x, 0x20, 0)), "chunk size 0", "uncomp_chunk_size");
    expect_invalid(&edit(&|x| put64(x, 0x20, u64::MAX)), "chunk size max", "uncomp_chunk_size");
    expect_invalid(&edit(&|x| put64(x, 0x20, 1 << 32)), "chunk size 2^32", "uncomp_chunk_size");
    for v in [u64::MAX, u64::MAX - 8, 1 << 63, b.len() as u64] {
        expect_invalid(&edit(&|x| put64(x, 0x08, v)), &format!("comp_data_size {v}"), "past the end");
    }
    for v in [u32::MAX, 0, 8, s.comp_data_offset() as u32 + 8, s.comp_data_offset() as u32 - 8] {
        expect_invalid(
            &edit(&|x| x[0x28..0x2c].copy_from_slice(&v.to_le_bytes())),
            &format!("data offset {v}"),
            "comp_data_offset",
        );
    }
    expect_invalid(&edit(&|x| x[0] ^= 1), "magic", "magic");
    expect_invalid(&edit(&|x| x[6] = 9), "format 9", "format");
    expect_invalid(&edit(&|x| x[6] = 0xff), "format 255", "format");
    expect_invalid(&edit(&|x| x[0x34] = 0), "no chunk starts", "include_chunk_starts");
    expect_invalid(&edit(&|x| x[0x35] = 1), "one checksum flag", "checksum flags");
    expect_invalid(&edit(&|x| x[0x36] = 2), "flag 2", "checksum flags");
    // Turning checksums on moves the tables: the data offset no longer matches.
    expect_invalid(
        &edit(&|x| {
            x[0x35] = 1;
            x[0x36] = 1;
        }),
        "checksums on",
        "comp_data_offset",
    );
    // Chunk offsets and sizes: out of the region, overflowing, misaligned.
    let off = |i: usize| t + 8 * i;
    let size = |i: usize| t + 8 * (n + i);
    for (what, at, v, reason) in [
        ("offset max", off(3), u64::MAX, "outside"),
        ("offset 2^63, size 2^63", off(0), 1 << 63, "outside"),
        ("size max", size(5), u64::MAX, "outside"),
        ("offset at end", off(n - 1), s.comp_data_size() as u64, "outside"),
        ("size one too many", size(n - 1), s.chunk_size(n - 1).unwrap() as u64 + 1, "outside"),
        ("misaligned", off(2), s.chunk_offset(2).unwrap() as u64 + 4, "multiple of 8"),
    ] {
        let mut x = b.clone();
        put64(&mut x, at, v);
        if what.starts_with("offset 2^63") {
            put64(&mut x, size(0), 1 << 63);
        }
        expect_invalid(&x, what, reason);
    }
    // Within the region but moved: accepted, and the offsets table is what is used.
    let mut x = b.clone();
    put64(&mut x, off(1), 0);
    let moved = NativeStream::parse(&x).unwrap();
    assert_eq!(moved.chunk(1).unwrap().len(), s.chunk_size(1).unwrap());
    assert_eq!(moved.chunk(1).unwrap(), &s.data_region()[..s.chunk_size(1).unwrap()]);
    assert!(!moved.gpu_layout_deviations().is_empty());
}

#[test]
fn random_garbage_is_rejected() {
    let mut rng = Rng::here();
    for i in 0..20000 {
        let len = rng.index(if i % 10 == 0 { 4000 } else { 200 });
        let mut g = rng.bytes(len);
        if i % 2 == 0 && len >= 4 {
            g[..4].copy_from_slice(&container::NATIVE_MAGIC.to_le_bytes());
        }
        if i % 4 == 0 && len >= 56 {
            g[6] = (i % 9) as u8; // known format
            g[0x34] = 1;
        }
        let _ = detect(&g);
        let _ = WithUncompressedSize::parse(&g);
        assert!(NativeStream::parse(&g).is_err(), "garbage {i} accepted");
    }
}

#[test]
fn crc_combine_matches_crc32fast_on_concatenations() {
    let mut rng = Rng::here();
    for _ in 0..200 {
        let len = rng.index(5000);
        let d = rng.bytes(len);
        let cut1 = rng.index(len + 1);
        let cut2 = cut1 + rng.index(len - cut1 + 1);
        let (a, rest) = d.split_at(cut1);
        let (bb, c) = rest.split_at(cut2 - cut1);
        let whole = crc32fast::hash(&d);
        let ab = checksum::crc32_combine(crc32fast::hash(a), crc32fast::hash(bb), bb.len() as u64);
        assert_eq!(checksum::crc32_combine(ab, crc32fast::hash(c), c.len() as u64), whole);
        assert_eq!(checksum::crc32_continue(crc32fast::hash(a), rest), whole);
    }
    // Large lengths (zeros): combine with crc32 of a long zero run.
    let zeros = vec![0u8; 1 << 20];
    let a = b"gpucomp";
    assert_eq!(
        checksum::crc32_combine(crc32fast::hash(a), crc32fast::hash(&zeros), zeros.len() as u64),
        crc32fast::hash(&[&a[..], &zeros].concat())
    );
}

#[test]
fn chunk_checksum_depends_on_alignment_as_documented() {
    let mut rng = Rng::here();
    let d = rng.bytes(3000);
    // Fewer than two aligned words: plain CRC-32 at any address.
    for addr in 0..64u64 {
        let short = &d[..40];
        let head = ((32 - addr % 32) % 32) as usize;
        if short.len() < head + 64 {
            assert_eq!(checksum::chunk_checksum(short, addr), checksum::crc32(short));
        }
    }
    // Only addr mod 32 matters.
    assert_eq!(checksum::chunk_checksum(&d, 5), checksum::chunk_checksum(&d, 37 + 32 * 1000));
    assert_ne!(checksum::chunk_checksum(&d, 0), checksum::chunk_checksum(&d, 8));
}

#[test]
fn writer_round_trips_with_checksums_and_odd_chunk_sizes() {
    let mut rng = Rng::here();
    for (cs, total, fmt) in [
        (1000u64, 20_000usize, Format::Lz4),
        (4096, 4096, Format::Lz4),
        (333, 3000, Format::Ans),
        (77, 1, Format::Cascaded),
    ] {
        let input = rng.bytes(total);
        let payloads: Vec<Vec<u8>> = input.chunks(cs as usize).map(|c| rng.bytes(1 + c.len() / 3)).collect();
        let refs: Vec<&[u8]> = payloads.iter().map(|p| p.as_slice()).collect();
        let spec = vec![0u8; fmt.spec_header_size()];
        let b = write_native(fmt, &spec, cs, total as u64, &refs, WriteChecksums::FromInput(&input)).unwrap();
        let s = NativeStream::parse(&b).unwrap();
        assert!(s.gpu_layout_deviations().is_empty(), "{:?}", s.gpu_layout_deviations());
        assert_eq!(s.comp_data_offset() % fmt.chunk_alignment(), 0);
        for (i, p) in refs.iter().enumerate() {
            assert_eq!(s.chunk(i).unwrap(), *p);
            assert_eq!(s.chunk_offset(i).unwrap() % fmt.chunk_alignment(), 0);
        }
        s.verify_compressed(ChecksumPolicy::ComputeAndVerify).unwrap();
        s.verify_uncompressed(&input).unwrap();
        let mut wrong = input.clone();
        wrong[total - 1] ^= 1;
        assert!(matches!(s.verify_uncompressed(&wrong), Err(Error::Chunk { status: Status::BadChecksum, .. })));
        assert!(s.verify_uncompressed(&input[1..]).is_err());
        assert_eq!(s.format(), fmt);
    }
    // ANS: 16-byte alignment of the data region and chunks.
    let l = NativeLayout::new(Format::Ans, &[0; 16], 10, 25, &[5, 17, 1], false).unwrap();
    assert_eq!(l.comp_data_offset(), 0x80); // tables 0x48..0x78, rounded up to 16
    assert_eq!((l.chunk_offset(0), l.chunk_offset(1), l.chunk_offset(2)), (Some(0), Some(16), Some(48)));
    assert_eq!(l.comp_data_size(), 49);
    assert_eq!(l.padding_ranges(), vec![0x85..0x90, 0xa1..0xb0]);
    assert_eq!(container::native_data_offset(Format::Ans, 3, false).unwrap(), 0x80);
    assert_eq!(container::native_data_offset(Format::Ans, 1, false).unwrap(), 0x60); // FORMATS A.3
    assert_eq!(container::native_data_offset(Format::Cascaded, 3, false).unwrap(), 0x90);
}

#[test]
fn writer_rejects_inconsistent_arguments() {
    assert!(NativeLayout::new(Format::Lz4, &[0; 11], 4096, 10, &[3], false).is_err());
    assert!(NativeLayout::new(Format::Lz4, &[0; 12], 0, 10, &[3], false).is_err());
    assert!(NativeLayout::new(Format::Lz4, &[0; 12], 4096, 5000, &[3], false).is_err());
    assert!(NativeLayout::new(Format::Lz4, &[0; 12], 4096, 10, &[usize::MAX], false).is_err());
    assert!(NativeLayout::new(Format::Lz4, &[0; 12], 1, 2, &[usize::MAX / 2, usize::MAX / 2], false).is_err());
    assert!(container::native_data_offset(Format::Lz4, usize::MAX / 8, false).is_err());
    let l = NativeLayout::new(Format::Lz4, &[0; 12], 4096, 10, &[3], true).unwrap();
    assert!(l.assemble(&[&[1, 2, 3]], None).is_err());
    assert!(l.assemble(&[&[1, 2]], Some(&[0])).is_err());
    assert!(l.header_bytes(Some(&ChecksumTables { compressed: vec![], uncompressed: vec![] })).is_err());
    assert!(l.write_header(&mut [0u8; 10], None).is_err());
    assert!(l.write_chunk(&mut [0u8; 200], 1, &[1]).is_err());
    assert!(l.write_chunk(&mut [0u8; 10], 0, &[1, 2, 3]).is_err());
    assert!(write_native(Format::Lz4, &[0; 12], 4096, 10, &[&[1]], WriteChecksums::FromInput(&[0; 9])).is_err());
}

#[test]
fn empty_input_stream() {
    let b = write_native(Format::Lz4, &[0; 12], 65536, 0, &[], WriteChecksums::None).unwrap();
    assert_eq!(b.len(), 72);
    let s = NativeStream::parse(&b).unwrap();
    assert_eq!((s.num_chunks(), s.uncompressed_size(), s.comp_data_offset()), (0, 0, 72));
    assert!(s.chunk(0).is_none());
    assert!(container::spec_fields(s.format(), s.spec_header()).is_some());
}

#[test]
fn spec_fields_of_golden_and_built_headers() {
    let b = std::fs::read(golden().join("streams/text.tbl.lz4.native.uncomp_chunk_size=4096.nvc")).unwrap();
    let s = NativeStream::parse(&b).unwrap();
    assert_eq!(
        container::spec_fields(s.format(), s.spec_header()),
        Some(container::SpecFields::Lz4 { data_type: 0, bitshuffle: 0 })
    );
    let b = std::fs::read(
        golden().join("streams/hi.u32.lz4.native.bitshuffle_mode=NVCOMP_BITSHUFFLE_MSB_FIRST.data_type=u4.nvc"),
    )
    .unwrap();
    let s = NativeStream::parse(&b).unwrap();
    assert_eq!(
        container::spec_fields(s.format(), s.spec_header()),
        Some(container::SpecFields::Lz4 { data_type: 5, bitshuffle: 1 })
    );
    let cascaded = [
        4, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0,
        0, 0, 0,
    ];
    assert_eq!(
        container::spec_fields(Format::Cascaded, &cascaded),
        Some(container::SpecFields::Cascaded { data_type: 4, mode: 1, terminal: 1, coarse: 0, fine: 7, level: 3 })
    );
    assert_eq!(container::spec_fields(Format::Cascaded, &cascaded[..30]), None);
}

#[test]
fn header_checksum_beyond_the_established_range_is_not_verified() {
    // 50 chunks with checksums: comp_data_offset = 72 + 24 * 50 = 1272 >= 1024, where the header
    // rule is unconfirmed. The writer emits the extrapolated value; the reader reports it as
    // unverified and still checks every chunk.
    let mut rng = Rng::here();
    let input = rng.bytes(50 * 64);
    let payloads: Vec<Vec<u8>> = (0..50).map(|i| rng.bytes(10 + i)).collect();
    let refs: Vec<&[u8]> = payloads.iter().map(|p| p.as_slice()).collect();
    let b =
        write_native(Format::Lz4, &[0; 12], 64, input.len() as u64, &refs, WriteChecksums::FromInput(&input)).unwrap();
    let s = NativeStream::parse(&b).unwrap();
    assert_eq!(s.comp_data_offset(), 1272);
    assert_ne!(s.stored_header_checksum(), 0);
    assert!(matches!(s.check_header_checksum(), CheckOutcome::Unverified(_)));
    s.verify_compressed(ChecksumPolicy::ComputeAndVerify).unwrap();
    let mut bad = b.clone();
    bad[s.chunk_range(49).unwrap().start] ^= 4;
    assert!(matches!(
        NativeStream::parse(&bad).unwrap().verify_compressed(ChecksumPolicy::ComputeAndVerify),
        Err(Error::Chunk { chunk: 49, status: Status::BadChecksum })
    ));
}

/// The fixed part a device assembly completes is the layout's header with the compressed-data
/// size and the tables left out, for every algorithm (their spec headers differ in length).
#[test]
fn header_prefix_is_the_layout_header_before_its_sizes() {
    let algorithms = [
        Algorithm::Lz4(Default::default()),
        Algorithm::Cascaded(Default::default()),
        Algorithm::Ans(Default::default()),
        Algorithm::Bitcomp(Default::default()),
    ];
    for a in algorithms {
        for (chunk, len, sizes) in [(4096u64, 10_000u64, vec![100, 37, 5]), (65536, 0, vec![])] {
            let (prefix, data_offset) = container::native_header_prefix(&a, chunk, len).unwrap();
            let layout = NativeLayout::for_algorithm(&a, chunk, len, &sizes, false).unwrap();
            let header = layout.header_bytes(None).unwrap();
            assert_eq!((prefix.len(), data_offset), (layout.tables_offset(), layout.comp_data_offset()), "{a:?}");
            let mut expected = header[..prefix.len()].to_vec();
            expected[8..16].fill(0);
            assert_eq!(prefix, expected, "{a:?}");
        }
    }
    assert!(container::native_header_prefix(&Algorithm::Lz4(Default::default()), 0, 10).is_err());
}
