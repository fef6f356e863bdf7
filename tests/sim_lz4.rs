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

/// Shared memory the simulated compressor blocks get: two tables per block, so that blocks have
/// more than one warp (the GPU fits up to 32) while the simulation stays small.
fn shared_for(table_size: u32) -> u32 {
    2 * k::compress_shared_bytes(table_size, u32::MAX) / k::compress_warps_per_block(table_size, u32::MAX)
}

/// `lz4_compress` on `chunks`; the blocks (checked: status, size, nothing written past nvCOMP's
/// bound).
fn gpu_compress(chunks: &[&[u8]], table_size: u32, width: u32, encoder: u32) -> Vec<Vec<u8>> {
    let bounds: Vec<usize> = chunks.iter().map(|c| cpu::max_compressed_size(c.len())).collect();
    let got = common::sim::compress(
        chunks,
        &common::sim::lens(chunks),
        &bounds,
        |_| (0, 0),
        |a| {
            let smem = shared_for(table_size);
            let grid = k::compress_grid_dim(a.num_chunks, table_size, smem);
            launch::<[u8; 1 << 18], _>(grid, k::compress_block_dim(table_size, smem), |t, s| unsafe {
                compress(t, s.cast(), a, table_size, width, encoder)
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

/// `lz4_decompress` on `blocks` with output capacities `caps`: (status, bytes written) per block
/// (checked: nothing written past the capacity).
fn gpu_decompress(blocks: &[Vec<u8>], caps: &[usize]) -> Vec<(i32, Vec<u8>)> {
    let refs: Vec<&[u8]> = blocks.iter().map(|b| b.as_slice()).collect();
    let got = common::sim::decompress(
        &refs,
        caps,
        |_| (0, 0),
        |a| {
            launch::<DecompressShared, _>(
                k::decompress_grid_dim(a.num_chunks),
                k::DECOMPRESS_BLOCK,
                |t, smem| unsafe { decompress(t, smem, a) },
            );
        },
    );
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
    for (encoder, code) in [(Lz4Encoder::Nvcomp, 1), (Lz4Encoder::Gpucomp, 0)] {
        for w in [1usize, 2, 4] {
            // The encoders' table for 64 KiB chunks, and for bytes a small one (many collisions).
            let small = if w == 1 { Some(256) } else { None };
            for table_size in [Some(encoder.table_size(65536)), small].into_iter().flatten() {
                let params = EncoderParams { encoder, element_width: w, table_size };
                let blocks = gpu_compress(&chunks, table_size as u32, w as u32, code);
                for (i, (b, c)) in blocks.iter().zip(&chunks).enumerate() {
                    let want = cpu::compress_to_vec(c, &params).expect("CPU reference");
                    assert!(
                        *b == want,
                        "{params:?}, chunk {i} ({} bytes): kernel {} bytes, reference {}",
                        c.len(),
                        b.len(),
                        want.len()
                    );
                }
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
