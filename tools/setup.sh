#!/usr/bin/env bash
# Installs dlc's dependencies on Debian 12 and builds it (into build/).
# Used by tools/run-example.sh and tools/run-tests.sh; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
PACKAGES=(cmake ninja-build clang-19 lld-19 llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
          libonnx-dev libprotobuf-dev protobuf-compiler nlohmann-json3-dev libgtest-dev
          python3 python3-venv python3-pip binutils zlib1g-dev dataset-fashion-mnist)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Test and benchmark tooling (onnx, onnxruntime as on the device machine).
if ! .venv/bin/python -c "import onnx, onnxruntime, numpy" 2>/dev/null; then
  echo "== creating .venv (onnx, onnxruntime, numpy)"
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check onnx==1.23.2 onnxruntime==1.30.0 numpy
fi

echo "== building dlc"
if [ ! -f build/build.ninja ]; then
  mkdir -p build
  cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DLLVM_ENABLE_LLD=ON \
    -DDLC_PYTHON="$PWD/.venv/bin/python" > build/configure.log || { cat build/configure.log; exit 1; }
fi
ninja -C build
echo "== building the models"
.venv/bin/python models/build_models.py build/models
