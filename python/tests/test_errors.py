"""Bad input raises Python exceptions naming the array, chunk and nvCOMP status; never a crash."""
import numpy as np
import pytest

import gpucomp
from conftest import KINDS, TYPES, sample


def test_exception_hierarchy():
    assert issubclass(gpucomp.GpucompError, RuntimeError)
    for cls in (gpucomp.DecodeError, gpucomp.EncodeError, gpucomp.CudaError):
        assert issubclass(cls, gpucomp.GpucompError)


def test_unknown_and_bad_options():
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such'"):
        gpucomp.Codec(algorithm="LZ4", no_such=1)
    with pytest.raises(TypeError, match="algorithm_type"):
        gpucomp.Codec(algorithm="LZ4", algorithm_type=1)
    with pytest.raises(ValueError, match="unknown algorithm"):
        gpucomp.Codec(algorithm="Brotli")
    with pytest.raises(ValueError, match="does not implement"):
        gpucomp.Codec(algorithm="GDeflate")
    with pytest.raises(ValueError):
        gpucomp.Codec(algorithm="ANS", data_type="<i4")
    with pytest.raises(ValueError):
        gpucomp.Codec(algorithm="LZ4", data_type="<f8")
    with pytest.raises(ValueError):
        gpucomp.Codec(algorithm="ANS", max_sub_chunk_count=5)
    with pytest.raises(ValueError):
        gpucomp.Codec(algorithm="Bitcomp", algorithm_type=7)
    with pytest.raises(ValueError):
        gpucomp.Codec(algorithm="Cascaded", use_bp=False)
    with pytest.raises(ValueError, match="chunk size"):
        gpucomp.Codec(algorithm="LZ4", data_type="<u4", uncomp_chunk_size=6)
    with pytest.raises(ValueError):
        gpucomp.Codec(algorithm="LZ4", bitstream_kind="ZIP")
    with pytest.raises(ValueError):
        gpucomp.Codec(algorithm="LZ4", checksum_policy=9)
    with pytest.raises(TypeError):
        gpucomp.Codec(data_type="<u4")
    with pytest.raises(ValueError, match="device"):
        gpucomp.Codec(algorithm="LZ4", device="tpu")


def test_wrong_input_length_for_the_type():
    codec = gpucomp.Codec(algorithm="Cascaded", data_type="<u4", device="cpu")
    with pytest.raises(ValueError, match="4-byte elements"):
        codec.encode(b"12345")


def test_encode_needs_an_algorithm():
    with pytest.raises(ValueError, match="no algorithm"):
        gpucomp.Codec(device="cpu").encode(b"abc")


def test_raw_stream_needs_the_algorithm():
    raw = gpucomp.Codec(algorithm="LZ4", device="cpu", bitstream_kind="RAW").encode(b"hello" * 100)
    with pytest.raises(ValueError, match="needs the codec's algorithm"):
        gpucomp.Codec(device="cpu").decode(raw)


def test_max_decompressed_size_refuses_larger_claims():
    data = np.arange(10_000, dtype=np.uint32)
    stream = gpucomp.Codec(algorithm="Cascaded", device="cpu").encode(data)
    capped = gpucomp.Codec(device="cpu", max_decompressed_size=data.nbytes - 1)
    assert capped.max_decompressed_size == data.nbytes - 1
    with pytest.raises(ValueError, match=str(data.nbytes - 1)):
        capped.decode(stream)
    with pytest.raises(ValueError):
        capped.decoded_size(stream)
    roomy = gpucomp.Codec(device="cpu", max_decompressed_size=data.nbytes)
    assert np.array_equal(np.asarray(roomy.decode(stream, data_type="<u4")), data)
    assert gpucomp.Codec(device="cpu").max_decompressed_size is None


def test_decode_data_type_must_divide():
    codec = gpucomp.Codec(algorithm="LZ4", device="cpu")
    with pytest.raises(ValueError, match="whole number"):
        codec.decode(codec.encode(b"abcde"), data_type="<i4")


@pytest.mark.parametrize("algorithm", list(TYPES))
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_corrupt_streams_raise_decode_errors(algorithm, kind):
    typestr = TYPES[algorithm][0]
    codec = gpucomp.Codec(algorithm=algorithm, data_type=typestr, device="cpu", bitstream_kind=kind)
    enc = bytearray(bytes(codec.encode(sample(typestr, 30_000))))
    rng = np.random.default_rng(7)
    hostile = [bytes(enc[: len(enc) // 2]), bytes(enc[:3]), b"", rng.bytes(len(enc))]
    for n in range(20):
        bad = bytearray(enc)
        for i in rng.integers(0, len(bad), 1 + n):
            bad[i] ^= int(rng.integers(1, 256))
        hostile.append(bytes(bad))
    raised = 0
    for h in hostile:
        try:
            out = codec.decode(h)
        except gpucomp.DecodeError as e:
            raised += 1
            assert e.status is None or e.status.startswith("nvcomp")
            assert e.index is None
        except ValueError:
            raised += 1
        else:
            assert isinstance(out, gpucomp.Array)  # a flip that still decodes is no crash
    assert raised >= 2


def test_error_names_the_array_and_chunk():
    codec = gpucomp.Codec(algorithm="LZ4", device="cpu", uncomp_chunk_size=4096)
    good = bytes(codec.encode(sample("|u1", 40_000)))
    bad = bytearray(good)
    # Overwrite the last chunk's tail: its LZ4 sequences then run past the chunk's end.
    for i in range(len(bad) - 200, len(bad)):
        bad[i] = 0xFF
    with pytest.raises(gpucomp.DecodeError) as e:
        codec.decode([good, bytes(bad)])
    assert e.value.index == 1
    assert e.value.chunk is not None and e.value.chunk >= 0
    assert e.value.status == "nvcompErrorCannotDecompress"
    assert "array 1" in str(e.value)


def test_bad_checksum_names_its_chunk():
    codec = gpucomp.Codec(algorithm="LZ4", device="cpu", checksum_policy="COMPUTE_AND_VERIFY",
                          uncomp_chunk_size=4096)
    x = sample("|u1", 40_000)
    enc = bytearray(bytes(codec.encode(x)))
    enc[-8] ^= 0x01
    with pytest.raises(gpucomp.DecodeError) as e:
        codec.decode(bytes(enc))
    assert e.value.status in ("nvcompErrorBadChecksum", "nvcompErrorCannotDecompress")


@pytest.mark.skipif(gpucomp.cuda_available(), reason="a fake device address only passes where no CUDA driver checks it")
def test_device_array_on_a_cpu_codec_is_a_type_error():
    class FakeDevice:
        __cuda_array_interface__ = {"shape": (16,), "typestr": "|u1", "data": (1 << 40, False), "version": 3,
                                    "strides": None, "stream": 1}

    codec = gpucomp.Codec(algorithm="LZ4", device="cpu")
    with pytest.raises(TypeError, match="expected host memory"):
        codec.encode(FakeDevice())
    a = gpucomp.as_array(FakeDevice())
    assert a.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_DEVICE
    assert not hasattr(a, "__array_interface__")
    with pytest.raises(TypeError, match="expected host memory"):
        bytes(a)
