"""Standalone throughput of gpucomp's `cascaded_decompress` kernel on the TPC-H anchor columns
(CuPy, no Rust needed).

Usage: python3 cascaded_decompress.py CORPUS_DIR COMPRESS_PTX PTX [PTX ...]

CORPUS_DIR holds the anchor files (`throughput corpus CORPUS_DIR 2 256` writes them:
lineitem_orderkey.i64, ... lineitem_linenumber.u8). Every column is cut into 64 KiB chunks and
compressed once, with `cascaded_compress` from COMPRESS_PTX (level 3, flags DELTA|RLE|FOR:
nvCOMP's defaults; the PTX must contain that kernel); then `cascaded_decompress` of every PTX (builds of kernels/ with the nvptx
target, e.g. kernels/ptx/gpucomp_sm_90.ptx; timed side by side) decodes the batch: one launch,
CUDA events, 2 warm-ups, median of 15, GB/s of uncompressed bytes (1e9), next to nvCOMP 6's
figures on an H200 (same chunks, same timing). Every chunk is checked: status 0, size, bytes.
Also prints, per column, how often each block pipeline (slot mask / kinds of the first chunks'
blocks) occurs.
"""
import os
import sys
from collections import Counter

import cupy as cp
import numpy as np
from kernel_bench import block_threads, time_ms

CHUNK = 64 << 10
# file, nvCOMP type code, nvCOMP 6 decompression GB/s on an H200 (64 KiB chunks, level 3).
COLUMNS = [
    ("lineitem_orderkey.i64", 6, 459.5),
    ("lineitem_extendedprice.i64", 6, 683.9),
    ("lineitem_partkey.i32", 4, 463.9),
    ("lineitem_quantity.i32", 4, 557.3),
    ("lineitem_shipdate.i32", 4, 511.0),
    ("lineitem_discount.u8", 1, 118.7),
    ("lineitem_linenumber.u8", 1, 37.0),
]


def pipelines(chunk):
    """(slot mask, kinds) of every block of an asymmetric chunk, or ['raw']."""
    n = int.from_bytes(chunk[4:8].tobytes(), "little")
    if len(chunk) >= 8 + (n + 3) // 4 * 4:
        return ["raw"]
    pos, out = 8, []
    for _ in range((n + 4095) // 4096):
        w0 = int.from_bytes(chunk[pos:pos + 4].tobytes(), "little")
        mask, kinds = (w0 >> 16) & 0xff, w0 >> 24
        # Slots in order: R = RLE, D = DELTA; the final stream is FOR + bit-packing.
        out.append("".join("RD"[1 - ((kinds >> s) & 1)] for s in range(8) if (mask >> s) & 1) or "-")
        pos += w0 & 0xffff
    return out


def main():
    corpus, comp_ptx, *ptxs = sys.argv[1:]
    comp = cp.RawModule(path=comp_ptx).get_function("cascaded_compress")
    comp_threads = block_threads(comp_ptx, "cascaded_compress")
    mods = [(p, cp.RawModule(path=p).get_function("cascaded_decompress"), block_threads(p, "cascaded_decompress"))
            for p in ptxs]
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {CHUNK} B chunks")
    for p, f, _ in mods:
        print(f"{p}: {f.num_regs} registers, {f.local_size_bytes} B local, {f.shared_size_bytes} B shared")
    print(f"{'column':28} {'ptx':>3} {'ratio':>6} {'GB/s':>7} {'nvCOMP':>7} {'x nv':>5}")
    for name, code, nv in COLUMNS:
        raw = np.fromfile(os.path.join(corpus, name), dtype=np.uint8)
        n = raw.size
        d_in = cp.asarray(raw)
        nchunks = (n + CHUNK - 1) // CHUNK
        lens = np.minimum(CHUNK, n - np.arange(nchunks) * CHUNK).astype(np.uint64)
        slot = CHUNK + 16
        d_comp = cp.zeros(nchunks * slot, dtype=cp.uint8)
        in_ptrs = cp.asarray(d_in.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
        comp_ptrs = cp.asarray(d_comp.data.ptr + np.arange(nchunks, dtype=np.uint64) * slot)
        in_bytes = cp.asarray(lens)
        comp_bytes = cp.zeros(nchunks, dtype=cp.uint64)
        statuses = cp.full(nchunks, -1, dtype=cp.int32)
        grid = min(nchunks, 65535)
        comp((grid,), (comp_threads,), (in_ptrs, in_bytes, np.uint64(nchunks), comp_ptrs, comp_bytes,
                                            statuses, np.uint32(code), np.uint32(3), np.uint32(7)))
        cp.cuda.Device().synchronize()
        assert (statuses.get() == 0).all(), f"{name}: compression failed"
        cb = comp_bytes.get()
        host = d_comp.get()
        kinds = Counter()
        for c in range(min(8, nchunks)):
            kinds.update(pipelines(host[c * slot: c * slot + int(cb[c])]))
        ratio = n / float(cb.sum())
        print(f"{name}: {nchunks} chunks, ratio {ratio:.2f}, pipelines {dict(kinds)}")
        dec = cp.zeros(nchunks * CHUNK, dtype=cp.uint8)
        dec_ptrs = cp.asarray(dec.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
        actual = cp.zeros(nchunks, dtype=cp.uint64)
        dst = cp.full(nchunks, -1, dtype=cp.int32)
        for k, (p, f, threads) in enumerate(mods):
            dec.fill(0)
            dst.fill(-1)

            def run():
                f((grid,), (threads,), (comp_ptrs, comp_bytes, np.uint64(nchunks), dec_ptrs, in_bytes, actual, dst,
                                          np.uint64(0), np.uint32(1)))
            ms = time_ms(run)
            same = bool((dst.get() == 0).all() and (actual.get() == lens).all() and cp.array_equal(dec[:n], d_in))
            gbs = n / ms / 1e6
            flag = "" if same else "  FAILED"
            print(f"{name:28} {k:>3} {ratio:6.2f} {gbs:7.1f} {nv:7.1f} {gbs / nv:5.2f}{flag}", flush=True)


if __name__ == "__main__":
    main()
