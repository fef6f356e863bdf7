//! The embedded PTX, its entry points and their parameter lists.
//!
//! Every entry point is a [`Kernel<A>`] whose launch takes its parameter list `A`, a struct whose
//! fields are pushed in declaration order ([`KernelArgs`]): passing another kernel's list, or a
//! list in another order, does not compile. Parameters stay scalars (`u64` addresses and sizes,
//! `u32` options), as the kernels' `extern "ptx-kernel"` signatures declare them: by-value structs
//! through the nvptx ABI would tie the host to rustc's layout of them. A test checks every list
//! against the `.entry` declarations of both embedded PTX files.
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, LaunchArgs, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

use crate::error::Result;

/// PTX for compute capability 9.x and newer (H100, H200, ...).
static PTX_SM90: &str = include_str!(concat!(env!("OUT_DIR"), "/gpucomp_sm_90.ptx"));
/// PTX for compute capability 8.x (A100, A10, L4, RTX 30/40 series).
static PTX_SM80: &str = include_str!(concat!(env!("OUT_DIR"), "/gpucomp_sm_80.ptx"));

/// The embedded PTX that fits a device of compute capability `cc`, with its architecture name.
pub(crate) fn ptx_for(cc: (i32, i32)) -> Option<(&'static str, &'static str)> {
    match cc.0 {
        9.. => Some(("sm_90", PTX_SM90)),
        8 => Some(("sm_80", PTX_SM80)),
        _ => None,
    }
}

/// Where a kernel's arguments go: a launch, or a test's record of them. Each push names the
/// parameter as the kernel's signature does.
pub(crate) trait ArgSink<'a> {
    /// A device address: a pointer parameter.
    fn pointer(&mut self, name: &'static str, address: &'a u64);
    /// A 64-bit integer.
    fn u64(&mut self, name: &'static str, value: &'a u64);
    /// A 32-bit integer.
    fn u32(&mut self, name: &'static str, value: &'a u32);
}

impl<'a> ArgSink<'a> for LaunchArgs<'a> {
    fn pointer(&mut self, _name: &'static str, address: &'a u64) {
        self.arg(address);
    }

    fn u64(&mut self, _name: &'static str, value: &'a u64) {
        self.arg(value);
    }

    fn u32(&mut self, _name: &'static str, value: &'a u32) {
        self.arg(value);
    }
}

/// A kernel's parameter list.
pub(crate) trait KernelArgs {
    /// Pushes every parameter, in the kernel's order.
    fn push<'a>(&'a self, sink: &mut impl ArgSink<'a>);
}

/// Declares a parameter list: a struct of `u64` / `u32` fields, pushed in the order written, each
/// as its kind (`pointer`, `u64`, `u32`).
macro_rules! kernel_args {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident: $kind:ident),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub(crate) struct $name {
            $($(#[$fdoc])* pub(crate) $field: kernel_args!(@type $kind),)*
        }

        impl KernelArgs for $name {
            fn push<'a>(&'a self, sink: &mut impl ArgSink<'a>) {
                $(sink.$kind(stringify!($field), &self.$field);)*
            }
        }
    };
    (@type pointer) => { u64 };
    (@type u64) => { u64 };
    (@type u32) => { u32 };
}

/// nvCOMP's batched compression arguments, then the kernel's options: `(in_ptrs, in_bytes,
/// num_chunks, out_ptrs, out_bytes, statuses, options...)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CompressArgs<O> {
    /// Device address of the chunk addresses.
    pub(crate) in_ptrs: u64,
    /// Device address of the chunk sizes.
    pub(crate) in_bytes: u64,
    /// Chunks in the batch.
    pub(crate) num_chunks: u64,
    /// Device address of the output addresses.
    pub(crate) out_ptrs: u64,
    /// Device address of the compressed sizes written.
    pub(crate) out_bytes: u64,
    /// Device address of the statuses written, or 0.
    pub(crate) statuses: u64,
    /// The kernel's own parameters.
    pub(crate) options: O,
}

impl<O: KernelArgs> KernelArgs for CompressArgs<O> {
    fn push<'a>(&'a self, sink: &mut impl ArgSink<'a>) {
        sink.pointer("in_ptrs", &self.in_ptrs);
        sink.pointer("in_bytes", &self.in_bytes);
        sink.u64("num_chunks", &self.num_chunks);
        sink.pointer("out_ptrs", &self.out_ptrs);
        sink.pointer("out_bytes", &self.out_bytes);
        sink.pointer("statuses", &self.statuses);
        self.options.push(sink);
    }
}

kernel_args! {
    /// nvCOMP's batched decompression arguments (`*_decompress`).
    DecompressArgs {
        /// Device address of the chunk addresses.
        in_ptrs: pointer,
        /// Device address of the compressed sizes.
        in_bytes: pointer,
        /// Chunks in the batch.
        num_chunks: u64,
        /// Device address of the output addresses.
        out_ptrs: pointer,
        /// Device address of the room at each output.
        out_capacity: pointer,
        /// Device address of the decompressed sizes written, or 0.
        out_actual: pointer,
        /// Device address of the statuses written, or 0.
        statuses: pointer,
    }
}

/// The arguments of the decompression kernels that spread a chunk over several parts
/// (`ans_decompress` and `cascaded_decompress`: thread blocks; `bitcomp_decompress`: warps):
/// nvCOMP's batched decompression arguments, then the per-chunk words where the parts combine
/// and the parts per chunk (e.g. `gpucomp_kernels::ans::blocks_per_chunk`,
/// `gpucomp_kernels::bitcomp::warps_per_chunk`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SplitDecompressArgs {
    /// The batch.
    pub(crate) batch: DecompressArgs,
    /// Device address of `num_chunks` zeroed `u32` (read only when `split > 1`), or 0.
    pub(crate) parts: u64,
    /// Parts per chunk: thread blocks (the grid a multiple of it) or Bitcomp's warps.
    pub(crate) split: u32,
}

impl KernelArgs for SplitDecompressArgs {
    fn push<'a>(&'a self, sink: &mut impl ArgSink<'a>) {
        self.batch.push(sink);
        sink.pointer("parts", &self.parts);
        sink.u32("split", &self.split);
    }
}

/// The arguments of `zstd_decompress`: nvCOMP's batched decompression arguments, then the
/// chunks' literal buffers (`gpucomp_kernels::zstd::decompress`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ZstdDecompressArgs {
    /// The batch.
    pub(crate) batch: DecompressArgs,
    /// Device address of `num_chunks * literal_stride` bytes of temp, or 0 (no literal buffers).
    pub(crate) literals: u64,
    /// Bytes of each chunk's literal buffer (0: none).
    pub(crate) literal_stride: u64,
}

impl KernelArgs for ZstdDecompressArgs {
    fn push<'a>(&'a self, sink: &mut impl ArgSink<'a>) {
        self.batch.push(sink);
        sink.pointer("literals", &self.literals);
        sink.u64("literal_stride", &self.literal_stride);
    }
}

kernel_args! {
    /// The decompressed-size query's arguments (`*_decompressed_size`).
    SizeQueryArgs {
        /// Device address of the chunk addresses.
        in_ptrs: pointer,
        /// Device address of the compressed sizes.
        in_bytes: pointer,
        /// Chunks in the batch.
        num_chunks: u64,
        /// Device address of the sizes written.
        out_sizes: pointer,
    }
}

/// No options: the compression options of an algorithm without a compression kernel (Zstd,
/// compressed on the CPU codec).
impl KernelArgs for () {
    fn push<'a>(&'a self, _sink: &mut impl ArgSink<'a>) {}
}

kernel_args! {
    /// `lz4_bitshuffle`'s arguments.
    BitshuffleArgs {
        /// Device address of the chunk addresses.
        in_ptrs: pointer,
        /// Device address of the chunk sizes.
        sizes: pointer,
        /// Chunks in the batch.
        num_chunks: u64,
        /// Device address of the output addresses (may equal `in_ptrs`: in place).
        out_ptrs: pointer,
        /// Element width in bytes (1, 2 or 4).
        element_width: u32,
        /// 1: most significant bit plane first.
        msb_first: u32,
        /// 1: undo the shuffle.
        inverse: u32,
    }
}

kernel_args! {
    /// `batched_copy`'s arguments.
    CopyArgs {
        /// Device address of the source addresses.
        src: pointer,
        /// Device address of the destination addresses.
        dst: pointer,
        /// Device address of the byte counts.
        sizes: pointer,
        /// Buffers to copy.
        count: u64,
    }
}

kernel_args! {
    /// `expand_chunks`'s arguments.
    ExpandArgs {
        /// Device address of the stream descriptions ([`StreamDesc`](gpucomp_kernels::assemble::StreamDesc)).
        streams: pointer,
        /// Streams in the batch.
        count: u64,
        /// Device address of the chunk addresses written.
        in_ptrs: pointer,
        /// Device address of the chunk sizes written.
        in_bytes: pointer,
        /// Device address of the staging-slot addresses written.
        out_ptrs: pointer,
    }
}

kernel_args! {
    /// `expand_chunk_tables`'s arguments.
    ExpandTablesArgs {
        /// Device address of the tiles ([`TableTile`](gpucomp_kernels::chunk_tables::TableTile)).
        tiles: pointer,
        /// Tiles in the batch.
        count: u64,
        /// Device address of the chunk addresses written.
        in_ptrs: pointer,
        /// Device address of the chunk sizes written.
        in_bytes: pointer,
        /// Device address of the output addresses written.
        out_ptrs: pointer,
        /// Device address of the output capacities written.
        capacities: pointer,
        /// Device address of the tiles' error words written.
        errors: pointer,
    }
}

kernel_args! {
    /// `assemble_streams`'s arguments.
    AssembleArgs {
        /// Device address of the stream descriptions.
        streams: pointer,
        /// Streams in the batch.
        count: u64,
        /// Device address of the compressed chunk sizes.
        sizes: pointer,
        /// Device address of the chunks' compression statuses.
        statuses: pointer,
        /// Chunk alignment in the data region.
        align: u64,
        /// Device address of the copy destinations written.
        copy_dst: pointer,
        /// Device address of the copy lengths written.
        copy_len: pointer,
        /// Device address of the stream lengths written.
        totals: pointer,
    }
}

kernel_args! {
    /// `lz4_compress`'s options.
    Lz4CompressOptions {
        /// Hash-table slots ([`Lz4Encoder::table_size`](crate::Lz4Encoder::table_size)).
        table_size: u32,
        /// Element width in bytes (1, 2 or 4).
        element_width: u32,
        /// 0: gpucomp's encoder, 1: nvCOMP's, 2: gpucomp's on segments (records for `lz4_stitch`).
        encoder: u32,
        /// Bytes of each warp's staging buffer in shared memory (0: none; see
        /// `gpucomp_kernels::lz4::compress_stage_bytes`).
        stage_bytes: u32,
    }
}

kernel_args! {
    /// `lz4_segments`' arguments (`gpucomp_kernels::lz4::stitch::split`).
    Lz4SegmentArgs {
        /// Device address of the chunk addresses.
        in_ptrs: pointer,
        /// Device address of the chunk sizes.
        in_bytes: pointer,
        /// Chunks in the batch.
        num_chunks: u64,
        /// Segments per chunk.
        per_chunk: u64,
        /// Device address of the first segment's block slot.
        blocks: u64,
        /// Device address of the segment addresses written.
        seg_in_ptrs: pointer,
        /// Device address of the segment sizes written.
        seg_in_bytes: pointer,
        /// Device address of the segment block addresses written.
        seg_out_ptrs: pointer,
    }
}

kernel_args! {
    /// `lz4_stitch`'s options (`gpucomp_kernels::lz4::stitch::Segments`).
    Lz4StitchOptions {
        /// Segments per chunk.
        per_chunk: u64,
        /// Device address of the first segment's block slot.
        blocks: pointer,
        /// Device address of the segments' records (size, final literals).
        sizes: pointer,
        /// Device address of the segments' statuses.
        statuses: pointer,
    }
}

kernel_args! {
    /// `cascaded_compress`'s options.
    CascadedCompressOptions {
        /// The `nvcompType_t` value.
        data_type: u32,
        /// Compression level.
        level: u32,
        /// Fine-grained option flags.
        flags: u32,
    }
}

kernel_args! {
    /// `bitcomp_compress`'s options.
    BitcompCompressOptions {
        /// The chunk's element type code.
        type_code: u32,
        /// The coder (0 or 1).
        algorithm: u32,
    }
}

kernel_args! {
    /// The options of `ans_compress`, `ans_compress_float` and `ans_compress_float8`.
    AnsCompressOptions {
        /// The `nvcompType_t` value.
        data_type: u32,
        /// Largest sub-chunk count per chunk.
        max_sub_chunk_count: u32,
        /// Interleaved states per lane (1 or 2).
        states_per_lane: u32,
        /// Histogram reduction, log2.
        histogram_reduction_log2: u32,
        /// The batch's largest chunk in bytes.
        max_chunk_bytes: u32,
        /// Device address of `num_chunks` zeroed `u32` (read only when `split > 1`), or 0.
        parts: pointer,
        /// Thread blocks per chunk (the grid a multiple of it;
        /// `gpucomp_kernels::ans::compress::compress_blocks_per_chunk`).
        split: u32,
    }
}

/// An entry point whose parameter list is `A`.
pub(crate) struct Kernel<A> {
    function: CudaFunction,
    /// The dynamic shared memory launches may take, as last set on `function`.
    dynamic_shared: Mutex<u32>,
    args: PhantomData<fn(&A)>,
}

impl<A: KernelArgs> Kernel<A> {
    /// Queues the kernel on `stream`.
    ///
    /// # Safety
    /// Every address in `args` must be valid, for the entries and bytes the kernel's contract
    /// says it reads and writes, until the stream has run the kernel.
    pub(crate) unsafe fn launch(&self, stream: &CudaStream, config: LaunchConfig, args: &A) -> Result<()> {
        let mut launch = stream.launch_builder(&self.function);
        args.push(&mut launch);
        // SAFETY: `A` is this kernel's parameter list (checked against the PTX by this module's
        // tests); the caller vouches for the addresses.
        unsafe { launch.launch(config)? };
        Ok(())
    }

    /// Lets launches take `bytes` of dynamic shared memory; needed above the default 48 KiB.
    /// The limit only grows: the module is shared by every `Gpu` of a device and their threads,
    /// and a smaller limit set by one thread between another's setting and launch would fail
    /// that launch (`CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES`).
    pub(crate) fn allow_dynamic_shared(&self, bytes: u32) -> Result<()> {
        if bytes <= 48 * 1024 {
            return Ok(());
        }
        let mut allowed = self.dynamic_shared.lock().unwrap_or_else(PoisonError::into_inner);
        if bytes > *allowed {
            self.function.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )?;
            *allowed = bytes;
        }
        Ok(())
    }
}

/// Declares [`Kernels`]: each field is the entry point of that name, with its parameter list.
macro_rules! kernels {
    ($($name:ident: $args:ty),* $(,)?) => {
        /// Every kernel entry point of the module, looked up once.
        pub(crate) struct Kernels {
            $(pub(crate) $name: Kernel<$args>,)*
            _module: Arc<CudaModule>,
        }

        impl Kernels {
            /// Looks up every entry point of `module`.
            fn look_up(module: Arc<CudaModule>) -> Result<Kernels> {
                Ok(Kernels {
                    $($name: Kernel {
                        function: module.load_function(stringify!($name))?,
                        dynamic_shared: Mutex::new(0),
                        args: PhantomData,
                    },)*
                    _module: module,
                })
            }
        }

        /// Each entry point's name and its parameter list as pushed: (kind, name) pairs.
        #[cfg(test)]
        fn signatures() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
            vec![$((stringify!($name), tests::record(&<$args>::default()))),*]
        }
    };
}

kernels! {
    lz4_compress: CompressArgs<Lz4CompressOptions>,
    lz4_decompress: DecompressArgs,
    lz4_decompressed_size: SizeQueryArgs,
    lz4_bitshuffle: BitshuffleArgs,
    lz4_segments: Lz4SegmentArgs,
    lz4_stitch: CompressArgs<Lz4StitchOptions>,
    batched_copy: CopyArgs,
    expand_chunks: ExpandArgs,
    assemble_streams: AssembleArgs,
    expand_chunk_tables: ExpandTablesArgs,
    cascaded_compress: CompressArgs<CascadedCompressOptions>,
    cascaded_decompress: SplitDecompressArgs,
    cascaded_decompressed_size: SizeQueryArgs,
    bitcomp_compress: CompressArgs<BitcompCompressOptions>,
    bitcomp_decompress: SplitDecompressArgs,
    bitcomp_decompressed_size: SizeQueryArgs,
    ans_compress: CompressArgs<AnsCompressOptions>,
    ans_compress_float: CompressArgs<AnsCompressOptions>,
    ans_compress_float8: CompressArgs<AnsCompressOptions>,
    ans_decompress: SplitDecompressArgs,
    ans_decompressed_size: SizeQueryArgs,
    zstd_decompress: ZstdDecompressArgs,
    zstd_decompressed_size: SizeQueryArgs,
}

impl Kernels {
    /// JIT-compiles `ptx` for the context's device (the driver caches the result) and looks up
    /// every entry point.
    pub(crate) fn load(ctx: &Arc<CudaContext>, ptx: &'static str) -> Result<Kernels> {
        let kernels = Kernels::look_up(ctx.load_module(Ptx::from_src(ptx))?)?;
        kernels.bitcomp_compress.allow_dynamic_shared(gpucomp_kernels::bitcomp::COMPRESS_SHARED_BYTES)?;
        Ok(kernels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records pushes as (kind, name).
    struct Record(Vec<(&'static str, &'static str)>);

    impl<'a> ArgSink<'a> for Record {
        fn pointer(&mut self, name: &'static str, _: &'a u64) {
            self.0.push(("pointer", name));
        }

        fn u64(&mut self, name: &'static str, _: &'a u64) {
            self.0.push(("u64", name));
        }

        fn u32(&mut self, name: &'static str, _: &'a u32) {
            self.0.push(("u32", name));
        }
    }

    /// What `args` pushes.
    pub(super) fn record(args: &impl KernelArgs) -> Vec<(&'static str, &'static str)> {
        let mut r = Record(Vec::new());
        args.push(&mut r);
        r.0
    }

    /// The parameter kinds of entry point `name` in `ptx`, from its `.entry` declaration.
    fn ptx_params(ptx: &str, name: &str) -> Vec<&'static str> {
        let start = ptx.find(&format!(".entry {name}(\n")).unwrap_or_else(|| panic!("{name} is not in the PTX"));
        let decl = &ptx[start..];
        let decl = &decl[..decl.find(')').unwrap()];
        decl.lines()
            .filter_map(|l| l.trim().strip_prefix(".param "))
            .map(|p| match p.split_whitespace().take(2).collect::<Vec<_>>()[..] {
                [".u64", ".ptr"] => "pointer",
                [".u64", _] => "u64",
                [".u32", _] => "u32",
                _ => panic!("{name}: unexpected parameter {p}"),
            })
            .collect()
    }

    /// Every entry point of both PTX files is declared, with the kinds its list pushes.
    #[test]
    fn parameter_lists_match_the_ptx() {
        let signatures = signatures();
        for ptx in [PTX_SM80, PTX_SM90] {
            assert_eq!(ptx.matches(".visible .entry ").count(), signatures.len(), "entry points not in Kernels");
            for (name, pushed) in &signatures {
                let kinds: Vec<_> = pushed.iter().map(|&(kind, _)| kind).collect();
                assert_eq!(kinds, ptx_params(ptx, name), "{name}");
            }
        }
    }

    /// The options lists name the kernels' parameters in their order (the PTX keeps no names).
    #[test]
    fn options_follow_the_kernels_signatures() {
        let names = |name: &str| -> Vec<&str> {
            let (_, pushed) = signatures().into_iter().find(|(n, _)| *n == name).unwrap();
            pushed.into_iter().map(|(_, field)| field).collect()
        };
        let compress = ["in_ptrs", "in_bytes", "num_chunks", "out_ptrs", "out_bytes", "statuses"];
        let with = |options: &[&'static str]| [&compress[..], options].concat();
        assert_eq!(names("lz4_compress"), with(&["table_size", "element_width", "encoder", "stage_bytes"]));
        assert_eq!(names("lz4_stitch"), with(&["per_chunk", "blocks", "sizes", "statuses"]));
        let segments = ["in_ptrs", "in_bytes", "num_chunks", "per_chunk", "blocks", "seg_in_ptrs", "seg_in_bytes"];
        assert_eq!(names("lz4_segments"), [&segments[..], &["seg_out_ptrs"]].concat());
        assert_eq!(names("cascaded_compress"), with(&["data_type", "level", "flags"]));
        assert_eq!(names("bitcomp_compress"), with(&["type_code", "algorithm"]));
        let ans = with(&[
            "data_type",
            "max_sub_chunk_count",
            "states_per_lane",
            "histogram_reduction_log2",
            "max_chunk_bytes",
            "parts",
            "split",
        ]);
        for kernel in ["ans_compress", "ans_compress_float", "ans_compress_float8"] {
            assert_eq!(names(kernel), ans, "{kernel}");
        }
        let decompress = ["in_ptrs", "in_bytes", "num_chunks", "out_ptrs", "out_capacity", "out_actual", "statuses"];
        let size = ["in_ptrs", "in_bytes", "num_chunks", "out_sizes"];
        for algorithm in ["lz4", "cascaded", "bitcomp", "ans", "zstd"] {
            let own: &[&str] = match algorithm {
                "lz4" => &[],
                "zstd" => &["literals", "literal_stride"],
                _ => &["parts", "split"],
            };
            assert_eq!(names(&format!("{algorithm}_decompress")), [&decompress[..], own].concat(), "{algorithm}");
            assert_eq!(names(&format!("{algorithm}_decompressed_size")), size, "{algorithm}");
        }
        let bitshuffle = ["in_ptrs", "sizes", "num_chunks", "out_ptrs", "element_width", "msb_first", "inverse"];
        assert_eq!(names("lz4_bitshuffle"), bitshuffle);
        assert_eq!(names("batched_copy"), ["src", "dst", "sizes", "count"]);
        assert_eq!(names("expand_chunks"), ["streams", "count", "in_ptrs", "in_bytes", "out_ptrs"]);
        let assemble = ["streams", "count", "sizes", "statuses", "align", "copy_dst", "copy_len", "totals"];
        assert_eq!(names("assemble_streams"), assemble);
        let tables = ["tiles", "count", "in_ptrs", "in_bytes", "out_ptrs", "capacities", "errors"];
        assert_eq!(names("expand_chunk_tables"), tables);
    }
}
