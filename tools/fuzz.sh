#!/usr/bin/env bash
# Runs every libFuzzer target of a -DMXLA_FUZZ=ON build for SECONDS each
# (default 30), starting from tests/fuzz/corpus/<target> and its past
# crashes, and prints the executions and crashes per target. New corpus
# entries go to a scratch directory, never into the source tree; a crash is
# saved there as crash-<hash> and fails the run.
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
  status=0
  # rss_limit: the differential target compiles with LLVM; 4 GiB is ample.
  "$binary" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=60 \
    -print_final_stats=1 -artifact_prefix="$scratch/$target/" \
    "${inputs[@]}" > "$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
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
