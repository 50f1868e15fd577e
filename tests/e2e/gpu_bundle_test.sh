#!/usr/bin/env bash
# gpu_bundle_test.sh SOURCE_DIR BUILD_DIR - the GPU check bundle, built from
# this build (scripts/gpu-bundle --no-build) and run here on the host device
# (run.sh --device=host --quick), so that it never rots between GPU runs: it
# must hold no MLIR or LLVM library, and every case must pass. The kernel-
# template tests run whole in their own test; here a few of them show that
# the bundle's copy runs from its own folder.
set -euo pipefail
source_dir=$1
build_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
BUILD_DIR=$build_dir "$source_dir/scripts/gpu-bundle" --no-build --no-pack "$work/bundle" \
  > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
if [ "$(ls "$work/bundle/lib" | grep -c 'LLVM\|MLIR')" -ne 0 ]; then
  echo "FAIL: the bundle carries LLVM or MLIR: $(ls "$work/bundle/lib")"
  exit 1
fi
for p in "$work"/bundle/bin/*; do
  if [ "$(LD_LIBRARY_PATH=$work/bundle/lib ldd "$p" | grep -c 'not found')" -ne 0 ]; then
    echo "FAIL: $p needs a library the bundle lacks:"
    LD_LIBRARY_PATH=$work/bundle/lib ldd "$p" | grep 'not found'
    exit 1
  fi
done
cases=$(ls "$work/bundle/cases" | wc -l)
[ "$cases" -ge 10 ] || { echo "FAIL: only $cases cases in the bundle"; exit 1; }
cd "$work"
GTEST_FILTER='*Pointwise*:FftPlanner.RunsInPlace' "$work/bundle/run.sh" --device=host --quick \
  --out="$work/check.txt" || { cat "$work/check.txt"; exit 1; }
grep -q '"name": "artifacts", "verdict": "PASS"' "$work/check.txt.json" ||
  { echo "FAIL: check.txt.json does not record the artifacts' PASS"; cat "$work/check.txt.json"; exit 1; }
echo "PASS: the GPU bundle ($cases cases, $(du -sh "$work/bundle" | cut -f1)) runs on the host"
