"""zarr's own ``zstd`` codec through gpucomp (``gpucomp.zarr.ZstdCodec``) on host buffers: selected by
zarr's codec configuration, it reads arrays zarr's stock codec wrote and writes what that codec
reads (the GPU tests are in ``test_zarr_gpu.py``)."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
import warnings
from importlib.metadata import entry_points

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

import gpucomp
from gpucomp._gpucomp import zstd_version_number
from gpucomp.zarr import ZstdCodec
from test_zstd import SAME_ACROSS_VERSIONS, flip_payload_byte

SELECT = {"codecs.zstd": "gpucomp.zarr.ZstdCodec", "codec_pipeline.batch_size": 1024}


def zarr_sample(shape=(250, 370), dtype="float32"):
    rng = np.random.default_rng(3)
    n = int(np.prod(shape))
    return ((np.arange(n) // 5) % 300 + rng.integers(0, 3, n)).astype(dtype).reshape(shape)


def test_zarr_entry_point_and_selection():
    eps = {ep.name: ep.value for ep in entry_points(group="zarr.codecs.zstd")}
    assert eps["gpucomp"] == "gpucomp.zarr:ZstdCodec"
    # Installed, it changes nothing until selected: zarr's default stays zarr's own codec.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert zarr.registry.get_codec_class("zstd") is zarr.codecs.ZstdCodec
        with zarr.config.set({"codecs.zstd": "gpucomp.zarr.ZstdCodec"}):
            assert zarr.registry.get_codec_class("zstd") is ZstdCodec


def test_zarr_configuration_is_zarrs():
    for kw in ({}, {"level": 9}, {"level": -3, "checksum": True}):
        ours, stock = ZstdCodec(**kw), zarr.codecs.ZstdCodec(**kw)
        assert ours.to_dict() == stock.to_dict()
        assert ZstdCodec.from_dict(stock.to_dict()) == ours
    assert pickle.loads(pickle.dumps(ZstdCodec(level=4, checksum=True))) == ZstdCodec(level=4, checksum=True)
    with pytest.raises(ValueError):
        ZstdCodec(level=23)
    with pytest.raises(TypeError):
        ZstdCodec(level=1.5)
    with pytest.raises(TypeError):
        ZstdCodec(checksum=1)


@pytest.mark.parametrize("checksum", [False, True])
@pytest.mark.parametrize("level", [0, 1, 5, 19, -3])
def test_zarr_stock_arrays_read_through_gpucomp(level, checksum, tmp_path):
    data = zarr_sample()
    path = tmp_path / "stock.zarr"
    stock = zarr.create_array(
        path,
        shape=data.shape,
        chunks=(100, 100),
        dtype=data.dtype,
        compressors=[zarr.codecs.ZstdCodec(level=level, checksum=checksum)],
    )
    stock[...] = data
    with zarr.config.set(SELECT):
        a = zarr.open_array(path, mode="r")
        codec = a.metadata.codecs[-1]
        assert isinstance(codec, ZstdCodec) and (codec.level, codec.checksum) == (level, checksum)
        np.testing.assert_array_equal(a[...], data)
        np.testing.assert_array_equal(a[17:203, 99:301], data[17:203, 99:301])


def test_zarr_round_trip_and_stock_reads_ours(tmp_path):
    data = zarr_sample((300, 200), "int32")
    path = tmp_path / "ours.zarr"
    with zarr.config.set(SELECT):
        # zarr's default compressor of a new array is its own class (zarr 3.1's
        # default_compressors_v3), not the configured one: a codec given by name is.
        default = zarr.create_array(tmp_path / "default", shape=(5,), dtype="int32")
        assert type(default.metadata.codecs[-1]) is zarr.codecs.ZstdCodec
        assert isinstance(zarr.open_array(tmp_path / "default").metadata.codecs[-1], ZstdCodec)
        a = zarr.create_array(
            path,
            shape=data.shape,
            chunks=(64, 64),
            dtype=data.dtype,
            compressors=[{"name": "zstd", "configuration": {"level": 3, "checksum": True}}],
        )
        assert isinstance(a.metadata.codecs[-1], ZstdCodec)
        a[...] = data
        a[10:20, 5:150] = -1
        data[10:20, 5:150] = -1
        np.testing.assert_array_equal(zarr.open_array(path, mode="r")[...], data)
    stock = zarr.open_array(path, mode="r")
    assert type(stock.metadata.codecs[-1]) is zarr.codecs.ZstdCodec
    np.testing.assert_array_equal(stock[...], data)


@pytest.mark.parametrize("level,checksum", [(0, False), (5, True), (19, False)])
def test_zarr_writes_zarrs_chunk_bytes(level, checksum, tmp_path):
    data = zarr_sample((200, 200))
    stored = {}
    for name, config in (("stock", {}), ("ours", SELECT)):
        with zarr.config.set(config):
            compressor = {"name": "zstd", "configuration": {"level": level, "checksum": checksum}}
            a = zarr.create_array(
                tmp_path / name, shape=data.shape, chunks=(100, 100), dtype=data.dtype, compressors=[compressor]
            )
            a[...] = data
        stored[name] = {
            p.relative_to(tmp_path / name).as_posix(): p.read_bytes() for p in sorted((tmp_path / name).rglob("c/*/*"))
        }
    assert stored["ours"].keys() == stored["stock"].keys() and len(stored["ours"]) == 4
    same_version = level in SAME_ACROSS_VERSIONS or numcodecs.zstd.VERSION_NUMBER == zstd_version_number
    if same_version:
        assert stored["ours"] == stored["stock"]
    for chunk in stored["ours"].values():
        assert chunk[:4] == b"\x28\xb5\x2f\xfd" and bool(chunk[4] & 0x04) == checksum


def test_zarr_one_decode_call_per_batch(monkeypatch, tmp_path):
    from gpucomp import _plugin

    calls = []
    cpu = _plugin.CodecCache.cpu

    class Counting:
        def __init__(self, inner):
            self.inner = inner

        def decode(self, arrays, **kw):
            calls.append(len(arrays))
            return self.inner.decode(arrays, **kw)

    monkeypatch.setattr(_plugin.CodecCache, "cpu", lambda self: Counting(cpu(self)))
    data = zarr_sample((400, 400))
    zarr.create_array(tmp_path / "a", shape=data.shape, chunks=(100, 100), dtype=data.dtype)[...] = data
    with zarr.config.set(SELECT):
        np.testing.assert_array_equal(zarr.open_array(tmp_path / "a", mode="r")[...], data)
    assert calls == [16]


def test_zarr_corrupt_and_checksummed_chunks_raise(tmp_path):
    data = zarr_sample((100, 100))
    path = tmp_path / "a.zarr"
    zarr.create_array(
        path, shape=data.shape, chunks=(100, 100), dtype=data.dtype, compressors=[zarr.codecs.ZstdCodec(checksum=True)]
    )[...] = data
    chunk = path / "c" / "0" / "0"
    chunk.write_bytes(flip_payload_byte(chunk.read_bytes()))
    with zarr.config.set(SELECT), pytest.raises(gpucomp.DecodeError):
        zarr.open_array(path, mode="r")[...]
    chunk.write_bytes(chunk.read_bytes()[:50])
    with zarr.config.set(SELECT), pytest.raises(gpucomp.DecodeError):
        zarr.open_array(path, mode="r")[...]


def test_zarr_selected_without_import_in_a_fresh_process(tmp_path):
    data = zarr_sample((50, 60))
    zarr.create_array(tmp_path / "a", shape=data.shape, chunks=(25, 30), dtype=data.dtype)[...] = data
    np.save(tmp_path / "want.npy", data)
    script = textwrap.dedent(f"""
        import sys, numpy as np, zarr
        with zarr.config.set({{"codecs.zstd": "gpucomp.zarr.ZstdCodec"}}):
            a = zarr.open_array({str(tmp_path / "a")!r}, mode="r")
            assert type(a.metadata.codecs[-1]).__module__ == "gpucomp.zarr"
            assert "gpucomp.zarr" in sys.modules
            np.testing.assert_array_equal(a[...], np.load({str(tmp_path / "want.npy")!r}))
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "ok"
