//! Simulator tests of the LZ4 kernels against `lz4_flex` (round trips, corrupt input). Exact
//! encoder output is checked against the CPU reference in `tests/sim_lz4.rs`.
use super::compress::compress;
use super::decompress::{decompress, decompressed_size, DecompressShared};
use super::source::{stage, STAGE_SLACK};
use super::{compress_block_dim, compress_grid_dim, decompress_grid_dim, DECOMPRESS_BLOCK};
use crate::batch::{CompressArgs, DecompressArgs, SizeArgs};
use crate::sim::launch;
use crate::status;
use crate::test_rng::xorshift;
use crate::Thread;
use std::vec::Vec;
use std::{format, vec};

/// Deterministic xorshift bytes.
pub fn random(n: usize, seed: u64) -> Vec<u8> {
    let mut next = xorshift(seed);
    (0..n).map(|_| (next() >> 24) as u8).collect()
}

/// TPC-H lineitem-like rows: numbers, dates, flags and words separated by `|`.
pub fn text(n: usize, seed: u64) -> Vec<u8> {
    const WORDS: [&str; 12] = [
        "DELIVER IN PERSON",
        "TAKE BACK RETURN",
        "NONE",
        "COLLECT COD",
        "TRUCK",
        "MAIL",
        "REG AIR",
        "AIR",
        "FOB",
        "SHIP",
        "RAIL",
        "furiously",
    ];
    let r = random(n, seed);
    let mut s = Vec::with_capacity(n + 200);
    let mut i = 0;
    while s.len() < n {
        let v = |k: usize| r[(i * 7 + k) % n] as usize;
        let row = format!(
            "{}|{}|{}|{}|{}.{:02}|0.0{}|N|O|199{}-0{}-{:02}|{}|{}|{} slyly {}|\n",
            i / 7 + 1,
            v(0) * 31 + v(1),
            v(2) * 3,
            i % 7 + 1,
            v(3) * 117,
            v(4) % 100,
            v(5) % 10,
            v(6) % 8,
            v(7) % 9 + 1,
            v(8) % 28 + 1,
            WORDS[v(9) % 12],
            WORDS[v(10) % 12],
            WORDS[v(11) % 12],
            WORDS[v(12) % 12],
        );
        s.extend_from_slice(row.as_bytes());
        i += 1;
    }
    s.truncate(n);
    s
}

/// Runs of bytes and short repeating patterns (matches with offsets 1..32 that overlap).
pub fn runs(n: usize, seed: u64) -> Vec<u8> {
    let r = random(n / 8 + 16, seed);
    let mut s = Vec::with_capacity(n + 64);
    let mut i = 0;
    while s.len() < n {
        let period = 1 + r[i] as usize % 24;
        let reps = 1 + r[i + 1] as usize % 200;
        let pat: Vec<u8> = (0..period).map(|k| r[(i + k) % r.len()]).collect();
        for k in 0..period * reps {
            s.push(pat[k % period]);
        }
        i = (i + 2) % (r.len() - 2);
    }
    s.truncate(n);
    s
}

/// One decompression launch: (status, bytes written) per chunk, and the sizes from
/// `lz4_decompressed_size`. Chunk `i` is placed `i % 5` bytes into its buffer so that windows
/// start at every alignment.
fn run_decompress(blocks: &[Vec<u8>], caps: &[usize]) -> (Vec<(i32, Vec<u8>)>, Vec<u64>) {
    let staged: Vec<Vec<u8>> = blocks.iter().enumerate().map(|(i, b)| [&vec![0xEE; i % 5][..], b].concat()).collect();
    let in_ptrs: Vec<*const u8> = staged.iter().enumerate().map(|(i, b)| b[i % 5..].as_ptr()).collect();
    let in_bytes: Vec<u64> = blocks.iter().map(|b| b.len() as u64).collect();
    let mut outs: Vec<Vec<u8>> = caps.iter().map(|&c| vec![0xA5; c + 64]).collect();
    let out_ptrs: Vec<*mut u8> = outs.iter_mut().map(|o| o.as_mut_ptr()).collect();
    let out_cap: Vec<u64> = caps.iter().map(|&c| c as u64).collect();
    let n = blocks.len() as u64;
    let mut actual = vec![u64::MAX; blocks.len()];
    let mut statuses = vec![-1i32; blocks.len()];
    let mut sizes = vec![u64::MAX; blocks.len()];
    let args = DecompressArgs {
        in_ptrs: in_ptrs.as_ptr(),
        in_bytes: in_bytes.as_ptr(),
        num_chunks: n,
        out_ptrs: out_ptrs.as_ptr(),
        out_capacity: out_cap.as_ptr(),
        out_actual: actual.as_mut_ptr(),
        statuses: statuses.as_mut_ptr(),
    };
    let sargs = SizeArgs {
        in_ptrs: in_ptrs.as_ptr(),
        in_bytes: in_bytes.as_ptr(),
        num_chunks: n,
        out_sizes: sizes.as_mut_ptr(),
    };
    launch::<DecompressShared, _>(decompress_grid_dim(n), DECOMPRESS_BLOCK, |t, smem| unsafe {
        decompress(t, smem, args)
    });
    launch::<DecompressShared, _>(decompress_grid_dim(n), DECOMPRESS_BLOCK, |t, smem| unsafe {
        decompressed_size(t, smem, sargs)
    });
    let results = outs
        .into_iter()
        .zip(caps)
        .enumerate()
        .map(|(i, (o, &c))| {
            assert!(o[c..].iter().all(|&x| x == 0xA5), "chunk {i}: wrote past the output capacity");
            let len = actual[i] as usize;
            assert!(len <= c);
            (statuses[i], o[..len].to_vec())
        })
        .collect();
    (results, sizes)
}

/// H100/H200's opt-in shared memory per block.
const MAX_SHARED: u32 = 232448;

/// One compression launch with `table_size` slots; the compressed blocks.
fn run_compress(chunks: &[&[u8]], table_size: u32, width: u32, encoder: u32) -> Vec<Vec<u8>> {
    let in_ptrs: Vec<*const u8> = chunks.iter().map(|c| c.as_ptr()).collect();
    let in_bytes: Vec<u64> = chunks.iter().map(|c| c.len() as u64).collect();
    let bound = |n: usize| (n + 1 + n.div_ceil(255)).next_multiple_of(8);
    let mut outs: Vec<Vec<u8>> = chunks.iter().map(|c| vec![0xA5; bound(c.len()) + 64]).collect();
    let out_ptrs: Vec<*mut u8> = outs.iter_mut().map(|o| o.as_mut_ptr()).collect();
    let n = chunks.len() as u64;
    let mut out_bytes = vec![u64::MAX; chunks.len()];
    let mut statuses = vec![-1i32; chunks.len()];
    let args = CompressArgs {
        in_ptrs: in_ptrs.as_ptr(),
        in_bytes: in_bytes.as_ptr(),
        num_chunks: n,
        out_ptrs: out_ptrs.as_ptr(),
        out_bytes: out_bytes.as_mut_ptr(),
        statuses: statuses.as_mut_ptr(),
    };
    launch::<[u8; MAX_SHARED as usize], _>(
        compress_grid_dim(n, table_size, 0, MAX_SHARED),
        compress_block_dim(table_size, 0, MAX_SHARED),
        |t, smem| unsafe { compress(t, smem.cast(), args, table_size, width, encoder, 0) },
    );
    outs.into_iter()
        .enumerate()
        .map(|(i, o)| {
            assert_eq!(statuses[i], status::SUCCESS, "chunk {i}");
            let len = out_bytes[i] as usize;
            let b = bound(chunks[i].len());
            assert!(len <= b && o[b..].iter().all(|&x| x == 0xA5), "chunk {i}: wrote past nvCOMP's bound");
            o[..len].to_vec()
        })
        .collect()
}

#[test]
fn decompress_matches_the_input() {
    let inputs = [
        text(65536, 1),
        random(4000, 2),
        runs(20000, 3),
        text(1000, 4),
        vec![7; 3000],
        random(1, 5),
        vec![],
        text(37, 6),
    ];
    let blocks: Vec<Vec<u8>> = inputs.iter().map(|d| lz4_flex::block::compress(d)).collect();
    let caps: Vec<usize> = inputs.iter().map(|d| d.len()).collect();
    let (results, sizes) = run_decompress(&blocks, &caps);
    for (i, ((st, out), d)) in results.iter().zip(&inputs).enumerate() {
        assert_eq!(*st, status::SUCCESS, "chunk {i}");
        assert!(out == d, "chunk {i}: output differs");
        assert_eq!(sizes[i], d.len() as u64, "chunk {i}: size query");
    }
}

#[test]
fn decompress_rejects_what_lz4_flex_rejects() {
    let base = [text(3000, 11), runs(3000, 12), random(300, 13)];
    let mut blocks = Vec::new();
    let mut caps = Vec::new();
    for (k, d) in base.iter().enumerate() {
        let b = lz4_flex::block::compress(d);
        let r = random(64, 100 + k as u64);
        // Truncations, byte flips, output one byte short, an empty block, and garbage.
        for cut in [1, 2, 3, b.len() / 2, b.len() - 1] {
            blocks.push(b[..cut].to_vec());
            caps.push(d.len());
        }
        for f in 0..12 {
            let mut c = b.clone();
            let at = (r[2 * f] as usize * 256 + r[2 * f + 1] as usize) % c.len();
            c[at] ^= 1 << (f % 8);
            blocks.push(c);
            caps.push(d.len());
        }
        blocks.push(b.clone());
        caps.push(d.len() - 1);
        blocks.push(random(200 + 50 * k, 200 + k as u64));
        caps.push(4000);
    }
    blocks.push(vec![]);
    caps.push(100);
    let (results, sizes) = run_decompress(&blocks, &caps);
    for (i, (b, (st, out))) in blocks.iter().zip(&results).enumerate() {
        let mut want = vec![0; caps[i]];
        match lz4_flex::block::decompress_into(b, &mut want) {
            Ok(len) => {
                assert_eq!(*st, status::SUCCESS, "block {i}");
                assert!(out[..] == want[..len], "block {i}");
            }
            Err(_) => assert_eq!(*st, status::CANNOT_DECOMPRESS, "block {i}"),
        }
        let mut unbounded = vec![0; 1 << 20];
        let size = lz4_flex::block::decompress_into(b, &mut unbounded).map_or(0, |n| n as u64);
        assert_eq!(sizes[i], size, "block {i}: size query");
    }
}

#[test]
fn compress_round_trips() {
    let (t, r, z) = (text(16384, 21), random(3000, 22), runs(5000, 23));
    let chunks: [&[u8]; 7] = [&t, &r, &z, &t[..13], &t[..1], &[], &t[100..4196]];
    for (ts, w) in [(4096, 1), (1024, 2), (16384, 4)] {
        let blocks = run_compress(&chunks, ts, w, 1);
        for (i, (b, c)) in blocks.iter().zip(&chunks).enumerate() {
            let d = lz4_flex::block::decompress(b, c.len()).unwrap_or_else(|e| panic!("chunk {i} (w = {w}): {e}"));
            assert!(d == *c, "chunk {i} (w = {w}): round trip differs");
        }
    }
}

/// `stage` puts every byte of the chunk at `buf + inp mod 16` and writes nothing at or past
/// `roundup16(n) + 16`, for chunks at every offset from a 16-byte boundary and of sizes around
/// the edge words and the 16-byte blocks (one warp, the buffer poisoned first).
#[test]
fn stage_copies_the_chunk_to_its_offset() {
    const POISON: u8 = 0x5A;
    // 16-byte aligned: the kernel's contract for the staging buffer and for `place` below.
    let mut host = vec![0u128; 4096 / 16 + 4];
    let data = random(4096 + 32, 41);
    for n in [1u32, 2, 3, 4, 5, 11, 12, 13, 15, 16, 17, 19, 20, 21, 31, 32, 33, 47, 48, 49, 100, 4095, 4096] {
        for off in 0..16usize {
            // SAFETY (both): `host` holds 4160 bytes, more than `off + n + 3`.
            let base = host.as_mut_ptr().cast::<u8>();
            unsafe { core::ptr::copy_nonoverlapping(data[off..].as_ptr(), base.add(off), n as usize) };
            let inp = unsafe { base.add(off) } as u64;
            // SAFETY: one warp; the shared buffer (16-byte aligned, 4160 bytes) holds the 4112
            // staged bytes and the 32 poisoned ones after them; the chunk lies in `host`.
            launch::<[u128; 4096 / 16 + 4], _>(1, 32, |t, smem| unsafe {
                let buf = smem.cast::<u8>();
                let len = n.next_multiple_of(16) + STAGE_SLACK;
                if t.lane() == 0 {
                    buf.write_bytes(POISON, len as usize + 32);
                }
                t.sync_warp();
                let staged = stage(t, buf, inp as *const u8, n);
                if t.lane() == 0 {
                    assert_eq!(staged as usize - buf as usize, off, "n = {n}: staged at the input's offset");
                    let got = core::slice::from_raw_parts(staged, n as usize);
                    assert!(got == &data[off..off + n as usize], "n = {n}, offset {off}: staged bytes");
                    let past = core::slice::from_raw_parts(buf.add(len as usize), 32);
                    assert!(past.iter().all(|&b| b == POISON), "n = {n}, offset {off}: wrote past the buffer");
                }
            });
        }
    }
}
