//! What a Bitcomp chunk holds, as data for `gpucomp inspect --chunk` (which formats it): its
//! header fields and, per 8 KiB
//! block, the table entry (word offset, words), the payload's bytes and padding, and how the
//! block is stored (raw, or coded by the chunk's algorithm).
//!
//! [`chunk`] is built on [`super::blocks`], which parses every block payload with the decoder's
//! own code (to find its padding) without converting it to data: what is shown is what the
//! decoder reads, and hostile input gives `CannotDecompress`, never a panic.
use super::header::ChunkHeader;
use crate::algorithm::bitcomp::BitcompAlgorithm;
use crate::Status;

/// A parsed chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkView {
    /// Bytes per element as the chunk records it: 1, 2, 4 or 8 (floats are stored as unsigned
    /// integers of their width).
    pub element_bytes: usize,
    /// Whether the elements are signed integers.
    pub signed: bool,
    /// The coder of the blocks that are not raw.
    pub algorithm: BitcompAlgorithm,
    /// Words of payload after the block table, as the header records them.
    pub payload_words: u64,
    /// Uncompressed bytes of the chunk.
    pub uncompressed_bytes: u64,
    /// Compressed bytes of the chunk.
    pub bytes: usize,
    /// The blocks in table order.
    pub blocks: Vec<BlockView>,
}

/// How a block is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockMode {
    /// Its input bytes, zero-padded to 8192 (coding would not have made it smaller).
    Raw,
    /// Coded by the chunk's algorithm.
    Coded(BitcompAlgorithm),
}

/// One block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockView {
    /// Payload start in words from the payload base (the table entry).
    pub word_offset: u32,
    /// Payload words (the table entry).
    pub words: u32,
    /// Offset of the payload in the chunk.
    pub offset: usize,
    /// Bytes of the payload that carry no information (after a sparse block's levels, between a
    /// default block's literal and low streams); 0 for raw blocks.
    pub padding: usize,
    /// Uncompressed bytes of the block (8192, the last one fewer).
    pub uncompressed: usize,
    /// How it is stored.
    pub mode: BlockMode,
}

impl BlockView {
    /// Payload bytes (`4 · words`).
    pub fn bytes(&self) -> usize {
        4 * self.words as usize
    }
}

impl ChunkView {
    /// Number of raw blocks.
    pub fn raw_blocks(&self) -> usize {
        self.blocks.iter().filter(|b| b.mode == BlockMode::Raw).count()
    }
}

/// Parses a chunk and its blocks: `CannotDecompress` when the header, the table or any block
/// payload does not parse.
pub fn chunk(input: &[u8]) -> Result<ChunkView, Status> {
    let header = ChunkHeader::read(input)?;
    let blocks = super::blocks(input)?
        .into_iter()
        .map(|v| BlockView {
            word_offset: v.entry.word_offset,
            words: v.entry.words,
            offset: v.payload.start,
            padding: v.padding.len(),
            uncompressed: v.uncompressed.len(),
            mode: if v.entry.raw { BlockMode::Raw } else { BlockMode::Coded(header.algorithm) },
        })
        .collect();
    let ChunkHeader { element, algorithm, payload_words, uncompressed_bytes } = header;
    Ok(ChunkView {
        element_bytes: element.width,
        signed: element.signed,
        algorithm,
        payload_words,
        uncompressed_bytes,
        bytes: input.len(),
        blocks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithm::bitcomp::BitcompOptions;
    use crate::types::DataType;

    /// A generator seeded from the clock (the seed is printed for replay).
    fn rng() -> impl FnMut() -> u64 {
        let seed =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
        println!("seed {seed}");
        let mut x = seed | 1;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    #[test]
    fn raw_and_coded_blocks() {
        // Block 0: small integers (coded); block 1: random bytes (raw); block 2: 100 bytes.
        let mut next = rng();
        let mut input: Vec<u8> = (0..2048u32).flat_map(|i| (i % 50 + (next() % 4) as u32).to_le_bytes()).collect();
        input.extend((0..8192).map(|_| next() as u8));
        input.extend((0..100).map(|_| (next() % 3) as u8));
        for algorithm in [BitcompAlgorithm::Default, BitcompAlgorithm::Sparse] {
            let c = super::super::compress_to_vec(&input, &BitcompOptions { algorithm, data_type: DataType::Uint })
                .unwrap();
            let v = chunk(&c).unwrap();
            assert_eq!((v.bytes, v.uncompressed_bytes), (c.len(), input.len() as u64));
            assert_eq!((v.element_bytes, v.signed, v.algorithm), (4, false, algorithm));
            let modes: Vec<BlockMode> = v.blocks.iter().map(|b| b.mode).collect();
            assert_eq!(modes, [BlockMode::Coded(algorithm), BlockMode::Raw, BlockMode::Coded(algorithm)]);
            assert_eq!(v.raw_blocks(), 1);
            assert_eq!(v.blocks.iter().map(|b| b.uncompressed).collect::<Vec<_>>(), [8192, 8192, 100]);
            assert_eq!(v.blocks[1].bytes(), 8192);
            assert!(v.blocks[0].bytes() < 8192 && v.blocks[1].padding == 0);
            assert_eq!(v.blocks[0].word_offset, 0);
            assert_eq!(v.blocks[1].word_offset, v.blocks[0].words);
            let end = v.blocks.iter().map(|b| b.offset + b.bytes()).max().unwrap();
            assert_eq!(end, c.len());
        }
    }

    /// Truncated, bit-flipped and random chunks give an error or a view, never a panic.
    #[test]
    fn hostile_chunks_never_panic() {
        let mut next = rng();
        let input: Vec<u8> = (0..30_000).map(|i| (i / 300 + (next() % 2) as usize) as u8).collect();
        for algorithm in [BitcompAlgorithm::Default, BitcompAlgorithm::Sparse] {
            let good = super::super::compress_to_vec(&input, &BitcompOptions { algorithm, data_type: DataType::Uchar })
                .unwrap();
            assert!(chunk(&good).is_ok());
            for cut in 0..good.len().min(300) {
                assert!(chunk(&good[..cut]).is_err(), "truncated to {cut}");
            }
            for _ in 0..1000 {
                let mut bad = good.clone();
                for _ in 0..1 + next() % 4 {
                    let at = (next() as usize) % bad.len();
                    bad[at] ^= 1 << (next() % 8);
                }
                let _ = chunk(&bad);
            }
        }
        for _ in 0..1000 {
            let mut bad: Vec<u8> = (0..32 + next() % 400).map(|_| next() as u8).collect();
            bad[..8].copy_from_slice(&[b'N', b'V', b'Z', 0, 0, 0, 0, 0]);
            let _ = chunk(&bad);
        }
    }
}
