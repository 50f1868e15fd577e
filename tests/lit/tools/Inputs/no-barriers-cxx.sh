#!/bin/sh
# A host compiler that builds every kernel from a copy of the templates with
# every plain `__syncthreads();` deleted, in the templates and in the unit
# (for host-check.mlir: the race check must report what the barriers kept
# apart).
templates=
for arg in "$@"; do
  case "$arg" in
    */host_emulation.h | */host_check_access.cc) templates=$(dirname "$arg") ;;
  esac
done
[ -n "$templates" ] || exec c++ "$@"  # --version
copy=$(mktemp -d) || exit 1
trap 'rm -rf "$copy"' EXIT
cp -r "$templates"/. "$copy"/ && sed -i 's/__syncthreads();//g' "$copy"/*.cuh || exit 1
for arg in "$@"; do
  shift
  case "$arg" in
    "$templates"*) arg="$copy${arg#"$templates"}" ;;
    *.cu) sed -i 's/__syncthreads();//g' "$arg" ;;
  esac
  set -- "$@" "$arg"
done
c++ "$@"
