#!/usr/bin/env bash
# Installs the build into a scratch prefix and uses it as a new user would:
#  * the CMake blocks of docs/cpp.md under "Using mxla from another project",
#    copied word for word into consumer projects (so the page cannot drift
#    from what is tested), with the compiler's default C++ standard:
#      block 1 builds tools/examples/bias_relu.cc as main.cc and runs it;
#      block 2 (the core component) builds tests/package/hlo_check.cc with
#      LLVM hidden from find_package, and its link line must not name LLVM;
#  * no installed header includes an mxla header that is not installed, and
#    every installed header compiles on its own (tests/package/headers);
#  * with PYTHON given, the installed Python package imports from
#    <prefix>/python alone and runs a computation.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR [PYTHON]
set -euo pipefail
build=$1 source=$2 scratch=$3 python=${4:-}
prefix=$scratch/prefix
rm -rf "$scratch"
cmake --install "$build" --prefix "$prefix" > /dev/null

fail() { echo "check_install: $*" >&2; exit 1; }

# The n-th ```cmake block of docs/cpp.md's section on other projects.
readme_block() {
  awk -v want="$1" '
    /^## / { in_section = ($0 == "## Using mxla from another project") }
    in_section && /^```cmake$/ { n++; in_block = (n == want); next }
    in_block && /^```$/ { in_block = 0; next }
    in_block { print }
  ' "$source/docs/cpp.md"
}

# A consumer project: the page's block after the two lines every project
# starts with.
write_consumer() {
  local dir=$1 block
  block=$(readme_block "$2")
  [ -n "$block" ] || fail "docs/cpp.md has no CMake block $2 in its section" \
                          "'Using mxla from another project'"
  mkdir -p "$dir"
  printf 'cmake_minimum_required(VERSION 3.20)\nproject(consumer LANGUAGES CXX)\n%s\n' \
    "$block" > "$dir/CMakeLists.txt"
}

configure() {
  cmake -S "$1" -B "$1/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" "${@:2}" > "$1/configure.log" 2>&1 ||
    { cat "$1/configure.log" >&2; fail "configuring $1 failed"; }
}

# Installed headers include only installed mxla headers, never LLVM's.
mxla_dirs='ir|shape_inference|hlo_text|semantics|interpreter|builder|passes|transforms|codegen|runtime|driver'
while read -r header; do
  while read -r included; do
    [ -f "$prefix/include/$included" ] ||
      fail "installed ${header#$prefix/include/} includes $included," \
           "which is not installed"
  done < <(sed -nE "s@^#include \"(($mxla_dirs|tools)/[^\"]*)\".*@\1@p" "$header")
  if grep -qE '^#include [<"]llvm/' "$header"; then
    fail "installed ${header#$prefix/include/} includes LLVM"
  fi
done < <(find "$prefix/include" -type f)

# Every installed header compiles on its own.
tus=$scratch/header_tus
mkdir -p "$tus/core" "$tus/jit"
for header in $(cd "$prefix/include" && find . -name '*.h' | sed 's@^\./@@'); do
  case $header in
    ir/*|shape_inference/*|hlo_text/*|semantics/*|interpreter/*|builder/*|passes/*|transforms/*)
      component=core ;;
    *) component=jit ;;
  esac
  printf '#include "%s"\n' "$header" > "$tus/$component/${header//\//__}.cc"
done
headers=$scratch/headers
mkdir -p "$headers"
cp "$source/tests/package/headers/CMakeLists.txt" "$headers/"
configure "$headers" -DMXLA_HEADER_TUS="$tus"
cmake --build "$headers/build" > "$headers/build.log" 2>&1 ||
  { cat "$headers/build.log" >&2; fail "an installed header does not compile"; }

# Block 1: the whole library.
app=$scratch/app
write_consumer "$app" 1
cp "$source/tools/examples/bias_relu.cc" "$app/main.cc"
mkdir -p "$app/tools/examples"
cp "$source/tools/examples/example_util.h" "$app/tools/examples/"
configure "$app"
cmake --build "$app/build" > "$app/build.log" 2>&1 ||
  { cat "$app/build.log" >&2; fail "docs/cpp.md block 1 does not build"; }
"$app/build/app"

# Block 2: the core component, with LLVM out of reach.
core=$scratch/core
write_consumer "$core" 2
cp "$source/tests/package/hlo_check.cc" "$core/"
configure "$core" -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON
cmake --build "$core/build" > "$core/build.log" 2>&1 ||
  { cat "$core/build.log" >&2; fail "docs/cpp.md block 2 does not build"; }
link=$(ninja -C "$core/build" -t commands hlo_check | tail -n 1)
if grep -qi llvm <<< "$link"; then
  fail "the core consumer links LLVM: $link"
fi
"$core/build/hlo_check"

# The Python package, from the prefix only (not the build tree).
if [ -n "$python" ]; then
  (cd "$scratch" && PYTHONPATH="$prefix/python" "$python" -c '
import numpy as np, mxla
assert mxla.__file__.startswith("'"$prefix"'/python/"), mxla.__file__
b = mxla.XlaBuilder("installed")
x = mxla.Parameter(b, 0, np.float32, (3,), "x")
out = mxla.compile(b.build(x * 2.0 + 1.0))(np.arange(3, dtype=np.float32))
assert out.tolist() == [1.0, 3.0, 5.0], out
') || fail "the installed Python package does not import and run"
fi
