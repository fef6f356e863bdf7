#!/usr/bin/env bash
# Runs gpucomp's GPU tests and benchmarks from the bundle that scripts/gpu-bundle.sh builds, on a
# machine with a GPU, CUDA (nvcc, compute-sanitizer) and python3 with cupy, and no Rust:
#
#   bash .gpu/run.sh          (from the repository root; full logs go to $OUT, default /tmp/gpucomp-out)
#
# Steps: set-up (nvCOMP wheels, nvbench built with nvcc), TPC-H corpus, every test binary, memcheck
# of the corrupt-stream GPU decoder test, gpucomp vs nvCOMP side by side on the same files and
# 64 KiB chunks, nvCOMP decoding our streams. A failing step is reported and the next one runs;
# a short table is printed last. Exit status 1 if any step failed. Stays under 9 minutes.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=.gpu
OUT=${OUT:-/tmp/gpucomp-out}
WORK=/tmp/gpucomp-work
NVC=/tmp/nvc
# The test that runs the GPU decoder on corrupt streams, as "BINARY [FILTER...]": BINARY a file of
# .gpu/bin/tests/ (a tests/*.rs name), FILTER libtest's name filter.
SANITIZE_TEST=${SANITIZE_TEST:-"gpu corrupt"}
ARCH=${ARCH:-sm_90}
CHUNK=65536
# Inputs of the nvCOMP interop check besides the corpus: the golden inputs with real content
# (the ckNNN size probes only repeat what the three kept here cover).
INTEROP_INPUTS=(tests/data/golden/inputs/[!c]* tests/data/golden/inputs/ck{013,08192,65536}.bin)
DEADLINE=$((SECONDS + 510)) # 8.5 minutes; each step's timeout is cut to what is left

mkdir -p "$OUT"
rm -rf "$WORK" && mkdir -p "$WORK/corpus"
: >"$WORK/steps"
export PATH=/usr/local/cuda/bin:$PATH RUST_BACKTRACE=1

log() { echo "[$(date +%T)] $*"; }
# Seconds a step may take: its own cap, or what is left before the deadline.
budget() { local left=$((DEADLINE - SECONDS)); echo $((left < $1 ? (left > 0 ? left : 1) : $1)); }
# record STEP RESULT: one line of the summary's step list.
record() { printf '%s\t%s\n' "$1" "$2" >>"$WORK/steps"; log "$1: $2"; }

# ---- set-up: nvCOMP from the carried wheels, nvbench built against it ------------------------
setup() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "GPU unknown: nvidia-smi failed"
  timeout 120 python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore \
    --no-index --no-deps --target "$NVC" "$B"/wheels/*.whl || return 1
  local so; so=$(find "$NVC/nvidia/libnvcomp" -name 'libnvcomp.so.6' | head -1)
  [ -n "$so" ] || { echo "libnvcomp.so.6 not in the wheel"; return 1; }
  NVLIB=$(dirname "$so")
  ln -sf libnvcomp.so.6 "$NVLIB/libnvcomp.so" # the wheel has only the .so.6 name
  export LD_LIBRARY_PATH=$NVLIB:${LD_LIBRARY_PATH:-} PYTHONPATH=$NVC${PYTHONPATH:+:$PYTHONPATH}
  timeout 180 nvcc -O3 -std=c++17 -arch="$ARCH" -I"$NVC/nvidia/libnvcomp/include" "$B/nvcomp/nvbench.cu" \
    -L"$NVLIB" -lnvcomp -o "$WORK/nvbench"
}
log "set-up: nvCOMP wheels, nvbench ..."
if setup >"$OUT/setup.log" 2>&1; then record setup ok; else record setup "FAILED (setup.log)"; fi
head -1 "$OUT/setup.log"

log "corpus: TPC-H lineitem, scale factor 2, 256 MiB of text ..."
if timeout "$(budget 90)" "$B/bin/bench-lz4" corpus "$WORK/corpus" 2 256 >>"$OUT/setup.log" 2>&1; then
  record corpus ok
else
  record corpus "FAILED (setup.log)"
fi
CORPUS=("$WORK"/corpus/lineitem.tbl "$WORK"/corpus/lineitem_comment.txt)

# ---- every test binary, for real on the GPU (GPU tests are #[ignore]d without a device) -------
# Paths compiled into the tests (the checkout, the CLI) where the build machine had them.
while IFS=$'\t' read -r built here; do
  [ -e "$built" ] || { mkdir -p "$(dirname "$built")" && ln -s "$PWD/$here" "$built"; }
done <"$B/links"
: >"$OUT/tests.log"
: >"$WORK/tests"
for bin in "$B"/bin/tests/*; do
  name=$(basename "$bin")
  log "tests: $name ..."
  echo "=== $name" >>"$OUT/tests.log"
  CARGO_MANIFEST_DIR=$PWD timeout "$(budget 180)" "$bin" --include-ignored >"$WORK/test.out" 2>&1
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

# ---- compute-sanitizer on the corrupt-stream decoder test ------------------------------------
read -r san_bin san_filter <<<"$SANITIZE_TEST"
if [ -x "$B/bin/tests/$san_bin" ]; then
  log "sanitizer: memcheck on $SANITIZE_TEST ..."
  # shellcheck disable=SC2086 # the filter is split on purpose
  CARGO_MANIFEST_DIR=$PWD timeout "$(budget 150)" compute-sanitizer --tool memcheck --error-exitcode 86 \
    "$B/bin/tests/$san_bin" --include-ignored $san_filter >"$OUT/sanitizer.log" 2>&1
  rc=$?
  errors=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$OUT/sanitizer.log" | tail -1 | awk '{print $3}')
  if [ $rc -eq 0 ] && [ "${errors:-x}" = 0 ]; then record sanitizer ok
  else record sanitizer "FAILED (exit $rc, ${errors:-no} memcheck errors; sanitizer.log)"; fi
else
  record sanitizer "FAILED (no test binary '$san_bin' in $B/bin/tests: set SANITIZE_TEST)"
  echo "no test binary $san_bin" >"$OUT/sanitizer.log"
fi

# ---- gpucomp and nvCOMP side by side ---------------------------------------------------------
# bench.csv: every row in the bench's columns; nvbench's rows lose their dtype column (char).
echo "algo,file,chunk,bytes,comp_bytes,ratio,comp_GBps,decomp_GBps,ok" >"$OUT/bench.csv"
: >"$OUT/bench.log"
bench_fail=()
for f in "${CORPUS[@]}"; do
  [ -s "$f" ] || { bench_fail+=("$(basename "$f") missing"); continue; }
  log "bench: nvCOMP on $(basename "$f") ..."
  echo "=== nvbench lz4 $f char $CHUNK" >>"$OUT/bench.log"
  if timeout "$(budget 60)" "$WORK/nvbench" lz4 "$f" char $CHUNK >"$WORK/nv.out" 2>>"$OUT/bench.log"; then
    awk -F, -v OFS=, '{ $1 = "nvcomp-lz4"; $3 = ""; sub(/,,/, ","); print }' "$WORK/nv.out" >>"$OUT/bench.csv"
  else
    bench_fail+=("nvbench $(basename "$f")")
  fi
  cat "$WORK/nv.out" >>"$OUT/bench.log" 2>/dev/null
  log "bench: gpucomp and CPU baselines on $(basename "$f") ..."
  echo "=== bench-lz4 run $f --chunk $CHUNK" >>"$OUT/bench.log"
  timeout "$(budget 150)" "$B/bin/bench-lz4" run "$f" --chunk $CHUNK >"$WORK/ours.out" 2>&1 ||
    bench_fail+=("bench-lz4 $(basename "$f")")
  grep -q '^GPU part' "$WORK/ours.out" && bench_fail+=("$(basename "$f"): $(grep -m1 '^GPU part' "$WORK/ours.out")")
  cat "$WORK/ours.out" >>"$OUT/bench.log"
  grep -E '^[a-z0-9_-]+,[^,]+,[0-9]+,' "$WORK/ours.out" >>"$OUT/bench.csv"
done
if [ ${#bench_fail[@]} -eq 0 ]; then record bench ok; else record bench "FAILED (${bench_fail[*]}; bench.log)"; fi

# ---- nvCOMP decodes our streams; our nvCOMP encoder matches nvCOMP byte for byte -------------
log "interop: nvCOMP's Python API against the gpucomp CLI ..."
if PYTHONUNBUFFERED=1 timeout "$(budget 150)" python3 "$B/nvcomp/interop.py" "$B/bin/gpucomp" "$WORK/interop" \
  "${CORPUS[@]}" "${INTEROP_INPUTS[@]}" >"$OUT/interop.log" 2>&1; then
  record interop ok
else
  record interop "FAILED (exit $?; interop.log)"
fi

# ---- the table, last -------------------------------------------------------------------------
python3 - "$WORK/steps" "$WORK/tests" "$OUT/bench.csv" "$OUT/sanitizer.log" "$OUT/interop.log" \
  "$OUT/bench.log" "$OUT/setup.log" "$SANITIZE_TEST" <<'EOF' | tee "$OUT/summary.txt"
import csv, re, sys
steps, tests, bench, san, interop, benchlog, setup, san_test = sys.argv[1:]
read = lambda p: open(p, errors="replace").read()
gpu = (read(setup).splitlines() or ["GPU unknown"])[0]
print(f"\n==== gpucomp on the GPU: {gpu} ====")
for line in read(steps).splitlines():
    step, result = line.split("\t", 1)
    print(f"  {step:<10} {result}")
rows = [l.split("\t") for l in read(tests).splitlines()]
p, f, i = (sum(int(r[k]) for r in rows) for k in (1, 2, 3))
failing = [f"{r[0]} (exit {r[4]}{'' if r[5] == '1' else ', no result line'})" for r in rows if r[4] != "0" or r[5] != "1"]
print(f"tests: {len(rows)} binaries, {p} passed, {f} failed, {i} ignored; failing binaries: {', '.join(failing) or 'none'}")
m = re.findall(r"ERROR SUMMARY: (\d+) error", read(san))
print(f"sanitizer: memcheck on '{san_test}': " + (f"{m[-1]} errors" if m else "no summary (see sanitizer.log)"))
verdicts = dict(re.findall(r"^(nvcomp-[a-z-]+): (.*)$", read(interop), re.M))
print(f"nvCOMP decodes gpucomp's streams: {verdicts.get('nvcomp-decodes-ours', 'not run')}; "
      f"--encoder nvcomp byte-identical to nvCOMP: {verdicts.get('nvcomp-encoder-identical', 'not run')}")
by = {(r["algo"], r["file"]): r for r in csv.DictReader(open(bench))}
files = list(dict.fromkeys(f for _, f in by))
num = lambda r, k: float(r[k]) if r and r.get(k) not in (None, "", "nan", "NaN") else float("nan")
fmt = lambda x, spec: "-" if x != x else format(x, spec)
div = lambda a, b: a / b if b else float("nan")
print(f"\n{'file':<22}{'direction':<11}{'encoder':<9}{'gpucomp GB/s':>13}{'nvCOMP GB/s':>13}{'ours/nvCOMP':>13}"
      f"{'ratio ours':>12}{'ratio nvCOMP':>14}  ok")
for fname in files:
    nv = by.get(("nvcomp-lz4", fname))
    for algo, enc in (("gpucomp-lz4", "gpucomp"), ("gpucomp-lz4-nvenc", "nvcomp")):
        ours = by.get((algo, fname))
        for d, k in (("compress", "comp_GBps"), ("decompress", "decomp_GBps")):
            a, b = num(ours, k), num(nv, k)
            ok = "/".join(x["ok"] for x in (ours, nv) if x) or "-"
            print(f"{fname:<22}{d:<11}{enc:<9}{fmt(a, '.1f'):>13}{fmt(b, '.1f'):>13}{fmt(div(a, b), '.2f'):>13}"
                  f"{fmt(num(ours, 'ratio'), '.3f'):>12}{fmt(num(nv, 'ratio'), '.3f'):>14}  {ok}")
threads = re.findall(r"CPU baselines: (\d+) threads", read(benchlog))
for fname in files:
    cpu = [f"{a} {fmt(num(by[(a, fname)], 'comp_GBps'), '.2f')}/{fmt(num(by[(a, fname)], 'decomp_GBps'), '.2f')} GB/s "
           f"(ratio {fmt(num(by[(a, fname)], 'ratio'), '.3f')})" for a in ("lz4_flex", "zstd-1") if (a, fname) in by]
    if cpu:
        print(f"CPU, {threads[0] if threads else '?'} threads, comp/decomp, {fname}: " + "; ".join(cpu))
print(f"logs: {' '.join(sorted(['setup.log', 'tests.log', 'sanitizer.log', 'bench.log', 'bench.csv', 'interop.log', 'summary.txt']))}")
EOF
! grep -q FAILED "$WORK/steps"
