"""What the CuPy kernel benches of this folder share: CUDA-event timing the way the anchors time
nvCOMP, the anchor files, PTX launch bounds and NVCOMP_NATIVE chunk tables. Imported by the
scripts next to it (Python puts a script's folder on its path)."""
import os
import re

import cupy as cp
import numpy as np

# Dynamic shared memory of `bitcomp_compress` (gpucomp_kernels::bitcomp::COMPRESS_SHARED_BYTES).
BITCOMP_COMPRESS_SHARED = 76576


def time_ms(f, reps=15):
    """Median milliseconds of `reps` calls of `f` after 2 warm-ups, timed with CUDA events."""
    for _ in range(2):
        f()
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b))
    return float(np.median(times))


def anchor_file(corpus, name):
    """The bytes of anchor file `name`: from `corpus` (written by `throughput corpus DIR 2 256`),
    except the two numpy files, generated as benches/nvcomp/anchors/README.md says."""
    rng = np.random.default_rng(7)
    weights = rng.normal(0, 0.02, 64 << 20).astype(np.float16)
    if name == "weights.f16":
        return weights.view(np.uint8)
    if name == "sensor.f32":
        return np.cumsum(rng.normal(0, 0.1, 16 << 20)).astype(np.float32).view(np.uint8)
    return np.fromfile(os.path.join(corpus, name), dtype=np.uint8)


def e4m3_values(n):
    """`n` values of default_rng(11).normal(0, 1) as FLOAT8 E4M3 bits: the nearest (the lower
    magnitude on a tie), saturating at 448."""
    codes = np.arange(0x7F)
    e, m = codes >> 3 & 15, (codes & 7) / 8
    mags = np.where(e == 0, m * 2.0**-6, (1 + m) * 2.0**(e - 7))
    x = np.random.default_rng(11).normal(0, 1, n)
    a = np.minimum(np.abs(x), 448.0)
    i = np.clip(np.searchsorted(mags, a), 1, mags.size - 1)
    c = np.where(a - mags[i - 1] <= mags[i] - a, i - 1, i).astype(np.uint8)
    return c | np.where(x < 0, 0x80, 0).astype(np.uint8)


def run_options(args):
    """`[--once NAME] [--reps K] DATA_DIR PTX [PTX ...]`, as the ANS benches take them: (NAME or
    None, K or 1, DATA_DIR, the PTX list)."""
    once, more = None, 1
    while args[0] in ("--once", "--reps"):
        if args[0] == "--once":
            once = args[1]
        else:
            more = int(args[1])
        args = args[2:]
    return once, more, args[0], args[1:]


def block_threads(ptx, entry):
    """The `.maxntid` the PTX declares for `entry` (its `blockDim.x`)."""
    text = open(ptx).read()
    m = re.search(r"\.entry\s+" + entry + r"\b.*?\.maxntid\s+(\d+)", text, re.S)
    return int(m.group(1))


def uses_dynamic_shared(ptx, entry):
    """Whether the PTX's `entry` reads the dynamic shared memory (`__dsmem_storage`)."""
    text = open(ptx).read()
    start = re.search(r"\.entry\s+" + entry + r"\b", text).start()
    end = text.find(".entry", start + 1)
    return "__dsmem_storage" in text[start:end if end > 0 else len(text)]


def native_chunks(stream):
    """(data region, chunk offsets in it, chunk sizes) of an NVCOMP_NATIVE ANS stream (a uint8
    array)."""
    n = int(stream[0x18:0x20].view(np.uint64)[0])
    data = int(stream[0x28:0x2C].view(np.uint32)[0])
    tables = stream[72:72 + 16 * n].view(np.uint64)  # ANS: 16-byte spec header, no checksums
    return stream[data:], tables[:n].copy(), tables[n:].copy()
