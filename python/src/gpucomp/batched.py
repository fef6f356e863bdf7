"""Low-level batched API: nvCOMP's ``nvcompBatched<X>*`` functions, one to one, in PEP 8 names.

Each nvCOMP function has a generic form taking the algorithm first (``compress_async("LZ4",
...)``) and a per-algorithm form (``lz4_compress_async(...)``); algorithm options are keyword
arguments with the names ``gpucomp.Codec`` takes (``data_type``, ``algorithm_type``, ...).

- Device arrays (chunk pointers and sizes as ``uint64``, statuses as ``int32``) are given as
  device addresses (ints) or device arrays (CuPy, PyTorch, ``gpucomp.Array``); arrays are
  checked to hold ``num_chunks`` entries.
- ``*_async`` functions queue work on ``stream`` (an int or a stream object; default 0, the
  legacy default stream) of GPU ``device_id`` and return at once; results are valid once the
  stream reaches them. Per-chunk statuses go to ``device_statuses`` with nvCOMP's values.
- Size, temp-size and alignment queries are host functions.
- Bad arguments raise ``TypeError`` / ``ValueError``; a failed launch ``gpucomp.GpucompError``.

The caller guarantees what nvCOMP's C API asks: live device memory of the right sizes,
outputs not overlapping inputs, the temp buffer at least the queried size.
"""

from functools import partial as _partial

from gpucomp._gpucomp import batched as _impl

compress_get_required_alignments = _impl.compress_get_required_alignments
decompress_get_required_alignments = _impl.decompress_get_required_alignments
compress_get_max_output_chunk_size = _impl.compress_get_max_output_chunk_size
compress_get_temp_size = _impl.compress_get_temp_size
decompress_get_temp_size = _impl.decompress_get_temp_size
compress_async = _impl.compress_async
decompress_async = _impl.decompress_async
get_decompress_size_async = _impl.get_decompress_size_async

_GENERIC = [
    "compress_get_required_alignments",
    "decompress_get_required_alignments",
    "compress_get_max_output_chunk_size",
    "compress_get_temp_size",
    "decompress_get_temp_size",
    "compress_async",
    "decompress_async",
    "get_decompress_size_async",
]
_ALGORITHMS = {"lz4": "LZ4", "cascaded": "Cascaded", "ans": "ANS", "bitcomp": "Bitcomp", "zstd": "Zstd"}

__all__ = list(_GENERIC)
for _prefix, _name in _ALGORITHMS.items():
    for _fn in _GENERIC:
        _alias = f"{_prefix}_{_fn}"
        globals()[_alias] = _partial(globals()[_fn], _name)
        __all__.append(_alias)
