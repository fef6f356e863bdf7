//! The embedded PTX and the kernel functions loaded from it.
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
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

/// Every kernel entry point of the module, looked up once.
pub(crate) struct Kernels {
    pub(crate) lz4_compress: CudaFunction,
    pub(crate) lz4_decompress: CudaFunction,
    pub(crate) lz4_decompressed_size: CudaFunction,
    pub(crate) lz4_bitshuffle: CudaFunction,
    pub(crate) batched_copy: CudaFunction,
    pub(crate) cascaded_compress: CudaFunction,
    pub(crate) cascaded_decompress: CudaFunction,
    pub(crate) cascaded_decompressed_size: CudaFunction,
    pub(crate) bitcomp_compress: CudaFunction,
    pub(crate) bitcomp_decompress: CudaFunction,
    pub(crate) bitcomp_decompressed_size: CudaFunction,
    pub(crate) ans_compress: CudaFunction,
    pub(crate) ans_compress_float: CudaFunction,
    pub(crate) ans_compress_float8: CudaFunction,
    pub(crate) ans_decompress: CudaFunction,
    pub(crate) ans_decompressed_size: CudaFunction,
    _module: Arc<CudaModule>,
}

impl Kernels {
    /// JIT-compiles `ptx` for the context's device (the driver caches the result) and looks up
    /// every entry point.
    pub(crate) fn load(ctx: &Arc<CudaContext>, ptx: &'static str) -> Result<Kernels> {
        let module = ctx.load_module(Ptx::from_src(ptx))?;
        let f = |name: &str| module.load_function(name);
        let bitcomp_compress = f("bitcomp_compress")?;
        // Its shared memory is dynamic and above the default 48 KiB limit.
        bitcomp_compress.set_attribute(
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            gpucomp_kernels::bitcomp::COMPRESS_SHARED_BYTES as i32,
        )?;
        Ok(Kernels {
            lz4_compress: f("lz4_compress")?,
            lz4_decompress: f("lz4_decompress")?,
            lz4_decompressed_size: f("lz4_decompressed_size")?,
            lz4_bitshuffle: f("lz4_bitshuffle")?,
            batched_copy: f("batched_copy")?,
            cascaded_compress: f("cascaded_compress")?,
            cascaded_decompress: f("cascaded_decompress")?,
            cascaded_decompressed_size: f("cascaded_decompressed_size")?,
            bitcomp_compress,
            bitcomp_decompress: f("bitcomp_decompress")?,
            bitcomp_decompressed_size: f("bitcomp_decompressed_size")?,
            ans_compress: f("ans_compress")?,
            ans_compress_float: f("ans_compress_float")?,
            ans_compress_float8: f("ans_compress_float8")?,
            ans_decompress: f("ans_decompress")?,
            ans_decompressed_size: f("ans_decompressed_size")?,
            _module: module,
        })
    }
}
