#!/usr/bin/env bash
# Coverage-guided fuzzing of the library (fuzz/, cargo-fuzz + libFuzzer; benches/notes/fuzz.md).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   build, then run each target SECONDS (default 30);
#                                           all targets when none is named; exit 1 on a finding
#   scripts/fuzz.sh seed                    refill fuzz/corpus/<target>/ from tests/data/golden and
#                                           tests/data/zstd
#   scripts/fuzz.sh list                    the targets
#
# Needs cargo-fuzz (installed here from crates.io when missing) and no nightly toolchain:
# RUSTC_BOOTSTRAP=1 lets stable rustc take cargo-fuzz's -Z flags, and `-s none` builds without a
# sanitizer runtime (libFuzzer still gets its coverage from sancov). Findings land in
# fuzz/artifacts/<target>/, new corpus inputs in fuzz/work/<target>/; keep each as a regression input in fuzz/regressions/<target>/
# (tests/fuzz_regressions.rs runs them under `cargo test`).
set -euo pipefail
cd "$(dirname "$0")/.."
# differential_gpu (the differential comparison with the kernels on a GPU) is not among them: it
# needs a CUDA device, and the GPU bundle runs it (scripts/gpu/fuzz.sh).
TARGETS=(container decompress lz4 cascaded bitcomp ans zstd round_trip differential cli)
GOLDEN=tests/data/golden

ZSTD=tests/data/zstd

# The option prefix of the decoder targets for a golden stream name: the algorithm byte the
# fuzz crate's `algorithm` reads (0 LZ4, 1 Cascaded, 2 Bitcomp, 3 ANS, 4 Zstd).
algorithm_byte() {
  case "$1" in
    *.lz4.*) echo 0 ;; *.cascaded.*) echo 1 ;; *.bitcomp.*) echo 2 ;; *.zstd.*) echo 4 ;; *) echo 3 ;;
  esac
}

# Zstd seeds: nvCOMP's RAW streams (one frame each) and the zstd tool's frames for the zstd
# target, nvCOMP's Zstd streams of every kind for container and decompress; at most 8 KiB each.
seed_zstd() {
  rm -rf fuzz/corpus/zstd && mkdir -p fuzz/corpus/zstd
  while IFS= read -r f; do
    seed_file "fuzz/corpus/zstd/$(basename "$f")" "$f" 64
  done < <(find "$ZSTD/streams" -name '*.raw.nvc' -size -8k | sort; find "$ZSTD/foreign" -name '*.zst' -size -8k | sort)
  while IFS= read -r f; do
    local name
    name=$(basename "$f" .nvc)
    cp "$f" "fuzz/corpus/container/$name"
    seed_file "fuzz/corpus/decompress/$name" "$f" 4 0 0 1
  done < <(find "$ZSTD/streams" -name '*.nvc' -size -8k | sort)
}

# Writes `prefix bytes (decimal)... < file` as one seed.
seed_file() { # OUT FILE BYTE...
  local out=$1 file=$2
  shift 2
  { for b in "$@"; do printf "\\$(printf '%03o' "$b")"; done; cat "$file"; } > "$out"
}

seed() {
  for t in "${TARGETS[@]}"; do rm -rf "fuzz/corpus/$t" && mkdir -p "fuzz/corpus/$t"; done
  local i=0
  # Streams of at most 8 KiB: every container kind, every algorithm, nvCOMP's option sets.
  while IFS= read -r f; do
    local name a
    name=$(basename "$f" .nvc)
    a=$(algorithm_byte "$name")
    cp "$f" "fuzz/corpus/container/$name"
    seed_file "fuzz/corpus/decompress/$name" "$f" "$a" 0 0 1
    # cli: inspect (chunk 0 shown) and -d (no --max-size, --verify-checksums) in turn.
    if ((i % 2 == 0)); then
      seed_file "fuzz/corpus/cli/$name.inspect" "$f" 0 64 8 8
    else
      seed_file "fuzz/corpus/cli/$name.d" "$f" 1 0 0 1
    fi
    i=$((i + 1))
  done < <(find "$GOLDEN/streams" -name '*.nvc' -size -8k | sort)
  i=0
  # cli: command lines (mode byte 2, arguments split at NUL bytes).
  local argv=(
    'compress|--algorithm|cascaded|--level|2|--stages|rle|--data-type|short|--kind|usize|IN|OUT'
    'compress|--algorithm=ans|--sub-chunks|16|--states-per-lane|2|--histogram-reduction|3|IN|OUT'
    '-dcf|--max-size|512M|--verify-checksums|--algorithm|bitcomp-sparse|x.nvc'
    '-kq|-o|OUT|--chunk-size|64K|--bitshuffle|msb|--encoder|nvcomp|--|-x'
    'inspect|--chunk|0|--chunks|3|--blocks|2|--algorithm|lz4|--data-type|int|S'
    'verify|--cpu|--gpu|--checksums|F'
    'bench|--runs|5|--algorithm|bitcomp|--data-type|float64|F'
    'decompress|--max-size=1G|-f|IN|OUT'
    'help|inspect'
  )
  for k in "${!argv[@]}"; do
    { printf '\002\000\000\000'; printf '%s' "${argv[$k]}" | tr '|' '\000'; } > "fuzz/corpus/cli/argv$k"
  done
  # Inputs of at most 8 KiB, each with the next algorithm and option bytes in turn.
  while IFS= read -r f; do
    seed_file "fuzz/corpus/round_trip/$(basename "$f")" "$f" $((i % 4)) $((i * 7 % 256)) $((i * 13 % 256)) $((i % 128))
    i=$((i + 1))
  done < <(find "$GOLDEN/inputs" -type f -size -8k | sort)
  seed_zstd
  # Chunks for the per-decoder targets: from the golden streams and the CPU encoders.
  (cd fuzz && cargo run --quiet --example seed -- "../$GOLDEN" corpus)
  du -sh fuzz/corpus
}

run() {
  local secs=$1
  shift
  local targets=("$@")
  ((${#targets[@]})) || targets=("${TARGETS[@]}")
  command -v cargo-fuzz > /dev/null || cargo install --locked cargo-fuzz
  cd fuzz
  RUSTC_BOOTSTRAP=1 cargo fuzz build -s none -O
  for t in "${targets[@]}"; do
    echo "== $t: $secs s"
    mkdir -p "work/$t"
    # -rss_limit_mb / -malloc_limit_mb: an allocation beyond 2 GiB is a finding (bounded memory);
    # -timeout: an input that runs 10 s is one (no hangs).
    # New inputs go to work/<target>/ (ignored by git); the committed corpus/<target>/ is read only.
    RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -O "$t" "work/$t" "corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 \
      -malloc_limit_mb=2048 -timeout=10 -print_final_stats=1
  done
}

case "${1:-}" in
  seed) seed ;;
  list) printf '%s\n' "${TARGETS[@]}" ;;
  '' | [0-9]*)
    secs=${1:-30}
    shift || true
    run "$secs" "$@"
    ;;
  *) run 30 "$@" ;;
esac
