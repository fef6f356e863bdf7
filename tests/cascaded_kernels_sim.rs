//! The Cascaded decompression kernel, run in the CPU simulator (`gpucomp_kernels::sim`), against
//! gpucomp's CPU reference decoder (`gpucomp::cpu::cascaded`): chunks of every integer type,
//! level and data shape written by the reference encoder, nvCOMP's golden asymmetric chunks, and
//! corrupted, truncated and garbage chunks and too-small outputs (same status as the reference,
//! same bytes when both succeed, nothing written past the output capacity).
mod common;

use common::{goldens, Rng};
use gpucomp::algorithm::cascaded::{CascadedMode, CascadedOptions};
use gpucomp::container::NativeStream;
use gpucomp::cpu::cascaded::{self as cpu, ChunkHeader};
use gpucomp::DataType;
use gpucomp_kernels::cascaded::{self as k, decompress, Shared};
use gpucomp_kernels::sim::{launch, SendPtr};
use gpucomp_kernels::status;

const INT_TYPES: [DataType; 8] = [
    DataType::Char,
    DataType::Uchar,
    DataType::Short,
    DataType::Ushort,
    DataType::Int,
    DataType::Uint,
    DataType::LongLong,
    DataType::ULongLong,
];

/// Canary bytes after each output's capacity.
const SLACK: usize = 64;

/// Runs `cascaded_decompress` on `chunks` with capacities `caps` (at most 24 chunks per launch,
/// so that several chunks share a simulated block's grid loop): (status, out_actual, the bytes
/// up to `out_actual`) per chunk; checks that nothing was written past the capacity.
/// With `misalign`, chunk `i` starts `i % 4` bytes and its output `i % 3` bytes past a 16-byte
/// boundary (unaligned field reads, narrower copies); otherwise both are 16-byte aligned.
fn gpu_decompress_at(chunks: &[&[u8]], caps: &[usize], misalign: bool) -> Vec<(i32, u64, Vec<u8>)> {
    let si = |i: usize| if misalign { (i % 4, i % 3) } else { (0, 0) };
    let mut shifted: Vec<Vec<u128>> = chunks.iter().map(|c| vec![0u128; (c.len() + 20).div_ceil(16)]).collect();
    for (i, (b, c)) in shifted.iter_mut().zip(chunks).enumerate() {
        let bytes = unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr() as *mut u8, b.len() * 16) };
        bytes[si(i).0..si(i).0 + c.len()].copy_from_slice(c);
    }
    let in_ptrs: Vec<*const u8> =
        shifted.iter().enumerate().map(|(i, b)| unsafe { (b.as_ptr() as *const u8).add(si(i).0) }).collect();
    let in_bytes: Vec<u64> = chunks.iter().map(|c| c.len() as u64).collect();
    let mut outs: Vec<Vec<u128>> =
        caps.iter().map(|&c| vec![u128::from_ne_bytes([0xA5; 16]); (c + SLACK).div_ceil(16) + 1]).collect();
    let out_ptrs: Vec<*mut u8> =
        outs.iter_mut().enumerate().map(|(i, o)| unsafe { (o.as_mut_ptr() as *mut u8).add(si(i).1) }).collect();
    let out_cap: Vec<u64> = caps.iter().map(|&c| c as u64).collect();
    let n = chunks.len() as u64;
    let (mut actual, mut statuses) = (vec![u64::MAX; chunks.len()], vec![-1i32; chunks.len()]);
    let a = (
        SendPtr(in_ptrs.as_ptr() as *mut *const u8),
        SendPtr(in_bytes.as_ptr() as *mut u64),
        SendPtr(out_ptrs.as_ptr() as *mut *mut u8),
    );
    let b = (SendPtr(out_cap.as_ptr() as *mut u64), SendPtr(actual.as_mut_ptr()), SendPtr(statuses.as_mut_ptr()));
    // Fewer blocks than chunks: the grid loop runs too.
    let grid = k::grid_dim(n).min(n.div_ceil(2).max(1) as u32);
    launch::<Shared, _>(grid, k::BLOCK_THREADS, |t, smem| unsafe {
        decompress(t, smem, a.0.get(), a.1.get(), n, a.2.get(), b.0.get(), b.1.get(), b.2.get())
    });
    outs.into_iter()
        .zip(caps)
        .enumerate()
        .map(|(i, (o, &c))| {
            let o: Vec<u8> = o.iter().flat_map(|w| w.to_ne_bytes()).skip(si(i).1).take(c + SLACK).collect();
            assert!(o[c..].iter().all(|&x| x == 0xA5), "chunk {i}: wrote past the output capacity");
            assert!(actual[i] <= c as u64, "chunk {i}: out_actual {} > capacity {c}", actual[i]);
            (statuses[i], actual[i], o[..actual[i] as usize].to_vec())
        })
        .collect()
}

/// The reference's verdict on `chunk` with `cap` output bytes: (status, bytes).
fn cpu_decompress(chunk: &[u8], cap: usize) -> (i32, Vec<u8>) {
    let mut out = vec![0u8; cap];
    match cpu::decompress(chunk, &mut out) {
        Ok(n) => (status::SUCCESS, out[..n].to_vec()),
        Err(_) => (status::CANNOT_DECOMPRESS, vec![]),
    }
}

/// Decompresses `chunks` (with capacities `caps`) on the simulated GPU in launches of up to 24
/// and asserts the reference's status and bytes; returns how many succeeded.
fn check(chunks: &[Vec<u8>], caps: &[usize], what: &str) -> usize {
    check_at(chunks, caps, what, false)
}

/// [`check`], with the placement of [`gpu_decompress_at`].
fn check_at(chunks: &[Vec<u8>], caps: &[usize], what: &str, misalign: bool) -> usize {
    let mut ok = 0;
    for (cs, ks) in chunks.chunks(24).zip(caps.chunks(24)) {
        let refs: Vec<&[u8]> = cs.iter().map(|c| c.as_slice()).collect();
        for (i, (got, (c, &cap))) in
            gpu_decompress_at(&refs, ks, misalign).into_iter().zip(cs.iter().zip(ks)).enumerate()
        {
            let (st, bytes) = cpu_decompress(c, cap);
            let (gst, gn, gbytes) = got;
            assert_eq!(gst, st, "{what}: chunk {i} of {} bytes, capacity {cap}", c.len());
            if st == status::SUCCESS {
                assert_eq!(gn as usize, bytes.len(), "{what}: chunk {i}");
                assert!(gbytes == bytes, "{what}: chunk {i}: decoded bytes differ");
                ok += 1;
            } else {
                assert_eq!(gn, 0, "{what}: chunk {i}: out_actual of a failed chunk");
            }
        }
    }
    ok
}

fn opts(data_type: DataType, level: u8) -> CascadedOptions {
    CascadedOptions { data_type, compression_level: level, ..Default::default() }
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
    for t in INT_TYPES {
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

/// TPC-H lineitem columns (small scale), 20 KiB chunks, level 3 and 1.
#[test]
fn tpch_columns() {
    let (mut ok, mut pk, mut q, mut pr, mut di, mut sd, mut ln) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for li in tpchgen::generators::LineItemGenerator::new(0.001, 1, 1).iter().take(2600) {
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
            if matches!(name, "random" | "runs" | "ramp" | "walk") {
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
    let in_ptrs = [c.as_ptr(), c.as_ptr()];
    let in_bytes = [c.len() as u64; 2];
    let mut out = vec![0u8; input.len()];
    let out_ptrs = [out.as_mut_ptr(), std::ptr::null_mut()];
    let caps = [input.len() as u64; 2];
    let (mut actual, mut statuses) = ([u64::MAX; 2], [-1i32; 2]);
    let a = (
        SendPtr(in_ptrs.as_ptr() as *mut *const u8),
        SendPtr(in_bytes.as_ptr() as *mut u64),
        SendPtr(out_ptrs.as_ptr() as *mut *mut u8),
        SendPtr(caps.as_ptr() as *mut u64),
    );
    for (act, st) in [
        (SendPtr(actual.as_mut_ptr()), SendPtr(std::ptr::null_mut())),
        (SendPtr(std::ptr::null_mut()), SendPtr(statuses.as_mut_ptr())),
    ] {
        launch::<Shared, _>(k::grid_dim(2), k::BLOCK_THREADS, |t, smem| unsafe {
            decompress(t, smem, a.0.get(), a.1.get(), 2, a.2.get(), a.3.get(), act.get(), st.get())
        });
    }
    assert_eq!(actual, [input.len() as u64, 0]);
    assert_eq!(statuses, [status::SUCCESS, status::CANNOT_DECOMPRESS]);
    assert!(out == input);
}
