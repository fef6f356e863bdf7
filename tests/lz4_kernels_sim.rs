//! The LZ4 kernels, run in the CPU simulator (`gpucomp_kernels::sim`), against gpucomp's CPU
//! reference codec (`gpucomp::cpu::lz4`): compressed blocks are byte for byte the reference's,
//! for both encoders and all element widths; decompression agrees with the reference decoder on
//! valid, corrupted and truncated blocks and too-small outputs.
mod common;

use common::{lineitem_text, Rng};
use gpucomp::cpu::lz4::{self as cpu, EncoderParams};
use gpucomp::Lz4Encoder;
use gpucomp_kernels::lz4::{self as k, compress::compress, decompress::decompress, decompress::DecompressShared};
use gpucomp_kernels::sim::{launch, SendPtr};
use gpucomp_kernels::status;

/// Shared memory the simulated compressor blocks get: two tables per block, so that blocks have
/// more than one warp (the GPU fits up to 32) while the simulation stays small.
fn shared_for(table_size: u32) -> u32 {
    2 * k::compress_shared_bytes(table_size, u32::MAX) / k::compress_warps_per_block(table_size, u32::MAX)
}

/// `lz4_compress` on `chunks`; the blocks (checked: status, size, nothing written past nvCOMP's
/// bound).
fn gpu_compress(chunks: &[&[u8]], table_size: u32, width: u32, encoder: u32) -> Vec<Vec<u8>> {
    let in_ptrs: Vec<*const u8> = chunks.iter().map(|c| c.as_ptr()).collect();
    let in_bytes: Vec<u64> = chunks.iter().map(|c| c.len() as u64).collect();
    let mut outs: Vec<Vec<u8>> = chunks.iter().map(|c| vec![0xA5; cpu::max_compressed_size(c.len()) + 64]).collect();
    let out_ptrs: Vec<*mut u8> = outs.iter_mut().map(|o| o.as_mut_ptr()).collect();
    let n = chunks.len() as u64;
    let (mut out_bytes, mut statuses) = (vec![u64::MAX; chunks.len()], vec![-1i32; chunks.len()]);
    let p = (
        SendPtr(in_ptrs.as_ptr() as *mut *const u8),
        SendPtr(in_bytes.as_ptr() as *mut u64),
        SendPtr(out_ptrs.as_ptr() as *mut *mut u8),
    );
    let q = (SendPtr(out_bytes.as_mut_ptr()), SendPtr(statuses.as_mut_ptr()));
    let smem = shared_for(table_size);
    let (grid, block) = (k::compress_grid_dim(n, table_size, smem), k::compress_block_dim(table_size, smem));
    launch::<[u8; 1 << 18], _>(grid, block, |t, s| unsafe {
        compress(t, s.cast(), p.0.get(), p.1.get(), n, p.2.get(), q.0.get(), q.1.get(), table_size, width, encoder)
    });
    outs.into_iter()
        .enumerate()
        .map(|(i, o)| {
            assert_eq!(statuses[i], status::SUCCESS, "chunk {i}");
            let (len, bound) = (out_bytes[i] as usize, cpu::max_compressed_size(chunks[i].len()));
            assert!(len <= bound && o[bound..].iter().all(|&x| x == 0xA5), "chunk {i}: wrote past nvCOMP's bound");
            o[..len].to_vec()
        })
        .collect()
}

/// `lz4_decompress` on `blocks` with output capacities `caps`: (status, bytes written) per block.
fn gpu_decompress(blocks: &[Vec<u8>], caps: &[usize]) -> Vec<(i32, Vec<u8>)> {
    let in_ptrs: Vec<*const u8> = blocks.iter().map(|b| b.as_ptr()).collect();
    let in_bytes: Vec<u64> = blocks.iter().map(|b| b.len() as u64).collect();
    let mut outs: Vec<Vec<u8>> = caps.iter().map(|&c| vec![0xA5; c + 32]).collect();
    let out_ptrs: Vec<*mut u8> = outs.iter_mut().map(|o| o.as_mut_ptr()).collect();
    let out_cap: Vec<u64> = caps.iter().map(|&c| c as u64).collect();
    let n = blocks.len() as u64;
    let (mut actual, mut statuses) = (vec![u64::MAX; blocks.len()], vec![-1i32; blocks.len()]);
    let a = (
        SendPtr(in_ptrs.as_ptr() as *mut *const u8),
        SendPtr(in_bytes.as_ptr() as *mut u64),
        SendPtr(out_ptrs.as_ptr() as *mut *mut u8),
    );
    let b = (SendPtr(out_cap.as_ptr() as *mut u64), SendPtr(actual.as_mut_ptr()), SendPtr(statuses.as_mut_ptr()));
    launch::<DecompressShared, _>(k::decompress_grid_dim(n), k::DECOMPRESS_BLOCK, |t, smem| unsafe {
        decompress(t, smem, a.0.get(), a.1.get(), n, a.2.get(), b.0.get(), b.1.get(), b.2.get())
    });
    outs.into_iter()
        .zip(caps)
        .enumerate()
        .map(|(i, (o, &c))| {
            assert!(o[c..].iter().all(|&x| x == 0xA5), "block {i}: wrote past the output capacity");
            (statuses[i], o[..actual[i] as usize].to_vec())
        })
        .collect()
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
