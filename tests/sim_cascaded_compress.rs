//! The Cascaded compression kernel, run in the CPU simulator (`gpucomp_kernels::sim`), against
//! gpucomp's CPU reference encoder (`gpucomp::cpu::cascaded::compress`): every integer type,
//! levels 0, 1, 2, 3 and 7, every flag set with FOR, lengths from 0 to a multi-block 1 MiB
//! chunk (whole and partial elements), batches of chunks of different sizes, and data shaped
//! like fresh random bytes, runs, sorted keys, small ranges, walks, negative and extreme
//! values and TPC-H lineitem columns. Every chunk must equal the reference's byte for byte
//! (zero padding included) and decode back to its input with the reference decoder.
mod common;

use common::{lineitem_columns, Rng, INTEGER_TYPES};
use gpucomp::algorithm::cascaded::CascadedOptions;
use gpucomp::cpu::cascaded as cpu;
use gpucomp::DataType;
use gpucomp_kernels::batch::CompressArgs;
use gpucomp_kernels::cascaded::compress::{self as k, compress, Shared};
use gpucomp_kernels::sim::launch;
use gpucomp_kernels::status;

/// Fine-grained flag sets with FOR (FOR, FOR|DELTA, FOR|RLE, FOR|DELTA|RLE).
const FLAG_SETS: [u32; 4] = [4, 5, 6, 7];

/// The options the kernel's arguments stand for.
fn opts(data_type: DataType, level: u32, flags: u32) -> CascadedOptions {
    CascadedOptions::default()
        .with_data_type(data_type)
        .with_compression_level(level as u8)
        .with_delta(flags & 1 != 0)
        .with_rle(flags & 2 != 0)
        .with_frame_of_reference(flags & 4 != 0)
}

/// Runs `cascaded_compress` on `chunks` (one launch, fewer thread blocks than chunks so that
/// the grid loop runs): (status, the chunk bytes) per chunk. Output slots are exactly
/// `8 + roundup4(n)` bytes (checked: nothing written past them); with `misalign`, chunk `i`'s
/// input starts `i % 4` bytes and its output `i % 3` bytes past a 16-byte boundary.
fn gpu_compress(chunks: &[&[u8]], t: DataType, level: u32, flags: u32, misalign: bool) -> Vec<(i32, Vec<u8>)> {
    let si = |i: usize| if misalign { (i % 4, i % 3) } else { (0, 0) };
    let caps: Vec<usize> = chunks.iter().map(|c| cpu::max_compressed_size(c.len())).collect();
    let got = common::sim::compress(chunks, &common::sim::lens(chunks), &caps, si, |a| {
        launch_compress(a, t as u32, level, flags, k::grid_dim(a.num_chunks).min(2))
    });
    got.into_iter()
        .zip(&caps)
        .enumerate()
        .map(|(i, ((st, size, bytes), &c))| {
            assert!(size <= c as u64, "chunk {i}: out_bytes {size} > slot {c}");
            (st, bytes)
        })
        .collect()
}

/// The kernel body on `args` with `grid` blocks.
fn launch_compress(args: CompressArgs, data_type: u32, level: u32, flags: u32, grid: u32) {
    launch::<Shared, _>(grid, k::BLOCK_THREADS, |th, smem| unsafe {
        compress(th, smem, args, data_type, level, flags)
    });
}

/// Compresses `chunks` on the simulated GPU and asserts the reference's bytes and a round
/// trip; returns how many chunks were stored raw.
fn check(chunks: &[Vec<u8>], t: DataType, level: u32, flags: u32, misalign: bool, what: &str) -> usize {
    let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
    let mut raw = 0;
    for (i, ((st, got), input)) in gpu_compress(&refs, t, level, flags, misalign).into_iter().zip(chunks).enumerate() {
        let what = format!("{what}: {t:?} level {level} flags {flags}, chunk {i} of {} bytes", input.len());
        assert_eq!(st, status::SUCCESS, "{what}: status");
        let want = cpu::compress_to_vec(input, &opts(t, level, flags)).unwrap();
        if got != want {
            let at = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
            panic!("{what}: {} bytes, reference {} bytes; first difference at byte {at}", got.len(), want.len());
        }
        raw += cpu::ChunkHeader::parse(&got).unwrap().raw as usize;
        let mut back = vec![0u8; input.len()];
        assert_eq!(cpu::decompress(&got, &mut back), Ok(input.len()), "{what}: round trip");
        assert!(back == *input, "{what}: round trip bytes");
    }
    raw
}

/// `count` values of `width` bytes from `f(i)`, little-endian.
fn values(count: usize, width: usize, f: impl FnMut(usize) -> u64) -> Vec<u8> {
    (0..count).map(f).flat_map(|v| v.to_le_bytes()[..width].to_vec()).collect()
}

/// Data shapes of `count` elements of `width` bytes: random, runs, sorted keys (orderkey-like),
/// small ranges (quantity-, discount-like), a walk, negative values, the type's extremes, a
/// linenumber-like sawtooth, a constant.
fn shapes(count: usize, width: usize, rng: &mut Rng) -> Vec<(&'static str, Vec<u8>)> {
    let top = if width == 8 { u64::MAX } else { (1u64 << (8 * width)) - 1 };
    let smin = 1u64 << (8 * width - 1);
    let r: Vec<u64> = (0..count + 1).map(|_| rng.next()).collect();
    let (mut walk, mut key, mut run, mut rv) = (r[0] % 1000, r[0] % 100, 0usize, 0u64);
    vec![
        ("random", values(count, width, |i| r[i])),
        (
            "runs",
            values(count, width, |i| {
                if run == 0 {
                    run = 1 + (r[i] % 40) as usize;
                    rv = r[i] >> 20 & 0xff;
                }
                run -= 1;
                rv
            }),
        ),
        (
            "sorted-keys",
            values(count, width, |i| {
                key += r[i].is_multiple_of(8) as u64 * (1 + r[i] % 5);
                key
            }),
        ),
        ("quantity", values(count, width, |i| 1 + r[i] % 50)),
        ("discount", values(count, width, |i| r[i] % 11)),
        (
            "walk",
            values(count, width, |i| {
                walk = walk.wrapping_add(r[i] % 9).wrapping_sub(4);
                walk
            }),
        ),
        ("negative", values(count, width, |i| 0u64.wrapping_sub(1 + r[i] % 300))),
        ("extremes", values(count, width, |i| [0, top, smin, smin - 1][(r[i] % 4) as usize] & top)),
        ("extreme-runs", values(count, width, |i| if (i / 7) % 2 == 0 { smin } else { smin - 1 })),
        ("linenumber", values(count, width, |i| 1 + (i % (1 + r[i / 7 * 7] as usize % 7)) as u64)),
        ("constant", values(count, width, |_| r[count] & top)),
    ]
}

/// Every type, level and flag set on short chunks of every shape (lengths 0, 1, `width − 1`,
/// odd byte counts, one to 33 elements): all of them at level 3 with all flags, a fresh random
/// choice of 6 at every other level and flag set.
#[test]
fn every_type_level_and_flag_set() {
    let mut rng = Rng::fresh("every_type_level_and_flag_set");
    for t in INTEGER_TYPES {
        let w = t.size();
        let mut chunks: Vec<Vec<u8>> = vec![vec![], vec![7], rng.bytes(w.max(2) - 1), rng.bytes(3 * w + 1)];
        for count in [1usize, 2, 3, 5, 33] {
            chunks.extend(shapes(count, w, &mut rng).into_iter().map(|(_, c)| c));
        }
        check(&chunks, t, 3, 7, false, "short chunks");
        for level in [0, 1, 2, 3, 7] {
            for flags in FLAG_SETS {
                let some: Vec<Vec<u8>> = (0..6).map(|_| chunks[rng.index(chunks.len())].clone()).collect();
                check(&some, t, level, flags, false, "short chunks");
            }
        }
    }
}

/// Block-sized chunks (4095, 4096, 4097 bytes and whole-element lengths around one and two
/// blocks), every type: a random third of the shapes at level 3 with all flags, two of them
/// at levels 1 and 2 and the other flag sets.
#[test]
fn block_boundaries() {
    let mut rng = Rng::fresh("block_boundaries");
    for t in INTEGER_TYPES {
        let w = t.size();
        let mut chunks = vec![rng.bytes(4095), rng.bytes(4097)];
        for count in [4096 / w - 1, 4096 / w, 4096 / w + 1, 8192 / w + 3] {
            let s = shapes(count, w, &mut rng);
            chunks.extend(s.into_iter().skip(rng.index(3)).step_by(3).map(|(_, c)| c));
        }
        check(&chunks, t, 3, 7, (t as u32).is_multiple_of(3), "block boundaries");
        for (level, flags) in [(3, 6), (3, 5), (3, 4), (2, 7), (1, 7)] {
            let some: Vec<Vec<u8>> = (0..2).map(|_| chunks[2 + rng.index(chunks.len() - 2)].clone()).collect();
            check(&some, t, level, flags, (t as u32).is_multiple_of(2), "block boundaries");
        }
    }
}

/// 64 KiB chunks (16 blocks: four rounds of the thread block's 4 warps), one random shape per
/// element width.
#[test]
fn chunks_of_64k() {
    let mut rng = Rng::fresh("chunks_of_64k");
    for t in [DataType::LongLong, DataType::Uint, DataType::Short, DataType::Uchar] {
        let w = t.size();
        let mut s = shapes(65536 / w, w, &mut rng);
        let (name, chunk) = s.swap_remove(1 + rng.index(s.len() - 1));
        check(&[chunk], t, 3, 7, false, &format!("64 KiB {name}"));
    }
}

/// A 1 MiB chunk (256 blocks, 64 rounds) of a sorted-key column, next to smaller chunks of
/// other sizes in the same batch, with misaligned inputs and outputs.
#[test]
fn multi_block_batch() {
    let mut rng = Rng::fresh("multi_block_batch");
    let mut key = 1u64;
    let big = values(1 << 17, 8, |i| {
        key += rng.next().is_multiple_of(4) as u64 * (1 + i as u64 % 3);
        key
    });
    let mut chunks = vec![big, vec![], rng.bytes(12345)];
    chunks.extend(shapes(3000, 8, &mut rng).into_iter().step_by(2).map(|(_, c)| c));
    // Raw: the empty chunk, the partial element, the random shape.
    assert_eq!(check(&chunks, DataType::LongLong, 3, 7, true, "1 MiB batch"), 3);
}

/// Real columns: 6000 rows of TPC-H lineitem, 20 KiB chunks, default options.
#[test]
fn tpch_columns() {
    for (name, t, col) in lineitem_columns(0.01, 6000) {
        let chunks: Vec<Vec<u8>> = col.chunks(20 << 10).map(|c| c.to_vec()).collect();
        check(&chunks, t, 3, 7, false, name);
    }
}

/// Refused arguments: flags without FOR and unknown types give `NOT_SUPPORTED`, chunks above
/// 16 MiB `CHUNK_SIZE_TOO_LARGE`, with `out_bytes` 0.
#[test]
fn refused_arguments() {
    let input = [1u8; 64];
    /// One chunk of `len` bytes at `input`: (status, out_bytes).
    fn run(input: &[u8], len: u64, out: &mut [u8], data_type: u32, level: u32, flags: u32) -> (i32, u64) {
        let (in_ptrs, in_bytes, out_ptrs) = ([input.as_ptr()], [len], [out.as_mut_ptr()]);
        let (mut size, mut st) = ([u64::MAX], [-1i32]);
        let args = CompressArgs {
            in_ptrs: in_ptrs.as_ptr(),
            in_bytes: in_bytes.as_ptr(),
            num_chunks: 1,
            out_ptrs: out_ptrs.as_ptr(),
            out_bytes: size.as_mut_ptr(),
            statuses: st.as_mut_ptr(),
        };
        launch_compress(args, data_type, level, flags, 1);
        (st[0], size[0])
    }
    for (t, flags, want) in
        [(4u32, 3u32, status::NOT_SUPPORTED), (8, 7, status::NOT_SUPPORTED), (9, 7, status::NOT_SUPPORTED)]
    {
        assert_eq!(run(&input, 64, &mut [0u8; 80], t, 3, flags), (want, 0), "type {t} flags {flags}");
    }
    // Too large: the kernel looks at the length only (the pointer is never read).
    assert_eq!(run(&input, (16u64 << 20) + 4, &mut [0u8; 8], 5, 3, 7), (status::CHUNK_SIZE_TOO_LARGE, 0));
}
