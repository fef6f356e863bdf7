"""DLPack export and import on host memory (NumPy), versioned and legacy capsules."""
import gc

import numpy as np
import pytest

import gpucomp


def test_numpy_reads_an_array_zero_copy():
    x = np.arange(1000, dtype=np.float32)
    a = gpucomp.as_array(x)
    y = np.from_dlpack(a)
    assert y.__array_interface__["data"][0] == x.__array_interface__["data"][0]
    np.testing.assert_array_equal(y, x)
    assert a.__dlpack_device__() == (1, 0)


def test_capsule_kinds_follow_max_version():
    a = gpucomp.as_array(np.zeros(4, np.uint8))
    assert "dltensor_versioned" in repr(a.__dlpack__(max_version=(1, 0)))
    assert "dltensor_versioned" in repr(a.__dlpack__(max_version=(1, 1)))
    assert '"dltensor"' in repr(a.__dlpack__())
    assert '"dltensor"' in repr(a.__dlpack__(max_version=(0, 8)))
    gc.collect()  # unconsumed capsules free their tensors


def test_decoded_array_outlives_the_codec_through_dlpack():
    codec = gpucomp.Codec(algorithm="LZ4", device="cpu")
    x = np.arange(50_000, dtype=np.int32)
    y = np.from_dlpack(codec.decode(codec.encode(x), data_type="<i4"))
    del codec
    gc.collect()
    np.testing.assert_array_equal(y, x)


def test_import_keeps_the_producer_alive():
    x = np.arange(100_000, dtype=np.int64)
    b = gpucomp.from_dlpack(x)
    assert b.__array_interface__["data"][0] == x.__array_interface__["data"][0]
    del x
    gc.collect()
    np.testing.assert_array_equal(np.asarray(b), np.arange(100_000, dtype=np.int64))


def test_import_strides_and_read_only():
    s = np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::2]
    r = gpucomp.from_dlpack(s)
    assert r.shape == (3, 2) and r.strides == (8, 4)
    np.testing.assert_array_equal(np.from_dlpack(r), s)
    ro = np.arange(4)
    ro.flags.writeable = False
    assert gpucomp.from_dlpack(ro).__array_interface__["data"][1] is True
    c = gpucomp.from_dlpack(np.zeros((2, 3), np.float64))
    assert c.__array_interface__["strides"] is None


def test_copy_and_devices():
    a = gpucomp.as_array(np.arange(8, dtype=np.uint8))
    z = np.from_dlpack(a, copy=True)
    assert z.__array_interface__["data"][0] != a.__array_interface__["data"][0]
    np.testing.assert_array_equal(z, np.arange(8, dtype=np.uint8))
    with pytest.raises(ValueError, match="stream must be None"):
        a.__dlpack__(stream=5)
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(2, 0), copy=False)


def test_codec_takes_dlpack_only_objects():
    class OnlyDlpack:
        def __init__(self, x):
            self.x = x

        def __dlpack__(self, **kw):
            return self.x.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.x.__dlpack_device__()

    x = np.arange(30_000, dtype=np.uint8)
    codec = gpucomp.Codec(algorithm="ANS", device="cpu")
    assert bytes(codec.decode(codec.encode(OnlyDlpack(x)))) == x.tobytes()
