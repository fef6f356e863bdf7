"""zarr v3 codecs: gpucomp's LZ4, ANS, Cascaded and Bitcomp as ``BytesBytesCodec``s, and
:class:`ZstdCodec`, gpucomp's implementation of zarr's own ``zstd`` codec (selected by zarr's
``codecs.zstd`` setting; see its docstring).

Installing gpucomp registers them through the ``zarr.codecs`` entry point group under the names
``gpucomp.lz4``, ``gpucomp.ans``, ``gpucomp.cascaded`` and ``gpucomp.bitcomp``, so an array written
with them opens in any process with gpucomp installed, without importing this module first::

    import zarr
    from gpucomp.zarr import LZ4Codec

    a = zarr.create_array("data.zarr", shape=(4096, 4096), chunks=(1024, 1024), dtype="f4",
                          compressors=[LZ4Codec()])

Each stored chunk is one NVCOMP_NATIVE stream (``gpucomp._plugin`` says why), which
``nvidia.nvcomp`` and ``gpucomp.Codec`` decode as they are.

Where the work runs follows the buffers zarr hands the codec. Host buffers (zarr's default) go
through gpucomp's CPU codecs. Device buffers (``zarr.config.enable_gpu()``, CuPy) stay on their GPU
with no copy, and all the chunks of one batch are encoded or decoded by one ``gpucomp.Codec`` call,
that is one batched launch: the codec overrides the batch hooks ``encode``/``decode``, not the
per-chunk ``_encode_single``/``_decode_single``. zarr hands a codec ``codec_pipeline.batch_size``
chunks at a time, 1 by default; set it to the number of chunks a read or write touches to get one
launch per read or write::

    zarr.config.set({"codec_pipeline.batch_size": 256})

The blocking work (the gpucomp call and the wait for its stream) runs in a worker thread
(``asyncio.to_thread``), never on zarr's event loop. To batch the store I/O of GPU reads and
writes as well, select ``gpucomp.zarr_pipeline.GpuCodecPipeline`` (``codec_pipeline.path``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from zarr.abc.codec import BytesBytesCodec
from zarr.core.buffer import Buffer, BufferPrototype
from zarr.core.buffer import cpu as cpu_buffer
from zarr.core.buffer import gpu as gpu_buffer
from zarr.core.common import JSON, parse_named_configuration

import gpucomp
from gpucomp._plugin import (
    BYTES,
    CodecCache,
    codec_cache,
    cuda_device_of,
    device_bytes,
    inferred_data_type,
    normalize_config,
    zstd_config,
    zstd_decoders,
    zstd_frames,
)

if TYPE_CHECKING:
    from typing import Self

    from zarr.core.array_spec import ArraySpec

__all__ = ["ANSCodec", "BitcompCodec", "CascadedCodec", "LZ4Codec", "ZstdCodec"]


class _BatchedCodec(BytesBytesCodec):
    """A bytes-to-bytes codec that overrides zarr's batch hooks: the chunks of a batch are encoded
    or decoded by one call per place they live (the host, or each GPU), None chunks passed
    through. Subclasses give the two calls."""

    is_fixed_size = False

    codec_name: ClassVar[str]

    def compute_encoded_size(self, _input_byte_length: int, _chunk_spec: ArraySpec) -> int:
        raise NotImplementedError  # compressed sizes depend on the data

    async def decode(self, chunks_and_specs: Iterable[tuple[Buffer | None, ArraySpec]]) -> Iterable[Buffer | None]:
        return await self._batch(list(chunks_and_specs), encode=False)

    async def encode(self, chunks_and_specs: Iterable[tuple[Buffer | None, ArraySpec]]) -> Iterable[Buffer | None]:
        return await self._batch(list(chunks_and_specs), encode=True)

    async def _batch(self, batch: list[tuple[Buffer | None, ArraySpec]], *, encode: bool) -> list[Buffer | None]:
        # A write of whole chunks "decodes" a batch of Nones first: no thread hop for that.
        if all(chunk is None for chunk, _ in batch):
            return [None] * len(batch)
        return await asyncio.to_thread(self._run_batch, batch, encode=encode)

    async def _decode_single(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> Buffer:
        (decoded,) = await self.decode([(chunk_bytes, chunk_spec)])
        assert decoded is not None
        return decoded

    async def _encode_single(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> Buffer | None:
        (encoded,) = await self.encode([(chunk_bytes, chunk_spec)])
        return encoded

    def _run_batch(self, batch: list[tuple[Buffer | None, ArraySpec]], *, encode: bool) -> list[Buffer | None]:
        """Encodes or decodes a batch: one call per place the chunks live (the host, or each GPU),
        None chunks passed through."""
        groups: dict[int | None, list[int]] = {}
        arrays: list[Any] = []
        for i, (chunk, _) in enumerate(batch):
            array = None if chunk is None else chunk.as_array_like()
            arrays.append(array)
            if array is not None:
                groups.setdefault(cuda_device_of(array), []).append(i)

        out: list[Buffer | None] = [None] * len(batch)
        for device_id, indices in groups.items():
            inputs = [arrays[i] for i in indices]
            try:
                if device_id is None:
                    results = self._host_call(inputs, encode)
                else:
                    import cupy as cp

                    with cp.cuda.Device(device_id):
                        results = self._device_call(device_id, inputs, encode)
            except gpucomp.GpucompError as e:
                if e.index is not None and hasattr(e, "add_note"):  # add_note: Python 3.11+
                    where = f"chunk {indices[e.index]} of a zarr batch of {len(batch)}"
                    e.add_note(f"{self.codec_name}: array {e.index} is {where}")
                raise
            for i, result in zip(indices, results, strict=True):
                out[i] = _as_buffer(result, device_id is not None, batch[i][1].prototype)
        return out

    def _host_call(self, inputs: list[Any], encode: bool) -> list[np.ndarray]:
        """The chunks of a batch in host memory (NumPy), encoded or decoded into NumPy arrays."""
        raise NotImplementedError

    def _device_call(self, device_id: int, inputs: list[Any], encode: bool) -> list[Any]:
        """The chunks of a batch on GPU ``device_id`` (CuPy; the GPU is CuPy's current device),
        encoded or decoded into CuPy arrays whose contents are complete (zarr may use them on any
        stream)."""
        raise NotImplementedError


@dataclass(frozen=True, init=False)
class _GpucompCodec(_BatchedCodec):
    """A gpucomp algorithm as a zarr v3 bytes-to-bytes codec.

    ``uncomp_chunk_size`` is the size of the nvCOMP chunks a zarr chunk is split into (nvCOMP's
    default, 64 KiB, when None); the other keyword arguments are the algorithm's nvCOMP options,
    as ``gpucomp.Codec`` takes them. All are stored in the array's metadata.
    """

    algorithm: ClassVar[str]

    uncomp_chunk_size: int | None
    options: tuple[tuple[str, JSON], ...]

    def __init__(self, *, uncomp_chunk_size: int | None = None, **options: Any) -> None:
        chunk_size, normalized = normalize_config(self.algorithm, uncomp_chunk_size, options)
        object.__setattr__(self, "uncomp_chunk_size", chunk_size)
        object.__setattr__(self, "options", tuple(sorted(normalized.items())))

    @classmethod
    def from_dict(cls, data: dict[str, JSON]) -> Self:
        _, configuration = parse_named_configuration(data, cls.codec_name, require_configuration=False)
        return cls(**(configuration or {}))  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, JSON]:
        configuration: dict[str, JSON] = dict(self.options)
        if self.uncomp_chunk_size is not None:
            configuration["uncomp_chunk_size"] = self.uncomp_chunk_size
        return {"name": self.codec_name, "configuration": configuration}

    def evolve_from_array_spec(self, array_spec: ArraySpec) -> Self:
        options = dict(self.options)
        if "data_type" not in options:
            data_type = inferred_data_type(self.algorithm, array_spec.dtype.to_native_dtype())
            if data_type is not None:
                return type(self)(uncomp_chunk_size=self.uncomp_chunk_size, data_type=data_type, **options)
        return self

    @property
    def _codecs(self) -> CodecCache:
        return codec_cache(self.algorithm, self.uncomp_chunk_size, self.options)

    def _host_call(self, inputs: list[Any], encode: bool) -> list[np.ndarray]:
        return [np.asarray(r) for r in _call(self._codecs.cpu(), inputs, encode)]

    def _device_call(self, device_id: int, inputs: list[Any], encode: bool) -> list[Any]:
        results = _call(self._codecs.gpu(device_id), inputs, encode)
        # zarr may use the chunks on any stream: device_bytes waits for the codec's here, in the
        # worker thread.
        return device_bytes(results, device_id)


def _call(codec: Any, inputs: list[Any], encode: bool) -> list[Any]:
    return codec.encode(inputs) if encode else codec.decode(inputs, data_type=BYTES)


def _as_buffer(array: Any, on_device: bool, prototype: BufferPrototype) -> Buffer:
    """``array`` (NumPy on the host, CuPy on a device) as a Buffer of ``prototype``'s class: no
    copy where they live in the same place, else the prototype's own conversion."""
    if on_device == issubclass(prototype.buffer, gpu_buffer.Buffer):
        return prototype.buffer.from_array_like(array)
    natural = gpu_buffer.Buffer if on_device else cpu_buffer.Buffer
    return prototype.buffer.from_buffer(natural.from_array_like(array))


@dataclass(frozen=True, init=False)
class LZ4Codec(_GpucompCodec):
    """LZ4 (nvCOMP's ``algorithm="LZ4"``; option ``data_type``)."""

    codec_name = "gpucomp.lz4"
    algorithm = "LZ4"


@dataclass(frozen=True, init=False)
class ANSCodec(_GpucompCodec):
    """ANS (nvCOMP's ``algorithm="ANS"``; options as ``gpucomp.Codec`` takes them, e.g.
    ``data_type="<f2"`` for float16 data)."""

    codec_name = "gpucomp.ans"
    algorithm = "ANS"


@dataclass(frozen=True, init=False)
class CascadedCodec(_GpucompCodec):
    """Cascaded (nvCOMP's ``algorithm="Cascaded"``). ``data_type`` defaults to an integer type of
    the array's element width (floats as unsigned integers) when the array is created."""

    codec_name = "gpucomp.cascaded"
    algorithm = "Cascaded"


@dataclass(frozen=True, init=False)
class BitcompCodec(_GpucompCodec):
    """Bitcomp (nvCOMP's ``algorithm="Bitcomp"``; options ``data_type``, ``algorithm_type``).
    ``data_type`` defaults as for :class:`CascadedCodec`."""

    codec_name = "gpucomp.bitcomp"
    algorithm = "Bitcomp"


@dataclass(frozen=True, init=False)
class ZstdCodec(_BatchedCodec):
    """zarr's own ``zstd`` codec (``zarr.codecs.ZstdCodec``: the same name, configuration and
    stored chunks) decoding GPU buffers on the GPU.

    Selected for the ``zstd`` codec id, which every array written with zarr's default compressor
    names, by zarr's codec configuration (gpucomp registers it through the ``zarr.codecs.zstd``
    entry point group)::

        zarr.config.set({"codecs.zstd": "gpucomp.zarr.ZstdCodec"})

    Each stored chunk is one plain zstd frame, as zarr's codec writes it (numcodecs' ``Zstd``):
    arrays written by either codec read through the other. Decoding: GPU buffers in one batched
    gpucomp call per batch on the GPU, host buffers on the CPU (libzstd); frames with a content
    checksum are verified on both (by gpucomp's kernel on the GPU). Encoding runs on the CPU
    (libzstd, at ``level``, with the checksum when ``checksum``), through a host copy for GPU
    buffers: gpucomp has no GPU Zstd compressor.
    """

    codec_name = "zstd"

    level: int
    checksum: bool

    def __init__(self, *, level: int = 0, checksum: bool = False) -> None:
        level, checksum = zstd_config(level, checksum)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "checksum", checksum)

    @classmethod
    def from_dict(cls, data: dict[str, JSON]) -> Self:
        _, configuration = parse_named_configuration(data, cls.codec_name)
        return cls(**configuration)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, JSON]:
        return {"name": self.codec_name, "configuration": {"level": self.level, "checksum": self.checksum}}

    def _host_call(self, inputs: list[Any], encode: bool) -> list[np.ndarray]:
        if encode:
            return [np.asarray(f) for f in zstd_frames(inputs, self.level, self.checksum)]
        return [np.asarray(r) for r in zstd_decoders().cpu().decode(inputs, data_type=BYTES)]

    def _device_call(self, device_id: int, inputs: list[Any], encode: bool) -> list[Any]:
        if not encode:
            return device_bytes(zstd_decoders().gpu(device_id).decode(inputs, data_type=BYTES), device_id)
        import cupy as cp

        frames = [np.asarray(f) for f in zstd_frames(inputs, self.level, self.checksum)]
        # One upload for the batch; the chunks are views of it.
        ends = np.cumsum([f.size for f in frames])
        uploaded = cp.asarray(np.concatenate(frames)) if frames else cp.empty(0, cp.uint8)
        return [uploaded[end - f.size : end] for f, end in zip(frames, ends, strict=True)]
