//! TEMPORARY: the decoder as it was before the speed work, for the differential test.
#![allow(dead_code)]
mod default;
mod planes;
mod sparse;

use super::header::ChunkHeader;
use super::table::{self, BlockEntry, BLOCK_SIZE, RAW_WORDS};
use crate::algorithm::bitcomp::BitcompAlgorithm;
use crate::error::Status;

pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, Status> {
    let h = ChunkHeader::read(input)?;
    let n = usize::try_from(h.uncompressed_bytes).map_err(|_| Status::CannotDecompress)?;
    let base = table::payload_base(table::block_count(n)).ok_or(Status::CannotDecompress)?;
    if base > input.len() {
        return Err(Status::CannotDecompress);
    }
    let out = output.get_mut(..n).ok_or(Status::OutputBufferTooSmall)?;
    let payload = &input[base..];
    let mut bitmap = Box::new([0u8; 8192]);
    let mut coded = Box::new([0u8; 8192]);
    for (b, dst) in out.chunks_mut(BLOCK_SIZE).enumerate() {
        let e = BlockEntry::read(input, b)?;
        if e.raw && e.words > RAW_WORDS {
            return Err(Status::CannotDecompress);
        }
        let p = e.payload(payload)?;
        let n = dst.len();
        if e.raw {
            dst.copy_from_slice(p.get(..n).ok_or(Status::CannotDecompress)?);
            continue;
        }
        match h.algorithm {
            BitcompAlgorithm::Sparse => sparse::decode(p, &mut bitmap).map(drop)?,
            BitcompAlgorithm::Default => default::decode(p, &mut bitmap).map(drop)?,
        }
        planes::from_bitmap(&bitmap, h.element, &mut coded);
        planes::signed_map(&mut coded[..], h.element);
        dst.copy_from_slice(&coded[..n]);
    }
    Ok(n)
}

/// Old `default::decode` / `sparse::decode` on one payload: (result, bitmap).
pub fn decode_payload(p: &[u8], alg: BitcompAlgorithm) -> (Result<std::ops::Range<usize>, Status>, Vec<u8>) {
    let mut bitmap = Box::new([0u8; 8192]);
    let r = match alg {
        BitcompAlgorithm::Sparse => sparse::decode(p, &mut bitmap).map(|u| u..p.len()),
        BitcompAlgorithm::Default => default::decode(p, &mut bitmap),
    };
    (r, bitmap.to_vec())
}

#[cfg(test)]
mod tests {
    use crate::algorithm::bitcomp::{BitcompAlgorithm, BitcompOptions};
    use crate::test_rng::Rng;
    use crate::types::DataType;

    fn data(r: &mut Rng, n: usize, width: usize) -> Vec<u8> {
        match r.index(6) {
            0 => r.bytes(n),
            1 => {
                let m = 1 + r.index(20);
                (0..n).map(|i| if i % width == 0 { (r.next() % m as u64) as u8 } else { 0 }).collect()
            }
            2 => {
                let mut v = Vec::new();
                let mut x = r.next() >> r.index(64);
                while v.len() < n {
                    x = x.wrapping_add(r.next() % 5);
                    v.extend_from_slice(&x.to_le_bytes()[..width]);
                }
                v.truncate(n);
                v
            }
            3 => (0..n).map(|_| if r.index(30) == 0 { r.next() as u8 } else { 0 }).collect(),
            4 => (0..n).map(|i| (i / 97) as u8 ^ 0xff).collect(),
            _ => {
                let m = 1u64 << r.index(63);
                let mut v = Vec::new();
                while v.len() < n {
                    let x = (r.next() % m).wrapping_sub(m / 2);
                    v.extend_from_slice(&x.to_le_bytes()[..width]);
                }
                v.truncate(n);
                v
            }
        }
    }

    fn mutate(r: &mut Rng, c: &mut Vec<u8>) {
        if c.is_empty() {
            return;
        }
        match r.index(7) {
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
                // a table field or a payload's op-count / level word
                let at = 32 + r.index(c.len().saturating_sub(32).min(64) + 1);
                if at + 4 <= c.len() {
                    let v = match r.index(3) {
                        0 => r.next() as u32,
                        1 => (r.next() as u32) & 0xfff << 19 | (r.index(2) as u32) << 31,
                        _ => r.index(4000) as u32,
                    };
                    c[at..at + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
            5 => {
                let k = r.index(64);
                c.extend((0..k).map(|_| r.next() as u8));
            }
            _ => {
                // a random payload byte changed, several times
                for _ in 0..1 + r.index(20) {
                    if c.len() > 40 {
                        let at = 40 + r.index(c.len() - 40);
                        c[at] = r.next() as u8;
                    }
                }
            }
        }
    }

    /// Old and new decoders agree on statuses, sizes and bytes for valid and mutated chunks,
    /// and their block decoders on every payload's result and bitmap.
    #[test]
    fn differential_old_new() {
        let mut r = Rng::here();
        let iters: usize = std::env::var("DIFF_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(3000);
        let (mut ok, mut err, mut payloads) = (0, 0, 0);
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
            let algorithm = if r.index(2) == 0 { BitcompAlgorithm::Default } else { BitcompAlgorithm::Sparse };
            let n = match r.index(3) {
                0 => r.index(100),
                1 => 8192 * (1 + r.index(4)),
                _ => r.index(40000),
            };
            let input = data(&mut r, n, width);
            let mut c = super::super::compress_to_vec(&input, &BitcompOptions { algorithm, data_type: dt }).unwrap();
            mutate(&mut r, &mut c);
            if r.index(4) == 0 {
                mutate(&mut r, &mut c);
            }
            let cap = match r.index(4) {
                0 => n.saturating_sub(r.index(3)),
                _ => n + r.index(10),
            };
            let mut a = vec![0x5au8; cap];
            let mut b = vec![0x5au8; cap];
            let old = super::decompress(&c, &mut a);
            let new = super::super::decompress(&c, &mut b);
            assert_eq!(old, new, "status");
            if old.is_ok() {
                assert!(a == b, "bytes");
                ok += 1;
            } else {
                err += 1;
            }
            // every table entry's payload through both block decoders
            if let Ok(h) = super::ChunkHeader::read(&c) {
                let blocks = (h.uncompressed_bytes as usize).min(1 << 20).div_ceil(8192);
                let base = 32 + 8 * blocks;
                for blk in 0..blocks {
                    let Ok(e) = super::BlockEntry::read(&c, blk) else { break };
                    let Some(p) = c.get(base..).and_then(|pl| e.payload(pl).ok()) else { continue };
                    let (ro, bo) = super::decode_payload(p, algorithm);
                    let mut bm = [0u8; 8192];
                    let rn = match algorithm {
                        BitcompAlgorithm::Sparse => super::super::sparse::decode(p, &mut bm).map(|u| u..p.len()),
                        BitcompAlgorithm::Default => super::super::default::decode(p, &mut bm),
                    };
                    assert_eq!(ro, rn, "block result");
                    if ro.is_ok() {
                        assert!(bo[..] == bm[..], "bitmap");
                    }
                    payloads += 1;
                }
            }
        }
        println!("differential: {ok} decoded, {err} refused, {payloads} block payloads");
    }
}
