"""gpucomp: nvidia.nvcomp's Python API (Codec, Array, as_array, ...) on gpucomp's GPU kernels.

``from gpucomp import Codec`` works as ``from nvidia.nvcomp import Codec`` does for LZ4, ANS,
Cascaded, Bitcomp and Zstd. Without a GPU (no driver or device) every codec runs on gpucomp's CPU
codecs, which write the same bytes; ``Codec(..., device="cpu")`` asks for them explicitly.
"""

from gpucomp import batched
from gpucomp._gpucomp import (
    Array,
    ArrayBufferKind,
    BitstreamKind,
    ChecksumPolicy,
    Codec,
    CudaError,
    DecodeError,
    EncodeError,
    GpucompError,
    __version__,
    as_array,
    as_arrays,
    cuda_available,
    from_dlpack,
)

__all__ = [
    "Array",
    "ArrayBufferKind",
    "BitstreamKind",
    "ChecksumPolicy",
    "Codec",
    "CudaError",
    "DecodeError",
    "EncodeError",
    "GpucompError",
    "__version__",
    "as_array",
    "batched",
    "as_arrays",
    "cuda_available",
    "from_dlpack",
]
