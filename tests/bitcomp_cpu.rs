//! Bitcomp CPU reference codec: golden nvCOMP streams (decode, re-encode, ratio), the model's
//! encoder outputs (`tests/data/bitcomp/vectors.bin`), round trips for every type, TPC-H
//! columns, option edge cases and hostile input.
mod common;

use common::{f16_bits, lineitem_columns, Rng, BITCOMP_ALGORITHMS, BITCOMP_TYPES};
use gpucomp::algorithm::bitcomp::{BitcompAlgorithm, BitcompOptions};
use gpucomp::container::NativeStream;
use gpucomp::cpu::bitcomp;
use gpucomp::{DataType, Format, Status};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// helpers

/// The nvcompType_t nvCOMP maps to a chunk's type code.
fn data_type_of_code(code: u8) -> DataType {
    [
        DataType::Uchar,
        DataType::Char,
        DataType::Ushort,
        DataType::Short,
        DataType::Uint,
        DataType::Int,
        DataType::ULongLong,
        DataType::LongLong,
    ][code as usize]
}

/// The integer type a chunk records for `t`: floats are stored as unsigned integers of their width.
fn stored_type(t: DataType) -> DataType {
    match t {
        DataType::Float16 => DataType::Ushort,
        DataType::Float32 => DataType::Uint,
        DataType::Float64 => DataType::ULongLong,
        t => t,
    }
}

fn compress(input: &[u8], algorithm: BitcompAlgorithm, data_type: DataType) -> Vec<u8> {
    bitcomp::compress_to_vec(input, &BitcompOptions::default().with_algorithm(algorithm).with_data_type(data_type))
        .expect("compress")
}

fn decompress(chunk: &[u8], size: usize) -> Result<Vec<u8>, Status> {
    let mut out = vec![0u8; size];
    let n = bitcomp::decompress(chunk, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// `a` and `b` equal outside the padding of either (where GPU and host writers differ).
fn same_modulo_padding(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut x, mut y) = (a.to_vec(), b.to_vec());
    for r in bitcomp::padding_ranges(a).unwrap().into_iter().chain(bitcomp::padding_ranges(b).unwrap()) {
        x[r.clone()].fill(0);
        y[r].fill(0);
    }
    x == y
}

fn round_trip(input: &[u8], algorithm: BitcompAlgorithm, data_type: DataType, what: &str) -> usize {
    let c = compress(input, algorithm, data_type);
    assert!(c.len() <= bitcomp::max_compressed_size(input.len()), "{what}: {} bytes over the bound", c.len());
    assert_eq!(c.len() % 4, 0, "{what}");
    assert_eq!(bitcomp::decompressed_size(&c), Ok(input.len()), "{what}");
    let back = decompress(&c, input.len()).unwrap_or_else(|e| panic!("{what} ({algorithm:?}, {data_type:?}): {e}"));
    assert!(back == input, "{what} ({algorithm:?}, {data_type:?}): round trip differs");
    c.len()
}

// ---------------------------------------------------------------------------------------------
// golden streams (tests/data/golden, Bitcomp rows of the shared nvCOMP 6.0.0.12 set)

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// One GPU-written Bitcomp chunk with the input it holds.
struct GoldenChunk {
    stream: String,
    chunk: Vec<u8>,
    original: Vec<u8>,
    opts: BitcompOptions,
}

/// Every Bitcomp chunk of every golden stream, grouped by stream.
fn golden_streams() -> Vec<Vec<GoldenChunk>> {
    let dir = golden_dir();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.csv")).expect("tests/data/golden/MANIFEST.csv");
    let mut streams = Vec::new();
    for line in manifest.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() < 4 || f[2] != "Bitcomp" {
            continue;
        }
        assert_eq!(f[3], "NVCOMP_NATIVE", "{}", f[0]);
        let stream = std::fs::read(dir.join(f[0])).unwrap();
        let input = std::fs::read(dir.join(f[1])).unwrap();
        let s = NativeStream::parse(&stream).unwrap_or_else(|e| panic!("{}: {e}", f[0]));
        assert_eq!(s.format(), Format::Bitcomp);
        let opts = BitcompOptions::from_spec_header(s.spec_header()).unwrap_or_else(|e| panic!("{}: {e}", f[0]));
        assert_eq!(opts.spec_header(), s.spec_header(), "{}: spec header not as nvCOMP writes it", f[0]);
        assert_eq!(s.uncompressed_size() as usize, input.len());
        let chunks = s
            .chunks()
            .map(|c| {
                let start = c.index * s.uncomp_chunk_size() as usize;
                GoldenChunk {
                    stream: format!("{} chunk {}", f[0], c.index),
                    chunk: c.data.to_vec(),
                    original: input[start..start + c.uncompressed_size as usize].to_vec(),
                    opts,
                }
            })
            .collect();
        streams.push(chunks);
    }
    streams
}

#[test]
fn golden_chunks_decode_exactly() {
    let streams = golden_streams();
    let chunks: Vec<&GoldenChunk> = streams.iter().flatten().collect();
    assert!(streams.len() >= 38, "only {} golden Bitcomp streams", streams.len());
    let sparse = chunks.iter().filter(|c| c.opts.algorithm == BitcompAlgorithm::Sparse).count();
    println!(
        "{} golden Bitcomp streams, {} chunks ({} default, {sparse} sparse)",
        streams.len(),
        chunks.len(),
        chunks.len() - sparse
    );
    for c in &chunks {
        assert_eq!(bitcomp::decompressed_size(&c.chunk), Ok(c.original.len()), "{}", c.stream);
        let out = decompress(&c.chunk, c.original.len()).unwrap_or_else(|e| panic!("{}: {e}", c.stream));
        assert!(out == c.original, "{}: decoded bytes differ", c.stream);
        // the chunk header records the type nvCOMP maps the stream's data type to
        assert_eq!(data_type_of_code(c.chunk[3]), stored_type(c.opts.data_type), "{}", c.stream);
        if !c.original.is_empty() {
            let mut short = vec![0u8; c.original.len() - 1];
            assert_eq!(bitcomp::decompress(&c.chunk, &mut short), Err(Status::OutputBufferTooSmall), "{}", c.stream);
        }
        let views = bitcomp::blocks(&c.chunk).unwrap();
        assert_eq!(views.len(), c.original.len().div_ceil(8192));
        assert_eq!(
            views.last().map_or(32, |v| v.payload.end),
            c.chunk.len(),
            "{}: blocks in order, contiguous",
            c.stream
        );
        assert_eq!(bitcomp::describe::chunk(&c.chunk).unwrap().blocks.len(), views.len());
        // a larger output buffer is fine; only the chunk's bytes are written
        let mut big = vec![0xa5u8; c.original.len() + 9];
        assert_eq!(bitcomp::decompress(&c.chunk, &mut big), Ok(c.original.len()));
        assert!(big[c.original.len()..].iter().all(|&b| b == 0xa5));
    }
}

#[test]
fn golden_chunks_reencode_as_nvcomp() {
    let streams = golden_streams();
    let (mut n, mut identical) = (0, 0);
    for s in &streams {
        let (mut ours, mut theirs, mut bytes) = (0usize, 0usize, 0usize);
        for c in s {
            let e = compress(&c.original, c.opts.algorithm, c.opts.data_type);
            assert_eq!(e.len(), c.chunk.len(), "{}: length differs from nvCOMP's GPU chunk", c.stream);
            assert!(same_modulo_padding(&e, &c.chunk), "{}: differs from nvCOMP's GPU chunk beyond padding", c.stream);
            n += 1;
            identical += (e == c.chunk) as usize;
            ours += e.len();
            theirs += c.chunk.len();
            bytes += c.original.len();
        }
        assert_eq!(ours, theirs);
        let name = s.first().map_or("?", |c| c.stream.rsplit_once(" chunk").map_or("?", |x| x.0));
        println!("{name}: ratio {:.3} (nvCOMP {:.3})", bytes as f64 / ours as f64, bytes as f64 / theirs as f64);
    }
    println!(
        "golden chunks re-encoded: {n}/{n} same length and same bytes outside padding, {identical}/{n} byte-identical"
    );
    assert!(n >= 80, "only {n} golden chunks");
}

// ---------------------------------------------------------------------------------------------
// the model's encoder outputs (tests/data/bitcomp/README.md)

struct Vector {
    code: u8,
    algorithm: BitcompAlgorithm,
    input: Vec<u8>,
    chunk: Vec<u8>,
}

fn vectors(path: &Path) -> Vec<Vector> {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&b[..4], b"BCV1");
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap()) as usize;
    let count = u32_at(4);
    let mut at = 8;
    let mut v = Vec::new();
    for _ in 0..count {
        let (code, algo) = (b[at], b[at + 1]);
        let n = u32_at(at + 2);
        let input = b[at + 6..at + 6 + n].to_vec();
        at += 6 + n;
        let m = u32_at(at);
        let chunk = b[at + 4..at + 4 + m].to_vec();
        at += 4 + m;
        v.push(Vector { code, algorithm: BitcompAlgorithm::from_raw(algo as u32).unwrap(), input, chunk });
    }
    assert_eq!(at, b.len());
    v
}

/// Checks that our encoder writes exactly the vectors' chunks and our decoder restores their
/// inputs; returns the number of raw blocks seen.
fn check_vectors(v: &[Vector]) -> usize {
    let mut raw_blocks = 0;
    for (i, t) in v.iter().enumerate() {
        let what = format!("vector {i} (type {}, {:?}, {} bytes)", t.code, t.algorithm, t.input.len());
        let e = compress(&t.input, t.algorithm, data_type_of_code(t.code));
        assert!(e == t.chunk, "{what}: differs from the model's chunk");
        assert_eq!(decompress(&t.chunk, t.input.len()).as_deref(), Ok(&t.input[..]), "{what}");
        let blocks = t.input.len().div_ceil(8192);
        raw_blocks += (0..blocks).filter(|b| t.chunk[32 + 8 * b + 7] & 0x80 != 0).count();
    }
    raw_blocks
}

#[test]
fn encoder_equals_model_bytes() {
    let v = vectors(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bitcomp/vectors.bin"));
    let raw_blocks = check_vectors(&v);
    println!("{} model vectors byte-identical ({raw_blocks} raw blocks among them)", v.len());
    assert!(v.len() >= 160);
    assert!(raw_blocks > 0);
}

/// Vectors from a file named by `GPUCOMP_BITCOMP_VECTORS` (e.g. written with nvCOMP's host
/// compressor: `gen_vectors.py --host LIB --random N --out FILE`, see tests/data/bitcomp/README.md).
#[test]
#[ignore]
fn encoder_equals_external_vectors() {
    let Ok(path) = std::env::var("GPUCOMP_BITCOMP_VECTORS") else {
        println!("GPUCOMP_BITCOMP_VECTORS not set: nothing to check");
        return;
    };
    let v = vectors(Path::new(&path));
    let raw_blocks = check_vectors(&v);
    println!("{path}: {} vectors byte-identical ({raw_blocks} raw blocks among them)", v.len());
}

/// Chunks with non-canonical but legal codings (random tokenizations, extra sparse bits, junk
/// padding) decode to what nvCOMP's host decoder returns for them.
fn check_decode_vectors(v: &[Vector]) {
    for (i, t) in v.iter().enumerate() {
        let what = format!("vector {i} (type {}, {:?}, {} bytes)", t.code, t.algorithm, t.input.len());
        assert_eq!(decompress(&t.chunk, t.input.len()).as_deref(), Ok(&t.input[..]), "{what}");
        // our encoder writes the canonical coding of the same data
        let e = compress(&t.input, t.algorithm, data_type_of_code(t.code));
        assert_eq!(decompress(&e, t.input.len()).as_deref(), Ok(&t.input[..]), "{what}");
    }
}

#[test]
fn decoder_accepts_what_nvcomp_accepts() {
    let v = vectors(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bitcomp/decode_vectors.bin"));
    check_decode_vectors(&v);
    println!("{} non-canonical chunks decode as nvCOMP's host decoder decodes them", v.len());
    assert!(v.len() >= 48);
}

/// [`decoder_accepts_what_nvcomp_accepts`] on a file named by `GPUCOMP_BITCOMP_DECODE_VECTORS`
/// (`gen_decode_vectors.py`, see tests/data/bitcomp/README.md).
#[test]
#[ignore]
fn decoder_accepts_external_vectors() {
    let Ok(path) = std::env::var("GPUCOMP_BITCOMP_DECODE_VECTORS") else {
        println!("GPUCOMP_BITCOMP_DECODE_VECTORS not set: nothing to check");
        return;
    };
    let v = vectors(Path::new(&path));
    check_decode_vectors(&v);
    println!("{path}: {} non-canonical chunks decode as nvCOMP's host decoder decodes them", v.len());
}

#[test]
fn float_types_are_stored_as_unsigned() {
    let mut r = Rng::here();
    let data = r.bytes(20000);
    for (f, u) in [
        (DataType::Float16, DataType::Ushort),
        (DataType::Float32, DataType::Uint),
        (DataType::Float64, DataType::ULongLong),
    ] {
        for a in BITCOMP_ALGORITHMS {
            assert_eq!(compress(&data, a, f), compress(&data, a, u));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// round trips

#[test]
fn round_trips_every_type() {
    let mut r = Rng::here();
    let sizes = [0usize, 1, 3, 7, 8191, 8192, 8193, 12345, 16384 + 5, 40000 + 3];
    for &t in &BITCOMP_TYPES {
        let w = t.size();
        for &n in &sizes {
            let ne = n / w;
            let elems = |f: &mut dyn FnMut(usize) -> u64| -> Vec<u8> {
                let mut v: Vec<u8> = (0..ne).flat_map(|k| f(k).to_le_bytes()[..w].to_vec()).collect();
                v.extend((0..n - ne * w).map(|k| k as u8 ^ 0x5a));
                v
            };
            let c0 = r.next();
            let cases: Vec<(&str, Vec<u8>)> = vec![
                ("random", r.bytes(n)),
                ("sparse", (0..n).map(|_| if r.index(30) == 0 { r.next() as u8 } else { 0 }).collect()),
                ("constant", elems(&mut |_| c0)),
                ("zeros", vec![0; n]),
                ("ramp", elems(&mut |k| c0.wrapping_add(3 * k as u64))),
                ("down ramp", elems(&mut |k| 1000u64.wrapping_sub(k as u64))),
                ("small signed", elems(&mut |k| ((k % 17) as i64 - 8) as u64)),
                ("ones", elems(&mut |_| u64::MAX)),
            ];
            for (what, data) in &cases {
                for a in BITCOMP_ALGORITHMS {
                    round_trip(data, a, t, &format!("{what}, {n} bytes"));
                }
            }
        }
    }
}

#[test]
fn empty_and_tiny_chunks() {
    for a in BITCOMP_ALGORITHMS {
        let c = compress(&[], a, DataType::Uchar);
        assert_eq!(c.len(), 32);
        assert_eq!(&c[..3], b"NVZ");
        assert_eq!(decompress(&c, 0), Ok(vec![]));
    }
    // BITCOMP.md §4 example: u32 [1] → `00 03 | 01 | fc fd | 60 00 7e`
    let c = compress(&1u32.to_le_bytes(), BitcompAlgorithm::Default, DataType::Uint);
    assert_eq!(&c[40..], &[0x00, 0x03, 0x01, 0xfc, 0xfd, 0x60, 0x00, 0x7e]);
    // all-zero u32 block: `00 01 | fd | 7f`
    let c = compress(&[0; 8192], BitcompAlgorithm::Default, DataType::Uint);
    assert_eq!(&c[40..], &[0x00, 0x01, 0xfd, 0x7f]);
    let c = compress(&[0; 8192], BitcompAlgorithm::Sparse, DataType::Uint);
    assert_eq!(&c[40..], &[0, 0, 0, 0]);
}

// ---------------------------------------------------------------------------------------------
// TPC-H columns, ratios against nvCOMP's anchors

/// nvCOMP 6.0.0.12 Bitcomp ratios on an H200 (shared/anchors/nvcomp6-h200.csv: lineitem at
/// scale factor 2, 64 KiB chunks, default options).
const ANCHORS: [(&str, f64); 9] = [
    ("lineitem_orderkey.i64", 13.646),
    ("lineitem_extendedprice.i64", 2.702),
    ("lineitem_partkey.i32", 1.677),
    ("lineitem_quantity.i32", 5.265),
    ("lineitem_shipdate.i32", 2.715),
    ("lineitem_discount.u8", 1.990),
    ("lineitem_linenumber.u8", 2.645),
    ("sensor.f32", 1.686),
    ("weights.f16", 1.064),
];

#[test]
fn tpch_columns_round_trip_and_ratios() {
    // the first 60 000 rows of scale factor 2 (the anchors' corpus), then a small scale
    let mut cols: Vec<(String, DataType, Vec<u8>)> = Vec::new();
    for (sf, rows, tag) in [(2.0, 60_000, ""), (0.01, 20_000, " SF 0.01")] {
        cols.extend(lineitem_columns(sf, rows).into_iter().map(|(n, t, d)| (format!("{n}{tag}"), t, d)));
    }
    // the anchors' two numpy files, with the same distributions (not the same values)
    let mut r = Rng::here();
    let mut walk = 0f64;
    let sensor: Vec<u8> = (0..(1 << 18))
        .flat_map(|_| {
            walk += 0.1 * r.normal();
            (walk as f32).to_le_bytes()
        })
        .collect();
    let weights: Vec<u8> = (0..(1 << 19)).flat_map(|_| f16_bits((0.02 * r.normal()) as f32).to_le_bytes()).collect();
    cols.push(("sensor.f32".into(), DataType::Float32, sensor));
    cols.push(("weights.f16".into(), DataType::Float16, weights));
    for (name, t, data) in &cols {
        let mut line = format!("{name:36} {:8} bytes:", data.len());
        for a in BITCOMP_ALGORITHMS {
            // 64 KiB chunks as the anchors; the last one is not a multiple of 8 KiB
            let comp: usize = data.chunks(65536).map(|c| round_trip(c, a, *t, name)).sum();
            line += &format!(" {a:?} {:.3}", data.len() as f64 / comp as f64);
        }
        match ANCHORS.iter().find(|(n, _)| n == name) {
            Some((_, anchor)) => println!("{line}  (nvCOMP, default algorithm, whole SF 2 file: {anchor:.3})"),
            None => println!("{line}"),
        }
    }
    // a tail that is not a whole element
    let (_, t, d) = &cols[0];
    round_trip(&d[..d.len() - 3], BitcompAlgorithm::Default, *t, "orderkey minus 3 bytes");
}

// ---------------------------------------------------------------------------------------------
// options and buffers

#[test]
fn options_and_statuses() {
    let o = BitcompOptions::default();
    assert_eq!(o.algorithm, BitcompAlgorithm::Default);
    assert_eq!(o.data_type, DataType::Uchar);
    assert_eq!(o.spec_header(), [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    for t in [DataType::Float8E4M3, DataType::Bits] {
        let o = BitcompOptions::default().with_algorithm(BitcompAlgorithm::Default).with_data_type(t);
        assert!(o.element_width().is_err());
        assert_eq!(bitcomp::compress(&[1, 2, 3], &mut [0; 9000], &o), Err(Status::NotSupported));
    }
    for &t in &BITCOMP_TYPES {
        let o = BitcompOptions::default().with_algorithm(BitcompAlgorithm::Sparse).with_data_type(t);
        assert_eq!(o.element_width().unwrap(), t.size());
        assert_eq!(BitcompOptions::from_spec_header(&o.spec_header()).unwrap(), o);
    }
    for (n, m) in [(0, 32), (1, 8232), (4096, 8232), (65536, 65632), (1 << 24, 16_793_632)] {
        assert_eq!(bitcomp::max_compressed_size(n), m);
    }
    // spec headers that are refused: unknown algorithm, FP8, lossy mode, too short
    let h = BitcompOptions::default()
        .with_algorithm(BitcompAlgorithm::Sparse)
        .with_data_type(DataType::Float32)
        .spec_header();
    assert_eq!(&h[..8], &[1, 0, 0, 0, 11, 0, 0, 0]);
    for (i, v) in [(0, 2u8), (4, 9), (4, 0xff), (4, 8), (16, 1)] {
        let mut b = h;
        b[i] = v;
        assert!(BitcompOptions::from_spec_header(&b).is_err(), "byte {i} = {v}");
    }
    assert!(BitcompOptions::from_spec_header(&h[..12]).is_err());
    let mut delta = h;
    delta[8..16].copy_from_slice(&0.5f64.to_le_bytes()); // delta is ignored in lossless mode
    assert!(BitcompOptions::from_spec_header(&delta).is_ok());
    let big = vec![0u8; BitcompOptions::MAX_CHUNK_SIZE + 1];
    assert_eq!(bitcomp::compress(&big, &mut [0; 64], &o), Err(Status::ChunkSizeTooLarge));
    // too small an output buffer, at every length below the chunk's
    let mut r = Rng::here();
    let mut data = r.bytes(9000);
    data[..8192].fill(0);
    for a in BITCOMP_ALGORITHMS {
        let c = compress(&data, a, DataType::Uint);
        let o = BitcompOptions::default().with_algorithm(a).with_data_type(DataType::Uint);
        for len in 0..c.len() {
            let mut out = vec![0u8; len];
            assert_eq!(bitcomp::compress(&data, &mut out, &o), Err(Status::OutputBufferTooSmall), "{len}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// hostile input

/// Decoding must return (Ok with the declared size, or an error) and never panic.
fn try_decode(chunk: &[u8]) -> Result<usize, Status> {
    let mut out = vec![0u8; 1 << 17];
    let r = bitcomp::decompress(chunk, &mut out);
    let _ = bitcomp::padding_ranges(chunk);
    let _ = bitcomp::describe::chunk(chunk);
    if let Ok(n) = r {
        assert_eq!(bitcomp::decompressed_size(chunk), Ok(n));
    }
    if let Err(e) = r {
        assert!(matches!(e, Status::CannotDecompress | Status::OutputBufferTooSmall), "{e}");
    }
    r
}

#[test]
fn hostile_input_never_panics() {
    let mut r = Rng::here();
    let mut samples = Vec::new();
    for a in BITCOMP_ALGORITHMS {
        for t in [DataType::Uchar, DataType::Short, DataType::Int, DataType::ULongLong] {
            let mut d: Vec<u8> =
                (0..20000).map(|i| if r.index(8) == 0 { r.next() as u8 } else { (i / 300) as u8 }).collect();
            d[12000..].iter_mut().for_each(|b| *b = r.next() as u8); // a raw block
            samples.push(compress(&d, a, t));
            samples.push(compress(&d[..100], a, t));
        }
    }
    let (mut ok, mut err) = (0, 0);
    let mut count = |res: Result<usize, Status>| if res.is_ok() { ok += 1 } else { err += 1 };
    for c in &samples {
        // every truncation
        for len in 0..c.len() {
            assert!(try_decode(&c[..len]).is_err(), "truncated to {len} still decodes");
        }
        // single byte flips and random bytes at every position of the header, table, and a
        // sample of the payload
        let positions: Vec<usize> = (0..c.len()).filter(|&p| p < 80 || r.index(20) == 0).collect();
        for pos in positions {
            for v in [c[pos] ^ 1, c[pos] ^ 0x80, c[pos].wrapping_add(1), r.next() as u8, 0, 0xff] {
                let mut m = c.clone();
                m[pos] = v;
                count(try_decode(&m));
            }
        }
        // random garbage with a valid header
        for _ in 0..200 {
            let mut m = c.clone();
            let from = 32 + r.index(c.len() - 32);
            m[from..].iter_mut().for_each(|b| *b = r.next() as u8);
            count(try_decode(&m));
        }
    }
    // pure garbage, with and without the magic
    for n in [0, 1, 3, 31, 32, 33, 40, 100, 5000] {
        for _ in 0..50 {
            let mut m = r.bytes(n);
            count(try_decode(&m));
            if n >= 32 {
                m[..8].copy_from_slice(&[
                    b'N',
                    b'V',
                    b'Z',
                    r.index(8) as u8,
                    if r.index(2) == 0 { 0 } else { 0x10 },
                    0,
                    0,
                    0,
                ]);
                m[5] = m[3] & 1;
                count(try_decode(&m));
            }
        }
    }
    println!("hostile inputs: {ok} decoded (to wrong data, without error), {err} refused");
}

#[test]
fn hostile_fields() {
    let good = compress(&[7u8; 100], BitcompAlgorithm::Default, DataType::Uchar);
    let at = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut m = good.clone();
        f(&mut m);
        try_decode(&m)
    };
    assert_eq!(try_decode(&good), Ok(100));
    // a huge declared size: the block table does not fit in the chunk
    assert_eq!(at(&|m| m[16..24].copy_from_slice(&u64::MAX.to_le_bytes())), Err(Status::CannotDecompress));
    assert_eq!(at(&|m| m[16..24].copy_from_slice(&(1u64 << 40).to_le_bytes())), Err(Status::CannotDecompress));
    assert_eq!(bitcomp::decompressed_size(&good[..39]), Err(Status::CannotDecompress));
    // more blocks than the table holds
    assert_eq!(at(&|m| m[16..24].copy_from_slice(&9000u64.to_le_bytes())), Err(Status::CannotDecompress));
    // payload_words is informational (nvCOMP ignores it too)
    assert_eq!(at(&|m| m[8] ^= 1), Ok(100));
    // unknown low bits of the info word, offsets and word counts out of range
    assert_eq!(at(&|m| m[36] = 1), Err(Status::CannotDecompress));
    assert_eq!(at(&|m| m[32..36].copy_from_slice(&u32::MAX.to_le_bytes())), Err(Status::CannotDecompress));
    assert_eq!(at(&|m| m[36..40].copy_from_slice(&(0x7ffu32 << 19).to_le_bytes())), Err(Status::CannotDecompress));
    // op count larger than the block
    assert_eq!(at(&|m| m[40] = 0xff), Err(Status::CannotDecompress));
    // lossy mode bits, wrong signed flag, bad magic
    for (i, v) in [(4, 1u8), (4, 0x20), (5, 1), (6, 1), (0, b'X'), (3, 8)] {
        assert_eq!(at(&|m| m[i] = v), Err(Status::CannotDecompress), "byte {i} = {v}");
    }
    // a raw block whose payload is shorter than its output
    let mut raw = compress(&[7u8; 100], BitcompAlgorithm::Default, DataType::Uchar);
    raw[36..40].copy_from_slice(&(0x8000_0000u32 | 25 << 19).to_le_bytes());
    raw.truncate(40);
    raw.extend_from_slice(&[7u8; 100]);
    assert_eq!(try_decode(&raw), Ok(100));
    raw[36..40].copy_from_slice(&(0x8000_0000u32 | 24 << 19).to_le_bytes());
    assert_eq!(try_decode(&raw), Err(Status::CannotDecompress));
}

/// Payloads stored out of block order decode: the decoder follows the table's offsets.
#[test]
fn payloads_in_any_order() {
    let mut r = Rng::here();
    for a in BITCOMP_ALGORITHMS {
        let mut d = vec![0u8; 8192 * 2 + 100];
        d[..8192].iter_mut().for_each(|b| *b = r.index(4) as u8);
        d[8192..].iter_mut().for_each(|b| *b = if r.index(9) == 0 { r.next() as u8 } else { 0 });
        let c = compress(&d, a, DataType::Uchar);
        let v = bitcomp::blocks(&c).unwrap();
        assert_eq!(v.len(), 3);
        // reverse the payloads, rewrite the offsets
        let base = 32 + 8 * 3;
        let mut m = c[..base].to_vec();
        for (b, view) in v.iter().enumerate().rev() {
            let off = ((m.len() - base) / 4) as u32;
            m[32 + 8 * b..36 + 8 * b].copy_from_slice(&off.to_le_bytes());
            m.extend_from_slice(&c[view.payload.clone()]);
        }
        assert_ne!(m, c);
        assert_eq!(decompress(&m, d.len()), Ok(d.clone()), "{a:?}");
        // two blocks may even share a payload
        let mut s = c.clone();
        s[32 + 8 * 2..32 + 8 * 3].copy_from_slice(&c[32 + 8..32 + 16]);
        let mut want = d.clone();
        want.copy_within(8192..8292, 16384);
        assert_eq!(decompress(&s, d.len()), Ok(want));
    }
}
