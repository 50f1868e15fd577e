#!/usr/bin/env bash
# purefft_test.sh PUREFFT - a short PureFFT training run on Fashion-MNIST (the
# README's main job) on the host device: 200 Adam steps on 12800 images lower
# the training loss below 0.6 and reach 78% test accuracy on 2000 test
# images, and a second run with the same seed gives the same curve.
set -euo pipefail
purefft=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {
  "$purefft" --device=host --epochs=2 --train-limit=12800 --test-limit=2000 --seed=3 \
    --curve="$work/$1.csv" > "$work/$1.log" 2>&1 || { cat "$work/$1.log"; exit 1; }
}
run first
run second
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
