"""Codec on host data through the CPU codecs: every algorithm, type, bitstream kind and option."""
import numpy as np
import pytest

import gpucomp
from conftest import KINDS, TYPES, sample


@pytest.mark.parametrize("algorithm,typestr", [(a, t) for a, ts in TYPES.items() for t in ts])
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_round_trip_every_algorithm_type_and_kind(cpu_codec, algorithm, typestr, kind):
    x = sample(typestr)
    codec = cpu_codec(algorithm, data_type=typestr, bitstream_kind=kind)
    enc = codec.encode(x)
    assert enc.dtype == np.uint8 and enc.ndim == 1 and enc.buffer_kind == gpucomp.ArrayBufferKind.STRIDED_HOST
    dec = codec.decode(enc, data_type=typestr)
    assert dec.dtype == np.dtype(typestr)
    np.testing.assert_array_equal(np.asarray(dec), x)
    assert codec.decoded_size(enc) == x.nbytes
    assert len(bytes(enc)) <= codec.max_encoded_size(x.nbytes)


@pytest.mark.parametrize("algorithm", list(TYPES))
def test_native_stream_decodes_with_a_codec_without_algorithm(cpu_codec, algorithm):
    typestr = TYPES[algorithm][-1]
    x = sample(typestr)
    enc = cpu_codec(algorithm, data_type=typestr).encode(x)
    # NVCOMP_NATIVE streams name their algorithm and type: the decoded array gets the type.
    dec = gpucomp.Codec(device="cpu").decode(enc)
    assert dec.dtype == np.dtype(typestr)
    np.testing.assert_array_equal(np.asarray(dec), x)


def test_host_input_kinds_give_the_same_stream(cpu_codec):
    data = bytes(sample("|u1", 50_000))
    codec = cpu_codec("LZ4")
    want = bytes(codec.encode(np.frombuffer(data, np.uint8)))
    for obj in (data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8).reshape(500, 100)):
        assert bytes(codec.encode(obj)) == want
    assert bytes(codec.decode(want)) == data
    assert bytes(codec.decode(memoryview(want))) == data


def test_lists_in_lists_out(cpu_codec):
    codec = cpu_codec("ANS")
    xs = [sample("|u1", n, seed=n) for n in (0, 1, 1000, 65536, 200_000)]
    encs = codec.encode(xs)
    assert isinstance(encs, list) and len(encs) == len(xs)
    decs = codec.decode(encs)
    for x, d in zip(xs, decs):
        assert bytes(d) == x.tobytes()
    assert codec.decoded_size(encs) == [x.nbytes for x in xs]
    assert codec.decode(tuple(encs))[2].size == 1000


def test_empty_input(cpu_codec):
    codec = cpu_codec("LZ4")
    enc = codec.encode(b"")
    assert bytes(codec.decode(enc)) == b""


@pytest.mark.parametrize(
    "algorithm,typestr,options",
    [
        ("LZ4", "<u2", {"bitshuffle_mode": "NVCOMP_BITSHUFFLE_MSB_FIRST", "data_type": "<u2"}),
        ("LZ4", "<u4", {"bitshuffle_mode": 2, "data_type": "u4"}),
        ("ANS", "|u1", {"states_per_lane": 1}),
        ("ANS", "|u1", {"max_sub_chunk_count": 64, "histogram_reduction_log2": 2}),
        ("ANS", "<f2", {"data_type": "f2", "max_sub_chunk_count": 4}),
        ("Bitcomp", "<i4", {"algorithm_type": 1, "data_type": "<i4"}),
        ("Cascaded", "<i4", {"compression_level": 1, "data_type": "<i4"}),
        ("Cascaded", "<i8", {"num_RLEs": 1, "num_deltas": 0, "use_bp": True, "data_type": np.int64}),
        ("Cascaded", "<i2", {"mode": "ASYMMETRIC", "data_type": "int16"}),
    ],
)
def test_options(cpu_codec, algorithm, typestr, options):
    x = sample(typestr, 30_000)
    codec = cpu_codec(algorithm, **options)
    for kind in KINDS:
        enc = cpu_codec(algorithm, bitstream_kind=kind, **options).encode(x)
        assert bytes(codec.decode(enc)) == x.tobytes()


def test_options_reach_the_stream(cpu_codec):
    x = sample("<i4", 40_000)
    sizes = {level: len(bytes(cpu_codec("Cascaded", data_type="<i4", compression_level=level).encode(x)))
             for level in (0, 1, 2, 3)}
    assert len(set(sizes.values())) > 1, sizes


def test_chunk_size(cpu_codec):
    x = sample("|u1", 100_000)
    small = cpu_codec("LZ4", uncomp_chunk_size=4096)
    big = cpu_codec("LZ4", uncomp_chunk_size=1 << 20)
    assert small.uncomp_chunk_size == 4096
    a, b = bytes(small.encode(x)), bytes(big.encode(x))
    assert a != b
    assert bytes(big.decode(a)) == bytes(small.decode(b)) == x.tobytes()


@pytest.mark.parametrize("policy", ["COMPUTE_AND_VERIFY", gpucomp.ChecksumPolicy.COMPUTE_AND_NO_VERIFY, 3])
def test_checksums_written_and_verified(cpu_codec, policy):
    x = sample("|u1", 100_000)
    with_sums = cpu_codec("LZ4", checksum_policy=policy)
    plain = cpu_codec("LZ4")
    enc = bytes(with_sums.encode(x))
    assert len(enc) > len(bytes(plain.encode(x)))
    assert bytes(with_sums.decode(enc)) == x.tobytes()


def test_compute_and_verify_refuses_a_stream_without_checksums(cpu_codec):
    enc = cpu_codec("LZ4").encode(sample("|u1"))
    with pytest.raises(gpucomp.DecodeError) as e:
        cpu_codec("LZ4", checksum_policy="COMPUTE_AND_VERIFY").decode(enc)
    assert e.value.status == "nvcompErrorCannotVerifyChecksums"
    # IF_PRESENT accepts it.
    cpu_codec("LZ4", checksum_policy="NO_COMPUTE_AND_VERIFY_IF_PRESENT").decode(enc)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_out_on_encode_and_decode(cpu_codec, kind):
    x = sample("<u4", 50_000)
    codec = cpu_codec("Bitcomp", data_type="<u4", bitstream_kind=kind)
    buf = np.zeros(codec.max_encoded_size(x.nbytes), np.uint8)
    enc = codec.encode(x, out=buf)
    assert enc.__array_interface__["data"][0] == buf.__array_interface__["data"][0]
    assert bytes(enc) == bytes(codec.encode(x))
    dst = np.zeros_like(x)
    dec = codec.decode(enc, out=dst)
    np.testing.assert_array_equal(dst, x)
    assert dec.__array_interface__["data"][0] == dst.__array_interface__["data"][0]
    # Lists with lists of outputs.
    dsts = [np.zeros_like(x), np.zeros_like(x)]
    codec.decode([enc, enc], out=dsts)
    np.testing.assert_array_equal(dsts[1], x)


def test_out_errors(cpu_codec):
    x = sample("|u1", 10_000)
    codec = cpu_codec("LZ4")
    with pytest.raises(ValueError, match="bytes are needed"):
        codec.encode(x, out=np.zeros(10, np.uint8))
    with pytest.raises(ValueError, match="read-only"):
        codec.decode(codec.encode(x), out=bytes(10_000))
    with pytest.raises(ValueError, match="to match the input"):
        codec.decode([codec.encode(x)], out=np.zeros(10_000, np.uint8))


def test_codec_properties():
    c = gpucomp.Codec(algorithm="cascaded", data_type="<i8", device="cpu", uncomp_chunk_size=8192,
                      bitstream_kind="RAW")
    assert c.algorithm == "Cascaded"
    assert c.data_type == "<i8"
    assert c.uncomp_chunk_size == 8192
    assert c.bitstream_kind == gpucomp.BitstreamKind.RAW
    assert c.checksum_policy == gpucomp.ChecksumPolicy.NO_COMPUTE_NO_VERIFY
    assert c.device == "cpu"
    assert "Cascaded" in repr(c)


def test_without_gpu_the_default_codec_runs_on_the_cpu():
    c = gpucomp.Codec(algorithm="LZ4")
    assert c.device == ("cuda:0" if gpucomp.cuda_available() else "cpu")
    if not gpucomp.cuda_available():
        with pytest.raises(gpucomp.CudaError):
            gpucomp.Codec(algorithm="LZ4", device="cuda")


def test_gil_released_two_threads_two_codecs():
    import threading

    x = sample("|u1", 2_000_000)
    results = {}

    def work(name, algorithm):
        c = gpucomp.Codec(algorithm=algorithm, device="cpu")
        results[name] = bytes(c.decode(c.encode(x))) == x.tobytes()

    threads = [threading.Thread(target=work, args=(n, a)) for n, a in (("a", "LZ4"), ("b", "ANS"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"a": True, "b": True}
