#!/usr/bin/env bash
# The installed package, as a user sees it: install the build into a temporary
# prefix, build examples/embed (Spectral::compiler) and examples/run_artifact
# (Spectral::runtime) against it with find_package(Spectral), run both on the
# host device, and check that run_artifact links no MLIR or LLVM library.
#
# Usage: install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1
build_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
export SPECTRAL_CACHE_DIR=${SPECTRAL_CACHE_DIR:-$work/cache}

step() { printf '== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }

step "cmake --install into a temporary prefix"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
for f in include/spectral/compiler.h include/spectral/runtime.h include/spectral/spectral.h \
         include/spectral/dlpack.h lib/cmake/Spectral/SpectralConfig.cmake \
         bin/spectral-compile bin/spectral-run bin/spectral-opt; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done

# A sanitized build's libraries need their users built with the same
# sanitizers (the ASan runtime must be loaded first).
sanitize=$(sed -n 's/^SPECTRAL_SANITIZE:STRING=//p' "$build_dir/CMakeCache.txt")
flags=()
[ -z "$sanitize" ] || flags=(-DCMAKE_CXX_FLAGS="-fsanitize=$sanitize")
for example in embed run_artifact; do
  step "building examples/$example against the installed package"
  cmake -G Ninja -S "$source_dir/examples/$example" -B "$work/$example" "${flags[@]}" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$work/$example.log" 2>&1 ||
    { cat "$work/$example.log"; fail "configuring examples/$example"; }
  cmake --build "$work/$example" >>"$work/$example.log" 2>&1 ||
    { cat "$work/$example.log"; fail "building examples/$example"; }
done

step "embed: an FNO layer built with the C++ API, compiled and run"
"$work/embed/embed" --device=host --save="$work/fno.spx" | tee "$work/embed.out"
grep -q "fno_layer on host" "$work/embed.out" || fail "embed did not run on the host"
grep -q "^kernel " "$work/embed.out" || fail "embed printed no kernel summary"

step "run_artifact: the saved artifact and one from the installed spectral-compile"
"$work/run_artifact/run_artifact" "$work/fno.spx" --device=host | tee "$work/run1.out"
grep -q "result #0 tensor<4x8x64xf32>" "$work/run1.out" || fail "run_artifact on fno.spx"
"$prefix/bin/spectral-compile" "$source_dir/examples/spectral_conv.mlir" -o "$work/conv.spx"
"$work/run_artifact/run_artifact" "$work/conv.spx" --device=host | tee "$work/run2.out"
grep -q "result #0" "$work/run2.out" || fail "run_artifact on spectral_conv.spx"
if "$work/run_artifact/run_artifact" "$work/missing.spx" 2>"$work/err.txt"; then
  fail "a missing artifact was accepted"
fi
grep -q "missing.spx" "$work/err.txt" || fail "the error does not name the missing file"

step "run_artifact links the runtime only"
ldd "$work/run_artifact/run_artifact" | tee "$work/ldd.txt"
if grep -i -E "libMLIR|libLLVM|spectral-compiler" "$work/ldd.txt"; then
  fail "run_artifact links MLIR or LLVM"
fi
grep -q "libspectral-runtime" "$work/ldd.txt" || fail "run_artifact does not link libspectral-runtime"
echo "install test: passed"
