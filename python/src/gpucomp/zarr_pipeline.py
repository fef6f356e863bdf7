"""A zarr v3 codec pipeline that batches the store I/O of reads into and writes from GPU memory.

Enabled by one zarr setting (the pipeline is registered through the ``zarr.codec_pipeline`` entry
point, so no import is needed)::

    zarr.config.set({"codec_pipeline.path": "gpucomp.zarr_pipeline.GpuCodecPipeline",
                     "codec_pipeline.batch_size": 256})

zarr's own pipeline (``BatchedCodecPipeline``) moves each chunk between the store and the GPU on
its own: the store reads the chunk's file into host bytes and CuPy copies them to the device from
pageable memory, synchronously, one chunk at a time (and the mirror image on writes). This
subclass replaces only that stage, for a batch whose buffers are CuPy ones:

- read, chunks in a ``LocalStore``: every chunk file of the batch is read concurrently (a thread
  pool) into one page-locked host buffer, which is uploaded to one device allocation in a few large
  asynchronous copies as the reads complete; the rest of zarr's pipeline gets device ``Buffer``
  views of that allocation. Chunks in any other store are fetched with the store's ``get`` into
  host memory, then staged and uploaded the same way;
- write, chunks in a ``LocalStore``: the chunks written only in part are fetched as reads are;
  zarr's pipeline merges and encodes the batch as usual; the encoded chunks are copied to one
  page-locked host buffer (asynchronous copies, one wait), and the store writes them from there,
  concurrently.

The page-locked buffers are kept and reused across calls (allocating them costs more than the
copies): :func:`release_staging` gives them back. Everything else (missing chunks, partial chunks,
sharding, host buffers, other stores on writes) is zarr's pipeline itself: the parent class. So is
the whole pipeline when the installed zarr's internals are not the ones this relies on
(:data:`SUPPORTED`).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import stat
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import zarr
from zarr.core.codec_pipeline import BatchedCodecPipeline
from zarr.registry import register_pipeline

if TYPE_CHECKING:
    from zarr.core.buffer import Buffer, BufferPrototype, NDBuffer

__all__ = ["SUPPORTED", "GpuCodecPipeline", "release_staging"]

# Host-to-device copies of at most this many bytes, each started as soon as the reads of its
# chunks are done: reads and uploads overlap, at a few copies per batch.
_PIECE = 32 << 20


def _supported() -> bool:
    """Whether the installed zarr has the internals the pipeline relies on: zarr 3's
    ``BatchedCodecPipeline.read_batch``/``write_batch`` as zarr 3.0 to 3.4 define them (they
    fetch with ``byte_getter.get`` and store with ``byte_setter.set``/``delete``), ``StorePath``,
    ``LocalStore`` and the CPU and GPU buffer classes."""
    try:
        from zarr.core.buffer import cpu, gpu  # noqa: F401
        from zarr.core.common import concurrent_map  # noqa: F401
        from zarr.storage import LocalStore, StorePath
    except ImportError:
        return False
    parameters = {
        name: list(inspect.signature(getattr(BatchedCodecPipeline, name, None) or (lambda: None)).parameters)
        for name in ("read_batch", "write_batch")
    }
    return (
        zarr.__version__.split(".")[0] == "3"
        and parameters["read_batch"] == ["self", "batch_info", "out", "drop_axes"]
        and parameters["write_batch"] == ["self", "batch_info", "value", "drop_axes"]
        and all(hasattr(BatchedCodecPipeline, p) for p in ("supports_partial_decode", "supports_partial_encode"))
        and all(hasattr(StorePath, name) for name in ("get", "set", "delete"))
        and all(hasattr(LocalStore, name) for name in ("get", "set"))
    )


#: True where the installed zarr has the internals the batched store I/O relies on (zarr 3.1.6 and
#: 3.4.2 were tested); elsewhere :class:`GpuCodecPipeline` is zarr's pipeline unchanged.
SUPPORTED: bool = _supported()


class _Transfer(Protocol):
    """Moves a batch's bytes between page-locked host staging memory and the place zarr's
    pipeline wants its buffers (a GPU). All calls but ``buffer`` may be asynchronous until
    ``wait``."""

    def host(self, nbytes: int) -> np.ndarray: ...  # a uint8 staging array of nbytes
    def release(self, host: np.ndarray) -> None: ...
    def device(self, nbytes: int) -> Any: ...
    def upload(self, dst: Any, host: np.ndarray, start: int, stop: int) -> None: ...
    def download(self, host: np.ndarray, src: Buffer) -> None: ...
    def wait(self) -> None: ...
    def buffer(self, dst: Any, start: int, stop: int, prototype: BufferPrototype) -> Buffer: ...


class _PinnedPool:
    """Host blocks kept for reuse, one per batch in flight at once; ``allocate(nbytes)`` makes a
    uint8 array (page-locked by default)."""

    def __init__(self, allocate: Callable[[int], np.ndarray] | None = None) -> None:
        self._allocate = allocate or _allocate_pinned
        self._lock = threading.Lock()
        self._free: list[np.ndarray] = []
        self._lent: dict[int, np.ndarray] = {}  # by address: the block of each view lent out

    def acquire(self, nbytes: int) -> np.ndarray:
        block = None
        with self._lock:
            # The smallest free block that fits; else the largest free one is too small for this
            # batch, so likely for the next ones too: dropped rather than kept beside a new one.
            by_size = sorted(range(len(self._free)), key=lambda i: self._free[i].size)
            fits = [i for i in by_size if self._free[i].size >= nbytes]
            if fits:
                block = self._free.pop(fits[0])
            elif by_size:
                self._free.pop(by_size[-1])
        if block is None:
            size = -(-nbytes // _PIECE) * _PIECE  # rounded up: batches of similar sizes share one
            block = self._allocate(size)
        with self._lock:
            self._lent[block.ctypes.data] = block
        return block[:nbytes]

    def release(self, host: np.ndarray) -> None:
        with self._lock:
            self._free.append(self._lent.pop(host.ctypes.data))

    def clear(self) -> None:
        with self._lock:
            self._free.clear()


def _allocate_pinned(nbytes: int) -> np.ndarray:
    import cupy as cp

    return np.frombuffer(cp.cuda.alloc_pinned_memory(nbytes), np.uint8, nbytes)


_pinned = _PinnedPool()


def release_staging() -> None:
    """Frees the page-locked host buffers kept for reuse by :class:`GpuCodecPipeline` (those not
    in use by a read or write in flight)."""
    _pinned.clear()


class _CupyTransfer:
    """Staging in page-locked memory, copies on a stream of the calling thread's own (one per
    device), the buffers on the calling thread's current CuPy device, where zarr's pipeline puts
    them too."""

    _streams = threading.local()

    def __init__(self) -> None:
        import cupy as cp

        self._cp = cp
        self._used: set[Any] = set()

    def _stream(self, device_id: int) -> Any:
        streams = getattr(self._streams, "by_device", None)
        if streams is None:
            streams = self._streams.by_device = {}
        if device_id not in streams:
            with self._cp.cuda.Device(device_id):
                # A blocking stream: ordered after work on the legacy default stream, where CuPy
                # (and so zarr's pipeline) runs by default.
                streams[device_id] = self._cp.cuda.Stream(non_blocking=False)
        stream = streams[device_id]
        self._used.add(stream)
        return stream

    def host(self, nbytes: int) -> np.ndarray:
        return _pinned.acquire(nbytes)

    def release(self, host: np.ndarray) -> None:
        _pinned.release(host)

    def device(self, nbytes: int) -> Any:
        # Allocated on the stream that fills it: CuPy's pool orders the reuse of its memory there.
        with self._stream(self._cp.cuda.Device().id):
            return self._cp.empty(nbytes, dtype=np.uint8)

    def upload(self, dst: Any, host: np.ndarray, start: int, stop: int) -> None:
        cp = self._cp
        stream = self._stream(dst.device.id)
        cp.cuda.runtime.memcpyAsync(
            dst.data.ptr + start,
            host.ctypes.data + start,
            stop - start,
            cp.cuda.runtime.memcpyHostToDevice,
            stream.ptr,
        )

    def download(self, host: np.ndarray, src: Buffer) -> None:
        cp = self._cp
        array = src.as_array_like()
        if not isinstance(array, cp.ndarray):
            host[:] = src.as_numpy_array()
            return
        with array.device:
            array = cp.ascontiguousarray(array)
            stream = self._stream(array.device.id)
            cp.cuda.runtime.memcpyAsync(
                host.ctypes.data, array.data.ptr, host.size, cp.cuda.runtime.memcpyDeviceToHost, stream.ptr
            )

    def wait(self) -> None:
        for stream in self._used:
            stream.synchronize()

    def buffer(self, dst: Any, start: int, stop: int, prototype: BufferPrototype) -> Buffer:
        return prototype.buffer.from_array_like(dst[start:stop])


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _io_pool() -> ThreadPoolExecutor:
    """The threads that read chunk files: reads from the page cache are memory copies, which a
    few cores run in parallel."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max(4, min(16, os.cpu_count() or 1)), thread_name_prefix="gpucomp-zarr-io")
        return _pool


def _stage(
    sizes: Sequence[int | None],
    fill: Callable[[int, np.ndarray], bool],
    transfer: _Transfer,
    prototype: BufferPrototype,
) -> list[Buffer | None]:
    """Stages a batch of chunks into one host buffer and uploads it: ``fill(i, view)`` writes
    chunk ``i`` (``sizes[i]`` bytes; None: absent) into its view of the host buffer and returns
    whether it was there; the fills run concurrently on the I/O threads, and each upload of up to
    ``_PIECE`` bytes starts once the fills of its chunks are done. Returns each chunk as a Buffer
    of ``prototype`` viewing one device allocation (None where absent), ready to use."""
    offsets: list[int] = []
    total = 0
    for size in sizes:
        offsets.append(total)
        total += size or 0
    present = [i for i, size in enumerate(sizes) if size is not None]
    if not present:
        return [None] * len(sizes)
    # Pieces of consecutive chunks, each uploaded in one copy: (index of its last chunk, end).
    pieces: list[tuple[int, int]] = []
    start = 0
    for k, i in enumerate(present):
        end = offsets[i] + (sizes[i] or 0)
        if end - start >= _PIECE or k == len(present) - 1:
            pieces.append((k, end))
            start = end

    host = transfer.host(max(total, 1))
    futures: list[Future[bool]] = []
    try:
        dst = transfer.device(total)
        pool = _io_pool()
        futures = [pool.submit(fill, i, host[offsets[i] : offsets[i] + (sizes[i] or 0)]) for i in present]
        start = first = 0
        for last, end in pieces:
            for future in futures[first : last + 1]:
                future.result()
            if end > start:
                transfer.upload(dst, host, start, end)
            first, start = last + 1, end
        found = {i for i, future in zip(present, futures, strict=True) if future.result()}
    finally:
        # The host buffer goes back to the pool only once nothing reads or writes it.
        for future in futures:
            future.cancel()
        wait_futures(futures)
        transfer.wait()
        transfer.release(host)
    return [
        transfer.buffer(dst, offsets[i], offsets[i] + (sizes[i] or 0), prototype) if i in found else None
        for i in range(len(sizes))
    ]


def _file_size(path: Path) -> int | None:
    """The size of a chunk file, None where LocalStore.get finds no chunk."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return None if stat.S_ISDIR(st.st_mode) else st.st_size


def _read_file(path: Path, out: np.ndarray) -> bool:
    """Reads the file at ``path``, of ``out.size`` bytes when its size was taken, into ``out``;
    False where it has gone since."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return False
    try:
        if os.fstat(fd).st_size != out.size:
            raise OSError(f"{path}: the chunk file changed size while being read")
        view = memoryview(out)
        done = 0
        while done < out.size:
            n = os.preadv(fd, [view[done:]], done)
            if n == 0:
                raise OSError(f"{path}: the chunk file shrank while being read")
            done += n
    finally:
        os.close(fd)
    return True


@dataclass(frozen=True)
class _Fetched:
    """A chunk already fetched, in the place of its ``StorePath`` for zarr's ``read_batch``."""

    value: Buffer | None

    async def get(self, prototype: BufferPrototype | None = None, byte_range: Any = None) -> Buffer | None:
        assert byte_range is None
        return self.value


class _Collected:
    """A ``StorePath`` for zarr's ``write_batch`` that answers ``get`` with the chunk fetched
    beforehand (``fetched``: the chunk is written only in part) and keeps what is ``set`` for one
    batched download and store; deletes go to the store at once."""

    def __init__(self, target: Any, fetched: _Fetched | None) -> None:
        self.target = target
        self.fetched = fetched
        self.value: Buffer | None = None

    async def get(self, *args: Any, **kwargs: Any) -> Buffer | None:
        if self.fetched is not None:
            return await self.fetched.get(*args, **kwargs)
        return await self.target.get(*args, **kwargs)

    async def set(self, value: Buffer) -> None:
        self.value = value

    async def delete(self) -> None:
        await self.target.delete()


@dataclass(frozen=True)
class GpuCodecPipeline(BatchedCodecPipeline):
    """zarr's ``BatchedCodecPipeline`` with the store I/O of a batch of device buffers batched
    (the module's doc says how and when). Select it with
    ``zarr.config.set({"codec_pipeline.path": "gpucomp.zarr_pipeline.GpuCodecPipeline"})``."""

    def _transfer_for(self, prototype: BufferPrototype) -> _Transfer | None:
        """How a batch of ``prototype`` buffers is staged, None for zarr's own path."""
        from zarr.core.buffer import gpu

        if not issubclass(prototype.buffer, gpu.Buffer) or gpu.cp is None:
            return None
        return _CupyTransfer()

    def _batched(self, batch_info: list[Any], *, write: bool) -> tuple[BufferPrototype, _Transfer] | None:
        from zarr.storage import LocalStore, StorePath

        if not SUPPORTED or not batch_info:
            return None
        if self.supports_partial_encode if write else self.supports_partial_decode:
            return None
        prototype = batch_info[0][1].prototype
        if any(spec.prototype != prototype for _, spec, *_ in batch_info):
            return None
        if not all(isinstance(target, StorePath) for target, *_ in batch_info):
            return None
        # Writes hand the store host buffers that are reused afterwards: only a store that copies
        # them out before ``set`` returns may get them.
        if write and not all(isinstance(target.store, LocalStore) for target, *_ in batch_info):
            return None
        transfer = self._transfer_for(prototype)
        return None if transfer is None else (prototype, transfer)

    async def read_batch(
        self,
        batch_info: Iterable[tuple[Any, Any, Any, Any, bool]],
        out: NDBuffer,
        drop_axes: tuple[int, ...] = (),
    ) -> Any:
        # Returns what zarr's read_batch returns (None up to zarr 3.1, a result per chunk since).
        batch_info = list(batch_info)
        batched = self._batched(batch_info, write=False)
        if batched is not None:
            chunks = await self._fetch([target for target, *_ in batch_info], *batched)
            batch_info = [(_Fetched(chunk), *rest) for chunk, (_, *rest) in zip(chunks, batch_info, strict=True)]
        return await super().read_batch(batch_info, out, drop_axes)

    async def _fetch(self, targets: list[Any], prototype: BufferPrototype, transfer: _Transfer) -> list[Buffer | None]:
        """The chunks at ``targets`` (``StorePath``s) as buffers of ``prototype``, staged
        through ``transfer``: straight from the files of a ``LocalStore``, else from the store's
        ``get`` into host memory."""
        from zarr.core.buffer import cpu
        from zarr.core.common import concurrent_map
        from zarr.storage import LocalStore

        store = targets[0].store
        if (
            isinstance(store, LocalStore)
            and getattr(store, "_is_open", False)
            and all(t.store is store for t in targets)
        ):
            paths = [store.root / t.path for t in targets]

            def run() -> list[Buffer | None]:
                sizes = [_file_size(path) for path in paths]
                return _stage(sizes, lambda i, view: _read_file(paths[i], view), transfer, prototype)

            return await asyncio.to_thread(run)

        host = await concurrent_map(
            [(t,) for t in targets],
            lambda t: t.get(prototype=cpu.buffer_prototype),
            zarr.config.get("async.concurrency"),
        )
        arrays = [None if b is None else b.as_numpy_array().reshape(-1).view(np.uint8) for b in host]

        def copy(i: int, view: np.ndarray) -> bool:
            view[:] = arrays[i]
            return True

        sizes = [None if a is None else a.size for a in arrays]
        return await asyncio.to_thread(_stage, sizes, copy, transfer, prototype)

    async def write_batch(
        self,
        batch_info: Iterable[tuple[Any, Any, Any, Any, bool]],
        value: NDBuffer,
        drop_axes: tuple[int, ...] = (),
    ) -> None:
        batch_info = list(batch_info)
        batched = self._batched(batch_info, write=True)
        if batched is None:
            await super().write_batch(batch_info, value, drop_axes)
            return
        # The chunks written only in part are read first (zarr merges the new values into them):
        # one batched fetch.
        partial = [i for i, info in enumerate(batch_info) if not info[4]]
        fetched: dict[int, _Fetched] = {}
        if partial:
            chunks = await self._fetch([batch_info[i][0] for i in partial], *batched)
            fetched = {i: _Fetched(chunk) for i, chunk in zip(partial, chunks, strict=True)}
        collected = [_Collected(target, fetched.get(i)) for i, (target, *_) in enumerate(batch_info)]
        await super().write_batch(
            [(c, *rest) for c, (_, *rest) in zip(collected, batch_info, strict=True)], value, drop_axes
        )
        await self._store([c for c in collected if c.value is not None], batched[1])

    async def _store(self, collected: list[_Collected], transfer: _Transfer) -> None:
        """Writes the collected chunks: one staging buffer in host memory, filled by
        asynchronous copies and one wait, then the store's ``set`` of each chunk's view of it,
        concurrently."""
        from zarr.core.buffer import cpu
        from zarr.core.common import concurrent_map

        if not collected:
            return
        sizes = [len(c.value) for c in collected]  # type: ignore[arg-type]
        offsets = np.concatenate([[0], np.cumsum(sizes)]).tolist()

        def download() -> np.ndarray:
            host = transfer.host(max(offsets[-1], 1))
            try:
                for c, start, stop in zip(collected, offsets, offsets[1:], strict=False):
                    transfer.download(host[start:stop], c.value)  # type: ignore[arg-type]
                transfer.wait()
            except BaseException:
                transfer.wait()
                transfer.release(host)
                raise
            return host

        host = await asyncio.to_thread(download)
        try:
            await concurrent_map(
                [
                    (c.target, cpu.Buffer.from_array_like(host[start:stop]))
                    for c, start, stop in zip(collected, offsets, offsets[1:], strict=False)
                ],
                lambda target, chunk: target.set(chunk),
                zarr.config.get("async.concurrency"),
            )
        finally:
            transfer.release(host)


register_pipeline(GpuCodecPipeline)
