#!/usr/bin/env bash
# Runs every libFuzzer target of a -DMXLA_FUZZ=ON build for SECONDS each
# (default 30), starting from tests/fuzz/corpus/<target> and its past
# crashes, and prints the executions and crashes per target. New corpus
# entries go to a scratch directory, never into the source tree; a crash is
# saved there as crash-<hash> and fails the run. A target with a generated
# dictionary (BUILD_DIR/tests/fuzz/<target>.dict, tests/fuzz/
# fuzz_dictionaries.cc) gets it with -dict=. Extra libFuzzer flags come
# from MXLA_FUZZ_FLAGS, e.g. "-fork=1 -ignore_crashes=1" to keep going past
# a crash.
# Usage: tools/fuzz.sh BUILD_DIR [SECONDS] [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:?usage: tools/fuzz.sh BUILD_DIR [SECONDS] [TARGET...]}
seconds=${2:-30}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(hlo_parser npy builder differential)
scratch=${MXLA_FUZZ_SCRATCH:-$build/fuzz-runs}
mkdir -p "$scratch"

failed=0
printf '%-12s %12s %8s %8s\n' target executions seconds crashes
for target in "${targets[@]}"; do
  binary="$build/tests/fuzz/${target}_fuzzer"
  [ -x "$binary" ] || { echo "error: $binary not built (-DMXLA_FUZZ=ON)" >&2; exit 1; }
  corpus="$scratch/$target/corpus"
  mkdir -p "$corpus"
  inputs=("$corpus" "$root/tests/fuzz/corpus/$target")
  [ -d "$root/tests/fuzz/regressions/$target" ] &&
    inputs+=("$root/tests/fuzz/regressions/$target")
  log="$scratch/$target/log.txt"
  flags=()
  dictionary="$build/tests/fuzz/$target.dict"
  [ -f "$dictionary" ] && flags+=(-dict="$dictionary")
  # shellcheck disable=SC2206  # MXLA_FUZZ_FLAGS is a list of flags
  flags+=(${MXLA_FUZZ_FLAGS:-})
  status=0
  # rss_limit: the differential target compiles with LLVM; 4 GiB is ample.
  "$binary" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=60 \
    -print_final_stats=1 -artifact_prefix="$scratch/$target/" \
    "${flags[@]}" "${inputs[@]}" > "$log" 2>&1 || status=$?
  # -fork prints no final stats; its status lines count the runs.
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -z "$runs" ] &&
    runs=$(sed -n 's/^#\([0-9]*\):.*/\1/p; s/^#\([0-9]*\)\t.*/\1/p' "$log" | tail -1)
  crashes=$(find "$scratch/$target" -maxdepth 1 \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '%-12s %12s %8s %8s\n' "$target" "${runs:-?}" "$seconds" "$crashes"
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=1
    echo "--- $target failed (exit $status); last lines of $log:" >&2
    tail -40 "$log" >&2
  fi
done
exit $failed
