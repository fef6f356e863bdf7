#!/usr/bin/env bash
# The Python package on a GPU machine (no Rust, no network): installs the gpucomp wheel and the
# zarr / numcodecs wheels that scripts/gpu-bundle.sh put in .gpu/py/, then runs
#   tests     pytest python/tests: the CPU tests again and the GPU ones (CuPy, PyTorch, streams,
#             two threads, out=, zero copy, zarr with enable_gpu(), nvidia.nvcomp interop both ways)
#   bench     benches/python/bench.py: side by side with nvidia.nvcomp (batch of 256 x 1 MiB, one
#             64 KiB array, zarr 1 GiB float32 read and write), with the Rust batched API's figures
#
#   [TESTS='python/tests/test_*.py'] [BENCH_ARGS=] bash .gpu/python.sh
#        (device tool: carry [".gpu/py", ".gpu/python.sh", ".gpu/nvcomp-6.0.0.12.tar.xz"])
#        (without nvCOMP's archive, nvidia.nvcomp's tests skip and its bench columns say missing)
# TESTS: the test files to run (a glob, or empty for none); BENCH_ARGS: bench.py's options, e.g.
# "--only zarr" for the zarr measurements alone, "--only single,zarr" for two of the three.
#
# Logs in $OUT: python-setup.log, python-tests.log, python-bench.log, python-bench.csv, python-bench.png.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=.gpu
OUT=${OUT:-/tmp/gpucomp-out}
WORK=/tmp/gpucomp-py
NVC=/tmp/nvc
mkdir -p "$OUT"
rm -rf "$WORK" && mkdir -p "$WORK/corpus"
START=$SECONDS
log() { echo "[$(date +%T) +$((SECONDS - START))s] $*"; }
status=0

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 --version
  nvc_archive=$(ls "$B"/nvcomp-*.tar.xz 2>/dev/null | head -1)
  python3 - "$B/py/bin.tar.xz" "$B/py" ${nvc_archive:+"$nvc_archive" "$NVC"} <<'PY'
import sys, tarfile
for archive, dest in zip(sys.argv[1::2], sys.argv[2::2]):
    tarfile.open(archive).extractall(dest)
PY
  # Every wheel, without dependency resolution, into a folder on PYTHONPATH: numpy, CuPy and
  # PyTorch are the machine's own (wherever its python3 has them).
  python3 -m pip install -q --no-index --no-deps --target "$WORK/site" "$B"/py/wheels/*.whl
  PYTHONPATH=$WORK/site python3 -c 'import gpucomp, zarr, numcodecs, numpy; print("gpucomp", gpucomp.__version__, "zarr", zarr.__version__, "numcodecs", numcodecs.__version__, "numpy", numpy.__version__, "cuda:", gpucomp.cuda_available())'
  # lineitem.tbl of 256 MiB: the batch's 256 arrays of 1 MiB.
  timeout 120 "$B/py/bin/bench-throughput" corpus "$WORK/corpus" 1 256
} >"$OUT/python-setup.log" 2>&1 && grep -q '^gpucomp ' "$OUT/python-setup.log" || { log "setup FAILED (python-setup.log)"; tail -20 "$OUT/python-setup.log"; exit 1; }
log "setup ok"
so=$(find "$NVC/nvidia/libnvcomp" -name 'libnvcomp.so.6' 2>/dev/null | head -1)
[ -n "$so" ] && export LD_LIBRARY_PATH=$(dirname "$so"):${LD_LIBRARY_PATH:-}
export PYTHONPATH=$WORK/site:$NVC${PYTHONPATH:+:$PYTHONPATH}
PY=python3

# One process per test file: a crash in one (a bug to fix) does not hide the others' results.
: >"$OUT/python-tests.log"
for f in ${TESTS-python/tests/test_*.py}; do
  timeout 120 "$PY" -X faulthandler -m pytest "$f" -v -rs -p no:cacheprovider >"$WORK/test.log" 2>&1
  rc=$?
  { echo "=== $f (exit $rc)"; cat "$WORK/test.log"; } >>"$OUT/python-tests.log"
  [ $rc -eq 0 ] || status=1
  printf '  %-40s exit %3d  %s\n' "${f##*/}" $rc "$(tail -1 "$WORK/test.log" | tr -d '=')"
done
log "tests done"

timeout 300 "$PY" benches/python/bench.py "$WORK/corpus" "$OUT" --bench "$B/py/bin/bench-throughput" ${BENCH_ARGS:-} \
  >"$OUT/python-bench.log" 2>&1 || status=1
sed -n '/^\(batch of 256\|one 64 KiB array\|zarr, 1 GiB\)/,$p' "$OUT/python-bench.log"
log "done (exit $status)"
exit $status
