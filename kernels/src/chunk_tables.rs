//! Chunk tables read on the device: the per-chunk arrays a batched decompression takes, written
//! from the streams' own offset and size tables, so that the host reads each stream's header
//! and never its tables.
//!
//! The host describes each stream by [`TableTile`]s of at most [`TILE_CHUNKS`] chunks (a long
//! stream gets several warps); [`expand_chunk_tables`] checks every entry of a tile against the
//! stream's compressed-data region, as the host's NVCOMP_NATIVE reader does, and writes the
//! chunk's input address and length, output address and capacity. A chunk whose entry fails is
//! given no input and no room (a decoder can neither read nor write for it) and the tile's error
//! word names the first such chunk; the host reports it before any decoding status.
use crate::assemble::{warp_streams, BLOCK_THREADS as THREADS};
use crate::Thread;

/// Threads per block.
pub const BLOCK_THREADS: u32 = THREADS;

/// Most chunks the host puts in one tile (one warp's work).
pub const TILE_CHUNKS: u64 = 1024;

/// Grid size for `count` tiles: one warp each, capped (warps loop over the rest).
pub fn grid_dim(count: u64) -> u32 {
    crate::assemble::grid_dim(count)
}

/// Chunks `first..first + count` of one stream, as the host describes them (words of `u64`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct TableTile {
    /// Device address the chunk offsets count from (the compressed-data region).
    pub data: u64,
    /// Its length in bytes: every chunk must lie inside it.
    pub data_len: u64,
    /// Device address of the stream's offset table (`stream_chunks` little-endian `u64`, any
    /// alignment), the size table right after it; 0: the stream is one chunk, all of `data`.
    pub tables: u64,
    /// Chunks of the whole stream (where the size table starts).
    pub stream_chunks: u64,
    /// The tile's first chunk, counted within the stream.
    pub first: u64,
    /// Its chunks.
    pub count: u64,
    /// Where its first chunk goes in the batch's chunk arrays.
    pub slot: u64,
    /// Alignment of chunk offsets, a power of two.
    pub align: u64,
    /// Device address of the stream's output.
    pub out: u64,
    /// Uncompressed bytes per chunk (the last may be shorter).
    pub chunk_size: u64,
    /// Uncompressed bytes of the stream: chunk `c` gets room for
    /// `min(chunk_size, out_len - c · chunk_size)`.
    pub out_len: u64,
}

impl TableTile {
    /// The words as the kernel reads them, in field order.
    pub fn words(&self) -> [u64; 11] {
        [
            self.data,
            self.data_len,
            self.tables,
            self.stream_chunks,
            self.first,
            self.count,
            self.slot,
            self.align,
            self.out,
            self.chunk_size,
            self.out_len,
        ]
    }
}

/// A chunk entry outside the compressed-data region (in an error word: bit 0 clear).
pub const OUTSIDE: u64 = 0;
/// A chunk offset that is not a multiple of the alignment (bit 0 set).
pub const MISALIGNED: u64 = 1;

/// The error word of a tile whose first failing chunk is `c` (within its stream), for `reason`.
#[inline(always)]
pub fn error_word(c: u64, reason: u64) -> u64 {
    1 + 2 * c + reason
}

/// The failing chunk and reason of a non-zero error word.
pub fn decode_error(word: u64) -> (u64, u64) {
    ((word - 1) / 2, (word - 1) % 2)
}

/// Little-endian `u64` at `p`, any alignment.
#[inline(always)]
unsafe fn load_u64(p: *const u8) -> u64 {
    u64::from_le_bytes(p.cast::<[u8; 8]>().read_unaligned())
}

/// Writes the four chunk arrays for every chunk of the `count` tiles, and each tile's error
/// word (0 when every entry lies inside its region at an aligned offset).
///
/// # Safety
/// `tiles` holds `count` tiles whose slots lie inside the four arrays and `errors` has one word
/// per tile; each tile's `tables` (when not 0) is readable for `16 · stream_chunks` bytes.
#[inline(always)]
pub unsafe fn expand_chunk_tables<T: Thread>(
    t: &T,
    tiles: *const TableTile,
    count: u64,
    arrays: [*mut u64; 4],
    errors: *mut u64,
) {
    let [in_ptrs, in_bytes, out_ptrs, capacities] = arrays;
    for s in warp_streams(t, count) {
        let d = *tiles.add(s);
        let tables = d.tables as *const u8;
        let mut error = 0;
        // Whole warp steps: the ballot below needs every lane.
        let mut base = 0;
        while base < d.count {
            let k = base + t.lane() as u64;
            let mut ok = true;
            let mut reason = OUTSIDE;
            if k < d.count {
                let c = d.first + k;
                let (offset, size) = if tables.is_null() {
                    (0, d.data_len)
                } else {
                    (load_u64(tables.add(8 * c as usize)), load_u64(tables.add(8 * (d.stream_chunks + c) as usize)))
                };
                let inside = offset <= d.data_len && size <= d.data_len - offset;
                let aligned = offset & (d.align - 1) == 0;
                ok = inside && aligned;
                if inside {
                    reason = MISALIGNED;
                }
                let start = c.wrapping_mul(d.chunk_size);
                let slot = (d.slot + k) as usize;
                *out_ptrs.add(slot) = d.out.wrapping_add(start);
                (*in_ptrs.add(slot), *in_bytes.add(slot), *capacities.add(slot)) = if ok {
                    (d.data + offset, size, d.out_len.saturating_sub(start).min(d.chunk_size))
                } else {
                    (d.data, 0, 0)
                };
            }
            // The first failing chunk of the tile: the lowest lane of the first step with one.
            let failed = t.ballot(!ok);
            if error == 0 && failed != 0 {
                let lane = failed.trailing_zeros();
                let reason = t.shfl_idx(reason as u32, lane) as u64;
                error = error_word(d.first + base + lane as u64, reason);
            }
            base += 32;
        }
        if t.lane() == 0 {
            *errors.add(s) = error;
        }
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use super::TableTile;
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// See [`super::expand_chunk_tables`].
        fn expand_chunk_tables(
            tiles: *const TableTile,
            count: u64,
            in_ptrs: *mut u64,
            in_bytes: *mut u64,
            out_ptrs: *mut u64,
            capacities: *mut u64,
            errors: *mut u64,
        ) [] {
            super::expand_chunk_tables(&Ptx, tiles, count, [in_ptrs, in_bytes, out_ptrs, capacities], errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{launch, SendPtr};
    use crate::test_rng::xorshift;
    use std::{vec, vec::Vec};

    /// A stream's tables as NVCOMP_NATIVE lays them out: offsets, then sizes.
    fn tables(entries: &[(u64, u64)]) -> Vec<u8> {
        let mut t: Vec<u8> = entries.iter().flat_map(|e| e.0.to_le_bytes()).collect();
        t.extend(entries.iter().flat_map(|e| e.1.to_le_bytes()));
        t
    }

    /// Runs the kernel over `tiles` (grid `grid`); returns the four arrays of `chunks` entries
    /// and the error words.
    fn run(tiles: &[TableTile], chunks: usize, grid: u32) -> ([Vec<u64>; 4], Vec<u64>) {
        let mut arrays = [vec![7u64; chunks], vec![7u64; chunks], vec![7u64; chunks], vec![7u64; chunks]];
        let mut errors = vec![7u64; tiles.len()];
        let ptrs = arrays.each_mut().map(|a| SendPtr(a.as_mut_ptr()));
        let (d, e) = (SendPtr(tiles.as_ptr() as *mut TableTile), SendPtr(errors.as_mut_ptr()));
        let count = tiles.len() as u64;
        launch::<(), _>(grid, BLOCK_THREADS, |t, _| unsafe {
            expand_chunk_tables(t, d.get(), count, ptrs.map(SendPtr::get), e.get())
        });
        (arrays, errors)
    }

    #[test]
    fn expands_tables_in_tiles_and_single_chunks() {
        let mut rng = xorshift(0x7AB1E);
        // 70 chunks of a 1000-byte stream, 16-byte aligned offsets, the tables one byte off
        // alignment (a stream may start anywhere).
        let entries: Vec<(u64, u64)> = (0..70u64).map(|c| (16 * c, rng() % 17)).collect();
        let mut table = vec![0u8];
        table.extend(tables(&entries));
        let at = table.as_ptr() as u64 + 1;
        let tile = |first, count, slot| TableTile {
            data: 100_000,
            data_len: 16 * 70,
            tables: at,
            stream_chunks: 70,
            first,
            count,
            slot,
            align: 16,
            out: 500_000,
            chunk_size: 64,
            out_len: 64 * 69 + 5,
        };
        let one = TableTile {
            data: 9000,
            data_len: 33,
            out: 7000,
            chunk_size: 40,
            out_len: 40,
            slot: 70,
            count: 1,
            ..tile(0, 1, 70)
        };
        let one = TableTile { tables: 0, align: 1, stream_chunks: 1, ..one };
        let tiles = [tile(0, 40, 0), one, tile(40, 30, 40)];
        for grid in [1, 2] {
            let ([ptrs, bytes, outs, caps], errors) = run(&tiles, 71, grid);
            assert_eq!(errors, [0, 0, 0]);
            for (c, &(o, s)) in entries.iter().enumerate() {
                assert_eq!((ptrs[c], bytes[c]), (100_000 + o, s), "chunk {c}");
                assert_eq!((outs[c], caps[c]), (500_000 + 64 * c as u64, if c == 69 { 5 } else { 64 }), "chunk {c}");
            }
            assert_eq!((ptrs[70], bytes[70], outs[70], caps[70]), (9000, 33, 7000, 40));
        }
    }

    #[test]
    fn names_the_first_bad_entry_and_gives_it_no_room() {
        let good = |c: u64| (8 * c, 8);
        // (chunk, entry, reason): outside by one byte, an overflowing size, a misaligned offset.
        let cases = [
            (37, (8 * 37, 8 * 50 - 8 * 37 + 1), OUTSIDE),
            (3, (8, u64::MAX), OUTSIDE),
            (14, (8 * 14 + 4, 1), MISALIGNED),
        ];
        for (bad, entry, reason) in cases {
            let mut entries: Vec<(u64, u64)> = (0..50).map(good).collect();
            entries[bad as usize] = entry;
            // A second failure later in the tile does not hide the first.
            entries[49] = (u64::MAX, 1);
            let table = tables(&entries);
            let d = TableTile {
                data: 1 << 20,
                data_len: 8 * 50,
                tables: table.as_ptr() as u64,
                stream_chunks: 50,
                first: 0,
                count: 50,
                slot: 0,
                align: 8,
                out: 1 << 30,
                chunk_size: 10,
                out_len: 500,
            };
            let ([ptrs, bytes, _, caps], errors) = run(&[d], 50, 1);
            assert_eq!(decode_error(errors[0]), (bad, reason), "entry {entry:?}");
            for c in [bad as usize, 49] {
                assert_eq!((ptrs[c], bytes[c], caps[c]), (1 << 20, 0, 0), "chunk {c}: no input, no room");
            }
            assert_eq!((bytes[bad as usize + 1], caps[bad as usize + 1]), (8, 10));
        }
    }

    #[test]
    fn words_follow_the_layout() {
        let d = TableTile { data: 1, first: 5, out_len: 11, ..TableTile::default() };
        assert_eq!(core::mem::size_of::<TableTile>(), 8 * d.words().len());
        // SAFETY: `TableTile` is `repr(C)` of 11 `u64`.
        let raw: [u64; 11] = unsafe { core::mem::transmute(d) };
        assert_eq!(raw, d.words());
        assert_eq!(decode_error(error_word(12345, MISALIGNED)), (12345, MISALIGNED));
        assert_eq!(decode_error(error_word(0, OUTSIDE)), (0, OUTSIDE));
    }
}
