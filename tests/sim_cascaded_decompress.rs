//! The Cascaded decompression kernel, run in the CPU simulator (`gpucomp_kernels::sim`), against
//! gpucomp's CPU reference decoder (`gpucomp::cpu::cascaded`): chunks of every integer type,
//! level and data shape written by the reference encoder, nvCOMP's golden asymmetric chunks, and
//! corrupted, truncated and garbage chunks and too-small outputs (same status as the reference,
//! same bytes when both succeed, nothing written past the output capacity).
mod common;

use common::{goldens, nvcomp_symmetric, Rng, INTEGER_TYPES};
use gpucomp::algorithm::cascaded::{CascadedMode, CascadedOptions};
use gpucomp::container::NativeStream;
use gpucomp::cpu::cascaded::{self as cpu, ChunkHeader};
use gpucomp::DataType;
use gpucomp_kernels::batch::DecompressArgs;
use gpucomp_kernels::cascaded::{self as k, decompress, Shared};
use gpucomp_kernels::sim::launch;
use gpucomp_kernels::status;

/// `cascaded_decompress` at `K` thread blocks per chunk, and the CPU decoder (every error is
/// `CANNOT_DECOMPRESS` on the GPU).
struct Split<const K: u32>;

/// `cascaded_decompress` at one block per chunk (no per-chunk words).
type Cascaded = Split<1>;

impl<const K: u32> common::sim::Decoder for Split<K> {
    fn launch(b: DecompressArgs) {
        let n = b.num_chunks;
        // Fewer groups of K blocks than chunks: the grid loop runs too.
        let grid = k::split_grid_dim(n.div_ceil(2).max(1), K);
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
        common::sim::verdict(cap, |out| cpu::decompress(chunk, out), |_| status::CANNOT_DECOMPRESS)
    }
}

/// Chunk `i`'s placement with `misalign`: its input `i % 4` bytes and its output `i % 3` bytes
/// past a 16-byte boundary (unaligned field reads, narrower copies); otherwise both aligned.
fn shift(misalign: bool) -> impl Fn(usize) -> (usize, usize) {
    move |i| if misalign { (i % 4, i % 3) } else { (0, 0) }
}

/// Decompresses `chunks` (with capacities `caps`) on the simulated GPU in launches of up to 24
/// and asserts the reference's status and bytes; returns how many succeeded.
fn check(chunks: &[Vec<u8>], caps: &[usize], what: &str) -> usize {
    check_at(chunks, caps, what, false)
}

/// [`check`], with the placement of [`shift`].
fn check_at(chunks: &[Vec<u8>], caps: &[usize], what: &str, misalign: bool) -> usize {
    let mut ok = 0;
    for (cs, ks) in chunks.chunks(24).zip(caps.chunks(24)) {
        let refs: Vec<&[u8]> = cs.iter().map(|c| c.as_slice()).collect();
        ok += common::sim::check_decompress::<Cascaded>(what, &refs, ks, shift(misalign)).1;
    }
    ok
}

fn opts(data_type: DataType, level: u8) -> CascadedOptions {
    CascadedOptions::default().with_data_type(data_type).with_compression_level(level)
}

/// `count` values of `width` bytes from `f(i)`, little-endian.
fn values(count: usize, width: usize, f: impl Fn(usize) -> u64) -> Vec<u8> {
    (0..count).flat_map(|i| f(i).to_le_bytes()[..width].to_vec()).collect()
}

/// Inputs of one element width: random (raw fallback), runs, ramps, constants, walks, small
/// values; sizes not multiples of 4 KiB.
fn shapes(width: usize, rng: &mut Rng) -> Vec<(&'static str, Vec<u8>)> {
    let n = |bytes: usize| bytes / width;
    let r: Vec<u64> = (0..4096).map(|_| rng.next()).collect();
    let mut walk = 1000u64;
    let walk: Vec<u64> = (0..4096)
        .map(|i| {
            walk = walk.wrapping_add(r[i] % 7).wrapping_sub(3);
            walk
        })
        .collect();
    vec![
        ("random", values(n(5000), width, |i| r[i % 4096] ^ (i as u64) << 7)),
        ("runs", values(n(6000), width, |i| r[(i / (1 + r[i / 50 % 4096] as usize % 40)) % 4096] % 5)),
        ("ramp", values(n(8192 + 300), width, |i| (i as u64).wrapping_mul(3).wrapping_add(100))),
        ("ramp-down-negative", values(n(6000), width, |i| 0u64.wrapping_sub(i as u64 * 7))),
        ("constant", values(n(4096 * 2 + width * 5), width, |_| 0x5a5a_5a5a_5a5a_5a5a)),
        ("walk", values(n(7000), width, |i| walk[i % 4096])),
        ("small", values(n(4100), width, |i| r[i % 4096] % 13)),
        ("stairs", values(n(6000), width, |i| (i / 37) as u64 * 1000)),
        ("one", values(1, width, |_| 42)),
        ("empty", vec![]),
        ("odd-bytes", (0..1001u32).map(|i| (i % 7) as u8).collect()),
    ]
}

/// Chunks of every integer type, level 1 and 3, every data shape: decoded exactly.
#[test]
fn every_type_level_and_shape() {
    let mut rng = Rng::fresh("every_type_level_and_shape");
    let (mut chunks, mut caps, mut raw) = (vec![], vec![], 0);
    for t in INTEGER_TYPES {
        let width = t.size();
        for (_, input) in shapes(width, &mut rng) {
            for level in [1, 3] {
                let c = cpu::compress_to_vec(&input, &opts(t, level)).unwrap();
                raw += ChunkHeader::parse(&c).unwrap().raw as usize;
                chunks.push(c);
                caps.push(input.len() + (rng.below(3) as usize) * width);
            }
        }
    }
    let ok = check(&chunks, &caps, "encoded chunks");
    println!("{ok} of {} chunks decoded ({raw} raw)", chunks.len());
    assert_eq!(ok, chunks.len());
    assert!(raw > 8 && raw < chunks.len() / 2);
}

/// TPC-H lineitem columns (small scale), 20 KiB chunks, level 3 and 1, and one 100 KiB chunk per
/// column at level 3 (25 blocks for 4- and 8-byte values: more than one block walk).
#[test]
fn tpch_columns() {
    let (mut ok, mut pk, mut q, mut pr, mut di, mut sd, mut ln) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for li in tpchgen::generators::LineItemGenerator::new(0.01, 1, 1).iter().take(26000) {
        ok.extend_from_slice(&li.l_orderkey.to_le_bytes());
        pk.extend_from_slice(&(li.l_partkey as i32).to_le_bytes());
        q.extend_from_slice(&(li.l_quantity as i32).to_le_bytes());
        pr.extend_from_slice(&li.l_extendedprice.into_inner().to_le_bytes());
        di.push(li.l_discount.into_inner() as u8);
        sd.extend_from_slice(&li.l_shipdate.into_inner().to_le_bytes());
        ln.push(li.l_linenumber as u8);
    }
    let cols = [
        (DataType::LongLong, ok),
        (DataType::Int, pk),
        (DataType::Int, q),
        (DataType::LongLong, pr),
        (DataType::Uchar, di),
        (DataType::Int, sd),
        (DataType::Uchar, ln),
    ];
    let (mut chunks, mut caps) = (vec![], vec![]);
    for (t, data) in &cols {
        for level in [3, 1] {
            for part in data.chunks(20 * 1024).take(2) {
                chunks.push(cpu::compress_to_vec(part, &opts(*t, level)).unwrap());
                caps.push(part.len());
            }
        }
        let part = &data[..data.len().min(100 * 1024)];
        chunks.push(cpu::compress_to_vec(part, &opts(*t, 3)).unwrap());
        caps.push(part.len());
    }
    assert_eq!(check(&chunks, &caps, "TPC-H columns"), chunks.len());
}

/// nvCOMP's golden chunks decode exactly: the first and last chunk of every asymmetric stream,
/// every chunk of the symmetric streams (the defective short chunk gives the 34 464 bytes its
/// header declares, like the reference).
#[test]
fn golden_chunks() {
    let (mut chunks, mut caps, mut sym) = (vec![], vec![], 0);
    for g in goldens("Cascaded") {
        let s = NativeStream::parse(&g.stream).unwrap_or_else(|e| panic!("{}: {e}", g.name));
        let cs = s.uncomp_chunk_size() as usize;
        let last = s.num_chunks().saturating_sub(1);
        for i in 0..s.num_chunks() {
            let c = s.chunk(i).unwrap();
            let symmetric = ChunkHeader::parse(c).unwrap().mode == CascadedMode::Symmetric;
            let want = g.input.len().min((i + 1) * cs) - i * cs;
            // Chunks of at most 64 KiB keep the simulation short.
            if !(symmetric || i == 0 || i == last) || want > 65536 {
                continue;
            }
            sym += symmetric as usize;
            chunks.push(c.to_vec());
            caps.push(want);
        }
    }
    let ok = check(&chunks, &caps, "golden chunks");
    println!("{} golden chunks decoded, {sym} of them symmetric", chunks.len());
    assert_eq!(ok, chunks.len());
    assert_eq!(sym, 13);
}

/// Corrupted (flipped bytes, including every header and block field), truncated and garbage
/// chunks, and outputs one byte too small: the reference's status, no panic, no hang, nothing
/// written past the capacity.
#[test]
fn hostile_input() {
    let mut rng = Rng::fresh("hostile_input");
    let mut samples = vec![];
    for (t, level) in [(DataType::Uchar, 3), (DataType::Short, 3), (DataType::Int, 1), (DataType::LongLong, 3)] {
        let width = t.size();
        for (name, mut input) in shapes(width, &mut rng) {
            if matches!(name, "runs" | "walk" | "stairs") {
                // Two blocks at most: hostile chunks mostly fail early, valid ones cost time.
                input.truncate(4096 + 8 * 50);
                samples.push((cpu::compress_to_vec(&input, &opts(t, level)).unwrap(), input.len()));
            }
        }
    }
    let (mut chunks, mut caps) = (vec![], vec![]);
    for (c, n) in &samples {
        // Too small by one byte, and a generous capacity.
        chunks.push(c.clone());
        caps.push(n - 1);
        // Truncations.
        for _ in 0..2 {
            let cut = rng.below(c.len() as u64) as usize;
            chunks.push(c[..cut].to_vec());
            caps.push(*n + 16);
        }
        // Single and multiple byte flips, biased to the headers of the first blocks.
        for k in 0..4 {
            let mut b = c.clone();
            let flips = 1 + k % 3;
            for _ in 0..flips {
                let at =
                    if k % 2 == 0 { rng.below(c.len().min(64) as u64) } else { rng.below(c.len() as u64) } as usize;
                b[at] ^= 1 << rng.below(8);
            }
            chunks.push(b);
            caps.push(*n + 16);
        }
        // Block fields set to extreme values: w0 size, slot mask and kinds, bit widths, counts.
        if let Ok(bl) = cpu::blocks(c) {
            for &(at, _) in bl.iter().take(2) {
                for (field, v) in [
                    (at, 0xffu8),
                    (at + 1, 0xff),
                    (at + 2, 0xff),
                    (at + 3, 0xff),
                    (at + 4, 0),
                    (at + 10, 0x40),
                    (at + 11, 0xff),
                    (at + 8, 0xff),
                ] {
                    if field < c.len() {
                        let mut b = c.clone();
                        b[field] = v;
                        chunks.push(b);
                        caps.push(*n + 16);
                    }
                }
            }
        }
    }
    // Garbage: random bytes behind a valid-looking header, and fully random.
    for k in 0..12 {
        let len = 8 + rng.below(600) as usize;
        let mut b = rng.bytes(len);
        if k % 2 == 0 {
            b[..4].copy_from_slice(&[0, 0, (k % 4 == 0) as u8, 0x80 + (k % 8) as u8]);
            b[4..8].copy_from_slice(&(rng.below(20000) as u32).to_le_bytes());
        }
        chunks.push(b);
        caps.push(20000);
    }
    // Too short for a header, and empty.
    chunks.push(vec![0, 0, 0]);
    caps.push(10);
    chunks.push(vec![]);
    caps.push(10);
    let ok = check(&chunks, &caps, "hostile chunks");
    println!("{} hostile chunks: {ok} still decode (flips in values)", chunks.len());
}

/// Chunks and outputs at every alignment (unaligned field reads, byte and word copies), valid
/// and corrupted: same results as aligned.
#[test]
fn misaligned_buffers() {
    let mut rng = Rng::fresh("misaligned_buffers");
    let (mut chunks, mut caps) = (vec![], vec![]);
    for t in [DataType::Uchar, DataType::Short, DataType::Uint, DataType::LongLong] {
        for (name, mut input) in shapes(t.size(), &mut rng) {
            // "small" is FOR-only: the unaligned output takes the staged copy.
            if matches!(name, "random" | "runs" | "ramp" | "walk" | "small") {
                input.truncate(4096 + 8 * 40);
                let c = cpu::compress_to_vec(&input, &opts(t, 3)).unwrap();
                let mut bad = c.clone();
                let at = rng.below(c.len() as u64) as usize;
                bad[at] ^= 0x10;
                chunks.extend([c, bad]);
                caps.extend([input.len(), input.len()]);
            }
        }
    }
    let ok = check_at(&chunks, &caps, "misaligned chunks", true);
    assert!(ok >= chunks.len() / 2, "{ok} of {}", chunks.len());
}

/// `out_actual` and `statuses` may be null (each alone is still written); a null output pointer
/// with a nonzero size is a corrupt chunk.
#[test]
fn null_result_arrays() {
    let input: Vec<u8> = (0..5000u32).map(|i| (i / 9) as u8).collect();
    let c = cpu::compress_to_vec(&input, &opts(DataType::Uchar, 3)).unwrap();
    common::sim::check_null_result_arrays::<Cascaded>(&c, &input);
}

/// Zigzag encoding of a 32-bit difference (the inverse of the decoders' unzigzag).
fn zigzag(d: u32) -> u32 {
    (d << 1) ^ ((d as i32 >> 31) as u32)
}

/// One symmetric sub-stream of the words `w` in a random form (test writer of the format the CPU
/// reference documents in `gpucomp::cpu::cascaded::symmetric`, which has no encoder): FOR (kind
/// 0 or 1), DELTA, zigzag DELTA or DELTA + FOR, as runs or not (runs also split at random inside
/// equal values), stored as bit planes, byte groups or whole words (mask `0xffffffff`), with
/// random bits in what decoders must ignore (entry 0 of the DELTA forms, filler values).
fn sym_substream(w: &[u32], rng: &mut Rng) -> Vec<u8> {
    let c = w.len();
    let rle = rng.below(3) == 0;
    let mut map = vec![0u32; c.div_ceil(32)];
    let vals: Vec<u32> = if rle {
        let mut v = vec![];
        for i in 0..c {
            if i == 0 || w[i] != w[i - 1] || rng.below(16) == 0 {
                map[i / 32] |= 1 << (i % 32);
                v.push(w[i]);
            }
        }
        v
    } else {
        w.to_vec()
    };
    let s = vals.len();
    let kind = rng.below(5) as u8;
    let d = |i: usize| vals[i].wrapping_sub(vals[i - 1]);
    let junk = rng.next() as u32 & 7;
    let (first, reference, stored): (u32, u32, Vec<u32>) = match kind {
        0 | 1 => {
            let r = if rng.below(4) == 0 { 0 } else { *vals.iter().min().unwrap() };
            (0, r, vals.iter().map(|v| v.wrapping_sub(r)).collect())
        }
        2 => (vals[0], 0, (0..s).map(|i| if i == 0 { junk } else { d(i) }).collect()),
        3 => (vals[0], 0, (0..s).map(|i| if i == 0 { junk } else { zigzag(d(i)) }).collect()),
        _ => {
            let r = (1..s).map(d).min_by_key(|&x| x as i32).unwrap_or(0);
            (vals[0], r, (0..s).map(|i| if i == 0 { junk } else { d(i).wrapping_sub(r) }).collect())
        }
    };
    let mut mask = stored.iter().fold(0, |a, &x| a | x);
    match rng.below(6) {
        0 => mask = u32::MAX,
        1 => mask |= 1 << rng.below(32),
        _ => {}
    }
    let l = s.div_ceil(8);
    let full: Vec<u32> = (0..8 * l).map(|i| if i < s { stored[i] } else { rng.next() as u32 & mask }).collect();
    let (has_first, has_for) = (kind >= 2, kind < 2 || kind == 4);
    let hdr = 6 + 4 * (has_first as usize + has_for as usize + rle as usize);
    let mut o = vec![(hdr - 1) as u8, kind | (rle as u8) << 6];
    o.extend(mask.to_le_bytes());
    if has_first {
        o.extend(first.to_le_bytes());
    }
    if has_for {
        o.extend(reference.to_le_bytes());
    }
    if rle {
        o.extend((4 * s as u32).to_le_bytes());
        o.extend(map.iter().flat_map(|m| m.to_le_bytes()));
    }
    let at = |j: usize| full[(j % l) * 8 + j / l];
    if mask == u32::MAX {
        o.extend((0..8 * l).flat_map(|j| at(j).to_le_bytes()));
        return o;
    }
    let mut b = 0;
    while b < 32 {
        if b % 8 == 0 && (mask >> b) & 0xff == 0xff {
            o.extend((0..8 * l).map(|j| (at(j) >> b) as u8));
            b += 8;
            continue;
        }
        if (mask >> b) & 1 == 1 {
            o.extend((0..l).map(|p| (0..8).fold(0u8, |a, r| a | (((full[8 * p + r] >> b) & 1) as u8) << r)));
        }
        b += 1;
    }
    o
}

/// A symmetric chunk of `data` (type `t`, 4 or 8 bytes) with every sub-stream in a random form;
/// an 8-byte partial last sub-block is one joined sub-stream or two, at random.
fn sym_chunk(data: &[u8], t: DataType, rng: &mut Rng) -> Vec<u8> {
    let width = t.size();
    let mut out = vec![0, 0, 1, 0x80 | t as u8];
    out.extend((data.len() as u32).to_le_bytes());
    let mut blocks = vec![];
    for blk in data.chunks(8192) {
        let nel = blk.len() / width;
        let words = |range: std::ops::Range<usize>, h: usize| -> Vec<u32> {
            range.map(|e| u32::from_le_bytes(blk[e * width + 4 * h..][..4].try_into().unwrap())).collect()
        };
        let mut subs = vec![];
        for s0 in (0..nel).step_by(256) {
            let c = (nel - s0).min(256);
            if width == 4 {
                subs.push(sym_substream(&words(s0..s0 + c, 0), rng));
            } else if c < 256 && rng.below(2) == 0 {
                subs.push(sym_substream(&[words(s0..s0 + c, 0), words(s0..s0 + c, 1)].concat(), rng));
            } else {
                subs.push(sym_substream(&words(s0..s0 + c, 0), rng));
                subs.push(sym_substream(&words(s0..s0 + c, 1), rng));
            }
        }
        let mut b = vec![];
        let mut off = 2 * subs.len();
        for s in &subs {
            b.extend((off as u16).to_le_bytes());
            off += s.len();
        }
        b.extend(subs.concat());
        assert!(b.len() <= 65535);
        blocks.push(b);
    }
    for b in &blocks {
        out.extend((b.len() as u16).to_le_bytes());
    }
    out.extend(blocks.concat());
    out
}

const SYM_TYPES: [DataType; 4] = [DataType::Int, DataType::Uint, DataType::LongLong, DataType::ULongLong];

/// Inputs for symmetric chunks of one width: the common shapes (whole elements), 64-bit values
/// with constant or stepping high words, 24-bit random values, and sizes whose last sub-block
/// has a random length.
fn sym_shapes(width: usize, rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> =
        shapes(width, rng).into_iter().filter(|(name, _)| *name != "odd-bytes").map(|(_, d)| d).collect();
    let tail = 1 + rng.index(255);
    v.push(values(256 * 9 + tail, width, |i| (7u64 << 32) | ((i as u64 * 2_654_435_761) & 0xffff_ffff) >> 12));
    v.push(values(256 * 3 + 255, width, |i| ((i as u64 >> 3) << 32) | ((i as u64 * 40_503) & 0xffff)));
    let r: Vec<u64> = (0..3000).map(|_| rng.next() & 0xff_ffff).collect();
    v.push(values(2048 + 1 + rng.index(600), width, |i| r[i]));
    v
}

/// Symmetric chunks of every 4- and 8-byte type and data shape, every sub-stream form at random:
/// the reference decodes them to their input, and the kernel to the same bytes.
#[test]
fn symmetric_forms() {
    let mut rng = Rng::fresh("symmetric_forms");
    let (mut chunks, mut caps) = (vec![], vec![]);
    for t in SYM_TYPES {
        for input in sym_shapes(t.size(), &mut rng) {
            let c = sym_chunk(&input, t, &mut rng);
            let mut out = vec![0u8; input.len()];
            assert_eq!(cpu::decompress(&c, &mut out), Ok(input.len()), "{t:?}, {} bytes", input.len());
            assert!(out == input, "{t:?}: the reference does not decode the test writer's chunk");
            chunks.push(c);
            caps.push(input.len() + rng.index(3) * t.size());
        }
    }
    assert_eq!(check(&chunks, &caps, "symmetric chunks"), chunks.len());
    let misaligned = check_at(&chunks[..24], &caps[..24], "misaligned symmetric chunks", true);
    assert_eq!(misaligned, 24);
    println!("{} symmetric chunks decoded", chunks.len());
}

/// nvCOMP's symmetric question chunks (every sub-stream form it used, partial sub-blocks, joined
/// tails, a single 8-byte element, whole words) decode exactly.
#[test]
fn nvcomp_symmetric_chunks() {
    let all = nvcomp_symmetric();
    assert_eq!(all.len(), 8);
    let chunks: Vec<Vec<u8>> = all.iter().map(|(_, c)| c.clone()).collect();
    let caps: Vec<usize> = chunks.iter().map(|c| cpu::decompressed_size(c).unwrap()).collect();
    assert_eq!(check(&chunks, &caps, "nvCOMP symmetric chunks"), chunks.len());
}

/// The byte offsets of a symmetric chunk's fields worth corrupting: the chunk header's size and
/// type, the first two block sizes, and of the first block: its table entries and, for each of
/// its first three sub-streams, the header bytes (flags, mode, mask, fields, the run map's first
/// word).
fn sym_fields(c: &[u8]) -> Vec<usize> {
    let mut f = vec![3, 4, 5, 7, 8, 9, 10];
    let n = u32::from_le_bytes(c[4..8].try_into().unwrap()) as usize;
    let first = 8 + 2 * n.div_ceil(8192);
    if first + 2 > c.len() {
        return f;
    }
    let k = u16::from_le_bytes([c[first], c[first + 1]]) as usize / 2;
    for j in 0..k.min(8) {
        f.extend([first + 2 * j, first + 2 * j + 1]);
        if j < 3 {
            let at = first + u16::from_le_bytes([c[first + 2 * j], c[first + 2 * j + 1]]) as usize;
            f.extend((0..26).map(|d| at + d));
        }
    }
    f.retain(|&i| i < c.len());
    f
}

/// Corrupted symmetric chunks (the test writer's, nvCOMP's questions, golden chunks): truncated,
/// bytes flipped at random and in every header and table field, fields set to extreme values,
/// 1- and 2-byte types, outputs one byte short: the reference's status, no panic, no hang,
/// nothing written past the capacity.
#[test]
fn symmetric_hostile() {
    let mut rng = Rng::fresh("symmetric_hostile");
    let mut samples: Vec<(Vec<u8>, usize)> = vec![];
    for t in SYM_TYPES {
        for input in sym_shapes(t.size(), &mut rng).into_iter().filter(|d| d.len() <= 8192 + 2048).take(5) {
            samples.push((sym_chunk(&input, t, &mut rng), input.len()));
        }
    }
    for (_, c) in nvcomp_symmetric() {
        let n = cpu::decompressed_size(&c).unwrap();
        samples.push((c, n));
    }
    let golden_first = samples.len();
    for g in goldens("Cascaded") {
        let s = NativeStream::parse(&g.stream).unwrap();
        let c = s.chunk(0).unwrap();
        if ChunkHeader::parse(c).unwrap().mode == CascadedMode::Symmetric {
            samples.push((c.to_vec(), cpu::decompressed_size(c).unwrap()));
        }
    }
    let (mut chunks, mut caps) = (vec![], vec![]);
    for (k, (c, n)) in samples.iter().enumerate() {
        // Golden chunks are 64 KiB: fewer variants keep the simulation short.
        let many = k < golden_first;
        chunks.push(c.clone());
        caps.push(n - 1);
        for _ in 0..if many { 3 } else { 1 } {
            chunks.push(c[..rng.index(c.len())].to_vec());
            caps.push(n + 16);
        }
        for v in 0..if many { 6 } else { 2 } {
            let mut b = c.clone();
            for _ in 0..1 + v % 3 {
                let at = if v % 2 == 0 { rng.index(c.len().min(96)) } else { rng.index(c.len()) };
                b[at] ^= 1 << rng.below(8);
            }
            chunks.push(b);
            caps.push(n + 16);
        }
        let fields = sym_fields(c);
        let picks = if many { 24 } else { 8 };
        for _ in 0..picks {
            let at = fields[rng.index(fields.len())];
            let mut b = c.clone();
            b[at] = match rng.below(4) {
                0 => b[at] ^ 1 << rng.below(8),
                1 => 0xff,
                2 => 0,
                _ => b[at].wrapping_add(4),
            };
            chunks.push(b);
            caps.push(n + 16);
        }
        // 1- and 2-byte types have no symmetric mode.
        let mut b = c.clone();
        b[3] = 0x80 | rng.below(4) as u8;
        chunks.push(b);
        caps.push(n + 16);
    }
    // An empty chunk with and without a body, garbage behind symmetric headers.
    chunks.extend([vec![0, 0, 1, 0x84, 0, 0, 0, 0], vec![0, 0, 1, 0x86, 0, 0, 0, 0, 0, 0]]);
    caps.extend([0, 8]);
    for _ in 0..16 {
        let len = 8 + rng.index(700);
        let mut b = rng.bytes(len);
        b[..4].copy_from_slice(&[0, 0, 1, 0x84 + rng.below(4) as u8]);
        b[4..8].copy_from_slice(&(rng.below(20_000) as u32 & !7).to_le_bytes());
        chunks.push(b);
        caps.push(20_000);
    }
    let ok = check(&chunks, &caps, "hostile symmetric chunks");
    println!("{} hostile symmetric chunks: {ok} still decode (flips in values)", chunks.len());
    assert!(chunks.len() - ok > chunks.len() / 3, "too few rejected: {ok} of {} decode", chunks.len());
}

/// Runs `cascaded_decompressed_size` on `chunks` (entries with `None` get a null pointer and the
/// given length) with a grid smaller than one thread per chunk needs.
fn gpu_sizes(chunks: &[(Option<Vec<u8>>, u64)]) -> Vec<u64> {
    let ptrs: Vec<Option<&[u8]>> = chunks.iter().map(|(c, _)| c.as_deref()).collect();
    let lens: Vec<u64> = chunks.iter().map(|&(_, n)| n).collect();
    common::sim::sizes(&ptrs, &lens, |a| {
        let grid = k::size_grid_dim(a.num_chunks).min(2);
        launch::<(), _>(grid, k::SIZE_BLOCK_THREADS, |t, _| unsafe { k::decompressed_size(t, a) });
    })
}

/// `cascaded_decompressed_size` agrees with the reference's `decompressed_size` (0 where it
/// fails) on valid asymmetric, raw and symmetric chunks, every value of every header byte,
/// truncated headers, garbage and null pointers.
#[test]
fn decompressed_sizes() {
    let mut rng = Rng::fresh("decompressed_sizes");
    let mut samples = vec![];
    for t in INTEGER_TYPES {
        for (_, input) in shapes(t.size(), &mut rng).into_iter().take(3) {
            samples.push(cpu::compress_to_vec(&input, &opts(t, 3)).unwrap());
        }
    }
    samples.extend(nvcomp_symmetric().into_iter().map(|(_, c)| c));
    let mut chunks: Vec<(Option<Vec<u8>>, u64)> = vec![];
    for c in &samples {
        chunks.push((Some(c.clone()), c.len() as u64));
        for cut in 0..8 {
            chunks.push((Some(c[..cut].to_vec()), cut as u64));
        }
    }
    // Every value of every header byte of one chunk.
    let c = &samples[rng.index(samples.len())];
    for at in 0..8 {
        for v in 0..=255u8 {
            let mut b = c[..8].to_vec();
            b[at] = v;
            chunks.push((Some(b), 8));
        }
    }
    for _ in 0..200 {
        let len = 8 + rng.index(8);
        let mut b = rng.bytes(len);
        if rng.below(2) == 0 {
            b[..4].copy_from_slice(&[0, 0, rng.below(3) as u8, 0x7f + rng.below(10) as u8]);
        }
        chunks.push((Some(b), len as u64));
    }
    chunks.extend([(None, 0), (None, 100)]);
    let sizes = gpu_sizes(&chunks);
    let mut valid = 0;
    for (i, ((c, len), got)) in chunks.iter().zip(&sizes).enumerate() {
        let want = match c {
            Some(c) => cpu::decompressed_size(&c[..*len as usize]).map_or(0, |n| n as u64),
            None => 0,
        };
        assert_eq!(*got, want, "chunk {i}: {:?}", c.as_ref().map(|c| &c[..c.len().min(8)]));
        valid += (want > 0) as usize;
    }
    println!("{} chunks, {valid} with a valid header", chunks.len());
    assert!(valid > 300);
}

// ---------------------------------------------------------------------------------------------
// several blocks per chunk

/// Decodes `chunks` at `K` blocks per chunk and checks every chunk against the reference (as at
/// one block per chunk: status, size, bytes); returns the results.
fn check_split<const K: u32>(what: &str, chunks: &[Vec<u8>], caps: &[usize]) -> Vec<common::sim::Out> {
    let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
    common::sim::check_decompress::<Split<K>>(&format!("{what}, {K} blocks per chunk"), &refs, caps, |_| (0, 0)).0
}

/// [`check_split`] at 1, 2, 3 and 8 blocks per chunk and at 80 (more than a 256 KiB chunk's 16
/// groups of 4 blocks); every chunk gets the same status, size and bytes in every run.
fn check_splits(what: &str, chunks: &[Vec<u8>], caps: &[usize]) -> Vec<common::sim::Out> {
    let one = check_split::<1>(what, chunks, caps);
    for got in [
        check_split::<2>(what, chunks, caps),
        check_split::<3>(what, chunks, caps),
        check_split::<8>(what, chunks, caps),
        check_split::<80>(what, chunks, caps),
    ] {
        assert!(got == one, "{what}: results differ from one block per chunk");
    }
    one
}

/// Chunks of 4 KiB to 256 KiB of every integer type, every flag set (RLE and DELTA allowed or
/// not) and levels 1 to 3, and raw-fallback chunks (random data: the copy is shared by the
/// chunk's blocks): decoded at 1, 2, 3, 8 and 80 blocks per chunk, all exactly as the reference.
#[test]
fn chunks_of_every_option_set_decode_split_across_blocks() {
    let mut rng = Rng::fresh("cascaded kernels: split");
    let sizes = [4096, 16384 + 300, 65536, 100_000, 262_144];
    let (mut chunks, mut caps, mut raw) = (vec![], vec![], 0);
    for (ti, t) in INTEGER_TYPES.into_iter().enumerate() {
        let w = t.size();
        for (fi, (rle, delta)) in [(true, true), (true, false), (false, true), (false, false)].into_iter().enumerate() {
            let bytes = sizes[(ti + fi) % sizes.len()] / w * w;
            let r: Vec<u64> = (0..1024).map(|_| rng.next()).collect();
            // Runs of a slow ramp with noise: every stage has something to do.
            let input = values(bytes / w, w, |i| (i as u64 / 9) * 3 + r[(i / 5) % 1024] % 4);
            let o = opts(t, 1 + ((ti + fi) % 3) as u8).with_rle(rle).with_delta(delta);
            chunks.push(cpu::compress_to_vec(&input, &o).unwrap());
            caps.push(input.len());
        }
        let random = rng.bytes(sizes[ti % sizes.len()] / w * w);
        let c = cpu::compress_to_vec(&random, &opts(t, 3)).unwrap();
        raw += ChunkHeader::parse(&c).unwrap().raw as usize;
        chunks.push(c);
        caps.push(random.len() + 3);
    }
    let got = check_splits("every option set", &chunks, &caps);
    assert!(got.iter().all(|r| r.0 == status::SUCCESS));
    assert_eq!(raw, INTEGER_TYPES.len());
}

/// TPC-H lineitem columns in 256 KiB chunks (64 blocks of 4 KiB: four walks of 16), levels 3
/// and 1, and nvCOMP's golden asymmetric chunks, at 1, 2, 3, 8 and 80 blocks per chunk.
#[test]
fn tpch_and_golden_chunks_decode_split_across_blocks() {
    let (mut chunks, mut caps) = (vec![], vec![]);
    for (_, t, data) in common::lineitem_columns(0.01, 66_000) {
        let w = t.size();
        let data = &data[..(262_144 / w * w).min(data.len())];
        for level in [3, 1] {
            chunks.push(cpu::compress_to_vec(data, &opts(t, level)).unwrap());
            caps.push(data.len());
        }
    }
    for g in goldens("Cascaded") {
        let s = NativeStream::parse(&g.stream).unwrap_or_else(|e| panic!("{}: {e}", g.name));
        let c = s.chunk(0).unwrap();
        if ChunkHeader::parse(c).unwrap().mode == CascadedMode::Asymmetric {
            chunks.push(c.to_vec());
            caps.push(g.input.len().min(s.uncomp_chunk_size() as usize));
        }
    }
    let got = check_splits("TPC-H and golden chunks", &chunks, &caps);
    assert!(got.iter().all(|r| r.0 == status::SUCCESS));
}

/// Symmetric chunks (8 KiB blocks, walks of 4: a walk is one block's share) of every 4- and
/// 8-byte type up to 256 KiB, and nvCOMP's symmetric chunks, at 1, 2, 3, 8 and 80 blocks per
/// chunk.
#[test]
fn symmetric_chunks_decode_split_across_blocks() {
    let mut rng = Rng::fresh("cascaded kernels: symmetric split");
    let (mut chunks, mut caps) = (vec![], vec![]);
    let r: Vec<u64> = (0..1024).map(|_| rng.next() % 16).collect();
    for (ti, t) in SYM_TYPES.into_iter().enumerate() {
        for bytes in [65536 + 8 * 100, 262_144] {
            let w = t.size();
            let input = values((bytes + 1000 * ti) / w, w, |i| (i as u64 * 7) ^ r[(i + ti) % 1024]);
            chunks.push(sym_chunk(&input, t, &mut rng));
            caps.push(input.len());
        }
    }
    for (_, c) in nvcomp_symmetric() {
        caps.push(cpu::decompressed_size(&c).unwrap());
        chunks.push(c);
    }
    let got = check_splits("symmetric chunks", &chunks, &caps);
    assert!(got.iter().all(|r| r.0 == status::SUCCESS));
}

/// The offsets of an asymmetric chunk's 4 KiB blocks.
fn block_offsets(c: &[u8]) -> Vec<usize> {
    let n = u32::from_le_bytes(c[4..8].try_into().unwrap()) as usize;
    let mut at = 8;
    (0..n.div_ceil(4096))
        .map(|_| {
            let here = at;
            at += u16::from_le_bytes([c[at], c[at + 1]]) as usize;
            here
        })
        .collect()
}

/// A corrupt chunk fails alone whichever of its blocks finds it, between valid chunks: a block
/// size that breaks the walk (every block sees it) and a final-stream length that only the
/// block decoding it sees, in block 5 (part 1 at 2, 3 and 8 blocks per chunk) and block 13
/// (part 1 of 2, 0 of 3, 3 of 8), and a chunk truncated inside block 10; symmetric chunks with
/// a bad block of part 1 and truncated.
#[test]
fn corrupt_chunks_fail_alone_split_across_blocks() {
    let input = values(16384, 4, |i| (i as u64 / 3) * 5 + (i as u64 * 7919) % 3);
    let c = cpu::compress_to_vec(&input, &opts(DataType::Int, 3)).unwrap();
    let offs = block_offsets(&c);
    assert_eq!(offs.len(), 16);
    let mut batch = vec![c.clone()];
    for b in [5, 13] {
        // A size the walk refuses (not a multiple of 4).
        let mut d = c.clone();
        d[offs[b]] ^= 1;
        batch.push(d);
        // The final stream's length (the block's second word) one word longer: only its decoder
        // sees it.
        let mut d = c.clone();
        let at = offs[b] + 4;
        let v = u32::from_le_bytes(d[at..at + 4].try_into().unwrap()) + 4;
        d[at..at + 4].copy_from_slice(&v.to_le_bytes());
        batch.push(d);
    }
    batch.push(c[..offs[10] + 20].to_vec());
    // Symmetric: 4 walks of 4 blocks of 8 KiB; a flipped byte early in block 5 (part 1 of 2, 3
    // and 8), and the chunk truncated.
    let mut rng = Rng::fresh("cascaded kernels: corrupt split");
    let r: Vec<u64> = (0..1024).map(|_| rng.next() % 8).collect();
    let sym_input = values(32768, 4, |i| (i as u64 * 3) ^ r[i % 1024]);
    let s = sym_chunk(&sym_input, DataType::Uint, &mut rng);
    let body = 8 + 2 * 16;
    let b5 = body + (0..5).map(|j| u16::from_le_bytes([s[8 + 2 * j], s[9 + 2 * j]]) as usize).sum::<usize>();
    let mut d = s.clone();
    d[b5] ^= 0x40;
    batch.push(s.clone());
    batch.push(d);
    batch.push(s[..s.len() - 7].to_vec());
    batch.push(c.clone());
    let mut caps = vec![input.len(); batch.len()];
    let (first_sym, last) = (batch.len() - 4, batch.len() - 1);
    caps[first_sym..last].fill(sym_input.len());
    let bad = status::CANNOT_DECOMPRESS;
    let ok = status::SUCCESS;
    let want = [ok, bad, bad, bad, bad, bad, ok, bad, bad, ok];
    let got = check_splits("corrupt", &batch, &caps);
    assert_eq!(got.iter().map(|r| r.0).collect::<Vec<_>>(), want);
}

/// The hostile chunks of [`hostile_input`] and [`symmetric_hostile`]'s kinds give the
/// reference's statuses at 3 blocks per chunk.
#[test]
fn hostile_chunks_split_across_blocks() {
    let mut rng = Rng::fresh("cascaded kernels: hostile split");
    let r: Vec<u64> = (0..1024).map(|_| rng.next() % 3).collect();
    let input = values(30000, 4, |i| (i as u64 / 11) * 2 + r[i % 1024]);
    let c = cpu::compress_to_vec(&input, &opts(DataType::Int, 3)).unwrap();
    let (mut chunks, mut caps) = (vec![], vec![]);
    for _ in 0..24 {
        let mut d = c.clone();
        for _ in 0..1 + rng.index(3) {
            let at = rng.index(d.len());
            d[at] ^= 1 << rng.index(8);
        }
        chunks.push(d);
        caps.push(input.len() - rng.index(2) * 4);
    }
    for cut in [9, 100, c.len() / 2, c.len() - 1] {
        chunks.push(c[..cut].to_vec());
        caps.push(input.len());
    }
    check_split::<3>("hostile", &chunks, &caps);
}
