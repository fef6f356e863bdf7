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


def test_cupy_arrays_of_a_call_import_as_their_interfaces_say():
    # The first CuPy array of a call goes through its interface, the others through their
    # attributes: the same arrays either way.
    cp = cupy()
    arrays = [
        cp.arange(1000, dtype=cp.float32),
        cp.arange(64, dtype=cp.int16).reshape(8, 8),
        cp.arange(64, dtype=cp.int16).reshape(8, 8)[:, ::2],
        cp.empty(0, dtype=cp.uint8),
        cp.arange(3, dtype=cp.float64),
    ]
    together = gpucomp.as_arrays(arrays)
    for a, t in zip(arrays, together):
        alone = gpucomp.as_array(a)
        assert t.__cuda_array_interface__ == alone.__cuda_array_interface__
        assert (t.shape, t.strides, t.dtype, t.device_id) == (alone.shape, alone.strides, alone.dtype, alone.device_id)


def test_host_to_device_and_back():
    x = np.arange(5000, dtype=np.float32)
    d = gpucomp.as_array(x).cuda()
    assert d.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE and d.device_id == 0
    assert d.cuda() is d
    np.testing.assert_array_equal(np.asarray(d.cpu()), x)
    assert d.__dlpack_device__() == (2, 0)
    h = np.from_dlpack(d, device="cpu", copy=True)
    np.testing.assert_array_equal(h, x)


def test_torch_through_dlpack_and_cai():
    t = torch()
    x = t.arange(4096, dtype=t.int16, device="cuda")
    a = gpucomp.from_dlpack(x)
    assert a.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE and a.dtype == np.int16
    assert a.__cuda_array_interface__["data"][0] == x.data_ptr()
    np.testing.assert_array_equal(np.asarray(a.cpu()), x.cpu().numpy())
    b = gpucomp.as_array(x)  # CAI version 2 (no stream): read through DLPack, which orders streams
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


@pytest.mark.parametrize("algorithm", list(TYPES))
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_device_list_round_trip_equals_cpu_bytes(algorithm, kind):
    cp = cupy()
    typestr = TYPES[algorithm][-1]
    xs = [sample(typestr, n, seed=n) for n in (1, 1000, 65536 // np.dtype(typestr).itemsize, 300_000)]
    gpu = gpucomp.Codec(algorithm=algorithm, data_type=typestr, bitstream_kind=kind)
    cpu = gpucomp.Codec(algorithm=algorithm, data_type=typestr, bitstream_kind=kind, device="cpu")
    encs = gpu.encode([cp.asarray(x) for x in xs])
    assert all(e.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE for e in encs)
    assert [bytes(e.cpu()) for e in encs] == [bytes(cpu.encode(x)) for x in xs]
    decs = gpu.decode(encs, data_type=typestr)
    for x, d in zip(xs, decs):
        np.testing.assert_array_equal(cp.asnumpy(cp.asarray(d)), x)
    assert gpu.decoded_size(encs) == [x.nbytes for x in xs]


def test_device_out_is_written_in_place():
    cp = cupy()
    x = cp.asarray(sample("<u4", 100_000))
    codec = gpucomp.Codec(algorithm="Bitcomp", data_type="<u4")
    buf = cp.zeros(codec.max_encoded_size(x.nbytes), cp.uint8)
    enc = codec.encode(x, out=buf)
    assert enc.__cuda_array_interface__["data"][0] == buf.data.ptr
    dst = cp.zeros_like(x)
    dec = codec.decode(enc, out=dst)
    assert dec.__cuda_array_interface__["data"][0] == dst.data.ptr
    cp.testing.assert_array_equal(dst, x)
    with pytest.raises(ValueError):
        codec.encode(x, out=cp.zeros(10, cp.uint8))
    with pytest.raises(TypeError, match="device memory"):
        codec.decode(enc, out=np.zeros(x.nbytes, np.uint8))


def test_host_device_mix_is_a_type_error():
    cp = cupy()
    codec = gpucomp.Codec(algorithm="LZ4")
    with pytest.raises(TypeError, match="all arrays"):
        codec.encode([np.zeros(10, np.uint8), cp.zeros(10, cp.uint8)])
    with pytest.raises(TypeError, match="host memory"):
        gpucomp.Codec(algorithm="LZ4", device="cpu").encode(cp.zeros(10, cp.uint8))


def test_producer_stream_is_waited_on():
    cp = cupy()
    codec = gpucomp.Codec(algorithm="ANS")
    want = sample("|u1", 8 << 20)
    for _ in range(3):
        s = cp.cuda.Stream(non_blocking=True)
        with s:
            x = cp.asarray(want)
            x *= 1  # work queued on s, not synchronised
            a = gpucomp.as_array(x)
            assert a.__cuda_array_interface__ is not None
            enc = codec.encode(x)
        assert bytes(codec.decode(enc).cpu()) == want.tobytes()


def test_codec_on_a_caller_stream():
    cp = cupy()
    s = cp.cuda.Stream(non_blocking=True)
    codec = gpucomp.Codec(algorithm="LZ4", cuda_stream=s.ptr)
    assert codec.cuda_stream == s.ptr
    x = cp.asarray(sample("|u1", 1 << 20))
    d = codec.decode(codec.encode(x))
    s.synchronize()
    cp.testing.assert_array_equal(cp.asarray(d), x)
    # `d`'s memory is freed on `s`, given as an int: the caller keeps the stream alive until then.
    del d
    assert gpucomp.Codec(algorithm="LZ4", cuda_stream=s).cuda_stream == s.ptr


def test_a_stream_object_outlives_its_last_user():
    cp = cupy()
    codec = gpucomp.Codec(algorithm="LZ4", cuda_stream=cp.cuda.Stream(non_blocking=True))
    x = cp.asarray(sample("|u1", 1 << 16))
    encoded = codec.encode(x)
    del codec  # the stream object lives on in `encoded`, whose memory is freed on it
    assert gpucomp.Codec(algorithm="LZ4").decode(encoded).buffer_size == x.nbytes
    del encoded


def test_torch_tensors_in_and_out():
    t = torch()
    x = t.randint(0, 4, (1 << 20,), dtype=t.uint8, device="cuda")
    codec = gpucomp.Codec(algorithm="Cascaded", data_type="|u1")
    enc = codec.encode(x)
    y = t.from_dlpack(codec.decode(enc))
    assert t.equal(x, y)
    side = t.cuda.Stream()
    with t.cuda.stream(side):
        z = x * 1
        back = t.from_dlpack(codec.decode(codec.encode(z)))
    assert t.equal(back, x)


def test_corrupt_device_streams_name_array_chunk_and_status():
    cp = cupy()
    codec = gpucomp.Codec(algorithm="LZ4", uncomp_chunk_size=4096)
    good = codec.encode(cp.asarray(sample("|u1", 100_000)))
    bad = cp.array(cp.asarray(good))
    bad[-300:] = 0xFF
    with pytest.raises(gpucomp.DecodeError) as e:
        codec.decode([good, bad])
    assert e.value.index == 1
    assert e.value.status is not None and e.value.status.startswith("nvcomp")
    trunc = cp.asarray(good)[:40]
    with pytest.raises(gpucomp.GpucompError):
        codec.decode(trunc)
    for _ in range(10):
        garbage = cp.random.randint(0, 256, 5000, dtype=cp.uint8)
        try:
            codec.decode(garbage)
        except (gpucomp.GpucompError, ValueError):
            pass


def test_two_threads_two_codecs():
    import threading

    cp = cupy()
    want = sample("|u1", 16 << 20)
    ok = {}

    def work(name, algorithm):
        with cp.cuda.Device(0):
            x = cp.asarray(want)
            c = gpucomp.Codec(algorithm=algorithm)
            for _ in range(5):
                d = c.decode(c.encode(x))
            ok[name] = bytes(d.cpu()) == want.tobytes()

    threads = [threading.Thread(target=work, args=(n, a)) for n, a in (("a", "LZ4"), ("b", "ANS"))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert ok == {"a": True, "b": True}


def test_checksums_on_device_arrays_go_through_the_host():
    cp = cupy()
    x = cp.asarray(sample("|u1", 200_000))
    codec = gpucomp.Codec(algorithm="LZ4", checksum_policy="COMPUTE_AND_VERIFY")
    enc = codec.encode(x)
    assert enc.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE
    assert bytes(enc.cpu()) == bytes(gpucomp.Codec(algorithm="LZ4", device="cpu",
                                                   checksum_policy="COMPUTE_AND_VERIFY").encode(cp.asnumpy(x)))
    cp.testing.assert_array_equal(cp.asarray(codec.decode(enc)), x)


ZSTD_DATA = __import__("pathlib").Path(__file__).resolve().parents[2] / "tests" / "data"


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_zstd_decodes_on_the_gpu_and_encodes_through_the_host(kind):
    cp = cupy()
    xs = [sample("|u1", n, seed=n) for n in (1, 1000, 65536, 300_000)]
    xs.append(np.frombuffer((ZSTD_DATA / "golden" / "inputs" / "text.tbl").read_bytes(), np.uint8))
    gpu = gpucomp.Codec(algorithm="Zstd", bitstream_kind=kind, level=5)
    cpu = gpucomp.Codec(algorithm="Zstd", bitstream_kind=kind, level=5, device="cpu")
    assert gpu.device == "cuda:0"
    # Host input on a GPU codec: libzstd's bytes (the CPU codec's).
    assert bytes(gpu.encode(xs[3])) == bytes(cpu.encode(xs[3]))
    # Device inputs: compressed through a host copy, the streams on the device.
    encs = gpu.encode([cp.asarray(x) for x in xs])
    assert all(e.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE for e in encs)
    assert [bytes(e.cpu()) for e in encs] == [bytes(cpu.encode(x)) for x in xs]
    # Device streams: decoded on the GPU, one call.
    decs = gpu.decode(encs)
    assert all(d.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE for d in decs)
    for x, d in zip(xs, decs):
        np.testing.assert_array_equal(cp.asnumpy(cp.asarray(d)), x)
    assert gpu.decoded_size(encs) == [x.nbytes for x in xs]
    # out= on both.
    x = cp.asarray(xs[3])
    buf = cp.zeros(gpu.max_encoded_size(x.nbytes), cp.uint8)
    enc = gpu.encode(x, out=buf)
    assert enc.__cuda_array_interface__["data"][0] == buf.data.ptr
    dst = cp.zeros_like(x)
    gpu.decode(enc, out=dst)
    cp.testing.assert_array_equal(dst, x)


def test_zstd_nvcomp_streams_and_tool_frames_decode_on_the_gpu():
    cp = cupy()
    inputs = ZSTD_DATA / "golden" / "inputs"
    streams = sorted((ZSTD_DATA / "zstd" / "streams").glob("*.nvc"))
    plain = [s for s in streams if "checksum_policy" not in s.name]
    codec = gpucomp.Codec(algorithm="Zstd")
    got = codec.decode([cp.asarray(np.frombuffer(s.read_bytes(), np.uint8)) for s in plain])
    for s, g in zip(plain, got):
        assert cp.asnumpy(cp.asarray(g)).tobytes() == (inputs / s.name.split(".zstd.")[0]).read_bytes(), s.name
    # nvCOMP's checksums: verified (on the host, documented) with a verifying policy.
    verify = gpucomp.Codec(algorithm="Zstd", checksum_policy="NO_COMPUTE_AND_VERIFY_IF_PRESENT")
    for s in streams:
        if "checksum_policy" in s.name:
            g = verify.decode(cp.asarray(np.frombuffer(s.read_bytes(), np.uint8)))
            assert cp.asnumpy(cp.asarray(g)).tobytes() == (inputs / "text4k.txt").read_bytes()
    # Frames of the zstd tool (levels 1-19, --long, no content size, several frames) as RAW streams.
    raw = gpucomp.Codec(algorithm="Zstd", bitstream_kind="RAW")
    for f in sorted((ZSTD_DATA / "zstd" / "foreign").glob("*.zst")):
        if f.name.startswith("empty"):
            continue  # content size 0: the GPU's RAW size query cannot tell it from a failure
        want = bytes(gpucomp.Codec(algorithm="Zstd", bitstream_kind="RAW", device="cpu").decode(f.read_bytes()))
        g = raw.decode(cp.asarray(np.frombuffer(f.read_bytes(), np.uint8)))
        assert cp.asnumpy(cp.asarray(g)).tobytes() == want, f.name


def test_zstd_frame_checksums_are_verified_on_the_gpu():
    cp = cupy()
    from gpucomp._gpucomp import zstd_compress_frames

    data = np.frombuffer((ZSTD_DATA / "golden" / "inputs" / "text.tbl").read_bytes(), np.uint8)
    good = np.asarray(zstd_compress_frames([data], 3, True)[0])
    bad = good.copy()
    bad[-12] ^= 1  # in the last block, before the 4-byte checksum
    codec = gpucomp.Codec(algorithm="Zstd", bitstream_kind="RAW")
    np.testing.assert_array_equal(cp.asnumpy(cp.asarray(codec.decode(cp.asarray(good)))), data)
    with pytest.raises(gpucomp.DecodeError) as e:
        codec.decode([cp.asarray(good), cp.asarray(bad)])
    assert e.value.index == 1 and e.value.status == "nvcompErrorCannotDecompress"
