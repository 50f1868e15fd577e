#!/usr/bin/env bash
# run.sh - the GPU check bundle's one command (built by scripts/gpu-bundle).
#
#   run.sh [--device=cuda|host] [--out=FILE] [--quick]
#
# On the chosen device (default cuda) it runs
#   runtime-cuda-tests     the CUDA runtime's tests (driver launches need a GPU)
#   artifacts              every case in cases/ through spectral-check: the
#                          artifact's results against the reference's, and its
#                          run time
#   nvrtc-cold, nvrtc-warm the same cases from source (their CUBIN left aside)
#                          with an empty kernel cache, then again: NVRTC's
#                          compile time and the cache's hits (not with --quick)
#   kernel-template-tests  every kernel template against FFTW and references,
#                          sharded over the CPU cores (GTEST_FILTER narrows it)
#   fft-bench, fft-torch   spectral-fft-bench, and PyTorch's FFT (cuFFT) with a
#                          device-to-device copy of the same bytes when python3
#                          has torch with CUDA (not with --quick)
# and prints one table, PASS/FAIL per check. FILE (default ./gpu-check.txt)
# gets the table and every log; FILE.json the same as JSON, with every case's
# figures. Exit status 1 if any check failed, 2 on bad usage.
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
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$arg' (see run.sh --help)" >&2; exit 2 ;;
  esac
done

export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# NVRTC comes from the machine's CUDA 13 toolkit (or PyTorch's wheel of it).
if [ -z "${SPECTRAL_NVRTC_PATH:-}" ]; then
  for f in /usr/local/cuda/lib64/libnvrtc.so.13 /usr/local/cuda-13*/lib64/libnvrtc.so.13 \
           "$(python3 -c 'import nvidia.cu13, os; print(os.path.dirname(nvidia.cu13.__file__))' \
               2>/dev/null)/lib/libnvrtc.so.13"; do
    [ -f "$f" ] && { export SPECTRAL_NVRTC_PATH=$f; break; }
  done
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/spectral-gpu-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
export SPECTRAL_CACHE_DIR=$work/cache
logs=$work/logs
mkdir -p "$logs"
jobs=$(nproc 2>/dev/null || echo 4)
[ "$jobs" -gt 8 ] && jobs=8

names=() verdicts=() seconds=() summaries=()
failed=0
# check NAME SECONDS COMMAND...: runs COMMAND (a program for at most SECONDS,
# or a function of this script, which keeps its own limits) with its output
# in logs/NAME.log, and records PASS/FAIL, its time and a one-line summary.
check() {
  local name=$1 limit=$2; shift 2
  local start=$SECONDS log=$logs/$name.log rc summary
  if declare -F "$1" > /dev/null; then
    "$@" > "$log" 2>&1
  else
    timeout -k 10 "$limit" "$@" > "$log" 2>&1
  fi
  rc=$?
  local verdict=PASS
  [ $rc -eq 0 ] || { verdict="FAIL(rc=$rc)"; failed=1; }
  [ $rc -eq 124 ] && verdict="FAIL(>${limit}s)"
  if grep -q '^[0-9]* cases: ' "$log"; then
    summary=$(grep '^[0-9]* cases: ' "$log" | tail -1)
  elif grep -q 'tests\? ran' "$log"; then
    summary=$(grep -h '^\[  PASSED  \]\|^\[  FAILED  \] [0-9]\|^\[  SKIPPED \] [0-9]\|tests\? ran' \
                "$log" | tr -s ' ' | tr '\n' ' ')
  else
    summary=$(grep -v '^[[:space:]]*$' "$log" | tail -1)
  fi
  names+=("$name") verdicts+=("$verdict") seconds+=("$((SECONDS - start))")
  summaries+=("$(printf '%s' "$summary" | cut -c1-110)")
  printf '%-24s %-12s %5ss  %s\n' "$name" "$verdict" "${seconds[-1]}" "${summaries[-1]}"
}

# The kernel-template tests in $jobs shards at once (each its own process and,
# on a GPU, its own context); $1: seconds each shard may take.
kernel_tests() {
  local pids=() rc=0 i
  for ((i = 0; i < jobs; i++)); do
    GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$i SPECTRAL_TEST_DEVICE=$device \
      timeout -k 10 "$1" "$here/bin/spectral-kernel-tests" --gtest_brief=1 \
      > "$logs/kernel-shard-$i.txt" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < jobs; i++)); do
    wait "${pids[$i]}" || { rc=1; echo "shard $i of $jobs failed:"; cat "$logs/kernel-shard-$i.txt"; }
  done
  # One summary for all shards.
  awk '/tests? from .* ran/ {ran += $2} /^\[  PASSED  \]/ {passed += $4}
       /^\[  FAILED  \] [0-9]/ {failed_ += $4} /^\[  SKIPPED \] [0-9]/ {skipped += $4}
       END {printf "%d tests ran in %d shards: %d passed, %d failed, %d skipped\n",
                   ran, '"$jobs"', passed, failed_, skipped}' "$logs"/kernel-shard-*.txt
  return $rc
}

artifacts() { "$here/bin/spectral-check" "$here"/cases/*/ --device="$device" "$@"; }

echo "Spectral GPU check on $device: $(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC')"
gpu=""
if command -v nvidia-smi > /dev/null; then
  gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
        head -1)
  echo "GPU: $gpu"
fi
echo "NVRTC: ${SPECTRAL_NVRTC_PATH:-not found on this machine}"

check runtime-cuda-tests 300 "$here/bin/spectral-cuda-tests" --gtest_brief=1
check artifacts 0 artifacts --runs=20 --json="$work/artifacts.json"
if [ $quick -eq 0 ]; then
  SPECTRAL_CACHE_DIR=$work/cold-cache check nvrtc-cold 0 artifacts --runs=0 --from-source \
    --json="$work/nvrtc-cold.json"
  SPECTRAL_CACHE_DIR=$work/cold-cache check nvrtc-warm 0 artifacts --runs=0 --from-source \
    --json="$work/nvrtc-warm.json"
fi
check kernel-template-tests 0 kernel_tests 600
if [ $quick -eq 0 ]; then
  check fft-bench 300 env SPECTRAL_TEST_DEVICE=$device "$here/bin/spectral-fft-bench" 5
  if [ "$device" = cuda ] && python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null
  then
    check fft-torch 300 python3 "$here/fft_torch.py"
  fi
fi

passed=0
for v in "${verdicts[@]}"; do [ "$v" = PASS ] && passed=$((passed + 1)); done
table=$( {
  echo "== summary ($device${gpu:+: $gpu})"
  for i in "${!names[@]}"; do
    printf '%-24s %-12s %5ss  %s\n' "${names[$i]}" "${verdicts[$i]}" "${seconds[$i]}" \
      "${summaries[$i]}"
  done
  echo "== $passed of ${#names[@]} checks passed"
} )
{
  echo "$table"
  for f in "$logs"/*.log; do
    echo
    echo "== $(basename "$f" .log)"
    cat "$f"
  done
} > "$report"

json_string() {
  printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\000-\037')"
}
{
  printf '{"device": %s, "gpu": %s, "host": %s, "checks": [' "$(json_string "$device")" \
    "$(json_string "$gpu")" "$(json_string "$(uname -n)")"
  for i in "${!names[@]}"; do
    [ "$i" -gt 0 ] && printf ', '
    printf '{"name": %s, "verdict": %s, "seconds": %s, "summary": %s}' \
      "$(json_string "${names[$i]}")" "$(json_string "${verdicts[$i]}")" "${seconds[$i]}" \
      "$(json_string "${summaries[$i]}")"
  done
  printf ']'
  for part in artifacts nvrtc-cold nvrtc-warm; do
    [ -s "$work/$part.json" ] && printf ', "%s": %s' "$part" "$(cat "$work/$part.json")"
  done
  printf '}\n'
} > "$report.json"

cat "$logs/artifacts.log"
[ -f "$logs/fft-bench.log" ] && cat "$logs/fft-bench.log"
[ -f "$logs/fft-torch.log" ] && cat "$logs/fft-torch.log"
echo "$table"
echo "the table and every log: $report; as JSON: $report.json"
exit $failed
