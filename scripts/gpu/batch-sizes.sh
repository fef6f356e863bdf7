#!/usr/bin/env bash
# ANS compression and decompression against the batch size: nvCOMP (nvbench) and gpucomp (bench
# `run`) alternately (benches/nvcomp/alternate.py), ROUNDS rounds, medians of the rounds. Two
# tables:
#   scaling      FLOAT16 weights and FLOAT8 E4M3 at 1x, 2x and 4x the anchors' batch (2048 chunks
#                of 64 KiB; the larger batches repeat the 1x file): GB/s and ratios
#   small        the first 1, 8, 132, 396, 792 and 1584 chunks of the FLOAT16 weights: microseconds
#                per call (1 chunk: one thread block's latency and the launch)
# It needs nothing of run.sh: the bundle's binaries and nvCOMP are unpacked, nvbench is built and
# the data generated here (the anchors' generator: default_rng(7), weights first, then the
# sensor draws it skips, then FLOAT8 by torch, as run.sh writes them).
#
#   bash .gpu/batch-sizes.sh        (from the repository root; logs and CSVs in $OUT)
#
# With the workplace's device tool: run(command="bash .gpu/batch-sizes.sh", carry=[".gpu"]),
# about 2 minutes.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=.gpu
OUT=${OUT:-/tmp/gpucomp-out}
WORK=/tmp/gpucomp-batch
NVC=/tmp/nvc
ROUNDS=${ROUNDS:-3}
ARCH=${ARCH:-sm_90}
mkdir -p "$WORK" "$OUT"
export PATH=/usr/local/cuda/bin:$PATH

[ -x "$B/bin/bench-throughput" ] && [ -d "$NVC/nvidia/libnvcomp" ] ||
  python3 -c 'import sys, tarfile
for archive, dest in zip(sys.argv[1::2], sys.argv[2::2]):
    tarfile.open(archive).extractall(dest)' "$B/bin.tar.xz" "$B" "$(ls "$B"/nvcomp-*.tar.xz | head -1)" "$NVC" || exit 1
so=$(find "$NVC/nvidia/libnvcomp" -name 'libnvcomp.so.6' | head -1)
[ -n "$so" ] || { echo "libnvcomp.so.6 not in the wheel" >&2; exit 1; }
NVLIB=$(dirname "$so")
ln -sf libnvcomp.so.6 "$NVLIB/libnvcomp.so"
export LD_LIBRARY_PATH=$NVLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x "$WORK/nvbench" ] || nvcc -O3 -std=c++17 -arch="$ARCH" -I"$NVC/nvidia/libnvcomp/include" \
  "$B/nvcomp/nvbench.cu" -L"$NVLIB" -lnvcomp -o "$WORK/nvbench" || exit 1

echo "generating the data ..."
python3 - "$WORK" <<'EOF' || exit 1
import os, sys
import numpy as np
import torch
d = sys.argv[1]
rng = np.random.default_rng(7)
weights = rng.normal(0, 0.02, 64 << 20).astype(np.float16)
rng.normal(0, 0.1, 16 << 20)  # sensor.f32's draws
e4m3 = torch.from_numpy(rng.normal(0, 1, 128 << 20).astype(np.float32)).to(torch.float8_e4m3fn)
e4m3 = e4m3.view(torch.uint8).numpy()
for k in (1, 2, 4):
    np.tile(weights, k).tofile(os.path.join(d, f"weights-x{k}.f16"))
    np.tile(e4m3, k).tofile(os.path.join(d, f"weights-x{k}.e4m3"))
raw = weights.view(np.uint8)
for c in (1, 8, 132, 396, 792, 1584):
    raw[:c << 16].tofile(os.path.join(d, f"weights-{c}.f16"))
EOF

# benches/nvcomp/alternate.py: the rounds, their rows in batch-sizes.csv, the medians.
python3 - "$WORK" "$OUT" "$ROUNDS" <<'EOF'
import os, sys
sys.path.insert(0, ".gpu/nvcomp")
import alternate
work, out, nrounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
scaled = [(f"weights-x{k}.{ext}", t) for k in (1, 2, 4) for ext, t in (("f16", "float16"), ("e4m3", "float8"))]
counts = (1, 8, 132, 396, 792, 1584)
small = [(f"weights-{c}.f16", "float16") for c in counts]
csv, log = os.path.join(out, "batch-sizes.csv"), os.path.join(out, "batch-sizes.log")
open(csv, "w").close()
open(log, "w").close()
alternate.run(os.path.join(work, "nvbench"), ".gpu/bin/bench-throughput",
              [(os.path.join(work, f), t) for f, t in scaled + small], nrounds, csv, log)
runs = alternate.rounds(csv)
head = f"{'file':20} {'chunks':>6} | {'comp ours':>9} {'nvCOMP':>8} {'x':>6} | {'dec ours':>9} {'nvCOMP':>8} {'x':>6}"
print(f"\nANS against the batch size, nvCOMP and gpucomp alternately (medians of the rounds)\n{head}   GB/s")
for file, dtype in sorted(scaled, key=lambda r: r[1] == "float8"):
    m = alternate.medians(runs, file, dtype)
    if m is None:
        print(f"{file}: missing")
        continue
    n, oc, nc, od, nd = m
    print(f"{file:20} {n >> 16:6} | {oc:9.1f} {nc:8.1f} {oc / nc:6.3f} | {od:9.1f} {nd:8.1f} {od / nd:6.3f}")
print(f"\n{head}   us per call")
for c, (file, dtype) in zip(counts, small):
    m = alternate.medians(runs, file, dtype)
    if m is None:
        print(f"{file}: missing")
        continue
    n, oc, nc, od, nd = m
    us = lambda gbps: n / gbps / 1e3
    print(f"{file:20} {c:6} | {us(oc):9.1f} {us(nc):8.1f} {oc / nc:6.3f} | {us(od):9.1f} {us(nd):8.1f} {od / nd:6.3f}")
EOF
