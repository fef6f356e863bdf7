"""zarr v3 codecs on host buffers (gpucomp's CPU codecs): round trips through the entry points,
metadata, batching, hostile chunks."""

from __future__ import annotations

import asyncio
import contextlib
import json
import pickle
import subprocess
import sys
import textwrap
import threading
import warnings
from importlib.metadata import entry_points
from typing import ClassVar

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")

import gpucomp
from conftest import stored_files, write_and_read
from gpucomp import _plugin, zarr_pipeline
from gpucomp.zarr import ANSCodec, BitcompCodec, CascadedCodec, LZ4Codec

CODECS = [LZ4Codec, ANSCodec, CascadedCodec, BitcompCodec]
DTYPES = ["float32", "int32", "int16", "uint8"]


def sample(dtype: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Compressible data with noise: a ramp, repeats and random low bits."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    base = (np.arange(n) // 7) % 200 + rng.integers(0, 4, n)
    if np.dtype(dtype).kind == "f":
        return (base * 0.25).astype(dtype).reshape(shape)
    return base.astype(dtype).reshape(shape)


@pytest.fixture
def batch_all():
    """zarr hands the codec every chunk of a read or write at once."""
    with zarr.config.set({"codec_pipeline.batch_size": 1024}):
        yield


def test_entry_points_name_the_codecs():
    eps = {ep.name: ep.value for ep in entry_points(group="zarr.codecs")}
    for cls in CODECS:
        assert eps[cls.codec_name] == f"gpucomp.zarr:{cls.__name__}"
        assert zarr.registry.get_codec_class(cls.codec_name) is cls


@pytest.mark.parametrize("store_kind", ["memory", "local"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_name)
def test_round_trip(codec_cls, dtype, store_kind, tmp_path, batch_all):
    # 2-D, 3 x 4 chunks, the last row and column of chunks partial.
    data = sample(dtype, (250, 370))
    store = zarr.storage.MemoryStore() if store_kind == "memory" else zarr.storage.LocalStore(tmp_path / "a.zarr")
    array = zarr.create_array(store, shape=data.shape, chunks=(100, 100), dtype=dtype, compressors=[codec_cls()])
    array[...] = data

    reopened = zarr.open_array(store, mode="r")
    assert isinstance(reopened.metadata.codecs[-1], codec_cls)
    np.testing.assert_array_equal(reopened[...], data)
    np.testing.assert_array_equal(reopened[42:177, 5:333], data[42:177, 5:333])
    np.testing.assert_array_equal(reopened[249, :], data[249, :])


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_name)
def test_partial_writes_decode_and_reencode(codec_cls, batch_all):
    data = sample("int32", (1000,))
    array = zarr.create_array(
        zarr.storage.MemoryStore(), shape=(1000,), chunks=(128,), dtype="int32", compressors=[codec_cls()]
    )
    array[...] = data
    patch = np.arange(-300, 0, dtype="int32")
    array[50:350] = patch  # partial chunks at both ends: read, merge, write
    data[50:350] = patch
    array[999] = 7  # the last, partial chunk
    data[999] = 7
    np.testing.assert_array_equal(array[...], data)


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_name)
def test_default_batch_size_one_chunk_at_a_time(codec_cls):
    data = sample("uint8", (5000,))
    array = zarr.create_array(
        zarr.storage.MemoryStore(), shape=data.shape, chunks=(512,), dtype="uint8", compressors=[codec_cls()]
    )
    array[...] = data
    np.testing.assert_array_equal(array[...], data)


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_name)
def test_inside_shards(codec_cls, batch_all):
    data = sample("float32", (64, 64))
    array = zarr.create_array(
        zarr.storage.MemoryStore(),
        shape=data.shape,
        chunks=(8, 16),
        shards=(32, 32),
        dtype="float32",
        compressors=[codec_cls()],
    )
    array[...] = data
    np.testing.assert_array_equal(array[...], data)
    np.testing.assert_array_equal(array[3:40, 17:50], data[3:40, 17:50])


def test_reopen_in_a_fresh_process(tmp_path, batch_all):
    """Arrays written with every codec open in a process that never imports gpucomp itself: zarr
    finds the codecs through the entry points."""
    for cls in CODECS:
        for dtype in DTYPES:
            data = sample(dtype, (300, 70), seed=len(dtype))
            array = zarr.create_array(
                tmp_path / f"{cls.algorithm}-{dtype}.zarr",
                shape=data.shape,
                chunks=(64, 32),
                dtype=dtype,
                compressors=[cls()],
            )
            array[...] = data
            np.save(tmp_path / f"{cls.algorithm}-{dtype}.npy", data)
    script = textwrap.dedent(
        """
        import pathlib, sys
        import numpy as np, zarr
        root = pathlib.Path(sys.argv[1])
        names = []
        for path in sorted(root.glob("*.zarr")):
            array = zarr.open_array(path, mode="r")
            np.testing.assert_array_equal(array[...], np.load(path.with_suffix(".npy")))
            names.append(type(array.metadata.codecs[-1]).__qualname__)
        print(len(names), sorted(set(names)))
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(None, 1)[0] == str(len(CODECS) * len(DTYPES))
    for cls in CODECS:
        assert cls.__name__ in done.stdout


def test_stored_chunks_are_native_nvcomp_streams(tmp_path):
    """A stored chunk decodes through a plain ``gpucomp.Codec`` of another algorithm: an
    NVCOMP_NATIVE stream names its own algorithm and options."""
    data = sample("int32", (4096,))
    array = zarr.create_array(
        tmp_path / "a.zarr",
        shape=data.shape,
        chunks=(4096,),
        dtype="int32",
        compressors=[BitcompCodec(uncomp_chunk_size=4096)],
    )
    array[...] = data
    stream = (tmp_path / "a.zarr" / "c" / "0").read_bytes()
    decoded = gpucomp.Codec(algorithm="LZ4", device="cpu").decode(np.frombuffer(stream, np.uint8))
    assert bytes(np.asarray(decoded)) == data.tobytes()


def test_metadata_holds_the_configuration(tmp_path):
    codec = CascadedCodec(uncomp_chunk_size=32768, data_type=np.dtype("int16"))
    array = zarr.create_array(tmp_path / "a.zarr", shape=(100,), chunks=(10,), dtype="int16", compressors=[codec])
    meta = json.loads((tmp_path / "a.zarr" / "zarr.json").read_text())
    assert meta["codecs"][-1] == {
        "name": "gpucomp.cascaded",
        "configuration": {"data_type": "<i2", "uncomp_chunk_size": 32768},
    }
    assert array.metadata.codecs[-1] == codec
    assert CascadedCodec.from_dict(codec.to_dict()) == codec
    assert hash(CascadedCodec.from_dict(codec.to_dict())) == hash(codec)


@pytest.mark.parametrize(
    ("codec_cls", "dtype", "expected"),
    [
        (CascadedCodec, "float32", "<u4"),
        (CascadedCodec, "int64", "<i8"),
        (BitcompCodec, "uint16", "<u2"),
        (BitcompCodec, "int8", "|i1"),
        (LZ4Codec, "int32", None),
        (ANSCodec, "float32", None),
    ],
)
def test_typed_algorithms_take_the_arrays_element_type(codec_cls, dtype, expected):
    array = zarr.create_array(
        zarr.storage.MemoryStore(), shape=(10,), chunks=(5,), dtype=dtype, compressors=[codec_cls()]
    )
    assert dict(array.metadata.codecs[-1].options).get("data_type") == expected


def test_explicit_data_type_is_kept():
    array = zarr.create_array(
        zarr.storage.MemoryStore(), shape=(10,), chunks=(5,), dtype="int32", compressors=[BitcompCodec(data_type="|u1")]
    )
    assert dict(array.metadata.codecs[-1].options)["data_type"] == "|u1"


def test_bad_configuration_fails_at_construction():
    with pytest.raises((TypeError, ValueError)):
        LZ4Codec(no_such_option=1)
    with pytest.raises((TypeError, ValueError)):
        BitcompCodec(data_type="not a type")
    with pytest.raises(TypeError, match="uncomp_chunk_size"):
        LZ4Codec(uncomp_chunk_size="64K")
    with pytest.raises(ValueError, match="uncomp_chunk_size"):
        LZ4Codec(uncomp_chunk_size=0)
    with pytest.raises(ValueError, match="uncomp_chunk_size"):
        CascadedCodec(uncomp_chunk_size=1 << 30)  # over Cascaded's 16 MiB
    with pytest.raises(TypeError, match="JSON scalar"):
        LZ4Codec(data_type=None, extra=[1, 2])


def test_compressed_size_is_not_fixed():
    with pytest.raises(NotImplementedError):
        LZ4Codec().compute_encoded_size(100, None)


class CountingCodec:
    """Wraps a gpucomp.Codec, recording the length of each list it encodes or decodes."""

    def __init__(self, inner, calls):
        self.inner, self.calls = inner, calls

    def encode(self, arrays, **kwargs):
        self.calls.append(("encode", len(arrays)))
        return self.inner.encode(arrays, **kwargs)

    def decode(self, arrays, **kwargs):
        self.calls.append(("decode", len(arrays)))
        return self.inner.decode(arrays, **kwargs)


def test_one_call_per_batch(monkeypatch, batch_all):
    calls: list[tuple[str, int]] = []
    cpu = _plugin.CodecCache.cpu
    monkeypatch.setattr(_plugin.CodecCache, "cpu", lambda self: CountingCodec(cpu(self), calls))
    data = sample("float32", (1000, 1000))
    array = zarr.create_array(
        zarr.storage.MemoryStore(), shape=data.shape, chunks=(100, 300), dtype="float32", compressors=[LZ4Codec()]
    )
    array[...] = data
    assert calls == [("encode", 40)]
    calls.clear()
    np.testing.assert_array_equal(array[...], data)
    assert calls == [("decode", 40)]


def corrupt(path, how):
    blob = bytearray(path.read_bytes())
    if how == "truncated":
        del blob[len(blob) // 2 :]
    elif how == "payload":
        for i in range(len(blob) // 2, len(blob)):
            blob[i] ^= 0x5A
    else:  # header
        for i in range(min(64, len(blob))):
            blob[i] ^= 0xFF
    path.write_bytes(bytes(blob))


@pytest.mark.parametrize("how", ["truncated", "header"])
@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_name)
def test_corrupt_chunk_raises(codec_cls, how, tmp_path, batch_all):
    data = sample("int32", (4000,))
    array = zarr.create_array(
        tmp_path / "a.zarr",
        shape=data.shape,
        chunks=(1000,),
        dtype="int32",
        compressors=[codec_cls(uncomp_chunk_size=1024)],
    )
    array[...] = data
    corrupt(tmp_path / "a.zarr" / "c" / "2", how)
    reopened = zarr.open_array(tmp_path / "a.zarr", mode="r")
    np.testing.assert_array_equal(reopened[:2000], data[:2000])  # the good chunks still read
    with pytest.raises(gpucomp.DecodeError):
        reopened[...]


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_name)
def test_corrupt_payload_never_crashes(codec_cls, tmp_path, batch_all):
    """Without checksums a flipped payload may decode to other bytes; it must not crash."""
    data = sample("int32", (4000,))
    array = zarr.create_array(
        tmp_path / "a.zarr",
        shape=data.shape,
        chunks=(1000,),
        dtype="int32",
        compressors=[codec_cls(uncomp_chunk_size=1024)],
    )
    array[...] = data
    corrupt(tmp_path / "a.zarr" / "c" / "2", "payload")
    reopened = zarr.open_array(tmp_path / "a.zarr", mode="r")
    with contextlib.suppress(gpucomp.DecodeError):
        assert reopened[...].shape == data.shape


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_name)
def test_pickles_after_use(codec_cls, batch_all):
    """Dask ships arrays and their codecs to workers by pickle."""
    data = sample("int16", (100, 100))
    array = zarr.create_array(
        zarr.storage.MemoryStore(),
        shape=data.shape,
        chunks=(50, 50),
        dtype="int16",
        compressors=[codec_cls(uncomp_chunk_size=4096)],
    )
    array[...] = data
    again = pickle.loads(pickle.dumps(array))
    assert again.metadata.codecs[-1] == array.metadata.codecs[-1]
    np.testing.assert_array_equal(again[...], data)


def test_crc32c_after_the_codec_catches_a_flipped_payload(tmp_path, batch_all):
    """NVCOMP_NATIVE streams carry no checksums here; zarr's crc32c codec after ours adds one."""
    data = sample("int32", (4000,))
    array = zarr.create_array(
        tmp_path / "a.zarr",
        shape=data.shape,
        chunks=(1000,),
        dtype="int32",
        compressors=[LZ4Codec(), zarr.codecs.Crc32cCodec()],
    )
    array[...] = data
    np.testing.assert_array_equal(zarr.open_array(tmp_path / "a.zarr", mode="r")[...], data)
    corrupt(tmp_path / "a.zarr" / "c" / "1", "payload")
    with pytest.raises(ValueError, match="checksum"):
        zarr.open_array(tmp_path / "a.zarr", mode="r")[...]


def test_batch_hooks_pass_missing_chunks_through():
    """zarr's pipeline hands the hooks None for chunks absent from the store."""
    from zarr.core.array_spec import ArrayConfig, ArraySpec
    from zarr.core.buffer.cpu import Buffer, buffer_prototype
    from zarr.core.dtype import UInt8

    data = [sample("uint8", (10_000 + 1000 * i,)) for i in range(3)]
    specs = [
        ArraySpec(
            shape=d.shape, dtype=UInt8(), fill_value=0, config=ArrayConfig.from_dict({}), prototype=buffer_prototype
        )
        for d in data
    ]
    codec = ANSCodec()
    encoded = asyncio.run(codec.encode([(Buffer(d), s) for d, s in zip(data, specs, strict=True)]))
    batch = [(None, specs[0]), (encoded[1], specs[1]), (None, specs[2])]
    decoded = asyncio.run(codec.decode(batch))
    assert decoded[0] is None and decoded[2] is None
    np.testing.assert_array_equal(decoded[1].as_numpy_array(), data[1])
    assert asyncio.run(codec.decode([(None, specs[0])])) == [None]
    assert asyncio.run(codec._decode_single(encoded[2], specs[2])).to_bytes() == data[2].tobytes()


# --- gpucomp.zarr_pipeline.GpuCodecPipeline: the batched store I/O, with a host stand-in -------


PIPELINE = "gpucomp.zarr_pipeline.GpuCodecPipeline"


class HostTransfer:
    """The GPU staging of zarr_pipeline, on the host: the "device" is a NumPy array. Records the
    uploads and downloads, and which fills had finished when each upload started. One instance
    serves every batch, and batches run in several threads at once: the records take a lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.uploads: list[tuple[int, int]] = []
        self.downloads = 0
        self.held = 0  # host buffers handed out and not given back
        self.filled: set[int] = set()  # chunk indices whose fill finished (stage tests)
        self.filled_at_upload: list[set[int]] = []

    def host(self, nbytes):
        with self.lock:
            self.held += 1
        return np.full(nbytes, 0xEE, np.uint8)  # garbage where nothing is read

    def release(self, host):
        with self.lock:
            self.held -= 1

    def device(self, nbytes):
        return np.full(nbytes, 0xDD, np.uint8)

    def upload(self, dst, host, start, stop):
        with self.lock:
            self.uploads.append((start, stop))
            self.filled_at_upload.append(set(self.filled))
        dst[start:stop] = host[start:stop]

    def download(self, host, src):
        with self.lock:
            self.downloads += 1
        host[:] = src.as_numpy_array()

    def wait(self):
        pass

    def buffer(self, dst, start, stop, prototype):
        return prototype.buffer.from_array_like(dst[start:stop])


@pytest.fixture
def host_staging(monkeypatch):
    """GpuCodecPipeline with host buffers staged through HostTransfer, as device ones would be;
    ``files_read`` counts the chunk files read by the pipeline itself (not through the store)."""
    transfer = HostTransfer()
    transfer.files_read = 0
    monkeypatch.setattr(zarr_pipeline.GpuCodecPipeline, "_transfer_for", lambda self, prototype: transfer)
    read_file = zarr_pipeline._read_file

    def counted(path, out):
        with transfer.lock:
            transfer.files_read += 1
        return read_file(path, out)

    monkeypatch.setattr(zarr_pipeline, "_read_file", counted)
    return transfer


def test_pipeline_is_registered_and_supported():
    assert zarr_pipeline.SUPPORTED, f"zarr {zarr.__version__}: the pipeline's internals check failed"
    eps = {ep.name: ep.value for ep in entry_points(group="zarr.codec_pipeline")}
    assert eps["gpucomp"] == "gpucomp.zarr_pipeline:GpuCodecPipeline"
    with zarr.config.set({"codec_pipeline.path": PIPELINE}):
        assert zarr.registry.get_pipeline_class() is zarr_pipeline.GpuCodecPipeline


def test_pipeline_selected_without_import(tmp_path):
    # A fresh process: the setting alone finds the pipeline (through the entry point).
    script = f"""
        import zarr
        zarr.config.set({{"codec_pipeline.path": "{PIPELINE}"}})
        a = zarr.create_array({str(tmp_path / "a.zarr")!r}, shape=(10,), chunks=(5,), dtype="i4")
        print(type(a._async_array.codec_pipeline).__qualname__)
    """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "GpuCodecPipeline"


def exercise(root, pipeline, compressors, shards=None):
    """Writes and reads an array through `pipeline` (None: zarr's default): whole writes, a
    partial write, a write that empties a chunk, chunks never written; returns the reads."""
    settings = {"codec_pipeline.batch_size": 7}
    if pipeline:
        settings["codec_pipeline.path"] = pipeline
    with zarr.config.set(settings):
        data = sample("int32", (250, 370))
        a = zarr.create_array(
            root, shape=(300, 370), chunks=(60, 100), shards=shards, dtype="int32", compressors=compressors
        )
        reads = write_and_read(a, data)
    return reads, stored_files(root)


COMPRESSORS = {
    "lz4": lambda: [LZ4Codec()],
    "cascaded": lambda: [CascadedCodec()],
    "none": lambda: None,
    "zstd": lambda: "auto",
}


@pytest.mark.parametrize("staged", [False, True], ids=["host-buffers", "staged"])
@pytest.mark.parametrize("compressors", list(COMPRESSORS), ids=str)
def test_pipeline_equals_zarr_default(compressors, staged, tmp_path, request):
    transfer = request.getfixturevalue("host_staging") if staged else None
    default_reads, default_files = exercise(tmp_path / "default.zarr", None, COMPRESSORS[compressors]())
    reads, files = exercise(tmp_path / "pipeline.zarr", PIPELINE, COMPRESSORS[compressors]())
    for expected, got in zip(default_reads, reads, strict=True):
        np.testing.assert_array_equal(got, expected)
    assert files == default_files
    if staged:
        # The batched paths ran: reads uploaded, writes downloaded, every host buffer given back.
        assert transfer.uploads and transfer.downloads and transfer.files_read and transfer.held == 0
    # The fill value where nothing was written.
    np.testing.assert_array_equal(reads[3], np.zeros(370, "int32"))


def test_pipeline_partial_write_fetches_the_chunks_in_one_batch(tmp_path, host_staging):
    data = sample("int32", (200, 300))
    with zarr.config.set({"codec_pipeline.path": PIPELINE, "codec_pipeline.batch_size": 64}):
        a = zarr.create_array(tmp_path / "a.zarr", shape=data.shape, chunks=(100, 100), dtype="int32")
        a[...] = data
        host_staging.files_read = 0
        host_staging.uploads.clear()
        a[50:150, 50:250] = -1  # 6 chunks, each in part
        data[50:150, 50:250] = -1
        assert host_staging.files_read == 6 and len(host_staging.uploads) == 1
        np.testing.assert_array_equal(a[...], data)


def test_pipeline_is_zarrs_own_where_zarr_differs(tmp_path, host_staging, monkeypatch):
    # The internals check failed: no batched path at all, the same results, no warning.
    monkeypatch.setattr(zarr_pipeline, "SUPPORTED", False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reads, files = exercise(tmp_path / "pipeline.zarr", PIPELINE, [LZ4Codec()])
    default_reads, default_files = exercise(tmp_path / "default.zarr", None, [LZ4Codec()])
    for expected, got in zip(default_reads, reads, strict=True):
        np.testing.assert_array_equal(got, expected)
    assert files == default_files
    assert not host_staging.uploads and not host_staging.downloads and not host_staging.files_read


def test_pipeline_sharded_equals_zarr_default(tmp_path, host_staging):
    default_reads, default_files = exercise(tmp_path / "default.zarr", None, [LZ4Codec()], shards=(120, 200))
    reads, files = exercise(tmp_path / "pipeline.zarr", PIPELINE, [LZ4Codec()], shards=(120, 200))
    for expected, got in zip(default_reads, reads, strict=True):
        np.testing.assert_array_equal(got, expected)
    assert files == default_files


def test_pipeline_other_store_reads_through_get(tmp_path, host_staging):
    # A MemoryStore: reads staged from the store's get, writes zarr's own (the store keeps buffers).
    data = sample("float32", (200, 200))
    with zarr.config.set({"codec_pipeline.path": PIPELINE, "codec_pipeline.batch_size": 16}):
        a = zarr.create_array(
            zarr.storage.MemoryStore(), shape=(300, 200), chunks=(50, 50), dtype="float32", compressors=[LZ4Codec()]
        )
        a[:200] = data
        assert host_staging.downloads == 0
        np.testing.assert_array_equal(a[:200], data)
        np.testing.assert_array_equal(a[200:], np.zeros((100, 200), "float32"))
    assert host_staging.uploads and host_staging.files_read == 0 and host_staging.held == 0


def stage_files(tmp_path, sizes, monkeypatch, piece):
    monkeypatch.setattr(zarr_pipeline, "_PIECE", piece)
    rng = np.random.default_rng(3)
    paths, contents = [], []
    for i, size in enumerate(sizes):
        path = tmp_path / f"c{i}"
        content = None if size is None else rng.integers(0, 256, size, dtype=np.uint8)
        if content is not None:
            path.write_bytes(content.tobytes())
        paths.append(path)
        contents.append(content)
    return paths, contents


def test_stage_uploads_pieces_after_their_reads(tmp_path, monkeypatch):
    sizes = [1000, None, 3000, 0, 2500, 700, None, 4096]
    paths, contents = stage_files(tmp_path, sizes, monkeypatch, piece=3500)
    transfer = HostTransfer()

    def fill(i, view):
        ok = zarr_pipeline._read_file(paths[i], view)
        with transfer.lock:
            transfer.filled.add(i)
        return ok

    found = [zarr_pipeline._file_size(p) for p in paths]
    assert found == sizes
    out = zarr_pipeline._stage(found, fill, transfer, zarr.core.buffer.cpu.buffer_prototype)
    for content, buf in zip(contents, out, strict=True):
        if content is None:
            assert buf is None
        else:
            np.testing.assert_array_equal(buf.as_numpy_array(), content)
    # Consecutive pieces of >= 3500 bytes covering the batch, each started once the reads of its
    # chunks were done (chunks 0 and 2, then 3 (empty), 4, 5 and 7).
    assert transfer.uploads == [(0, 4000), (4000, 11296)]
    assert {0, 2} <= transfer.filled_at_upload[0]
    assert {0, 2, 3, 4, 5, 7} <= transfer.filled_at_upload[1]
    assert transfer.held == 0


def test_stage_chunk_gone_since_its_size(tmp_path, monkeypatch):
    paths, contents = stage_files(tmp_path, [10, 20, 30], monkeypatch, piece=1 << 20)
    sizes = [zarr_pipeline._file_size(p) for p in paths]
    paths[1].unlink()  # deleted between the size and the read: as if it were missing
    out = zarr_pipeline._stage(
        sizes, lambda i, v: zarr_pipeline._read_file(paths[i], v), HostTransfer(), zarr.core.buffer.cpu.buffer_prototype
    )
    assert out[1] is None
    np.testing.assert_array_equal(out[2].as_numpy_array(), contents[2])


def test_stage_read_error_raises_and_gives_the_buffer_back(tmp_path, monkeypatch):
    paths, _ = stage_files(tmp_path, [10, 20, 30], monkeypatch, piece=1 << 20)
    sizes = [zarr_pipeline._file_size(p) for p in paths]
    paths[2].write_bytes(b"longer than thirty bytes, written after its size was taken")
    transfer = HostTransfer()
    with pytest.raises(OSError, match="changed size"):
        zarr_pipeline._stage(
            sizes, lambda i, v: zarr_pipeline._read_file(paths[i], v), transfer, zarr.core.buffer.cpu.buffer_prototype
        )
    assert transfer.held == 0


def test_file_size_of_directories_and_missing_paths(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_bytes(b"abc")
    assert zarr_pipeline._file_size(tmp_path / "d") is None
    assert zarr_pipeline._file_size(tmp_path / "nothing") is None
    assert zarr_pipeline._file_size(tmp_path / "f" / "under-a-file") is None
    assert zarr_pipeline._file_size(tmp_path / "f") == 3


def test_pinned_pool_reuses_grows_and_clears(monkeypatch):
    monkeypatch.setattr(zarr_pipeline, "_PIECE", 100)
    made = []
    pool = zarr_pipeline._PinnedPool(lambda n: made.append(n) or np.zeros(n, np.uint8))
    a = pool.acquire(150)
    b = pool.acquire(30)  # a is lent out: a second block
    assert (a.size, b.size, made) == (150, 30, [200, 100])
    pool.release(a)
    pool.release(b)
    c = pool.acquire(90)  # the smallest free block that fits
    assert made == [200, 100] and c.ctypes.data == b.ctypes.data
    d = pool.acquire(180)
    assert made == [200, 100] and d.ctypes.data == a.ctypes.data
    pool.release(c)
    pool.release(d)
    e = pool.acquire(250)  # none fits: the largest free block is dropped, a larger one made
    assert made == [200, 100, 300]
    pool.release(e)
    assert pool.acquire(100).ctypes.data == b.ctypes.data  # the 100-byte block was kept
    pool.clear()
    pool.acquire(10)
    assert made == [200, 100, 300, 100]


class FakeDeviceArray(np.ndarray):
    """Host memory posing as a CuPy array: the pointer and device attributes _CupyTransfer uses."""

    @property
    def data(self):
        return type("MemoryPointer", (), {"ptr": self.ctypes.data})()

    @property
    def device(self):
        return FakeCupy.cuda.Device(0)


class FakeCupy:
    """The few CuPy calls of _CupyTransfer and _allocate_pinned, on the host: copies are memmoves,
    recorded with their kind and stream."""

    copies: ClassVar[list[tuple[int, int]]] = []  # (kind, stream)
    synchronized: ClassVar[list[int]] = []
    ndarray = FakeDeviceArray

    @staticmethod
    def empty(n, dtype):
        return np.full(n, 0xDD, dtype).view(FakeDeviceArray)

    @staticmethod
    def ascontiguousarray(a):
        return a

    class cuda:
        @staticmethod
        def alloc_pinned_memory(n):
            return bytearray(n)

        class Device:
            def __init__(self, id=0):
                self.id = id

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

        class Stream:
            made = 0

            def __init__(self, non_blocking):
                assert non_blocking is False
                FakeCupy.cuda.Stream.made += 1
                self.ptr = 1000 + FakeCupy.cuda.Stream.made

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def synchronize(self):
                FakeCupy.synchronized.append(self.ptr)

        class runtime:
            memcpyHostToDevice = 1
            memcpyDeviceToHost = 2

            @staticmethod
            def memcpyAsync(dst, src, n, kind, stream):
                import ctypes

                ctypes.memmove(dst, src, n)
                FakeCupy.copies.append((kind, stream))


@pytest.fixture
def fake_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", FakeCupy)
    # Fresh pinned blocks and streams, dropped after the test: none of the fakes outlives it.
    monkeypatch.setattr(zarr_pipeline, "_pinned", zarr_pipeline._PinnedPool())
    monkeypatch.setattr(zarr_pipeline._CupyTransfer, "_streams", threading.local())
    FakeCupy.copies.clear()
    FakeCupy.synchronized.clear()
    return FakeCupy


def test_cupy_transfer_reads_on_the_host_stand_in(fake_cupy, monkeypatch, tmp_path):
    # The pipeline's CuPy staging with CuPy faked on the host: pinned blocks, uploads at the right
    # offsets (the values read back) on the staging thread's stream, then a wait on that stream.
    monkeypatch.setattr(zarr_pipeline, "_PIECE", 1 << 16)
    monkeypatch.setattr(zarr_pipeline.GpuCodecPipeline, "_transfer_for", lambda self, p: zarr_pipeline._CupyTransfer())
    data = sample("int32", (300, 300))
    with zarr.config.set({"codec_pipeline.path": PIPELINE, "codec_pipeline.batch_size": 64}):
        a = zarr.create_array(tmp_path / "a.zarr", shape=(400, 300), chunks=(100, 100), dtype="int32", compressors=None)
        a[:300] = data  # written through the host path of _CupyTransfer.download
        for _ in range(2):
            np.testing.assert_array_equal(a[:300], data)
            np.testing.assert_array_equal(a[300:], 0)
    # 9 chunks of 40000 bytes a read, uploaded in pieces of >= 64 KiB: 5 copies.
    uploads = [stream for kind, stream in fake_cupy.copies if kind == 1]
    assert len(uploads) == 10
    assert set(fake_cupy.synchronized) == set(uploads)
    assert len(zarr_pipeline._pinned._free) == 1 and not zarr_pipeline._pinned._lent


def test_cupy_transfer_download_of_device_chunks(fake_cupy):
    transfer = zarr_pipeline._CupyTransfer()
    chunks = [np.arange(n, dtype=np.uint8).view(FakeDeviceArray) for n in (10, 0, 33)]
    host = transfer.host(43)
    offsets = [0, 10, 10, 43]
    for chunk, start, stop in zip(chunks, offsets, offsets[1:], strict=False):
        transfer.download(host[start:stop], zarr.core.buffer.cpu.Buffer(chunk))
    transfer.wait()
    np.testing.assert_array_equal(host, np.concatenate(chunks))
    assert [kind for kind, _ in fake_cupy.copies] == [2, 2, 2] and fake_cupy.synchronized
    transfer.release(host)
