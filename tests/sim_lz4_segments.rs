//! gpucomp's LZ4 encoder on chunks longer than a segment, in the CPU simulator: `lz4_segments`,
//! `lz4_compress` (encoder 2) and `lz4_stitch` write the CPU reference's bytes
//! (`gpucomp::cpu::lz4::compress`, section "Segments") for sizes around segment multiples, every
//! element width and kinds of data, in batches mixing short and long chunks; every block decodes
//! with lz4_flex and with our decoder, and stays within nvCOMP's bound.
mod common;

use common::{lineitem_text, Rng};
use gpucomp::cpu::lz4::{self as cpu, EncoderParams, SEGMENT};
use gpucomp::{DataType, Lz4Encoder, Lz4Options};
use gpucomp_kernels::batch::CompressArgs;
use gpucomp_kernels::lz4::stitch::{self, Segments, SLOT_BYTES};
use gpucomp_kernels::lz4::{self as k, compress::compress};
use gpucomp_kernels::sim::launch;
use gpucomp_kernels::status;

/// The three launches on the batch `a` (chunks of at most `max_chunk` bytes of `width`-byte
/// elements), as the batched API queues them, with the segment arrays and blocks in host memory.
fn segmented(a: CompressArgs, max_chunk: usize, width: u32) {
    let per_chunk = stitch::segments_per_chunk(max_chunk as u64);
    let m = (a.num_chunks * per_chunk) as usize;
    let mut blocks = vec![0u64; m * SLOT_BYTES as usize / 8];
    let (mut seg_in, mut seg_len, mut seg_out) = (vec![0u64; m], vec![0u64; m], vec![0u64; m]);
    let (mut sizes, mut statuses) = (vec![u64::MAX; m], vec![-1i32; m]);
    let blocks_at = blocks.as_mut_ptr() as u64;
    // Addresses as integers: the simulated threads share them.
    let (ip, ib) = (a.in_ptrs as u64, a.in_bytes as u64);
    let (sp, sl, so) = (seg_in.as_mut_ptr() as u64, seg_len.as_mut_ptr() as u64, seg_out.as_mut_ptr() as u64);
    launch::<(), _>(stitch::split_grid_dim(m as u64), stitch::SPLIT_BLOCK, |t, _| unsafe {
        let p = |a: u64| a as *mut u64;
        stitch::split(t, p(ip), p(ib), a.num_chunks, per_chunk, blocks_at, p(sp), p(sl), p(so))
    });
    let seg_args = CompressArgs {
        in_ptrs: seg_in.as_ptr().cast(),
        in_bytes: seg_len.as_ptr(),
        num_chunks: m as u64,
        out_ptrs: seg_out.as_ptr().cast(),
        out_bytes: sizes.as_mut_ptr(),
        statuses: statuses.as_mut_ptr(),
    };
    let table_size = Lz4Encoder::Gpucomp.table_size(max_chunk.min(SEGMENT)) as u32;
    let stage = k::compress_stage_bytes(max_chunk.min(SEGMENT) as u64);
    // Two warps per simulated block, as in sim_lz4.rs.
    let smem = 2 * k::compress_warp_bytes(table_size, stage);
    let grid = k::compress_grid_dim(m as u64, table_size, stage, smem);
    launch::<[u8; 1 << 18], _>(grid, k::compress_block_dim(table_size, stage, smem), |t, s| unsafe {
        compress(t, s.cast(), seg_args, table_size, width, 2, stage)
    });
    let seg =
        Segments { per_chunk, blocks: blocks_at as *const u8, sizes: sizes.as_ptr(), statuses: statuses.as_ptr() };
    launch::<(), _>(stitch::stitch_grid_dim(a.num_chunks), stitch::STITCH_BLOCK, |t, _| unsafe {
        stitch::stitch(t, a, seg)
    });
}

/// The batch through the segment path, input `i` placed `shift(i)` bytes past a 16-byte
/// boundary: (status, block) per chunk, checked: nothing written past nvCOMP's bound, and the
/// size within it.
fn gpu_compress_at(chunks: &[&[u8]], width: u32, shift: impl Fn(usize) -> usize) -> Vec<(i32, Vec<u8>)> {
    let bounds: Vec<usize> = chunks.iter().map(|c| cpu::max_compressed_size(c.len())).collect();
    let max_chunk = chunks.iter().map(|c| c.len()).max().unwrap_or(0);
    let got = common::sim::compress(
        chunks,
        &common::sim::lens(chunks),
        &bounds,
        |i| (shift(i), i % 3),
        |a| segmented(a, max_chunk, width),
    );
    got.into_iter()
        .zip(&bounds)
        .enumerate()
        .map(|(i, ((st, len, block), &bound))| {
            assert!(len as usize <= bound, "chunk {i}: out_bytes {len} past nvCOMP's bound {bound}");
            (st, block)
        })
        .collect()
}

/// [`gpu_compress_at`] with every input on a 16-byte boundary.
fn gpu_compress(chunks: &[&[u8]], width: u32) -> Vec<(i32, Vec<u8>)> {
    gpu_compress_at(chunks, width, |_| 0)
}

/// Data of one kind: lineitem text, random bytes, short runs, zeros, or all four in turn.
fn data(kind: &str, n: usize, rng: &mut Rng) -> Vec<u8> {
    match kind {
        "text" => lineitem_text(n + 200)[100..100 + n].to_vec(),
        "random" => rng.bytes(n),
        "runs" => (0..n).map(|i| (i / 7 % 5) as u8 * 40).collect(),
        "zeros" => vec![0; n],
        _ => {
            let parts = ["text", "random", "runs", "zeros"];
            let mut v = Vec::with_capacity(n);
            let mut i = 0;
            while v.len() < n {
                let len = (n - v.len()).min(5000 + rng.index(9000));
                v.extend(data(parts[i % 4], len, rng));
                i += 1;
            }
            v
        }
    }
}

/// Checks every block of `chunks` (element width `w`): success, the CPU reference's bytes, and
/// decoding to the chunk with lz4_flex and with our decoder.
fn check(chunks: &[Vec<u8>], w: usize, what: &str) {
    check_at(chunks, w, what, |_| 0)
}

/// [`check`] with input `i` placed `shift(i)` bytes past a 16-byte boundary.
fn check_at(chunks: &[Vec<u8>], w: usize, what: &str, shift: impl Fn(usize) -> usize) {
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let max_chunk = refs.iter().map(|c| c.len()).max().unwrap_or(0);
    let data_type = [DataType::Char, DataType::Short, DataType::Int][w.trailing_zeros() as usize];
    let params = EncoderParams::new(&Lz4Options::default().with_data_type(data_type), max_chunk).unwrap();
    for (i, ((st, block), c)) in gpu_compress_at(&refs, w as u32, shift).into_iter().zip(&refs).enumerate() {
        let what = format!("{what}, w={w}, chunk {i} of {} bytes", c.len());
        assert_eq!(st, status::SUCCESS, "{what}: status");
        let want = cpu::compress_to_vec(c, &params).expect("CPU reference");
        assert!(block == want, "{what}: kernel {} bytes, reference {}", block.len(), want.len());
        assert!(lz4_flex::block::decompress(&block, c.len()).ok().as_deref() == Some(*c), "{what}: lz4_flex");
        let mut out = vec![0u8; c.len()];
        assert_eq!(cpu::decompress(&block, &mut out), Ok(c.len()), "{what}: our decoder");
        assert!(out == *c, "{what}: our decoder's bytes");
    }
}

const SIZES: [usize; 5] = [16383, 16384, 16385, 32768 + 5, 65536];
const KINDS: [&str; 5] = ["text", "random", "runs", "zeros", "mixed"];

/// Every kind at sizes around segment multiples, each width, in one batch per width with short
/// chunks among the long ones.
#[test]
fn segment_multiples_every_kind_and_width() {
    let mut rng = Rng::fresh("lz4 segments");
    for w in [1, 2, 4] {
        let mut chunks = vec![Vec::new(), vec![7], data("text", 100, &mut rng), data("mixed", 5000, &mut rng)];
        for n in SIZES {
            for kind in KINDS {
                chunks.push(data(kind, n, &mut rng));
            }
        }
        check(&chunks, w, "segment multiples");
    }
}

/// Segments around the staging buffers' edges (each warp stages its segment in shared memory):
/// last segments of 1, 15, 16 and 17 bytes, whole and short segments, chunks at every offset
/// from a 16-byte boundary (so segments too), text and random data, every width, beside empty
/// segments (of the short chunks).
#[test]
fn staged_segments_at_every_offset() {
    let mut rng = Rng::fresh("lz4 segments staging");
    let s = SEGMENT;
    for w in [1, 2, 4] {
        let mut chunks = Vec::new();
        for n in [1, 15, 16, 17, s - 1, s, s + 1, s + 15, s + 16, s + 17, 2 * s - 1] {
            chunks.push(data("text", n, &mut rng));
            chunks.push(data("random", n, &mut rng));
        }
        check_at(&chunks, w, "staged segments", |i| i % 16);
    }
}

/// Long chunks: 256 KiB of text, 1 MiB of mixed data (every kind), a short chunk; random words.
/// (The simulator runs a warp's 32 threads on OS threads: these take minutes, so few of them.)
#[test]
fn long_chunks() {
    let mut rng = Rng::fresh("lz4 segments long");
    let chunks = vec![data("text", 262144, &mut rng), data("mixed", 1 << 20, &mut rng), data("text", 3000, &mut rng)];
    check(&chunks, 1, "long chunks");
    check(&[data("random", 262144 + 6, &mut rng), data("zeros", 4 << 10, &mut rng)], 4, "long random");
}

/// Incompressible data fills the bound exactly as a literal-only block does, and a chunk whose
/// segments all lack matches becomes one literal run.
#[test]
fn incompressible_chunks_stay_within_the_bound() {
    let mut rng = Rng::fresh("lz4 segments random");
    for n in [SEGMENT + 1, 2 * SEGMENT, 3 * SEGMENT + 17, 5 * SEGMENT] {
        let chunk = rng.bytes(n);
        let (st, block) = gpu_compress(&[&chunk], 1).remove(0);
        assert_eq!(st, status::SUCCESS);
        // Token, continuation bytes, literals: one sequence.
        assert_eq!(block.len(), 1 + 1 + (n - 15) / 255 + n, "{n} random bytes");
        assert_eq!(block[0], 0xFC);
        assert!(block.len() <= cpu::max_compressed_size(n));
    }
}

/// A chunk longer than the batch's `max_chunk` allows (past its segments) fails with
/// CHUNK_SIZE_TOO_LARGE (size 0); its neighbours are unaffected.
#[test]
fn chunk_past_its_segments_is_refused() {
    let mut rng = Rng::fresh("lz4 segments hostile");
    let chunks = [data("text", 20000, &mut rng), data("text", 2 * SEGMENT + 1, &mut rng)];
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let bounds: Vec<usize> = refs.iter().map(|c| cpu::max_compressed_size(c.len())).collect();
    // The batch claims chunks of at most 2 segments; the second chunk has 3.
    let got =
        common::sim::compress(&refs, &common::sim::lens(&refs), &bounds, |_| (0, 0), |a| segmented(a, 2 * SEGMENT, 1));
    assert_eq!(got[0].0, status::SUCCESS);
    assert_eq!((got[1].0, got[1].1), (status::CHUNK_SIZE_TOO_LARGE, 0));
}
