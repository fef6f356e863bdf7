#!/usr/bin/env bash
# Two builds of gpucomp side by side: the bench of a base build (BASE, e.g. main before a change)
# and this bundle's, alternately on every row of the bench matrix (anchors and extra rows), ROUNDS
# rounds (the order flips each round), then per row and direction the medians of the rounds and
# this build / base. For changes that must not move performance (refactors): every ratio should
# sit within the rounds' spread.
#
#   [ROUNDS=2] [ROWS=REGEX] [MATRIX=1] bash .gpu/ab.sh BASE_BENCH   (after bash .gpu/run.sh on the same machine, or
#                                    with MATRIX=1 after bash .gpu/matrix.sh; BASE_BENCH is a bench-throughput binary,
#                                    or an .xz of one, of the base build)
# MATRIX=1 takes the bench matrix's rows and data shapes (benches/shapes.py, in matrix.sh's work folder) instead
# of the anchor rows and corpus.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=.gpu
OUT=${OUT:-/tmp/gpucomp-out}
WORK=/tmp/gpucomp-work # run.sh's corpus
ROUNDS=${ROUNDS:-2}
ROWS=${ROWS:-.} # an extended regex: only the matrix rows (algo,file,dtype,chunk) it matches
DEADLINE=$((SECONDS + ${SECONDS_CAP:-540}))
base=${1:?usage: bash .gpu/ab.sh BASE_BENCH}
if [ "${MATRIX:-0}" = 1 ]; then
  DATA=$WORK/shapes
  [ -s "$DATA/rows.csv" ] || { echo "no $DATA/rows.csv: run bash $B/matrix.sh on this machine first" >&2; exit 1; }
  all_rows() { tail -n +2 "$DATA/rows.csv"; }
else
  DATA=$WORK/corpus
  [ -d "$DATA" ] || { echo "no $DATA: run bash $B/run.sh on this machine first" >&2; exit 1; }
  all_rows() { tail -n +2 $B/nvcomp/anchors/nvcomp6-h200.csv; tail -n +2 $B/nvcomp/extra-rows.csv; }
fi
[ -x "$B/bin/bench-throughput" ] || tar -C "$B" -xJf "$B/bin.tar.xz" || exit 1
if [[ $base == *.xz ]]; then xz -dc "$base" >"$WORK/base-bench" 2>/dev/null || python3 -c 'import lzma, sys
open(sys.argv[2], "wb").write(lzma.open(sys.argv[1]).read())' "$base" "$WORK/base-bench"; base=$WORK/base-bench; fi
chmod +x "$base"
mkdir -p "$OUT"
csv=$OUT/ab.csv
: >"$csv"
rows=$(all_rows | cut -d, -f1-4 | grep -E -- "$ROWS")
for r in $(seq 1 "$ROUNDS"); do
  order=(base new); [ $((r % 2)) -eq 0 ] && order=(new base)
  while IFS=, read -r algo file dtype chunk; do
    [ $SECONDS -lt $DEADLINE ] || { echo "out of time in round $r" >&2; break 2; }
    echo "[round $r of $ROUNDS] $algo $file $dtype $chunk" >&2
    for who in "${order[@]}"; do
      bin=$base; [ $who = new ] && bin=$B/bin/bench-throughput
      timeout 120 "$bin" run "$DATA/$file" --algorithm "$algo" --type "$dtype" --chunk "$chunk" \
        --baselines off 2>>"$OUT/ab.log" | grep -E '^gpucomp-[a-z0-9_-]+,' | sed "s/^/$who,$r,/" >>"$csv"
    done
  done <<<"$rows"
done
python3 - "$csv" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    who, algo, file, dtype, chunk = f[0], f[2], f[3], f[4], int(f[5]) >> 10
    num = lambda v: float(v) if v != "n/a" else float("nan")  # n/a: the GPU part failed
    runs[(algo, file, dtype, chunk, who)].append((num(f[9]), num(f[10])))
print(f"\nthis build / base, alternately, medians of the rounds (GB/s)\n"
      f"{'algo':18} {'file':26} {'type':8} {'chunk':>5} {'comp new':>9} {'base':>8} {'x':>6} | {'dec new':>9} {'base':>8} {'x':>6}")
for algo, file, dtype, chunk in sorted({k[:4] for k in runs}):
    new, base = runs[(algo, file, dtype, chunk, "new")], runs[(algo, file, dtype, chunk, "base")]
    row = f"{algo:18} {file:26} {dtype:8} {chunk:4}K"
    if not new or not base:
        print(f"{row} missing"); continue
    m = lambda rs, i: statistics.median(r[i] for r in rs)
    nc, bc, nd, bd = m(new, 0), m(base, 0), m(new, 1), m(base, 1)
    fmt = lambda a, b: f"{a:9.1f} {b:8.1f} {a / b if b else float('nan'):6.3f}"
    print(f"{row} {fmt(nc, bc)} | {fmt(nd, bd)}")
PY
