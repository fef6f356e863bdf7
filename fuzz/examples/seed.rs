//! Writes the per-decoder targets' seeds (`scripts/fuzz.sh seed` runs it): the first two chunks,
//! of at most 8 KiB, of the golden NVCOMP_NATIVE streams (nvCOMP's encoders, symmetric Cascaded
//! included), and chunks the CPU codecs write for the small golden inputs under each option set
//! the targets derive from their first bytes, each with the target's option prefix. The
//! differential target gets the chunks that decode to at most 64 KiB (its output cap), with its
//! algorithm byte, the declared size as capacity and rotating buffer offsets.
//!
//! `cargo run --example seed -- GOLDEN_DIR CORPUS_DIR`
use gpucomp::container::NativeStream;
use gpucomp::{cpu, Algorithm, AnsOptions, BitcompOptions, CascadedOptions, Format, Lz4Options};
use gpucomp_fuzz::{ans_options, bitcomp_options, cascaded_options, lz4_options, zstd_options};
use std::path::Path;

/// Largest chunk kept as a seed.
const MAX_SEED: usize = 8 << 10;
/// Largest decompressed size of a differential seed (the target's output cap).
const MAX_DIFFERENTIAL_OUTPUT: usize = 64 << 10;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, golden, corpus] = &args[..] else {
        eprintln!("usage: seed GOLDEN_DIR CORPUS_DIR");
        std::process::exit(2);
    };
    let (golden, corpus) = (Path::new(golden), Path::new(corpus));
    let write = |target: &str, name: &str, prefix: &[u8], chunk: &[u8]| {
        if chunk.len() <= MAX_SEED {
            let mut seed = prefix.to_vec();
            seed.extend_from_slice(chunk);
            std::fs::write(corpus.join(target).join(name), seed).expect("corpus folder is writable");
        }
    };
    let mut streams: Vec<_> = read_dir(&golden.join("streams"));
    streams.retain(|(_, bytes)| bytes.len() <= 1 << 20);
    for (k, (name, bytes)) in streams.iter().enumerate() {
        let Ok(stream) = NativeStream::parse(bytes) else { continue };
        for i in 0..stream.num_chunks().min(2) {
            let chunk = stream.chunk(i).expect("parsed stream has its chunks");
            let name = format!("{name}.{i}");
            if i == 0 {
                differential(&write, &name, stream.format(), k as u8, chunk);
            }
            match stream.format() {
                Format::Lz4 => write("lz4", &name, &[0, 64], chunk),
                Format::Cascaded => write("cascaded", &name, &[64], chunk),
                Format::Bitcomp => write("bitcomp", &name, &[64], chunk),
                Format::Ans => write("ans", &name, &[64], chunk),
                _ => {}
            }
        }
    }
    let mut inputs = read_dir(&golden.join("inputs"));
    inputs.retain(|(_, bytes)| bytes.len() <= 4 << 10);
    for (k, (name, input)) in inputs.iter().enumerate() {
        // One option set per input in turn, so that each appears on several inputs.
        let b = k as u8;
        let sets = [
            ("lz4", vec![b % 18, 64], Algorithm::Lz4(lz4_options([b % 18, 0]))),
            ("cascaded", vec![64], Algorithm::Cascaded(cascaded_options([b, b.wrapping_mul(7) & 7]))),
            ("bitcomp", vec![64], Algorithm::Bitcomp(bitcomp_options(b))),
            ("ans", vec![64], Algorithm::Ans(ans_options([b, b / 3]))),
            ("zstd", vec![64], Algorithm::Zstd(zstd_options(b))),
        ];
        for (j, (target, prefix, algorithm)) in sets.into_iter().enumerate() {
            let mut chunk = vec![0u8; algorithm.max_compressed_chunk_size(input.len())];
            if let Ok(n) = cpu::compress_chunk(&algorithm, input.len(), input, &mut chunk) {
                write(target, &format!("{name}.cpu"), &prefix, &chunk[..n]);
                // LZ4's option byte as the differential target reads it: data type and bitshuffle.
                let lz4 = (b % 18).wrapping_mul(4);
                // Zstd (j = 4) has no kernel, so no differential seed.
                if j == k % 4 {
                    differential_with(&write, &format!("{name}.{target}.cpu"), &algorithm, lz4, b, &chunk[..n]);
                }
            }
        }
    }
}

/// A golden stream's chunk as a differential seed (LZ4 as bytes without bitshuffle); `k` picks
/// the buffer offsets.
fn differential(write: &impl Fn(&str, &str, &[u8], &[u8]), name: &str, format: Format, k: u8, chunk: &[u8]) {
    let algorithm = match format {
        Format::Lz4 => Algorithm::Lz4(Lz4Options::default()),
        Format::Cascaded => Algorithm::Cascaded(CascadedOptions::default()),
        Format::Bitcomp => Algorithm::Bitcomp(BitcompOptions::default()),
        Format::Ans => Algorithm::Ans(AnsOptions::default()),
        _ => return,
    };
    differential_with(write, name, &algorithm, 0, k, chunk);
}

/// `chunk` of `algorithm` as a differential seed when it decodes to at most
/// [`MAX_DIFFERENTIAL_OUTPUT`]: the algorithm byte (`lz4`: LZ4's option byte), capacity = the
/// declared size, offsets from `k`.
fn differential_with(
    write: &impl Fn(&str, &str, &[u8], &[u8]),
    name: &str,
    algorithm: &Algorithm,
    lz4: u8,
    k: u8,
    chunk: &[u8],
) {
    let a = match algorithm {
        Algorithm::Lz4(_) => lz4,
        Algorithm::Cascaded(_) => 1,
        Algorithm::Bitcomp(_) => 2,
        _ => 3,
    };
    if cpu::decompressed_chunk_size(algorithm, chunk).is_ok_and(|n| n <= MAX_DIFFERENTIAL_OUTPUT) {
        write("differential", name, &[a, 0, k.wrapping_mul(0x35)], chunk);
    }
}

/// The files of `dir`, sorted by name.
fn read_dir(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("golden folder exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).expect("readable file")))
        .collect();
    files.sort();
    files
}
