//! ANS CPU reference codec: every golden nvCOMP ANS stream decodes exactly, every golden chunk is
//! re-created byte for byte, so are nvCOMP's FLOAT8 and one-state samples
//! (`tests/data/ans-samples/`), round trips over data kinds and options, nvCOMP's size bounds,
//! and hostile input.
mod common;

use common::{e4m3, f16_bits, goldens, lineitem_text, Rng};
use gpucomp::algorithm::ans::{AnsMode, AnsOptions};
use gpucomp::container::{NativeStream, RawStream, WithUncompressedSize};
use gpucomp::cpu::ans;
use gpucomp::{DataType, Format, Status};

// ---------------------------------------------------------------------------------------------
// golden streams

/// One ANS chunk of a golden stream with what nvCOMP was given to write it.
struct GoldenChunk {
    name: String,
    chunk: Vec<u8>,
    original: Vec<u8>,
    options: AnsOptions,
    /// Largest chunk of the batch (HLIF: min(chunk size, input size); RAW: the input size).
    max_chunk_bytes: usize,
}

/// Options from the manifest's options column (`key=value;...`).
fn manifest_options(s: &str) -> AnsOptions {
    let mut o = AnsOptions::default();
    for kv in s.split(';').filter(|kv| !kv.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap();
        match k {
            "data_type" => {
                o.data_type = match v.trim_start_matches('<') {
                    "f2" => DataType::Float16,
                    "f4" => DataType::Float32,
                    "u1" => DataType::Uchar,
                    "i1" => DataType::Char,
                    t => panic!("data type {t}"),
                }
            }
            "max_sub_chunk_count" => o.max_sub_chunk_count = v.parse().unwrap(),
            "states_per_lane" => o.states_per_lane = v.parse().unwrap(),
            "histogram_reduction_log2" => o.histogram_reduction_log2 = v.parse().unwrap(),
            "uncomp_chunk_size" | "checksum_policy" => {}
            k => panic!("unknown option {k}"),
        }
    }
    o
}

/// Every chunk of every golden ANS stream, and the number of streams.
fn golden_chunks() -> (Vec<GoldenChunk>, usize) {
    let rows = goldens("ANS");
    let mut chunks = Vec::new();
    for g in &rows {
        let options = manifest_options(&g.options);
        let single = |chunk: &[u8]| GoldenChunk {
            name: g.name.clone(),
            chunk: chunk.to_vec(),
            original: g.input.clone(),
            options,
            max_chunk_bytes: g.input.len(),
        };
        match g.kind.as_str() {
            "NVCOMP_NATIVE" => {
                let s = NativeStream::parse(&g.stream).unwrap_or_else(|e| panic!("{}: {e}", g.name));
                assert_eq!(s.format(), Format::Ans, "{}", g.name);
                assert_eq!(s.uncompressed_size() as usize, g.input.len(), "{}", g.name);
                // The spec header is exactly what nvCOMP writes for these options.
                let spec = AnsOptions::from_spec_header(s.spec_header()).unwrap();
                assert_eq!(spec, options, "{}: spec header", g.name);
                assert_eq!(&options.spec_header()[..], s.spec_header(), "{}: spec header bytes", g.name);
                let cs = s.uncomp_chunk_size() as usize;
                for i in 0..s.num_chunks() {
                    chunks.push(GoldenChunk {
                        name: format!("{} chunk {i}", g.name),
                        chunk: s.chunk(i).unwrap().to_vec(),
                        original: g.input[i * cs..((i + 1) * cs).min(g.input.len())].to_vec(),
                        options,
                        max_chunk_bytes: cs.min(g.input.len()),
                    });
                }
            }
            "RAW" => chunks.push(single(RawStream::new(&g.stream).payload())),
            "WITH_UNCOMPRESSED_SIZE" => {
                let s = WithUncompressedSize::parse(&g.stream).unwrap();
                assert_eq!(s.uncompressed_size() as usize, g.input.len(), "{}", g.name);
                chunks.push(single(s.payload()));
            }
            k => panic!("unknown bitstream kind {k}"),
        }
    }
    (chunks, rows.len())
}

#[test]
fn golden_chunks_decode_exactly() {
    let (chunks, streams) = golden_chunks();
    assert_eq!(streams, 137, "golden ANS streams");
    assert_eq!(chunks.len(), 191, "golden ANS chunks");
    for c in &chunks {
        assert_eq!(ans::decompressed_size(&c.chunk), Ok(c.original.len()), "{}", c.name);
        let mut out = vec![0xA5u8; c.original.len() + 7];
        let n = ans::decompress(&c.chunk, &mut out).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert_eq!(n, c.original.len(), "{}", c.name);
        assert!(out[..n] == c.original[..], "{}: decoded bytes differ", c.name);
        assert!(out[n..].iter().all(|&b| b == 0xA5), "{}: wrote past the chunk", c.name);
        if n > 0 {
            let mut short = vec![0u8; n - 1];
            assert_eq!(ans::decompress(&c.chunk, &mut short), Err(Status::CannotDecompress), "{}", c.name);
        }
    }
    let modes = |m: AnsMode| chunks.iter().filter(|c| c.options.mode() == Ok(m)).count();
    println!(
        "decoded {} golden ANS chunks of {streams} streams ({} byte, {} FLOAT16, {} FLOAT32)",
        chunks.len(),
        modes(AnsMode::Bytes),
        modes(AnsMode::Float16),
        modes(AnsMode::Float32)
    );
    assert!(modes(AnsMode::Float16) >= 14 && modes(AnsMode::Float32) >= 42);
}

#[test]
fn golden_chunks_reencode_byte_for_byte() {
    let (chunks, _) = golden_chunks();
    let mut same = 0;
    for c in &chunks {
        let bound = c.options.max_compressed_chunk_size(c.original.len());
        assert!(c.chunk.len() <= bound, "{}: {} > bound {bound}", c.name, c.chunk.len());
        // The header's sub-chunk size follows the rule for the batch geometry.
        let header = ans::ChunkHeader::read(&c.chunk).unwrap();
        assert_eq!(header.sub_chunk_size as usize, c.options.sub_chunk_size(c.max_chunk_bytes), "{}", c.name);
        assert_eq!(header.states_per_lane as usize, c.options.effective_states_per_lane(), "{}", c.name);
        let mut out = vec![0u8; bound];
        let n = ans::compress_in_batch(&c.original, &mut out, &c.options, c.max_chunk_bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        if out[..n] == c.chunk[..] {
            same += 1;
        } else {
            let diff = out[..n].iter().zip(&c.chunk).position(|(a, b)| a != b);
            println!("{}: {} bytes vs nvCOMP's {}, first difference at {diff:?}", c.name, n, c.chunk.len());
        }
    }
    println!("re-encoded {same}/{} golden ANS chunks byte for byte", chunks.len());
    assert_eq!(same, chunks.len());
}

// ---------------------------------------------------------------------------------------------
// options, limits, bounds

#[test]
fn options_and_bounds_match_nvcomp() {
    let d = AnsOptions::default();
    assert_eq!(d.spec_header(), [0u8; 16]);
    assert_eq!(d.validate(), Ok(()));
    assert_eq!(AnsOptions::MAX_CHUNK_SIZE, 1 << 24);
    // FORMATS.md D.5 (default options).
    for (n, max) in [(1, 3616), (4096, 6688), (65536, 92720), (16_777_216, 23_071_280)] {
        assert_eq!(d.max_compressed_chunk_size(n), max, "CHAR {n}");
    }
    assert_eq!(AnsOptions::for_type(DataType::Float16).max_compressed_chunk_size(65536), 76336);
    assert_eq!(AnsOptions::for_type(DataType::Float32).max_compressed_chunk_size(65536), 72240);
    assert_eq!(AnsOptions::for_type(DataType::Float8E4M3).max_compressed_chunk_size(65536), 80432);
    for t in DataType::ALL {
        let supported = matches!(
            t,
            DataType::Char | DataType::Uchar | DataType::Float16 | DataType::Float32 | DataType::Float8E4M3
        );
        let o = AnsOptions::for_type(t);
        assert_eq!(o.validate().is_ok(), supported, "{t:?}");
        if !supported {
            assert_eq!(o.validate(), Err(Status::NotSupported));
            assert_eq!(ans::compress_to_vec(b"abc", &o), Err(Status::NotSupported));
        }
    }
    // FLOAT8 (nvCOMP's values for the sizes and options of tests/data/ans-samples).
    let fp8 = AnsOptions::for_type(DataType::Float8E4M3);
    for (n, max) in [
        (1, 3616),
        (64, 3648),
        (100, 3664),
        (511, 3872),
        (1000, 4112),
        (2048, 4640),
        (4096, 5664),
        (5000, 9184),
        (8193, 13872),
        (20000, 25920),
        (70001, 93168),
        (131149, 180048),
        (262144, 313904),
    ] {
        assert_eq!(fp8.max_compressed_chunk_size(n), max, "FLOAT8 {n}");
    }
    assert_eq!(fp8.with_states_per_lane(1).max_compressed_chunk_size(65536), 79408);
    assert_eq!(fp8.with_max_sub_chunk_count(4).max_compressed_chunk_size(65536), 79392);
    assert_eq!(fp8.with_max_sub_chunk_count(64).max_compressed_chunk_size(65536), 82512);
    assert_eq!(d.with_states_per_lane(1).max_compressed_chunk_size(65536), 91696);
    assert_eq!(fp8.sub_chunk_size(1), 4096);
    assert_eq!(fp8.sub_chunk_size(65536), 8192);
    for bad in [
        d.with_max_sub_chunk_count(3),
        d.with_max_sub_chunk_count(2),
        d.with_max_sub_chunk_count(128),
        d.with_states_per_lane(3),
        d.with_histogram_reduction_log2(9),
    ] {
        assert_eq!(bad.validate(), Err(Status::InvalidValue), "{bad:?}");
        assert_eq!(ans::compress_to_vec(b"abc", &bad), Err(Status::InvalidValue));
        assert!(AnsOptions::from_spec_header(&bad.spec_header()).is_err());
    }
    let o = AnsOptions::default()
        .with_data_type(DataType::Float16)
        .with_max_sub_chunk_count(16)
        .with_states_per_lane(1)
        .with_histogram_reduction_log2(3);
    assert_eq!(AnsOptions::from_spec_header(&o.spec_header()).unwrap(), o);
    let mut h = o.spec_header();
    h[0] = 1; // not rANS
    assert!(AnsOptions::from_spec_header(&h).is_err());
    assert!(AnsOptions::from_spec_header(&h[..15]).is_err());
    // Sub-chunk size rule (ANS.md 1.1).
    assert_eq!(d.sub_chunk_size(20000), 4096);
    assert_eq!(d.with_max_sub_chunk_count(4).sub_chunk_size(20000), 8192);
    assert_eq!(d.with_max_sub_chunk_count(64).sub_chunk_size(20000), 2048);
    assert_eq!(AnsOptions::for_type(DataType::Float16).sub_chunk_size(16384), 4096);
    assert_eq!(AnsOptions::for_type(DataType::Float32).sub_chunk_size(65536), 8192);
    // Too large, odd element counts.
    let big = vec![0u8; AnsOptions::MAX_CHUNK_SIZE + 1];
    assert_eq!(ans::compress_to_vec(&big, &d), Err(Status::ChunkSizeTooLarge));
    assert_eq!(ans::compress_to_vec(&[1, 2, 3], &AnsOptions::for_type(DataType::Float16)), Err(Status::InvalidValue));
    assert_eq!(
        ans::compress_to_vec(&[1, 2, 3, 4, 5, 6], &AnsOptions::for_type(DataType::Float32)),
        Err(Status::InvalidValue)
    );
    // A too-small output buffer.
    let mut small = [0u8; 100];
    assert_eq!(ans::compress(b"hello, world", &mut small, &d), Err(Status::OutputBufferTooSmall));
}

// ---------------------------------------------------------------------------------------------
// round trips

/// `n` normal-distributed values (mean 0, standard deviation `sigma`), Box-Muller.
fn normals(rng: &mut Rng, n: usize, sigma: f64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let u1 = (rng.below(1 << 30) as f64 + 1.0) / (1u64 << 30) as f64;
            let u2 = rng.below(1 << 30) as f64 / (1u64 << 30) as f64;
            sigma * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
        })
        .collect()
}

fn f16_array(rng: &mut Rng, n: usize) -> Vec<u8> {
    normals(rng, n, 0.02).iter().flat_map(|&v| f16_bits(v as f32).to_le_bytes()).collect()
}

fn f32_array(rng: &mut Rng, n: usize) -> Vec<u8> {
    normals(rng, n, 3.0).iter().flat_map(|&v| (v as f32).to_le_bytes()).collect()
}

fn round_trip(what: &str, data: &[u8], options: &AnsOptions, max_chunk_bytes: usize) -> usize {
    let mut out = vec![0u8; options.max_compressed_chunk_size(max_chunk_bytes.max(data.len()))];
    let n = ans::compress_in_batch(data, &mut out, options, max_chunk_bytes)
        .unwrap_or_else(|e| panic!("{what} ({} bytes, {options:?}): {e}", data.len()));
    let chunk = &out[..n];
    // nvCOMP's bound for the chunk's own size holds also inside a batch of larger chunks.
    assert!(n <= options.max_compressed_chunk_size(data.len()), "{what}: {n} above the bound");
    assert_eq!(ans::decompressed_size(chunk), Ok(data.len()), "{what}");
    let back =
        ans::decompress_to_vec(chunk).unwrap_or_else(|e| panic!("{what} ({} bytes, {options:?}): {e}", data.len()));
    assert!(back == data, "{what} ({} bytes, {options:?}): round trip differs", data.len());
    n
}

fn option_variants(data_type: DataType) -> Vec<AnsOptions> {
    let base = AnsOptions::for_type(data_type);
    vec![
        base,
        base.with_states_per_lane(1),
        base.with_max_sub_chunk_count(64),
        base.with_max_sub_chunk_count(4).with_states_per_lane(2),
        base.with_histogram_reduction_log2(2),
        base.with_histogram_reduction_log2(8).with_states_per_lane(1),
    ]
}

#[test]
fn round_trips_bytes() {
    let mut rng = Rng::fresh("ans round trips");
    let sizes = [
        0usize, 1, 2, 3, 17, 31, 63, 64, 65, 255, 511, 512, 513, 1000, 2047, 2048, 2049, 4095, 4096, 5000, 20000, 65536,
    ];
    for &n in &sizes {
        let random = rng.bytes(n);
        let skewed: Vec<u8> = (0..n).map(|_| (rng.below(64).pow(2) / 64) as u8 + b'a').collect();
        let single = vec![b'x'; n];
        let two: Vec<u8> = (0..n).map(|i| if i % 7 == 0 { 1 } else { 200 }).collect();
        let text = rng.compressible(n);
        let kinds: [(&str, &Vec<u8>); 5] =
            [("random", &random), ("skewed", &skewed), ("single", &single), ("two", &two), ("text", &text)];
        for opts in option_variants(DataType::Uchar) {
            for (what, data) in kinds {
                round_trip(what, data, &opts, n);
                // A chunk of a batch with a larger chunk (a larger sub-chunk size).
                round_trip(what, data, &opts, 3 * n + 100);
            }
        }
    }
    // The largest chunk nvCOMP accepts: 16 MiB, sub-chunks of 2 MiB.
    let big = rng.compressible(AnsOptions::MAX_CHUNK_SIZE);
    let n = round_trip("16 MiB text", &big, &AnsOptions::default(), big.len());
    assert_eq!(
        ans::ChunkHeader::read(&ans::compress_to_vec(&big[..1 << 20], &AnsOptions::default()).unwrap())
            .unwrap()
            .sub_chunk_size,
        1 << 17
    );
    assert!(n < big.len());
    // Single-symbol chunk: each sub-chunk is just its initial states.
    let c = ans::compress_to_vec(&[7u8; 4096], &AnsOptions::default()).unwrap();
    let h = ans::ChunkHeader::read(&c).unwrap();
    assert_eq!((h.min_symbol, h.max_symbol), (7, 7));
    assert_eq!(c.len(), 32 + 256 + 256); // two sub-chunks of 2048
                                         // Skewed data compresses.
    let skewed: Vec<u8> = (0..65536).map(|_| (rng.below(16).pow(3) / 256) as u8).collect();
    let n = round_trip("skewed", &skewed, &AnsOptions::default(), 65536);
    assert!(n < 65536 / 2, "skewed: {n}");
}

#[test]
fn round_trips_floats() {
    let mut rng = Rng::fresh("ans float round trips");
    for halves in [0usize, 1, 2, 3, 5, 255, 256, 257, 1001, 2048, 4097, 32768] {
        let data = f16_array(&mut rng, halves);
        let random = rng.bytes(halves * 2);
        for opts in option_variants(DataType::Float16) {
            round_trip("float16", &data, &opts, data.len());
            round_trip("float16 random", &random, &opts, data.len() * 2 + 6);
        }
    }
    for n in [0usize, 1, 2, 3, 7, 255, 256, 511, 512, 513, 1000, 4096, 4097, 8192, 8193, 20000, 65536] {
        // Realistic E4M3 values (normals of several scales) and uniform random bytes.
        let data: Vec<u8> = normals(&mut rng, n, 4.0).iter().map(|&v| e4m3(v)).collect();
        let random = rng.bytes(n);
        for opts in option_variants(DataType::Float8E4M3) {
            round_trip("float8", &data, &opts, n);
            round_trip("float8 random", &random, &opts, n.max(1) * 2 + 3);
        }
    }
    for floats in [0usize, 1, 2, 3, 31, 33, 255, 256, 257, 1000, 1024, 4096, 16384] {
        let data = f32_array(&mut rng, floats);
        let random = rng.bytes(floats * 4);
        for opts in option_variants(DataType::Float32) {
            round_trip("float32", &data, &opts, data.len());
            round_trip("float32 random", &random, &opts, data.len() * 2 + 8);
        }
    }
}

/// Ratios on the anchor corpora's kinds of data (printed, not asserted): 64 KiB chunks.
#[test]
fn ratios_vs_anchors() {
    let chunked = |data: &[u8], options: &AnsOptions| -> f64 {
        let cs = 65536.min(data.len());
        let total: usize = data.chunks(cs).map(|c| round_trip("ratio", c, options, cs).next_multiple_of(16)).sum();
        data.len() as f64 / total as f64
    };
    let text = lineitem_text(1 << 20);
    println!(
        "lineitem text ({} bytes): ANS ratio {:.3} (anchor lineitem.tbl 1.533)",
        text.len(),
        chunked(&text, &AnsOptions::default())
    );
    let comment: Vec<u8> = text
        .split(|&b| b == b'\n')
        .filter_map(|l| l.split(|&b| b == b'|').nth(15))
        .flat_map(|c| c.iter().copied().chain(std::iter::once(b'\n')))
        .collect();
    println!(
        "lineitem comments ({} bytes): ANS ratio {:.3} (anchor comment 1.747)",
        comment.len(),
        chunked(&comment, &AnsOptions::default())
    );
    let mut rng = Rng::fresh("ans ratio");
    let weights = f16_array(&mut rng, 1 << 19);
    println!(
        "normal float16 weights ({} bytes): ANS FLOAT16 ratio {:.3}, as bytes {:.3} (anchor weights.f16 FLOAT16 1.150)",
        weights.len(),
        chunked(&weights, &AnsOptions::for_type(DataType::Float16)),
        chunked(&weights, &AnsOptions::default())
    );
}

// ---------------------------------------------------------------------------------------------
// hostile input

fn decode_any(chunk: &[u8]) -> Result<usize, Status> {
    let size = ans::decompressed_size(chunk);
    let mut out = vec![0u8; size.unwrap_or(0).min(1 << 25)];
    ans::decompress(chunk, &mut out)
}

#[test]
fn hostile_input_is_rejected_without_panics() {
    let mut rng = Rng::fresh("ans hostile");
    let (goldens, _) = golden_chunks();
    let mut samples: Vec<Vec<u8>> = goldens.iter().step_by(7).map(|c| c.chunk.clone()).collect();
    samples
        .push(ans::compress_to_vec(&rng.compressible(30000), &AnsOptions::default().with_states_per_lane(1)).unwrap());
    samples.push(ans::compress_to_vec(&f16_array(&mut rng, 3001), &AnsOptions::for_type(DataType::Float16)).unwrap());
    samples.push(ans::compress_to_vec(&f32_array(&mut rng, 3001), &AnsOptions::for_type(DataType::Float32)).unwrap());
    // FLOAT8: seeded sub-chunks (4096 bytes = 2048 symbols), a last one of 1 symbol, odd length.
    samples.push(ans::compress_to_vec(&rng.compressible(8195), &AnsOptions::for_type(DataType::Float8E4M3)).unwrap());
    let (mut flips, mut detected) = (0, 0);
    for s in &samples {
        let n = ans::decompressed_size(s).unwrap();
        if n == 0 {
            continue;
        }
        // Every truncation cuts into the last sub-chunk or the tables.
        for cut in [0, 1, 15, 16, 17, s.len() / 2, s.len() - 2, s.len() - 1] {
            assert_eq!(decode_any(&s[..cut]), Err(Status::CannotDecompress), "cut at {cut}");
        }
        // Flips anywhere: an error or (padding bytes) the right size, never a panic.
        for _ in 0..200 {
            let mut bad = s.clone();
            let i = rng.below(bad.len() as u64) as usize;
            bad[i] ^= 1 << rng.below(8);
            if let Ok(m) = decode_any(&bad) {
                assert!(m <= 1 << 25);
            }
        }
        // Flips in the last sub-chunk's words or states: mostly detected (all words consumed,
        // all states back at 2^16), but rANS has no check bits: a flip that moves a slot to
        // another symbol of the same frequency decodes "successfully" to different bytes.
        let chunk = ans::Chunk::parse(s).unwrap();
        let last = chunk.sub_chunks.last().unwrap();
        let start = s.len() - last.len();
        for _ in 0..50 {
            let mut bad = s.clone();
            let i = start + rng.below(last.len() as u64) as usize;
            bad[i] ^= 1 << rng.below(8);
            flips += 1;
            detected += decode_any(&bad).is_err() as usize;
        }
    }
    println!("flips in sub-chunk data detected: {detected}/{flips}");
    // Random header, size-table and frequency-table bytes.
    for s in &samples {
        let head = ans::Chunk::parse(s).unwrap().layout.data.min(s.len());
        for _ in 0..300 {
            let mut bad = s.clone();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(head as u64) as usize;
                bad[i] = rng.next() as u8;
            }
            let _ = decode_any(&bad);
        }
    }
    // Garbage.
    for len in [0usize, 1, 15, 16, 17, 32, 100, 1000, 5000] {
        for _ in 0..50 {
            let g = rng.bytes(len);
            let _ = decode_any(&g);
        }
    }
}

/// A valid little chunk to tamper with: "hello hello" in byte mode.
fn sample() -> Vec<u8> {
    ans::compress_to_vec(b"hello hello hello hello", &AnsOptions::default()).unwrap()
}

#[test]
fn crafted_headers_and_tables_are_rejected() {
    let good = sample();
    assert_eq!(decode_any(&good), Ok(23));
    let patch = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut c = good.clone();
        f(&mut c);
        decode_any(&c)
    };
    let set32 = |c: &mut Vec<u8>, at: usize, v: u32| c[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let bad = Err(Status::CannotDecompress);
    // Sizes: n huge (sub-chunk table out of the buffer), n above 2^25, sc = 0, sc tiny.
    assert_eq!(patch(&|c| set32(c, 0, u32::MAX)), bad);
    assert_eq!(patch(&|c| set32(c, 0, (1 << 25) + 1)), bad);
    assert_eq!(patch(&|c| set32(c, 0, 1 << 25)), bad);
    assert_eq!(patch(&|c| set32(c, 4, 0)), bad);
    assert_eq!(patch(&|c| set32(c, 4, 1)), bad);
    assert_eq!(patch(&|c| set32(c, 4, u32::MAX)), Ok(23)); // one sub-chunk either way: still valid
                                                           // mn > mx, table range past 255, pb > 16, unknown mode, FLOAT8, spl 0 / 3.
    assert_eq!(patch(&|c| c[8] = c[9] + 1), bad);
    assert_eq!(patch(&|c| c[9] = 255), bad);
    assert_eq!(patch(&|c| c[10] = 17), bad);
    assert_eq!(patch(&|c| c[10] = 10), bad);
    assert_eq!(patch(&|c| c[11] = 4), bad);
    assert_eq!(patch(&|c| c[11] = 2), bad);
    assert_eq!(patch(&|c| set32(c, 12, 0)), bad);
    assert_eq!(patch(&|c| set32(c, 12, 3)), bad);
    assert_eq!(patch(&|c| set32(c, 12, 1)), bad);
    // Sub-chunk size: below the states, odd word region, past the end, huge.
    assert_eq!(patch(&|c| set32(c, 16, 255)), bad);
    assert_eq!(patch(&|c| set32(c, 16, 257)), bad);
    assert_eq!(patch(&|c| set32(c, 16, 100_000)), bad);
    assert_eq!(patch(&|c| set32(c, 16, u32::MAX)), bad);
    // Frequency table: sum off by one either way, 0xFFFF everywhere.
    let table = 20;
    assert_eq!(patch(&|c| c[table] = c[table].wrapping_add(1)), bad);
    assert_eq!(patch(&|c| c[table] = c[table].wrapping_sub(1)), bad);
    assert_eq!(patch(&|c| c[table..table + 2].copy_from_slice(&[0xff, 0xff])), bad);
    // States: below 2^16, zero, maximal; trailing bytes are ignored.
    let st = good.len() - 4;
    assert_eq!(patch(&|c| set32(c, st, 0)), bad);
    assert_eq!(patch(&|c| set32(c, st, 0xffff)), bad);
    assert_eq!(patch(&|c| set32(c, st, u32::MAX)), bad);
    assert_eq!(patch(&|c| c.extend_from_slice(&[0u8; 40])), Ok(23));
    // A huge n with a buffer that holds its size table: no huge allocation before failing.
    let mut c = vec![0u8; 16 + 4 * 16384];
    set32(&mut c, 0, 1 << 25);
    set32(&mut c, 4, 2048);
    c[10] = 11;
    set32(&mut c, 12, 2);
    assert_eq!(ans::decompress(&c, &mut []), bad);
    let mut out = vec![0u8; 1 << 25];
    assert_eq!(ans::decompress(&c, &mut out), bad);
}

// ---------------------------------------------------------------------------------------------
// schedule (ANS.md 3.1)

#[test]
fn schedule_is_a_permutation_with_nvcomps_tiles() {
    use ans::rans::{schedule, state_index, tiles};
    for mode in [AnsMode::Bytes, AnsMode::Float16, AnsMode::Float8, AnsMode::Float32] {
        for spl in [1, 2] {
            for n in [0usize, 1, 17, 63, 64, 65, 255, 256, 300, 511, 512, 513, 1000, 2048, 4096 + 17] {
                let mut seen = vec![false; n];
                for (m, pos) in schedule(n, spl, mode) {
                    assert!(m < 32 * spl && !seen[pos], "{mode:?} spl {spl} n {n}");
                    seen[pos] = true;
                }
                assert!(seen.iter().all(|&s| s), "{mode:?} spl {spl} n {n}");
                assert_eq!(tiles(n, spl, mode).map(|t| t.len).sum::<usize>(), n);
            }
        }
    }
    // N = 17, byte mode: one tile of 64 (B = 2); lanes 0..7 full, lane 8 only its first symbol.
    let order: Vec<_> = schedule(17, 2, AnsMode::Bytes).collect();
    assert_eq!(order.len(), 17);
    assert_eq!(order[0], (state_index(0, 0, 2), 0));
    assert_eq!(order[1], (state_index(0, 1, 2), 1));
    assert_eq!(order[16], (state_index(8, 0, 2), 16));
    // N = 512: tiles of 256 (B = 8); state 2(31−j)+s decodes position 8j+s first (ramp.u8).
    let order: Vec<_> = schedule(512, 2, AnsMode::Bytes).collect();
    for j in 0..32 {
        for s in 0..2 {
            assert_eq!(order[2 * j + s], (2 * (31 - j) + s, 8 * j + s));
        }
    }
    // The body unit is 256·spl: N = 300 with one state per lane is one tile of 256 (B = 8), then
    // 44 in tiles of 64 (B = 2); with two states all 300 are in B = 2 tiles (txt300.spl1/.spl2).
    let blocks = |n, spl, mode| tiles(n, spl, mode).map(|t| (t.block, t.len)).collect::<Vec<_>>();
    assert_eq!(blocks(300, 1, AnsMode::Bytes), [(8, 256), (2, 44)]);
    assert_eq!(blocks(300, 2, AnsMode::Bytes), [(2, 64), (2, 64), (2, 64), (2, 64), (2, 44)]);
    // FLOAT8: body tiles of 128 (B = 4); FLOAT32: tiles of 128 throughout.
    assert_eq!(blocks(500, 1, AnsMode::Float8), [(4, 128), (4, 128), (2, 64), (2, 64), (2, 64), (2, 52)]);
    assert!(tiles(1000, 2, AnsMode::Float32).all(|t| t.block == 4));
    assert_eq!(tiles(1000, 2, AnsMode::Bytes).next().unwrap().block, 8);
    // Seeded FLOAT8 sub-chunks: no tail.
    assert!(ans::rans::seeded(2048, 2, AnsMode::Float8) && ans::rans::seeded(256, 1, AnsMode::Float8));
    assert!(!ans::rans::seeded(1808, 2, AnsMode::Float8) && !ans::rans::seeded(256, 2, AnsMode::Float8));
    assert!(!ans::rans::seeded(2048, 2, AnsMode::Bytes) && !ans::rans::seeded(0, 1, AnsMode::Float8));
}

// ---------------------------------------------------------------------------------------------
// nvCOMP's samples: FLOAT8 and one state per lane (tests/data/ans-samples/README.md)

/// One sample: nvCOMP's chunks of an input compressed in one batch.
struct Sample {
    name: String,
    input: Vec<u8>,
    /// `max_uncompressed_chunk_bytes` of the batch (also the chunk size the input was cut in).
    chunk: usize,
    options: AnsOptions,
    chunks: Vec<Vec<u8>>,
}

fn samples() -> Vec<Sample> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ans-samples");
    let read = |p: &str| std::fs::read(dir.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let list = String::from_utf8(read("samples.csv")).unwrap();
    let mut out = Vec::new();
    for line in list.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| f[i].parse::<usize>().unwrap();
        let data_type = match f[3] {
            "fp8" => DataType::Float8E4M3,
            "char" => DataType::Char,
            "uchar" => DataType::Uchar,
            "float16" => DataType::Float16,
            "float32" => DataType::Float32,
            t => panic!("data type {t}"),
        };
        let options = AnsOptions::default()
            .with_data_type(data_type)
            .with_states_per_lane(num(4) as u8)
            .with_max_sub_chunk_count(num(5) as u8)
            .with_histogram_reduction_log2(num(6) as u8);
        // u64 count, u64 sizes, the chunks back to back.
        let b = read(&format!("{}.chunks", f[0]));
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap()) as usize;
        let mut off = 8 + 8 * u64_at(0);
        let chunks = (0..u64_at(0))
            .map(|i| {
                let c = b[off..off + u64_at(8 + 8 * i)].to_vec();
                off += c.len();
                c
            })
            .collect();
        out.push(Sample {
            name: f[0].to_string(),
            input: read(&format!("inputs/{}", f[1])),
            chunk: num(2),
            options,
            chunks,
        });
    }
    out
}

#[test]
fn nvcomp_samples_decode_and_reencode_byte_for_byte() {
    let samples = samples();
    assert_eq!(samples.len(), 30);
    let (mut chunks, mut fp8, mut one_state) = (0, 0, 0);
    for s in &samples {
        let pieces: Vec<&[u8]> = s.input.chunks(s.chunk).collect();
        assert_eq!(pieces.len(), s.chunks.len(), "{}", s.name);
        for (i, (piece, nv)) in pieces.iter().zip(&s.chunks).enumerate() {
            let what = format!("{} chunk {i}", s.name);
            assert_eq!(ans::decompress_to_vec(nv).as_deref(), Ok(&piece[..]), "{what}: decode");
            assert!(nv.len() <= s.options.max_compressed_chunk_size(s.chunk), "{what}: bound");
            let ours = ans::compress_to_vec_in_batch(piece, &s.options, s.chunk).unwrap();
            let diff = ours.iter().zip(nv).position(|(a, b)| a != b);
            assert!(ours == *nv, "{what}: {} bytes vs nvCOMP's {}, first difference at {diff:?}", ours.len(), nv.len());
            let h = ans::ChunkHeader::read(nv).unwrap();
            chunks += 1;
            fp8 += (h.mode == AnsMode::Float8) as usize;
            one_state += (h.states_per_lane == 1) as usize;
        }
    }
    println!("{chunks} sample chunks decoded and re-encoded byte for byte ({fp8} FLOAT8, {one_state} with one state)");
    assert!(fp8 >= 20 && one_state >= 25);
}

#[test]
fn float8_layout() {
    // nvCOMP's chunk of the 7 values 46 6b 43 f7 b5 38 1d (fp8u7): symbols are the exponent
    // pairs e(a) | e(b) << 4, raw bytes (sign << 3 | mantissa) pairs, the odd last value raw.
    let (raw, sym) = ans::float::split(&[0x46, 0x6b, 0x43, 0xf7, 0xb5, 0x38, 0x1d], AnsMode::Float8);
    assert_eq!(raw, [0x36, 0xf3, 0x0d, 0x1d]);
    assert_eq!(sym, [0xd8, 0xe8, 0x76]);
    // One value: no symbols, an empty sub-chunk and the all-zero one-entry table (fp8u1).
    let c = ans::compress_to_vec(&[0xac], &AnsOptions::for_type(DataType::Float8E4M3)).unwrap();
    assert_eq!(c.len(), 32);
    assert_eq!(&c[16..28], [0, 0, 0, 0, 0, 0, 0, 0, 0xac, 0, 0, 0]);
    assert_eq!(ans::decompress_to_vec(&c), Ok(vec![0xac]));
    // A chunk without symbols must have an empty sub-chunk; a table sum of 0 needs no symbols.
    let mut bad = c.clone();
    bad[16] = 16;
    assert_eq!(ans::decompress_to_vec(&bad), Err(Status::CannotDecompress));
    let two = ans::compress_to_vec(&[0x31, 0xec, 0x55], &AnsOptions::for_type(DataType::Float8E4M3)).unwrap();
    let mut zeroed = two.clone();
    let table = ans::Chunk::parse(&two).unwrap().layout.table;
    zeroed[table].fill(0);
    assert_eq!(ans::decompress_to_vec(&zeroed), Err(Status::CannotDecompress));
}
