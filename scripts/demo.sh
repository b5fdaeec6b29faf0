#!/usr/bin/env bash
# Installs dependencies, builds, and runs the main job on the bundled sample (data/sample/):
# import into a fresh database, classify automatically, load the hand labels of the sample,
# measure the classifier against them, re-run the sample's PyTorch repro scripts in the sandbox
# (reproduce --all), print the study's taxonomy tables (with the defects the re-runs confirmed),
# then run a small converter campaign (20 synthetic models, a few seconds) and print its outcome
# table.
set -euo pipefail
cd "$(dirname "$0")/.."
# The demo needs no browser: Chromium is installed for the test suite only (scripts/test.sh).
CONVFAIL_WITH_BROWSER="${CONVFAIL_WITH_BROWSER:-0}" bash scripts/install-deps.sh >/dev/null
bash scripts/build.sh >/dev/null
db=build/demo.db
rm -f "$db" "$db-wal" "$db-shm"
cf() { ./build/convfail --db "$db" "$@"; }
step() { printf '\n== %s\n' "$*"; }
step "import the sample issues"
cf import data/sample/*.json data/sample/*.jsonl
cf stats
step "classify (rules in data/rules/)"
cf classify
step "hand labels of the sample (annotator 'sample') and the classifier measured against them"
cf labels import data/sample/labels.csv --annotator sample
cf eval --gold sample
step "confirm: find the sample's models and scripts and re-run them in the sandbox (README step 5)"
if /usr/bin/python3 -c 'import torch, onnx' 2>/dev/null; then
  cf reproduce --all || echo "(reproduce --all failed: see the line above)"
else
  echo "(skipped: python3-torch or python3-onnx is not installed)"
fi
step "taxonomy tables from the classifier's labels, compared with the hand labels"
cf report --source classifier --compare sample
step "a small converter campaign: 20 synthetic models over NNSmith's nine tensor types"
if /usr/bin/python3 -c 'import torch, onnx' 2>/dev/null &&
  [ -d build/share/convfail/runner/node_modules/onnxruntime-node ]; then
  cf test run --source synthetic --models 20 --nodes 3-12:3 --dtypes all --inputs 1 --no-minimise
  cf test groups
else
  echo "(skipped: python3-torch, python3-onnx or onnxruntime-node is not installed)"
fi
