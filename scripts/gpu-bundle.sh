#!/usr/bin/env bash
# Builds gpucomp's GPU test and bench binaries into one folder, .gpu/, with a script that runs them
# all on a machine that has a GPU and no Rust, and prints a table:
#
#   scripts/gpu-bundle.sh        here: release build, stripped copies, nvCOMP wheels (downloaded once)
#   bash .gpu/run.sh             there, from the repository root ($OUT: where the logs go)
#
# With the workplace's device tool: run(command="bash .gpu/run.sh", carry=[".gpu"], timeout_s=600).
# .gpu/ is git-ignored; it travels with the working tree, so it must stay well under 64 MiB.
#
# .gpu/bin/tests/NAME   every integration test (tests/NAME.rs)
# .gpu/bin/bench-lz4    benches/lz4.rs: TPC-H corpus writer and GPU/CPU LZ4 throughput
# .gpu/bin/gpucomp      the CLI (its streams are checked against nvCOMP)
# .gpu/nvcomp/          nvbench.cu (nvCOMP's side of the benchmark) and interop.py (nvCOMP decodes ours)
# .gpu/wheels/          nvidia-libnvcomp-cu13 and nvidia-nvcomp-cu13 (nvCOMP itself)
# .gpu/run.sh           scripts/gpu/run.sh
# .gpu/links            build-machine paths compiled into the tests, and what they stand for here
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
B=.gpu
LIMIT_MIB=60
NVCOMP=6.0.0.12

echo "==> building the integration tests, the lz4 bench and the CLI (release) ..."
rm -rf "${B:?}/bin" "$B/nvcomp" "$B/run.sh" "$B/links"
mkdir -p "$B/bin/tests" "$B/nvcomp" "$B/wheels"
artifacts=$(mktemp)
trap 'rm -f "$artifacts"' EXIT
cargo test --release --no-run -p gpucomp --message-format=json-render-diagnostics >"$artifacts"
cargo build --release -p gpucomp --bench lz4 --bin gpucomp --message-format=json-render-diagnostics >>"$artifacts"

# Pick the executables out of cargo's artifact messages. `cargo test` also builds the CLI's unit
# tests under the name gpucomp: the CLI is the bin artifact that is not a test build.
python3 - "$artifacts" "$B/bin" "$B/links" <<'EOF'
import json, os, shutil, sys
artifacts, dest, links = sys.argv[1:]
# Paths compiled into the tests that run.sh recreates on the GPU machine as links into the
# bundle: env!("CARGO_MANIFEST_DIR") (their data) and env!("CARGO_BIN_EXE_gpucomp") (the CLI).
link = {os.getcwd(): "."}
for line in open(artifacts):
    m = json.loads(line)
    exe = m.get("executable") if m.get("reason") == "compiler-artifact" else None
    if not exe:
        continue
    kind, name, test = m["target"]["kind"], m["target"]["name"], m["profile"]["test"]
    if kind == ["test"]:
        shutil.copy(exe, f"{dest}/tests/{name}")
    elif kind == ["bench"] and name == "lz4":
        shutil.copy(exe, f"{dest}/bench-lz4")
    elif kind == ["bin"] and name == "gpucomp" and not test:
        shutil.copy(exe, f"{dest}/gpucomp")
        link[exe] = f"{dest}/gpucomp"
with open(links, "w") as f:
    f.writelines(f"{built}\t{here}\n" for built, here in link.items())
EOF
for exe in "$B/bin/bench-lz4" "$B/bin/gpucomp"; do
  [ -x "$exe" ] || { echo "error: cargo built no $exe" >&2; exit 1; }
done
strip "$B"/bin/bench-lz4 "$B"/bin/gpucomp "$B"/bin/tests/*
for t in "$B"/bin/tests/*; do echo "    tests/${t##*/}"; done

if ! compgen -G "$B/wheels/nvidia_libnvcomp_cu13-$NVCOMP-*.whl" >/dev/null ||
  ! compgen -G "$B/wheels/nvidia_nvcomp_cu13-$NVCOMP-*.whl" >/dev/null; then
  echo "==> downloading the nvCOMP $NVCOMP wheels (about 34 MB) ..."
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$B/wheels" \
    "nvidia-libnvcomp-cu13==$NVCOMP" "nvidia-nvcomp-cu13==$NVCOMP"
fi

cp benches/nvcomp/nvbench.cu benches/nvcomp/interop.py "$B/nvcomp/"
cp scripts/gpu/run.sh "$B/run.sh"

size=$(du -sb "$B" | cut -f1)
echo "==> $B: $(awk -v s="$size" 'BEGIN { printf "%.1f MiB", s / 1048576 }') (bin $(du -sh "$B/bin" | cut -f1), wheels $(du -sh "$B/wheels" | cut -f1))"
if [ "$size" -gt $((LIMIT_MIB << 20)) ]; then
  echo "error: $B is over $LIMIT_MIB MiB: it would not travel with the working tree" >&2
  exit 1
fi
echo "==> run it on a GPU machine from the repository root: bash $B/run.sh   (device tool: carry [\"$B\"])"
