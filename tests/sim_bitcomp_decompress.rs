//! The Bitcomp decompression kernel, run in the CPU simulator (`gpucomp_kernels::sim`), against
//! gpucomp's CPU reference codec (`gpucomp::cpu::bitcomp`): chunks of both algorithms and every
//! type decode to the reference's output; golden nvCOMP chunks decode; corrupted, truncated and
//! garbage chunks and too-small outputs give the reference's status, never a panic, a hang or a
//! write outside the output.
mod common;

use common::{lineitem_text, Rng, BITCOMP_ALGORITHMS, BITCOMP_TYPES};
use gpucomp::algorithm::bitcomp::{BitcompAlgorithm, BitcompOptions};
use gpucomp::container::NativeStream;
use gpucomp::cpu::bitcomp as cpu;
use gpucomp::DataType;
use gpucomp_kernels::batch::DecompressArgs;
use gpucomp_kernels::bitcomp::{self as k, decompress::decompress, decompress::Shared};
use gpucomp_kernels::sim::launch;
use gpucomp_kernels::status;

fn compress(input: &[u8], algorithm: BitcompAlgorithm, data_type: DataType) -> Vec<u8> {
    cpu::compress_to_vec(input, &BitcompOptions::default().with_algorithm(algorithm).with_data_type(data_type))
        .expect("compress")
}

/// `bitcomp_decompress` at `K` warps per chunk, and the CPU decoder.
struct Split<const K: u32>;

/// `bitcomp_decompress` at one warp per chunk (no per-chunk words).
type Bitcomp = Split<1>;

impl<const K: u32> common::sim::Decoder for Split<K> {
    fn launch(b: DecompressArgs) {
        let n = b.num_chunks;
        // Warps for at most 8 chunks' items, so that warps loop over the rest.
        let grid = k::decompress_grid_dim(n.min(8), K, 1);
        let mut parts = vec![0u32; n as usize];
        // An address (the closure runs on every simulated thread); null at one warp per chunk.
        let at = if K == 1 { 0 } else { parts.as_mut_ptr() as usize };
        launch::<Shared, _>(grid, k::BLOCK_THREADS, |t, smem| unsafe { decompress(t, smem, b, at as *mut u32, K) });
        if K > 1 {
            // Every warp of every chunk added itself once.
            for (i, w) in parts.iter().enumerate() {
                assert_eq!(w & 0xFFFF, K, "chunk {i}: warps counted");
            }
        }
    }

    fn reference(chunk: &[u8], cap: usize) -> (i32, Vec<u8>) {
        common::sim::verdict(cap, |out| cpu::decompress(chunk, out), |e| e as i32)
    }
}

/// `bitcomp_decompress` on `chunks` with output capacities `caps`, placed as `shift` says (see
/// [`common::sim::decompress`]).
fn gpu_decompress(chunks: &[&[u8]], caps: &[usize], shift: impl Fn(usize) -> (usize, usize)) -> Vec<common::sim::Out> {
    common::sim::decompress(chunks, caps, shift, <Bitcomp as common::sim::Decoder>::launch)
}

/// Decodes `chunks` on the simulated GPU (placed as `shift` says) and checks every one against
/// the reference.
fn check(
    what: &str,
    chunks: &[&[u8]],
    caps: &[usize],
    shift: impl Fn(usize) -> (usize, usize),
) -> Vec<common::sim::Out> {
    common::sim::check_decompress::<Bitcomp>(what, chunks, caps, shift).0
}

fn data(rng: &mut Rng, kind: usize, n: usize) -> Vec<u8> {
    match kind {
        // random
        0 => rng.bytes(n),
        // sparse: mostly zeros, a few random bytes
        1 => (0..n).map(|_| if rng.below(40) == 0 { rng.next() as u8 } else { 0 }).collect(),
        // constant
        2 => vec![0x5C; n],
        // ramp of small 32-bit integers with noise (also negative when signed)
        _ => (0..n.div_ceil(4))
            .flat_map(|i| ((i as i32 - 700) * 3 + rng.below(5) as i32).to_le_bytes())
            .take(n)
            .collect(),
    }
}

#[test]
fn every_type_and_algorithm_matches_the_reference() {
    let mut rng = Rng::fresh("bitcomp kernels: types");
    for (kind, name) in ["random", "sparse", "constant", "ramp"].iter().enumerate() {
        let mut inputs = Vec::new();
        let mut chunks = Vec::new();
        for (ti, &ty) in BITCOMP_TYPES.iter().enumerate() {
            for (ai, &alg) in BITCOMP_ALGORITHMS.iter().enumerate() {
                // sizes not multiples of 8 KiB or of the element: 1..3 blocks
                let n = [8192 + 13, 3 + 2 * 8192, 5000, 16384 + 8190][(ti + ai + kind) % 4];
                let input = data(&mut rng, kind, n);
                chunks.push(compress(&input, alg, ty));
                inputs.push(input);
            }
        }
        let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
        let caps: Vec<usize> = inputs.iter().map(|i| i.len() + (i.len() % 3)).collect();
        let got = check(name, &refs, &caps, |_| (0, 0));
        // Unaligned outputs take the byte-store path.
        if kind == 3 {
            check("ramp, unaligned outputs", &refs[..6], &caps[..6], |_| (0, 5));
        }
        for (i, (_, _, out)) in got.iter().enumerate() {
            assert!(out == &inputs[i], "{name}: chunk {i}: not the input");
        }
    }
}

#[test]
fn tpch_columns_and_edge_sizes() {
    let text = lineitem_text(20_000);
    let mut chunks = Vec::new();
    for (ty, alg) in [
        (DataType::Uchar, BitcompAlgorithm::Default),
        (DataType::Char, BitcompAlgorithm::Sparse),
        (DataType::Int, BitcompAlgorithm::Default),
        (DataType::LongLong, BitcompAlgorithm::Sparse),
    ] {
        chunks.push(compress(&text, alg, ty));
    }
    // A TPC-H-like integer column: order keys (ascending, repeated) as i64 and dates as u32.
    let keys: Vec<u8> = (0..2100u64).flat_map(|i| (1 + i / 4 * 32 + i % 4).to_le_bytes()).collect();
    let dates: Vec<u8> = (0..3000u32).flat_map(|i| (8036 + i.wrapping_mul(2654435761) % 2526).to_le_bytes()).collect();
    for alg in BITCOMP_ALGORITHMS {
        chunks.push(compress(&keys, alg, DataType::LongLong));
        chunks.push(compress(&dates, alg, DataType::Uint));
    }
    // Edge sizes: empty, one byte, one element short of a block, exactly one block.
    for (n, alg) in [
        (0, BitcompAlgorithm::Default),
        (1, BitcompAlgorithm::Sparse),
        (8184, BitcompAlgorithm::Default),
        (8192, BitcompAlgorithm::Sparse),
    ] {
        chunks.push(compress(&text[..n], alg, DataType::LongLong));
    }
    let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    let caps: Vec<usize> = chunks.iter().map(|c| cpu::decompressed_size(c).unwrap() + 7).collect();
    check("tpch", &refs, &caps, |_| (0, 0));
}

#[test]
fn golden_chunks_decode() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.csv")).unwrap();
    let mut chunks = Vec::new();
    let mut originals = Vec::new();
    for line in manifest.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() < 4 || f[2] != "Bitcomp" {
            continue;
        }
        let stream = std::fs::read(dir.join(f[0])).unwrap();
        let input = std::fs::read(dir.join(f[1])).unwrap();
        let s = NativeStream::parse(&stream).unwrap();
        // Small chunks only (the simulator runs 128 OS threads per block), a few per algorithm.
        for c in s.chunks() {
            if c.uncompressed_size as usize <= 3 * 8192 && chunks.len() < 12 {
                let start = c.index * s.uncomp_chunk_size() as usize;
                originals.push(input[start..start + c.uncompressed_size as usize].to_vec());
                chunks.push(c.data.to_vec());
                break;
            }
        }
    }
    assert!(chunks.len() >= 4, "only {} small golden Bitcomp chunks", chunks.len());
    let sparse = chunks.iter().filter(|c| c[4] == 0x10).count();
    println!(
        "{} golden chunks ({sparse} sparse), {} bytes",
        chunks.len(),
        originals.iter().map(Vec::len).sum::<usize>()
    );
    let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    let caps: Vec<usize> = originals.iter().map(|o| o.len()).collect();
    let got = gpu_decompress(&refs, &caps, |_| (0, 0));
    for (i, (st, _, out)) in got.iter().enumerate() {
        assert_eq!(*st, status::SUCCESS, "golden chunk {i}");
        assert!(*out == originals[i], "golden chunk {i}: output differs");
    }
}

#[test]
fn hostile_chunks_and_small_outputs() {
    let mut rng = Rng::fresh("bitcomp kernels: hostile");
    let mut base = Vec::new();
    for (kind, alg, ty) in [
        (3, BitcompAlgorithm::Default, DataType::Int),
        (1, BitcompAlgorithm::Sparse, DataType::Short),
        (3, BitcompAlgorithm::Sparse, DataType::LongLong),
        (1, BitcompAlgorithm::Default, DataType::Uchar),
        (0, BitcompAlgorithm::Default, DataType::Uint), // raw blocks
    ] {
        let input = data(&mut rng, kind, 8192 + 1000);
        base.push((compress(&input, alg, ty), input.len()));
    }
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut lens = Vec::new();
    let mut caps = Vec::new();
    for (c, n) in &base {
        // too-small output, exact output
        for cap in [n - 1, 0, *n] {
            chunks.push(c.clone());
            lens.push(c.len());
            caps.push(cap);
        }
        // truncated: header only, inside the table, inside the payload
        for cut in [20, 40, c.len() / 2, c.len() - 1] {
            chunks.push(c.clone());
            lens.push(cut);
            caps.push(*n);
        }
        // corrupted: random bytes of the header, table and payload overwritten
        for _ in 0..6 {
            let mut d = c.clone();
            for _ in 0..1 + rng.below(3) {
                let at = match rng.below(3) {
                    0 => rng.below(32) as usize,
                    1 => 32 + rng.below(16) as usize,
                    _ => rng.below(d.len() as u64) as usize,
                };
                d[at] = rng.next() as u8;
            }
            lens.push(d.len());
            chunks.push(d);
            caps.push(*n + 8);
        }
    }
    // Garbage: random bytes, and random bytes behind a plausible header and table.
    for i in 0..4 {
        let mut g = rng.bytes(200 + 3000 * i);
        if i >= 2 {
            let h = &base[i % base.len()].0;
            g[..48].copy_from_slice(&h[..48]);
        }
        lens.push(g.len());
        chunks.push(g);
        caps.push(20_000);
    }
    // Targeted table and payload damage (block 0 of a default and of a sparse chunk).
    for (c, n) in [&base[0], &base[1]] {
        let info = |d: &mut Vec<u8>, f: &dyn Fn(u32) -> u32| {
            let v = f(u32::from_le_bytes(d[36..40].try_into().unwrap()));
            d[36..40].copy_from_slice(&v.to_le_bytes());
        };
        let payload0 = 32 + 8 * n.div_ceil(8192);
        let mut variants: Vec<Vec<u8>> = Vec::new();
        for f in [
            &(|v: u32| v | 1) as &dyn Fn(u32) -> u32, // unknown low bit
            &|v: u32| v | 1 << 31,                    // raw flag on a coded block
            &|v: u32| v & (1 << 31),                  // zero words
            &|v: u32| v | 0x7ff8_0000,                // 4095 words: past the input
        ] {
            let mut d = c.clone();
            info(&mut d, f);
            variants.push(d);
        }
        // Default: op count 0xffff; sparse: L0 all ones (levels past the payload).
        let mut d = c.clone();
        d[payload0..payload0 + 4].copy_from_slice(&[0xff; 4]);
        variants.push(d);
        // Word offset far past the input.
        let mut d = c.clone();
        d[32..36].copy_from_slice(&0xfff0_0000u32.to_le_bytes());
        variants.push(d);
        for d in variants {
            lens.push(d.len());
            chunks.push(d);
            caps.push(*n);
        }
    }
    // A huge declared size with a tiny table: refused before any block (table outside the input).
    let mut huge = base[0].0.clone();
    huge[16..24].copy_from_slice(&(1u64 << 40).to_le_bytes());
    lens.push(huge.len());
    chunks.push(huge);
    caps.push(1 << 20);
    let refs: Vec<&[u8]> = chunks.iter().zip(&lens).map(|(c, &l)| &c[..l]).collect();
    let got = check("hostile", &refs, &caps, |_| (0, 0));
    // The statuses seen include both errors.
    assert!(got.iter().any(|g| g.0 == status::OUTPUT_BUFFER_TOO_SMALL));
    assert!(got.iter().any(|g| g.0 == status::CANNOT_DECOMPRESS));
}

/// Default-algorithm byte chunks made of segments of 1 to 3000 equal elements (zeros, 0xFF,
/// alternating 0x00 / 0xFF, or random bytes): their planes hold runs of zeros, of 0xFF and of a
/// repeated byte from 1 to about 375 bytes long at every bitmap offset, which a lane writes up to
/// 256 bytes and the warp beyond; every chunk matches the reference.
#[test]
fn runs_of_every_length() {
    let mut rng = Rng::fresh("bitcomp kernels: runs");
    let (mut inputs, mut chunks) = (vec![], vec![]);
    for _ in 0..6 {
        let mut input = Vec::with_capacity(4 * 8192);
        while input.len() < 4 * 8192 {
            let len = 1 + rng.below(3000) as usize;
            match rng.below(4) {
                0 => input.extend(std::iter::repeat_n(0u8, len)),
                1 => input.extend(std::iter::repeat_n(0xFFu8, len)),
                2 => input.extend((0..len).map(|i| if i % 2 == 0 { 0 } else { 0xFF })),
                _ => input.extend(rng.bytes(len.min(64))),
            }
        }
        input.truncate(4 * 8192 - rng.below(100) as usize);
        chunks.push(compress(&input, BitcompAlgorithm::Default, DataType::Uchar));
        inputs.push(input);
    }
    let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    let caps: Vec<usize> = inputs.iter().map(Vec::len).collect();
    for (i, (st, _, out)) in check("runs", &refs, &caps, |_| (0, 0)).iter().enumerate() {
        assert_eq!(*st, status::SUCCESS, "chunk {i}");
        assert!(*out == inputs[i], "chunk {i}: not the input");
    }
}

/// Default-algorithm chunks full of long literal tokens (TPC-H columns, a float32 random walk,
/// float16 noise), read from every payload alignment: a 4-byte-aligned chunk takes the wide
/// literal copy (funnel-shifted words), the others the byte copy; both match the reference.
#[test]
fn long_literals_at_every_input_alignment() {
    let mut rng = Rng::fresh("bitcomp kernels: literals");
    let mut inputs: Vec<(Vec<u8>, DataType)> =
        common::lineitem_columns(2.0, 6200).into_iter().map(|(_, ty, col)| (col, ty)).collect();
    let mut v = 100.0f32;
    let walk: Vec<u8> = (0..6200)
        .flat_map(|_| {
            v += rng.normal() as f32 * 0.1;
            v.to_le_bytes()
        })
        .collect();
    inputs.push((walk, DataType::Float32));
    // float16-like noise: sign, small exponents, random mantissas.
    let noise: Vec<u8> = (0..12_400u32)
        .flat_map(|_| ((0x1800 + rng.below(0x1800) as u16) | ((rng.below(2) as u16) << 15)).to_le_bytes())
        .collect();
    inputs.push((noise, DataType::Float16));
    let chunks: Vec<Vec<u8>> = inputs.iter().map(|(d, ty)| compress(d, BitcompAlgorithm::Default, *ty)).collect();
    // Mostly literal tokens longer than a warp's 16-byte stores: ratios below 4 (orderkey: 13.7).
    let literal_heavy = chunks.iter().filter(|c| c.len() * 4 > cpu::decompressed_size(c).unwrap() as usize).count();
    assert!(literal_heavy >= 6, "only {literal_heavy} literal-heavy chunks");
    let caps: Vec<usize> = inputs.iter().map(|(d, _)| d.len()).collect();
    let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    for shift in 0..4 {
        // Byte `shift` past a 16-byte boundary starts each chunk.
        let got = check(&format!("literals, input at +{shift}"), &refs, &caps, |_| (shift, 0));
        for (i, (st, _, out)) in got.iter().enumerate() {
            assert_eq!(*st, status::SUCCESS, "input at +{shift}, chunk {i}");
            assert!(*out == inputs[i].0, "input at +{shift}, chunk {i}: not the input");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// several warps per chunk

/// Decodes `chunks` at `K` warps per chunk and checks every chunk against the reference (as at
/// one block per chunk: status, size, bytes); returns the results.
fn check_split<const K: u32>(what: &str, chunks: &[&[u8]], caps: &[usize]) -> Vec<common::sim::Out> {
    common::sim::check_decompress::<Split<K>>(&format!("{what}, {K} warps per chunk"), chunks, caps, |_| (0, 0)).0
}

/// [`check_split`] at 1, 2, 3 and 8 warps per chunk and at 40 (more than a 256 KiB chunk's 32
/// blocks); every chunk gets the same status, size and bytes in every run.
fn check_splits(what: &str, chunks: &[&[u8]], caps: &[usize]) -> Vec<common::sim::Out> {
    let one = check_split::<1>(what, chunks, caps);
    for got in [
        check_split::<2>(what, chunks, caps),
        check_split::<3>(what, chunks, caps),
        check_split::<8>(what, chunks, caps),
        check_split::<40>(what, chunks, caps),
    ] {
        assert!(got == one, "{what}: results differ from one warp per chunk");
    }
    one
}

/// Chunks of 4 KiB to 256 KiB of every type and both algorithms (random data: raw blocks among
/// them), decoded at 1, 2, 3, 8 and 40 warps per chunk, all exactly as the reference.
#[test]
fn every_type_and_algorithm_decode_split_across_warps() {
    let mut rng = Rng::fresh("bitcomp kernels: split");
    let sizes = [4096, 40_000, 65536, 100_000 + 3, 262_144];
    let (mut chunks, mut inputs) = (vec![], vec![]);
    for (ti, &ty) in BITCOMP_TYPES.iter().enumerate() {
        for (ai, &alg) in BITCOMP_ALGORITHMS.iter().enumerate() {
            let n = sizes[(ti + 2 * ai) % sizes.len()];
            let input = data(&mut rng, (ti + ai) % 4, n);
            chunks.push(compress(&input, alg, ty));
            inputs.push(input);
        }
    }
    let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    let caps: Vec<usize> = inputs.iter().map(|i| i.len() + 5).collect();
    let got = check_splits("every type", &refs, &caps);
    for (i, (st, _, out)) in got.iter().enumerate() {
        assert_eq!(*st, status::SUCCESS, "chunk {i}");
        assert!(out == &inputs[i], "chunk {i}: not the input");
    }
}

/// A corrupt chunk fails alone whichever of its warps finds it, between valid chunks: a bad
/// table entry of block 5 (part 1 of 2, 2 of 3, 5 of 8) and of block 13 (part 1 of 2, 1 of 3,
/// 5 of 8), a block 13 whose words run past the input, a chunk truncated inside block 10's
/// payload, and an output too small (every warp sees it).
#[test]
fn corrupt_chunks_fail_alone_split_across_warps() {
    let mut rng = Rng::fresh("bitcomp kernels: corrupt split");
    let input = data(&mut rng, 3, 16 * 8192);
    let (mut batch, mut caps) = (vec![], vec![]);
    for alg in BITCOMP_ALGORITHMS {
        let c = compress(&input, alg, DataType::Int);
        let entry = |b: usize| 32 + 8 * b;
        let info = |d: &[u8], b: usize| u32::from_le_bytes(d[entry(b) + 4..entry(b) + 8].try_into().unwrap());
        let set_info =
            |d: &mut Vec<u8>, b: usize, v: u32| d[entry(b) + 4..entry(b) + 8].copy_from_slice(&v.to_le_bytes());
        batch.push(c.clone());
        for b in [5, 13] {
            // An info bit the format keeps zero.
            let mut d = c.clone();
            set_info(&mut d, b, info(&c, b) | 1);
            batch.push(d);
        }
        // 4095 words: past the input.
        let mut d = c.clone();
        set_info(&mut d, 13, info(&c, 13) | 0x7ff8_0000);
        batch.push(d);
        let off10 = u32::from_le_bytes(c[entry(10)..entry(10) + 4].try_into().unwrap()) as usize;
        batch.push(c[..32 + 8 * 16 + 4 * off10 + 8].to_vec());
        batch.push(c.clone());
        caps.extend([input.len(); 6]);
        caps.push(input.len() - 1);
        batch.push(c.clone());
    }
    let refs: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
    let (ok, bad, small) = (status::SUCCESS, status::CANNOT_DECOMPRESS, status::OUTPUT_BUFFER_TOO_SMALL);
    let want = [ok, bad, bad, bad, bad, ok, small];
    let got = check_splits("corrupt", &refs, &caps);
    let statuses: Vec<i32> = got.iter().map(|r| r.0).collect();
    assert_eq!(statuses, [want, want].concat());
}

/// The hostile chunks (ten blocks: parts of up to four) give the reference's statuses at 3
/// warps per chunk.
#[test]
fn hostile_chunks_split_across_warps() {
    let mut rng = Rng::fresh("bitcomp kernels: hostile split");
    let input = data(&mut rng, 3, 9 * 8192 + 100);
    let c = compress(&input, BitcompAlgorithm::Default, DataType::Int);
    let (mut chunks, mut caps) = (vec![], vec![]);
    for _ in 0..24 {
        let mut d = c.clone();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(d.len() as u64) as usize;
            d[at] = rng.next() as u8;
        }
        chunks.push(d);
        caps.push(input.len() + 8);
    }
    for cut in [20, 40, c.len() / 2, c.len() - 1] {
        chunks.push(c[..cut].to_vec());
        caps.push(input.len());
    }
    let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
    check_split::<3>("hostile", &refs, &caps);
}
