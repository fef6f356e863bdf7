#!/usr/bin/env bash
# Builds gpucomp's GPU test and bench binaries into one folder, .gpu/, with a script that runs them
# all on a machine that has a GPU and no Rust, and prints a table:
#
#   scripts/gpu-bundle.sh        here: release build, compressed binaries, slimmed nvCOMP (downloaded once)
#   bash .gpu/run.sh             there, from the repository root ($OUT: where the logs go)
#   bash .gpu/hostile.sh         there, in a call of its own: mutation campaign and compute-sanitizer (issue 22)
#
# With the workplace's device tool: run(command="bash .gpu/run.sh", carry=<the list the bundle prints>, timeout_s=600).
# .gpu/ is git-ignored; it travels with the working tree, and both together must stay under 64 MiB,
# hence the xz archives (the binaries shrink about 30x: see bin.tar.xz below).
#
# .gpu/bin.tar.xz        bin/tests/NAME (every integration test, tests/NAME.rs and cli/tests/NAME.rs), bin/bench-throughput
#                        (benches/throughput.rs: corpus writer, GPU throughput of every algorithm,
#                        stream writer), bin/gpucomp (the CLI); run.sh unpacks it into .gpu/bin/
# .gpu/nvcomp-VERSION.tar.xz  nvCOMP from its PyPI wheels nvidia-libnvcomp-cu13 / nvidia-nvcomp-cu13:
#                        headers, libraries, Python API (not the nvlzcat tool); wheels cached in
#                        target/gpu-wheels/
# .gpu/nvcomp/           nvbench.cu (nvCOMP's side), interop.py, summary.py, alternate.py, anchors/ and extra-rows.csv
#                        (the anchor rows)
# .gpu/run.sh            scripts/gpu/run.sh (with nvcomp-setup.sh, the set-up it shares with matrix.sh)
# .gpu/matrix.sh, shapes.py  scripts/gpu/matrix.sh: the bench matrix of issue 23 (benches/shapes.py's data shapes,
#                        nvCOMP and gpucomp side by side; one round a call, ROUND=1, 2; carry printed at the end)
# .gpu/confirm.sh        scripts/gpu/confirm.sh (a second, alternating measurement of the ANS rows)
# .gpu/batch-sizes.sh    scripts/gpu/batch-sizes.sh (ANS against the batch size, nvCOMP and gpucomp)
# .gpu/ab.sh            scripts/gpu/ab.sh (this build against a base build's bench, alternately, every row)
# .gpu/hostile.sh       scripts/gpu/hostile.sh (issue 22: the GPU mutation campaign and compute-sanitizer's four
#                        tools over every kernel), a call of its own: the carry is printed last
# .gpu/links             build-machine paths compiled into the tests, and what they stand for there
# .gpu/py/               the Python package's run (scripts/gpu/python.sh, as .gpu/python.sh): wheels/ (gpucomp's
#                        abi3 wheel by maturin; zarr, numcodecs, pytest and their dependencies but numpy, for
#                        CPython $GPU_PYTHON, default 3.12, the GPU machine's), bin.tar.xz (bench-throughput).
#                        It travels in a call of its own with the nvCOMP archive (carry PY_CARRY below): with
#                        the test binaries the carry would be over the limit. bin.tar.xz holds the CLI too.
# .gpu/fuzz/, fuzz.sh   the differential_gpu fuzz target (fuzz/, built by cargo fuzz) and scripts/gpu/fuzz.sh, which
#                        runs it for 10^7 executions in parallel jobs on the GPU (carry printed at the end)
# .gpu/large.sh, large.py  scripts/gpu/large.*: a 5 GiB input through the CLI (GPU and CPU), the device API
#                        and nvidia.nvcomp, every algorithm (carry printed at the end)
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
B=.gpu
LIMIT_MIB=63 # a call's carry plus the working tree; the device tool carries 64 MiB in all (1 MiB left for a script)
NVCOMP=6.0.0.12
GPU_PYTHON=${GPU_PYTHON:-3.12}
WHEELS=target/gpu-wheels
STAGE=target/gpu-stage

echo "==> building the integration tests, the throughput bench and the CLI (release) ..."
rm -rf "${B:?}/bin" "$B/bin.tar.xz" "$B/nvcomp" "$B/fuzz" "$B/fuzz.sh" "$B/run.sh" "$B/nvcomp-setup.sh" "$B/matrix.sh" "$B/shapes.py" "$B/confirm.sh" "$B/batch-sizes.sh" "$B/ab.sh" "$B/hostile.sh" "$B/links" "$B/wheels" \
  "$B/py" "$B/python.sh" "${STAGE:?}"
mkdir -p "$STAGE/bin/tests" "$B/nvcomp" "$WHEELS"
artifacts=$(mktemp)
trap 'rm -f "$artifacts"' EXIT
cargo test --release --no-run -p gpucomp -p gpucomp-cli --message-format=json-render-diagnostics >"$artifacts"
cargo build --release -p gpucomp --bench throughput --message-format=json-render-diagnostics >>"$artifacts"
cargo build --release -p gpucomp-cli --bin gpucomp --message-format=json-render-diagnostics >>"$artifacts"

# Pick the executables out of cargo's artifact messages (the library's and the CLI's tests/*.rs).
# `cargo test` also builds the CLI's unit tests under the name gpucomp: the CLI is the bin
# artifact that is not a test build.
python3 - "$artifacts" "$STAGE/bin" "$B/links" "$B/bin" <<'EOF'
import json, os, shutil, sys
artifacts, dest, links, there = sys.argv[1:]
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
    elif kind == ["bench"] and name == "throughput":
        shutil.copy(exe, f"{dest}/bench-throughput")
    elif kind == ["bin"] and name == "gpucomp" and not test:
        shutil.copy(exe, f"{dest}/gpucomp")
        link[exe] = f"{there}/gpucomp"
with open(links, "w") as f:
    f.writelines(f"{built}\t{here}\n" for built, here in link.items())
EOF
for exe in "$STAGE/bin/bench-throughput" "$STAGE/bin/gpucomp"; do
  [ -x "$exe" ] || { echo "error: cargo built no $exe" >&2; exit 1; }
done
strip "$STAGE"/bin/bench-throughput "$STAGE"/bin/gpucomp "$STAGE"/bin/tests/*
for t in "$STAGE"/bin/tests/*; do echo "    tests/${t##*/}"; done
echo "==> compressing the binaries ($(du -sh "$STAGE/bin" | cut -f1)) ..."
# Every binary embeds the same PTX (11 MiB of text): a dictionary larger than the archive's input
# stores it once (12 MiB -> 4 MiB; one xz thread, a few minutes with 2 cores).
tar -C "$STAGE" -cf - bin | xz -T1 --lzma2=preset=6,dict=192MiB >"$B/bin.tar.xz"

# Named for the one CPython whose nvCOMP Python module it keeps (the GPU machine's).
nv_archive=$B/nvcomp-$NVCOMP-cp${GPU_PYTHON/./}.tar.xz
if [ ! -s "$nv_archive" ]; then
  rm -f "$B"/nvcomp-*.tar.xz
  if ! compgen -G "$WHEELS/nvidia_libnvcomp_cu13-$NVCOMP-*.whl" >/dev/null ||
    ! compgen -G "$WHEELS/nvidia_nvcomp_cu13-$NVCOMP-*.whl" >/dev/null; then
    echo "==> downloading the nvCOMP $NVCOMP wheels (about 34 MB) ..."
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64 \
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$WHEELS" \
      "nvidia-libnvcomp-cu13==$NVCOMP" "nvidia-nvcomp-cu13==$NVCOMP"
  fi
  echo "==> slimming nvCOMP into $nv_archive (headers, libraries, Python API; a few minutes of xz, once) ..."
  python3 - "$STAGE/nvcomp" "cpython-${GPU_PYTHON/./}-" "$WHEELS"/nvidia_libnvcomp_cu13-$NVCOMP-*.whl "$WHEELS"/nvidia_nvcomp_cu13-$NVCOMP-*.whl <<'EOF'
import sys, zipfile
dest, python, wheels = sys.argv[1], sys.argv[2], sys.argv[3:]
def wanted(name):
    # The package trees only: not the command-line tool (bin/nvlzcat, 8 MB), and the Python
    # module of the GPU machine's CPython only (seven of 1.7 MB each in the wheel), so that the
    # Python run's carry holds nvCOMP beside the working tree.
    module = name.startswith("nvidia/nvcomp/nvcomp_impl.cpython-")
    return name.startswith("nvidia/") and "/bin/" not in name and (not module or python in name)
for w in wheels:
    z = zipfile.ZipFile(w)
    z.extractall(dest, [n for n in z.namelist() if wanted(n)])
EOF
  tar -C "$STAGE/nvcomp" -cf - nvidia | xz -6 -T0 >"$nv_archive.part"
  mv "$nv_archive.part" "$nv_archive"
fi

cp benches/nvcomp/nvbench.cu benches/nvcomp/interop.py benches/nvcomp/summary.py benches/nvcomp/alternate.py \
  benches/nvcomp/matrix.py benches/nvcomp/extra-rows.csv "$B/nvcomp/"
cp -r benches/nvcomp/anchors "$B/nvcomp/"
cp scripts/gpu/run.sh scripts/gpu/nvcomp-setup.sh scripts/gpu/matrix.sh benches/shapes.py "$B/"
cp scripts/gpu/confirm.sh "$B/confirm.sh"
cp scripts/gpu/batch-sizes.sh "$B/batch-sizes.sh"
cp scripts/gpu/ab.sh "$B/ab.sh"
cp scripts/gpu/hostile.sh "$B/hostile.sh"

echo "==> the Python package: gpucomp's wheel, zarr, numcodecs and pytest wheels for CPython $GPU_PYTHON ($B/py) ..."
mkdir -p "$B/py" "$STAGE/py/bin" "$STAGE/py/built"
tools=target/bundle-venv
[ -x "$tools/bin/maturin" ] || { python3 -m venv "$tools" && "$tools/bin/pip" install -q "maturin>=1.7,<2"; }
"$tools/bin/maturin" build --quiet --release -m python/Cargo.toml -o "$STAGE/py/built"
python3 -m pip download -q --only-binary=:all: --python-version "$GPU_PYTHON" --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$STAGE/py/deps" zarr numcodecs pytest
# numpy is there already (CuPy's), and 16 MB.
find "$STAGE/py/deps" -name 'numpy-*.whl' -delete
cp "$STAGE/bin/bench-throughput" "$STAGE/bin/gpucomp" "$STAGE/py/bin/"
# The wheels travel stored (not deflated) inside one xz archive with the binaries, so that xz
# compresses their contents: the Python run's carry needs the room (nvCOMP beside the tree).
python3 - "$STAGE/py/wheels" "$STAGE"/py/built/*.whl "$STAGE"/py/deps/*.whl <<'EOF'
import os, sys, zipfile
dest, wheels = sys.argv[1], sys.argv[2:]
os.makedirs(dest, exist_ok=True)
for w in wheels:
    with zipfile.ZipFile(w) as src, zipfile.ZipFile(os.path.join(dest, os.path.basename(w)), "w") as out:
        for item in src.infolist():
            data = src.read(item)
            item.compress_type = zipfile.ZIP_STORED
            out.writestr(item, data)
EOF
tar -C "$STAGE/py" -cf - bin wheels | xz -T1 --lzma2=preset=9,dict=64MiB >"$B/py/py.tar.xz"
cp scripts/gpu/python.sh "$B/python.sh"
cp scripts/gpu/large.sh scripts/gpu/large.py "$B/"

echo "==> the differential_gpu fuzz target (cargo-fuzz, no sanitizer, optimised) ($B/fuzz) ..."
mkdir -p "$B/fuzz"
(cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build -s none -O differential_gpu)
xz -T1 -c fuzz/target/x86_64-unknown-linux-gnu/release/differential_gpu >"$B/fuzz/differential_gpu.xz"
cp scripts/gpu/fuzz.sh "$B/fuzz.sh"

tree=$(git ls-files -z -co --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
mib() { awk -v s="$1" 'BEGIN { printf "%.1f MiB", s / 1048576 }'; }
# Each call's carry, as the lines below print it: leftovers in $B (scratch files, older
# bench binaries) travel with none of them, so they do not count.
run_carry=("$B/bin.tar.xz" "$nv_archive" "$B/nvcomp" "$B/nvcomp-setup.sh" "$B/run.sh" "$B/links")
py_carry=("$B/py" "$B/python.sh" "$nv_archive")
carry_bytes() { du -scb "$@" | tail -1 | cut -f1; }
size=$(carry_bytes "${run_carry[@]}")
py_size=$(carry_bytes "${py_carry[@]}")
echo "==> the run carry: $(mib "$size") (binaries $(du -sh "$B/bin.tar.xz" | cut -f1), nvCOMP $(du -sh "$nv_archive" | cut -f1)); Python run $(mib "$py_size"); working tree $(mib "$tree")"
for carried in "$size" "$py_size"; do
  if [ $((carried + tree)) -gt $((LIMIT_MIB << 20)) ]; then
    echo "error: a carry of $(mib "$carried") plus the working tree is over $LIMIT_MIB MiB: it would not travel" >&2
    exit 1
  fi
done
quoted() { local out="" p; for p in "$@"; do out+="${out:+, }\"$p\""; done; echo "[$out]"; }
echo "==> run it on a GPU machine from the repository root: bash $B/run.sh   (device tool: carry $(quoted "${run_carry[@]}"))"
echo "    hostile input (campaign, sanitizers): bash $B/hostile.sh   (carry [\"$B/bin.tar.xz\", \"$B/links\", \"$B/hostile.sh\"])"
echo "    the Python run: bash $B/python.sh   (carry [\"$B/py\", \"$B/python.sh\", \"$nv_archive\"])"
echo "    the differential fuzz target on the GPU: bash $B/fuzz.sh   (carry [\"$B/fuzz\", \"$B/fuzz.sh\"])"
echo "    the bench matrix (issue 23): ROUND=1 bash $B/matrix.sh, then ROUND=2   (carry [\"$B/bin.tar.xz\", \"$nv_archive\", \"$B/nvcomp\", \"$B/nvcomp-setup.sh\", \"$B/matrix.sh\", \"$B/shapes.py\"])"
echo "    inputs over 4 GiB: bash $B/large.sh   (carry [\"$B/py\", \"$B/large.sh\", \"$B/large.py\", \"$nv_archive\"])"
