#!/usr/bin/env bash
# Installs the build into a scratch prefix, builds tests/package/consumer
# against it with find_package(mxla CONFIG) and runs the result.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -euo pipefail
build=$1 source=$2 scratch=$3
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" > /dev/null
cmake -S "$source/tests/package/consumer" -B "$scratch/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DMXLA_EXAMPLES_DIR="$source/tools/examples" > /dev/null
cmake --build "$scratch/build" > /dev/null
"$scratch/build/bias_relu"
