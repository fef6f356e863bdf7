"""nvidia.nvcomp reads every stream gpucomp's Python API writes, and gpucomp reads nvidia.nvcomp's:
five algorithms (Zstd without gpucomp's level option: nvCOMP has none), three bitstream kinds,
bytes and typed data, on device arrays (CuPy).

Runs where a GPU, CuPy and nvidia.nvcomp (nvidia-nvcomp-cu13 6.0.0.12) are importable (the GPU
bundle's Python run); skipped with the reason elsewhere.
"""
import pathlib

import numpy as np
import pytest

import gpucomp

cp = pytest.importorskip("cupy", reason="CuPy is not installed")
nvcomp = pytest.importorskip("nvidia.nvcomp", reason="nvidia.nvcomp (nvidia-nvcomp-cu13) is not installed")
if not gpucomp.cuda_available():
    pytest.skip("no CUDA device", allow_module_level=True)

GOLDEN = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "golden" / "inputs"
KINDS = ["NVCOMP_NATIVE", "RAW", "WITH_UNCOMPRESSED_SIZE"]
# (algorithm, options, input file, numpy type of its elements): real-shaped data of every kind the
# algorithms are built for; RAW streams are one chunk, so inputs stay under every algorithm's limit.
CASES = [
    ("LZ4", {}, "text.tbl", "|u1"),
    ("LZ4", {"data_type": "<i4"}, "shipdate.i32", "<i4"),
    ("Cascaded", {"data_type": "<i4"}, "shipdate.i32", "<i4"),
    ("Cascaded", {"data_type": "<i8", "compression_level": 7}, "orderkey.i64", "<i8"),
    ("Cascaded", {"data_type": "<u2"}, "runs.u16", "<u2"),
    ("ANS", {}, "text.tbl", "|u1"),
    ("ANS", {"data_type": "<f2"}, "f16n70000.f16", "<f2"),
    ("ANS", {"data_type": "<f4"}, "f32walk.f32", "<f4"),
    ("Bitcomp", {"data_type": "<i8"}, "walk.i64", "<i8"),
    ("Bitcomp", {"data_type": "<i4", "algorithm_type": 1}, "walk.i32", "<i4"),
    ("Bitcomp", {"data_type": "|u1"}, "text.tbl", "|u1"),
    ("Zstd", {}, "text.tbl", "|u1"),
    ("Zstd", {}, "orderkey.i64", "|u1"),
    ("Zstd", {}, "f32walk.f32", "|u1"),
]


def device_input(name, typestr):
    data = np.fromfile(GOLDEN / name, dtype=np.uint8)
    width = np.dtype(typestr).itemsize
    return cp.asarray(data[: data.size // width * width].view(typestr))


def as_bytes(array):
    """The bytes of an Array of either library, on the host."""
    return cp.asnumpy(cp.asarray(array).view(cp.uint8).ravel()).tobytes()


def kind(lib, name):
    return getattr(lib.BitstreamKind, name)


@pytest.mark.parametrize("bitstream", KINDS)
@pytest.mark.parametrize("algorithm,options,name,typestr", CASES, ids=lambda v: str(v))
def test_nvcomp_decodes_ours(algorithm, options, name, typestr, bitstream):
    x = device_input(name, typestr)
    ours = gpucomp.Codec(algorithm=algorithm, bitstream_kind=kind(gpucomp, bitstream), **options)
    theirs = nvcomp.Codec(algorithm=algorithm, bitstream_kind=kind(nvcomp, bitstream), **options)
    stream = ours.encode(gpucomp.as_array(x))
    decoded = theirs.decode(nvcomp.as_array(cp.asarray(stream)))
    assert as_bytes(decoded) == as_bytes(x)


@pytest.mark.parametrize("bitstream", KINDS)
@pytest.mark.parametrize("algorithm,options,name,typestr", CASES, ids=lambda v: str(v))
def test_we_decode_nvcomp(algorithm, options, name, typestr, bitstream):
    x = device_input(name, typestr)
    ours = gpucomp.Codec(algorithm=algorithm, bitstream_kind=kind(gpucomp, bitstream), **options)
    theirs = nvcomp.Codec(algorithm=algorithm, bitstream_kind=kind(nvcomp, bitstream), **options)
    stream = theirs.encode(nvcomp.as_array(x))
    decoded = ours.decode(gpucomp.as_array(cp.asarray(stream)))
    assert as_bytes(decoded) == as_bytes(x)
