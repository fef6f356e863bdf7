"""Zstd on the CPU: ``Codec(algorithm="Zstd")`` (nvCOMP's Zstd streams decoded, the three kinds
written), and the plain frames of ``gpucomp.numcodecs.Zstd`` against numcodecs' own Zstd
(``test_zarr_zstd.py``: zarr's ``zstd`` codec)."""

from __future__ import annotations

import pathlib
import pickle
from importlib.metadata import entry_points

import numpy as np
import pytest

import gpucomp
from conftest import KINDS, sample
from gpucomp._gpucomp import zstd_compress_frames, zstd_version_number

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data"
INPUTS = DATA / "golden" / "inputs"
STREAMS = sorted((DATA / "zstd" / "streams").glob("*.nvc"))
FOREIGN = sorted((DATA / "zstd" / "foreign").glob("*.zst"))
# Levels at which libzstd 1.5.6 (numcodecs 0.16) and 1.5.7 (gpucomp) write the same bytes: 1.5.7
# changed the parameters of levels 2 and 3 (and so of level 0, libzstd's default, 3).
SAME_ACROSS_VERSIONS = [-100, -7, -1, 1, 5, 9, 19, 22]
LEVELS = [-5, 0, 1, 3, 9, 19]


def text(n: int = 300_000) -> bytes:
    return (INPUTS / "text.tbl").read_bytes()[:n]


def flip_payload_byte(frame: bytes) -> bytes:
    """The frame with a byte of its last block's payload flipped (a checksummed frame's last 4
    bytes are the checksum, which the flip must not touch)."""
    b = bytearray(frame)
    b[len(b) - 12] ^= 0x01
    return bytes(b)


# ---- Codec(algorithm="Zstd") ----


def golden_input(stream: pathlib.Path) -> bytes:
    return (INPUTS / stream.name.split(".zstd.")[0]).read_bytes()


def golden_policy(stream: pathlib.Path) -> str | None:
    tags = stream.name.split(".zstd.")[1].split(".")
    return next((t.split("=")[1] for t in tags if t.startswith("checksum_policy=")), None)


@pytest.mark.parametrize("stream", STREAMS, ids=lambda p: p.name)
def test_nvcomp_zstd_streams_decode(stream):
    want = golden_input(stream)
    policy = golden_policy(stream)
    kw = {"checksum_policy": "NO_COMPUTE_AND_VERIFY_IF_PRESENT"} if policy else {}
    codec = gpucomp.Codec(algorithm="Zstd", device="cpu", **kw)
    data = np.frombuffer(stream.read_bytes(), np.uint8)
    assert codec.decoded_size(data) == len(want)
    assert bytes(codec.decode(data)) == want
    if ".native" in stream.name:
        # NVCOMP_NATIVE streams name their algorithm: a codec without one reads them.
        assert bytes(gpucomp.Codec(device="cpu").decode(data)) == want


def test_golden_counts():
    assert (len(STREAMS), len(FOREIGN)) == (46, 13)


def foreign_expected(name: str) -> bytes:
    """What `zstd -d` gives for a frame of tests/data/zstd/foreign (as tests/zstd_golden.rs)."""
    special = {
        "two-frames.zst": (INPUTS / "text.tbl").read_bytes() + (INPUTS / "orderkey.i64").read_bytes(),
        "skippable-then-frame.zst": (INPUTS / "text.tbl").read_bytes(),
        "text4k.nosize.zst": (INPUTS / "text4k.txt").read_bytes(),
    }
    if name in special:
        return special[name]
    if name.startswith("text.tbl."):
        return (INPUTS / "text.tbl").read_bytes()
    return (INPUTS / name[: name.index(".l")]).read_bytes()


@pytest.mark.parametrize("frame", FOREIGN, ids=lambda p: p.name)
def test_zstd_tool_frames_decode_as_raw_streams(frame):
    codec = gpucomp.Codec(algorithm="Zstd", bitstream_kind="RAW", device="cpu")
    assert bytes(codec.decode(frame.read_bytes())) == foreign_expected(frame.name)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
@pytest.mark.parametrize("level", [-7, 1, 3, 19])
def test_round_trip_every_kind_and_level(kind, level):
    data = np.frombuffer(text(), np.uint8)
    codec = gpucomp.Codec(algorithm="Zstd", bitstream_kind=kind, level=level, device="cpu")
    stream = codec.encode(data)
    assert len(stream) <= codec.max_encoded_size(data.size)
    assert bytes(codec.decode(stream)) == data.tobytes()
    assert codec.decoded_size(stream) == data.size
    if kind == gpucomp.BitstreamKind.RAW:
        # A RAW Zstd stream is one standard frame: libzstd (numcodecs) reads it.
        numcodecs = pytest.importorskip("numcodecs")
        assert bytes(numcodecs.Zstd().decode(bytes(stream))) == data.tobytes()


def test_level_changes_the_stream_and_is_checked():
    data = text()
    sizes = [len(gpucomp.Codec(algorithm="Zstd", level=lv, device="cpu").encode(data)) for lv in (-7, 3, 19)]
    assert sizes[0] > sizes[1] > sizes[2]
    assert gpucomp.Codec(algorithm="zstd", device="cpu").algorithm == "Zstd"
    with pytest.raises(ValueError, match="level 23"):
        gpucomp.Codec(algorithm="Zstd", level=23)
    with pytest.raises(ValueError, match="level -8"):
        gpucomp.Codec(algorithm="Zstd", level=-8)
    with pytest.raises(TypeError, match="level: expected an int"):
        gpucomp.Codec(algorithm="Zstd", level="high")
    with pytest.raises(TypeError, match="unexpected keyword argument 'data_type'"):
        gpucomp.Codec(algorithm="Zstd", data_type="<i4")


def test_checksum_policies_on_zstd_streams():
    data = text(100_000)
    writer = gpucomp.Codec(algorithm="Zstd", checksum_policy="COMPUTE_AND_VERIFY", device="cpu")
    stream = writer.encode(data)
    assert bytes(writer.decode(stream)) == data
    corrupt = bytearray(bytes(stream))
    corrupt[-20] ^= 0x40
    with pytest.raises(gpucomp.DecodeError):
        writer.decode(bytes(corrupt))


def test_raw_chunk_too_large_is_refused():
    codec = gpucomp.Codec(algorithm="Zstd", bitstream_kind="RAW", device="cpu")
    with pytest.raises(ValueError, match="RAW stream is one chunk"):
        codec.encode(np.zeros((16 << 20) + 1, np.uint8))


def test_out_and_typed_decode():
    data = sample("<i4", 30_000)
    codec = gpucomp.Codec(algorithm="Zstd", device="cpu")
    out = np.empty(codec.max_encoded_size(data.nbytes), np.uint8)
    stream = codec.encode(data, out=out)
    decoded = np.empty_like(data)
    got = codec.decode(stream, data_type="<i4", out=decoded)
    np.testing.assert_array_equal(np.asarray(got), data)
    np.testing.assert_array_equal(decoded, data)


@pytest.mark.parametrize(
    "bad",
    [b"", b"\x28\xb5\x2f\xfd", b"\x28\xb5\x2f\xfd" + bytes(40), b"not a zstd frame at all"],
    ids=["empty", "magic-only", "zero-header", "no-magic"],
)
def test_hostile_raw_streams_raise(bad):
    codec = gpucomp.Codec(algorithm="Zstd", bitstream_kind="RAW", device="cpu")
    with pytest.raises((gpucomp.DecodeError, ValueError)):
        codec.decode(bad)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_corrupt_streams_raise_decode_errors(kind):
    codec = gpucomp.Codec(algorithm="Zstd", device="cpu", bitstream_kind=kind, uncomp_chunk_size=8192)
    enc = bytes(codec.encode(text(40_000)))
    rng = np.random.default_rng(11)
    hostile = [enc[: len(enc) // 2], enc[:3], rng.bytes(len(enc))]
    for n in range(30):
        bad = bytearray(enc)
        for i in rng.integers(0, len(bad), 1 + n):
            bad[i] ^= int(rng.integers(1, 256))
        hostile.append(bytes(bad))
    raised = 0
    for h in hostile:
        try:
            out = codec.decode([enc, h])
        except gpucomp.DecodeError as e:
            raised += 1
            assert e.index == 1 and (e.status is None or e.status.startswith("nvcomp"))
        except ValueError:
            raised += 1
        else:
            assert bytes(out[0]) == text(40_000)  # a flip that still decodes is no crash
    assert raised >= len(hostile) // 2


# ---- plain frames (numcodecs.Zstd's and zarr's form) ----


numcodecs = pytest.importorskip("numcodecs")
from numcodecs.zstd import Zstd as StockZstd  # noqa: E402

from gpucomp.numcodecs import Zstd  # noqa: E402


@pytest.mark.parametrize("checksum", [False, True])
@pytest.mark.parametrize("level", SAME_ACROSS_VERSIONS + [0, 2, 3])
def test_frames_are_numcodecs_bytes(level, checksum):
    # 2, 3 and 0 are the same bytes where numcodecs bundles gpucomp's libzstd version.
    data = text()
    ours = bytes(zstd_compress_frames([data], level, checksum)[0])
    theirs = bytes(StockZstd(level=level, checksum=checksum).encode(data))
    if level in SAME_ACROSS_VERSIONS or numcodecs.zstd.VERSION_NUMBER == zstd_version_number:
        assert ours == theirs
    assert bytes(StockZstd().decode(ours)) == data
    assert bytes(Zstd().decode(theirs)) == data


def test_frame_level_range():
    assert zstd_version_number >= 10500
    with pytest.raises(ValueError, match="levels are"):
        zstd_compress_frames([b"abc"], 23, False)
    # An empty input is a frame of content size 0 (which numcodecs 0.16's decoder refuses).
    empty = np.asarray(zstd_compress_frames([b""], 3, True)[0])
    assert bytes(empty)[:4] == b"\x28\xb5\x2f\xfd" and bytes(Zstd().decode(empty)) == b""


def test_numcodecs_entry_point_and_config():
    eps = {ep.name: ep.value for ep in entry_points(group="numcodecs.codecs")}
    assert eps["gpucomp_zstd"] == "gpucomp.numcodecs:Zstd"
    codec = Zstd(level=7, checksum=True)
    assert codec.get_config() == {"id": "gpucomp_zstd", "level": 7, "checksum": True}
    assert numcodecs.get_codec(codec.get_config()) == codec
    assert Zstd().get_config() == {
        "id": "gpucomp_zstd",
        **{k: v for k, v in StockZstd().get_config().items() if k != "id"},
    }
    assert repr(codec) == "Zstd(level=7, checksum=True)"
    codec.decode(codec.encode(b"used before pickling"))
    assert pickle.loads(pickle.dumps(codec)) == codec
    with pytest.raises(ValueError, match="level 23"):
        Zstd(level=23)
    with pytest.raises(TypeError):
        Zstd(checksum="yes")


@pytest.mark.parametrize("checksum", [False, True])
@pytest.mark.parametrize("level", LEVELS)
def test_numcodecs_round_trip_and_interchange(level, checksum):
    data = sample("<f4", 50_000)
    ours, stock = Zstd(level=level, checksum=checksum), StockZstd(level=level, checksum=checksum)
    enc = ours.encode(data)
    assert isinstance(enc, np.ndarray) and enc.dtype == np.uint8
    assert bytes(enc[4:5]) == bytes(stock.encode(data)[4:5])  # the same frame header descriptor
    assert bytes(ours.decode(enc)) == data.tobytes()
    assert bytes(stock.decode(enc)) == data.tobytes()
    assert bytes(ours.decode(stock.encode(data))) == data.tobytes()
    out = np.empty_like(data)
    assert ours.decode(enc, out=out) is out
    np.testing.assert_array_equal(out, data)


def test_numcodecs_checksum_is_verified():
    data = text(50_000)
    good = bytes(Zstd(checksum=True).encode(data))
    bad = flip_payload_byte(good)
    with pytest.raises(gpucomp.DecodeError):
        Zstd().decode(bad)
    # Without a checksum the same flip may decode to other bytes, never crash.
    try:
        Zstd().decode(flip_payload_byte(bytes(Zstd().encode(data))))
    except gpucomp.DecodeError:
        pass


def test_numcodecs_buffer_kinds_and_hostile():
    data = text(10_000)
    codec = Zstd()
    for buf in (data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8)):
        assert bytes(codec.decode(codec.encode(buf))) == data
    for bad in (b"", b"\x28\xb5\x2f\xfd\x00", bytes(100)):
        with pytest.raises((gpucomp.DecodeError, ValueError)):
            codec.decode(bad)
    with pytest.raises(ValueError):
        codec.encode(np.arange(100, dtype="i4")[::2])
