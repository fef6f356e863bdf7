//! Hostile input on the GPU (issue 22): an in-process mutation campaign through the batched
//! decoders, compared chunk by chunk with the CPU decoder, and one launch of every kernel of the
//! PTX for compute-sanitizer (`scripts/gpu/hostile.sh` runs both on a GPU machine).
//!
//! The campaign, per family (LZ4, Cascaded, Bitcomp default, Bitcomp sparse, ANS, Zstd): valid
//! chunks (gpucomp's CPU encoder on real and generated inputs, several option sets, plus nvCOMP's
//! golden chunks; Zstd also libzstd's frames with checksums and without content sizes) are mutated with a seeded generator (truncation, bit flips, forged header and table
//! words, random and zeroed ranges, duplicated ranges, appended bytes, stacked mutations) and
//! decoded in batches of up to [`BATCH`] chunks, one launch per batch, each into an output of the
//! size the chunk declares (capped; sometimes a few bytes short), and by
//! `gpucomp::cpu::decompress_chunk` with the same capacity. Two verdicts **agree** when:
//! - both succeed with the same size and the same bytes up to that size (the rest of the output
//!   is not the decoder's), or
//! - both fail with the same nvCOMP status, and the GPU reports size 0 (the batched contract);
//!   the bytes of a failed chunk are not compared: a decoder may write part of its output before
//!   it meets the corruption.
//!
//! One known difference is tallied apart ("lenient"), not as a disagreement: a Zstd chunk
//! without a content checksum that libzstd and the kernel decode differently ("outcome" or
//! "bytes"), where libzstd's double-symbol Huffman decoder (or its 32-byte block slack) accepts
//! corrupt data the kernel's decoder does not replay (kernels/src/zstd/frame.rs; about 1 in
//! 100 000 single bit flips, 1 of 300 chunks of the simulator's campaign at seed 22: a zeroed
//! range across the 4 literal streams, both decoders accepting it); a checksum makes both refuse
//! such data.
//!
//! The statuses are compared exactly because the kernels promise the CPU decoder's statuses
//! (Cascaded and LZ4: `CannotDecompress` for every error; Bitcomp and ANS: their typed statuses;
//! `tests/gpu*.rs` and `tests/sim_*_decompress.rs` assert the same); a pair of different error
//! statuses is counted apart ("error status") from a success against a failure ("outcome"), so a
//! difference of error class is visible as such. On the GPU, 64 guard bytes after every output
//! must keep their poison ("overrun"). Every disagreeing chunk is written to the campaign's
//! directory (`<family>-<n>.chunk` and a `.txt` with the verdicts) to be kept as a regression.
//!
//! `cargo test` runs the same campaign on the kernel simulator, for a few small chunks per
//! family ([`campaign_agrees_on_the_simulator`]); the GPU run ([`gpu_mutation_campaign`]) is
//! `#[ignore]`d without a device and sized by `GPUCOMP_HOSTILE_CHUNKS` (default 100 000 per
//! family).
mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::{goldens, lineitem_columns, lineitem_text, nvcomp_symmetric, Rng};
use cudarc::driver::DevicePtr;
use gpucomp::batched;
use gpucomp::container::NativeStream;
use gpucomp::cpu::lz4::SEGMENT;
use gpucomp::gpu::Gpu;
use gpucomp::{
    cpu, Algorithm, AnsOptions, BitcompAlgorithm, BitcompOptions, BitshuffleMode, CascadedOptions, Codec, DataType,
    Device, Lz4Options, Status, ZstdOptions,
};

/// Chunks per batched launch of the campaign.
const BATCH: usize = 4096;
/// Poisoned guard bytes after each GPU output.
const GUARD: usize = 64;
/// The poison of outputs and guards.
const POISON: u8 = 0xA5;

// ---------------------------------------------------------------------------------------------
// The campaign
// ---------------------------------------------------------------------------------------------

/// How large the campaign's chunks are: 64 KiB on the GPU (the anchors' chunk size), small in
/// the simulator, which runs every GPU thread on the CPU.
#[derive(Clone, Copy)]
struct Scale {
    /// Uncompressed chunk size of the seeds gpucomp's encoder writes.
    chunk: usize,
    /// Largest output capacity given to a chunk (bounds a forged size claim).
    max_capacity: usize,
    /// Bytes of each generated or real input.
    input: usize,
}

const GPU_SCALE: Scale = Scale { chunk: 64 << 10, max_capacity: 128 << 10, input: 256 << 10 };
const SIM_SCALE: Scale = Scale { chunk: 2 << 10, max_capacity: 4 << 10, input: 4 << 10 };

/// Valid chunks of one option set: the algorithm (LZ4's data type and bitshuffle decide how its
/// chunks decode; the other algorithms' chunks describe themselves) and the chunks.
struct Set {
    algorithm: Algorithm,
    seeds: Vec<Vec<u8>>,
}

/// One row of the campaign's table.
struct Family {
    name: &'static str,
    sets: Vec<Set>,
}

/// The inputs every family compresses: real (TPC-H text and columns) and generated (random,
/// compressible, runs, sorted and small-range integers), `scale.input` bytes each.
fn inputs(rng: &mut Rng, scale: Scale) -> Vec<Vec<u8>> {
    let n = scale.input;
    let mut v = vec![lineitem_text(n)[..n].to_vec(), rng.bytes(n), rng.compressible(n)];
    for (_, _, column) in lineitem_columns(0.01, n / 4) {
        v.push(column[..column.len().min(n)].to_vec());
    }
    let mut runs = Vec::with_capacity(n);
    while runs.len() < n {
        let byte = rng.next() as u8;
        runs.extend(std::iter::repeat_n(byte, 1 + rng.index(300)));
    }
    runs.truncate(n);
    v.push(runs);
    let mut x = 0u32;
    v.push(
        (0..n / 4)
            .flat_map(|_| {
                x += rng.below(5) as u32;
                x.to_le_bytes()
            })
            .collect(),
    );
    v.push((0..n / 8).flat_map(|_| (rng.below(1000) as i64 - 500).to_le_bytes()).collect());
    // Whole 8-byte elements, so that every option set's encoder takes every input (a TPC-H
    // column shorter than `n` may end mid-element).
    for input in &mut v {
        input.truncate(input.len() / 8 * 8);
    }
    v
}

/// `input` cut into `scale.chunk` pieces, each compressed by the CPU codec (every input is a
/// whole number of 8-byte elements, so every option set takes it).
fn compress_chunks(algorithm: &Algorithm, input: &[u8], scale: Scale) -> Vec<Vec<u8>> {
    let max = scale.chunk.min(input.len()).max(1);
    input
        .chunks(scale.chunk)
        .map(|piece| {
            let mut out = vec![0u8; algorithm.max_compressed_chunk_size(max)];
            let n = cpu::compress_chunk(algorithm, max, piece, &mut out)
                .unwrap_or_else(|e| panic!("{algorithm:?}: the CPU encoder refused a seed input: {e}"));
            out.truncate(n);
            out
        })
        .collect()
}

/// The chunks of nvCOMP's golden NVCOMP_NATIVE streams of `name` whose algorithm `keep` accepts
/// and whose uncompressed size is within `scale.max_capacity`.
fn golden_chunks(name: &str, scale: Scale, keep: impl Fn(&Algorithm) -> bool) -> Vec<Vec<u8>> {
    let mut chunks = Vec::new();
    for g in goldens(name).into_iter().filter(|g| g.kind == "NVCOMP_NATIVE") {
        let Ok(s) = NativeStream::parse(&g.stream) else { continue };
        if !s.algorithm().is_ok_and(|a| keep(&a)) {
            continue;
        }
        for i in 0..s.num_chunks() {
            if s.chunk_uncompressed_size(i).is_some_and(|n| n as usize <= scale.max_capacity) {
                chunks.extend(s.chunk(i).map(<[u8]>::to_vec));
            }
        }
    }
    chunks
}

/// nvCOMP's Zstd chunks (`tests/data/zstd/streams`, NVCOMP_NATIVE) of at most
/// `scale.max_capacity` bytes uncompressed, and libzstd's frames of `inputs` cut into
/// `scale.chunk` pieces, at levels 1 and 19 with checksums and at level 3 without content sizes.
fn zstd_extra_chunks(inputs: &[Vec<u8>], scale: Scale) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/zstd/streams");
    let mut chunks = Vec::new();
    let mut names: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("tests/data/zstd/streams").map(|e| e.unwrap().path()).collect();
    names.sort();
    for path in names.iter().filter(|p| p.to_string_lossy().contains(".native")) {
        let stream = std::fs::read(path).expect("nvCOMP Zstd stream");
        let s = NativeStream::parse(&stream).expect("nvCOMP Zstd stream");
        for i in 0..s.num_chunks() {
            if s.chunk_uncompressed_size(i).is_some_and(|n| n as usize <= scale.max_capacity) {
                chunks.extend(s.chunk(i).map(<[u8]>::to_vec));
            }
        }
    }
    for (level, checksum, content_size) in [(1, true, true), (19, true, true), (3, false, false)] {
        let mut c = ::zstd::bulk::Compressor::new(level).unwrap();
        c.set_parameter(::zstd::zstd_safe::CParameter::ChecksumFlag(checksum)).unwrap();
        c.set_parameter(::zstd::zstd_safe::CParameter::ContentSizeFlag(content_size)).unwrap();
        chunks.extend(inputs.iter().flat_map(|i| i.chunks(scale.chunk)).map(|piece| c.compress(piece).unwrap()));
    }
    chunks
}

/// Whether a disagreement of `kind` on `chunk` is the known Zstd one (see the module docs): a
/// Zstd chunk whose frame carries no checksum, decoded differently by libzstd.
fn lenient(algorithm: &Algorithm, chunk: &[u8], kind: &str) -> bool {
    let checksum = chunk.get(4).is_some_and(|fhd| fhd & 0x04 != 0);
    matches!(algorithm, Algorithm::Zstd(_)) && !checksum && matches!(kind, "outcome" | "bytes")
}

/// The campaign's families and their option sets.
fn families(rng: &mut Rng, scale: Scale) -> Vec<Family> {
    let inputs = inputs(rng, scale);
    let set = |algorithm: Algorithm, extra: Vec<Vec<u8>>| {
        let mut seeds: Vec<Vec<u8>> = inputs.iter().flat_map(|i| compress_chunks(&algorithm, i, scale)).collect();
        seeds.extend(extra);
        Set { algorithm, seeds }
    };
    let lz4 =
        |t: DataType, b: BitshuffleMode| Algorithm::Lz4(Lz4Options::default().with_data_type(t).with_bitshuffle(b));
    let plain_lz4 = |a: &Algorithm| matches!(a, Algorithm::Lz4(o) if o.bitshuffle == BitshuffleMode::None);
    let cascaded = |t: DataType, level: u8| {
        Algorithm::Cascaded(CascadedOptions::default().with_data_type(t).with_compression_level(level))
    };
    let bitcomp = |a: BitcompAlgorithm, t: DataType| {
        Algorithm::Bitcomp(BitcompOptions::default().with_algorithm(a).with_data_type(t))
    };
    let is_bitcomp =
        |which: BitcompAlgorithm| move |a: &Algorithm| matches!(a, Algorithm::Bitcomp(o) if o.algorithm == which);
    let ans = |o: AnsOptions| Algorithm::Ans(o);
    // The other algorithms' options only choose the encoder's bytes: their sets are pooled.
    let pool = |sets: Vec<Set>| {
        let algorithm = sets[0].algorithm;
        Set { algorithm, seeds: sets.into_iter().flat_map(|s| s.seeds).collect() }
    };
    vec![
        Family {
            name: "LZ4",
            sets: vec![
                set(lz4(DataType::Char, BitshuffleMode::None), golden_chunks("LZ4", scale, plain_lz4)),
                set(lz4(DataType::Int, BitshuffleMode::MsbFirst), vec![]),
                set(lz4(DataType::Short, BitshuffleMode::LsbFirst), vec![]),
            ],
        },
        Family {
            name: "Cascaded",
            sets: vec![pool(vec![
                set(cascaded(DataType::Uint, 3), golden_chunks("Cascaded", scale, |_| true)),
                set(cascaded(DataType::Char, 1), nvcomp_symmetric().into_iter().map(|(_, c)| c).collect()),
                set(cascaded(DataType::LongLong, 2), vec![]),
                set(cascaded(DataType::Short, 0), vec![]),
            ])],
        },
        Family {
            name: "Bitcomp default",
            sets: vec![pool(vec![
                set(
                    bitcomp(BitcompAlgorithm::Default, DataType::Uchar),
                    golden_chunks("Bitcomp", scale, is_bitcomp(BitcompAlgorithm::Default)),
                ),
                set(bitcomp(BitcompAlgorithm::Default, DataType::Int), vec![]),
                set(bitcomp(BitcompAlgorithm::Default, DataType::LongLong), vec![]),
                set(bitcomp(BitcompAlgorithm::Default, DataType::Float16), vec![]),
            ])],
        },
        Family {
            name: "Bitcomp sparse",
            sets: vec![pool(vec![
                set(
                    bitcomp(BitcompAlgorithm::Sparse, DataType::Uchar),
                    golden_chunks("Bitcomp", scale, is_bitcomp(BitcompAlgorithm::Sparse)),
                ),
                set(bitcomp(BitcompAlgorithm::Sparse, DataType::Short), vec![]),
                set(bitcomp(BitcompAlgorithm::Sparse, DataType::Uint), vec![]),
                set(bitcomp(BitcompAlgorithm::Sparse, DataType::ULongLong), vec![]),
            ])],
        },
        Family {
            name: "ANS",
            sets: vec![pool(vec![
                set(ans(AnsOptions::default()), golden_chunks("ANS", scale, |_| true)),
                set(ans(AnsOptions::default().with_states_per_lane(1).with_max_sub_chunk_count(64)), vec![]),
                set(ans(AnsOptions::default().with_histogram_reduction_log2(2)), vec![]),
                set(ans(AnsOptions::for_type(DataType::Float16)), vec![]),
                set(ans(AnsOptions::for_type(DataType::Float32).with_states_per_lane(1)), vec![]),
                set(ans(AnsOptions::for_type(DataType::Float8E4M3)), vec![]),
            ])],
        },
        Family {
            name: "Zstd",
            sets: vec![set(Algorithm::Zstd(ZstdOptions::default()), zstd_extra_chunks(&inputs, scale))],
        },
    ]
}

/// The mutations, by name (the `.txt` of a disagreement records which).
const MUTATIONS: [&str; 9] = [
    "truncate",
    "bit flips",
    "forged word",
    "random range",
    "zeroed range",
    "duplicated range",
    "appended bytes",
    "short output",
    "stacked",
];

/// A word a forged header or table field takes: edge values, the chunk's length and neighbours,
/// small and random numbers.
fn hostile_word(rng: &mut Rng, len: usize) -> u64 {
    match rng.below(9) {
        0 => 0,
        1 => u64::MAX,
        2 => 0x7fff_ffff,
        3 => 0x8000_0000,
        4 => len as u64,
        5 => (len as u64).wrapping_add(rng.below(64)).wrapping_sub(32),
        6 => rng.below(256),
        7 => 1 << rng.below(64),
        _ => rng.next(),
    }
}

/// One mutation `kind` (an index of [`MUTATIONS`] but "stacked" and "short output") of `c`.
fn mutate_once(rng: &mut Rng, c: &mut Vec<u8>, kind: usize) {
    let len = c.len();
    let range = |rng: &mut Rng| {
        let start = rng.index(len);
        (start, start + 1 + rng.index((len - start).min(256)))
    };
    match kind {
        _ if len == 0 => {
            let n = 1 + rng.index(64);
            c.extend(rng.bytes(n))
        }
        0 => c.truncate(rng.index(len)),
        1 => {
            for _ in 0..1 + rng.below(8) {
                let at = rng.index(len);
                c[at] ^= 1 << rng.below(8);
            }
        }
        2 => {
            // Headers and tables lie at the front: most forged words go to the first 64 bytes.
            let window = if rng.below(4) == 0 { len } else { len.min(64) };
            let width = if rng.below(2) == 0 { 4 } else { 8 };
            let at = (rng.index(window) & !(width - 1)).min(len.saturating_sub(width));
            let word = hostile_word(rng, len).to_le_bytes();
            let end = (at + width).min(len);
            c[at..end].copy_from_slice(&word[..end - at]);
        }
        3 => {
            let (a, b) = range(rng);
            c[a..b].copy_from_slice(&rng.bytes(b - a));
        }
        4 => {
            let (a, b) = range(rng);
            c[a..b].fill(0);
        }
        5 => {
            let (a, b) = range(rng);
            let piece = c[a..b].to_vec();
            let at = rng.index(len + 1);
            if rng.below(2) == 0 {
                c.splice(at..at, piece);
            } else {
                let end = (at + piece.len()).min(len);
                c[at..end].copy_from_slice(&piece[..end - at]);
            }
        }
        _ => {
            let n = 1 + rng.index(64);
            c.extend(rng.bytes(n))
        }
    }
}

/// One mutated chunk of the campaign and the capacity it is decoded into.
struct Case {
    chunk: Vec<u8>,
    capacity: usize,
    mutation: &'static str,
}

/// A mutation of `seed` and its output capacity: the size the mutated chunk declares (the
/// seed's, where it declares none) capped at `scale.max_capacity`; for "short output" the seed
/// unchanged and a capacity 1 to 16 bytes under its size.
fn mutate(rng: &mut Rng, algorithm: &Algorithm, seed: &[u8], scale: Scale) -> Case {
    let kind = rng.index(MUTATIONS.len());
    let mut chunk = seed.to_vec();
    let declared = |c: &[u8]| cpu::decompressed_chunk_size(algorithm, c).ok();
    match MUTATIONS[kind] {
        "short output" => {
            let size = declared(seed).unwrap_or(0);
            let capacity = size.saturating_sub(1 + rng.index(16)).min(scale.max_capacity);
            return Case { chunk, capacity, mutation: MUTATIONS[kind] };
        }
        "stacked" => {
            for _ in 0..2 + rng.below(2) {
                let kind = rng.index(7);
                mutate_once(rng, &mut chunk, kind);
            }
        }
        _ => mutate_once(rng, &mut chunk, kind),
    }
    let capacity = declared(&chunk).or_else(|| declared(seed)).unwrap_or(scale.chunk).min(scale.max_capacity);
    Case { chunk, capacity, mutation: MUTATIONS[kind] }
}

/// A decoder's verdict on one chunk: status, reported size, the output up to that size (empty
/// for a failed chunk), and whether it wrote past its capacity.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Verdict {
    status: Status,
    size: u64,
    bytes: Vec<u8>,
    overrun: bool,
}

/// How a GPU verdict differs from the CPU's ([`None`]: they agree; see the module docs).
fn compare(gpu: &Verdict, cpu: &Verdict) -> Option<&'static str> {
    let ok = |v: &Verdict| v.status == Status::Success;
    if gpu.overrun {
        Some("overrun")
    } else if ok(gpu) != ok(cpu) {
        Some("outcome")
    } else if gpu.status != cpu.status {
        Some("error status")
    } else if gpu.size != cpu.size {
        Some("size")
    } else if ok(gpu) && gpu.bytes != cpu.bytes {
        Some("bytes")
    } else {
        None
    }
}

/// [`compare`]'s rules, case by case.
#[test]
fn agreement_rules() {
    let v = |status, size: u64, bytes: &[u8]| Verdict { status, size, bytes: bytes.to_vec(), overrun: false };
    let ok = v(Status::Success, 3, b"abc");
    let failed = v(Status::CannotDecompress, 0, b"");
    assert_eq!(compare(&ok, &ok), None);
    // A failed chunk's bytes are not compared.
    assert_eq!(compare(&v(Status::CannotDecompress, 0, b"xy"), &failed), None);
    assert_eq!(compare(&failed, &ok), Some("outcome"));
    assert_eq!(compare(&ok, &failed), Some("outcome"));
    assert_eq!(compare(&v(Status::OutputBufferTooSmall, 0, b""), &failed), Some("error status"));
    assert_eq!(compare(&v(Status::CannotDecompress, 5, b""), &failed), Some("size"));
    assert_eq!(compare(&v(Status::Success, 2, b"ab"), &ok), Some("size"));
    assert_eq!(compare(&v(Status::Success, 3, b"abd"), &ok), Some("bytes"));
    assert_eq!(compare(&Verdict { overrun: true, ..ok.clone() }, &ok), Some("overrun"));
}

/// The kinds of disagreement, the table's columns.
const KINDS: [&str; 5] = ["outcome", "error status", "size", "bytes", "overrun"];

/// Decodes batches of chunks: the GPU's batched API, or the kernels in the simulator.
trait BatchDecoder: Sync {
    /// Chunk `i` of `cases` decoded into `cases[i].capacity` bytes, one launch for the batch.
    fn decode(&self, algorithm: &Algorithm, cases: &[Case]) -> Vec<Verdict>;
}

/// `f` of every item, in order, on every core.
fn par_map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync) -> Vec<U> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per = items.len().div_ceil(threads).max(1);
    let f = &f;
    std::thread::scope(|s| {
        let parts: Vec<_> =
            items.chunks(per).map(|part| s.spawn(move || part.iter().map(f).collect::<Vec<_>>())).collect();
        parts.into_iter().flat_map(|p| p.join().expect("worker thread")).collect()
    })
}

/// The CPU decoder's verdict on `c`.
fn cpu_verdict(algorithm: &Algorithm, c: &Case) -> Verdict {
    let mut out = vec![POISON; c.capacity];
    match cpu::decompress_chunk(algorithm, &c.chunk, &mut out) {
        Ok(n) => Verdict { status: Status::Success, size: n as u64, bytes: out[..n].to_vec(), overrun: false },
        Err(status) => Verdict { status, size: 0, bytes: Vec::new(), overrun: false },
    }
}

/// One family's tally.
#[derive(Default)]
struct Tally {
    chunks: usize,
    agree: usize,
    /// Zstd's known difference (see the module docs), not a disagreement.
    lenient: usize,
    decoded: usize,
    kinds: [usize; KINDS.len()],
}

/// What one campaign runs.
struct Plan<'a> {
    scale: Scale,
    /// Mutated chunks per family.
    per_family: usize,
    /// The generator's seed.
    seed: u64,
    /// Where disagreeing chunks go (at most 100 per family).
    out: &'a std::path::Path,
    /// Time the whole campaign may take, an equal share per family: a family stops after the
    /// batch that passes its share (the table shows the chunks it ran).
    time: Option<std::time::Duration>,
}

/// Runs the campaign; returns the table's rows.
fn campaign(decoder: &dyn BatchDecoder, plan: &Plan) -> Vec<(&'static str, Tally)> {
    let (scale, out) = (plan.scale, plan.out);
    let mut rng = Rng::seeded(plan.seed);
    std::fs::create_dir_all(out).expect("campaign output directory");
    let mut rows = Vec::new();
    let families = families(&mut rng, scale);
    let share = plan.time.map(|t| t / families.len() as u32);
    for family in families {
        let started = std::time::Instant::now();
        let out_of_time = || share.is_some_and(|t| started.elapsed() > t);
        let mut tally = Tally::default();
        let mut written = 0;
        let sets: Vec<&Set> = family.sets.iter().filter(|s| !s.seeds.is_empty()).collect();
        assert!(!sets.is_empty(), "{}: no seed chunks", family.name);
        for (k, set) in sets.iter().enumerate() {
            // The family's count split over its sets (the first takes the remainder).
            let per_family = plan.per_family;
            let mut left = per_family / sets.len() + if k == 0 { per_family % sets.len() } else { 0 };
            while left > 0 && !out_of_time() {
                let n = left.min(BATCH);
                left -= n;
                // Each case from a seed chunk and a generator of its own, drawn in order (the
                // campaign is reproducible), then built on every core.
                let draws: Vec<(usize, u64)> = (0..n).map(|_| (rng.index(set.seeds.len()), rng.next())).collect();
                let cases =
                    par_map(&draws, |&(k, r)| mutate(&mut Rng::seeded(r), &set.algorithm, &set.seeds[k], scale));
                let gpu = decoder.decode(&set.algorithm, &cases);
                let cpu = par_map(&cases, |c| cpu_verdict(&set.algorithm, c));
                for ((case, g), c) in cases.iter().zip(&gpu).zip(&cpu) {
                    tally.chunks += 1;
                    tally.decoded += usize::from(c.status == Status::Success);
                    match compare(g, c) {
                        None => tally.agree += 1,
                        Some(kind) => {
                            if lenient(&set.algorithm, &case.chunk, kind) {
                                tally.lenient += 1;
                            } else {
                                tally.kinds[KINDS.iter().position(|&k| k == kind).unwrap()] += 1;
                            }
                            if written < 100 {
                                let name = format!("{}-{}", family.name.replace(' ', "-"), tally.chunks);
                                let report = format!(
                                    "algorithm {:?}\nmutation {}\ncapacity {}\ndisagreement {kind}\ngpu {:?} size {} overrun {}\ncpu {:?} size {}\n",
                                    set.algorithm, case.mutation, case.capacity, g.status, g.size, g.overrun, c.status, c.size
                                );
                                std::fs::write(out.join(format!("{name}.chunk")), &case.chunk).expect("write chunk");
                                std::fs::write(out.join(format!("{name}.txt")), report).expect("write report");
                                written += 1;
                            }
                        }
                    }
                }
            }
        }
        println!(
            "{}: {} chunks, {} agree, {:.1} s",
            family.name,
            tally.chunks,
            tally.agree,
            started.elapsed().as_secs_f64()
        );
        rows.push((family.name, tally));
    }
    rows
}

/// The campaign's table, as `hostile.sh` prints it.
fn table(rows: &[(&str, Tally)]) -> String {
    let mut s = format!("| family | chunks | agree | lenient | decoded | {} |\n", KINDS.join(" | "));
    s += &format!("| --- |{}\n", " ---: |".repeat(4 + KINDS.len()));
    for (name, t) in rows {
        let kinds: Vec<String> = t.kinds.iter().map(usize::to_string).collect();
        let (chunks, agree, lenient, decoded) = (t.chunks, t.agree, t.lenient, t.decoded);
        s += &format!("| {name} | {chunks} | {agree} | {lenient} | {decoded} | {} |\n", kinds.join(" | "));
    }
    s
}

// ---------------------------------------------------------------------------------------------
// The decoders: the simulator and the GPU
// ---------------------------------------------------------------------------------------------

/// A batch laid out as both decoders lay it out: every chunk in one input buffer, every output
/// in one output buffer followed by [`GUARD`] poisoned bytes, each at a 16-byte aligned offset
/// (the strictest alignment of any decoder: ANS's).
struct Packed {
    /// The chunks, each at `in_off[i]`.
    input: Vec<u8>,
    in_off: Vec<usize>,
    /// Output `i` starts at `out_off[i]`; `out_len` bytes in all, poisoned.
    out_off: Vec<usize>,
    out_len: usize,
}

impl Packed {
    fn new(cases: &[Case]) -> Packed {
        let slot = |len: usize| len.next_multiple_of(16).max(16);
        let (mut input, mut in_off, mut out_off, mut out_len) = (Vec::new(), Vec::new(), Vec::new(), 0);
        for c in cases {
            in_off.push(input.len());
            input.extend_from_slice(&c.chunk);
            input.resize(input.len() + slot(c.chunk.len()) - c.chunk.len(), 0);
            out_off.push(out_len);
            out_len += slot(c.capacity + GUARD);
        }
        Packed { input, in_off, out_off, out_len }
    }

    /// The verdicts from the decoder's statuses, sizes and output buffer.
    fn verdicts(&self, cases: &[Case], statuses: &[Status], actual: &[u64], out: &[u8]) -> Vec<Verdict> {
        (0..cases.len())
            .map(|i| {
                let (at, cap) = (self.out_off[i], cases[i].capacity);
                let status = statuses[i];
                let shown = if status == Status::Success { (actual[i] as usize).min(cap) } else { 0 };
                Verdict {
                    status,
                    size: actual[i],
                    bytes: out[at..at + shown].to_vec(),
                    overrun: out[at + cap..at + cap + GUARD].iter().any(|&b| b != POISON),
                }
            })
            .collect()
    }
}

/// The decompression kernels run in the CPU simulator (`gpucomp_kernels::sim`) on a [`Packed`]
/// batch; LZ4 with bitshuffle then unshuffles in place, as the batched API does.
struct Simulator;

/// `bytes` copied into a 16-byte aligned buffer of 16-byte words.
fn aligned(bytes: &[u8]) -> Vec<u128> {
    let mut words = vec![0u128; bytes.len().div_ceil(16)];
    for (w, b) in words.iter_mut().zip(bytes.chunks(16)) {
        let mut x = [0u8; 16];
        x[..b.len()].copy_from_slice(b);
        *w = u128::from_ne_bytes(x);
    }
    words
}

impl BatchDecoder for Simulator {
    fn decode(&self, algorithm: &Algorithm, cases: &[Case]) -> Vec<Verdict> {
        use gpucomp_kernels::batch::DecompressArgs;
        use gpucomp_kernels::sim::launch;
        use gpucomp_kernels::{ans, bitcomp, bitshuffle, cascaded, lz4, zstd};
        let p = Packed::new(cases);
        let n = cases.len();
        let input = aligned(&p.input);
        let mut output = aligned(&vec![POISON; p.out_len]);
        let (ib, ob) = (input.as_ptr() as *const u8, output.as_mut_ptr() as *mut u8);
        // SAFETY: every offset lies within its buffer (`Packed` laid them out).
        let in_ptrs: Vec<*const u8> = p.in_off.iter().map(|&o| unsafe { ib.add(o) }).collect();
        // SAFETY: as above.
        let out_ptrs: Vec<*mut u8> = p.out_off.iter().map(|&o| unsafe { ob.add(o) }).collect();
        let in_bytes: Vec<u64> = cases.iter().map(|c| c.chunk.len() as u64).collect();
        let caps: Vec<u64> = cases.iter().map(|c| c.capacity as u64).collect();
        let (mut actual, mut statuses) = (vec![u64::MAX; n], vec![-1i32; n]);
        let a = DecompressArgs {
            in_ptrs: in_ptrs.as_ptr(),
            in_bytes: in_bytes.as_ptr(),
            num_chunks: n as u64,
            out_ptrs: out_ptrs.as_ptr(),
            out_capacity: caps.as_ptr(),
            out_actual: actual.as_mut_ptr(),
            statuses: statuses.as_mut_ptr(),
        };
        let n = n as u64;
        // SAFETY (each launch): the arrays hold `n` entries and address the packed buffers,
        // readable and writable for the stated sizes; outputs disjoint.
        match algorithm {
            Algorithm::Lz4(_) => launch::<lz4::decompress::DecompressShared, _>(
                lz4::decompress_grid_dim(n),
                lz4::DECOMPRESS_BLOCK,
                |t, s| unsafe { lz4::decompress::decompress(t, s, a) },
            ),
            Algorithm::Cascaded(_) => {
                launch::<cascaded::Shared, _>(cascaded::grid_dim(n), cascaded::BLOCK_THREADS, |t, s| unsafe {
                    cascaded::decompress(t, s, a, std::ptr::null_mut(), 1)
                })
            }
            Algorithm::Bitcomp(_) => launch::<bitcomp::decompress::Shared, _>(
                bitcomp::decompress_grid_dim(n, 1, 1),
                bitcomp::BLOCK_THREADS,
                |t, s| unsafe { bitcomp::decompress::decompress(t, s, a, std::ptr::null_mut(), 1) },
            ),
            Algorithm::Ans(_) => {
                launch::<ans::decompress::Shared, _>(ans::grid_dim(n), ans::BLOCK_THREADS, |t, s| unsafe {
                    ans::decompress::decompress(t, s, a, std::ptr::null_mut(), 1)
                })
            }
            Algorithm::Zstd(_) => {
                // The host's literal buffers: 128 KiB per chunk.
                let mut lits = vec![0u8; (n as usize) << 17];
                let p = lits.as_mut_ptr() as usize;
                launch::<zstd::DecompressShared, _>(
                    zstd::decompress_grid_dim(n),
                    zstd::DECOMPRESS_BLOCK,
                    |t, s| unsafe { zstd::decompress(t, s, a, p as *mut u8, 1 << 17) },
                )
            }
            other => panic!("no simulated decoder for {other:?}"),
        }
        if let Algorithm::Lz4(o) = algorithm {
            if o.bitshuffle != BitshuffleMode::None {
                let width = o.element_width().unwrap() as u32;
                let msb = o.bitshuffle == BitshuffleMode::MsbFirst;
                launch::<bitshuffle::Shared, _>(bitshuffle::grid_dim(n), bitshuffle::BLOCK_THREADS, |t, s| {
                    // The whole argument list (Sync), not its raw-pointer fields, is captured.
                    let a = &a;
                    // SAFETY: the decoded chunks, `out_actual` bytes each, unshuffled in place.
                    unsafe {
                        bitshuffle::bitshuffle(t, s, a.out_ptrs.cast(), a.out_actual, n, a.out_ptrs, width, msb, true)
                    }
                });
            }
        }
        // SAFETY: `output` holds `p.out_len` initialised bytes (rounded up to whole words).
        let out = unsafe { std::slice::from_raw_parts(output.as_ptr() as *const u8, p.out_len) };
        let statuses: Vec<Status> = statuses.into_iter().map(Status::from_raw).collect();
        p.verdicts(cases, &statuses, &actual, out)
    }
}

/// The batched GPU API on GPU 0, on a [`Packed`] batch: one upload of the inputs, one of the
/// poisoned outputs, one decompression launch, one download.
struct Device0(Gpu);

impl BatchDecoder for Device0 {
    fn decode(&self, algorithm: &Algorithm, cases: &[Case]) -> Vec<Verdict> {
        let g = &self.0;
        let s = g.stream();
        let codec = batched::for_algorithm(algorithm).unwrap();
        let p = Packed::new(cases);
        let d_in = s.clone_htod(&p.input).unwrap();
        let d_out = s.clone_htod(&vec![POISON; p.out_len]).unwrap();
        let (ib, ob) = (d_in.device_ptr(s).0, d_out.device_ptr(s).0);
        let a = common::gpu::Addressed {
            in_ptrs: &p.in_off.iter().map(|&o| ib + o as u64).collect::<Vec<_>>(),
            in_bytes: &cases.iter().map(|c| c.chunk.len() as u64).collect::<Vec<_>>(),
            out_ptrs: &p.out_off.iter().map(|&o| ob + o as u64).collect::<Vec<_>>(),
            out_capacity: &cases.iter().map(|c| c.capacity as u64).collect::<Vec<_>>(),
            max: cases.iter().map(|c| c.capacity).max().unwrap_or(0),
        };
        // SAFETY: every address is a slot of `d_in` / `d_out` of at least the stated length,
        // outputs disjoint, all alive until the reads below.
        let (actual, statuses) = unsafe { common::gpu::decompress_at(g, codec.as_ref(), &a, true) };
        let out = s.clone_dtoh(&d_out).unwrap();
        p.verdicts(cases, &statuses.unwrap_or_default(), &actual, &out)
    }
}

/// The campaign in the simulator: a few small chunks per family, the logic and the kernels'
/// agreement checked by `cargo test` (`GPUCOMP_HOSTILE_SIM_CHUNKS`, default 40 per family).
#[test]
fn campaign_agrees_on_the_simulator() {
    let per = std::env::var("GPUCOMP_HOSTILE_SIM_CHUNKS").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    // The system temp dir, not CARGO_TARGET_TMPDIR: the GPU bundle runs this test elsewhere.
    let out = std::env::temp_dir().join("gpucomp-hostile-sim");
    let seed = std::env::var("GPUCOMP_TEST_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(22);
    let rows = campaign(&Simulator, &Plan { scale: SIM_SCALE, per_family: per, seed, out: &out, time: None });
    println!("{}", table(&rows));
    for (name, t) in &rows {
        assert_eq!(t.chunks, per, "{name}");
        assert_eq!(t.agree + t.lenient, t.chunks, "{name}: disagreements written to {}", out.display());
    }
    // The mutations leave some chunks decodable and break others.
    assert!(rows.iter().map(|(_, t)| t.decoded).sum::<usize>() > 0);
    assert!(rows.iter().any(|(_, t)| t.decoded < t.chunks));
}

/// The mutation campaign on GPU 0: `GPUCOMP_HOSTILE_CHUNKS` mutated chunks per family (default
/// 100 000), seed `GPUCOMP_TEST_SEED` (default 22), disagreements to `GPUCOMP_HOSTILE_OUT`
/// (default `$OUT/hostile`, else the system's temp dir); `GPUCOMP_HOSTILE_SECONDS` bounds the
/// whole run (an equal share per family; the table shows the chunks run).
#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_mutation_campaign() {
    let env = |k: &str| std::env::var(k).ok();
    let per = env("GPUCOMP_HOSTILE_CHUNKS").and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let seed = env("GPUCOMP_TEST_SEED").and_then(|v| v.parse().ok()).unwrap_or(22);
    let out = env("GPUCOMP_HOSTILE_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| env("OUT").map_or_else(std::env::temp_dir, PathBuf::from).join("hostile"));
    let budget = env("GPUCOMP_HOSTILE_SECONDS").and_then(|v| v.parse::<f64>().ok());
    let start = std::time::Instant::now();
    let plan = Plan {
        scale: GPU_SCALE,
        per_family: per,
        seed,
        out: &out,
        time: budget.map(std::time::Duration::from_secs_f64),
    };
    let rows = campaign(&Device0(common::gpu::gpu()), &plan);
    println!("mutation campaign: seed {seed}, {per} chunks per family, {:.0} s", start.elapsed().as_secs_f64());
    println!("{}", table(&rows));
    let bad: usize = rows.iter().map(|(_, t)| t.chunks - t.agree - t.lenient).sum();
    assert_eq!(bad, 0, "{bad} disagreeing chunks, written to {}", out.display());
}

// ---------------------------------------------------------------------------------------------
// Every kernel once, for compute-sanitizer
// ---------------------------------------------------------------------------------------------

/// One batched round trip of the kernel launch list: an option set, its input, and the kernels
/// its compression, size query and decompression launch.
struct Launch {
    algorithm: Algorithm,
    input: Vec<u8>,
    /// Uncompressed chunk size.
    chunk: usize,
    kernels: Vec<&'static str>,
}

/// Chunk size of the sanitizer's launches: small, since racecheck is slow.
const SANITIZE_CHUNK: usize = 4096;
/// Chunk size of the launches where a batch of 3 chunks is spread over several thread blocks
/// per chunk (ANS both ways, Cascaded and Bitcomp decompression): the blocks of a chunk meet in
/// a word of temp memory, which the sanitizers must see too.
const SPLIT_CHUNK: usize = 64 << 10;

/// The launch list: every option family whose kernels differ. The kernel an ANS option set
/// compresses with is the library's own choice (`Kernel::for_batch`).
fn launches() -> Vec<Launch> {
    use gpucomp_kernels::ans::compress::Kernel;
    let mut rng = Rng::seeded(22);
    let text = lineitem_text(3 * SANITIZE_CHUNK + 100);
    let ints: Vec<u8> = (0..3 * SANITIZE_CHUNK as u32 / 4 + 7).flat_map(|v| (v / 3 % 1000).to_le_bytes()).collect();
    let halves: Vec<u8> =
        (0..3 * SANITIZE_CHUNK / 2).flat_map(|_| common::f16_bits(rng.normal() as f32).to_le_bytes()).collect();
    let e4m3 = rng.e4m3_normals(3 * SANITIZE_CHUNK + 5, 1.0);
    let ans_chunk = |o: AnsOptions, input: Vec<u8>, chunk: usize| {
        let compress = match Kernel::for_batch(o.data_type as u32, o.sub_chunk_size(chunk)) {
            Kernel::General => "ans_compress",
            Kernel::Float => "ans_compress_float",
            Kernel::Float8 => "ans_compress_float8",
        };
        Launch {
            algorithm: Algorithm::Ans(o),
            input,
            chunk,
            kernels: vec![compress, "ans_decompressed_size", "ans_decompress"],
        }
    };
    let ans = |o: AnsOptions, input: Vec<u8>| ans_chunk(o, input, SANITIZE_CHUNK);
    let split_ints: Vec<u8> = (0..3 * SPLIT_CHUNK as u32 / 4).flat_map(|v| (v / 3 % 1000).to_le_bytes()).collect();
    let lz4 = ["lz4_compress", "lz4_decompressed_size", "lz4_decompress"];
    vec![
        Launch {
            algorithm: Algorithm::Lz4(Lz4Options::default()),
            input: text.clone(),
            chunk: SANITIZE_CHUNK,
            kernels: lz4.to_vec(),
        },
        // Chunks of two segments each: gpucomp's encoder splits, compresses and stitches them.
        Launch {
            algorithm: Algorithm::Lz4(Lz4Options::default()),
            input: lineitem_text(3 * (SEGMENT + 4096)),
            chunk: SEGMENT + 4096,
            kernels: [&lz4[..], &["lz4_segments", "lz4_stitch"]].concat(),
        },
        Launch {
            algorithm: Algorithm::Lz4(
                Lz4Options::default().with_data_type(DataType::Int).with_bitshuffle(BitshuffleMode::MsbFirst),
            ),
            input: ints.clone(),
            chunk: SANITIZE_CHUNK,
            kernels: [&lz4[..], &["lz4_bitshuffle"]].concat(),
        },
        Launch {
            algorithm: Algorithm::Cascaded(CascadedOptions::default().with_data_type(DataType::Int)),
            input: ints.clone(),
            chunk: SANITIZE_CHUNK,
            kernels: vec!["cascaded_compress", "cascaded_decompressed_size", "cascaded_decompress"],
        },
        Launch {
            algorithm: Algorithm::Bitcomp(BitcompOptions::default().with_data_type(DataType::Int)),
            input: ints.clone(),
            chunk: SANITIZE_CHUNK,
            kernels: vec!["bitcomp_compress", "bitcomp_decompressed_size", "bitcomp_decompress"],
        },
        Launch {
            algorithm: Algorithm::Bitcomp(
                BitcompOptions::default().with_algorithm(BitcompAlgorithm::Sparse).with_data_type(DataType::Uchar),
            ),
            input: text.clone(),
            chunk: SANITIZE_CHUNK,
            kernels: vec!["bitcomp_compress", "bitcomp_decompressed_size", "bitcomp_decompress"],
        },
        // Compressed on the CPU codec (no GPU compressor), decoded on the GPU.
        Launch {
            algorithm: Algorithm::Zstd(ZstdOptions::default()),
            input: text.clone(),
            chunk: SANITIZE_CHUNK,
            kernels: vec!["zstd_decompressed_size", "zstd_decompress"],
        },
        ans(AnsOptions::default(), text),
        ans(AnsOptions::for_type(DataType::Float16), halves),
        ans(AnsOptions::for_type(DataType::Float8E4M3), e4m3),
        Launch {
            algorithm: Algorithm::Cascaded(CascadedOptions::default().with_data_type(DataType::Int)),
            input: split_ints.clone(),
            chunk: SPLIT_CHUNK,
            kernels: vec!["cascaded_compress", "cascaded_decompressed_size", "cascaded_decompress"],
        },
        Launch {
            algorithm: Algorithm::Bitcomp(BitcompOptions::default().with_data_type(DataType::Int)),
            input: split_ints,
            chunk: SPLIT_CHUNK,
            kernels: vec!["bitcomp_compress", "bitcomp_decompressed_size", "bitcomp_decompress"],
        },
        ans_chunk(AnsOptions::default(), lineitem_text(3 * SPLIT_CHUNK), SPLIT_CHUNK),
    ]
}

/// The high-level GPU codec cuts buffers into chunks (`expand_chunks`), lays out their streams
/// (`assemble_streams`), moves chunks into and out of them with `batched_copy` and finds a
/// stream's chunks from its tables (`expand_chunk_tables`).
const CODEC_KERNELS: [&str; 4] = ["assemble_streams", "batched_copy", "expand_chunks", "expand_chunk_tables"];

/// Every `.entry` of the committed PTX (both architectures' files declare the same entries).
fn ptx_entries() -> BTreeSet<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels/ptx");
    let mut all = Vec::new();
    for arch in ["sm_80", "sm_90"] {
        let ptx = std::fs::read_to_string(dir.join(format!("gpucomp_{arch}.ptx"))).expect("kernels/ptx");
        let entries: BTreeSet<String> = ptx
            .lines()
            .filter_map(|l| l.trim().strip_prefix(".visible .entry "))
            .map(|l| l.split('(').next().unwrap().trim().to_string())
            .collect();
        all.push(entries);
    }
    assert_eq!(all[0], all[1], "the sm_80 and sm_90 PTX declare different entries");
    all.pop().unwrap()
}

/// The launch list covers every kernel of the PTX, and names none that is not there: a new
/// kernel fails this test (and the GPU one) until it gets a launch, so no kernel escapes the
/// sanitizer.
#[test]
fn sanitizer_launches_cover_every_ptx_kernel() {
    let launched: BTreeSet<String> =
        launches().iter().flat_map(|l| l.kernels.iter()).chain(&CODEC_KERNELS).map(|k| k.to_string()).collect();
    let entries = ptx_entries();
    let missing: Vec<_> = entries.difference(&launched).collect();
    let unknown: Vec<_> = launched.difference(&entries).collect();
    assert!(missing.is_empty(), "kernels of the PTX that the sanitizer run does not launch: {missing:?}");
    assert!(unknown.is_empty(), "launch list names kernels not in the PTX: {unknown:?}");
}

/// One batched round trip of `l` on the GPU: compression (statuses success; on the CPU codec for
/// an algorithm without a GPU compressor), the size query (the chunks' sizes) and decompression
/// (the input back).
fn round_trip(g: &Gpu, l: &Launch) {
    let s = g.stream();
    let what = format!("{:?}", l.algorithm);
    let codec = batched::for_algorithm(&l.algorithm).unwrap();
    let pieces: Vec<&[u8]> = l.input.chunks(l.chunk).collect();
    let n = pieces.len();
    let max = l.chunk.min(l.input.len());
    let bound = codec.max_compressed_chunk_size(max).unwrap().next_multiple_of(16);
    let stride = l.chunk.next_multiple_of(16);
    let mut host = vec![0u8; n * stride];
    for (i, p) in pieces.iter().enumerate() {
        host[i * stride..i * stride + p.len()].copy_from_slice(p);
    }
    let input = s.clone_htod(&host).unwrap();
    let mut compressed = s.alloc_zeros::<u8>(n * bound).unwrap();
    let (ib, cb) = (input.device_ptr(s).0, compressed.device_ptr(s).0);
    let slots = |base: u64, step: usize| (0..n as u64).map(|i| base + i * step as u64).collect::<Vec<_>>();
    let in_bytes: Vec<u64> = pieces.iter().map(|p| p.len() as u64).collect();
    let (in_ptrs, c_ptrs) = (slots(ib, stride), slots(cb, bound));
    let c_bytes = if l.algorithm.has_gpu_compression() {
        let a = common::gpu::Addressed {
            in_ptrs: &in_ptrs,
            in_bytes: &in_bytes,
            out_ptrs: &c_ptrs,
            out_capacity: &[],
            max,
        };
        // SAFETY: the addresses are live slots of `input` and `compressed` of the stated sizes.
        let (c_bytes, statuses) = unsafe { common::gpu::compress_at(g, codec.as_ref(), &a) };
        assert!(statuses.iter().all(|&st| st == Status::Success), "{what}: compress");
        c_bytes
    } else {
        let mut host_c = vec![0u8; n * bound];
        let sizes = pieces
            .iter()
            .zip(host_c.chunks_mut(bound))
            .map(|(p, slot)| cpu::compress_chunk(&l.algorithm, max, p, slot).expect("CPU compression") as u64)
            .collect();
        s.memcpy_htod(&host_c, &mut compressed).unwrap();
        sizes
    };
    let (d_ptrs, d_bytes) = (s.clone_htod(&c_ptrs).unwrap(), s.clone_htod(&c_bytes).unwrap());
    let mut sizes = s.alloc_zeros::<u64>(n).unwrap();
    // SAFETY: the compressed chunks are live and `d_bytes` holds their lengths.
    unsafe { codec.decompressed_size_async(g, &d_ptrs, &d_bytes, n, &mut sizes).unwrap() };
    assert_eq!(s.clone_dtoh(&sizes).unwrap(), in_bytes, "{what}: size query");
    let output = s.alloc_zeros::<u8>(n * stride).unwrap();
    let a = common::gpu::Addressed {
        in_ptrs: &c_ptrs,
        in_bytes: &c_bytes,
        out_ptrs: &slots(output.device_ptr(s).0, stride),
        out_capacity: &vec![stride as u64; n],
        max,
    };
    // SAFETY: as above; the outputs are disjoint slots of `output`.
    let (actual, statuses) = unsafe { common::gpu::decompress_at(g, codec.as_ref(), &a, true) };
    assert!(statuses.unwrap_or_default().iter().all(|&st| st == Status::Success), "{what}: decompress");
    assert_eq!(actual, in_bytes, "{what}: decompressed sizes");
    let back = s.clone_dtoh(&output).unwrap();
    for (i, p) in pieces.iter().enumerate() {
        assert!(back[i * stride..i * stride + p.len()] == **p, "{what}: chunk {i} decodes to its input");
    }
}

/// Launches every kernel of the PTX once on small inputs (the launch list, then the high-level
/// codec for [`CODEC_KERNELS`]), each result checked; `hostile.sh` runs this under
/// compute-sanitizer's memcheck, racecheck, synccheck and initcheck. Prints the kernels covered.
#[test]
#[ignore = "needs a CUDA device: run with --include-ignored on a GPU machine"]
fn gpu_every_kernel_once() {
    let g = common::gpu::gpu();
    let mut covered = BTreeSet::new();
    for l in launches() {
        round_trip(&g, &l);
        covered.extend(l.kernels.iter().map(|k| k.to_string()));
    }
    let text = lineitem_text(3 * SANITIZE_CHUNK + 100);
    let codec = Codec::on(Algorithm::default(), Device::Gpu(g.clone())).with_chunk_size(SANITIZE_CHUNK).unwrap();
    let stream = codec.compress(&text).unwrap();
    assert!(codec.decompress(&stream).unwrap() == text, "the high-level codec's round trip");
    g.synchronize().unwrap();
    covered.extend(CODEC_KERNELS.iter().map(|k| k.to_string()));
    let entries = ptx_entries();
    assert_eq!(covered, entries, "kernels launched against the PTX's entries");
    println!(
        "kernels covered: {} of {}: {}",
        covered.len(),
        entries.len(),
        covered.into_iter().collect::<Vec<_>>().join(" ")
    );
}
