"""numcodecs codecs: gpucomp's LZ4, ANS, Cascaded, Bitcomp and Zstd for zarr v2 and other numcodecs
users.

Installing gpucomp registers them through the ``numcodecs.codecs`` entry point group under the
codec ids ``gpucomp_lz4``, ``gpucomp_ans``, ``gpucomp_cascaded``, ``gpucomp_bitcomp`` and
``gpucomp_zstd``, so
``numcodecs.get_codec({"id": "gpucomp_lz4"})`` and zarr v2 arrays compressed with them work
without importing this module first::

    from gpucomp.numcodecs import LZ4

    codec = LZ4(uncomp_chunk_size=65536)
    encoded = codec.encode(np.arange(1000, dtype="i4"))
    decoded = codec.decode(encoded)  # bytes of the input, as a uint8 NumPy array

The configuration is ``uncomp_chunk_size`` and the algorithm's nvCOMP options, as
``gpucomp.Codec`` takes them, and an encoded buffer is one NVCOMP_NATIVE stream (``gpucomp._plugin``
says why), except for :class:`Zstd`, which has ``numcodecs.Zstd``'s configuration and frames. Host buffers (anything with the buffer protocol) go through gpucomp's CPU codecs and
give NumPy arrays; device arrays (``__cuda_array_interface__``: CuPy, PyTorch, Numba) stay on
their GPU and give device ``gpucomp.Array``s. ``decode(buf, out=)`` writes the decoded bytes into
``out``, which must be of their exact size.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_contiguous_ndarray

from gpucomp._plugin import (
    BYTES,
    CodecCache,
    codec_cache,
    cuda_device_of,
    normalize_config,
    zstd_config,
    zstd_decoders,
    zstd_frames,
)

__all__ = ["ANS", "LZ4", "Bitcomp", "Cascaded", "Zstd"]


class _GpucompCodec(Codec):
    """A gpucomp algorithm as a numcodecs codec."""

    algorithm: ClassVar[str]

    def __init__(self, uncomp_chunk_size: int | None = None, **options: Any) -> None:
        self.uncomp_chunk_size, self._options = normalize_config(self.algorithm, uncomp_chunk_size, options)

    @property
    def _codecs(self) -> CodecCache:
        return codec_cache(self.algorithm, self.uncomp_chunk_size, tuple(sorted(self._options.items())))

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"id": self.codec_id, **self._options}
        if self.uncomp_chunk_size is not None:
            config["uncomp_chunk_size"] = self.uncomp_chunk_size
        return config

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items() if k != "id")
        return f"{type(self).__name__}({params})"

    def encode(self, buf: Any) -> Any:
        device_id = cuda_device_of(buf)
        if device_id is None:
            return np.asarray(self._codecs.cpu().encode(_host_bytes(buf)))
        codec = self._codecs.gpu(device_id)
        return codec.encode(buf)

    def decode(self, buf: Any, out: Any = None) -> Any:
        device_id = cuda_device_of(buf)
        if device_id is None:
            codec = self._codecs.cpu()
            data = _host_bytes(buf)
            if out is None:
                return np.asarray(codec.decode(data, data_type=BYTES))
            codec.decode(data, data_type=BYTES, out=_host_bytes(out))
            return out
        codec = self._codecs.gpu(device_id)
        if out is None:
            return codec.decode(buf, data_type=BYTES)
        codec.decode(buf, data_type=BYTES, out=out)
        return out


def _host_bytes(buf: Any) -> np.ndarray:
    """A host buffer as a flat uint8 NumPy view (no copy; raises for non-contiguous arrays)."""
    return ensure_contiguous_ndarray(buf).reshape(-1).view(np.uint8)


class LZ4(_GpucompCodec):
    """LZ4 (nvCOMP's ``algorithm="LZ4"``)."""

    codec_id = "gpucomp_lz4"
    algorithm = "LZ4"


class ANS(_GpucompCodec):
    """ANS (nvCOMP's ``algorithm="ANS"``)."""

    codec_id = "gpucomp_ans"
    algorithm = "ANS"


class Cascaded(_GpucompCodec):
    """Cascaded (nvCOMP's ``algorithm="Cascaded"``)."""

    codec_id = "gpucomp_cascaded"
    algorithm = "Cascaded"


class Bitcomp(_GpucompCodec):
    """Bitcomp (nvCOMP's ``algorithm="Bitcomp"``)."""

    codec_id = "gpucomp_bitcomp"
    algorithm = "Bitcomp"


class Zstd(_GpucompCodec):
    """Zstd as ``numcodecs.Zstd`` has it: configuration ``level`` (libzstd's, -131072 to 22; 0 is
    libzstd's default, 3) and ``checksum`` (the frame's XXH64 content checksum), and an encoded
    buffer is one plain zstd frame, the bytes ``numcodecs.Zstd`` writes with the same libzstd
    (``numcodecs.Zstd`` decodes ours and we decode its frames whatever the versions).

    Decoding runs on the CPU (libzstd) for host buffers and on the GPU for device arrays; frames
    with a checksum are verified on both. Encoding runs on the CPU, through a host copy for
    device arrays (gpucomp has no GPU Zstd compressor), whose frames come back on their GPU.
    """

    codec_id = "gpucomp_zstd"
    algorithm = "Zstd"

    def __init__(self, level: int = 0, checksum: bool = False) -> None:
        self.level, self.checksum = zstd_config(level, checksum)

    @property
    def _codecs(self) -> CodecCache:
        return zstd_decoders()

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, "level": self.level, "checksum": self.checksum}

    def encode(self, buf: Any) -> Any:
        device_id = cuda_device_of(buf)
        inputs = [buf if device_id is not None else _host_bytes(buf)]
        (frame,) = zstd_frames(inputs, self.level, self.checksum)
        return np.asarray(frame) if device_id is None else frame.cuda(device_id)
