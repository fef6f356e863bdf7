//! Issue 22, bounded resources: streams whose headers or chunk headers claim huge uncompressed
//! sizes (2^40, 2^60, u64::MAX, and just above the format's maximum expansion) are refused
//! within a second and without allocating more than a small multiple of the stream, for every
//! algorithm and container kind; the caller's cap (`Codec::with_max_decompressed_size`) is
//! enforced the same way. A counting global allocator measures each call's peak.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gpucomp::codec::max_expansion;
use gpucomp::{
    Algorithm, AnsOptions, BitcompOptions, BitstreamKind, CascadedOptions, Codec, DataType, Device, Error, Lz4Options,
    Status, ZstdOptions,
};

/// [`System`], counting the bytes live now and the most live since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` with the caller's arguments; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grow(new_size);
        }
        p
    }
}

fn grow(n: usize) {
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The tests of this binary run one at a time, so that each measured peak is its own.
static SERIAL: Mutex<()> = Mutex::new(());

fn algorithms() -> Vec<Algorithm> {
    vec![
        Algorithm::Lz4(Lz4Options::default()),
        Algorithm::Ans(AnsOptions::default()),
        Algorithm::Bitcomp(BitcompOptions::default()),
        Algorithm::Cascaded(CascadedOptions::default()),
    ]
}

/// [`algorithms`] and Zstd (whose chunk states no size in a header word: see
/// `forged_chunk_headers_are_refused`).
fn every_algorithm() -> Vec<Algorithm> {
    let mut all = algorithms();
    all.push(Algorithm::Zstd(ZstdOptions::default()));
    all
}

fn cpu(algorithm: Algorithm) -> Codec {
    Codec::on(algorithm, Device::Cpu)
}

/// 40,000 bytes of small, repetitive 4-byte values: every algorithm compresses them well, and
/// the length is unlikely to appear by chance among a chunk's other header words.
fn input() -> Vec<u8> {
    (0..10_000u32).flat_map(|i| ((i / 16) % 97).to_le_bytes()).collect()
}

/// Runs `f` on `stream` and asserts it fails within a second, with a peak allocation under
/// 64 x the stream's length + 1 MiB; returns the error.
fn refused(what: &str, stream: &[u8], f: impl FnOnce(&[u8]) -> gpucomp::Result<Vec<u8>>) -> Error {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let start = Instant::now();
    let result = f(stream);
    let elapsed = start.elapsed();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    let err = result.err().unwrap_or_else(|| panic!("{what}: a forged stream decoded"));
    assert!(elapsed < Duration::from_secs(1), "{what}: {elapsed:?} to fail ({err})");
    let budget = 64 * stream.len() + (1 << 20);
    assert!(peak < budget, "{what}: peak allocation {peak} bytes, budget {budget} ({err})");
    err
}

/// Both entry points that size an output from the stream: `decompress` and `decompressed_size`.
fn assert_refused(what: &str, codec: &Codec, stream: &[u8]) -> Error {
    refused(&format!("{what}, decompressed_size"), stream, |s| codec.decompressed_size(s).map(|_| Vec::new()));
    refused(&format!("{what}, decompress"), stream, |s| codec.decompress(s))
}

fn put_u64(stream: &mut [u8], at: usize, v: u64) {
    stream[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

const CLAIMS: [u64; 3] = [1 << 40, 1 << 60, u64::MAX];

#[test]
fn forged_native_headers_are_refused() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let data = input();
    for algorithm in every_algorithm() {
        let name = algorithm.name();
        let codec = cpu(algorithm);
        let stream = codec.compress(&data).unwrap();
        for claim in CLAIMS {
            // The size alone (0x10): num_chunks no longer matches.
            let mut s = stream.clone();
            put_u64(&mut s, 0x10, claim);
            assert_refused(&format!("{name} NATIVE decomp_data_size {claim}"), &codec, &s);
            // Size and chunk count consistent (0x18): the chunk tables cannot fit.
            let chunk = u64::from_le_bytes(s[0x20..0x28].try_into().unwrap());
            put_u64(&mut s, 0x18, claim.div_ceil(chunk));
            assert_refused(&format!("{name} NATIVE {claim} in {chunk}-byte chunks"), &codec, &s);
            // The largest chunk size, so that fewer chunks are claimed.
            put_u64(&mut s, 0x20, u64::from(u32::MAX));
            put_u64(&mut s, 0x18, claim.div_ceil(u64::from(u32::MAX)));
            assert_refused(&format!("{name} NATIVE {claim} in 4 GiB chunks"), &codec, &s);
        }
        // One chunk claiming one byte more than the format bound allows for this stream.
        let one = cpu(algorithm).with_chunk_size(data.len()).unwrap().compress(&data).unwrap();
        let claim = one.len() as u64 * max_expansion(&algorithm) + 1;
        let mut s = one.clone();
        put_u64(&mut s, 0x10, claim);
        put_u64(&mut s, 0x20, claim);
        let err = assert_refused(&format!("{name} NATIVE one chunk of {claim}"), &codec, &s);
        assert!(matches!(err, Error::InvalidStream(_)), "{name}: {err}");
        assert!(err.to_string().contains(&claim.to_string()), "{name}: the error names the claim: {err}");
    }
}

#[test]
fn forged_size_prefixes_are_refused() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let data = input();
    for algorithm in every_algorithm() {
        let name = algorithm.name();
        let codec = cpu(algorithm);
        let stream = codec.compress_as(&data, BitstreamKind::WithUncompressedSize).unwrap();
        let just_above = stream.len() as u64 * max_expansion(&algorithm) + 1;
        for claim in CLAIMS.into_iter().chain([just_above]) {
            let mut s = stream.clone();
            put_u64(&mut s, 0, claim);
            assert_refused(&format!("{name} WITH_UNCOMPRESSED_SIZE {claim}"), &codec, &s);
        }
    }
}

/// RAW streams carry no container: ANS, Bitcomp and Cascaded chunks state their size in a
/// header word (found here by its value), LZ4's size is its parse and cannot be forged larger.
#[test]
fn forged_chunk_headers_are_refused() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let data = input();
    let size = (data.len() as u32).to_le_bytes();
    for algorithm in algorithms().into_iter().filter(|a| !matches!(a, Algorithm::Lz4(_))) {
        let name = algorithm.name();
        let codec = cpu(algorithm);
        let stream = codec.compress_as(&data, BitstreamKind::Raw).unwrap();
        let at = stream[..32]
            .windows(4)
            .position(|w| w == size)
            .unwrap_or_else(|| panic!("{name}: no size word in the chunk header"));
        let just_above = (stream.len() as u64 * max_expansion(&algorithm) + 1).min(u64::from(u32::MAX));
        for claim in [u64::from(u32::MAX), just_above] {
            let mut s = stream.clone();
            s[at..at + 4].copy_from_slice(&(claim as u32).to_le_bytes());
            assert_refused(&format!("{name} RAW chunk header {claim}"), &codec, &s);
        }
    }
}

/// A Zstd frame's content size field rewritten as 8 bytes claiming 2^40, 2^60, u64::MAX and
/// just above the bound (`zstd_forged_content_sizes_are_refused`).
fn with_content_size(frame: &[u8], claim: u64) -> Vec<u8> {
    let frames = gpucomp::cpu::zstd::frames(frame).unwrap();
    let [gpucomp::cpu::zstd::Frame::Zstd { header, .. }] = frames.as_slice() else { panic!("{frames:?}") };
    let fhd = frame[4];
    let mut out = frame[..4].to_vec();
    out.push(0xC0 | (fhd & 0x20));
    if !header.single_segment {
        out.push(frame[5]);
    }
    out.extend_from_slice(&claim.to_le_bytes());
    out.extend_from_slice(&frame[header.header_len..]);
    out
}

/// RAW Zstd streams state their size in the frame header's content size field.
#[test]
fn zstd_forged_content_sizes_are_refused() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let data = input();
    let algorithm = Algorithm::Zstd(ZstdOptions::default());
    let codec = cpu(algorithm);
    let stream = codec.compress_as(&data, BitstreamKind::Raw).unwrap();
    assert_eq!(codec.decompress(&with_content_size(&stream, data.len() as u64)).unwrap(), data);
    // The bound of the forged stream, whose 8-byte field is longer than the original one.
    let just_above = with_content_size(&stream, 0).len() as u64 * max_expansion(&algorithm) + 1;
    for claim in CLAIMS.into_iter().chain([just_above]) {
        assert_refused(&format!("Zstd RAW content size {claim}"), &codec, &with_content_size(&stream, claim));
    }
}

#[test]
fn the_callers_cap_is_enforced() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let data = input();
    let n = data.len() as u64;
    for algorithm in every_algorithm() {
        let name = algorithm.name();
        for kind in [BitstreamKind::Native, BitstreamKind::WithUncompressedSize, BitstreamKind::Raw] {
            let stream = cpu(algorithm).compress_as(&data, kind).unwrap();
            let at_cap = cpu(algorithm).with_max_decompressed_size(n);
            assert_eq!(at_cap.max_decompressed_size(), n);
            assert_eq!(at_cap.decompress(&stream).unwrap(), data, "{name} {kind:?}");
            let below = cpu(algorithm).with_max_decompressed_size(n - 1);
            let err = refused(&format!("{name} {kind:?} over the cap"), &stream, |s| below.decompress(s));
            match &err {
                Error::InvalidArgument { status: Status::OutputBufferTooSmall, reason } => {
                    assert!(reason.contains(&n.to_string()) && reason.contains(&(n - 1).to_string()), "{reason}");
                }
                e => panic!("{name} {kind:?}: {e}"),
            }
            assert!(below.decompressed_size(&stream).is_err(), "{name} {kind:?}");
        }
    }
}

/// The bounds refuse no valid stream: all-zero input, the most compressible there is, decodes
/// under each algorithm's bound at its largest chunk size.
#[test]
fn the_densest_valid_streams_stay_under_the_bound() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let zeros = vec![0u8; 16 << 20];
    let widest_ans = Algorithm::Ans(AnsOptions::default().with_max_sub_chunk_count(4));
    let wide = [
        widest_ans,
        Algorithm::Bitcomp(BitcompOptions::default().with_data_type(DataType::ULongLong)),
        Algorithm::Cascaded(CascadedOptions::default().with_data_type(DataType::ULongLong)),
        Algorithm::Cascaded(CascadedOptions::default().with_data_type(DataType::Char)),
    ];
    for algorithm in every_algorithm().into_iter().chain(wide) {
        let codec = cpu(algorithm).with_chunk_size(algorithm.max_chunk_size()).unwrap();
        for kind in [BitstreamKind::Native, BitstreamKind::Raw] {
            let stream = codec.compress_as(&zeros, kind).unwrap();
            let ratio = zeros.len() as u64 / stream.len() as u64;
            assert!(ratio < max_expansion(&algorithm), "{}: ratio {ratio}", algorithm.name());
            eprintln!("{} {kind:?}: all-zero ratio {ratio}", algorithm.name());
            assert_eq!(codec.decompress(&stream).unwrap(), zeros);
        }
    }
}

/// The GPU paths refuse the same claims before allocating device memory: `decompress` on a GPU
/// codec, `decompressed_sizes_device` and `decompress_device_batch`.
#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn forged_sizes_are_refused_on_the_gpu() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let g = gpucomp::gpu::Gpu::new(0).expect("this test needs a CUDA device");
    let data = input();
    for algorithm in every_algorithm() {
        let name = algorithm.name();
        let codec = Codec::on(algorithm, Device::Gpu(g.clone()));
        let native = cpu(algorithm).compress(&data).unwrap();
        let prefixed = cpu(algorithm).compress_as(&data, BitstreamKind::WithUncompressedSize).unwrap();
        let one = cpu(algorithm).with_chunk_size(data.len()).unwrap().compress(&data).unwrap();
        let mut forged = Vec::new();
        for claim in CLAIMS {
            let mut s = native.clone();
            put_u64(&mut s, 0x10, claim);
            forged.push(s);
        }
        let mut s = one.clone();
        let claim = one.len() as u64 * max_expansion(&algorithm) + 1;
        put_u64(&mut s, 0x10, claim);
        put_u64(&mut s, 0x20, claim);
        forged.push(s);
        for claim in [1 << 40, prefixed.len() as u64 * max_expansion(&algorithm) + 1] {
            let mut s = prefixed.clone();
            put_u64(&mut s, 0, claim);
            forged.push(s);
        }
        for (k, s) in forged.iter().enumerate() {
            let what = format!("{name} GPU forged stream {k}");
            refused(&what, s, |s| codec.decompress(s));
            let buffer = g.stream().clone_htod(s).unwrap();
            let r = [gpucomp::codec::DeviceRange::of(&buffer)];
            let start = Instant::now();
            // SAFETY: `buffer` is a live device buffer of the codec's GPU, written synchronously.
            let sizes = unsafe { codec.decompressed_sizes_device(&r) };
            // SAFETY: as above.
            let outputs = unsafe { codec.decompress_device_batch(&r) };
            assert!(start.elapsed() < Duration::from_secs(1), "{what}: {:?}", start.elapsed());
            assert!(matches!(sizes, Err(Error::Buffer { index: 0, .. })), "{what}: {sizes:?}");
            assert!(matches!(outputs, Err(Error::Buffer { index: 0, .. })), "{what}");
        }
        assert_eq!(codec.decompress(&native).unwrap(), data, "{name}");
        let capped = codec.clone().with_max_decompressed_size(data.len() as u64 - 1);
        assert!(matches!(capped.decompress(&native), Err(Error::InvalidArgument { .. })), "{name}");
        let buffer = g.stream().clone_htod(&native).unwrap();
        let r = [gpucomp::codec::DeviceRange::of(&buffer)];
        // SAFETY: as above.
        let outputs = unsafe { capped.decompress_device_batch(&r) };
        assert!(matches!(outputs, Err(Error::Buffer { index: 0, .. })), "{name}");
    }
}
