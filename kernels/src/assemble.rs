//! Stream assembly: a batch of buffers cut into chunks and their compressed chunks placed in
//! containers, on the device, so that the host handles each buffer once and never each chunk.
//!
//! [`expand_chunks`] writes the per-chunk arrays a batched compression takes (input address and
//! length, staging slot) from one [`StreamDesc`] per buffer. After the compression,
//! [`assemble_streams`] lays each buffer's chunks out in its stream: chunk `i` goes to
//! `data_offset + Σ_{j<i} roundup(size_j, align)` (every offset a multiple of the alignment, so
//! the offsets are a prefix sum), the header is the host's fixed part completed with the
//! compressed-data size and the offset and size tables (NVCOMP_NATIVE), the padding between
//! chunks is zeroed, and the chunk copies are left as descriptors for [`crate::copy`]'s batched
//! copy. The host then reads back only each stream's length.
//!
//! One warp per stream: a batch's streams are few (one per buffer) and their chunk lists short,
//! and a warp scans 32 chunks per step without a block barrier.
use crate::warp::{shfl_idx_u64, warp_inclusive_scan_u64};
use crate::Thread;

/// Warps (streams in flight) per block.
pub const WARPS: u32 = 4;
/// Threads per block of both kernels.
pub const BLOCK_THREADS: u32 = 32 * WARPS;

/// Grid size for `count` streams: one warp each, capped (warps loop over the rest).
pub fn grid_dim(count: u64) -> u32 {
    count.div_ceil(WARPS as u64).clamp(1, 65535) as u32
}

/// One buffer of the batch and its stream, as the host describes it (words of `u64`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct StreamDesc {
    /// Device address of the buffer.
    pub input: u64,
    /// Its length in bytes.
    pub input_len: u64,
    /// Uncompressed bytes per chunk (the last chunk may be shorter).
    pub chunk_size: u64,
    /// Its chunks: `num_chunks` entries of the batch's chunk arrays from `first_chunk`.
    pub first_chunk: u64,
    /// Chunks of the buffer: `ceil(input_len / chunk_size)`.
    pub num_chunks: u64,
    /// Device address of its first chunk's staging slot.
    pub slot: u64,
    /// Bytes from one slot to the next.
    pub slot_stride: u64,
    /// Device address of the stream.
    pub out: u64,
    /// Bytes writable at `out`.
    pub capacity: u64,
    /// Device address of the stream's first `header_len` bytes, as the host wrote them.
    pub header: u64,
    /// Their length: up to the chunk tables (NVCOMP_NATIVE), or the whole header.
    pub header_len: u64,
    /// Where the first chunk goes.
    pub data_offset: u64,
    /// 1: an NVCOMP_NATIVE stream: the compressed-data size goes to bytes 8..16 of the header
    /// and the offset and size tables (`u64` each) follow it at `header_len`.
    pub tables: u64,
}

impl StreamDesc {
    /// The words as the kernels read them, in field order.
    pub fn words(&self) -> [u64; 13] {
        [
            self.input,
            self.input_len,
            self.chunk_size,
            self.first_chunk,
            self.num_chunks,
            self.slot,
            self.slot_stride,
            self.out,
            self.capacity,
            self.header,
            self.header_len,
            self.data_offset,
            self.tables,
        ]
    }

    /// Chunk `c`'s entries of the batch's chunk arrays: its input address, its length and its
    /// staging slot (what [`expand_chunks`] writes, and the host for a few chunks).
    #[inline(always)]
    pub fn chunk(&self, c: u64) -> (u64, u64, u64) {
        let start = c * self.chunk_size;
        (self.input + start, (self.input_len - start).min(self.chunk_size), self.slot + c * self.slot_stride)
    }
}

/// The batch of [`assemble_streams`].
#[derive(Clone, Copy)]
pub struct Assembly {
    /// `count` stream descriptions.
    pub streams: *const StreamDesc,
    /// Streams in the batch.
    pub count: u64,
    /// Compressed size of every chunk of the batch.
    pub sizes: *const u64,
    /// Compression status of every chunk of the batch.
    pub statuses: *const i32,
    /// Chunk alignment in the data region, a power of two.
    pub align: u64,
    /// Per chunk: where the copy puts it (written).
    pub copy_dst: *mut u64,
    /// Per chunk: the bytes the copy moves, 0 where its stream is not written (written).
    pub copy_len: *mut u64,
    /// Per stream: its length; `u64::MAX` when a chunk failed (written). A length above the
    /// capacity means nothing of the stream was written.
    pub totals: *mut u64,
}

/// The streams of a warp, one warp per stream: `blockIdx.x · WARPS + warp`, stepping by the
/// grid's warp count, below `count`.
#[inline(always)]
pub(crate) fn warp_streams<T: Thread>(t: &T, count: u64) -> impl Iterator<Item = usize> {
    let first = t.block_idx() as u64 * WARPS as u64 + t.warp() as u64;
    let step = t.grid_dim() as u64 * WARPS as u64;
    (0..).map(move |k| first + k * step).take_while(move |&s| s < count).map(|s| s as usize)
}

/// Writes `in_ptrs`, `in_bytes` and `out_ptrs` (the batch's chunk arrays) for every chunk of
/// the `count` streams.
///
/// # Safety
/// `streams` holds `count` descriptions whose chunk ranges lie inside the three arrays.
#[inline(always)]
pub unsafe fn expand_chunks<T: Thread>(
    t: &T,
    streams: *const StreamDesc,
    count: u64,
    in_ptrs: *mut u64,
    in_bytes: *mut u64,
    out_ptrs: *mut u64,
) {
    for s in warp_streams(t, count) {
        let d = *streams.add(s);
        let mut c = t.lane() as u64;
        while c < d.num_chunks {
            let k = (d.first_chunk + c) as usize;
            (*in_ptrs.add(k), *in_bytes.add(k), *out_ptrs.add(k)) = d.chunk(c);
            c += 32;
        }
    }
}

/// `v` rounded up to the power of two `align`.
#[inline(always)]
fn round_up(v: u64, align: u64) -> u64 {
    v.wrapping_add(align - 1) & !(align - 1)
}

/// Chunk `c`'s share of its stream's data region: its size, rounded up to the alignment except
/// for the last chunk (no trailing pad).
#[inline(always)]
fn extent(size: u64, c: u64, n: u64, align: u64) -> u64 {
    if c + 1 < n {
        round_up(size, align)
    } else {
        size
    }
}

/// Writes `v` little-endian at `p` (any alignment: callers' streams may start anywhere).
#[inline(always)]
unsafe fn put_u64(p: *mut u8, v: u64) {
    p.cast::<[u8; 8]>().write_unaligned(v.to_le_bytes());
}

/// Lays out every stream of `a`: header, tables and padding written, chunk copies described.
///
/// # Safety
/// The arrays of `a` hold their entries (chunk arrays: every chunk of every stream); each
/// stream's `out` is writable for `capacity` bytes and its `header` readable for `header_len`
/// bytes; streams do not overlap each other, the headers or the arrays.
#[inline(always)]
pub unsafe fn assemble_streams<T: Thread>(t: &T, a: Assembly) {
    let lane = t.lane() as u64;
    for s in warp_streams(t, a.count) {
        let d = *a.streams.add(s);
        let (first, n) = (d.first_chunk as usize, d.num_chunks);
        // First pass: the data region's size, and whether every chunk compressed.
        let (mut data, mut failed) = (0u64, false);
        let mut c = lane;
        while c < n {
            let k = first + c as usize;
            failed |= *a.statuses.add(k) != 0;
            data = data.wrapping_add(extent(*a.sizes.add(k), c, n, a.align));
            c += 32;
        }
        let data = shfl_idx_u64(t, warp_inclusive_scan_u64(t, data), 31);
        let total = if t.any(failed) { u64::MAX } else { d.data_offset.wrapping_add(data) };
        if lane == 0 {
            *a.totals.add(s) = total;
        }
        if total > d.capacity {
            let mut c = lane;
            while c < n {
                *a.copy_len.add(first + c as usize) = 0;
                c += 32;
            }
            continue;
        }
        let out = d.out as *mut u8;
        let header = d.header as *const u8;
        let native = d.tables != 0;
        let mut b = lane;
        while b < d.header_len {
            *out.add(b as usize) =
                if native && (8..16).contains(&b) { (data >> (8 * (b - 8))) as u8 } else { *header.add(b as usize) };
            b += 32;
        }
        let tables_end = d.header_len + if native { 16 * n } else { 0 };
        let mut b = tables_end + lane;
        while b < d.data_offset {
            *out.add(b as usize) = 0;
            b += 32;
        }
        // Second pass: offsets by a running prefix sum, 32 chunks a step.
        let mut carry = 0u64;
        let mut base = 0u64;
        while base < n {
            let c = base + lane;
            let size = if c < n { *a.sizes.add(first + c as usize) } else { 0 };
            let ext = if c < n { extent(size, c, n, a.align) } else { 0 };
            let through = warp_inclusive_scan_u64(t, ext);
            let (before, step) = (through.wrapping_sub(ext), shfl_idx_u64(t, through, 31));
            if c < n {
                let offset = carry + before;
                if native {
                    put_u64(out.add((d.header_len + 8 * c) as usize), offset);
                    put_u64(out.add((d.header_len + 8 * (n + c)) as usize), size);
                }
                let at = out.add((d.data_offset + offset) as usize);
                *a.copy_dst.add(first + c as usize) = at as u64;
                *a.copy_len.add(first + c as usize) = size;
                let mut p = size;
                while p < ext {
                    *at.add(p as usize) = 0;
                    p += 1;
                }
            }
            carry = carry.wrapping_add(step);
            base += 32;
        }
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use super::{Assembly, StreamDesc};
    use crate::ptx::{kernel, Ptx};

    kernel! {
        /// See [`super::expand_chunks`].
        fn expand_chunks(
            streams: *const StreamDesc,
            count: u64,
            in_ptrs: *mut u64,
            in_bytes: *mut u64,
            out_ptrs: *mut u64,
        ) [] {
            super::expand_chunks(&Ptx, streams, count, in_ptrs, in_bytes, out_ptrs)
        }
    }

    kernel! {
        /// See [`super::assemble_streams`].
        fn assemble_streams(
            streams: *const StreamDesc,
            count: u64,
            sizes: *const u64,
            statuses: *const i32,
            align: u64,
            copy_dst: *mut u64,
            copy_len: *mut u64,
            totals: *mut u64,
        ) [] {
            super::assemble_streams(&Ptx, Assembly { streams, count, sizes, statuses, align, copy_dst, copy_len, totals })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{launch, SendPtr};
    use crate::test_rng::xorshift;
    use std::{vec, vec::Vec};

    /// A batch laid out on the host: the streams' descriptions over one output buffer.
    struct Batch {
        descs: Vec<StreamDesc>,
        sizes: Vec<u64>,
        statuses: Vec<i32>,
        out: Vec<u8>,
        headers: Vec<u8>,
    }

    fn run(b: &mut Batch, align: u64, grid: u32) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
        let chunks = b.sizes.len();
        let (mut dst, mut len, mut totals) = (vec![7u64; chunks], vec![7u64; chunks], vec![7u64; b.descs.len()]);
        let a = Assembly {
            streams: b.descs.as_ptr(),
            count: b.descs.len() as u64,
            sizes: b.sizes.as_ptr(),
            statuses: b.statuses.as_ptr(),
            align,
            copy_dst: dst.as_mut_ptr(),
            copy_len: len.as_mut_ptr(),
            totals: totals.as_mut_ptr(),
        };
        let a = SendAssembly(a);
        launch::<(), _>(grid, BLOCK_THREADS, |t, _| unsafe { assemble_streams(t, a.get()) });
        (dst, len, totals)
    }

    #[derive(Clone, Copy)]
    struct SendAssembly(Assembly);
    // SAFETY: as `SendPtr`: the simulator hands one argument set to every thread, as a launch does.
    unsafe impl Send for SendAssembly {}
    unsafe impl Sync for SendAssembly {}
    impl SendAssembly {
        fn get(self) -> Assembly {
            self.0
        }
    }

    /// Streams of random chunk counts (0 to 70, so tables span several warp steps), native or
    /// not, one of them given too little room and one with a failed chunk.
    fn batch(rng: &mut impl FnMut() -> u64, align: u64) -> Batch {
        let mut below = |n: u64| rng() % n;
        let count = 9;
        let (mut descs, mut sizes, mut statuses, mut headers) = (vec![], vec![], vec![], vec![]);
        let mut out_len = 0u64;
        for s in 0..count {
            let n = if s == 3 { 1 } else { below(71) };
            let native = s != 3;
            let header_len = if native { 64 + 8 * below(3) } else { 8 };
            let data_offset = round_up(header_len + if native { 16 * n } else { 0 }, align);
            let first = sizes.len() as u64;
            for _ in 0..n {
                sizes.push(below(300));
                statuses.push(0);
            }
            if s == 5 && n > 0 {
                statuses[first as usize + n as usize / 2] = 4;
            }
            let needed = data_offset + (0..n).map(|c| extent(sizes[(first + c) as usize], c, n, align)).sum::<u64>();
            let capacity = if s == 7 { needed - 1 } else { needed + 40 };
            let header = headers.len() as u64;
            headers.extend((0..header_len).map(|_| below(256) as u8));
            descs.push(StreamDesc {
                first_chunk: first,
                num_chunks: n,
                out: out_len,
                capacity,
                header,
                header_len,
                data_offset,
                tables: native as u64,
                ..StreamDesc::default()
            });
            out_len += capacity;
        }
        Batch { descs, sizes, statuses, out: vec![0xA5; out_len as usize], headers }
    }

    #[test]
    fn places_chunks_as_the_native_layout_does() {
        let mut rng = xorshift(0x5EED);
        for (align, grid) in [(8, 1), (16, 2), (8, 3)] {
            let mut b = batch(&mut rng, align);
            let (out_base, header_base) = (b.out.as_mut_ptr() as u64, b.headers.as_ptr() as u64);
            let rel: Vec<(u64, u64)> = b.descs.iter().map(|d| (d.out, d.header)).collect();
            for d in &mut b.descs {
                d.out += out_base;
                d.header += header_base;
            }
            let (dst, len, totals) = run(&mut b, align, grid);
            for (s, (d, &(out, header))) in b.descs.iter().zip(&rel).enumerate() {
                let (first, n) = (d.first_chunk as usize, d.num_chunks as usize);
                let mem = &b.out[out as usize..(out + d.capacity) as usize];
                if s == 5 && n > 0 {
                    assert_eq!(totals[s], u64::MAX, "stream {s}: a failed chunk");
                    assert!(len[first..first + n].iter().all(|&l| l == 0) && mem.iter().all(|&x| x == 0xA5));
                    continue;
                }
                // The expected layout, as `NativeLayout` computes it on the host.
                let (mut offsets, mut end) = (vec![], 0u64);
                for c in 0..n {
                    let off = round_up(end, align);
                    offsets.push(off);
                    end = off + b.sizes[first + c];
                }
                let total = d.data_offset + end;
                assert_eq!(totals[s], total, "stream {s}");
                if s == 7 {
                    assert!(total > d.capacity && len[first..first + n].iter().all(|&l| l == 0));
                    assert!(mem.iter().all(|&x| x == 0xA5), "stream {s}: written without room");
                    continue;
                }
                let h = &b.headers[header as usize..(header + d.header_len) as usize];
                let native = d.tables != 0;
                for (i, (&got, &want)) in mem[..d.header_len as usize].iter().zip(h).enumerate() {
                    let want = if native && (8..16).contains(&i) { (end >> (8 * (i - 8))) as u8 } else { want };
                    assert_eq!(got, want, "stream {s}: header byte {i}");
                }
                let word = |at: u64| u64::from_le_bytes(mem[at as usize..at as usize + 8].try_into().unwrap());
                for c in 0..n {
                    if native {
                        assert_eq!(word(d.header_len + 8 * c as u64), offsets[c], "stream {s} chunk {c}: offset");
                        assert_eq!(word(d.header_len + 8 * (n + c) as u64), b.sizes[first + c], "size table");
                    }
                    assert_eq!(dst[first + c], out_base + out + d.data_offset + offsets[c], "stream {s} chunk {c}");
                    assert_eq!(len[first + c], b.sizes[first + c]);
                    let pad_end = if c + 1 < n { offsets[c + 1] } else { end };
                    let pad =
                        (d.data_offset + offsets[c] + b.sizes[first + c]) as usize..(d.data_offset + pad_end) as usize;
                    assert!(mem[pad].iter().all(|&x| x == 0), "stream {s} chunk {c}: padding");
                }
                let tables_end = d.header_len as usize + if native { 16 * n } else { 0 };
                assert!(mem[tables_end..d.data_offset as usize].iter().all(|&x| x == 0), "stream {s}: table pad");
            }
        }
    }

    #[test]
    fn words_follow_the_layout() {
        let d = StreamDesc { input: 1, slot_stride: 7, tables: 13, ..StreamDesc::default() };
        assert_eq!(core::mem::size_of::<StreamDesc>(), 8 * d.words().len());
        // SAFETY: `StreamDesc` is `repr(C)` of 13 `u64`.
        let raw: [u64; 13] = unsafe { core::mem::transmute(d) };
        assert_eq!(raw, d.words());
    }

    #[test]
    fn expands_every_chunk() {
        let descs = [
            StreamDesc {
                input: 1000,
                input_len: 100,
                chunk_size: 32,
                first_chunk: 0,
                num_chunks: 4,
                slot: 5000,
                slot_stride: 48,
                ..StreamDesc::default()
            },
            StreamDesc {
                input: 2000,
                input_len: 0,
                chunk_size: 32,
                first_chunk: 4,
                num_chunks: 0,
                slot: 0,
                slot_stride: 48,
                ..StreamDesc::default()
            },
            StreamDesc {
                input: 3000,
                input_len: 70 * 16,
                chunk_size: 16,
                first_chunk: 4,
                num_chunks: 70,
                slot: 9000,
                slot_stride: 32,
                ..StreamDesc::default()
            },
        ];
        let (mut ptrs, mut bytes, mut slots) = (vec![0u64; 74], vec![0u64; 74], vec![0u64; 74]);
        let (d, p, b, o) = (
            SendPtr(descs.as_ptr() as *mut StreamDesc),
            SendPtr(ptrs.as_mut_ptr()),
            SendPtr(bytes.as_mut_ptr()),
            SendPtr(slots.as_mut_ptr()),
        );
        launch::<(), _>(1, BLOCK_THREADS, |t, _| unsafe { expand_chunks(t, d.get(), 3, p.get(), b.get(), o.get()) });
        assert_eq!(&ptrs[..4], [1000, 1032, 1064, 1096]);
        assert_eq!(&bytes[..4], [32, 32, 32, 4]);
        assert_eq!(&slots[..4], [5000, 5048, 5096, 5144]);
        for c in 0..70u64 {
            let k = 4 + c as usize;
            assert_eq!((ptrs[k], bytes[k], slots[k]), (3000 + 16 * c, 16, 9000 + 32 * c), "chunk {c}");
        }
    }
}
