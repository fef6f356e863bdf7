//! LZ4 CPU reference codec: golden nvCOMP streams, round trips against lz4_flex, edge cases and
//! hostile input.
mod common;

use common::Rng;
use gpucomp::cpu::lz4::{self, DecompressError, EncoderParams};
use gpucomp::{cpu, Algorithm, BitshuffleMode, DataType, Lz4Encoder, Lz4Options, Status};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// helpers

fn compress_vec(input: &[u8], params: &EncoderParams) -> Vec<u8> {
    let mut out = vec![0u8; lz4::max_compressed_size(input.len())];
    let n = lz4::compress(input, &mut out, params).expect("compress");
    out.truncate(n);
    out
}

fn decompress_vec(block: &[u8], size: usize) -> Result<Vec<u8>, DecompressError> {
    let mut out = vec![0u8; size];
    let n = lz4::decompress(block, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// TPC-H lineitem TBL text (as `shared/tools/corpus` writes it): whole lines until `limit` bytes.
fn lineitem(scale_factor: f64, limit: usize) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::with_capacity(limit + 256);
    for li in tpchgen::generators::LineItemGenerator::new(scale_factor, 1, 1).iter() {
        if out.len() >= limit {
            break;
        }
        writeln!(out, "{li}").unwrap();
    }
    out
}

// ---------------------------------------------------------------------------------------------
// golden streams (tests/data/golden, LZ4 rows of the shared nvCOMP 6.0.0.12 set)

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// One LZ4 chunk of a golden stream: nvCOMP's block, the original chunk, the encoder parameters.
struct GoldenChunk {
    name: String,
    block: Vec<u8>,
    original: Vec<u8>,
    width: usize,
    mode: BitshuffleMode,
    table_size: usize,
}

/// Every LZ4 chunk of every golden stream, located with the container parser
/// (`gpucomp::container`: NVCOMP_NATIVE, RAW, WITH_UNCOMPRESSED_SIZE).
fn golden_chunks() -> Vec<GoldenChunk> {
    use gpucomp::container::{NativeStream, RawStream, WithUncompressedSize};
    use gpucomp::Algorithm;
    let dir = golden_dir();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.csv")).expect("tests/data/golden/MANIFEST.csv");
    let mut chunks = Vec::new();
    for line in manifest.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() < 4 || f[2] != "LZ4" {
            continue;
        }
        let stream = std::fs::read(dir.join(f[0])).unwrap();
        let input = std::fs::read(dir.join(f[1])).unwrap();
        let single = |block: &[u8]| GoldenChunk {
            name: f[0].to_string(),
            block: block.to_vec(),
            original: input.clone(),
            width: 1,
            mode: BitshuffleMode::None,
            table_size: Lz4Encoder::Nvcomp.table_size(input.len()),
        };
        match f[3] {
            "NVCOMP_NATIVE" => {
                let s = NativeStream::parse(&stream).unwrap_or_else(|e| panic!("{}: {e}", f[0]));
                let Ok(Algorithm::Lz4(opts)) = s.algorithm() else { panic!("{}: not LZ4", f[0]) };
                let cs = s.uncomp_chunk_size() as usize;
                assert_eq!(s.uncompressed_size() as usize, input.len());
                for i in 0..s.num_chunks() {
                    chunks.push(GoldenChunk {
                        name: format!("{} chunk {i}", f[0]),
                        block: s.chunk(i).unwrap().to_vec(),
                        original: input[i * cs..((i + 1) * cs).min(input.len())].to_vec(),
                        width: opts.element_width().unwrap(),
                        mode: opts.bitshuffle,
                        table_size: Lz4Encoder::Nvcomp.table_size(cs),
                    });
                }
            }
            "RAW" => chunks.push(single(RawStream::new(&stream).payload())),
            "WITH_UNCOMPRESSED_SIZE" => {
                let s = WithUncompressedSize::parse(&stream).unwrap();
                assert_eq!(s.uncompressed_size() as usize, input.len());
                chunks.push(single(s.payload()));
            }
            k => panic!("unknown bitstream kind {k}"),
        }
    }
    chunks
}

#[test]
fn golden_chunks_decode_exactly() {
    let chunks = golden_chunks();
    assert!(chunks.len() >= 434, "only {} golden LZ4 chunks", chunks.len());
    for c in &chunks {
        let shuffled = naive_shuffle(&c.original, c.width, c.mode);
        assert_eq!(lz4::decompressed_size(&c.block), Ok(c.original.len()), "{}", c.name);
        let out = decompress_vec(&c.block, c.original.len()).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert!(out == shuffled, "{}: decoded bytes differ from the (shuffled) input", c.name);
        assert!(unshuffled_decode(&c.block, c.width, c.mode) == c.original, "{}", c.name);
        // One byte short of the output fails cleanly.
        if !c.original.is_empty() {
            let mut short = vec![0u8; c.original.len() - 1];
            assert!(
                matches!(lz4::decompress(&c.block, &mut short), Err(DecompressError::OutputTooSmall { .. })),
                "{}",
                c.name
            );
        }
    }
    let shuffled = chunks.iter().filter(|c| c.mode != BitshuffleMode::None).count();
    let wide = chunks.iter().filter(|c| c.width > 1).count();
    assert!(shuffled >= 28 && wide >= 31, "bitshuffled {shuffled}, wide {wide}");
}

#[test]
fn golden_chunks_reencode_byte_for_byte_with_nvcomp_encoder() {
    let chunks = golden_chunks();
    let mut mismatches = Vec::new();
    for c in &chunks {
        let shuffled = naive_shuffle(&c.original, c.width, c.mode);
        let params = EncoderParams { encoder: Lz4Encoder::Nvcomp, element_width: c.width, table_size: c.table_size };
        let mine = compress_vec(&shuffled, &params);
        if mine != c.block {
            let at = mine.iter().zip(&c.block).position(|(a, b)| a != b).unwrap_or(mine.len().min(c.block.len()));
            mismatches.push(format!(
                "{}: nvCOMP {} B, ours {} B, first difference at {at}",
                c.name,
                c.block.len(),
                mine.len()
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} chunks differ:\n{}",
        mismatches.len(),
        chunks.len(),
        mismatches.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// round trips against lz4_flex

const ENCODERS: [Lz4Encoder; 2] = [Lz4Encoder::Nvcomp, Lz4Encoder::Gpucomp];

/// Compresses `data` with both encoders (element width `w`, table for `max_chunk`), checks the
/// block decodes to `data` with lz4_flex and with our decoder (exact and larger buffers, one
/// byte short fails), and that lz4_flex's own block decodes with ours. Returns the block sizes.
fn check_round_trip(data: &[u8], w: usize, max_chunk: usize) -> [usize; 2] {
    let mut sizes = [0; 2];
    for (i, encoder) in ENCODERS.into_iter().enumerate() {
        let params = EncoderParams { encoder, element_width: w, table_size: encoder.table_size(max_chunk) };
        let block = compress_vec(data, &params);
        assert!(block.len() <= lz4::max_compressed_size(data.len()));
        sizes[i] = block.len();
        let flex = lz4_flex::block::decompress(&block, data.len())
            .unwrap_or_else(|e| panic!("{encoder:?} w={w} len {}: lz4_flex rejects our block: {e}", data.len()));
        assert!(flex == data, "{encoder:?} w={w} len {}: lz4_flex decodes other bytes", data.len());
        assert_eq!(lz4::decompressed_size(&block), Ok(data.len()));
        let mut out = vec![0xA5u8; data.len() + 64];
        assert_eq!(lz4::decompress(&block, &mut out), Ok(data.len()));
        assert!(out[..data.len()] == *data);
        if !data.is_empty() {
            let mut short = vec![0u8; data.len() - 1];
            assert!(matches!(lz4::decompress(&block, &mut short), Err(DecompressError::OutputTooSmall { .. })));
        }
        // The final token's low nibble is nvCOMP's 0xC.
        let last_token = last_sequence_token(&block);
        assert_eq!(last_token & 15, 0xC, "{encoder:?}: final token {last_token:#04x}");
    }
    let theirs = lz4_flex::block::compress(data);
    assert!(
        decompress_vec(&theirs, data.len()).unwrap() == data,
        "our decoder on lz4_flex's block, len {}",
        data.len()
    );
    sizes
}

/// The token of the last sequence of a valid block.
fn last_sequence_token(block: &[u8]) -> u8 {
    let mut ip = 0;
    loop {
        let token = block[ip];
        ip += 1;
        let mut lit = (token >> 4) as usize;
        if lit == 15 {
            while block[ip] == 255 {
                lit += 255;
                ip += 1;
            }
            lit += block[ip] as usize;
            ip += 1;
        }
        ip += lit;
        if ip == block.len() {
            return token;
        }
        ip += 2;
        if token & 15 == 15 {
            while block[ip] == 255 {
                ip += 1;
            }
            ip += 1;
        }
    }
}

/// Literal-only block size for `n` bytes (what nvCOMP writes for incompressible data).
fn literal_only_size(n: usize) -> usize {
    1 + n + if n >= 15 { (n - 15) / 255 + 1 } else { 0 }
}

#[test]
fn round_trip_random_bytes_of_many_sizes() {
    // A fixed seed: the exact literal-only sizes asserted below hold only for data without a
    // repeated 4-byte key within match distance, which random data of 256 KiB has by chance now
    // and then (the encoder then rightly saves a byte).
    let mut rng = Rng::seeded(0x9E37_79B9_7F4A_7C15);
    let mut sizes: Vec<usize> = (0..=300).collect();
    sizes.extend([511, 512, 1000, 4095, 4096, 4097, 8191, 8192, 8193, 65535, 65536, 65537, 100_000, 262_144]);
    for n in sizes {
        let data = rng.bytes(n);
        let got = check_round_trip(&data, 1, n);
        // Incompressible: one literal run, exactly nvCOMP's literal-only size (65536 → 65794).
        if n > 0 {
            assert_eq!(got, [literal_only_size(n); 2], "random {n} bytes");
        } else {
            assert_eq!(got, [1, 1]);
        }
    }
    assert_eq!(literal_only_size(65536), 65794);
}

#[test]
fn round_trip_compressible_data() {
    let mut rng = Rng::here();
    let words: Vec<Vec<u8>> = (0..40).map(|i| rng.bytes(3 + i % 9)).collect();
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for &n in &[13, 14, 20, 31, 32, 33, 100, 1000, 4096, 20_000, 65_536, 150_000] {
        inputs.push((0..n).map(|_| b"abcd"[rng.index(4)]).collect()); // small alphabet
        inputs.push((0..n).map(|_| if rng.index(10) == 0 { b'B' } else { b'A' }).collect()); // skewed
        let mut phrases = Vec::new();
        while phrases.len() < n {
            phrases.extend_from_slice(&words[rng.index(words.len())]);
        }
        phrases.truncate(n);
        inputs.push(phrases); // repeated phrases
        inputs.push(vec![0u8; n]); // one run
        for period in [1usize, 2, 3, 5, 7, 16, 33, 300] {
            let pat = rng.bytes(period);
            inputs.push((0..n).map(|i| pat[i % period]).collect()); // overlapping matches
        }
        let mut mixed = rng.bytes(n / 2);
        mixed.extend((0..n - n / 2).map(|i| (i / 7) as u8));
        inputs.push(mixed);
    }
    let mut total = [0usize; 3];
    for data in &inputs {
        for w in [1, 2, 4] {
            let [a, b] = check_round_trip(data, w, 65536);
            if w == 1 {
                total[0] += data.len();
                total[1] += a;
                total[2] += b;
            }
        }
    }
    assert!(total[1] * 4 < total[0] && total[2] * 4 < total[0], "compressible data: {total:?}");
}

#[test]
fn round_trip_lineitem_text_and_gpucomp_beats_nvcomp() {
    let text = lineitem(0.01, 2 << 20);
    let (mut nv, mut gp) = (0, 0);
    for chunk in text.chunks(65536) {
        let [a, b] = check_round_trip(chunk, 1, 65536);
        nv += a;
        gp += b;
    }
    // 4 KiB chunks too (tables of 4096 slots for Nvcomp, 2048 for Gpucomp).
    for chunk in text[..256 << 10].chunks(4096) {
        check_round_trip(chunk, 1, 4096);
    }
    let (rn, rg) = (text.len() as f64 / nv as f64, text.len() as f64 / gp as f64);
    assert!(rn > 1.75 && rn < 2.0, "Nvcomp ratio {rn}");
    // Gpucomp's 16 KiB segments against Nvcomp's whole 64 KiB chunks: 1.933 against 1.872.
    assert!(rg > rn * 1.02, "Gpucomp ratio {rg} vs Nvcomp {rn}");
}

// ---------------------------------------------------------------------------------------------
// edge cases

#[test]
fn empty_and_tiny_inputs() {
    for encoder in ENCODERS {
        let params = EncoderParams::bytes(encoder, 65536);
        assert_eq!(compress_vec(&[], &params), [0x0C]);
        assert_eq!(compress_vec(b"x", &params), [0x1C, b'x']);
        // 12 and 13 bytes: too short for any match (a match must start 12 bytes before the end).
        let a12 = [b'a'; 12];
        assert_eq!(compress_vec(&a12, &params), [[0xCC].as_slice(), &a12].concat());
        assert_eq!(compress_vec(&[b'a'; 13], &params), [[0xDC].as_slice(), &[b'a'; 13]].concat());
        // 14 bytes: lane 1 repeats lane 0's key; the match stops 5 bytes before the end.
        assert_eq!(compress_vec(&[b'a'; 14], &params), [0x14, b'a', 1, 0, 0x5C, b'a', b'a', b'a', b'a', b'a']);
        // 15 literals need one extension byte (0).
        assert_eq!(compress_vec(b"0123456789abcde", &params), [[0xFC, 0].as_slice(), b"0123456789abcde"].concat());
    }
    assert_eq!(lz4::decompress(&[0x0C], &mut []), Ok(0));
    assert_eq!(lz4::decompress(&[0x00], &mut [0u8; 4]), Ok(0));
    assert_eq!(lz4::decompress(&[], &mut [0u8; 4]), Err(DecompressError::Empty));
    assert_eq!(lz4::decompressed_size(&[]), Err(DecompressError::Empty));
    assert_eq!(lz4_flex::block::decompress(&[0x0C], 0).unwrap(), b"");
    for n in 1..=20 {
        let data: Vec<u8> = (0..n).map(|i| (i % 3) as u8).collect();
        for w in [1, 2, 4] {
            check_round_trip(&data, w, n);
        }
    }
}

#[test]
fn exact_multiple_chunk_sizes_and_table_sizes() {
    let nv = |n| Lz4Encoder::Nvcomp.table_size(n);
    let ours = |n| Lz4Encoder::Gpucomp.table_size(n);
    assert_eq!((nv(0), nv(1), nv(4096), nv(4097), nv(65536), nv(1 << 24)), (1, 1, 4096, 8192, 16384, 16384));
    assert_eq!((ours(0), ours(1), ours(2048), ours(2049), ours(65536), ours(1 << 24)), (1, 1, 2048, 2048, 2048, 2048));
    let opts = Lz4Options::default().with_data_type(gpucomp::DataType::Short);
    let p = EncoderParams::new(&opts, 4096).unwrap();
    assert_eq!((p.element_width, p.table_size, p.encoder), (2, 2048, Lz4Encoder::Gpucomp));
    let bad = Lz4Options::default().with_data_type(gpucomp::DataType::LongLong);
    assert_eq!(EncoderParams::new(&bad, 4096), Err(Status::NotSupported));
    let text = lineitem(0.01, 300_000);
    for n in [4096usize, 8192, 65536, 131072, 262144] {
        for w in [1, 2, 4] {
            check_round_trip(&text[..n], w, n);
        }
    }
}

#[test]
fn largest_chunk_16_mib() {
    // 16 MiB of text-like data with long-distance repeats (distances above 65535 must be refused).
    let base = lineitem(0.01, 1 << 20);
    let mut rng = Rng::here();
    let mut data = Vec::with_capacity(1 << 24);
    while data.len() < 1 << 24 {
        let start = rng.index(base.len() - 5000);
        let len = 100 + rng.index(4000);
        data.extend_from_slice(&base[start..start + len]);
        if rng.index(4) == 0 {
            data.extend(rng.bytes(50));
        }
    }
    data.truncate(1 << 24);
    check_round_trip(&data, 1, 1 << 24);
    let mut out = vec![0u8; lz4::max_compressed_size(data.len() + 1)];
    data.push(0);
    for encoder in ENCODERS {
        assert_eq!(
            lz4::compress(&data, &mut out, &EncoderParams::bytes(encoder, 1 << 24)),
            Err(Status::ChunkSizeTooLarge)
        );
    }
}

#[test]
fn wide_elements_on_large_chunks_keep_offsets_in_16_bits() {
    // Element distances up to 65535 would be byte offsets up to 262140 for 4-byte elements.
    let mut rng = Rng::here();
    let unit: Vec<u8> = rng.bytes(160_000);
    let mut data = unit.clone();
    data.extend_from_slice(&unit); // repeats at 160,000 bytes (40,000 4-byte elements)
    data.extend_from_slice(&unit[..1000]);
    // Random bytes hold a few chance 4-byte repeats within 64 KiB, each worth about a byte; using
    // the 160,000-byte repeat instead would save about 160,000.
    let floor = literal_only_size(data.len()) - 64;
    for w in [2, 4] {
        let [a, b] = check_round_trip(&data, w, 1 << 20);
        assert!(a >= floor && b >= floor, "w={w}: {a}, {b} bytes: no match may reach beyond 65535 bytes");
    }
}

#[test]
fn compress_refuses_bad_arguments() {
    let data = vec![1u8; 1000];
    let need = lz4::max_compressed_size(1000);
    assert_eq!(need, Lz4Options::max_compressed_chunk_size(1000));
    for encoder in ENCODERS {
        let p = EncoderParams::bytes(encoder, 1000);
        let mut out = vec![0u8; need - 1];
        assert_eq!(lz4::compress(&data, &mut out, &p), Err(Status::OutputBufferTooSmall));
        let mut out = vec![0u8; need];
        assert!(lz4::compress(&data, &mut out, &p).is_ok());
        for (w, ts, err) in [
            (3, 1024, Status::NotSupported),
            (8, 1024, Status::NotSupported),
            (1, 1000, Status::InvalidValue),
            (1, 0, Status::InvalidValue),
            (1, 1 << 17, Status::InvalidValue),
        ] {
            let p = EncoderParams { encoder, element_width: w, table_size: ts };
            assert_eq!(lz4::compress(&data, &mut out, &p), Err(err));
        }
        // Any power-of-two table up to 65536 works.
        for ts in [1, 2, 64, 1 << 16] {
            let p = EncoderParams { encoder, element_width: 1, table_size: ts };
            let n = lz4::compress(&data, &mut out, &p).unwrap();
            assert_eq!(decompress_vec(&out[..n], 1000).unwrap(), data);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// bitshuffle

/// Straightforward transcription of FORMATS.md C.1 (the model's forward pass).
fn naive_shuffle(data: &[u8], w: usize, mode: BitshuffleMode) -> Vec<u8> {
    let msb_first = match mode {
        BitshuffleMode::None => return data.to_vec(),
        m => m == BitshuffleMode::MsbFirst,
    };
    let mut out = Vec::with_capacity(data.len());
    for blk in data.chunks(8192) {
        let n = blk.len() / w;
        let m = n - n % 8;
        let e: Vec<u32> = (0..m).map(|i| (0..w).map(|j| (blk[i * w + j] as u32) << (8 * j)).sum()).collect();
        let planes: Vec<usize> = if msb_first { (0..8 * w).rev().collect() } else { (0..8 * w).collect() };
        for p in planes {
            for b in (0..m).step_by(8) {
                out.push((0..8).map(|j| (((e[b + j] >> p) & 1) << j) as u8).sum());
            }
        }
        out.extend_from_slice(&blk[m * w..]);
    }
    out
}

/// Decodes an LZ4 block of bitshuffled `w`-byte elements and undoes the shuffle (the codec's
/// `decompress_chunk` for LZ4 with bitshuffle `mode`).
fn unshuffled_decode(block: &[u8], w: usize, mode: BitshuffleMode) -> Vec<u8> {
    let data_type = [DataType::Uchar, DataType::Ushort, DataType::Uint][w.trailing_zeros() as usize];
    let algorithm = Algorithm::Lz4(Lz4Options::default().with_data_type(data_type).with_bitshuffle(mode));
    let mut out = vec![0u8; lz4::decompressed_size(block).unwrap()];
    let n = cpu::decompress_chunk(&algorithm, block, &mut out).unwrap();
    assert_eq!(n, out.len());
    out
}

#[test]
fn wide_elements_with_bitshuffle_round_trip() {
    let mut rng = Rng::here();
    let ramp16: Vec<u8> = (0..30_000u32).flat_map(|i| ((i * 3) as u16).to_le_bytes()).collect();
    let ramp32: Vec<u8> = (0..40_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let small32: Vec<u8> = (0..20_000).flat_map(|_| (rng.index(600) as i32 - 300).to_le_bytes()).collect();
    let odd: Vec<u8> = ramp16[..20_003].to_vec(); // not a whole number of 2- or 4-byte elements
    let (mut nv, mut gp) = (0, 0);
    for data in [&ramp16, &ramp32, &small32, &odd] {
        for w in [2, 4] {
            for mode in [BitshuffleMode::MsbFirst, BitshuffleMode::LsbFirst] {
                for chunk in data.chunks(65536) {
                    let shuffled = naive_shuffle(chunk, w, mode);
                    let [a, b] = check_round_trip(&shuffled, w, 65536);
                    let block = compress_vec(
                        &shuffled,
                        &EncoderParams { encoder: Lz4Encoder::Gpucomp, element_width: w, table_size: 16384 },
                    );
                    assert_eq!(lz4::decompressed_size(&block).unwrap(), chunk.len());
                    nv += a;
                    gp += b;
                    assert!(unshuffled_decode(&block, w, mode) == chunk);
                }
            }
        }
    }
    assert!(gp * 4 < nv * 3, "bitshuffled numbers: Gpucomp {gp} B, Nvcomp {nv} B");
}

// ---------------------------------------------------------------------------------------------
// hostile input

/// Decodes `block` into a buffer of `cap` bytes; checks the result agrees with
/// `decompressed_size` and that nothing beyond the decoded size was written.
fn decode_checked(block: &[u8], cap: usize) -> Result<usize, DecompressError> {
    let mut out = vec![0u8; cap];
    let r = lz4::decompress(block, &mut out);
    let size = lz4::decompressed_size(block);
    match (&r, &size) {
        (Ok(n), Ok(m)) => {
            assert_eq!(n, m);
        }
        (Err(DecompressError::OutputTooSmall { .. }), Ok(m)) => assert!(*m > cap),
        // Running out of output may come before a later error that the size query finds.
        (Err(DecompressError::OutputTooSmall { .. }), Err(_)) => {}
        (Err(e), Err(f)) => assert_eq!(e, f),
        _ => panic!("decompress {r:?} but decompressed_size {size:?} for {block:02x?}"),
    }
    r
}

fn sample_blocks() -> Vec<(Vec<u8>, Vec<u8>)> {
    let text = lineitem(0.01, 1000);
    let mut blocks = Vec::new();
    for (data, encoder) in [
        (text[..300].to_vec(), Lz4Encoder::Nvcomp),
        (text[300..700].to_vec(), Lz4Encoder::Gpucomp),
        (b"abcabcabcabcabcabcabcabcabcabcXYZXYZXYZXYZXYZ0000000000000000000000000000000000000000000000000000000000000000000000end of it".to_vec(), Lz4Encoder::Gpucomp),
    ] {
        let block = compress_vec(&data, &EncoderParams::bytes(encoder, 65536));
        assert!(block.len() < data.len());
        blocks.push((data, block));
    }
    blocks
}

#[test]
fn hostile_truncated_blocks() {
    for (data, block) in sample_blocks() {
        for cut in 0..block.len() {
            match decode_checked(&block[..cut], data.len()) {
                Err(_) => {}
                // A cut right after a sequence's literals is a valid shorter block.
                Ok(n) => assert!(n < data.len(), "prefix of {cut} bytes decodes fully"),
            }
        }
    }
}

/// What each byte of a valid block is.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Part {
    Token,
    FinalToken,
    Length,
    Literal,
    Offset,
}

fn classify(block: &[u8]) -> Vec<Part> {
    let mut parts = Vec::with_capacity(block.len());
    let mut ip = 0;
    loop {
        let token = block[ip];
        let at = parts.len();
        parts.push(Part::Token);
        ip += 1;
        let mut lit = (token >> 4) as usize;
        if lit == 15 {
            loop {
                let b = block[ip];
                parts.push(Part::Length);
                ip += 1;
                lit += b as usize;
                if b != 255 {
                    break;
                }
            }
        }
        parts.extend(std::iter::repeat_n(Part::Literal, lit));
        ip += lit;
        if ip == block.len() {
            parts[at] = Part::FinalToken;
            return parts;
        }
        parts.extend([Part::Offset; 2]);
        ip += 2;
        if token & 15 == 15 {
            loop {
                let b = block[ip];
                parts.push(Part::Length);
                ip += 1;
                if b != 255 {
                    break;
                }
            }
        }
    }
}

#[test]
fn hostile_every_single_byte_corruption() {
    let (mut total, mut errors) = (0usize, 0usize);
    for (data, block) in sample_blocks() {
        let parts = classify(&block);
        assert_eq!(parts.len(), block.len());
        let mut bad = block.clone();
        for i in 0..block.len() {
            for v in 0..=255u8 {
                if v == block[i] {
                    continue;
                }
                bad[i] = v;
                total += 1;
                // A larger output buffer: no panic, consistent with decompressed_size.
                let _ = decode_checked(&bad, data.len() + 300);
                // The exact output size: the corruption is an error or changes the output, with
                // two exceptions that cannot be seen: the final token's low nibble (ignored) and
                // an offset that points to equal bytes.
                let exact = decode_checked(&bad, data.len());
                let same = exact.is_ok() && decompress_vec(&bad, data.len()).unwrap() == data;
                match parts[i] {
                    Part::Literal => assert!(exact.is_ok() && !same, "literal byte {i}"),
                    Part::FinalToken if (v ^ block[i]) & 0xF0 == 0 => assert!(same),
                    Part::Offset => {}
                    part => assert!(!same, "{part:?} byte {i} = {v:#04x} decodes to the original"),
                }
                errors += exact.is_err() as usize;
            }
            bad[i] = block[i];
        }
    }
    let structural = total / 3;
    assert!(errors > structural / 10, "{errors} of {total} corruptions detected as errors");
}

#[test]
fn hostile_random_garbage() {
    let mut rng = Rng::here();
    for i in 0..20_000 {
        let len = if i % 100 == 0 { rng.index(100_000) } else { rng.index(64) };
        let mut block = rng.bytes(len);
        if i % 3 == 0 && !block.is_empty() {
            // Bias toward plausible tokens: small literal counts and nearby offsets.
            block[0] &= 0x3F;
        }
        let _ = decode_checked(&block, rng.index(2000));
    }
}

#[test]
fn hostile_crafted_blocks() {
    use DecompressError::*;
    let mut out = [0u8; 1 << 16];
    // offset 0
    assert_eq!(lz4::decompress(&[0x10, b'a', 0, 0, 0x00], &mut out), Err(ZeroOffset { at: 2 }));
    // offset before the start (1 byte written, offset 2)
    assert_eq!(lz4::decompress(&[0x10, b'a', 2, 0, 0x00], &mut out), Err(OffsetBeforeStart { offset: 2, position: 1 }));
    assert_eq!(
        lz4::decompress(&[0x00, 0xFF, 0xFF, 0x00], &mut out),
        Err(OffsetBeforeStart { offset: 65535, position: 0 })
    );
    // offset exactly at the start is fine: "a" + 4 × "a" + "b"
    assert_eq!(decompress_vec(&[0x10, b'a', 1, 0, 0x10, b'b'], 100), Ok(b"aaaaab".to_vec()));
    // a block ending after a match, or inside the offset
    assert_eq!(lz4::decompress(&[0x10, b'a', 1, 0], &mut out), Err(Truncated { at: 4 }));
    assert_eq!(lz4::decompress(&[0x10, b'a', 1], &mut out), Err(Truncated { at: 3 }));
    // literal length beyond the input; unterminated length bytes
    assert_eq!(lz4::decompress(&[0x50, b'a', b'b'], &mut out), Err(Truncated { at: 3 }));
    assert!(matches!(lz4::decompress(&[0xF0, 0xFF, 0xFF, 0xFF], &mut out), Err(Truncated { .. })));
    // huge length fields: 0xFF runs give lengths far above any buffer
    let mut huge_lit = vec![0xF0];
    huge_lit.extend(std::iter::repeat_n(0xFF, 100_000));
    huge_lit.push(0);
    assert!(matches!(lz4::decompress(&huge_lit, &mut out), Err(Truncated { .. })));
    let mut huge_match = vec![0x1F, b'a', 1, 0];
    huge_match.extend(std::iter::repeat_n(0xFF, 100_000));
    huge_match.extend([0, 0x00]);
    assert!(matches!(lz4::decompress(&huge_match, &mut out), Err(OutputTooSmall { .. })));
    assert_eq!(lz4::decompressed_size(&huge_match), Ok(1 + 19 + 255 * 100_000));
    // output too small by one, for literals and for a match
    assert!(matches!(lz4::decompress(&[0x30, 1, 2, 3], &mut [0u8; 2]), Err(OutputTooSmall { needed: 3, capacity: 2 })));
    assert!(matches!(
        lz4::decompress(&[0x10, b'a', 1, 0, 0x00], &mut [0u8; 4]),
        Err(OutputTooSmall { needed: 5, capacity: 4 })
    ));
    assert_eq!(lz4::decompress(&[0x10, b'a', 1, 0, 0x00], &mut [0u8; 5]), Ok(5));
    // errors map to nvCOMP's status
    assert_eq!(Status::from(ZeroOffset { at: 0 }), Status::CannotDecompress);
}

// ---------------------------------------------------------------------------------------------
// encoder ratio measurement (run by hand: cargo test --test lz4_cpu -- --ignored --nocapture;
// speeds: cargo bench --bench cpu)

/// Both encoders on the golden inputs (64 KiB chunks; numeric files also bitshuffled).
#[test]
#[ignore]
fn measure_golden_inputs() {
    let dir = golden_dir().join("inputs");
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let (mut total_nv, mut total_gp) = (0, 0);
    for name in names {
        let data = std::fs::read(dir.join(&name)).unwrap();
        if data.len() < 4096 {
            continue;
        }
        let w = if name.ends_with("16") {
            2
        } else if name.ends_with("32") || name.ends_with("64") {
            4
        } else {
            1
        };
        for mode in [BitshuffleMode::None, BitshuffleMode::MsbFirst, BitshuffleMode::LsbFirst] {
            if w == 1 && mode != BitshuffleMode::None {
                continue;
            }
            let (mut nv, mut gp) = (0, 0);
            for chunk in data.chunks(65536) {
                let chunk = naive_shuffle(chunk, w, mode);
                for (encoder, size) in [(Lz4Encoder::Nvcomp, &mut nv), (Lz4Encoder::Gpucomp, &mut gp)] {
                    *size +=
                        compress_vec(&chunk, &EncoderParams { encoder, element_width: w, table_size: 16384 }).len();
                }
            }
            println!("{name:16} w={w} {:9} {:8} B: Nvcomp {nv:8} B, Gpucomp {gp:8} B", format!("{mode:?}"), data.len());
            total_nv += nv;
            total_gp += gp;
        }
    }
    println!("total: Nvcomp {total_nv} B, Gpucomp {total_gp} B");
}

/// The default (Gpucomp) encoder's block bytes at 64 KiB and 256 KiB chunks, no bitshuffle: the
/// golden inputs of at least 4 KiB (element width from the name) and 32 MiB of lineitem text
/// (the figures of benches/notes/lz4.md, "Segments").
#[test]
#[ignore]
fn measure_segment_ratio() {
    let dir = golden_dir().join("inputs");
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let mut files: Vec<(String, Vec<u8>, usize)> = names
        .into_iter()
        .filter_map(|name| {
            let data = std::fs::read(dir.join(&name)).unwrap();
            let w = if name.ends_with("16") {
                2
            } else if name.ends_with("32") || name.ends_with("64") {
                4
            } else {
                1
            };
            (data.len() >= 4096).then_some((name, data, w))
        })
        .collect();
    let golden_files = files.len();
    files.push(("lineitem.tbl (32 MiB)".into(), lineitem(0.1, 32 << 20), 1));
    for chunk in [64 << 10, 256 << 10] {
        let mut golden = (0, 0);
        for (i, (name, data, w)) in files.iter().enumerate() {
            let params = EncoderParams::new(
                &Lz4Options::default().with_data_type(match w {
                    2 => DataType::Short,
                    4 => DataType::Int,
                    _ => DataType::Char,
                }),
                chunk.min(data.len()),
            )
            .unwrap();
            let size: usize = data.chunks(chunk).map(|c| compress_vec(c, &params).len()).sum();
            if i < golden_files {
                golden.0 += data.len();
                golden.1 += size;
            } else {
                println!(
                    "{chunk:7} B chunks: {name}: {} -> {size} B, ratio {:.4}",
                    data.len(),
                    data.len() as f64 / size as f64
                );
            }
        }
        println!(
            "{chunk:7} B chunks: {golden_files} golden inputs: {} -> {} B, ratio {:.4}",
            golden.0,
            golden.1,
            golden.0 as f64 / golden.1 as f64
        );
    }
}
