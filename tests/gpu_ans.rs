//! GPU tests of ANS: the compression and decompression kernels on a real device against the CPU
//! reference codec and nvCOMP's streams (GPU chunks equal the CPU encoder's byte for byte).
//!
//! Every test needs a CUDA device, so all are `#[ignore]`d: `cargo test` on a machine without a
//! GPU reports them as ignored with the reason. On a GPU machine run them with
//! `--include-ignored` (scripts/gpu-bundle.sh does).
mod common;

use common::gpu::{
    assert_outcomes_match_cpu, assert_sizes_match_cpu, batched_decompress, batched_sizes, compress_at, corruptions,
    gpu, Addressed,
};
use common::{f16_bits, goldens, lineitem_text, Rng};
use cudarc::driver::DevicePtr;
use gpucomp::batched::BatchedCodec;
use gpucomp::container::NativeStream;
use gpucomp::{batched, cpu, Algorithm, AnsOptions, Codec, DataType, Device, Status};

/// Every option set gpucomp writes native streams with: bytes, FLOAT16, FLOAT32 and FLOAT8 modes,
/// one and two states per lane, several sub-chunk counts, a sampled histogram.
fn option_sets() -> Vec<AnsOptions> {
    let mut v = Vec::new();
    for data_type in [DataType::Uchar, DataType::Float16, DataType::Float32, DataType::Float8E4M3] {
        for (states_per_lane, max_sub_chunk_count, histogram_reduction_log2) in
            [(0, 0, 0), (2, 4, 0), (2, 64, 0), (0, 16, 2), (1, 0, 0), (1, 64, 0)]
        {
            v.push(
                AnsOptions::default()
                    .with_data_type(data_type)
                    .with_states_per_lane(states_per_lane)
                    .with_max_sub_chunk_count(max_sub_chunk_count)
                    .with_histogram_reduction_log2(histogram_reduction_log2),
            );
        }
    }
    v
}

/// Text, float-like values (a normal sample as f16 / f32 bits, and as FLOAT8 E4M3 values where
/// `width` is 1), random bytes, one repeated
/// symbol and sizes around the tiles and sub-chunks.
fn inputs(rng: &mut Rng, width: usize) -> Vec<(String, Vec<u8>)> {
    let mut v = vec![
        ("lineitem text".to_string(), lineitem_text(300_000)),
        ("random".to_string(), rng.bytes(100_000)),
        ("one symbol".to_string(), vec![0x41; 70_000]),
    ];
    let floats: Vec<u8> = (0..150_000)
        .flat_map(|_| {
            let x = (0.02 * rng.normal()) as f32;
            if width == 2 {
                f16_bits(x).to_le_bytes().to_vec()
            } else {
                x.to_le_bytes().to_vec()
            }
        })
        .collect();
    v.push(("normal floats".to_string(), floats));
    if width == 1 {
        v.push(("normal float8 values".to_string(), rng.e4m3_normals(150_000, 0.5)));
    }
    for n in [1usize, 255, 256, 511, 512, 513, 4095, 4096, 65536, 65537] {
        v.push((format!("{n} B"), rng.compressible(n)));
    }
    for (_, b) in &mut v {
        b.truncate(b.len() / width * width);
    }
    v
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_decodes_every_golden_ans_stream() {
    let g = gpu();
    for golden in goldens("ANS") {
        let s = NativeStream::parse(&golden.stream).ok();
        let algorithm = s.and_then(|s| s.algorithm().ok()).unwrap_or(Algorithm::Ans(AnsOptions::default()));
        let out = Codec::on(algorithm, Device::Gpu(g.clone()))
            .decompress(&golden.stream)
            .unwrap_or_else(|e| panic!("{}: {e}", golden.name));
        assert!(out == golden.input, "{}: GPU output differs from the input", golden.name);
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_decodes_cpu_streams_of_every_mode() {
    let mut rng = Rng::fresh("gpu_decodes_cpu_streams_of_every_mode");
    let g = gpu();
    for options in option_sets() {
        let algorithm = Algorithm::Ans(options);
        let width = algorithm.element_width().unwrap();
        for chunk in [65536, 16384] {
            let on_gpu = Codec::on(algorithm, Device::Gpu(g.clone())).with_chunk_size(chunk).unwrap();
            for (what, input) in inputs(&mut rng, width) {
                let stream = on_gpu.compress(&input).unwrap();
                let out = on_gpu.decompress(&stream).unwrap_or_else(|e| panic!("{options:?}, {what}: {e}"));
                assert!(out == input, "{options:?}, chunk {chunk}, {what}: GPU round trip");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_rejects_corrupt_ans_chunks_like_the_cpu_decoder() {
    let mut rng = Rng::fresh("gpu_rejects_corrupt_ans_chunks_like_the_cpu_decoder");
    let g = gpu();
    for data_type in [DataType::Uchar, DataType::Float16, DataType::Float32, DataType::Float8E4M3] {
        let algorithm = Algorithm::Ans(AnsOptions::for_type(data_type));
        let codec = batched::for_algorithm(&algorithm).unwrap();
        let width = algorithm.element_width().unwrap();
        let input: Vec<u8> = inputs(&mut rng, width).into_iter().take(4).flat_map(|(_, b)| b).collect();
        let stream = Codec::on(algorithm, Device::Cpu).compress(&input).unwrap();
        let parsed = NativeStream::parse(&stream).unwrap();
        let valid: Vec<Vec<u8>> = (0..parsed.num_chunks()).map(|i| parsed.chunk(i).unwrap().to_vec()).collect();
        let chunks = corruptions(&mut rng, &valid);
        let what = format!("{data_type:?}");
        assert_sizes_match_cpu(
            &what,
            &chunks,
            &batched_sizes(&g, codec.as_ref(), &chunks),
            cpu::ans::decompressed_size,
        );
        let caps = vec![65536; chunks.len()];
        for with_statuses in [true, false] {
            let outcomes = batched_decompress(&g, codec.as_ref(), &chunks, &caps, with_statuses);
            if with_statuses {
                assert_outcomes_match_cpu(&what, &chunks, 65536, &outcomes, cpu::ans::decompress);
            }
        }
        let exact: Vec<usize> = (0..valid.len()).map(|i| parsed.chunk_uncompressed_size(i).unwrap() as usize).collect();
        let short: Vec<usize> = exact.iter().map(|n| n - 1).collect();
        let failed = batched_decompress(&g, codec.as_ref(), &valid, &short, true);
        for (i, r) in failed.iter().enumerate() {
            // The decoder's status for a short output: CannotDecompress, or Bitcomp's OutputBufferTooSmall.
            let expected = cpu::ans::decompress(&valid[i], &mut vec![0u8; short[i]]).unwrap_err();
            assert_eq!((r.0, r.1), (expected, 0), "{what}, chunk {i}: output one byte too small");
        }
        let ok = batched_decompress(&g, codec.as_ref(), &valid, &exact, true);
        assert!(ok.iter().all(|r| r.0 == Status::Success), "{what}: exact outputs");
        let joined: Vec<u8> = ok.into_iter().flat_map(|r| r.2).collect();
        assert!(joined == input, "{what}: decoding after the corrupt batch");
    }
}

/// Compresses `chunks` in one batched call (`max_chunk_bytes` as the batch's largest chunk,
/// outputs of its `max_compressed_chunk_size`): (status, out_bytes, chunk) each.
fn batched_compress(
    g: &gpucomp::gpu::Gpu,
    codec: &dyn BatchedCodec,
    chunks: &[&[u8]],
    max_chunk_bytes: usize,
) -> Vec<(Status, u64, Vec<u8>)> {
    let s = g.stream();
    let n = chunks.len();
    let cap = codec.max_compressed_chunk_size(max_chunk_bytes).unwrap();
    let ins: Vec<_> = chunks.iter().map(|c| s.clone_htod(if c.is_empty() { &[0u8][..] } else { c }).unwrap()).collect();
    let outs: Vec<_> = chunks.iter().map(|_| s.alloc_zeros::<u8>(cap).unwrap()).collect();
    let addr = |b: &cudarc::driver::CudaSlice<u8>| b.device_ptr(s).0;
    let a = Addressed {
        in_ptrs: &ins.iter().map(addr).collect::<Vec<_>>(),
        in_bytes: &chunks.iter().map(|c| c.len() as u64).collect::<Vec<_>>(),
        out_ptrs: &outs.iter().map(addr).collect::<Vec<_>>(),
        out_capacity: &[],
        max: max_chunk_bytes,
    };
    // SAFETY: every address is a live buffer of the stated size until the reads below.
    let (sizes, st) = unsafe { compress_at(g, codec, &a) };
    (0..n)
        .map(|i| {
            let mut c = s.clone_dtoh(&outs[i]).unwrap();
            c.truncate((sizes[i] as usize).min(cap));
            (st[i], sizes[i], c)
        })
        .collect()
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_streams_equal_cpu_streams_and_round_trip() {
    let mut rng = Rng::fresh("gpu_streams_equal_cpu_streams_and_round_trip");
    let g = gpu();
    for options in option_sets() {
        let algorithm = Algorithm::Ans(options);
        assert!(algorithm.has_gpu_compression());
        let width = algorithm.element_width().unwrap();
        for chunk in [65536, 16384] {
            let on_gpu = Codec::on(algorithm, Device::Gpu(g.clone())).with_chunk_size(chunk).unwrap();
            let on_cpu = Codec::on(algorithm, Device::Cpu).with_chunk_size(chunk).unwrap();
            for (what, input) in inputs(&mut rng, width) {
                let ctx = format!("{options:?}, chunk {chunk}, {what}");
                let (s, c) = (on_gpu.compress(&input).unwrap(), on_cpu.compress(&input).unwrap());
                assert!(s == c, "{ctx}: GPU and CPU streams differ");
                assert!(on_gpu.decompress(&s).unwrap() == input, "{ctx}: GPU round trip");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_batched_chunks_equal_cpu_chunks_for_every_option() {
    let mut rng = Rng::fresh("gpu_batched_chunks_equal_cpu_chunks_for_every_option");
    let g = gpu();
    let text = lineitem_text(200_000);
    for data_type in [DataType::Char, DataType::Uchar, DataType::Float16, DataType::Float32, DataType::Float8E4M3] {
        for spl in [0u8, 1, 2] {
            for (msc, hrl2) in [(0u8, 0u8), (4, 1), (16, 3), (64, 8), (32, 0)] {
                let options = AnsOptions::default()
                    .with_data_type(data_type)
                    .with_states_per_lane(spl)
                    .with_max_sub_chunk_count(msc)
                    .with_histogram_reduction_log2(hrl2);
                let codec = batched::for_algorithm(&Algorithm::Ans(options)).unwrap();
                // Different sizes in one batch (odd ones refused in FLOAT16 and FLOAT32, one
                // FLOAT8 value coding no symbol), text and random data, the empty chunk.
                let random = rng.bytes(70_001);
                let chunks: Vec<&[u8]> = vec![
                    &text[..65536],
                    &random[..65536],
                    &text[1000..1000 + 40_000],
                    &random[..4097],
                    &text[..1],
                    &[],
                    &random[..70_001],
                    &text[7..7 + 513],
                ];
                for max in [70_001, 1 << 20] {
                    for (i, (st, len, chunk)) in
                        batched_compress(&g, codec.as_ref(), &chunks, max).into_iter().enumerate()
                    {
                        let ctx = format!("{options:?}, batch max {max}, chunk {i} ({} bytes)", chunks[i].len());
                        match cpu::ans::compress_to_vec_in_batch(chunks[i], &options, max) {
                            Ok(want) => {
                                assert_eq!(st, Status::Success, "{ctx}");
                                assert_eq!(len as usize, want.len(), "{ctx}: length");
                                assert!(chunk == want, "{ctx}: GPU and CPU chunks differ");
                                assert!(cpu::ans::decompress_to_vec(&chunk).unwrap() == chunks[i], "{ctx}: round trip");
                            }
                            Err(e) => assert_eq!((st, len), (e, 0), "{ctx}: refused chunk"),
                        }
                    }
                }
            }
        }
    }
}
