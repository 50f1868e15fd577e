#!/usr/bin/env bash
# The host device against PyTorch on the CPU, side by side in one run, with
# as many threads each: R2C of 128 images of 28 x 28 (bench/fft/rfft2_images.mlir)
# and the 2-D FNO layer (bench/fusion/fno2d_layer.mlir). Spectral's figure is
# spectral-run --benchmark's "steps on the device" (the kernels, inputs
# already in device memory); PyTorch's the eager call on tensors in memory
# (layers_torch.py). Minimum and median milliseconds of RUNS runs each.
#
#   bench/fusion/vs_torch.sh [RUNS]   (default 20; BUILD_DIR=build, PYTHON=python3,
#                                      SPECTRAL_HOST_THREADS: both sides' threads, default 2)
# PyTorch from PyPI, e.g.: python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
python=${PYTHON:-python3}
runs=${1:-20}
threads=${SPECTRAL_HOST_THREADS:-2}
export SPECTRAL_HOST_THREADS=$threads
source "$root/bench/torch_checks.sh"
need_torch vs_torch.sh "$python"
need_binary vs_torch.sh "$build_dir/bin/spectral-run"
torch_out=$("$python" "$root/bench/fusion/layers_torch.py" --runs="$runs" --threads="$threads" \
            2>/dev/null)
printf '%-10s %22s %22s %10s\n' graph "spectral min/median ms" "torch min/median ms" "ratio(min)"
for pair in rfft2:bench/fft/rfft2_images.mlir fno2d:bench/fusion/fno2d_layer.mlir; do
  name=${pair%%:*}
  graph=${pair#*:}
  out=$("$build_dir/bin/spectral-run" "$root/$graph" --device=host --random-inputs \
        --benchmark="$runs" 2>&1 >/dev/null)
  # "steps on the device: min A ms, median B ms ..."
  read -r smin smed < <(awk '/^steps on the device:/ { print $6, $9 }' <<<"$out")
  read -r tmin tmed < <(awk -v n="$name" '$1 == n { print $2, $3 }' <<<"$torch_out")
  if [ -z "${smin:-}" ] || [ -z "${tmin:-}" ]; then
    echo "vs_torch.sh: no figure for $name (spectral-run said: $(tail -1 <<<"$out"))" >&2
    exit 1
  fi
  printf '%-10s %11s / %-8s %11s / %-8s %9.2fx\n' "$name" "$smin" "$smed" "$tmin" "$tmed" \
    "$(awk -v a="$smin" -v b="$tmin" 'BEGIN { print a / b }')"
done
echo "ratio: spectral's time over PyTorch's; $threads threads each"
