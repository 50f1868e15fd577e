#!/usr/bin/env bash
# PureFFT on Fashion-MNIST: Spectral's host device against PyTorch eager mode
# on the CPU, side by side in one run, with the same model, data, schedule
# (batch 128, Adam lr 1e-2, 32 patterns, 4 layers, seed 1) and epochs:
#   - Spectral: build/bin/purefft --device=host (the graph as the seed writes
#     it; spectral-simplify finds the cheap form);
#   - PyTorch, seed form: the same graph, eager (B x P x F per layer);
#   - PyTorch, by hand: the form the simplifier finds, written by hand.
# Seconds per epoch are the mean over the epochs (training and the test-set
# evaluation; feature extraction and compilation excluded on both sides).
# The two shuffle with different generators (std::mt19937_64, torch), so
# their accuracies are alike, not equal.
# Issue 9's target: Spectral takes at most half PyTorch's seed-form time.
#
#   bench/purefft/compare.sh [EPOCHS]   (default 1; BUILD_DIR=build, PYTHON=python3)
# PyTorch from PyPI, e.g.: python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch
# then PYTHON=/tmp/torchenv/bin/python bench/purefft/compare.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
python=${PYTHON:-python3}
epochs=${1:-1}
source "$root/bench/torch_checks.sh"
need_torch compare.sh "$python"
need_binary compare.sh "$build_dir/bin/purefft"

# "SECONDS_PER_EPOCH ACCURACY" from the "epoch N: ..., test accuracy A%, S s" lines.
summarise() {
  awk '/^epoch [0-9]+:/ { for (i = 1; i <= NF; ++i) { if ($i == "s") s += $(i - 1); \
                            if ($i == "accuracy") a = $(i + 1) } n++ } \
       END { if (n == 0) exit 1; sub(/[%,]+$/, "", a); printf "%.2f %s\n", s / n, a }'
}
# Runs a trainer and prints its summary; on failure says so (the caller exits).
run() {
  local out
  if ! out=$("$@" 2>&1); then
    echo "compare.sh: failed: $*" >&2
    tail -3 <<<"$out" >&2
    return 1
  fi
  summarise <<<"$out" || { echo "compare.sh: no epoch lines from: $*" >&2; return 1; }
}

echo "PureFFT on Fashion-MNIST, $epochs epoch(s), $(nproc) cores; $("$python" -c \
  'import torch; print("PyTorch", torch.__version__, "with", torch.get_num_threads(), "threads")' \
  2>/dev/null)"
out=$(run "$build_dir/bin/purefft" --epochs="$epochs" --device=host --curve=) || exit 1
read -r ours ours_acc <<<"$out"
out=$(run "$python" "$root/bench/purefft/purefft_torch.py" --epochs="$epochs" --form=seed) || exit 1
read -r seed seed_acc <<<"$out"
out=$(run "$python" "$root/bench/purefft/purefft_torch.py" --epochs="$epochs" --form=scale) || exit 1
read -r hand hand_acc <<<"$out"
printf '%-40s %10s %10s %14s\n' run "s/epoch" accuracy "time/Spectral"
printf '%-40s %10s %9s%% %13.2fx\n' "Spectral, host device" "$ours" "$ours_acc" 1
printf '%-40s %10s %9s%% %13.2fx\n' "PyTorch eager, as the seed writes it" "$seed" "$seed_acc" \
  "$(awk -v a="$seed" -v b="$ours" 'BEGIN { print a / b }')"
printf '%-40s %10s %9s%% %13.2fx\n' "PyTorch eager, simplified by hand" "$hand" "$hand_acc" \
  "$(awk -v a="$hand" -v b="$ours" 'BEGIN { print a / b }')"
awk -v a="$ours" -v b="$seed" 'BEGIN { printf "target: Spectral <= 0.5 x PyTorch (seed form): %.2f x, %s\n", \
  a / b, a <= 0.5 * b ? "met" : "NOT met" }'
