//! The Bitcomp compression and size kernels, run in the CPU simulator (`gpucomp_kernels::sim`),
//! against gpucomp's CPU reference codec (`gpucomp::cpu::bitcomp`): chunks of both algorithms
//! and every type code are byte-identical to the reference's, round-trip through the CPU
//! decoder, and the kernel writes nothing past `max_compressed_chunk_size` (past the chunk is
//! its scratch space); the size kernel agrees with
//! `cpu::bitcomp::decompressed_size` on valid, damaged and short chunks.
mod common;

use common::{Rng, BITCOMP_ALGORITHMS, BITCOMP_TYPES};
use gpucomp::algorithm::bitcomp::ElementType;
use gpucomp::algorithm::bitcomp::{BitcompAlgorithm, BitcompOptions};
use gpucomp::cpu::bitcomp as cpu;
use gpucomp::DataType;
use gpucomp_kernels::batch::CompressArgs;
use gpucomp_kernels::bitcomp::{self as k, compress::Shared};
use gpucomp_kernels::sim::launch;
use gpucomp_kernels::status;

/// `bitcomp_compress` on `inputs` (inputs and outputs at byte offset `shift` from 16-aligned
/// buffers; outputs of `max_compressed_chunk_size` bytes; the kernel may use them as scratch
/// past the chunk, never past the bound): (status, out_bytes, chunk) each.
fn gpu_compress(inputs: &[&[u8]], type_code: u32, algorithm: u32, shift: usize) -> Vec<(i32, u64, Vec<u8>)> {
    gpu_compress_in(inputs, type_code, algorithm, shift, warps_for(inputs))
}

/// As [`gpu_compress`], with blocks of `warps` warps.
fn gpu_compress_in(
    inputs: &[&[u8]],
    type_code: u32,
    algorithm: u32,
    shift: usize,
    warps: u32,
) -> Vec<(i32, u64, Vec<u8>)> {
    let caps: Vec<usize> = inputs.iter().map(|i| BitcompOptions::max_compressed_chunk_size(i.len())).collect();
    common::sim::compress(
        inputs,
        &common::sim::lens(inputs),
        &caps,
        |_| (shift, shift),
        |a| launch_compress(a, type_code, algorithm, 3, warps),
    )
}

/// The warps per block the batched API launches for `inputs` (by the largest).
fn warps_for(inputs: &[&[u8]]) -> u32 {
    k::compress_warps(inputs.iter().map(|i| i.len() as u64).max().unwrap_or(0))
}

/// The kernel body on `args`, with a grid of at most `max_grid` blocks (smaller than the batch,
/// so that blocks loop over chunks) of `warps` warps.
fn launch_compress(args: CompressArgs, type_code: u32, algorithm: u32, max_grid: u32, warps: u32) {
    let grid = k::compress_grid_dim(args.num_chunks).min(max_grid);
    launch::<Shared, _>(grid, 32 * warps, |t, smem| unsafe {
        k::compress::compress(t, smem, args, type_code, algorithm)
    });
}

fn type_code(ty: DataType) -> u32 {
    ElementType::from_data_type(ty).expect("Bitcomp type").code() as u32
}

/// Compresses `inputs` on the simulated GPU and checks every chunk against the reference
/// (bytes, length, status) and the CPU decoder (round trip).
fn check(what: &str, inputs: &[&[u8]], ty: DataType, alg: BitcompAlgorithm, shift: usize) {
    let got = gpu_compress(inputs, type_code(ty), alg as u32, shift);
    let opts = BitcompOptions::default().with_algorithm(alg).with_data_type(ty);
    for (i, (input, (st, len, chunk))) in inputs.iter().zip(&got).enumerate() {
        let want = cpu::compress_to_vec(input, &opts).expect("reference");
        assert_eq!(*st, status::SUCCESS, "{what}: {ty:?} {alg:?} chunk {i}: status");
        assert_eq!(*len as usize, want.len(), "{what}: {ty:?} {alg:?} chunk {i} ({} bytes): length", input.len());
        if *chunk != want {
            let at = chunk.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(0);
            panic!("{what}: {ty:?} {alg:?} chunk {i} ({} bytes): first difference at byte {at}", input.len());
        }
        assert_eq!(cpu::decompress_to_vec(chunk).expect("decodes"), *input, "{what}: chunk {i}: round trip");
    }
}

/// Test data shapes.
fn data(rng: &mut Rng, kind: usize, n: usize) -> Vec<u8> {
    let words = |w: usize, f: &mut dyn FnMut(usize) -> u64| -> Vec<u8> {
        (0..n.div_ceil(w)).flat_map(|i| f(i).to_le_bytes()[..w].to_vec()).take(n).collect()
    };
    match kind {
        // fresh random bytes (raw blocks)
        0 => rng.bytes(n),
        // small-range ints (quantity-like, 1..=50)
        1 => words(4, &mut |_| 1 + rng.below(50)),
        // sorted keys (orderkey-like: ascending, repeated, gaps)
        2 => {
            let mut key = 1 + rng.below(1000);
            words(8, &mut |i| {
                if i % 4 == 3 {
                    key += 1 + rng.below(30);
                }
                key
            })
        }
        // sparse: mostly zero bytes
        3 => (0..n).map(|_| if rng.below(30) == 0 { rng.next() as u8 } else { 0 }).collect(),
        // negative and positive small signed values
        4 => words(2, &mut |_| (rng.below(200) as i64 - 100) as u64),
        // float32 random walk
        5 => {
            let mut x = 100.0f32;
            words(4, &mut |_| {
                x += rng.normal() as f32 * 0.5;
                x.to_bits() as u64
            })
        }
        // u8 columns with few values (discount-like 0..=10)
        6 => (0..n).map(|_| rng.below(11) as u8).collect(),
        // extendedprice-like i64 (cents, up to ~10^7)
        7 => words(8, &mut |_| 90_000 + rng.below(10_000_000)),
        // token-dense planes: every fourth group of 8 bytes random, the rest zero (for bytes,
        // every plane reads 0, 0, 0, x: a run and a literal token per 4 bitmap bytes)
        9 => (0..n).map(|i| if (i / 8) % 4 == 3 { rng.next() as u8 } else { 0 }).collect(),
        // periodic: constant planes of bytes other than 0x00 / 0xff (0xaa, 0xcc, 0xf0), some
        // planes constant per block only, and a little noise
        _ => {
            let noise = rng.below(3);
            words(4, &mut |i| {
                (i % 8) as u64 | (((i / 1000) % 3) as u64) << 9 | if noise == 0 { rng.below(2) << 20 } else { 0 }
            })
        }
    }
}

#[test]
fn every_type_and_algorithm_matches_the_reference() {
    let mut rng = Rng::fresh("bitcomp compress kernel: types");
    for &ty in &BITCOMP_TYPES[..8] {
        for alg in BITCOMP_ALGORITHMS {
            for kind in 0..10 {
                // lengths that are not multiples of 8 KiB or of the element width
                let n = [8192 + 13, 3 + 2 * 8192, 5000, 16384 + 8190, 8191, 8193, 24576, 1]
                    [(kind + type_code(ty) as usize) % 8];
                let input = data(&mut rng, kind, n);
                check(&format!("kind {kind}"), &[&input], ty, alg, 0);
            }
        }
    }
}

#[test]
fn edge_lengths_and_mixed_batches() {
    let mut rng = Rng::fresh("bitcomp compress kernel: lengths");
    for (ti, &ty) in [DataType::Uchar, DataType::Short, DataType::Int, DataType::LongLong].iter().enumerate() {
        for alg in BITCOMP_ALGORITHMS {
            let lens = [0usize, 1, 2, 7, 8191, 8192, 8193, 64 << 10];
            let inputs: Vec<Vec<u8>> = lens.iter().enumerate().map(|(i, &n)| data(&mut rng, (i + ti) % 8, n)).collect();
            let refs: Vec<&[u8]> = inputs.iter().map(|v| &v[..]).collect();
            check("mixed batch", &refs, ty, alg, 0);
        }
    }
}

#[test]
fn unaligned_inputs_and_outputs() {
    let mut rng = Rng::fresh("bitcomp compress kernel: unaligned");
    for (kind, ty, shift) in
        [(2, DataType::LongLong, 3), (5, DataType::Float32, 4), (0, DataType::Int, 1), (4, DataType::Short, 8)]
    {
        for alg in BITCOMP_ALGORITHMS {
            let inputs = [data(&mut rng, kind, 2 * 8192), data(&mut rng, kind, 8192 + 5)];
            check("unaligned", &[&inputs[0], &inputs[1]], ty, alg, shift);
        }
    }
}

#[test]
fn one_mib_chunk_and_real_shaped_columns() {
    let mut rng = Rng::fresh("bitcomp compress kernel: 1 MiB");
    let keys = data(&mut rng, 2, 1 << 20);
    check("1 MiB orderkeys", &[&keys], DataType::LongLong, BitcompAlgorithm::Default, 0);
    let walk = data(&mut rng, 5, 1 << 20);
    check("1 MiB float walk", &[&walk], DataType::Float32, BitcompAlgorithm::Sparse, 0);
    // TPC-H-like lineitem columns, 64 KiB each.
    let dates: Vec<u8> = (0..16384u32).flat_map(|_| (8036 + rng.below(2526) as u32).to_le_bytes()).collect();
    let linenumber: Vec<u8> = (0..65536).map(|_| 1 + rng.below(7) as u8).collect();
    for alg in BITCOMP_ALGORITHMS {
        check("shipdate", &[&dates], DataType::Int, alg, 0);
        check("linenumber", &[&linenumber], DataType::Uchar, alg, 0);
        check("extendedprice", &[&data(&mut rng, 7, 65536)], DataType::LongLong, alg, 0);
        check("discount", &[&data(&mut rng, 6, 65536)], DataType::Char, alg, 0);
        check("token-dense bytes", &[&data(&mut rng, 9, 65536)], DataType::Uchar, alg, 0);
    }
}

/// Blocks of any width (the batched API picks one warp per 8 KiB block of the largest chunk, up
/// to 8) write the same chunks: fewer warps take more rounds, more warps idle past a chunk's end.
#[test]
fn every_block_width_writes_the_same_chunks() {
    let mut rng = Rng::fresh("bitcomp compress kernel: block widths");
    let inputs =
        [data(&mut rng, 1, 70_000), data(&mut rng, 3, 16_384), data(&mut rng, 0, 9_000), data(&mut rng, 2, 100)];
    let inputs: Vec<&[u8]> = inputs.iter().map(|i| i.as_slice()).collect();
    assert_eq!(warps_for(&inputs), k::COMPRESS_WARPS, "70 000 bytes: 9 blocks, two rounds of 8");
    assert_eq!(warps_for(&inputs[1..]), 2, "16 KiB: two blocks");
    for alg in BITCOMP_ALGORITHMS {
        let opts = BitcompOptions::default().with_algorithm(alg).with_data_type(DataType::Uint);
        for warps in [1, 2, 3, 8] {
            let got = gpu_compress_in(&inputs, type_code(DataType::Uint), alg as u32, 0, warps);
            for (i, (input, (st, len, chunk))) in inputs.iter().zip(&got).enumerate() {
                let want = cpu::compress_to_vec(input, &opts).expect("reference");
                assert_eq!((*st, *len as usize), (status::SUCCESS, want.len()), "{alg:?}, {warps} warps, chunk {i}");
                assert!(*chunk == want, "{alg:?}, {warps} warps, chunk {i}: bytes");
            }
        }
    }
}

#[test]
fn refused_arguments() {
    let input = vec![7u8; 100];
    // Bad type code or algorithm: INVALID_VALUE; out_bytes 0.
    for (code, alg) in [(8, 0), (0, 2)] {
        let got = gpu_compress(&[&input], code, alg, 0);
        assert_eq!((got[0].0, got[0].1), (status::INVALID_VALUE, 0), "type {code}, algorithm {alg}");
    }
    // More than 16 MiB: refused before anything is read.
    let in_ptrs = [input.as_ptr()];
    let in_bytes = [(16u64 << 20) + 1];
    let mut out = [0u8; 64];
    let out_ptrs = [out.as_mut_ptr()];
    let (mut out_bytes, mut statuses) = ([u64::MAX], [-1i32]);
    let mut args = CompressArgs {
        in_ptrs: in_ptrs.as_ptr(),
        in_bytes: in_bytes.as_ptr(),
        num_chunks: 1,
        out_ptrs: out_ptrs.as_ptr(),
        out_bytes: out_bytes.as_mut_ptr(),
        statuses: statuses.as_mut_ptr(),
    };
    launch_compress(args, 4, 0, 1, k::COMPRESS_WARPS);
    assert_eq!((statuses[0], out_bytes[0]), (status::CHUNK_SIZE_TOO_LARGE, 0));
    assert!(out.iter().all(|&x| x == 0), "nothing written");
    // Null statuses are allowed.
    out_bytes[0] = u64::MAX;
    args.statuses = std::ptr::null_mut();
    launch_compress(args, 4, 0, 1, k::COMPRESS_WARPS);
    assert_eq!(out_bytes[0], 0);
}

/// `bitcomp_decompressed_size` on `(chunk, length)` pairs.
fn gpu_sizes(chunks: &[(&[u8], usize)]) -> Vec<u64> {
    let ptrs: Vec<Option<&[u8]>> = chunks.iter().map(|c| Some(c.0)).collect();
    let lens: Vec<u64> = chunks.iter().map(|c| c.1 as u64).collect();
    common::sim::sizes(&ptrs, &lens, |a| {
        // Fewer threads than chunks, so that threads loop.
        launch::<(), _>(1, 32, |t, _| unsafe { k::compress::decompressed_size(t, a) });
    })
}

#[test]
fn size_kernel_matches_the_reference() {
    let mut rng = Rng::fresh("bitcomp size kernel");
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    for (i, &ty) in BITCOMP_TYPES.iter().enumerate() {
        let alg = BITCOMP_ALGORITHMS[i % 2];
        let input = data(&mut rng, i % 8, [0, 1, 8193, 20_000][i % 4]);
        chunks.push(
            cpu::compress_to_vec(&input, &BitcompOptions::default().with_algorithm(alg).with_data_type(ty)).unwrap(),
        );
    }
    let mut cases: Vec<(Vec<u8>, usize)> = chunks.iter().map(|c| (c.clone(), c.len())).collect();
    for c in &chunks {
        // Truncated: short header, table cut off.
        cases.push((c.clone(), 31));
        cases.push((c.clone(), 32 + 8 * (c.len() > 40) as usize - 1));
        // Each header byte damaged (random value), and a huge declared size.
        for _ in 0..6 {
            let mut d = c.clone();
            d[rng.index(24)] = rng.next() as u8;
            let l = d.len();
            cases.push((d, l));
        }
        let mut d = c.clone();
        d[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        cases.push((d, c.len()));
    }
    cases.push((rng.bytes(100), 100));
    cases.push((Vec::new(), 0));
    let refs: Vec<(&[u8], usize)> = cases.iter().map(|(c, l)| (&c[..], *l)).collect();
    let got = gpu_sizes(&refs);
    let mut valid = 0;
    for (i, (c, l)) in refs.iter().enumerate() {
        let want = cpu::decompressed_size(&c[..*l]).map_or(0, |n| n as u64);
        valid += (want > 0) as usize;
        assert_eq!(got[i], want, "case {i}");
    }
    assert!(valid >= 8, "only {valid} valid cases");
}
