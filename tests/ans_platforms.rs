//! The CPU ANS decoder on every platform this CPU runs (`rans::Platform`: the portable tile loop
//! and the x86-64 SIMD paths): the same status and the same output bytes as the portable
//! decoder on every chunk, valid or not. The cases: chunks of every mode, both `spl`, several
//! sub-chunk counts, sizes with and without tails, and the golden nvCOMP chunks; then mutations
//! of them that reach the tile decoder: truncations, bit flips, rewritten header, size-table,
//! frequency-table and state bytes, swapped frequencies, shortened word stacks.
mod common;

use common::{ans_option_sets, e4m3, f16_bits, goldens, lineitem_text, Rng};
use gpucomp::container::NativeStream;
use gpucomp::cpu::ans;
use gpucomp::cpu::ans::rans::Platform;
use gpucomp::{DataType, Format};

/// Output bytes each platform decodes into: the chunk's size, at most 1 MiB, prefilled.
fn output_len(chunk: &[u8]) -> usize {
    ans::decompressed_size(chunk).unwrap_or(0).min(1 << 20)
}

/// Decodes `chunk` on every platform and checks that status and output equal the portable
/// decoder's; returns whether it decoded.
fn same_on_every_platform(what: &str, chunk: &[u8]) -> bool {
    let n = output_len(chunk);
    let run = |p: Platform| {
        let mut out = vec![0xA5u8; n];
        let status = ans::decompress_on(p, chunk, &mut out);
        (status, out)
    };
    let (status, out) = run(Platform::portable());
    for p in Platform::all() {
        let (s, o) = run(p);
        assert_eq!(s, status, "{what}: status on {} differs from portable", p.name());
        assert!(o == out, "{what}: output on {} differs from portable ({status:?})", p.name());
    }
    status.is_ok()
}

/// Chunks of every mode and option kind, with their inputs.
fn encodings(rng: &mut Rng) -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let text = lineitem_text(1 << 17);
    let mut out = Vec::new();
    let sizes = [1usize, 300, 2048, 4097, 9000, 16384, 40000, 65536];
    for &n in &sizes {
        let start = rng.index(text.len() - n);
        let f16: Vec<u8> =
            (0..n.div_ceil(2)).flat_map(|_| f16_bits((rng.normal() * 0.02) as f32).to_le_bytes()).collect();
        let f32s: Vec<u8> = (0..n.div_ceil(4)).flat_map(|_| ((rng.normal() * 3.0) as f32).to_le_bytes()).collect();
        let inputs = [
            (DataType::Char, "text", text[start..start + n].to_vec()),
            (DataType::Uchar, "random", rng.bytes(n)),
            (DataType::Char, "skewed", (0..n).map(|_| (rng.below(64).pow(2) / 64) as u8).collect()),
            (DataType::Char, "two symbols", (0..n).map(|_| if rng.below(9) == 0 { 7 } else { 200 }).collect()),
            (DataType::Float16, "f16", f16),
            (DataType::Float32, "f32", f32s),
            (DataType::Float8E4M3, "e4m3", (0..n).map(|_| e4m3(rng.normal() * 0.5)).collect()),
        ];
        for (data_type, name, data) in inputs {
            for options in ans_option_sets(data_type) {
                let chunk = ans::compress_to_vec(&data, &options).expect("compress");
                out.push((format!("{name} {n} B, {options:?}"), chunk, data.clone()));
            }
        }
    }
    out
}

#[test]
fn valid_chunks_decode_alike_on_every_platform() {
    println!("platforms: {:?}", Platform::all().iter().map(|p| p.name()).collect::<Vec<_>>());
    let mut rng = Rng::fresh("ans platforms, valid");
    for (what, chunk, data) in encodings(&mut rng) {
        assert!(same_on_every_platform(&what, &chunk), "{what}: refused");
        let mut out = vec![0u8; data.len()];
        for p in Platform::all() {
            assert_eq!(ans::decompress_on(p, &chunk, &mut out), Ok(data.len()), "{what}");
            assert!(out == data, "{what}: round trip differs on {}", p.name());
        }
    }
    for g in goldens("ANS") {
        if g.kind != "NVCOMP_NATIVE" {
            continue;
        }
        let stream = NativeStream::parse(&g.stream).expect("golden stream");
        assert!(matches!(stream.format(), Format::Ans));
        for i in 0..stream.num_chunks() {
            let chunk = stream.chunk(i).expect("chunk");
            assert!(same_on_every_platform(&format!("{} chunk {i}", g.name), chunk), "{}: refused", g.name);
        }
    }
}

/// `chunk`'s sub-chunk ranges (offsets in `chunk`).
fn sub_chunk_ranges(chunk: &[u8]) -> Vec<std::ops::Range<usize>> {
    let parsed = ans::Chunk::parse(chunk).expect("a valid chunk");
    let base = chunk.as_ptr() as usize;
    parsed
        .sub_chunks
        .iter()
        .map(|s| {
            let start = s.as_ptr() as usize - base;
            start..start + s.len()
        })
        .collect()
}

/// Mutations of a valid chunk, each named.
fn mutations(rng: &mut Rng, chunk: &[u8]) -> Vec<(String, Vec<u8>)> {
    let parsed = ans::Chunk::parse(chunk).expect("a valid chunk");
    let (data, nsub, spl) = (parsed.layout.data, parsed.sub_chunks.len(), parsed.header.states_per_lane as usize);
    let table = parsed.layout.table.clone();
    let subs = sub_chunk_ranges(chunk);
    let mut out = Vec::new();
    let mut push = |name: String, c: Vec<u8>| out.push((name, c));
    for _ in 0..4 {
        let cut = rng.index(chunk.len());
        push(format!("truncated at {cut}"), chunk[..cut].to_vec());
    }
    for _ in 0..6 {
        let mut c = chunk.to_vec();
        let i = rng.index(c.len());
        c[i] ^= 1 << rng.below(8);
        push(format!("bit flip at {i}"), c);
    }
    for _ in 0..3 {
        let mut c = chunk.to_vec();
        let i = rng.index(data);
        c[i] = rng.next() as u8;
        push(format!("header/table byte {i} rewritten"), c);
    }
    if table.len() >= 4 {
        for _ in 0..3 {
            // Two frequencies swapped: the sum stays 2^pb, the symbols decode wrongly.
            let mut c = chunk.to_vec();
            let (a, b) = (table.start + 2 * rng.index(table.len() / 2), table.start + 2 * rng.index(table.len() / 2));
            let (fa, fb) = ([c[a], c[a + 1]], [c[b], c[b + 1]]);
            c[a..a + 2].copy_from_slice(&fb);
            c[b..b + 2].copy_from_slice(&fa);
            push(format!("frequencies at {a} and {b} swapped"), c);
        }
    }
    for pb in [9u8, 10, 11, 12, 16] {
        let mut c = chunk.to_vec();
        c[10] = pb;
        push(format!("pb {pb}"), c);
    }
    for _ in 0..3 {
        // A sub-chunk's words or final states: flips and rewrites.
        let s = subs[rng.index(nsub)].clone();
        if s.is_empty() {
            continue;
        }
        let mut c = chunk.to_vec();
        for _ in 0..1 + rng.below(4) {
            let i = s.start + rng.index(s.len());
            c[i] ^= 1 << rng.below(8);
        }
        push(format!("flips in sub-chunk at {}", s.start), c);
        let mut c = chunk.to_vec();
        let states = s.end.saturating_sub(128 * spl).max(s.start);
        let i = states + 4 * rng.index((s.end - states) / 4);
        c[i..i + 4].copy_from_slice(&(rng.next() as u32 | 1 << 16).to_le_bytes());
        push(format!("state at {i} rewritten"), c);
    }
    // The last sub-chunk's word stack shortened at the bottom (its size too): the decoder runs
    // out of words, in tiles that decode from a partial window.
    let last = subs[nsub - 1].clone();
    let words = last.len().saturating_sub(128 * spl) / 2;
    for drop in [1, 2, 7, 100, 255, 256, 257, 1000] {
        if drop > words {
            continue;
        }
        let mut c = chunk[..last.start].to_vec();
        c.extend_from_slice(&chunk[last.start + 2 * drop..]);
        let size_at = 16 + 4 * (nsub - 1);
        let size = u32::from_le_bytes(c[size_at..size_at + 4].try_into().unwrap()) - 2 * drop as u32;
        c[size_at..size_at + 4].copy_from_slice(&size.to_le_bytes());
        push(format!("last stack {drop} words short"), c);
    }
    out
}

#[test]
fn mutated_chunks_decode_alike_on_every_platform() {
    let mut rng = Rng::fresh("ans platforms, mutated");
    let (mut cases, mut decoded) = (0, 0);
    for (what, chunk, _) in encodings(&mut rng) {
        if ans::Chunk::parse(&chunk).map_or(true, |c| c.sub_chunks.iter().all(|s| s.is_empty())) {
            continue;
        }
        for (how, bad) in mutations(&mut rng, &chunk) {
            cases += 1;
            decoded += same_on_every_platform(&format!("{what}, {how}"), &bad) as usize;
        }
    }
    println!("{cases} mutated chunks, {decoded} decoded");
    assert!(cases > 5000 && decoded > 0, "{cases} cases, {decoded} decoded");
}
