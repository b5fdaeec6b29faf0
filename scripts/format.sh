#!/usr/bin/env bash
# Formats every tracked C++ file with clang-format (.clang-format); --check only reports.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = --check ]; then
  clang-format --dry-run --Werror "${files[@]}"
  echo "format-check: ${#files[@]} files formatted"
else
  clang-format -i "${files[@]}"
fi
