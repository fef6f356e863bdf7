//! CPU reference codecs' speed, one core: compress and decompress MB/s (best of 5) of every
//! algorithm through the public chunk API, 64 KiB chunks, on TPC-H lineitem text and columns and
//! random bytes; LZ4 also with both encoders and next to lz4_flex, on 4 MiB of each.
//!
//! `cargo bench --bench cpu [-- lz4|ans|bitcomp|cascaded]` (all by default).
use gpucomp::cpu::ans::rans::Platform;
use gpucomp::{
    cpu, Algorithm, AnsOptions, BitcompAlgorithm, BitcompOptions, CascadedOptions, DataType, Lz4Encoder, Lz4Options,
};
use std::hint::black_box;
use std::time::Instant;

const CHUNK: usize = 65536;

/// Seconds of the fastest of five runs of `f`.
fn best_of_5(f: &mut dyn FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

/// TPC-H lineitem TBL text, whole lines, about `bytes` long.
fn lineitem_text(bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 256);
    for li in tpchgen::generators::LineItemGenerator::new(0.1, 1, 1).iter() {
        if out.len() >= bytes {
            break;
        }
        out.extend_from_slice(format!("{li}\n").as_bytes());
    }
    out
}

/// Three TPC-H lineitem integer columns (little endian) of `rows` rows: name, type, bytes.
fn lineitem_columns(rows: usize) -> Vec<(&'static str, DataType, Vec<u8>)> {
    let mut c = vec![
        ("orderkey.i64", DataType::LongLong, vec![]),
        ("partkey.i32", DataType::Int, vec![]),
        ("quantity.i32", DataType::Int, vec![]),
    ];
    for li in tpchgen::generators::LineItemGenerator::new(1.0, 1, 1).iter().take(rows) {
        c[0].2.extend_from_slice(&li.l_orderkey.to_le_bytes());
        c[1].2.extend_from_slice(&(li.l_partkey as i32).to_le_bytes());
        c[2].2.extend_from_slice(&(li.l_quantity as i32).to_le_bytes());
    }
    c
}

/// Pseudo-random bytes (xorshift64*).
fn random_bytes(n: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

/// Times `algorithm` on `data` in 64 KiB chunks (round trip checked) and prints one row.
fn bench(label: &str, algorithm: &Algorithm, data: &[u8]) {
    let chunks: Vec<&[u8]> = data.chunks(CHUNK).collect();
    let largest = CHUNK.min(data.len());
    let mut out = vec![0u8; algorithm.max_compressed_chunk_size(largest)];
    let compress = |c: &[u8], out: &mut [u8]| cpu::compress_chunk(algorithm, largest, c, out).expect("compress");
    let blocks: Vec<Vec<u8>> = chunks
        .iter()
        .map(|c| {
            let n = compress(c, &mut out);
            out[..n].to_vec()
        })
        .collect();
    let mut back = vec![0u8; largest];
    for (c, b) in chunks.iter().zip(&blocks) {
        let n = cpu::decompress_chunk(algorithm, b, &mut back).expect("decompress");
        assert!(&back[..n] == *c, "{label}: round trip differs");
    }
    let c = best_of_5(&mut || {
        chunks.iter().for_each(|c| {
            black_box(compress(c, &mut out));
        })
    });
    let d = best_of_5(&mut || {
        blocks.iter().for_each(|b| {
            black_box(cpu::decompress_chunk(algorithm, b, &mut back).unwrap());
        });
    });
    let compressed: usize = blocks.iter().map(Vec::len).sum();
    let mb = data.len() as f64 / 1e6;
    println!(
        "{label:40} ratio {:6.3}  compress {:6.0} MB/s  decompress {:6.0} MB/s",
        data.len() as f64 / compressed as f64,
        mb / c,
        mb / d
    );
}

/// ANS decompression of `data` (64 KiB chunks, default options) on every decoder platform this
/// CPU runs (`cpu::ans::rans::Platform`), rounds alternated so that load changes hit all alike;
/// one row per platform, best of 5 rounds, with its time relative to the portable decoder's.
fn ans_platforms(label: &str, data: &[u8]) {
    let options = AnsOptions::default();
    let largest = CHUNK.min(data.len());
    let mut out = vec![0u8; options.max_compressed_chunk_size(largest)];
    let blocks: Vec<Vec<u8>> = data
        .chunks(CHUNK)
        .map(|c| {
            let n = cpu::ans::compress_in_batch(c, &mut out, &options, largest).expect("compress");
            out[..n].to_vec()
        })
        .collect();
    let platforms = Platform::all();
    let mut back = vec![0u8; largest];
    for p in &platforms {
        for (c, b) in data.chunks(CHUNK).zip(&blocks) {
            let n = cpu::ans::decompress_on(*p, b, &mut back).expect("decompress");
            assert!(&back[..n] == c, "{label}: round trip differs on {}", p.name());
        }
    }
    let mut best = vec![f64::MAX; platforms.len()];
    for _ in 0..5 {
        for (p, best) in platforms.iter().zip(&mut best) {
            let t0 = Instant::now();
            for b in &blocks {
                black_box(cpu::ans::decompress_on(*p, b, &mut back).unwrap());
            }
            *best = best.min(t0.elapsed().as_secs_f64());
        }
    }
    let mb = data.len() as f64 / 1e6;
    for (p, t) in platforms.iter().zip(&best) {
        println!(
            "{:40} decompress {:6.0} MB/s  time {:.3}x portable",
            format!("ANS {}, {label}", p.name()),
            mb / t,
            t / best[0]
        );
    }
}

/// LZ4 with both encoders and lz4_flex on the first 4 MiB of each input (64 KiB chunks).
fn lz4(inputs: &[(&str, &[u8])]) {
    for &(name, data) in inputs {
        let data = &data[..data.len().min(4 << 20)];
        for encoder in [Lz4Encoder::Nvcomp, Lz4Encoder::Gpucomp] {
            bench(
                &format!("LZ4 {encoder:?}, {name}"),
                &Algorithm::Lz4(Lz4Options::default().with_encoder(encoder)),
                data,
            );
        }
        let blocks: Vec<Vec<u8>> = data.chunks(CHUNK).map(lz4_flex::block::compress).collect();
        let mut out = vec![0u8; lz4_flex::block::get_maximum_output_size(CHUNK)];
        let mut back = vec![0u8; CHUNK];
        let c = best_of_5(&mut || {
            data.chunks(CHUNK).for_each(|c| {
                black_box(lz4_flex::block::compress_into(c, &mut out).unwrap());
            });
        });
        let d = best_of_5(&mut || {
            blocks.iter().for_each(|b| {
                black_box(lz4_flex::block::decompress_into(b, &mut back).unwrap());
            });
        });
        let (mb, compressed) = (data.len() as f64 / 1e6, blocks.iter().map(Vec::len).sum::<usize>());
        println!(
            "{:40} ratio {:6.3}  compress {:6.0} MB/s  decompress {:6.0} MB/s",
            format!("lz4_flex (reference), {name}"),
            data.len() as f64 / compressed as f64,
            mb / c,
            mb / d
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; anything else names the algorithms to run.
    let picked: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let wanted = |name: &str| picked.is_empty() || picked.iter().any(|p| p == name);
    let text = lineitem_text(16 << 20);
    let random = random_bytes(16 << 20);
    let columns = lineitem_columns(1 << 20);
    if wanted("lz4") {
        let mut inputs = vec![("lineitem text", &text[..]), ("random bytes", &random[..])];
        inputs.extend(columns.iter().map(|(name, _, data)| (*name, &data[..])));
        lz4(&inputs);
    }
    if wanted("ans") {
        bench("ANS bytes, lineitem text", &Algorithm::Ans(AnsOptions::default()), &text);
        bench("ANS bytes, random bytes", &Algorithm::Ans(AnsOptions::default()), &random);
        ans_platforms("lineitem text", &text);
        ans_platforms("random bytes", &random);
    }
    for (name, t, data) in &columns {
        if wanted("ans") {
            bench(&format!("ANS bytes, {name}"), &Algorithm::Ans(AnsOptions::default()), data);
            ans_platforms(name, data);
        }
        if wanted("bitcomp") {
            for a in [BitcompAlgorithm::Default, BitcompAlgorithm::Sparse] {
                let o = BitcompOptions::default().with_algorithm(a).with_data_type(*t);
                bench(&format!("Bitcomp {a:?}, {name}"), &Algorithm::Bitcomp(o), data);
            }
        }
        if wanted("cascaded") {
            let o = CascadedOptions::default().with_data_type(*t);
            bench(&format!("Cascaded, {name}"), &Algorithm::Cascaded(o), data);
        }
    }
}
