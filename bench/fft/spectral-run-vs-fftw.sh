#!/usr/bin/env bash
# The batched FFT graph (bench/fft/batched_fft.mlir, 4096 x 1024
# complex<f32>) through `spectral-run --benchmark` on the host device, next to
# FFTW on the same shape with as many threads as the host device uses, in one
# run. Prints both lines and the ratio of the minimum times.
#
#   bench/fft/spectral-run-vs-fftw.sh [RUNS]     (default 10; BUILD_DIR=build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
runs=${1:-10}
threads=$(nproc)

ours=$("$build_dir/bin/spectral-run" "$root/bench/fft/batched_fft.mlir" --random-inputs \
  --device=host --benchmark="$runs" 2>&1 >/dev/null)
fftw=$("$build_dir/bin/spectral-fft-bench" --fftw=4096x1024 --threads="$threads" --runs="$runs")
printf 'spectral-run: %s\n' "$ours"
printf '%s\n' "$fftw"
ours_min=$(grep -o 'min [0-9.]* ms' <<<"$ours" | head -1 | awk '{print $2}')
fftw_min=$(grep -o 'min [0-9.]* ms' <<<"$fftw" | head -1 | awk '{print $2}')
awk -v a="$ours_min" -v b="$fftw_min" \
  'BEGIN { printf "ratio (spectral-run host min / FFTW min): %.1fx\n", a / b }'
