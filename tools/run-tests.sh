#!/usr/bin/env bash
# Installs, builds and runs the whole test suite: lit (IR, importer, errors,
# codegen, runtime gtests, end-to-end against onnxruntime, ONNX node tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
echo "== lit"
rc=0
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv --xunit-xml-output build/test-results.xml build/test || rc=$?
# One closing line, counted from lit's own results.
python3 - build/test-results.xml <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.iter("testcase")
total = failed = skipped = 0
for c in cases:
    total += 1
    failed += c.find("failure") is not None or c.find("error") is not None
    skipped += c.find("skipped") is not None
print(f"{total - failed - skipped} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
