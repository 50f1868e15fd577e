#!/bin/sh
# A host compiler that builds every kernel one element off: each elementwise
# kernel's store to out0[i] goes to out0[i + 1] (for host-check.mlir: the
# bounds check must catch the last thread's write past the end).
for arg in "$@"; do
  case "$arg" in
    *.cu) sed -i 's/out0\[i\] = /out0[i + 1] = /' "$arg" ;;
  esac
done
exec c++ "$@"
