"""Standalone throughput of gpucomp's `bitcomp_compress` kernel on the anchor files (CuPy, no
Rust needed); several PTX builds side by side.

Usage: python3 bitcomp_compress.py CORPUS_DIR REF_PTX [PTX ...] [--only NAME,...] [--runs N]
       [--alg 0|1|both] [--ncu NAME] [--dynamic-smem BYTES]

A PTX may be given as `PATH@BYTES`: that build's dynamic shared memory, instead of --dynamic-smem.

CORPUS_DIR holds the TPC-H anchor files (`throughput corpus DIR 2 256` writes them); the float
columns are generated here as benches/nvcomp/anchors says (sensor.f32, weights.f16). Every column
is cut into 64 KiB chunks; each PTX's `bitcomp_compress` is timed like the anchors time nvCOMP
(CUDA events, 2 warm-ups, median of N = 15 launches; GB/s of uncompressed input, 1e9), with the
block size its PTX declares (`.maxntid` of the entry) and, for builds whose entry uses dynamic
shared memory, `--dynamic-smem` bytes of it (default 76576, COMPRESS_SHARED_BYTES). Checks on
every chunk: status 0, the chunks equal REF_PTX's byte for byte (the output space past a chunk's
size is scratch, not compared), and REF_PTX's
`bitcomp_decompress` gives the input back.
Prints GB/s per build next to nvCOMP 6's algorithm-0 compression on an H200
(benches/nvcomp/anchors/nvcomp6-h200.csv; `x nv`: the last build's ratio to it). `--ncu NAME`:
one launch per build on column NAME, algorithm 0, nothing else (for `ncu -k bitcomp_compress`).
The figures in kernels/src/bitcomp/mod.rs come from this script (2026-11-21, H200).
"""
import os
import sys

import cupy as cp
import numpy as np
from kernel_bench import BITCOMP_COMPRESS_SHARED, anchor_file, block_threads, time_ms, uses_dynamic_shared

CHUNK = 64 << 10
# (file, bitcomp type code, nvCOMP 6 H200 ratio and compression GB/s, algorithm 0)
COLUMNS = [
    ("lineitem_orderkey.i64", 7, 13.646, 705.6),
    ("lineitem_extendedprice.i64", 7, 2.702, 676.8),
    ("lineitem_partkey.i32", 5, 1.677, 586.1),
    ("lineitem_quantity.i32", 5, 5.265, 721.0),
    ("lineitem_shipdate.i32", 5, 2.715, 658.4),
    ("lineitem_discount.u8", 0, 1.990, 357.8),
    ("lineitem_linenumber.u8", 0, 2.645, 375.3),
    ("sensor.f32", 4, 1.686, 657.0),
    ("weights.f16", 2, 1.064, 591.2),
]


def main():
    args = sys.argv[1:]
    opts = {"--only": None, "--runs": "15", "--alg": "both", "--ncu": None, "--dynamic-smem": str(BITCOMP_COMPRESS_SHARED)}
    for flag in list(opts):
        if flag in args:
            i = args.index(flag)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    only = opts["--only"].split(",") if opts["--only"] else None
    runs = int(opts["--runs"])
    algs = (0, 1) if opts["--alg"] == "both" else (int(opts["--alg"]),)
    ncu = opts["--ncu"]
    corpus = args[0]
    ptxs = [a.split("@")[0] for a in args[1:]]
    smem_of = [int(a.split("@")[1]) if "@" in a else int(opts["--dynamic-smem"]) for a in args[1:]]
    mods = [cp.RawModule(path=p) for p in ptxs]
    comps = [m.get_function("bitcomp_compress") for m in mods]
    threads = [block_threads(p, "bitcomp_compress") for p in ptxs]
    smems = [b if uses_dynamic_shared(p, "bitcomp_compress") else 0 for p, b in zip(ptxs, smem_of)]
    for comp, smem in zip(comps, smems):
        if smem:
            comp.max_dynamic_shared_size_bytes = smem
    dec = mods[0].get_function("bitcomp_decompress")
    dec_threads = block_threads(ptxs[0], "bitcomp_decompress")
    names = [os.path.basename(p).rsplit(".", 1)[0] for p in ptxs]
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {CHUNK} B chunks, median of {runs}")
    print("builds: " + ", ".join(f"{n} ({t} threads)" for n, t in zip(names, threads)))
    head = f"{'column':28} alg {'ratio':>6} " + " ".join(f"{n[:9]:>9}" for n in names) + f" {'nvCOMP':>7} {'x nv':>5}"
    if not ncu:
        print(head)
    for name, code, nv_ratio, nv_gbs in COLUMNS:
        if ncu and name != ncu or only and name not in only:
            continue
        raw = anchor_file(corpus, name)
        n = raw.size
        d_in = cp.asarray(raw)
        nchunks = (n + CHUNK - 1) // CHUNK
        lens = np.minimum(CHUNK, n - np.arange(nchunks) * CHUNK).astype(np.uint64)
        slot = ((CHUNK + 8191) // 8192 * 8200 + 32 + 15) // 16 * 16
        in_ptrs = cp.asarray(d_in.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
        in_bytes = cp.asarray(lens)
        grid = min(nchunks, 1 << 24)

        def chunks(d_out, out_bytes):
            """The output with the bytes past each chunk's size zeroed (they are scratch)."""
            keep = cp.arange(slot, dtype=cp.uint64)[None, :] < out_bytes[:, None]
            return d_out.reshape(nchunks, slot) * keep
        for alg in (0,) if ncu else algs:
            ref = None
            row = []
            ok = True
            for comp, nt, smem in zip(comps, threads, smems):
                d_out = cp.zeros(nchunks * slot, dtype=cp.uint8)
                out_ptrs = cp.asarray(d_out.data.ptr + np.arange(nchunks, dtype=np.uint64) * slot)
                out_bytes = cp.zeros(nchunks, dtype=cp.uint64)
                statuses = cp.full(nchunks, -1, dtype=cp.int32)

                def run():
                    comp((grid,), (nt,), (in_ptrs, in_bytes, np.uint64(nchunks), out_ptrs, out_bytes, statuses,
                                          np.uint32(code), np.uint32(alg)), shared_mem=smem)
                if ncu:
                    run()
                    cp.cuda.Device().synchronize()
                    continue
                ms = time_ms(run, runs)
                row.append(n / ms / 1e6)
                ok &= bool((statuses.get() == 0).all() and (out_bytes.get() <= slot).all())
                if ref is None:
                    ref = (chunks(d_out, out_bytes), out_bytes)
                    # Round trip through the reference build's decompressor.
                    back = cp.zeros(nchunks * CHUNK, dtype=cp.uint8)
                    back_ptrs = cp.asarray(back.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
                    actual = cp.zeros(nchunks, dtype=cp.uint64)
                    dst = cp.full(nchunks, -1, dtype=cp.int32)
                    dec((grid,), (dec_threads,), (out_ptrs, out_bytes, np.uint64(nchunks), back_ptrs, in_bytes,
                                                  actual, dst, np.uint64(0), np.uint32(1)))
                    ok &= bool((dst.get() == 0).all() and (actual.get() == lens).all()
                               and cp.array_equal(back[:n], d_in))
                    ratio = n / float(out_bytes.get().sum())
                else:
                    ok &= bool(cp.array_equal(out_bytes, ref[1]) and cp.array_equal(chunks(d_out, out_bytes), ref[0]))
            if ncu:
                print(name, "launched once per build")
                continue
            flag = "" if ok else "  FAILED"
            nv = f"{nv_gbs:7.1f} {row[-1] / nv_gbs:5.2f}" if alg == 0 else f"{'':7} {'':5}"
            print(f"{name:28} {alg:>3} {ratio:6.3f} " + " ".join(f"{g:9.1f}" for g in row) + f" {nv}{flag}",
                  flush=True)


if __name__ == "__main__":
    main()
