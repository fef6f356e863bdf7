"""Array on host memory: properties, interfaces, zero-copy import, as_arrays."""
import numpy as np
import pytest

import gpucomp


def test_properties_follow_numpy():
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    a = gpucomp.as_array(x)
    assert a.dtype == np.int32
    assert a.shape == (4, 6)
    assert a.strides == (24, 4)
    assert a.size == 24 and a.ndim == 2 and a.item_size == 4 and a.buffer_size == 96
    assert a.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_HOST
    assert a.device_id == -1
    iface = a.__array_interface__
    assert iface["data"] == x.__array_interface__["data"]
    assert iface["typestr"] == "<i4" and iface["shape"] == (4, 6) and iface["version"] == 3


def test_zero_copy_both_ways():
    x = np.arange(1000, dtype=np.uint16)
    a = gpucomp.as_array(x)
    y = np.asarray(a)
    assert y.__array_interface__["data"][0] == x.__array_interface__["data"][0]
    x[3] = 77
    assert y[3] == 77
    assert bytes(a) == x.tobytes()
    assert a.cpu() is a


def test_owner_kept_alive():
    a = gpucomp.as_array(np.arange(100_000, dtype=np.int64) * 3)
    import gc

    gc.collect()
    np.testing.assert_array_equal(np.asarray(a), np.arange(100_000, dtype=np.int64) * 3)


def test_bytes_and_buffers():
    for obj in (b"abc", bytearray(b"abc"), memoryview(b"abc")):
        a = gpucomp.as_array(obj)
        assert a.dtype == np.uint8 and a.shape == (3,) and bytes(a) == b"abc"
    assert gpucomp.as_array(b"abc").__array_interface__["data"][1] is True  # read-only


def test_host_array_has_no_cuda_interface():
    a = gpucomp.as_array(np.zeros(4))
    assert not hasattr(a, "__cuda_array_interface__")
    assert hasattr(a, "__array_interface__")


def test_non_contiguous_is_refused_with_what_was_expected():
    x = np.arange(100, dtype=np.int32)[::2]
    a = gpucomp.as_array(x)
    assert a.strides == (8,)
    with pytest.raises(ValueError, match="C-contiguous"):
        bytes(a)
    with pytest.raises(ValueError, match="C-contiguous"):
        gpucomp.Codec(algorithm="LZ4", device="cpu").encode(x)


def test_not_an_array():
    with pytest.raises(TypeError, match="expected an array"):
        gpucomp.as_array([1, 2, 3])
    with pytest.raises(TypeError, match="expected an array"):
        gpucomp.as_array(3.5)


def test_as_arrays_list_and_ranges():
    xs = gpucomp.as_arrays([b"ab", np.zeros(3, np.float32)])
    assert [a.buffer_size for a in xs] == [2, 12]
    buf = np.arange(100, dtype=np.uint8)
    parts = gpucomp.as_arrays(buf, [0, 10, 60], [10, 50, 40])
    assert [bytes(p) for p in parts] == [buf[0:10].tobytes(), buf[10:60].tobytes(), buf[60:100].tobytes()]
    assert parts[1].__array_interface__["data"][0] == buf.__array_interface__["data"][0] + 10
    with pytest.raises(ValueError, match="exceeds"):
        gpucomp.as_arrays(buf, [90], [20])
    with pytest.raises(ValueError, match="offsets"):
        gpucomp.as_arrays(buf, [0, 1], [1])


def test_decoded_arrays_feed_numpy():
    codec = gpucomp.Codec(algorithm="Bitcomp", data_type="<f4", device="cpu")
    x = np.linspace(0, 1, 5000, dtype=np.float32)
    d = codec.decode(codec.encode(x))
    assert d.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(d), x)
    assert "Array" in repr(d)


def _cupy_like():
    """A stand-in for CuPy's ``ndarray`` (same module and name): the interface and the public
    attributes gpucomp reads instead of it (``data.ptr``, ``data.device_id``, ``shape``,
    ``strides``, ``dtype.str``), counting how often the interface is built."""

    class Pointer:
        def __init__(self, ptr, device_id):
            self.ptr, self.device_id = ptr, device_id

    class ndarray:  # noqa: N801 (CuPy's name)
        interfaces = [0]  # shared with subclasses

        def __init__(self, ptr, shape, dtype, strides=None):
            self.dtype, self.shape = np.dtype(dtype), shape
            contiguous = np.empty(shape, self.dtype).strides
            self.strides = contiguous if strides is None else strides
            self.data = Pointer(ptr, 0)

        @property
        def __cuda_array_interface__(self):
            self.interfaces[0] += 1
            c_contiguous = self.strides == np.empty(self.shape, self.dtype).strides
            return {
                "shape": self.shape,
                "typestr": self.dtype.str,
                "descr": self.dtype.descr,
                "version": 3,
                "strides": None if c_contiguous else self.strides,
                "data": (self.data.ptr if 0 not in self.shape else 0, False),
                "stream": 7,
            }

    ndarray.__module__ = "cupy"
    return ndarray


# The stand-in's addresses are not allocations: a CUDA driver refuses them (test_gpu.py checks
# real CuPy arrays the same way).
_no_driver = pytest.mark.skipif(gpucomp.cuda_available(), reason="fake device addresses; a CUDA driver refuses them")


@_no_driver
def test_cupy_arrays_of_one_call_read_as_their_interface_says_it_once():
    nd = _cupy_like()
    objs = [
        nd(0x10000, (1024,), np.float32),
        nd(0x20000, (8, 4), np.int16),
        nd(0x30000, (8, 4), np.int16, strides=(16, 2)),
        nd(0x40000, (0,), np.uint8),
        nd(0x50000, (3,), ">f8"),
    ]
    fast = gpucomp.as_arrays(objs)
    assert nd.interfaces == [1]  # the first array gives the stream, the others their attributes
    slow = [gpucomp.as_array(o) for o in objs]
    for f, s in zip(fast, slow):
        assert f.__cuda_array_interface__ == s.__cuda_array_interface__
        assert (f.shape, f.strides, f.dtype) == (s.shape, s.strides, s.dtype)


@_no_driver
def test_a_cupy_subclass_goes_through_its_interface():
    nd = _cupy_like()
    sub = type("ndarray", (nd,), {"__module__": "cupy.sub"})
    gpucomp.as_arrays([nd(0x10000, (4,), np.uint8), sub(0x20000, (4,), np.uint8), sub(0x30000, (4,), np.uint8)])
    assert nd.interfaces == [3]
