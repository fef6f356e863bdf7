//! GPU tests: the kernels on a real device against the CPU reference codecs and nvCOMP's streams.
//!
//! Every test needs a CUDA device, so all are `#[ignore]`d: `cargo test` on a machine without a
//! GPU reports them as ignored with the reason. On a GPU machine run them with
//! `--include-ignored` (scripts/gpu-bundle.sh does).
mod common;

use common::gpu::{assert_outcomes_match_cpu, batched_decompress, corruptions, gpu};
use common::{goldens, lineitem_text, Rng};
use gpucomp::batched::lz4::Lz4;
use gpucomp::container::{write_native, NativeStream, WriteChecksums};
use gpucomp::{
    Algorithm, BitshuffleMode, BitstreamKind, Codec, DataType, Device, Error, Lz4Encoder, Lz4Options, Status,
};

fn lz4(encoder: Lz4Encoder) -> Algorithm {
    Algorithm::Lz4(Lz4Options::default().with_encoder(encoder))
}

fn gpu_codec(algorithm: Algorithm, chunk_size: usize) -> Codec {
    Codec::on(algorithm, Device::Gpu(gpu())).with_chunk_size(chunk_size).unwrap()
}

fn cpu_codec(algorithm: Algorithm, chunk_size: usize) -> Codec {
    Codec::on(algorithm, Device::Cpu).with_chunk_size(chunk_size).unwrap()
}

/// Inputs of every shape that matters: empty, tiny, around the 12-byte end rules, exact chunk
/// multiples, random (incompressible), compressible, real text.
fn inputs(rng: &mut Rng) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = [0usize, 1, 5, 12, 13, 31, 32, 33, 100]
        .into_iter()
        .map(|n| (format!("compressible {n} B"), rng.compressible(n)))
        .collect();
    v.push(("random 1 MiB".into(), rng.bytes(1 << 20)));
    v.push(("random 65536 B".into(), rng.bytes(65536)));
    v.push(("compressible 3 chunks exactly".into(), rng.compressible(3 * 65536)));
    v.push(("compressible 3 MiB + 7".into(), rng.compressible((3 << 20) + 7)));
    v.push(("constant 200 KiB".into(), vec![b'z'; 200 << 10]));
    v.push(("lineitem 4 MiB".into(), lineitem_text(4 << 20)));
    v
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_decodes_every_golden_lz4_stream() {
    let g = gpu();
    for golden in goldens("LZ4") {
        let codec = Codec::on(Algorithm::default(), Device::Gpu(g.clone()));
        let out = codec.decompress(&golden.stream).unwrap_or_else(|e| panic!("{}: {e}", golden.name));
        assert!(out == golden.input, "{}: GPU output differs from the input", golden.name);
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_nvcomp_encoder_reproduces_every_golden_native_stream() {
    let g = gpu();
    for golden in goldens("LZ4").into_iter().filter(|x| x.kind == "NVCOMP_NATIVE") {
        let s = NativeStream::parse(&golden.stream).unwrap();
        let Algorithm::Lz4(mut opts) = s.algorithm().unwrap() else { unreachable!() };
        opts.encoder = Lz4Encoder::Nvcomp;
        let checksums = s.header().has_checksums();
        let codec = Codec::on(Algorithm::Lz4(opts), Device::Gpu(g.clone()))
            .with_chunk_size(s.uncomp_chunk_size() as usize)
            .unwrap()
            .with_checksums(checksums);
        let mut ours = codec.compress(&golden.input).unwrap_or_else(|e| panic!("{}: {e}", golden.name));
        if let Some(tables) = s.checksum_tables().filter(|t| t.uncompressed.contains(&0)) {
            // nvCOMP stored 0 ("not computed") as some chunk's uncompressed checksum (ck65536:
            // random data): compare with our payloads framed with nvCOMP's stored values.
            let o = NativeStream::parse(&ours).unwrap();
            let payloads: Vec<&[u8]> = (0..o.num_chunks()).map(|i| o.chunk(i).unwrap()).collect();
            let stored = WriteChecksums::Uncompressed(&tables.uncompressed);
            ours = write_native(
                o.format(),
                o.spec_header(),
                o.uncomp_chunk_size(),
                o.uncompressed_size(),
                &payloads,
                stored,
            )
            .unwrap();
        }
        assert!(ours == golden.stream, "{}: our nvCOMP-mode stream differs from nvCOMP's", golden.name);
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_nvcomp_encoder_reproduces_every_golden_raw_stream() {
    let g = gpu();
    for golden in goldens("LZ4").into_iter().filter(|x| x.kind != "NVCOMP_NATIVE") {
        let kind = if golden.kind == "RAW" { BitstreamKind::Raw } else { BitstreamKind::WithUncompressedSize };
        let codec = Codec::on(lz4(Lz4Encoder::Nvcomp), Device::Gpu(g.clone()));
        assert!(codec.compress_as(&golden.input, kind).unwrap() == golden.stream, "{}", golden.name);
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_streams_equal_cpu_streams_and_round_trip() {
    let mut rng = Rng::fresh("gpu_streams_equal_cpu_streams_and_round_trip");
    for encoder in [Lz4Encoder::Gpucomp, Lz4Encoder::Nvcomp] {
        for chunk in [65536, 4096, 1000] {
            let (on_gpu, on_cpu) = (gpu_codec(lz4(encoder), chunk), cpu_codec(lz4(encoder), chunk));
            for (what, input) in inputs(&mut rng) {
                let ctx = format!("{what}, {encoder:?}, chunk {chunk}");
                let (g, c) = (on_gpu.compress(&input).unwrap(), on_cpu.compress(&input).unwrap());
                assert!(g == c, "{ctx}: GPU and CPU streams differ");
                assert!(on_gpu.decompress(&g).unwrap() == input, "{ctx}: GPU round trip");
                assert!(on_cpu.decompress(&g).unwrap() == input, "{ctx}: CPU decode of the GPU stream");
                let parsed = NativeStream::parse(&g).unwrap();
                for chunk in (0..parsed.num_chunks()).map(|i| parsed.chunk(i).unwrap()) {
                    lz4_flex::block::decompress(chunk, chunk.len() * 255 + 16).expect("lz4_flex decodes every chunk");
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_largest_chunk_and_raw_streams() {
    let mut rng = Rng::fresh("gpu_largest_chunk_and_raw_streams");
    let big = rng.compressible(16 << 20);
    let max = Lz4Options::MAX_CHUNK_SIZE;
    let (g, c) = (gpu_codec(Algorithm::default(), max), cpu_codec(Algorithm::default(), max));
    let stream = g.compress(&big).unwrap();
    assert!(stream == c.compress(&big).unwrap(), "16 MiB chunk: GPU and CPU differ");
    assert!(g.decompress(&stream).unwrap() == big);
    for kind in [BitstreamKind::Raw, BitstreamKind::WithUncompressedSize] {
        let s = g.compress_as(&big, kind).unwrap();
        assert!(s == c.compress_as(&big, kind).unwrap(), "{kind:?}: GPU and CPU differ");
        assert!(g.decompress(&s).unwrap() == big, "{kind:?} round trip");
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_element_types_and_bitshuffle_match_cpu() {
    let mut rng = Rng::fresh("gpu_element_types_and_bitshuffle_match_cpu");
    let input: Vec<u8> = (0..100_000u32).flat_map(|i| (i / 7 + (rng.below(3) as u32)).to_le_bytes()).collect();
    for data_type in [DataType::Uchar, DataType::Short, DataType::Ushort, DataType::Int, DataType::Uint] {
        for bitshuffle in [BitshuffleMode::None, BitshuffleMode::MsbFirst, BitshuffleMode::LsbFirst] {
            for encoder in [Lz4Encoder::Gpucomp, Lz4Encoder::Nvcomp] {
                let a = Algorithm::Lz4(
                    Lz4Options::default().with_data_type(data_type).with_bitshuffle(bitshuffle).with_encoder(encoder),
                );
                let (g, c) = (gpu_codec(a, 65536), cpu_codec(a, 65536));
                let s = g.compress(&input).unwrap();
                assert!(s == c.compress(&input).unwrap(), "{a:?}: GPU and CPU differ");
                assert!(g.decompress(&s).unwrap() == input, "{a:?}: GPU round trip");
                assert!(c.decompress(&s).unwrap() == input, "{a:?}: CPU decode of the GPU stream");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_device_buffers_give_the_same_stream() {
    let mut rng = Rng::fresh("gpu_device_buffers_give_the_same_stream");
    let g = gpu();
    let input = rng.compressible(5 << 20);
    let codec = Codec::on(Algorithm::default(), Device::Gpu(g.clone()));
    let on_device = g.stream().clone_htod(&input).unwrap();
    let stream = g.stream().clone_dtoh(&codec.compress_device(&on_device).unwrap()).unwrap();
    assert!(stream == codec.compress(&input).unwrap());
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_rejects_corrupt_chunks_like_the_cpu_decoder() {
    let mut rng = Rng::fresh("gpu_rejects_corrupt_chunks_like_the_cpu_decoder");
    let g = gpu();
    let text = lineitem_text(1 << 20);
    let stream = cpu_codec(Algorithm::default(), 65536).compress(&text).unwrap();
    let parsed = NativeStream::parse(&stream).unwrap();
    let valid: Vec<Vec<u8>> = (0..parsed.num_chunks()).map(|i| parsed.chunk(i).unwrap().to_vec()).collect();
    let chunks = corruptions(&mut rng, &valid);
    let codec = Lz4::new(Lz4Options::default()).unwrap();
    let caps = vec![65536; chunks.len()];
    for with_statuses in [true, false] {
        let outcomes = batched_decompress(&g, &codec, &chunks, &caps, with_statuses);
        if with_statuses {
            assert_outcomes_match_cpu("LZ4", &chunks, 65536, &outcomes, |c, out| {
                gpucomp::cpu::lz4::decompress(c, out).map_err(|_| Status::CannotDecompress)
            });
        }
    }
    // Outputs one byte too small fail; exact ones succeed.
    let exact: Vec<usize> = (0..valid.len()).map(|i| parsed.chunk_uncompressed_size(i).unwrap() as usize).collect();
    let short: Vec<usize> = exact.iter().map(|n| n - 1).collect();
    assert!(batched_decompress(&g, &codec, &valid, &short, true).iter().all(|r| r.0 == Status::CannotDecompress));
    let ok = batched_decompress(&g, &codec, &valid, &exact, true);
    assert!(ok.iter().all(|r| r.0 == Status::Success));
    let joined: Vec<u8> = ok.into_iter().flat_map(|r| r.2).collect();
    assert!(joined == text, "the device still decodes correctly after the corrupt batch");
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_corrupt_streams_are_errors_not_crashes() {
    let mut rng = Rng::fresh("gpu_corrupt_streams_are_errors_not_crashes");
    let g = gpu();
    let input = rng.compressible(300_000);
    let codec = Codec::on(Algorithm::default(), Device::Gpu(g.clone()));
    let stream = codec.compress(&input).unwrap();
    for trial in 0..200 {
        let mut bad = stream.clone();
        let at = 0x48 + rng.below((bad.len() - 0x48) as u64) as usize;
        bad[at] ^= 1 + rng.below(255) as u8;
        match codec.decompress(&bad) {
            Ok(out) => {
                assert_eq!(out.len(), input.len(), "trial {trial}: a corrupt stream that decodes keeps its size")
            }
            Err(Error::Chunk { status, .. }) => assert_eq!(status, Status::CannotDecompress, "trial {trial}"),
            Err(Error::InvalidStream(_)) => {}
            Err(e) => panic!("trial {trial}: unexpected error {e}"),
        }
    }
    assert!(codec.decompress(&stream).unwrap() == input, "the device still works");
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_nvcomp_encoder_matches_nvcomp_on_small_inputs() {
    // nvCOMP's streams of inputs shorter than 16 KiB: the table follows the largest chunk.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/nvcomp-lz4-small");
    let codec = Codec::on(lz4(Lz4Encoder::Nvcomp), Device::Gpu(gpu()));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "in") {
            let (input, theirs) = (std::fs::read(&path).unwrap(), std::fs::read(path.with_extension("nvc")).unwrap());
            assert!(codec.compress(&input).unwrap() == theirs, "{}: differs from nvCOMP", path.display());
            assert!(codec.decompress(&theirs).unwrap() == input, "{}: GPU decode", path.display());
        }
    }
}
