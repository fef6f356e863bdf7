#!/usr/bin/env bash
# The bench matrix (issue 23): gpucomp and nvCOMP side by side on common shapes of data beyond the
# anchors, from the bundle that scripts/gpu-bundle.sh builds (bench-throughput, nvCOMP, nvbench.cu),
# on a machine with a GPU, CUDA and python3 with NumPy (PyTorch for the FLOAT8 shape):
#
#   [ROUND=1] [ROWS=REGEX] [SECONDS_CAP=540] bash .gpu/matrix.sh    (device tool: carry [".gpu/bin.tar.xz",
#        ".gpu/nvcomp-6.0.0.12-cp312.tar.xz", ".gpu/nvcomp", ".gpu/nvcomp-setup.sh", ".gpu/matrix.sh", ".gpu/shapes.py"])
#
# benches/shapes.py writes the shapes (a 32 MiB file and its first MiB each) and the rows that fit
# them (algorithm, nvCOMP data type, chunks of 16, 64 and 256 KiB). Every row runs nvbench (nvCOMP's
# batched API) and then bench `run` (gpucomp's; LZ4 with its default encoder), one batched call per
# direction over the file, the median of 15 calls each, every chunk verified. One call of this script is one round over every
# row; run it again with ROUND=2 (a fresh machine regenerates the same shapes) for the second
# measurement, and benches/nvcomp/matrix.py joins the rounds:
#
#   python3 benches/nvcomp/matrix.py matrix-1.csv matrix-2.csv [--plot matrix.svg]
#
# ROWS (an extended regex over `algo,file,dtype,chunk`, e.g. '^ans,') runs only the rows it matches.
# Logs in $OUT: matrix-ROUND.csv (`round,` and nvbench's columns, nvCOMP's algo as nvcomp-ALGO),
# matrix-ROUND.log, and matrix.py's table of this round. Rows left when SECONDS_CAP runs out are
# listed as not run; exit status 1 if a row failed or was not run.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=.gpu
OUT=${OUT:-/tmp/gpucomp-out}
WORK=/tmp/gpucomp-work
SHAPES=$WORK/shapes
NVC=/tmp/nvc
ROUND=${ROUND:-1}
ARCH=${ARCH:-sm_90}
DEADLINE=$((SECONDS + ${SECONDS_CAP:-540}))
CSV=$OUT/matrix-$ROUND.csv
LOG=$OUT/matrix-$ROUND.log
mkdir -p "$OUT" "$WORK"
export PATH=/usr/local/cuda/bin:$PATH
: >"$LOG"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$LOG"

# shellcheck source=nvcomp-setup.sh
. "$B/nvcomp-setup.sh"
nvcomp_setup "$B" "$NVC" "$WORK" "$ARCH" 90 120 >>"$LOG" 2>&1 || { echo "set-up failed (matrix-$ROUND.log)"; exit 1; }
if [ ! -s "$SHAPES/rows.csv" ]; then
  python3 "$B/shapes.py" "$SHAPES" >>"$LOG" 2>&1 || { echo "shapes failed (matrix-$ROUND.log)"; exit 1; }
fi

echo "round,algo,file,dtype,chunk,bytes,comp_bytes,ratio,comp_GBps,decomp_GBps,ok" >"$CSV"
failed=()
left=()
ROWS=${ROWS:-.}
total=$(tail -n +2 "$SHAPES/rows.csv" | grep -cE -- "$ROWS")
done_rows=0
while IFS=, read -r algo file dtype chunk; do
  row="$algo $file $dtype $chunk"
  if [ $((DEADLINE - SECONDS)) -lt 5 ]; then left+=("$row"); continue; fi
  done_rows=$((done_rows + 1))
  [ $((done_rows % 25)) -eq 1 ] && echo "[+$SECONDS s] row $done_rows of $total: $row"
  echo "=== nvbench $row" >>"$LOG"
  if timeout 60 "$WORK/nvbench" "$algo" "$SHAPES/$file" "$dtype" "$chunk" >"$WORK/nv.out" 2>>"$LOG"; then
    awk -F, -v OFS=, -v r="$ROUND" '{ $1 = "nvcomp-" $1; print r, $0 }' "$WORK/nv.out" >>"$CSV"
  else
    failed+=("nvbench $row")
  fi
  echo "=== bench-throughput $row" >>"$LOG"
  encoder=()
  [ "$algo" = lz4 ] && encoder=(--encoder gpucomp)
  timeout 120 "$B/bin/bench-throughput" run "$SHAPES/$file" --algorithm "$algo" --type "$dtype" --chunk "$chunk" \
    "${encoder[@]}" --baselines off >"$WORK/ours.out" 2>&1 || failed+=("gpucomp $row")
  cat "$WORK/ours.out" >>"$LOG"
  grep -E '^gpucomp-[a-z0-9-]+,[^,]+,[a-z0-9]+,[0-9]+,' "$WORK/ours.out" | sed "s/^/$ROUND,/" >>"$CSV"
done < <(tail -n +2 "$SHAPES/rows.csv" | grep -E -- "$ROWS")

python3 "$B/nvcomp/matrix.py" "$CSV" | tee "$OUT/matrix-$ROUND.txt"
echo "round $ROUND: $done_rows of $total rows in $SECONDS s; ${#failed[@]} failed; ${#left[@]} not run (out of time)"
[ ${#failed[@]} -eq 0 ] || printf 'failed: %s\n' "${failed[@]}"
[ ${#left[@]} -eq 0 ] || printf 'not run: %s\n' "${left[@]}" | head -20
[ ${#failed[@]} -eq 0 ] && [ ${#left[@]} -eq 0 ]
