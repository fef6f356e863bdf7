//! GPU tests of the column codecs, Cascaded and Bitcomp: the kernels on a real device against the
//! CPU reference codecs and nvCOMP's streams.
//!
//! Every test needs a CUDA device, so all are `#[ignore]`d: `cargo test` on a machine without a
//! GPU reports them as ignored with the reason. On a GPU machine run them with
//! `--include-ignored` (scripts/gpu-bundle.sh does).
mod common;

use common::gpu::{
    assert_outcomes_match_cpu, assert_sizes_match_cpu, batched_decompress, batched_sizes, corruptions, gpu,
};
use common::{goldens, lineitem_columns, Rng, BITCOMP_ALGORITHMS, BITCOMP_TYPES, INTEGER_TYPES};
use gpucomp::container::NativeStream;
use gpucomp::{batched, cpu, Algorithm, BitcompOptions, CascadedOptions, Codec, DataType, Device, Status};

/// A CPU chunk decoder.
type Decode = fn(&[u8], &mut [u8]) -> Result<usize, Status>;
/// A CPU chunk size query.
type Size = fn(&[u8]) -> Result<usize, Status>;

/// The algorithms under test with their manifest names and CPU chunk decoders and size queries.
fn column_codecs() -> [(&'static str, Algorithm, Decode, Size); 2] {
    [
        (
            "Cascaded",
            Algorithm::Cascaded(CascadedOptions::default()),
            cpu::cascaded::decompress,
            cpu::cascaded::decompressed_size,
        ),
        (
            "Bitcomp",
            Algorithm::Bitcomp(BitcompOptions::default()),
            cpu::bitcomp::decompress,
            cpu::bitcomp::decompressed_size,
        ),
    ]
}

/// Every option set worth covering, per algorithm: Cascaded at levels 0–3 and its flag sets,
/// Bitcomp with both algorithms; for every type of `types`.
fn option_sets(types: &[DataType]) -> Vec<Algorithm> {
    let mut v = Vec::new();
    for &data_type in types {
        if CascadedOptions::width_of(data_type).is_ok() {
            for (compression_level, delta, rle) in [(3, true, true), (0, true, true), (1, true, true), (2, true, true)]
                .into_iter()
                .chain([(3, true, false), (3, false, true), (3, false, false)])
            {
                let o = CascadedOptions::default()
                    .with_data_type(data_type)
                    .with_compression_level(compression_level)
                    .with_delta(delta)
                    .with_rle(rle);
                v.push(Algorithm::Cascaded(o));
            }
        }
        for algorithm in BITCOMP_ALGORITHMS {
            v.push(Algorithm::Bitcomp(BitcompOptions::default().with_algorithm(algorithm).with_data_type(data_type)));
        }
    }
    v
}

/// Column-shaped inputs of `width`-byte elements: TPC-H columns (reinterpreted at this width),
/// fresh random values of several ranges, runs, sorted keys, a walk, and sizes around the block
/// boundaries.
fn inputs(rng: &mut Rng, width: usize) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, _, bytes) in lineitem_columns(2.0, 60_000) {
        let n = bytes.len() / width * width;
        v.push((name.to_string(), bytes[..n].to_vec()));
    }
    let elements = |f: &mut dyn FnMut(usize) -> u64, count: usize| -> Vec<u8> {
        (0..count).flat_map(|i| f(i).to_le_bytes()[..width].to_vec()).collect()
    };
    for bits in [1u32, 7, 13, 31, 64] {
        let mask = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
        let count = 1 + rng.index(300_000 / width);
        v.push((format!("random {bits}-bit × {count}"), elements(&mut |_| rng.next() & mask, count)));
    }
    let mut run = 0u64;
    v.push((
        "runs".into(),
        elements(
            &mut |i| {
                if i % (1 + (i / 977) % 40) == 0 {
                    run = rng.below(50);
                    run
                } else {
                    run
                }
            },
            200_000 / width,
        ),
    ));
    v.push(("sorted keys".into(), elements(&mut |i| (i as u64 / 4) * 3 + 1_000_000, 250_000 / width)));
    let mut x = 0i64;
    v.push((
        "walk".into(),
        elements(
            &mut |_| {
                x += rng.below(21) as i64 - 10;
                x as u64
            },
            180_000 / width,
        ),
    ));
    for n in [0usize, 1, 4095, 4096, 4097, 8191, 8192, 8193, 65535, 65536, 65537] {
        let count = n / width;
        v.push((format!("{count} small values"), elements(&mut |_| rng.below(1000), count)));
    }
    v
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_decodes_every_golden_stream_like_the_cpu() {
    let g = gpu();
    for (name, algorithm, _, _) in column_codecs() {
        for golden in goldens(name) {
            let on_gpu = Codec::on(algorithm, Device::Gpu(g.clone())).decompress(&golden.stream);
            let on_cpu = Codec::on(algorithm, Device::Cpu).decompress(&golden.stream);
            match (on_gpu, on_cpu) {
                (Ok(a), Ok(b)) => {
                    assert!(a == b, "{}: GPU and CPU outputs differ", golden.name);
                    assert!(a == golden.input, "{}: output differs from the input", golden.name);
                }
                // nvCOMP's defective Cascaded chunk: both reject the stream.
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{}", golden.name),
                (a, b) => panic!("{}: GPU {:?}, CPU {:?}", golden.name, a.err(), b.err()),
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_streams_equal_cpu_streams_and_round_trip() {
    let mut rng = Rng::fresh("gpu_streams_equal_cpu_streams_and_round_trip");
    let g = gpu();
    for algorithm in option_sets(&BITCOMP_TYPES) {
        let width = algorithm.element_width().unwrap();
        for chunk in [65536, 4096 * 3] {
            let on_gpu = Codec::on(algorithm, Device::Gpu(g.clone())).with_chunk_size(chunk).unwrap();
            let on_cpu = Codec::on(algorithm, Device::Cpu).with_chunk_size(chunk).unwrap();
            for (what, input) in inputs(&mut rng, width) {
                let ctx = format!("{algorithm:?}, chunk {chunk}, {what}");
                let (s, c) = (on_gpu.compress(&input).unwrap(), on_cpu.compress(&input).unwrap());
                assert!(s == c, "{ctx}: GPU and CPU streams differ");
                assert!(on_gpu.decompress(&s).unwrap() == input, "{ctx}: GPU round trip");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_rejects_corrupt_chunks_like_the_cpu_decoder() {
    let mut rng = Rng::fresh("gpu_rejects_corrupt_chunks_like_the_cpu_decoder");
    let g = gpu();
    for (name, _, cpu_decode, cpu_size) in column_codecs() {
        for data_type in INTEGER_TYPES {
            let algorithm = match name {
                "Cascaded" => Algorithm::Cascaded(CascadedOptions::default().with_data_type(data_type)),
                _ => Algorithm::Bitcomp(BitcompOptions::default().with_data_type(data_type)),
            };
            let codec = batched::for_algorithm(&algorithm).unwrap();
            let width = algorithm.element_width().unwrap();
            let input: Vec<u8> = inputs(&mut rng, width).into_iter().take(9).flat_map(|(_, b)| b).collect();
            let stream = Codec::on(algorithm, Device::Cpu).compress(&input).unwrap();
            let parsed = NativeStream::parse(&stream).unwrap();
            let valid: Vec<Vec<u8>> = (0..parsed.num_chunks()).map(|i| parsed.chunk(i).unwrap().to_vec()).collect();
            let chunks = corruptions(&mut rng, &valid);
            let sizes = batched_sizes(&g, codec.as_ref(), &chunks);
            assert_sizes_match_cpu(&format!("{algorithm:?}"), &chunks, &sizes, cpu_size);
            let caps = vec![65536; chunks.len()];
            for with_statuses in [true, false] {
                let outcomes = batched_decompress(&g, codec.as_ref(), &chunks, &caps, with_statuses);
                if with_statuses {
                    assert_outcomes_match_cpu(&format!("{algorithm:?}"), &chunks, 65536, &outcomes, cpu_decode);
                }
            }
            // Outputs one byte too small fail; exact ones succeed, and the device still works.
            let exact: Vec<usize> =
                (0..valid.len()).map(|i| parsed.chunk_uncompressed_size(i).unwrap() as usize).collect();
            let short: Vec<usize> = exact.iter().map(|n| n - 1).collect();
            let failed = batched_decompress(&g, codec.as_ref(), &valid, &short, true);
            for (i, r) in failed.iter().enumerate() {
                // The decoder's status for a short output: CannotDecompress, or Bitcomp's OutputBufferTooSmall.
                let expected = cpu_decode(&valid[i], &mut vec![0u8; short[i]]).unwrap_err();
                assert_eq!((r.0, r.1), (expected, 0), "{algorithm:?}, chunk {i}: output one byte too small");
            }
            let ok = batched_decompress(&g, codec.as_ref(), &valid, &exact, true);
            assert!(ok.iter().all(|r| r.0 == Status::Success), "{algorithm:?}: exact outputs");
            let joined: Vec<u8> = ok.into_iter().flat_map(|r| r.2).collect();
            assert!(joined == input, "{algorithm:?}: decoding after the corrupt batch");
        }
    }
}
