#!/usr/bin/env bash
# Configures and builds convfail into build/ (Release, Ninja, ccache when installed). Extra
# arguments go to cmake --build. In CI (CI=true) warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."
werror=OFF
[ "${CI:-}" = true ] && werror=ON
generator=()
[ -f build/CMakeCache.txt ] || { command -v ninja >/dev/null && generator=(-G Ninja); }
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCONVFAIL_WERROR=$werror >/dev/null
cmake --build build -j"$(nproc)" "$@"
