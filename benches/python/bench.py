"""gpucomp's Python API side by side with nvidia.nvcomp's, in one run on one GPU.

usage: python3 bench.py CORPUS_DIR OUT_DIR [--bench BENCH_BINARY] [--rounds N] [--quick]

Three measurements, each for both libraries on the same data (wall time of the Python call until
its results are ready on the device: the call, then a device synchronisation):

  batch   a list of 256 arrays of 1 MiB (the first 256 MiB of lineitem.tbl) encoded and decoded by
          one Codec.encode(list) / Codec.decode(list) call, every algorithm with its default options
          and 64 KiB chunks; GB/s of uncompressed bytes. With --bench (the throughput bench binary,
          benches/throughput.rs), gpucomp's Rust batched API on the same 4096 chunks too (CUDA events
          around the batched call), and gpucomp's Python figure as a share of it.
  single  one 64 KiB array (the start of lineitem.tbl): encode and decode, median wall time in us.
  zarr    a 1 GiB float32 array (a random walk) in 256 chunks of 4 MiB in a local store (page
          cache): written from and read into GPU memory (zarr.config.enable_gpu()) with zarr's
          default codec (Zstd on the CPU), no compression, and each gpucomp codec; GB/s. Then the
          zarr-default Zstd store read through gpucomp's implementation of zarr's `zstd` codec
          (gpucomp.zarr.ZstdCodec, selected by zarr's "codecs.zstd" setting: decoded on the GPU;
          written by zarr's own codec, so its write is zarr's CPU path). Then no compression, each
          gpucomp codec and gpucomp's zstd again under gpucomp's GpuCodecPipeline (batched store
          I/O), with the share of each read spent fetching and of each write spent storing.

Every decoded result is compared with its input. Prints one table per measurement and writes
OUT_DIR/python-bench.csv (measure,library,algorithm,direction,value,unit) and, with matplotlib,
OUT_DIR/python-bench.png. Needs a GPU, cupy, gpucomp; nvidia.nvcomp (nvidia-nvcomp-cu13 6.0.0.12)
and zarr where present (their rows are skipped with the reason otherwise).
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import cupy as cp
import numpy as np

import gpucomp

ALGORITHMS = ["LZ4", "Cascaded", "ANS", "Bitcomp"]
ZSTD_THROUGH_GPUCOMP = "zstd (zarr default) read by gpucomp"
BATCH_ARRAYS = 256
BATCH_BYTES = 1 << 20
SINGLE_BYTES = 64 << 10
CHUNK = 64 << 10

try:
    from nvidia import nvcomp
except ImportError as e:  # reported in the tables
    nvcomp = None
    NVCOMP_MISSING = str(e)


def libraries():
    yield "gpucomp", gpucomp
    if nvcomp is not None:
        yield "nvcomp", nvcomp


def synchronize():
    cp.cuda.runtime.deviceSynchronize()


def timed(fn, rounds):
    """Median wall seconds of `fn()` followed by a device synchronisation, after two warm-ups."""
    for _ in range(2):
        fn()
        synchronize()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def as_cupy(array):
    """A CuPy uint8 view of an Array of either library (through its CUDA array interface)."""
    return cp.asarray(array).view(cp.uint8).ravel()


def check_equal(decoded, inputs, what):
    for i, (d, x) in enumerate(zip(decoded, inputs)):
        if not cp.array_equal(as_cupy(d), x.view(cp.uint8).ravel()):
            raise SystemExit(f"{what}: array {i} decodes to other bytes")


def items(batch):
    """The arrays of a list or of nvidia.nvcomp's BatchArray."""
    try:
        return list(batch)
    except TypeError:
        return [batch[i] for i in range(len(batch))]


def batch(corpus, rounds, rows):
    data = np.fromfile(os.path.join(corpus, "lineitem.tbl"), dtype=np.uint8, count=BATCH_ARRAYS * BATCH_BYTES)
    if data.size < BATCH_ARRAYS * BATCH_BYTES:
        raise SystemExit(f"lineitem.tbl holds {data.size} bytes, the batch needs {BATCH_ARRAYS * BATCH_BYTES}")
    device = cp.asarray(data)
    inputs = [device[i * BATCH_BYTES:(i + 1) * BATCH_BYTES] for i in range(BATCH_ARRAYS)]
    total = BATCH_ARRAYS * BATCH_BYTES
    for algorithm in ALGORITHMS:
        for name, lib in libraries():
            codec = lib.Codec(algorithm=algorithm, uncomp_chunk_size=CHUNK)
            # A list converted once (nvidia.nvcomp 6 takes a BatchArray for a batch).
            arrays = lib.as_arrays(inputs)
            encoded = codec.encode(arrays)
            synchronize()
            decoded = codec.decode(encoded)
            synchronize()
            check_equal(items(decoded), inputs, f"{name} {algorithm}")
            comp = sum(e.buffer_size for e in items(encoded))
            t_enc = timed(lambda: codec.encode(arrays), rounds)
            t_dec = timed(lambda: codec.decode(encoded), rounds)
            rows.append(("batch", name, algorithm, "encode", total / t_enc / 1e9, "GB/s"))
            rows.append(("batch", name, algorithm, "decode", total / t_dec / 1e9, "GB/s"))
            rows.append(("batch", name, algorithm, "ratio", total / comp, "x"))
            print(f"  batch {name:8} {algorithm:9} encode {total / t_enc / 1e9:8.1f} GB/s"
                  f"  decode {total / t_dec / 1e9:8.1f} GB/s  ratio {total / comp:.3f}", flush=True)


def rust_batched(bench, corpus, rows):
    """The throughput bench on the batch's 256 MiB as one file: the Rust batched API, 64 KiB chunks."""
    path = os.path.join(tempfile.mkdtemp(), "lineitem-256MiB.tbl")
    np.fromfile(os.path.join(corpus, "lineitem.tbl"), dtype=np.uint8, count=BATCH_ARRAYS * BATCH_BYTES).tofile(path)
    for algorithm in ALGORITHMS:
        out = subprocess.run([bench, "run", path, "--algorithm", algorithm.lower(), "--chunk", str(CHUNK),
                              "--baselines", "off"], capture_output=True, text=True)
        # The bench's CSV rows: algo,file,dtype,chunk,bytes,comp_bytes,ratio,comp_GBps,decomp_GBps,ok.
        prefix = f"gpucomp-{algorithm.lower()},"
        line = next((l for l in out.stdout.splitlines() if l.startswith(prefix)), None)
        if out.returncode != 0 or line is None:
            print(f"  rust batched {algorithm}: failed\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
            continue
        cols = line.split(",")
        comp, decomp = float(cols[7]), float(cols[8])
        rows.append(("batch", "gpucomp-rust", algorithm, "encode", comp, "GB/s"))
        rows.append(("batch", "gpucomp-rust", algorithm, "decode", decomp, "GB/s"))
        print(f"  batch rust     {algorithm:9} encode {comp:8.1f} GB/s  decode {decomp:8.1f} GB/s", flush=True)


def single(corpus, rounds, rows):
    data = np.fromfile(os.path.join(corpus, "lineitem.tbl"), dtype=np.uint8, count=SINGLE_BYTES)
    x = cp.asarray(data)
    for algorithm in ALGORITHMS:
        for name, lib in libraries():
            codec = lib.Codec(algorithm=algorithm, uncomp_chunk_size=CHUNK)
            array = lib.as_array(x)
            encoded = codec.encode(array)
            synchronize()
            check_equal([codec.decode(encoded)], [x], f"{name} {algorithm} 64 KiB")
            t_enc = timed(lambda: codec.encode(array), rounds * 20)
            t_dec = timed(lambda: codec.decode(encoded), rounds * 20)
            rows.append(("single", name, algorithm, "encode", t_enc * 1e6, "us"))
            rows.append(("single", name, algorithm, "decode", t_dec * 1e6, "us"))
            print(f"  64 KiB {name:8} {algorithm:9} encode {t_enc * 1e6:9.1f} us  decode {t_dec * 1e6:9.1f} us",
                  flush=True)


def time_codec_calls(inside):
    """From now on, adds the wall time of every gpucomp zarr codec batch call to inside["codec"]."""
    from gpucomp import zarr as gz

    run_batch = gz._BatchedCodec._run_batch

    def counted(self, batch, *, encode):
        t0 = time.perf_counter()
        try:
            return run_batch(self, batch, encode=encode)
        finally:
            inside["codec"] += time.perf_counter() - t0

    gz._BatchedCodec._run_batch = counted


def zarr_bench(rows, quick):
    try:
        import zarr
        from gpucomp import zarr as gz
        from gpucomp.zarr import ANSCodec, BitcompCodec, CascadedCodec, LZ4Codec
    except ImportError as e:
        print(f"  zarr: skipped ({e})")
        return
    try:
        from gpucomp import zarr_pipeline as zp
    except ImportError as e:  # its rows are skipped with the reason
        zp, pipeline_missing = None, str(e)
    # Where the time of a read or write goes: wall time inside the codecs' batch call (in zarr's
    # worker thread), and under GpuCodecPipeline inside its batched fetch (store to device
    # buffers) and store (device buffers to the store), each against the whole read or write.
    inside = {"codec": 0.0, "fetch": 0.0, "store": 0.0}
    time_codec_calls(inside)
    if zp is not None:
        for stage, method in (("fetch", "_fetch"), ("store", "_store")):
            original = getattr(zp.GpuCodecPipeline, method)

            async def timed_stage(self, *args, _original=original, _stage=stage):
                t0 = time.perf_counter()
                try:
                    return await _original(self, *args)
                finally:
                    inside[_stage] += time.perf_counter() - t0

            setattr(zp.GpuCodecPipeline, method, timed_stage)
    n = (1 << 28) if not quick else (1 << 24)
    chunk = 1 << 20  # float32 values: 4 MiB chunks
    rng = np.random.default_rng(7)
    host = np.cumsum(rng.normal(0, 0.1, n)).astype(np.float32)
    device = cp.asarray(host)
    codecs = {"zstd (zarr default, CPU)": "default", "none": None}
    # The same zarr-default store, read through gpucomp's `zstd` (issue 24's zarr bar: >= 5x the
    # CPU read above).
    codecs[ZSTD_THROUGH_GPUCOMP] = "default"
    for algorithm, codec in zip(ALGORITHMS, (LZ4Codec, CascadedCodec, ANSCodec, BitcompCodec)):
        # The data type follows the array's (float32: Cascaded and Bitcomp read 4-byte words; ANS
        # reads bytes unless told FLOAT32).
        codecs[f"gpucomp {algorithm}"] = codec(data_type="<f4") if algorithm == "ANS" else codec()
    # zarr's pipeline for every codec, then gpucomp's GpuCodecPipeline (batched store I/O) for no
    # compression (the pipeline alone) and each gpucomp codec.
    runs = [(label, codec, None) for label, codec in codecs.items()]
    runs += [(f"{label} + GpuCodecPipeline", codec, "gpucomp.zarr_pipeline.GpuCodecPipeline")
             for label, codec in codecs.items() if codec != "default" or label == ZSTD_THROUGH_GPUCOMP]
    # The store in memory-backed files where there are some (the page cache, not a disk).
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=shm) as d:
        for k, (label, codec, pipeline) in enumerate(runs):
            if pipeline is not None and zp is None:
                print(f"  zarr {label}: skipped ({pipeline_missing})")
                continue
            path = os.path.join(d, f"array{k}")
            settings = {"codec_pipeline.batch_size": n // chunk}
            if pipeline is not None:
                settings["codec_pipeline.path"] = pipeline
            if label.startswith(ZSTD_THROUGH_GPUCOMP):
                settings["codecs.zstd"] = "gpucomp.zarr.ZstdCodec"
            try:
                zarr_row(rows, zarr, label, codec, path, settings, n, chunk, device, inside, gz._BatchedCodec)
            except Exception as e:  # a failed row is reported, the others still run
                if pipeline is None:
                    raise
                print(f"  zarr {label}: FAILED ({type(e).__name__}: {e})", flush=True)
            finally:
                shutil.rmtree(path, ignore_errors=True)


def zarr_row(rows, zarr, label, codec, path, settings, n, chunk, device, inside, gpucomp_codec):
    """One zarr measurement: write and read back the array with `codec` under `settings`."""
    kwargs = {} if codec == "default" else {"compressors": None if codec is None else [codec]}
    with zarr.config.enable_gpu(), zarr.config.set(settings):
        a = zarr.create_array(path, shape=(n,), chunks=(chunk,), dtype="float32", **kwargs)

        def write():
            a[:] = device

        def read():
            return zarr.open_array(path, mode="r")[:]

        inside.update(dict.fromkeys(inside, 0.0))
        t_w = timed(write, 3)
        share_w = {k: v / (5 * t_w) for k, v in inside.items()}  # 2 warm-ups + 3 timed calls
        inside.update(dict.fromkeys(inside, 0.0))
        t_r = timed(read, 5)
        share_r = {k: v / (7 * t_r) for k, v in inside.items()}
        back = read()
        synchronize()
        if not cp.array_equal(back, device):
            raise RuntimeError(f"zarr {label}: read back other values")
    stored = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs)
    rows.append(("zarr", "zarr", label, "write", 4 * n / t_w / 1e9, "GB/s"))
    rows.append(("zarr", "zarr", label, "read", 4 * n / t_r / 1e9, "GB/s"))
    rows.append(("zarr", "zarr", label, "ratio", 4 * n / stored, "x"))
    shares = []
    if isinstance(codec, gpucomp_codec) or "codecs.zstd" in settings:
        rows.append(("zarr", "zarr", label, "write codec share", 100 * share_w["codec"], "%"))
        rows.append(("zarr", "zarr", label, "read codec share", 100 * share_r["codec"], "%"))
        shares.append(f"codec share: write {100 * share_w['codec']:.0f} %, read {100 * share_r['codec']:.0f} %")
    if "codec_pipeline.path" in settings:
        rows.append(("zarr", "zarr", label, "write store share", 100 * share_w["store"], "%"))
        rows.append(("zarr", "zarr", label, "read fetch share", 100 * share_r["fetch"], "%"))
        shares.append(f"store share of write {100 * share_w['store']:.0f} %, fetch share of read "
                      f"{100 * share_r['fetch']:.0f} %")
    print(f"  zarr {label:42} write {4 * n / t_w / 1e9:7.2f} GB/s  read {4 * n / t_r / 1e9:7.2f} GB/s"
          f"  ratio {4 * n / stored:.3f}" + ("  " + "; ".join(shares) + " (approx.)" if shares else ""), flush=True)


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(9, 4))
    libs = ["nvcomp", "gpucomp", "gpucomp-rust"]
    bars = [(a, d) for a in ALGORITHMS for d in ("encode", "decode")]
    width = 0.8 / len(libs)
    for k, lib in enumerate(libs):
        values = {(r[2], r[3]): r[4] for r in rows if r[0] == "batch" and r[1] == lib}
        ax.bar([i + k * width for i in range(len(bars))], [values.get(b, 0) for b in bars], width, label=lib)
    ax.set_xticks([i + width for i in range(len(bars))], [f"{a}\n{d}" for a, d in bars])
    ax.set_ylabel("GB/s")
    ax.set_title("256 x 1 MiB of lineitem.tbl, one encode(list) / decode(list) call")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("corpus")
    p.add_argument("out")
    p.add_argument("--bench")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", help="some of the three measurements, comma-separated: batch,single,zarr")
    a = p.parse_args()
    parts = {"batch", "single", "zarr"}
    only = parts if a.only is None else set(a.only.split(","))
    if not only <= parts:
        p.error(f"--only: {', '.join(sorted(only - parts))} is not one of batch, single, zarr")
    os.makedirs(a.out, exist_ok=True)
    print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; gpucomp {gpucomp.__version__}; "
          f"nvidia.nvcomp {getattr(nvcomp, '__version__', 'missing: ' + NVCOMP_MISSING if nvcomp is None else '?')}")
    rows = []
    if "batch" in only:
        batch(a.corpus, a.rounds, rows)
        if a.bench:
            rust_batched(a.bench, a.corpus, rows)
    if "single" in only:
        single(a.corpus, a.rounds, rows)
    if "zarr" in only:
        zarr_bench(rows, a.quick)
    with open(os.path.join(a.out, "python-bench.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["measure", "library", "algorithm", "direction", "value", "unit"])
        w.writerows(rows)
    summary(rows)
    if any(r[0] == "batch" for r in rows):
        plot(rows, os.path.join(a.out, "python-bench.png"))


def summary(rows):
    """The measured parts' tables (a part left out with --only prints none)."""
    v = {(r[0], r[1], r[2], r[3]): r[4] for r in rows}
    measured = {r[0] for r in rows}
    if "batch" in measured:
        print("\nbatch of 256 x 1 MiB (GB/s): gpucomp / nvidia.nvcomp, gpucomp Python / Rust batched")
        print(f"{'algorithm':10} {'dir':7} {'gpucomp':>9} {'nvcomp':>9} {'x nvcomp':>9} {'rust':>9} {'% rust':>7}")
        for a in ALGORITHMS:
            for d in ("encode", "decode"):
                g, n, r = v.get(("batch", "gpucomp", a, d)), v.get(("batch", "nvcomp", a, d)), v.get(("batch", "gpucomp-rust", a, d))
                fmt = lambda x, f="9.1f": format(x, f) if x is not None else "n/a".rjust(9)
                print(f"{a:10} {d:7} {fmt(g)} {fmt(n)} {fmt(g / n if g and n else None, '9.2f')} {fmt(r)}"
                      f" {format(100 * g / r, '6.0f') + '%' if g and r else 'n/a':>7}")
    if "single" in measured:
        print("\none 64 KiB array (us, median wall time)")
        for a in ALGORITHMS:
            g = [v.get(("single", "gpucomp", a, d)) for d in ("encode", "decode")]
            n = [v.get(("single", "nvcomp", a, d)) for d in ("encode", "decode")]
            print(f"{a:10} gpucomp {g[0] or 0:8.1f} / {g[1] or 0:8.1f}   nvcomp {n[0] or 0:8.1f} / {n[1] or 0:8.1f}")
    if "zarr" in measured:
        print("\nzarr, 1 GiB float32 into and out of GPU memory (GB/s, ratio)")
        for label in dict.fromkeys(r[2] for r in rows if r[0] == "zarr"):
            w, rd, q = (v.get(("zarr", "zarr", label, k)) for k in ("write", "read", "ratio"))
            print(f"{label:44} write {w:7.2f}  read {rd:7.2f}  ratio {q:.3f}")
        cpu_read = v.get(("zarr", "zarr", "zstd (zarr default, CPU)", "read"))
        for label in (ZSTD_THROUGH_GPUCOMP, f"{ZSTD_THROUGH_GPUCOMP} + GpuCodecPipeline"):
            read = v.get(("zarr", "zarr", label, "read"))
            if cpu_read and read:
                print(f"{label}: read {read / cpu_read:.2f}x zarr's CPU read (issue 24's bar: at least 5x)")

if __name__ == "__main__":
    sys.exit(main())
