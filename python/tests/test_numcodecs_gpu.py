"""numcodecs codecs on device arrays (CuPy): device in, device out, same streams as the CPU codecs
decode. Skipped without CuPy or a CUDA device."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numcodecs")
cp = pytest.importorskip("cupy", reason="CuPy missing: the numcodecs GPU tests use CuPy arrays")

import gpucomp
from gpucomp.numcodecs import ANS, LZ4, Bitcomp, Cascaded

pytestmark = pytest.mark.skipif(not gpucomp.cuda_available(), reason="no CUDA device (or driver)")

CODECS = [LZ4, ANS, Cascaded, Bitcomp]


def sample(n: int) -> np.ndarray:
    rng = np.random.default_rng(2)
    return ((np.arange(n) // 5) % 300 + rng.integers(0, 3, n)).astype("int32")


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_id)
def test_device_round_trip_and_cpu_interchange(codec_cls):
    data = sample(100_000)
    codec = codec_cls(uncomp_chunk_size=16384)
    encoded = codec.encode(cp.asarray(data))
    assert hasattr(encoded, "__cuda_array_interface__")
    decoded = codec.decode(encoded)
    assert hasattr(decoded, "__cuda_array_interface__")
    cp.testing.assert_array_equal(cp.asarray(decoded).view(cp.int32), cp.asarray(data))
    # The device stream decodes on the host, and a host stream on the device.
    host_encoded = np.asarray(cp.asnumpy(cp.asarray(encoded)))
    np.testing.assert_array_equal(codec.decode(host_encoded).view("int32"), data)
    on_device = codec.decode(cp.asarray(np.asarray(codec.encode(data))))
    cp.testing.assert_array_equal(cp.asarray(on_device).view(cp.int32), cp.asarray(data))


@pytest.mark.parametrize("codec_cls", CODECS, ids=lambda c: c.codec_id)
def test_device_decode_into_out(codec_cls):
    data = cp.asarray(sample(50_000))
    codec = codec_cls()
    out = cp.zeros_like(data)
    assert codec.decode(codec.encode(data), out=out) is out
    cp.testing.assert_array_equal(out, data)


def test_gpucomp_device_arrays_stay_on_the_device():
    data = sample(20_000)
    device_array = gpucomp.as_array(data).cuda()
    codec = LZ4()
    encoded = codec.encode(device_array)
    assert encoded.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE
    decoded = codec.decode(encoded)
    assert decoded.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE
    np.testing.assert_array_equal(np.asarray(decoded.cpu()).view("int32"), data)


@pytest.mark.parametrize("checksum", [False, True])
def test_zstd_decodes_on_the_device_and_encodes_through_the_host(checksum):
    from numcodecs.zstd import Zstd as StockZstd

    from gpucomp.numcodecs import Zstd

    data = sample(100_000)
    codec = Zstd(level=5, checksum=checksum)
    encoded = codec.encode(cp.asarray(data))
    assert encoded.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE
    assert bytes(encoded.cpu()) == bytes(codec.encode(data))  # the host path's frame
    decoded = codec.decode(encoded)
    assert hasattr(decoded, "__cuda_array_interface__")
    cp.testing.assert_array_equal(cp.asarray(decoded).view(cp.int32), cp.asarray(data))
    # numcodecs' own frames decode on the device, into out= too.
    stock = cp.asarray(np.frombuffer(StockZstd(level=5, checksum=checksum).encode(data), np.uint8))
    out = cp.zeros(data.size, cp.int32)
    assert codec.decode(stock, out=out) is out
    cp.testing.assert_array_equal(out, cp.asarray(data))
