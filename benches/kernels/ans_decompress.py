"""Standalone throughput of gpucomp's `ans_decompress` kernel on the ANS anchors (CuPy, no Rust
needed).

Usage: python3 ans_decompress.py DATA_DIR PTX [PTX ...]

DATA_DIR holds NVCOMP_NATIVE ANS streams of 64 KiB chunks written by the CPU encoder (whose
chunks are byte-identical to nvCOMP 6's), e.g. with `throughput streams JOBS`, JOBS lines
`tbl8 tbl8.nvc ans uchar`, `comment8 comment8.nvc ans uchar`, `weights8 weights8.nvc ans
float16`, `e4m3_8 e4m3_8.nvc ans float8`: `tbl8.nvc` and `comment8.nvc` (the first 8 MiB of
lineitem.tbl and lineitem_comment.txt from `throughput corpus DIR 2 256`), `weights8.nvc` (the
first 4 Mi halves of the weights below) and `e4m3_8.nvc` (8 Mi N(0, 1) values as FLOAT8 E4M3,
`e4m3_8` regenerated here when absent, as `ans_compress.py --e4m3 DIR` writes it). Outputs are checked against the originals: `tbl8` / `comment8` / `e4m3_8`
next to the streams, or only their per-chunk fingerprints `tbl8.fp.npy` / `comment8.fp.npy`
(written by `--fingerprint FILE`, to keep what travels to a GPU machine small); the weights are
regenerated here (`default_rng(7).normal(0, 0.02, 64 << 20)` as float16). The chunks are copied
REPS times into one device buffer (distinct addresses, so the batch is as large as nvCOMP's
anchors and does not sit in L2), then every PTX (builds of kernels/ with the nvptx target;
timed side by side) decodes the batch: one launch, CUDA events, 2 warm-ups, median of 15, GB/s
of uncompressed bytes (1e9), next to nvCOMP 6's figures on an H200 (same data, 64 KiB chunks).
Every chunk is checked: status 0, size, bytes (or fingerprint).

`--once NAME` runs one launch of each PTX on that data set only (for ncu); `--reps K` multiplies
every set's replicas by K (a larger batch); `--fingerprint FILE` writes FILE.fp.npy.
"""
import os
import sys

import cupy as cp
import numpy as np
from kernel_bench import e4m3_values, native_chunks, run_options, time_ms

CHUNK = 64 << 10
THREADS = 128  # gpucomp_kernels::ans::BLOCK_THREADS
# stream, original, replicas, nvCOMP 6 decompression GB/s on an H200 (64 KiB chunks).
SETS = [
    ("tbl8.nvc", "tbl8", 32, 1045.8),
    ("comment8.nvc", "comment8", 32, 1070.5),
    ("weights8.nvc", None, 16, 1388.4),
    # nvCOMP's FLOAT8 figure: the full H200 run of 1453c24 (2^27 values; no anchor row).
    ("e4m3_8.nvc", "e4m3_8", 16, 1354.3),
]


def fingerprints(xp, data, nchunks):
    """Per 64 KiB chunk (zero-padded): sum of byte · (i · 0x9E3779B97F4A7C15 + 1) mod 2^64."""
    pad = xp.zeros(nchunks * CHUNK, dtype=xp.uint8)
    pad[:data.size] = data
    w = xp.arange(CHUNK, dtype=xp.uint64) * xp.uint64(0x9E3779B97F4A7C15) + xp.uint64(1)
    return (pad.reshape(nchunks, CHUNK).astype(xp.uint64) * w[None, :]).sum(axis=1, dtype=xp.uint64)


def original(data_dir, name, nchunks):
    """(the original bytes on the device or None, its per-chunk fingerprints on the device)."""
    if name is None:
        rng = np.random.default_rng(7)
        raw = cp.asarray(rng.normal(0, 0.02, 64 << 20).astype(np.float16)[:4 << 20].view(np.uint8))
    else:
        path = os.path.join(data_dir, name)
        if name == "e4m3_8" and not os.path.exists(path):
            raw = cp.asarray(e4m3_values(8 << 20))
        elif not os.path.exists(path):
            return None, cp.asarray(np.load(path + ".fp.npy"))
        else:
            raw = cp.asarray(np.fromfile(path, dtype=np.uint8))
    return raw, fingerprints(cp, raw, nchunks)


def main():
    args = sys.argv[1:]
    if args[0] == "--fingerprint":
        data = np.fromfile(args[1], dtype=np.uint8)
        np.save(args[1] + ".fp.npy", fingerprints(np, data, (data.size + CHUNK - 1) // CHUNK))
        return
    once, more, data_dir, ptxs = run_options(args)
    mods = [(p, cp.RawModule(path=p).get_function("ans_decompress")) for p in ptxs]
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {CHUNK} B chunks")
    for k, (p, f) in enumerate(mods):
        print(f"{k}: {p}: {f.num_regs} registers, {f.local_size_bytes} B local, {f.shared_size_bytes} B shared")
    print(f"{'data':16} {'ptx':>3} {'chunks':>6} {'ratio':>6} {'GB/s':>7} {'nvCOMP':>7} {'x nv':>5}")
    for stream_name, orig_name, reps, nv in SETS:
        if once is not None and once != stream_name or not os.path.exists(os.path.join(data_dir, stream_name)):
            continue
        reps *= more
        stream = np.fromfile(os.path.join(data_dir, stream_name), dtype=np.uint8)
        region, offs, sizes = native_chunks(stream)
        nc1 = offs.size
        n = int(stream[0x10:0x18].view(np.uint64)[0])  # decomp_data_size
        assert nc1 == (n + CHUNK - 1) // CHUNK
        d_raw, d_fp = original(data_dir, orig_name, nc1)
        # Replicas at 256-byte aligned strides (chunk offsets are multiples of 16).
        stride = (region.size + 255) // 256 * 256
        d_comp = cp.zeros(reps * stride, dtype=cp.uint8)
        d_region = cp.asarray(region)
        for r in range(reps):
            d_comp[r * stride:r * stride + region.size] = d_region
        nchunks = reps * nc1
        in_ptrs = cp.asarray((d_comp.data.ptr + (np.arange(reps, dtype=np.uint64)[:, None] * stride + offs[None, :]))
                             .reshape(-1).astype(np.uint64))
        in_bytes = cp.asarray(np.tile(sizes, reps).astype(np.uint64))
        lens = np.minimum(CHUNK, n - np.arange(nc1) * CHUNK).astype(np.uint64)
        out_cap = cp.asarray(np.tile(lens, reps))
        dec = cp.zeros(reps * nc1 * CHUNK, dtype=cp.uint8)
        out_ptrs = cp.asarray(dec.data.ptr + np.arange(nchunks, dtype=np.uint64) * CHUNK)
        actual = cp.zeros(nchunks, dtype=cp.uint64)
        st = cp.full(nchunks, -1, dtype=cp.int32)
        grid = min(nchunks, 65535)
        total = reps * n
        ratio = n / float(sizes.sum())
        for k, (p, f) in enumerate(mods):
            dec.fill(0)
            st.fill(-1)

            def run():
                # One block per chunk: no `parts` words, `split` 1 (a PTX from before the split
                # reads only the first seven arguments).
                f((grid,), (THREADS,), (in_ptrs, in_bytes, np.uint64(nchunks), out_ptrs, out_cap, actual, st,
                                        np.uint64(0), np.uint32(1)))

            if once is not None:
                run()
                cp.cuda.Device().synchronize()
                continue
            ms = time_ms(run)
            good = bool((st.get() == 0).all() and (actual.get() == np.tile(lens, reps)).all())
            if d_raw is not None:
                good = good and bool((dec.reshape(reps, nc1 * CHUNK)[:, :n] == d_raw[None, :]).all())
            fp = fingerprints(cp, dec, nchunks).reshape(reps, nc1)
            good = good and bool((fp == d_fp[None, :]).all())
            gbs = total / ms / 1e6
            flag = "" if good else "  FAILED"
            print(f"{stream_name:16} {k:>3} {nchunks:>6} {ratio:6.3f} {gbs:7.1f} {nv:7.1f} {gbs / nv:5.2f}{flag}",
                  flush=True)


if __name__ == "__main__":
    main()
