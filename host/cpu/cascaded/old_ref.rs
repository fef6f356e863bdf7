//! TEMPORARY: the decoder as it was before the speed work, for the differential test.
#![allow(dead_code)]
mod bitpack;
mod block;
mod stages;

use super::chunk::ChunkHeader;
use super::symmetric;
use crate::algorithm::cascaded::CascadedMode;
use crate::Status;

const HEADER_BYTES: usize = 8;
const BLOCK_BYTES: usize = 4096;

fn block_elements(n: usize, i: usize, width: usize) -> usize {
    (n - i * BLOCK_BYTES).min(BLOCK_BYTES) / width
}

pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, Status> {
    let h = ChunkHeader::parse(input)?;
    let n = h.uncompressed_bytes;
    let out = output.get_mut(..n).ok_or(Status::CannotDecompress)?;
    if h.raw {
        out.copy_from_slice(&input[HEADER_BYTES..HEADER_BYTES + n]);
        return Ok(n);
    }
    let width = h.data_type.size();
    if n % width != 0 {
        return Err(Status::CannotDecompress);
    }
    if h.mode == CascadedMode::Symmetric {
        symmetric::decode(&input[HEADER_BYTES..], width, out)?;
        return Ok(n);
    }
    let mut p = HEADER_BYTES;
    let mut values = Vec::with_capacity(BLOCK_BYTES);
    for (i, dst) in out.chunks_mut(BLOCK_BYTES).enumerate() {
        values.clear();
        p += block::decode(&input[p..], width, block_elements(n, i, width), &mut values)?;
        for (d, v) in dst.chunks_exact_mut(width).zip(&values) {
            d.copy_from_slice(&v.to_le_bytes()[..width]);
        }
    }
    if p != input.len() {
        return Err(Status::CannotDecompress);
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use crate::algorithm::cascaded::CascadedOptions;
    use crate::test_rng::Rng;
    use crate::types::DataType;

    fn data(r: &mut Rng, n: usize, width: usize) -> Vec<u8> {
        let elems = n / width;
        let mut v: Vec<u8> = Vec::new();
        let mut x = r.next() >> r.index(64);
        let kind = r.index(6);
        let m = 1u64 << r.index(63);
        for i in 0..elems {
            let e = match kind {
                0 => r.next(),
                1 => r.next() % (1 + r.index(20) as u64),
                2 => {
                    x = x.wrapping_add(r.next() % 5);
                    x
                }
                3 => {
                    if r.index(30) == 0 {
                        x = r.next();
                    }
                    x
                }
                4 => (i / 97) as u64 ^ 0xff,
                _ => (r.next() % m).wrapping_sub(m / 2),
            };
            v.extend_from_slice(&e.to_le_bytes()[..width]);
        }
        v
    }

    fn mutate(r: &mut Rng, c: &mut Vec<u8>) {
        if c.is_empty() {
            return;
        }
        match r.index(6) {
            0 => {}
            1 => c.truncate(r.index(c.len() + 1)),
            2 => {
                for _ in 0..1 + r.index(4) {
                    let at = r.index(c.len());
                    c[at] ^= 1 << r.index(8);
                }
            }
            3 => {
                let at = r.index(c.len());
                let len = r.index(16).min(c.len() - at);
                for b in &mut c[at..at + len] {
                    *b = r.next() as u8;
                }
            }
            4 => {
                let k = r.index(64);
                c.extend((0..k).map(|_| r.next() as u8));
            }
            _ => {
                for _ in 0..1 + r.index(20) {
                    if c.len() > 8 {
                        let at = 8 + r.index(c.len() - 8);
                        c[at] = r.next() as u8;
                    }
                }
            }
        }
    }

    /// Old and new decoders agree on statuses, sizes and bytes for valid and mutated chunks.
    #[test]
    fn differential_old_new() {
        let mut r = Rng::here();
        let iters: usize = std::env::var("DIFF_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(3000);
        let (mut ok, mut err) = (0, 0);
        let types = [
            DataType::Char,
            DataType::Uchar,
            DataType::Short,
            DataType::Ushort,
            DataType::Int,
            DataType::Uint,
            DataType::LongLong,
            DataType::ULongLong,
        ];
        for _ in 0..iters {
            let dt = types[r.index(8)];
            let width = dt.size();
            let n = match r.index(3) {
                0 => r.index(100),
                1 => 4096 * (1 + r.index(4)),
                _ => r.index(40000),
            };
            let input = data(&mut r, n, width);
            let o = CascadedOptions {
                compression_level: r.index(5) as u8,
                delta: r.index(3) != 0,
                rle: r.index(3) != 0,
                ..CascadedOptions::default().with_data_type(dt)
            };
            let mut c = super::super::compress_to_vec(&input, &o).unwrap();
            mutate(&mut r, &mut c);
            if r.index(4) == 0 {
                mutate(&mut r, &mut c);
            }
            let n = input.len();
            let cap = match r.index(4) {
                0 => n.saturating_sub(r.index(3)),
                _ => n + r.index(10),
            };
            let mut a = vec![0x5au8; cap];
            let mut b = vec![0x5au8; cap];
            let old = super::decompress(&c, &mut a);
            let new = super::super::decompress(&c, &mut b);
            assert_eq!(old, new, "status");
            assert!(a == b, "bytes");
            if old.is_ok() {
                ok += 1;
            } else {
                err += 1;
            }
        }
        println!("differential: {ok} decoded, {err} refused");
    }
}

#[cfg(test)]
mod timing {
    use crate::algorithm::cascaded::CascadedOptions;
    use crate::test_rng::Rng;
    use crate::types::DataType;
    use std::time::Instant;

    #[test]
    #[ignore]
    fn old_vs_new_speed() {
        let mut r = Rng::here();
        let rows = 1 << 19;
        let mut ok = Vec::new();
        let mut k = 1u64;
        while ok.len() < rows * 8 {
            let run = 1 + r.index(7);
            for _ in 0..run {
                ok.extend_from_slice(&k.to_le_bytes());
            }
            k += 1 + (r.index(4) == 0) as u64 * 31;
        }
        ok.truncate(rows * 8);
        let pk: Vec<u8> = (0..rows).flat_map(|_| (r.index(200000) as i32).to_le_bytes()).collect();
        let q: Vec<u8> = (0..rows).flat_map(|_| (1 + r.index(50) as i32).to_le_bytes()).collect();
        for (name, dt, data) in
            [("ok.i64", DataType::LongLong, ok), ("pk.i32", DataType::Int, pk), ("q.i32", DataType::Int, q)]
        {
            let o = CascadedOptions::default().with_data_type(dt);
            let chunks: Vec<Vec<u8>> =
                data.chunks(65536).map(|c| super::super::compress_to_vec(c, &o).unwrap()).collect();
            let mut out = vec![0u8; 65536];
            let (mut best_old, mut best_new) = (f64::MAX, f64::MAX);
            for _ in 0..7 {
                let t = Instant::now();
                for c in &chunks {
                    super::decompress(c, &mut out).unwrap();
                }
                best_old = best_old.min(t.elapsed().as_secs_f64());
                let t = Instant::now();
                for c in &chunks {
                    super::super::decompress(c, &mut out).unwrap();
                }
                best_new = best_new.min(t.elapsed().as_secs_f64());
            }
            let mb = data.len() as f64 / 1e6;
            println!("{name}: old {:.0} MB/s new {:.0} MB/s", mb / best_old, mb / best_new);
        }
    }
}

#[cfg(test)]
mod parts {
    use crate::test_rng::Rng;

    /// Old and new unpacking and RLE inverse agree on random streams and counts.
    #[test]
    fn unpack_and_undo_rle() {
        let mut r = Rng::here();
        let (mut same, mut errs) = (0, 0);
        for _ in 0..200000 {
            let width = [1, 2, 4, 8][r.index(4)];
            let bits = r.index(8 * width + 1) as u32;
            let count = if r.index(3) == 0 { r.index(20) } else { r.index(4097) };
            let mut s = r.bytes(super::bitpack::header_bytes(width));
            let at = width.next_multiple_of(4);
            s[at..at + 4].copy_from_slice(&((bits << 16) | count as u32).to_le_bytes());
            s.extend(r.bytes(4 * (count * bits as usize).div_ceil(32)));
            let o = super::bitpack::parse(&s, width, 4096).unwrap();
            let n = crate::cpu::cascaded::bitpack::parse(&s, width, 4096).unwrap();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            o.unpack_into(width, &mut a);
            n.unpack_into(width, &mut b);
            assert_eq!(a, b, "width {width} bits {bits} count {count}");
            let runs: Vec<u64> = (0..r.index(300)).map(|_| r.next()).collect();
            let counts: Vec<u64> = (0..runs.len() + (r.index(10) == 0) as usize)
                .map(|_| if r.index(200) == 0 { 0 } else { 1 + r.next() % [3, 9, 40, 5000][r.index(4)] })
                .collect();
            let limit = r.index(5000);
            let (mut a, mut b) = (vec![7], vec![8]);
            let ro = super::stages::undo_rle(&runs, &counts, limit, &mut a);
            let rn = crate::cpu::cascaded::stages::undo_rle(&runs, &counts, limit, &mut b);
            assert_eq!(ro, rn);
            if ro.is_ok() {
                assert_eq!(a, b);
                same += 1;
            } else {
                errs += 1;
            }
        }
        println!("undo_rle: {same} equal outputs, {errs} equal refusals");
    }
}
