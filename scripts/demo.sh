#!/usr/bin/env bash
# Installs dependencies, builds, and runs the main job on the bundled sample (data/sample/):
# import into a fresh database, classify the issues, then print the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >/dev/null
bash scripts/build.sh >/dev/null
db=build/demo.db
rm -f "$db" "$db-wal" "$db-shm"
cf() { ./build/convfail --db "$db" "$@"; }
cf import data/sample/*.json data/sample/*.jsonl
cf classify
cf stats
