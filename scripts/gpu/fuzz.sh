#!/usr/bin/env bash
# The differential_gpu fuzz target on a GPU machine (issue 22): libFuzzer mutates chunks of every
# algorithm from the repository's differential corpus, and each is decoded by the kernels on the
# GPU (batched API) and by the CPU decoder; their statuses, sizes and bytes must agree and
# nothing may be written past the output capacity. JOBS processes share the GPU, each running
# RUNS / JOBS executions (or until CAP seconds), then the table sums them.
#
# The script starts a CUDA MPS control daemon of its own (private pipe and log folders under /tmp,
# no change to the card's settings) and stops it at the end, so that the jobs' small launches
# run side by side: without it (MPS=0, or if the daemon does not start) the processes take turns
# on the GPU by time slices, about 6 000 executions a second in all against 140 000 with it
# (H200, 12 jobs; benches/notes/fuzz.md).
#
#   [RUNS=10000000] [JOBS=12] [CAP=480] [MPS=1|0] bash .gpu/fuzz.sh  (device tool: carry [".gpu/fuzz", ".gpu/fuzz.sh"])
#
# Logs in $OUT: fuzz-summary.txt, fuzz-logs.tar.xz (fuzz-N.log per job: the device tool brings back
# at most eight files), mps-control.log, and any finding (crash-*, timeout-*, oom-*).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=.gpu
OUT=${OUT:-/tmp/gpucomp-out}
RUNS=${RUNS:-10000000}
JOBS=${JOBS:-12}
CAP=${CAP:-480}
MPS=${MPS:-1}
WORK=/tmp/gpucomp-fuzz
rm -rf "$WORK" && mkdir -p "$WORK/corpus" "$OUT"
if [ "$MPS" = 1 ]; then
  export CUDA_MPS_PIPE_DIRECTORY=$WORK/mps-pipe CUDA_MPS_LOG_DIRECTORY=$WORK/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d; then
    trap 'echo quit | nvidia-cuda-mps-control; cp "$CUDA_MPS_LOG_DIRECTORY"/control.log "$OUT/mps-control.log" 2>/dev/null' EXIT
    echo "MPS: control daemon started"
  else
    echo "MPS: could not start the control daemon; the jobs share the GPU by time slices"
  fi
fi
python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.open(sys.argv[1]).read())' \
  "$B/fuzz/differential_gpu.xz" "$WORK/differential_gpu" || exit 1
chmod +x "$WORK/differential_gpu"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
seeds=$(realpath fuzz/corpus/differential)
echo "seeds: $(ls "$seeds" | wc -l) inputs; $JOBS jobs x $((RUNS / JOBS)) executions (at most ${CAP}s each)"
start=$SECONDS
(cd "$WORK" && timeout $((CAP + 60)) ./differential_gpu -jobs="$JOBS" -workers="$JOBS" -runs=$((RUNS / JOBS)) \
  -max_total_time="$CAP" -rss_limit_mb=4096 -timeout=10 -print_final_stats=1 corpus "$seeds" >fuzz.log 2>&1)
rc=$?
(cd "$WORK" && python3 -c 'import sys, tarfile
with tarfile.open(sys.argv[1], "w:xz") as t: [t.add(f) for f in sys.argv[2:]]' "$OUT/fuzz-logs.tar.xz" fuzz-*.log)
findings=$(ls "$WORK" | grep -E '^(crash|timeout|oom|leak)-' || true)
for f in $findings; do cp "$WORK/$f" "$OUT/"; done
python3 - "$WORK" "$((SECONDS - start))" "$rc" <<'PY' | tee "$OUT/fuzz-summary.txt"
import glob, re, sys
work, secs, rc = sys.argv[1], int(sys.argv[2]), sys.argv[3]
execs, covs = 0, []
for log in sorted(glob.glob(f"{work}/fuzz-*.log")):
    text = open(log, errors="replace").read()
    m = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
    execs += int(m[-1]) if m else 0
    c = re.findall(r"cov: (\d+)", text)
    covs.append(int(c[-1]) if c else 0)
corpus = len(glob.glob(f"{work}/corpus/*"))
print(f"differential_gpu: {execs:,} executions in {secs} s ({execs / max(secs, 1):,.0f}/s), "
      f"{len(covs)} jobs, coverage at the end {min(covs, default=0)}-{max(covs, default=0)}, corpus {corpus}, exit {rc}")
PY
if [ -n "$findings" ]; then echo "FINDINGS: $findings"; exit 1; fi
