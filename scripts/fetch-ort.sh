#!/usr/bin/env bash
# Fetch the ONNX Runtime shared library that `ort` (load-dynamic) opens at run time.
#
# Source: the official `onnxruntime` wheel on PyPI (any cp3xx manylinux x86_64 wheel carries the
# same C library). Nothing is built; the library is unzipped into third_party/ort/ (gitignored)
# and the script prints the ORT_DYLIB_PATH line to export.
#
#   scripts/fetch-ort.sh            # onnxruntime 1.32.0 (the pinned, tested version)
#   ORT_VERSION=1.31.1 scripts/fetch-ort.sh
#   export ORT_DYLIB_PATH="$(scripts/fetch-ort.sh --print-path)"   # only the path on stdout
#
# Wheels before 1.19 contain no libonnxruntime.so and cannot be used.
set -euo pipefail

PRINT_PATH=0
for arg in "$@"; do
  case "$arg" in
    --print-path) PRINT_PATH=1 ;;
    *) echo "error: unknown argument '$arg' (use --print-path or nothing)" >&2; exit 2 ;;
  esac
done

ORT_VERSION="${ORT_VERSION:-1.32.0}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/third_party/ort"
LIB="$DEST/libonnxruntime.so.$ORT_VERSION"

if [[ -f "$LIB" ]]; then
  echo "already present: $LIB" >&2
else
  PIP="${PIP:-pip}"
  command -v "$PIP" >/dev/null || PIP="python3 -m pip"
  TMP="$(mktemp -d)"
  trap 'rm -rf "$TMP"' EXIT
  $PIP download --no-deps --only-binary=:all: --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64 \
    --python-version 3.11 "onnxruntime==$ORT_VERSION" -d "$TMP" >&2
  WHEEL="$(ls "$TMP"/onnxruntime-"$ORT_VERSION"-*.whl | head -n1)"
  mkdir -p "$DEST"
  python3 "$ROOT/scripts/unwheel.py" --flat --hint " (wheels before 1.19 have none)" \
    "$WHEEL" "$DEST" onnxruntime/capi/libonnxruntime.so
  if [[ ! -f "$LIB" ]]; then
    echo "error: $WHEEL did not contain libonnxruntime.so.$ORT_VERSION (found: $(ls "$DEST"))" >&2
    exit 1
  fi
fi
if [[ "$PRINT_PATH" == 1 ]]; then
  echo "$LIB"
else
  echo "export ORT_DYLIB_PATH=$LIB"
fi
