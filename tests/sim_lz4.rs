//! The LZ4 kernels, run in the CPU simulator (`gpucomp_kernels::sim`), against gpucomp's CPU
//! reference codec (`gpucomp::cpu::lz4`): compressed blocks are byte for byte the reference's,
//! for both encoders and all element widths; decompression agrees with the reference decoder on
//! valid, corrupted and truncated blocks and too-small outputs.
mod common;

use common::{lineitem_text, Rng};
use gpucomp::cpu::lz4::{self as cpu, EncoderParams};
use gpucomp::Lz4Encoder;
use gpucomp_kernels::lz4::{self as k, compress::compress, decompress::decompress, decompress::DecompressShared};
use gpucomp_kernels::sim::launch;
use gpucomp_kernels::status;

/// Shared memory the simulated compressor blocks get: two warps per block, so that blocks have
/// more than one warp (the GPU fits up to 32) while the simulation stays small.
fn shared_for(table_size: u32, stage: u32) -> u32 {
    2 * k::compress_warp_bytes(table_size, stage)
}

/// `lz4_compress` on `chunks` with staging buffers of `stage` bytes, input `i` placed `shift(i)`
/// bytes past a 16-byte boundary; the blocks (checked: status, size, nothing written past
/// nvCOMP's bound).
fn gpu_compress_at(
    chunks: &[&[u8]],
    table_size: u32,
    width: u32,
    encoder: u32,
    stage: u32,
    shift: impl Fn(usize) -> usize,
) -> Vec<Vec<u8>> {
    let bounds: Vec<usize> = chunks.iter().map(|c| cpu::max_compressed_size(c.len())).collect();
    let got = common::sim::compress(
        chunks,
        &common::sim::lens(chunks),
        &bounds,
        |i| (shift(i), 0),
        |a| {
            let smem = shared_for(table_size, stage);
            let grid = k::compress_grid_dim(a.num_chunks, table_size, stage, smem);
            launch::<[u8; 1 << 18], _>(grid, k::compress_block_dim(table_size, stage, smem), |t, s| unsafe {
                compress(t, s.cast(), a, table_size, width, encoder, stage)
            });
        },
    );
    got.into_iter()
        .zip(&bounds)
        .enumerate()
        .map(|(i, ((st, len, block), &bound))| {
            assert_eq!(st, status::SUCCESS, "chunk {i}");
            assert!(len as usize <= bound, "chunk {i}: out_bytes {len} past nvCOMP's bound {bound}");
            block
        })
        .collect()
}

/// [`gpu_compress_at`] with every input on a 16-byte boundary.
fn gpu_compress(chunks: &[&[u8]], table_size: u32, width: u32, encoder: u32, stage: u32) -> Vec<Vec<u8>> {
    gpu_compress_at(chunks, table_size, width, encoder, stage, |_| 0)
}

/// `lz4_decompress` on `blocks` with output capacities `caps`: (status, bytes written) per block
/// (checked: nothing written past the capacity).
fn gpu_decompress(blocks: &[Vec<u8>], caps: &[usize]) -> Vec<(i32, Vec<u8>)> {
    gpu_decompress_at(blocks, caps, |_| (0, 0))
}

/// [`gpu_decompress`] with block `i`'s input and output starting `shift(i)` bytes past 16-byte
/// boundaries.
fn gpu_decompress_at(
    blocks: &[Vec<u8>],
    caps: &[usize],
    shift: impl Fn(usize) -> (usize, usize),
) -> Vec<(i32, Vec<u8>)> {
    let refs: Vec<&[u8]> = blocks.iter().map(|b| b.as_slice()).collect();
    let got = common::sim::decompress(&refs, caps, shift, |a| {
        launch::<DecompressShared, _>(k::decompress_grid_dim(a.num_chunks), k::DECOMPRESS_BLOCK, |t, smem| unsafe {
            decompress(t, smem, a)
        });
    });
    got.into_iter().map(|(st, _, bytes)| (st, bytes)).collect()
}

/// Inputs of every kind: text, compressible, random, short (the final-literals edge cases) and
/// runs (overlapping matches).
fn inputs() -> Vec<Vec<u8>> {
    let mut rng = Rng::fresh("lz4_kernels_sim");
    let text = lineitem_text(6000);
    let mut v = vec![text[..6000].to_vec(), rng.compressible(4000), rng.bytes(1500), vec![9u8; 700]];
    v.extend([0usize, 1, 5, 12, 13, 14, 16, 21, 40].map(|n| text[1000..1000 + n].to_vec()));
    v
}

#[test]
fn compressed_blocks_equal_the_cpu_reference() {
    let data = inputs();
    let chunks: Vec<&[u8]> = data.iter().map(|d| &d[..]).collect();
    let largest = chunks.iter().map(|c| c.len() as u64).max().unwrap_or(0);
    // Gpucomp from global memory, and staged in shared memory as the batched API launches it.
    let runs = [
        (Lz4Encoder::Nvcomp, 1, 0),
        (Lz4Encoder::Gpucomp, 0, 0),
        (Lz4Encoder::Gpucomp, 0, k::compress_stage_bytes(largest)),
    ];
    for (encoder, code, stage) in runs {
        for w in [1usize, 2, 4] {
            // The encoders' table for 64 KiB chunks, and for bytes a small one (many collisions).
            let small = if w == 1 { Some(256) } else { None };
            for table_size in [Some(encoder.table_size(65536)), small].into_iter().flatten() {
                let params = EncoderParams { encoder, element_width: w, table_size };
                let blocks = gpu_compress(&chunks, table_size as u32, w as u32, code, stage);
                for (i, (b, c)) in blocks.iter().zip(&chunks).enumerate() {
                    let want = cpu::compress_to_vec(c, &params).expect("CPU reference");
                    assert!(
                        *b == want,
                        "{params:?}, staged in {stage} bytes, chunk {i} ({} bytes): kernel {} bytes, reference {}",
                        c.len(),
                        b.len(),
                        want.len()
                    );
                }
            }
        }
    }
}

/// Gpucomp's encoder across the staging buffer's capacity (`stage - 16` bytes; longer chunks
/// are read from global memory): empty, 1, 15, 16 and 17 bytes, the capacity and one byte on
/// either side of a 4 KiB buffer, and the largest buffer full (a segment; longer chunks are
/// segmented, `sim_lz4_segments.rs`), text and random data, every width, inputs at every offset
/// from a 16-byte boundary; the CPU reference's bytes.
#[test]
fn staged_chunks_around_the_capacity_equal_the_cpu_reference() {
    let mut rng = Rng::fresh("lz4 staging capacity");
    let text = lineitem_text(20000);
    let segment = k::SEGMENT as usize;
    for (capacity, sizes) in [(4096, vec![0, 1, 15, 16, 17, 4095, 4096, 4097]), (segment, vec![segment - 1, segment])] {
        let stage = k::compress_stage_bytes(capacity as u64);
        assert_eq!(stage as usize, capacity + 16);
        let data: Vec<Vec<u8>> = sizes.iter().flat_map(|&n| [text[300..300 + n].to_vec(), rng.bytes(n)]).collect();
        let chunks: Vec<&[u8]> = data.iter().map(|d| &d[..]).collect();
        let table_size = Lz4Encoder::Gpucomp.table_size(capacity + 1);
        for w in [1usize, 2, 4] {
            let params = EncoderParams { encoder: Lz4Encoder::Gpucomp, element_width: w, table_size };
            let blocks = gpu_compress_at(&chunks, table_size as u32, w as u32, 0, stage, |i| i % 16);
            for (i, (b, c)) in blocks.iter().zip(&chunks).enumerate() {
                let want = cpu::compress_to_vec(c, &params).expect("CPU reference");
                assert!(*b == want, "w={w}, stage {stage}, chunk {i} ({} bytes, at {} mod 16)", c.len(), i % 16);
            }
        }
    }
}

/// Gpucomp's skip rule (lanes spread out after windows without a match): a whole segment of
/// random bytes (the stride reaches its cap), data that turns compressible after a long random
/// run, text repeated after random bytes, short random and text runs in turn, and random bytes
/// with a repeated block; every width, from global memory and staged; the CPU reference's bytes,
/// which decode back.
#[test]
fn skipping_over_incompressible_data_equals_the_cpu_reference() {
    let mut rng = Rng::fresh("lz4 skip");
    let text = lineitem_text(40000);
    let segment = k::SEGMENT as usize;
    let mut data = vec![rng.bytes(segment), [rng.bytes(12000), text[..4384].to_vec()].concat()];
    data.push([&text[..2000], &rng.bytes(9000)[..], &text[..2000], &rng.bytes(3000)[..]].concat());
    let mut turns = Vec::new();
    while turns.len() < segment - 1000 {
        let (r, t) = (rng.index(600), rng.index(400));
        turns.extend(rng.bytes(r));
        turns.extend_from_slice(&text[turns.len()..turns.len() + t]);
    }
    data.push(turns);
    let block = rng.bytes(64);
    let mut repeats = Vec::new();
    for i in 0..10 {
        repeats.extend(rng.bytes(400 + 200 * i));
        repeats.extend_from_slice(&block);
    }
    data.push(repeats);
    let chunks: Vec<&[u8]> = data.iter().map(|d| &d[..]).collect();
    let largest = chunks.iter().map(|c| c.len()).max().unwrap_or(0);
    assert!(largest <= segment);
    let table_size = Lz4Encoder::Gpucomp.table_size(largest);
    for stage in [0, k::compress_stage_bytes(largest as u64)] {
        for w in [1usize, 2, 4] {
            let params = EncoderParams { encoder: Lz4Encoder::Gpucomp, element_width: w, table_size };
            let blocks = gpu_compress(&chunks, table_size as u32, w as u32, 0, stage);
            for (i, (b, c)) in blocks.iter().zip(&chunks).enumerate() {
                let want = cpu::compress_to_vec(c, &params).expect("CPU reference");
                assert!(*b == want, "w={w}, staged in {stage} bytes, chunk {i} ({} bytes)", c.len());
                let mut back = vec![0u8; c.len()];
                assert_eq!(cpu::decompress(b, &mut back), Ok(c.len()), "w={w}, chunk {i}");
                assert!(back == *c, "w={w}, chunk {i}: round trip");
            }
        }
    }
}

#[test]
fn decompression_agrees_with_the_cpu_reference() {
    let data = inputs();
    let mut rng = Rng::fresh("lz4_kernels_sim corruption");
    let (mut blocks, mut caps) = (Vec::new(), Vec::new());
    for (i, d) in data.iter().enumerate() {
        let encoder = if i % 2 == 0 { Lz4Encoder::Gpucomp } else { Lz4Encoder::Nvcomp };
        let b = cpu::compress_to_vec(d, &EncoderParams::bytes(encoder, 65536)).expect("CPU reference");
        blocks.push(b.clone());
        caps.push(d.len());
        if d.len() < 100 {
            continue;
        }
        // Output one byte short, truncations, flipped bytes, and garbage.
        blocks.push(b.clone());
        caps.push(d.len() - 1);
        for cut in [1, b.len() / 3, b.len() - 1] {
            blocks.push(b[..cut].to_vec());
            caps.push(d.len());
        }
        for _ in 0..6 {
            let mut c = b.clone();
            let at = rng.below(c.len() as u64) as usize;
            c[at] ^= 1 << rng.below(8);
            blocks.push(c);
            caps.push(d.len() + 64);
        }
        blocks.push(rng.bytes(300));
        caps.push(5000);
    }
    let got = gpu_decompress(&blocks, &caps);
    for (i, ((b, &cap), (st, out))) in blocks.iter().zip(&caps).zip(&got).enumerate() {
        let mut want = vec![0; cap];
        match cpu::decompress(b, &mut want) {
            Ok(len) => {
                assert_eq!(*st, status::SUCCESS, "block {i}");
                assert!(out[..] == want[..len], "block {i}: output differs");
            }
            Err(e) => assert_eq!(*st, status::CANNOT_DECOMPRESS, "block {i}: the reference says {e}"),
        }
    }
}

/// Long literal runs (incompressible data, and text around random stretches) are copied 16 bytes
/// a lane where the output is 16-byte aligned and byte by byte elsewhere: the same bytes at every
/// input and output alignment, with truncated blocks refused either way.
#[test]
fn long_literal_runs_decode_at_every_alignment() {
    let mut rng = Rng::fresh("lz4 literal runs");
    let text = lineitem_text(9000);
    let mut mixed = text[..3000].to_vec();
    mixed.extend(rng.bytes(5000));
    mixed.extend(&text[3000..7000]);
    mixed.extend(rng.bytes(1100));
    let data = [rng.bytes(20_000), mixed, rng.bytes(517), rng.bytes(1024 + 13)];
    let (mut blocks, mut caps, mut shifts) = (Vec::new(), Vec::new(), Vec::new());
    for d in &data {
        let b = cpu::compress_to_vec(d, &EncoderParams::bytes(Lz4Encoder::Gpucomp, 65536)).expect("CPU reference");
        for (in_shift, out_shift) in [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (3, 4), (0, 8), (5, 16)] {
            blocks.push(b.clone());
            caps.push(d.len());
            shifts.push((in_shift, out_shift));
        }
        blocks.push(b[..b.len() - 1].to_vec());
        caps.push(d.len());
        shifts.push((0, 0));
    }
    let got = gpu_decompress_at(&blocks, &caps, |i| shifts[i]);
    for (i, ((b, &cap), (st, out))) in blocks.iter().zip(&caps).zip(&got).enumerate() {
        let mut want = vec![0; cap];
        match cpu::decompress(b, &mut want) {
            Ok(len) => {
                assert_eq!(*st, status::SUCCESS, "block {i} at {:?}", shifts[i]);
                assert!(out[..] == want[..len], "block {i} at {:?}: output differs", shifts[i]);
            }
            Err(e) => assert_eq!(*st, status::CANNOT_DECOMPRESS, "block {i}: the reference says {e}"),
        }
    }
}
