#!/usr/bin/env bash
# Installs dependencies, builds, and runs the main job on the bundled sample (data/sample/):
# import into a fresh database, classify automatically, load the hand labels of the sample,
# measure the classifier against them, and print the study's taxonomy tables.
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
step "taxonomy tables from the classifier's labels, compared with the hand labels"
cf report --source classifier --compare sample
