//! The device-buffer batch API of `Codec` (`compress_device_batch`, `decompress_device_batch` and
//! their `_into` forms, `decompressed_sizes_device`), against the CPU codecs' bytes.
//!
//! The GPU tests are `#[ignore]`d: `cargo test` on a machine without a GPU reports them as
//! ignored with the reason; run them with `--include-ignored` on a GPU machine. The tests of the
//! host-side contract (CPU codecs, size bounds) run everywhere.
mod common;

use common::gpu::gpu;
use common::Rng;
use cudarc::driver::CudaSlice;
use gpucomp::codec::{DeviceBuffers, DeviceRange, BUFFER_ALIGNMENT};
use gpucomp::container::NativeStream;
use gpucomp::gpu::Gpu;
use gpucomp::{
    Algorithm, AnsOptions, BitcompOptions, BitstreamKind, CascadedOptions, Codec, Device, Error, Lz4Options, Status,
};

const KINDS: [BitstreamKind; 3] = [BitstreamKind::Native, BitstreamKind::Raw, BitstreamKind::WithUncompressedSize];

fn algorithms() -> [Algorithm; 4] {
    [
        Algorithm::Lz4(Lz4Options::default()),
        Algorithm::Ans(AnsOptions::default()),
        Algorithm::Cascaded(CascadedOptions::default()),
        Algorithm::Bitcomp(BitcompOptions::default()),
    ]
}

/// Inputs of every size that matters: empty, one element, not a multiple of the chunk size,
/// exactly three chunks, 1 MiB; whole elements of the algorithm's data type.
fn inputs(rng: &mut Rng, algorithm: &Algorithm) -> Vec<Vec<u8>> {
    let width = algorithm.element_width().unwrap();
    [0, 1, 100_003, 3 << 16, 1 << 20].into_iter().map(|n: usize| rng.compressible(n.next_multiple_of(width))).collect()
}

/// Device copies of `data`, with the ranges of the data in them (an empty input gets a 1-byte
/// buffer: the driver refuses 0-byte allocations).
fn upload(g: &Gpu, data: &[Vec<u8>]) -> (Vec<CudaSlice<u8>>, Vec<DeviceRange>) {
    let buffers: Vec<CudaSlice<u8>> =
        data.iter().map(|d| g.stream().clone_htod(if d.is_empty() { &[0u8][..] } else { d }).unwrap()).collect();
    let ranges = buffers.iter().zip(data).map(|(b, d)| DeviceRange { len: d.len(), ..DeviceRange::of(b) }).collect();
    (buffers, ranges)
}

fn ranges(buffers: &[CudaSlice<u8>]) -> Vec<DeviceRange> {
    buffers.iter().map(DeviceRange::of).collect()
}

fn download_each(g: &Gpu, buffers: &[CudaSlice<u8>]) -> Vec<Vec<u8>> {
    buffers.iter().map(|b| if b.is_empty() { Vec::new() } else { g.stream().clone_dtoh(b).unwrap() }).collect()
}

fn download(buffers: &DeviceBuffers) -> Vec<Vec<u8>> {
    (0..buffers.len()).map(|i| buffers.to_host(i).unwrap()).collect()
}

/// The buffer index of a batch error.
fn failed_buffer(e: &Error) -> Option<usize> {
    match e {
        Error::Buffer { index, .. } => Some(*index),
        _ => None,
    }
}

#[test]
fn cpu_codecs_answer_unsupported() {
    let codec = Codec::on(Algorithm::default(), Device::Cpu);
    let r = [DeviceRange { address: 0, len: 0 }];
    // SAFETY: a CPU codec refuses before touching any address.
    unsafe {
        assert!(matches!(codec.compress_device_batch(&r, BitstreamKind::Native), Err(Error::Unsupported(_))));
        assert!(matches!(codec.compress_device_batch_into(&r, BitstreamKind::Raw, &r), Err(Error::Unsupported(_))));
        assert!(matches!(codec.decompressed_sizes_device(&r), Err(Error::Unsupported(_))));
        assert!(matches!(codec.decompress_device_batch(&r), Err(Error::Unsupported(_))));
        assert!(matches!(codec.decompress_device_batch_into(&r, &r), Err(Error::Unsupported(_))));
    }
}

#[test]
fn codecs_and_gpus_cross_threads() {
    // Bindings call one codec from several threads (e.g. Python with the GIL released).
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Codec>();
    send_sync::<Gpu>();
    send_sync::<DeviceRange>();
}

#[test]
fn max_compressed_size_bounds_every_stream() {
    let mut rng = Rng::here();
    for algorithm in algorithms() {
        for chunk_size in [4096, 65536] {
            let codec = Codec::on(algorithm, Device::Cpu).with_chunk_size(chunk_size).unwrap();
            for input in inputs(&mut rng, &algorithm).into_iter().chain([rng.bytes(200_000)]) {
                let input = &input[..input.len() / 4 * 4];
                for kind in KINDS {
                    match codec.compress_as(input, kind) {
                        Ok(stream) => {
                            let bound = codec.max_compressed_size(input.len(), kind).unwrap();
                            assert!(
                                stream.len() <= bound,
                                "{algorithm:?} {kind} {}: {} > {bound}",
                                input.len(),
                                stream.len()
                            );
                        }
                        Err(_) => assert!(codec.max_compressed_size(input.len(), kind).is_err()),
                    }
                }
                let with_checksums = codec.clone().with_checksums(true);
                let stream = with_checksums.compress(input).unwrap();
                assert!(
                    stream.len() <= with_checksums.max_compressed_size(input.len(), BitstreamKind::Native).unwrap()
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn batches_write_the_cpu_bytes_and_decode_them() {
    let g = gpu();
    let mut rng = Rng::here();
    for algorithm in algorithms() {
        let on_gpu = Codec::on(algorithm, Device::Gpu(g.clone()));
        let on_cpu = Codec::on(algorithm, Device::Cpu);
        let data = inputs(&mut rng, &algorithm);
        for kind in KINDS {
            let expected: Vec<_> = data.iter().map(|d| on_cpu.compress_as(d, kind)).collect();
            let ok: Vec<usize> = (0..data.len()).filter(|&i| expected[i].is_ok()).collect();
            // Inputs the CPU refuses (an empty RAW chunk) fail on the GPU too, naming the buffer.
            if let Some(bad) = (0..data.len()).find(|i| !ok.contains(i)) {
                let (_inputs, r) = upload(&g, &data);
                // SAFETY: the inputs are ours and live until the call returns.
                let e = unsafe { on_gpu.compress_device_batch(&r, kind) }.unwrap_err();
                assert_eq!(failed_buffer(&e), Some(bad), "{algorithm:?} {kind}: {e}");
            }
            let data: Vec<Vec<u8>> = ok.iter().map(|&i| data[i].clone()).collect();
            let expected: Vec<Vec<u8>> = ok.iter().map(|&i| expected[i].as_ref().unwrap().clone()).collect();
            let (_inputs, input_ranges) = upload(&g, &data);
            // SAFETY: the inputs are ours and live until the stream is synchronised (the reads).
            let streams = unsafe { on_gpu.compress_device_batch(&input_ranges, kind) }.unwrap();
            assert_eq!(download(&streams), expected, "{algorithm:?} {kind}");
            // One allocation, each stream where an allocation of its own would start.
            assert!(streams.ranges().iter().all(|r| r.address % BUFFER_ALIGNMENT as u64 == 0));

            // Into caller buffers of the bound's size: the same bytes and lengths.
            let bounds: Vec<usize> = data.iter().map(|d| on_gpu.max_compressed_size(d.len(), kind).unwrap()).collect();
            let outs: Vec<CudaSlice<u8>> = bounds.iter().map(|&b| g.stream().alloc_zeros::<u8>(b).unwrap()).collect();
            // SAFETY: inputs and outputs are ours, disjoint, alive until the reads.
            let lens = unsafe { on_gpu.compress_device_batch_into(&input_ranges, kind, &ranges(&outs)) }.unwrap();
            for ((out, &len), e) in download_each(&g, &outs).iter().zip(&lens).zip(&expected) {
                assert_eq!(&out[..len], &e[..], "{algorithm:?} {kind} into");
            }

            // Back: sizes, new buffers, caller buffers.
            let stream_ranges = streams.ranges();
            // SAFETY: the streams are ours, complete once the stream reaches them (the calls
            // below are ordered after the compression on the codec's stream).
            unsafe {
                let sizes = on_gpu.decompressed_sizes_device(&stream_ranges).unwrap();
                assert_eq!(sizes, data.iter().map(|d| d.len() as u64).collect::<Vec<_>>());
                let restored = on_gpu.decompress_device_batch(&stream_ranges).unwrap();
                assert_eq!(download(&restored), data, "{algorithm:?} {kind} decompress");
                let outs: Vec<CudaSlice<u8>> =
                    data.iter().map(|d| g.stream().alloc_zeros::<u8>(d.len() + 5).unwrap()).collect();
                let lens = on_gpu.decompress_device_batch_into(&stream_ranges, &ranges(&outs)).unwrap();
                assert_eq!(lens, data.iter().map(Vec::len).collect::<Vec<_>>());
                for (out, d) in download_each(&g, &outs).iter().zip(&data) {
                    assert_eq!(&out[..d.len()], &d[..]);
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn one_batch_decodes_every_algorithm_and_kind_mixed() {
    let g = gpu();
    let mut rng = Rng::here();
    let codec = Codec::on(Algorithm::default(), Device::Gpu(g.clone()));
    let mut streams = Vec::new();
    let mut data = Vec::new();
    for algorithm in algorithms() {
        let cpu = Codec::on(algorithm, Device::Cpu).with_chunk_size(16 << 10).unwrap();
        for input in inputs(&mut rng, &algorithm) {
            streams.push(cpu.compress(&input).unwrap());
            data.push(input);
        }
    }
    // RAW and WITH_UNCOMPRESSED_SIZE streams are read with the codec's algorithm (LZ4).
    let text = rng.compressible(70_001);
    streams.push(codec.compress_as(&text, BitstreamKind::Raw).unwrap());
    data.push(text.clone());
    streams.push(codec.compress_as(&text, BitstreamKind::WithUncompressedSize).unwrap());
    data.push(text);
    let (_on_device, r) = upload(&g, &streams);
    // SAFETY: the streams are ours and live until the call returns.
    let restored = unsafe { codec.decompress_device_batch(&r) }.unwrap();
    assert_eq!(download(&restored), data);
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn small_outputs_and_corrupt_streams_name_the_buffer() {
    let g = gpu();
    let mut rng = Rng::here();
    let codec = Codec::on(Algorithm::default(), Device::Gpu(g.clone()));
    let data = [rng.compressible(1000), rng.compressible(200_000), rng.compressible(5000)];
    let (_inputs, input_ranges) = upload(&g, &data);
    // SAFETY: every buffer below is ours and lives until the calls return.
    unsafe {
        let streams = codec.compress_device_batch(&input_ranges, BitstreamKind::Native).unwrap();
        let lens: Vec<usize> = streams.ranges().iter().map(|r| r.len).collect();

        // Compression into outputs one byte short for buffer 1.
        let outs: Vec<CudaSlice<u8>> = lens
            .iter()
            .enumerate()
            .map(|(i, &l)| g.stream().alloc_zeros::<u8>(l - usize::from(i == 1)).unwrap())
            .collect();
        let e = codec.compress_device_batch_into(&input_ranges, BitstreamKind::Native, &ranges(&outs)).unwrap_err();
        match e {
            Error::Buffer { index: 1, source } => {
                assert!(matches!(*source, Error::OutputTooSmall { needed, .. } if needed == lens[1]), "{source}")
            }
            e => panic!("{e}"),
        }

        // Decompression into an output one byte short for buffer 2.
        let outs: Vec<CudaSlice<u8>> = data
            .iter()
            .enumerate()
            .map(|(i, d)| g.stream().alloc_zeros::<u8>(d.len() - usize::from(i == 2)).unwrap())
            .collect();
        let e = codec.decompress_device_batch_into(&streams.ranges(), &ranges(&outs)).unwrap_err();
        assert!(
            matches!(&e, Error::Buffer { index: 2, source } if matches!(**source, Error::OutputTooSmall { .. })),
            "{e}"
        );

        // A corrupt chunk in buffer 1: chunk 2 cut to half its size in the table.
        let mut host = download(&streams);
        let (sizes_at, half) = {
            let s = NativeStream::parse(&host[1]).unwrap();
            (s.tables_offset() + 8 * s.num_chunks() + 16, s.chunk_size(2).unwrap() as u64 / 2)
        };
        host[1][sizes_at..sizes_at + 8].copy_from_slice(&half.to_le_bytes());
        let (_corrupt, r) = upload(&g, &host);
        let e = codec.decompress_device_batch(&r).unwrap_err();
        match &e {
            Error::Buffer { index: 1, source } => {
                assert!(matches!(**source, Error::Chunk { chunk: 2, status } if status != Status::Success), "{e}")
            }
            e => panic!("{e}"),
        }

        // Headers: truncated, and tables pointing outside the stream.
        let mut host = download(&streams);
        host[0].truncate(60);
        let offsets_at = NativeStream::parse(&host[2]).unwrap().tables_offset();
        host[2][offsets_at..offsets_at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let (_corrupt, r) = upload(&g, &host);
        let e = codec.decompress_device_batch(&r).unwrap_err();
        assert!(matches!(&e, Error::Buffer { index: 0, source } if matches!(**source, Error::InvalidStream(_))), "{e}");
        let e = codec.decompress_device_batch(&r[1..]).unwrap_err();
        assert!(matches!(&e, Error::Buffer { index: 1, source } if matches!(**source, Error::InvalidStream(_))), "{e}");
        assert!(e.to_string().contains("chunk 0"), "{e}");
        assert!(codec.decompressed_sizes_device(&r).is_err());

        // A misaligned chunk offset (the device reads the tables): named, not decoded.
        let mut host = download(&streams);
        let offsets_at = NativeStream::parse(&host[1]).unwrap().tables_offset();
        let second = u64::from_le_bytes(host[1][offsets_at + 8..offsets_at + 16].try_into().unwrap());
        host[1][offsets_at + 8..offsets_at + 16].copy_from_slice(&(second + 1).to_le_bytes());
        let (_corrupt, r) = upload(&g, &host);
        let e = codec.decompress_device_batch(&r).unwrap_err();
        assert!(matches!(&e, Error::Buffer { index: 1, source } if matches!(**source, Error::InvalidStream(_))), "{e}");
        assert!(e.to_string().contains("chunk 1") && e.to_string().contains("multiple of 8"), "{e}");
    }
}

#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn borrowed_streams_order_the_work() {
    let g = gpu();
    let again = Gpu::new(0).unwrap();
    assert_eq!(again.info(), g.info());
    let producer = g.context().new_stream().unwrap();
    let consumer = g.context().new_stream().unwrap();
    let mut rng = Rng::here();
    let data = rng.compressible(300_000);
    let input = producer.clone_htod(&data).unwrap();
    // SAFETY: both streams are ours and outlive the Gpu and every buffer it allocates.
    let on_consumer = unsafe { g.with_borrowed_stream(consumer.cu_stream()) };
    // SAFETY: as above.
    unsafe { on_consumer.wait_for_stream(producer.cu_stream()).unwrap() };
    assert_eq!(on_consumer.stream().cu_stream(), consumer.cu_stream());
    let codec = Codec::on(Algorithm::default(), Device::Gpu(on_consumer.clone()));
    // SAFETY: the input is ours; the consumer waits for its upload.
    let streams = unsafe { codec.compress_device_batch(&[DeviceRange::of(&input)], BitstreamKind::Native) }.unwrap();
    let expected = Codec::on(Algorithm::default(), Device::Cpu).compress(&data).unwrap();
    assert_eq!(streams.to_host(0).unwrap(), expected);
    drop(streams);
    consumer.synchronize().unwrap();
}

/// Every buffer of the device path comes from gpucomp's pool, which keeps freed memory across
/// synchronisations (the default pool gave it back at each one) and trims only what is free.
#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn the_pool_keeps_freed_memory_until_released() {
    let g = gpu();
    let mut rng = Rng::here();
    let data: Vec<Vec<u8>> = (0..8).map(|_| rng.compressible(1 << 20)).collect();
    let (_inputs, input_ranges) = upload(&g, &data);
    let codec = Codec::on(Algorithm::default(), Device::Gpu(g.clone()));
    // SAFETY: the inputs are ours, alive until the synchronisation below.
    let streams = unsafe { codec.compress_device_batch(&input_ranges, BitstreamKind::Native) }.unwrap();
    // SAFETY: the streams are ours, complete once the codec's stream reaches them.
    let restored = unsafe { codec.decompress_device_batch(&streams.ranges()) }.unwrap();
    assert_eq!(download(&restored), data);
    let (kept, live) = (streams.ranges().iter().map(|r| r.len).sum::<usize>() as u64, (8 << 20) as u64);
    assert!(g.reserved_memory().unwrap() >= kept + live);
    drop(restored);
    g.synchronize().unwrap();
    assert!(g.reserved_memory().unwrap() >= kept + live, "the pool gave freed memory back at a sync");
    g.release_cached_memory().unwrap();
    assert!(g.reserved_memory().unwrap() >= kept, "trimming released memory in use");
    // After a trim the pool maps memory again.
    // SAFETY: as above.
    let again = unsafe { codec.decompress_device_batch(&streams.ranges()) }.unwrap();
    assert_eq!(download(&again), data);
}
