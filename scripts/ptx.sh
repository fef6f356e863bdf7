#!/usr/bin/env bash
# Kernel toolchain and PTX: the one project command for the device code.
#
#   scripts/ptx.sh            install the kernel toolchain if missing, then regenerate kernels/ptx/*.ptx
#   scripts/ptx.sh install    install the kernel toolchain only (Debian rustc-web, rust-web-src, LLVM 22)
#   scripts/ptx.sh check      fail unless the committed PTX matches the kernel sources, has no panic
#                             paths (trap) and each kernel's barriers are the ones in BARRIERS below;
#                             run ptxas on it (installing PyPI nvidia-cuda-nvcc into target/ if
#                             needed) and print every kernel's registers, shared memory and spills;
#                             fail on spills (beyond ALLOWED_SPILLS below)
#   scripts/ptx.sh hash       print the kernel source hash the PTX must record
#
# The PTX is committed so that the library builds on stable Rust with no kernel toolchain; its first
# line records the hash of the sources it came from (build.rs computes the same hash). The hash
# covers the code but not its comments or layout, so doc-only edits keep the PTX.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
ARCHS=(sm_80 sm_90)
# Spills the check accepts, as "arch:kernel:bytes" (spill stores), each with its reason:
# - bitcomp_compress on sm_90 runs 24 warps per SM (3 thread blocks of 8 warps, or more of fewer),
#   hence at most 80 registers; ptxas then spills a few chunk-loop invariants (lane offsets, and
#   since blocks are as wide as the largest chunk, 48 bytes instead of 28), stored once per thread
#   and reloaded once per chunk or 8 KiB block, outside every inner loop.
# - ans_compress runs 6 thread blocks of 4 warps per SM, hence at most 80 registers; ptxas spills
#   values of the histogram, the table and the chunk loop, none in the encode's tile loops (more
#   warps per SM measured +12 % on text, +7 % on FLOAT16 against 4 spill-free blocks);
#   ans_compress_float (FLOAT16 and FLOAT32, smaller staging buffers) and ans_compress_float8
#   (FLOAT8) are the same body for their data types alone, with the same bounds.
# - zstd_decompress (the warp decoder) and zstd_decompressed_size (the serial counting pass): the
#   frame walk's state, lane 0's sequence decoder and the 4 literal streams, each with the 8-byte
#   word its bit reader keeps (which replaced 8 byte loads per peek); not yet placed by nvdisasm nor
#   measured: the lead's first H200 run of the warp decoder decides (benches/notes/zstd.md).
ALLOWED_SPILLS="sm_90:bitcomp_compress:48 sm_80:ans_compress:228 sm_90:ans_compress:180
  sm_80:ans_compress_float:148 sm_90:ans_compress_float:136
  sm_80:ans_compress_float8:196 sm_90:ans_compress_float8:220 sm_80:zstd_decompress:296
  sm_90:zstd_decompress:224 sm_80:zstd_decompressed_size:376 sm_90:zstd_decompressed_size:304"
# `bar.sync` instructions per kernel (the same on every arch; kernels not listed have none). A
# `bar.sync` (`barrier.sync.aligned`) must be reached by every thread of a warp at the same
# instruction, and LLVM may copy a region holding barriers along a `tid == 0` branch, which hangs
# the kernel: a count above the one here is such a copy until the PTX shows otherwise, and a
# barrier added on purpose raises its kernel's count. (Unaligned `barrier.sync` would be immune,
# but ptxas then spills two to three times as much in ans_compress and bitcomp_compress.)
BARRIERS="ans_compress:19 ans_compress_float:19 ans_compress_float8:19 ans_decompress:5 bitcomp_compress:2 bitcomp_decompress:0
  cascaded_compress:5 cascaded_decompress:13 lz4_bitshuffle:2"
NVCC_WHEEL="nvidia-cuda-nvcc==13.0.88"

source_hash() {
  # Same rule as build.rs: code, not comments (scripts/source_hash.py says how).
  python3 scripts/source_hash.py kernels
}

have_toolchain() {
  [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library/core ] && [ -x /usr/lib/llvm-22/bin/llc ] &&
    /usr/bin/rustc --print target-list 2>/dev/null | grep -qx nvptx64-nvidia-cuda
}

install_toolchain() {
  if have_toolchain; then echo "kernel toolchain: present ($(/usr/bin/rustc --version))"; return; fi
  echo "kernel toolchain: installing Debian rustc-web, cargo-web, rust-web-src, rust-web-llvm ..."
  local sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq rustc-web cargo-web rust-web-src rust-web-llvm >/dev/null
  have_toolchain || { echo "kernel toolchain still missing after install" >&2; exit 1; }
  echo "kernel toolchain: installed ($(/usr/bin/rustc --version))"
}

build_ptx() {
  local hash; hash=$(source_hash)
  mkdir -p kernels/ptx
  for arch in "${ARCHS[@]}"; do
    echo "building PTX for $arch ..."
    (cd kernels && env -u RUSTFLAGS -u RUSTC_WRAPPER -u RUSTC_WORKSPACE_WRAPPER \
       RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_ENCODED_RUSTFLAGS="-Ctarget-cpu=$arch" \
       /usr/bin/cargo build -q -p gpucomp-kernels --profile ptx --config .cargo/nvptx.toml \
       --target-dir "$ROOT/target/ptx-$arch")
    { echo "// gpucomp-kernels source hash: $hash"; cat "target/ptx-$arch/nvptx64-nvidia-cuda/ptx/gpucomp_kernels.ptx"; } \
      > "kernels/ptx/gpucomp_$arch.ptx"
  done
  echo "wrote kernels/ptx/gpucomp_{${ARCHS[*]// /,}}.ptx (source hash $hash)"
}

ptxas_bin() {
  if command -v ptxas >/dev/null; then command -v ptxas; return; fi
  local dir=target/nvcc
  if [ ! -x $dir/nvidia/cu13/bin/ptxas ]; then
    python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target $dir "$NVCC_WHEEL" >&2
  fi
  echo "$PWD/$dir/nvidia/cu13/bin/ptxas"
}

check_ptx() {
  local hash status=0; hash=$(source_hash)
  for arch in "${ARCHS[@]}"; do
    local f=kernels/ptx/gpucomp_$arch.ptx
    [ -f "$f" ] || { echo "missing $f: run scripts/ptx.sh" >&2; exit 1; }
    if [ "$(head -1 "$f")" != "// gpucomp-kernels source hash: $hash" ]; then
      echo "$f is stale: the kernel sources changed since it was built; run scripts/ptx.sh and commit" >&2; exit 1
    fi
  done
  echo "committed PTX matches the kernel sources (hash $hash)"
  # A `trap` is a panic path (a bounds check or overflow the kernel code did not rule out): on
  # the device it would kill the CUDA context instead of returning a status.
  for arch in "${ARCHS[@]}"; do
    local traps; traps=$(awk '/^\.(visible \.)?entry/ { k = $NF; sub(/\(.*/, "", k) } /trap;/ { print k }' "kernels/ptx/gpucomp_$arch.ptx" | sort -u)
    if [ -n "$traps" ]; then echo "panic paths (trap) in $arch PTX, kernels: $traps" >&2; status=1; fi
    awk -v want="$BARRIERS" '
      BEGIN { n = split(want, a, " "); for (i = 1; i <= n; i++) { split(a[i], f, ":"); w[f[1]] = f[2] } }
      /^\.(visible \.)?entry/ { k = $NF; sub(/\(.*/, "", k); seen[k] = 1 }
      /^[ \t]*(bar|barrier)\.sync/ { c[k]++ }
      END { for (k in seen) if (c[k] + 0 != w[k] + 0) {
              printf "%s: %d barriers, BARRIERS says %d (scripts/ptx.sh: a copied barrier?)\n", k, c[k], w[k] > "/dev/stderr"; bad = 1 }
            exit bad }' "kernels/ptx/gpucomp_$arch.ptx" || { echo "barrier count in $arch PTX differs from BARRIERS" >&2; status=1; }
  done
  [ "$status" -ne 0 ] || echo "no panic paths; barriers as in BARRIERS"
  local ptxas; ptxas=$(ptxas_bin)
  printf '%-6s %-28s %5s %8s %8s %8s\n' arch kernel regs smem stack spills
  for arch in "${ARCHS[@]}"; do
    local log; log=$("$ptxas" -arch=$arch -v "kernels/ptx/gpucomp_$arch.ptx" -o /dev/null 2>&1) || { echo "$log" >&2; exit 1; }
    echo "$log" | awk -v arch=$arch -v allowed="$ALLOWED_SPILLS" '
      BEGIN { n = split(allowed, a, " "); for (i = 1; i <= n; i++) { split(a[i], f, ":"); cap[f[1] ":" f[2]] = f[3] } }
      /Compiling entry function/ { k = $7; gsub(/'"'"'/, "", k) }
      /bytes stack frame/ { stack = $1; stores = $5; spills = $5 + $9 }
      /Used [0-9]+ registers/ { regs = 0; smem = 0
        for (i = 1; i <= NF; i++) { if ($(i+1) == "registers,") regs = $i; if ($(i+1) == "bytes" && $(i+2) ~ /^smem,?$/) smem = $i }
        printf "%-6s %-28s %5s %8s %8s %8s\n", arch, k, regs, smem, stack, spills
        if (stores > cap[arch ":" k] + 0) bad = 1 }
      END { exit bad }' || { echo "spills in $arch PTX beyond ALLOWED_SPILLS" >&2; status=1; }
  done
  return $status
}

case "${1:-all}" in
  install) install_toolchain ;;
  all) install_toolchain; build_ptx ;;
  check) check_ptx ;;
  hash) source_hash ;;
  *) echo "usage: scripts/ptx.sh [install|check|hash]" >&2; exit 2 ;;
esac
