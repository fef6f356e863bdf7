//! The ANS decompression kernels, run in the CPU simulator (`gpucomp_kernels::sim`), against
//! gpucomp's CPU reference codec (`gpucomp::cpu::ans`): every golden nvCOMP chunk and chunks of
//! the CPU encoder with every option decode to the reference's bytes; hand-assembled chunks
//! reach the paths encoders never take (probability bits above 11, sub-chunk sizes that split
//! FLOAT16 pairs and FLOAT32 quads); corrupted, truncated and garbage chunks and too-small outputs
//! give the reference's status, never a panic, a hang or a write outside the output; the size
//! kernel agrees with `decompressed_size`.
mod common;

use common::{
    ans_float8_input, ans_float8_options, ans_option_sets, f16_bits, goldens, lineitem_text, Rng, ANS_FLOAT8_LENGTHS,
};
use gpucomp::algorithm::ans::{AnsMode, AnsOptions};
use gpucomp::container::{NativeStream, RawStream, WithUncompressedSize};
use gpucomp::cpu::ans::{self as cpu, float, histogram, normalize, rans, table, ChunkHeader, Layout, Table};
use gpucomp::DataType;
use gpucomp_kernels::ans::{self as k, decompress::decompress, decompress::Shared};
use gpucomp_kernels::batch::DecompressArgs;
use gpucomp_kernels::sim::launch;
use gpucomp_kernels::status;

/// `ans_decompress` at `K` thread blocks per chunk, and the CPU decoder.
struct Split<const K: u32>;

/// `ans_decompress` at one block per chunk (no per-chunk words).
type Ans = Split<1>;

impl<const K: u32> common::sim::Decoder for Split<K> {
    fn launch(b: DecompressArgs) {
        let n = b.num_chunks;
        // Fewer groups of K blocks than chunks: the grid loop runs too (and shared memory is
        // reused).
        let grid = k::split_grid_dim(n.div_ceil(3).max(1), K);
        let mut parts = vec![0u32; n as usize];
        // An address (the closure runs on every simulated thread); null at one block per chunk.
        let at = if K == 1 { 0 } else { parts.as_mut_ptr() as usize };
        launch::<Shared, _>(grid, k::BLOCK_THREADS, |t, smem| unsafe { decompress(t, smem, b, at as *mut u32, K) });
        if K > 1 {
            // Every block of every chunk added itself once.
            for (i, w) in parts.iter().enumerate() {
                assert_eq!(w & 0xFFFF, K, "chunk {i}: blocks counted");
            }
        }
    }

    fn reference(chunk: &[u8], cap: usize) -> (i32, Vec<u8>) {
        common::sim::verdict(cap, |out| cpu::decompress(chunk, out), |e| e as i32)
    }
}

/// `ans_decompress` on `chunks` with output capacities `caps`, placed as `shift` says (see
/// [`common::sim::decompress`]).
fn gpu_decompress(chunks: &[&[u8]], caps: &[usize], shift: impl Fn(usize) -> (usize, usize)) -> Vec<common::sim::Out> {
    common::sim::decompress(chunks, caps, shift, <Ans as common::sim::Decoder>::launch)
}

/// Decodes `chunks` on the simulated GPU (inputs and outputs placed at byte offsets
/// `shift(i) = (input, output)` from 16-aligned buffers) and checks every one against the
/// reference; returns how many decoded successfully.
fn check_at(what: &str, chunks: &[&[u8]], caps: &[usize], shift: impl Fn(usize) -> (usize, usize)) -> usize {
    common::sim::check_decompress::<Ans>(what, chunks, caps, shift).1
}

fn check(what: &str, chunks: &[&[u8]], caps: &[usize]) -> usize {
    check_at(what, chunks, caps, |_| (0, 0))
}

/// Exact-size capacities.
fn sizes(chunks: &[&[u8]]) -> Vec<usize> {
    chunks.iter().map(|c| cpu::decompressed_size(c).unwrap_or(0)).collect()
}

// ---------------------------------------------------------------------------------------------
// data

/// Normal-distributed FLOAT16 weights (`n` bytes, `n` even).
fn f16_weights(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n / 2).flat_map(|_| f16_bits((rng.normal() * 0.02) as f32).to_le_bytes()).collect()
}

/// A FLOAT32 random walk (`n` bytes, a multiple of 4).
fn f32_walk(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut x = 100.0f32;
    (0..n / 4)
        .flat_map(|_| {
            x += rng.normal() as f32;
            x.to_le_bytes()
        })
        .collect()
}

/// Inputs for a mode: random, skewed, text-like, few symbols (all `n` bytes, whole elements).
fn inputs(rng: &mut Rng, mode: AnsMode, n: usize) -> Vec<(&'static str, Vec<u8>)> {
    let text = lineitem_text(n + 200);
    let mut v = vec![
        ("random", rng.bytes(n)),
        ("skewed", (0..n).map(|_| (rng.below(64).pow(2) / 64) as u8 + b'a').collect()),
        ("text", text[..n].to_vec()),
        ("two symbols", (0..n).map(|i| if i % 7 == 0 { 1 } else { 200 }).collect()),
    ];
    match mode {
        AnsMode::Float16 => v.push(("weights", f16_weights(rng, n))),
        AnsMode::Float32 => v.push(("walk", f32_walk(rng, n))),
        _ => v.push(("constant", vec![b'x'; n])),
    }
    v
}

// ---------------------------------------------------------------------------------------------
// valid chunks

/// Every golden nvCOMP chunk and its original bytes.
fn golden_chunks() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut originals: Vec<Vec<u8>> = Vec::new();
    for g in goldens("ANS") {
        match g.kind.as_str() {
            "NVCOMP_NATIVE" => {
                let s = NativeStream::parse(&g.stream).unwrap();
                let cs = s.uncomp_chunk_size() as usize;
                for i in 0..s.num_chunks() {
                    chunks.push(s.chunk(i).unwrap().to_vec());
                    originals.push(g.input[i * cs..((i + 1) * cs).min(g.input.len())].to_vec());
                }
            }
            "RAW" => {
                chunks.push(RawStream::new(&g.stream).payload().to_vec());
                originals.push(g.input.clone());
            }
            _ => {
                chunks.push(WithUncompressedSize::parse(&g.stream).unwrap().payload().to_vec());
                originals.push(g.input.clone());
            }
        }
    }
    (chunks, originals)
}

#[test]
fn golden_chunks_decode() {
    let (chunks, originals) = golden_chunks();
    let mode = |c: &Vec<u8>| c[11];
    println!(
        "{} golden ANS chunks ({} byte, {} FLOAT16, {} FLOAT32), {} bytes",
        chunks.len(),
        chunks.iter().filter(|c| mode(c) == 0).count(),
        chunks.iter().filter(|c| mode(c) == 1).count(),
        chunks.iter().filter(|c| mode(c) == 3).count(),
        originals.iter().map(Vec::len).sum::<usize>()
    );
    assert_eq!(chunks.len(), 191, "golden ANS chunks");
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let caps: Vec<usize> = originals.iter().map(Vec::len).collect();
    let got = gpu_decompress(&refs, &caps, |_| (0, 0));
    for (i, (st, actual, out)) in got.iter().enumerate() {
        assert_eq!(*st, status::SUCCESS, "golden chunk {i}");
        assert_eq!(*actual as usize, originals[i].len(), "golden chunk {i}");
        assert!(*out == originals[i], "golden chunk {i}: output differs");
    }
}

#[test]
fn cpu_chunks_with_every_option_decode() {
    let mut rng = Rng::fresh("ans kernels: options");
    for (ty, mode) in [
        (DataType::Uchar, AnsMode::Bytes),
        (DataType::Float16, AnsMode::Float16),
        (DataType::Float32, AnsMode::Float32),
    ] {
        let base = AnsOptions::for_type(ty);
        let sampled = base.with_histogram_reduction_log2(8).with_states_per_lane(1).with_max_sub_chunk_count(64);
        let variants = ans_option_sets(ty).into_iter().chain([sampled]);
        let w = mode.element_width();
        let mut chunks = Vec::new();
        let mut originals = Vec::new();
        for (vi, o) in variants.enumerate() {
            // Sizes: several sub-chunks (sc is at least 2048·width), tails of every tile kind.
            let n = [2048 * w * 2 + 260 * w, 517 * w, 2048 * w + 64 * w, 4100 * w + 34, 33 * w, 2048 * w][vi] / w * w;
            for (_, input) in inputs(&mut rng, mode, n) {
                // In a batch of larger chunks the sub-chunks are larger (here: one per chunk).
                let max_chunk = if vi % 2 == 0 { n } else { 4 * n };
                chunks.push(cpu::compress_to_vec_in_batch(&input, &o, max_chunk).unwrap());
                originals.push(input);
            }
        }
        let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
        let caps: Vec<usize> = originals.iter().map(|o| o.len() + 3).collect();
        let ok = check(&format!("{mode:?}"), &refs, &caps);
        assert_eq!(ok, chunks.len(), "{mode:?}: every chunk decodes");
        let got = gpu_decompress(&refs, &caps, |_| (0, 0));
        for (i, (_, _, out)) in got.iter().enumerate() {
            assert!(*out == originals[i], "{mode:?} chunk {i}: not the input");
        }
    }
}

#[test]
fn misaligned_inputs_and_outputs() {
    let mut rng = Rng::fresh("ans kernels: misaligned");
    let mut chunks = Vec::new();
    for (ty, mode) in [
        (DataType::Uchar, AnsMode::Bytes),
        (DataType::Float16, AnsMode::Float16),
        (DataType::Float32, AnsMode::Float32),
    ] {
        for (_, input) in inputs(&mut rng, mode, 3000 * mode.element_width()).into_iter().take(3) {
            chunks.push(cpu::compress_to_vec(&input, &AnsOptions::for_type(ty)).unwrap());
        }
    }
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let caps = sizes(&refs);
    let ok = check_at("misaligned", &refs, &caps, |i| (1 + i % 7, (3 * i) % 16));
    assert_eq!(ok, chunks.len());
}

/// A chunk assembled as `compress_to_vec_in_batch` does, but with any sub-chunk size `sc`
/// (a multiple of the symbol width) and probability bits `pb`.
fn assemble(input: &[u8], mode: AnsMode, sc: usize, spl: usize, pb: u8) -> Vec<u8> {
    let (raw, symbols) = float::split(input, mode);
    let (mn, norm) = match histogram::exact(&symbols) {
        Some((mn, counts)) if counts.len() > 1 => (mn, normalize::normalize_m2(&counts, pb).unwrap()),
        Some((mn, _)) => (mn, vec![1i32 << pb]),
        None => (0, vec![1i32 << pb]),
    };
    let stored = table::stored_entries(&norm);
    let tab = Table::from_entries(mn, pb, &stored).unwrap();
    let enc = rans::EncodeTable::new(&tab);
    let header = ChunkHeader {
        uncompressed_size: input.len() as u32,
        sub_chunk_size: sc as u32,
        min_symbol: mn,
        max_symbol: mn + (tab.len() - 1) as u8,
        probability_bits: pb,
        mode,
        states_per_lane: spl as u32,
    };
    let per_sub = sc / mode.bytes_per_symbol();
    let (mut body, mut sizes) = (Vec::new(), Vec::new());
    for i in 0..header.sub_chunk_count() {
        let start = body.len();
        let first = i * per_sub;
        rans::encode_sub_chunk(&symbols[first..first + header.sub_chunk_symbols(i)], spl, mode, &enc, &mut body)
            .unwrap();
        sizes.push((body.len() - start) as u32);
        if i + 1 < header.sub_chunk_count() {
            body.resize(body.len().next_multiple_of(16), 0);
        }
    }
    let layout = Layout::new(&header);
    let mut out = header.to_bytes().to_vec();
    for s in &sizes {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out.resize(layout.raw.start, 0);
    out.extend_from_slice(&raw);
    out.resize(layout.table.start, 0);
    for f in &stored {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out.resize(layout.data, 0);
    out.extend_from_slice(&body);
    out
}

#[test]
fn assembled_chunks_reach_the_rare_paths() {
    let mut rng = Rng::fresh("ans kernels: assembled");
    let mut chunks = Vec::new();
    let mut originals = Vec::new();
    for (mode, n) in [(AnsMode::Bytes, 3001), (AnsMode::Float16, 4102), (AnsMode::Float32, 4100)] {
        let w = mode.bytes_per_symbol();
        for (name, input) in inputs(&mut rng, mode, n).into_iter().skip(1).take(3) {
            // Odd sub-chunk sizes (FLOAT16 pairs and FLOAT32 quads split across sub-chunks,
            // unaligned outputs), and probability bits 12..16 (no lookup table) and 4, 2 and 0.
            for (sc, spl, pb) in
                [(1025 * w, 2, mode.probability_bits()), (97 * w, 1, 9), (700 * w, 2, 12), (w * 3000, 1, 16)]
            {
                let c = assemble(&input, mode, sc, spl, pb);
                assert_eq!(cpu::decompress_to_vec(&c).as_deref(), Ok(&input[..]), "{mode:?} {name} sc {sc} pb {pb}");
                chunks.push(c);
                originals.push(input.clone());
            }
        }
        let few: Vec<u8> = (0..n).map(|i| [3u8, 9, 200][i % 3]).collect();
        chunks.push(assemble(&few, mode, 512 * w, 2, 4));
        originals.push(few);
        if mode == AnsMode::Bytes {
            // Fewer slots than a thread of the lookup table's fill has (16).
            let three: Vec<u8> = (0..n).map(|i| [3u8, 4, 5, 4][i % 4]).collect();
            chunks.push(assemble(&three, mode, 512, 1, 2));
            originals.push(three);
        }
        let one = vec![77u8; n];
        chunks.push(assemble(&one, mode, 1024 * w, 1, 0));
        originals.push(one);
    }
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let caps = sizes(&refs);
    let ok = check("assembled", &refs, &caps);
    assert_eq!(ok, chunks.len());
    let got = gpu_decompress(&refs, &caps, |_| (0, 0));
    for (i, (_, _, out)) in got.iter().enumerate() {
        assert!(*out == originals[i], "assembled chunk {i}: not the input");
    }
}

/// One state per lane: the body unit is 256 symbols, so sub-chunks of `N mod 512` in 256..511
/// have body tiles past the last multiple of 512 (nvCOMP's samples txt300, fp8n1000.spl1, ...).
#[test]
fn one_state_sub_chunks_with_half_units_decode() {
    let mut rng = Rng::fresh("ans kernels: one state");
    let text = lineitem_text(70_000);
    let mut chunks = Vec::new();
    let mut originals = Vec::new();
    for (ty, mode) in [(DataType::Uchar, AnsMode::Bytes), (DataType::Float16, AnsMode::Float16)] {
        let w = mode.element_width();
        for n in [300usize, 1000, 700, 2348, 4396, 257, 511, 768, 20_000] {
            let n = n * w;
            let o = AnsOptions::for_type(ty).with_states_per_lane(1);
            let o64 = o.with_max_sub_chunk_count(64);
            for input in [text[..n].to_vec(), rng.compressible(n), inputs(&mut rng, mode, n).swap_remove(4).1] {
                for (opt, batch) in [(o, n), (o64, n), (o, 3 * n)] {
                    chunks.push(cpu::compress_to_vec_in_batch(&input, &opt, batch).unwrap());
                    originals.push(input.clone());
                }
            }
        }
    }
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let caps: Vec<usize> = originals.iter().map(Vec::len).collect();
    assert_eq!(check("one state", &refs, &caps), chunks.len());
    let got = gpu_decompress(&refs, &caps, |_| (0, 0));
    for (i, (_, _, out)) in got.iter().enumerate() {
        assert!(*out == originals[i], "one-state chunk {i}: not the input");
    }
}

/// nvCOMP's sample chunks of `tests/data/ans-samples/` (see its README and tests/ans_cpu.rs)
/// with the inputs they were cut from: (sample name, chunk, original bytes).
fn nvcomp_samples() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ans-samples");
    let read = |p: &str| std::fs::read(dir.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let list = String::from_utf8(read("samples.csv")).unwrap();
    let mut out = Vec::new();
    for line in list.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let input = read(&format!("inputs/{}", f[1]));
        let piece: usize = f[2].parse().unwrap();
        // u64 count, u64 sizes, the chunks back to back.
        let b = read(&format!("{}.chunks", f[0]));
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap()) as usize;
        let mut off = 8 + 8 * u64_at(0);
        for (i, original) in input.chunks(piece).enumerate() {
            let len = u64_at(8 + 8 * i);
            out.push((f[0].to_string(), b[off..off + len].to_vec(), original.to_vec()));
            off += len;
        }
    }
    out
}

#[test]
fn nvcomp_samples_decode() {
    let samples = nvcomp_samples();
    let (mut fp8, mut one_state) = (0, 0);
    for (_, c, _) in &samples {
        fp8 += (c[11] == 2) as usize;
        one_state += (c[12] == 1) as usize;
    }
    println!("{} nvCOMP sample chunks ({fp8} FLOAT8, {one_state} with one state)", samples.len());
    assert!(fp8 >= 20 && one_state >= 25);
    let refs: Vec<&[u8]> = samples.iter().map(|(_, c, _)| &c[..]).collect();
    let caps: Vec<usize> = samples.iter().map(|(_, _, o)| o.len()).collect();
    let got = gpu_decompress(&refs, &caps, |_| (0, 0));
    for (i, ((name, _, original), (st, actual, out))) in samples.iter().zip(&got).enumerate() {
        assert_eq!(*st, status::SUCCESS, "sample {name} chunk {i}");
        assert_eq!(*actual as usize, original.len(), "sample {name} chunk {i}");
        assert!(out == original, "sample {name} chunk {i}: output differs");
    }
}

/// FLOAT8 E4M3 chunks of the CPU encoder: random bytes and realistic values, odd lengths (1, 2
/// and 3 values included), seeded (tail-less) and tailed sub-chunks, a one-byte last sub-chunk,
/// one and two states per lane, 4 and 64 sub-chunks, sampled histograms; also misaligned.
#[test]
fn float8_chunks_decode() {
    let mut rng = Rng::fresh("ans kernels: float8");
    let mut chunks = Vec::new();
    let mut originals = Vec::new();
    for (li, &n) in ANS_FLOAT8_LENGTHS.iter().enumerate() {
        let text = lineitem_text(n + 200);
        for (vi, o) in ans_float8_options().iter().enumerate() {
            let input = ans_float8_input(&mut rng, &text, n, li + vi);
            // In a batch of larger chunks the sub-chunks are larger.
            let batch = if vi % 2 == 0 { n } else { 3 * n };
            chunks.push(cpu::compress_to_vec_in_batch(&input, o, batch).unwrap());
            originals.push(input);
        }
    }
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let caps: Vec<usize> = originals.iter().map(|o| o.len() + 3).collect();
    assert_eq!(check("float8", &refs, &caps), chunks.len());
    let got = gpu_decompress(&refs, &caps, |_| (0, 0));
    for (i, (_, _, out)) in got.iter().enumerate() {
        assert!(out[..originals[i].len()] == originals[i], "float8 chunk {i}: not the input");
    }
    assert_eq!(check_at("float8 misaligned", &refs, &caps, |i| (1 + i % 7, (3 * i) % 16)), chunks.len());
}

#[test]
fn edge_sizes_decode() {
    let text = lineitem_text(5000);
    let mut chunks = Vec::new();
    for n in [0usize, 1, 2, 31, 32, 63, 64, 65, 255, 256, 511, 512, 513, 2047, 2048, 2049] {
        chunks.push(cpu::compress_to_vec(&text[..n], &AnsOptions::default()).unwrap());
        let f16 = AnsOptions::for_type(DataType::Float16);
        chunks.push(cpu::compress_to_vec(&text[..n / 2 * 2], &f16).unwrap());
        let f32 = AnsOptions::for_type(DataType::Float32).with_states_per_lane(1);
        chunks.push(cpu::compress_to_vec(&text[..n / 4 * 4], &f32).unwrap());
    }
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let caps = sizes(&refs);
    assert_eq!(check("edge sizes", &refs, &caps), chunks.len());
}

// ---------------------------------------------------------------------------------------------
// hostile input

/// Hostile chunks and their output capacities: too-small outputs, truncations, every header
/// field, bad tables and sub-chunk sizes, missing words, bad states, bit flips, garbage.
fn hostile_set() -> (Vec<Vec<u8>>, Vec<usize>) {
    let mut rng = Rng::fresh("ans kernels: hostile");
    let mut base = Vec::new();
    for (ty, mode, spl) in [
        (DataType::Uchar, AnsMode::Bytes, 2),
        (DataType::Char, AnsMode::Bytes, 1),
        (DataType::Float16, AnsMode::Float16, 2),
        (DataType::Float32, AnsMode::Float32, 1),
        (DataType::Float8E4M3, AnsMode::Float8, 2),
        (DataType::Float8E4M3, AnsMode::Float8, 1),
    ] {
        // FLOAT8: realistic values; 8193 bytes make seeded sub-chunks and an empty last one.
        let input = match mode {
            AnsMode::Float8 => rng.e4m3_normals(8193 - 4096 * (spl as usize - 1), 4.0),
            _ => inputs(&mut rng, mode, 2200 * mode.element_width()).swap_remove(2).1,
        };
        let o = AnsOptions::for_type(ty).with_states_per_lane(spl).with_max_sub_chunk_count(64);
        base.push(cpu::compress_to_vec(&input, &o).unwrap());
    }
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut caps = Vec::new();
    let set32 = |c: &mut Vec<u8>, at: usize, v: u32| c[at..at + 4].copy_from_slice(&v.to_le_bytes());
    for c in &base {
        let n = cpu::decompressed_size(c).unwrap();
        let parsed = cpu::Chunk::parse(c).unwrap();
        let (table, data) = (parsed.layout.table.clone(), parsed.layout.data);
        let nsub = parsed.sub_chunks.len();
        // Start of the last sub-chunk with symbols (a FLOAT8 one of one byte is empty).
        let last =
            parsed.sub_chunks.iter().rev().find(|s| !s.is_empty()).unwrap().as_ptr() as usize - c.as_ptr() as usize;
        let mut push = |d: Vec<u8>, cap: usize| {
            chunks.push(d);
            caps.push(cap);
        };
        // Output one byte short, zero capacity; the exact size.
        push(c.clone(), n - 1);
        push(c.clone(), 0);
        push(c.clone(), n);
        // Truncated: inside the header, the tables, the first and the last sub-chunk.
        for cut in [0, 15, 16, table.start + 1, data, data + 100, c.len() - 130, c.len() - 1] {
            push(c[..cut].to_vec(), n);
        }
        // Header fields: mn > mx, range past 255, pb 17 / off by one, mode 2 / 4, spl 0 / 3, sc 0 / 1.
        for f in [
            &(|d: &mut Vec<u8>| d[8] = d[9].wrapping_add(1)) as &dyn Fn(&mut Vec<u8>),
            &|d: &mut Vec<u8>| d[9] = 255,
            &|d: &mut Vec<u8>| d[10] = 17,
            &|d: &mut Vec<u8>| d[10] += 1,
            &|d: &mut Vec<u8>| d[11] = 2,
            &|d: &mut Vec<u8>| d[11] = 4,
            &|d: &mut Vec<u8>| set32(d, 12, 0),
            &|d: &mut Vec<u8>| set32(d, 12, 3),
            &|d: &mut Vec<u8>| set32(d, 12, 3 - u32::from_le_bytes(d[12..16].try_into().unwrap())),
            &|d: &mut Vec<u8>| set32(d, 4, 0),
            &|d: &mut Vec<u8>| set32(d, 4, 1),
            &|d: &mut Vec<u8>| set32(d, 0, u32::MAX),
            &|d: &mut Vec<u8>| set32(d, 0, (1 << 25) + 4),
        ] {
            let mut d = c.clone();
            f(&mut d);
            push(d, n);
        }
        // Table sums: one entry off by one either way, an entry 0xFFFF.
        for (at, f) in [(table.start, 1i32), (table.start + 2 * (table.len() / 4), -1)] {
            let mut d = c.clone();
            let v = u16::from_le_bytes([d[at], d[at + 1]]).wrapping_add(f as u16);
            d[at..at + 2].copy_from_slice(&v.to_le_bytes());
            push(d, n);
        }
        let mut d = c.clone();
        d[table.start..table.start + 2].copy_from_slice(&[0xff, 0xff]);
        push(d, n);
        // Sub-chunk sizes: below the states, odd words, past the end, huge, one more or less.
        for (k, v) in [(0, 255u32), (0, 257), (nsub - 1, 1 << 20), (0, u32::MAX), (nsub / 2, 0)] {
            let mut d = c.clone();
            set32(&mut d, 16 + 4 * k, v);
            push(d, n);
        }
        for dv in [2i32, -2, 16, -16] {
            let mut d = c.clone();
            let v = u32::from_le_bytes(d[16..20].try_into().unwrap());
            set32(&mut d, 16, v.wrapping_add(dv as u32));
            push(d, n);
        }
        // Words missing: the first sub-chunk without its lowest 16 bytes (its size 16 less, so
        // the later sub-chunks keep their offsets): its words run out inside its last whole tile.
        let s0 = u32::from_le_bytes(c[16..20].try_into().unwrap());
        let mut d = c[..data].to_vec();
        d.extend_from_slice(&c[data + 16..]);
        set32(&mut d, 16, s0 - 16);
        push(d, n);
        // States: below 2^16, zero (last sub-chunk), maximal (inside the words or states).
        for (at, v) in [(c.len() - 4, 0xffffu32), (c.len() - 128, 0), (last + 300, u32::MAX)] {
            let mut d = c.clone();
            set32(&mut d, at.min(c.len() - 4), v);
            push(d, n);
        }
        // Bit flips in the words and states of the last sub-chunk, anywhere, and random bytes.
        for _ in 0..6 {
            let mut d = c.clone();
            let at = last + rng.index(c.len() - last);
            d[at] ^= 1 << rng.below(8);
            push(d, n);
            let mut d = c.clone();
            let at = rng.index(c.len());
            d[at] ^= 1 << rng.below(8);
            push(d, n);
            let mut d = c.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.index(data);
                d[at] = rng.next() as u8;
            }
            push(d, n + 16);
        }
        // Trailing bytes are ignored.
        let mut d = c.clone();
        d.extend_from_slice(&[7u8; 40]);
        push(d, n);
    }
    // FLOAT8 of one value (no symbols: an empty sub-chunk, the all-zero one-entry table at 26):
    // a nonempty sub-chunk, a full or a wrong table, two zero entries, cut before the sub-chunk,
    // three values (one symbol) with the zero table.
    let one = cpu::compress_to_vec(&[0xac], &AnsOptions::for_type(DataType::Float8E4M3)).unwrap();
    for (at, v, cut) in [(16, 16u8, 32), (27, 8, 32), (26, 1, 32), (9, 1, 32), (0, 0, 31), (0, 3, 32)] {
        let mut d = one[..cut].to_vec();
        d[at] = v;
        chunks.push(d);
        caps.push(4);
    }
    // Garbage: random bytes, and random bytes behind a plausible header.
    for i in 0..6 {
        let mut g = rng.bytes(100 + 1500 * i);
        if i >= 3 {
            g[..16].copy_from_slice(&base[i % base.len()][..16]);
        }
        chunks.push(g);
        caps.push(20_000);
    }
    (chunks, caps)
}

#[test]
fn hostile_chunks_and_small_outputs() {
    let (chunks, caps) = hostile_set();
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let ok = check("hostile", &refs, &caps);
    println!("hostile: {ok} of {} chunks decoded (as the reference)", chunks.len());
    assert!(ok < chunks.len() / 3, "most hostile chunks fail");
}

/// `out_actual` and `statuses` may be null (each alone is still written); a null output pointer
/// with a nonzero size is a corrupt chunk.
#[test]
fn null_result_arrays() {
    let input = lineitem_text(3000);
    let c = cpu::compress_to_vec(&input, &AnsOptions::default()).unwrap();
    common::sim::check_null_result_arrays::<Ans>(&c, &input);
}

// ---------------------------------------------------------------------------------------------
// several blocks per chunk

/// Decodes `chunks` at `K` blocks per chunk and checks every chunk against the reference (as
/// at one block per chunk); returns the results.
fn check_split<const K: u32>(what: &str, chunks: &[&[u8]], caps: &[usize]) -> Vec<common::sim::Out> {
    common::sim::check_decompress::<Split<K>>(&format!("{what}, {K} blocks per chunk"), chunks, caps, |_| (0, 0)).0
}

/// Every golden chunk decodes to its original at 2, 3 and 8 blocks per chunk (the golden
/// chunks of 64 KiB have 2 groups of 4 sub-chunks: blocks with nothing to decode at 3 and 8).
#[test]
fn golden_chunks_decode_split_across_blocks() {
    let (chunks, originals) = golden_chunks();
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let caps: Vec<usize> = originals.iter().map(Vec::len).collect();
    let runs = [check_split::<2>("golden", &refs, &caps), check_split::<3>("golden", &refs, &caps), {
        check_split::<8>("golden", &refs, &caps)
    }];
    for got in runs {
        for (i, (st, _, out)) in got.iter().enumerate() {
            assert_eq!(*st, status::SUCCESS, "golden chunk {i}");
            assert!(*out == originals[i], "golden chunk {i}: output differs");
        }
    }
}

/// Chunks of 40 or 41 sub-chunks (10 or 11 groups of 4: two batches of the size table) of every
/// mode, an odd FLOAT8 size among them, one and two states per lane.
fn many_sub_chunks() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut rng = Rng::fresh("ans kernels: split");
    let text = lineitem_text(40 * 2048 + 777);
    let data: [(DataType, u8, Vec<u8>); 5] = [
        (DataType::Uchar, 2, text.clone()),
        (DataType::Uchar, 1, text),
        (DataType::Float16, 2, f16_weights(&mut rng, 40 * 4096 + 600)),
        (DataType::Float32, 2, f32_walk(&mut rng, 40 * 8192 + 44)),
        (DataType::Float8E4M3, 2, rng.e4m3_normals(40 * 4096 + 1001, 4.0)),
    ];
    let mut chunks = Vec::new();
    let mut originals = Vec::new();
    for (ty, spl, input) in data {
        // 64 sub-chunks at most: the smallest sub-chunks, 2048 symbols.
        let o = AnsOptions::for_type(ty).with_states_per_lane(spl).with_max_sub_chunk_count(64);
        let c = cpu::compress_to_vec(&input, &o).unwrap();
        assert_eq!(cpu::Chunk::parse(&c).unwrap().sub_chunks.len(), 41, "{ty:?}");
        chunks.push(c);
        originals.push(input);
    }
    (chunks, originals)
}

/// Chunks of many sub-chunks decode to their inputs at 2, 3 (a step of 12 sub-chunks), 8 (32:
/// one batch), 9 (36: batches where a block has nothing) and 40 blocks per chunk (more than
/// the chunks' groups).
#[test]
fn chunks_of_many_sub_chunks_decode_split_across_blocks() {
    let (chunks, originals) = many_sub_chunks();
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let caps: Vec<usize> = originals.iter().map(|o| o.len() + 5).collect();
    let runs = [
        check_split::<1>("many sub-chunks", &refs, &caps),
        check_split::<2>("many sub-chunks", &refs, &caps),
        check_split::<3>("many sub-chunks", &refs, &caps),
        check_split::<8>("many sub-chunks", &refs, &caps),
        check_split::<9>("many sub-chunks", &refs, &caps),
        check_split::<40>("many sub-chunks", &refs, &caps),
    ];
    for got in runs {
        for (i, (st, actual, out)) in got.iter().enumerate() {
            assert_eq!((*st, *actual as usize), (status::SUCCESS, originals[i].len()), "chunk {i}");
            assert!(*out == originals[i], "chunk {i}: not the input");
        }
    }
}

/// A corrupt chunk fails alone whichever of its blocks finds it: truncated, a bad size-table
/// entry, a bad frequency table, a bad state in a sub-chunk of block 1 or of the last block
/// (which stores the chunk's result in the simulator, where blocks run in order), between
/// valid chunks.
#[test]
fn corrupt_chunks_fail_alone_split_across_blocks() {
    let (chunks, originals) = many_sub_chunks();
    let c = &chunks[0];
    let n = originals[0].len();
    let parsed = cpu::Chunk::parse(c).unwrap();
    let table = parsed.layout.table.clone();
    let start = |j: usize| parsed.sub_chunks[j].as_ptr() as usize - c.as_ptr() as usize;
    let end = |j: usize| start(j) + parsed.sub_chunks[j].len();
    let set32 = |d: &mut Vec<u8>, at: usize, v: u32| d[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let get32 = |d: &[u8], at: usize| u32::from_le_bytes(d[at..at + 4].try_into().unwrap());
    let mut batch = vec![c.clone()];
    // Truncated inside sub-chunk 20.
    batch.push(c[..start(20) + 100].to_vec());
    // Sub-chunk 5's size (block 1 of 2, 3 and 8) odd: not whole words.
    let mut d = c.clone();
    set32(&mut d, 16 + 4 * 5, get32(c, 16 + 4 * 5) + 1);
    batch.push(d);
    // A frequency off by one.
    let mut d = c.clone();
    d[table.start] = d[table.start].wrapping_add(1);
    batch.push(d);
    // A final state of sub-chunk 5 (block 1) and of sub-chunk 10 (block 2: the last of 3) off
    // by 2^16 (still a valid start): the decode ends elsewhere.
    for j in [5, 10] {
        let mut d = c.clone();
        let at = end(j) - 8;
        set32(&mut d, at, get32(c, at) ^ 1 << 16);
        batch.push(d);
    }
    batch.push(chunks[2].clone());
    let refs: Vec<&[u8]> = batch.iter().map(|c| &c[..]).collect();
    let mut caps = vec![n; batch.len()];
    caps[6] = originals[2].len();
    let bad = status::CANNOT_DECOMPRESS;
    let want = [status::SUCCESS, bad, bad, bad, bad, bad, status::SUCCESS];
    for got in [
        check_split::<1>("corrupt", &refs, &caps),
        check_split::<3>("corrupt", &refs, &caps),
        check_split::<8>("corrupt", &refs, &caps),
    ] {
        let statuses: Vec<i32> = got.iter().map(|r| r.0).collect();
        assert_eq!(statuses, want);
    }
}

/// The hostile chunks (of one group of sub-chunks: the other blocks decode nothing but check
/// the header, the table and the sizes) give the reference's statuses at 3 blocks per chunk.
#[test]
fn hostile_chunks_split_across_blocks() {
    let (chunks, caps) = hostile_set();
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    check_split::<3>("hostile", &refs, &caps);
}

// ---------------------------------------------------------------------------------------------
// size kernel

/// `ans_decompressed_size` on `chunks` (empty ones get a null pointer).
fn gpu_sizes(chunks: &[&[u8]]) -> Vec<u64> {
    let ptrs: Vec<Option<&[u8]>> = chunks.iter().map(|c| (!c.is_empty()).then_some(*c)).collect();
    common::sim::sizes(&ptrs, &common::sim::lens(chunks), |a| {
        // One block fewer than needed: threads loop.
        let grid = k::size_grid_dim(a.num_chunks).saturating_sub(1).max(1);
        launch::<(), _>(grid, k::SIZE_BLOCK_THREADS, |t, _| unsafe { k::decompressed_size(t, a) });
    })
}

#[test]
fn size_kernel_matches_the_reference() {
    let mut rng = Rng::fresh("ans kernels: sizes");
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    for (ty, n) in [
        (DataType::Uchar, 1000),
        (DataType::Float16, 998),
        (DataType::Float32, 1000),
        (DataType::Char, 0),
        (DataType::Float8E4M3, 1001),
    ] {
        chunks.push(cpu::compress_to_vec(&rng.compressible(n), &AnsOptions::for_type(ty)).unwrap());
    }
    let good = chunks.clone();
    for c in &good {
        for _ in 0..40 {
            let mut d = c.clone();
            let at = rng.index(16);
            d[at] = match rng.below(3) {
                0 => rng.next() as u8,
                1 => d[at] ^ 1 << rng.below(8),
                _ => [0, 1, 2, 3, 4, 0xff][rng.index(6)],
            };
            chunks.push(d);
        }
        chunks.push(c[..15].to_vec());
    }
    chunks.push(Vec::new());
    chunks.extend((0..200).map(|_| rng.bytes(16)));
    let refs: Vec<&[u8]> = chunks.iter().map(|c| &c[..]).collect();
    let got = gpu_sizes(&refs);
    let (mut valid, mut zero) = (0, 0);
    for (i, c) in refs.iter().enumerate() {
        let want = cpu::decompressed_size(c).map_or(0, |n| n as u64);
        assert_eq!(got[i], want, "chunk {i}: size");
        if cpu::decompressed_size(c).is_ok() {
            valid += 1;
        } else {
            zero += 1;
        }
    }
    assert_eq!(&got[..5], &[1000, 998, 1000, 0, 1001]);
    // The decompression kernel's static shared memory fits the default 48 KiB.
    const { assert!(k::SHARED_BYTES <= 48 << 10) };
    assert!(valid >= 4 && zero >= 100, "{valid} valid, {zero} rejected");
}
