#!/usr/bin/env bash
# Runs gpucomp's GPU benchmarks and tests from the bundle that scripts/gpu-bundle.sh builds, on a
# machine with a GPU, CUDA (nvcc, compute-sanitizer) and python3 with numpy and cupy, and no Rust:
#
#   bash .gpu/run.sh          (from the repository root; full logs go to $OUT, default /tmp/gpucomp-out)
#
# Steps, each with a time cap (the whole run stays under 9.5 minutes):
#   setup      the binaries (.gpu/bin.tar.xz) and nvCOMP (.gpu/nvcomp-*.tar.xz, from its PyPI wheels)
#              unpacked, nvbench built with nvcc
#   corpus     the anchor corpus: nine TPC-H files (bench `corpus`, as shared/tools/corpus) and the
#              two numpy files of benches/nvcomp/anchors' README recipe (weights.f16, sensor.f32);
#              then, from the same generator, weights.e4m3 (2^27 normal values as FLOAT8 E4M3, by
#              torch) for the extra rows
#   bandwidth  device-to-device copy of 2 GiB (cupy, else torch), median of 10, read + written
#   bench      every row of benches/nvcomp/anchors/nvcomp6-h200.csv (algorithm, file, dtype, chunk),
#              then those of benches/nvcomp/extra-rows.csv (no anchor figures: FLOAT8 ANS):
#              nvbench (nvCOMP) and bench `run` (gpucomp, both LZ4 encoders, CPU baselines on the
#              64 KiB text rows) on the same file, chunk size and type
#   interop    benches/nvcomp/interop.py: nvCOMP decodes our streams of every algorithm and type,
#              --encoder nvcomp is byte-identical to nvCOMP, our CLI decodes nvCOMP's corpus streams
#   tests      every test binary, GPU tests included (gpu_hostile's campaign at RUN_HOSTILE_CHUNKS, default
#              4096 chunks per family: a smoke run whose table follows the summary; the full campaign
#              and the sanitizers over every kernel are .gpu/hostile.sh's, a call of its own)
#   sanitizer  compute-sanitizer memcheck on the GPU decoders fed corrupt input (SANITIZE_TESTS)
# A failing step is reported and the next one runs; the summary is printed last: one row per
# anchor row, gpucomp against nvCOMP measured in this run, and ours as % of the bandwidth bound
# BW / (1 + 1/ratio). Exit status 1 if any step failed.
# Logs in $OUT (seven files, the device tool brings back at most eight): setup.log (set-up, corpus,
# bandwidth), bench.log, bench.csv, interop.log, tests.log, sanitizer.log, summary.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=.gpu
OUT=${OUT:-/tmp/gpucomp-out}
WORK=/tmp/gpucomp-work
CORPUS=$WORK/corpus
NVC=/tmp/nvc
# Tests run under memcheck, ';'-separated "BINARY FILTER": BINARY a file of .gpu/bin/tests/ (a
# tests/*.rs name), FILTER libtest's name filter.
SANITIZE_TESTS=${SANITIZE_TESTS:-"gpu corrupt;gpu_columns gpu_rejects_corrupt_chunks_like_the_cpu_decoder"}
ARCH=${ARCH:-sm_90}
ANCHORS=$B/nvcomp/anchors/nvcomp6-h200.csv
EXTRA_ROWS=$B/nvcomp/extra-rows.csv
GOLDEN=tests/data/golden/inputs
START=$SECONDS
DEADLINE=$((SECONDS + 560)) # 9 min 20 s; every timeout is cut to what is left

mkdir -p "$OUT"
rm -rf "$WORK" && mkdir -p "$CORPUS"
: >"$WORK/steps"
export PATH=/usr/local/cuda/bin:$PATH RUST_BACKTRACE=1

log() { echo "[$(date +%T) +$((SECONDS - START))s] $*"; }
# Seconds a command may take: CAP, or less if the step's end (STEP_END) or the deadline is nearer.
budget() {
  local left=$((DEADLINE - SECONDS)) cap=$1
  [ -n "${STEP_END:-}" ] && [ $((STEP_END - SECONDS)) -lt "$left" ] && left=$((STEP_END - SECONDS))
  [ "$left" -lt "$cap" ] && cap=$left
  echo $((cap > 1 ? cap : 1))
}
# Whether the step's time or the run's is (nearly) spent: the rest of a step's loop is skipped.
out_of_time() { [ $((DEADLINE - SECONDS)) -lt 3 ] || { [ -n "${STEP_END:-}" ] && [ $((STEP_END - SECONDS)) -lt 3 ]; }; }
# begin STEP CAP: a step that may take CAP seconds; record STEP RESULT ends it (one summary line).
begin() { STEP=$1 STEP_START=$SECONDS STEP_END=$((SECONDS + $2)); log "$1 ..."; }
record() { printf '%s\t%s (%d s)\n' "$1" "$2" $((SECONDS - STEP_START)) >>"$WORK/steps"; log "$1: $2"; STEP_END=; }

# ---- set-up: the binaries and nvCOMP unpacked, nvbench built against nvCOMP ------------------
# shellcheck source=nvcomp-setup.sh
. "$B/nvcomp-setup.sh"
setup() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "GPU unknown: nvidia-smi failed"
  nvcomp_setup "$B" "$NVC" "$WORK" "$ARCH" "$(budget 90)" "$(budget 120)"
}
begin setup 150
if setup >"$OUT/setup.log" 2>&1; then record setup ok; else record setup "FAILED (setup.log)"; fi
head -1 "$OUT/setup.log"

# ---- the anchor corpus -----------------------------------------------------------------------
begin corpus 120
{
  timeout "$(budget 90)" "$B/bin/bench-throughput" corpus "$CORPUS" 2 256 &&
    # benches/nvcomp/anchors/README.md: one generator, in this order.
    timeout "$(budget 60)" python3 - "$CORPUS" <<'EOF'
import os, sys
import numpy as np
rng = np.random.default_rng(7)
weights = rng.normal(0, 0.02, 64 << 20).astype(np.float16)
sensor = np.cumsum(rng.normal(0, 0.1, 16 << 20)).astype(np.float32)
weights.tofile(os.path.join(sys.argv[1], "weights.f16"))
sensor.tofile(os.path.join(sys.argv[1], "sensor.f32"))
print("numpy: weights.f16, sensor.f32 written")
# Not an anchor file (extra-rows.csv): numpy has no FLOAT8, torch converts (round to nearest).
import torch
e4m3 = torch.from_numpy(rng.normal(0, 1, 128 << 20).astype(np.float32)).to(torch.float8_e4m3fn)
e4m3.view(torch.uint8).numpy().tofile(os.path.join(sys.argv[1], "weights.e4m3"))
print("torch: weights.e4m3 written")
EOF
} >>"$OUT/setup.log" 2>&1
if [ $? -eq 0 ]; then record corpus ok; else record corpus "FAILED (setup.log)"; fi

# ---- device copy bandwidth (bytes read + written), as the anchors measured it ----------------
begin bandwidth 60
timeout "$(budget 60)" python3 - >>"$OUT/setup.log" 2>&1 <<'EOF'
n = 1 << 31
try:
    import cupy as cp
    a, b = cp.ones(n, dtype=cp.uint8), cp.empty(n, dtype=cp.uint8)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    def once():
        start.record(); b[...] = a; end.record(); end.synchronize()
        return cp.cuda.get_elapsed_time(start, end)
    how = "cupy"
except ImportError:
    import torch
    a, b = torch.ones(n, dtype=torch.uint8, device="cuda"), torch.empty(n, dtype=torch.uint8, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    def once():
        start.record(); b.copy_(a); end.record(); end.synchronize()
        return start.elapsed_time(end)
    how = "torch"
times = sorted([once() for _ in range(12)][2:])
ms = times[len(times) // 2]
print(f"bandwidth: {2 * n / (ms / 1e3) / 1e9:.0f} GB/s ({how} copy of 2 GiB, median of 10 after 2 warm-ups, {ms:.3f} ms, read + written)")
EOF
BW=$(awk '/^bandwidth:/ { print $2 }' "$OUT/setup.log")
if [ -n "$BW" ]; then record bandwidth "ok ($BW GB/s)"; else record bandwidth "FAILED (setup.log)"; fi

# ---- gpucomp and nvCOMP side by side, every anchor row ---------------------------------------
# bench.csv: nvbench's rows (algo renamed nvcomp-ALGO) and ours, in nvbench's columns.
begin bench 230
echo "algo,file,dtype,chunk,bytes,comp_bytes,ratio,comp_GBps,decomp_GBps,ok" >"$OUT/bench.csv"
: >"$OUT/bench.log"
bench_fail=()
bench_skipped=()
gpu_part=() # our bench's "GPU part skipped/failed" lines
while IFS=, read -r algo file dtype chunk _; do
  f=$CORPUS/$file
  row="$algo $file $dtype $chunk"
  if out_of_time; then bench_skipped+=("$row"); continue; fi
  [ -s "$f" ] || { bench_fail+=("$file missing"); continue; }
  log "bench: $row: nvCOMP ..."
  echo "=== nvbench $algo $f $dtype $chunk" >>"$OUT/bench.log"
  if timeout "$(budget 60)" "$WORK/nvbench" "$algo" "$f" "$dtype" "$chunk" >"$WORK/nv.out" 2>>"$OUT/bench.log"; then
    awk -F, -v OFS=, '{ $1 = "nvcomp-" $1; print }' "$WORK/nv.out" >>"$OUT/bench.csv"
  else
    bench_fail+=("nvbench $row")
  fi
  cat "$WORK/nv.out" >>"$OUT/bench.log" 2>/dev/null
  baselines=off
  [ "$algo" = lz4 ] && [ "$chunk" = 65536 ] && case $file in *.tbl | *.txt) baselines=on ;; esac
  log "bench: $row: gpucomp$([ $baselines = on ] && echo ' and CPU baselines') ..."
  args=(run "$f" --algorithm "$algo" --type "$dtype" --chunk "$chunk" --baselines $baselines --cpu-runs 5)
  [ -n "$BW" ] && args+=(--bw "$BW")
  echo "=== bench-throughput ${args[*]}" >>"$OUT/bench.log"
  timeout "$(budget 120)" "$B/bin/bench-throughput" "${args[@]}" >"$WORK/ours.out" 2>&1 || bench_fail+=("gpucomp $row")
  grep -q '^GPU part' "$WORK/ours.out" && gpu_part+=("$row: $(grep -m1 '^GPU part' "$WORK/ours.out")")
  cat "$WORK/ours.out" >>"$OUT/bench.log"
  grep -E '^[a-z0-9_-]+,[^,]+,[a-z0-9]+,[0-9]+,' "$WORK/ours.out" >>"$OUT/bench.csv"
done < <(tail -n +2 "$ANCHORS"; tail -n +2 "$EXTRA_ROWS")
[ ${#gpu_part[@]} -eq 0 ] || bench_fail+=("GPU part skipped or failed on ${#gpu_part[@]} rows, first ${gpu_part[0]}")
[ ${#bench_skipped[@]} -eq 0 ] || bench_fail+=("out of time, ${#bench_skipped[@]} rows not run: ${bench_skipped[*]}")
if [ ${#bench_fail[@]} -eq 0 ]; then record bench ok; else
  record bench "FAILED ($(printf '%s; ' "${bench_fail[@]}")bench.log)"
fi

# ---- nvCOMP decodes our streams; our nvCOMP encoder matches nvCOMP; we decode nvCOMP's --------
begin interop 200
PYTHONUNBUFFERED=1 timeout "$(budget 200)" python3 "$B/nvcomp/interop.py" "$B/bin/gpucomp" "$B/bin/bench-throughput" \
  "$WORK/interop" "$CORPUS" "$GOLDEN" >"$OUT/interop.log" 2>&1
rc=$?
rm -rf "$WORK/interop"
if [ $rc -eq 0 ]; then record interop ok; else record interop "FAILED (exit $rc; interop.log)"; fi

# ---- every test binary, for real on the GPU (GPU tests are #[ignore]d without a device) -------
# Paths compiled into the tests (the checkout, the CLI) where the build machine had them.
while IFS=$'\t' read -r built here; do
  [ -e "$built" ] || { mkdir -p "$(dirname "$built")" && ln -s "$PWD/$here" "$built"; }
done <"$B/links"
begin tests 200
: >"$OUT/tests.log"
: >"$WORK/tests"
for bin in "$B"/bin/tests/*; do
  name=$(basename "$bin")
  if out_of_time; then
    printf '%s\t0\t0\t0\tskipped (out of time)\t0\n' "$name" >>"$WORK/tests"
    continue
  fi
  log "tests: $name ..."
  echo "=== $name" >>"$OUT/tests.log"
  # gpu_hostile's tables are its output: shown (one test at a time) for the summary.
  show=()
  [ "$name" = gpu_hostile ] && show=(--nocapture --test-threads 1)
  CARGO_MANIFEST_DIR=$PWD GPUCOMP_HOSTILE_CHUNKS=${RUN_HOSTILE_CHUNKS:-4096} GPUCOMP_HOSTILE_OUT=$OUT/hostile \
    timeout "$(budget 180)" "$bin" --include-ignored "${show[@]}" >"$WORK/test.out" 2>&1
  rc=$?
  cat "$WORK/test.out" >>"$OUT/tests.log"
  # libtest's closing line: "test result: ok. 5 passed; 0 failed; 1 ignored; ..."
  awk -v name="$name" -v rc=$rc '/^test result:/ { p += $4; f += $6; i += $8; seen = 1 }
    END { printf "%s\t%d\t%d\t%d\t%d\t%d\n", name, p, f, i, rc, seen }' "$WORK/test.out" >>"$WORK/tests"
done
bad=$(awk -F'\t' '$5 != 0 || !$6 { printf "%s%s", sep, $1; sep = " " }' "$WORK/tests")
if [ ! -s "$WORK/tests" ]; then record tests "FAILED (no test binaries)"
elif [ -n "$bad" ]; then record tests "FAILED ($bad; tests.log)"
else record tests ok; fi

# ---- compute-sanitizer on the GPU decoders fed corrupt input ---------------------------------
begin sanitizer 150
: >"$OUT/sanitizer.log"
san_fail=()
IFS=';' read -ra san_tests <<<"$SANITIZE_TESTS"
for t in "${san_tests[@]}"; do
  read -r san_bin san_filter <<<"$t"
  echo "=== memcheck: $t" >>"$OUT/sanitizer.log"
  if out_of_time; then
    san_fail+=("$san_bin: not run, out of time")
    continue
  elif [ ! -x "$B/bin/tests/$san_bin" ]; then
    san_fail+=("no test binary '$san_bin'")
    continue
  fi
  log "sanitizer: memcheck on $t ..."
  # shellcheck disable=SC2086 # the filter is split on purpose
  CARGO_MANIFEST_DIR=$PWD timeout "$(budget 150)" compute-sanitizer --tool memcheck --error-exitcode 86 \
    "$B/bin/tests/$san_bin" --include-ignored $san_filter >"$WORK/san.out" 2>&1
  rc=$?
  cat "$WORK/san.out" >>"$OUT/sanitizer.log"
  errors=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$WORK/san.out" | tail -1 | awk '{print $3}')
  ran=$(awk '/^test result:/ { p += $4 } END { print p + 0 }' "$WORK/san.out")
  echo "=== $t: exit $rc, ${errors:-no} memcheck errors, $ran tests passed" >>"$OUT/sanitizer.log"
  { [ $rc -eq 0 ] && [ "${errors:-x}" = 0 ] && [ "$ran" -gt 0 ]; } ||
    san_fail+=("$san_bin: exit $rc, ${errors:-no} memcheck errors, $ran passed")
done
if [ ${#san_fail[@]} -eq 0 ]; then record sanitizer ok; else record sanitizer "FAILED (${san_fail[*]}; sanitizer.log)"; fi

# ---- the summary, last -----------------------------------------------------------------------
python3 "$B/nvcomp/summary.py" "$WORK/steps" "$WORK/tests" "$OUT" "$ANCHORS" "${BW:-}" "$SANITIZE_TESTS" "$EXTRA_ROWS" |
  tee "$OUT/summary.txt"
# The tests step's smoke run of the GPU mutation campaign (the full one and the sanitizers over
# every kernel: .gpu/hostile.sh).
{
  echo
  echo "GPU mutation campaign, smoke run in the tests step (bash .gpu/hostile.sh runs the full campaign and the sanitizers):"
  awk '/^=== / { on = ($2 == "gpu_hostile"); show = 0 } on && /^mutation campaign/ { show = 1 } show && /^(\||mutation campaign)/' \
    "$OUT/tests.log"
} | tee -a "$OUT/summary.txt"
! grep -q FAILED "$WORK/steps"
