"""Shared test helpers: the repository's test data, sample inputs per type, the CPU codec."""
import pathlib

import numpy as np
import pytest

import gpucomp

REPO = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "data" / "golden"

# Every algorithm with the data types nvCOMP lets it take (array-protocol type strings).
TYPES = {
    "LZ4": ["|u1", "|i1", "<u2", "<i2", "<u4", "<i4"],
    "ANS": ["|u1", "|i1", "<f2", "<f4"],
    "Bitcomp": ["|u1", "|i1", "<u2", "<i2", "<u4", "<i4", "<u8", "<i8", "<f2", "<f4", "<f8"],
    "Cascaded": ["|u1", "|i1", "<u2", "<i2", "<u4", "<i4", "<u8", "<i8"],
}
KINDS = [gpucomp.BitstreamKind.NVCOMP_NATIVE, gpucomp.BitstreamKind.RAW, gpucomp.BitstreamKind.WITH_UNCOMPRESSED_SIZE]


def sample(typestr, n=20_000, seed=1):
    """Compressible data of `typestr`: a slow walk with runs and noise."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(typestr)
    if dt.kind == "f":
        x = np.cumsum(rng.normal(0, 0.01, n)).astype(dt)
    else:
        walk = np.repeat(np.cumsum(rng.integers(-2, 3, n // 4 + 1)), 4)[:n]
        info = np.iinfo(dt)
        x = np.clip(walk + (info.max // 3 if dt.kind == "u" else 0), info.min, info.max).astype(dt)
    return x


def stored_files(root):
    """Every file under `root` (a zarr store's folder): relative path -> bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def write_and_read(a, data):
    """The zarr pipeline tests' scenario on `a` (300 x 370, chunks of 60 x 100) with `data` (250 x
    370): whole writes, a partial write, a write that empties a chunk, chunks never written; returns
    the reads."""
    a[:250] = data  # rows 250-299 never written: missing chunks, read as the fill value
    a[10:50, 120:370] = 7  # partial chunks: read, merged, written back
    a[60:120, 100:200] = 0  # one whole chunk back to the fill value: deleted
    return [
        a[...],
        a[5:207, 33:301],  # partial selection over many chunks
        a[123, 7:350:3],  # a dropped axis and a step
        a[299, :],  # only missing chunks
        a.get_orthogonal_selection(([1, 77, 240, 3], slice(None))),
    ]


@pytest.fixture
def cpu_codec():
    """A factory of CPU codecs: cpu_codec(algorithm, **options)."""

    def make(algorithm, **kw):
        return gpucomp.Codec(algorithm=algorithm, device="cpu", **kw)

    return make
