#!/usr/bin/env bash
# Installs dependencies, checks the formatting, builds, and runs every test (unit and
# end-to-end, and the fuzz targets' corpus replays) through ctest; then fuzzes every target for a
# few seconds under ASan and UBSan (scripts/fuzz.sh; FUZZ_SECONDS=0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/format.sh --check
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
fuzz_seconds=${FUZZ_SECONDS:-5}
if [ "$fuzz_seconds" != 0 ]; then
  bash scripts/fuzz.sh "$fuzz_seconds"
fi
