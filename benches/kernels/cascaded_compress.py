"""Standalone throughput of gpucomp's `cascaded_compress` kernel (CuPy, no Rust needed).

Usage: python3 cascaded_compress.py PTX [PTX ...] [--mib N] [--corpus DIR] [--only a,b] [--dump DIR]
(on a GPU machine with CuPy; e.g. `python3 benches/kernels/cascaded_compress.py
kernels/ptx/gpucomp_sm_90.ptx --dump /tmp/out`)

Loads the kernels from each PTX (a build of kernels/ with the nvptx target, e.g. kernels/ptx/
gpucomp_sm_90.ptx; several builds are timed side by side), makes synthetic columns shaped like
the TPC-H lineitem columns of the nvCOMP comparison (orderkey i64: sparse sorted keys repeated 1
to 7 times; extendedprice i64; partkey, quantity, shipdate i32; discount, linenumber u8) plus
random bytes (the raw fallback), N MiB each (default 256), or with --corpus the anchors' real
TPC-H files (`lineitem_<column>.<type>` in DIR, as `cargo bench --bench throughput -- corpus DIR`
writes them; nvCOMP's figures were measured on these, and their sizes matter: linenumber is 183
chunks, fewer than an H200 holds at once), optionally only the columns whose names start with
one of --only; cuts each into 64 KiB chunks and times one batched launch per column (level 3,
flags DELTA|RLE|FOR: nvCOMP's defaults; CUDA events, 2 warm-ups, median of 10; GB/s of
uncompressed bytes, 1e9), next to nvCOMP 6's figures on an H200. Each PTX is launched with its
own `.maxntid` threads per block.

Checks on every chunk: status 0, length at most 8 + 64 KiB, and a round trip through
`cascaded_decompress` (same PTX) to the input. With --dump, the first 3 chunks of every column
(input bytes, compressed bytes, data type) are saved in DIR/chunks.npz, for a byte comparison
with the CPU reference encoder.
"""
import os
import sys

import cupy as cp
import numpy as np
from kernel_bench import block_threads, time_ms

CHUNK = 64 << 10
DECOMPRESS_THREADS = 128  # gpucomp_kernels::cascaded::BLOCK_THREADS
# nvCOMP 6 on an H200, 64 KiB chunks, default options: ratio, compress GB/s (from the task).
NVCOMP = {
    "orderkey.i64": (27.6, 99.9),
    "extendedprice.i64": (2.63, 100.1),
    "partkey.i32": (1.67, 85.9),
    "quantity.i32": (5.22, 90.6),
    "shipdate.i32": (2.64, 85.7),
    "discount.u8": (1.984, 9.4),
    "linenumber.u8": (2.830, 9.0),
}


def columns(nbytes):
    rng = np.random.default_rng(42)
    rows = nbytes // 8 + 8
    per_order = rng.integers(1, 8, size=rows // 4 + 8)
    orders = np.arange(per_order.size, dtype=np.int64)
    okeys = (orders // 8) * 32 + orders % 8 + 1
    orderkey = np.repeat(okeys, per_order)[:rows]
    rows4 = nbytes // 4 + 8
    qty = rng.integers(1, 51, size=rows4, dtype=np.int32)
    price = rng.integers(90_000, 209_900, size=rows) * qty[:rows].astype(np.int64) // 100 * 100
    line = np.concatenate([np.arange(1, k + 1, dtype=np.uint8) for k in per_order[:400_000]])
    return [
        ("orderkey.i64", orderkey.astype(np.int64), 6),
        ("extendedprice.i64", price.astype(np.int64), 6),
        ("partkey.i32", rng.integers(1, 400_001, size=rows4, dtype=np.int32), 4),
        ("quantity.i32", qty, 4),
        ("shipdate.i32", rng.integers(8036, 10562, size=rows4, dtype=np.int32), 4),
        ("discount.u8", rng.integers(0, 11, size=nbytes, dtype=np.uint8), 1),
        ("linenumber.u8", np.resize(line, nbytes), 1),
        ("random.u32", rng.integers(0, 2**32, size=rows4, dtype=np.uint32), 5),
    ]


# nvCOMP data types of the anchors' files (longlong 6, int 4, uchar 1).
ANCHOR_TYPES = {"orderkey.i64": 6, "extendedprice.i64": 6, "partkey.i32": 4, "quantity.i32": 4,
                "shipdate.i32": 4, "discount.u8": 1, "linenumber.u8": 1}


def corpus(path):
    """The anchors' files `lineitem_<column>` found in `path`, as (name, bytes, data type)."""
    cols = []
    for name, code in ANCHOR_TYPES.items():
        f = os.path.join(path, "lineitem_" + name)
        if os.path.exists(f):
            cols.append((name, np.fromfile(f, dtype=np.uint8), code))
    return cols


def main():
    args = sys.argv[1:]
    mib, dump = 256, None
    if "--mib" in args:
        i = args.index("--mib")
        mib = int(args[i + 1])
        del args[i:i + 2]
    if "--dump" in args:
        i = args.index("--dump")
        dump = args[i + 1]
        del args[i:i + 2]
    path, only = None, None
    if "--corpus" in args:
        i = args.index("--corpus")
        path = args[i + 1]
        del args[i:i + 2]
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1].split(",")
        del args[i:i + 2]
    mods = [(p, cp.RawModule(path=p)) for p in args]
    threads = [block_threads(p, "cascaded_compress") for p in args]
    what = f"the anchor files in {path}" if path else f"{mib} MiB columns"
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {CHUNK} B chunks, {what}")
    for (p, m), nt in zip(mods, threads):
        f = m.get_function("cascaded_compress")
        print(f"{p}: {f.num_regs} registers, {f.local_size_bytes} B local, {f.shared_size_bytes} B shared, "
              f"{nt} threads")
    saved = {}
    print(f"{'column':18} {'ptx':>3} {'ratio':>7} {'nv ratio':>8} {'GB/s':>7} {'nv GB/s':>7} {'x nv':>5}")
    cols = corpus(path) if path else columns(mib << 20)
    for name, host, code in cols:
        if only and not any(name.startswith(o) for o in only):
            continue
        raw = host.view(np.uint8)[: mib << 20] if not path else host
        n = raw.size
        d_in = cp.asarray(raw)
        nchunks = (n + CHUNK - 1) // CHUNK
        lens = np.minimum(CHUNK, n - np.arange(nchunks) * CHUNK).astype(np.uint64)
        slot = CHUNK + 16
        d_out = cp.zeros(nchunks * slot, dtype=cp.uint8)
        in_ptrs = cp.asarray(d_in.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
        out_ptrs = cp.asarray(d_out.data.ptr + np.arange(nchunks, dtype=np.uint64) * slot)
        in_bytes = cp.asarray(lens)
        out_bytes = cp.zeros(nchunks, dtype=cp.uint64)
        statuses = cp.full(nchunks, -1, dtype=cp.int32)
        dec = cp.zeros(nchunks * CHUNK, dtype=cp.uint8)
        dec_ptrs = cp.asarray(dec.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
        dec_actual = cp.zeros(nchunks, dtype=cp.uint64)
        dec_status = cp.full(nchunks, -1, dtype=cp.int32)
        grid = min(nchunks, 65535)
        for k, (p, m) in enumerate(mods):
            comp, decomp = m.get_function("cascaded_compress"), m.get_function("cascaded_decompress")

            def run():
                comp((grid,), (threads[k],), (in_ptrs, in_bytes, np.uint64(nchunks), out_ptrs, out_bytes,
                                                    statuses, np.uint32(code), np.uint32(3), np.uint32(7)))
            ms = time_ms(run, 10)
            st, ob = statuses.get(), out_bytes.get()
            ok = bool((st == 0).all() and (ob <= CHUNK + 8).all() and (ob >= 8).all())
            decomp((grid,), (DECOMPRESS_THREADS,), (out_ptrs, out_bytes, np.uint64(nchunks), dec_ptrs, in_bytes,
                                                    dec_actual, dec_status, np.uint64(0), np.uint32(1)))
            same = bool((dec_status.get() == 0).all() and (dec_actual.get() == lens).all()
                        and cp.array_equal(dec[:n], d_in))
            ratio = n / float(ob.sum())
            nv_ratio, nv_gbs = NVCOMP.get(name, (float("nan"), float("nan")))
            gbs = n / ms / 1e6
            flag = "" if ok and same else f"  FAILED (status/len {ok}, round trip {same})"
            print(f"{name:18} {k:>3} {ratio:7.3f} {nv_ratio:8.3f} {gbs:7.1f} {nv_gbs:7.1f} "
                  f"{gbs / nv_gbs:5.2f}  sum {int(ob.sum())}{flag}", flush=True)
            if dump and k == 0:
                outs = d_out.get()
                for c in range(min(3, nchunks)):
                    saved[f"{name}.{c}.in"] = raw[c * CHUNK: c * CHUNK + int(lens[c])]
                    saved[f"{name}.{c}.out"] = outs[c * slot: c * slot + int(ob[c])]
                    saved[f"{name}.{c}.type"] = np.array([code])
    if dump:
        os.makedirs(dump, exist_ok=True)
        np.savez(os.path.join(dump, "chunks.npz"), **saved)

if __name__ == "__main__":
    main()
