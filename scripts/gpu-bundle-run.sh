#!/usr/bin/env bash
# run.sh - the GPU check bundle's one command (built by scripts/gpu-bundle).
#
#   run.sh [--device=cuda|host] [--out=FILE] [--quick]
#
# Runs, on the chosen device (default cuda): the CUDA runtime tests, the
# kernel-template tests (sharded over the CPU cores), every graph in graphs/
# through spectral-run --validate (and its step time), and the FFT benchmark
# next to PyTorch's FFT on the same device when python3 has torch. Prints one
# table, PASS/FAIL per check, and writes it with every log to FILE (default
# ./gpu-check.txt). --quick skips the benchmarks. Exit status 1 if any check
# failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
device=cuda
report=$PWD/gpu-check.txt
quick=0
for arg in "$@"; do
  case $arg in
    --device=cuda|--device=host) device=${arg#--device=} ;;
    --out=?*) report=${arg#--out=} ;;
    --quick) quick=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$arg' (see run.sh --help)" >&2; exit 2 ;;
  esac
done

export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# NVRTC comes from the machine's CUDA 13 toolkit (or PyTorch's wheel of it).
if [ -z "${SPECTRAL_NVRTC_PATH:-}" ]; then
  for f in /usr/local/cuda/lib64/libnvrtc.so.13 /usr/local/cuda-13*/lib64/libnvrtc.so.13 \
           $(python3 -c 'import nvidia.cu13, os; print(os.path.dirname(nvidia.cu13.__file__))' \
               2>/dev/null)/lib/libnvrtc.so.13; do
    [ -f "$f" ] && { export SPECTRAL_NVRTC_PATH=$f; break; }
  done
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/spectral-gpu-check.XXXXXX")
export SPECTRAL_CACHE_DIR=$work/cache
logs=$work/logs
mkdir -p "$logs"
jobs=$(nproc 2>/dev/null || echo 4)
[ "$jobs" -gt 8 ] && jobs=8

rows=()
failed=0
# check NAME SECONDS COMMAND...: runs COMMAND for at most SECONDS with its
# output in logs/NAME.log and records PASS/FAIL, the time it took and its last
# line.
check() {
  local name=$1 limit=$2; shift 2
  local start=$SECONDS
  if declare -F "$1" > /dev/null; then  # a function here keeps its own limits
    "$@" > "$logs/$name.log" 2>&1
  else
    timeout -k 10 "$limit" "$@" > "$logs/$name.log" 2>&1
  fi
  local rc=$?
  local verdict=PASS
  [ $rc -eq 0 ] || { verdict="FAIL(rc=$rc)"; failed=1; }
  [ $rc -eq 124 ] && verdict="FAIL(>${limit}s)"
  local last log=$logs/$name.log
  if grep -q '^validate result' "$log"; then
    last="$(grep -c '^validate result.*: PASS' "$log") of $(grep -c '^validate result' "$log") results PASS"
  elif grep -q '^run on' "$log"; then
    last=$(grep '^run on' "$log" | sed 's/ over .*//')
  else
    last=$(grep -v '^[[:space:]]*$' "$log" | tail -1)
  fi
  last=$(printf '%s' "$last" | cut -c1-100)
  rows+=("$(printf '%-34s %-11s %5ss  %s' "$name" "$verdict" "$((SECONDS - start))" "$last")")
  printf '%s\n' "${rows[-1]}"
}

# The kernel-template tests in $jobs shards at once (each its own process and,
# on a GPU, its own context); $1: seconds each shard may take.
kernel_tests() {
  local pids=() rc=0
  for ((i = 0; i < jobs; i++)); do
    GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$i SPECTRAL_TEST_DEVICE=$device \
      timeout -k 10 "$1" "$here/bin/spectral-kernel-tests" --gtest_brief=1 > "$logs/kernel-shard-$i.log" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < jobs; i++)); do
    wait "${pids[$i]}" || { rc=1; echo "shard $i failed:"; cat "$logs/kernel-shard-$i.log"; }
  done
  grep -h "tests ran\|PASSED\|FAILED\|SKIPPED" "$logs"/kernel-shard-*.log | sort | uniq -c
  return $rc
}

# The graph's function: a training step main_step, else main, else the last
# one it defines.
function_of() {
  local f
  for f in main_step main; do
    grep -q "func.func @$f(" "$1" && { echo $f; return; }
  done
  grep -o 'func.func @[A-Za-z0-9_]*' "$1" | tail -1 | cut -d@ -f2
}

echo "Spectral GPU check on $device: $(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC')"
command -v nvidia-smi > /dev/null &&
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "NVRTC: ${SPECTRAL_NVRTC_PATH:-not found (the CUDA checks will say why)}"

check runtime-cuda-tests 120 "$here/bin/spectral-cuda-tests" --gtest_brief=1
for g in "$here"/graphs/*.mlir; do
  name=$(basename "$g" .mlir)
  check "graph:$name" 120 "$here/bin/spectral-run" "$g" --function="$(function_of "$g")" \
    --device="$device" --random-inputs --seed=7 --validate
done
check kernel-template-tests 0 kernel_tests 300
if [ $quick -eq 0 ]; then
  for g in "$here"/graphs/*.mlir; do
    name=$(basename "$g" .mlir)
    check "bench:$name" 120 "$here/bin/spectral-run" "$g" --function="$(function_of "$g")" \
      --device="$device" --random-inputs --seed=7 --benchmark=20
  done
  check fft-bench 180 env SPECTRAL_TEST_DEVICE=$device "$here/bin/spectral-fft-bench" 5
  if [ "$device" = cuda ] && python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null
  then
    check fft-torch 120 python3 "$here/fft_torch.py"
  fi
fi

{
  echo "== summary ($device)"
  printf '%s\n' "${rows[@]}"
  for f in "$logs"/*.log; do
    echo
    echo "== $(basename "$f")"
    cat "$f"
  done
} > "$report"
cat "$logs/fft-bench.log" "$logs/fft-torch.log" 2> /dev/null
echo "== summary ($device): $(printf '%s\n' "${rows[@]}" | grep -c ' PASS ') passed, $(printf '%s\n' "${rows[@]}" | grep -c ' FAIL') failed; logs in $report"
rm -rf "$work"
exit $failed
