"""Standalone throughput of gpucomp's `ans_compress` kernel on the ANS anchors (CuPy, no Rust
needed).

Usage: python3 ans_compress.py [--once NAME] [--reps K] DATA_DIR PTX [PTX ...]
       python3 ans_compress.py --e4m3 DATA_DIR

PTX: a build of kernels/ (nvptx target), or a cubin of its `ans_compress`, `ans_compress_float`
and `ans_compress_float8` (`ptxas -arch=sm_90 -e ans_compress -e ans_compress_float -e
ans_compress_float8`: no JIT at load, and the SASS that ncu shows is the one cuobjdump shows
here). Each set runs on the kernel the host launches for it: FLOAT8 `ans_compress_float8`,
FLOAT16 and FLOAT32 `ans_compress_float` (their 64 KiB chunks' sub-chunks fit its staging
buffers; builds from before it, `ans_compress`), the rest `ans_compress`.

DATA_DIR holds the inputs and the NVCOMP_NATIVE ANS streams the CPU encoder writes for them
(default options, 64 KiB chunks), e.g. with `throughput streams JOBS`, JOBS lines `tbl8 tbl8.nvc
ans uchar`, `comment8 comment8.nvc ans uchar`, `weights8 weights8.nvc ans float16`, `e4m3_8 e4m3_8.nvc ans float8`:
`tbl8` and `comment8` are the first 8 MiB of lineitem.tbl and lineitem_comment.txt from
`throughput corpus DIR 2 256`, `weights8` the first 4 Mi halves of `default_rng(7).normal(0,
0.02, 64 << 20)` as float16 (regenerated here when absent), `e4m3_8` 8 Mi values of
`default_rng(11).normal(0, 1)` as FLOAT8 E4M3 (nearest, saturating; regenerated here when
absent, `--e4m3 DATA_DIR` writes it).
Sets whose stream is absent are skipped. Each input is copied REPS times into one device buffer
(distinct addresses, so the batch is as large as nvCOMP's anchors and does not sit in L2), then
every build (timed side by side) compresses the batch
with default options: one launch, CUDA events, 2 warm-ups, median of 15, GB/s of uncompressed
bytes (1e9), next to nvCOMP 6's figures on an H200 (same data, 64 KiB chunks). Every chunk of
every replica is checked: status 0, and size and bytes equal to the CPU encoder's chunk in the
stream.

`--once NAME` runs one launch of each PTX on that input only (for ncu); `--reps K` multiplies
every set's replicas by K (a larger batch: how much the last wave of blocks costs).
"""
import os
import sys

import cupy as cp
import numpy as np
from kernel_bench import block_threads, e4m3_values, native_chunks, run_options, time_ms

CHUNK = 64 << 10
# Output room per chunk: AnsOptions::max_compressed_chunk_size(64 KiB) is below 96 KiB for
# every mode with the default options.
OUT_STRIDE = 2 * CHUNK
# input, stream, nvcompType_t, replicas, nvCOMP 6 compression GB/s on an H200 (64 KiB chunks;
# FLOAT8: the full H200 run of 1453c24, 2^27 values, no anchor row).
SETS = [
    ("tbl8", "tbl8.nvc", 1, 32, 675.2),
    ("comment8", "comment8.nvc", 1, 32, 696.0),
    ("weights8", "weights8.nvc", 10, 16, 900.6),
    ("e4m3_8", "e4m3_8.nvc", 9, 16, 809.6),
]


def load_input(data_dir, name):
    path = os.path.join(data_dir, name)
    if os.path.exists(path):
        return np.fromfile(path, dtype=np.uint8)
    if name == "e4m3_8":
        return e4m3_values(8 << 20)
    assert name == "weights8", path
    rng = np.random.default_rng(7)
    return rng.normal(0, 0.02, 64 << 20).astype(np.float16)[:4 << 20].view(np.uint8)


def main():
    args = sys.argv[1:]
    if args[0] == "--e4m3":
        e4m3_values(8 << 20).tofile(os.path.join(args[1], "e4m3_8"))
        return
    once, more, data_dir, ptxs = run_options(args)
    # Each build with its own block size (COMPRESS_BLOCK_THREADS: the PTX's .maxntid, a cubin's
    # maximum block size).
    kernels = {}
    for name in ("ans_compress", "ans_compress_float", "ans_compress_float8"):
        mods = []
        for p in ptxs:
            try:
                f = cp.RawModule(path=p).get_function(name)
            except cp.cuda.driver.CUDADriverError:
                # A build from before ans_compress_float: its floats go to ans_compress.
                assert name == "ans_compress_float", (p, name)
                mods.append(kernels["ans_compress"][len(mods)])
                continue
            mods.append((p, f, f.max_threads_per_block if p.endswith(".cubin") else block_threads(p, name)))
        kernels[name] = mods
    mods = kernels["ans_compress"]
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {CHUNK} B chunks")
    for k, (p, f, threads) in enumerate(mods):
        print(f"{k}: {p}: {threads} threads, {f.num_regs} registers, {f.local_size_bytes} B local, "
              f"{f.shared_size_bytes} B shared")
    print(f"{'data':10} {'ptx':>3} {'chunks':>6} {'ratio':>6} {'GB/s':>7} {'nvCOMP':>7} {'x nv':>5}")
    for in_name, stream_name, dtype, reps, nv in SETS:
        if once is not None and once != in_name or not os.path.exists(os.path.join(data_dir, stream_name)):
            continue
        reps *= more
        mods = kernels[{9: "ans_compress_float8", 10: "ans_compress_float", 11: "ans_compress_float"}.get(dtype, "ans_compress")]
        raw = load_input(data_dir, in_name)
        n = raw.size
        nc1 = (n + CHUNK - 1) // CHUNK
        stream = np.fromfile(os.path.join(data_dir, stream_name), dtype=np.uint8)
        region, offs, sizes = native_chunks(stream)
        assert offs.size == nc1 and int(stream[0x10:0x18].view(np.uint64)[0]) == n
        # The CPU encoder's chunks, each at the start of an OUT_STRIDE slot, and a mask of their bytes.
        want = np.zeros((nc1, OUT_STRIDE), dtype=np.uint8)
        for i in range(nc1):
            want[i, :sizes[i]] = region[offs[i]:offs[i] + sizes[i]]
        d_want = cp.asarray(want)
        d_mask = cp.arange(OUT_STRIDE, dtype=cp.uint64)[None, :] < cp.asarray(sizes)[:, None]
        # Replicas at 256-byte aligned strides.
        stride = (n + 255) // 256 * 256
        d_in = cp.zeros(reps * stride, dtype=cp.uint8)
        d_raw = cp.asarray(raw)
        for r in range(reps):
            d_in[r * stride:r * stride + n] = d_raw
        nchunks = reps * nc1
        starts = np.arange(nc1, dtype=np.uint64) * CHUNK
        in_ptrs = cp.asarray((d_in.data.ptr + np.arange(reps, dtype=np.uint64)[:, None] * stride + starts[None, :])
                             .reshape(-1).astype(np.uint64))
        lens = np.minimum(CHUNK, n - starts.astype(np.int64)).astype(np.uint64)
        in_bytes = cp.asarray(np.tile(lens, reps))
        out = cp.zeros(nchunks * OUT_STRIDE, dtype=cp.uint8)
        out_ptrs = cp.asarray(out.data.ptr + np.arange(nchunks, dtype=np.uint64) * OUT_STRIDE)
        out_bytes = cp.zeros(nchunks, dtype=cp.uint64)
        st = cp.full(nchunks, -1, dtype=cp.int32)
        grid = min(nchunks, 65535)
        total = reps * n
        ratio = n / float(sizes.sum())
        for k, (p, f, threads) in enumerate(mods):
            out.fill(0xA5)
            st.fill(-1)

            def run():
                f((grid,), (threads,), (in_ptrs, in_bytes, np.uint64(nchunks), out_ptrs, out_bytes, st,
                                        np.uint32(dtype), np.uint32(0), np.uint32(0), np.uint32(0), np.uint32(CHUNK)))

            if once is not None:
                run()
                cp.cuda.Device().synchronize()
                continue
            ms = time_ms(run)
            good = bool((st.get() == 0).all() and (out_bytes.get() == np.tile(sizes, reps)).all())
            got = out.reshape(reps, nc1, OUT_STRIDE)
            good = good and bool(((got == d_want[None]) | ~d_mask[None]).all())
            gbs = total / ms / 1e6
            flag = "" if good else "  FAILED"
            print(f"{in_name:10} {k:>3} {nchunks:>6} {ratio:6.3f} {gbs:7.1f} {nv:7.1f} {gbs / nv:5.2f}{flag}", flush=True)


if __name__ == "__main__":
    main()
