//! The ANS compression kernel, run in the CPU simulator (`gpucomp_kernels::sim`), against the
//! CPU encoder (`gpucomp::cpu::ans::compress_to_vec_in_batch`): every mode, states per lane,
//! `max_sub_chunk_count` and `histogram_reduction_log2`, on fresh random, skewed, text-like and
//! float inputs of many lengths (empty, odd, not whole elements), chunks of different sizes in
//! one batch, misaligned buffers; the statuses of refused chunks; nothing written past the
//! output bound; every chunk decodes back with the CPU decoder. Every batch is compressed at 1, 2,
//! 3 and 8 thread blocks per chunk (`split`), with the same results.
mod common;

use common::{ans_float8_input, ans_float8_options, f16_bits, lineitem_text, Rng, ANS_FLOAT8_LENGTHS};
use gpucomp::algorithm::ans::AnsOptions;
use gpucomp::cpu::ans as cpu;
use gpucomp::error::Status;
use gpucomp::DataType;
use gpucomp_kernels::ans::compress::{self as k, FloatShared, GeneralShared, Kernel};
use gpucomp_kernels::sim::{launch, SendPtr};
use gpucomp_kernels::status;

/// The kernel's option arguments for `o` (raw values, as the host passes them).
fn args(o: &AnsOptions) -> [u32; 4] {
    [o.data_type as u32, o.max_sub_chunk_count as u32, o.states_per_lane as u32, o.histogram_reduction_log2 as u32]
}

/// Options `o` (the kernel's arguments) as `AnsOptions`.
fn ans_options(o: [u32; 4]) -> AnsOptions {
    AnsOptions::default()
        .with_data_type(DataType::from_raw(o[0]).unwrap_or(DataType::Char))
        .with_max_sub_chunk_count(o[1] as u8)
        .with_states_per_lane(o[2] as u8)
        .with_histogram_reduction_log2(o[3] as u8)
}

/// The kernel the host launches for options `o` and the batch's largest chunk.
fn host_kernel(o: [u32; 4], max_chunk_bytes: usize) -> Kernel {
    Kernel::for_batch(o[0], ans_options(o).sub_chunk_size(max_chunk_bytes))
}

/// The kernel the host launches ([`host_kernel`]) on `inputs`.
fn gpu_compress(
    inputs: &[&[u8]],
    lens: &[u64],
    o: [u32; 4],
    max_chunk_bytes: usize,
    shift: (usize, usize),
) -> Vec<(i32, u64, Vec<u8>)> {
    gpu_compress_with(host_kernel(o, max_chunk_bytes), inputs, lens, o, max_chunk_bytes, shift)
}

/// Thread blocks per chunk every batch is compressed at ([`gpu_compress_with`]); 1 and 3 only
/// when no chunk has more than 4 sub-chunks (each then runs on one block at every split).
const SPLITS: [u32; 4] = [1, 2, 3, 8];

/// Sub-chunks of a chunk of `len` bytes with options `o` in a batch of chunks of up to
/// `max_chunk_bytes`.
fn sub_chunks(o: [u32; 4], len: u64, max_chunk_bytes: usize) -> u64 {
    len.div_ceil(ans_options(o).sub_chunk_size(max_chunk_bytes.max(len as usize)) as u64)
}

/// `kernel` on `inputs` (`lens[i]` is the chunk length the kernel is told; inputs and outputs
/// `shift` bytes past 16-byte boundaries; outputs of the chunk's own
/// `max_compressed_chunk_size`) at every split of [`SPLITS`]: (status, out_bytes, chunk) each,
/// after checking that nothing was written past that bound and that every split gives the
/// same.
fn gpu_compress_with(
    kernel: Kernel,
    inputs: &[&[u8]],
    lens: &[u64],
    o: [u32; 4],
    max_chunk_bytes: usize,
    shift: (usize, usize),
) -> Vec<(i32, u64, Vec<u8>)> {
    let one = gpu_compress_split(kernel, inputs, lens, o, max_chunk_bytes, shift, 1);
    let shared = lens.iter().any(|&n| sub_chunks(o, n, max_chunk_bytes) > 4);
    for split in SPLITS[1..].iter().filter(|&&s| shared || s == 3) {
        let got = gpu_compress_split(kernel, inputs, lens, o, max_chunk_bytes, shift, *split);
        for (i, (a, b)) in one.iter().zip(&got).enumerate() {
            assert!(a == b, "split {split}, chunk {i} ({} bytes): {:?} against {:?} at split 1", lens[i], b.0, a.0);
        }
    }
    one
}

/// [`gpu_compress_with`] at `split` blocks per chunk alone.
fn gpu_compress_split(
    kernel: Kernel,
    inputs: &[&[u8]],
    lens: &[u64],
    o: [u32; 4],
    max_chunk_bytes: usize,
    shift: (usize, usize),
    split: u32,
) -> Vec<(i32, u64, Vec<u8>)> {
    let opts = ans_options(o);
    let caps: Vec<usize> = inputs.iter().map(|i| opts.max_compressed_chunk_size(i.len())).collect();
    let mut parts = vec![0u32; inputs.len()];
    let got = common::sim::compress(
        inputs,
        lens,
        &caps,
        |_| shift,
        |args| {
            // A grid smaller than the batch, so that groups of blocks loop over chunks.
            let grid = k::compress_split_grid_dim(args.num_chunks, split).min(2 * split);
            let parts = SendPtr(parts.as_mut_ptr());
            macro_rules! run {
                ($shared:ty, $f8:literal) => {
                    launch::<$shared, _>(grid, k::COMPRESS_BLOCK_THREADS, |t, smem| unsafe {
                        let (m, p) = (max_chunk_bytes as u32, parts.get());
                        k::compress::<_, _, $f8>(t, smem, kernel, args, o[0], o[1], o[2], o[3], m, p, split)
                    })
                };
            }
            match kernel {
                Kernel::General => run!(GeneralShared, false),
                Kernel::Float => run!(FloatShared, false),
                Kernel::Float8 => run!(GeneralShared, true),
            }
        },
    );
    // Each chunk coded by several blocks (one per group of 4 sub-chunks, at most `split`) has
    // all of them counted in its word, none with an overflow; the others' words stay 0.
    for (i, (&p, r)) in parts.iter().zip(&got).enumerate() {
        let groups = sub_chunks(o, lens[i], max_chunk_bytes).div_ceil(4) as u32;
        let want = if r.0 == status::SUCCESS && split > 1 && groups > 1 { groups.min(split) } else { 0 };
        assert_eq!(p, want, "split {split}, chunk {i}: the chunk's word");
    }
    got
}

/// Compresses `inputs` as one batch on the simulated GPU with the kernel the host launches and
/// checks every chunk against the CPU encoder (status, length, bytes) and decoder; returns the
/// compressed bytes in all.
fn check_at(what: &str, inputs: &[&[u8]], opts: &AnsOptions, max_chunk_bytes: usize, shift: (usize, usize)) -> usize {
    let kernel = host_kernel(args(opts), max_chunk_bytes);
    check_kernel(kernel, what, inputs, opts, max_chunk_bytes, shift)
}

/// [`check_at`] with `kernel`.
fn check_kernel(
    kernel: Kernel,
    what: &str,
    inputs: &[&[u8]],
    opts: &AnsOptions,
    max_chunk_bytes: usize,
    shift: (usize, usize),
) -> usize {
    let lens: Vec<u64> = inputs.iter().map(|i| i.len() as u64).collect();
    let got = gpu_compress_with(kernel, inputs, &lens, args(opts), max_chunk_bytes, shift);
    let mut total = 0;
    for (i, (input, (st, len, chunk))) in inputs.iter().zip(&got).enumerate() {
        let ctx = format!("{what}: {opts:?} chunk {i} ({} bytes, batch max {max_chunk_bytes})", input.len());
        match cpu::compress_to_vec_in_batch(input, opts, max_chunk_bytes) {
            Ok(want) => {
                assert_eq!(*st, status::SUCCESS, "{ctx}: status");
                assert_eq!(*len as usize, want.len(), "{ctx}: length");
                if *chunk != want {
                    let at = chunk.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(0);
                    panic!("{ctx}: first difference at byte {at}");
                }
                assert_eq!(cpu::decompress_to_vec(chunk).expect("decodes"), *input, "{ctx}: round trip");
                total += want.len();
            }
            Err(e) => {
                assert_eq!(*st, e as i32, "{ctx}: status");
                assert_eq!(*len, 0, "{ctx}: out_bytes of a refused chunk");
            }
        }
    }
    total
}

fn check(what: &str, inputs: &[&[u8]], opts: &AnsOptions) -> usize {
    let max = inputs.iter().map(|i| i.len()).max().unwrap_or(0);
    check_at(what, inputs, opts, max, (0, 0))
}

/// Inputs of `n` bytes for a data type: fresh random, skewed, text, two symbols, and constant
/// (bytes), normal weights (FLOAT16, FLOAT8 E4M3) or a random walk (FLOAT32); lengths rounded
/// down to whole elements.
fn inputs(rng: &mut Rng, ty: DataType, n: usize) -> Vec<(&'static str, Vec<u8>)> {
    let width = match ty {
        DataType::Float16 => 2,
        DataType::Float32 => 4,
        _ => 1,
    };
    let n = n / width * width;
    let text = lineitem_text(n + 200);
    let mut v = vec![
        ("random", rng.bytes(n)),
        ("skewed", (0..n).map(|_| (rng.below(64).pow(2) / 64) as u8 + b'a').collect()),
        ("text", text[..n].to_vec()),
        ("two symbols", (0..n).map(|i| if rng.below(9) == 0 || i % 13 == 0 { 1 } else { 200 }).collect()),
    ];
    match ty {
        DataType::Float16 => {
            v.push(("weights", (0..n / 2).flat_map(|_| f16_bits((rng.normal() * 0.02) as f32).to_le_bytes()).collect()))
        }
        DataType::Float8E4M3 => v.push(("weights", rng.e4m3_normals(n, 0.5))),
        DataType::Float32 => {
            let mut x = 100.0f32;
            let walk = (0..n / 4).flat_map(|_| {
                x += rng.normal() as f32;
                x.to_le_bytes()
            });
            v.push(("walk", walk.collect()))
        }
        _ => v.push(("constant", vec![b'x'; n])),
    }
    v
}

const TYPES: [DataType; 4] = [DataType::Uchar, DataType::Float16, DataType::Float8E4M3, DataType::Float32];

/// The option sets tested per data type.
fn option_sets(ty: DataType) -> Vec<AnsOptions> {
    let base = AnsOptions::for_type(ty);
    vec![
        base,
        base.with_states_per_lane(1),
        base.with_max_sub_chunk_count(64),
        base.with_max_sub_chunk_count(4).with_states_per_lane(1),
        base.with_max_sub_chunk_count(16).with_states_per_lane(2),
        base.with_histogram_reduction_log2(1),
        base.with_histogram_reduction_log2(2).with_max_sub_chunk_count(32),
        base.with_histogram_reduction_log2(8).with_states_per_lane(1).with_max_sub_chunk_count(64),
    ]
}

#[test]
fn every_mode_and_option_matches_the_reference() {
    let mut rng = Rng::fresh("ans compress kernel: options");
    let mut total = 0;
    for ty in TYPES {
        for (k, opts) in option_sets(ty).iter().enumerate() {
            // Chunks of different sizes in one batch (the largest sets the sub-chunk size),
            // above and below the 4096-symbol sampling threshold.
            let sizes = [20_000 + 2 * k, 16_390, 9_001, 4_099 * 4, 700 + k];
            let data: Vec<(&str, Vec<u8>)> = sizes
                .iter()
                .zip(inputs(&mut rng, ty, 20_000))
                .map(|(&n, (what, v))| (what, v[..n.min(v.len())].to_vec()))
                .collect();
            let chunks: Vec<&[u8]> = data.iter().map(|(_, v)| v.as_slice()).collect();
            let what: Vec<&str> = data.iter().map(|(w, _)| *w).collect();
            total += check(&format!("{ty:?} {what:?}"), &chunks, opts);
        }
    }
    assert!(total > 0);
}

#[test]
fn chunk_lengths_and_statuses_match_the_reference() {
    let mut rng = Rng::fresh("ans compress kernel: lengths");
    let text = lineitem_text(5000);
    let lens = [0usize, 1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65, 511, 512, 513, 1023, 1024, 1025, 2049, 4095, 4096, 4097];
    for ty in common::ANS_TYPES {
        for spl in [1, 2] {
            let opts = AnsOptions::for_type(ty).with_states_per_lane(spl).with_histogram_reduction_log2(3);
            // Odd lengths in FLOAT16 and FLOAT32 are refused (InvalidValue) like the CPU encoder;
            // FLOAT8 stores an odd last value raw (one value: no symbols, a zero table entry).
            let chunks: Vec<Vec<u8>> = lens
                .iter()
                .enumerate()
                .map(|(i, &n)| if i % 2 == 0 { text[..n].to_vec() } else { rng.bytes(n) })
                .collect();
            let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
            check(&format!("{ty:?} lengths"), &refs, &opts);
        }
    }
}

#[test]
fn a_larger_batch_maximum_sets_the_sub_chunk_size() {
    let mut rng = Rng::fresh("ans compress kernel: batch maximum");
    for ty in TYPES {
        let data = inputs(&mut rng, ty, 6000);
        let chunks: Vec<&[u8]> = data.iter().map(|(_, v)| v.as_slice()).collect();
        for (max, msc) in [(1 << 20, 0), (40_000, 4), (6001, 64)] {
            let opts = AnsOptions::for_type(ty).with_max_sub_chunk_count(msc);
            check_at("batch maximum", &chunks, &opts, max, (0, 0));
        }
    }
}

#[test]
fn misaligned_inputs_and_outputs() {
    let mut rng = Rng::fresh("ans compress kernel: alignment");
    for ty in TYPES {
        let data = inputs(&mut rng, ty, 5000);
        let chunks: Vec<&[u8]> = data.iter().map(|(_, v)| v.as_slice()).collect();
        for shift in [(1, 3), (2, 2), (4, 8), (8, 1), (0, 5)] {
            let opts = AnsOptions::for_type(ty).with_states_per_lane(1 + (shift.1 % 2) as u8);
            check_at("misaligned", &chunks, &opts, 5000, shift);
        }
    }
}

#[test]
fn text_chunks_of_64_kib() {
    let text = lineitem_text(3 << 16);
    let chunks: Vec<&[u8]> = text.chunks(1 << 16).take(3).collect();
    let total = check("lineitem text", &chunks, &AnsOptions::default());
    assert!(total < 3 << 16, "text compresses");
}

#[test]
fn refused_options_and_sizes() {
    let input = lineitem_text(3000);
    let bad = [
        (AnsOptions::for_type(DataType::Int), Status::NotSupported),
        (AnsOptions::default().with_max_sub_chunk_count(3), Status::InvalidValue),
        (AnsOptions::default().with_max_sub_chunk_count(128), Status::InvalidValue),
        (AnsOptions::default().with_states_per_lane(3), Status::InvalidValue),
        (AnsOptions::default().with_histogram_reduction_log2(9), Status::InvalidValue),
    ];
    for (opts, want) in bad {
        assert_eq!(cpu::compress_to_vec(&input, &opts), Err(want));
        check("refused options", &[&input[..], &input[..100]], &opts);
    }
    // Each kernel refuses the others' data types (valid options): NotSupported.
    for (ty, kernel) in [
        (DataType::Float8E4M3, Kernel::General),
        (DataType::Uchar, Kernel::Float8),
        (DataType::Float16, Kernel::Float8),
        (DataType::Float32, Kernel::Float8),
        (DataType::Char, Kernel::Float),
        (DataType::Uchar, Kernel::Float),
        (DataType::Float8E4M3, Kernel::Float),
        (DataType::Int, Kernel::Float),
    ] {
        let o = args(&AnsOptions::for_type(ty));
        for (st, len, _) in gpu_compress_with(kernel, &[&input[..], &input[..8], &[]], &[3000, 8, 0], o, 3000, (0, 0)) {
            assert_eq!((st, len), (status::NOT_SUPPORTED, 0), "{ty:?} in another kernel");
        }
    }
    // A chunk over 16 MiB (the kernel refuses it before reading).
    let lens = [(1u64 << 24) + 1, 100];
    let got = gpu_compress(&[&input[..100], &input[..100]], &lens, args(&AnsOptions::default()), 1 << 24, (0, 0));
    assert_eq!(got[0].0, status::CHUNK_SIZE_TOO_LARGE);
    assert_eq!(got[0].1, 0);
    assert_eq!(got[1].0, status::SUCCESS);
}

#[test]
fn sampled_histograms_that_miss_most_symbols() {
    // The sampled heads hold one symbol only, so every other symbol gets frequency 1 (the fast
    // entries' `q = x − 1` form) and costs pb bits.
    let mut rng = Rng::fresh("ans compress kernel: sampled misses");
    for (ty, spl) in [(DataType::Uchar, 2), (DataType::Uchar, 1), (DataType::Float16, 2), (DataType::Float8E4M3, 1)] {
        let opts = AnsOptions::for_type(ty).with_histogram_reduction_log2(8).with_states_per_lane(spl);
        let n = 1 << 16;
        let mut data = rng.bytes(n);
        let slice = n / 8;
        for s in 0..8 {
            data[s * slice..s * slice + 512].fill(0x42);
        }
        check(&format!("{ty:?} spl {spl} sampled misses"), &[&data[..], &data[..n / 2]], &opts);
    }
}

#[test]
fn staged_and_spilled_sub_chunks_in_one_chunk() {
    // Text sub-chunks stay in their warp's staging buffer, random ones outgrow it (spill) and
    // random ones among a constant majority code at pb bits per symbol (their slot's bound):
    // in every order, so that staged sub-chunks come before and after spilled ones.
    let mut rng = Rng::fresh("ans compress kernel: staged and spilled");
    let piece = 8192;
    let text = lineitem_text(8 * piece);
    let random = rng.bytes(8 * piece);
    let rare: Vec<u8> = (0..piece).map(|_| 1 + rng.below(255) as u8).collect();
    let kinds: [&[u8]; 4] = [&text, &random, &rare, &[0u8; 8192]];
    let patterns: [[usize; 8]; 6] = [
        [0, 0, 0, 0, 1, 1, 1, 1],
        [1, 1, 1, 1, 0, 0, 0, 0],
        [0, 1, 0, 1, 0, 1, 0, 1],
        [1, 0, 0, 0, 0, 0, 0, 0],
        [3, 3, 3, 3, 3, 3, 3, 2],
        [2, 3, 3, 3, 3, 3, 0, 3],
    ];
    let chunks: Vec<Vec<u8>> = patterns
        .iter()
        .map(|p| {
            p.iter()
                .enumerate()
                .flat_map(|(i, &k)| kinds[k][(i * piece) % kinds[k].len()..][..piece].to_vec())
                .collect()
        })
        .collect();
    let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
    for (spl, msc) in [(2, 0), (1, 0), (2, 16), (1, 4)] {
        let opts = AnsOptions::default().with_states_per_lane(spl).with_max_sub_chunk_count(msc);
        check(&format!("staged and spilled, spl {spl} msc {msc}"), &refs, &opts);
    }
}

#[test]
fn the_host_launches_the_float_kernel_for_sub_chunks_it_holds() {
    let float16 = args(&AnsOptions::for_type(DataType::Float16));
    let float32 = args(&AnsOptions::for_type(DataType::Float32));
    let msc4 = args(&AnsOptions::for_type(DataType::Float16).with_max_sub_chunk_count(4));
    assert!(host_kernel(float16, 1 << 16) == Kernel::Float, "FLOAT16, 64 KiB chunks");
    assert!(host_kernel(float16, 1 << 17) == Kernel::General, "FLOAT16, 128 KiB chunks");
    assert!(host_kernel(float32, 1 << 17) == Kernel::Float, "FLOAT32, 128 KiB chunks");
    assert!(host_kernel(float32, 1 << 18) == Kernel::General, "FLOAT32, 256 KiB chunks");
    assert!(host_kernel(msc4, 1 << 16) == Kernel::General, "FLOAT16, 64 KiB chunks in 4 sub-chunks");
    assert!(host_kernel(args(&AnsOptions::default()), 1 << 16) == Kernel::General, "bytes");
    let float8 = args(&AnsOptions::for_type(DataType::Float8E4M3));
    assert!(host_kernel(float8, 1 << 16) == Kernel::Float8, "FLOAT8");
}

#[test]
fn both_float_kernels_stage_and_spill_sub_chunks() {
    // FLOAT16 and FLOAT32 sub-chunks in both kernels that code them: normal values and a random
    // walk (staged), random bits (8 bits a symbol: staged in 4096-symbol sub-chunks, spilled in
    // the float kernel's buffers beyond), random symbols among a constant majority (pb bits a
    // symbol, the slot's bound) and constant ones; in every order, with sub-chunks of the
    // float kernel's size and larger (4 sub-chunks: 2 and 4 times its symbols).
    let mut rng = Rng::fresh("ans compress kernel: float staging");
    for ty in [DataType::Float16, DataType::Float32] {
        let width = if ty == DataType::Float16 { 2 } else { 4 };
        let n = 1 << 16;
        let values = inputs(&mut rng, ty, n).pop().unwrap().1;
        let random = rng.bytes(n);
        // Symbol s in an element: bits 7.. of a half, 23.. of a float.
        let shift = if width == 2 { 7 } else { 23 };
        let element = |s: u32| (s << shift).to_le_bytes()[..width].to_vec();
        let rare: Vec<u8> = (0..n / width).flat_map(|_| element(1 + rng.below(255) as u32)).collect();
        let constant: Vec<u8> = (0..n / width).flat_map(|_| element(0x3C)).collect();
        let kinds: [&[u8]; 4] = [&values, &random, &rare, &constant];
        let patterns: [[usize; 8]; 4] =
            [[0, 0, 0, 0, 1, 1, 1, 1], [1, 0, 1, 0, 1, 0, 1, 0], [3, 3, 3, 3, 3, 3, 3, 2], [2, 3, 1, 3, 3, 0, 3, 3]];
        let piece = n / 8;
        let chunks: Vec<Vec<u8>> = patterns
            .iter()
            .map(|p| p.iter().enumerate().flat_map(|(i, &k)| kinds[k][i * piece..][..piece].to_vec()).collect())
            .collect();
        let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
        for (spl, msc) in [(2, 0), (1, 0), (2, 4), (1, 4)] {
            let opts = AnsOptions::for_type(ty).with_states_per_lane(spl).with_max_sub_chunk_count(msc);
            for kernel in [Kernel::Float, Kernel::General] {
                for max in [n, 2 * n] {
                    let what = format!("{ty:?} staging, spl {spl} msc {msc}, batch max {max}");
                    check_kernel(kernel, &what, &refs, &opts, max, (0, 0));
                }
            }
        }
    }
}

#[test]
fn float8_chunks_match_the_reference() {
    // FLOAT8 E4M3: odd lengths (1, 2 and 3 values included: one value codes no symbol), seeded
    // (tail-less) and tailed sub-chunks, a one-byte last sub-chunk (stored empty), one and two
    // states per lane, 4 and 64 sub-chunks, sampled histograms, larger batch maxima, misaligned.
    let mut rng = Rng::fresh("ans compress kernel: float8");
    let text = lineitem_text(65_536 + 200);
    for (vi, o) in ans_float8_options().iter().enumerate() {
        let chunks: Vec<Vec<u8>> = ANS_FLOAT8_LENGTHS
            .iter()
            .enumerate()
            .map(|(li, &n)| ans_float8_input(&mut rng, &text, n, li + vi))
            .collect();
        let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
        for &(n, shift) in &[(65_536, (0, 0)), (3 * 65_536, (0, 0)), (65_536, (3, 5))] {
            check_at(&format!("float8 {o:?}"), &refs, o, n, shift);
        }
        // Each chunk alone: its own sub-chunk size (seeded sub-chunks at every length that has them).
        for c in &refs {
            check("float8 alone", &[c], o);
        }
    }
}

#[test]
fn chunks_of_many_sub_chunks_over_several_blocks() {
    // 256 KiB chunks in 8 sub-chunks (2 groups of 4: blocks past the second idle) and in 64
    // (16 groups: 8 blocks code two rounds each, 3 blocks five or six), beside smaller chunks
    // of the same batch (fewer groups); text, staged, random (spilled) and rare symbols at pb
    // bits (their slots' bound) in one chunk, so that blocks' sub-chunks of every kind meet in
    // the placement; sampled histograms; every mode, one and two states per lane.
    let mut rng = Rng::fresh("ans compress kernel: split chunks");
    let n = 1 << 18;
    for ty in TYPES {
        let mut data = inputs(&mut rng, ty, n);
        let values = data.pop().unwrap().1;
        let text = data.remove(2).1;
        let mixed: Vec<u8> =
            (0..n).map(|i| if (i / 20_000) % 3 == 1 { rng.below(256) as u8 } else { text[i] }).collect();
        let chunks: [&[u8]; 5] = [&values, &mixed, &data[0].1, &text[..n / 2 + 6000], &values[..24_000]];
        for (spl, msc, hrl2) in [(2, 0, 0), (1, 64, 0), (2, 64, 3), (1, 16, 0)] {
            let opts = AnsOptions::for_type(ty)
                .with_states_per_lane(spl)
                .with_max_sub_chunk_count(msc)
                .with_histogram_reduction_log2(hrl2);
            check(&format!("{ty:?} 256 KiB chunks, spl {spl} msc {msc} hrl2 {hrl2}"), &chunks, &opts);
        }
    }
}
