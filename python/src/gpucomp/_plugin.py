"""Plumbing shared by the zarr v3 codecs (``gpucomp.zarr``) and the numcodecs codecs
(``gpucomp.numcodecs``): configuration checks, per-thread ``gpucomp.Codec`` instances, and where a
buffer lives.

The LZ4, ANS, Cascaded and Bitcomp codecs of both plugins store NVCOMP_NATIVE streams (the Zstd
codecs store what zarr's and numcodecs' own Zstd codecs store, plain zstd frames: see
:func:`zstd_frames`): the stream is self-describing (algorithm, options,
uncompressed size and chunk table in its header, so any reader, ``nvidia.nvcomp`` included, decodes
it without the codec's configuration and allocates the output before decoding), and it splits one
zarr chunk into nvCOMP chunks of ``uncomp_chunk_size`` bytes that the GPU decodes in parallel. RAW
and WITH_UNCOMPRESSED_SIZE streams are a single nvCOMP chunk each, which one warp or block of the
GPU decodes alone (issue 25 measured 0.02 GB/s reading 4 MiB RAW zarr chunks).
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Mapping
from typing import Any

import numpy as np

import gpucomp
from gpucomp._gpucomp import zstd_compress_frames

#: The algorithms whose encoder reads the data as typed elements, for which the plugins default
#: ``data_type`` to the array's element width and signedness (the others default to bytes).
TYPED_ALGORITHMS = frozenset({"Cascaded", "Bitcomp"})

#: The decoded chunks are plain bytes; zarr's array-to-bytes codec gives them their dtype.
BYTES = "|u1"


def normalize_config(
    algorithm: str, uncomp_chunk_size: Any, options: Mapping[str, Any]
) -> tuple[int | None, dict[str, Any]]:
    """A codec's ``uncomp_chunk_size`` and nvCOMP options as JSON values, checked by building a
    CPU ``gpucomp.Codec`` of them.

    NumPy dtypes become nvCOMP's array-protocol strings (``np.dtype("int32")`` -> ``"<i4"``) and
    NumPy scalars Python numbers, so the configuration can be stored as JSON. Unknown options and
    bad values raise the ``TypeError``/``ValueError`` of ``gpucomp.Codec``, at construction rather
    than at the first chunk.
    """
    if uncomp_chunk_size is not None:
        if isinstance(uncomp_chunk_size, bool) or not isinstance(uncomp_chunk_size, int | np.integer):
            raise TypeError(f"uncomp_chunk_size: expected an int or None, got {uncomp_chunk_size!r}")
        uncomp_chunk_size = int(uncomp_chunk_size)
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key == "data_type" and not isinstance(value, str):
            value = np.dtype(value).str
        elif isinstance(value, np.generic):
            value = value.item()
        if value is not None and not isinstance(value, bool | int | float | str):
            raise TypeError(
                f"gpucomp codec option {key}={value!r}: expected a JSON scalar "
                f"(bool, int, float or str), got {type(value).__name__}"
            )
        out[key] = value
    CodecCache(algorithm, uncomp_chunk_size, out).cpu()
    return uncomp_chunk_size, out


def inferred_data_type(algorithm: str, dtype: np.dtype[Any]) -> str | None:
    """The ``data_type`` for ``algorithm`` on elements of ``dtype``, or None to keep the default.

    Cascaded and Bitcomp model integers of the element's width; floats, booleans and other
    fixed-width types are read as unsigned integers of their width (Cascaded refuses float types,
    and both encoders compress the bit patterns losslessly either way).
    """
    if algorithm not in TYPED_ALGORITHMS or dtype.itemsize not in (1, 2, 4, 8):
        return None
    kind = "i" if dtype.kind == "i" else "u"
    return np.dtype(f"<{kind}{dtype.itemsize}").str


class CodecCache:
    """``gpucomp.Codec`` instances for one configuration, one per thread and device.

    nvCOMP documents its ``Codec`` as thread-local (it holds scratch buffers), and zarr runs codec
    work on a pool of threads, so each thread builds its own. ``bitstream_kind`` is a
    ``gpucomp.BitstreamKind`` name.
    """

    def __init__(
        self,
        algorithm: str,
        uncomp_chunk_size: int | None,
        options: Mapping[str, Any],
        bitstream_kind: str = "NVCOMP_NATIVE",
    ) -> None:
        self._kwargs: dict[str, Any] = {"algorithm": algorithm, "bitstream_kind": bitstream_kind, **options}
        if uncomp_chunk_size is not None:
            self._kwargs["uncomp_chunk_size"] = uncomp_chunk_size
        self._local = threading.local()

    def _codecs(self) -> dict[Any, Any]:
        codecs = getattr(self._local, "codecs", None)
        if codecs is None:
            codecs = self._local.codecs = {}
        return codecs

    def cpu(self) -> gpucomp.Codec:
        """This thread's codec on the CPU codecs."""
        codecs = self._codecs()
        codec = codecs.get("cpu")
        if codec is None:
            codec = codecs["cpu"] = gpucomp.Codec(device="cpu", **self._kwargs)
        return codec

    def gpu(self, device_id: int) -> gpucomp.Codec:
        """This thread's codec on GPU ``device_id``. It runs on a stream of its own, after each
        input's producer stream; the device arrays it returns name that stream in their
        ``__cuda_array_interface__`` when work on them may still be running."""
        codecs = self._codecs()
        codec = codecs.get(device_id)
        if codec is None:
            codec = codecs[device_id] = gpucomp.Codec(device="cuda", device_id=device_id, **self._kwargs)
        return codec


@functools.cache
def codec_cache(
    algorithm: str,
    uncomp_chunk_size: int | None,
    options: tuple[tuple[str, Any], ...],
    bitstream_kind: str = "NVCOMP_NATIVE",
) -> CodecCache:
    """The one ``CodecCache`` of a configuration: zarr builds a codec object each time it reads an
    array's metadata, and this keeps each thread's ``gpucomp.Codec``s (and their streams) across
    them."""
    return CodecCache(algorithm, uncomp_chunk_size, dict(options), bitstream_kind)


def zstd_config(level: Any, checksum: Any) -> tuple[int, bool]:
    """A Zstd codec's ``level`` and ``checksum``, checked as zarr's ``ZstdCodec`` checks them: an
    int of at most 22 (libzstd's levels go down to -131072; 0 is its default, 3) and a bool."""
    if isinstance(level, bool) or not isinstance(level, int | np.integer):
        raise TypeError(f"level: expected an int, got {level!r}")
    if level > 22:
        raise ValueError(f"level {level}: libzstd's highest level is 22")
    if not isinstance(checksum, bool | np.bool_):
        raise TypeError(f"checksum: expected a bool, got {checksum!r}")
    return int(level), bool(checksum)


def zstd_decoders() -> CodecCache:
    """The decoders of plain zstd frames (RAW Zstd streams: one chunk of one or more frames, with
    or without content checksums, which libzstd verifies on the CPU and gpucomp's kernel on the
    GPU)."""
    return codec_cache("Zstd", None, (), "RAW")


def zstd_frames(arrays: list[Any], level: int, checksum: bool) -> list[gpucomp.Array]:
    """One zstd frame per array at libzstd ``level``, with its content size and, with
    ``checksum``, the XXH64 content checksum: the frames ``numcodecs.Zstd(level, checksum)``
    writes. Host ``gpucomp.Array``s; device arrays are copied to the host first (gpucomp has no
    GPU Zstd compressor)."""
    host = [gpucomp.as_array(a).cpu() for a in arrays]
    return list(zstd_compress_frames(host, level, checksum))


def cuda_device_of(obj: Any) -> int | None:
    """The CUDA device holding ``obj`` (an array with ``__cuda_array_interface__``), or None for
    host memory."""
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(obj, cupy.ndarray):
        return int(obj.data.device_id)  # without building its array interface (per chunk)
    if not hasattr(obj, "__cuda_array_interface__"):
        return None
    device = getattr(obj, "device", None)
    device_id = getattr(device, "id", None)  # CuPy
    if device_id is None:
        device_id = getattr(device, "index", None)  # PyTorch
    if device_id is None:
        # gpucomp.Array (and nvidia.nvcomp's) name it; for others the core reads it from the address.
        device_id = getattr(obj, "device_id", None)
        if not isinstance(device_id, int):
            device_id = gpucomp.as_array(obj).device_id
    return int(device_id)


def device_bytes(results: list[Any], device_id: int) -> list[Any]:
    """A gpucomp call's device results (1-D ``uint8`` arrays) as CuPy arrays, once the work on them
    is done (a wait for each stream they name).

    The CuPy arrays view one CuPy memory that spans the results (gpucomp puts a call's outputs in
    one allocation) and keeps them alive: importing each array's interface (``cupy.asarray``)
    costs several times as much per array, and a zarr batch has hundreds.
    """
    import cupy as cp

    spans: list[tuple[int, int]] = []
    streams: set[int | None] = set()
    for r in results:
        iface = r.__cuda_array_interface__
        streams.add(iface.get("stream"))
        spans.append((iface["data"][0], r.buffer_size))
    for stream in streams - {None}:
        cp.cuda.runtime.streamSynchronize(stream)
    live = [(ptr, n) for ptr, n in spans if n]
    if not live:
        return [cp.empty(0, dtype=cp.uint8) for _ in results]
    base = min(ptr for ptr, _ in live)
    end = max(ptr + n for ptr, n in live)
    memory = cp.cuda.UnownedMemory(base, end - base, tuple(results), device_id=device_id)
    return [
        cp.ndarray((n,), dtype=cp.uint8, memptr=cp.cuda.MemoryPointer(memory, ptr - base))
        if n
        else cp.empty(0, dtype=cp.uint8)
        for ptr, n in spans
    ]
