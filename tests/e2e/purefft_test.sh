#!/usr/bin/env bash
# purefft_test.sh PUREFFT - a short PureFFT training run on Fashion-MNIST (the
# README's main job) on the host device: 200 Adam steps on 12800 images lower
# the training loss below 0.6 and reach 78% test accuracy on 2000 test
# images, a second run with the same seed gives the same curve, and a run
# stopped after epoch 1 and resumed from its checkpoint ends with a
# checkpoint identical, byte for byte, to the uninterrupted run's.
set -euo pipefail
purefft=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {
  local name=$1
  shift
  "$purefft" --device=host --train-limit=12800 --test-limit=2000 --seed=3 \
    --curve="$work/$name.csv" "$@" > "$work/$name.log" 2>&1 || { cat "$work/$name.log"; exit 1; }
}
run first --epochs=2 --checkpoint="$work/first.spc"
run second --epochs=2
run stopped --epochs=1 --checkpoint="$work/resumed.spc"
run resumed --epochs=2 --resume="$work/resumed.spc" --checkpoint="$work/resumed.spc"
cat "$work/first.log" | grep -v '^epoch [0-9]*/'
# epoch,step,train_loss,test_accuracy,seconds
read -r loss accuracy < <(tail -n 1 "$work/first.csv" | awk -F, '{print $3, $4}')
awk -v loss="$loss" -v accuracy="$accuracy" 'BEGIN {
  if (loss >= 0.6) { print "FAIL: final training loss " loss " is not below 0.6"; exit 1 }
  if (accuracy < 78) { print "FAIL: test accuracy " accuracy "% is below 78%"; exit 1 }
  print "PASS: training loss " loss " < 0.6, test accuracy " accuracy "% >= 78%"
}'
if ! diff <(cut -d, -f1-4 "$work/first.csv") <(cut -d, -f1-4 "$work/second.csv"); then
  echo "FAIL: two runs with the same seed differ"
  exit 1
fi
echo "PASS: the same seed gives the same curve"
if ! cmp "$work/first.spc" "$work/resumed.spc"; then
  echo "FAIL: the resumed run's checkpoint differs from the uninterrupted run's"
  exit 1
fi
echo "PASS: stopped after epoch 1 and resumed, the run ends exactly where the uninterrupted one does"
