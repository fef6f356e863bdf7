"""numcodecs codecs on host buffers (gpucomp's CPU codecs): round trips, ``out=``, configuration,
the entry points, zarr v2 arrays, hostile input."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")

import gpucomp
from gpucomp.numcodecs import ANS, LZ4, Bitcomp, Cascaded

CODECS = [LZ4, ANS, Cascaded, Bitcomp]
DTYPES = ["float32", "int32", "int16", "uint8"]


def sample(dtype: str, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = (np.arange(n) // 5) % 300 + rng.integers(0, 3, n)
    return (base * 0.5).astype(dtype) if np.dtype(dtype).kind == "f" else base.astype(dtype)


def typed(codec_cls, dtype: str) -> dict[str, str]:
    """Cascaded and Bitcomp read typed elements (Cascaded ``<u4`` by default, which refuses a
    length that is no multiple of 4): give them the data's integer type."""
    if codec_cls not in (Cascaded, Bitcomp):
        return {}
    dt = np.dtype(dtype)
    return {"data_type": np.dtype(f"<{'i' if dt.kind == 'i' else 'u'}{dt.itemsize}").str}


def test_entry_points_name_the_codecs():
    eps = {ep.name: ep.value for ep in entry_points(group="numcodecs.codecs")}
    for cls in CODECS:
        assert eps[cls.codec_id] == f"gpucomp.numcodecs:{cls.__name__}"


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_id)
def test_get_codec_loads_the_entry_point(codec_cls, monkeypatch):
    # A registry that has not seen the class: get_codec must load it from the entry point.
    monkeypatch.delitem(numcodecs.registry.codec_registry, codec_cls.codec_id, raising=False)
    codec = numcodecs.get_codec({"id": codec_cls.codec_id, "uncomp_chunk_size": 8192})
    assert type(codec) is codec_cls
    assert codec.uncomp_chunk_size == 8192


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_id)
def test_round_trip(codec_cls, dtype):
    data = sample(dtype, 50_001)
    codec = codec_cls(uncomp_chunk_size=16384, **typed(codec_cls, dtype))
    encoded = codec.encode(data)
    decoded = codec.decode(encoded)
    assert isinstance(decoded, np.ndarray)
    assert decoded.dtype == np.uint8
    np.testing.assert_array_equal(decoded.view(dtype), data)
    # The stream is an NVCOMP_NATIVE one: a plain gpucomp.Codec decodes it.
    plain = gpucomp.Codec(algorithm="LZ4", device="cpu")
    assert bytes(np.asarray(plain.decode(np.asarray(encoded)))) == data.tobytes()


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_id)
def test_buffer_kinds(codec_cls):
    data = sample("int32", 4096)
    codec = codec_cls()
    for buf in (data.tobytes(), memoryview(data), bytearray(data.tobytes()), data.reshape(64, 64)):
        encoded = codec.encode(buf)
        assert bytes(codec.decode(bytes(encoded))) == data.tobytes()
        assert bytes(codec.decode(memoryview(encoded))) == data.tobytes()


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_id)
def test_decode_into_out(codec_cls):
    data = sample("float32", 10_000).reshape(100, 100)
    codec = codec_cls()
    encoded = codec.encode(data)
    out = np.zeros_like(data)
    assert codec.decode(encoded, out=out) is out
    np.testing.assert_array_equal(out, data)
    with pytest.raises((ValueError, TypeError)):
        codec.decode(encoded, out=np.zeros(9_999, dtype="float32"))


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_id)
def test_config_round_trip(codec_cls):
    options = {"data_type": "<i4"} if codec_cls in (Cascaded, Bitcomp) else {}
    codec = codec_cls(uncomp_chunk_size=32768, **options)
    config = codec.get_config()
    assert config == {"id": codec_cls.codec_id, "uncomp_chunk_size": 32768, **options}
    again = numcodecs.get_codec(config)
    assert again == codec
    assert repr(again) == repr(codec)
    assert codec_cls().get_config() == {"id": codec_cls.codec_id}


def test_options_are_checked_and_normalized():
    assert Bitcomp(data_type=np.int16, algorithm_type=np.int64(1)).get_config() == {
        "id": "gpucomp_bitcomp",
        "data_type": "<i2",
        "algorithm_type": 1,
    }
    with pytest.raises((TypeError, ValueError)):
        LZ4(no_such_option=1)
    with pytest.raises(TypeError, match="uncomp_chunk_size"):
        LZ4(uncomp_chunk_size=1.5)


def test_non_contiguous_input_is_refused():
    data = sample("int32", 1000)[::2]
    with pytest.raises(ValueError):
        LZ4().encode(data)


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_id)
def test_hostile_streams_raise(codec_cls):
    data = sample("int32", 8192)
    encoded = bytes(codec_cls(uncomp_chunk_size=4096).encode(data))
    for bad in (encoded[: len(encoded) // 2], bytes(b ^ 0xFF for b in encoded[:64]) + encoded[64:], b"", b"\0" * 7):
        with pytest.raises(gpucomp.DecodeError):
            codec_cls().decode(bad)


def test_zarr_v2_array_through_the_entry_point(tmp_path):
    """A zarr format 2 array compressed with a numcodecs codec opens in a process that never
    imports gpucomp itself."""
    zarr = pytest.importorskip("zarr")
    data = sample("int32", 10_000).reshape(100, 100)
    array = zarr.create_array(
        tmp_path / "v2.zarr",
        shape=data.shape,
        chunks=(30, 40),
        dtype="int32",
        zarr_format=2,
        compressors=Cascaded(data_type="<i4"),
    )
    array[...] = data
    np.save(tmp_path / "v2.npy", data)
    script = textwrap.dedent(
        """
        import pathlib, sys
        import numpy as np, zarr
        root = pathlib.Path(sys.argv[1])
        array = zarr.open_array(root / "v2.zarr", mode="r")
        np.testing.assert_array_equal(array[...], np.load(root / "v2.npy"))
        print(array.metadata.compressor.get_config())
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "gpucomp_cascaded" in done.stdout


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_id)
def test_pickles_after_use(codec_cls):
    """Dask ships codecs to workers by pickle: the per-thread gpucomp codecs stay behind."""
    codec = codec_cls(uncomp_chunk_size=4096)
    data = sample("int32", 10_000)
    encoded = codec.encode(data)
    again = pickle.loads(pickle.dumps(codec))
    assert again == codec
    np.testing.assert_array_equal(again.decode(encoded).view("int32"), data)
