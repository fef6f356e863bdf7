//! LZ4 CPU reference codec: golden nvCOMP streams, round trips against lz4_flex, edge cases and
//! hostile input.
use gpucomp::cpu::lz4::{self, bitshuffle, decompress::DecompressError, EncoderParams};
use gpucomp::{BitshuffleMode, Lz4Encoder, Lz4Options, Status};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// helpers

/// Deterministic xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

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

fn u64_at(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Every LZ4 chunk of every golden stream (FORMATS.md A.1–A.4, A.7).
fn golden_chunks() -> Vec<GoldenChunk> {
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
        match f[3] {
            "NVCOMP_NATIVE" => {
                assert_eq!(u32_at(&stream, 0), 0x5291_1327, "{}", f[0]);
                let n = u64_at(&stream, 0x18);
                let cs = u64_at(&stream, 0x20);
                let data = u32_at(&stream, 0x28) as usize;
                let opts = Lz4Options::from_spec_header(&stream[0x38..0x44]).unwrap();
                let width = opts.element_width().unwrap();
                for i in 0..n {
                    let off = u64_at(&stream, 0x48 + 8 * i);
                    let size = u64_at(&stream, 0x48 + 8 * (n + i));
                    chunks.push(GoldenChunk {
                        name: format!("{} chunk {i}", f[0]),
                        block: stream[data + off..data + off + size].to_vec(),
                        original: input[i * cs..((i + 1) * cs).min(input.len())].to_vec(),
                        width,
                        mode: opts.bitshuffle,
                        table_size: EncoderParams::table_size_for(cs),
                    });
                }
            }
            kind => {
                let block = match kind {
                    "RAW" => stream.clone(),
                    "WITH_UNCOMPRESSED_SIZE" => {
                        assert_eq!(u64_at(&stream, 0), input.len());
                        stream[16..].to_vec()
                    }
                    k => panic!("unknown bitstream kind {k}"),
                };
                chunks.push(GoldenChunk {
                    name: f[0].to_string(),
                    block,
                    original: input.clone(),
                    width: 1,
                    mode: BitshuffleMode::None,
                    table_size: EncoderParams::table_size_for(input.len()),
                });
            }
        }
    }
    chunks
}

#[test]
fn golden_chunks_decode_exactly() {
    let chunks = golden_chunks();
    assert!(chunks.len() >= 434, "only {} golden LZ4 chunks", chunks.len());
    for c in &chunks {
        let shuffled = bitshuffle::shuffle_to_vec(&c.original, c.width, c.mode).unwrap();
        assert_eq!(lz4::decompressed_size(&c.block), Ok(c.original.len()), "{}", c.name);
        let out = decompress_vec(&c.block, c.original.len()).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert!(out == shuffled, "{}: decoded bytes differ from the (shuffled) input", c.name);
        assert!(bitshuffle::unshuffle_to_vec(&out, c.width, c.mode).unwrap() == c.original, "{}", c.name);
        // One byte short of the output fails cleanly.
        if !c.original.is_empty() {
            let mut short = vec![0u8; c.original.len() - 1];
            assert!(matches!(lz4::decompress(&c.block, &mut short), Err(DecompressError::OutputTooSmall { .. })), "{}", c.name);
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
        let shuffled = bitshuffle::shuffle_to_vec(&c.original, c.width, c.mode).unwrap();
        let params = EncoderParams { encoder: Lz4Encoder::Nvcomp, element_width: c.width, table_size: c.table_size };
        let mine = compress_vec(&shuffled, &params);
        if mine != c.block {
            let at = mine.iter().zip(&c.block).position(|(a, b)| a != b).unwrap_or(mine.len().min(c.block.len()));
            mismatches.push(format!("{}: nvCOMP {} B, ours {} B, first difference at {at}", c.name, c.block.len(), mine.len()));
        }
    }
    assert!(mismatches.is_empty(), "{} of {} chunks differ:\n{}", mismatches.len(), chunks.len(), mismatches.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// encoder design measurements (run by hand: cargo test --test lz4_cpu -- --ignored --nocapture)

/// Container-style size of a stream of `chunks` compressed chunk sizes (FORMATS A.3/A.4).
fn stream_bytes(chunks: &[usize]) -> usize {
    let data: usize = chunks.iter().map(|s| s.next_multiple_of(8)).sum::<usize>() - chunks.last().map_or(0, |s| s.next_multiple_of(8) - s);
    72 + 16 * chunks.len() + data
}

#[test]
#[ignore]
fn measure_encoder_variants() {
    let mb: usize = std::env::var("LZ4_MEASURE_MB").ok().and_then(|s| s.parse().ok()).unwrap_or(32);
    let text = lineitem(0.1, mb << 20);
    let cs = 65536;
    println!("lineitem.tbl text: {} bytes, chunks of {cs}", text.len());
    let mut out = vec![0u8; lz4::max_compressed_size(cs)];
    for encoder in [Lz4Encoder::Nvcomp, Lz4Encoder::Gpucomp] {
        let params = EncoderParams::bytes(encoder, cs);
        let t0 = std::time::Instant::now();
        let mut sizes = Vec::new();
        for chunk in text.chunks(cs) {
            sizes.push(lz4::compress(chunk, &mut out, &params).unwrap());
        }
        let secs = t0.elapsed().as_secs_f64();
        let t0 = std::time::Instant::now();
        for chunk in text.chunks(cs) {
            let n = lz4::compress(chunk, &mut out, &params).unwrap();
            let mut back = vec![0u8; chunk.len()];
            assert_eq!(lz4::decompress(&out[..n], &mut back), Ok(chunk.len()));
            assert!(back == chunk);
        }
        let dsecs = t0.elapsed().as_secs_f64() - secs;
        let total: usize = sizes.iter().sum();
        println!(
            "{:36} ratio {:.4} (chunks only {:.4})  compress {:6.1} MB/s, decompress ~{:6.1} MB/s",
            format!("{encoder:?}"),
            text.len() as f64 / stream_bytes(&sizes) as f64,
            text.len() as f64 / total as f64,
            text.len() as f64 / secs / 1e6,
            text.len() as f64 / dsecs.max(1e-9) / 1e6
        );
    }
    let t0 = std::time::Instant::now();
    let flex: Vec<usize> = text.chunks(cs).map(|c| lz4_flex::block::compress(c).len()).collect();
    println!(
        "{:36} ratio {:.4}  {:7.1} MB/s",
        "lz4_flex (reference, not warp)",
        text.len() as f64 / stream_bytes(&flex) as f64,
        text.len() as f64 / t0.elapsed().as_secs_f64() / 1e6
    );
}

