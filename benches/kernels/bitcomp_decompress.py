"""Standalone throughput of gpucomp's `bitcomp_decompress` kernel on the anchor files (CuPy, no
Rust needed); several PTX builds side by side.

Usage: python3 bitcomp_decompress.py CORPUS_DIR REF_PTX [PTX ...] [--only NAME] [--runs N] [--alg 0|1|both]

CORPUS_DIR holds the TPC-H anchor files (`throughput corpus DIR 2 256` writes them); the float
columns are generated here as benches/nvcomp/anchors says (sensor.f32, weights.f16). Every column
is cut into 64 KiB chunks and compressed once by REF_PTX's `bitcomp_compress` (algorithm 0, and 1
with --alg both/1); then each PTX's `bitcomp_decompress` is timed on the same chunks like the
anchors time nvCOMP (CUDA events, 2 warm-ups, median of N = 15 launches; GB/s of uncompressed
output, 1e9) and its output is checked against the input (every chunk: status 0, size, bytes).
Prints GB/s per build next to nvCOMP 6's algorithm-0 decompression on an H200.
"""
import os
import sys

import cupy as cp
import numpy as np
from kernel_bench import BITCOMP_COMPRESS_SHARED, anchor_file, block_threads, time_ms, uses_dynamic_shared

CHUNK = 64 << 10
# (file, bitcomp type code, nvCOMP 6 H200 decompression GB/s, algorithm 0)
COLUMNS = [
    ("lineitem_orderkey.i64", 7, 651.6),
    ("lineitem_extendedprice.i64", 7, 487.5),
    ("lineitem_partkey.i32", 5, 343.6),
    ("lineitem_quantity.i32", 5, 601.6),
    ("lineitem_shipdate.i32", 5, 436.0),
    ("lineitem_discount.u8", 0, 119.2),
    ("lineitem_linenumber.u8", 0, 130.8),
    ("sensor.f32", 4, 402.8),
    ("weights.f16", 2, 367.6),
]


def main():
    args = sys.argv[1:]
    only, runs, algs = None, 15, (0,)
    while "--only" in args or "--runs" in args or "--alg" in args:
        for flag in ("--only", "--runs", "--alg"):
            if flag in args:
                i = args.index(flag)
                v = args[i + 1]
                del args[i:i + 2]
                if flag == "--only":
                    only = v.split(",")
                elif flag == "--runs":
                    runs = int(v)
                else:
                    algs = (0, 1) if v == "both" else (int(v),)
    corpus, ptxs = args[0], args[1:]
    mods = [cp.RawModule(path=p) for p in ptxs]
    comp = mods[0].get_function("bitcomp_compress")
    comp_threads = block_threads(ptxs[0], "bitcomp_compress")
    comp_smem = BITCOMP_COMPRESS_SHARED if uses_dynamic_shared(ptxs[0], "bitcomp_compress") else 0
    if comp_smem:
        comp.max_dynamic_shared_size_bytes = comp_smem
    decs = [(m.get_function("bitcomp_decompress"), block_threads(p, "bitcomp_decompress")) for m, p in zip(mods, ptxs)]
    names = [os.path.basename(p).rsplit(".", 1)[0] for p in ptxs]
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {CHUNK} B chunks, median of {runs}")
    print(f"{'column':28} {'alg':>3} {'ratio':>6} " + " ".join(f"{n:>9}" for n in names) + f" {'nvCOMP':>7}  best x nv")
    for name, code, nv in COLUMNS:
        if only and not any(o in name for o in only):
            continue
        raw = anchor_file(corpus, name)
        n = raw.size
        d_in = cp.asarray(raw)
        nchunks = (n + CHUNK - 1) // CHUNK
        lens = np.minimum(CHUNK, n - np.arange(nchunks) * CHUNK).astype(np.uint64)
        slot = ((CHUNK + 8191) // 8192 * 8200 + 32 + 15) // 16 * 16
        d_comp = cp.zeros(nchunks * slot, dtype=cp.uint8)
        in_ptrs = cp.asarray(d_in.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
        comp_ptrs = cp.asarray(d_comp.data.ptr + np.arange(nchunks, dtype=np.uint64) * slot)
        in_bytes = cp.asarray(lens)
        comp_bytes = cp.zeros(nchunks, dtype=cp.uint64)
        statuses = cp.full(nchunks, -1, dtype=cp.int32)
        dec = cp.zeros(nchunks * CHUNK, dtype=cp.uint8)
        want = cp.zeros(nchunks * CHUNK, dtype=cp.uint8)
        want[:n] = d_in
        dec_ptrs = cp.asarray(dec.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
        actual = cp.zeros(nchunks, dtype=cp.uint64)
        dec_status = cp.full(nchunks, -1, dtype=cp.int32)
        grid = min(nchunks, 1 << 24)
        for alg in algs:
            comp((grid,), (comp_threads,), (in_ptrs, in_bytes, np.uint64(nchunks), comp_ptrs, comp_bytes, statuses,
                                            np.uint32(code), np.uint32(alg)), shared_mem=comp_smem)
            cp.cuda.runtime.deviceSynchronize()
            assert (statuses.get() == 0).all(), f"{name}: compression failed"
            ratio = n / float(comp_bytes.get().sum())
            cells = []
            best = 0.0
            for dk, threads in decs:
                dec.fill(0)
                dec_status.fill(-1)

                def run():
                    dk((grid,), (threads,), (comp_ptrs, comp_bytes, np.uint64(nchunks), dec_ptrs, in_bytes,
                                                   actual, dec_status, np.uint64(0), np.uint32(1)))
                ms = time_ms(run, runs)
                ok = bool((dec_status.get() == 0).all() and (actual.get() == lens).all()
                          and cp.array_equal(dec, want))
                gbs = n / ms / 1e6
                best = max(best, gbs) if ok else best
                cells.append(f"{gbs:9.1f}" if ok else f"{'FAILED':>9}")
            nvs = f"{nv:7.1f}" if alg == 0 else f"{'':>7}"
            x = f"{best / nv:5.2f}" if alg == 0 else ""
            print(f"{name:28} {alg:>3} {ratio:6.2f} " + " ".join(cells) + f" {nvs}  {x}", flush=True)


if __name__ == "__main__":
    main()
