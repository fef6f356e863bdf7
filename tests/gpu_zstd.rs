//! Zstd decompression on the GPU (`zstd_decompress`, `zstd_decompressed_size`) against the CPU
//! codec (libzstd behind gpucomp's frame walk), nvCOMP's Zstd streams and the kernel simulator.
//!
//! Every test needs a CUDA device, so all are `#[ignore]`d: `cargo test` on a machine without a
//! GPU reports them as ignored with the reason. On a GPU machine:
//! `cargo test --release --test gpu_zstd -- --include-ignored`.
mod common;

use std::path::{Path, PathBuf};

use common::gpu::{assert_outcomes_match_cpu, assert_sizes_match_cpu, batched_decompress, batched_sizes, gpu};
use common::{lineitem_text, Rng};
use gpucomp::batched::{self, CompressBatch};
use gpucomp::codec::DeviceRange;
use gpucomp::container::NativeStream;
use gpucomp::cpu::zstd as cpu;
use gpucomp::{Algorithm, BitstreamKind, Codec, Device, Error, Status, ZstdOptions};
use gpucomp_kernels::batch::{DecompressArgs, SizeArgs};
use gpucomp_kernels::zstd::{self as k, DecompressShared};

fn zstd() -> Algorithm {
    Algorithm::Zstd(ZstdOptions::default())
}

/// A frame of `data` written by libzstd at `level`, with or without a checksum and a content size.
fn frame(data: &[u8], level: i32, checksum: bool, content_size: bool) -> Vec<u8> {
    let mut c = ::zstd::bulk::Compressor::new(level).unwrap();
    c.set_parameter(::zstd::zstd_safe::CParameter::ChecksumFlag(checksum)).unwrap();
    c.set_parameter(::zstd::zstd_safe::CParameter::ContentSizeFlag(content_size)).unwrap();
    c.compress(data).unwrap()
}

/// The CPU codec's verdict on a chunk, as the batched API reports it.
fn cpu_decode(chunk: &[u8], out: &mut [u8]) -> Result<usize, Status> {
    cpu::decompress(chunk, out).map_err(Status::from)
}

/// Inputs of every kind, up to a few MiB: text, integers, random and compressible bytes, runs,
/// empty and tiny.
fn inputs(rng: &mut Rng) -> Vec<(&'static str, Vec<u8>)> {
    let ints: Vec<u8> = (0..(1u32 << 18)).flat_map(|i| (i * 7 / 3 + (i % 5)).to_le_bytes()).collect();
    let walk: Vec<u8> = (0..(1u64 << 17))
        .scan(1_000_000i64, |v, _| {
            *v += rng.below(201) as i64 - 100;
            Some(*v)
        })
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut runs = Vec::new();
    while runs.len() < 300_000 {
        let (b, n) = (rng.below(4) as u8, 1 + rng.index(3000));
        runs.extend(std::iter::repeat_n(b, n));
    }
    vec![
        ("text 3 MiB", lineitem_text(3 << 20)),
        ("text 64 KiB", lineitem_text(64 << 10)),
        ("ints u32 1 MiB", ints),
        ("walk i64 1 MiB", walk),
        ("random 1 MiB", rng.bytes(1 << 20)),
        ("compressible 2 MiB + 7", rng.compressible((2 << 20) + 7)),
        ("runs", runs),
        ("empty", Vec::new()),
        ("one byte", vec![42]),
    ]
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// nvCOMP's Zstd streams (`tests/data/zstd/streams`) with the input each was written from.
fn nvcomp_streams() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>, Vec<u8>)> = std::fs::read_dir(data_dir().join("zstd/streams"))
        .expect("tests/data/zstd/streams")
        .map(|e| {
            let e = e.expect("dir entry");
            let name = e.file_name().to_string_lossy().into_owned();
            let source = name.split_once(".zstd.").expect("<input>.zstd.<kind>...").0.to_string();
            let input = std::fs::read(data_dir().join("golden/inputs").join(&source)).expect("golden input");
            (name, std::fs::read(e.path()).expect("stream"), input)
        })
        .collect();
    out.sort();
    out
}

/// Every nvCOMP Zstd stream (NVCOMP_NATIVE with every checksum policy and chunk size, RAW,
/// WITH_UNCOMPRESSED_SIZE) decodes on the GPU to its input, through `Codec::decompress` and
/// through `decompress_device_batch` (all of them in one call), with nvCOMP's checksums verified
/// where the host path verifies them.
#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_decodes_every_nvcomp_zstd_stream() {
    let g = gpu();
    let codec = Codec::on(zstd(), Device::Gpu(g.clone()));
    let checked = codec.clone().with_checksums(true);
    let streams = nvcomp_streams();
    assert_eq!(streams.len(), 46, "nvCOMP's Zstd streams");
    for (name, stream, input) in &streams {
        let c = if name.contains(".native.") { &checked } else { &codec };
        let out = c.decompress(stream).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(out == *input, "{name}: GPU output differs from the input");
    }
    let buffers: Vec<_> = streams.iter().map(|(_, s, _)| g.stream().clone_htod(s).unwrap()).collect();
    let ranges: Vec<DeviceRange> = buffers.iter().map(DeviceRange::of).collect();
    // SAFETY: live device buffers of the codec's GPU, written synchronously.
    let outputs = unsafe { codec.decompress_device_batch(&ranges) }.unwrap();
    for (i, (name, _, input)) in streams.iter().enumerate() {
        assert!(outputs.to_host(i).unwrap() == *input, "{name}: device batch output differs");
    }
}

/// libzstd frames at levels 1, 3, 9 and 19, with and without checksum, of chunks up to 3 MiB:
/// the GPU decodes each to the CPU codec's bytes, refuses each one byte short as it does, and
/// the size query gives the CPU codec's size (frames without a content size included).
#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_libzstd_frames_match_the_cpu_codec() {
    let g = gpu();
    let codec = batched::for_algorithm(&zstd()).unwrap();
    let mut rng = Rng::fresh("gpu_zstd_frames");
    let inputs = inputs(&mut rng);
    for level in [1, 3, 9, 19] {
        for checksum in [false, true] {
            let what = format!("level {level}, checksum {checksum}");
            let mut chunks: Vec<Vec<u8>> = inputs.iter().map(|(_, d)| frame(d, level, checksum, true)).collect();
            let mut caps: Vec<usize> = inputs.iter().map(|(_, d)| d.len()).collect();
            // Without a content size (the zstd tool reading a pipe): the size query decodes them.
            chunks.extend(inputs.iter().take(4).map(|(_, d)| frame(d, level, checksum, false)));
            caps.extend(inputs.iter().take(4).map(|(_, d)| d.len()));
            let outcomes = batched_decompress(&g, codec.as_ref(), &chunks, &caps, true);
            for (i, (st, n, out)) in outcomes.iter().enumerate() {
                let data = &inputs[i % inputs.len()].1;
                assert_eq!((*st, *n as usize), (Status::Success, data.len()), "{what}: chunk {i}");
                assert!(out[..data.len()] == data[..], "{what}: chunk {i}: bytes differ");
            }
            // Each chunk again against the CPU codec at its exact capacity and one byte short.
            for short in [0, 1] {
                for (i, c) in chunks.iter().enumerate() {
                    let cap = caps[i].saturating_sub(short);
                    let got = batched_decompress(&g, codec.as_ref(), std::slice::from_ref(c), &[cap], true);
                    assert_outcomes_match_cpu(
                        &format!("{what}, {short} short"),
                        std::slice::from_ref(c),
                        cap,
                        &got,
                        cpu_decode,
                    );
                }
            }
            let sizes = batched_sizes(&g, codec.as_ref(), &chunks);
            assert_sizes_match_cpu(&what, &chunks, &sizes, cpu::decompressed_size);
        }
    }
}

/// The high-level codec on a GPU: the streams it writes (compressed on the CPU codec) are the
/// CPU codec's bytes in every container, and it decodes them on the GPU, a plain zstd file of
/// many frames too; several and skippable frames in one chunk decode as on the CPU.
#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_codec_round_trips_every_container() {
    let g = gpu();
    let mut rng = Rng::fresh("gpu_zstd_codec");
    for (name, data) in inputs(&mut rng) {
        for chunk in [64 << 10, 1 << 20, 4 << 20] {
            let on_gpu = Codec::on(zstd(), Device::Gpu(g.clone())).with_chunk_size(chunk).unwrap();
            let on_cpu = Codec::on(zstd(), Device::Cpu).with_chunk_size(chunk).unwrap();
            for kind in [BitstreamKind::Native, BitstreamKind::Raw, BitstreamKind::WithUncompressedSize] {
                // A RAW chunk (alone or size-prefixed) holds 1 byte or more.
                if kind != BitstreamKind::Native && (data.is_empty() || data.len() > chunk) {
                    continue;
                }
                let what = format!("{name}, {chunk} B chunks, {kind:?}");
                let stream = on_gpu.compress_as(&data, kind).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(stream == on_cpu.compress_as(&data, kind).unwrap(), "{what}: GPU and CPU streams differ");
                let back = on_gpu.decompress(&stream).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(back == data, "{what}: round trip");
            }
        }
    }
    // A plain zstd file of 1 MiB frames (`--kind zst`) decodes frame by frame on the GPU.
    let big = lineitem_text((5 << 20) + 99);
    let plain: Vec<u8> =
        big.chunks(1 << 20).flat_map(|p| cpu::compress_to_vec(p, &ZstdOptions::default()).unwrap()).collect();
    assert!(Codec::on(zstd(), Device::Gpu(g.clone())).decompress(&plain).unwrap() == big, "plain zstd file");
    let text = lineitem_text(40_000)[..40_000].to_vec();
    let skip = [0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3];
    let chunk =
        [frame(&text[..30_000], 3, true, true), skip.to_vec(), frame(&text[5_000..], 19, false, false)].concat();
    let codec = batched::for_algorithm(&zstd()).unwrap();
    let got = batched_decompress(&g, codec.as_ref(), std::slice::from_ref(&chunk), &[80_000], true);
    assert_outcomes_match_cpu("several frames", std::slice::from_ref(&chunk), 80_000, &got, cpu_decode);
    assert_eq!(got[0].1 as usize, 30_000 + 35_000);
    assert_eq!(batched_sizes(&g, codec.as_ref(), &[chunk]), [65_000]);
}

/// Small frames that reach the decoder's corners: text and generated bytes at levels -5 to 19,
/// checksums, tiny blocks (a 1 KiB window), no content size, RLE.
fn hostile_sources(rng: &mut Rng) -> Vec<Vec<u8>> {
    let text = lineitem_text(20_000);
    let mut small_window = ::zstd::bulk::Compressor::new(3).unwrap();
    small_window.set_parameter(::zstd::zstd_safe::CParameter::ContentSizeFlag(false)).unwrap();
    small_window.set_parameter(::zstd::zstd_safe::CParameter::WindowLog(10)).unwrap();
    vec![
        frame(&text[..3000], 3, false, true),
        frame(&text[..3000], 19, true, true),
        frame(&rng.compressible(2000), 1, false, true),
        frame(&text[..600], -5, false, true),
        small_window.compress(&text[..6000]).unwrap(),
        frame(&[7; 300], 3, false, true),
        frame(&text[..5000], 9, false, false),
    ]
}

/// The kernel body in the simulator on `chunks` with capacities `caps`: (status, size, bytes).
fn simulated(chunks: &[Vec<u8>], caps: &[usize]) -> Vec<(i32, u64, Vec<u8>)> {
    let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    common::sim::decompress(
        &refs,
        caps,
        |_| (0, 0),
        |args: DecompressArgs| {
            // The host's literal buffers: 128 KiB per chunk.
            let mut lits = vec![0u8; (args.num_chunks as usize) << 17];
            let p = lits.as_mut_ptr() as usize;
            gpucomp_kernels::sim::launch::<DecompressShared, _>(
                k::decompress_grid_dim(args.num_chunks),
                k::DECOMPRESS_BLOCK,
                |t, s| unsafe { k::decompress(t, s, args, p as *mut u8, 1 << 17) },
            )
        },
    )
}

/// The size-query kernel body in the simulator on `chunks`.
fn sizes_simulated(chunks: &[Vec<u8>]) -> Vec<u64> {
    let refs: Vec<Option<&[u8]>> = chunks.iter().map(|c| Some(c.as_slice())).collect();
    let lens: Vec<u64> = chunks.iter().map(|c| c.len() as u64).collect();
    common::sim::sizes(&refs, &lens, |args: SizeArgs| {
        gpucomp_kernels::sim::launch::<DecompressShared, _>(
            k::decompress_grid_dim(args.num_chunks),
            k::DECOMPRESS_BLOCK,
            |t, s| unsafe { k::decompressed_size(t, s, args) },
        )
    })
}

/// Truncations and bit flips of small frames: the GPU's status, size and bytes for each equal
/// the simulator's (the same kernel body), and the CPU codec's on checksummed frames (elsewhere
/// libzstd's double-symbol Huffman decoder may differ on corrupt streams:
/// kernels/src/zstd/frame.rs); the size query's sizes likewise.
#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_hostile_chunks_match_the_simulator() {
    let g = gpu();
    let codec = batched::for_algorithm(&zstd()).unwrap();
    let mut rng = Rng::fresh("gpu_zstd_hostile");
    for (s, f) in hostile_sources(&mut rng).iter().enumerate() {
        let cap = cpu::decompressed_size(f).unwrap() + 64;
        let mut chunks: Vec<Vec<u8>> = (0..f.len()).step_by(f.len().div_ceil(150)).map(|n| f[..n].to_vec()).collect();
        chunks.extend((0..300).map(|_| {
            let mut c = f.clone();
            for _ in 0..1 + rng.below(3) {
                let bit = rng.index(8 * f.len());
                c[bit / 8] ^= 1 << (bit % 8);
            }
            c
        }));
        let caps = vec![cap; chunks.len()];
        let on_gpu = batched_decompress(&g, codec.as_ref(), &chunks, &caps, true);
        let on_sim = simulated(&chunks, &caps);
        for (i, ((st, n, out), (sim_st, sim_n, sim_out))) in on_gpu.iter().zip(&on_sim).enumerate() {
            let what = format!("source {s}, chunk {i}");
            assert_eq!((*st as i32, *n), (*sim_st, *sim_n), "{what}: GPU and simulator verdicts differ");
            assert!(out[..*n as usize] == sim_out[..], "{what}: GPU and simulator bytes differ");
        }
        if f[4] & 0x04 != 0 {
            assert_outcomes_match_cpu(&format!("source {s}"), &chunks, cap, &on_gpu, cpu_decode);
        }
        let sizes = batched_sizes(&g, codec.as_ref(), &chunks);
        assert_eq!(sizes, sizes_simulated(&chunks), "source {s}: size query");
        // The size query against the CPU codec: equal on checksummed frames (which all carry a
        // content size here), at most 1 % apart elsewhere (the decoder's leniency, as above).
        let differ = chunks.iter().zip(&sizes).filter(|(c, &n)| cpu::decompressed_size(c).map_or(0, |m| m as u64) != n);
        let differ = differ.count();
        assert!(differ == 0 || (f[4] & 0x04 == 0 && differ * 100 <= chunks.len()), "source {s}: {differ} sizes differ");
    }
}

/// Zstd compression is the CPU codec's: the batched GPU codec refuses it with `Unsupported`
/// (no launch), and a GPU `Codec`'s device-batch compression likewise.
#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_compression_is_unsupported() {
    let g = gpu();
    let s = g.stream();
    let codec = batched::for_algorithm(&zstd()).unwrap();
    let input = s.clone_htod(&[1u8; 64]).unwrap();
    let in_ptrs = s.clone_htod(&[DeviceRange::of(&input).address]).unwrap();
    let in_bytes = s.clone_htod(&[64u64]).unwrap();
    let out = s.alloc_zeros::<u8>(codec.max_compressed_chunk_size(64).unwrap()).unwrap();
    let out_ptrs = s.clone_htod(&[DeviceRange::of(&out).address]).unwrap();
    let mut out_bytes = s.alloc_zeros::<u64>(1).unwrap();
    let batch = CompressBatch {
        in_ptrs: &in_ptrs,
        in_bytes: &in_bytes,
        num_chunks: 1,
        max_uncompressed_chunk_bytes: 64,
        temp: None,
        out_ptrs: &out_ptrs,
        out_bytes: &mut out_bytes,
        statuses: None,
    };
    // SAFETY: every address is a live buffer of the stated size.
    let r = unsafe { codec.compress_async(&g, batch) };
    assert!(matches!(&r, Err(Error::Unsupported(m)) if m.contains("CPU")), "{r:?}");
    let high = Codec::on(zstd(), Device::Gpu(g.clone()));
    // SAFETY: as above.
    let r = unsafe { high.compress_device_batch(&[DeviceRange::of(&input)], BitstreamKind::Native) };
    assert!(matches!(r, Err(Error::Unsupported(_))));
    assert!(NativeStream::parse(&high.compress(&[1u8; 64]).unwrap()).is_ok(), "host compression runs on the CPU");
}
