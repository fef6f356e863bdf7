#!/usr/bin/env bash
# Inputs over 4 GiB on a GPU machine (no Rust, no network): scripts/gpu/large.py with the CLI, the
# gpucomp wheel and nvidia.nvcomp's wheels from the bundle.
#
#   bash .gpu/large.sh [GIB]   (device tool: carry [".gpu/py", ".gpu/large.sh", ".gpu/large.py", ".gpu/nvcomp-6.0.0.12-cp312.tar.xz"])
#
# Log in $OUT/large.log; exit 1 on a failed check.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
B=.gpu
OUT=${OUT:-/tmp/gpucomp-out}
WORK=/tmp/gpucomp-large
NVC=/tmp/nvc
mkdir -p "$OUT"
rm -rf "$WORK" && mkdir -p "$WORK/corpus" "$WORK/site"
python3 - "$B/py/py.tar.xz" "$B/py" "$(ls "$B"/nvcomp-*.tar.xz | head -1)" "$NVC" <<'PY'
import sys, tarfile
for archive, dest in zip(sys.argv[1::2], sys.argv[2::2]):
    tarfile.open(archive).extractall(dest)
PY
python3 -m pip install -q --no-index --no-deps --target "$WORK/site" "$B"/py/wheels/gpucomp-*.whl
timeout 120 "$B/py/bin/bench-throughput" corpus "$WORK/corpus" 1 256 >/dev/null 2>&1
so=$(find "$NVC/nvidia/libnvcomp" -name 'libnvcomp.so.6' | head -1)
export LD_LIBRARY_PATH=$(dirname "$so"):${LD_LIBRARY_PATH:-} PYTHONPATH=$WORK/site:$NVC${PYTHONPATH:+:$PYTHONPATH}
timeout 560 python3 "$B/large.py" "$B/py/bin/gpucomp" "$WORK/corpus" "$WORK" --gib "${1:-5}" 2>&1 | tee "$OUT/large.log"
status=${PIPESTATUS[0]}
rm -rf "$WORK"
exit "$status"
