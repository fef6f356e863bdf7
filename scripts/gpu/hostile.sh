#!/usr/bin/env bash
# Hostile input on the GPU (issue 22), from the bundle that scripts/gpu-bundle.sh builds, on a
# machine with a GPU and CUDA (compute-sanitizer), no Rust, no nvCOMP:
#
#   bash .gpu/hostile.sh      (from the repository root; logs go to $OUT, default /tmp/gpucomp-out)
#
# With the workplace's device tool, in a call of its own (run.sh fills its 10 minutes):
#   run(command="bash .gpu/hostile.sh", carry=[".gpu/bin.tar.xz", ".gpu/links", ".gpu/hostile.sh"])
#
# Steps (at most 8 minutes in all; each capped):
#   sanitizer  tests/gpu_hostile.rs gpu_every_kernel_once (every .entry of kernels/ptx launched
#              once on small inputs; it fails if one is not) under compute-sanitizer's memcheck,
#              racecheck, synccheck and initcheck (SANITIZE_TOOLS), --error-exitcode: errors per
#              tool, kernels covered (SANITIZE_SECONDS, default 60, each at most)
#   campaign   tests/gpu_hostile.rs gpu_mutation_campaign: GPUCOMP_HOSTILE_CHUNKS (default 100000)
#              mutated chunks per family (LZ4, Cascaded, Bitcomp default and sparse, ANS, Zstd) decoded by
#              the batched GPU API, 4096 per launch, each compared with the CPU decoder
#              (CAMPAIGN_SECONDS, default 240, at most: a family that runs out of its share stops
#              short, and the step fails); the table per family; disagreeing chunks (to keep as
#              regressions) in hostile-disagreements.tar
# Logs in $OUT: sanitize-TOOL.log (four), campaign.log, hostile.txt (the summary), and
# hostile-disagreements.tar if any. Exit status 1 if a step failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=.gpu
OUT=${OUT:-/tmp/gpucomp-out}
BIN=$B/hostile-bin/bin/tests/gpu_hostile
CHUNKS=${GPUCOMP_HOSTILE_CHUNKS:-100000}
TOOLS=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
TOOL_CAP=${SANITIZE_SECONDS:-60}      # seconds per sanitizer tool (the four: 4 minutes at most)
CAMPAIGN_CAP=${CAMPAIGN_SECONDS:-240} # seconds of the campaign
START=$SECONDS
DEADLINE=$((SECONDS + 480)) # 8 minutes; every cap is cut to what is left
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH RUST_BACKTRACE=1
log() { echo "[$(date +%T) +$((SECONDS - START))s] $*"; }
# Seconds a command may take: CAP, or what is left before the deadline if that is less.
budget() {
  local left=$((DEADLINE - SECONDS))
  [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"
}
summary=()
failed=0

# The one test binary it runs, from this bundle's archive (python's tarfile: xz(1) need not be
# installed), and the build machine's paths compiled into it (CARGO_MANIFEST_DIR: the golden
# streams and the PTX it reads).
log "unpacking gpu_hostile from $B/bin.tar.xz ..."
rm -rf "${B:?}/hostile-bin"
python3 -c 'import sys, tarfile
t = tarfile.open(sys.argv[1])
t.extractall(sys.argv[2], [m for m in t if m.name == "bin/tests/gpu_hostile"])' "$B/bin.tar.xz" "$B/hostile-bin"
[ -x "$BIN" ] || { echo "error: no bin/tests/gpu_hostile in $B/bin.tar.xz" >&2; exit 1; }
while IFS=$'\t' read -r built here; do
  [ -e "$built" ] || { mkdir -p "$(dirname "$built")" && ln -s "$PWD/$here" "$built"; }
done <"$B/links"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || echo "GPU unknown: nvidia-smi failed"

# ---- compute-sanitizer over every kernel -----------------------------------------------------
for tool in $TOOLS; do
  log "sanitizer: $tool ..."
  logf=$OUT/sanitize-$tool.log
  CARGO_MANIFEST_DIR=$PWD timeout "$(budget "$TOOL_CAP")" compute-sanitizer --tool "$tool" --error-exitcode 86 \
    "$BIN" --include-ignored --exact gpu_every_kernel_once --nocapture --test-threads 1 >"$logf" 2>&1
  rc=$?
  # memcheck, synccheck, initcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: N
  # hazards displayed (E errors, W warnings)".
  errors=$(grep -oE '(ERROR SUMMARY: [0-9]+ error|\([0-9]+ errors)' "$logf" | grep -oE '[0-9]+' | tail -1)
  hazards=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$logf" | grep -oE '[0-9]+' | tail -1)
  covered=$(grep -oE 'kernels covered: [0-9]+ of [0-9]+' "$logf" | tail -1)
  line="$tool: exit $rc, ${errors:-?} errors${hazards:+, $hazards hazards}, ${covered:-kernels covered: unknown}"
  if [ $rc -eq 0 ] && [ "${errors:-x}" = 0 ] && [ -n "$covered" ]; then summary+=("$line"); else
    summary+=("$line FAILED (sanitize-$tool.log)")
    failed=1
  fi
  log "$line"
done

# ---- the mutation campaign -------------------------------------------------------------------
# The test stops each family at its share of SECONDS (after the batch that passes it); the
# timeout leaves room for the seeds' compression and a last batch per family.
seconds=$(($(budget "$CAMPAIGN_CAP") - 40))
[ "$seconds" -lt 10 ] && seconds=10
log "campaign: $CHUNKS mutated chunks per family, at most $seconds s ..."
rm -rf "$OUT/hostile"
CARGO_MANIFEST_DIR=$PWD GPUCOMP_HOSTILE_CHUNKS=$CHUNKS GPUCOMP_HOSTILE_SECONDS=$seconds GPUCOMP_HOSTILE_OUT=$OUT/hostile \
  timeout "$(budget "$CAMPAIGN_CAP")" "$BIN" --include-ignored --exact gpu_mutation_campaign --nocapture >"$OUT/campaign.log" 2>&1
rc=$?
grep -E '^(\||mutation campaign|[A-Za-z0-9 ]+: [0-9]+ chunks)' "$OUT/campaign.log"
# Families cut short by the time limit ran fewer chunks than asked.
short=$(awk -F'|' -v want="$CHUNKS" 'NF > 3 && $3 + 0 > 0 && $3 + 0 < want { gsub(/^ +| +$/, "", $2); printf "%s%s", sep, $2; sep = ", " }' "$OUT/campaign.log")
# The disagreeing chunks, in one file (the device tool brings back at most eight).
kept=$(find "$OUT/hostile" -type f 2>/dev/null | wc -l)
if [ "$kept" -gt 0 ]; then
  tar -C "$OUT" -cf "$OUT/hostile-disagreements.tar" hostile && rm -rf "$OUT/hostile"
fi
if [ $rc -eq 0 ] && [ -z "$short" ]; then summary+=("campaign: ok ($CHUNKS chunks per family, all agree)"); else
  summary+=("campaign: FAILED (exit $rc${short:+; fewer chunks than asked, out of time: $short}; $((kept / 2)) disagreeing chunks in hostile-disagreements.tar; campaign.log)")
  failed=1
fi
log "campaign: exit $rc"

{
  echo "hostile input on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) in $((SECONDS - START)) s:"
  printf '  %s\n' "${summary[@]}"
  grep -E '^\|' "$OUT/campaign.log"
} | tee "$OUT/hostile.txt"
exit $failed
