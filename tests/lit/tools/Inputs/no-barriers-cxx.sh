#!/bin/sh
# A host compiler that builds every kernel from a copy of the templates with
# every plain `__syncthreads();` deleted, in the templates and in the unit
# (for host-check.mlir: the race check must report what the barriers kept
# apart). With SPECTRAL_DELETE_BARRIER=FILE:LINE (a template's name and a
# line of it) only that line's barrier is deleted (scripts/dev barriers).
templates=
for arg in "$@"; do
  case "$arg" in
    */host_emulation.h | */host_check_access.cc) templates=$(dirname "$arg") ;;
  esac
done
[ -n "$templates" ] || exec c++ "$@"  # --version
copy=$(mktemp -d) || exit 1
trap 'rm -rf "$copy"' EXIT
cp -r "$templates"/. "$copy"/ || exit 1
one=${SPECTRAL_DELETE_BARRIER:-}
if [ -n "$one" ]; then
  file=${one%:*} line=${one##*:}
  grep -q '__syncthreads();' "$copy/$file" 2>/dev/null || { echo "no $file in $templates" >&2; exit 1; }
  sed -i "${line}s/__syncthreads();//" "$copy/$file" || exit 1
else
  sed -i 's/__syncthreads();//g' "$copy"/*.cuh || exit 1
fi
for arg in "$@"; do
  shift
  case "$arg" in
    "$templates"*) arg="$copy${arg#"$templates"}" ;;
    *.cu) [ -n "$one" ] || sed -i 's/__syncthreads();//g' "$arg" ;;
  esac
  set -- "$@" "$arg"
done
c++ "$@"
