"""Where a zarr read of GPU buffers spends its time: one read profiled with cProfile.

usage: python3 zarr_profile.py [--codec lz4|cascaded|ans|bitcomp] [--pipeline zarr|gpucomp] [--mib N]

Writes a float32 random walk (N MiB, default 1024, 4 MiB chunks) to a zarr array in /dev/shm with
the gpucomp codec, reads it back into CuPy memory three times (warm-up and timing), then once under
cProfile, and prints the read's wall time, the time inside the codec's batch call, and the
functions that take the most time of their own and in total. Needs a GPU, CuPy and zarr >= 3.1.
"""
import argparse
import cProfile
import io
import os
import pstats
import shutil
import tempfile
import time

import cupy as cp
import numpy as np
import zarr

from bench import time_codec_calls  # this folder's bench.py
from gpucomp import zarr as gz


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--codec", default="cascaded", choices=["lz4", "cascaded", "ans", "bitcomp"])
    ap.add_argument("--pipeline", default="gpucomp", choices=["zarr", "gpucomp"])
    ap.add_argument("--mib", type=int, default=1024)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    codec = {"lz4": gz.LZ4Codec(), "cascaded": gz.CascadedCodec(), "ans": gz.ANSCodec(data_type="<f4"),
             "bitcomp": gz.BitcompCodec()}[args.codec]
    n, chunk = args.mib << 18, 1 << 20  # float32 values
    host = np.cumsum(np.random.default_rng(7).normal(0, 0.1, n)).astype(np.float32)
    device = cp.asarray(host)
    settings = {"codec_pipeline.batch_size": n // chunk}
    if args.pipeline == "gpucomp":
        settings["codec_pipeline.path"] = "gpucomp.zarr_pipeline.GpuCodecPipeline"

    inside = {"codec": 0.0}
    time_codec_calls(inside)
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    d = tempfile.mkdtemp(dir=shm)
    try:
        path = os.path.join(d, "a")
        with zarr.config.enable_gpu(), zarr.config.set(settings):
            a = zarr.create_array(path, shape=(n,), chunks=(chunk,), dtype="float32", compressors=[codec])
            a[:] = device

            def read():
                out = zarr.open_array(path, mode="r")[:]
                cp.cuda.runtime.deviceSynchronize()
                return out

            read()
            times = []
            for _ in range(3):
                inside["codec"] = 0.0
                t0 = time.perf_counter()
                back = read()
                times.append((time.perf_counter() - t0, inside["codec"]))
            assert cp.array_equal(back, device)
            wall, codec_s = sorted(times)[1]
            print(f"{args.codec} under {args.pipeline}'s pipeline, {args.mib} MiB: read {wall * 1e3:.1f} ms "
                  f"({4 * n / wall / 1e9:.2f} GB/s), codec batch call {codec_s * 1e3:.1f} ms ({100 * codec_s / wall:.0f} %)")
            prof = cProfile.Profile()
            prof.enable()
            read()
            prof.disable()
        for key in ("tottime", "cumulative"):
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats(key).print_stats(args.top)
            print(f"\n--- one read under cProfile, by {key} ---")
            print("\n".join(line for line in s.getvalue().splitlines() if line.strip())[:6000])
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_callees("_run_batch")
        print("\n--- callees of the codec's batch call ---\n" + s.getvalue()[:4000])
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
