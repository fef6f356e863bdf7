#!/usr/bin/env bash
# A second measurement after run.sh, on the same machine and corpus: nvCOMP (nvbench) and gpucomp
# (bench `run`) alternately on the ANS rows, ROUNDS rounds each (one batched call per direction,
# median of 15, per round), then the medians of the rounds and their ratios. Alternating evens
# out the drift of one long run (clocks, temperature) that a side-by-side pair can meet.
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
ROWS=("weights.f16 float16" "weights.e4m3 float8" "lineitem.tbl uchar" "lineitem_comment.txt uchar")
[ -x "$WORK/nvbench" ] || { echo "no $WORK/nvbench: run bash $B/run.sh on this machine first" >&2; exit 1; }
so=$(find /tmp/nvc -name 'libnvcomp.so*' 2>/dev/null | head -1)
[ -n "$so" ] || { echo "no nvCOMP under /tmp/nvc: run bash $B/run.sh on this machine first" >&2; exit 1; }
export LD_LIBRARY_PATH=$(dirname "$so")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x "$B/bin/bench-throughput" ] || tar -C "$B" -xJf "$B/bin.tar.xz" || exit 1
mkdir -p "$OUT"
csv=$OUT/confirm.csv
: >"$csv"
for round in $(seq "$ROUNDS"); do
  for row in "${ROWS[@]}"; do
    read -r file dtype <<<"$row"
    echo "[round $round] $file $dtype: nvCOMP, gpucomp ..."
    "$WORK/nvbench" ans "$WORK/corpus/$file" "$dtype" 65536 2>>"$OUT/confirm.log" |
      awk -F, -v r="$round" '$1 == "ans" { print "nvcomp," r "," $0 }' >>"$csv"
    "$B/bin/bench-throughput" run "$WORK/corpus/$file" --algorithm ans --type "$dtype" --chunk 65536 \
      --baselines off 2>>"$OUT/confirm.log" |
      awk -F, -v r="$round" '$1 == "gpucomp-ans" { print "gpucomp," r "," $0 }' >>"$csv"
  done
done
# Columns: who, round, then nvbench's: algo,file,dtype,chunk,bytes,comp_bytes,ratio,comp_GBps,decomp_GBps,ok
python3 - "$csv" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    runs[(f[0], f"{f[3]} {f[4]}")].append((float(f[9]), float(f[10])))
print(f"\nANS, nvCOMP and gpucomp alternately: medians of the rounds, GB/s\n"
      f"{'file':28} {'comp ours':>9} {'nvCOMP':>8} {'x':>6} | {'dec ours':>9} {'nvCOMP':>8} {'x':>6}")
for row in sorted({k[1] for k in runs}):
    ours, nv = runs[("gpucomp", row)], runs[("nvcomp", row)]
    if not ours or not nv:
        print(f"{row:28} missing ({len(ours)} gpucomp / {len(nv)} nvCOMP rounds)")
        continue
    med = lambda rs, i: statistics.median(r[i] for r in rs)
    oc, od, nc, nd = med(ours, 0), med(ours, 1), med(nv, 0), med(nv, 1)
    print(f"{row:28} {oc:9.1f} {nc:8.1f} {oc / nc:6.3f} | {od:9.1f} {nd:8.1f} {od / nd:6.3f}")
PY
