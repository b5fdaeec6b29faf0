#!/usr/bin/env bash
# Installs dependencies, checks the formatting, builds, and runs every test (unit and
# end-to-end) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/format.sh --check
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
