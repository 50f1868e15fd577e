#!/usr/bin/env bash
# run.sh - the GPU check bundle's one command (built by scripts/gpu-bundle).
#
#   run.sh [--device=cuda|host] [--out=FILE] [--quick]
#
# On the chosen device (default cuda) it runs
#   runtime-cuda-tests     the CUDA runtime's tests (driver launches need a GPU)
#   artifacts              every case in cases/ through spectral-check: the
#                          artifact's results against the reference's, its run
#                          time, and its steps' time on the device, replayed as
#                          one CUDA graph from the second run on
#   graphs                 the same with every step launched by itself: the
#                          launch overhead a graph saves, per step (and FAIL if
#                          a case's steps did not replay as a graph)
#   nvrtc-cold, nvrtc-warm the same cases from source (their CUBIN left aside)
#                          with an empty kernel cache, then again: NVRTC's
#                          compile time and the cache's hits (not with --quick)
#   kernel-template-tests  every kernel template against FFTW and references,
#                          sharded over the CPU cores (GTEST_FILTER narrows it)
#   fft-bench, fft-torch   spectral-fft-bench, and PyTorch's FFT (cuFFT) with a
#                          device-to-device copy of the same bytes when python3
#                          has torch with CUDA (not with --quick)
# and prints one table, PASS/FAIL/SKIP per check. FILE (default
# ./gpu-check.txt) gets the table and every log (also kept, as each check
# ends, in FILE.logs/, so an interrupted run leaves what it did); FILE.json
# the same as JSON, with every case's figures. The bundle's programs need
# glibc 2.34 or newer. Exit status 1 if any check failed, 2 on bad usage.
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
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$arg' (see run.sh --help)" >&2; exit 2 ;;
  esac
done

# The bundle's libraries for its own programs only (python3 keeps its own).
libs=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bundled=(env "LD_LIBRARY_PATH=$libs")
# NVRTC: the runtime searches as the dynamic loader does, then
# /usr/local/cuda/lib64; PyTorch's wheel of it is found here.
if [ -z "${SPECTRAL_NVRTC_PATH:-}" ]; then
  wheel=$(python3 -c 'import nvidia.cu13 as m; print(list(m.__path__)[0])' 2>/dev/null)
  for f in /usr/local/cuda/lib64/libnvrtc.so.13 /usr/local/cuda-13*/lib64/libnvrtc.so.13 \
           ${wheel:+"$wheel/lib/libnvrtc.so.13"}; do
    [ -f "$f" ] && { export SPECTRAL_NVRTC_PATH=$f; break; }
  done
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/spectral-gpu-check.XXXXXX")
export SPECTRAL_CACHE_DIR=$work/cache
logs=$report.logs
rm -rf "$logs" && mkdir -p "$logs" || exit 2
jobs=$(nproc 2>/dev/null || echo 4)
[ "$jobs" -gt 8 ] && jobs=8
# Host kernels run on a pool of OS threads per process: one shard's share.
threads=$(( $(nproc 2>/dev/null || echo 4) / jobs ))
[ "$threads" -ge 1 ] || threads=1

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
  [ $rc -eq 124 ] && [ "$limit" -gt 0 ] && verdict="FAIL(>${limit}s)"
  if grep -q '^[0-9]* cases: ' "$log"; then
    summary=$(grep '^[0-9]* cases: ' "$log" | tail -1)
  elif grep -q 'tests\? from .* ran' "$log"; then
    summary=$(grep -h '^\[  PASSED  \]\|^\[  FAILED  \] [0-9]\|^\[  SKIPPED \] [0-9]' \
                "$log" | tr -s ' ' | tr '\n' ' ')
  else
    summary=$(grep -v '^[[:space:]]*$' "$log" | tail -1)
  fi
  names+=("$name") verdicts+=("$verdict") seconds+=("$((SECONDS - start))")
  summaries+=("$(printf '%s' "$summary" | cut -c1-110)")
  printf '%-24s %-12s %5ss  %s\n' "$name" "$verdict" "${seconds[-1]}" "${summaries[-1]}"
}

# skip NAME WHY: a check that could not run here.
skip() {
  names+=("$1") verdicts+=(SKIP) seconds+=(0) summaries+=("$2")
  printf '%-24s %-12s %5ss  %s\n' "$1" SKIP 0 "$2"
}

# The kernel-template tests in $jobs shards at once (each its own process and,
# on a GPU, its own context); $1: seconds each shard may take.
kernel_tests() {
  local pids=() rc=0 i
  for ((i = 0; i < jobs; i++)); do
    GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$i SPECTRAL_TEST_DEVICE=$device \
      SPECTRAL_HOST_THREADS=$threads \
      timeout -k 10 "$1" "${bundled[@]}" "$here/bin/spectral-kernel-tests" --gtest_brief=1 \
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

cases=("$here"/cases/*/)

# The cases again with graphs off (spectral-check's output in graphs-off.log),
# against the artifacts check's figures: what replaying a graph saves.
graphs() {
  local figures='medians summed (\([0-9]*\) steps): run \([0-9.]*\) ms, on the device \([0-9.]*\) ms'
  timeout -k 10 900 "${bundled[@]}" "$here/bin/spectral-check" "${cases[@]}" --device="$device" \
    --runs=20 --no-graphs > "$logs/graphs-off.log" 2>&1 || { cat "$logs/graphs-off.log"; return 1; }
  local cases_run replayed on off
  cases_run=$(grep -c '^[^ ]* *\(PASS\|FAIL\)  ' "$logs/artifacts.log")
  replayed=$(grep -c '^[^ ]* *PASS  .*, as one ' "$logs/artifacts.log")
  on=$(sed -n "s/.*$figures/\1 \2 \3/p" "$logs/artifacts.log")
  off=$(sed -n "s/.*$figures/\1 \2 \3/p" "$logs/graphs-off.log")
  grep '^[^ ]* *PASS  ' "$logs/graphs-off.log"
  if [ "$cases_run" -eq 0 ] || [ -z "$on" ] || [ -z "$off" ]; then
    echo "no figures to compare: the artifacts check ran no case (see artifacts.log)"
    return 1
  fi
  echo "$on $off" | awk '$1 > 0 { printf "%d steps: on the device %.3f ms as graphs, %.3f ms one by one (%.2f us a step); runs %.3f vs %.3f ms\n", $1, $3, $6, ($6 - $3) * 1e3 / $1, $2, $5 }'
  if [ "$replayed" -ne "$cases_run" ]; then
    echo "only $replayed of $cases_run cases passed with their steps replayed as a graph (see artifacts.log)"
    return 1
  fi
}

# The table, the report and its JSON from the checks so far.
write_report() {
  passed=0 failed_count=0
  for v in "${verdicts[@]}"; do
    case $v in PASS) passed=$((passed + 1)) ;; FAIL*) failed_count=$((failed_count + 1)) ;; esac
  done
  table=$( {
    echo "== summary ($device${gpu:+: $gpu})"
    for i in "${!names[@]}"; do
      printf '%-24s %-12s %5ss  %s\n' "${names[$i]}" "${verdicts[$i]}" "${seconds[$i]}" \
        "${summaries[$i]}"
    done
    echo "== $passed of ${#names[@]} checks passed, $failed_count failed"
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
      [ -s "$logs/$part.json" ] && printf ', "%s": %s' "$part" "$(cat "$logs/$part.json")"
    done
    printf '}\n'
  } > "$report.json"
}
trap 'echo "run.sh: interrupted; the checks so far:"; write_report; cat "$report"; rm -rf "$work"; exit 130' INT TERM

echo "Spectral GPU check on $device: $(uname -n), $(date -u '+%Y-%m-%d %H:%M UTC')"
gpu=""
if command -v nvidia-smi > /dev/null; then
  gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
        head -1)
  echo "GPU: $gpu"
fi
echo "NVRTC: ${SPECTRAL_NVRTC_PATH:-searched for by the runtime (SPECTRAL_NVRTC_PATH unset)}"

# (GTEST_FILTER is for the template tests.)
check runtime-cuda-tests 300 env -u GTEST_FILTER "LD_LIBRARY_PATH=$libs" \
  "$here/bin/spectral-cuda-tests" --gtest_brief=1
check artifacts 900 "${bundled[@]}" "$here/bin/spectral-check" "${cases[@]}" --device="$device" \
  --runs=20 --json="$logs/artifacts.json"
if [ $quick -eq 0 ]; then
  for warmth in cold warm; do
    SPECTRAL_CACHE_DIR=$work/source-cache check nvrtc-$warmth 900 "${bundled[@]}" \
      "$here/bin/spectral-check" "${cases[@]}" --device="$device" --runs=0 --from-source \
      --json="$logs/nvrtc-$warmth.json"
  done
fi
check graphs 0 graphs
check kernel-template-tests 0 kernel_tests 900
if [ $quick -eq 0 ]; then
  SPECTRAL_TEST_DEVICE=$device SPECTRAL_HOST_THREADS=$(nproc 2>/dev/null || echo 4) \
    check fft-bench 600 "${bundled[@]}" "$here/bin/spectral-fft-bench" 5
  if [ "$device" != cuda ]; then
    skip fft-torch "PyTorch's cuFFT figures are for --device=cuda"
  elif ! why=$(python3 -c 'import torch; assert torch.cuda.is_available(), "no CUDA"' 2>&1); then
    skip fft-torch "python3 has no PyTorch with CUDA: $(printf '%s' "$why" | tail -1)"
  else
    check fft-torch 300 python3 "$here/fft_torch.py"
  fi
fi

write_report
rm -rf "$work"
cat "$logs/artifacts.log"
[ -f "$logs/fft-bench.log" ] && cat "$logs/fft-bench.log"
[ -f "$logs/fft-torch.log" ] && cat "$logs/fft-torch.log"
echo "$table"
echo "the table and every log: $report; as JSON: $report.json"
exit $failed
