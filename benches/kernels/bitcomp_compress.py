"""Standalone throughput of gpucomp's `bitcomp_compress` kernel (CuPy, no Rust needed).

Usage: python3 bitcomp_compress.py PTX [MiB]

Loads the kernels from PTX (a build of kernels/ with the nvptx target, e.g. kernels/ptx/
gpucomp_sm_90.ptx), makes synthetic columns shaped like the nvCOMP anchor files
(benches/nvcomp/anchors: TPC-H lineitem at scale factor 2, 12M rows: orderkey i64,
extendedprice i64, partkey/quantity/shipdate i32, discount/linenumber u8, and a float32 random
walk) plus random bytes, cuts each into 64 KiB chunks and times one batched launch (64 threads per block: COMPRESS_BLOCK_THREADS) per column
and algorithm (CUDA events, 2 warm-ups, median of 10; GB/s of uncompressed bytes, 1e9). With MiB
given, every column is that large instead (the task's 256 MiB runs).

Checks on every chunk: status 0, length within the max bound, the chunk decodes with
`bitcomp_decompress` (same PTX) to the input, and `bitcomp_decompressed_size` reports its size.
Prints the ratio next to nvCOMP 6's ratio and throughput from the H200 anchor file.
"""
import sys

import cupy as cp
import numpy as np

CHUNK = 64 << 10
ROWS = 11_997_996  # lineitem rows at SF 2
# nvCOMP 6.0 on an H200 (benches/nvcomp/anchors/nvcomp6-h200.csv): ratio, compress GB/s
ANCHORS = {
    "orderkey.i64": (13.646, 705.6),
    "extendedprice.i64": (2.702, 676.8),
    "partkey.i32": (1.677, 586.1),
    "quantity.i32": (5.265, 721.0),
    "shipdate.i32": (2.715, 658.4),
    "discount.u8": (1.990, 357.8),
    "linenumber.u8": (2.645, 375.3),
    "sensor.f32": (1.686, 657.0),
}


def columns(rows):
    rng = np.random.default_rng(42)
    per_order = rng.integers(1, 8, size=rows // 4 + 8)
    orders = np.arange(per_order.size, dtype=np.int64)
    okeys = (orders // 8) * 32 + orders % 8 + 1
    orderkey = np.repeat(okeys, per_order)[:rows]
    linenumber = np.concatenate([np.arange(1, k + 1, dtype=np.uint8) for k in per_order[:200_000]])
    linenumber = np.resize(linenumber, rows)
    qty = rng.integers(1, 51, size=rows, dtype=np.int32)
    price = rng.integers(90_000, 209_900, size=rows) * qty // 100 * 100 + rng.integers(0, 100, size=rows)
    walk = np.cumsum(rng.normal(0, 0.5, size=rows)).astype(np.float32) + np.float32(100.0)
    return [
        ("orderkey.i64", orderkey.astype(np.int64), 7),
        ("extendedprice.i64", price.astype(np.int64), 7),
        ("partkey.i32", rng.integers(1, 400_001, size=rows, dtype=np.int32), 5),
        ("quantity.i32", qty, 5),
        ("shipdate.i32", rng.integers(8036, 10562, size=rows, dtype=np.int32), 5),
        ("discount.u8", rng.integers(0, 11, size=rows, dtype=np.uint8), 0),
        ("linenumber.u8", linenumber, 0),
        ("sensor.f32", walk.view(np.uint32), 4),
        ("random.u32", rng.integers(0, 2**32, size=rows, dtype=np.uint32), 4),
    ]


def time_ms(f, reps=10):
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


def main():
    ptx = sys.argv[1]
    mib = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    mod = cp.RawModule(path=ptx)
    comp = mod.get_function("bitcomp_compress")
    decomp = mod.get_function("bitcomp_decompress")
    sizes_k = mod.get_function("bitcomp_decompressed_size")
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {CHUNK} B chunks")
    print(f"{'column':18} {'alg':>3} {'MB':>7} {'ratio':>7} {'nv ratio':>8} {'GB/s':>7} {'nv GB/s':>7} {'x nv':>5} {'dec GB/s':>8}")
    for name, host, code in columns(ROWS):
        raw = host.view(np.uint8)
        if mib:
            raw = np.resize(raw, mib << 20)
        n = raw.size
        d_in = cp.asarray(raw)
        nchunks = (n + CHUNK - 1) // CHUNK
        lens = np.minimum(CHUNK, n - np.arange(nchunks) * CHUNK).astype(np.uint64)
        slot = ((CHUNK + 8191) // 8192 * 8200 + 32 + 15) // 16 * 16
        d_out = cp.zeros(nchunks * slot, dtype=cp.uint8)
        in_ptrs = cp.asarray(d_in.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
        out_ptrs = cp.asarray(d_out.data.ptr + np.arange(nchunks, dtype=np.uint64) * slot)
        in_bytes = cp.asarray(lens)
        out_bytes = cp.zeros(nchunks, dtype=cp.uint64)
        statuses = cp.full(nchunks, -1, dtype=cp.int32)
        dec = cp.zeros(nchunks * CHUNK, dtype=cp.uint8)
        want = cp.zeros(nchunks * CHUNK, dtype=cp.uint8)
        want[:n] = d_in
        dec_ptrs = cp.asarray(dec.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
        dec_actual = cp.zeros(nchunks, dtype=cp.uint64)
        dec_status = cp.full(nchunks, -1, dtype=cp.int32)
        sizes = cp.zeros(nchunks, dtype=cp.uint64)
        grid = min(nchunks, 1 << 24)
        for alg in (0, 1):
            def run():
                comp((grid,), (64,), (in_ptrs, in_bytes, np.uint64(nchunks), out_ptrs, out_bytes, statuses,
                                      np.uint32(code), np.uint32(alg)))
            ms = time_ms(run)
            st = statuses.get()
            ob = out_bytes.get()
            ok = bool((st == 0).all() and (ob <= slot).all() and (ob >= 32).all())

            def run_dec():
                decomp((grid,), (128,), (out_ptrs, out_bytes, np.uint64(nchunks), dec_ptrs, in_bytes, dec_actual,
                                         dec_status))
            dms = time_ms(run_dec, 3)
            same = bool((dec_status.get() == 0).all() and (dec_actual.get() == lens).all()
                        and cp.array_equal(dec, want))
            sizes_k(((nchunks + 127) // 128,), (128,), (out_ptrs, out_bytes, np.uint64(nchunks), sizes))
            size_ok = bool((sizes.get() == lens).all())
            ratio = n / float(ob.sum())
            nv_ratio, nv_gbs = ANCHORS.get(name, (float("nan"), float("nan")))
            gbs = n / ms / 1e6
            flag = "" if ok and same and size_ok else f"  FAILED (status/len {ok}, round trip {same}, size {size_ok})"
            print(f"{name:18} {alg:>3} {n / 1e6:7.1f} {ratio:7.3f} {nv_ratio:8.3f} {gbs:7.1f} {nv_gbs:7.1f} "
                  f"{gbs / nv_gbs:5.2f} {n / dms / 1e6:8.1f}{flag}", flush=True)


if __name__ == "__main__":
    main()
