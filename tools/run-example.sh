#!/usr/bin/env bash
# Installs, builds, then compiles the example model (ResNet-18, built by
# models/build_models.py with seeded weights) and runs it on a random input.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
echo "== dlc compile build/models/resnet18.onnx -o build/resnet18.so"
time build/tools/dlc/dlc compile build/models/resnet18.onnx -o build/resnet18.so
build/tools/dlc/dlc inspect build/resnet18.so | head -7
echo "== dlc run build/resnet18.so --output-dir build/example-out --repeat 20 --print-time"
build/tools/dlc/dlc run build/resnet18.so --output-dir build/example-out --repeat 20 --print-time
