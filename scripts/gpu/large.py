"""Inputs over 4 GiB, every algorithm, on the GPU machine (issue 22's large-input check).

usage: python3 large.py GPUCOMP_CLI CORPUS_DIR WORK_DIR [--gib N]

Builds one input of N GiB (default 5) plus a 4104-byte tail, so the last chunk is partial: TPC-H
lineitem.tbl repeated (3/5), a float32 random walk (1/5) and random bytes (1/5). Then, for LZ4,
Cascaded, Bitcomp and ANS:

  cli gpu      `gpucomp compress --gpu` (host buffers, GPU), then `decompress --gpu` and
               `decompress --cpu` of that stream: both give the input back
  cli cpu      `gpucomp compress --cpu`: the same bytes as the GPU's stream
  device       gpucomp.Codec on a CuPy array (device buffers): the CLI's stream, decoded back
  nvcomp       nvidia.nvcomp decodes our stream to the input; we decode nvidia.nvcomp's stream
               of the same input to the input

Prints one row per algorithm and step (seconds, ok/FAILED) and exits 1 on any failure. Needs a
GPU, CuPy, gpucomp and nvidia.nvcomp (nvidia-nvcomp-cu13 6.0.0.12; its rows are skipped with the
reason otherwise). About 4 minutes on an H200 machine for 5 GiB.
"""
import argparse
import filecmp
import os
import subprocess
import sys
import time

import cupy as cp
import numpy as np

import gpucomp

try:
    from nvidia import nvcomp
except ImportError as e:
    nvcomp = None
    NVCOMP_MISSING = str(e)

ALGORITHMS = ["lz4", "cascaded", "bitcomp", "ans"]
NVCOMP_NAMES = {"lz4": "LZ4", "cascaded": "Cascaded", "bitcomp": "Bitcomp", "ans": "ANS"}
TAIL = 4104  # a multiple of 8 (nvCOMP's Cascaded drops a tail that is not a whole element)

rows = []
failed = False


def step(algorithm, name, fn):
    """Runs `fn` (True when the check holds), records and prints its row."""
    global failed
    t0 = time.perf_counter()
    try:
        ok, note = fn(), ""
    except Exception as e:  # a failure of the step, reported in its row
        ok, note = False, f"{type(e).__name__}: {e}"[:200]
    secs = time.perf_counter() - t0
    failed |= not ok
    rows.append((algorithm, name, secs, "ok" if ok else "FAILED", note))
    print(f"  {algorithm:9} {name:34} {secs:7.1f} s  {'ok' if ok else 'FAILED'} {note}", flush=True)


def make_input(corpus, path, gib):
    total = gib << 30
    text = np.fromfile(os.path.join(corpus, "lineitem.tbl"), dtype=np.uint8)
    rng = np.random.default_rng(22)
    out = np.empty(total + TAIL, dtype=np.uint8)
    n_text = total * 3 // 5
    out[:n_text] = np.resize(text, n_text)
    n_float = (total // 5) // 4
    walk = np.cumsum(rng.standard_normal(n_float, dtype=np.float32) * np.float32(0.01), dtype=np.float32)
    out[n_text:n_text + 4 * n_float] = walk.view(np.uint8)
    rest = out[n_text + 4 * n_float:]
    rest[:] = rng.integers(0, 256, rest.size, dtype=np.uint8)
    out.tofile(path)
    return out


def cli(binary, *args):
    r = subprocess.run([binary, *args, "-f"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"gpucomp {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    return True


def device_bytes(path):
    return cp.asarray(np.fromfile(path, dtype=np.uint8))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cli")
    p.add_argument("corpus")
    p.add_argument("work")
    p.add_argument("--gib", type=int, default=5)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    src = os.path.join(a.work, "input.bin")
    print(f"input: {a.gib} GiB + {TAIL} bytes", flush=True)
    host = make_input(a.corpus, src, a.gib)
    x = cp.asarray(host)
    del host
    for alg in ALGORITHMS:
        gpu_stream = os.path.join(a.work, f"input.{alg}.nvc")
        cpu_stream = os.path.join(a.work, f"input.{alg}.cpu.nvc")
        back = os.path.join(a.work, "back.bin")
        step(alg, "cli gpu compress", lambda: cli(a.cli, "compress", "--gpu", "--algorithm", alg, src, gpu_stream))
        step(alg, "cli gpu decompress = input",
             lambda: cli(a.cli, "decompress", "--gpu", gpu_stream, back) and filecmp.cmp(back, src, shallow=False))
        step(alg, "cli cpu decompress = input",
             lambda: cli(a.cli, "decompress", "--cpu", gpu_stream, back) and filecmp.cmp(back, src, shallow=False))
        step(alg, "cli cpu compress = gpu stream",
             lambda: cli(a.cli, "compress", "--cpu", "--algorithm", alg, src, cpu_stream)
             and filecmp.cmp(cpu_stream, gpu_stream, shallow=False))
        for f in (back, cpu_stream):
            if os.path.exists(f):
                os.remove(f)
        ours = device_bytes(gpu_stream) if os.path.exists(gpu_stream) else None

        def device_round_trip():
            # The library's defaults are the CLI's: the same stream.
            codec = gpucomp.Codec(algorithm=NVCOMP_NAMES[alg])
            encoded = cp.asarray(codec.encode(x)).view(cp.uint8)
            same = ours is not None and bool(cp.array_equal(encoded, ours))
            decoded = cp.asarray(codec.decode(encoded)).view(cp.uint8)
            return same and bool(cp.array_equal(decoded, x))

        step(alg, "device encode = cli stream, decode", device_round_trip)
        if nvcomp is None:
            rows.append((alg, "nvcomp", 0.0, "skipped", NVCOMP_MISSING))
            print(f"  {alg:9} nvcomp skipped: {NVCOMP_MISSING}")
        else:
            def nvcomp_decodes_ours():
                codec = nvcomp.Codec(algorithm=NVCOMP_NAMES[alg])
                decoded = cp.asarray(codec.decode(nvcomp.as_array(ours))).view(cp.uint8).ravel()
                return bool(cp.array_equal(decoded, x))

            def we_decode_nvcomps():
                theirs = nvcomp.Codec(algorithm=NVCOMP_NAMES[alg]).encode(nvcomp.as_array(x))
                stream = cp.asarray(theirs).view(cp.uint8).ravel()
                decoded = cp.asarray(gpucomp.Codec().decode(stream)).view(cp.uint8)
                return bool(cp.array_equal(decoded, x))

            step(alg, "nvcomp decodes ours", nvcomp_decodes_ours)
            step(alg, "we decode nvcomp's", we_decode_nvcomps)
        del ours
        cp.get_default_memory_pool().free_all_blocks()
        if os.path.exists(gpu_stream):
            os.remove(gpu_stream)
    os.remove(src)
    print("\nalgorithm  step                                seconds  result")
    for alg, name, secs, result, note in rows:
        print(f"{alg:10} {name:35} {secs:7.1f}  {result} {note}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
