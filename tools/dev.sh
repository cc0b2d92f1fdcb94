#!/usr/bin/env bash
# The README's Quick start: `bash tools/dev.sh demo` and `bash tools/dev.sh test`.
# Installs what is missing (Debian 12 packages, as root), configures and
# builds incrementally into build/ (or $MXLA_BUILD_DIR), then runs the demo or
# every test.
#
#   demo [options]      the demo (options go to `mxla demo`)
#   test [ctest args]   every test (what CI runs): the suite (which replays
#                       each fuzz target's corpus and past crashes) and the
#                       concurrency tests under TSan (MXLA_QUICK=1: the
#                       suite only)
#   sanitize            the suite under ASan + UBSan (build-asan/), and the
#                       concurrency tests under TSan (build-tsan/), clang-19;
#                       run it before pushing: CI leaves the ASan suite out
#   fuzz [SECONDS]      each libFuzzer target for SECONDS (default 30): a
#                       search for new crashes, in its own ASan build; CI
#                       leaves it out (the build cost a third of CI's time)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MXLA_BUILD_DIR:-$root/build}

packages=(cmake ninja-build g++ lld-14 ccache llvm-19-dev llvm-19-tools
          libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
          libgloo-dev
          graphviz clang-19 libclang-rt-19-dev
          pybind11-dev python3-dev python3-numpy python3-pytest)

install_missing() {
  local missing=()
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: missing packages (${missing[*]}); run as root or install them" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -q -o DPkg::Lock::Timeout=900 "${missing[@]}"
}

configure_and_build() {
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
  fi
  cmake --build "$build" -j "$(nproc)"
}

# A clang-19 build with sanitizers: configure once, then build `targets`
# (all when none are named). -O1 keeps the instrumented suite fast to build.
configure_and_build_sanitized() {
  local dir=$1 sanitizers=$2 fuzz=$3
  shift 3
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
      -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only" \
      -DCMAKE_CXX_COMPILER=clang++-19 -DMXLA_SANITIZE="$sanitizers" \
      -DMXLA_FUZZ="$fuzz"
  fi
  cmake --build "$dir" -j "$(nproc)" ${1:+--target "$@"}
}

asan_build=$root/build-asan
tsan_build=$root/build-tsan
# The tests that exercise threads; TSan runs only these.
tsan_targets=(runtime_concurrency_test runtime_jit_concurrency_test
              driver_compile_cache_test runtime_thread_pool_test
              runtime_run_options_test runtime_in_process_communicator_test
              runtime_run_replicated_test)
tsan_tests='Concurrency|CompileCacheTest|ThreadPoolTest|IdleSpinTest|RunOptionsTest|InProcessCommunicatorTest|RunReplicatedTest'

fuzz_targets=(hlo_parser_fuzzer npy_fuzzer builder_fuzzer differential_fuzzer)

run_asan_suite() {
  echo "=== ASan + UBSan: the whole suite"
  configure_and_build_sanitized "$asan_build" address,undefined ON
  # The package test builds a consumer without the sanitizer runtime.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$asan_build" --output-on-failure -j "$(nproc)" \
    -E package_consumer
}

run_tsan_tests() {
  echo "=== TSan: the concurrency tests"
  configure_and_build_sanitized "$tsan_build" thread OFF "${tsan_targets[@]}"
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/tools/tsan.supp" \
    ctest --test-dir "$tsan_build" --output-on-failure -j 1 -R "$tsan_tests"
}

# The fuzzers are built with ASan + UBSan; only their targets are built, so
# CI does not pay for the instrumented suite.
run_fuzzers() {
  echo "=== libFuzzer: ${1}s per target"
  configure_and_build_sanitized "$asan_build" address,undefined ON \
    "${fuzz_targets[@]}"
  bash "$root/tools/fuzz.sh" "$asan_build" "$1"
}

command=${1:-}
shift || true
case "$command" in
  demo)
    install_missing
    configure_and_build
    exec "$build/tools/mxla" demo "$@"
    ;;
  test)
    install_missing
    configure_and_build
    ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@"
    if [ "${MXLA_QUICK:-0}" != 1 ]; then
      run_tsan_tests
    fi
    ;;
  sanitize)
    install_missing
    run_asan_suite
    run_tsan_tests
    ;;
  fuzz)
    install_missing
    run_fuzzers "${1:-30}"
    ;;
  *)
    echo "usage: bash tools/dev.sh demo [options] | test [ctest options]" \
         "| sanitize | fuzz [seconds]" >&2
    exit 1
    ;;
esac
