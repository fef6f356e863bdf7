"""The data shapes of the bench matrix (issue 23): common kinds of data beyond the anchors' TPC-H
columns, generated reproducibly (NumPy's PCG64 from fixed seeds), and the rows that fit each shape.

usage: python3 benches/shapes.py OUT_DIR [MIB=32]

Writes OUT_DIR/NAME.big (MIB MiB: a large batch) and OUT_DIR/NAME.small (its first MiB: a small
batch) for every shape, and OUT_DIR/rows.csv with the columns of benches/nvcomp/anchors
(algo,file,dtype,chunk): every algorithm and nvCOMP data type that fits the shape, at chunk sizes
of 16, 64 and 256 KiB, for both files. scripts/gpu/matrix.sh runs the rows with nvCOMP and gpucomp.

The text shapes are written line by line in Python, so 8 MiB of each is generated and repeated:
every chunk (at most 256 KiB) is compressed on its own, so no chunk sees the repetition.

Needs NumPy; the two 8-bit float shapes (FLOAT8 E4M3) need PyTorch for the rounding, and are left
out (with a message) without it.
"""
import csv
import os
import sys

import numpy as np

CHUNKS = (16 << 10, 64 << 10, 256 << 10)
SMALL = 1 << 20
TEXT_PERIOD = 8 << 20


def words(rng, n_bytes, dtype, make):
    """`make(count)` values of `dtype`, as many as fill n_bytes."""
    count = n_bytes // np.dtype(dtype).itemsize
    return np.ascontiguousarray(make(count).astype(dtype))


def zipf_ids(rng, count, a, bits):
    """Heavy-tailed IDs: Zipf ranks mapped through a fixed random permutation of the ID space."""
    ranks = rng.zipf(a, count).astype(np.uint64)
    salt = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        return (ranks * salt) >> np.uint64(64 - bits)


def repeated(make, n_bytes):
    """make(TEXT_PERIOD) (or fewer bytes) repeated to n_bytes."""
    block = make(min(n_bytes, TEXT_PERIOD))
    return (block * (n_bytes // len(block) + 1))[:n_bytes]


def text(rng, n_bytes, vocabulary=5000):
    """English-like prose: words drawn from a Zipf vocabulary of made-up words, with punctuation."""
    letters = np.frombuffer(b"etaoinshrdlcumwfgypbvkjxqz", dtype=np.uint8)
    weights = 1.0 / np.arange(1, len(letters) + 1)
    lengths = rng.integers(2, 10, vocabulary)
    vocab = [bytes(rng.choice(letters, n, p=weights / weights.sum())) for n in lengths]
    out, size = [], 0
    while size < n_bytes:
        ids = np.minimum(rng.zipf(1.2, 4096), vocabulary) - 1
        sentence = b" ".join(vocab[i] for i in ids)
        out.append(sentence.replace(b" e ", b". The ") + b".\n")
        size += len(out[-1])
    return b"".join(out)[:n_bytes]


def lines(n_bytes, line):
    """`line()` (bytes) called until n_bytes are written, cut to n_bytes."""
    out, size = [], 0
    while size < n_bytes:
        out.append(line())
        size += len(out[-1])
    return b"".join(out)[:n_bytes]


def logs(rng, n_bytes):
    """Web-server access logs (combined log format) from a small population of clients and pages."""
    clients = [f"10.{a}.{b}.{c}" for a, b, c in rng.integers(0, 256, (300, 3))]
    pages = [f"/{s}/{i}" for s in ("api/v1/items", "static/img", "user", "search", "cart") for i in range(40)]
    agents = ['"Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0"', '"curl/8.4.0"',
              '"Mozilla/5.0 (Macintosh) Safari/605.1.15"', '"python-requests/2.31"']
    clock = [1_700_000_000]

    def line():
        clock[0] += int(rng.integers(0, 3))
        return (f'{clients[min(int(rng.zipf(1.5)), 300) - 1]} - - [{clock[0]}] "GET {pages[int(rng.integers(0, 200))]} '
                f'HTTP/1.1" {rng.choice([200, 200, 200, 304, 404, 500])} {int(rng.integers(100, 60000))} '
                f'"-" {agents[int(rng.integers(0, 4))]}\n').encode()

    return lines(n_bytes, line)


def json_records(rng, n_bytes):
    """JSON lines: records with ids, timestamps, categories, floats and short strings."""
    cities = ["Berlin", "Lagos", "Lima", "Osaka", "Perth", "Quebec", "Seoul", "Tunis"]
    state = {"id": 0, "ts": 1_700_000_000_000}

    def line():
        state["id"] += 1
        state["ts"] += int(rng.integers(1, 5000))
        return (f'{{"id":{state["id"]},"ts":{state["ts"]},"user":"u{int(rng.zipf(1.3)) % 100000}",'
                f'"city":"{cities[int(rng.integers(0, 8))]}","amount":{rng.gamma(2.0, 30.0):.2f},'
                f'"ok":{"true" if rng.random() < 0.9 else "false"},"tags":["t{int(rng.integers(0, 20))}"]}}\n').encode()

    return lines(n_bytes, line)


def bfloat16(values):
    """float32 values rounded to bfloat16 (nearest even), as the 16-bit patterns."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def float8_e4m3(values):
    import torch  # noqa: PLC0415 (optional: only these shapes need it)

    return torch.from_numpy(values.astype(np.float32)).to(torch.float8_e4m3fn).view(torch.uint8).numpy()


def shapes(n):
    """NAME -> (function of a Generator writing n bytes, rows: (algo, dtype) pairs)."""
    ints = lambda dtype: [("lz4", "char"), ("cascaded", dtype), ("bitcomp", dtype), ("ans", "uchar")]
    return {
        # 95 % zeros, the rest small positive counts: sparse counters, one-hot features.
        "sparse.u32": (lambda r: words(r, n, np.uint32, lambda c: (r.random(c) < 0.05) * r.integers(1, 1000, c)),
                       ints("uint")),
        # Mostly-zero bytes with short bursts: masks, sparse images.
        "sparse.u8": (lambda r: words(r, n, np.uint8,
                                      lambda c: np.repeat(r.random(c // 16) < 0.08, 16) * r.integers(0, 256, c // 16 * 16)),
                      ints("uchar")),
        "zipf-ids.u32": (lambda r: words(r, n, np.uint32, lambda c: zipf_ids(r, c, 1.3, 32)), ints("uint")),
        "zipf-ids.u64": (lambda r: words(r, n, np.uint64, lambda c: zipf_ids(r, c, 1.3, 48)), ints("ulonglong")),
        # Event times in ns, increasing with exponential gaps.
        "timestamps.u64": (lambda r: words(r, n, np.uint64,
                                           lambda c: 1_700_000_000 * 10**9 + np.cumsum(r.exponential(2e5, c).astype(np.uint64))),
                           ints("ulonglong")),
        # Seconds, increasing by 0-2.
        "timestamps.u32": (lambda r: words(r, n, np.uint32, lambda c: 1_700_000_000 + np.cumsum(r.integers(0, 3, c))),
                           ints("uint")),
        # A dozen categories, skewed, as bytes and as 32-bit codes.
        "categories.u8": (lambda r: words(r, n, np.uint8, lambda c: np.minimum(r.zipf(1.8, c), 12)), ints("uchar")),
        "categories.i32": (lambda r: words(r, n, np.int32, lambda c: 100 + np.minimum(r.zipf(1.8, c), 12)), ints("int")),
        "walk.i16": (lambda r: words(r, n, np.int16, lambda c: np.cumsum(r.integers(-3, 4, c))), ints("short")),
        "series.u8": (lambda r: words(r, n, np.uint8,
                                      lambda c: 128 + 60 * np.sin(np.arange(c) / 500) + r.normal(0, 4, c)), ints("uchar")),
        # Temperatures: a smooth daily cycle plus sensor noise, float32 and float64.
        "measurements.f32": (lambda r: words(r, n, np.float32,
                                             lambda c: 15 + 8 * np.sin(np.arange(c) / 4000) + r.normal(0, 0.3, c)),
                             [("lz4", "char"), ("bitcomp", "uint"), ("ans", "uchar")]),
        "measurements.f64": (lambda r: words(r, n, np.float64,
                                             lambda c: np.round(100 + np.cumsum(r.normal(0, 0.05, c)), 2)),
                             [("lz4", "char"), ("bitcomp", "ulonglong"), ("ans", "uchar")]),
        "weights.bf16": (lambda r: words(r, n, np.uint16, lambda c: bfloat16(r.normal(0, 0.02, c))),
                         [("lz4", "char"), ("bitcomp", "ushort"), ("ans", "uchar")]),
        "weights.e4m3": (lambda r: words(r, n, np.uint8, lambda c: float8_e4m3(r.normal(0, 1, c))),
                         [("lz4", "char"), ("bitcomp", "uchar"), ("ans", "uchar"), ("ans", "float8")]),
        "random.bin": (lambda r: r.bytes(n), [("lz4", "char"), ("bitcomp", "uchar"), ("ans", "uchar")]),
        "prose.txt": (lambda r: repeated(lambda k: text(r, k), n), [("lz4", "char"), ("ans", "uchar")]),
        "access.log": (lambda r: repeated(lambda k: logs(r, k), n), [("lz4", "char"), ("ans", "uchar")]),
        "records.json": (lambda r: repeated(lambda k: json_records(r, k), n), [("lz4", "char"), ("ans", "uchar")]),
    }


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    n = (int(sys.argv[2]) if len(sys.argv) == 3 else 32) << 20
    os.makedirs(out, exist_ok=True)
    rows = []
    for seed, (name, (make, fits)) in enumerate(shapes(n).items()):
        try:
            data = make(np.random.default_rng(1000 + seed))
        except ImportError as e:
            print(f"{name}: skipped ({e})", flush=True)
            continue
        data = bytes(data) if isinstance(data, (bytes, bytearray)) else data.tobytes()
        assert len(data) == n, (name, len(data))
        for suffix, blob in (("big", data), ("small", data[:SMALL])):
            with open(os.path.join(out, f"{name}.{suffix}"), "wb") as f:
                f.write(blob)
            rows += [(algo, f"{name}.{suffix}", dtype, chunk) for algo, dtype in fits for chunk in CHUNKS]
        print(f"{name}: {n >> 20} MiB and 1 MiB, {len(fits)} algorithm rows", flush=True)
    with open(os.path.join(out, "rows.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(("algo", "file", "dtype", "chunk"))
        w.writerows(rows)
    print(f"{len(rows)} rows in {os.path.join(out, 'rows.csv')}")


if __name__ == "__main__":
    main()
