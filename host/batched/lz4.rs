//! Batched LZ4 (`nvcompBatchedLZ4*`): raw LZ4 blocks, one per chunk, with nvCOMP's optional
//! bitshuffle pre-pass (its own temp space and launches).
use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig};
use gpucomp_kernels::lz4::{self as geometry, stitch};

use super::{Alignments, CompressLaunch, DecompressKernel, Description, Geometry, Table};
use crate::algorithm::{Lz4Encoder, Lz4Options};
use crate::cpu::lz4::SEGMENT;
use crate::error::{Error, Result, Status};
use crate::gpu::kernels::{
    BitshuffleArgs, CompressArgs, DecompressArgs, Lz4CompressOptions, Lz4SegmentArgs, Lz4StitchOptions,
};
use crate::gpu::Gpu;
use crate::types::BitshuffleMode;

/// Batched LZ4 with fixed options, on the GPU.
#[derive(Debug, Clone, Copy)]
pub struct Lz4 {
    options: Lz4Options,
    width: usize,
}

impl Lz4 {
    /// LZ4 with `options`; fails for data types LZ4 refuses (8-byte and float types).
    pub fn new(options: Lz4Options) -> Result<Lz4> {
        Ok(Lz4 { width: options.element_width()?, options })
    }
}

impl Description for Lz4 {
    const TABLE: Table = Table {
        name: "LZ4",
        max_chunk: Lz4Options::MAX_CHUNK_SIZE,
        max_decompress_chunk: Some(Lz4Options::MAX_CHUNK_SIZE),
        decompress: DecompressKernel::Fixed(Geometry {
            kernel: |k| &k.lz4_decompress,
            grid: geometry::decompress_grid_dim,
            block: geometry::DECOMPRESS_BLOCK,
        }),
        // Each block is parsed whole; corrupt chunks get 0.
        size_query: Geometry {
            kernel: |k| &k.lz4_decompressed_size,
            grid: geometry::decompress_grid_dim,
            block: geometry::DECOMPRESS_BLOCK,
        },
    };

    type Options = Lz4CompressOptions;

    /// Compression inputs aligned to the element width (as nvCOMP), decompression outputs too;
    /// temp to 16 bytes.
    fn alignments(&self) -> (Alignments, Alignments) {
        let w = self.width;
        (Alignments { input: w, output: 1, temp: 16 }, Alignments { input: 1, output: w, temp: 16 })
    }

    fn bound(&self, max_chunk: usize) -> usize {
        Lz4Options::max_compressed_chunk_size(max_chunk)
    }

    /// With bitshuffle, a pointer array and a shuffled copy of every chunk; then, for gpucomp's
    /// encoder on chunks above a segment, the segments' arrays and blocks ([`SegmentTemp`]).
    fn compress_temp(&self, num_chunks: usize, max_chunk: usize) -> usize {
        let shuffle = self.shuffle_temp(num_chunks, max_chunk);
        match self.segmented(max_chunk) {
            true => shuffle + SegmentTemp::new(num_chunks, max_chunk).bytes(),
            false => shuffle,
        }
    }

    /// 0 without bitshuffle; with it, an array of decompressed sizes (the shuffle is undone in
    /// place).
    fn decompress_temp(&self, num_chunks: usize, _max_chunk: usize) -> usize {
        match self.options.bitshuffle {
            BitshuffleMode::None => 0,
            _ => num_chunks * 8,
        }
    }

    /// `lz4_compress`, its hash table (`Lz4Encoder::table_size` of the batch's largest chunk), for
    /// gpucomp's encoder a staging buffer per warp that holds the largest chunk (segment), and
    /// warps per block fitted to the device's shared memory.
    fn compress_launch<'k>(
        &self,
        gpu: &'k Gpu,
        num_chunks: usize,
        max_chunk: usize,
    ) -> Result<CompressLaunch<'k, Self::Options>> {
        let kernel = &gpu.kernels().lz4_compress;
        // Segmented: a warp per segment, each a chunk of at most SEGMENT bytes.
        let (warps, largest) = match self.segmented(max_chunk) {
            true => (num_chunks as u64 * stitch::segments_per_chunk(max_chunk as u64), SEGMENT),
            false => (num_chunks as u64, max_chunk),
        };
        // At most 2^14 slots: the cast is exact.
        let table_size = self.options.encoder.table_size(largest) as u32;
        let smem = gpu.info().max_shared_per_block;
        let stage = match self.options.encoder {
            Lz4Encoder::Gpucomp => {
                // A staged warp ran 1.5x faster on an H200, but fewer fit an SM (11 rather than
                // 32 on 16 KiB segments; 32 MiB batches lost 20 %): staged only while the batch
                // is one wave of staged warps.
                let stage = geometry::compress_stage_bytes(largest as u64);
                let block_warps = u64::from(geometry::compress_block_dim(table_size, stage, smem) / 32);
                if warps <= u64::from(gpu.info().multiprocessors) * block_warps {
                    stage
                } else {
                    0
                }
            }
            Lz4Encoder::Nvcomp => 0,
        };
        let config = LaunchConfig {
            grid_dim: (geometry::compress_grid_dim(warps, table_size, stage, smem), 1, 1),
            block_dim: (geometry::compress_block_dim(table_size, stage, smem), 1, 1),
            shared_mem_bytes: geometry::compress_shared_bytes(table_size, stage, smem),
        };
        kernel.allow_dynamic_shared(config.shared_mem_bytes)?;
        let encoder = match self.options.encoder {
            Lz4Encoder::Gpucomp if self.segmented(max_chunk) => 2,
            Lz4Encoder::Gpucomp => 0,
            Lz4Encoder::Nvcomp => 1,
        };
        let options = Lz4CompressOptions { table_size, element_width: self.width as u32, encoder, stage_bytes: stage };
        Ok(CompressLaunch { kernel, config, options })
    }

    /// With bitshuffle: shuffles every chunk into temp and points `args` at the copies.
    fn prepare_compress(
        &self,
        gpu: &Gpu,
        args: &mut CompressArgs<Self::Options>,
        max_chunk: usize,
        temp: Option<&mut CudaSlice<u8>>,
    ) -> Result<()> {
        let Some(msb_first) = self.shuffle_order() else { return Ok(()) };
        let n = args.num_chunks;
        let layout = ShuffleTemp::new(n as usize, max_chunk);
        let temp = temp_address(gpu, temp, layout.bytes())?;
        // The shuffled copies' addresses go to the start of temp; the copies follow.
        let slots: Vec<u64> = (0..n).map(|i| temp + layout.data_offset + i * layout.stride).collect();
        // SAFETY: temp holds `layout.bytes()` bytes, the first 8·n of which take the addresses;
        // the pageable source is staged by the driver before the call returns.
        unsafe { cudarc::driver::result::memcpy_htod_async(temp, &slots, gpu.stream().cu_stream())? };
        self.launch_shuffle(gpu, (args.in_ptrs, args.in_bytes, n, temp), msb_first, false)?;
        args.in_ptrs = temp;
        Ok(())
    }

    /// Segmented: splits the chunks into segments in temp (after the shuffled copies, if any),
    /// compresses them there, and stitches each chunk's segments into its output.
    unsafe fn launch_compress(
        &self,
        gpu: &Gpu,
        launch: CompressLaunch<'_, Self::Options>,
        args: &CompressArgs<Self::Options>,
        max_chunk: usize,
        temp: Option<&mut CudaSlice<u8>>,
    ) -> Result<()> {
        if !self.segmented(max_chunk) {
            // SAFETY: this function's contract.
            return unsafe { launch.kernel.launch(gpu.stream(), launch.config, args) };
        }
        let n = args.num_chunks as usize;
        let base = self.shuffle_temp(n, max_chunk) as u64;
        let layout = SegmentTemp::new(n, max_chunk);
        let at = temp_address(gpu, temp, base as usize + layout.bytes())? + base;
        let kernels = gpu.kernels();
        let split = Lz4SegmentArgs {
            in_ptrs: args.in_ptrs,
            in_bytes: args.in_bytes,
            num_chunks: args.num_chunks,
            per_chunk: layout.per_chunk,
            blocks: at + layout.blocks,
            seg_in_ptrs: at,
            seg_in_bytes: at + layout.seg_bytes(1),
            seg_out_ptrs: at + layout.seg_bytes(2),
        };
        let config = super::launch_config(stitch::split_grid_dim(layout.count), stitch::SPLIT_BLOCK);
        // SAFETY: the chunk arrays hold `n` entries (this function's contract), the segment
        // arrays `layout.count` entries of temp, which holds `layout.bytes()` from `at`.
        unsafe { kernels.lz4_segments.launch(gpu.stream(), config, &split)? };
        let segments = CompressArgs {
            in_ptrs: split.seg_in_ptrs,
            in_bytes: split.seg_in_bytes,
            num_chunks: layout.count,
            out_ptrs: split.seg_out_ptrs,
            out_bytes: at + layout.seg_bytes(3),
            statuses: at + layout.seg_bytes(4),
            options: launch.options,
        };
        // SAFETY: the segments lie inside the chunks (readable per this function's contract),
        // their blocks in temp slots of the bound of a segment (`stitch::SLOT_BYTES`).
        unsafe { launch.kernel.launch(gpu.stream(), launch.config, &segments)? };
        let joined = CompressArgs {
            in_ptrs: args.in_ptrs,
            in_bytes: args.in_bytes,
            num_chunks: args.num_chunks,
            out_ptrs: args.out_ptrs,
            out_bytes: args.out_bytes,
            statuses: args.statuses,
            options: Lz4StitchOptions {
                per_chunk: layout.per_chunk,
                blocks: split.blocks,
                sizes: segments.out_bytes,
                statuses: segments.statuses,
            },
        };
        let config = super::launch_config(stitch::stitch_grid_dim(args.num_chunks), stitch::STITCH_BLOCK);
        // SAFETY: the outputs hold the bound of their chunk (this function's contract), which
        // the stitch never passes; the segment records were written by the launch above.
        unsafe { kernels.lz4_stitch.launch(gpu.stream(), config, &joined) }
    }

    /// With bitshuffle and no `out_actual`: keeps the sizes, which undoing the shuffle needs, in
    /// temp.
    fn prepare_decompress(&self, gpu: &Gpu, args: &mut DecompressArgs, temp: Option<&mut CudaSlice<u8>>) -> Result<()> {
        if self.shuffle_order().is_some() && args.out_actual == 0 {
            args.out_actual = temp_address(gpu, temp, args.num_chunks as usize * 8)?;
        }
        Ok(())
    }

    /// With bitshuffle: undoes it in place (failed chunks report size 0, so nothing of theirs is
    /// touched).
    fn finish_decompress(&self, gpu: &Gpu, args: &DecompressArgs) -> Result<()> {
        match self.shuffle_order() {
            Some(msb_first) => self.launch_shuffle(
                gpu,
                (args.out_ptrs, args.out_actual, args.num_chunks, args.out_ptrs),
                msb_first,
                true,
            ),
            None => Ok(()),
        }
    }
}

impl Lz4 {
    /// Whether a batch of chunks of up to `max_chunk` bytes is compressed in segments: gpucomp's
    /// encoder on chunks above [`SEGMENT`] (the rule of `cpu::lz4::compress`).
    fn segmented(&self, max_chunk: usize) -> bool {
        self.options.encoder == Lz4Encoder::Gpucomp && max_chunk > SEGMENT
    }

    /// Temp bytes of the bitshuffle pass (0 without one; a multiple of 16).
    fn shuffle_temp(&self, num_chunks: usize, max_chunk: usize) -> usize {
        match self.options.bitshuffle {
            BitshuffleMode::None => 0,
            _ => ShuffleTemp::new(num_chunks, max_chunk).bytes(),
        }
    }

    fn shuffle_order(&self) -> Option<bool> {
        match self.options.bitshuffle {
            BitshuffleMode::None => None,
            BitshuffleMode::MsbFirst => Some(true),
            BitshuffleMode::LsbFirst => Some(false),
        }
    }

    /// Queues the bitshuffle kernel over `(in_ptrs, sizes, num_chunks, out_ptrs)` (`inverse`:
    /// undo it; may run in place).
    fn launch_shuffle(&self, gpu: &Gpu, arrays: (u64, u64, u64, u64), msb_first: bool, inverse: bool) -> Result<()> {
        let (in_ptrs, sizes, num_chunks, out_ptrs) = arrays;
        let args = BitshuffleArgs {
            in_ptrs,
            sizes,
            num_chunks,
            out_ptrs,
            element_width: self.width as u32,
            msb_first: u32::from(msb_first),
            inverse: u32::from(inverse),
        };
        let config = super::launch_config(
            gpucomp_kernels::bitshuffle::grid_dim(num_chunks),
            gpucomp_kernels::bitshuffle::BLOCK_THREADS,
        );
        // SAFETY: the pointer arrays hold `num_chunks` entries, of chunks valid for the sizes
        // (the batched contract the callers are under).
        unsafe { gpu.kernels().lz4_bitshuffle.launch(gpu.stream(), config, &args) }
    }
}

/// Temp layout of a bitshuffled compression: `n` chunk addresses, then the shuffled chunks.
struct ShuffleTemp {
    data_offset: u64,
    stride: u64,
    n: u64,
}

impl ShuffleTemp {
    fn new(n: usize, max_chunk: usize) -> ShuffleTemp {
        ShuffleTemp {
            data_offset: (n as u64 * 8).next_multiple_of(16),
            stride: (max_chunk as u64).next_multiple_of(16),
            n: n as u64,
        }
    }

    fn bytes(&self) -> usize {
        (self.data_offset + self.n * self.stride) as usize
    }
}

/// Temp layout of a segmented compression of `n` chunks, `per_chunk` segments each (`count` in
/// all): five arrays of a word per segment (`stitch::split`'s addresses, sizes and block
/// addresses; `lz4_compress`'s records; its statuses, 4 bytes each), then a block slot of
/// `stitch::SLOT_BYTES` per segment.
struct SegmentTemp {
    per_chunk: u64,
    count: u64,
    /// Offset of the block slots.
    blocks: u64,
}

impl SegmentTemp {
    fn new(n: usize, max_chunk: usize) -> SegmentTemp {
        let per_chunk = stitch::segments_per_chunk(max_chunk as u64);
        let count = n as u64 * per_chunk;
        SegmentTemp { per_chunk, count, blocks: (count * 36).next_multiple_of(16) }
    }

    /// Offset of array `k` (0..=4).
    fn seg_bytes(&self, k: u64) -> u64 {
        8 * k * self.count
    }

    fn bytes(&self) -> usize {
        (self.blocks + self.count * stitch::SLOT_BYTES) as usize
    }
}

/// The device address of `temp`, checked to hold `needed` bytes.
fn temp_address(gpu: &Gpu, temp: Option<&mut CudaSlice<u8>>, needed: usize) -> Result<u64> {
    match temp {
        Some(t) if t.len() >= needed => Ok(t.device_ptr(gpu.stream()).0),
        t => Err(Error::InvalidArgument {
            status: Status::InvalidValue,
            reason: format!("temp buffer of {} bytes, {needed} needed", t.map_or(0, |t| t.len())),
        }),
    }
}
