"""GPU arrays: CuPy, PyTorch and JAX memory through the CUDA array interface and DLPack, copies
to and from the host, GPU codecs on host and device data. Skipped without a GPU."""
import numpy as np
import pytest

import gpucomp
from conftest import KINDS, TYPES, sample

pytestmark = pytest.mark.skipif(not gpucomp.cuda_available(), reason="needs a CUDA device (gpucomp.cuda_available() is False)")


def cupy():
    return pytest.importorskip("cupy", reason="needs CuPy")


def torch():
    t = pytest.importorskip("torch", reason="needs PyTorch")
    if not t.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return t


def test_cupy_array_zero_copy_and_back():
    cp = cupy()
    x = cp.arange(10_000, dtype=cp.int32)
    a = gpucomp.as_array(x)
    assert a.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE
    assert a.device_id == x.device.id
    assert a.__cuda_array_interface__["data"][0] == x.data.ptr
    assert not hasattr(a, "__array_interface__")
    np.testing.assert_array_equal(np.asarray(a.cpu()), cp.asnumpy(x))
    y = cp.asarray(a)  # through __cuda_array_interface__
    assert y.data.ptr == x.data.ptr
    z = cp.from_dlpack(a)
    assert z.data.ptr == x.data.ptr


def test_host_to_device_and_back():
    x = np.arange(5000, dtype=np.float32)
    d = gpucomp.as_array(x).cuda()
    assert d.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE and d.device_id == 0
    assert d.cuda() is d
    np.testing.assert_array_equal(np.asarray(d.cpu()), x)
    assert d.__dlpack_device__() == (2, 0)
    h = np.from_dlpack(d, dl_device=(1, 0), copy=True)
    np.testing.assert_array_equal(h, x)


def test_torch_through_dlpack_and_cai():
    t = torch()
    x = t.arange(4096, dtype=t.int16, device="cuda")
    a = gpucomp.from_dlpack(x)
    assert a.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE and a.dtype == np.int16
    assert a.__cuda_array_interface__["data"][0] == x.data_ptr()
    np.testing.assert_array_equal(np.asarray(a.cpu()), x.cpu().numpy())
    b = gpucomp.as_array(x)  # __cuda_array_interface__
    assert b.__cuda_array_interface__["data"][0] == x.data_ptr()
    back = t.from_dlpack(a)
    assert back.data_ptr() == x.data_ptr()
    cpu = gpucomp.from_dlpack(t.arange(10))  # a CPU tensor: DLPack only
    np.testing.assert_array_equal(np.asarray(cpu), np.arange(10))


@pytest.mark.parametrize("algorithm", list(TYPES))
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_gpu_codec_writes_the_cpu_codecs_bytes(algorithm, kind):
    typestr = TYPES[algorithm][-1]
    x = sample(typestr, 300_000)
    gpu = gpucomp.Codec(algorithm=algorithm, data_type=typestr, bitstream_kind=kind)
    cpu = gpucomp.Codec(algorithm=algorithm, data_type=typestr, bitstream_kind=kind, device="cpu")
    assert gpu.device == "cuda:0"
    enc = gpu.encode(x)
    assert bytes(enc.cpu()) == bytes(cpu.encode(x))
    np.testing.assert_array_equal(np.asarray(gpu.decode(enc, data_type=typestr).cpu()), x)
