#!/usr/bin/env bash
# The README's Quick start: `bash tools/dev.sh demo` and `bash tools/dev.sh test`.
# Installs what is missing (Debian 12 packages, as root), configures and
# builds incrementally into build/ (or $MXLA_BUILD_DIR), then runs the demo or
# every test.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MXLA_BUILD_DIR:-$root/build}

packages=(cmake ninja-build g++ lld-14 ccache llvm-19-dev llvm-19-tools
          libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
          graphviz)

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
    ;;
  *)
    echo "usage: bash tools/dev.sh demo [demo options] | test [ctest options]" >&2
    exit 1
    ;;
esac
