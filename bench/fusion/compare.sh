#!/usr/bin/env bash
# The fusion targets op by op (--no-fuse) and fused, side by side in one run
# on the host device: kernels, launches' bytes against the minimum, and the
# minimum host run time of each.
#
#   bench/fusion/compare.sh [RUNS]     (default 10; BUILD_DIR=build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
runs=${1:-10}
graphs=(examples/spectral_conv.mlir examples/spectral_filter.mlir examples/purefft_forward.mlir
        examples/fno2d_block.mlir bench/fusion/fno2d_layer.mlir bench/fusion/fnet_block.mlir
        tests/e2e/sparse_spectral_filter.mlir tests/e2e/spectral_probes.mlir)

# "KERNELS RATIO MS" of one spectral-run (the --report and --benchmark lines).
measure() {
  local out
  out=$("$build_dir/bin/spectral-run" "$root/$1" --device=host --random-inputs --report \
        --benchmark="$runs" "${@:2}" 2>&1 >/dev/null)
  local kernels ratio ms
  kernels=$(grep -o '^# main: [0-9]* kernel' <<<"$out" | awk '{print $3}')
  ratio=$(grep -o 'ratio [0-9.]*x' <<<"$out" | awk '{print $2}')
  ms=$(grep -o 'min [0-9.]* ms' <<<"$out" | head -1 | awk '{print $2}')
  echo "$kernels $ratio $ms"
}

printf '%-32s %8s %8s %10s   %8s %8s %10s   %8s\n' graph kernels bytes/min "ms" \
  kernels bytes/min "ms" speedup
printf '%-32s %28s   %28s\n' "" "---------- op by op ---------" "----------- fused ----------"
for graph in "${graphs[@]}"; do
  read -r k0 r0 t0 <<<"$(measure "$graph" --no-fuse)"
  read -r k1 r1 t1 <<<"$(measure "$graph")"
  printf '%-32s %8s %8s %10s   %8s %8s %10s   %7.2fx\n' "$graph" "$k0" "$r0" "$t0" "$k1" "$r1" \
    "$t1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print a / b }')"
done
