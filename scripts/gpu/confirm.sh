#!/usr/bin/env bash
# A second measurement after run.sh, on the same machine and corpus: nvCOMP (nvbench) and gpucomp
# (bench `run`) alternately on the ANS rows, ROUNDS rounds each (benches/nvcomp/alternate.py: one
# batched call per direction, median of 15, per round), then the medians of the rounds and their
# ratios.
#
#   bash .gpu/confirm.sh        (from the repository root, after bash .gpu/run.sh; $OUT as there)
#
# With the workplace's device tool, in the call right after run.sh's (the machine still warm,
# its corpus and nvbench still there): run(command="bash .gpu/confirm.sh", carry=[".gpu"]).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=.gpu
OUT=${OUT:-/tmp/gpucomp-out}
WORK=/tmp/gpucomp-work # run.sh's corpus and nvbench build
ROUNDS=${ROUNDS:-3}
[ -x "$WORK/nvbench" ] || { echo "no $WORK/nvbench: run bash $B/run.sh on this machine first" >&2; exit 1; }
so=$(find /tmp/nvc -name 'libnvcomp.so*' 2>/dev/null | head -1)
[ -n "$so" ] || { echo "no nvCOMP under /tmp/nvc: run bash $B/run.sh on this machine first" >&2; exit 1; }
export LD_LIBRARY_PATH=$(dirname "$so")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x "$B/bin/bench-throughput" ] || tar -C "$B" -xJf "$B/bin.tar.xz" || exit 1
mkdir -p "$OUT"
# benches/nvcomp/alternate.py: the rounds, their rows in confirm.csv, the medians.
python3 - "$WORK" "$OUT" "$ROUNDS" <<'PY'
import os, sys
sys.path.insert(0, ".gpu/nvcomp")
import alternate
work, out, nrounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [("weights.f16", "float16"), ("weights.e4m3", "float8"), ("lineitem.tbl", "uchar"),
        ("lineitem_comment.txt", "uchar")]
csv = os.path.join(out, "confirm.csv")
open(csv, "w").close()
alternate.run(os.path.join(work, "nvbench"), ".gpu/bin/bench-throughput",
              [(os.path.join(work, "corpus", f), t) for f, t in rows], nrounds, csv, os.path.join(out, "confirm.log"))
runs = alternate.rounds(csv)
print(f"\nANS, nvCOMP and gpucomp alternately: medians of the rounds, GB/s\n"
      f"{'file':28} {'comp ours':>9} {'nvCOMP':>8} {'x':>6} | {'dec ours':>9} {'nvCOMP':>8} {'x':>6}")
for file, dtype in sorted({(k[1], k[2]) for k in runs}):
    row, m = f"{file} {dtype}", alternate.medians(runs, file, dtype)
    if m is None:
        print(f"{row:28} missing ({len(runs[('gpucomp', file, dtype)])} gpucomp / "
              f"{len(runs[('nvcomp', file, dtype)])} nvCOMP rounds)")
        continue
    _, oc, nc, od, nd = m
    print(f"{row:28} {oc:9.1f} {nc:8.1f} {oc / nc:6.3f} | {od:9.1f} {nd:8.1f} {od / nd:6.3f}")
PY
