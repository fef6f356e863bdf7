"""zarr v3 codecs on device buffers (``zarr.config.enable_gpu()``, CuPy): round trips, one gpucomp
call per batch, zero-copy outputs, interchange with the CPU codecs. Skipped without CuPy or a CUDA
device."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
cp = pytest.importorskip("cupy", reason="CuPy missing: the zarr GPU tests need it (zarr's GPU buffers are CuPy)")

import gpucomp
from conftest import stored_files, write_and_read
from gpucomp import _plugin, zarr_pipeline
from gpucomp.zarr import ANSCodec, BitcompCodec, CascadedCodec, LZ4Codec, ZstdCodec

pytestmark = pytest.mark.skipif(not gpucomp.cuda_available(), reason="no CUDA device (or driver)")

CODECS = [LZ4Codec, ANSCodec, CascadedCodec, BitcompCodec]


def sample(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(1)
    n = int(np.prod(shape))
    base = (np.arange(n) // 9) % 500 + rng.integers(0, 4, n)
    values = base * 0.125 if np.dtype(dtype).kind == "f" else base
    return values.astype(dtype).reshape(shape)


@pytest.fixture
def gpu_batched():
    """GPU buffers, every chunk of a read or write in one batch, and no fill-value comparison of
    each chunk before writing it (as docs/zarr.md advises for GPU writes)."""
    settings = {"codec_pipeline.batch_size": 1024, "array.write_empty_chunks": True}
    with zarr.config.enable_gpu(), zarr.config.set(settings):
        yield


class Counting:
    """Wraps a gpucomp.Codec, recording each call and the number of arrays in it."""

    def __init__(self, inner, calls):
        self.inner, self.calls = inner, calls

    def encode(self, arrays, **kwargs):
        self.calls.append(("encode", len(arrays)))
        return self.inner.encode(arrays, **kwargs)

    def decode(self, arrays, **kwargs):
        self.calls.append(("decode", len(arrays)))
        return self.inner.decode(arrays, **kwargs)


@pytest.fixture
def calls(monkeypatch):
    """The gpucomp calls of the device path (a chunk sent to the CPU codecs is not counted, so
    the expected counts also say none was)."""
    recorded: list[tuple[str, int]] = []
    gpu = _plugin.CodecCache.gpu
    monkeypatch.setattr(_plugin.CodecCache, "gpu", lambda self, device_id: Counting(gpu(self, device_id), recorded))
    return recorded


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8"])
@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_name)
def test_round_trip_on_the_gpu_one_call_per_batch(codec_cls, dtype, gpu_batched, calls, tmp_path):
    data = sample(dtype, (512, 700))  # 4 x 6 chunks, the last column partial
    array = zarr.create_array(
        tmp_path / "a.zarr", shape=data.shape, chunks=(128, 128), dtype=dtype, compressors=[codec_cls()]
    )
    array[...] = cp.asarray(data)
    assert calls == [("encode", 24)]
    calls.clear()
    read = zarr.open_array(tmp_path / "a.zarr", mode="r")[...]
    assert isinstance(read, cp.ndarray)
    cp.testing.assert_array_equal(read, cp.asarray(data))
    assert calls == [("decode", 24)]


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_name)
def test_cpu_written_reads_on_the_gpu_and_back(codec_cls, tmp_path):
    data = sample("int32", (300, 300))
    with zarr.config.set({"codec_pipeline.batch_size": 64}):
        zarr.create_array(
            tmp_path / "cpu.zarr", shape=data.shape, chunks=(100, 100), dtype="int32", compressors=[codec_cls()]
        )[...] = data
        with zarr.config.enable_gpu():
            gpu_read = zarr.open_array(tmp_path / "cpu.zarr", mode="r")[...]
            cp.testing.assert_array_equal(gpu_read, cp.asarray(data))
            zarr.create_array(
                tmp_path / "gpu.zarr", shape=data.shape, chunks=(100, 100), dtype="int32", compressors=[codec_cls()]
            )[...] = cp.asarray(data)
        np.testing.assert_array_equal(zarr.open_array(tmp_path / "gpu.zarr", mode="r")[...], data)


def test_batch_hooks_stay_on_the_device():
    """The codec's batch hooks, called as zarr's pipeline calls them: device chunks in, CuPy views
    of gpucomp's device outputs back (no copy to the host and back)."""
    from zarr.core.array_spec import ArrayConfig, ArraySpec
    from zarr.core.buffer.gpu import Buffer, buffer_prototype
    from zarr.core.dtype import UInt8

    data = [cp.asarray(sample("uint8", (10_000 + 1000 * i,))) for i in range(5)]
    specs = [
        ArraySpec(
            shape=d.shape, dtype=UInt8(), fill_value=0, config=ArrayConfig.from_dict({}), prototype=buffer_prototype
        )
        for d in data
    ]
    codec = CascadedCodec(data_type="|u1")
    encoded = asyncio.run(codec.encode([(Buffer(d), s) for d, s in zip(data, specs, strict=True)]))
    decoded = asyncio.run(codec.decode(list(zip(encoded, specs, strict=True))))
    for original, buf in zip(data, decoded, strict=True):
        arr = buf.as_array_like()
        assert isinstance(arr, cp.ndarray)
        assert type(arr.data.mem).__name__ == "UnownedMemory"  # CuPy's wrapper of foreign memory
        cp.testing.assert_array_equal(arr, original)


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_name)
def test_corrupt_chunk_raises_on_the_gpu(codec_cls, tmp_path, gpu_batched):
    data = sample("int32", (4000,))
    array = zarr.create_array(
        tmp_path / "a.zarr",
        shape=data.shape,
        chunks=(1000,),
        dtype="int32",
        compressors=[codec_cls(uncomp_chunk_size=1024)],
    )
    array[...] = cp.asarray(data)
    path = tmp_path / "a.zarr" / "c" / "2"
    blob = path.read_bytes()
    path.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(gpucomp.DecodeError):
        zarr.open_array(tmp_path / "a.zarr", mode="r")[...]


# --- gpucomp.zarr_pipeline.GpuCodecPipeline: batched store I/O of device buffers -----------------


PIPELINE = "gpucomp.zarr_pipeline.GpuCodecPipeline"


@pytest.fixture
def staged(monkeypatch):
    """Counts the batched paths of the pipeline: uploads (reads), downloads (writes) and the chunk
    files it read itself (a LocalStore)."""
    counts = {"upload": 0, "download": 0, "files": 0}
    lock = threading.Lock()  # batches run in several threads at once
    for name in ("upload", "download"):
        original = getattr(zarr_pipeline._CupyTransfer, name)

        def counted(self, *args, _original=original, _name=name):
            with lock:
                counts[_name] += 1
            return _original(self, *args)

        monkeypatch.setattr(zarr_pipeline._CupyTransfer, name, counted)
    read_file = zarr_pipeline._read_file

    def counted_read(path, out):
        with lock:
            counts["files"] += 1
        return read_file(path, out)

    monkeypatch.setattr(zarr_pipeline, "_read_file", counted_read)
    return counts


def exercise(root, pipeline, compressors, shards=None, store=None):
    """Writes and reads a device array through `pipeline` (None: zarr's default): whole writes, a
    partial write, a write that empties a chunk, chunks never written; returns the reads (NumPy)."""
    settings = {"codec_pipeline.batch_size": 1024}
    if pipeline:
        settings["codec_pipeline.path"] = pipeline
    with zarr.config.enable_gpu(), zarr.config.set(settings):
        data = cp.asarray(sample("int32", (250, 370)))
        a = zarr.create_array(
            store if store is not None else root,
            shape=(300, 370),
            chunks=(60, 100),
            shards=shards,
            dtype="int32",
            compressors=compressors,
        )
        reads = write_and_read(a, data)
        assert all(isinstance(r, cp.ndarray) for r in reads)
    return [cp.asnumpy(r) for r in reads]


COMPRESSORS = {
    "lz4": lambda: [LZ4Codec()],
    "ans": lambda: [ANSCodec()],
    "cascaded": lambda: [CascadedCodec()],
    "bitcomp": lambda: [BitcompCodec()],
    "none": lambda: None,
    "zstd": lambda: "auto",
    "gpucomp-zstd": lambda: [ZstdCodec(level=1, checksum=True)],
}


@pytest.mark.parametrize("compressors", list(COMPRESSORS), ids=str)
def test_pipeline_equals_zarr_default_on_the_gpu(compressors, staged, tmp_path):
    expected = exercise(tmp_path / "default.zarr", None, COMPRESSORS[compressors]())
    assert staged == {"upload": 0, "download": 0, "files": 0}
    got = exercise(tmp_path / "pipeline.zarr", PIPELINE, COMPRESSORS[compressors]())
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_array_equal(g, e)
    assert stored_files(tmp_path / "pipeline.zarr") == stored_files(tmp_path / "default.zarr")
    assert staged["upload"] > 0 and staged["download"] > 0 and staged["files"] > 0


def test_pipeline_sharded_on_the_gpu(tmp_path):
    expected = exercise(tmp_path / "default.zarr", None, [LZ4Codec()], shards=(120, 200))
    got = exercise(tmp_path / "pipeline.zarr", PIPELINE, [LZ4Codec()], shards=(120, 200))
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_array_equal(g, e)
    assert stored_files(tmp_path / "pipeline.zarr") == stored_files(tmp_path / "default.zarr")


def test_pipeline_memory_store_on_the_gpu(staged):
    # Reads staged from the store's get; writes are zarr's own (a MemoryStore keeps the buffers).
    expected = exercise(None, None, [CascadedCodec()], store=zarr.storage.MemoryStore())
    got = exercise(None, PIPELINE, [CascadedCodec()], store=zarr.storage.MemoryStore())
    for e, g in zip(expected, got, strict=True):
        np.testing.assert_array_equal(g, e)
    assert staged["upload"] > 0 and staged["download"] == 0 and staged["files"] == 0


def test_pipeline_one_codec_call_per_batch(calls, tmp_path):
    data = sample("float32", (512, 700))  # 4 x 6 chunks, the last column partial
    settings = {"codec_pipeline.path": PIPELINE, "codec_pipeline.batch_size": 1024, "array.write_empty_chunks": True}
    with zarr.config.enable_gpu(), zarr.config.set(settings):
        array = zarr.create_array(
            tmp_path / "a.zarr", shape=data.shape, chunks=(128, 128), dtype="float32", compressors=[LZ4Codec()]
        )
        array[...] = cp.asarray(data)
        read = zarr.open_array(tmp_path / "a.zarr", mode="r")[...]
    cp.testing.assert_array_equal(read, cp.asarray(data))
    assert calls == [("encode", 24), ("decode", 24)]


def test_pipeline_reuses_its_page_locked_buffer(tmp_path, monkeypatch):
    allocations = []
    alloc = cp.cuda.alloc_pinned_memory
    monkeypatch.setattr(cp.cuda, "alloc_pinned_memory", lambda n: allocations.append(n) or alloc(n))
    zarr_pipeline.release_staging()
    data = cp.asarray(sample("uint8", (4 << 20,)))
    with zarr.config.enable_gpu(), zarr.config.set({"codec_pipeline.path": PIPELINE, "codec_pipeline.batch_size": 64}):
        array = zarr.create_array(
            tmp_path / "a.zarr", shape=data.shape, chunks=(1 << 18,), dtype="uint8", compressors=[BitcompCodec()]
        )
        for _ in range(3):
            array[...] = data
            cp.testing.assert_array_equal(array[...], data)
    assert len(allocations) == 1  # the first write's block, then reused by every read and write
    zarr_pipeline.release_staging()
    with zarr.config.enable_gpu(), zarr.config.set({"codec_pipeline.path": PIPELINE, "codec_pipeline.batch_size": 64}):
        cp.testing.assert_array_equal(array[...], data)
    assert len(allocations) == 2


# zarr's `zstd` codec id through gpucomp.zarr.ZstdCodec (selected by zarr's codec configuration).
ZSTD = {"codecs.zstd": "gpucomp.zarr.ZstdCodec"}


@pytest.mark.parametrize("level,checksum", [(0, False), (1, True), (19, False), (-3, True)])
def test_zstd_stock_store_reads_into_gpu_memory_one_call_per_batch(level, checksum, calls, tmp_path):
    data = sample("float32", (512, 700))  # 4 x 6 chunks, the last column partial
    stock = zarr.create_array(tmp_path / "a.zarr", shape=data.shape, chunks=(128, 128), dtype="float32",
                              compressors=[zarr.codecs.ZstdCodec(level=level, checksum=checksum)])
    stock[...] = data
    with zarr.config.set(ZSTD), zarr.config.enable_gpu(), zarr.config.set({"codec_pipeline.batch_size": 1024}):
        a = zarr.open_array(tmp_path / "a.zarr", mode="r")
        assert isinstance(a.metadata.codecs[-1], ZstdCodec)
        read = a[...]
        assert isinstance(read, cp.ndarray)
        cp.testing.assert_array_equal(read, cp.asarray(data))
        assert calls == [("decode", 24)]  # every chunk decoded on the GPU, in one call
        cp.testing.assert_array_equal(a[100:300, 50:650], cp.asarray(data[100:300, 50:650]))


def test_zstd_gpu_writes_read_by_zarrs_own_codec(calls, tmp_path):
    data = sample("int32", (300, 300))
    compressor = {"name": "zstd", "configuration": {"level": 5, "checksum": True}}
    with zarr.config.set(ZSTD), zarr.config.enable_gpu(), zarr.config.set({"codec_pipeline.batch_size": 64}):
        a = zarr.create_array(tmp_path / "g.zarr", shape=data.shape, chunks=(100, 100), dtype="int32",
                              compressors=[compressor])
        a[...] = cp.asarray(data)  # compressed on the CPU (libzstd) through host copies
        cp.testing.assert_array_equal(zarr.open_array(tmp_path / "g.zarr", mode="r")[...], cp.asarray(data))
    assert calls == [("decode", 9)]  # encoding is not a GPU call
    stock = zarr.open_array(tmp_path / "g.zarr", mode="r")
    assert type(stock.metadata.codecs[-1]) is zarr.codecs.ZstdCodec
    np.testing.assert_array_equal(stock[...], data)


def test_zstd_corrupt_checksummed_chunk_raises_on_the_gpu(tmp_path):
    data = sample("int32", (200, 100))
    zarr.create_array(tmp_path / "a.zarr", shape=data.shape, chunks=(100, 100), dtype="int32",
                      compressors=[zarr.codecs.ZstdCodec(checksum=True)])[...] = data
    chunk = tmp_path / "a.zarr" / "c" / "1" / "0"
    blob = bytearray(chunk.read_bytes())
    blob[-12] ^= 1  # in the last block, before the checksum
    chunk.write_bytes(bytes(blob))
    with zarr.config.set(ZSTD), zarr.config.enable_gpu(), zarr.config.set({"codec_pipeline.batch_size": 64}):
        a = zarr.open_array(tmp_path / "a.zarr", mode="r")
        cp.testing.assert_array_equal(a[:100], cp.asarray(data[:100]))
        with pytest.raises(gpucomp.DecodeError):
            a[...]


def test_zstd_through_the_pipeline_reads_a_stock_store(calls, tmp_path):
    data = sample("float32", (512, 700))
    zarr.create_array(tmp_path / "a.zarr", shape=data.shape, chunks=(128, 128), dtype="float32")[...] = data
    settings = {**ZSTD, "codec_pipeline.path": PIPELINE, "codec_pipeline.batch_size": 1024}
    with zarr.config.set(settings), zarr.config.enable_gpu():
        read = zarr.open_array(tmp_path / "a.zarr", mode="r")[...]
    cp.testing.assert_array_equal(read, cp.asarray(data))
    assert calls == [("decode", 24)]
