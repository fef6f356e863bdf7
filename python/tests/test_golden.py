"""nvCOMP 6.0.0.12's golden streams (tests/data/golden) decode through the Python API to their
inputs, with a codec made from the options nvCOMP wrote them with."""
import csv

import numpy as np
import pytest

import gpucomp
from conftest import GOLDEN

# nvCOMP's own defect: its chunk 1 lacks the input's last 3 bytes (tests/data/golden/README.md).
DEFECT = "streams/discount.u8.cascaded.native.checksum=COMPUTE_AND_NO_VERIFY.nvc"


def rows():
    with open(GOLDEN / "MANIFEST.csv", newline="") as f:
        return [r for r in csv.DictReader(f) if r["stream"] != DEFECT]


def options_of(row):
    kw = {}
    for item in filter(None, row["options"].split(";")):
        key, value = item.split("=", 1)
        kw[key] = int(value) if value.isdigit() else value
    return kw


ROWS = rows()


@pytest.mark.parametrize("row", ROWS, ids=[r["stream"].split("/")[-1] for r in ROWS])
def test_golden_stream_decodes(row):
    stream = (GOLDEN / row["stream"]).read_bytes()
    want = (GOLDEN / row["input"]).read_bytes()
    codec = gpucomp.Codec(algorithm=row["algorithm"], device="cpu", **options_of(row))
    assert codec.decoded_size(stream) == len(want)
    got = codec.decode(np.frombuffer(stream, np.uint8), data_type="|u1")
    assert bytes(got) == want


def test_golden_native_streams_need_no_options():
    native = [r for r in ROWS if r["bitstream_kind"] == "NVCOMP_NATIVE"][:40]
    codec = gpucomp.Codec(device="cpu")
    streams = [(GOLDEN / r["stream"]).read_bytes() for r in native]
    got = codec.decode(streams, data_type="|u1")
    assert [bytes(g) for g in got] == [(GOLDEN / r["input"]).read_bytes() for r in native]


def test_golden_count():
    assert len(ROWS) == 372
