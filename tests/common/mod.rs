//! Test data shared by the integration tests: golden nvCOMP streams, fresh random inputs (the
//! seed is printed, so a failure can be replayed with `GPUCOMP_TEST_SEED`), TPC-H text and
//! columns; [`gpu`]: helpers of the GPU tests; [`sim`]: the kernel simulator tests' batch harness.
#![allow(dead_code)] // each test binary uses a different part of this module

pub mod gpu;
mod rng;
pub mod sim;

pub use rng::Rng;

use gpucomp::{AnsOptions, BitcompAlgorithm, DataType};
use std::path::{Path, PathBuf};

/// One row of `tests/data/golden/MANIFEST.csv`.
pub struct Golden {
    /// Stream file name.
    pub name: String,
    /// `NVCOMP_NATIVE`, `RAW` or `WITH_UNCOMPRESSED_SIZE`.
    pub kind: String,
    /// The options nvCOMP was given (`;`-separated `key=value`).
    pub options: String,
    /// The stream's bytes.
    pub stream: Vec<u8>,
    /// The input nvCOMP compressed.
    pub input: Vec<u8>,
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// Every golden stream of `algorithm` (as the manifest spells it, e.g. `LZ4`).
pub fn goldens(algorithm: &str) -> Vec<Golden> {
    let dir = golden_dir();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.csv")).expect("tests/data/golden/MANIFEST.csv");
    let rows: Vec<Golden> = manifest
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[2] == algorithm)
        .map(|f| Golden {
            name: f[0].trim_start_matches("streams/").to_string(),
            kind: f[3].to_string(),
            options: f[4].to_string(),
            stream: std::fs::read(dir.join(f[0])).expect("golden stream"),
            input: std::fs::read(dir.join(f[1])).expect("golden input"),
        })
        .collect();
    assert!(!rows.is_empty(), "no golden {algorithm} streams");
    rows
}

/// FLOAT8 data ([`rng`] holds the generator itself).
impl Rng {
    /// `n` normal-distributed FLOAT8 E4M3 values of standard deviation `sigma` ([`e4m3`]).
    pub fn e4m3_normals(&mut self, n: usize, sigma: f64) -> Vec<u8> {
        (0..n).map(|_| e4m3(self.normal() * sigma)).collect()
    }
}

/// f32 → IEEE half bits, rounded to nearest even (no NaN input; beyond the half range: infinity).
pub fn f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let man = b & 0x7f_ffff;
    if exp >= 31 {
        return sign | 0x7c00;
    }
    if exp <= 0 {
        if exp < -10 {
            return sign;
        }
        let m = (man | 0x80_0000) >> (1 - exp);
        let half = m >> 13;
        let rest = m & 0x1fff;
        let r = half + ((rest > 0x1000 || (rest == 0x1000 && half & 1 == 1)) as u32);
        return sign | r as u16;
    }
    let half = ((exp as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    sign | (half + ((rest > 0x1000 || (rest == 0x1000 && half & 1 == 1)) as u32)) as u16
}

/// The ANS option sets the tests run for `data_type`: the defaults, one state per lane, 64
/// sub-chunks, 4 sub-chunks at one state per lane, sampled histograms.
pub fn ans_option_sets(data_type: DataType) -> [AnsOptions; 5] {
    let base = AnsOptions::for_type(data_type);
    [
        base,
        base.with_states_per_lane(1),
        base.with_max_sub_chunk_count(64),
        base.with_max_sub_chunk_count(4).with_states_per_lane(1),
        base.with_histogram_reduction_log2(2),
    ]
}

/// The FLOAT8 E4M3 ANS option sets the kernel tests run: [`ans_option_sets`], and sampled
/// histograms at one state per lane and 64 sub-chunks.
pub fn ans_float8_options() -> [AnsOptions; 6] {
    let [a, b, c, d, e] = ans_option_sets(DataType::Float8E4M3);
    [a, b, c, d, e, e.with_states_per_lane(1).with_max_sub_chunk_count(64)]
}

/// FLOAT8 chunk lengths of the ANS kernel tests: odd ones (1, 2 and 3 values: one value codes no
/// symbol), seeded (tail-less) and tailed sub-chunks, a one-byte last sub-chunk.
pub const ANS_FLOAT8_LENGTHS: [usize; 16] =
    [1, 2, 3, 7, 64, 511, 513, 1000, 1024, 2048, 4096, 5000, 8192, 8193, 20_001, 65_536];

/// Input `k mod 4` of `n` bytes for the FLOAT8 tests: random bytes, normal values of standard
/// deviation 4 and 0.32 as E4M3, or `text` (at least `n` bytes).
pub fn ans_float8_input(rng: &mut Rng, text: &[u8], n: usize, k: usize) -> Vec<u8> {
    match k % 4 {
        0 => rng.bytes(n),
        1 => rng.e4m3_normals(n, 4.0),
        2 => rng.e4m3_normals(n, 0.32),
        _ => text[..n].to_vec(),
    }
}

/// The FLOAT8 E4M3 bits (`s eeee mmm`) of the value nearest to `x` (ties to the smaller
/// magnitude, saturating at ±448, never NaN).
pub fn e4m3(x: f64) -> u8 {
    let value = |c: u8| {
        let (e, m) = ((c >> 3 & 15) as i32, (c & 7) as f64);
        if e == 0 {
            m / 8.0 * 2f64.powi(-6)
        } else {
            (1.0 + m / 8.0) * 2f64.powi(e - 7)
        }
    };
    let a = x.abs().min(448.0);
    let best = (0..=0x7e).min_by(|&p, &q| (value(p) - a).abs().total_cmp(&(value(q) - a).abs())).unwrap();
    best | if x < 0.0 { 0x80 } else { 0 }
}

/// The first `bytes` bytes (whole lines) of TPC-H lineitem text (`tpchgen` 4.0.0, scale 0.01),
/// as the anchor corpus writes `lineitem.tbl`.
pub fn lineitem_text(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    for li in tpchgen::generators::LineItemGenerator::new(0.01, 1, 1).iter() {
        if out.len() >= bytes {
            break;
        }
        out.extend_from_slice(format!("{li}\n").as_bytes());
    }
    out
}

/// The TPC-H lineitem columns as the anchor corpus writes them (`shared/tools/corpus`), little
/// endian, for the first `rows` rows at `scale_factor` (the generator is lazy: a prefix of scale
/// factor 2, the anchors' corpus, costs no more than a small scale): name, nvCOMP type, bytes.
pub fn lineitem_columns(scale_factor: f64, rows: usize) -> Vec<(&'static str, DataType, Vec<u8>)> {
    let mut c: Vec<(&str, DataType, Vec<u8>)> = vec![
        ("lineitem_orderkey.i64", DataType::LongLong, vec![]),
        ("lineitem_extendedprice.i64", DataType::LongLong, vec![]),
        ("lineitem_partkey.i32", DataType::Int, vec![]),
        ("lineitem_quantity.i32", DataType::Int, vec![]),
        ("lineitem_shipdate.i32", DataType::Int, vec![]),
        ("lineitem_discount.u8", DataType::Uchar, vec![]),
        ("lineitem_linenumber.u8", DataType::Uchar, vec![]),
    ];
    for li in tpchgen::generators::LineItemGenerator::new(scale_factor, 1, 1).iter().take(rows) {
        c[0].2.extend_from_slice(&li.l_orderkey.to_le_bytes());
        c[1].2.extend_from_slice(&li.l_extendedprice.into_inner().to_le_bytes());
        c[2].2.extend_from_slice(&(li.l_partkey as i32).to_le_bytes());
        c[3].2.extend_from_slice(&(li.l_quantity as i32).to_le_bytes());
        c[4].2.extend_from_slice(&li.l_shipdate.into_inner().to_le_bytes());
        c[5].2.push(li.l_discount.into_inner() as u8);
        c[6].2.push(li.l_linenumber as u8);
    }
    c
}

/// Every type LZ4 accepts.
pub const LZ4_TYPES: [DataType; 6] =
    [DataType::Char, DataType::Uchar, DataType::Short, DataType::Ushort, DataType::Int, DataType::Uint];

/// Every type ANS accepts.
pub const ANS_TYPES: [DataType; 5] =
    [DataType::Char, DataType::Uchar, DataType::Float16, DataType::Float8E4M3, DataType::Float32];

/// Every integer type (Cascaded's types; Bitcomp's without the floats).
pub const INTEGER_TYPES: [DataType; 8] = [
    DataType::Char,
    DataType::Uchar,
    DataType::Short,
    DataType::Ushort,
    DataType::Int,
    DataType::Uint,
    DataType::LongLong,
    DataType::ULongLong,
];

/// The symmetric Cascaded chunks nvCOMP 6.0.0.12's GPU encoder wrote for small inputs chosen for it (LLIF, mode
/// SYMMETRIC, default level and flags), one per form the decoder reads beyond the golden streams:
/// a 4-byte chunk whose last sub-block has 5 elements (not a multiple of 8), 8-byte chunks whose
/// partial last sub-block (5 and 100 elements) is one joined sub-stream in the RLE form, a single
/// 8-byte element (a 26-byte chunk, longer than the raw fallback: still symmetric), a 4-byte
/// DELTA walk with a 44-element tail, high words stepping every 8 elements (mode `09 02`: DELTA
/// without reference), a 64-bit walk (mode `11 44`: RLE of DELTA with reference) and words using
/// all 32 bits (mask `0xffffffff`: whole words, not four byte groups).
/// Stored in `tests/data/cascaded/nvcomp_symmetric.txt`: name (the input's), then the chunk in hex.
pub fn nvcomp_symmetric() -> Vec<(String, Vec<u8>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cascaded/nvcomp_symmetric.txt");
    let text = std::fs::read_to_string(path).expect("tests/data/cascaded/nvcomp_symmetric.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, hex) = l.split_once(' ').expect("name, space, hex");
            let bytes = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
            (name.to_string(), bytes)
        })
        .collect()
}

/// Both Bitcomp algorithms.
pub const BITCOMP_ALGORITHMS: [BitcompAlgorithm; 2] = [BitcompAlgorithm::Default, BitcompAlgorithm::Sparse];

/// Every type Bitcomp accepts in lossless mode.
pub const BITCOMP_TYPES: [DataType; 11] = [
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
